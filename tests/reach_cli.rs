//! `unfold reach` says whether the net is bounded: an exploration that finishes proves it
//! bounded, and a pumping run proves it unbounded at once (exit 3, `stopped: "unbounded"`,
//! with the run), instead of exploring until a limit.

use crate::common;

use serde_json::Value;

fn reach_json(path: &std::path::Path) -> (Option<i32>, Value) {
    let out = common::unfold()
        .args(["reach", "--json", "-", "-q", "--timeout", "60s"])
        .arg(path)
        .output()
        .unwrap();
    (
        out.status.code(),
        serde_json::from_slice(&out.stdout).unwrap(),
    )
}

#[test]
fn an_unbounded_net_is_said_so_with_a_pumping_run() {
    // p → t → q, q → u → p + r: every round of t u adds a token to r.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grow.ll_net");
    std::fs::write(
        &path,
        "PEP\nPTNet\nFORMAT_N\nPL\n1\"p\"M1\n2\"q\"\n3\"r\"\nTR\n1\"t\"\n2\"u\"\nTP\n1<2\n2<1\n2<3\nPT\n1>1\n2>2\n",
    )
    .unwrap();
    let (code, json) = reach_json(&path);
    assert_eq!(code, Some(3), "{json}");
    assert_eq!(json["bounded"], false, "{json}");
    assert_eq!(json["complete"], false, "{json}");
    assert_eq!(json["stopped"], "unbounded", "{json}");
    let w = &json["unbounded_witness"];
    let pump: Vec<&str> = w["pump"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    // The pump is a cycle through t and u, once each.
    assert_eq!(pump.len(), 2, "{w}");
    assert!(pump.contains(&"t") && pump.contains(&"u"), "{w}");
    assert_eq!(w["grows"]["r"], 1, "{w}");
}

#[test]
fn a_finished_exploration_is_bounded() {
    let (code, json) = reach_json(std::path::Path::new("nets/ring-4.pnml"));
    assert_eq!(code, Some(0), "{json}");
    assert_eq!(json["bounded"], true, "{json}");
    assert_eq!(json["complete"], true, "{json}");
}
