//! `prefix`: the report of a complete finite prefix, and its deadlock answer.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::{Report, head, stopped_json, tail, witness_json, witness_line};
use crate::explore::contextual::ContextualRun;
use crate::explore::limits::StopReason;
use crate::explore::prefix::{DeadlockAnswer, Order, PrefixRun, StoppedPhase};
use crate::explore::reach::Witness;
use crate::model::net::Net;
use crate::report::stats::{Stats, human_bytes};

/// The run and final marking of a configuration of the prefix that ends in a deadlock, by the
/// net's labels.
pub fn deadlock_witness(net: &Net, r: &PrefixRun, config: &[u32]) -> Witness {
    let transitions: Vec<u32> = config
        .iter()
        .map(|&e| r.prefix.events[e as usize].transition)
        .collect();
    safe_witness(net, &transitions, &r.prefix.marking(config))
}

/// A witness of a safe net: the run (transition indices) and the places marked at its end.
fn safe_witness(net: &Net, run: &[u32], places: &[u32]) -> Witness {
    let labels: Vec<&str> = places
        .iter()
        .map(|&p| net.places[p as usize].label.as_str())
        .collect();
    let marking = places
        .iter()
        .map(|&p| (net.places[p as usize].id.to_string(), 1))
        .collect();
    Witness {
        run: run
            .iter()
            .map(|&t| net.transitions[t as usize].label.to_string())
            .collect(),
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
    let spent = Spent {
        bytes: r.bytes,
        unfold_seconds,
        deadlock_seconds: r.deadlock_seconds,
        elapsed,
    };
    let found = deadlock_and_tail(&mut stats, &mut notes, r.deadlock.as_ref(), spent, |c| {
        deadlock_witness(net, r, c)
    });
    if r.read_arcs_as_loops > 0 {
        notes.push(format!(
            "note: {} read arcs were unfolded as self-loops (consume and produce the place)",
            r.read_arcs_as_loops
        ));
    }
    notes.extend(stop_note(stopped, r.deadlock.is_some(), r.deadlock_seconds));
    Report {
        stats,
        notes,
        found,
        complete,
    }
}

/// What a prefix's run spent: its peak bytes and times.
struct Spent {
    bytes: u64,
    unfold_seconds: f64,
    deadlock_seconds: f64,
    elapsed: Duration,
}

/// The deadlock answer (with `witness`'s run and marking when one was found), the memory and
/// the times, and the tail of a prefix's report; whether a deadlock was found.
fn deadlock_and_tail(
    stats: &mut Stats,
    notes: &mut Vec<String>,
    deadlock: Option<&DeadlockAnswer>,
    spent: Spent,
    witness: impl FnOnce(&[u32]) -> Witness,
) -> bool {
    let mut found = false;
    if let Some(answer) = deadlock {
        stats.add("deadlock", "deadlock", deadlock_value(answer));
        if let DeadlockAnswer::Found(events) = answer {
            found = true;
            let w = witness(events);
            notes.push(witness_line("deadlock witness", &w));
            stats.add_json("deadlock_witness", witness_json(w));
        }
    }
    stats.add("prefix_bytes", "prefix data", human_bytes(spent.bytes));
    // The unfolding alone, without reading the net: what other unfolders' times compare with.
    stats.add("explore_time_s", "unfolding time (s)", spent.unfold_seconds);
    if deadlock.is_some() {
        stats.add(
            "deadlock_time_s",
            "deadlock search time (s)",
            spent.deadlock_seconds,
        );
    }
    tail(stats, spent.elapsed);
    found
}

/// The deadlock answer as JSON: true, false, or null when unknown.
fn deadlock_value(answer: &DeadlockAnswer) -> Value {
    match answer {
        DeadlockAnswer::Free => Value::Bool(false),
        DeadlockAnswer::Found(_) => Value::Bool(true),
        DeadlockAnswer::Unknown(_) => Value::Null,
    }
}

/// The line saying which phase a limit stopped, if one did.
fn stop_note(
    stopped: Option<(StoppedPhase, StopReason)>,
    deadlock_asked: bool,
    deadlock_seconds: f64,
) -> Option<String> {
    Some(match stopped? {
        (StoppedPhase::Unfolding, reason) => format!(
            "stopped: {reason} in the unfolding; statistics so far are incomplete{}",
            if deadlock_asked {
                ", and the deadlock search did not run"
            } else {
                ""
            }
        ),
        (StoppedPhase::DeadlockSearch, reason) => format!(
            "stopped: {reason} in the deadlock search, after {deadlock_seconds:.3} s; the prefix \
             is complete, whether the net has a deadlock is unknown"
        ),
    })
}

/// The run and final marking of a configuration of a contextual prefix (a firing order),
/// by the net's labels.
pub fn contextual_witness(net: &Net, r: &ContextualRun, run: &[u32]) -> Witness {
    let p = &r.prefix;
    let transitions: Vec<u32> = run
        .iter()
        .map(|&e| p.events[e as usize].transition)
        .collect();
    safe_witness(net, &transitions, &p.marking(run))
}

/// The report of `r`, the contextual prefix of `net` (read from `file`), which took
/// `unfold_seconds` to compute, `elapsed` after the run started. Fields named as Cunf names
/// them (`hist`, `events`, `cond`, `noncff`, `cutoffs`, `gen`, `read`, `comp`, `duphist`)
/// stand beside the names the plain prefix's report uses.
pub fn contextual_report(
    net: &Net,
    r: &ContextualRun,
    unfold_seconds: f64,
    file: &Path,
    elapsed: Duration,
) -> Report {
    let stopped = match (r.stopped, &r.deadlock) {
        (Some(reason), _) => Some((StoppedPhase::Unfolding, reason)),
        (None, Some(DeadlockAnswer::Unknown(reason))) => {
            Some((StoppedPhase::DeadlockSearch, *reason))
        }
        _ => None,
    };
    let complete = stopped.is_none();
    let p = &r.prefix;
    let histories = p.history_count();
    let cutoffs = p.cutoffs();
    let mut stats = Stats::new();
    head(&mut stats, file, "prefix", complete);
    stats.add_json("stopped", stopped_json(stopped.map(|(_, reason)| reason)));
    stats.add(
        "stopped_phase",
        "stopped in",
        stopped.map_or(Value::Null, |(phase, _)| Value::from(phase.name())),
    );
    stats.add("unfolding", "unfolding", "contextual");
    stats.add("order", "order", r.order.to_string());
    stats.add("hist", "histories", histories);
    stats.add("events", "events", p.event_count());
    stats.add("cond", "conditions", p.conditions.len());
    stats.add("cutoffs", "cutoff histories", cutoffs);
    stats.add("noncff", "non-cutoff histories", histories - cutoffs);
    stats.add_json("conditions", p.conditions.len());
    stats.add_json("histories", histories);
    stats.add_json("noncutoff_events", histories - cutoffs);
    stats.add(
        "gen",
        "generating enriched conditions",
        r.enriched.generating,
    );
    stats.add("read", "reading enriched conditions", r.enriched.reading);
    stats.add("comp", "compound enriched conditions", r.enriched.compound);
    stats.add("duphist", "duplicate histories dropped", r.duplicates);
    stats.add("read_arcs", "read arcs", net.read_arc_count());
    let mut notes = Vec::new();
    let spent = Spent {
        bytes: r.bytes,
        unfold_seconds,
        deadlock_seconds: r.deadlock_seconds,
        elapsed,
    };
    let found = deadlock_and_tail(&mut stats, &mut notes, r.deadlock.as_ref(), spent, |run| {
        contextual_witness(net, r, run)
    });
    notes.extend(stop_note(stopped, r.deadlock.is_some(), r.deadlock_seconds));
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
    use crate::explore::prefix::{self, PrefixOptions};
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
        let mut r = prefix::explore(&net, &options, &Limits::default(), &mut |_| {}).unwrap();
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
