//! The stateless unfolding-based DPOR (Rodríguez, Sousa, Sharma, Kroening, CONCUR 2015,
//! Alg. 1): an optimal exploration of the maximal configurations of the unfolding of any
//! [`System`].
//!
//! ```text
//! Explore(C, D, A):
//!   Extend(C)
//!   if en(C) = ∅: C is maximal; return
//!   e := an event of en(C) ∩ A if A ≠ ∅, else an event of en(C) \ D
//!   Explore(C ∪ {e}, D, A \ {e})
//!   if some J ∈ Alt(C, D ∪ {e}): Explore(C, D ∪ {e}, J \ C)
//! ```
//!
//! The recursion runs on an explicit stack of frames, so configurations thousands of events
//! deep do not overflow the call stack. `Extend` is incremental: when `e` joins `C`, the only
//! new extensions are the events whose history contains `e`; they are enumerated from the
//! slot chains of `C` (see [`crate::unfolding::event`]). `en(C)` is kept per depth.
//!
//! Alternatives are computed exactly by default, the "comb" way: every event of `D` that no
//! event of `C` conflicts with (an *unjustified* one) needs an event of `U` in immediate
//! conflict with it (its *spike*), the picks pairwise conflict-free and conflict-free with
//! `C`; `J` is the union of their local configurations. `alt_k` restricts the comb to the last
//! `k` unjustified events (k-partial alternatives, QPOR, CAV 2018): polynomial, complete, but
//! some runs may end blocked, and those are counted.
//!
//! Cutoffs (optional): an event whose state an earlier event reached with a smaller local
//! configuration (McMillan's size order or the total ERV order) is recorded but never enters
//! `U`: never extended, picked, or part of an alternative.
//!
//! Every event ever built stays in the event store, so `U` only grows and `Remove` is the
//! identity here: keeping more than `Q(C, D, U)` keeps the exploration complete and optimal,
//! at the price of memory. The memory-bounded garbage set (moving what `Q` does not need out of
//! `U`, evicting it least recently used first) is not built yet.
//!
//! Known cost: the enumeration of new extensions tries every consistent choice of positions on
//! the slot chains of `C` and checks enabledness only at the end, which is exponential in the
//! number of slots of a transition on some nets; the limits are checked inside it.

use rustc_hash::{FxHashMap, FxHashSet};

use super::limits::{Limits, StopReason};
use crate::system::{Overflow, System, Transition};
use crate::unfolding::event::{BOTTOM, ConeEntry, EventId, EventStore};
use crate::unfolding::order::{ConfigKey, Order};
use crate::unfolding::slots::Slot;

/// How `Explore` picks the next event among the candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The first candidate (in discovery order).
    First,
    /// The last candidate.
    Last,
    /// A pseudo-random candidate, from a seed.
    Random(u64),
}

/// Options of the exploration.
#[derive(Clone, Debug)]
pub struct UdporOptions {
    /// Configurations are not extended past this many events (`complete` is then false).
    pub max_depth: usize,
    /// k-partial alternatives; `None` for exact ones.
    pub alt_k: Option<usize>,
    /// Event selection.
    pub pick: Pick,
    /// Cutoff events, decided with this adequate order; `None`: no cutoffs.
    pub cutoffs: Option<Order>,
    /// Collect the state of every visited configuration (for coverage checks).
    pub record_states: bool,
}

impl Default for UdporOptions {
    fn default() -> Self {
        UdporOptions {
            max_depth: 10_000,
            alt_k: None,
            pick: Pick::First,
            cutoffs: None,
            record_states: false,
        }
    }
}

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
    /// Configurations cut by `max_depth`.
    pub depth_cut: u64,
    /// The largest number of events held in `U`.
    pub peak_u: u64,
    /// The deepest configuration explored.
    pub max_configuration_size: u64,
    /// Alternatives searched for, and found.
    pub alternatives_searched: u64,
    /// Alternatives found.
    pub alternatives_found: u64,
    /// Bytes held by the event store at the end.
    pub store_bytes: u64,
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
}

impl UdporStats {
    /// Whether every maximal configuration was explored.
    pub fn complete(&self) -> bool {
        self.stopped.is_none() && self.depth_cut == 0
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Start,
    AfterFirst,
    AfterSecond,
}

struct Frame {
    /// The events still to add, from an alternative (`A`).
    a: Vec<EventId>,
    stage: Stage,
    e: EventId,
}

struct Explorer<'s, S: System + ?Sized> {
    sys: &'s S,
    opts: UdporOptions,
    store: EventStore,
    /// Transitions sharing a slot with each transition (itself included).
    dependents: Vec<Vec<Transition>>,
    /// The configuration `C`, in the order its events were added.
    c: Vec<EventId>,
    in_c: Vec<bool>,
    /// The cone of `C`: the last event on every slot.
    top: Vec<ConeEntry>,
    undo: Vec<(Slot, ConeEntry)>,
    undo_marks: Vec<usize>,
    /// `en(C')` for every prefix `C'` of `C` (index = size), cutoffs left out.
    en: Vec<Vec<EventId>>,
    /// The cutoff events that would extend each prefix.
    en_cutoffs: Vec<Vec<EventId>>,
    /// Which events are cutoffs (by id).
    cutoff: Vec<bool>,
    /// The least local configuration (in the adequate order) reaching each state seen.
    least: FxHashMap<Vec<u64>, (ConfigKey, EventId)>,
    /// For each cutoff, the event it was cut against (⊥ for the initial state).
    corresponding: FxHashMap<EventId, EventId>,
    /// Events of the first deadlocking configurations (for pictures).
    deadlock_events: FxHashSet<EventId>,
    /// `state(C')` for every prefix (flattened, `words` per level).
    states: Vec<u64>,
    words: usize,
    d: Vec<EventId>,
    in_d: Vec<bool>,
    rng: u64,
    /// The run's limits, also checked inside long extension enumerations.
    limits: Limits,
    /// Histories tried since the last limit check.
    tried: u64,
    /// Heap bytes of the states and keys of `least` (the map's own table not included).
    key_bytes: u64,
    /// `store.bytes()` at the last full memory check (cheaper than walking the store).
    store_bytes: u64,
    /// `key_bytes` at the last memory check.
    checked_key_bytes: u64,
    deadlock_states: FxHashSet<Vec<u64>>,
    stats: UdporStats,
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

/// Explores every maximal configuration of the unfolding of `sys`.
pub fn explore<S: System + ?Sized>(
    sys: &S,
    opts: &UdporOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(UdporProgress),
) -> Result<UdporStats, Overflow> {
    Ok(explore_with_events(sys, opts, limits, progress, false)?.stats)
}

/// Like [`explore`], and also returns the explored events when `with_events`.
pub fn explore_with_events<S: System + ?Sized>(
    sys: &S,
    opts: &UdporOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(UdporProgress),
    with_events: bool,
) -> Result<UdporOutcome, Overflow> {
    let mut x = Explorer::new(sys, opts.clone());
    x.limits = limits.clone();
    x.run(limits, progress)?;
    x.stats.events = x.store.len() as u64 - 1;
    x.stats.peak_u = x.stats.events;
    x.stats.store_bytes = x.store.bytes();
    if opts.record_states {
        x.stats.deadlock_states = Some(std::mem::take(&mut x.deadlock_states));
    }
    let (events, conflicts) = if with_events {
        x.explored_events()
    } else {
        (Vec::new(), Vec::new())
    };
    Ok(UdporOutcome {
        stats: x.stats,
        events,
        conflicts,
    })
}

impl<'s, S: System + ?Sized> Explorer<'s, S> {
    fn new(sys: &'s S, opts: UdporOptions) -> Self {
        let store = EventStore::new(sys);
        let n = sys.transition_count();
        let slots = store.slots();
        let mut members: FxHashMap<Slot, Vec<Transition>> = FxHashMap::default();
        for t in 0..n as Transition {
            for &s in slots.of(t) {
                members.entry(s).or_default().push(t);
            }
        }
        let dependents = (0..n as Transition)
            .map(|t| {
                let mut v: Vec<Transition> = slots
                    .of(t)
                    .iter()
                    .flat_map(|s| members[s].iter().copied())
                    .collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        let words = sys.state_words();
        let top = store.cone(BOTTOM).to_vec();
        let states = store.state(BOTTOM).to_vec();
        let rng = match opts.pick {
            Pick::Random(seed) => seed ^ 0x9E37_79B9_7F4A_7C15,
            _ => 0,
        };
        Explorer {
            sys,
            opts,
            store,
            dependents,
            c: Vec::new(),
            in_c: vec![false],
            top,
            undo: Vec::new(),
            undo_marks: Vec::new(),
            en: Vec::new(),
            en_cutoffs: Vec::new(),
            cutoff: vec![false],
            least: FxHashMap::default(),
            corresponding: FxHashMap::default(),
            deadlock_events: FxHashSet::default(),
            states,
            words,
            d: Vec::new(),
            in_d: vec![false],
            rng,
            limits: Limits::default(),
            tried: 0,
            key_bytes: 0,
            store_bytes: 0,
            checked_key_bytes: 0,
            deadlock_states: FxHashSet::default(),
            stats: UdporStats::default(),
        }
    }

    fn flag(v: &mut Vec<bool>, e: EventId) -> &mut bool {
        if v.len() <= e as usize {
            v.resize(e as usize + 1, false);
        }
        &mut v[e as usize]
    }

    fn is_in(v: &[bool], e: EventId) -> bool {
        v.get(e as usize).copied().unwrap_or(false)
    }

    /// `e ∈ en(C)` for an event whose history lies in `C`: on each of its slots, `C` ends
    /// where `e`'s history does.
    fn enabled_in_c(&self, e: EventId) -> bool {
        self.store
            .event_slots(e)
            .iter()
            .all(|&s| self.top[s as usize].event == self.store.parent_on(e, s))
    }

    /// `e # C` for an event of `D` or an extension of `C` (its history lies in `C`).
    fn justified(&self, d: EventId) -> bool {
        !self.enabled_in_c(d)
    }

    fn run(
        &mut self,
        limits: &Limits,
        progress: &mut dyn FnMut(UdporProgress),
    ) -> Result<(), Overflow> {
        if let Some(order) = self.opts.cutoffs {
            let key = ConfigKey::of(&self.store, BOTTOM, order);
            self.least
                .insert(self.store.state(BOTTOM).to_vec(), (key, BOTTOM));
        }
        if self.opts.record_states {
            self.stats.visited_states = Some(FxHashSet::default());
        }
        // en(∅): the events <t, {⊥}>.
        let mut initial = Vec::new();
        let mut scratch = vec![0u64; self.words];
        for t in 0..self.sys.transition_count() as Transition {
            // A wide net has many initial events, each as large as its number of slots.
            if t % 64 == 63 {
                if t % 4096 == 4095 {
                    self.store_bytes = self.store.bytes();
                }
                if let Err(r) = limits
                    .check_time()
                    .and_then(|_| limits.check_memory(self.accounted_bytes()))
                {
                    self.stats.stopped = Some(r);
                    return Ok(());
                }
            }
            if self.sys.is_enabled(self.store.state(BOTTOM), t) {
                self.sys.fire(self.store.state(BOTTOM), t, &mut scratch)?;
                let xs = vec![
                    ConeEntry {
                        event: BOTTOM,
                        depth: 0
                    };
                    self.store.slots().of(t).len()
                ];
                let e = match self.store.find(t, &[BOTTOM]) {
                    Some(e) => e,
                    None => {
                        let e = self.store.insert(t, &[BOTTOM], &xs, 0, &scratch);
                        self.classify(e);
                        e
                    }
                };
                initial.push(e);
            }
        }
        let (cut, en): (Vec<EventId>, Vec<EventId>) =
            initial.into_iter().partition(|&e| self.cutoff[e as usize]);
        self.en.push(en);
        self.en_cutoffs.push(cut);

        let mut frames = vec![Frame {
            a: Vec::new(),
            stage: Stage::Start,
            e: BOTTOM,
        }];
        let mut steps: u64 = 0;
        while let Some(frame) = frames.last_mut() {
            steps += 1;
            // A step may build many events with long keys: the cheap check runs every step,
            // the walk over the store every 1024.
            if steps.is_multiple_of(1024) {
                progress(UdporProgress {
                    maximal_configurations: self.stats.maximal_configurations,
                    events: self.store.len() as u64 - 1,
                    depth: self.c.len(),
                });
                self.store_bytes = self.store.bytes();
            }
            if let Err(r) = limits
                .check_time()
                .and_then(|_| limits.check_memory(self.accounted_bytes()))
            {
                self.stats.stopped = Some(r);
                return Ok(());
            }
            match frame.stage {
                Stage::Start => {
                    let level = self.c.len();
                    if let Some(states) = &mut self.stats.visited_states {
                        states.insert(
                            self.states[level * self.words..(level + 1) * self.words].to_vec(),
                        );
                    }
                    if self.en[level].is_empty() {
                        self.record_maximal();
                        frames.pop();
                        continue;
                    }
                    if level >= self.opts.max_depth {
                        self.stats.depth_cut += 1;
                        frames.pop();
                        continue;
                    }
                    let candidates: Vec<EventId> = if frame.a.is_empty() {
                        self.en[level]
                            .iter()
                            .copied()
                            .filter(|&e| !Self::is_in(&self.in_d, e))
                            .collect()
                    } else {
                        self.en[level]
                            .iter()
                            .copied()
                            .filter(|e| frame.a.contains(e))
                            .collect()
                    };
                    if candidates.is_empty() {
                        self.stats.blocked += 1;
                        frames.pop();
                        continue;
                    }
                    let e = self.pick(&candidates);
                    let rest: Vec<EventId> = frame.a.iter().copied().filter(|&x| x != e).collect();
                    frame.e = e;
                    frame.stage = Stage::AfterFirst;
                    self.push(e)?;
                    if self.stats.stopped.is_some() {
                        // A limit struck while extending: en(C ∪ {e}) is partial, stop here.
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
                    self.d.push(e);
                    *Self::flag(&mut self.in_d, e) = true;
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
                    let popped = self.d.pop();
                    debug_assert_eq!(popped, Some(e));
                    *Self::flag(&mut self.in_d, e) = false;
                    frames.pop();
                }
            }
        }
        Ok(())
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

    fn record_maximal(&mut self) {
        self.stats.maximal_configurations += 1;
        let level = self.c.len();
        if !self.en_cutoffs[level].is_empty() {
            self.stats.ended_by_cutoff += 1;
        }
        let state = &self.states[level * self.words..(level + 1) * self.words];
        if self.sys.is_deadlock(state) && self.deadlock_states.insert(state.to_vec()) {
            self.stats.deadlocks += 1;
            if self.deadlock_events.len() < 256 {
                self.deadlock_events.extend(self.c.iter().copied());
            }
            if self.stats.deadlock_witness.is_none() {
                self.stats.deadlock_witness =
                    Some(self.c.iter().map(|&e| self.store.label(e)).collect());
            }
        }
    }

    /// Adds `e ∈ en(C)` to `C` and computes `en(C ∪ {e})`.
    fn push(&mut self, e: EventId) -> Result<(), Overflow> {
        let level = self.c.len();
        // state(C ∪ {e})
        let mut next = vec![0u64; self.words];
        self.sys.fire(
            &self.states[level * self.words..(level + 1) * self.words],
            self.store.label(e),
            &mut next,
        )?;
        self.states.extend_from_slice(&next);
        self.c.push(e);
        *Self::flag(&mut self.in_c, e) = true;
        self.undo_marks.push(self.undo.len());
        for &s in self.store.event_slots(e) {
            self.undo.push((s, self.top[s as usize]));
            self.top[s as usize] = ConeEntry {
                event: e,
                depth: self.store.depth_on(e, s),
            };
        }
        self.stats.max_configuration_size =
            self.stats.max_configuration_size.max(self.c.len() as u64);
        let mut en: Vec<EventId> = self.en[level]
            .iter()
            .copied()
            .filter(|&x| x != e && self.enabled_in_c(x))
            .collect();
        let mut en_cutoffs: Vec<EventId> = self.en_cutoffs[level]
            .iter()
            .copied()
            .filter(|&x| self.enabled_in_c(x))
            .collect();
        let label = self.store.label(e);
        let dependents = std::mem::take(&mut self.dependents[label as usize]);
        let mut found = Vec::new();
        for &t in &dependents {
            self.extensions_through(t, e, &mut found)?;
        }
        self.dependents[label as usize] = dependents;
        for x in found {
            if !self.enabled_in_c(x) {
                continue;
            }
            let list = if self.cutoff[x as usize] {
                &mut en_cutoffs
            } else {
                &mut en
            };
            if !list.contains(&x) {
                list.push(x);
            }
        }
        self.en.push(en);
        self.en_cutoffs.push(en_cutoffs);
        Ok(())
    }

    /// Removes the last event of `C`.
    fn pop(&mut self) {
        let e = self.c.pop().expect("C is not empty");
        self.in_c[e as usize] = false;
        let mark = self.undo_marks.pop().expect("undo mark");
        while self.undo.len() > mark {
            let (s, old) = self.undo.pop().expect("undo entry");
            self.top[s as usize] = old;
        }
        self.en.pop();
        self.en_cutoffs.pop();
        let level = self.c.len();
        self.states.truncate((level + 1) * self.words);
    }

    /// Every event `<t, H>` with `e ∈ H ⊆ C` (where `e` is the last event added to `C`), found
    /// in or added to the store, pushed onto `out`.
    ///
    /// `H` is determined by its last event `x_s` on every slot `s` of `t`: `x_s = e` on the
    /// slots `t` shares with `e`; elsewhere `x_s` runs down the chain of `C` on `s`, not below
    /// `[e]`'s last event there. A tuple is a history iff no `[x_i]` reaches past `x_j` on slot
    /// `j` — inside `C` every slot is a chain, so that is a comparison of depths.
    fn extensions_through(
        &mut self,
        t: Transition,
        e: EventId,
        out: &mut Vec<EventId>,
    ) -> Result<(), Overflow> {
        let slots: Vec<Slot> = self.store.slots().of(t).to_vec();
        let e_slots = self.store.event_slots(e);
        let e_cone = self.store.cone(e);
        let mut xs: Vec<ConeEntry> = Vec::with_capacity(slots.len());
        let mut free: Vec<usize> = Vec::new();
        let mut floor: Vec<u32> = Vec::with_capacity(slots.len());
        for (i, &s) in slots.iter().enumerate() {
            floor.push(e_cone[s as usize].depth);
            if e_slots.binary_search(&s).is_ok() {
                xs.push(e_cone[s as usize]);
            } else {
                xs.push(self.top[s as usize]);
                free.push(i);
            }
        }
        self.enumerate(t, &slots, &free, 0, &mut xs, &floor, out)
    }

    #[allow(clippy::too_many_arguments)]
    fn enumerate(
        &mut self,
        t: Transition,
        slots: &[Slot],
        free: &[usize],
        f: usize,
        xs: &mut Vec<ConeEntry>,
        floor: &[u32],
        out: &mut Vec<EventId>,
    ) -> Result<(), Overflow> {
        if self.stats.stopped.is_some() {
            return Ok(());
        }
        if f == free.len() {
            // Consistency: the last event of [x_i] on slot j is at most x_j.
            for x in xs.iter() {
                let cone = self.store.cone(x.event);
                for (j, &s) in slots.iter().enumerate() {
                    if cone[s as usize].depth > xs[j].depth {
                        return Ok(());
                    }
                }
            }
            if let Some(ev) = self.make_event(t, xs)? {
                out.push(ev);
            }
            return Ok(());
        }
        let i = free[f];
        let s = slots[i];
        let mut cand = self.top[s as usize];
        loop {
            if cand.depth < floor[i] {
                break;
            }
            self.tried += 1;
            if self.tried.is_multiple_of(1 << 12)
                && let Err(r) = self.limits.check_time()
            {
                self.stats.stopped = Some(r);
                return Ok(());
            }
            xs[i] = cand;
            self.enumerate(t, slots, free, f + 1, xs, floor, out)?;
            if cand.depth == 0 {
                break;
            }
            cand = ConeEntry {
                event: self.store.parent_on(cand.event, s),
                depth: cand.depth - 1,
            };
        }
        Ok(())
    }

    /// The event `<t, ⋃[x_s]>` if `t` is enabled after that history (found or created).
    fn make_event(&mut self, t: Transition, xs: &[ConeEntry]) -> Result<Option<EventId>, Overflow> {
        let mut preds: Vec<EventId> = xs.iter().map(|x| x.event).collect();
        preds.sort_unstable();
        preds.dedup();
        if preds.len() > 1 {
            let all = preds.clone();
            preds.retain(|&p| !all.iter().any(|&q| q != p && self.store.leq(p, q)));
        }
        if let Some(ev) = self.store.find(t, &preds) {
            return Ok(Some(ev));
        }
        let mut h = vec![0u64; self.words];
        let size = self.store.history_state(self.sys, &preds, &mut h)?;
        if !self.sys.is_enabled(&h, t) {
            return Ok(None);
        }
        let mut after = vec![0u64; self.words];
        self.sys.fire(&h, t, &mut after)?;
        let e = self.store.insert(t, &preds, xs, size, &after);
        self.classify(e);
        // Events of wide systems are large (a cone entry per slot): look at the limits often.
        if e.is_multiple_of(64)
            && let Err(r) = self.limits.check_time()
        {
            self.stats.stopped = Some(r);
        }
        Ok(Some(e))
    }

    /// Decides whether the new event `e` is a cutoff: an event seen earlier reaches the same
    /// state with a smaller local configuration. Otherwise `e` may become the new reference
    /// for its state.
    /// The explorer's own accounting of its largest structures, in bytes.
    fn accounted_bytes(&self) -> u64 {
        let entry = std::mem::size_of::<(Vec<u64>, (ConfigKey, EventId))>() as u64 + 1;
        self.store_bytes + self.key_bytes + self.least.capacity() as u64 * entry
    }

    fn classify(&mut self, e: EventId) {
        if self.cutoff.len() <= e as usize {
            self.cutoff.resize(e as usize + 1, false);
        }
        let Some(order) = self.opts.cutoffs else {
            return;
        };
        let size = self.store.size(e);
        let state = self.store.state(e);
        let state_bytes = (state.len() * 8 + 16) as u64;
        let (old_key, new_key);
        let verdict = match self.least.get_mut(state) {
            None => {
                let key = ConfigKey::of(&self.store, e, order);
                (old_key, new_key) = (0, state_bytes + key.heap_bytes());
                // The table doubles on this insertion: see that the new one fits first.
                if self.least.len() == self.least.capacity() {
                    let entry = std::mem::size_of::<(Vec<u64>, (ConfigKey, EventId))>() as u64;
                    let growth = (self.least.capacity() as u64 + 1) * 2 * (entry + 1);
                    if let Err(r) = self
                        .limits
                        .check_memory(self.accounted_bytes() + growth + new_key)
                    {
                        self.stats.stopped = Some(r);
                    }
                }
                self.least.insert(state.to_vec(), (key, e));
                None
            }
            Some((best, id)) if best.size < size => {
                (old_key, new_key) = (0, 0);
                Some(*id)
            }
            Some((best, id)) if best.size > size || order == Order::Size => {
                if best.size > size {
                    let key = ConfigKey::of(&self.store, e, order);
                    (old_key, new_key) = (best.heap_bytes(), key.heap_bytes());
                    *best = key;
                    *id = e;
                } else {
                    (old_key, new_key) = (0, 0);
                }
                None
            }
            Some((best, id)) => {
                let key = ConfigKey::of(&self.store, e, order);
                match best.cmp_in(&key, order) {
                    std::cmp::Ordering::Less => {
                        (old_key, new_key) = (0, 0);
                        Some(*id)
                    }
                    std::cmp::Ordering::Greater => {
                        (old_key, new_key) = (best.heap_bytes(), key.heap_bytes());
                        *best = key;
                        *id = e;
                        None
                    }
                    std::cmp::Ordering::Equal => {
                        (old_key, new_key) = (0, 0);
                        None
                    }
                }
            }
        };
        self.key_bytes = (self.key_bytes + new_key).saturating_sub(old_key);
        // Keys of deep configurations are long: check before many of them pile up.
        if self.key_bytes > self.checked_key_bytes + (1 << 20) {
            self.checked_key_bytes = self.key_bytes;
            if let Err(r) = self.limits.check_memory(self.accounted_bytes()) {
                self.stats.stopped = Some(r);
            }
        }
        let is_cutoff = verdict.is_some();
        if let Some(reference) = verdict {
            self.corresponding.insert(e, reference);
        }
        if is_cutoff {
            self.cutoff[e as usize] = true;
            self.stats.cutoffs += 1;
        }
    }

    /// An alternative `J` to `D` after `C`, as the events of `J \ C`; `None` if there is none.
    fn alternative(&mut self) -> Option<Vec<EventId>> {
        let mut unjustified: Vec<EventId> = self
            .d
            .iter()
            .copied()
            .filter(|&d| !self.justified(d))
            .collect();
        if let Some(k) = self.opts.alt_k {
            let skip = unjustified.len().saturating_sub(k);
            unjustified.drain(..skip);
        }
        let mut spikes: Vec<Vec<EventId>> = Vec::with_capacity(unjustified.len());
        for &d in &unjustified {
            let mut spike = Vec::new();
            for &s in self.store.event_slots(d) {
                let parent = self.store.parent_on(d, s);
                for &c in self.store.children_on(parent, s) {
                    if c != d
                        && !self.cutoff[c as usize]
                        && !Self::is_in(&self.in_d, c)
                        && !spike.contains(&c)
                        && self.store.immediate_conflict(d, c)
                        && !self.store.conflicts_with_cone(c, &self.top)
                    {
                        spike.push(c);
                    }
                }
            }
            if spike.is_empty() {
                return None;
            }
            spikes.push(spike);
        }
        // Fewest choices first: failures show up early.
        spikes.sort_by_key(|s| s.len());
        let mut picks = Vec::with_capacity(spikes.len());
        if !self.comb(&spikes, &mut picks) {
            return None;
        }
        // J \ C: the local configurations of the picks, outside C.
        let mut seen = FxHashSet::default();
        let mut stack = picks;
        let mut a = Vec::new();
        while let Some(x) = stack.pop() {
            if x == BOTTOM || Self::is_in(&self.in_c, x) || !seen.insert(x) {
                continue;
            }
            a.push(x);
            stack.extend_from_slice(self.store.preds(x));
        }
        Some(a)
    }

    /// Every event with its causality, cutoff and conflict information.
    fn explored_events(&self) -> (Vec<ExploredEvent>, Vec<(EventId, EventId)>) {
        let mut events = Vec::with_capacity(self.store.len() - 1);
        let mut conflicts = Vec::new();
        let mut seen = FxHashSet::default();
        for e in 1..self.store.len() as EventId {
            events.push(ExploredEvent {
                label: self.store.label(e),
                preds: self
                    .store
                    .preds(e)
                    .iter()
                    .copied()
                    .filter(|&p| p != BOTTOM)
                    .collect(),
                cutoff: self.cutoff[e as usize],
                corresponding: self.corresponding.get(&e).copied().filter(|&c| c != BOTTOM),
                in_deadlock: self.deadlock_events.contains(&e),
            });
            // Immediate conflicts are siblings on a shared slot.
            for &s in self.store.event_slots(e) {
                let parent = self.store.parent_on(e, s);
                for &c in self.store.children_on(parent, s) {
                    if c > e && seen.insert((e, c)) && self.store.immediate_conflict(e, c) {
                        conflicts.push((e, c));
                    }
                }
            }
        }
        (events, conflicts)
    }

    /// Depth-first search for one pick per spike, pairwise conflict-free.
    fn comb(&self, spikes: &[Vec<EventId>], picks: &mut Vec<EventId>) -> bool {
        let i = picks.len();
        if i == spikes.len() {
            return true;
        }
        for &c in &spikes[i] {
            if picks.iter().all(|&p| p == c || !self.store.conflict(p, c)) {
                picks.push(c);
                if self.comb(spikes, picks) {
                    return true;
                }
                picks.pop();
            }
        }
        false
    }
}
