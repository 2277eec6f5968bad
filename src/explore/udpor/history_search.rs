//! The search of Extend for the histories `H` of one transition `t` with `e ∈ H ⊆ C`, `e` the
//! event just added to `C`. A history is given by its last event on every slot of `t`: `e`'s
//! own on the slots `t` shares with `e`, elsewhere one of `C`'s chain on the slot, not below
//! `[e]`'s. The open slots are chosen one at a time, those with guards first; each choice
//! raises the floors of the slots still open and stays within the choices made, so that every
//! complete choice is a history (checked in debug builds), and a guard decided by a slot is
//! tested as soon as the slot is chosen.

use super::explorer::Explorer;
use super::guards::Guard;
use crate::system::{Overflow, System, Transition};
use crate::unfolding::cone::ConeForest;
use crate::unfolding::event::{ConeEntry, EventId};
use crate::unfolding::slots::Slot;

/// The state of the search for the histories of one transition through a new event.
struct HistorySearch<'a> {
    t: Transition,
    /// The event just added to `C`, through which the histories go.
    e: EventId,
    /// The slots of `t`.
    slots: &'a [Slot],
    /// The open slots (indexes into `slots`), in the order they are chosen.
    order: &'a [usize],
    /// Guards of `t` decided by one slot.
    guards: &'a [Guard],
    /// The last event of the history on every slot (chosen or fixed).
    xs: Vec<ConeEntry>,
    /// Per level of the search, the floor depth of every slot (`slots.len()` per level); kept
    /// up to date on the slots still open only.
    floors: Vec<u32>,
    /// Per level, for each run of slots in one leaf of the cones, the leaf block whose
    /// depths the floors hold already (`runs` per level; none: `u32::MAX`).
    merged: Vec<u32>,
    runs: usize,
    /// For each slot (index into `slots`), its run of slots in one leaf of the cones.
    run_of: &'a [u32],
    /// Per level `f`, the open slots chosen after it (indexes into `slots`, increasing):
    /// `order[f + 1..]` sorted, one level after the other (see
    /// [`rest_at`](Self::rest_at)). Made as levels are first reached.
    rest: Vec<u32>,
    /// Levels whose `rest` is made.
    rest_levels: usize,
    /// The chosen slots whose choice lies below `C`'s last event on the slot: the only ones a
    /// candidate's cone can reach past (every event of `C` is within `C`'s last events).
    lowered: Vec<usize>,
}

impl HistorySearch<'_> {
    /// Where level `f`'s list of `rest` starts: after the lists of `m - 1`, `m - 2`, ...
    /// slots of the levels before it (`m` open slots).
    fn rest_at(&self, f: usize) -> usize {
        let m = self.order.len();
        f * (m - 1) - f * f.saturating_sub(1) / 2
    }
}

/// Reusable room for the [`HistorySearch`] of `extensions_through`.
#[derive(Default)]
pub(super) struct SearchScratch {
    slots: Vec<Slot>,
    guards: Vec<Guard>,
    xs: Vec<ConeEntry>,
    fixed: Vec<bool>,
    floors: Vec<u32>,
    merged: Vec<u32>,
    order: Vec<usize>,
    run_of: Vec<u32>,
    rest: Vec<u32>,
    lowered: Vec<usize>,
}

impl<'s, S: System + ?Sized> Explorer<'s, S> {
    /// Every event `<t, H>` with `e ∈ H ⊆ C` (where `e` is the last event added to `C`), found
    /// in or added to the store, pushed onto `out`.
    ///
    /// `H` is determined by its last event `x_s` on every slot `s` of `t`: `x_s = e` on the
    /// slots `t` shares with `e`; elsewhere `x_s` runs down the chain of `C` on `s`, not below
    /// `[e]`'s last event there. A tuple is a history iff no `[x_i]` reaches past `x_j` on slot
    /// `j` — inside `C` every slot is a chain, so that is a comparison of depths. The slots are
    /// chosen one at a time and consistency is kept as they are: each choice raises the floors
    /// of the slots still open and must stay within the ones already chosen. A slot that holds
    /// every event changing a resource `t` tests fixes that resource's value in `state(H)`, so
    /// `t`'s guard on it is checked as soon as the slot is chosen (see
    /// [`System::enabled_on`]).
    ///
    /// Call it for the transitions [`guards_allow`](Self::guards_allow) lets through: most
    /// dependents are not, and are dropped without this function's setup.
    #[inline(never)]
    pub(super) fn extensions_through(&mut self, t: Transition, e: EventId) -> Result<(), Overflow> {
        let k = self.store.slots().of(t).len();
        if (0..k).all(|i| self.on_e[self.store.slots().of(t)[i] as usize]) {
            // Every slot of t is one of e's: the one history is [e]'s last events there, and
            // there is nothing to search (a sequential process's next step, a token's next
            // move).
            if self.stats.stopped.is_some() {
                return Ok(());
            }
            let mut scratch = self.search_scratch.take().unwrap_or_default();
            let xs = &mut scratch.xs;
            xs.clear();
            for i in 0..k {
                let s = self.store.slots().of(t)[i];
                let at = self.e_cone_at(e, s);
                xs.push(at);
            }
            let result = self.add_candidate(t, e, xs);
            self.search_scratch = Some(scratch);
            return result;
        }
        // Scratch room, taken and given back: this runs for every transition sharing a slot
        // with every event added to C. (Boxed: taking it moves a pointer, not ten vectors.)
        let mut scratch = self.search_scratch.take().unwrap_or_default();
        let SearchScratch {
            slots,
            xs,
            fixed,
            floors,
            merged,
            order,
            guards,
            run_of,
            rest,
            lowered,
        } = &mut *scratch;
        slots.clear();
        slots.extend_from_slice(self.store.slots().of(t));
        guards.clear();
        guards.extend_from_slice(self.guards.row(t as usize));
        let k = slots.len();
        xs.clear();
        fixed.clear();
        fixed.resize(k, false);
        // The floors and merged blocks of the levels past the first are written before they
        // are read: the room keeps its length (and old values) from search to search.
        if floors.len() < k {
            floors.resize(k, 0);
        }
        for (i, &s) in slots.iter().enumerate() {
            let at = self.e_cone_at(e, s);
            floors[i] = at.depth;
            if self.on_e[s as usize] {
                xs.push(at);
                fixed[i] = true;
            } else {
                xs.push(self.top[s as usize]);
            }
        }
        // (Guards on the slots shared with e were checked by `guards_allow`.)
        // Open slots with guards first: they prune the most. (Two passes, not a sort: this
        // runs for every dependent of every event added to C.)
        order.clear();
        let guarded = |i: usize| guards.iter().any(|g| g.index == i);
        order.extend((0..k).filter(|&i| !fixed[i] && guarded(i)));
        order.extend((0..k).filter(|&i| !fixed[i] && !guarded(i)));
        // Level f's floors are read when slot `order[f]` is chosen, and raised into level
        // f + 1's; with one open slot or none, nothing is raised.
        let levels = order.len().max(1);
        if floors.len() < k * levels {
            floors.resize(k * levels, 0);
        }
        run_of.clear();
        if levels > 1 {
            ConeForest::leaf_run_indexes(slots, run_of);
        }
        let runs = run_of.last().map_or(0, |&r| r as usize + 1);
        if merged.len() < runs * levels {
            merged.resize(runs * levels, u32::MAX);
        }
        merged[..runs].fill(u32::MAX);
        rest.clear();
        lowered.clear();
        let mut search = HistorySearch {
            t,
            e,
            slots,
            order,
            guards,
            xs: std::mem::take(xs),
            floors: std::mem::take(floors),
            merged: std::mem::take(merged),
            runs,
            run_of,
            rest: std::mem::take(rest),
            rest_levels: 0,
            lowered: std::mem::take(lowered),
        };
        let result = self.enumerate(&mut search, 0);
        *xs = search.xs;
        *floors = search.floors;
        *merged = search.merged;
        *rest = search.rest;
        *lowered = search.lowered;
        self.search_scratch = Some(scratch);
        result
    }

    /// Chooses the `f`-th open slot of `search.order` (and the ones after it), then makes the
    /// event.
    fn enumerate(&mut self, search: &mut HistorySearch<'_>, f: usize) -> Result<(), Overflow> {
        if self.stats.stopped.is_some() {
            return Ok(());
        }
        if f == search.order.len() {
            // A history's last events: none of their cones reaches past another.
            debug_assert!(search.xs.iter().all(|x| {
                search
                    .slots
                    .iter()
                    .zip(&search.xs)
                    .all(|(&s, y)| self.store.cone_at(x.event, s).depth <= y.depth)
            }));
            return self.add_candidate(search.t, search.e, &search.xs);
        }
        let k = search.slots.len();
        // When every slot still open has its floor at C's last event there (as on most
        // levels of most searches), each has that one candidate, and choosing them raises no
        // floor that matters: the history is complete once they pass their guards. (They
        // stay within the choices made: a floor at C's last event `x` means that `x` lies in
        // `[e]` or in the cone of a choice, which all stay within one another.)
        let floors = &search.floors[f * k..(f + 1) * k];
        if search.order[f..]
            .iter()
            .all(|&j| floors[j] == self.top[search.slots[j] as usize].depth)
        {
            for &j in &search.order[f..] {
                let cand = self.top[search.slots[j] as usize];
                debug_assert!(self.within_choices(search, f, cand));
                if !self.guards_hold(search, j, cand) {
                    return Ok(());
                }
                search.xs[j] = cand;
            }
            return self.enumerate(search, search.order.len());
        }
        let i = search.order[f];
        let s = search.slots[i];
        let floor = search.floors[f * k + i];
        let last = f + 1 == search.order.len();
        if !last && search.rest_levels == f {
            // The slots open after this level: the previous level's without this one.
            debug_assert_eq!(search.rest.len(), search.rest_at(f));
            if f == 0 {
                search
                    .rest
                    .extend(search.order[1..].iter().map(|&j| j as u32));
                search.rest.sort_unstable();
            } else {
                let previous = search.rest_at(f - 1)..search.rest_at(f);
                search.rest.extend_from_within(previous);
                let now = search.rest_at(f);
                let at = now
                    + search.rest[now..]
                        .iter()
                        .position(|&j| j as usize == i)
                        .expect("i is open");
                search.rest.remove(at);
            }
            search.rest_levels = f + 1;
        }
        let top = self.top[s as usize];
        let mut cand = top;
        // Down the chain on `s`, each candidate's cone holds the next one's: once one stays
        // within the choices made so far, every later one does.
        let mut within = search.lowered.is_empty();
        loop {
            if cand.depth < floor {
                break;
            }
            self.tried += 1;
            if self.tried.is_multiple_of(1 << 12)
                && let Err(r) = self.limits.check_time()
            {
                self.stats.stopped = Some(r);
                return Ok(());
            }
            if self.guards_hold(search, i, cand)
                && (within || {
                    within = search.lowered.iter().all(|&j| {
                        self.store.cone_at(cand.event, search.slots[j]).depth <= search.xs[j].depth
                    });
                    debug_assert_eq!(within, self.within_choices(search, f, cand));
                    within
                })
            {
                debug_assert!(self.within_choices(search, f, cand));
                search.xs[i] = cand;
                let lowered = cand.depth < top.depth;
                if lowered {
                    search.lowered.push(i);
                }
                if !last {
                    // Floors of the slots still open, raised by [cand]. Leaves of [cand]'s
                    // cone already merged at this level are skipped (nothing is removed from
                    // the store during a search, so a block id names the same block
                    // throughout).
                    let rest = search.rest_at(f)..search.rest_at(f + 1);
                    let (done, next) = search.floors.split_at_mut((f + 1) * k);
                    let current = &done[f * k..];
                    next[..k].copy_from_slice(&current[..k]);
                    let g = search.runs;
                    let (merged_done, merged_next) = search.merged.split_at_mut((f + 1) * g);
                    merged_next[..g].copy_from_slice(&merged_done[f * g..(f + 1) * g]);
                    self.store.raise_to_cone_depths(
                        cand.event,
                        search.slots,
                        &search.rest[rest],
                        search.run_of,
                        &mut next[..k],
                        &mut merged_next[..g],
                    );
                }
                let result = self.enumerate(search, f + 1);
                if lowered {
                    search.lowered.pop();
                }
                result?;
            }
            if cand.depth == 0 {
                break;
            }
            cand = self.store.parent_entry(cand);
        }
        Ok(())
    }

    /// Whether `t`'s guards decided by the `i`-th slot hold with `cand` as the history's last
    /// event there.
    fn guards_hold(&self, search: &HistorySearch<'_>, i: usize, cand: ConeEntry) -> bool {
        search
            .guards
            .iter()
            .all(|g| g.index != i || self.guard_holds(cand.event, search.t, g))
    }

    /// Whether `[cand]` stays within the choices made on the first `f` slots of the order.
    fn within_choices(&self, search: &HistorySearch<'_>, f: usize, cand: ConeEntry) -> bool {
        search.order[..f]
            .iter()
            .all(|&j| self.store.cone_at(cand.event, search.slots[j]).depth <= search.xs[j].depth)
    }
}
