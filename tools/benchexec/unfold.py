# BenchExec tool-info module for unfold (https://github.com/sosy-lab/benchexec).
#
# Use it with the repository root on PYTHONPATH and the module's full name:
#   PYTHONPATH=. benchexec tools/benchexec/unfold.xml          (tool="tools.benchexec.unfold")
#   PYTHONPATH=. python3 -m benchexec.test_tool_info tools.benchexec.unfold --tool-directory .
# The executable is looked up in <tool directory>/target/release, then in PATH.
#
# Runs: the first option names the mode (run, prefix, reach, info, mcc); the others follow
# it, then the input file, then `--json - --quiet` (the statistics as one JSON object on
# standard output). BenchExec's limits are passed on as `--timeout` (95 % of the CPU or wall
# time limit) and `--mem-limit` (75 % of the memory limit), unless the options set them, so
# that unfold stops by itself and prints its statistics marked incomplete.
#
# The `mcc` mode takes an MCC instance folder: the task is its model.pnml and unfold is run
# with `--dir` on the folder; its answer lines are read instead of JSON.
#
# Results: exit code 0 and no deadlock found: "true" (the no-deadlock property holds);
# 1 or a deadlock in the JSON: "false(no-deadlock)"; 3 (stopped by a limit): TIMEOUT,
# OUT OF MEMORY, ... from the JSON field `stopped`; 2: ERROR with unfold's message. Modes that
# do not look for deadlocks (`prefix` without --deadlock, `info`) give "done".

import json
import os

import benchexec.result as result
import benchexec.tools.template

# unfold's exit codes.
EXIT_CLEAN = 0
EXIT_FOUND = 1
EXIT_BAD_INPUT = 2
EXIT_STOPPED = 3

# unfold's `stopped` values and what BenchExec calls them.
STOP_RESULTS = {
    "timeout": result.RESULT_TIMEOUT,
    "memory_limit": "OUT OF MEMORY",
    "interrupted": "INTERRUPTED",
    "depth_limit": result.RESULT_UNKNOWN,
}


def _json_object(output):
    """The JSON object unfold printed (from the first line that is `{` to the last `}`)."""
    lines = list(output)
    starts = [i for i, line in enumerate(lines) if line.rstrip() == "{"]
    ends = [i for i, line in enumerate(lines) if line.rstrip() == "}"]
    if not starts or not ends or ends[-1] < starts[0]:
        return None
    try:
        value = json.loads("\n".join(lines[starts[0] : ends[-1] + 1]))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _mcc_answers(output):
    """The answer lines of `unfold mcc`: {key: value} for STATE_SPACE and FORMULA lines."""
    answers = {}
    for line in output:
        words = line.split()
        if len(words) >= 3 and words[0] in ("STATE_SPACE", "FORMULA"):
            answers[words[1]] = words[2]
        elif len(words) == 1 and words[0] in ("DO_NOT_COMPETE", "CANNOT_COMPUTE"):
            answers[words[0]] = words[0]
    return answers


class Tool(benchexec.tools.template.BaseTool2):
    """Tool info for unfold, partial-order verification of Petri nets and programs."""

    def executable(self, tool_locator):
        return tool_locator.find_executable("unfold", subdir="target/release")

    def name(self):
        return "unfold"

    def project_url(self):
        return None

    def version(self, executable):
        text = self._version_from_tool(executable)
        return text.split()[-1] if text else ""

    def cmdline(self, executable, options, task, rlimits):
        options = list(options)
        mode = options[0] if options else "run"
        limits = []
        seconds = rlimits.cputime or rlimits.walltime
        if seconds and "--timeout" not in options:
            limits += ["--timeout", f"{max(1.0, seconds * 0.95):.1f}s"]
        if rlimits.memory and "--mem-limit" not in options:
            limits += ["--mem-limit", str(int(rlimits.memory * 0.75))]
        if mode == "mcc":
            folder = os.path.dirname(task.single_input_file) or "."
            return [executable, *options, "--dir", folder, *limits]
        return [
            executable,
            *options,
            task.single_input_file,
            *limits,
            "--json",
            "-",
            "--quiet",
        ]

    def determine_result(self, run):
        if run.was_timeout:
            return result.RESULT_TIMEOUT
        code = run.exit_code.value
        mcc = _mcc_answers(run.output)
        if mcc:
            return self._mcc_result(mcc, code)
        stats = _json_object(run.output)
        if code == EXIT_BAD_INPUT or (stats is None and code not in (EXIT_FOUND,)):
            message = next(
                (line for line in run.output if line.startswith("error:")), ""
            )
            return f"ERROR ({message[len('error:'):].strip()})" if message else "ERROR"
        if stats is None:
            return result.RESULT_FALSE_DEADLOCK
        deadlock = stats.get("deadlocks", stats.get("deadlock"))
        found = deadlock is True or (
            isinstance(deadlock, int)
            and not isinstance(deadlock, bool)
            and deadlock > 0
        )
        # A failed assertion (programs) is one, even in a run a limit stopped.
        failures = stats.get("assertion_failures")
        if isinstance(failures, int) and not isinstance(failures, bool) and failures > 0:
            return result.RESULT_FALSE_REACH
        # A deadlock found is one, even in a run a limit stopped.
        if found or code == EXIT_FOUND:
            return result.RESULT_FALSE_DEADLOCK
        if not stats.get("complete", True) or code == EXIT_STOPPED:
            return STOP_RESULTS.get(stats.get("stopped"), result.RESULT_UNKNOWN)
        if deadlock is None:
            return result.RESULT_DONE
        return result.RESULT_TRUE_PROP

    @staticmethod
    def _mcc_result(answers, code):
        if "DO_NOT_COMPETE" in answers:
            return "DO_NOT_COMPETE"
        verdicts = [v for k, v in answers.items() if k != "CANNOT_COMPUTE"]
        if "CANNOT_COMPUTE" in answers or "CANNOT_COMPUTE" in verdicts:
            return (
                result.RESULT_UNKNOWN if code == EXIT_STOPPED else result.RESULT_ERROR
            )
        if verdicts == ["TRUE"]:
            return result.RESULT_TRUE_PROP
        if verdicts == ["FALSE"]:
            return result.RESULT_FALSE_PROP
        return result.RESULT_DONE

    def get_value_from_output(self, output, identifier):
        stats = _json_object(output)
        if stats is not None:
            value = stats.get(identifier)
            if value is None:
                return ""
            if isinstance(value, bool):
                return "true" if value else "false"
            if isinstance(value, (int, float, str)):
                return str(value)
            return json.dumps(value)
        # `unfold mcc`: STATE_SPACE figures by their contest names or by unfold's names.
        names = {
            "states": "STATES",
            "edges": "TRANSITIONS",
            "max_tokens_in_place": "MAX_TOKEN_IN_PLACE",
            "max_tokens_per_marking": "MAX_TOKEN_PER_MARKING",
        }
        return _mcc_answers(output).get(names.get(identifier, identifier), "")
