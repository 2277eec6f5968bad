//! Remove and the cache `G`. Alg. 1 keeps only `U`, the events `Q(C, D, U)` needs; the store
//! keeps beside it every other event built so far, so that Extend finds an event again with
//! its identity instead of rebuilding it. [`Explorer::pinned`] says what must stay;
//! [`Explorer::make_room`] evicts the rest least recently used first past three quarters of the
//! memory limit, and with [`Cache::Off`](super::Cache::Off) Remove evicts it all.
//!
//! An event rebuilt after its eviction gets its log id and its cutoff verdict back
//! ([`Explorer::built`]): the cache never changes what the exploration sees. The peaks of
//! `|U|` and `|G|` in the statistics are sampled here, on a schedule that keeps the walks a
//! small share of a run.

use super::alternatives::{CMemo, PickMemo};
use super::explore_loop::Frame;
use super::explorer::{Explorer, extend_to};
use crate::explore::limits::StopReason;
use crate::system::System;
use crate::unfolding::event::{BOTTOM, EventId};

/// Event creations before the first sample of `|U|` (by the events created), and the least
/// wait between two.
const SAMPLE_FIRST: u64 = 4096;

/// Event creations between two samples of `|U|` (by the events created), per event the store
/// can hold: a sample reads every stored event at random, several times the cost of making one,
/// and a shorter wait makes sampling a large share of an event-heavy run.
const SAMPLE_WAIT: u64 = 8;

impl<'s, S: System + ?Sized> Explorer<'s, S> {
    /// Counts `ev`, found in the store instead of being made, as a cache hit, and as just used.
    pub(super) fn found_again(&mut self, ev: EventId) -> EventId {
        self.stats.cache_hits += 1;
        self.touch(ev);
        ev
    }

    /// Registers the event `e` just inserted into the store: its log id, and its cutoff
    /// verdict (decided when the event is first built, and kept for its rebuilds, so that the
    /// cache never changes what the exploration sees).
    pub(super) fn built(&mut self, e: EventId) {
        let i = e as usize;
        if self.log_id.len() <= i {
            extend_to(&mut self.log_id, i + 1, 0);
            extend_to(&mut self.last_use, i + 1, 0);
            extend_to(&mut self.cutoff, i + 1, false);
        }
        let mut preds = std::mem::take(&mut self.log_preds_scratch);
        preds.clear();
        preds.extend(self.store.preds(e).iter().map(|&p| self.log_id[p as usize]));
        preds.sort_unstable();
        // The id may have belonged to an evicted event.
        self.forget_icf(e);
        if let Some(x) = self.c_memo.get_mut(i) {
            *x = CMemo::default();
        }
        // Until the cache evicts an event, the store holds every event ever built: one it
        // did not hold is new to the log too.
        let (label, level) = (self.store.label(e), self.store.level(e));
        let (lid, new) = if self.stats.cache_evictions == 0 {
            (self.log.append(label, &preds, level), true)
        } else {
            self.log.intern(label, &preds, level)
        };
        self.log_preds_scratch = preds;
        self.log_id[i] = lid;
        self.stats.event_creations += 1;
        self.cutoff[i] = false;
        if new {
            self.classify(e);
            self.log.set_cutoff(lid, self.cutoff[i]);
            // Checked here, not once per step: one extension can build thousands of events.
            if let Some(max) = self.opts.max_events
                && self.log.len() as u64 > max
            {
                self.stats.stopped.get_or_insert(StopReason::EventLimit);
            }
        } else {
            self.stats.cache_misses += 1;
            self.cutoff[i] = self.log.is_cutoff(lid);
        }
        self.touch(e);
    }

    /// Marks `e` as just used.
    pub(super) fn touch(&mut self, e: EventId) {
        self.clock += 1;
        self.last_use[e as usize] = self.clock;
    }

    /// Bytes held by the event store, the log and the state table.
    pub(super) fn accounted_bytes(&self) -> u64 {
        self.store.bytes()
            + self.log.bytes()
            + self.least_bytes
            + self.deadlock_states.bytes()
            + self.icf_bytes
            + (self.icf_memo.capacity() * 8) as u64
            + (self.c_memo.capacity() * std::mem::size_of::<CMemo>()) as u64
            + (self.pick_memo.capacity() * std::mem::size_of::<PickMemo>()) as u64
            + self.diff_room.bytes()
    }

    /// The events `Remove` must keep in `U` now, as flags by store id: `C`, `D`, the events in
    /// immediate conflict with an event of `C ∪ D` (`Q(C, D, U)` of the paper), and what this
    /// implementation keeps besides: the other siblings of the events of `C ∪ D` on their
    /// slots, the extensions of every configuration on the stack (`en` is kept incrementally,
    /// per level) and the events of pending alternatives; all closed under causality.
    pub(super) fn pinned(&self, frames: &[Frame]) -> Vec<bool> {
        let mut keep = vec![false; self.store.id_bound()];
        keep[BOTTOM as usize] = true;
        // Each event is flagged when first met and stacked once (stacking every name of an
        // event, then testing it when popped, stacks it once per name).
        let mut stack: Vec<EventId> = Vec::new();
        let mut meet = |x: EventId, stack: &mut Vec<EventId>| {
            if !keep[x as usize] {
                keep[x as usize] = true;
                stack.push(x);
            }
        };
        let roots = self.c.iter().chain(self.disabled.events());
        let pending = frames.iter().flat_map(|f| f.a.iter());
        for &x in roots
            .chain(self.en.all())
            .chain(self.en_cutoffs.all())
            .chain(pending)
        {
            meet(x, &mut stack);
        }
        // The events in immediate conflict with y are among its siblings on its slots; all
        // of them are kept (a superset, cheaper than testing each for immediate conflict).
        // Each list of siblings is walked once: the events of D are often siblings of one
        // another, and n of them would otherwise cost n² here. A list is named by its parent's
        // node (one per event and slot).
        let mut walked = vec![0u64; self.store.node_bound().div_ceil(64)];
        for &y in self.c.iter().chain(self.disabled.events()) {
            for k in 0..self.store.event_slots(y).len() {
                let parent = self.store.parent_node_on_kth(y, k);
                let (word, bit) = (parent / 64, 1u64 << (parent % 64));
                if walked[word] & bit == 0 {
                    walked[word] |= bit;
                    for x in self.store.children_of_node(parent) {
                        meet(x, &mut stack);
                    }
                }
            }
        }
        while let Some(x) = stack.pop() {
            for &p in self.store.preds(x) {
                meet(p, &mut stack);
            }
        }
        keep
    }

    /// Samples `|U|` at step `steps`; returns the step from which the next sample may come
    /// (as many steps later as the store can hold events) and the event creations and store
    /// size now (see [`sample_due`](Self::sample_due)).
    pub(super) fn sample_u_at(
        &mut self,
        frames: &[Frame],
        steps: u64,
    ) -> (u64, Option<(u64, u64)>) {
        // U lies in the store: with no more events stored than the peak, no walk can raise it
        // (the n-way conflict's U is all its events from the first descent on). G's peak then
        // waits for a later sample: before an eviction, or the last one, after the run.
        if self.store.live() as u64 > self.stats.peak_u {
            self.sample_u_and_g(frames);
        }
        let held = self.store.id_bound() as u64;
        (steps + held, Some((self.stats.event_creations, held)))
    }

    /// Whether a sample of `|U|` is due by the events created, the last one taken at `last`
    /// (see [`sample_u_at`](Self::sample_u_at)): [`SAMPLE_WAIT`] times as many events as the
    /// store could hold then were created since, or, before any sample, [`SAMPLE_FIRST`].
    pub(super) fn sample_due(&self, last: Option<(u64, u64)>) -> bool {
        let now = self.stats.event_creations;
        match last {
            None => now >= SAMPLE_FIRST,
            Some((then, held)) => now - then >= (SAMPLE_WAIT * held).max(SAMPLE_FIRST),
        }
    }

    /// `|U|` while no frame was popped: every event stored (see `first_descent`).
    pub(super) fn note_u_of_first_descent(&mut self) {
        self.stats.peak_u = self.stats.peak_u.max(self.store.live() as u64);
    }

    /// Samples `|U|` and `|G|` for their peaks.
    pub(super) fn sample_u_and_g(&mut self, frames: &[Frame]) {
        let keep = self.pinned(frames);
        let u = keep.iter().filter(|&&k| k).count() as u64 - 1;
        self.stats.peak_u = self.stats.peak_u.max(u);
        self.stats.peak_g = self
            .stats
            .peak_g
            .max(self.store.live() as u64 - u.min(self.store.live() as u64));
    }

    /// Keeps the process under `limit` bytes of resident memory (measured, `VmRSS`): past
    /// three quarters of it, when few ids are free for reuse, evicts a quarter of the store
    /// from the cache `G`, least recently used first, so that later events are built in the
    /// room of evicted ones instead of growing the store. Returns false when the process holds
    /// more than the limit, or nearly so with nothing left to evict (`U` and the state table
    /// alone fill it).
    pub(super) fn make_room(&mut self, limit: u64, frames: &[Frame]) -> bool {
        let rss = crate::explore::limits::rss_bytes();
        if rss <= limit / 4 * 3 {
            return true;
        }
        if self.store.free_ids() < self.store.live() / 16 + 64 {
            self.sample_u_and_g(frames);
            let freed = self.evict(frames, (self.store.live() / 4).max(64));
            if freed == 0 && rss > limit / 20 * 19 {
                return false;
            }
        }
        rss <= limit
    }

    /// Evicts up to `target` events of `G` (everything outside `U`), least recently used
    /// first; only leaves can go, and removing one may make its predecessors leaves.
    /// Returns how many went.
    pub(super) fn evict(&mut self, frames: &[Frame], target: usize) -> usize {
        use std::cmp::Reverse;
        let keep = self.pinned(frames);
        let mut heap: std::collections::BinaryHeap<Reverse<(u64, EventId)>> =
            (1..self.store.id_bound() as EventId)
                .filter(|&e| !keep[e as usize] && self.store.is_live(e) && self.store.is_leaf(e))
                .map(|e| Reverse((self.last_use[e as usize], e)))
                .collect();
        let mut queued: Vec<bool> = vec![false; self.store.id_bound()];
        for r in &heap {
            queued[r.0.1 as usize] = true;
        }
        let mut freed = 0;
        while freed < target {
            let Some(Reverse((_, e))) = heap.pop() else {
                break;
            };
            let mut next: Vec<EventId> = self.store.preds(e).to_vec();
            next.extend(
                self.store
                    .event_slots(e)
                    .iter()
                    .map(|&s| self.store.parent_on(e, s)),
            );
            if self
                .record_conflicts
                .is_some_and(|cap| self.log.len() <= cap + 1)
            {
                self.record_conflicts_of(e);
            }
            self.store.remove(e);
            self.forget_icf(e);
            self.stats.cache_evictions += 1;
            freed += 1;
            for p in next {
                if p != BOTTOM
                    && !keep[p as usize]
                    && !queued[p as usize]
                    && self.store.is_live(p)
                    && self.store.is_leaf(p)
                {
                    queued[p as usize] = true;
                    heap.push(Reverse((self.last_use[p as usize], p)));
                }
            }
        }
        if freed > 0 {
            // The ids freed will name other events: the pick verdicts kept so far expire.
            self.pick_epoch = self.pick_epoch.wrapping_add(1);
            if self.pick_epoch == 0 {
                self.pick_memo.fill(PickMemo::default());
                self.pick_epoch = 1;
            }
        }
        freed
    }
}
