//! `unfold edpor FILE` and `unfold FILE --edpor` through the real binary: statistics, JSON,
//! exit codes, limits, bad input, and the printed witnesses (snapshots).

use crate::common;

use std::path::{Path, PathBuf};

use common::unfold;
use serde_json::Value;

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("nets/programs")
        .join(name)
}

fn json_of(output: &[u8]) -> Value {
    serde_json::from_slice(output).expect("one JSON object on standard output")
}

/// The witness part of the human output (the statistics above it hold times).
fn witness(stdout: &[u8], title: &str) -> String {
    let text = String::from_utf8(stdout.to_vec()).unwrap();
    let at = text
        .find(&format!("{title} ("))
        .unwrap_or_else(|| panic!("no {title} witness in:\n{text}"));
    text[at..].trim_end().to_string()
}

#[test]
fn json_has_the_stable_fields() {
    for (file, executions) in [
        ("fig1.tsys", 4),
        ("fig2-top.tsys", 1),
        ("fig2-bottom.tsys", 2),
        ("fig3.tsys", 3),
    ] {
        let out = unfold()
            .arg("edpor")
            .arg(program(file))
            .args(["--json", "-"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{file}: {out:?}");
        let j = json_of(&out.stdout);
        for key in [
            "input",
            "mode",
            "complete",
            "time_s",
            "peak_bytes",
            "executions",
            "blocked",
            "assertion_failures",
            "deadlocks",
        ] {
            assert!(j.get(key).is_some(), "{file}: no {key} in {j}");
        }
        assert_eq!(j["mode"], "edpor");
        assert_eq!(j["complete"], true);
        assert_eq!(j["executions"], executions, "{file}");
        assert_eq!(j["blocked"], 0);
        assert_eq!(j["assertion_failures"], 0);
        assert_eq!(j["deadlocks"], 0);
        assert!(j["time_s"].as_f64().unwrap() >= 0.0);
        assert!(j["peak_bytes"].as_u64().unwrap() > 0);
    }
}

#[test]
fn the_default_job_runs_edpor_on_request() {
    let out = unfold()
        .arg(program("fig2-top.tsys"))
        .args(["--edpor", "--json", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let j = json_of(&out.stdout);
    assert_eq!(j["mode"], "edpor");
    assert_eq!(j["executions"], 1);
    // Without --edpor the same program goes to the unfolding DPOR, handlers serialised.
    let out = unfold()
        .arg(program("fig2-top.tsys"))
        .args(["--json", "-"])
        .output()
        .unwrap();
    let j = json_of(&out.stdout);
    assert_eq!(j["mode"], "udpor");
    assert_eq!(j["maximal_configurations"], 2);
}

#[test]
fn an_assertion_failure_is_printed_and_exits_1() {
    let file = program("handler-assert.tsys");
    let out = unfold().arg("edpor").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    insta::assert_snapshot!("handler-assert", witness(&out.stdout, "assertion failure"));
    let out = unfold()
        .arg("edpor")
        .arg(&file)
        .args(["--no-fail", "--json", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let j = json_of(&out.stdout);
    assert_eq!(j["assertion_failures"], 2);
    assert_eq!(j["executions"], 4);
    let run = j["assertion_witness"]["run"].as_array().unwrap();
    assert_eq!(run.last().unwrap(), "t>p2: assert(a == 0)");
}

#[test]
fn a_deadlock_is_printed_and_exits_1() {
    let file = program("lock-inversion.tsys");
    let out = unfold().arg("edpor").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    insta::assert_snapshot!("lock-inversion", witness(&out.stdout, "deadlock"));
    let out = unfold()
        .arg("edpor")
        .arg(&file)
        .args(["--no-fail", "--json", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let j = json_of(&out.stdout);
    assert_eq!(
        (j["executions"].as_u64(), j["deadlocks"].as_u64()),
        (Some(3), Some(1))
    );
    assert!(
        j["deadlock_witness"]["state"]
            .as_str()
            .unwrap()
            .contains("m1@s")
    );
}

#[test]
fn limits_stop_with_incomplete_statistics() {
    let out = unfold()
        .arg("edpor")
        .arg(program("lock-counter.tsys"))
        .args(["--timeout", "0s", "--json", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let j = json_of(&out.stdout);
    assert_eq!(j["complete"], false);
    assert_eq!(j["stopped"], "timeout");
    let out = unfold()
        .arg("edpor")
        .arg(program("lock-counter.tsys"))
        .args(["--mem-limit", "1K"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("memory limit reached"), "{text}");
}

/// `unfold edpor` on `lock-counter.tsys` with `args` and a JSON report: exit code, report.
fn lock_counter_json(args: &[&str]) -> (Option<i32>, Value) {
    let out = unfold()
        .arg("edpor")
        .arg(program("lock-counter.tsys"))
        .args(args)
        .args(["--json", "-"])
        .output()
        .unwrap();
    (out.status.code(), json_of(&out.stdout))
}

#[test]
fn max_executions_stops_after_that_many_with_per_execution_figures() {
    // lock-counter.tsys has 6 classes: stopping after 4 executions leaves the run incomplete.
    let (code, j) = lock_counter_json(&["--max-executions", "4"]);
    assert_eq!(code, Some(3), "{j}");
    assert_eq!(j["complete"], false);
    assert_eq!(j["stopped"], "execution_limit");
    let runs = j["executions"].as_u64().unwrap() + j["blocked"].as_u64().unwrap();
    assert_eq!(runs, 4, "{j}");
    // Every execution of the program has 3 threads × 4 statements.
    assert_eq!(j["mean_length"].as_f64(), Some(12.0), "{j}");
    assert!(j["us_per_execution"].as_f64().unwrap() > 0.0, "{j}");
    assert!(j["executions_per_s"].as_f64().unwrap() > 0.0, "{j}");
    // A bound above the number of classes changes nothing.
    let (code, j) = lock_counter_json(&["--max-executions", "1000"]);
    assert_eq!(code, Some(0), "{j}");
    assert_eq!(j["complete"], true);
    assert_eq!(j["executions"], 6);
}

#[test]
fn bad_input_is_refused_with_a_position() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, at, words) in [
        (
            "undeclared.tsys",
            "var x;\nthread t { a = y; }\n",
            "2:16:",
            "undeclared variable `y`",
        ),
        (
            "not-a-handler.tsys",
            "var x;\nthread s { }\nthread t { post s { x = 1; } }\n",
            "3:17:",
            "not a handler",
        ),
        (
            "no-bound.tsys",
            "var x;\nthread t {\n  while (1) { x = 1; }\n}\n",
            "3:3:",
            "loop without a bound",
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = unfold().arg("edpor").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("{}:{at}", path.display())),
            "{name}: {stderr}"
        );
        assert!(stderr.contains(words), "{name}: {stderr}");
    }
    let out = unfold()
        .arg("edpor")
        .arg(dir.path().join("missing.tsys"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
