//! `prefix`: the report of a complete finite prefix, and its deadlock answer.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::{Report, describe_stop, head, stopped_json, tail, witness_json, witness_line};
use crate::explore::prefix::{DeadlockAnswer, Order, PrefixRun};
use crate::explore::reach::Witness;
use crate::model::net::Net;
use crate::report::stats::{Stats, human_bytes};

/// The run and final marking of a configuration of the prefix that ends in a deadlock, by the
/// net's labels.
pub fn deadlock_witness(net: &Net, r: &PrefixRun, config: &[u32]) -> Witness {
    let run = config
        .iter()
        .map(|&e| {
            net.transitions[r.prefix.events[e as usize].transition as usize]
                .label
                .to_string()
        })
        .collect();
    let marking: Vec<String> = r
        .prefix
        .marking(config)
        .iter()
        .map(|&p| net.places[p as usize].label.to_string())
        .collect();
    Witness {
        run,
        state: format!("{{{}}}", marking.join(", ")),
    }
}

/// The report of `r`, the prefix of `net` (read from `file`) in `order`, which took
/// `unfold_seconds` to compute, `elapsed` after the run started.
pub fn report(
    net: &Net,
    r: &PrefixRun,
    order: Order,
    unfold_seconds: f64,
    file: &Path,
    elapsed: Duration,
) -> Report {
    let complete = r.complete();
    let events = r.prefix.events.len();
    let cutoffs = r.prefix.cutoffs();
    let mut stats = Stats::new();
    head(&mut stats, file, "prefix", complete);
    stats.add_json("stopped", stopped_json(r.stopped));
    stats.add("order", "order", order.to_string());
    stats.add("conditions", "conditions", r.prefix.conditions.len());
    stats.add("events", "events", events);
    stats.add("cutoffs", "cutoffs", cutoffs);
    stats.add("noncutoff_events", "non-cutoff events", events - cutoffs);
    stats.add(
        "read_arcs_as_loops",
        "read arcs as self-loops",
        r.read_arcs_as_loops,
    );
    let mut notes = Vec::new();
    let mut found = false;
    if let Some(answer) = &r.deadlock {
        let value = match answer {
            DeadlockAnswer::Free => Value::Bool(false),
            DeadlockAnswer::Found(_) => Value::Bool(true),
            DeadlockAnswer::Unknown(_) => Value::Null,
        };
        stats.add("deadlock", "deadlock", value);
        if let DeadlockAnswer::Found(config) = answer {
            found = true;
            let w = deadlock_witness(net, r, config);
            notes.push(witness_line("deadlock witness", &w));
            stats.add_json("deadlock_witness", witness_json(w));
        }
        if let DeadlockAnswer::Unknown(reason) = answer {
            notes.push(format!("deadlock search stopped: {reason}"));
        }
    }
    stats.add("prefix_bytes", "prefix data", human_bytes(r.bytes));
    // The unfolding alone, without reading the net: what other unfolders' times compare with.
    stats.add("explore_time_s", "unfolding time (s)", unfold_seconds);
    tail(&mut stats, elapsed);
    if r.read_arcs_as_loops > 0 {
        notes.push(format!(
            "note: {} read arcs were unfolded as self-loops (consume and produce the place)",
            r.read_arcs_as_loops
        ));
    }
    if let Some(reason) = r.stopped {
        notes.push(describe_stop(reason));
    }
    let stopped_deadlock = matches!(r.deadlock, Some(DeadlockAnswer::Unknown(_)));
    Report {
        stats,
        notes,
        found,
        complete: complete && !stopped_deadlock,
    }
}
