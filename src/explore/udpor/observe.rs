//! Watching an exploration: an observer handed to [`explore_observed`](super::explore_observed)
//! sees every configuration `C` the explorer visits — `∅` first, then `C ∪ {e}` each time Extend
//! adds an event `e` — and may stop the exploration there (it decided what it was looking for).
//!
//! Which states that covers: the states of the visited configurations, a chain of prefixes per
//! maximal configuration. That is not every reachable state (of three concurrent transitions
//! `a`, `b`, `c`, the chain `∅, {a}, {a, b}, {a, b, c}` never visits `{b, c}`): a caller that
//! needs every reachable marking, or every value of a part of it, must build its system so that
//! those states are the states of visited configurations (`check::dpor` adds a transition that
//! stops every change of the places it watches).

use crate::system::Transition;
use crate::unfolding::event::{EventId, EventStore};

/// A configuration the explorer visits: its state and its events in the order they were added.
pub struct Visit<'a> {
    pub(super) state: &'a [u64],
    pub(super) events: &'a [EventId],
    pub(super) store: &'a EventStore,
}

impl Visit<'_> {
    /// The configuration's state.
    pub fn state(&self) -> &[u64] {
        self.state
    }

    /// The number of events of the configuration.
    pub fn size(&self) -> usize {
        self.events.len()
    }

    /// The configuration as a firing sequence from the initial state: its events' transitions
    /// in the order they were added to it (each was enabled when added, so the order is a
    /// linearisation).
    pub fn firing_sequence(&self) -> Vec<Transition> {
        self.events.iter().map(|&e| self.store.label(e)).collect()
    }
}
