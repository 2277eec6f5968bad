//! The immediate conflicts of an event of `D`: the candidates of its spike, from which Alt
//! picks the conflicting extensions it needs. They are all among the event's siblings on its
//! slots.
//!
//! They are memoised per event ([`IcfMemo`]) and brought up to date by
//! [`Explorer::refresh_icf`], which tests only the siblings added since the last call; a memo
//! stays valid while no sibling of the event left the store, and is dropped when the event
//! does. Cutoffs are left out, since they are never picked.

use smallvec::SmallVec;

use super::explorer::{Explorer, extend_to, extend_with};
use crate::system::{System, Transition};
use crate::unfolding::event::{ChildCursor, EventId, LabeledChildren};
use crate::unfolding::slots::Slot;

/// Candidates of `refresh_icf` whose cones are read together (see
/// [`EventStore::histories_part_on_each`]).
///
/// [`EventStore::histories_part_on_each`]: crate::unfolding::event::EventStore::histories_part_on_each
const SIBLING_CHUNK: usize = 32;

/// The events in immediate conflict with one event that are not cutoffs (they are all among
/// its siblings on its slots), valid while the store's [`EventStore::siblings_removals`] of
/// that event equals `removals`: siblings are then only appended, and `seen[i]` is the last
/// of those on the event's `i`-th slot that was looked at.
///
/// Most events have few slots and few immediate conflicts: both lists are kept inline, and a
/// memo then costs one allocation (a store holds one per event of `D` it has met).
///
/// [`EventStore::siblings_removals`]: crate::unfolding::event::EventStore::siblings_removals
pub(super) struct IcfMemo {
    removals: u64,
    seen: SmallVec<[ChildCursor; 4]>,
    pub(super) events: SmallVec<[EventId; 4]>,
    /// `(k, len, mark)`: `events[..k]` all lie in the prefix of `D` of length `len` that
    /// carried `mark` (see [`DisabledSet::prefix_mark`]); alternatives skip them while that
    /// prefix stays.
    ///
    /// [`DisabledSet::prefix_mark`]: super::disabled::DisabledSet::prefix_mark
    pub(super) past_d: (u32, u32, u64),
}

impl IcfMemo {
    fn bytes(&self) -> u64 {
        let spilled = |on_heap: bool, bytes: usize| if on_heap { bytes } else { 0 };
        (std::mem::size_of::<IcfMemo>()
            + spilled(self.events.spilled(), self.events.capacity() * 4)
            + spilled(
                self.seen.spilled(),
                self.seen.capacity() * std::mem::size_of::<ChildCursor>(),
            )) as u64
    }
}

/// Whether `s` is the first of the slots `slots` of a label on which the event being scanned
/// for has a parent (`d_parent`, `u32::MAX` where it has none), given that it has one on `s`.
fn first_shared_is(slots: &[Slot], s: Slot, d_parent: &[u32]) -> bool {
    slots
        .iter()
        .take_while(|&&x| x < s)
        .all(|&x| d_parent[x as usize] == u32::MAX)
}

/// The indexes, among the slots `slots` of a label, of the slots past `s` on which the event
/// being scanned for has a parent (`d_parent`, `u32::MAX` where it has none).
fn shared_past(slots: &[Slot], s: Slot, d_parent: &[u32]) -> impl Iterator<Item = usize> {
    slots
        .iter()
        .enumerate()
        .filter(move |&(_, &x)| x > s && d_parent[x as usize] != u32::MAX)
        .map(|(j, _)| j)
}

impl<'s, S: System + ?Sized> Explorer<'s, S> {
    /// Drops the memo of `e`'s immediate conflicts.
    pub(super) fn forget_icf(&mut self, e: EventId) {
        if let Some(m) = self.icf_memo.get_mut(e as usize).and_then(Option::take) {
            self.icf_bytes -= m.bytes();
        }
    }

    /// Brings the memo of the events of the store in immediate conflict with `d` up to date:
    /// only siblings added since the last call are tested, unless one was removed.
    pub(super) fn refresh_icf(&mut self, d: EventId) {
        let removals = self.store.siblings_removals(d);
        let i = d as usize;
        extend_with(&mut self.icf_memo, i + 1, || None);
        let n = self.store.event_slots(d).len();
        let mut memo = match self.icf_memo[i].take() {
            Some(m) if m.removals == removals => {
                self.icf_bytes -= m.bytes();
                m
            }
            stale => {
                if let Some(m) = stale {
                    self.icf_bytes -= m.bytes();
                }
                // An event that is the only child of its parents has nothing in immediate
                // conflict, and no memo says more than none: a later call finds the same
                // from the start (a chain's every event; no allocation then).
                let alone = (0..n).all(|k| {
                    let last = self
                        .store
                        .last_child_of_node(self.store.parent_node_on_kth(d, k));
                    self.store.only_new_child_is(d, k, ChildCursor::START, last)
                });
                if alone {
                    return;
                }
                Box::new(IcfMemo {
                    removals,
                    seen: SmallVec::from_elem(ChildCursor::START, n),
                    events: SmallVec::new(),
                    past_d: (0, 0, 0),
                })
            }
        };
        // Most calls find no sibling added on any slot since the last one, or only `d` itself
        // (the first call, on slots where `d` has no siblings), never in its own spike: then
        // there is nothing to scan.
        let mut quiet = true;
        for k in 0..n {
            let parent = self.store.parent_node_on_kth(d, k);
            let last = self.store.last_child_of_node(parent);
            if last == memo.seen[k] {
                continue;
            }
            if self.store.only_new_child_is(d, k, memo.seen[k], last) {
                memo.seen[k] = last;
            } else {
                // (The scan below reads the other slots.)
                quiet = false;
                break;
            }
        }
        if quiet {
            self.icf_bytes += memo.bytes();
            self.icf_memo[i] = Some(memo);
            return;
        }
        extend_to(&mut self.d_parent, self.store.slots().count(), u32::MAX);
        extend_to(
            &mut self.first_shared,
            self.sys.transition_count(),
            (0, false),
        );
        for (k, &s) in self.store.event_slots(d).iter().enumerate() {
            self.d_parent[s as usize] = self.store.parent_node_on_kth(d, k) as u32;
        }
        // The slot on which the last candidate's history parted from `d`'s: siblings alike
        // part alike, so it is tried first.
        let mut parting = None;
        let mut siblings = std::mem::take(&mut self.sibling_scratch);
        for k in 0..n {
            let s = self.store.event_slots(d)[k];
            let parent = self.d_parent[s as usize] as usize;
            // Most slots have no sibling added since the last refresh: nothing to scan.
            if self.store.last_child_of_node(parent) == memo.seen[k] {
                continue;
            }
            // The siblings in arrays are scanned by label, and compared on the slots past `s`
            // that they share with `d` in columns.
            let d_parent = &self.d_parent;
            self.store
                .index_children(parent, memo.seen[k].seen(), |slots_lc, wanted| {
                    if first_shared_is(slots_lc, s, d_parent) {
                        wanted.extend(shared_past(slots_lc, s, d_parent));
                    }
                });
            self.first_shared_round = self.first_shared_round.wrapping_add(1);
            if self.first_shared_round == 0 {
                self.first_shared.fill((0, false));
                self.first_shared_round = 1;
            }
            let round = self.first_shared_round;
            let new = self
                .store
                .labeled_children_of_node_after(parent, memo.seen[k]);
            // An event in immediate conflict with `d` has `d`'s parent on every slot they
            // share: it is kept from the first of them only (decided from the labels, before
            // the event itself is looked at: none of its slots below `s` is one of `d`'s),
            // and the parents on the other shared slots are compared before the histories.
            // Cutoffs are never picked (see `spike_verdict`), and a verdict never changes while
            // the event is stored: they are left out before the costly test.
            let slot_map = self.store.slots();
            let d_parent = &self.d_parent;
            let store = &self.store;
            let first_shared = &mut self.first_shared;
            let (cutoffs, cutoff) = (self.opts.cutoffs.is_some(), &self.cutoff);
            // Siblings mostly repeat a few labels: the test on labels is kept per label.
            let mut first_here = |lc: Transition| {
                let (seen, first) = &mut first_shared[lc as usize];
                if *seen != round {
                    *seen = round;
                    *first = first_shared_is(slot_map.of(lc), s, d_parent);
                }
                *first
            };
            // Whether `c` may be in immediate conflict with `d`, before their histories are
            // compared (`siblings` gathers those, with their positions).
            let candidate = |c: EventId| !(cutoffs && cutoff[c as usize]) && c != d;
            // What the scan must find, for debug builds.
            let in_conflict = |c: EventId, lc: Transition| {
                !(cutoffs && cutoff[c as usize])
                    && first_shared_is(slot_map.of(lc), s, d_parent)
                    && store.immediate_conflict_first_on(d, c, s)
            };
            siblings.clear();
            let mut reads = 0;
            let grouped = match new {
                LabeledChildren::Each(children) => {
                    for (p, c) in children.enumerate() {
                        reads += 1;
                        let lc = store.label(c);
                        if first_here(lc)
                            && candidate(c)
                            && slot_map.of(lc).iter().enumerate().all(|(j, &x)| {
                                let want = d_parent[x as usize];
                                want == u32::MAX
                                    || x <= s
                                    || store.parent_node_on_kth(c, j) as u32 == want
                            })
                        {
                            siblings.push((p as u32, c));
                        } else {
                            debug_assert!(!in_conflict(c, lc));
                        }
                    }
                    false
                }
                LabeledChildren::Grouped { all, groups, from } => {
                    // The labels whose events are kept on another slot are skipped whole; the
                    // parents on the other slots shared with `d` are compared in the group's
                    // columns (most siblings differ there).
                    let mut filter: SmallVec<[(u32, usize); 8]> = SmallVec::new();
                    for group in groups {
                        reads += 1;
                        let lc = group.label();
                        if !first_here(lc) {
                            continue;
                        }
                        let rows = group.rows_from(from);
                        if rows.len() == 0 {
                            continue;
                        }
                        filter.clear();
                        filter.extend(shared_past(slot_map.of(lc), s, d_parent).map(|j| {
                            let want = d_parent[slot_map.of(lc)[j] as usize];
                            (want, group.column(j).expect("indexed for this scan"))
                        }));
                        let mut test = |row: &[u32]| {
                            reads += 1;
                            let p = row[0];
                            let c = all[p as usize];
                            if filter.iter().all(|&(want, at)| row[at] == want) && candidate(c) {
                                siblings.push((p, c));
                            } else {
                                debug_assert!(!in_conflict(c, lc));
                            }
                        };
                        // Most siblings have another parent on the first slot compared: they
                        // are passed over through the group's index where it has one.
                        match filter.first() {
                            Some(&(want, at)) => group.for_rows_with(from, at, want, &mut test),
                            None => rows.for_each(test),
                        }
                    }
                    true
                }
            };
            // Most candidates part from `d` on the slot the last one did: that slot is tried
            // on a chunk of them at once, and the others are compared whole.
            let mut found = std::mem::take(&mut self.found_scratch);
            found.clear();
            for chunk in siblings.chunks(SIBLING_CHUNK) {
                let mut rest = chunk;
                if parting.is_none() {
                    // The first one is compared whole, to find a slot to try on the others.
                    let (&(p, c), others) = rest.split_first().expect("chunks are not empty");
                    rest = others;
                    match store.histories_parting_slot(d, c) {
                        Some(y) => parting = Some(y),
                        None => found.push((p, c)),
                    }
                    debug_assert_eq!(parting.is_none(), in_conflict(c, store.label(c)));
                }
                let tried = parting;
                match tried {
                    Some(y) => {
                        self.sibling_events.clear();
                        self.sibling_events.extend(rest.iter().map(|&(_, c)| c));
                        store.histories_part_on_each(
                            d,
                            y,
                            &self.sibling_events,
                            &mut self.cone_room,
                            &mut self.parted,
                        )
                    }
                    None => {
                        // Every candidate so far was kept: the others are compared whole.
                        self.parted.clear();
                        self.parted.resize(rest.len(), false);
                    }
                }
                for (&(p, c), &parted) in rest.iter().zip(&self.parted) {
                    // Parted on the slot tried, or on the one a candidate parted on since.
                    let parted = parted
                        || (parting != tried
                            && parting.is_some_and(|y| store.histories_part_on(d, c, y)));
                    let kept = !parted
                        && match store.histories_parting_slot(d, c) {
                            Some(y) => {
                                parting = Some(y);
                                false
                            }
                            None => true,
                        };
                    debug_assert_eq!(kept, in_conflict(c, store.label(c)), "{d} and {c}");
                    if kept {
                        found.push((p, c));
                    }
                }
            }
            // The events found are kept in the order they were added.
            if grouped {
                found.sort_unstable();
            }
            // (Most scans find nothing: no call to extend then.)
            if !found.is_empty() {
                memo.events.extend(found.iter().map(|&(_, c)| c));
            }
            self.found_scratch = found;
            self.stats.sibling_reads += reads;
            memo.seen[k] = self.store.last_child_of_node(parent);
        }
        self.sibling_scratch = siblings;
        for &s in self.store.event_slots(d) {
            self.d_parent[s as usize] = u32::MAX;
        }
        self.icf_bytes += memo.bytes();
        self.icf_memo[i] = Some(memo);
    }
}
