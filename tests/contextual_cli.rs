//! `unfold prefix` on nets with read arcs, through the binary: the contextual unfolding by
//! default (Cunf's figures in the JSON, under Cunf's names), `--read-arcs self-loops` for the
//! plain prefix, drawings with undirected read arcs, refusals, deadlocks, and
//! `convert --read-arcs`.

use crate::common;

use std::time::Duration;

use serde_json::Value;
use unfold::explore::limits::Limits;
use unfold::explore::reach::explore_net;
use unfold::formats::read_net;

fn json_of(args: &[&str]) -> (Value, i32) {
    let out = common::unfold().args(args).output().unwrap();
    let code = out.status.code().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let json = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "{args:?}: {e}: {text} {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (json, code)
}

fn cont(name: &str) -> String {
    common::shared_nets()
        .join("pep/cont")
        .join(name)
        .display()
        .to_string()
}

/// The JSON carries Cunf's figures under Cunf's names (and ours beside them).
#[test]
fn json_has_cunfs_figures_under_cunfs_names() {
    let oracles = common::oracles();
    let want = &oracles["pep/cont/mutual.ll_net"];
    let (j, code) = json_of(&["prefix", "--json", "-", &cont("mutual.ll_net")]);
    assert_eq!(code, 0);
    assert_eq!(j["unfolding"], "contextual");
    for (ours, theirs) in [
        ("hist", "cprefix.histories"),
        ("events", "cprefix.events"),
        ("cond", "cprefix.conditions"),
        ("cutoffs", "cprefix.cutoffs"),
        ("noncff", "cprefix.noncutoff_events"),
    ] {
        assert_eq!(j[ours].to_string(), want[theirs], "{ours}");
    }
    assert_eq!(j["conditions"], j["cond"]);
    assert_eq!(j["histories"], j["hist"]);
    assert!(j["gen"].as_u64().unwrap() > 0 && j["read"].as_u64().unwrap() > 0);
}

/// `--read-arcs self-loops` keeps the plain prefix (read arcs consumed and produced).
#[test]
fn self_loops_give_the_plain_prefix() {
    let (j, code) = json_of(&[
        "prefix",
        "--read-arcs",
        "self-loops",
        "--json",
        "-",
        &cont("mutual.ll_net"),
    ]);
    assert_eq!(code, 0);
    assert!(j.get("hist").is_none(), "{j}");
    assert!(j["read_arcs_as_loops"].as_u64().unwrap() > 0, "{j}");
    // On a net without read arcs, --contextual counts histories (one per event).
    let plain = common::shared_nets()
        .join("pep/mutual.ll_net")
        .display()
        .to_string();
    let (j, _) = json_of(&["prefix", "--contextual", "--json", "-", &plain]);
    assert_eq!(j["hist"], j["events"], "{j}");
    let (p, _) = json_of(&["prefix", "--json", "-", &plain]);
    assert_eq!(p["events"], j["events"]);
    assert_eq!(p["conditions"], j["cond"]);
}

/// The drawing renders, with one undirected edge per read arc of the occurrence net.
#[test]
fn drawing_has_undirected_read_arcs_and_renders() {
    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("p.dot");
    let out = common::unfold()
        .args(["prefix", "-q", &cont("peterson.ll_net"), "--dot"])
        .arg(&dot)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&dot).unwrap();
    let net = read_net(std::path::Path::new(&cont("peterson.ll_net")))
        .unwrap()
        .0;
    let r = unfold::explore::contextual::explore(
        &net,
        &Default::default(),
        &Limits::default(),
        &mut |_| {},
    )
    .unwrap();
    let context_arcs: usize = r.prefix.events.iter().map(|e| e.context.len()).sum();
    assert!(context_arcs > 0);
    assert_eq!(text.matches("dir=none").count(), context_arcs);
    let svg = std::process::Command::new("dot")
        .args(["-Tsvg", "-o", "/dev/null"])
        .arg(&dot)
        .output()
        .expect("graphviz's dot must be installed");
    assert!(
        svg.status.success(),
        "{}",
        String::from_utf8_lossy(&svg.stderr)
    );
}

/// `.mci` cannot say read arcs, and the contextual unfolding has one order: both refused
/// before any work, exit 2, with the way out in the message.
#[test]
fn mci_and_other_orders_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mci = dir.path().join("p.mci");
    let out = common::unfold()
        .args(["prefix", &cont("mutual.ll_net"), "--mci"])
        .arg(&mci)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("read arcs") && err.contains("--read-arcs self-loops"),
        "{err}"
    );
    assert!(!mci.exists() || std::fs::metadata(&mci).unwrap().len() == 0);
}

/// `--order erv|size` builds the contextual prefix in that order and says so; each gives the
/// deadlock answer of the default order (the prefixes are all complete; their sizes may
/// differ).
#[test]
fn every_order_builds_the_contextual_prefix() {
    let json = |order: &str| -> serde_json::Value {
        let out = common::unfold()
            .args([
                "prefix",
                &cont("mutual.ll_net"),
                "--deadlock",
                "--order",
                order,
            ])
            .args(["--json", "-", "-q"])
            .output()
            .unwrap();
        assert!(out.status.code().is_some_and(|c| c < 2), "{order}: {out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let mole = json("mole");
    for order in ["erv", "size"] {
        let j = json(order);
        assert_eq!(j["unfolding"], "contextual", "{order}: {j}");
        assert_eq!(j["order"], order, "{j}");
        assert_eq!(j["complete"], true, "{order}: {j}");
        assert_eq!(j["deadlock"], mole["deadlock"], "{order}: {j}");
        assert!(j["hist"].as_u64().unwrap() > 0, "{order}: {j}");
    }
}

/// `prefix --deadlock` on every read-arc net answers as explicit-state reachability, and
/// exits 1 exactly when there is a deadlock.
#[test]
fn deadlock_answers_agree_with_reach() {
    let dir = common::shared_nets().join("pep/cont");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let net = read_net(&path).unwrap().0;
        let reach = explore_net(
            &net,
            &Limits::new(Some(Duration::from_secs(30)), None),
            &mut |_| {},
        )
        .unwrap();
        assert!(reach.stopped.is_none(), "{}", path.display());
        let (j, code) = json_of(&[
            "prefix",
            "--deadlock",
            "--json",
            "-",
            path.to_str().unwrap(),
        ]);
        assert_eq!(
            j["deadlock"],
            reach.deadlocks > 0,
            "{}: {j}",
            path.display()
        );
        assert_eq!(code, i32::from(reach.deadlocks > 0), "{}", path.display());
        if reach.deadlocks > 0 {
            assert!(j["deadlock_witness"]["run"].is_array(), "{j}");
        }
        checked += 1;
    }
    assert!(checked >= 6);
}

/// `convert --read-arcs` makes from a plain net the read-arc net Cunf's figures are of.
#[test]
fn convert_read_arcs_makes_the_contextual_twin() {
    let oracles = common::oracles();
    let dir = tempfile::tempdir().unwrap();
    for name in ["mutual", "peterson", "dijkstra_2"] {
        let out = dir.path().join(format!("{name}.ll_net"));
        let plain = common::shared_nets().join(format!("pep/{name}.ll_net"));
        common::unfold()
            .args(["convert", "--read-arcs"])
            .arg(&plain)
            .arg(&out)
            .assert()
            .success();
        let (j, _) = json_of(&["prefix", "--json", "-", out.to_str().unwrap()]);
        let want = &oracles[&format!("pep/cont/{name}.ll_net")];
        assert_eq!(j["hist"].to_string(), want["cprefix.histories"], "{name}");
        assert_eq!(j["events"].to_string(), want["cprefix.events"], "{name}");
        assert_eq!(j["cutoffs"].to_string(), want["cprefix.cutoffs"], "{name}");
    }
}
