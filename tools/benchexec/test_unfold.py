#!/usr/bin/env python3
"""Checks tools/benchexec/unfold.py on real runs of the release binary: the command lines it
builds are run, and the results and values it reads from them must be the expected ones.

    PYTHONPATH=. python3 tools/benchexec/test_unfold.py   (from the repository root, after
    cargo build --release; ../shared/nets must exist)

Exits non-zero on the first disagreement.
"""

import os
import subprocess
import sys
import tempfile

from benchexec import util
from benchexec.tools.template import BaseTool2

from tools.benchexec.unfold import Tool

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NETS = os.path.join(ROOT, "..", "shared", "nets")


def run(tool, executable, options, input_file, limits=(None, None)):
    """Runs unfold as BenchExec would and returns (result, output)."""
    cputime, memory = limits
    task = BaseTool2.Task.with_files([input_file])
    rlimits = BaseTool2.ResourceLimits(cputime=cputime, memory=memory)
    cmdline = tool.cmdline(executable, options, task, rlimits)
    proc = subprocess.run(
        cmdline,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # BenchExec merges them into one output file
        universal_newlines=True,
        check=False,
    )
    output = BaseTool2.RunOutput(proc.stdout.splitlines())
    exit_code = util.ProcessExitCode.create(value=proc.returncode)
    result = tool.determine_result(BaseTool2.Run(cmdline, exit_code, output, None))
    return result, output, cmdline


# One UpperBounds formula on ERK: the bound of RKIP is 1 (it starts with one token, and a
# P-semiflow keeps the tokens of RKIP and its complexes at one).
UPPER_BOUNDS = """<?xml version="1.0"?>
<property-set xmlns="http://mcc.lip6.fr/">
  <property>
    <id>ERK-UB-0</id>
    <description>bound of RKIP</description>
    <formula><place-bound><place>RKIP</place></place-bound></formula>
  </property>
</property-set>
"""


def main():
    if not os.path.isdir(NETS):
        sys.exit(f"{NETS} is missing")
    tool = Tool()
    executable = tool.executable(BaseTool2.ToolLocator(tool_directory=ROOT))
    failures = []

    def expect(what, got, want):
        if got != want:
            failures.append(f"{what}: got {got!r}, want {want!r}")
        print(f"{'ok  ' if got == want else 'FAIL'} {what}: {got!r}")

    expect("version", tool.version(executable).count("."), 2)
    pnml = lambda name: os.path.join(NETS, "pnml", name + ".pnml")  # noqa: E731

    # The DPOR finds the philosophers' deadlock; its statistics are read back.
    result, out, _ = run(tool, executable, ["run", "--cutoffs"], pnml("Philosophers-PT-000005"))
    expect("dpor deadlock", result, "false(no-deadlock)")
    for field in ("events", "cutoffs", "maximal_configurations"):
        value = tool.get_value_from_output(out, field)
        expect(f"dpor {field} is a number", value.isdigit(), True)
    # A program whose final check fails in two interleavings: a failed assertion, not a
    # deadlock, in the DPOR as in Event-DPOR.
    racy = os.path.join(ROOT, "nets", "programs", "racy-counter.tsys")
    for mode in (["run"], ["run", "--cutoffs"], ["edpor"]):
        result, _, _ = run(tool, executable, mode, racy)
        expect(f"{' '.join(mode)} assertion failure", result, "false(unreach-call)")
    # Explicit reachability: no deadlock, 13 markings (MCC's figure for ERK-PT-000001).
    result, out, _ = run(tool, executable, ["reach"], pnml("ERK-PT-000001"))
    expect("reach no deadlock", result, "true")
    expect("reach states", tool.get_value_from_output(out, "states"), "13")
    # The prefix without a deadlock question: done, with its size.
    result, out, _ = run(tool, executable, ["prefix"], pnml("Dekker-PT-010"))
    expect("prefix done", result, "done")
    expect("prefix events", tool.get_value_from_output(out, "events").isdigit(), True)
    result, _, _ = run(tool, executable, ["prefix", "--deadlock"], pnml("Dekker-PT-010"))
    expect("prefix no deadlock", result, "true")
    # A limit: 2 s of CPU for 2.5 million markings, passed on as unfold's own --timeout.
    result, out, cmd = run(tool, executable, ["reach"], pnml("Kanban-PT-00005"), (2, None))
    expect("timeout passed on", "--timeout" in cmd, True)
    expect("reach timeout", result, "TIMEOUT")
    expect("incomplete", tool.get_value_from_output(out, "complete"), "false")
    # Bad input.
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "bad.pnml")
        with open(bad, "w") as f:
            f.write("<pnml><net")
        result, _, _ = run(tool, executable, ["info"], bad)
        expect("bad input is an error", result.startswith("ERROR ("), True)
        # unfold mcc on an instance folder.
        folder = os.path.join(tmp, "ERK")
        os.mkdir(folder)
        with open(pnml("ERK-PT-000001"), "rb") as src, open(
            os.path.join(folder, "model.pnml"), "wb"
        ) as dst:
            dst.write(src.read())
        model = os.path.join(folder, "model.pnml")
        result, out, _ = run(tool, executable, ["mcc", "--examination", "StateSpace"], model)
        expect("mcc StateSpace", result, "done")
        expect("mcc states", tool.get_value_from_output(out, "states"), "13")
        result, _, _ = run(tool, executable, ["mcc", "--examination", "Liveness"], model)
        expect("mcc Liveness", result, "true")
        # A formula examination reads its formulas beside the model: without the file, the
        # answer is CANNOT_COMPUTE (an error); with it, one FORMULA line per formula.
        result, _, _ = run(tool, executable, ["mcc", "--examination", "UpperBounds"], model)
        expect("mcc formulas missing", result.startswith("ERROR"), True)
        with open(os.path.join(folder, "UpperBounds.xml"), "w") as f:
            f.write(UPPER_BOUNDS)
        result, out, _ = run(tool, executable, ["mcc", "--examination", "UpperBounds"], model)
        expect("mcc UpperBounds", result, "done")
        expect("mcc bound line", any(l.startswith("FORMULA ERK-UB-0 1 ") for l in out), True)
        result, _, _ = run(tool, executable, ["mcc", "--examination", "ReachabilityComputeBounds"], model)
        expect("mcc unsupported", result, "DO_NOT_COMPETE")

    if failures:
        sys.exit("\n".join(failures))


if __name__ == "__main__":
    main()
