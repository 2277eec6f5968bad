//! Alt: an alternative `J` to `D` after `C`, computed exactly the "comb" way: every event of
//! `D` that no event of `C` conflicts with (an unjustified one) needs a pick, an event in
//! immediate conflict with it (a member of its spike), the picks pairwise conflict-free and
//! conflict-free with `C`; `J` is the union of their local configurations. With `alt_k`, only the
//! last `k` unjustified events need a pick (k-partial alternatives, QPOR, CAV 2018), and a pick
//! must then have no event of `D` in its history.
//!
//! Cutoffs, events of `D` and events in conflict with `C` are never picked. The tests of
//! conflict with `C` and with the picks are memoised, since failed searches test the same
//! candidates again and again: a verdict is kept while what it was decided against stays (a
//! prefix of `C`, or the events' ids).

use rustc_hash::FxHashSet;

use super::disabled::RunKey;
use super::explorer::{Explorer, extend_to};
use crate::system::System;
use crate::unfolding::event::{BOTTOM, EventId};
use crate::unfolding::slots::Slot;

/// What is known of an event's conflict with `C` (see `Explorer::conflicts_with_c`). Both
/// facts sit side by side so that a candidate's test reads one cache line.
#[derive(Clone, Copy, Default)]
pub(super) struct CMemo {
    /// `(k, push id)` when the event was found in conflict with the prefix of `C` of length
    /// `k` carrying that push id at position `k - 1` (conflict is inherited by every
    /// configuration extending it); `k = 0` when unknown.
    conflict_len: u32,
    conflict_id: u64,
    /// The number of pushes made when the event was last found in no conflict with `C` (0
    /// when unknown). Push ids grow along `C`, so the events of `C` pushed by then are a
    /// prefix of it, which that `C` held too: they still leave `[e]` conflict-free.
    compatible_since: u64,
}

/// Entries (log2) of the table of pick conflicts (`Explorer::pick_memo`): 256 KiB.
const PICK_MEMO_BITS: u32 = 14;

/// A verdict of `Explorer::conflicts_with_pick`: whether the pair `key` (pick, member)
/// conflicts, in epoch `epoch` (0: never).
#[derive(Clone, Copy, Default)]
pub(super) struct PickMemo {
    key: u64,
    epoch: u32,
    conflict: bool,
}

/// Whether a member of a spike can be picked (see `Explorer::spike_verdict`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum SpikeVerdict {
    Member,
    /// Ruled out by a pick so far.
    NotWithPicks,
    /// Ruled out whatever the picks: a cutoff, in `D`, in conflict with `C`, or (for a partial
    /// alternative) with an event of `D` in its history.
    Never,
}

impl<'s, S: System + ?Sized> Explorer<'s, S> {
    /// An alternative `J` to `D` after `C`, as the events of `J \ C`; `None` if there is none.
    pub(super) fn alternative(&mut self) -> Option<Vec<EventId>> {
        // With k-partial alternatives, only the last k events of D not yet in conflict with
        // C need a conflicting event in J.
        let from = match self.opts.alt_k {
            None => 0,
            Some(k) => self.last_unjustified(k),
        };
        // (Scratch room, taken and given back: this runs at every Remove.)
        let mut picks = std::mem::take(&mut self.alt_picks_scratch);
        picks.clear();
        let found = self.comb(from, &mut picks);
        let a = found.then(|| {
            // J \ C: the local configurations of the picks, outside C.
            // (Events seen are marked with this walk's round, by id: no set to clear.)
            self.seen_round = self.seen_round.wrapping_add(1);
            if self.seen_round == 0 {
                self.seen_scratch.fill(0);
                self.seen_round = 1;
            }
            let mut a = self.spare_lists.pop().unwrap_or_default();
            a.clear();
            while let Some(x) = picks.pop() {
                if x == BOTTOM || Self::is_in(&self.in_c, x) {
                    continue;
                }
                extend_to(&mut self.seen_scratch, x as usize + 1, 0);
                let mark = &mut self.seen_scratch[x as usize];
                if *mark == self.seen_round {
                    continue;
                }
                *mark = self.seen_round;
                a.push(x);
                picks.extend_from_slice(self.store.preds(x));
            }
            a
        });
        self.alt_picks_scratch = picks;
        a
    }

    /// The key under which `e`, about to enter `D`, extends `D`'s last run of siblings: a
    /// slot on which `e` has the parent every event of the run has.
    pub(super) fn joins_last_run(&self, e: EventId) -> Option<RunKey> {
        let (key, last) = self.disabled.last_run()?;
        match key {
            Some(key) => self.child_on(e, key).then_some(key),
            None => self.store.sibling_slot(last, e),
        }
    }

    /// Whether every event of a run with key `(s, p)` is in conflict with `C`: `C` has moved
    /// past `p` on `s`, so it holds another child of `p` there (the events of `D` have their
    /// histories in `C`, and are not in it).
    fn run_justified(&self, (s, p): RunKey) -> bool {
        self.top[s as usize].event != p
    }

    /// Whether `c` is a child of `p` on slot `s`, so in conflict with every other child.
    fn child_on(&self, c: EventId, (s, p): RunKey) -> bool {
        let slots = self.store.event_slots(c);
        slots
            .binary_search(&s)
            .is_ok_and(|k| self.store.parent_on_kth(c, k) == p)
    }

    /// The index in `D` of the `k`-th last event of `D` not in conflict with `C` (0 if there
    /// are fewer).
    fn last_unjustified(&self, k: usize) -> usize {
        let mut found = 0;
        let mut i = self.disabled.len();
        while i > 0 {
            let (run, key) = self.disabled.run_at(i - 1);
            if key.is_some_and(|key| self.run_justified(key)) {
                i = run.start;
                continue;
            }
            i -= 1;
            if !self.justified(self.disabled.get(i)) {
                found += 1;
                if found == k {
                    return i;
                }
            }
        }
        0
    }

    /// From index `i` of `D` on, the first event that still needs a pick: one not in conflict
    /// with `C`, nor with a pick so far (an event in immediate conflict with a pick needs no
    /// pick of its own: another would only add constraints). Runs of siblings are settled as
    /// a whole.
    fn next_needing_pick(&self, i: &mut usize, picks: &[EventId]) -> Option<EventId> {
        while *i < self.disabled.len() {
            let (run, key) = self.disabled.run_at(*i);
            if let Some(key) = key
                && (self.run_justified(key) || picks.iter().any(|&c| self.child_on(c, key)))
            {
                // A pick that is a child of the run's parent is in conflict with every event
                // of the run. That is enough: for an event d of D not in conflict with C,
                // some event of [pick] outside C is then in immediate conflict with d.
                debug_assert!(self.disabled.events()[*i..run.end].iter().all(|&d| {
                    self.justified(d) || picks.iter().any(|&c| self.store.conflict(d, c))
                }));
                *i = run.end;
                continue;
            }
            let d = self.disabled.get(*i);
            if self.justified(d) || picks.iter().any(|&c| self.store.immediate_conflict(d, c)) {
                *i += 1;
                continue;
            }
            return Some(d);
        }
        None
    }

    /// Whether `c`, in immediate conflict with an event of `D`, belongs to that event's
    /// spike: not a cutoff, outside `D`, and compatible with `C` and with the picks so far;
    /// if not, whether the picks are to blame.
    fn spike_verdict(&mut self, c: EventId, picks: &[EventId]) -> SpikeVerdict {
        if self.cutoff[c as usize]
            || self.disabled.contains(c)
            || self.conflicts_with_c(c)
            || (self.opts.alt_k.is_some() && !self.history_avoids_d(c))
        {
            SpikeVerdict::Never
        } else if picks.iter().any(|&p| self.conflicts_with_pick(p, c)) {
            SpikeVerdict::NotWithPicks
        } else {
            SpikeVerdict::Member
        }
    }

    /// Whether `[c]` conflicts with `[p]`, for a pick `p`. Combs that fail test the same pairs
    /// again and again: the verdicts are kept in a small direct-mapped table. The members of one
    /// spike mostly part from the picks on one slot: the slot of the last conflict found is
    /// tried first.
    fn conflicts_with_pick(&mut self, p: EventId, c: EventId) -> bool {
        // (Empty entries carry epoch 0, which is never the current one.)
        let key = (u64::from(p) << 32) | u64::from(c);
        let at = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - PICK_MEMO_BITS)) as usize;
        if self.pick_memo.is_empty() {
            self.pick_memo = vec![PickMemo::default(); 1 << PICK_MEMO_BITS];
        }
        let known = self.pick_memo[at];
        if known.key == key && known.epoch == self.pick_epoch {
            debug_assert_eq!(known.conflict, self.store.conflict(p, c));
            return known.conflict;
        }
        let verdict = match self.pick_parting {
            Some(s) if self.store.conflict_on(p, c, s) => {
                debug_assert!(self.store.conflict(p, c));
                true
            }
            _ => {
                let slot = self.store.conflict_slot(p, c);
                if slot.is_some() {
                    self.pick_parting = slot;
                }
                slot.is_some()
            }
        };
        self.pick_memo[at] = PickMemo {
            key,
            epoch: self.pick_epoch,
            conflict: verdict,
        };
        verdict
    }

    /// Whether no event of `D` lies in `[c] \ C`. A partial alternative must check this: an
    /// event of `D` it does not have to conflict with could otherwise enter `J`, and Explore
    /// would add it to `C` (an exact alternative conflicts with all of `D`, so never holds
    /// one).
    fn history_avoids_d(&self, c: EventId) -> bool {
        let mut seen = FxHashSet::default();
        let mut stack = vec![c];
        while let Some(x) = stack.pop() {
            if x == BOTTOM || Self::is_in(&self.in_c, x) || !seen.insert(x) {
                continue;
            }
            if self.disabled.contains(x) {
                return false;
            }
            stack.extend_from_slice(self.store.preds(x));
        }
        true
    }

    /// Events added to `C` since a candidate was last found compatible with it, up to which
    /// only their slots are checked again (past it, the candidate's whole cone).
    const RECHECKED_EVENTS: usize = 8;

    /// Whether `[c]` conflicts with `C`. Failed alternatives test the same candidates again
    /// and again as `C` grows and shrinks: a conflict found is remembered while the event of
    /// `C` it was found with stays, and so is the absence of one, after which only the slots
    /// of the events added since can separate `[c]` from `C`.
    fn conflicts_with_c(&mut self, c: EventId) -> bool {
        let i = c as usize;
        let memo = self.c_memo.get(i).copied().unwrap_or_default();
        if memo.conflict_len > 0
            && self.push_ids.get(memo.conflict_len as usize - 1) == Some(&memo.conflict_id)
        {
            return true;
        }
        let n = self.c.len();
        // The events of C pushed since the last test are a suffix of C (push ids grow along
        // it), and only a suffix of up to RECHECKED_EVENTS matters: it is found by a scan from
        // the end (a binary search over all of C is a chain of dependent loads). 0 when there
        // was no test or the suffix is longer.
        let kept = match memo.compatible_since {
            pushes if pushes > 0 => {
                let low = n.saturating_sub(Self::RECHECKED_EVENTS);
                let k = (low..=n)
                    .rev()
                    .find(|&k| k == 0 || self.push_ids[k - 1] <= pushes)
                    .unwrap_or(0);
                debug_assert_eq!(k, {
                    let p = self.push_ids.partition_point(|&id| id <= pushes);
                    if p >= low { p } else { 0 }
                });
                k
            }
            _ => 0,
        };
        let parting = match kept {
            k if k > 0 && n - k <= Self::RECHECKED_EVENTS => {
                let answer = self.c[k..].iter().find_map(|&g| {
                    self.store
                        .event_slots(g)
                        .iter()
                        .copied()
                        .find(|&s| self.store.conflicts_with_cone_on(c, &self.top, s))
                });
                debug_assert_eq!(
                    answer.is_some(),
                    self.store.conflicts_with_cone(c, &self.top)
                );
                answer
            }
            // Candidates mostly conflict with C on the slot the last one did: tried first.
            _ => match self.c_parting {
                Some(s) if self.store.conflicts_with_cone_on(c, &self.top, s) => Some(s),
                _ => {
                    let slot = self.store.conflict_slot_with_cone(c, &self.top);
                    if slot.is_some() {
                        self.c_parting = slot;
                    }
                    slot
                }
            },
        };
        if n == 0 {
            return parting.is_some();
        }
        match parting {
            Some(s) => {
                let at = self.conflict_witness(c, s);
                extend_to(&mut self.c_memo, i + 1, CMemo::default());
                self.c_memo[i].conflict_len = at as u32 + 1;
                self.c_memo[i].conflict_id = self.push_ids[at];
            }
            None => {
                extend_to(&mut self.c_memo, i + 1, CMemo::default());
                self.c_memo[i].compatible_since = self.pushes;
            }
        }
        parting.is_some()
    }

    /// The index in `C` of an event of `C` in conflict with `[c]`, given a slot `s` on which
    /// `[c]` and `C` part: on `s`, `[c]`'s last event `x` and `C`'s chain of events branch
    /// apart, so the event of `C`'s chain at `x`'s depth (or `C`'s last one there, if `x` is
    /// deeper) is not on `x`'s branch.
    fn conflict_witness(&self, c: EventId, s: Slot) -> usize {
        let x = self.store.cone_at(c, s);
        let y = self.top[s as usize];
        let w = if x.depth <= y.depth {
            self.store.ancestor_on(y, x.depth)
        } else {
            y.event
        };
        debug_assert!(Self::is_in(&self.in_c, w) && self.store.conflict(c, w));
        self.c_index[w as usize] as usize
    }

    /// Depth-first search for one pick per event of `D` (from index `from` on) not in
    /// conflict with `C`, the picks pairwise conflict-free. Spikes are built only for the
    /// events that need a pick (see [`next_needing_pick`](Self::next_needing_pick)): with
    /// `n` events of `D` in conflict with one another this makes an alternative cost O(1)
    /// amortised. Iterative: `D` can hold many thousands of events.
    fn comb(&mut self, from: usize, picks: &mut Vec<EventId>) -> bool {
        // One choice point per pick: the index of its event in `D`, and where to go on in
        // that event's spike if the rest of the comb fails.
        let mut choices = std::mem::take(&mut self.choices_scratch);
        choices.clear();
        let found = self.comb_with(from, picks, &mut choices);
        self.choices_scratch = choices;
        found
    }

    /// [`comb`](Self::comb) with its choice points in `choices` (empty).
    fn comb_with(
        &mut self,
        from: usize,
        picks: &mut Vec<EventId>,
        choices: &mut Vec<(usize, usize)>,
    ) -> bool {
        let mut i = from;
        let mut resume = None;
        loop {
            let (d, from, fresh) = match resume.take() {
                Some((at, k)) => {
                    i = at;
                    (self.disabled.get(i), k, false)
                }
                None => {
                    let Some(d) = self.next_needing_pick(&mut i, picks) else {
                        return true;
                    };
                    // (The memo of `d` is not touched while `d` is a choice point: `D`
                    // names each event once.)
                    self.refresh_icf(d);
                    (d, self.spike_past_d(d), true)
                }
            };
            // The spike of `d` is walked lazily: the first member that completes the comb
            // ends the search, and the rest of the spike is never tested against `C`.
            let mut picked = false;
            // Whether every member walked so far is ruled out whatever the picks.
            let mut never = true;
            // Members of D at the head of the spike are remembered as skipped.
            let mut head = fresh;
            for k in from.. {
                let Some(c) = self.icf_memo[d as usize]
                    .as_ref()
                    .and_then(|m| m.events.get(k).copied())
                else {
                    break;
                };
                if head {
                    match self.disabled.position(c) {
                        Some(at) => {
                            let m = self.icf_memo[d as usize].as_mut().expect("refreshed");
                            let len = (at + 1).max(m.past_d.1 as usize);
                            m.past_d = (k as u32 + 1, len as u32, self.disabled.prefix_mark(len));
                            continue;
                        }
                        None => head = false,
                    }
                }
                match self.spike_verdict(c, picks) {
                    SpikeVerdict::Member => {
                        picks.push(c);
                        choices.push((i, k + 1));
                        i += 1;
                        picked = true;
                        break;
                    }
                    SpikeVerdict::NotWithPicks => never = false,
                    SpikeVerdict::Never => {}
                }
            }
            if !picked {
                // No other picks can help `d`: one that did would be (or have in its history)
                // an event in immediate conflict with `d`, so a member of its spike, outside
                // D, compatible with C (and, for a partial alternative, with a history clear of
                // D), which this walk from the start of the spike would have met. Backtracking
                // would try every combination of the picks before `d` in vain.
                if fresh && never {
                    return false;
                }
                let Some(back) = choices.pop() else {
                    return false;
                };
                picks.pop();
                resume = Some(back);
            }
        }
    }

    /// Where the walk of `d`'s spike starts: past the members found in `D` at its head
    /// earlier, while the prefix of `D` holding them is still there (the mark is dropped
    /// otherwise).
    fn spike_past_d(&mut self, d: EventId) -> usize {
        let disabled = &self.disabled;
        let Some(m) = self.icf_memo[d as usize].as_mut() else {
            return 0;
        };
        let (k, len, mark) = m.past_d;
        if disabled.len() >= len as usize && disabled.holds_prefix(len as usize, mark) {
            k as usize
        } else {
            m.past_d = (0, 0, 0);
            0
        }
    }
}
