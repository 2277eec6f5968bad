//! The formula examinations of `unfold mcc` (ReachabilityCardinality, ReachabilityFireability,
//! UpperBounds) on instances of ../shared/mcc, against the contest's answers in its
//! `oracle.tsv`: no answer may differ from a known one, and most known answers must be given
//! (an engine that answered nothing would pass the first check alone). The whole set, with
//! the shares per examination and engine, is `tools/mcc/properties.py`.

use crate::common;

use std::collections::BTreeMap;

/// Instances whose formulas every examination answers in a few seconds in release, chosen
/// to cover safe and unsafe nets, small and large state spaces, and each engine.
const INSTANCES: &[&str] = &[
    "Dekker-PT-010",
    "Philosophers-PT-000005",
    "ERK-PT-000001",
    "SimpleLoadBal-PT-02",
    // Some formulas decided on the complete prefix by SAT.
    "DES-PT-01a",
    "Angiogenesis-PT-20",
    "TriangularGrid-PT-1500",
];

/// In debug builds (20 times slower) only the first instances.
const DEBUG_INSTANCES: usize = 2;

const EXAMINATIONS: [&str; 3] = [
    "ReachabilityCardinality",
    "ReachabilityFireability",
    "UpperBounds",
];

/// `oracle.tsv`: formula id → answer (`?` rows left out: they check nothing).
fn oracle() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(common::shared_mcc().join("oracle.tsv"))
        .expect("../shared/mcc/oracle.tsv is needed");
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols.len() == 4 && cols[3] != "?").then(|| (cols[2].to_string(), cols[3].to_string()))
        })
        .collect()
}

#[test]
fn formula_examinations_agree_with_the_contest() {
    let oracle = oracle();
    let count = if cfg!(debug_assertions) {
        DEBUG_INSTANCES
    } else {
        INSTANCES.len()
    };
    let (mut known, mut given) = (0, 0);
    let mut wrong = Vec::new();
    for name in &INSTANCES[..count] {
        let dir = common::shared_mcc().join(name);
        assert!(
            dir.join("model.pnml").is_file(),
            "{} is missing",
            dir.display()
        );
        for exam in EXAMINATIONS {
            let out = common::unfold()
                .args(["mcc", "--examination", exam, "--timeout", "20s", "--dir"])
                .arg(&dir)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            let lines: Vec<&str> = stdout.lines().collect();
            assert_eq!(lines.len(), 16, "{name} {exam}: {stdout}");
            for line in lines {
                let words: Vec<&str> = line.split_whitespace().collect();
                assert_eq!(words[0], "FORMULA", "{line}");
                let (id, value) = (words[1], words[2]);
                assert!(id.starts_with(&format!("{name}-{exam}-")), "{line}");
                let Some(truth) = oracle.get(id) else {
                    continue;
                };
                known += 1;
                if value == "CANNOT_COMPUTE" {
                    continue;
                }
                assert!(line.contains(" TECHNIQUES "), "{line}");
                given += 1;
                if value != truth {
                    wrong.push(format!("{id}: {value}, the contest says {truth}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "wrong answers:\n{}", wrong.join("\n"));
    assert!(
        given * 10 >= known * 9,
        "{given} of {known} known answers given"
    );
}
