#!/usr/bin/env python3
"""Write larger sizes of two coloured contest families, for tools/bench_coloured.sh.

Usage: tools/gen_coloured.py FAMILY N OUT.pnml

FAMILY is `philosophers` (Philosophers-COL: N philosophers, a cyclic enumeration of N
colours) or `tokenring` (TokenRing-COL: N+1 processes, places over pairs of processes). The
template is the family's smallest instance in ../shared (Philosophers-COL-000005 in
nets/pnml/col, TokenRing-COL-005 in mcc), with its enumeration of processes replaced by one of
the asked size; the rest of the model is the contest's, unchanged. TokenRing's initial marking
names its constants one by one, so only Philosophers scales that way; TokenRing is scaled by
its enumeration and an initial marking `all` pairs (i, i) written out.
"""

import os
import re
import sys


def enumeration(prefix, names):
    return "".join(f'<feconstant id="{prefix}{n}" name="{n}"/>' for n in names)


def philosophers(n, shared):
    text = open(os.path.join(shared, "nets/pnml/col/Philosophers-COL-000005.pnml")).read()
    consts = enumeration("Id", range(1, n + 1))
    text = re.sub(r"<cyclicenumeration>.*?</cyclicenumeration>",
                  f"<cyclicenumeration>{consts}</cyclicenumeration>", text, flags=re.S)
    return text.replace("Philosophers-COL-000005", f"Philosophers-COL-{n:06d}")


def tokenring(n, shared):
    text = open(os.path.join(shared, "mcc/TokenRing-COL-005/model.pnml")).read()
    m = re.search(r'<feconstant id="([A-Za-z_]+)0"', text)
    prefix = m.group(1) if m else "process"
    consts = enumeration(prefix, range(0, n + 1))
    text = re.sub(r"<cyclicenumeration>.*?</cyclicenumeration>",
                  f"<cyclicenumeration>{consts}</cyclicenumeration>", text, count=1, flags=re.S)
    # The initial marking of State: (i, i) for every process.
    pairs = "".join(
        "<subterm><numberof><subterm><numberconstant value=\"1\"><positive/></numberconstant>"
        f"</subterm><subterm><tuple><subterm><useroperator declaration=\"{prefix}{i}\"/></subterm>"
        f"<subterm><useroperator declaration=\"{prefix}{i}\"/></subterm></tuple></subterm>"
        "</numberof></subterm>" for i in range(n + 1))
    text = re.sub(r"(<place id=\"State\">.*?<hlinitialMarking>.*?<structure>).*?(</structure>)",
                  lambda mm: mm.group(1) + f"<add>{pairs}</add>" + mm.group(2), text, count=1, flags=re.S)
    return text.replace("TokenRing-COL-005", f"TokenRing-COL-{n:03d}")


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    family, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    here = os.path.dirname(os.path.abspath(__file__))
    shared = os.path.normpath(os.path.join(here, "..", "..", "shared"))
    gen = {"philosophers": philosophers, "tokenring": tokenring}.get(family)
    if gen is None:
        print(f"unknown family {family}", file=sys.stderr)
        return 2
    with open(out, "w") as f:
        f.write(gen(n, shared))
    return 0


if __name__ == "__main__":
    sys.exit(main())
