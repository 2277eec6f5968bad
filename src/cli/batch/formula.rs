//! The rows of the examination modes: one per formula an MCC examination asks (CSV and back,
//! for `--resume`), the contest's known answers (`--answers`, the `oracle.tsv` layout), the
//! verdict of each answer against them, and the summary per examination and engine.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};
use unfold::mcc::answer::{CANNOT_COMPUTE, DO_NOT_COMPETE};

use super::row::Status;

/// What the contest's known answer says of a formula row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The answer is the known one.
    Right,
    /// The answer differs from the known one.
    Wrong,
    /// The answer is known, but the run gave none (`CANNOT_COMPUTE`, `DO_NOT_COMPETE`, no line).
    Unanswered,
    /// No known answer (`?` in the answers file, or the formula is not there): checks nothing.
    Unknown,
}

impl Verdict {
    /// All verdicts.
    pub const ALL: [Verdict; 4] = [
        Verdict::Right,
        Verdict::Wrong,
        Verdict::Unanswered,
        Verdict::Unknown,
    ];

    /// The name in the CSV.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Right => "right",
            Verdict::Wrong => "wrong",
            Verdict::Unanswered => "unanswered",
            Verdict::Unknown => "unknown",
        }
    }

    /// Parses a CSV name.
    pub fn parse(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == s.trim())
    }
}

/// One formula of one (instance, examination) run: a row of `--formulas-csv`, and an entry of
/// the run's `formulas` in `--jsonl`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct FormulaRow {
    /// The instance's name (the net's row name: its folder).
    pub instance: String,
    /// The examination's contest name.
    pub examination: String,
    /// The formula id as printed (`<instance>-UpperBounds-03`; the examination name for global
    /// properties; `STATES`, `TRANSITIONS`, … for StateSpace).
    pub id: String,
    /// `TRUE`, `FALSE`, a number, `CANNOT_COMPUTE` or `DO_NOT_COMPETE`.
    pub answer: String,
    /// The engine that decided it, from the answer's techniques (empty when undecided).
    pub engine: String,
    /// Seconds spent on this formula when the run's notes say, else the run's wall time.
    pub time_s: f64,
    /// How the run ended.
    pub status: Status,
    /// The answer against `--answers`; `None` without an answers file.
    pub verdict: Option<Verdict>,
    /// The run's wall-clock seconds.
    pub wall_s: f64,
    /// The run's peak resident memory in MiB.
    pub peak_mb: Option<f64>,
    /// Why there is no answer, or what went wrong with the run.
    pub message: String,
}

/// The columns of `--formulas-csv`, in order.
pub const FORMULA_COLUMNS: [&str; 11] = [
    "instance",
    "examination",
    "id",
    "answer",
    "engine",
    "time_s",
    "status",
    "verdict",
    "wall_s",
    "peak_mb",
    "message",
];

/// Whether `answer` is an answer (a truth value or a number), not a refusal to give one.
pub fn is_answer(answer: &str) -> bool {
    let a = answer.trim();
    !a.is_empty() && a != CANNOT_COMPUTE && a != DO_NOT_COMPETE
}

impl FormulaRow {
    /// The row's fields in [`FORMULA_COLUMNS`] order.
    pub fn record(&self) -> Vec<String> {
        vec![
            self.instance.clone(),
            self.examination.clone(),
            self.id.clone(),
            self.answer.clone(),
            self.engine.clone(),
            format!("{:.3}", self.time_s),
            self.status.as_str().to_string(),
            self.verdict.map_or("", Verdict::as_str).to_string(),
            format!("{:.3}", self.wall_s),
            self.peak_mb.map_or(String::new(), |m| format!("{m:.1}")),
            self.message.clone(),
        ]
    }

    /// Reads a row back from CSV fields named by `header`; `None` when `instance`,
    /// `examination` or `status` is missing or unreadable.
    pub fn from_record(header: &[String], fields: &[String]) -> Option<FormulaRow> {
        let get = |name: &str| -> &str {
            header
                .iter()
                .position(|h| h == name)
                .and_then(|i| fields.get(i))
                .map_or("", |s| s.as_str())
        };
        let row = FormulaRow {
            instance: get("instance").to_string(),
            examination: get("examination").to_string(),
            id: get("id").to_string(),
            answer: get("answer").to_string(),
            engine: get("engine").to_string(),
            time_s: get("time_s").parse().unwrap_or(0.0),
            status: Status::parse(get("status"))?,
            verdict: Verdict::parse(get("verdict")),
            wall_s: get("wall_s").parse().unwrap_or(0.0),
            peak_mb: get("peak_mb").parse().ok(),
            message: get("message").to_string(),
        };
        (!row.instance.is_empty() && !row.examination.is_empty()).then_some(row)
    }
}

/// The instance's name in the contest: the last component of a row name (rows may name an
/// instance by its path below the searched folder, or by its full path).
fn contest_instance(instance: &str) -> &str {
    instance
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(instance)
}

/// The digits of a natural number without leading zeros; `None` when `s` is not one.
fn digits(s: &str) -> Option<&str> {
    (!s.is_empty() && s.bytes().all(|c| c.is_ascii_digit())).then(|| {
        let t = s.trim_start_matches('0');
        if t.is_empty() { "0" } else { t }
    })
}

/// Whether two answers are the same: equal words, or equal numbers (leading zeros aside).
fn same_answer(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    match (digits(a), digits(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// The contest's known answers: the `oracle.tsv` layout, tab-separated with the header
/// `instance examination id answer`, `?` where the answer is unknown.
#[derive(Clone, Debug, Default)]
pub struct Answers {
    /// (instance, examination, id) → the answer, `None` when unknown.
    known: HashMap<(String, String, String), Option<String>>,
    /// (instance, examination) → its ids, in the file's order.
    ids: HashMap<(String, String), Vec<String>>,
}

impl Answers {
    /// Reads an answers file.
    pub fn read(path: &Path) -> Result<Answers> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Answers::parse(&text).with_context(|| path.display().to_string())
    }

    /// Parses the text of an answers file.
    pub fn parse(text: &str) -> Result<Answers> {
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(b'\t')
            .flexible(true)
            .quoting(false)
            .from_reader(text.as_bytes());
        let header: Vec<String> = reader
            .headers()
            .context("no header")?
            .iter()
            .map(|h| h.trim().to_string())
            .collect();
        let column = |name: &str| header.iter().position(|h| h == name);
        let (Some(ci), Some(ce), Some(cd), Some(ca)) = (
            column("instance"),
            column("examination"),
            column("id"),
            column("answer"),
        ) else {
            bail!("the header is not `instance examination id answer` (tab-separated)");
        };
        let mut answers = Answers::default();
        for (n, record) in reader.records().enumerate() {
            let record = record.with_context(|| format!("line {}", n + 2))?;
            let field = |i: usize| record.get(i).map(str::trim);
            let (Some(instance), Some(exam), Some(id), Some(answer)) =
                (field(ci), field(ce), field(cd), field(ca))
            else {
                bail!("line {}: fewer than four columns", n + 2);
            };
            let key = (instance.to_string(), exam.to_string(), id.to_string());
            let value = (answer != "?").then(|| answer.to_string());
            if answers.known.insert(key, value).is_none() {
                answers
                    .ids
                    .entry((instance.to_string(), exam.to_string()))
                    .or_default()
                    .push(id.to_string());
            }
        }
        Ok(answers)
    }

    /// The ids the file lists for an instance's examination, in its order.
    pub fn ids(&self, instance: &str, examination: &str) -> &[String] {
        self.ids
            .get(&(
                contest_instance(instance).to_string(),
                examination.to_string(),
            ))
            .map_or(&[], Vec::as_slice)
    }

    /// The known answer of a formula, if any.
    pub fn known(&self, row: &FormulaRow) -> Option<&str> {
        let key = (
            contest_instance(&row.instance).to_string(),
            row.examination.clone(),
            row.id.clone(),
        );
        self.known.get(&key)?.as_deref()
    }

    /// The verdict on a row's answer.
    pub fn verdict(&self, row: &FormulaRow) -> Verdict {
        match self.known(row) {
            None => Verdict::Unknown,
            Some(_) if !is_answer(&row.answer) => Verdict::Unanswered,
            Some(expected) if same_answer(&row.answer, expected) => Verdict::Right,
            Some(_) => Verdict::Wrong,
        }
    }
}

/// Counts of one examination (or one of its engines) in the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tally {
    asked: usize,
    answered: usize,
    right: usize,
    wrong: usize,
    unanswered: usize,
    unknown: usize,
}

impl Tally {
    fn add(&mut self, row: &FormulaRow) {
        self.asked += 1;
        if is_answer(&row.answer) {
            self.answered += 1;
        }
        match row.verdict {
            Some(Verdict::Right) => self.right += 1,
            Some(Verdict::Wrong) => self.wrong += 1,
            Some(Verdict::Unanswered) => self.unanswered += 1,
            Some(Verdict::Unknown) => self.unknown += 1,
            None => {}
        }
    }
}

/// The end-of-batch summary of the formula rows: per examination (in `order`, then any
/// other) the formulas asked, answered and unanswered (asked less answered), and against
/// `answers` the right, wrong and unknown ones and the share of the known answers given
/// (right and wrong over right, wrong and unanswered-but-known); then the answers per engine;
/// then every wrong answer by id. Without `answers` the verdict columns read `-`.
pub fn formula_summary(rows: &[FormulaRow], order: &[String], answers: Option<&Answers>) -> String {
    let mut exams: Vec<String> = order.to_vec();
    for r in rows {
        if !exams.contains(&r.examination) {
            exams.push(r.examination.clone());
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<24} {:<10} {:>6} {:>8} {:>6} {:>6} {:>10} {:>7}  known answers given",
        "examination", "engine", "asked", "answered", "right", "wrong", "unanswered", "unknown"
    );
    let checked = answers.is_some();
    let cell = |n: usize| {
        if checked {
            n.to_string()
        } else {
            "-".to_string()
        }
    };
    for exam in &exams {
        let of_exam: Vec<&FormulaRow> = rows.iter().filter(|r| &r.examination == exam).collect();
        if of_exam.is_empty() {
            continue;
        }
        let mut all = Tally::default();
        let mut by_engine: BTreeMap<&str, Tally> = BTreeMap::new();
        for r in &of_exam {
            all.add(r);
            if is_answer(&r.answer) {
                let engine = if r.engine.is_empty() { "?" } else { &r.engine };
                by_engine.entry(engine).or_default().add(r);
            }
        }
        let known = all.right + all.wrong + all.unanswered;
        let share = |t: &Tally| {
            if !checked {
                "-".to_string()
            } else if known == 0 {
                "none known".to_string()
            } else {
                let given = t.right + t.wrong;
                format!(
                    "{given}/{known} ({:.1} %)",
                    100.0 * given as f64 / known as f64
                )
            }
        };
        let _ = writeln!(
            out,
            "{:<24} {:<10} {:>6} {:>8} {:>6} {:>6} {:>10} {:>7}  {}",
            exam,
            "(all)",
            all.asked,
            all.answered,
            cell(all.right),
            cell(all.wrong),
            all.asked - all.answered,
            cell(all.unknown),
            share(&all)
        );
        for (engine, t) in &by_engine {
            let _ = writeln!(
                out,
                "{:<24} {:<10} {:>6} {:>8} {:>6} {:>6} {:>10} {:>7}  {}",
                "",
                engine,
                "",
                t.answered,
                cell(t.right),
                cell(t.wrong),
                "",
                cell(t.unknown),
                share(t)
            );
        }
    }
    let wrong: Vec<&FormulaRow> = rows
        .iter()
        .filter(|r| checked && r.verdict == Some(Verdict::Wrong))
        .collect();
    if !wrong.is_empty() {
        let _ = writeln!(out, "\n{} wrong answers:", wrong.len());
        for r in wrong {
            let expected = answers.and_then(|a| a.known(r)).unwrap_or("?");
            let _ = writeln!(
                out,
                "  {} {}: answered {} by {}, known answer {expected}",
                r.instance,
                r.id,
                r.answer,
                if r.engine.is_empty() { "?" } else { &r.engine },
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::row::{csv_line, parse_csv};
    use super::*;

    const ORACLE: &str = "instance\texamination\tid\tanswer\n\
        A-PT-1\tUpperBounds\tA-PT-1-UpperBounds-00\t3\n\
        A-PT-1\tUpperBounds\tA-PT-1-UpperBounds-01\t?\n\
        A-PT-1\tReachabilityDeadlock\tReachabilityDeadlock\tFALSE\n";

    fn row(id: &str, exam: &str, answer: &str, engine: &str) -> FormulaRow {
        FormulaRow {
            instance: "sub/A-PT-1".into(),
            examination: exam.into(),
            id: id.into(),
            answer: answer.into(),
            engine: engine.into(),
            ..FormulaRow::default()
        }
    }

    #[test]
    fn verdicts() {
        let a = Answers::parse(ORACLE).unwrap();
        let ub = "UpperBounds";
        let v = |id: &str, exam: &str, ans: &str| a.verdict(&row(id, exam, ans, ""));
        assert_eq!(v("A-PT-1-UpperBounds-00", ub, "3"), Verdict::Right);
        assert_eq!(v("A-PT-1-UpperBounds-00", ub, "03"), Verdict::Right);
        assert_eq!(v("A-PT-1-UpperBounds-00", ub, "4"), Verdict::Wrong);
        assert_eq!(v("A-PT-1-UpperBounds-00", ub, "TRUE"), Verdict::Wrong);
        assert_eq!(
            v("A-PT-1-UpperBounds-00", ub, CANNOT_COMPUTE),
            Verdict::Unanswered
        );
        assert_eq!(
            v("A-PT-1-UpperBounds-00", ub, DO_NOT_COMPETE),
            Verdict::Unanswered
        );
        // `?` and absent ids check nothing, whatever was answered.
        assert_eq!(v("A-PT-1-UpperBounds-01", ub, "7"), Verdict::Unknown);
        assert_eq!(v("A-PT-1-UpperBounds-02", ub, "7"), Verdict::Unknown);
        let rd = "ReachabilityDeadlock";
        assert_eq!(v(rd, rd, "FALSE"), Verdict::Right);
        assert_eq!(v(rd, rd, "TRUE"), Verdict::Wrong);
        assert_eq!(
            a.ids("A-PT-1", ub),
            ["A-PT-1-UpperBounds-00", "A-PT-1-UpperBounds-01"]
        );
    }

    #[test]
    fn bad_answers_files() {
        assert!(Answers::parse("a\tb\n").is_err());
        assert!(Answers::parse("instance\texamination\tid\tanswer\nx\ty\n").is_err());
        assert!(Answers::parse("").is_err());
    }

    #[test]
    fn formula_row_round_trip() {
        let r = FormulaRow {
            time_s: 0.25,
            status: Status::Timeout,
            verdict: Some(Verdict::Unanswered),
            wall_s: 1.5,
            peak_mb: Some(3.5),
            message: "a, \"b\"".into(),
            ..row("x-UpperBounds-00", "UpperBounds", CANNOT_COMPUTE, "")
        };
        let header: Vec<String> = FORMULA_COLUMNS.iter().map(|s| s.to_string()).collect();
        let parsed = parse_csv(&csv_line(&r.record()));
        assert_eq!(FormulaRow::from_record(&header, &parsed[0]), Some(r));
    }

    #[test]
    fn summary_counts_and_lists_wrong_answers() {
        let a = Answers::parse(ORACLE).unwrap();
        let mut rows = vec![
            row("A-PT-1-UpperBounds-00", "UpperBounds", "4", "explicit"),
            row("A-PT-1-UpperBounds-01", "UpperBounds", "2", "structural"),
            row(
                "ReachabilityDeadlock",
                "ReachabilityDeadlock",
                CANNOT_COMPUTE,
                "",
            ),
        ];
        for r in &mut rows {
            r.verdict = Some(a.verdict(r));
        }
        let text = formula_summary(&rows, &["UpperBounds".into()], Some(&a));
        let lines: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        // UpperBounds: 2 asked, 2 answered, 0 right, 1 wrong, 0 unanswered, 1 unknown, 1/1.
        assert_eq!(
            lines[1],
            [
                "UpperBounds",
                "(all)",
                "2",
                "2",
                "0",
                "1",
                "0",
                "1",
                "1/1",
                "(100.0",
                "%)"
            ]
        );
        assert_eq!(
            lines[2],
            ["explicit", "1", "0", "1", "0", "1/1", "(100.0", "%)"]
        );
        assert_eq!(
            lines[3],
            ["structural", "1", "0", "0", "1", "0/1", "(0.0", "%)"]
        );
        assert_eq!(
            lines[4],
            [
                "ReachabilityDeadlock",
                "(all)",
                "1",
                "0",
                "0",
                "0",
                "1",
                "0",
                "0/1",
                "(0.0",
                "%)"
            ]
        );
        assert!(
            text.contains("1 wrong answers:\n  sub/A-PT-1 A-PT-1-UpperBounds-00: answered 4 by explicit, known answer 3"),
            "{text}"
        );
        // Without answers: no verdicts, no shares.
        let text = formula_summary(&rows, &[], None);
        assert!(!text.contains("wrong answers"), "{text}");
        assert!(text.lines().nth(1).unwrap().ends_with(" -"), "{text}");
    }
}
