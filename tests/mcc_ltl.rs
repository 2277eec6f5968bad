//! The LTL examinations of `unfold mcc` (LTLCardinality, LTLFireability) on P/T instances of
//! ../shared/mcc, against the contest's answers: no answer differs from a known one, and a
//! high share of the known ones is given (an engine answering nothing would pass the first
//! check alone). The whole set, with the shares per technique, is `tools/mcc/properties.py
//! --examinations LTLCardinality,LTLFireability`.

mod common;

use std::collections::BTreeMap;

/// Instances whose LTL formulas are answered within seconds in release: small and large
/// state spaces, deadlocking nets, formulas with and without next.
const INSTANCES: &[&str] = &[
    "Dekker-PT-010",
    "Philosophers-PT-000005",
    "ERK-PT-000001",
    "Referendum-PT-0010",
    "ResAllocation-PT-R002C002",
    "EGFr-PT-02010",
    "IBM319-PT-none",
    "SimpleLoadBal-PT-02",
];

/// Debug builds are many times slower: the first instances only.
const IN_DEBUG: usize = 2;

/// Answers of the contest, `?` left out, by formula id.
fn known_answers(mcc: &std::path::Path) -> BTreeMap<String, bool> {
    let table = std::fs::read_to_string(mcc.join("oracle.tsv")).expect("../shared/mcc/oracle.tsv");
    let mut out = BTreeMap::new();
    for row in table.lines().skip(1) {
        if let [_, exam, id, answer] = row.split('\t').collect::<Vec<_>>()[..]
            && exam.starts_with("LTL")
            && answer != "?"
        {
            out.insert(id.to_string(), answer == "TRUE");
        }
    }
    out
}

#[test]
fn ltl_examinations_agree_with_the_contest() {
    let mcc = common::shared_nets().parent().unwrap().join("mcc");
    let truth = known_answers(&mcc);
    let take = if cfg!(debug_assertions) {
        IN_DEBUG
    } else {
        INSTANCES.len()
    };
    let mut known = 0usize;
    let mut given = 0usize;
    let mut errors = Vec::new();
    for instance in &INSTANCES[..take] {
        let folder = mcc.join(instance);
        assert!(
            folder.join("LTLCardinality.xml").is_file(),
            "{} is missing",
            folder.display()
        );
        for exam in ["LTLCardinality", "LTLFireability"] {
            let run = common::unfold()
                .args(["mcc", "--timeout", "30s", "--examination", exam, "--dir"])
                .arg(&folder)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&run.stdout);
            assert_eq!(text.lines().count(), 16, "{instance} {exam}:\n{text}");
            for line in text.lines() {
                let mut words = line.split_whitespace();
                assert_eq!(words.next(), Some("FORMULA"), "{line}");
                let id = words.next().unwrap_or_default();
                let said = words.next().unwrap_or_default();
                let Some(&expected) = truth.get(id) else {
                    continue;
                };
                known += 1;
                match said {
                    "CANNOT_COMPUTE" => {}
                    "TRUE" | "FALSE" => {
                        given += 1;
                        assert!(line.contains("TECHNIQUES EXPLICIT"), "{line}");
                        if (said == "TRUE") != expected {
                            errors.push(format!("{id}: {said}, the contest says {expected}"));
                        }
                    }
                    other => errors.push(format!("{id}: unexpected answer {other}")),
                }
            }
        }
    }
    assert!(errors.is_empty(), "wrong answers:\n{}", errors.join("\n"));
    assert!(
        given * 100 >= known * 90,
        "{given} of {known} known answers given"
    );
}
