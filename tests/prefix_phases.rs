//! `prefix --deadlock` says which phase a limit stopped (issue 39.2): the JSON and the human
//! report give `complete: false` and the phase, and the unfolding and the deadlock search are
//! timed apart.

use crate::common;

use std::path::PathBuf;

use serde_json::Value;

fn shared(path: &str) -> PathBuf {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(path);
    assert!(
        file.is_file(),
        "{} is missing: these tests need ../shared beside the checkout",
        file.display()
    );
    file
}

#[test]
fn a_stopped_unfolding_is_named_and_incomplete() {
    // The prefix of this ring takes far longer than the limit.
    let file = shared("mcc/Ring-PT-none/model.pnml");
    let out = common::unfold()
        .args([
            "prefix",
            "--deadlock",
            "--timeout",
            "0.2s",
            "--json",
            "-",
            "-q",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["complete"], false, "{json}");
    assert_eq!(json["stopped"], "timeout", "{json}");
    assert_eq!(json["stopped_phase"], "unfolding", "{json}");
    assert_eq!(json["deadlock"], Value::Null, "{json}");
    let out = common::unfold()
        .args(["prefix", "--deadlock", "--timeout", "0.2s"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("complete                  no"), "{text}");
    assert!(
        text.contains("stopped in                unfolding"),
        "{text}"
    );
    assert!(
        text.contains("in the unfolding") && text.contains("the deadlock search did not run"),
        "{text}"
    );
}

#[test]
fn a_finished_run_times_both_phases() {
    let file = shared("nets/pep/byzagr4_0b.ll_net");
    let out = common::unfold()
        .args(["prefix", "--deadlock", "--json", "-", "-q"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["complete"], true, "{json}");
    assert_eq!(json["stopped"], Value::Null, "{json}");
    assert_eq!(json["stopped_phase"], Value::Null, "{json}");
    assert_eq!(json["deadlock"], false, "{json}");
    let unfolding = json["explore_time_s"].as_f64().unwrap();
    let search = json["deadlock_time_s"].as_f64().unwrap();
    let total = json["time_s"].as_f64().unwrap();
    assert!(search > 0.0 && unfolding > 0.0, "{json}");
    assert!(unfolding + search <= total, "{json}");
    // Without --deadlock there is no search to time.
    let out = common::unfold()
        .args(["prefix", "--json", "-", "-q"])
        .arg(&file)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json.get("deadlock_time_s").is_none(), "{json}");
}
