//! The property readers on the contest's own files: every formula file of every instance of
//! ../shared/mcc reads to the 16 properties `oracle.tsv` names for that instance and
//! examination, prints to the text syntax and reads back to the same tree, writes to XML and
//! reads back, and on P/T instances names only places and transitions of the model.
//! Fails (never skips) when ../shared/mcc is missing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use unfold::property::{Ask, Form, Formula, Names, Query, load, parse_formula, parse_xml, to_xml};

/// The examinations that come with a formula file.
const EXAMINATIONS: [&str; 7] = [
    "ReachabilityCardinality",
    "ReachabilityFireability",
    "UpperBounds",
    "LTLCardinality",
    "LTLFireability",
    "CTLCardinality",
    "CTLFireability",
];

fn mcc() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/mcc");
    assert!(
        dir.join("oracle.tsv").is_file(),
        "{} is missing: this test needs ../shared beside the checkout",
        dir.display()
    );
    dir
}

/// The instance folders, sorted.
fn instances(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 60,
        "only {} instances in {}",
        dirs.len(),
        root.display()
    );
    dirs
}

/// The formula ids of `oracle.tsv`, by instance and examination.
fn oracle_ids(root: &Path) -> BTreeMap<(String, String), BTreeSet<String>> {
    let text = std::fs::read_to_string(root.join("oracle.tsv")).unwrap();
    let mut ids: BTreeMap<_, BTreeSet<String>> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 4, "oracle.tsv: {line}");
        if EXAMINATIONS.contains(&cols[1]) {
            ids.entry((cols[0].to_string(), cols[1].to_string()))
                .or_default()
                .insert(cols[2].to_string());
        }
    }
    ids
}

fn instance_name(dir: &Path) -> String {
    dir.file_name().unwrap().to_string_lossy().into_owned()
}

fn read(dir: &Path, examination: &str) -> Vec<Query> {
    let path = dir.join(format!("{examination}.xml"));
    load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Whether `f` has a subformula for which `pred` holds.
fn any(f: &Formula, pred: &dyn Fn(&Formula) -> bool) -> bool {
    pred(f)
        || match f {
            Form::Not(g)
            | Form::Exists(g)
            | Form::All(g)
            | Form::Next(g)
            | Form::Finally(g)
            | Form::Globally(g) => any(g, pred),
            Form::And(gs) | Form::Or(gs) => gs.iter().any(|g| any(g, pred)),
            Form::Until(a, b) => any(a, pred) || any(b, pred),
            Form::Bool(_) | Form::Deadlock | Form::Fireable(_) | Form::Compare(..) => false,
        }
}

/// The shape each examination's formulas must have.
fn check_shape(examination: &str, q: &Query) {
    let f = match &q.ask {
        Ask::Bound(places) => {
            assert_eq!(examination, "UpperBounds", "{}", q.id);
            assert!(!places.is_empty(), "{}", q.id);
            return;
        }
        Ask::Holds(f) => f,
    };
    assert_ne!(examination, "UpperBounds", "{}", q.id);
    if examination.starts_with("Reachability") {
        assert!(f.as_reachability().is_some(), "{}: {q}", q.id);
    }
    if examination.starts_with("LTL") {
        assert!(matches!(f, Form::All(_)), "{}: {q}", q.id);
    }
    let fireable = any(f, &|g| matches!(g, Form::Fireable(_)));
    let compare = any(f, &|g| matches!(g, Form::Compare(..)));
    if examination.ends_with("Fireability") {
        assert!(fireable && !compare, "{}: {q}", q.id);
    } else {
        assert!(compare && !fireable, "{}: {q}", q.id);
    }
}

#[test]
fn every_formula_file_reads_prints_and_reads_back() {
    let root = mcc();
    let oracle = oracle_ids(&root);
    let mut files = 0;
    for dir in instances(&root) {
        let instance = instance_name(&dir);
        for examination in EXAMINATIONS {
            let queries = read(&dir, examination);
            assert_eq!(queries.len(), 16, "{instance} {examination}");
            let ids: BTreeSet<String> = queries.iter().map(|q| q.id.clone()).collect();
            let want = oracle
                .get(&(instance.clone(), examination.to_string()))
                .unwrap_or_else(|| panic!("{instance} {examination}: not in oracle.tsv"));
            assert_eq!(&ids, want, "{instance} {examination}");
            for q in &queries {
                check_shape(examination, q);
                let text = q.to_string();
                let back = parse_formula(&text)
                    .unwrap_or_else(|e| panic!("{instance} {}: {text}: {e}", q.id));
                assert_eq!(&back, q, "{instance}: {text}");
            }
            let again = parse_xml(&to_xml(&queries)).unwrap();
            assert_eq!(again, queries, "{instance} {examination}");
            files += 1;
        }
    }
    assert!(files >= 60 * EXAMINATIONS.len());
}

#[test]
fn every_name_of_a_pt_instance_is_a_node_of_its_model() {
    let root = mcc();
    let mut checked = 0;
    for dir in instances(&root) {
        let colored = std::fs::read_to_string(dir.join("iscolored")).unwrap();
        match colored.trim() {
            "TRUE" => continue,
            "FALSE" => {}
            other => panic!("{}: iscolored is '{other}'", dir.display()),
        }
        let (net, _) =
            unfold::formats::read_net(&dir.join("model.pnml")).unwrap_or_else(|e| panic!("{e}"));
        let names = Names::of(&net);
        for examination in EXAMINATIONS {
            for q in read(&dir, examination) {
                if let Err(e) = names.resolve(&q) {
                    panic!("{}/{examination}.xml: {e}", dir.display());
                }
            }
        }
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} P/T instances");
}
