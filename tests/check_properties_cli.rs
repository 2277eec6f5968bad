//! `unfold check --formula` / `--formulas` as a user runs it: one line per property, JSON with
//! one object per property, and bad input (malformed XML, unknown places and transitions,
//! syntax and type errors) refused in one line that names where, with exit code 2.

use crate::common;

use std::fs;

use predicates::prelude::*;

const NET: &str = "nets/philosophers-5.pnml";

fn check() -> assert_cmd::Command {
    let mut cmd = common::unfold();
    cmd.args(["check", NET, "--quiet"]);
    cmd
}

/// The error output of a refused run: exit 2, one line, no panic.
fn refused(cmd: &mut assert_cmd::Command) -> String {
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn one_line_per_property_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let out = check()
        .args([
            "--formula",
            "EF deadlock",
            "--formula",
            "safe: AG tokens(fork_0) <= 1",
            "--formula",
            "b: bound(fork_0, hasLeft_0)",
            "--witness",
            "--json",
        ])
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let line = |id: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .unwrap_or_else(|| panic!("no line for {id} in\n{text}"))
            .to_string()
    };
    assert!(line("f1").contains("TRUE") && line("f1").contains("explicit"));
    assert!(line("safe").contains("TRUE"));
    assert!(line("b").split_whitespace().nth(1) == Some("1"));
    assert!(text.contains("witness: takeLeft_"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0]["id"], "f1");
    assert_eq!(results[0]["answer"], true);
    assert_eq!(results[0]["engine"], "explicit");
    assert!(results[0]["witness"].as_array().unwrap().len() == 5);
    assert_eq!(results[2]["answer"], 1);
    assert_eq!(v["complete"], true);
}

#[test]
fn a_file_of_formulas_in_either_syntax() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("props.txt");
    fs::write(
        &text,
        "# two properties\nd: EF deadlock\nlive: AG fireable(takeLeft_0, release_0)\n",
    )
    .unwrap();
    check()
        .arg("--formulas")
        .arg(&text)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("live").and(predicate::str::contains("FALSE")));
    let xml = dir.path().join("props.xml");
    fs::write(
        &xml,
        r#"<?xml version="1.0"?>
<property-set xmlns="http://mcc.lip6.fr/">
  <property><id>p-00</id><description>x</description><formula>
    <exists-path><finally><is-fireable><transition>release_3</transition></is-fireable></finally></exists-path>
  </formula></property>
</property-set>
"#,
    )
    .unwrap();
    check()
        .arg("--formulas")
        .arg(&xml)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("p-00").and(predicate::str::contains("TRUE")));
}

#[test]
fn malformed_xml_names_the_file_and_position() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("bad.xml");
    fs::write(
        &xml,
        "<property-set>\n  <property><id>x</id><formula>\n    <exists-path><finally>\n    </formula>\n",
    )
    .unwrap();
    let err = refused(check().arg("--formulas").arg(&xml));
    assert!(err.contains("bad.xml:"), "{err}");
    assert!(err.contains(":4:"), "{err}");
}

#[test]
fn unknown_places_and_transitions_are_named() {
    let err = refused(check().args(["--formula", "EF tokens(nowhere) >= 1"]));
    assert!(
        err.contains("unknown place 'nowhere'") && err.contains("1:11"),
        "{err}"
    );
    let err = refused(check().args(["--formula", "EF fireable(never)"]));
    assert!(err.contains("unknown transition 'never'"), "{err}");
    let err = refused(check().args(["--formula", "EF fireable(fork_0)"]));
    assert!(
        err.contains("'fork_0' is a place, not a transition"),
        "{err}"
    );
}

#[test]
fn syntax_and_type_errors_give_line_and_column() {
    let err = refused(check().args(["--formula", "EF (tokens(fork_0) >= 1"]));
    assert!(err.contains("1:24"), "{err}");
    let err = refused(check().args(["--formula", "EF tokens(fork_0) && deadlock"]));
    assert!(err.contains("type error"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("props.txt");
    fs::write(&text, "a: EF deadlock\nb: AG true <= 3\n").unwrap();
    let err = refused(check().arg("--formulas").arg(&text));
    assert!(
        err.contains("props.txt:2:") && err.contains("type error"),
        "{err}"
    );
}

/// The answers (`id` → JSON value) and engines of `check FILE --formula …` with `extra`.
fn answers(file: &std::path::Path, formulas: &[&str], extra: &[&str]) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let mut cmd = common::unfold();
    cmd.arg("check").arg(file).args(["--quiet", "--no-reduce"]);
    for f in formulas {
        cmd.args(["--formula", f]);
    }
    let out = cmd.args(extra).arg("--json").arg(&json).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["answer"].to_string(), r["engine"].to_string()))
        .collect()
}

/// `check --engine prefix` on a net with read arcs uses the contextual prefix by default and
/// the plain one with `--read-arcs self-loops`: both answer every formula, as `reach` does.
#[test]
fn the_prefix_engine_answers_on_nets_with_read_arcs_in_both_unfoldings() {
    let file = common::shared_nets().join("pep/cont/mutual.ll_net");
    let formulas = [
        "EF deadlock",
        "bound(P2, P3, P15)",
        "EF (tokens(P2) >= 1 && tokens(P16) >= 1)",
        "AG (tokens(P2) + tokens(P3) <= 1)",
        "EF fireable(T56)",
    ];
    let reach = answers(&file, &formulas, &["--engine", "reach"]);
    let contextual = answers(&file, &formulas, &["--engine", "prefix"]);
    let loops = answers(
        &file,
        &formulas,
        &["--engine", "prefix", "--read-arcs", "self-loops"],
    );
    for ((r, c), l) in reach.iter().zip(&contextual).zip(&loops) {
        assert_eq!(r.0, c.0, "{reach:?} {contextual:?}");
        assert_eq!(r.0, l.0, "{reach:?} {loops:?}");
        assert_eq!(c.1, "\"prefix\"");
        assert_eq!(l.1, "\"prefix\"");
    }
}

/// `--engine dpor`: the unfolding DPOR with cutoffs decides reachability formulas and bounds
/// (a witness for the deadlock, the invariant proved by the complete exploration), names
/// itself, and leaves an LTL formula unknown with the reason.
#[test]
fn the_dpor_engine_decides_reachability_and_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let out = check()
        .args([
            "--engine",
            "dpor",
            "--formula",
            "d: EF deadlock",
            "--formula",
            "safe: AG tokens(fork_0) <= 1",
            "--formula",
            "b: bound(fork_0, hasLeft_0)",
            "--formula",
            "l: A G F fireable(takeLeft_0)",
            "--witness",
            "--json",
        ])
        .arg(&json)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // The LTL formula stays unknown: exit 3.
    assert_eq!(out.status.code(), Some(3), "{text}");
    let line = |id: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .unwrap_or_else(|| panic!("no line for {id} in\n{text}"))
            .to_string()
    };
    assert!(
        line("d").contains("TRUE") && line("d").contains("dpor"),
        "{text}"
    );
    assert!(
        line("safe").contains("TRUE") && line("safe").contains("dpor"),
        "{text}"
    );
    assert_eq!(line("b").split_whitespace().nth(1), Some("1"), "{text}");
    assert!(text.contains("witness: takeLeft_"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results[0]["engine"], "dpor");
    // Five philosophers each holding a fork: a deadlock after five steps.
    assert_eq!(results[0]["witness"].as_array().unwrap().len(), 5);
    assert_eq!(results[3]["answer"], serde_json::Value::Null);
    let why = results[3]["unknown"].as_str().unwrap();
    assert!(why.contains("dpor engine"), "{why}");
}

/// `auto` on `EF deadlock`, on every PEP net of ../shared with a published deadlock answer
/// (ORACLES.tsv): the answer is the published one or unknown, never another. On nets whose
/// state space is far too large for the explicit engine but whose unfolding is small (buf100:
/// a hundred cells; fifo20), the quick DPOR try decides it, long before the searches' shares.
#[test]
fn auto_deadlock_answers_agree_with_the_published_ones() {
    let oracles = common::oracles();
    let mut decided_by_dpor = Vec::new();
    for (file, props) in &oracles {
        let Some(want) = props.get("deadlock") else {
            continue;
        };
        if !file.starts_with("pep/") || file.starts_with("pep/cont/") {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("out.json");
        let out = common::unfold()
            .arg("check")
            .arg(common::shared_nets().join(file))
            .args(["--quiet", "--formula", "EF deadlock", "--timeout", "20"])
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap();
        assert!(matches!(out.status.code(), Some(0 | 3)), "{file}: {out:?}");
        let v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
        let r = &v["results"][0];
        if r["answer"].is_null() {
            continue;
        }
        let got = if r["answer"] == true { "TRUE" } else { "FALSE" };
        assert_eq!(got, want, "{file}: {r}");
        if r["engine"] == "dpor" {
            decided_by_dpor.push(file.clone());
        }
    }
    for file in ["pep/buf100.ll_net", "pep/fifo20.ll_net"] {
        assert!(
            decided_by_dpor.iter().any(|f| f == file),
            "{file} not decided by the quick DPOR try: {decided_by_dpor:?}"
        );
    }
}

/// Flags that would change nothing are refused, not ignored: `--no-stubborn` and
/// `--no-reduce` under CTL (whose engine uses no stubborn sets and never a reduced net), the
/// property flags with `--brute` or `--count`, `--max-depth` without `--brute`.
#[test]
fn flags_that_would_be_ignored_are_refused() {
    for flag in ["--no-stubborn", "--no-reduce"] {
        let err = refused(check().args(["--logic", "ctl", "--formula", "A G E F deadlock", flag]));
        assert!(
            err.contains(&format!("{flag} has no effect on CTL formulas")),
            "{err}"
        );
        // Under another logic they apply.
        check()
            .args(["--logic", "ltl", "--formula", "A G F deadlock", flag])
            .assert()
            .code(predicate::in_iter([0, 1]));
    }
    let clap_refuses = |args: &[&str], want: &str| {
        let out = check().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(want), "{args:?}: {err}");
    };
    for flag in [
        &["--witness"][..],
        &["--no-stubborn"],
        &["--no-reduce"],
        &["--engine", "reach"],
        &["--logic", "ltl"],
        &["--read-arcs", "self-loops"],
    ] {
        for mode in ["--brute", "--count"] {
            let mut args = vec![mode];
            args.extend_from_slice(flag);
            clap_refuses(&args, "cannot be used with");
        }
    }
    clap_refuses(
        &["--formula", "EF deadlock", "--max-depth", "3"],
        "cannot be used with",
    );
    clap_refuses(&["--count", "--max-depth", "3"], "cannot be used with");
    // Their defaults are no conflict (the net is cyclic: counting refuses it, not clap).
    let out = check().arg("--count").output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("its runs are infinite"), "{err}");
}
