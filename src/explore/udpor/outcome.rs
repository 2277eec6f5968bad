//! What an exploration reports: its statistics ([`UdporStats`]), its progress while it runs
//! ([`UdporProgress`]), and, for pictures, the events built with their causality, cutoffs and
//! immediate conflicts ([`UdporOutcome`]).
//!
//! The events of a picture come from the log, which keeps every event ever built: events the
//! cache evicted are listed too, and their immediate conflicts were recorded as they left the
//! store.

use rustc_hash::FxHashSet;

use super::explorer::Explorer;
use crate::explore::limits::StopReason;
use crate::system::{System, Transition};
use crate::unfolding::event::EventId;
use crate::unfolding::log::LogId;

/// What the exploration found.
#[derive(Clone, Debug, Default)]
pub struct UdporStats {
    /// Maximal configurations explored.
    pub maximal_configurations: u64,
    /// Distinct events (⊥ excluded).
    pub events: u64,
    /// Visits where every enabled event was in `D` (zero with exact alternatives).
    pub blocked: u64,
    /// Distinct deadlock states.
    pub deadlocks: u64,
    /// A run (transition labels) to the first deadlock found.
    pub deadlock_witness: Option<Vec<Transition>>,
    /// Maximal configurations whose state has a failed assertion
    /// ([`System::failed_assertion`]; with cutoffs, the maximal configurations of the part
    /// explored; configurations cut by `max_depth` count too).
    pub assertion_failures: u64,
    /// A run (transition labels) to the first failed assertion found.
    pub assertion_witness: Option<Vec<Transition>>,
    /// Configurations cut by `max_depth`.
    pub depth_cut: u64,
    /// The largest `|U|`, the events `Remove` must keep (`Q(C, D, U)` with the extensions of
    /// the configurations on the stack; sampled at the first maximal configuration, at every
    /// eviction, and after as many steps as the store holds events (every 8192 steps and at
    /// the 2^k-th maximal configurations), or eight times as many event creations (the first
    /// once 4096 events were created).
    pub peak_u: u64,
    /// The deepest configuration explored.
    pub max_configuration_size: u64,
    /// Alternatives searched for, and found.
    pub alternatives_searched: u64,
    /// Alternatives found.
    pub alternatives_found: u64,
    /// Transitions whose histories through a new event of `C` were searched for (the
    /// transitions of the guard classes the new event's state passes).
    pub extension_searches: u64,
    /// Events of `en(C)` looked at one by one as `C` grew (the runs of events that an added
    /// event disables on their key slot are passed over whole and not counted).
    pub enabled_checks: u64,
    /// Siblings, and groups of siblings by label, read while listing immediate conflicts.
    pub sibling_reads: u64,
    /// Bytes held by the event store at the end.
    pub store_bytes: u64,
    /// Whether the events' cones were flat arrays at the end (see [`ConeLayout`]).
    ///
    /// [`ConeLayout`]: crate::unfolding::cone::ConeLayout
    pub flat_cones: bool,
    /// The number of slots of the events (see [`SlotCover`]).
    ///
    /// [`SlotCover`]: crate::unfolding::slots::SlotCover
    pub slots: u64,
    /// How many of them hold the movers of a token set.
    pub token_slots: u64,
    /// Whether the states of histories were assembled from the slots' last events rather
    /// than fired (see [`HistoryStates`]).
    ///
    /// [`HistoryStates`]: crate::unfolding::event::HistoryStates
    pub assembled_histories: bool,
    /// Cutoff events (distinct; included in `events`).
    pub cutoffs: u64,
    /// Maximal configurations whose only extensions are cutoffs.
    pub ended_by_cutoff: u64,
    /// Distinct states of visited configurations (with `record_states`).
    pub visited_states: Option<FxHashSet<Vec<u64>>>,
    /// The deadlock states found (with `record_states`).
    pub deadlock_states: Option<FxHashSet<Vec<u64>>>,
    /// Why the run stopped early, if it did.
    pub stopped: Option<StopReason>,
    /// Whether the observer of [`explore_observed`](super::explore_observed) stopped the run.
    pub halted: bool,
    /// Events built, rebuilds after eviction included (`events` counts each once).
    pub event_creations: u64,
    /// Extensions found again in memory (in `U` or the cache `G`) instead of being built.
    pub cache_hits: u64,
    /// Extensions rebuilt because the cache had evicted them.
    pub cache_misses: u64,
    /// Events evicted from the cache.
    pub cache_evictions: u64,
    /// The largest `|G|` seen (sampled with `peak_u`).
    pub peak_g: u64,
    /// The largest number of bytes held by the event store, the event log and the state
    /// table together (their allocated capacity).
    pub peak_bytes: u64,
    /// Seconds the exploration took, the explorer's setup (slots, tables) included: what
    /// events per second are measured against, apart from reading the input.
    pub explore_seconds: f64,
}

impl UdporStats {
    /// Whether every maximal configuration was explored.
    pub fn complete(&self) -> bool {
        self.stopped.is_none() && self.depth_cut == 0 && !self.halted
    }
}

/// Progress of a running exploration.
#[derive(Clone, Copy, Debug)]
pub struct UdporProgress {
    /// Maximal configurations so far.
    pub maximal_configurations: u64,
    /// Events so far.
    pub events: u64,
    /// Current configuration size.
    pub depth: usize,
}

/// One explored event, for pictures of the unfolding.
#[derive(Clone, Debug)]
pub struct ExploredEvent {
    /// Its transition.
    pub label: Transition,
    /// Immediate predecessors (ids into the event list, ⊥ left out).
    pub preds: Vec<EventId>,
    /// Whether it is a cutoff.
    pub cutoff: bool,
    /// For a cutoff: the event it was cut against (`None`: the initial state).
    pub corresponding: Option<EventId>,
    /// Whether it belongs to one of the first deadlocking configurations found.
    pub in_deadlock: bool,
}

/// The events explored, their immediate conflicts and the statistics.
pub struct UdporOutcome {
    /// Statistics.
    pub stats: UdporStats,
    /// Every event built (index = id - 1; ⊥ is not listed).
    pub events: Vec<ExploredEvent>,
    /// Pairs of events in immediate conflict (ids, smaller first).
    pub conflicts: Vec<(EventId, EventId)>,
}

impl<'s, S: System + ?Sized> Explorer<'s, S> {
    /// Keeps the immediate conflicts of `e`, about to be evicted, for pictures.
    pub(super) fn record_conflicts_of(&mut self, e: EventId) {
        for &s in self.store.event_slots(e) {
            let parent = self.store.parent_on(e, s);
            for c in self.store.children_on(parent, s) {
                if c != e && self.store.immediate_conflict(e, c) {
                    let (a, b) = (self.log_id[e as usize], self.log_id[c as usize]);
                    self.evicted_conflicts.insert((a.min(b), a.max(b)));
                }
            }
        }
    }

    /// Every event built (from the log, so evicted ones too) with its causality, cutoff and
    /// conflict information.
    pub(super) fn explored_events(
        &self,
        cap: usize,
    ) -> (Vec<ExploredEvent>, Vec<(EventId, EventId)>) {
        let events = (1..self.log.len() as LogId)
            .map(|e| ExploredEvent {
                label: self.log.label(e),
                preds: self
                    .log
                    .preds(e)
                    .iter()
                    .copied()
                    .filter(|&p| p != 0)
                    .collect(),
                cutoff: self.log.is_cutoff(e),
                corresponding: self.corresponding.get(&e).copied().filter(|&c| c != 0),
                in_deadlock: self.deadlock_events.contains(&e),
            })
            .collect::<Vec<_>>();
        if events.len() > cap {
            return (events, Vec::new());
        }
        // Immediate conflicts are siblings on a shared slot.
        let mut conflicts = self.evicted_conflicts.clone();
        for e in 1..self.store.id_bound() as EventId {
            if !self.store.is_live(e) {
                continue;
            }
            for &s in self.store.event_slots(e) {
                let parent = self.store.parent_on(e, s);
                for c in self.store.children_on(parent, s) {
                    if c != e && self.store.immediate_conflict(e, c) {
                        let (a, b) = (self.log_id[e as usize], self.log_id[c as usize]);
                        conflicts.insert((a.min(b), a.max(b)));
                    }
                }
            }
        }
        let mut conflicts: Vec<(EventId, EventId)> = conflicts.into_iter().collect();
        conflicts.sort_unstable();
        (events, conflicts)
    }
}
