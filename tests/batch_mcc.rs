//! `unfold batch` with MCC examinations as modes, through the binary, on instance folders of
//! ../shared/mcc copied into a temporary folder: one row per formula with its verdict against
//! the contest's answers (read here by the test's own parser), the summary per examination, a
//! doctored answers file that makes the batch fail, coloured instances (unfolded), and `--resume`.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use unfold::mcc::Examination;

use crate::common;
use common::{BATCH_HEADER, csv_records, unfold};

const FORMULA_HEADER: &str =
    "instance,examination,id,answer,engine,time_s,status,verdict,wall_s,peak_mb,message";

/// Small P/T instances (a few hundred states at most: each examination answers in well under a
/// second in a debug build) and a coloured one.
const PT: [&str; 3] = [
    "ERK-PT-000001",
    "ResAllocation-PT-R002C002",
    "Dekker-PT-010",
];
const COLOURED: &str = "TokenRing-COL-005";

/// Copies the instance folders `names` into `dir`.
fn copy_instances(dir: &Path, names: &[&str]) {
    for name in names {
        let from = common::shared_mcc().join(name);
        let to = dir.join(name);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(&from).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
            }
        }
    }
}

/// The contest's answers: (instance, examination, id) → answer (`?` kept as it is).
fn oracle_lines() -> Vec<[String; 4]> {
    let text = std::fs::read_to_string(common::shared_mcc().join("oracle.tsv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("instance\texamination\tid\tanswer"));
    lines
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert_eq!(c.len(), 4, "{l}");
            [c[0], c[1], c[2], c[3]].map(String::from)
        })
        .collect()
}

type Oracle = BTreeMap<(String, String, String), String>;

fn oracle_map(lines: &[[String; 4]]) -> Oracle {
    lines
        .iter()
        .map(|[i, e, id, a]| ((i.clone(), e.clone(), id.clone()), a.clone()))
        .collect()
}

/// Writes an answers file in the oracle's layout.
fn write_answers(path: &Path, lines: &[[String; 4]]) {
    let mut text = String::from("instance\texamination\tid\tanswer\n");
    for l in lines {
        text.push_str(&l.join("\t"));
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

/// The verdict the batch must give, computed here from the oracle.
fn expected_verdict(oracle: &Oracle, row: &BTreeMap<String, String>) -> &'static str {
    let key = (
        row["instance"].clone(),
        row["examination"].clone(),
        row["id"].clone(),
    );
    match oracle.get(&key).map(String::as_str) {
        None | Some("?") => "unknown",
        Some(_) if ["CANNOT_COMPUTE", "DO_NOT_COMPETE", ""].contains(&row["answer"].as_str()) => {
            "unanswered"
        }
        Some(known) if known == row["answer"] => "right",
        Some(_) => "wrong",
    }
}

/// The rows of a CSV as maps from column to value; checks the header and that rows are whole.
fn read_csv(path: &Path, header: &str) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'), "last row cut short:\n{text}");
    let mut records = csv_records(&text).into_iter();
    let head = records.next().expect("a header");
    assert_eq!(head.join(","), header);
    records
        .map(|r| {
            assert_eq!(r.len(), head.len(), "ragged row {r:?}");
            head.iter().cloned().zip(r).collect()
        })
        .collect()
}

/// The numbers of the summary line of an examination's `(all)` row: asked, answered, right,
/// wrong, unanswered, unknown.
fn summary_counts(stdout: &str, exam: &str) -> Vec<String> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(exam) && l.contains("(all)"))
        .unwrap_or_else(|| panic!("no summary line for {exam}:\n{stdout}"));
    line.split_whitespace()
        .skip(2)
        .take(6)
        .map(String::from)
        .collect()
}

/// Runs the batch on `PT` with UpperBounds and ReachabilityDeadlock against `answers`.
fn run_pt(dir: &Path, answers: &Path, formulas: &Path) -> std::process::Output {
    unfold()
        .args([
            "batch",
            "--modes",
            "UpperBounds,ReachabilityDeadlock",
            "--timeout",
            "60",
            "-q",
            "--answers",
        ])
        .arg(answers)
        .arg("--formulas-csv")
        .arg(formulas)
        .arg("--csv")
        .arg(dir.join("runs.csv"))
        .arg("--jsonl")
        .arg(dir.join("runs.jsonl"))
        .arg(dir.join("suite"))
        .output()
        .unwrap()
}

#[test]
fn one_row_per_formula_with_its_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    copy_instances(&tmp.path().join("suite"), &PT);
    let formulas = tmp.path().join("formulas.csv");
    let out = run_pt(
        tmp.path(),
        &common::shared_mcc().join("oracle.tsv"),
        &formulas,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let oracle = oracle_map(&oracle_lines());
    let rows = read_csv(&formulas, FORMULA_HEADER);
    // The ids of every (instance, examination) are the contest's, each once.
    for inst in PT {
        for exam in ["UpperBounds", "ReachabilityDeadlock"] {
            let got: Vec<&str> = rows
                .iter()
                .filter(|r| r["instance"] == inst && r["examination"] == exam)
                .map(|r| r["id"].as_str())
                .collect();
            let want: BTreeSet<&str> = oracle
                .keys()
                .filter(|(i, e, _)| i == inst && e == exam)
                .map(|(_, _, id)| id.as_str())
                .collect();
            assert_eq!(got.len(), want.len(), "{inst} {exam}: {got:?}");
            assert_eq!(got.iter().copied().collect::<BTreeSet<_>>(), want);
        }
    }
    assert_eq!(rows.len(), PT.len() * 17);
    let engines = ["explicit", "prefix", "structural", "traps", "unfolding"];
    for r in &rows {
        assert_eq!(r["verdict"], expected_verdict(&oracle, r), "{r:?}");
        assert_ne!(r["verdict"], "wrong", "{r:?}");
        assert_eq!(r["status"], "ok", "{r:?}");
        let answered = r["answer"] != "CANNOT_COMPUTE";
        assert_eq!(engines.contains(&r["engine"].as_str()), answered, "{r:?}");
        let (time, wall): (f64, f64) = (r["time_s"].parse().unwrap(), r["wall_s"].parse().unwrap());
        assert!(time >= 0.0 && time <= wall + 0.001, "{r:?}");
    }
    // Small instances: the deadlock question is answered, and right, everywhere.
    let rd: Vec<_> = rows
        .iter()
        .filter(|r| r["examination"] == "ReachabilityDeadlock")
        .collect();
    assert!(rd.iter().all(|r| r["verdict"] == "right"), "{rd:?}");
    // The summary counts what the rows say.
    for exam in ["UpperBounds", "ReachabilityDeadlock"] {
        let of: Vec<_> = rows.iter().filter(|r| r["examination"] == exam).collect();
        let count = |v: &str| of.iter().filter(|r| r["verdict"] == v).count().to_string();
        let answered = of
            .iter()
            .filter(|r| r["answer"] != "CANNOT_COMPUTE")
            .count();
        assert_eq!(
            summary_counts(&stdout, exam),
            [
                of.len().to_string(),
                answered.to_string(),
                count("right"),
                count("wrong"),
                (of.len() - answered).to_string(),
                count("unknown"),
            ],
            "{stdout}"
        );
    }
    assert!(!stdout.contains("wrong answers"), "{stdout}");
    // One run row per (instance, examination), in the usual layout, mode = the examination.
    let runs = read_csv(&tmp.path().join("runs.csv"), BATCH_HEADER);
    let pairs: HashSet<(String, String)> = runs
        .iter()
        .map(|r| (r["net"].clone(), r["mode"].clone()))
        .collect();
    assert_eq!(runs.len(), PT.len() * 2);
    assert_eq!(pairs.len(), runs.len());
    assert!(
        runs.iter()
            .all(|r| r["status"] == "ok" && r["exit_code"] == "0")
    );
    // `--jsonl` has the same runs, each with its formulas as `--formulas-csv` has them.
    let jsonl = std::fs::read_to_string(tmp.path().join("runs.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), runs.len());
    let from_json: usize = lines
        .iter()
        .map(|l| l["formulas"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(from_json, rows.len());
    for l in &lines {
        for f in l["formulas"].as_array().unwrap() {
            let same = rows.iter().any(|r| {
                r["id"] == f["id"].as_str().unwrap()
                    && r["instance"] == f["instance"].as_str().unwrap()
                    && r["answer"] == f["answer"].as_str().unwrap()
                    && r["verdict"] == f["verdict"].as_str().unwrap_or("")
            });
            assert!(same, "{f} is not in --formulas-csv");
        }
    }
}

#[test]
fn a_wrong_answer_fails_the_batch() {
    let tmp = tempfile::tempdir().unwrap();
    copy_instances(&tmp.path().join("suite"), &PT);
    // The oracle's answers for these instances, doctored: the deadlock verdict of ERK flipped,
    // one bound of Dekker raised, one bound made unknown, one id left out.
    let mut lines: Vec<[String; 4]> = oracle_lines()
        .into_iter()
        .filter(|l| PT.contains(&l[0].as_str()))
        .collect();
    let find = |lines: &[[String; 4]], id: &str| lines.iter().position(|l| l[2] == id).unwrap();
    let rd = find(&lines, "ReachabilityDeadlock");
    let rd_instance = lines[rd][0].clone();
    lines[rd][3] = if lines[rd][3] == "TRUE" {
        "FALSE"
    } else {
        "TRUE"
    }
    .into();
    let ub = find(&lines, "Dekker-PT-010-UpperBounds-03");
    let raised: u64 = lines[ub][3].parse::<u64>().unwrap() + 1;
    lines[ub][3] = raised.to_string();
    let q = find(&lines, "Dekker-PT-010-UpperBounds-04");
    lines[q][3] = "?".into();
    let gone = find(&lines, "Dekker-PT-010-UpperBounds-05");
    lines.remove(gone);
    let answers = tmp.path().join("doctored.tsv");
    write_answers(&answers, &lines);

    let formulas = tmp.path().join("formulas.csv");
    let out = run_pt(tmp.path(), &answers, &formulas);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stdout}\n{stderr}");
    let rows = read_csv(&formulas, FORMULA_HEADER);
    let doctored = oracle_map(&lines);
    for r in &rows {
        assert_eq!(r["verdict"], expected_verdict(&doctored, r), "{r:?}");
    }
    let verdict = |inst: &str, id: &str| {
        rows.iter()
            .find(|r| r["instance"] == inst && r["id"] == id)
            .map(|r| r["verdict"].clone())
            .unwrap()
    };
    assert_eq!(verdict(&rd_instance, "ReachabilityDeadlock"), "wrong");
    assert_eq!(
        verdict("Dekker-PT-010", "Dekker-PT-010-UpperBounds-04"),
        "unknown"
    );
    assert_eq!(
        verdict("Dekker-PT-010", "Dekker-PT-010-UpperBounds-05"),
        "unknown"
    );
    // The wrong answers are listed by id, on both outputs.
    let ub_wrong = verdict("Dekker-PT-010", "Dekker-PT-010-UpperBounds-03") == "wrong";
    let wrong = 1 + usize::from(ub_wrong);
    assert!(
        stdout.contains(&format!("{wrong} wrong answers:")),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("{rd_instance} ReachabilityDeadlock: answered")));
    assert!(stderr.contains("wrong answers"), "{stderr}");
    assert!(stderr.contains("ReachabilityDeadlock"), "{stderr}");
}

#[test]
fn coloured_instances_compete() {
    // TokenRing-COL-005 is unfolded to P/T: every answer is the contest's.
    let tmp = tempfile::tempdir().unwrap();
    copy_instances(&tmp.path().join("suite"), &[COLOURED]);
    let formulas = tmp.path().join("formulas.csv");
    let out = run_pt(
        tmp.path(),
        &common::shared_mcc().join("oracle.tsv"),
        &formulas,
    );
    assert_eq!(out.status.code(), Some(0));
    let rows = read_csv(&formulas, FORMULA_HEADER);
    // 16 bounds (the ids of the formula file) and the deadlock question.
    assert_eq!(rows.len(), 17, "{rows:?}");
    let oracle = oracle_map(&oracle_lines());
    for r in &rows {
        assert_ne!(r["answer"], "DO_NOT_COMPETE", "{r:?}");
        assert_eq!(r["status"], "ok");
        assert_eq!(r["verdict"], expected_verdict(&oracle, r), "{r:?}");
        assert_ne!(r["verdict"], "wrong", "{r:?}");
    }
}

#[test]
fn mcc_all_and_mixed_modes() {
    let tmp = tempfile::tempdir().unwrap();
    copy_instances(&tmp.path().join("suite"), &["ERK-PT-000001"]);
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/nets/pep/do_od.ll_net");
    std::fs::copy(&net, tmp.path().join("suite/do_od.ll_net")).unwrap();
    let formulas = tmp.path().join("formulas.csv");
    let runs = tmp.path().join("runs.csv");
    let out = unfold()
        .args(["batch", "--modes", "reach", "--mcc", "all", "-q", "--csv"])
        .arg(&runs)
        .arg("--formulas-csv")
        .arg(&formulas)
        .arg(tmp.path().join("suite"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let rows = read_csv(&runs, BATCH_HEADER);
    let modes_of = |net: &str| -> BTreeSet<String> {
        rows.iter()
            .filter(|r| r["net"] == net)
            .map(|r| r["mode"].clone())
            .collect()
    };
    // Every examination on the instance, none on the plain net; reach on both.
    let mut want: BTreeSet<String> = Examination::ALL
        .iter()
        .map(|e| e.name().to_string())
        .collect();
    want.insert("reach".into());
    assert_eq!(modes_of("ERK-PT-000001"), want);
    assert_eq!(modes_of("do_od"), BTreeSet::from(["reach".to_string()]));
    // Without --answers the verdict column is empty; StateSpace has its four figures.
    let f = read_csv(&formulas, FORMULA_HEADER);
    assert!(f.iter().all(|r| r["verdict"].is_empty()), "{f:?}");
    let ss: BTreeSet<&str> = f
        .iter()
        .filter(|r| r["examination"] == "StateSpace")
        .map(|r| r["id"].as_str())
        .collect();
    assert_eq!(
        ss,
        BTreeSet::from([
            "STATES",
            "TRANSITIONS",
            "MAX_TOKEN_IN_PLACE",
            "MAX_TOKEN_PER_MARKING"
        ])
    );
}

#[test]
fn resume_skips_the_runs_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    copy_instances(&tmp.path().join("suite"), &PT[..2]);
    let formulas = tmp.path().join("formulas.csv");
    let runs = tmp.path().join("runs.csv");
    let run = |resume: bool| {
        let mut cmd = unfold();
        cmd.args(["batch", "--mcc", "OneSafe,UpperBounds", "-q", "--csv"])
            .arg(&runs)
            .arg("--formulas-csv")
            .arg(&formulas)
            .arg(tmp.path().join("suite"));
        if resume {
            cmd.arg("--resume");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    };
    run(false);
    let full = std::fs::read_to_string(&formulas).unwrap();
    let full_runs = std::fs::read_to_string(&runs).unwrap();
    let lines: Vec<&str> = full.lines().collect();
    assert_eq!(lines.len(), 1 + 2 * 17);
    // Cut the formula file inside the last run's rows (as a kill while writing would): the
    // last run has then only part of its formulas and a line cut short, and its run row is
    // gone from the other file.
    let last = lines.last().unwrap();
    let last_pair: Vec<&str> = last.split(',').take(2).collect();
    let keep = lines.len() - 3;
    // The first run's row gets a mark in its (last, empty) message column: a run redone
    // would lose it.
    assert!(lines[1].ends_with(','), "{}", lines[1]);
    let marked = format!("{}kept", lines[1]);
    let mut lines = lines.clone();
    lines[1] = &marked;
    let mut cut: String = lines[..keep].iter().map(|l| format!("{l}\n")).collect();
    cut.push_str(&lines[keep][..10]);
    std::fs::write(&formulas, &cut).unwrap();
    let run_lines: Vec<&str> = full_runs.lines().collect();
    let cut_runs: String = run_lines
        .iter()
        .filter(|l| !l.starts_with(&format!("{},{},", last_pair[0], last_pair[1])))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&runs, &cut_runs).unwrap();
    run(true);
    let resumed = std::fs::read_to_string(&formulas).unwrap();
    let resumed_lines: Vec<&str> = resumed.lines().collect();
    // Every formula once; the runs left alone keep their lines to the byte.
    assert_eq!(resumed_lines.len(), lines.len(), "{resumed}");
    let ids: HashSet<(&str, &str)> = resumed_lines
        .iter()
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (c[0], c[2])
        })
        .collect();
    assert_eq!(ids.len(), lines.len());
    let prefix = format!("{},{},", last_pair[0], last_pair[1]);
    let untouched = |ls: &[&str]| -> Vec<String> {
        ls.iter()
            .filter(|l| !l.starts_with(&prefix))
            .map(|l| l.to_string())
            .collect()
    };
    assert_eq!(untouched(&resumed_lines), untouched(&lines));
    assert!(resumed_lines[1].ends_with(",kept"), "{resumed}");
    assert_eq!(read_csv(&runs, BATCH_HEADER).len(), 4);
    // Resuming a finished batch changes nothing.
    run(true);
    assert_eq!(std::fs::read_to_string(&formulas).unwrap(), resumed);
}

#[test]
fn bad_usage_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    copy_instances(tmp.path(), &["ERK-PT-000001"]);
    let dir = tmp.path().to_str().unwrap();
    let missing = tmp.path().join("missing.tsv");
    let bad = tmp.path().join("bad.tsv");
    std::fs::write(&bad, "a\tb\n").unwrap();
    for args in [
        vec!["batch", "--mcc", "Nonsense", dir],
        vec!["batch", "--modes", "ReachabilityComputeBounds", dir],
        vec!["batch", "--mcc", "OneSafe", "--resume", dir],
        vec![
            "batch",
            "--mcc",
            "OneSafe",
            "--answers",
            missing.to_str().unwrap(),
            dir,
        ],
        vec![
            "batch",
            "--mcc",
            "OneSafe",
            "--answers",
            bad.to_str().unwrap(),
            dir,
        ],
    ] {
        let out = unfold().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    }
}

#[test]
fn a_run_stopped_by_its_time_limit() {
    let tmp = tempfile::tempdir().unwrap();
    // 1.7e9 reachable markings: StateSpace cannot finish in a second.
    copy_instances(&tmp.path().join("suite"), &["SwimmingPool-PT-06"]);
    let formulas = tmp.path().join("formulas.csv");
    let out = unfold()
        .args(["batch", "--mcc", "StateSpace", "--timeout", "1", "-q"])
        .arg("--answers")
        .arg(common::shared_mcc().join("oracle.tsv"))
        .arg("--formulas-csv")
        .arg(&formulas)
        .arg(tmp.path().join("suite"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let rows = read_csv(&formulas, FORMULA_HEADER);
    assert_eq!(rows.len(), 4, "{rows:?}");
    for r in &rows {
        assert_eq!(
            (
                r["answer"].as_str(),
                r["status"].as_str(),
                r["verdict"].as_str()
            ),
            ("CANNOT_COMPUTE", "timeout", "unanswered"),
            "{r:?}"
        );
    }
}
