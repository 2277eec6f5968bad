//! The set `D` of Explore(C, D, A): the events the exploration must not add to `C` (the
//! paper's disabled set). It is a stack, since Explore adds an event to `D` when it comes back
//! from that event's subtree and removes it when the frame ends.
//!
//! Besides membership, it groups consecutive events that are siblings on one slot (children of
//! one parent there) into *runs*. Siblings on a slot are in conflict, so a run is settled as a
//! whole: every event of it is in conflict with `C` once `C` has moved past that parent on the
//! slot, and with any other child of that parent. With `n` events of `D` in conflict with one
//! another, this lets an alternative skip them in O(1) instead of testing each.

use crate::unfolding::event::EventId;
use crate::unfolding::slots::Slot;

/// The slot and the parent event on it that every event of a run is a child of.
pub type RunKey = (Slot, EventId);

/// `D`, a stack of events with O(1) membership and runs of siblings.
#[derive(Default)]
pub struct DisabledSet {
    events: Vec<EventId>,
    /// By event id: its index in `events` plus one (0 when it is not in `D`).
    index: Vec<u32>,
    /// Per entry: a stamp never given twice, so that a prefix of `D` seen earlier can be
    /// recognised (the same stamp at its last position means the same prefix).
    stamps: Vec<u64>,
    stamped: u64,
    /// Per entry: the index where its run starts.
    run_start: Vec<u32>,
    /// Per run start: the run's length, and its key once it holds two events.
    run_len: Vec<u32>,
    run_key: Vec<Option<RunKey>>,
}

impl DisabledSet {
    /// The number of events in `D`.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// The events of `D`, oldest first.
    pub fn events(&self) -> &[EventId] {
        &self.events
    }

    /// The `i`-th event of `D`.
    pub fn get(&self, i: usize) -> EventId {
        self.events[i]
    }

    /// Whether `e ∈ D`.
    pub fn contains(&self, e: EventId) -> bool {
        self.position(e).is_some()
    }

    /// The index of `e` in `D`, if it is there.
    pub fn position(&self, e: EventId) -> Option<usize> {
        match self.index.get(e as usize) {
            Some(&i) if i > 0 => Some(i as usize - 1),
            _ => None,
        }
    }

    /// The key of the last run and its last event, for the caller to decide whether a new
    /// event joins that run.
    pub fn last_run(&self) -> Option<(Option<RunKey>, EventId)> {
        let last = *self.events.last()?;
        let start = *self.run_start.last()? as usize;
        Some((self.run_key[start], last))
    }

    /// Adds `e` to `D`; `joins` is the key under which `e` extends the last run (from
    /// [`last_run`](Self::last_run)), `None` if it starts a run of its own.
    pub fn push(&mut self, e: EventId, joins: Option<RunKey>) {
        let i = self.events.len();
        let i32 = i as u32;
        if self.index.len() <= e as usize {
            self.index.resize(e as usize + 1, 0);
        }
        debug_assert_eq!(self.index[e as usize], 0, "an event enters D once");
        self.index[e as usize] = i32 + 1;
        self.events.push(e);
        self.stamped += 1;
        self.stamps.push(self.stamped);
        self.run_len.push(0);
        self.run_key.push(None);
        match (joins, self.run_start.last().copied()) {
            (Some(key), Some(start)) => {
                debug_assert!(self.run_key[start as usize].is_none_or(|k| k == key));
                self.run_start.push(start);
                self.run_len[start as usize] += 1;
                self.run_key[start as usize] = Some(key);
            }
            _ => {
                self.run_start.push(i32);
                self.run_len[i] = 1;
            }
        }
    }

    /// Removes the last event of `D` and returns it.
    pub fn pop(&mut self) -> Option<EventId> {
        let e = self.events.pop()?;
        let i = self.events.len();
        self.index[e as usize] = 0;
        self.stamps.pop();
        let start = self.run_start.pop().expect("one run start per entry") as usize;
        self.run_len.pop();
        self.run_key.pop();
        if start < i {
            self.run_len[start] -= 1;
            if self.run_len[start] == 1 {
                self.run_key[start] = None;
            }
        }
        Some(e)
    }

    /// The run holding the `i`-th event: its range of indexes and its key (`None` for a run
    /// of one event).
    pub fn run_at(&self, i: usize) -> (std::ops::Range<usize>, Option<RunKey>) {
        let start = self.run_start[i] as usize;
        (
            start..start + self.run_len[start] as usize,
            self.run_key[start],
        )
    }

    /// A mark for the prefix of `D` of length `len`, to test later with
    /// [`holds_prefix`](Self::holds_prefix).
    pub fn prefix_mark(&self, len: usize) -> u64 {
        if len == 0 { 0 } else { self.stamps[len - 1] }
    }

    /// Whether `D` still starts with the prefix marked `mark` of length `len`.
    pub fn holds_prefix(&self, len: usize, mark: u64) -> bool {
        len == 0 || self.stamps.get(len - 1) == Some(&mark)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_grow_and_shrink_with_the_stack() {
        let mut d = DisabledSet::default();
        d.push(5, None);
        d.push(6, Some((2, 0)));
        d.push(7, Some((2, 0)));
        d.push(9, None);
        assert_eq!(d.run_at(1), (0..3, Some((2, 0))));
        assert_eq!(d.run_at(3), (3..4, None));
        assert_eq!(d.position(7), Some(2));
        let mark = d.prefix_mark(2);
        assert_eq!(d.pop(), Some(9));
        assert_eq!(d.pop(), Some(7));
        assert!(d.holds_prefix(2, mark));
        assert_eq!(d.run_at(0), (0..2, Some((2, 0))));
        assert_eq!(d.pop(), Some(6));
        assert_eq!(d.run_at(0), (0..1, None), "a run of one has no key");
        assert!(!d.holds_prefix(2, mark));
        d.push(6, None);
        assert!(!d.holds_prefix(2, mark), "a new entry gets a new stamp");
        assert!(!d.contains(7));
        assert!(d.contains(6));
    }
}
