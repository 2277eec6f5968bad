//! The construction: the main loop, the concurrency relation on enriched conditions and the
//! possible extensions ("combs"), after Rodríguez, Schwoon and Baldan (CONCUR 2011).
//!
//! Every history that leaves the queue and is not a cutoff gets enriched conditions: one
//! generating `⟨c, H⟩` for every condition `c` its event produces, one reading `⟨c, H⟩` for every
//! condition it reads, and compound ones joining the new reading one with earlier readers of
//! the same condition. Each new enriched condition learns which earlier ones are concurrent
//! with it (the intersection of the concurrency lists of the enriched conditions its history was
//! built from, less those that its event consumes or that a reader outside `H` would have to
//! precede), and then every transition that consumes or reads its place is tried with every
//! choice of pairwise concurrent enriched conditions for its other places.
//!
//! Safety is checked on the way: a history whose marking has two tokens on a place, an event
//! of a transition with an output weight above 1 or one that only reads, and a new generating
//! enriched condition concurrent with one of another condition of the same place stop the
//! construction with a run that puts two tokens on a place. A cutoff's postset needs no
//! enriched conditions for that. Take a configuration `D` reaching an unsafe marking, least in
//! the adequate order: its proper subconfigurations reach safe markings, and none of the
//! histories `D[[e]]` of its events is a cutoff (the cutoff's smaller twin, extended like
//! `D`, would reach the same marking from a smaller configuration). Of the two conditions of
//! one place in `D`'s cut, either one history holds both producers, and its marking has the
//! two tokens, or the two kept histories of the producers give generating enriched
//! conditions concurrent with each other, and the later one sees the earlier one.

use rustc_hash::FxHashMap;

use super::store::{
    Condition, Enriched, Enrichment, Event, History, HistoryState, NONE, for_each_part,
    intersect_sorted, sorted_contains,
};
use super::{ContextualPrefix, ContextualProgress};
use crate::explore::limits::{Limits, StopReason};
use crate::explore::prefix::NotSafe;
use crate::explore::prefix::heap::Heap;
use crate::model::net::{Net, PlaceIdx, TransIdx};
use crate::unfolding::order::{Order, cmp_level, cmp_level_parikh, cmp_parikh};
use std::cmp::Ordering;

/// A transition as the construction sees it.
struct Tr {
    pre: Vec<PlaceIdx>,
    context: Vec<PlaceIdx>,
    post: Vec<PlaceIdx>,
    /// Produces more than one token on a place: its first firing makes the net unsafe.
    multi_out: bool,
}

/// One place of a transition to fill in a comb, with its candidates.
struct Slot {
    place: PlaceIdx,
    consumed: bool,
    candidates: Vec<u32>,
    chosen: usize,
}

pub(super) struct Builder<'n> {
    net: &'n Net,
    /// The adequate order of the queue and of the cutoff criterion.
    order: Order,
    trs: Vec<Tr>,
    /// Per place, the transitions that consume it and those that read it (live ones only).
    consumers: Vec<Vec<TransIdx>>,
    readers: Vec<Vec<TransIdx>>,
    /// Places marked initially.
    initial: Vec<PlaceIdx>,
    pub(super) prefix: ContextualPrefix,
    ecs: Vec<Enriched>,
    heap: Heap,
    /// Marking of every kept history (and the initial one) → that history.
    table: FxHashMap<Vec<PlaceIdx>, u32>,
    cond_mark: Vec<u32>,
    event_mark: Vec<u32>,
    place_slot: Vec<u32>,
    epoch: u32,
    ranks: u32,
    pub(super) duplicates: u64,
    /// The slots of the comb being explored (a buffer kept between combs).
    slots: Vec<Slot>,
    /// The first sign that the net is not safe.
    unsafe_found: Option<NotSafe>,
    pub(super) peak_bytes: u64,
    tokens: Vec<i32>,
    /// Per place, the epoch in which a new history's marking last touched it.
    place_mark: Vec<u32>,
    /// Per transition, its occurrences in the history being made (zero between histories).
    occurrences: Vec<u32>,
    /// Buffers for merging the closures of a new history's parts.
    merge_buffers: (Vec<u32>, Vec<u32>),
}

impl<'n> Builder<'n> {
    pub(super) fn new(net: &'n Net, order: Order) -> Self {
        let np = net.places.len();
        let mut trs = Vec::with_capacity(net.transitions.len());
        let mut consumers = vec![Vec::new(); np];
        let mut readers = vec![Vec::new(); np];
        for (ti, t) in net.transitions.iter().enumerate() {
            let pre: Vec<PlaceIdx> = t.pre.iter().map(|a| a.place).collect();
            // A place both consumed and read is simply consumed: the test adds nothing.
            let context: Vec<PlaceIdx> = t
                .reads
                .iter()
                .map(|a| a.place)
                .filter(|p| !pre.contains(p))
                .collect();
            // An input or read weight above 1 never holds in a safe net: the transition is dead.
            let dead = t.pre.iter().chain(&t.reads).any(|a| a.weight > 1);
            if !dead {
                for &p in &pre {
                    consumers[p as usize].push(ti as TransIdx);
                }
                for &p in &context {
                    readers[p as usize].push(ti as TransIdx);
                }
            }
            trs.push(Tr {
                pre,
                context,
                post: t.post.iter().map(|a| a.place).collect(),
                multi_out: t.post.iter().any(|a| a.weight > 1),
            });
        }
        Builder {
            net,
            order,
            trs,
            consumers,
            readers,
            initial: (0..np as PlaceIdx)
                .filter(|&p| net.places[p as usize].initial > 0)
                .collect(),
            prefix: ContextualPrefix::default(),
            ecs: Vec::new(),
            heap: Heap::default(),
            table: FxHashMap::default(),
            cond_mark: Vec::new(),
            event_mark: Vec::new(),
            place_slot: vec![u32::MAX; np],
            epoch: 0,
            ranks: 0,
            duplicates: 0,
            slots: Vec::new(),
            unsafe_found: None,
            peak_bytes: 0,
            tokens: vec![0; np],
            place_mark: vec![0; np],
            occurrences: vec![0; net.transitions.len()],
            merge_buffers: (Vec::new(), Vec::new()),
        }
    }

    fn next_epoch(&mut self) -> u32 {
        self.epoch += 1;
        self.epoch
    }

    pub(super) fn bytes(&self) -> u64 {
        let p = &self.prefix;
        let hist: u64 = p
            .histories
            .iter()
            .map(|h| {
                200 + 4
                    * (h.closure.capacity()
                        + h.marking.capacity()
                        + 2 * h.parikh.capacity()
                        + h.parts.capacity()
                        + h.built_from.capacity()
                        + h.readers_of_cut.capacity()
                        + h.readers_of_preset.capacity()) as u64
            })
            .sum();
        let ecs: u64 = self
            .ecs
            .iter()
            .map(|r| 72 + 4 * (r.co.capacity() + r.inert.capacity()) as u64)
            .sum();
        let events: u64 = p.events.len() as u64 * 160;
        let conds: u64 = p.conditions.len() as u64 * 120;
        hist + ecs + events + conds + self.heap.bytes() + self.table.len() as u64 * 64
    }

    /// The firing sequence of the events of the given histories (their union), by the order
    /// in which their histories left the queue.
    fn run_of(&self, hs: &[u32]) -> Vec<String> {
        let mut all: Vec<u32> = hs
            .iter()
            .flat_map(|&h| self.prefix.histories[h as usize].closure.iter().copied())
            .collect();
        all.sort_unstable();
        all.dedup();
        let mut evs: Vec<(u32, u32)> = all
            .iter()
            .map(|&h| &self.prefix.histories[h as usize])
            .filter(|h| h.event != NONE)
            .map(|h| (h.rank, h.event))
            .collect();
        evs.sort_unstable();
        evs.dedup_by_key(|x| x.1);
        evs.iter()
            .map(|&(_, e)| {
                let t = self.prefix.events[e as usize].transition;
                self.net.transitions[t as usize].label.to_string()
            })
            .collect()
    }

    fn not_safe(&self, place: PlaceIdx, hs: &[u32]) -> NotSafe {
        NotSafe {
            place: self.net.places[place as usize].label.to_string(),
            run: self.run_of(hs),
        }
    }

    pub(super) fn run(
        &mut self,
        limits: &Limits,
        progress: &mut dyn FnMut(ContextualProgress),
    ) -> Result<Option<StopReason>, NotSafe> {
        // The initial history ⊥ and the initial conditions.
        let mut marking = Vec::new();
        for (p, place) in self.net.places.iter().enumerate() {
            if place.initial > 1 {
                return Err(NotSafe {
                    place: place.label.to_string(),
                    run: Vec::new(),
                });
            }
            if place.initial == 1 {
                marking.push(p as PlaceIdx);
                self.new_condition(p as PlaceIdx, NONE);
            }
        }
        self.prefix.initial = self.prefix.conditions.len() as u32;
        self.prefix.histories.push(History {
            event: NONE,
            parts: Vec::new(),
            closure: vec![0],
            depth: 0,
            marking: marking.clone(),
            parikh: Vec::new(),
            readers_of_cut: Vec::new(),
            readers_of_preset: Vec::new(),
            built_from: Vec::new(),
            state: HistoryState::Kept,
            rank: 0,
        });
        self.table.insert(marking, 0);
        self.ranks = 1;
        // Transitions that need no token are enabled forever: once when they produce nothing,
        // and unsafe at their second firing otherwise.
        for t in 0..self.trs.len() {
            if self.trs[t].pre.is_empty() && self.net.transitions[t].reads.is_empty() {
                if let Some(&p) = self.trs[t].post.first() {
                    let label = self.net.transitions[t].label.to_string();
                    return Err(NotSafe {
                        place: self.net.places[p as usize].label.to_string(),
                        run: vec![label.clone(), label],
                    });
                }
                let e = self.new_event(t as TransIdx, Vec::new(), Vec::new());
                self.new_history(e, vec![0], Vec::new());
            }
        }
        self.enrich(0);
        let mut steps: u64 = 0;
        loop {
            steps += 1;
            if steps.is_multiple_of(256) {
                let bytes = self.bytes();
                self.peak_bytes = self.peak_bytes.max(bytes);
                progress(ContextualProgress {
                    histories: self.prefix.histories.len() as u64 - 1,
                    events: self.prefix.events.len() as u64,
                    conditions: self.prefix.conditions.len() as u64,
                    queue: self.heap.len() as u64,
                    bytes,
                });
                if let Err(r) = limits.check_time().and_then(|_| limits.check_memory(bytes)) {
                    return Ok(Some(r));
                }
            }
            if let Some(err) = self.unsafe_found.take() {
                return Err(err);
            }
            let Some(h) = self.pop() else { break };
            self.add(h)?;
        }
        if let Some(err) = self.unsafe_found.take() {
            return Err(err);
        }
        self.peak_bytes = self.peak_bytes.max(self.bytes());
        Ok(None)
    }

    fn new_condition(&mut self, place: PlaceIdx, producer: u32) -> u32 {
        self.prefix.conditions.push(Condition {
            place,
            producer,
            consumers: Vec::new(),
            readers: Vec::new(),
            enriched: Vec::new(),
        });
        self.cond_mark.push(0);
        (self.prefix.conditions.len() - 1) as u32
    }

    fn new_event(&mut self, t: TransIdx, preset: Vec<u32>, context: Vec<u32>) -> u32 {
        let e = self.prefix.events.len() as u32;
        for &c in &preset {
            self.prefix.conditions[c as usize].consumers.push(e);
        }
        for &c in &context {
            self.prefix.conditions[c as usize].readers.push(e);
        }
        self.prefix.events.push(Event {
            transition: t,
            preset,
            context,
            postset: Vec::new(),
            histories: Vec::new(),
            cutoff: true,
        });
        self.event_mark.push(0);
        e
    }

    /// A history leaves the queue: its event gets its postset, and the history is a cutoff or
    /// is extended.
    fn add(&mut self, h: u32) -> Result<(), NotSafe> {
        let rank = self.ranks;
        self.ranks += 1;
        let hist = &mut self.prefix.histories[h as usize];
        hist.rank = rank;
        let e = hist.event;
        let t = self.prefix.events[e as usize].transition as usize;
        if self.prefix.events[e as usize].postset.is_empty() {
            let post: Vec<u32> = (0..self.trs[t].post.len())
                .map(|i| self.new_condition(self.trs[t].post[i], e))
                .collect();
            self.prefix.events[e as usize].postset = post;
        }
        let marking = &self.prefix.histories[h as usize].marking;
        let seen = self.table.get(marking).copied();
        // A total order makes every history that left the queue earlier smaller; McMillan's
        // needs a strictly smaller one (histories leave in order of size, so the first kept
        // with the marking is the smallest).
        let cutoff = seen.filter(|&first| {
            self.order.is_total()
                || self.prefix.histories[first as usize].size()
                    < self.prefix.histories[h as usize].size()
        });
        if let Some(first) = cutoff {
            // Its postset gets no enriched conditions: the safety check needs none (see the
            // module documentation).
            self.prefix.histories[h as usize].state = HistoryState::Cutoff(first);
            return Ok(());
        }
        if seen.is_none() {
            let marking = self.prefix.histories[h as usize].marking.clone();
            self.table.insert(marking, h);
        }
        self.prefix.histories[h as usize].state = HistoryState::Kept;
        self.prefix.events[e as usize].cutoff = false;
        self.enrich(h);
        Ok(())
    }

    /// Gives the enriched conditions of a kept history (⊥ included) and the possible
    /// extensions they make.
    fn enrich(&mut self, h: u32) {
        let e = self.prefix.histories[h as usize].event;
        let (post, context): (Vec<u32>, Vec<u32>) = if e == NONE {
            ((0..self.prefix.initial).collect(), Vec::new())
        } else {
            let ev = &self.prefix.events[e as usize];
            (ev.postset.clone(), ev.context.clone())
        };
        // The live and the inert enriched conditions made for `h` so far.
        let mut made = Vec::new();
        let mut made_inert = Vec::new();
        // The candidates of `h` stay the same while its generating enriched conditions are
        // made (extensions add histories, not enriched conditions); reading ones make compound
        // ones, so each reading one asks again.
        let (candidates, inert) = if h == 0 {
            (Vec::new(), Vec::new())
        } else {
            self.candidates(h)
        };
        for c in post {
            // Conditions of places no transition uses get inert enriched conditions: they take
            // part in no extension, but two tokens there make the net unsafe all the same.
            let p = self.prefix.conditions[c as usize].place as usize;
            let used = !self.consumers[p].is_empty() || !self.readers[p].is_empty();
            let r = self.new_enriched(c, Enrichment::Generating(h), used);
            if used {
                self.co_add(r, &made, &candidates, &made_inert, &inert);
                made.push(r);
                self.check_safe(r);
                self.extend_generating(r);
            } else {
                for &rp in made.iter().chain(&candidates) {
                    link(&mut self.ecs[rp as usize].inert, r);
                }
                self.check_safe_inert(r, [&made, &candidates, &made_inert, &inert]);
                made_inert.push(r);
            }
        }
        for c in context {
            let p = self.prefix.conditions[c as usize].place as usize;
            if self.consumers[p].is_empty() {
                continue;
            }
            let r = self.new_enriched(c, Enrichment::Reading(h), true);
            let (candidates, inert) = self.candidates(h);
            self.co_add(r, &made, &candidates, &made_inert, &inert);
            made.push(r);
            self.extend_consuming(r);
            self.combine(r);
        }
    }

    /// The first (smallest) enriched condition in `lists` (each sorted) of the place of
    /// condition `cond` but another condition: a second token on that place.
    fn first_same_place(&self, cond: u32, lists: &[&[u32]]) -> Option<u32> {
        let place = self.prefix.conditions[cond as usize].place;
        lists
            .iter()
            .filter_map(|list| {
                list.iter().copied().find(|&x| {
                    let c = self.ecs[x as usize].cond;
                    c != cond && self.prefix.conditions[c as usize].place == place
                })
            })
            .min()
    }

    /// Records that the net is not safe when the new live generating enriched condition `r`
    /// is concurrent with a condition of the same place.
    fn check_safe(&mut self, r: u32) {
        if self.unsafe_found.is_some() {
            return;
        }
        let ec = &self.ecs[r as usize];
        if let Some(x) = self.first_same_place(ec.cond, &[&ec.co, &ec.inert]) {
            self.report_unsafe(r, x);
        }
    }

    /// [`Self::check_safe`] for a new inert generating enriched condition `r`, which keeps no
    /// concurrency lists: those concurrent with it are `lists` (the live and inert ones made
    /// for its history before it and the history's live and inert candidates).
    fn check_safe_inert(&mut self, r: u32, lists: [&[u32]; 4]) {
        if self.unsafe_found.is_some() {
            return;
        }
        if let Some(x) = self.first_same_place(self.ecs[r as usize].cond, &lists) {
            self.report_unsafe(r, x);
        }
    }

    /// Records the run that puts two tokens on the place of the generating enriched condition
    /// `r` and of `x`, concurrent with it.
    fn report_unsafe(&mut self, r: u32, x: u32) {
        let place = self.prefix.conditions[self.ecs[r as usize].cond as usize].place;
        let mut hs = vec![self.ecs[r as usize].history().expect("generating")];
        for_each_part(&self.ecs, x, |h| hs.push(h));
        self.unsafe_found = Some(self.not_safe(place, &hs));
    }

    fn new_enriched(&mut self, cond: u32, kind: Enrichment, live: bool) -> u32 {
        let r = self.ecs.len() as u32;
        self.ecs.push(Enriched {
            cond,
            kind,
            live,
            co: Vec::new(),
            inert: Vec::new(),
        });
        self.prefix.conditions[cond as usize].enriched.push(r);
        r
    }

    /// The concurrency lists of a new live generating or reading enriched condition `r` of a
    /// history `h`: itself, the live ones `made` for `h` before it and the live `candidates`
    /// of `h` ([`Self::candidates`]); the inert ones made for `h` and its inert candidates.
    fn co_add(
        &mut self,
        r: u32,
        made: &[u32],
        candidates: &[u32],
        made_inert: &[u32],
        inert: &[u32],
    ) {
        // `r` is the newest, so it goes last.
        let mut co = merge_sorted(made, candidates);
        for &rp in &co {
            link(&mut self.ecs[rp as usize].co, r);
        }
        co.push(r);
        self.ecs[r as usize].co = co;
        self.ecs[r as usize].inert = merge_sorted(made_inert, inert);
    }

    /// Marks what the candidates of history `h` must avoid: the conditions its event
    /// consumes, and the readers of them outside `h`. Returns the mark.
    fn mark_filter(&mut self, h: u32) -> u32 {
        let m = self.next_epoch();
        let hist = &self.prefix.histories[h as usize];
        let ev = &self.prefix.events[hist.event as usize];
        for &c in &ev.preset {
            self.cond_mark[c as usize] = m;
            for &x in &self.prefix.conditions[c as usize].readers {
                self.event_mark[x as usize] = m;
            }
        }
        for &x in &hist.readers_of_preset {
            self.event_mark[x as usize] = 0;
        }
        m
    }

    /// Whether the enriched condition `rp` passes the filter marked `m` by
    /// [`Self::mark_filter`].
    fn kept(&self, rp: u32, m: u32) -> bool {
        if self.cond_mark[self.ecs[rp as usize].cond as usize] == m {
            return false;
        }
        let mut ok = true;
        for_each_part(&self.ecs, rp, |hp| {
            ok = ok
                && !self.prefix.histories[hp as usize]
                    .readers_of_cut
                    .iter()
                    .any(|&x| self.event_mark[x as usize] == m);
        });
        ok
    }

    /// The intersection of the live (or, with `inert`, the inert) concurrency lists of the
    /// enriched conditions history `h` was built from, from the shortest list.
    fn intersection(&self, h: u32, inert: bool) -> Vec<u32> {
        let mut lists: Vec<&[u32]> = self.prefix.histories[h as usize]
            .built_from
            .iter()
            .map(|&r| {
                let ec = &self.ecs[r as usize];
                if inert { &ec.inert } else { &ec.co }.as_slice()
            })
            .collect();
        lists.sort_by_key(|l| l.len());
        let Some((shortest, rest)) = lists.split_first() else {
            return Vec::new();
        };
        let mut out = shortest.to_vec();
        for list in rest {
            if out.is_empty() {
                break;
            }
            intersect_sorted(&mut out, list);
        }
        out
    }

    /// The enriched conditions (made so far) concurrent with the conditions a history `h`
    /// produces or reads, other than `h`'s own, live ones and inert ones apart: those
    /// concurrent with every enriched condition `h` was built from, whose condition `h`'s
    /// event does not consume, and none of whose histories holds a reader of a condition of
    /// its cut that `h`'s event consumes while the reader is not in `h` (it would have to
    /// precede the event, enlarging `h`).
    fn candidates(&mut self, h: u32) -> (Vec<u32>, Vec<u32>) {
        // The intersection first; the filters after, on what is left.
        let mut live = self.intersection(h, false);
        let mut inert = self.intersection(h, true);
        let m = self.mark_filter(h);
        live.retain(|&rp| self.kept(rp, m));
        inert.retain(|&rp| self.kept(rp, m));
        (live, inert)
    }

    /// Compound enriched conditions of the new reading one `r` with every earlier reading or
    /// compound one of the same condition concurrent with it (unless one of the latter's
    /// readers is already in `r`'s history: another compound one stands for that set).
    fn combine(&mut self, r: u32) {
        let cond = self.ecs[r as usize].cond;
        let h = self.ecs[r as usize].history().expect("reading");
        let others: Vec<u32> = self.ecs[r as usize].co.clone();
        for rp in others {
            let other = &self.ecs[rp as usize];
            if other.cond != cond || other.generating() || rp == r || !other.live {
                continue;
            }
            let hist = &self.prefix.histories[h as usize];
            let mut included = false;
            for_each_part(&self.ecs, rp, |x| included |= hist.contains(x));
            if included {
                continue;
            }
            let comp = self.new_enriched(cond, Enrichment::Compound { first: r, rest: rp }, true);
            // Concurrent with what both parts are concurrent with, but for the other reading
            // and compound enriched conditions of the same condition (never used together).
            let mut co = self.ecs[r as usize].co.clone();
            intersect_sorted(&mut co, &self.ecs[rp as usize].co);
            co.retain(|&x| {
                let y = &self.ecs[x as usize];
                y.cond != cond || y.generating()
            });
            for &x in &co {
                link(&mut self.ecs[x as usize].co, comp);
            }
            co.push(comp);
            let mut inert = self.ecs[r as usize].inert.clone();
            intersect_sorted(&mut inert, &self.ecs[rp as usize].inert);
            self.ecs[comp as usize].co = co;
            self.ecs[comp as usize].inert = inert;
            self.extend_consuming(comp);
        }
    }

    /// Possible extensions made by a new generating enriched condition: every transition
    /// consuming or reading its place.
    fn extend_generating(&mut self, r: u32) {
        let p = self.prefix.conditions[self.ecs[r as usize].cond as usize].place as usize;
        for i in 0..self.consumers[p].len() {
            let t = self.consumers[p][i];
            self.comb(r, t, true);
        }
        for i in 0..self.readers[p].len() {
            let t = self.readers[p][i];
            self.comb(r, t, false);
        }
    }

    /// Possible extensions made by a new reading or compound enriched condition: every
    /// transition consuming its place (its readers then precede the consumer).
    fn extend_consuming(&mut self, r: u32) {
        let p = self.prefix.conditions[self.ecs[r as usize].cond as usize].place as usize;
        for i in 0..self.consumers[p].len() {
            let t = self.consumers[p][i];
            self.comb(r, t, true);
        }
    }

    /// Every choice of pairwise concurrent enriched conditions, one per place of `t` other
    /// than `r`'s, concurrent with `r` (generating ones for the places `t` reads), gives a
    /// history of an event of `t`.
    fn comb(&mut self, r: u32, t: TransIdx, consumed: bool) {
        let p = self.prefix.conditions[self.ecs[r as usize].cond as usize].place;
        // The slots live in a buffer kept between calls: combs are many and small.
        let mut slots = std::mem::take(&mut self.slots);
        let tr = &self.trs[t as usize];
        let places = tr
            .pre
            .iter()
            .map(|&q| (q, true))
            .chain(tr.context.iter().map(|&q| (q, false)))
            .filter(|&(q, _)| q != p);
        let mut n = 0;
        for (place, consumed) in places {
            if n == slots.len() {
                slots.push(Slot {
                    place,
                    consumed,
                    candidates: Vec::new(),
                    chosen: 0,
                });
            }
            let s = &mut slots[n];
            s.place = place;
            s.consumed = consumed;
            s.candidates.clear();
            s.chosen = 0;
            self.place_slot[place as usize] = n as u32;
            n += 1;
        }
        for &rp in &self.ecs[r as usize].co {
            let x = &self.ecs[rp as usize];
            let q = self.prefix.conditions[x.cond as usize].place;
            let i = self.place_slot[q as usize] as usize;
            if i < n && slots[i].place == q {
                let s = &mut slots[i];
                if x.live && (s.consumed || x.generating()) {
                    s.candidates.push(rp);
                }
            }
        }
        for s in &slots[..n] {
            self.place_slot[s.place as usize] = u32::MAX;
        }
        if !slots[..n].iter().any(|s| s.candidates.is_empty()) {
            slots[..n].sort_by_key(|s| s.candidates.len());
            self.choose(r, t, consumed, &mut slots[..n]);
        }
        self.slots = slots;
    }

    /// Depth-first over the slots, each choice concurrent with the earlier ones; every full
    /// choice is a solution.
    fn choose(&mut self, r: u32, t: TransIdx, consumed: bool, slots: &mut [Slot]) {
        let n = slots.len();
        let mut level = 0;
        loop {
            if level == n {
                self.solution(r, t, consumed, slots);
                if n == 0 {
                    return;
                }
                level -= 1;
                slots[level].chosen += 1;
                continue;
            }
            let s = &slots[level];
            if s.chosen == s.candidates.len() {
                slots[level].chosen = 0;
                if level == 0 {
                    return;
                }
                level -= 1;
                slots[level].chosen += 1;
                continue;
            }
            let x = s.candidates[s.chosen];
            let fits = slots[..level]
                .iter()
                .all(|o| self.concurrent(x, o.candidates[o.chosen]));
            if fits {
                level += 1;
            } else {
                slots[level].chosen += 1;
            }
        }
    }

    fn concurrent(&self, a: u32, b: u32) -> bool {
        let (ca, cb) = (&self.ecs[a as usize].co, &self.ecs[b as usize].co);
        if ca.len() <= cb.len() {
            sorted_contains(ca, b)
        } else {
            sorted_contains(cb, a)
        }
    }

    /// A comb's solution: the event of `t` on the chosen conditions (an existing one, or a
    /// new one), and its history.
    fn solution(&mut self, r: u32, t: TransIdx, consumed: bool, slots: &[Slot]) {
        let tr = &self.trs[t as usize];
        let mut preset = Vec::with_capacity(tr.pre.len());
        let mut context = Vec::with_capacity(tr.context.len());
        let mut built_from = Vec::with_capacity(slots.len() + 1);
        built_from.push(r);
        let rc = self.ecs[r as usize].cond;
        if consumed {
            preset.push(rc);
        } else {
            context.push(rc);
        }
        for s in slots {
            let x = s.candidates[s.chosen];
            built_from.push(x);
            let c = self.ecs[x as usize].cond;
            if s.consumed {
                preset.push(c);
            } else {
                context.push(c);
            }
        }
        preset.sort_unstable();
        context.sort_unstable();
        // The event, when one of `t` already has these conditions: it consumes or reads the
        // trigger's condition, whose lists are short.
        let cond = &self.prefix.conditions[rc as usize];
        let users = if consumed {
            &cond.consumers
        } else {
            &cond.readers
        };
        let existing = users.iter().copied().find(|&x| {
            let ev = &self.prefix.events[x as usize];
            ev.transition == t && ev.preset == preset && ev.context == context
        });
        let e = match existing {
            Some(e) => e,
            None => self.new_event(t, preset, context),
        };
        let mut parts = Vec::with_capacity(built_from.len());
        for &x in &built_from {
            for_each_part(&self.ecs, x, |h| parts.push(h));
        }
        parts.sort_unstable();
        parts.dedup();
        self.new_history(e, parts, built_from);
    }

    /// Builds the history of `e` made of `parts`, drops it when `e` has it already, and
    /// queues it otherwise.
    fn new_history(&mut self, e: u32, parts: Vec<u32>, built_from: Vec<u32>) {
        let id = self.prefix.histories.len() as u32;
        let hs = &self.prefix.histories;
        // The union of the parts' sorted closures, merged (they share most of their past) in
        // two buffers kept between histories, then copied to a list of the exact size: the
        // closures are most of the prefix's memory.
        let (mut union, mut next) = std::mem::take(&mut self.merge_buffers);
        union.clear();
        for &h in &parts {
            merge_into(&union, &hs[h as usize].closure, &mut next);
            std::mem::swap(&mut union, &mut next);
        }
        let mut closure: Vec<u32> = Vec::with_capacity(union.len() + 1);
        closure.extend_from_slice(&union);
        closure.push(id);
        self.merge_buffers = (union, next);
        let depth = 1 + parts
            .iter()
            .map(|&h| hs[h as usize].depth)
            .max()
            .unwrap_or(0);
        // Its events, marked, and their transitions counted: the Parikh vector sorts the
        // distinct transitions only (far fewer than the events).
        let m = self.next_epoch();
        let mut events: Vec<u32> = Vec::with_capacity(closure.len());
        let mut distinct: Vec<u32> = Vec::new();
        for &h in &closure[..closure.len() - 1] {
            let x = self.prefix.histories[h as usize].event;
            if x != NONE {
                events.push(x);
            }
        }
        events.push(e);
        for &x in &events {
            self.event_mark[x as usize] = m;
            let t = self.prefix.events[x as usize].transition;
            let n = &mut self.occurrences[t as usize];
            if *n == 0 {
                distinct.push(t);
            }
            *n += 1;
        }
        distinct.sort_unstable();
        let parikh: Vec<(u32, u32)> = distinct
            .iter()
            .map(|&t| (t, std::mem::take(&mut self.occurrences[t as usize])))
            .collect();
        // The marking: the initial one, plus what the events produce, less what they consume;
        // the places touched listed once each.
        let mut touched: Vec<PlaceIdx> = Vec::with_capacity(self.initial.len() + 2 * parikh.len());
        let touch = |touched: &mut Vec<PlaceIdx>, place_mark: &mut [u32], p: PlaceIdx| {
            if place_mark[p as usize] != m {
                place_mark[p as usize] = m;
                touched.push(p);
            }
        };
        for &p in &self.initial {
            self.tokens[p as usize] += 1;
            touch(&mut touched, &mut self.place_mark, p);
        }
        for &(t, n) in &parikh {
            let tr = &self.trs[t as usize];
            for &p in &tr.post {
                self.tokens[p as usize] += n as i32;
                touch(&mut touched, &mut self.place_mark, p);
            }
            for &p in &tr.pre {
                self.tokens[p as usize] -= n as i32;
                touch(&mut touched, &mut self.place_mark, p);
            }
        }
        touched.sort_unstable();
        let overfull = touched
            .iter()
            .copied()
            .find(|&p| self.tokens[p as usize] > 1);
        let marking: Vec<PlaceIdx> = touched
            .iter()
            .copied()
            .filter(|&p| self.tokens[p as usize] > 0)
            .collect();
        for &p in &touched {
            self.tokens[p as usize] = 0;
        }
        // Readers of the cut (whose place some transition consumes), and readers of what the
        // event consumes.
        let conds = &self.prefix.conditions;
        let mut readers_of_cut = Vec::new();
        for &x in &events {
            let reads_cut = self.prefix.events[x as usize].context.iter().any(|&c| {
                let cond = &conds[c as usize];
                !self.consumers[cond.place as usize].is_empty()
                    && !cond
                        .consumers
                        .iter()
                        .any(|&y| self.event_mark[y as usize] == m)
            });
            if reads_cut {
                readers_of_cut.push(x);
            }
        }
        let mut readers_of_preset = Vec::new();
        for &c in &self.prefix.events[e as usize].preset {
            for &x in &conds[c as usize].readers {
                if self.event_mark[x as usize] == m && x != e {
                    readers_of_preset.push(x);
                }
            }
        }
        readers_of_preset.sort_unstable();
        readers_of_preset.dedup();
        // A history of `e` with the same events already found: the same enriched event.
        for &other in &self.prefix.events[e as usize].histories {
            let o = &self.prefix.histories[other as usize];
            if o.marking == marking
                && o.closure.len() == closure.len()
                && same_past(&o.closure, other, &closure, id)
            {
                self.duplicates += 1;
                return;
            }
        }
        self.prefix.events[e as usize].histories.push(id);
        self.prefix.histories.push(History {
            event: e,
            parts,
            closure,
            depth,
            marking,
            parikh,
            readers_of_cut,
            readers_of_preset,
            built_from,
            state: HistoryState::Queued,
            rank: NONE,
        });
        let t = self.prefix.events[e as usize].transition as usize;
        // A transition that only reads stays enabled once it fired: its second firing puts a
        // second token on its postset (the occurrence net has one event for both).
        let again = self.trs[t].pre.is_empty() && !self.trs[t].post.is_empty();
        if self.unsafe_found.is_none() && (overfull.is_some() || self.trs[t].multi_out || again) {
            let place = overfull.unwrap_or_else(|| {
                let arc = self.net.transitions[t].post.iter().find(|a| a.weight > 1);
                arc.map_or(self.trs[t].post[0], |a| a.place)
            });
            let mut err = self.not_safe(place, &[id]);
            if again && overfull.is_none() && !self.trs[t].multi_out {
                err.run.push(self.net.transitions[t].label.to_string());
            }
            self.unsafe_found = Some(err);
        }
        self.push(id);
    }

    fn push(&mut self, id: u32) {
        let Builder {
            heap,
            prefix,
            order,
            ..
        } = self;
        heap.push(id, &mut |a, b| cmp_histories(prefix, *order, a, b));
    }

    fn pop(&mut self) -> Option<u32> {
        let Builder {
            heap,
            prefix,
            order,
            ..
        } = self;
        heap.pop(&mut |a, b| cmp_histories(prefix, *order, a, b))
    }
}

/// The union of two sorted lists without repeats, sorted.
fn merge_sorted(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 4);
    merge_into(a, b, &mut out);
    out
}

/// [`merge_sorted`] into `out` (cleared first).
fn merge_into(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    out.clear();
    out.reserve(a.len().max(b.len()));
    if a.is_empty() {
        out.extend_from_slice(b);
        return;
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

/// Adds `r`, the newest enriched condition, to the sorted concurrency list `co`.
fn link(co: &mut Vec<u32>, r: u32) {
    if co.last() != Some(&r) {
        co.push(r);
    }
}

/// Whether two closures are equal once their own histories are left out.
fn same_past(a: &[u32], a_self: u32, b: &[u32], b_self: u32) -> bool {
    let mut x = a.iter().filter(|&&h| h != a_self);
    let mut y = b.iter().filter(|&&h| h != b_self);
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(p), Some(q)) if p == q => {}
            _ => return false,
        }
    }
}

/// The adequate order on histories. Cunf's ([`Order::Mole`]): size, Parikh vector, then Foata
/// levels by depth in the graph of histories, each compared by [`cmp_level`]; textbook ERV
/// ([`Order::Erv`]): the same with each level compared by its Parikh vector; McMillan's
/// ([`Order::Size`]): size alone (not total: equal sizes compare equal).
fn cmp_histories(prefix: &ContextualPrefix, order: Order, a: u32, b: u32) -> Ordering {
    let (ha, hb) = (&prefix.histories[a as usize], &prefix.histories[b as usize]);
    let by_size = ha.size().cmp(&hb.size());
    if order == Order::Size {
        return by_size;
    }
    by_size
        .then_with(|| cmp_parikh(&ha.parikh, &hb.parikh))
        .then_with(|| cmp_foata(prefix, order == Order::Mole, ha, hb))
}

/// Compares the Foata levels of two histories of equal size and Parikh vector: the histories
/// only one of them holds, level by level (with the shared ones of the level counted for both),
/// while both still hold histories of their own; each level by [`cmp_level`] when `mole`, by
/// its Parikh vector otherwise.
fn cmp_foata(prefix: &ContextualPrefix, mole: bool, ha: &History, hb: &History) -> Ordering {
    let hs = &prefix.histories;
    let (a, b) = (&ha.closure, &hb.closure);
    // (depth, transition, side) with side 0 = only in a, 1 = only in b, 2 = both.
    let mut items: Vec<(u32, u32, u8)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    let key = |h: u32| {
        let x = &hs[h as usize];
        let t = if x.event == NONE {
            u32::MAX
        } else {
            prefix.events[x.event as usize].transition
        };
        (x.depth, t)
    };
    while i < a.len() || j < b.len() {
        let (h, side) = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                i += 1;
                j += 1;
                (x, 2)
            }
            (Some(&x), Some(&y)) if x < y => {
                i += 1;
                (x, 0)
            }
            (Some(&x), None) => {
                i += 1;
                (x, 0)
            }
            (_, Some(&y)) => {
                j += 1;
                (y, 1)
            }
            (None, None) => unreachable!(),
        };
        let (d, t) = key(h);
        if d > 0 {
            items.push((d, t, side));
        }
    }
    items.sort_unstable();
    let (mut left_a, mut left_b) = (
        items.iter().filter(|x| x.2 == 0).count(),
        items.iter().filter(|x| x.2 == 1).count(),
    );
    let mut k = 0;
    let mut level: Vec<(u32, u32, u32)> = Vec::new();
    while left_a > 0 && left_b > 0 && k < items.len() {
        let d = items[k].0;
        level.clear();
        while k < items.len() && items[k].0 == d {
            let (_, t, side) = items[k];
            if level.last().map(|l| l.0) != Some(t) {
                level.push((t, 0, 0));
            }
            let l = level.last_mut().expect("pushed");
            match side {
                0 => {
                    l.1 += 1;
                    left_a -= 1;
                }
                1 => {
                    l.2 += 1;
                    left_b -= 1;
                }
                _ => {
                    l.1 += 1;
                    l.2 += 1;
                }
            }
            k += 1;
        }
        let c = if mole {
            cmp_level(&level)
        } else {
            cmp_level_parikh(&level)
        };
        if c != Ordering::Equal {
            return c;
        }
    }
    left_a.cmp(&left_b)
}

impl Builder<'_> {
    /// Enriched conditions made, by kind (the inert ones, of places no transition uses, left
    /// out: Cunf makes none).
    pub(super) fn enriched_counts(&self) -> super::EnrichedCounts {
        let mut n = super::EnrichedCounts::default();
        for r in self.ecs.iter().filter(|r| r.live) {
            match r.kind {
                Enrichment::Generating(_) => n.generating += 1,
                Enrichment::Reading(_) => n.reading += 1,
                Enrichment::Compound { .. } => n.compound += 1,
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_closures_are_sorted_without_repeats() {
        assert_eq!(merge_sorted(&[], &[1, 4]), vec![1, 4]);
        assert_eq!(
            merge_sorted(&[0, 2, 5, 9], &[0, 3, 5, 10]),
            vec![0, 2, 3, 5, 9, 10]
        );
        assert_eq!(merge_sorted(&[1, 2], &[]), vec![1, 2]);
    }

    #[test]
    fn same_past_ignores_the_own_histories() {
        assert!(same_past(&[0, 3, 7], 7, &[0, 3, 9], 9));
        assert!(!same_past(&[0, 3, 7], 7, &[0, 4, 9], 9));
    }
}
