//! `reach`: the report of an explicit-state exploration of a net.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::{Report, describe_stop, head, stopped_json, tail, witness_json, witness_line};
use crate::explore::reach::NetReach;
use crate::report::stats::{Stats, human_bytes};

/// The report of `r`, explored from `file`, `elapsed` after the run started.
pub fn report(r: &NetReach, file: &Path, elapsed: Duration) -> Report {
    let complete = r.stopped.is_none();
    let mut stats = Stats::new();
    head(&mut stats, file, "reach", complete);
    stats.add_json("stopped", stopped_json(r.stopped));
    stats.add("states", "reachable states", r.states);
    stats.add("edges", "edges", r.edges);
    stats.add("deadlocks", "deadlocks", r.deadlocks);
    stats.add("safe", "1-safe", r.safe);
    stats.add(
        "max_tokens_in_place",
        "max tokens in a place",
        r.max_tokens_in_place,
    );
    stats.add(
        "max_tokens_per_marking",
        "max tokens in a marking",
        r.max_tokens_per_marking,
    );
    stats.add_json("counter_bits", r.counter_bits);
    stats.add_json(
        "deadlock_witness",
        r.deadlock_witness.clone().map_or(Value::Null, witness_json),
    );
    stats.add_json(
        "unsafe_witness",
        r.unsafe_witness.as_ref().map_or(
            Value::Null,
            |(w, p)| serde_json::json!({ "run": w.run, "state": w.state, "place": p }),
        ),
    );
    stats.add("state_space_bytes", "state space", human_bytes(r.bytes));
    tail(&mut stats, elapsed);
    // Witnesses read better as lines of their own than inside the aligned block.
    let mut notes = Vec::new();
    if let Some(w) = &r.deadlock_witness {
        notes.push(witness_line("deadlock witness", w));
    }
    if let Some((w, p)) = &r.unsafe_witness {
        notes.push(witness_line(
            &format!("not 1-safe: two tokens on {p}, witness"),
            w,
        ));
    }
    if let Some(reason) = r.stopped {
        notes.push(describe_stop(reason));
    }
    Report {
        stats,
        notes,
        found: r.deadlocks > 0,
        complete,
    }
}
