//! Event-DPOR on a program (`unfold edpor`): the report of a run.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::{Report, describe_stop, head, stopped_json, tail};
use crate::explore::edpor::EdporStats;
use crate::model::program_system::ProgramSystem;
use crate::report::interleaving;
use crate::report::stats::Stats;
use crate::system::{Overflow, System, Transition};

/// A witness as JSON: the steps by name and the state they reach.
fn witness_json(sys: &ProgramSystem, run: &[Transition]) -> Value {
    let state = interleaving::final_state(sys, run)
        .map(|s| sys.describe_state(&s))
        .unwrap_or_default();
    let steps: Vec<&str> = run.iter().map(|&t| sys.transition_name(t)).collect();
    serde_json::json!({ "run": steps, "state": state })
}

/// The report of `stats`, a run on `sys` read from `file`, `elapsed` after it started; an
/// error when a witness cannot be replayed.
pub fn report(
    sys: &ProgramSystem,
    stats: &EdporStats,
    file: &Path,
    elapsed: Duration,
) -> Result<Report, Overflow> {
    let complete = stats.complete();
    let mut out = Stats::new();
    head(&mut out, file, "edpor", complete);
    out.add("executions", "executions", stats.executions);
    out.add("blocked", "blocked", stats.blocked);
    out.add(
        "assertion_failures",
        "assertion failures",
        stats.assertion_failures,
    );
    out.add("deadlocks", "deadlocks", stats.deadlocks);
    out.add("races", "race reversals", stats.races);
    out.add(
        "wakeup_sequences",
        "wakeup sequences",
        stats.wakeup_inserted,
    );
    out.add("parked", "parked sequences", stats.parked);
    out.add_json("completion_retries", stats.completion_retries);
    out.add_json("completion_steps", stats.completion_steps);
    out.add_json("completions_exhausted", stats.completions_exhausted);
    out.add("longest_execution", "longest execution", stats.max_depth);
    out.add("mean_length", "mean execution length", stats.mean_length());
    let runs = stats.executions + stats.blocked;
    let secs = elapsed.as_secs_f64();
    if runs > 0 && secs > 0.0 {
        out.add(
            "executions_per_s",
            "executions per second",
            runs as f64 / secs,
        );
        out.add(
            "us_per_execution",
            "µs per execution",
            secs * 1e6 / runs as f64,
        );
    }
    out.add_json("peak_tree_nodes", stats.peak_tree_nodes);
    out.add_json(
        "assertion_witness",
        stats
            .assertion_witness
            .as_deref()
            .map_or(Value::Null, |r| witness_json(sys, r)),
    );
    out.add_json(
        "deadlock_witness",
        stats
            .deadlock_witness
            .as_deref()
            .map_or(Value::Null, |r| witness_json(sys, r)),
    );
    out.add_json("stopped", stopped_json(stats.stopped));
    tail(&mut out, elapsed);
    let mut notes = Vec::new();
    if let Some(run) = &stats.assertion_witness {
        notes.push(interleaving::render(sys, "assertion failure", run)?);
    }
    if let Some(run) = &stats.deadlock_witness {
        notes.push(interleaving::render(sys, "deadlock", run)?);
    }
    if let Some(reason) = stats.stopped {
        notes.push(describe_stop(reason));
    }
    Ok(Report {
        stats: out,
        notes,
        found: stats.assertion_failures > 0 || stats.deadlocks > 0,
        complete,
    })
}
