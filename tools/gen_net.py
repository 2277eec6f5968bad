#!/usr/bin/env python3
"""Generate scalable Petri-net families with known answers, as PNML or PEP.

Usage: tools/gen_net.py FAMILY N [--format pnml|pep] [-o OUT]

Families (all 1-safe):
  philosophers N  dining philosophers, left fork first (4N places, 3N transitions); deadlocks when every philosopher holds its left fork.
  pairs N         N independent pairs of racing transitions on N places: 2^N maximal runs up
                  to interleaving, 2N events, 3^N reachable markings, 2^N of them deadlocks.
  chain N         one token through N transitions in sequence: 1 run, N events.
  conflict N      one token, N transitions competing for it: N runs, N events.
  ring N          a token ring of N stations, each able to pass the token on or work locally;
                  never deadlocks (N states per token position, cyclic).
"""

import argparse
import sys
from xml.sax.saxutils import escape


class Net:
    def __init__(self, name):
        self.name = name
        self.places = []  # (id, initial)
        self.transitions = []  # (id, pre list, post list)

    def place(self, pid, initial=0):
        self.places.append((pid, initial))
        return pid

    def transition(self, tid, pre, post):
        self.transitions.append((tid, list(pre), list(post)))


def philosophers(n):
    net = Net(f"philosophers-{n}")
    for i in range(n):
        net.place(f"think_{i}", 1)
        net.place(f"fork_{i}", 1)
        net.place(f"hasLeft_{i}")
        net.place(f"eat_{i}")
    for i in range(n):
        j = (i + 1) % n
        net.transition(f"takeLeft_{i}", [f"think_{i}", f"fork_{i}"], [f"hasLeft_{i}"])
        net.transition(f"takeRight_{i}", [f"hasLeft_{i}", f"fork_{j}"], [f"eat_{i}"])
        net.transition(
            f"release_{i}", [f"eat_{i}"], [f"think_{i}", f"fork_{i}", f"fork_{j}"]
        )
    return net


def pairs(n):
    net = Net(f"pairs-{n}")
    for i in range(n):
        net.place(f"p_{i}", 1)
        net.place(f"a_done_{i}")
        net.place(f"b_done_{i}")
    for i in range(n):
        net.transition(f"a_{i}", [f"p_{i}"], [f"a_done_{i}"])
        net.transition(f"b_{i}", [f"p_{i}"], [f"b_done_{i}"])
    return net


def chain(n):
    net = Net(f"chain-{n}")
    for i in range(n + 1):
        net.place(f"s_{i}", 1 if i == 0 else 0)
    for i in range(n):
        net.transition(f"step_{i}", [f"s_{i}"], [f"s_{i + 1}"])
    return net


def conflict(n):
    net = Net(f"conflict-{n}")
    net.place("token", 1)
    for i in range(n):
        net.place(f"won_{i}")
    for i in range(n):
        net.transition(f"take_{i}", ["token"], [f"won_{i}"])
    return net


def ring(n):
    net = Net(f"ring-{n}")
    for i in range(n):
        net.place(f"idle_{i}", 1)
        net.place(f"token_{i}", 1 if i == 0 else 0)
        net.place(f"busy_{i}")
    for i in range(n):
        j = (i + 1) % n
        net.transition(f"pass_{i}", [f"token_{i}"], [f"token_{j}"])
        net.transition(f"work_{i}", [f"idle_{i}", f"token_{i}"], [f"busy_{i}", f"token_{i}"])
        net.transition(f"rest_{i}", [f"busy_{i}"], [f"idle_{i}"])
    return net


FAMILIES = {
    "philosophers": philosophers,
    "pairs": pairs,
    "chain": chain,
    "conflict": conflict,
    "ring": ring,
}


def write_pnml(net, out):
    w = out.write
    w('<?xml version="1.0" encoding="utf-8"?>\n')
    w('<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">\n')
    w(f' <net id="{escape(net.name)}" type="http://www.pnml.org/version-2009/grammar/ptnet">\n')
    w('  <page id="page0">\n')
    for pid, initial in net.places:
        w(f'   <place id="{pid}">\n    <name><text>{pid}</text></name>\n')
        if initial:
            w(f"    <initialMarking><text>{initial}</text></initialMarking>\n")
        w("   </place>\n")
    for tid, _, _ in net.transitions:
        w(f'   <transition id="{tid}"><name><text>{tid}</text></name></transition>\n')
    k = 0
    for tid, pre, post in net.transitions:
        for p in pre:
            w(f'   <arc id="a{k}" source="{p}" target="{tid}"/>\n')
            k += 1
        for p in post:
            w(f'   <arc id="a{k}" source="{tid}" target="{p}"/>\n')
            k += 1
    w("  </page>\n </net>\n</pnml>\n")


def write_pep(net, out):
    w = out.write
    w("PEP\nPTNet\nFORMAT_N2\nPL\n")
    index = {}
    for i, (pid, initial) in enumerate(net.places, 1):
        index[pid] = i
        w(f'{i}"{pid}"' + (f"M{initial}" if initial else "") + "\n")
    w("TR\n")
    for i, (tid, _, _) in enumerate(net.transitions, 1):
        w(f'{i}"{tid}"\n')
    w("TP\n")
    for i, (_, _, post) in enumerate(net.transitions, 1):
        for p in post:
            w(f"{i}<{index[p]}\n")
    w("PT\n")
    for i, (_, pre, _) in enumerate(net.transitions, 1):
        for p in pre:
            w(f"{index[p]}>{i}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("family", choices=sorted(FAMILIES))
    ap.add_argument("n", type=int)
    ap.add_argument("--format", choices=["pnml", "pep"], default="pnml")
    ap.add_argument("-o", "--output", help="output file (default: standard output)")
    args = ap.parse_args()
    if args.n < 1:
        ap.error("N must be at least 1")
    net = FAMILIES[args.family](args.n)
    out = open(args.output, "w") if args.output else sys.stdout
    with out:
        (write_pnml if args.format == "pnml" else write_pep)(net, out)


if __name__ == "__main__":
    main()
