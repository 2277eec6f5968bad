//! Explore(C, D, A) of Alg. 1 as a loop over an explicit stack of frames, so that
//! configurations thousands of events deep do not overflow the call stack.
//!
//! A frame goes through three stages. At [`Stage::Start`] it visits `C`: a maximal
//! configuration ends it, otherwise it picks `e` in `en(C) ∩ A` (or `en(C) \ D` when `A` is
//! empty), adds `e` to `C` (Extend, in `extend`) and pushes its child with `A \ {e}`. At
//! [`Stage::AfterFirst`] it takes `e` out of `C`, adds it to `D` and asks Alt for an alternative
//! (`alternatives`); one found becomes a child frame with `A = J \ C`. At
//! [`Stage::AfterSecond`] it takes `e` out of `D` and ends (with [`Cache::Off`], Remove empties
//! the cache).
//!
//! So `C` is the events of the frames at `AfterFirst`, in the order of the stack, and `D` those
//! of the frames at `AfterSecond`; `C` and `D` stay disjoint. The limits are checked between
//! steps (time every 1024 steps; under a memory limit, memory every 256 steps and whenever the
//! store grew by a 64th of the limit). A maximal configuration with no cutoff enabled either
//! is a deadlock, unless the system calls its state terminal; the state of every maximal
//! configuration (and of every one cut by `max_depth`) is asked for a failed assertion.

use rustc_hash::FxHashSet;

use super::Observer;
use super::cutoffs::LeastEntry;
use super::explorer::Explorer;
use super::observe::Visit;
use super::options::{Cache, Pick};
use super::outcome::UdporProgress;
use crate::explore::limits::{Limits, StopReason};
use crate::system::{Overflow, System, Transition};
use crate::unfolding::event::{BOTTOM, ConeEntry, EventId};
use crate::unfolding::log::LogId;
use crate::unfolding::states::Known;

/// The most the store may grow between two measures of the memory: well below the room the
/// process watchdog leaves between the explorers' budget and its own stop (128 MiB at most).
const MEASURE_GROWTH: u64 = 32 << 20;

/// Where a frame is in Explore(C, D, A) (see the module's doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Start,
    AfterFirst,
    AfterSecond,
}

/// One call of Explore(C, D, A) on the explicit stack.
pub(super) struct Frame {
    /// The events still to add, from an alternative (`A`); once the frame has picked its event
    /// `e`, its child's (`A \ {e}`), and empty here.
    pub(super) a: Vec<EventId>,
    stage: Stage,
    e: EventId,
}

impl<'s, S: System + ?Sized> Explorer<'s, S> {
    pub(super) fn run(
        &mut self,
        limits: &Limits,
        progress: &mut dyn FnMut(UdporProgress),
        mut observer: Option<Observer<'_>>,
    ) -> Result<(), Overflow> {
        if self.observe(&mut observer).is_break() {
            return Ok(());
        }
        if self.opts.cutoffs.is_some() {
            self.least_bytes += (self.words * 8 + 64) as u64;
            self.least
                .insert(self.initial.clone(), LeastEntry { size: 0, event: 0 });
        }
        if self.opts.record_states {
            self.stats.visited_states = Some(FxHashSet::default());
        }
        // en(∅): the events <t, {⊥}>.
        let mut initial = Vec::new();
        let mut xs = Vec::new();
        for t in 0..self.sys.transition_count() as Transition {
            if self.stats.stopped.is_some() {
                break;
            }
            // A wide net has many initial events, each as large as its number of slots.
            if t % 64 == 63 {
                let held = self.accounted_bytes();
                if let Err(r) = limits.check_time().and_then(|_| limits.check_memory(held)) {
                    self.stats.stopped = Some(r);
                    return Ok(());
                }
            }
            if self.sys.is_enabled(&self.initial, t) {
                xs.clear();
                xs.extend(
                    self.store
                        .slots()
                        .of(t)
                        .iter()
                        .map(|&s| ConeEntry::bottom(s)),
                );
                // (The store holds ⊥ alone: no event is found again.)
                let e = self
                    .make_new_event(t, &[BOTTOM], &xs)?
                    .expect("t is enabled at the initial state");
                initial.push(e);
            }
        }
        if self.stats.stopped.is_some() {
            // A limit struck among the minimal events (`--max-events`, or the state table's
            // memory).
            return Ok(());
        }
        self.en.open();
        self.en_cutoffs.open();
        for e in initial {
            let list = if self.cutoff[e as usize] {
                &mut self.en_cutoffs
            } else {
                &mut self.en
            };
            list.push(e, self.key_slot[self.store.label(e) as usize]);
        }

        let mut frames = vec![Frame {
            a: Vec::new(),
            stage: Stage::Start,
            e: BOTTOM,
        }];
        let mut steps: u64 = 0;
        // The step from which `|U|` may be sampled again, and the event creations and the
        // store's size at the last sample (see `sample_due`).
        let mut next_sample: u64 = 0;
        let mut last_sample: Option<(u64, u64)> = None;
        // Whether the samples' schedule started, from the end of the first descent (which
        // counts as a sample, see `first_descent`).
        let mut sampling = false;
        while !frames.is_empty() {
            steps += 1;
            if !sampling && !self.first_descent {
                sampling = true;
                let held = self.store.id_bound() as u64;
                (next_sample, last_sample) =
                    (steps + held, Some((self.stats.event_creations, held)));
            }
            // Between two steps no search holds cone blocks: the store may change its layout.
            self.store.choose_cone_layout();
            // Memory is measured every 256 steps, whenever the store grew by a 64th of the
            // limit (at most `MEASURE_GROWTH`) since the last measure, and every 16 steps once
            // the watchdog saw the process pass the explorers' budget. A 64th of a large limit
            // (224 MiB of 14 GiB) is more than the room the watchdog leaves between that budget
            // and its own stop (128 MiB): one growth could cross both unmeasured, and the
            // watchdog then stopped the run without the explorer's statistics.
            // (The store's size is read only once 16 events were made since the last read:
            // it sums a score of tables, too many to read at every step.)
            let grown = |x: &mut Self, limit: u64| {
                x.stats.event_creations >= x.bytes_read_at + 16 && {
                    x.bytes_read_at = x.stats.event_creations;
                    x.store.bytes() > x.measured_at + (limit / 64).min(MEASURE_GROWTH)
                }
            };
            if let Some(limit) = limits.mem_limit()
                && (steps.is_multiple_of(256)
                    || (steps.is_multiple_of(16) && limits.memory_tripped())
                    || grown(self, limit))
            {
                self.measured_at = self.store.bytes();
                self.stats.peak_bytes = self.stats.peak_bytes.max(self.accounted_bytes());
                if !self.make_room(limit, &frames) {
                    self.stats.stopped = Some(StopReason::MemoryLimit);
                    return Ok(());
                }
            }
            if steps.is_multiple_of(1024) {
                progress(UdporProgress {
                    maximal_configurations: self.stats.maximal_configurations,
                    events: self.log.len() as u64 - 1,
                    depth: self.c.len(),
                });
                // A sample walks the whole store: it waits at least as many steps as the store
                // has events, so that sampling stays a small share of a long run.
                if steps.is_multiple_of(8192) && steps >= next_sample && sampling {
                    (next_sample, last_sample) = self.sample_u_at(&frames, steps);
                }
                if let Err(r) = limits.check_time() {
                    self.stats.stopped = Some(r);
                    return Ok(());
                }
            }
            // A step may create thousands of events (a run stopped by a limit before 8192 steps
            // would have no sample at all): a sample is also due once `SAMPLE_WAIT` times as many
            // events as the store held at the last one were created.
            if sampling && self.sample_due(last_sample) {
                (next_sample, last_sample) = self.sample_u_at(&frames, steps);
            }
            let frame = frames.last_mut().expect("the stack is not empty");
            match frame.stage {
                Stage::Start => {
                    let level = self.c.len();
                    if let Some(states) = &mut self.stats.visited_states {
                        states.insert(self.state.clone());
                    }
                    if self.en.is_empty(level) {
                        self.record_maximal();
                        // U is largest at the leaves: sample there too, at the 2nd, 4th,
                        // 8th... maximal configuration within the same budget of steps as
                        // above (a sample walks U, which can hold the whole store: the n-way
                        // conflict's n events are all in en(∅)). The first ends the first
                        // descent, whose U needs no walk (`pop_frame`).
                        let count = self.stats.maximal_configurations;
                        if count > 1 && count.is_power_of_two() && steps >= next_sample {
                            (next_sample, last_sample) = self.sample_u_at(&frames, steps);
                        }
                        self.pop_frame(&mut frames);
                        continue;
                    }
                    if level >= self.opts.max_depth {
                        self.stats.depth_cut += 1;
                        // (A failure is one wherever it is met; the run is incomplete anyway.)
                        self.note_failure();
                        self.pop_frame(&mut frames);
                        continue;
                    }
                    // (Scratch room, taken and given back: this runs at every step.)
                    let mut candidates = std::mem::take(&mut self.picks_scratch);
                    candidates.clear();
                    if frame.a.is_empty() {
                        candidates.extend(
                            self.en
                                .events(level)
                                .iter()
                                .copied()
                                .filter(|&e| !self.disabled.contains(e)),
                        );
                    } else {
                        // en(C) ∩ A: the events of A whose history lies in C. Found from A, which
                        // is usually far shorter than en(C); several are put in en(C)'s order,
                        // which the picks follow.
                        let mut found = std::mem::take(&mut self.a_in_c_scratch);
                        found.clear();
                        found.extend(frame.a.iter().copied().filter(|&x| self.enabled_in_c(x)));
                        if found.len() > 1 {
                            found.sort_unstable();
                            candidates.extend(
                                self.en
                                    .events(level)
                                    .iter()
                                    .copied()
                                    .filter(|e| found.binary_search(e).is_ok()),
                            );
                        } else {
                            candidates.extend_from_slice(&found);
                        }
                        self.a_in_c_scratch = found;
                        debug_assert!(candidates.iter().all(|e| self.en.events(level).contains(e)));
                        debug_assert_eq!(
                            candidates.len(),
                            self.en
                                .events(level)
                                .iter()
                                .filter(|e| frame.a.contains(e))
                                .count()
                        );
                    }
                    if candidates.is_empty() {
                        self.picks_scratch = candidates;
                        self.stats.blocked += 1;
                        self.pop_frame(&mut frames);
                        continue;
                    }
                    let e = self.pick(&candidates);
                    self.picks_scratch = candidates;
                    debug_assert!(!self.disabled.contains(e), "C and D stay disjoint");
                    // A \ {e} goes to the child; this frame's A is not read again (what it
                    // held is the child's A and e, in C): its list moves down, no allocation.
                    let mut rest = std::mem::take(&mut frame.a);
                    rest.retain(|&x| x != e);
                    frame.e = e;
                    frame.stage = Stage::AfterFirst;
                    self.push(e)?;
                    if self.stats.stopped.is_some() {
                        // A limit struck while extending: en(C ∪ {e}) is partial, stop here.
                        return Ok(());
                    }
                    if observer.is_some() && self.observe(&mut observer).is_break() {
                        return Ok(());
                    }
                    frames.push(Frame {
                        a: rest,
                        stage: Stage::Start,
                        e: BOTTOM,
                    });
                }
                Stage::AfterFirst => {
                    let e = frame.e;
                    frame.stage = Stage::AfterSecond;
                    self.pop();
                    let joins = self.joins_last_run(e);
                    self.disabled.push(e, joins);
                    self.stats.alternatives_searched += 1;
                    if let Some(a) = self.alternative() {
                        self.stats.alternatives_found += 1;
                        frames.push(Frame {
                            a,
                            stage: Stage::Start,
                            e: BOTTOM,
                        });
                    }
                }
                Stage::AfterSecond => {
                    let e = frame.e;
                    let popped = self.disabled.pop();
                    debug_assert_eq!(popped, Some(e));
                    self.pop_frame(&mut frames);
                    if self.opts.cache == Cache::Off {
                        // Remove(e, C, D): everything outside U leaves memory.
                        self.sample_u_and_g(&frames);
                        self.evict(&frames, usize::MAX);
                    }
                }
            }
        }
        Ok(())
    }

    /// Shows `C` to the observer, if there is one; notes when it stops the run.
    fn observe(&mut self, observer: &mut Option<Observer<'_>>) -> std::ops::ControlFlow<()> {
        let Some(observer) = observer else {
            return std::ops::ControlFlow::Continue(());
        };
        let visit = Visit {
            state: &self.state,
            events: &self.c,
            store: &self.store,
        };
        let flow = observer(&visit);
        if flow.is_break() {
            self.stats.halted = true;
        }
        flow
    }

    /// Pops the top frame, keeping its list for a frame to come.
    fn pop_frame(&mut self, frames: &mut Vec<Frame>) {
        if self.first_descent {
            // The first descent ends: `U` is at its largest so far, and may shrink from here.
            self.note_u_of_first_descent();
            debug_assert_eq!(
                self.pinned(frames).iter().filter(|&&k| k).count() as u64 - 1,
                self.store.live() as u64,
                "U is the whole store until the first pop"
            );
            self.first_descent = false;
        }
        if let Some(f) = frames.pop()
            && f.a.capacity() > 0
        {
            self.spare_lists.push(f.a);
        }
    }

    fn pick(&mut self, candidates: &[EventId]) -> EventId {
        match self.opts.pick {
            Pick::First => candidates[0],
            Pick::Last => candidates[candidates.len() - 1],
            Pick::Random(_) => {
                // xorshift64*: deterministic for a seed, no dependency needed.
                self.rng ^= self.rng >> 12;
                self.rng ^= self.rng << 25;
                self.rng ^= self.rng >> 27;
                let r = self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D);
                candidates[(r % candidates.len() as u64) as usize]
            }
        }
    }

    /// Counts `C` if its state has a failed assertion, and keeps the first such `C` as the
    /// witness.
    fn note_failure(&mut self) {
        if self.sys.failed_assertion(&self.state).is_some() {
            self.stats.assertion_failures += 1;
            if self.stats.assertion_witness.is_none() {
                self.stats.assertion_witness =
                    Some(self.c.iter().map(|&e| self.store.label(e)).collect());
            }
        }
    }

    fn record_maximal(&mut self) {
        self.stats.maximal_configurations += 1;
        let level = self.c.len();
        // Failures are permanent (`System::failed_assertion`): a failing state reached by a
        // configuration K fails at every maximal configuration containing K, so the leaves
        // suffice. With cutoffs, too: a failing state reached through a cutoff e is reached
        // through its corresponding event e' (state(⌈e⌉) = state(⌈e'⌉), and the same
        // transitions fire from it), and so, by induction on the adequate order, by a
        // configuration K free of cutoffs (the prefix is complete); K lies in a maximal
        // cutoff-free configuration, which this loop visits as it visits every one a deadlock
        // could be (that one is, by the same argument, failing).
        self.note_failure();
        if !self.en_cutoffs.is_empty(level) {
            self.stats.ended_by_cutoff += 1;
        }
        let state = &self.state;
        // Every transition enabled at state(C) has an event in en(C): with en(C) empty, the
        // state is a deadlock iff no cutoff is enabled either (asking the system instead costs
        // O(transitions) per maximal configuration).
        let stuck = self.en_cutoffs.is_empty(level);
        debug_assert_eq!(
            stuck,
            !(0..self.sys.transition_count() as Transition).any(|t| self.sys.is_enabled(state, t))
        );
        if !stuck || self.sys.is_terminal(state) {
            return;
        }
        let local = (self.c.last())
            .filter(|&&e| self.store.size(e) as usize == self.c.len())
            .copied();
        let blocks = self.store.state_blocks_mut();
        let new = if self.wide {
            // C = [e] for its last event e (n-way conflicts, sequential runs): the state is
            // e's, whose tree the set shares. Otherwise it is stored as the state of the last
            // test with the words changed since.
            let mut changes = std::mem::take(&mut self.dirty_changes);
            changes.clear();
            changes.extend(self.dirty.iter().map(|&w| (w, state[w as usize])));
            let known = match (local, self.last_tested) {
                (Some(e), _) => Known::Slot(e),
                (None, Some(l)) => Known::Like(l, &mut changes[..]),
                (None, None) => Known::Nothing,
            };
            let (slot, new) =
                self.deadlock_states
                    .insert_hashed(blocks, state, self.state_hash, known);
            self.dirty_changes = changes;
            self.last_tested = Some(slot);
            for &w in &self.dirty {
                self.dirty_mark[w as usize] = false;
            }
            self.dirty.clear();
            new
        } else {
            self.deadlock_states.insert(blocks, state)
        };
        if new {
            self.stats.deadlocks += 1;
            // (Only pictures show them.)
            if self.record_conflicts.is_some() && self.deadlock_events.len() < 256 {
                let lids: Vec<LogId> = self.c.iter().map(|&e| self.log_id[e as usize]).collect();
                self.deadlock_events.extend(lids);
            }
            if self.stats.deadlock_witness.is_none() {
                self.stats.deadlock_witness =
                    Some(self.c.iter().map(|&e| self.store.label(e)).collect());
            }
        }
    }
}
