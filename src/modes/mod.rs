//! Running a mode and assembling its report: what `unfold run`, `check`, `edpor`, `info`,
//! `reach` and `prefix` compute and say, as values another program (or a test) can use.
//!
//! A mode's report is a [`Report`]: the statistics block (human and JSON from one list of
//! fields, with the stable JSON names of DESIGN §7), the lines printed under it (witnesses,
//! why a run stopped), and what was found. The binary adds the process around it (arguments,
//! the watchdog, progress on a terminal, writing files) and maps [`Report::verdict`] to the
//! exit code; nothing here prints or exits.

pub mod brute;
pub mod dpor;
pub mod edpor;
pub mod info;
pub mod prefix;
pub mod properties;
pub mod reach;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::explore::limits::{StopReason, peak_rss_bytes};
use crate::explore::reach::Witness;
use crate::report::stats::{Stats, human_bytes};

/// What a mode's run produced.
#[derive(Clone, Debug)]
pub struct Report {
    /// The statistics, in the order they are printed.
    pub stats: Stats,
    /// Lines printed under the human block: witnesses, notes, why the run stopped.
    pub notes: Vec<String>,
    /// A deadlock or a failed assertion was found (whether or not the run finished).
    pub found: bool,
    /// The run answered everything it was asked (no limit stopped any of its phases).
    pub complete: bool,
}

/// How a run ended, before it becomes an exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Explored; nothing bad found.
    Clean,
    /// A deadlock or an assertion failure found.
    Found,
    /// Stopped by a limit, with nothing found (or with finds ignored).
    Stopped,
}

impl Report {
    /// The verdict; with `ignore_found` (`--no-fail`) a find does not count as one.
    ///
    /// A find is one whether or not the run finished: it wins over a limit.
    pub fn verdict(&self, ignore_found: bool) -> Verdict {
        if self.found && !ignore_found {
            Verdict::Found
        } else if !self.complete {
            Verdict::Stopped
        } else {
            Verdict::Clean
        }
    }
}

/// The first fields of every report: the input, the mode, and whether the run finished.
pub fn head(stats: &mut Stats, file: &Path, mode: &str, complete: bool) {
    stats.add("input", "input", file.display().to_string());
    stats.add("mode", "mode", mode);
    stats.add("complete", "complete", complete);
}

/// The last fields of every report: the time since the run started and the process's peak
/// memory.
pub fn tail(stats: &mut Stats, elapsed: Duration) {
    stats.add("time_s", "time (s)", elapsed.as_secs_f64());
    let peak = peak_rss_bytes();
    stats.add_json("peak_bytes", peak);
    stats.add("peak_memory", "peak memory", human_bytes(peak));
}

/// The `stopped` field: why a limit stopped the run, or `null`.
pub fn stopped_json(stopped: Option<StopReason>) -> Value {
    stopped.map_or(Value::Null, |s| {
        serde_json::to_value(s).unwrap_or(Value::Null)
    })
}

/// The line printed under the statistics of a run a limit stopped.
pub fn describe_stop(reason: StopReason) -> String {
    format!("stopped: {reason}; statistics so far are incomplete")
}

/// A witness as two lines for a terminal: the run (its two ends when long) and the state
/// reached (cut when long); `--json` keeps all of both.
pub fn witness_line(title: &str, w: &Witness) -> String {
    const ENDS: usize = 20;
    let n = w.run.len();
    let run = if n == 0 {
        "(the initial state)".to_string()
    } else if n <= 3 * ENDS {
        w.run.join(" ")
    } else {
        format!(
            "{} … ({} steps more) … {} ({n} steps; --json has them all)",
            w.run[..ENDS].join(" "),
            n - 2 * ENDS,
            w.run[n - ENDS..].join(" ")
        )
    };
    const STATE_CHARS: usize = 2000;
    let state = match w.state.char_indices().nth(STATE_CHARS) {
        Some((cut, _)) => format!("{} … (--json has all of it)", &w.state[..cut]),
        None => w.state.clone(),
    };
    format!("{title}: {run}\n  reaching: {state}")
}

/// A witness as JSON, `{"run": [names...], "state": text, "marking": {place: tokens}}` (the
/// marking of nets only: its marked places by identifier), its strings moved, not copied (a
/// witness can be a run of a hundred thousand steps).
pub fn witness_json(w: Witness) -> Value {
    let mut object = serde_json::Map::new();
    let run = w.run.into_iter().map(Value::String).collect();
    object.insert("run".into(), Value::Array(run));
    object.insert("state".into(), Value::String(w.state));
    if let Some(marking) = w.marking {
        object.insert("marking".into(), marking_json(marking));
    }
    Value::Object(object)
}

/// A marking as a JSON object `{place: tokens}`.
pub fn marking_json(marking: Vec<(String, u64)>) -> Value {
    let object = marking
        .into_iter()
        .map(|(p, k)| (p, Value::from(k)))
        .collect();
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_witnesses_show_their_ends() {
        let witness = |n: usize| Witness {
            run: (0..n).map(|i| format!("t{i}")).collect(),
            state: "p".repeat(3000),
            marking: None,
        };
        let short = witness_line("deadlock witness", &witness(60));
        let run = short.lines().next().unwrap();
        assert!(run.contains("t0 t1") && run.ends_with("t58 t59") && !run.contains('…'));
        let long = witness_line("deadlock witness", &witness(30_000));
        assert!(long.starts_with("deadlock witness: t0 t1 "));
        assert!(long.contains("t19 … (29960 steps more) … t29980 "));
        assert!(long.contains("t29999 (30000 steps; --json has them all)"));
        assert!(!long.contains("t20 "));
        assert!(
            long.len() < 2500,
            "the state is cut too: {} bytes",
            long.len()
        );
        assert_eq!(
            witness_line("w", &witness(0)).lines().next(),
            Some("w: (the initial state)")
        );
    }

    #[test]
    fn a_find_wins_over_a_limit_unless_ignored() {
        let report = |found, complete| Report {
            stats: Stats::new(),
            notes: Vec::new(),
            found,
            complete,
        };
        assert_eq!(report(true, false).verdict(false), Verdict::Found);
        assert_eq!(report(true, false).verdict(true), Verdict::Stopped);
        assert_eq!(report(true, true).verdict(true), Verdict::Clean);
        assert_eq!(report(false, false).verdict(false), Verdict::Stopped);
        assert_eq!(report(false, true).verdict(false), Verdict::Clean);
    }
}
