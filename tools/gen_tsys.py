#!/usr/bin/env python3
"""Scalable `.tsys` program families for benchmarking Event-DPOR against the unfolding DPOR.

  posts N K        N threads each post one message to handler h; messages 2j and 2j+1
                   (j < K) both write variable c_j, the others write private variables.
                   Event-DPOR: 2^K executions; handlers serialised: N! traces.
  readers N        one writer thread (x = 1) and N reader threads (a = x): 2^N for both.
  readers-msg N    one writer thread and N reader messages on handler h, each posted by its
                   own thread: Event-DPOR 2^N; handlers serialised: N! * (N + 1).
  counter N        N threads incrementing a lock-protected counter: N! for both.

Usage: tools/gen_tsys.py FAMILY N [K] [-o FILE]   (standard output by default)
"""

import argparse
import sys


def posts(n, k):
    if 2 * k > n:
        sys.exit(f"posts: 2K = {2 * k} conflicting messages need N >= 2K (N = {n})")
    shared = [f"c{j}" for j in range(k)]
    private = [f"v{i}" for i in range(n)]
    lines = [f"// {n} threads post one message each to h; {k} pairs of messages conflict."]
    lines.append(f"var {', '.join(shared + private)};")
    lines.append("handler h;")
    for i in range(n):
        target = f"c{i // 2}" if i < 2 * k else f"v{i}"
        lines.append(f"message p{i} {{ {target} = {i + 1}; }}")
    for i in range(n):
        lines.append(f"thread t{i} {{ post h p{i}; }}")
    return lines


def readers(n):
    lines = [f"// One writer and {n} readers of x."]
    lines.append("var x;")
    lines.append("thread w { x = 1; }")
    for i in range(n):
        lines.append(f"thread r{i} {{ a = x; }}")
    return lines


def readers_msg(n):
    lines = [f"// One writer thread and {n} reader messages on one handler."]
    lines.append("var x;")
    lines.append("handler h;")
    lines.append("message r { a = x; }")
    lines.append("thread w { x = 1; }")
    for i in range(n):
        lines.append(f"thread s{i} {{ post h r; }}")
    return lines


def counter(n):
    lines = [f"// {n} threads increment a counter under a lock."]
    lines.append("var count;")
    lines.append("lock m;")
    for i in range(n):
        lines.append(f"thread t{i} {{ lock m; c = count; count = c + 1; unlock m; }}")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("family", choices=["posts", "readers", "readers-msg", "counter"])
    ap.add_argument("n", type=int)
    ap.add_argument("k", type=int, nargs="?", default=1)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    if a.n < 1:
        sys.exit("N must be at least 1")
    if a.family == "posts":
        lines = posts(a.n, a.k)
    elif a.family == "readers":
        lines = readers(a.n)
    elif a.family == "readers-msg":
        lines = readers_msg(a.n)
    else:
        lines = counter(a.n)
    text = "\n".join(lines) + "\n"
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
