//! `prefix`: the report of a complete finite prefix, and its deadlock answer.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::{Report, head, stopped_json, tail, witness_json, witness_line};
use crate::explore::prefix::{DeadlockAnswer, Order, PrefixRun, StoppedPhase};
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
    let places = r.prefix.marking(config);
    let labels: Vec<&str> = places
        .iter()
        .map(|&p| net.places[p as usize].label.as_str())
        .collect();
    let mut tokens = vec![0u64; net.places.len()];
    for &p in &places {
        tokens[p as usize] += 1;
    }
    let marking = net
        .places
        .iter()
        .zip(tokens)
        .filter(|&(_, k)| k > 0)
        .map(|(p, k)| (p.id.to_string(), k))
        .collect();
    Witness {
        run,
        state: format!("{{{}}}", labels.join(", ")),
        marking: Some(marking),
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
    // Complete only when every phase asked for finished: a prefix whose deadlock search was
    // stopped answers less than was asked.
    let complete = r.answered();
    let stopped = r.stopped_phase();
    let events = r.prefix.events.len();
    let cutoffs = r.prefix.cutoffs();
    let mut stats = Stats::new();
    head(&mut stats, file, "prefix", complete);
    stats.add_json("stopped", stopped_json(stopped.map(|(_, reason)| reason)));
    stats.add(
        "stopped_phase",
        "stopped in",
        stopped.map_or(Value::Null, |(phase, _)| Value::from(phase.name())),
    );
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
    }
    stats.add("prefix_bytes", "prefix data", human_bytes(r.bytes));
    // The unfolding alone, without reading the net: what other unfolders' times compare with.
    stats.add("explore_time_s", "unfolding time (s)", unfold_seconds);
    if r.deadlock.is_some() {
        stats.add(
            "deadlock_time_s",
            "deadlock search time (s)",
            r.deadlock_seconds,
        );
    }
    tail(&mut stats, elapsed);
    if r.read_arcs_as_loops > 0 {
        notes.push(format!(
            "note: {} read arcs were unfolded as self-loops (consume and produce the place)",
            r.read_arcs_as_loops
        ));
    }
    match stopped {
        Some((StoppedPhase::Unfolding, reason)) => notes.push(format!(
            "stopped: {reason} in the unfolding; statistics so far are incomplete{}",
            if r.deadlock.is_some() {
                ", and the deadlock search did not run"
            } else {
                ""
            }
        )),
        Some((StoppedPhase::DeadlockSearch, reason)) => notes.push(format!(
            "stopped: {reason} in the deadlock search, after {:.3} s; the prefix is complete, \
             whether the net has a deadlock is unknown",
            r.deadlock_seconds
        )),
        None => {}
    }
    Report {
        stats,
        notes,
        found,
        complete,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::limits::Limits;
    use crate::explore::prefix::{PrefixOptions, unfold_prefix};
    use crate::model::net::{ArcKind, NetBuilder};

    /// A token going round a cycle of two transitions: no dead marking.
    fn net() -> Net {
        let mut b = NetBuilder::new("race");
        let p = b.add_place("p", None, 1).unwrap();
        let q = b.add_place("q", None, 0).unwrap();
        let t = b.add_transition("t", None).unwrap();
        let u = b.add_transition("u", None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 1).unwrap();
        b.add_arc(q, t, ArcKind::Output, 1).unwrap();
        b.add_arc(q, u, ArcKind::Input, 1).unwrap();
        b.add_arc(p, u, ArcKind::Output, 1).unwrap();
        b.finish()
    }

    fn report_of(r: &PrefixRun) -> Report {
        report(
            &net(),
            r,
            Order::Mole,
            0.0,
            Path::new("race.pnml"),
            Duration::ZERO,
        )
    }

    #[test]
    fn a_stopped_deadlock_search_makes_the_report_incomplete() {
        let net = net();
        let options = PrefixOptions::default();
        let mut r = unfold_prefix(&net, options, &Limits::default(), &mut |_| {}).unwrap();
        // A limit already passed when the search starts stops it at its first node.
        let spent = Limits::new(Some(Duration::ZERO), None);
        r.decide_deadlock(&spent, &mut |_| {});
        assert!(r.complete(), "the prefix itself is complete");
        let report = report_of(&r);
        let json = report.stats.to_json();
        assert_eq!(json["complete"], false, "{json}");
        assert_eq!(json["stopped"], "timeout", "{json}");
        assert_eq!(json["stopped_phase"], "deadlock search", "{json}");
        assert_eq!(json["deadlock"], Value::Null, "{json}");
        assert!(json["deadlock_time_s"].is_number(), "{json}");
        assert!(json["explore_time_s"].is_number(), "{json}");
        assert!(!report.complete && !report.found);
        assert!(
            report
                .notes
                .iter()
                .any(|n| n.contains("in the deadlock search")),
            "{:?}",
            report.notes
        );
        // Without a limit the same prefix answers, and the report is complete.
        r.decide_deadlock(&Limits::default(), &mut |_| {});
        let json = report_of(&r).stats.to_json();
        assert_eq!(json["complete"], true, "{json}");
        assert_eq!(json["stopped_phase"], Value::Null, "{json}");
        assert_eq!(json["deadlock"], false, "{json}");
    }
}
