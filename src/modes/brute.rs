//! The brute-force oracles of `unfold check`: every maximal run enumerated (`--brute`), or
//! maximal runs and traces counted by dynamic programming over the states (`--count`).

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::dpor::witness;
use super::{Report, describe_stop, head, stopped_json, tail, witness_json, witness_line};
use crate::explore::brute::{self, BruteOptions, BruteProgress, BruteStats};
use crate::explore::limits::{Limits, StopReason};
use crate::explore::traces::{self, CountError, TraceCount, TraceProgress};
use crate::model::net_system::NetSystem;
use crate::report::stats::Stats;
use crate::system::{Overflow, System, Transition};

/// Enumerates the maximal runs of `sys` up to `max_depth` steps, widening its counters and
/// starting over while a count does not fit; returns the system it was computed on.
pub fn enumerate_net<'n>(
    sys: NetSystem<'n>,
    options: &BruteOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(BruteProgress),
) -> Result<(BruteStats, NetSystem<'n>), Overflow> {
    sys.retry_widened(|sys| brute::explore(sys, options, limits, progress))
}

/// Counts the maximal runs and traces of `sys`, widening its counters and starting over while
/// a count does not fit; returns the system it was computed on. `Ok((Err(reason), _))`: a
/// limit stopped the count.
pub fn count_net<'n>(
    sys: NetSystem<'n>,
    limits: &Limits,
    progress: &mut dyn FnMut(TraceProgress),
) -> Result<(Result<TraceCount, StopReason>, NetSystem<'n>), CountError> {
    let attempt = sys.retry_widened(|sys| match traces::explore(sys, limits, progress) {
        Err(CountError::Overflow(overflow)) => Err(overflow),
        other => Ok(other),
    });
    match attempt {
        Ok((Ok(count), sys)) => Ok((Ok(count), sys)),
        Ok((Err(CountError::Stopped(reason)), sys)) => Ok((Err(reason), sys)),
        Ok((Err(e), _)) => Err(e),
        Err(overflow) => Err(CountError::Overflow(overflow)),
    }
}

/// Counts the maximal runs and traces of `sys` (a program's, whose values do not overflow).
/// `Ok(Err(reason))`: a limit stopped the count.
pub fn count_system<S: System + ?Sized>(
    sys: &S,
    limits: &Limits,
    progress: &mut dyn FnMut(TraceProgress),
) -> Result<Result<TraceCount, StopReason>, CountError> {
    match traces::explore(sys, limits, progress) {
        Ok(count) => Ok(Ok(count)),
        Err(CountError::Stopped(reason)) => Ok(Err(reason)),
        Err(e) => Err(e),
    }
}

/// The `assertion_witness` field and the line under the statistics of a run to a failed
/// assertion of `sys`.
fn failure_witness<S: System + ?Sized>(
    out: &mut Stats,
    notes: &mut Vec<String>,
    sys: &S,
    run: Option<&[Transition]>,
) {
    let w = run.map(|run| witness(sys, run));
    notes.extend(
        w.as_ref()
            .map(|w| witness_line("assertion failure witness", w)),
    );
    out.add_json("assertion_witness", w.map_or(Value::Null, witness_json));
}

/// The report of an enumeration of the runs of `sys`, read from `file`, `elapsed` after it
/// started.
pub fn brute_report<S: System + ?Sized>(
    sys: &S,
    b: &BruteStats,
    file: &Path,
    elapsed: Duration,
) -> Report {
    let complete = b.stopped.is_none();
    let mut out = Stats::new();
    let mut notes = Vec::new();
    head(&mut out, file, "brute", complete);
    out.add("runs", "maximal runs", b.runs);
    out.add("maximal_configurations", "distinct traces", b.traces);
    out.add("events", "distinct events", b.events);
    out.add("deadlocks", "deadlocks", b.deadlocks);
    out.add(
        "assertion_failures",
        "assertion failures",
        b.assertion_failures,
    );
    failure_witness(&mut out, &mut notes, sys, b.assertion_witness.as_deref());
    out.add_json("stopped", stopped_json(b.stopped));
    tail(&mut out, elapsed);
    notes.extend(b.stopped.map(describe_stop));
    Report {
        stats: out,
        notes,
        // An oracle's counts are an answer only when complete: a limit is reported first. A
        // failed assertion, with its witness run, is one either way.
        found: (complete && b.deadlocks > 0) || b.assertion_failures > 0,
        complete,
    }
}

/// A count too large for a JSON integer is written as a string of digits.
fn big_count(n: u128) -> Value {
    u64::try_from(n).map_or_else(|_| Value::String(n.to_string()), Value::from)
}

/// The report of a count of the runs and traces of `sys`, read from `file` (or of the limit
/// that stopped it), `elapsed` after it started.
pub fn count_report<S: System + ?Sized>(
    sys: &S,
    count: &Result<TraceCount, StopReason>,
    file: &Path,
    elapsed: Duration,
) -> Report {
    let mut out = Stats::new();
    let mut notes = Vec::new();
    head(&mut out, file, "count", count.is_ok());
    if let Ok(c) = count {
        out.add("runs", "maximal runs", big_count(c.runs));
        out.add(
            "maximal_configurations",
            "maximal traces",
            big_count(c.traces),
        );
        out.add("states", "reachable states", c.states);
        out.add(
            "assertion_failures",
            "assertion failures (traces)",
            big_count(c.failing_traces),
        );
        out.add_json("failing_runs", big_count(c.failing_runs));
        failure_witness(&mut out, &mut notes, sys, c.assertion_witness.as_deref());
    }
    let stopped = count.as_ref().err().copied();
    out.add_json("stopped", stopped_json(stopped));
    tail(&mut out, elapsed);
    notes.extend(stopped.map(describe_stop));
    let found = count.as_ref().is_ok_and(|c| c.failing_traces > 0);
    Report {
        stats: out,
        notes,
        found,
        complete: count.is_ok(),
    }
}
