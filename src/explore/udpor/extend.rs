//! Extend, incrementally: [`Explorer::push`] adds an event `e ∈ en(C)` to `C` and computes
//! `en(C ∪ {e})`, [`Explorer::pop`] takes the last event out again and restores `C`'s cone and
//! state.
//!
//! `en(C ∪ {e})` is the events of `en(C)` that share no slot with `e`, and the new
//! extensions, whose histories hold `e`: for the dependents of `e` that their guards let
//! through, the history search (`history_search`) notes candidate events `<t, H>`, which are
//! found in the store or made by windows of [`CANDIDATE_WINDOW`]. A window's probes of the
//! store all come before any of its events is made: nothing the searches read changes in
//! between, and a probe that finds nothing stays true while the others' events are made.
//! Cutoffs go to `en_cutoffs`, never to `en`.

use super::explorer::{Explorer, extend_to};
use crate::system::{Overflow, System, Transition};
use crate::unfolding::event::{ConeEntry, EventId};
use crate::unfolding::slots::Slot;
use crate::unfolding::states::word_hash;

/// An event of a candidate history, on the slot of the new event's label it was found on: a
/// candidate immediate predecessor.
#[derive(Clone, Copy)]
pub(super) struct Candidate {
    event: EventId,
    slot: Slot,
    /// Its depth on that slot.
    depth: u32,
    /// `|[event]|`.
    size: u32,
}

/// The most candidate events noted before they are found or made (see
/// `Explorer::make_candidates`): enough for their probes to overlap, few enough that the
/// events come out while the search goes on, which checks the time limit (a step may have
/// millions), and that the notes take little room. (Debug
/// builds keep windows of 3, so that their tests make events in the middle of searches too.)
const CANDIDATE_WINDOW: usize = if cfg!(debug_assertions) { 3 } else { 1024 };

/// Candidate events `<t, H>` (see `Explorer::add_candidate`): each with its immediate
/// predecessors and its last events on the slots of `t`, in flat arrays.
#[derive(Default)]
pub(super) struct Candidates {
    /// `(t, end of its preds, end of its last events)`.
    heads: Vec<(Transition, u32, u32)>,
    preds: Vec<EventId>,
    xs: Vec<ConeEntry>,
    /// Scratch room of `make_candidates`: what the store holds of each.
    found: Vec<Option<EventId>>,
    /// The events found or made, in order.
    made: Vec<EventId>,
}

impl Candidates {
    fn clear(&mut self) {
        self.clear_notes();
        self.made.clear();
    }

    /// Forgets the candidates (not the events they gave).
    fn clear_notes(&mut self) {
        self.heads.clear();
        self.preds.clear();
        self.xs.clear();
    }

    fn len(&self) -> usize {
        self.heads.len()
    }

    fn push(&mut self, t: Transition, preds: &[EventId], xs: &[ConeEntry]) {
        self.preds.extend_from_slice(preds);
        self.xs.extend_from_slice(xs);
        self.heads
            .push((t, self.preds.len() as u32, self.xs.len() as u32));
    }

    /// The `k`-th candidate.
    fn get(&self, k: usize) -> (Transition, &[EventId], &[ConeEntry]) {
        let (p0, x0) = match k.checked_sub(1) {
            Some(j) => (self.heads[j].1 as usize, self.heads[j].2 as usize),
            None => (0, 0),
        };
        let (t, p1, x1) = self.heads[k];
        (t, &self.preds[p0..p1 as usize], &self.xs[x0..x1 as usize])
    }
}

impl<'s, S: System + ?Sized> Explorer<'s, S> {
    /// Adds `e ∈ en(C)` to `C` and computes `en(C ∪ {e})`.
    pub(super) fn push(&mut self, e: EventId) -> Result<(), Overflow> {
        let level = self.c.len();
        // state(C ∪ {e}), with the words it changes remembered for pop.
        let label = self.store.label(e);
        let mark = self.state_undo.len();
        self.state_undo_marks.push(mark);
        let mut next = std::mem::take(&mut self.next_state);
        match self.store.touched_words(label).filter(|_| self.wide) {
            Some(words) => {
                // Only the words of e's footprint can change: fire in place, compare those.
                next.clear();
                next.extend(words.iter().map(|&w| self.state[w as usize]));
                self.sys.fire_in_place(&mut self.state, label)?;
                for (&w, &old) in words.iter().zip(&next) {
                    if self.state[w as usize] != old {
                        self.state_undo.push((w, old));
                    }
                }
            }
            None => {
                next.resize(self.words, 0);
                self.sys.fire(&self.state, label, &mut next)?;
                for (w, (now, new)) in self.state.iter_mut().zip(&next).enumerate() {
                    if *now != *new {
                        self.state_undo.push((w as u32, *now));
                        *now = *new;
                    }
                }
            }
        }
        self.next_state = next;
        if self.wide {
            for i in mark..self.state_undo.len() {
                let (w, old) = self.state_undo[i];
                self.note_change(w, old, self.state[w as usize]);
            }
        }
        self.touch(e);
        extend_to(&mut self.c_index, e as usize + 1, 0);
        self.c_index[e as usize] = self.c.len() as u32;
        self.c.push(e);
        self.pushes += 1;
        self.push_ids.push(self.pushes);
        *Self::flag(&mut self.in_c, e) = true;
        self.undo_marks.push(self.undo.len());
        for (k, &s) in self.store.event_slots(e).iter().enumerate() {
            self.undo.push((s, self.top[s as usize]));
            self.top[s as usize] = self.store.entry_on_kth(e, k);
        }
        self.stats.max_configuration_size =
            self.stats.max_configuration_size.max(self.c.len() as u64);
        // e's slots as flags, and [e]'s entries as they are looked up: every transition
        // visited below asks about each of its slots.
        extend_to(&mut self.on_e, self.store.slots().count(), false);
        for &s in self.store.event_slots(e) {
            self.on_e[s as usize] = true;
        }
        extend_to(
            &mut self.e_cone,
            self.store.slots().count(),
            (0, ConeEntry::bottom(0)),
        );
        // An extension x of C stays one of C ∪ {e} iff it shares no slot with e: on a shared
        // slot its parent is C's last event there, which e has just replaced. A run keyed by
        // one of e's slots goes whole.
        debug_assert_eq!(self.en.levels(), level + 1);
        let (on_e, store) = (&self.on_e, &self.store);
        for list in [&mut self.en, &mut self.en_cutoffs] {
            self.stats.enabled_checks += list.open_from_top(
                |key| on_e[key as usize],
                |x| x != e && !store.event_slots(x).iter().any(|&s| on_e[s as usize]),
            );
        }
        // Exactly the events of en(C) other than e that C ∪ {e} leaves enabled stay.
        debug_assert!([&self.en, &self.en_cutoffs].iter().all(|list| {
            let (kept, before) = (list.events(level + 1), list.events(level));
            kept.iter().all(|&x| self.enabled_in_c(x))
                && kept.len()
                    == before
                        .iter()
                        .filter(|&&x| x != e && self.enabled_in_c(x))
                        .count()
        }));
        // The new extensions: events of transitions on e's slots, but not of a class whose
        // guard state([e]) fails. They are searched in the order of transitions.
        let mut visits = std::mem::take(&mut self.visits);
        let mut mark = std::mem::take(&mut self.visit_mark);
        let mut bits = std::mem::take(&mut self.visit_bits);
        extend_to(&mut mark, self.sys.transition_count(), false);
        self.dependents.visit(
            (
                self.store.label(e),
                self.store.event_slots(e),
                self.sys.footprint(self.store.label(e)),
            ),
            |t, r, field| match field {
                Some(f) => f.holds_on(self.store.state_word(e, f.word as usize)),
                None => self.enabled_on_event(e, t, r),
            },
            &mut mark,
            &mut bits,
            &mut visits,
        );
        self.visit_mark = mark;
        self.visit_bits = bits;
        self.stats.extension_searches += visits.len() as u64;
        self.candidates.clear();
        let searched = visits.iter().try_for_each(|&t| {
            if self.guards_allow(t, e) {
                self.extensions_through(t, e)
            } else {
                Ok(())
            }
        });
        self.visits = visits;
        for &s in self.store.event_slots(e) {
            self.on_e[s as usize] = false;
        }
        searched?;
        self.make_candidates()?;
        let found = std::mem::take(&mut self.candidates.made);
        for &x in &found {
            if !self.enabled_in_c(x) {
                continue;
            }
            let list = if self.cutoff[x as usize] {
                &mut self.en_cutoffs
            } else {
                &mut self.en
            };
            debug_assert!(!list.events(level + 1).contains(&x));
            list.push(x, self.key_slot[self.store.label(x) as usize]);
        }
        self.candidates.made = found;
        Ok(())
    }

    /// Removes the last event of `C`.
    pub(super) fn pop(&mut self) {
        let e = self.c.pop().expect("C is not empty");
        self.push_ids.pop();
        self.in_c[e as usize] = false;
        let mark = self.undo_marks.pop().expect("undo mark");
        while self.undo.len() > mark {
            let (s, old) = self.undo.pop().expect("undo entry");
            self.top[s as usize] = old;
        }
        self.en.close();
        self.en_cutoffs.close();
        let mark = self.state_undo_marks.pop().expect("state undo mark");
        while self.state_undo.len() > mark {
            let (w, old) = self.state_undo.pop().expect("state undo entry");
            if self.wide {
                self.note_change(w, self.state[w as usize], old);
            }
            self.state[w as usize] = old;
        }
    }

    /// Word `w` of `state` goes from `old` to `new`: updates its hash, and flags the word
    /// for the next deadlock test.
    #[inline]
    fn note_change(&mut self, w: u32, old: u64, new: u64) {
        self.state_hash = self
            .state_hash
            .wrapping_sub(word_hash(w as usize, old))
            .wrapping_add(word_hash(w as usize, new));
        let flag = &mut self.dirty_mark[w as usize];
        if !*flag {
            *flag = true;
            self.dirty.push(w);
        }
    }

    /// `[e]`'s entry on slot `s`, for the event `e` the current push adds (looked up once per
    /// slot and push: every dependent of `e` asks about its slots).
    #[inline]
    pub(super) fn e_cone_at(&mut self, e: EventId, s: Slot) -> ConeEntry {
        match self.e_cone[s as usize] {
            (push, at) if push == self.pushes => at,
            _ => {
                let at = self.store.cone_at(e, s);
                self.e_cone[s as usize] = (self.pushes, at);
                at
            }
        }
    }

    /// Whether `t`'s guards leave room for an event `<t, H>` with `e ∈ H ⊆ C`. Guards decided
    /// by a slot shared with `e` are decided by `state([e])`; a guard on an open slot needs one
    /// candidate there, between `C`'s last event on it and `[e]`'s, that satisfies it. Most
    /// dependents fail one or the other, and are dropped before any search is set up.
    #[inline(always)]
    fn guards_allow(&mut self, t: Transition, e: EventId) -> bool {
        let guards = self.guards.range(t as usize);
        if self.guards.items()[guards.clone()]
            .iter()
            .any(|g| self.on_e[g.slot as usize] && !self.guard_holds(e, t, g))
        {
            return false;
        }
        for g in guards {
            let guard = self.guards.items()[g];
            let s = guard.slot;
            if self.on_e[s as usize] {
                continue;
            }
            let floor = self.e_cone_at(e, s).depth;
            let mut cand = self.top[s as usize];
            let satisfied = loop {
                if cand.depth < floor {
                    break false;
                }
                if self.guard_holds(cand.event, t, &guard) {
                    break true;
                }
                if cand.depth == 0 {
                    break false;
                }
                cand = self.store.parent_entry(cand);
            };
            if !satisfied {
                return false;
            }
        }
        true
    }

    /// Notes the candidate event `<t, ⋃[x_s]>`, to be found or made (if `t` is enabled after
    /// that history) by [`make_candidates`](Self::make_candidates) with the others of its
    /// window.
    ///
    /// `e`, the event just added to `C`, is in the history, and maximal there (no event of
    /// `C` is above it): the other last events that lie in `[e]` are left out at once.
    pub(super) fn add_candidate(
        &mut self,
        t: Transition,
        e: EventId,
        xs: &[ConeEntry],
    ) -> Result<(), Overflow> {
        // Scratch buffers, taken and given back: this runs once per candidate history.
        let mut cands = std::mem::take(&mut self.cands_scratch);
        cands.clear();
        for (x, i) in xs.iter().zip(0..) {
            let s = self.store.slots().of(t)[i];
            // (Looked up once per push: the search set out from [e]'s depths.)
            if x.event != e && self.e_cone_at(e, s).depth < x.depth {
                cands.push(Candidate {
                    event: x.event,
                    slot: s,
                    depth: x.depth,
                    size: 0,
                });
            }
        }
        let store = &self.store;
        cands.sort_unstable_by_key(|c| c.event);
        cands.dedup_by_key(|c| c.event);
        for c in &mut cands {
            c.size = store.size(c.event);
        }
        // Keep the maximal ones: a non-maximal event is below a maximal one, which is never
        // dropped, so checking against the ones kept and the ones not yet looked at suffices.
        // They all lie in C, so on one branch of each slot's tree: `p ≤ q` when `[q]` reaches
        // as deep as `p` on a slot of `p`'s, here the one `p` was found on.
        let mut preds = std::mem::take(&mut self.preds_scratch);
        preds.clear();
        preds.push(e);
        let mut kept = 0;
        for i in 0..cands.len() {
            let p = cands[i];
            let below = cands[..kept]
                .iter()
                .chain(&cands[i + 1..])
                .any(|q| q.size > p.size && store.cone_at(q.event, p.slot).depth >= p.depth);
            debug_assert_eq!(
                below,
                cands
                    .iter()
                    .any(|q| q.event != p.event && store.leq_in_configuration(p.event, q.event))
            );
            debug_assert!(!store.leq_in_configuration(p.event, e));
            if !below {
                cands[kept] = p;
                kept += 1;
                preds.push(p.event);
            }
        }
        // Sorted, as the store names histories.
        preds.sort_unstable();
        debug_assert!(xs.iter().all(|x| {
            preds.contains(&x.event)
                || preds
                    .iter()
                    .any(|&q| store.leq_in_configuration(x.event, q))
        }));
        self.cands_scratch = cands;
        self.candidates.push(t, &preds, xs);
        self.preds_scratch = preds;
        if self.candidates.len() == CANDIDATE_WINDOW {
            self.make_candidates()?;
        }
        Ok(())
    }

    /// Finds or makes the events of the candidates noted so far (a window of at most
    /// [`CANDIDATE_WINDOW`]), in the order they were found, and appends them to the list of
    /// events made. The store is probed for all of them first, in a loop of its own: a probe
    /// misses the caches once the store is large, and independent probes overlap their misses
    /// where one probe per search waited on each. Nothing the searches read changes in
    /// between: they read `C`, not the events being made. And a probe that finds nothing stays
    /// true while the others' events are made, for they all have other histories or other
    /// labels.
    fn make_candidates(&mut self) -> Result<(), Overflow> {
        let mut cs = std::mem::take(&mut self.candidates);
        cs.found.clear();
        for k in 0..cs.len() {
            let (t, preds, xs) = cs.get(k);
            cs.found.push(self.store.find_by_parents(t, preds, xs));
        }
        let mut result = Ok(());
        for k in 0..cs.len() {
            // As the searches stopped at once, before.
            if self.stats.stopped.is_some() {
                break;
            }
            let (t, preds, xs) = cs.get(k);
            let made = match cs.found[k] {
                Some(ev) => Ok(Some(self.found_again(ev))),
                None => self.make_new_event(t, preds, xs),
            };
            match made {
                Ok(Some(ev)) => cs.made.push(ev),
                Ok(None) => {}
                Err(overflow) => {
                    result = Err(overflow);
                    break;
                }
            }
        }
        cs.clear_notes();
        self.candidates = cs;
        result
    }

    /// The event `<t, H>`, which the store does not hold, with immediate predecessors
    /// `preds` and last events `xs` on the slots of `t`, if `t` is enabled after `H`.
    pub(super) fn make_new_event(
        &mut self,
        t: Transition,
        preds: &[EventId],
        xs: &[ConeEntry],
    ) -> Result<Option<EventId>, Overflow> {
        let mut states = std::mem::take(&mut self.state_scratch);
        states.resize(2 * self.words, 0);
        let (h, after) = states.split_at_mut(self.words);
        let made = self.store.make(self.sys, t, preds, xs, h, after);
        self.state_scratch = states;
        if let Ok(Some(e)) = made {
            self.built(e);
        }
        made
    }
}
