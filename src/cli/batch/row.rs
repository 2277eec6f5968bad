//! The modes of a batch, the status and figures of a run, and its row: CSV (the `csv` crate)
//! and back, for `--resume`; the key figures and the summary table.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use unfold::mcc::Examination;

use super::discover::is_program_file;
use super::examination::is_instance_model;

/// What one run does with a net.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `unfold run FILE --cutoffs`: the unfolding DPOR with cutoffs.
    Dpor,
    /// `unfold prefix FILE`: the complete finite prefix.
    Prefix,
    /// `unfold reach FILE`: explicit-state reachability.
    Reach,
    /// `unfold edpor FILE`: Event-DPOR (`.tsys` programs only).
    Edpor,
    /// `unfold mcc --dir FOLDER --examination NAME`: an MCC examination of an instance folder
    /// (`MODEL/model.pnml` only), with one formula row per answer.
    Examination(Examination),
    /// Another tool: `sh -c TEMPLATE` with `{pnml}`, `{pep}` and `{file}` substituted, and
    /// `{mci}` by a fresh path whose `.mci` prefix, when the tool writes one, gives the sizes.
    External {
        /// The mode's name in rows.
        name: String,
        /// The command template.
        template: String,
    },
}

impl Mode {
    /// The mode's name in rows.
    pub fn name(&self) -> &str {
        match self {
            Mode::Dpor => "dpor",
            Mode::Prefix => "prefix",
            Mode::Reach => "reach",
            Mode::Edpor => "edpor",
            Mode::Examination(exam) => exam.name(),
            Mode::External { name, .. } => name,
        }
    }

    /// Parses a built-in mode name, an examination's among them.
    pub fn builtin(name: &str) -> Option<Mode> {
        match name.trim() {
            "dpor" | "run" | "udpor" => Some(Mode::Dpor),
            "prefix" => Some(Mode::Prefix),
            "reach" => Some(Mode::Reach),
            "edpor" => Some(Mode::Edpor),
            other => Examination::from_name(other).map(Mode::Examination),
        }
    }

    /// Whether the mode runs on `path`: `edpor` on programs only, `dpor` on both, the
    /// examinations on the models of MCC instance folders, the others (prefix, reach, external
    /// tools) on nets only.
    pub fn applies_to(&self, path: &Path) -> bool {
        match self {
            Mode::Dpor => true,
            Mode::Edpor => is_program_file(path),
            Mode::Examination(_) => is_instance_model(path),
            _ => !is_program_file(path),
        }
    }

    /// Parses `NAME=COMMAND` (an `--external` argument).
    pub fn external(spec: &str) -> Result<Mode, String> {
        let (name, template) = spec
            .split_once('=')
            .ok_or_else(|| format!("'{spec}' is not NAME='COMMAND {{pep}}'"))?;
        let name = name.trim();
        if name.is_empty() || name.contains([',', '"', '\n']) {
            return Err(format!("'{name}' is not a usable tool name"));
        }
        if Mode::builtin(name).is_some() {
            return Err(format!("'{name}' is the name of a built-in mode"));
        }
        if !["{pnml}", "{pep}", "{file}"]
            .iter()
            .any(|k| template.contains(k))
        {
            return Err(format!(
                "the command of '{name}' names no net: use {{pnml}}, {{pep}} or {{file}}"
            ));
        }
        Ok(Mode::External {
            name: name.to_string(),
            template: template.to_string(),
        })
    }
}

/// How a run ended, as written in the `status` column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Finished, no deadlock found.
    #[default]
    Ok,
    /// Finished, a deadlock found.
    Deadlock,
    /// A failed assertion found (a program's; deadlocks found too or not).
    Assertion,
    /// Stopped by the time limit (its own or the batch's hard kill).
    Timeout,
    /// Stopped by the memory limit.
    Memory,
    /// Failed otherwise (unexpected exit code, unreadable output, cannot start).
    Error,
    /// Killed by a signal or panicked.
    Crash,
    /// Refused the input (exit 2: coloured net, non-safe net for `prefix`, parse error).
    Refused,
}

impl Status {
    /// All statuses.
    pub const ALL: [Status; 8] = [
        Status::Ok,
        Status::Deadlock,
        Status::Assertion,
        Status::Timeout,
        Status::Memory,
        Status::Error,
        Status::Crash,
        Status::Refused,
    ];

    /// The name in the CSV.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Deadlock => "deadlock",
            Status::Assertion => "assertion",
            Status::Timeout => "timeout",
            Status::Memory => "memory",
            Status::Error => "error",
            Status::Crash => "crash",
            Status::Refused => "refused",
        }
    }

    /// Parses a CSV name.
    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|st| st.as_str() == s.trim())
    }

    /// Whether the run answered (finished with or without a deadlock, or found a failed
    /// assertion).
    pub fn solved(self) -> bool {
        matches!(self, Status::Ok | Status::Deadlock | Status::Assertion)
    }
}

/// The figures a run reports; `None` where the mode has no such figure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Figures {
    /// Reachable states.
    pub states: Option<u64>,
    /// Reachability-graph edges.
    pub edges: Option<u64>,
    /// Deadlocks found.
    pub deadlocks: Option<u64>,
    /// Failed assertions found (programs: maximal configurations or executions ending
    /// failed).
    pub assertion_failures: Option<u64>,
    /// Events (cutoffs included).
    pub events: Option<u64>,
    /// Cutoff events.
    pub cutoffs: Option<u64>,
    /// Conditions of a prefix.
    pub conditions: Option<u64>,
    /// Histories (contextual unfoldings, Cunf).
    pub histories: Option<u64>,
    /// Maximal configurations explored (DPOR).
    pub maximal_configurations: Option<u64>,
    /// Executions explored (Event-DPOR).
    pub executions: Option<u64>,
}

/// One run: a CSV row.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Row {
    /// The net's name (see [`NetFile::name`]).
    pub net: String,
    /// The mode's name.
    pub mode: String,
    /// How the run ended.
    pub status: Status,
    /// The child's exit code; `None` when killed by a signal or never started.
    pub exit_code: Option<i32>,
    /// Wall-clock seconds.
    pub wall_s: f64,
    /// Peak resident memory of the child (and its waited-for descendants) in MiB.
    pub peak_mb: Option<f64>,
    /// The run's figures.
    #[serde(flatten)]
    pub figures: Figures,
    /// Whether the run covered everything (`complete` of unfold's JSON).
    pub complete: Option<bool>,
    /// The net's file.
    pub file: String,
    /// For failures: the first line of the child's standard error (or why it failed).
    pub message: String,
}

/// The CSV columns, in order.
pub const COLUMNS: [&str; 19] = [
    "net",
    "mode",
    "status",
    "exit_code",
    "wall_s",
    "peak_mb",
    "states",
    "edges",
    "deadlocks",
    "assertion_failures",
    "events",
    "cutoffs",
    "conditions",
    "histories",
    "maximal_configurations",
    "executions",
    "complete",
    "file",
    "message",
];

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

impl Row {
    /// The row's fields in [`COLUMNS`] order.
    pub fn record(&self) -> Vec<String> {
        let f = &self.figures;
        vec![
            self.net.clone(),
            self.mode.clone(),
            self.status.as_str().to_string(),
            opt(self.exit_code),
            format!("{:.3}", self.wall_s),
            opt(self.peak_mb.map(|m| format!("{m:.1}"))),
            opt(f.states),
            opt(f.edges),
            opt(f.deadlocks),
            opt(f.assertion_failures),
            opt(f.events),
            opt(f.cutoffs),
            opt(f.conditions),
            opt(f.histories),
            opt(f.maximal_configurations),
            opt(f.executions),
            opt(self.complete),
            self.file.clone(),
            self.message.clone(),
        ]
    }

    /// Reads a row back from CSV fields named by `header`; `None` when `net`, `mode` or
    /// `status` is missing or unreadable.
    pub fn from_record(header: &[String], fields: &[String]) -> Option<Row> {
        let get = |name: &str| -> &str {
            header
                .iter()
                .position(|h| h == name)
                .and_then(|i| fields.get(i))
                .map_or("", |s| s.as_str())
        };
        let num = |name: &str| get(name).parse::<u64>().ok();
        let row = Row {
            net: get("net").to_string(),
            mode: get("mode").to_string(),
            status: Status::parse(get("status"))?,
            exit_code: get("exit_code").parse().ok(),
            wall_s: get("wall_s").parse().unwrap_or(0.0),
            peak_mb: get("peak_mb").parse().ok(),
            figures: Figures {
                states: num("states"),
                edges: num("edges"),
                deadlocks: num("deadlocks"),
                assertion_failures: num("assertion_failures"),
                events: num("events"),
                cutoffs: num("cutoffs"),
                conditions: num("conditions"),
                histories: num("histories"),
                maximal_configurations: num("maximal_configurations"),
                executions: num("executions"),
            },
            complete: get("complete").parse().ok(),
            file: get("file").to_string(),
            message: get("message").to_string(),
        };
        (!row.net.is_empty() && !row.mode.is_empty()).then_some(row)
    }
}

/// One CSV line (with its `\n`): fields quoted only where they hold a comma, a quote or a
/// line break (RFC 4180), so that a row is written in one piece and flushed whole.
pub fn csv_line<S: AsRef<str>>(fields: &[S]) -> String {
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    // Writing to memory cannot fail, and the fields are UTF-8: so is the line.
    out.write_record(fields.iter().map(|f| f.as_ref()))
        .expect("writing to memory");
    let bytes = out.into_inner().expect("writing to memory");
    String::from_utf8(bytes).expect("UTF-8 fields make a UTF-8 line")
}

/// The records of CSV text (RFC 4180: quoted fields, doubled quotes, CRLF or LF), the header
/// included. An unterminated last line (no final line break) is left out: it is a row whose
/// writing was cut short. Records that do not parse are left out too.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut records: Vec<Vec<String>> = reader
        .records()
        .filter_map(Result::ok)
        .map(|record| record.iter().map(String::from).collect())
        .collect();
    if !text.is_empty() && !text.ends_with('\n') {
        records.pop();
    }
    records
}

/// The key figures of a row for the side-by-side table: states, events, conditions,
/// executions (or the status when the run did not answer).
pub fn key_figures(row: &Row) -> String {
    let f = &row.figures;
    let mut parts = Vec::new();
    if let Some(s) = f.states {
        parts.push(format!("{s} st"));
    }
    if let Some(e) = f.events {
        parts.push(format!("{e} ev"));
    }
    if let Some(c) = f.conditions {
        parts.push(format!("{c} cd"));
    }
    if let Some(x) = f.executions {
        parts.push(format!("{x} ex"));
    }
    let text = parts.join(" / ");
    if row.status.solved() && !text.is_empty() {
        if row.status == Status::Deadlock {
            format!("{text} (dl)")
        } else if row.status == Status::Assertion {
            format!("{text} (af)")
        } else {
            text
        }
    } else if row.status.solved() || text.is_empty() {
        row.status.as_str().to_string()
    } else {
        format!("{} ({text})", row.status.as_str())
    }
}

/// The end-of-batch summary: per mode the runs, the runs solved and the total wall time, then
/// per net the key figures of every mode side by side. Modes appear in `modes` order.
pub fn summary(rows: &[Row], modes: &[String]) -> String {
    let mut out = String::new();
    let mut mode_order: Vec<String> = modes.to_vec();
    for r in rows {
        if !mode_order.contains(&r.mode) {
            mode_order.push(r.mode.clone());
        }
    }
    // Examination names are longer than the other modes'.
    let mode_w = mode_order
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(0)
        .max(12);
    let _ = writeln!(
        out,
        "{:<mode_w$} {:>6} {:>7} {:>12}",
        "mode", "runs", "solved", "total time"
    );
    for m in &mode_order {
        let of_mode: Vec<&Row> = rows.iter().filter(|r| &r.mode == m).collect();
        if of_mode.is_empty() {
            continue;
        }
        let solved = of_mode.iter().filter(|r| r.status.solved()).count();
        let time: f64 = of_mode.iter().map(|r| r.wall_s).sum();
        let _ = writeln!(
            out,
            "{:<mode_w$} {:>6} {:>7} {:>11.2}s",
            m,
            of_mode.len(),
            solved,
            time
        );
    }
    let mut by_net: BTreeMap<&str, BTreeMap<&str, String>> = BTreeMap::new();
    for r in rows {
        by_net
            .entry(r.net.as_str())
            .or_default()
            .insert(r.mode.as_str(), key_figures(r));
    }
    let present: Vec<&String> = mode_order
        .iter()
        .filter(|m| rows.iter().any(|r| &r.mode == *m))
        .collect();
    let net_w = by_net.keys().map(|n| n.len()).max().unwrap_or(3).max(3);
    let widths: Vec<usize> = present
        .iter()
        .map(|m| {
            by_net
                .values()
                .filter_map(|v| v.get(m.as_str()).map(String::len))
                .max()
                .unwrap_or(0)
                .max(m.len())
        })
        .collect();
    out.push('\n');
    let _ = write!(out, "{:<net_w$}", "net");
    for (m, w) in present.iter().zip(&widths) {
        let _ = write!(out, "  {m:>w$}");
    }
    out.push('\n');
    for (net, cells) in &by_net {
        let _ = write!(out, "{net:<net_w$}");
        for (m, w) in present.iter().zip(&widths) {
            let cell = cells.get(m.as_str()).map_or("-", String::as_str);
            let _ = write!(out, "  {cell:>w$}");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trip() {
        let fields = ["a", "b,c", "say \"hi\"", "", "line\nbreak"];
        let line = csv_line(&fields);
        let parsed = parse_csv(&line);
        assert_eq!(parsed, vec![fields.map(String::from).to_vec()]);
        // A cut-short last line is dropped.
        let text = format!("{line}x,y");
        assert_eq!(parse_csv(&text).len(), 1);
    }

    #[test]
    fn row_round_trip() {
        let row = Row {
            net: "n".into(),
            mode: "reach".into(),
            status: Status::Deadlock,
            exit_code: Some(0),
            wall_s: 1.5,
            peak_mb: Some(12.5),
            figures: Figures {
                states: Some(10),
                deadlocks: Some(1),
                assertion_failures: Some(2),
                ..Figures::default()
            },
            complete: Some(true),
            file: "x, y.pnml".into(),
            message: String::new(),
        };
        let header: Vec<String> = COLUMNS.iter().map(|s| s.to_string()).collect();
        let parsed = parse_csv(&csv_line(&row.record()));
        assert_eq!(Row::from_record(&header, &parsed[0]), Some(row));
    }

    #[test]
    fn external_specs() {
        assert!(Mode::external("cunf=cunf {pep}").is_ok());
        assert!(Mode::external("cunf").is_err());
        assert!(Mode::external("reach=x {pep}").is_err());
        assert!(Mode::external("t=echo hi").is_err());
        assert!(Mode::external("UpperBounds=x {pep}").is_err());
    }

    #[test]
    fn examination_modes() {
        for exam in Examination::ALL {
            let mode = Mode::builtin(exam.name()).unwrap();
            assert_eq!(mode, Mode::Examination(exam));
            assert_eq!(mode.name(), exam.name());
            assert!(mode.applies_to(Path::new("mcc/Dekker-PT-010/model.pnml")));
            assert!(!mode.applies_to(Path::new("nets/Dekker-PT-010.pnml")));
            assert!(!mode.applies_to(Path::new("p.tsys")));
        }
        assert_eq!(Mode::builtin("ReachabilityComputeBounds"), None);
    }
}
