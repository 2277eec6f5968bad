//! `reach`: the report of an explicit-state exploration of a net.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::{Report, describe_stop, head, stopped_json, tail, witness_json, witness_line};
use crate::check::unbounded::Pumping;
use crate::explore::reach::NetReach;
use crate::model::net::Net;
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
    // A finished exploration is the proof of boundedness; a stopped one proves nothing.
    stats.add(
        "bounded",
        "bounded",
        if complete {
            Value::Bool(true)
        } else {
            Value::Null
        },
    );
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
        r.unsafe_witness.as_ref().map_or(Value::Null, |(w, p)| {
            let mut object = witness_json(w.clone());
            object["place"] = Value::String(p.clone());
            object
        }),
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

/// The report of a net shown unbounded by `pumping` before any exploration: the counts of
/// markings are infinite, so they are left unknown, and the run is not complete.
pub fn unbounded_report(net: &Net, pumping: &Pumping, file: &Path, elapsed: Duration) -> Report {
    let mut stats = Stats::new();
    head(&mut stats, file, "reach", false);
    stats.add_json("stopped", "unbounded");
    stats.add("states", "reachable states", Value::Null);
    stats.add("safe", "1-safe", false);
    stats.add("bounded", "bounded", false);
    let names = |run: &[u32]| -> Vec<String> {
        run.iter()
            .map(|&t| net.transitions[t as usize].label.to_string())
            .collect()
    };
    let grows: serde_json::Map<String, Value> = pumping
        .grows
        .iter()
        .map(|&(p, k)| (net.places[p as usize].label.to_string(), Value::from(k)))
        .collect();
    stats.add_json(
        "unbounded_witness",
        serde_json::json!({
            "prefix": names(&pumping.prefix),
            "pump": names(&pumping.pump),
            "grows": grows,
        }),
    );
    tail(&mut stats, elapsed);
    let shown = |run: &[u32]| {
        if run.is_empty() {
            "(nothing)".to_string()
        } else {
            names(run).join(" ")
        }
    };
    let growth: Vec<String> = pumping
        .grows
        .iter()
        .map(|&(p, k)| format!("{} (+{k})", net.places[p as usize].label))
        .collect();
    let notes = vec![
        format!(
            "unbounded: fire {}, then repeat {}; each round adds to {}",
            shown(&pumping.prefix),
            shown(&pumping.pump),
            growth.join(", ")
        ),
        "stopped: the net is unbounded, its reachable markings are infinitely many".to_string(),
    ];
    Report {
        stats,
        notes,
        found: false,
        complete: false,
    }
}
