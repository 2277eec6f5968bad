//! The complete finite prefix of the *contextual* unfolding of a safe net with read arcs, as
//! Cunf computes it (Baldan, Corradini, König, Schwoon; Rodríguez, Schwoon, Baldan, "Efficient
//! contextual unfolding", CONCUR 2011).
//!
//! A read arc is unfolded as a read arc: an event has a preset (conditions it consumes), a
//! context (conditions it reads) and a postset, so that readers of one condition do not order
//! each other. An event `e` reading a condition that `e'` consumes must occur before `e'` when
//! both occur (*asymmetric conflict* `e ↗ e'`), so an event no longer has one local
//! configuration but several *histories*: the sets `C[[e]]` of events that must precede `e` in
//! the configurations `C` that contain it. The prefix is built from *enriched events* `⟨e, H⟩`
//! (an event with one of its histories):
//!
//! 1. Possible extensions are enriched events waiting in a queue ordered by an adequate order
//!    on histories (by default Cunf's: size, Parikh vector, then Foata levels by depth in the
//!    graph of histories, each compared by [`cmp_level`](crate::unfolding::order::cmp_level);
//!    textbook ERV and McMillan's size order as [`ContextualOptions`]).
//! 2. The least leaves the queue. It is a *cutoff* when a history that left before it reaches
//!    the same marking (a strictly smaller one under the size order, which is not total); otherwise its event's conditions get *enriched conditions* (a condition
//!    with a history that produced or read it) and their concurrency relation, from which the
//!    new possible extensions come ([`build`]).
//!
//! Counting conventions (those of Cunf, whose figures `ORACLES.tsv` holds): histories and
//! events exclude the initial ones; conditions include the initial ones and the postsets of
//! events whose histories are all cutoffs; cutoffs are cutoff histories.
//!
//! A configuration of a contextual prefix is a set of events closed under causality and
//! asymmetric conflict, without cycles of asymmetric conflict: the token game of the
//! occurrence net, where an event fires when its preset and context are all marked
//! ([`deadlock`]).

mod build;
pub mod deadlock;
pub mod store;

pub use store::{
    Condition, Enriched, Enrichment, Event, History, HistoryState, NONE, for_each_part,
};

use crate::explore::limits::{Limits, StopReason};
use crate::explore::prefix::{DeadlockAnswer, NotSafe};
use crate::model::net::Net;
use crate::unfolding::order::Order;

/// The occurrence net of a contextual prefix, with its histories.
#[derive(Clone, Debug, Default)]
pub struct ContextualPrefix {
    /// Conditions; the initial ones first.
    pub conditions: Vec<Condition>,
    /// Events in the order they were found.
    pub events: Vec<Event>,
    /// Histories; the initial one (of the initial event ⊥) first.
    pub histories: Vec<History>,
    /// Number of initial conditions (ids `0..initial`).
    pub initial: u32,
}

impl ContextualPrefix {
    /// Histories that left the queue, the initial one left out (Cunf's `hist`).
    pub fn history_count(&self) -> usize {
        self.histories
            .iter()
            .skip(1)
            .filter(|h| h.state != HistoryState::Queued)
            .count()
    }

    /// Cutoff histories (Cunf's `cutoffs`).
    pub fn cutoffs(&self) -> usize {
        self.histories
            .iter()
            .filter(|h| matches!(h.state, HistoryState::Cutoff(_)))
            .count()
    }

    /// Events with at least one history that left the queue.
    pub fn event_count(&self) -> usize {
        self.events
            .iter()
            .filter(|e| {
                e.histories
                    .iter()
                    .any(|&h| self.histories[h as usize].state != HistoryState::Queued)
            })
            .count()
    }

    /// The events of history `h`, its own last, in an order in which they can fire.
    pub fn history_events(&self, h: u32) -> Vec<u32> {
        let mut evs: Vec<(u32, u32)> = self.histories[h as usize]
            .closure
            .iter()
            .map(|&x| &self.histories[x as usize])
            .filter(|x| x.event != NONE)
            .map(|x| (x.rank, x.event))
            .collect();
        evs.sort_unstable();
        evs.into_iter().map(|x| x.1).collect()
    }

    /// The places marked once the events of `config` (a configuration) have fired, sorted.
    pub fn marking(&self, config: &[u32]) -> Vec<u32> {
        let mut consumed = vec![false; self.conditions.len()];
        let mut produced: Vec<u32> = (0..self.initial).collect();
        for &e in config {
            let ev = &self.events[e as usize];
            for &c in &ev.preset {
                consumed[c as usize] = true;
            }
            produced.extend(&ev.postset);
        }
        let mut places: Vec<u32> = produced
            .into_iter()
            .filter(|&c| !consumed[c as usize])
            .map(|c| self.conditions[c as usize].place)
            .collect();
        places.sort_unstable();
        places
    }
}

/// Progress of a run, for displays.
#[derive(Clone, Copy, Debug, Default)]
pub struct ContextualProgress {
    /// Histories made so far.
    pub histories: u64,
    /// Events so far.
    pub events: u64,
    /// Conditions so far.
    pub conditions: u64,
    /// Histories waiting in the queue.
    pub queue: u64,
    /// Bytes held.
    pub bytes: u64,
}

/// How many enriched conditions of each kind a run made (Cunf's `gen`, `read`, `comp`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EnrichedCounts {
    /// Generating ones (a condition with a history of its producer).
    pub generating: u64,
    /// Reading ones (a condition with a history of a reader).
    pub reading: u64,
    /// Compound ones (a condition with several readers).
    pub compound: u64,
}

/// What [`explore`] produced.
#[derive(Debug)]
pub struct ContextualRun {
    /// The prefix (complete unless `stopped`).
    pub prefix: ContextualPrefix,
    /// The adequate order it was built in.
    pub order: Order,
    /// Why the construction stopped early.
    pub stopped: Option<StopReason>,
    /// Enriched conditions made, by kind.
    pub enriched: EnrichedCounts,
    /// Histories found twice and dropped (Cunf's `duphist`).
    pub duplicates: u64,
    /// Peak bytes held by the construction (its own accounting).
    pub bytes: u64,
    /// The deadlock answer, once asked for ([`ContextualRun::decide_deadlock`]).
    pub deadlock: Option<DeadlockAnswer>,
    /// Seconds the deadlock search took.
    pub deadlock_seconds: f64,
}

impl ContextualRun {
    /// Decides deadlock freedom from the prefix (unknown when its construction stopped).
    pub fn decide_deadlock(&mut self, net: &Net, limits: &Limits) {
        let start = std::time::Instant::now();
        self.deadlock = Some(match self.stopped {
            Some(reason) => DeadlockAnswer::Unknown(reason),
            None => deadlock::search(net, &self.prefix, limits),
        });
        self.deadlock_seconds = start.elapsed().as_secs_f64();
    }
}

/// How the contextual prefix is built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContextualOptions {
    /// The adequate order on histories: Cunf's ([`Order::Mole`], the default, the order of
    /// the published `cprefix` figures), textbook ERV, or McMillan's size order (cutoffs need
    /// a strictly smaller history with the same marking; Baldan, Corradini, König and Schwoon
    /// showed it adequate on contextual nets).
    pub order: Order,
}

/// Computes the complete finite prefix of the contextual unfolding of `net` (which must be
/// safe), in the order of `options`.
pub fn explore(
    net: &Net,
    options: &ContextualOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(ContextualProgress),
) -> Result<ContextualRun, NotSafe> {
    let mut b = build::Builder::new(net, options.order);
    let stopped = b.run(limits, progress)?;
    let bytes = b.peak_bytes.max(b.bytes());
    let enriched = b.enriched_counts();
    Ok(ContextualRun {
        order: options.order,
        duplicates: b.duplicates,
        prefix: std::mem::take(&mut b.prefix),
        stopped,
        enriched,
        bytes,
        deadlock: None,
        deadlock_seconds: 0.0,
    })
}
