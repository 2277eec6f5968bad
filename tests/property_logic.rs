//! Formulas outside the temporal logic their file or examination expects: `unfold check`
//! refuses them at the offending operator's line and column (exit 2); `unfold mcc` answers
//! `CANNOT_COMPUTE` for each of them, says why on standard error, and answers the others.
//! None of the contest's own formula files is refused (fails, never skips, when ../shared/mcc
//! is missing).

use crate::common;

use std::path::{Path, PathBuf};

use unfold::mcc::Examination;
use unfold::property::{Logic, load, refusal};

const NET: &str = "nets/ring-4.pnml";

/// `unfold check NET args…`: its exit code and standard error.
fn check(args: &[&str]) -> (Option<i32>, String) {
    let out = common::unfold()
        .arg("check")
        .arg(NET)
        .args(args)
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

/// The contest's XML file of one property `id` whose formula is `body`.
fn xml(id: &str, body: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<property-set xmlns=\"http://mcc.lip6.fr/\">\n  <property>\n    \
         <id>{id}</id>\n    <formula>\n{body}\n    </formula>\n  </property>\n</property-set>\n"
    )
}

fn write(dir: &Path, name: &str, content: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

/// `A G F fireable(pass_0)`: LTL, not CTL. The `<finally>` is on line 8.
const LTL_ONLY: &str = "      <all-paths>\n        <globally>\n          <finally>\n            \
    <is-fireable><transition>pass_0</transition></is-fireable>\n          </finally>\n        \
    </globally>\n      </all-paths>";

/// `A G E F fireable(pass_0)`: CTL, not LTL. The `<exists-path>` is on line 8.
const CTL_ONLY: &str = "      <all-paths>\n        <globally>\n          <exists-path>\n            \
    <finally><is-fireable><transition>pass_0</transition></is-fireable></finally>\n          \
    </exists-path>\n        </globally>\n      </all-paths>";

#[test]
fn an_ltl_formula_in_a_ctl_file_is_refused_at_its_operator() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "CTLCardinality.xml", &xml("f", LTL_ONLY));
    let (code, err) = check(&["--formulas", file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    let want = format!(
        "{}:8:11: not CTL: F (finally) not right after",
        file.display()
    );
    assert!(err.contains(&want), "{err}");
    assert!(err.contains("(property f)"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    // The same file under another name is of either logic: answered, as LTL.
    let other = write(dir.path(), "mine.xml", &xml("f", LTL_ONLY));
    let (code, err) = check(&["--formulas", other.to_str().unwrap()]);
    assert!(matches!(code, Some(0 | 1)), "{err}");
    // --logic says it for any file.
    let (code, err) = check(&["--logic", "ctl", "--formulas", other.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(":8:11: not CTL"), "{err}");
}

#[test]
fn a_nested_path_quantifier_in_an_ltl_file_is_refused_at_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "LTLFireability.xml", &xml("g", CTL_ONLY));
    let (code, err) = check(&["--formulas", file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    let want = format!("{}:8:11: not LTL: E (exists-path) inside", file.display());
    assert!(err.contains(&want), "{err}");
    let (code, err) = check(&["--logic", "ltl", "--formula", "A (G (E F deadlock))"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("1:7: not LTL: E (exists-path) inside"),
        "{err}"
    );
    // A CTL file takes it.
    let ctl = write(dir.path(), "CTLFireability.xml", &xml("g", CTL_ONLY));
    let (code, err) = check(&["--formulas", ctl.to_str().unwrap()]);
    assert!(matches!(code, Some(0 | 1)), "{err}");
}

#[test]
fn a_path_formula_inside_a_state_predicate_is_refused() {
    for (formula, at) in [
        (
            "tokens(idle_0) >= 3 && F fireable(pass_0)",
            "1:24: F (finally)",
        ),
        (
            "fireable(work_0) || X tokens(busy_0) >= 1",
            "1:21: X (next)",
        ),
        ("EF deadlock && deadlock U deadlock", "1:25: U (until)"),
    ] {
        let (code, err) = check(&["--formula", formula]);
        assert_eq!(code, Some(2), "{formula}: {err}");
        assert!(
            err.contains(&format!("--formula '{formula}': {at} under no")),
            "{err}"
        );
    }
    // In a file of the text syntax, at its line.
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "props.txt",
        "a: AG !deadlock\nb: tokens(idle_0) >= 1 && G deadlock\n",
    );
    let (code, err) = check(&["--formulas", file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("{}:2:27: G (globally) under no", file.display())),
        "{err}"
    );
}

#[test]
fn a_formula_of_neither_logic_is_refused() {
    let (code, err) = check(&["--formula", "A (F deadlock && E G deadlock)"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("1:4: neither LTL nor CTL"), "{err}");
}

/// An instance folder of the ring net with `file` holding `formulas` (id, body).
fn instance(file: &str, formulas: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(NET, dir.path().join("model.pnml")).unwrap();
    write(dir.path(), "iscolored", "FALSE\n");
    let properties: String = formulas
        .iter()
        .map(|(id, body)| {
            format!(
                "  <property>\n    <id>{id}</id>\n    <formula>\n{body}\n    </formula>\n  \
                 </property>\n"
            )
        })
        .collect();
    let text = format!(
        "<?xml version=\"1.0\"?>\n<property-set xmlns=\"http://mcc.lip6.fr/\">\n{properties}\
         </property-set>\n"
    );
    write(dir.path(), file, &text);
    dir
}

/// `unfold mcc` on `dir`: exit code, answer lines, standard error.
fn mcc(dir: &Path, exam: &str) -> (Option<i32>, Vec<String>, String) {
    let out = common::unfold()
        .args(["mcc", "--timeout", "30s", "--examination", exam, "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    (
        out.status.code(),
        lines,
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The answer (`TRUE`, `FALSE`, `CANNOT_COMPUTE`) of formula `id` among `lines`.
fn answer_of<'l>(lines: &'l [String], id: &str) -> &'l str {
    let line = lines
        .iter()
        .find(|l| l.split_whitespace().nth(1) == Some(id))
        .unwrap_or_else(|| panic!("no line for {id}: {lines:?}"));
    line.split_whitespace().nth(2).unwrap()
}

const EF: &str = "      <exists-path><finally><is-fireable><transition>work_0</transition>\
    </is-fireable></finally></exists-path>";

#[test]
fn mcc_answers_cannot_compute_for_a_formula_of_the_other_logic() {
    let dir = instance(
        "CTLCardinality.xml",
        &[("a", EF), ("b", LTL_ONLY), ("c", CTL_ONLY)],
    );
    let (code, lines, err) = mcc(dir.path(), "CTLCardinality");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(answer_of(&lines, "b"), "CANNOT_COMPUTE", "{lines:?}");
    for id in ["a", "c"] {
        assert!(
            matches!(answer_of(&lines, id), "TRUE" | "FALSE"),
            "{lines:?}"
        );
    }
    assert!(
        err.contains("b: CTLCardinality.xml:14:11: not CTL: F (finally)"),
        "{err}"
    );
    let dir = instance(
        "LTLFireability.xml",
        &[("a", EF), ("b", LTL_ONLY), ("c", CTL_ONLY)],
    );
    let (code, lines, err) = mcc(dir.path(), "LTLFireability");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(answer_of(&lines, "c"), "CANNOT_COMPUTE", "{lines:?}");
    for id in ["a", "b"] {
        assert!(
            matches!(answer_of(&lines, id), "TRUE" | "FALSE"),
            "{lines:?}"
        );
    }
    assert!(
        err.contains("c: LTLFireability.xml:26:11: not LTL: E (exists-path)"),
        "{err}"
    );
}

#[test]
fn no_formula_of_the_contest_is_refused() {
    let root = common::shared_mcc();
    let mut read = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for exam in Examination::ALL {
            let Some(file) = exam.formula_file() else {
                continue;
            };
            let logics = [exam.logic().unwrap_or(Logic::Any), Logic::Any];
            for q in load(&dir.join(&file)).unwrap() {
                for logic in logics {
                    if let Some(e) = refusal(&q, logic) {
                        panic!("{}/{file}:{e} ({}, {logic:?})", dir.display(), q.id);
                    }
                }
                read += 1;
            }
        }
    }
    // 69 instances, 7 files of 16 formulas.
    assert!(read >= 69 * 7 * 16, "only {read} formulas read");
}

/// `A F fireable(work_0)`: LTL and CTL, but not a reachability question.
const AF: &str = "      <all-paths><finally><is-fireable><transition>work_0</transition>\
    </is-fireable></finally></all-paths>";

/// `bound(idle_0)`.
const BOUND: &str = "      <place-bound><place>idle_0</place></place-bound>";

#[test]
fn mcc_answers_cannot_compute_for_a_formula_outside_reachability_or_bounds() {
    let formulas = [
        ("a", EF),
        ("b", LTL_ONLY),
        ("c", CTL_ONLY),
        ("d", AF),
        ("e", BOUND),
    ];
    for exam in ["ReachabilityCardinality", "ReachabilityFireability"] {
        let dir = instance(&format!("{exam}.xml"), &formulas);
        let (code, lines, err) = mcc(dir.path(), exam);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(lines.len(), 5, "{lines:?}");
        assert!(
            matches!(answer_of(&lines, "a"), "TRUE" | "FALSE"),
            "{lines:?}"
        );
        for id in ["b", "c", "d", "e"] {
            assert_eq!(answer_of(&lines, id), "CANNOT_COMPUTE", "{id}: {lines:?}");
        }
        assert!(
            err.contains(&format!("d: {exam}.xml:"))
                && err.contains("not reachability: F (finally) right after A"),
            "{err}"
        );
        assert!(err.contains("not reachability: a place bound"), "{err}");
    }
    let dir = instance("UpperBounds.xml", &[("a", EF), ("e", BOUND)]);
    let (code, lines, err) = mcc(dir.path(), "UpperBounds");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(answer_of(&lines, "a"), "CANNOT_COMPUTE", "{lines:?}");
    assert!(answer_of(&lines, "e").parse::<u64>().is_ok(), "{lines:?}");
    assert!(
        err.contains("a: UpperBounds.xml:") && err.contains("not a place bound"),
        "{err}"
    );
    // `unfold check` refuses them in a file of the examination's name.
    let file = dir.path().join("ReachabilityCardinality.xml");
    std::fs::write(&file, xml("d", AF)).unwrap();
    let (code, err) = check(&["--formulas", file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("not reachability: F (finally) right after A"),
        "{err}"
    );
}
