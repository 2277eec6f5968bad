//! JSON reports show the markings of their witnesses as objects `{place: tokens}` (marked
//! places by identifier), next to the `state` text: checked against the marking reached by
//! replaying the witness run on the net's arcs by hand, in every mode that prints one.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

/// The marking `run` (transition labels) reaches from the initial one, by firing arcs on a
/// plain vector of counts; an error when a step is not enabled.
fn replay(file: &Path, run: &[Value]) -> BTreeMap<String, u64> {
    let net = unfold::formats::read_net(file).unwrap().0;
    let mut m: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
    for step in run {
        let t = net
            .transitions
            .iter()
            .find(|t| t.label == step.as_str().unwrap())
            .unwrap_or_else(|| panic!("no transition {step}"));
        for a in &t.pre {
            let k = &mut m[a.place as usize];
            *k = k.checked_sub(a.weight as u64).expect("the step is enabled");
        }
        for a in &t.post {
            m[a.place as usize] += a.weight as u64;
        }
    }
    net.places
        .iter()
        .zip(m)
        .filter(|&(_, k)| k > 0)
        .map(|(p, k)| (p.id.to_string(), k))
        .collect()
}

fn json(args: &[&str]) -> Value {
    let out = common::unfold()
        .args(args)
        .args(["--json", "-", "-q"])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// Checks the witness `w` of a run on `file`: its marking is the replayed one.
fn check_witness(file: &Path, w: &Value, what: &str) {
    let run = w["run"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: no run"));
    let marking: BTreeMap<String, u64> = w["marking"]
        .as_object()
        .unwrap_or_else(|| panic!("{what}: no marking object in {w}"))
        .iter()
        .map(|(p, k)| (p.clone(), k.as_u64().unwrap()))
        .collect();
    assert!(!marking.is_empty(), "{what}");
    assert_eq!(marking, replay(file, run), "{what}");
    assert!(w["state"].is_string(), "{what}: the text stays");
}

/// Two tokens on `p0`; `t` moves one to `p1` at a time: the deadlock has `{p1: 2}`.
const TWO_TOKENS: &str = r#"<?xml version="1.0"?>
<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">
  <net id="two" type="http://www.pnml.org/version-2009/grammar/ptnet"><page id="g">
    <place id="p0"><initialMarking><text>2</text></initialMarking></place>
    <place id="p1"/>
    <transition id="t"/>
    <arc id="a" source="p0" target="t"/>
    <arc id="b" source="t" target="p1"/>
  </page></net>
</pnml>
"#;

#[test]
fn witnesses_show_their_markings_as_objects() {
    let dir = tempfile::tempdir().unwrap();
    let two = dir.path().join("two.pnml");
    std::fs::write(&two, TWO_TOKENS).unwrap();
    let two = two.to_str().unwrap();
    let philosophers = "nets/philosophers-5.pnml";
    let runs: [(&[&str], &str, &str); 5] = [
        (&["reach", philosophers], philosophers, "deadlock_witness"),
        (&["reach", two], two, "deadlock_witness"),
        (&["reach", two], two, "unsafe_witness"),
        (
            &[philosophers, "--cutoffs"],
            philosophers,
            "deadlock_witness",
        ),
        (
            &["prefix", "--deadlock", philosophers],
            philosophers,
            "deadlock_witness",
        ),
    ];
    for (args, file, key) in runs {
        let j = json(args);
        check_witness(Path::new(file), &j[key], &format!("{args:?} {key}"));
    }
    let j = json(&["reach", two]);
    assert_eq!(
        j["deadlock_witness"]["marking"],
        serde_json::json!({"p1": 2})
    );
    assert_eq!(j["unsafe_witness"]["place"], "p0");
}
