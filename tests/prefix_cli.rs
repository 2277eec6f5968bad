//! `unfold prefix` through the binary: JSON fields, exit codes, refusal of non-safe nets, DOT.

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use assert_cmd::Command;
use serde_json::Value;

fn shared() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/nets");
    assert!(
        dir.join("ORACLES.tsv").is_file(),
        "{} is missing: these tests need ../shared beside the checkout",
        dir.display()
    );
    dir
}

fn unfold() -> Command {
    Command::cargo_bin("unfold").unwrap()
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(out)))
}

#[test]
fn json_fields_and_exit_codes() {
    let net = shared().join("pep/do_od.ll_net");
    // Without --deadlock: exit 0, the stable fields.
    let out = unfold()
        .args(["prefix", "--json", "-", "-q"])
        .arg(&net)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j = json_of(&out.stdout);
    for key in [
        "input",
        "mode",
        "complete",
        "conditions",
        "events",
        "cutoffs",
        "noncutoff_events",
        "time_s",
        "explore_time_s",
        "peak_bytes",
    ] {
        assert!(j.get(key).is_some(), "missing {key} in {j}");
    }
    let (unfolding, whole) = (j["explore_time_s"].as_f64(), j["time_s"].as_f64());
    assert!(
        unfolding.is_some_and(|x| x >= 0.0 && x <= whole.unwrap()),
        "{j}"
    );
    assert_eq!(j["mode"], "prefix");
    assert_eq!(j["complete"], true);
    assert_eq!(j["events"], 11);
    assert_eq!(j["conditions"], 20);
    assert_eq!(j["cutoffs"], 1);
    assert_eq!(j["noncutoff_events"], 10);
    assert!(j.get("deadlock").is_none());

    // do_od has a deadlock: exit 1 with a witness, 0 with --no-fail.
    let out = unfold()
        .args(["prefix", "--deadlock", "--json", "-", "-q"])
        .arg(&net)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let j = json_of(&out.stdout);
    assert_eq!(j["deadlock"], true);
    assert!(j["deadlock_witness"]["run"].is_array());
    let out = unfold()
        .args(["prefix", "--deadlock", "--no-fail", "-q"])
        .arg(&net)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("deadlock witness"), "{text}");

    // sem is deadlock-free: exit 0, deadlock false.
    let out = unfold()
        .args(["prefix", "--deadlock", "--json", "-", "-q"])
        .arg(shared().join("pep/sem.ll_net"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_of(&out.stdout)["deadlock"], false);
}

#[test]
fn orders_are_accepted() {
    for order in ["mole", "erv", "size"] {
        let out = unfold()
            .args(["prefix", "--order", order, "--json", "-", "-q"])
            .arg(shared().join("pep/peterson.ll_net"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{order}");
        let j = json_of(&out.stdout);
        assert_eq!(j["complete"], true);
        if order == "mole" {
            assert_eq!(j["events"], 49);
        }
    }
    unfold()
        .args(["prefix", "--order", "fastest"])
        .arg(shared().join("pep/peterson.ll_net"))
        .assert()
        .code(2);
}

#[test]
fn timeout_gives_incomplete_statistics() {
    let out = unfold()
        .args(["prefix", "--timeout", "0", "--json", "-", "-q"])
        .arg(shared().join("pep/fifo20.ll_net"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let j = json_of(&out.stdout);
    assert_eq!(j["complete"], false);
    assert!(j["events"].as_u64().unwrap() < 41792);
}

#[test]
fn read_arcs_are_reported_as_self_loops() {
    let out = unfold()
        .args(["prefix", "-q", "--read-arcs", "self-loops"])
        .arg(shared().join("pep/cont/peterson.ll_net"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("self-loops"), "{text}");
    // Same reachable behaviour as the plain net: same deadlock answer.
    unfold()
        .args(["prefix", "--deadlock", "-q", "--read-arcs", "self-loops"])
        .arg(shared().join("pep/cont/peterson.ll_net"))
        .assert()
        .code(0);
}

const PTNET: &str = "http://www.pnml.org/version-2009/grammar/ptnet";

#[test]
fn non_safe_net_is_refused() {
    // t consumes p and puts a token back on p and one on q: `t t` puts two tokens on q.
    let text = format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">
  <net id="n" type="{PTNET}">
    <page id="page0">
      <place id="p"><initialMarking><text>1</text></initialMarking></place>
      <place id="q"/>
      <transition id="t"/>
      <arc id="a1" source="p" target="t"/>
      <arc id="a2" source="t" target="p"/>
      <arc id="a3" source="t" target="q"/>
    </page>
  </net>
</pnml>
"#
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("unsafe.pnml");
    std::fs::write(&path, text).unwrap();
    let out = unfold().args(["prefix", "-q"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not safe"), "{err}");
    assert!(err.contains("'q'"), "{err}");
    assert!(err.contains("t t"), "{err}");
}

#[test]
fn dot_renders_and_large_nets_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("do_od.dot");
    unfold()
        .args(["prefix", "-q", "--dot"])
        .arg(&dot)
        .arg(shared().join("pep/do_od.ll_net"))
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&dot).unwrap();
    assert!(text.starts_with("digraph"), "{text}");
    assert!(text.contains("e1:"), "events are numbered from 1: {text}");
    assert!(text.contains("dashed"), "cutoff not drawn dashed: {text}");
    assert!(
        text.contains("dotted"),
        "no edge to the corresponding event: {text}"
    );
    if StdCommand::new("dot").arg("-V").output().is_ok() {
        let svg = StdCommand::new("dot")
            .arg("-Tsvg")
            .arg(&dot)
            .output()
            .unwrap();
        assert!(
            svg.status.success(),
            "{}",
            String::from_utf8_lossy(&svg.stderr)
        );
        assert!(String::from_utf8_lossy(&svg.stdout).contains("<svg"));
    } else {
        eprintln!("graphviz `dot` not installed: DOT syntax not checked by rendering");
    }
    let out = unfold()
        .args(["prefix", "-q", "--dot-limit", "10", "--dot"])
        .arg(dir.path().join("big.dot"))
        .arg(shared().join("pep/do_od.ll_net"))
        .output()
        .unwrap();
    // do_od has no deadlock: the refusal keeps exit 0 (issue 39.4).
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("more than --dot-limit 10"), "{err}");
    assert!(!dir.path().join("big.dot").exists());
}
