//! The examination modes: one MCC examination of one instance folder run as a child
//! `unfold mcc --dir … --examination …`, whose answer lines (standard output) become one
//! [`FormulaRow`] per formula and whose notes (standard error) give the time of each formula.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;

use unfold::check::run::Engine;
use unfold::explore::limits::StopReason;
use unfold::mcc::Examination;
use unfold::mcc::answer::{CANNOT_COMPUTE, DO_NOT_COMPETE, MODEL_FILE, Technique};
use unfold::property::load::load;

use super::formula::{Answers, FormulaRow};
use super::job::{Finished, Job, RunOptions, failure_line, first_line, secs_arg};
use super::row::{Row, Status};
use super::supervise::{ChildRun, Ended, KILL_GRACE, supervise};

/// The ids of the StateSpace answers, in the order `unfold mcc` prints them.
const STATE_SPACE_IDS: [&str; 4] = [
    "STATES",
    "TRANSITIONS",
    "MAX_TOKEN_IN_PLACE",
    "MAX_TOKEN_PER_MARKING",
];

/// Whether `path` is the model of an MCC instance folder (where the examination modes run).
pub fn is_instance_model(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()) == Some(MODEL_FILE)
}

/// One answer line: `FORMULA <id> <answer> TECHNIQUES …` or `STATE_SPACE <id> <n> TECHNIQUES …`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Printed {
    /// The formula id (the figure's name for StateSpace).
    pub id: String,
    /// `TRUE`, `FALSE`, a number or `CANNOT_COMPUTE`.
    pub answer: String,
    /// The words after `TECHNIQUES`.
    pub techniques: Vec<String>,
}

/// What `unfold mcc` printed on standard output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Said {
    /// The answer lines, in order.
    pub lines: Vec<Printed>,
    /// A lone `DO_NOT_COMPETE` or `CANNOT_COMPUTE`: the answer to every formula.
    pub whole: Option<String>,
    /// Lines that are none of these (the contest would not read them).
    pub strange: Vec<String>,
}

/// Reads the answer lines of `unfold mcc`.
pub fn parse_answers(stdout: &str) -> Said {
    let mut said = Said::default();
    for line in stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            [w] if *w == DO_NOT_COMPETE || *w == CANNOT_COMPUTE => {
                said.whole.get_or_insert_with(|| w.to_string());
            }
            ["FORMULA" | "STATE_SPACE", id, answer, rest @ ..]
                if rest.is_empty() || rest[0] == "TECHNIQUES" =>
            {
                said.lines.push(Printed {
                    id: id.to_string(),
                    answer: answer.to_string(),
                    techniques: rest.iter().skip(1).map(|w| w.to_string()).collect(),
                });
            }
            _ => said.strange.push(line.trim().chars().take(200).collect()),
        }
    }
    said
}

/// The engine named by an answer's techniques: `TOPOLOGICAL SAT_SMT` the trap argument for
/// deadlock freedom, `SAT_SMT` the prefix's SAT encoding, `TOPOLOGICAL` the structural shortcuts, `EXPLICIT` explicit reachability, `NET_UNFOLDING`
/// alone an unfolding (the prefix or the DPOR of ReachabilityDeadlock). Other words are kept,
/// lower-cased.
pub fn engine_of(techniques: &[String]) -> String {
    let has = |t: Technique| techniques.iter().any(|w| w == t.keyword());
    if has(Technique::SatSmt) && has(Technique::Topological) {
        "traps".to_string()
    } else if has(Technique::SatSmt) {
        Engine::Prefix.name().to_string()
    } else if has(Technique::Topological) {
        Engine::Structural.name().to_string()
    } else if has(Technique::Explicit) {
        Engine::Explicit.name().to_string()
    } else if has(Technique::NetUnfolding) {
        "unfolding".to_string()
    } else {
        let other: Vec<&str> = techniques
            .iter()
            .map(String::as_str)
            .filter(|w| *w != Technique::SequentialProcessing.keyword())
            .collect();
        other.join(" ").to_ascii_lowercase()
    }
}

/// The seconds per formula from the notes of `unfold mcc` on standard error:
/// `unfold mcc: <examination>: <id>: <engine> in <seconds> s`.
pub fn formula_times(stderr: &str, exam: Examination) -> HashMap<String, f64> {
    let lead = format!("unfold mcc: {}: ", exam.name());
    let mut times = HashMap::new();
    for line in stderr.lines() {
        let Some(rest) = line.trim().strip_prefix(&lead) else {
            continue;
        };
        let Some((id, what)) = rest.split_once(": ") else {
            continue;
        };
        if let [_engine, "in", secs, "s"] = what.split_whitespace().collect::<Vec<_>>()[..]
            && let Ok(t) = secs.parse::<f64>()
        {
            times.insert(id.to_string(), t);
        }
    }
    times
}

/// The ids an examination asks of an instance: the examination's name for a global property,
/// the four figures of StateSpace, and for a formula examination the ids of its formula file
/// (or, when that does not load, those the answers file lists).
fn expected_ids(
    exam: Examination,
    dir: &Path,
    instance: &str,
    answers: Option<&Answers>,
) -> Vec<String> {
    if exam == Examination::StateSpace {
        return STATE_SPACE_IDS.iter().map(|s| s.to_string()).collect();
    }
    let Some(file) = exam.formula_file() else {
        return vec![exam.name().to_string()];
    };
    match load(&dir.join(file)) {
        Ok(queries) => queries.into_iter().map(|q| q.id).collect(),
        Err(_) => answers
            .map(|a| a.ids(instance, exam.name()).to_vec())
            .unwrap_or_default(),
    }
}

fn mcc_command(exam: Examination, dir: &Path, opts: &RunOptions) -> Command {
    let mut cmd = Command::new(&opts.exe);
    cmd.arg("mcc")
        .arg("--dir")
        .arg(dir)
        .arg("--examination")
        .arg(exam.name());
    if let Some(t) = opts.timeout {
        cmd.arg("--timeout").arg(secs_arg(t));
    }
    if let Some(m) = opts.mem_limit {
        cmd.arg("--mem-limit").arg(m.to_string());
    }
    cmd
}

/// The status of an `unfold mcc` run from its end: exit 0 answered, 3 stopped by a limit (its
/// note says which), 2 bad input, 101 a panic.
fn mcc_status(run: &ChildRun) -> (Status, Option<i32>, String) {
    match run.ended {
        Ended::Exited(0) => (Status::Ok, Some(0), String::new()),
        Ended::Exited(3) => {
            let text = String::from_utf8_lossy(&run.stderr);
            let memory = format!("stopped: {}", StopReason::MemoryLimit);
            let status = if text.contains(&memory) {
                Status::Memory
            } else {
                Status::Timeout
            };
            (status, Some(3), String::new())
        }
        Ended::Exited(2) => (Status::Refused, Some(2), first_line(&run.stderr)),
        Ended::Exited(101) => (Status::Crash, Some(101), failure_line(&run.stderr)),
        Ended::Exited(code) => (Status::Error, Some(code), failure_line(&run.stderr)),
        Ended::Signaled(sig) => (Status::Crash, None, format!("killed by signal {sig}")),
        Ended::KilledAtLimit => (
            Status::Timeout,
            None,
            "killed at the batch's hard time limit".into(),
        ),
        Ended::Interrupted => (Status::Error, None, "interrupted".into()),
    }
}

/// The formula rows of a run: one per answer line, then one per expected id without a line
/// (answered as a whole `DO_NOT_COMPETE`/`CANNOT_COMPUTE`, else `CANNOT_COMPUTE`), or a
/// single row without id when nothing names a formula. `base` carries the run's columns.
fn formula_rows(
    said: &Said,
    expected: &[String],
    times: &HashMap<String, f64>,
    base: &FormulaRow,
) -> Vec<FormulaRow> {
    let mut rows = Vec::new();
    let mut seen = HashSet::new();
    for p in &said.lines {
        if !seen.insert(p.id.as_str()) {
            continue;
        }
        rows.push(FormulaRow {
            id: p.id.clone(),
            answer: p.answer.clone(),
            engine: if p.answer == CANNOT_COMPUTE {
                String::new()
            } else {
                engine_of(&p.techniques)
            },
            time_s: times.get(&p.id).copied().unwrap_or(base.wall_s),
            ..base.clone()
        });
    }
    let silent = |id: &str| FormulaRow {
        id: id.to_string(),
        answer: said
            .whole
            .clone()
            .unwrap_or_else(|| CANNOT_COMPUTE.to_string()),
        message: if said.whole.is_none() && base.message.is_empty() {
            "no answer line".to_string()
        } else {
            base.message.clone()
        },
        time_s: base.wall_s,
        ..base.clone()
    };
    for id in expected {
        if seen.insert(id.as_str()) {
            rows.push(silent(id));
        }
    }
    if rows.is_empty() {
        rows.push(silent(""));
    }
    rows
}

/// Why the answer lines break the contest's protocol, if they do: lines it would not read,
/// a formula answered twice, or an answer besides a whole `DO_NOT_COMPETE`/`CANNOT_COMPUTE`.
fn protocol_error(said: &Said) -> Option<String> {
    if let Some(line) = said.strange.first() {
        return Some(format!("not an answer line on standard output: {line}"));
    }
    let mut seen = HashSet::new();
    if let Some(p) = said.lines.iter().find(|p| !seen.insert(p.id.as_str())) {
        return Some(format!("formula {} answered twice", p.id));
    }
    match &said.whole {
        Some(w) if !said.lines.is_empty() => Some(format!("{w} printed besides answer lines")),
        _ => None,
    }
}

/// Runs one examination of one instance folder (the folder of `job.net.path`) to its rows;
/// `None` when the batch was interrupted meanwhile. The formula rows carry no verdict yet.
pub(super) fn examination_run(
    mut row: Row,
    exam: Examination,
    job: &Job,
    opts: &RunOptions,
    interrupt: &AtomicBool,
) -> Option<Finished> {
    let dir = job
        .net
        .path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let cmd = mcc_command(exam, dir, opts);
    let hard = opts.timeout.map(|t| t.saturating_add(KILL_GRACE));
    let (said, times) = match supervise(cmd, hard, interrupt) {
        Ok(run) if run.ended == Ended::Interrupted => return None,
        Ok(run) => {
            let (status, code, message) = mcc_status(&run);
            row.status = status;
            row.exit_code = code;
            row.message = message;
            row.wall_s = run.wall.as_secs_f64();
            row.peak_mb = run.peak_bytes.map(|b| b as f64 / (1u64 << 20) as f64);
            let said = parse_answers(&String::from_utf8_lossy(&run.stdout));
            if let Some(why) = protocol_error(&said) {
                if row.status == Status::Ok {
                    row.status = Status::Error;
                }
                if row.message.is_empty() {
                    row.message = why;
                }
            }
            let times = formula_times(&String::from_utf8_lossy(&run.stderr), exam);
            (said, times)
        }
        Err(e) => {
            row.status = Status::Error;
            row.message = format!("cannot start {}: {e}", opts.exe.display());
            (Said::default(), HashMap::new())
        }
    };
    let base = FormulaRow {
        instance: row.net.clone(),
        examination: exam.name().to_string(),
        status: row.status,
        wall_s: row.wall_s,
        peak_mb: row.peak_mb,
        message: row.message.clone(),
        ..FormulaRow::default()
    };
    let expected = expected_ids(exam, dir, &row.net, opts.answers.as_deref());
    let formulas = formula_rows(&said, &expected, &times, &base);
    Some(Finished { row, formulas })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[&str]) -> Vec<String> {
        ws.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn answer_lines() {
        let said = parse_answers(
            "FORMULA D-UpperBounds-00 1 TECHNIQUES TOPOLOGICAL SEQUENTIAL_PROCESSING\n\
             FORMULA D-UpperBounds-01 CANNOT_COMPUTE\n\
             STATE_SPACE STATES 6144 TECHNIQUES EXPLICIT SEQUENTIAL_PROCESSING\n\
             \n\
             FORMULA ReachabilityDeadlock FALSE TECHNIQUES NET_UNFOLDING SEQUENTIAL_PROCESSING\n",
        );
        assert_eq!(said.lines.len(), 4);
        assert_eq!(said.lines[0].id, "D-UpperBounds-00");
        assert_eq!(said.lines[0].answer, "1");
        assert_eq!(
            said.lines[0].techniques,
            words(&["TOPOLOGICAL", "SEQUENTIAL_PROCESSING"])
        );
        assert_eq!(said.lines[1].answer, CANNOT_COMPUTE);
        assert!(said.lines[1].techniques.is_empty());
        assert_eq!(
            (said.lines[2].id.as_str(), said.lines[2].answer.as_str()),
            ("STATES", "6144")
        );
        assert_eq!(said.whole, None);
        assert!(said.strange.is_empty());
        assert_eq!(protocol_error(&said), None);

        let said = parse_answers("DO_NOT_COMPETE\n");
        assert_eq!(said.whole.as_deref(), Some(DO_NOT_COMPETE));
        assert!(said.lines.is_empty());
        let said = parse_answers("FORMULA x TRUE EXPLICIT\nhello\n");
        assert_eq!(said.strange, ["FORMULA x TRUE EXPLICIT", "hello"]);
        assert!(protocol_error(&said).is_some());
        let said = parse_answers("FORMULA x TRUE TECHNIQUES A\nFORMULA x FALSE TECHNIQUES A\n");
        assert!(protocol_error(&said).unwrap().contains("twice"));
        let said = parse_answers("FORMULA x TRUE TECHNIQUES A\nCANNOT_COMPUTE\n");
        assert!(protocol_error(&said).is_some());
    }

    #[test]
    fn engines_of_techniques() {
        let e = |ws: &[&str]| engine_of(&words(ws));
        assert_eq!(
            e(&["NET_UNFOLDING", "SAT_SMT", "SEQUENTIAL_PROCESSING"]),
            "prefix"
        );
        assert_eq!(e(&["TOPOLOGICAL", "SEQUENTIAL_PROCESSING"]), "structural");
        assert_eq!(
            e(&["TOPOLOGICAL", "SAT_SMT", "SEQUENTIAL_PROCESSING"]),
            "traps"
        );
        assert_eq!(e(&["EXPLICIT", "SEQUENTIAL_PROCESSING"]), "explicit");
        assert_eq!(e(&["NET_UNFOLDING", "SEQUENTIAL_PROCESSING"]), "unfolding");
        assert_eq!(e(&["STRUCTURAL_REDUCTION"]), "structural_reduction");
    }

    #[test]
    fn times_from_notes() {
        let t = formula_times(
            "unfold mcc: UpperBounds: D-UpperBounds-00: explicit in 0.012 s\n\
             unfold mcc: UpperBounds: D-UpperBounds-01: time limit reached\n\
             unfold mcc: UpperBounds: 0.500 s\n\
             unfold mcc: OneSafe: x: explicit in 9 s\n",
            Examination::UpperBounds,
        );
        assert_eq!(t.len(), 1);
        assert_eq!(t["D-UpperBounds-00"], 0.012);
    }

    #[test]
    fn rows_cover_every_expected_formula() {
        let base = FormulaRow {
            instance: "D".into(),
            examination: "UpperBounds".into(),
            wall_s: 2.0,
            ..FormulaRow::default()
        };
        let said = parse_answers(
            "FORMULA b 3 TECHNIQUES EXPLICIT\nFORMULA c CANNOT_COMPUTE\nFORMULA z 1 TECHNIQUES SAT_SMT\n",
        );
        let times = HashMap::from([("b".to_string(), 0.5)]);
        let rows = formula_rows(&said, &words(&["a", "b", "c"]), &times, &base);
        let cells: Vec<(&str, &str, &str, f64)> = rows
            .iter()
            .map(|r| {
                (
                    r.id.as_str(),
                    r.answer.as_str(),
                    r.engine.as_str(),
                    r.time_s,
                )
            })
            .collect();
        assert_eq!(
            cells,
            [
                ("b", "3", "explicit", 0.5),
                ("c", CANNOT_COMPUTE, "", 2.0),
                ("z", "1", "prefix", 2.0),
                ("a", CANNOT_COMPUTE, "", 2.0),
            ]
        );
        assert_eq!(rows[3].message, "no answer line");
        // A whole DO_NOT_COMPETE answers every expected formula.
        let said = parse_answers("DO_NOT_COMPETE\n");
        let rows = formula_rows(&said, &words(&["a", "b"]), &HashMap::new(), &base);
        assert!(rows.iter().all(|r| r.answer == DO_NOT_COMPETE), "{rows:?}");
        assert_eq!(rows.len(), 2);
        // Nothing names a formula: one row all the same.
        let rows = formula_rows(&Said::default(), &[], &HashMap::new(), &base);
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (rows[0].id.as_str(), rows[0].answer.as_str()),
            ("", CANNOT_COMPUTE)
        );
    }
}
