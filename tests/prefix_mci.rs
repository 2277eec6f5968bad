//! `unfold prefix --mci`: the file is read back by the library's `.mci` reader (written from
//! the format's description, not from the writer's code), and checked against ORACLES.tsv
//! (events, conditions, cutoffs), the net (every event's preset and postset are its transition's), the causal
//! numbering the checkers of Mole/Punf rely on, and the meaning of cutoffs (a cutoff's local
//! configuration reaches the marking of its corresponding event's).

use crate::common;

use std::collections::BTreeSet;

use common::{oracles, shared_nets, unfold};
use unfold::formats::mci::{Mci, read_mci};
use unfold::formats::read_net;

/// The prefix of an `.mci` file in arrays indexed by the file's 1-based numbers (index 0
/// unused), as the checks below read it.
struct Numbered {
    ev_tr: Vec<u32>,
    co_pl: Vec<u32>,
    co_pre: Vec<u32>,
    co_post: Vec<Vec<u32>>,
    cutoffs: Vec<(u32, u32)>,
    places: Vec<String>,
    transitions: Vec<String>,
    longest: u32,
}

fn numbered(m: Mci) -> Numbered {
    let conds = &m.conditions;
    Numbered {
        ev_tr: std::iter::once(0).chain(m.events.iter().copied()).collect(),
        co_pl: std::iter::once(0)
            .chain(conds.iter().map(|c| c.place))
            .collect(),
        co_pre: std::iter::once(0)
            .chain(conds.iter().map(|c| c.producer))
            .collect(),
        co_post: std::iter::once(Vec::new())
            .chain(conds.iter().map(|c| c.consumers.clone()))
            .collect(),
        cutoffs: m
            .cutoffs
            .iter()
            .map(|c| (c.event, c.corresponding))
            .collect(),
        places: m.places,
        transitions: m.transitions,
        longest: m.longest_name,
    }
}

/// The places marked after the events of `config` (a set of event numbers).
fn marking(m: &Numbered, config: &BTreeSet<u32>) -> Vec<u32> {
    let mut places: Vec<u32> = (1..m.co_pl.len())
        .filter(|&c| {
            (m.co_pre[c] == 0 || config.contains(&m.co_pre[c]))
                && !m.co_post[c].iter().any(|e| config.contains(e))
        })
        .map(|c| m.co_pl[c])
        .collect();
    places.sort_unstable();
    places
}

fn local_configuration(m: &Numbered, preset: &[Vec<u32>], e: u32) -> BTreeSet<u32> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        if seen.insert(x) {
            stack.extend(
                preset[x as usize]
                    .iter()
                    .map(|&c| m.co_pre[c as usize])
                    .filter(|&p| p != 0),
            );
        }
    }
    seen
}

fn check(file: &str) {
    let path = shared_nets().join(file);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("prefix.mci");
    unfold()
        .args(["prefix", "-q", "--mci"])
        .arg(&out)
        .arg(&path)
        .assert()
        .code(0);
    let m = numbered(read_mci(&out).unwrap());
    let nev = m.ev_tr.len() - 1;
    let nco = m.co_pl.len() - 1;

    // Sizes: the published ones.
    let props = &oracles()[file];
    let want = |k: &str| props[k].parse::<usize>().unwrap();
    assert_eq!(nev, want("prefix.events"), "{file}: events");
    assert_eq!(nco, want("prefix.conditions"), "{file}: conditions");
    assert_eq!(m.cutoffs.len(), want("prefix.cutoffs"), "{file}: cutoffs");

    // Names and numbering of the net, in file order.
    let net = read_net(&path).unwrap().0;
    let labels: Vec<&str> = net.places.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(m.places, labels, "{file}: place names");
    let labels: Vec<&str> = net.transitions.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(m.transitions, labels, "{file}: transition names");
    let longest = m.places.iter().chain(&m.transitions).map(|s| s.len()).max();
    assert_eq!(Some(m.longest as usize), longest, "{file}: longest name");

    // Presets and postsets are those of the transitions; numbering is causal.
    let mut preset = vec![Vec::new(); nev + 1];
    let mut postset = vec![Vec::new(); nev + 1];
    for c in 1..=nco {
        let pre = m.co_pre[c];
        assert!(pre as usize <= nev && (1..=net.places.len() as u32).contains(&m.co_pl[c]));
        if pre != 0 {
            postset[pre as usize].push(m.co_pl[c] - 1);
        }
        for &e in &m.co_post[c] {
            assert!(
                pre < e,
                "{file}: condition {c} made by event {pre} is consumed by the earlier {e}"
            );
            preset[e as usize].push(c as u32);
        }
    }
    for e in 1..=nev {
        let t = &net.transitions[m.ev_tr[e] as usize - 1];
        let mut places: Vec<u32> = preset[e].iter().map(|&c| m.co_pl[c as usize] - 1).collect();
        places.sort_unstable();
        let want: Vec<u32> = t.pre.iter().map(|a| a.place).collect();
        assert_eq!(places, want, "{file}: preset of event {e}");
        postset[e].sort_unstable();
        let want: Vec<u32> = t.post.iter().map(|a| a.place).collect();
        assert_eq!(postset[e], want, "{file}: postset of event {e}");
    }

    // Cutoffs: nothing consumes what they produce, and they reach their correspondent's
    // marking (⊥: the initial marking).
    let cut: BTreeSet<u32> = m.cutoffs.iter().map(|c| c.0).collect();
    for c in 1..=nco {
        if cut.contains(&m.co_pre[c]) {
            assert!(m.co_post[c].is_empty(), "{file}: a cutoff was extended");
        }
    }
    for &(e, corr) in &m.cutoffs {
        assert!(
            corr < e && !cut.contains(&corr),
            "{file}: cutoff {e} has correspondent {corr}"
        );
        let mine = marking(&m, &local_configuration(&m, &preset, e));
        let theirs = if corr == 0 {
            marking(&m, &BTreeSet::new())
        } else {
            marking(&m, &local_configuration(&m, &preset, corr))
        };
        assert_eq!(mine, theirs, "{file}: cutoff {e} and correspondent {corr}");
    }
}

#[test]
fn mci_of_small_nets() {
    for file in [
        "pep/do_od.ll_net",
        "pep/mutual.ll_net",
        "pep/peterson.ll_net",
        "pep/sdl_arq.ll_net",
        "pep/byzagr4_0b.ll_net",
    ] {
        check(file);
    }
}

#[test]
fn mci_of_larger_nets() {
    for file in [
        "pep/elevator_2.ll_net",
        "pep/key_2.ll_net",
        "pep/knuth_2.ll_net",
    ] {
        check(file);
    }
}

#[test]
fn mci_unwritable_path_is_an_error() {
    let out = unfold()
        .args(["prefix", "-q", "--mci", "/nonexistent-dir/x.mci"])
        .arg(shared_nets().join("pep/do_od.ll_net"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent-dir/x.mci"), "{err}");
}

/// `--mci -` writes the binary prefix alone on standard output (the human report goes to
/// standard error): the same bytes as `--mci FILE`, readable as they are.
#[test]
fn mci_to_standard_output() {
    let file = "pep/do_od.ll_net";
    let path = shared_nets().join(file);
    let out = unfold()
        .args(["prefix", "-q", "--mci", "-"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let m = unfold::formats::mci::parse(&out.stdout).expect("stdout is exactly an .mci file");
    let props = &oracles()[file];
    assert_eq!(m.event_count().to_string(), props["prefix.events"]);
    assert_eq!(m.condition_count().to_string(), props["prefix.conditions"]);
    assert_eq!(m.cutoff_count().to_string(), props["prefix.cutoffs"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("non-cutoff events"),
        "report not on stderr: {err}"
    );
    assert!(
        !std::path::Path::new("-").exists(),
        "a file named '-' was written"
    );
    let dir = tempfile::tempdir().unwrap();
    let to_file = dir.path().join("p.mci");
    unfold()
        .args(["prefix", "-q", "--mci"])
        .arg(&to_file)
        .arg(&path)
        .assert()
        .code(0);
    assert_eq!(std::fs::read(&to_file).unwrap(), out.stdout);
    // The JSON can still go to a file meanwhile; `--dot -` likewise keeps stdout to itself.
    let json = dir.path().join("s.json");
    let out = unfold()
        .args(["prefix", "-q", "--mci", "-", "--json"])
        .arg(&json)
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(unfold::formats::mci::parse(&out.stdout).is_ok());
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["events"].to_string(), props["prefix.events"]);
    let out = unfold()
        .args(["prefix", "-q", "--dot", "-"])
        .arg(&path)
        .output()
        .unwrap();
    let dot = String::from_utf8_lossy(&out.stdout);
    assert!(
        dot.starts_with("digraph") && dot.trim_end().ends_with('}'),
        "{dot}"
    );
}

/// Two outputs cannot share standard output: refused before any work, exit 2.
#[test]
fn two_outputs_on_standard_output_are_refused() {
    let path = shared_nets().join("pep/do_od.ll_net");
    for other in [["--json", "-"], ["--dot", "-"]] {
        let out = unfold()
            .args(["prefix", "-q", "--mci", "-"])
            .args(other)
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{other:?}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("standard output"), "{err}");
    }
}
