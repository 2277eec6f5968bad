//! The LTL examinations of `unfold mcc` (LTLCardinality, LTLFireability) on P/T instances of
//! ../shared/mcc, against the contest's answers: no answer differs from a known one, and a
//! high share of the known ones is given (an engine answering nothing would pass the first
//! check alone). The whole set, with the shares per technique, is `tools/mcc/properties.py
//! --examinations LTLCardinality,LTLFireability`.

use crate::common;

use std::collections::BTreeMap;

/// Instances whose LTL formulas are answered within seconds in release: small and large
/// state spaces, deadlocking nets, formulas with and without next.
pub(crate) const INSTANCES: &[&str] = &[
    "Dekker-PT-010",
    "Philosophers-PT-000005",
    "ERK-PT-000001",
    "ResAllocation-PT-R002C002",
    "EGFr-PT-02010",
    "IBM319-PT-none",
    "SimpleLoadBal-PT-02",
    "DatabaseWithMutex-PT-02",
    "RwMutex-PT-r0010w0010",
    "Railroad-PT-005",
    "ShieldIIPs-PT-001A",
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
                        assert!(line.contains(" TECHNIQUES "), "{line}");
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

/// The contest's reading of finite maximal paths, on its own answers: a path ending in a
/// deadlock repeats the deadlock forever. On these formulas (those where the readings part,
/// found over the whole dev set, see `SEMANTICS.md`) stuttering gives the contest's answer
/// every time, finite-path LTL (a strong `X` false at the last state) never.
#[test]
fn deadlocks_stutter_on_the_contests_answers() {
    use std::time::Duration;
    use unfold::check::ltl::{self, Deadlocks, LtlOptions};
    use unfold::explore::limits::Limits;
    use unfold::property::{Ask, Names, parse_xml};

    let mcc = common::shared_nets().parent().unwrap().join("mcc");
    let truth = known_answers(&mcc);
    let cases = [
        ("Referendum-PT-0010", "LTLFireability", 3),
        ("ResAllocation-PT-R002C002", "LTLCardinality", 0),
        ("EGFr-PT-02010", "LTLFireability", 15),
        ("Philosophers-PT-000005", "LTLCardinality", 15),
    ];
    let mut finite_right = 0;
    for (instance, exam, k) in cases {
        let folder = mcc.join(instance);
        let (net, _) = unfold::formats::read_net(&folder.join("model.pnml")).unwrap();
        let xml = std::fs::read_to_string(folder.join(format!("{exam}.xml"))).unwrap();
        let id = format!("{instance}-{exam}-{k:02}");
        let query = parse_xml(&xml)
            .unwrap()
            .into_iter()
            .find(|q| q.id == id)
            .unwrap();
        let resolved = Names::of(&net).resolve(&query).unwrap();
        let Ask::Holds(f) = &resolved.ask else {
            panic!("{id} is a formula")
        };
        let run = |deadlocks| {
            let limits = Limits::new(Some(Duration::from_secs(60)), None);
            let options = LtlOptions {
                stubborn: false,
                deadlocks,
                ..LtlOptions::default()
            };
            ltl::check(&net, f, &limits, options).unwrap().verdict
        };
        assert_eq!(run(Deadlocks::Stutter), Some(truth[&id]), "{id}");
        finite_right += usize::from(run(Deadlocks::Finite) == Some(truth[&id]));
    }
    assert_eq!(finite_right, 0, "finite-path LTL agreed with the contest");
}
