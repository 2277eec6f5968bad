//! The unfolding DPOR (`unfold run`): exploring a net with counters widened as needed, the
//! report of a run, and the picture of its events.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Report, describe_stop, head, stopped_json, tail, witness_json, witness_line};
use crate::explore::limits::Limits;
use crate::explore::reach::Witness;
use crate::explore::udpor::{self, UdporOptions, UdporOutcome, UdporProgress};
use crate::model::net_system::NetSystem;
use crate::report::dot::{ConditionNode, EventGraph, EventNode};
use crate::report::stats::Stats;
use crate::system::{Overflow, System, Transition};
use crate::unfolding::order::Order;

/// What the report says of the run's settings.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// The adequate order of the cutoffs, if cutoffs are on.
    pub cutoffs: Option<Order>,
    /// `k` of k-partial alternatives; `None`: exact alternatives.
    pub alt: Option<usize>,
    /// The depth past which configurations are not extended.
    pub max_depth: usize,
}

/// Explores `sys` (a net's system) with the unfolding DPOR, widening its counters and starting
/// over while a count does not fit; `with_events` as in [`udpor::explore_with_events`].
///
/// Returns the outcome with the system it was computed on; its exploration time counts the
/// runs that were started over.
pub fn explore_net<'n>(
    sys: NetSystem<'n>,
    opts: &UdporOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(UdporProgress),
    with_events: Option<usize>,
) -> Result<(UdporOutcome, NetSystem<'n>), Overflow> {
    let start = Instant::now();
    let (mut outcome, sys) = sys.retry_widened(|sys| {
        udpor::explore_with_events(sys, opts, limits, progress, with_events)
    })?;
    outcome.stats.explore_seconds = start.elapsed().as_secs_f64();
    Ok((outcome, sys))
}

/// The names of the transitions of `run`.
fn names<S: System + ?Sized>(sys: &S, run: &[Transition]) -> Vec<String> {
    run.iter()
        .map(|&t| sys.transition_name(t).to_string())
        .collect()
}

/// The run `run` of `sys` with the state it reaches.
pub fn witness<S: System + ?Sized>(sys: &S, run: &[Transition]) -> Witness {
    let mut state = vec![0u64; sys.state_words()];
    sys.initial_state(&mut state);
    for &t in run {
        // The run was fired once already: it cannot overflow now. (In place: a run of n
        // events over states of n words would cost n² copied whole.)
        let fired = sys.fire_in_place(&mut state, t);
        debug_assert!(fired.is_ok());
    }
    Witness {
        run: names(sys, run),
        marking: sys.marking_of(&state),
        state: sys.describe_state(&state),
    }
}

/// The report of `outcome`, a run on `sys` read from `file`, `elapsed` after it started.
pub fn report<S: System + ?Sized>(
    sys: &S,
    outcome: &UdporOutcome,
    settings: &Settings,
    file: &Path,
    elapsed: Duration,
) -> Report {
    let stats = &outcome.stats;
    let complete = stats.complete();
    let mut out = Stats::new();
    head(&mut out, file, "udpor", complete);
    out.add(
        "order",
        "cutoffs",
        match settings.cutoffs {
            Some(Order::Size) => "size order",
            Some(Order::Erv) => "ERV order",
            Some(Order::Mole) => "Mole order",
            None => "off",
        },
    );
    out.add(
        "alternatives",
        "alternatives",
        match settings.alt {
            Some(k) => format!("{k}-partial"),
            None => "exact".to_string(),
        },
    );
    out.add(
        "maximal_configurations",
        "maximal configurations",
        stats.maximal_configurations,
    );
    out.add("events", "events", stats.events);
    out.add("cutoffs", "cutoff events", stats.cutoffs);
    out.add(
        "maximal_ended_by_cutoff",
        "ended by a cutoff",
        stats.ended_by_cutoff,
    );
    out.add("blocked", "blocked", stats.blocked);
    out.add("deadlocks", "deadlocks", stats.deadlocks);
    out.add(
        "assertion_failures",
        "assertion failures",
        stats.assertion_failures,
    );
    out.add("peak_u", "peak |U|", stats.peak_u);
    out.add("peak_g", "peak |G|", stats.peak_g);
    out.add("event_creations", "event creations", stats.event_creations);
    out.add("cache_hits", "cache hits", stats.cache_hits);
    out.add("cache_misses", "cache misses", stats.cache_misses);
    out.add("cache_evictions", "cache evictions", stats.cache_evictions);
    out.add_json("explorer_bytes", stats.peak_bytes);
    out.add(
        "max_configuration_size",
        "largest configuration",
        stats.max_configuration_size,
    );
    out.add_json("depth_cut", stats.depth_cut);
    out.add_json("alternatives_found", stats.alternatives_found);
    out.add_json("store_bytes", stats.store_bytes);
    out.add_json("cones", if stats.flat_cones { "flat" } else { "tree" });
    out.add_json("slots", stats.slots);
    out.add_json("token_slots", stats.token_slots);
    out.add_json("state_words", sys.state_words());
    out.add_json(
        "history_states",
        if stats.assembled_histories {
            "assembled"
        } else {
            "fired"
        },
    );
    let failure = stats
        .assertion_witness
        .as_ref()
        .map(|run| witness(sys, run));
    let witness = stats.deadlock_witness.as_ref().map(|run| witness(sys, run));
    // The lines first, then the witnesses move into the JSON values.
    let failure_text = failure
        .as_ref()
        .map(|w| witness_line("assertion failure witness", w));
    let witness_text = witness
        .as_ref()
        .map(|w| witness_line("deadlock witness", w));
    out.add_json(
        "assertion_witness",
        failure.map_or(Value::Null, witness_json),
    );
    out.add_json(
        "deadlock_witness",
        witness.map_or(Value::Null, witness_json),
    );
    out.add_json("stopped", stopped_json(stats.stopped));
    out.add(
        "explore_time_s",
        "exploration time (s)",
        stats.explore_seconds,
    );
    tail(&mut out, elapsed);
    let mut notes = Vec::new();
    notes.extend(failure_text);
    notes.extend(witness_text);
    if let Some(reason) = stats.stopped {
        notes.push(describe_stop(reason));
    } else if stats.depth_cut > 0 {
        notes.push(format!(
            "stopped: {} configurations reached --max-depth {} (runs this long suggest a cyclic \
             system); statistics are incomplete",
            stats.depth_cut, settings.max_depth
        ));
    }
    Report {
        stats: out,
        notes,
        found: stats.deadlocks > 0 || stats.assertion_failures > 0,
        complete,
    }
}

/// The picture of the events of `outcome` (a run on `sys`, named `name`), with the net's
/// conditions between them when `conditions` is not empty.
pub fn event_graph<S: System + ?Sized>(
    sys: &S,
    name: &str,
    outcome: &UdporOutcome,
    conditions: Vec<ConditionNode>,
) -> EventGraph {
    let stats = &outcome.stats;
    EventGraph {
        caption: format!(
            "{}: {} maximal configurations, {} events, {} cutoffs, {} deadlocks{}",
            name,
            stats.maximal_configurations,
            stats.events,
            stats.cutoffs,
            stats.deadlocks,
            if stats.complete() {
                ""
            } else {
                " (incomplete)"
            }
        ),
        nodes: outcome
            .events
            .iter()
            .map(|e| EventNode {
                transition: sys.transition_name(e.label).to_string(),
                preds: e.preds.clone(),
                cutoff: e.cutoff,
                corresponding: e.corresponding,
                in_deadlock: e.in_deadlock,
            })
            .collect(),
        conflicts: outcome.conflicts.clone(),
        conditions,
    }
}
