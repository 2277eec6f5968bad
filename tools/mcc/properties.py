#!/usr/bin/env python3
"""Answer the examinations of the contest's instances and score them against the contest's
answers: the formula examinations (16 formulas each) and the global properties
(ReachabilityDeadlock, OneSafe, QuasiLiveness, StableMarking, Liveness: one answer each).

Usage: tools/mcc/properties.py [--timeout S] [--jobs N] [--examinations E,E] [--binary B]
                               [--instances NAME,NAME] [--csv OUT] [--coloured]
                               [--no-reduce] [MCC_DIR]

MCC_DIR defaults to ../shared/mcc (one folder per instance, oracle.tsv beside them). Every
P/T instance (iscolored FALSE; with --coloured every coloured one) is answered with `unfold mcc --examination E --timeout S`
for each examination E (default ReachabilityCardinality, ReachabilityFireability,
UpperBounds; also LTLCardinality, LTLFireability, CTLCardinality, CTLFireability;
StateSpace; `--examinations global` for the five global properties). Prints, per examination and per
engine (the TECHNIQUES of the answer line),
how many formulas were answered, how many of the contest's known answers were given, and
every wrong answer; exits 1 when an answer differs from a known one. `--no-reduce` passes
`--no-reduce` to `unfold mcc` (the engines on the nets as given, to compare); answers found on
a reduced net count under their engine with `+reduced`.
"""

import argparse
import collections
import concurrent.futures
import csv
import os
import subprocess
import sys
import time

EXAMS = ["ReachabilityCardinality", "ReachabilityFireability", "UpperBounds"]
GLOBAL = ["ReachabilityDeadlock", "OneSafe", "QuasiLiveness", "StableMarking", "Liveness"]


def engine_of(line):
    words = line.split()
    if "TECHNIQUES" not in words:
        return "none"
    tech = words[words.index("TECHNIQUES") + 1 :]
    if "STRUCTURAL_REDUCTION" in tech:
        rest = [t for t in tech if t != "STRUCTURAL_REDUCTION"]
        return engine_of(" ".join(words[: words.index("TECHNIQUES") + 1] + rest)) + "+reduced"
    if "SAT_SMT" in tech and "TOPOLOGICAL" in tech:
        return "traps"
    if "SAT_SMT" in tech:
        return "prefix"
    if "TOPOLOGICAL" in tech:
        return "structural"
    if "STUBBORN_SETS" in tech:
        return "explicit+stubborn"
    if "EXPLICIT" in tech:
        return "explicit"
    return "+".join(tech)


def run(binary, folder, exam, timeout, extra):
    start = time.monotonic()
    proc = subprocess.run(
        [binary, "mcc", "--dir", folder, "--examination", exam, "--timeout", f"{timeout}s"]
        + extra,
        capture_output=True,
        text=True,
        timeout=timeout * 2 + 60,
    )
    lines = [
        l for l in proc.stdout.splitlines() if l.startswith(("FORMULA ", "STATE_SPACE "))
    ]
    return lines, time.monotonic() - start, proc.returncode


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mcc", nargs="?", default=os.path.join(root, "..", "shared", "mcc"))
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--examinations", default=",".join(EXAMS))
    ap.add_argument("--instances", default="")
    ap.add_argument("--binary", default=os.path.join(root, "target", "release", "unfold"))
    ap.add_argument("--csv", default="")
    ap.add_argument("--coloured", action="store_true", help="the coloured instances instead")
    ap.add_argument("--no-reduce", action="store_true", help="unfold mcc --no-reduce")
    args = ap.parse_args()

    oracle = {}
    with open(os.path.join(args.mcc, "oracle.tsv")) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            # Global properties are named by the examination alone: key by instance too.
            oracle[(row["instance"], row["examination"], row["id"])] = row["answer"]
    wanted = set(filter(None, args.instances.split(",")))
    instances = []
    for name in sorted(os.listdir(args.mcc)):
        folder = os.path.join(args.mcc, name)
        iscolored = os.path.join(folder, "iscolored")
        if not os.path.isfile(iscolored) or (wanted and name not in wanted):
            continue
        if open(iscolored).read().strip() == ("TRUE" if args.coloured else "FALSE"):
            instances.append((name, folder))
    exams = GLOBAL if args.examinations == "global" else args.examinations.split(",")
    jobs = [(n, f, e) for (n, f) in instances for e in exams]
    extra = ["--no-reduce"] if args.no_reduce else []

    # exam -> counters
    asked = collections.Counter()
    answered = collections.Counter()
    known = collections.Counter()
    known_given = collections.Counter()
    by_engine = collections.Counter()
    wrong = []
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run, args.binary, f, e, args.timeout, extra): (n, e) for (n, f, e) in jobs}
        for fut in concurrent.futures.as_completed(futures):
            name, exam = futures[fut]
            lines, seconds, rc = fut.result()
            ids = [k for (i, e, k) in oracle if i == name and e == exam]
            asked[exam] += len(ids)
            known[exam] += sum(1 for k in ids if oracle[(name, exam, k)] != "?")
            for line in lines:
                words = line.split()
                fid, value = words[1], words[2]
                engine = engine_of(line)
                rows.append([name, exam, fid, value, engine, f"{seconds:.2f}"])
                if value == "CANNOT_COMPUTE":
                    continue
                answered[exam] += 1
                by_engine[(exam, engine)] += 1
                truth = oracle.get((name, exam, fid), "?")
                if truth != "?":
                    if truth == value:
                        known_given[exam] += 1
                    else:
                        wrong.append(f"{fid}: answered {value}, the contest says {truth}")
            print(f"{name} {exam}: {sum(1 for l in lines if 'CANNOT_COMPUTE' not in l)}/{len(ids)} in {seconds:.1f} s (exit {rc})", file=sys.stderr)

    kind = "coloured" if args.coloured else "P/T"
    print(f"{len(instances)} {kind} instances, timeout {args.timeout:g} s per instance and examination")
    print(f"{'examination':26} {'asked':>6} {'answered':>9} {'known':>6} {'known given':>12}  by engine")
    for exam in exams:
        engines = ", ".join(f"{e} {c}" for (x, e), c in sorted(by_engine.items()) if x == exam)
        share = 100.0 * known_given[exam] / known[exam] if known[exam] else 0.0
        print(f"{exam:26} {asked[exam]:6} {answered[exam]:9} {known[exam]:6} {known_given[exam]:6} ({share:5.1f} %)  {engines}")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["instance", "examination", "id", "answer", "engine", "seconds"])
            w.writerows(sorted(rows))
    for line in wrong:
        print("WRONG " + line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
