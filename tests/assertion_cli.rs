//! Failed assertions through the binary (issue 39.1): every mode that explores a program —
//! the DPOR with and without cutoffs, Event-DPOR, `check --brute`, `check --count` — reports
//! them in its JSON with a witness run, and exits 1; a program that cannot fail exits 0. The
//! oracle is the brute-force enumeration of happens-before classes of the library.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::Value;
use unfold::explore::brute::BruteOptions;
use unfold::explore::brute_program;
use unfold::explore::limits::Limits;
use unfold::formats::tsys;
use unfold::model::program_system::ProgramSystem;
use unfold::system::{System, Transition};

fn programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("nets/programs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tsys"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    files
}

/// The modes that explore a program, as arguments before the file.
const MODES: [&[&str]; 6] = [
    &["run"],
    &["run", "--cutoffs"],
    &["run", "--cutoffs", "--order", "size"],
    &["edpor"],
    &["check", "--brute"],
    &["check", "--count"],
];

/// Replays a witness (transition names) on `sys`: every step enabled, and the state reached
/// has a failed assertion.
fn replays_to_a_failure(sys: &ProgramSystem, run: &[Value]) -> bool {
    let mut state = vec![0u64; sys.state_words()];
    sys.initial_state(&mut state);
    for name in run {
        let name = name.as_str().unwrap();
        let Some(t) = (0..sys.transition_count() as Transition)
            .find(|&t| sys.transition_name(t) == name && sys.is_enabled(&state, t))
        else {
            return false;
        };
        sys.fire_in_place(&mut state, t).unwrap();
    }
    sys.assertion_failed(&state)
}

#[test]
fn every_mode_reports_failed_assertions() {
    let mut failing = 0;
    for file in programs() {
        let program = tsys::parse(&std::fs::read(&file).unwrap(), &file).unwrap();
        let sys = ProgramSystem::new(&program).unwrap();
        let oracle = brute_program::explore(
            &sys,
            &BruteOptions { max_len: 200 },
            &Limits::default(),
            &mut |_| {},
        )
        .unwrap();
        assert!(oracle.stopped.is_none());
        let fails = oracle.assertion_failures > 0;
        failing += usize::from(fails);
        for mode in MODES {
            let out = common::unfold()
                .args(mode)
                .arg(&file)
                .args(["--json", "-", "-q"])
                .output()
                .unwrap();
            let what = format!("{} {}", mode.join(" "), file.display());
            let json: Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{what}: {e}: {:?}", out.stderr));
            let found = json["assertion_failures"].as_u64().unwrap() > 0;
            assert_eq!(found, fails, "{what}: {json}");
            let deadlock = json.get("deadlocks").and_then(Value::as_u64).unwrap_or(0) > 0;
            let code = if fails || deadlock { 1 } else { 0 };
            assert_eq!(out.status.code(), Some(code), "{what}: {json}");
            match json["assertion_witness"].get("run") {
                Some(Value::Array(run)) => {
                    assert!(fails, "{what}: a witness without a failure");
                    assert!(replays_to_a_failure(&sys, run), "{what}: {run:?}");
                }
                _ => assert!(!fails, "{what}: no witness: {json}"),
            }
        }
    }
    assert!(failing >= 2, "the examples have failing programs");
}

#[test]
fn the_human_report_shows_the_failure_and_its_run() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("nets/programs/racy-counter.tsys");
    let out = common::unfold().arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("assertion failures      2"), "{text}");
    assert!(text.contains("assertion failure witness: "), "{text}");
    assert!(text.contains("check:Failed"), "{text}");
    // `--no-fail` keeps the exit code of a clean run.
    let out = common::unfold()
        .arg(&file)
        .args(["--no-fail", "-q"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}
