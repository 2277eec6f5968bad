//! The brute-force oracles of `unfold check`: every maximal run enumerated (`--brute`), or
//! maximal runs and traces counted by dynamic programming over the states (`--count`).

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::{Report, describe_stop, head, stopped_json, tail};
use crate::explore::brute::{self, BruteStats};
use crate::explore::limits::{Limits, StopReason};
use crate::explore::traces::{self, CountError, TraceCount};
use crate::model::net_system::NetSystem;
use crate::report::stats::Stats;
use crate::system::Overflow;

/// Enumerates the maximal runs of `sys` up to `max_depth` steps, widening its counters and
/// starting over while a count does not fit.
pub fn enumerate_net(
    sys: NetSystem<'_>,
    max_depth: usize,
    limits: &Limits,
) -> Result<BruteStats, Overflow> {
    sys.retry_widened(|sys| brute::enumerate(sys, max_depth, limits))
        .map(|(b, _)| b)
}

/// Counts the maximal runs and traces of `sys`, widening its counters and starting over while
/// a count does not fit. `Ok(Err(reason))`: a limit stopped the count.
pub fn count_net(
    sys: NetSystem<'_>,
    limits: &Limits,
) -> Result<Result<TraceCount, StopReason>, CountError> {
    let attempt = sys.retry_widened(|sys| match traces::count(sys, limits) {
        Err(CountError::Overflow(overflow)) => Err(overflow),
        other => Ok(other),
    });
    match attempt {
        Ok((Ok(count), _)) => Ok(Ok(count)),
        Ok((Err(CountError::Stopped(reason)), _)) => Ok(Err(reason)),
        Ok((Err(e), _)) => Err(e),
        Err(overflow) => Err(CountError::Overflow(overflow)),
    }
}

/// The report of an enumeration of the runs of `file`, `elapsed` after it started.
pub fn brute_report(b: &BruteStats, file: &Path, elapsed: Duration) -> Report {
    let complete = b.stopped.is_none();
    let mut out = Stats::new();
    head(&mut out, file, "brute", complete);
    out.add("runs", "maximal runs", b.runs);
    out.add("maximal_configurations", "distinct traces", b.traces);
    out.add("events", "distinct events", b.events);
    out.add("deadlocks", "deadlocks", b.deadlocks);
    out.add_json("stopped", stopped_json(b.stopped));
    tail(&mut out, elapsed);
    Report {
        stats: out,
        notes: b.stopped.map(describe_stop).into_iter().collect(),
        // An oracle's figures are an answer only when complete: a limit is reported first.
        found: complete && b.deadlocks > 0,
        complete,
    }
}

/// A count too large for a JSON integer is written as a string of digits.
fn big_count(n: u128) -> Value {
    u64::try_from(n).map_or_else(|_| Value::String(n.to_string()), Value::from)
}

/// The report of a count of the runs and traces of `file` (or of the limit that stopped it),
/// `elapsed` after it started.
pub fn count_report(
    count: &Result<TraceCount, StopReason>,
    file: &Path,
    elapsed: Duration,
) -> Report {
    let mut out = Stats::new();
    head(&mut out, file, "count", count.is_ok());
    if let Ok(c) = count {
        out.add("runs", "maximal runs", big_count(c.runs));
        out.add(
            "maximal_configurations",
            "maximal traces",
            big_count(c.traces),
        );
        out.add("states", "reachable states", c.states);
    }
    let stopped = count.as_ref().err().copied();
    out.add_json("stopped", stopped_json(stopped));
    tail(&mut out, elapsed);
    Report {
        stats: out,
        notes: stopped.map(describe_stop).into_iter().collect(),
        found: false,
        complete: count.is_ok(),
    }
}
