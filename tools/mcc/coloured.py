#!/usr/bin/env python3
"""Answer the contest's examinations on its coloured instances and score them against the
contest's answers.

Usage: tools/mcc/coloured.py [--timeout S] [--jobs N] [--examinations E,E] [--binary B]
                             [--instances NAME,NAME] [MCC_DIR]

MCC_DIR defaults to ../shared/mcc (one folder per instance, oracle.tsv beside them). Every
coloured instance (iscolored TRUE) is answered with `unfold mcc --examination E --timeout S`
for each examination E (default StateSpace, ReachabilityDeadlock, ReachabilityCardinality,
ReachabilityFireability, UpperBounds). Prints, per examination, how many answers were asked
for, given, known to the contest and given right (the answered share), and every wrong
answer; exits 1 when an answer differs from a known one.
"""

import argparse
import collections
import concurrent.futures
import csv
import os
import subprocess
import sys
import time

EXAMS = [
    "StateSpace",
    "ReachabilityDeadlock",
    "ReachabilityCardinality",
    "ReachabilityFireability",
    "UpperBounds",
]


def run(binary, folder, exam, timeout):
    """The (id, value) pairs `unfold mcc` answers, its time and exit code."""
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [binary, "mcc", "--dir", folder, "--examination", exam, "--timeout", f"{timeout}s"],
            capture_output=True,
            text=True,
            timeout=timeout * 2 + 60,
        )
        out, rc = proc.stdout, proc.returncode
    except subprocess.TimeoutExpired:
        out, rc = "", "killed"
    answers = []
    for line in out.splitlines():
        words = line.split()
        # `FORMULA <id> <value> …` and `STATE_SPACE <id> <value> …`.
        if len(words) >= 3 and words[0] in ("FORMULA", "STATE_SPACE"):
            answers.append((words[1], words[2]))
    return answers, time.monotonic() - start, rc


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
    args = ap.parse_args()

    # (instance, examination) -> {id: answer}
    oracle = collections.defaultdict(dict)
    with open(os.path.join(args.mcc, "oracle.tsv")) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            oracle[(row["instance"], row["examination"])][row["id"]] = row["answer"]
    wanted = set(filter(None, args.instances.split(",")))
    instances = []
    for name in sorted(os.listdir(args.mcc)):
        folder = os.path.join(args.mcc, name)
        iscolored = os.path.join(folder, "iscolored")
        if not os.path.isfile(iscolored) or (wanted and name not in wanted):
            continue
        if open(iscolored).read().strip() == "TRUE":
            instances.append((name, folder))
    exams = args.examinations.split(",")
    jobs = [(n, f, e) for (n, f) in instances for e in exams]

    asked = collections.Counter()
    answered = collections.Counter()
    known = collections.Counter()
    right = collections.Counter()
    wrong = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run, args.binary, f, e, args.timeout): (n, e) for (n, f, e) in jobs}
        for fut in concurrent.futures.as_completed(futures):
            name, exam = futures[fut]
            answers, seconds, rc = fut.result()
            truth = oracle.get((name, exam), {})
            asked[exam] += len(truth)
            known[exam] += sum(1 for v in truth.values() if v != "?")
            given = 0
            for fid, value in answers:
                if value in ("CANNOT_COMPUTE", "DO_NOT_COMPETE"):
                    continue
                given += 1
                answered[exam] += 1
                t = truth.get(fid, "?")
                if t == "?":
                    continue
                if t == value:
                    right[exam] += 1
                else:
                    wrong.append(f"{name} {fid}: answered {value}, the contest says {t}")
            print(f"{name} {exam}: {given}/{len(truth)} in {seconds:.1f} s (exit {rc})", file=sys.stderr)

    print(f"{len(instances)} coloured instances, timeout {args.timeout:g} s per instance and examination")
    print(f"{'examination':26} {'asked':>6} {'answered':>9} {'known':>6} {'known given':>12}")
    for exam in exams:
        share = 100.0 * right[exam] / known[exam] if known[exam] else 0.0
        print(f"{exam:26} {asked[exam]:6} {answered[exam]:9} {known[exam]:6} {right[exam]:6} ({share:5.1f} %)")
    for line in wrong:
        print("WRONG " + line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
