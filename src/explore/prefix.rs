//! The complete finite prefix of a safe net's unfolding (Esparza–Römer–Vogler), by saturation.
//!
//! The prefix is an occurrence net of *conditions* (a place and the event that produced it) and
//! *events* (a transition and its preset of conditions). It grows from the initial conditions:
//!
//! 1. The possible extensions are the pairs `(t, X)` where `X` is a co-set of conditions labelled
//!    by the preset of `t`. They wait in a priority queue ordered by an adequate order on their
//!    local configurations ([`Order`]).
//! 2. The least one leaves the queue and becomes an event `e`. It is a *cutoff* when the marking
//!    of `[e]` was already reached by a smaller local configuration (a hash table maps every
//!    marking to the least event reaching it; the initial marking maps to the virtual initial
//!    event ⊥). A cutoff enters the prefix with its postset but is never extended.
//! 3. Otherwise the new conditions `e•` get their concurrency sets: a condition `c ∈ e•` is
//!    concurrent with the other conditions of `e•` and with every condition concurrent with all
//!    of `•e` (the intersection of their sets, which excludes `•e` itself), its *base*. The
//!    relation is kept as one base per event plus, per condition, the later events whose base
//!    contains it ([`co::CoRelation`]). New possible extensions are exactly the co-sets that
//!    contain some condition of `e•`; in a safe net such a co-set contains *every* condition of
//!    `e•` whose place the transition consumes, so each pair `(t, X)` is found once.
//!
//! The size and marking of an extension with one cause (as in chains and rings) follow from its
//! cause's ([`marks::Marks`] keeps every event's marking), so only extensions with several
//! causes walk their history; Parikh vectors are computed when the order first compares them.
//!
//! Extensions leave the queue in increasing order (every new extension has the event just
//! added in its past), so with a total order a marking already in the table always makes a
//! cutoff.
//!
//! Counting conventions (those of Cunf and Mole): events include cutoffs and exclude ⊥;
//! conditions include the initial ones and the postsets of cutoffs.
//!
//! Safety is checked on the way: a new condition concurrent with a condition of the same place
//! (checked for the postsets of cutoffs too), an initial marking above 1, or an event of a
//! transition with an output weight above 1 stops the construction with a firing sequence that
//! puts two tokens on a place. (The first unsafe marking of any run is reached from a safe one,
//! which the prefix built so far represents by a cutoff-free configuration; its extension by the
//! offending transition is a possible extension whose postset is concurrent with the other
//! token, so the check fires before any wrong marking can matter.) Read arcs are unfolded as
//! self-loops (consume and produce the place).

pub mod co;
pub mod deadlock;
pub mod heap;
pub mod marks;

use std::cell::OnceCell;
use std::cmp::Ordering;
use std::ops::Range;

use super::limits::{Limits, StopReason};
use crate::model::net::{Net, PlaceIdx, TransIdx};
use crate::unfolding::order;
pub use crate::unfolding::order::Order;
use co::CoRelation;
use heap::Heap;
use marks::Marks;

/// "No event": the producer of an initial condition, the correspondent ⊥ of a cutoff.
pub const NONE: u32 = u32::MAX;

/// A condition: one token on a place, produced by an event (or initially present).
#[derive(Clone, Copy, Debug)]
pub struct Condition {
    /// The place.
    pub place: PlaceIdx,
    /// The producing event, or [`NONE`] for an initial condition.
    pub producer: u32,
}

/// An event of the prefix.
#[derive(Clone, Copy, Debug)]
pub struct Event {
    /// The transition.
    pub transition: TransIdx,
    /// Whether it is a cutoff.
    pub cutoff: bool,
    /// For a cutoff, the event whose local configuration reaches the same marking ([`NONE`]:
    /// the initial event ⊥); [`NONE`] otherwise.
    pub corresponding: u32,
    /// 1 + the largest depth of its causes (1 for events enabled initially).
    pub depth: u32,
    /// `|[e]|`.
    pub size: u32,
    pre_start: u32,
    pre_len: u32,
    post_start: u32,
    post_len: u32,
}

/// The occurrence net built by [`explore`].
#[derive(Clone, Debug, Default)]
pub struct Prefix {
    /// Conditions; the initial ones first.
    pub conditions: Vec<Condition>,
    /// Events in the order they were added (causes always before their effects).
    pub events: Vec<Event>,
    /// Number of initial conditions (ids `0..initial`).
    pub initial: u32,
    presets: Vec<u32>,
    /// Distinct immediate causes of every event (flat; `pred_start[e]..pred_start[e + 1]`).
    preds: Vec<u32>,
    pred_start: Vec<u32>,
}

impl Prefix {
    /// The preset of `e` (condition ids, sorted).
    pub fn preset(&self, e: u32) -> &[u32] {
        let ev = &self.events[e as usize];
        &self.presets[ev.pre_start as usize..(ev.pre_start + ev.pre_len) as usize]
    }

    /// The distinct immediate causes of `e` (producers of its preset, ⊥ left out).
    pub fn causes(&self, e: u32) -> &[u32] {
        &self.preds[self.pred_start[e as usize] as usize..self.pred_start[e as usize + 1] as usize]
    }

    /// The postset of `e` (condition ids).
    pub fn postset(&self, e: u32) -> Range<u32> {
        let ev = &self.events[e as usize];
        ev.post_start..ev.post_start + ev.post_len
    }

    /// Number of cutoff events.
    pub fn cutoffs(&self) -> usize {
        self.events.iter().filter(|e| e.cutoff).count()
    }

    /// The local configuration `[e]`, sorted by id (a firing order).
    pub fn local_configuration(&self, e: u32) -> Vec<u32> {
        self.history(&[e])
    }

    /// The union of the local configurations of `events`, sorted by id.
    pub fn history(&self, events: &[u32]) -> Vec<u32> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack: Vec<u32> = events.iter().copied().filter(|&e| e != NONE).collect();
        let mut out = Vec::new();
        while let Some(e) = stack.pop() {
            if !seen.insert(e) {
                continue;
            }
            out.push(e);
            stack.extend_from_slice(self.causes(e));
        }
        out.sort_unstable();
        out
    }

    /// The marking reached by a configuration (events given in any order): the places of its
    /// cut, sorted.
    pub fn marking(&self, config: &[u32]) -> Vec<PlaceIdx> {
        let mut consumed = rustc_hash::FxHashSet::default();
        for &e in config {
            consumed.extend(self.preset(e).iter().copied());
        }
        let mut places: Vec<PlaceIdx> = (0..self.initial)
            .chain(config.iter().flat_map(|&e| self.postset(e)))
            .filter(|c| !consumed.contains(c))
            .map(|c| self.conditions[c as usize].place)
            .collect();
        places.sort_unstable();
        places
    }

    /// The events whose preset contains each condition.
    pub fn consumers(&self) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); self.conditions.len()];
        for e in 0..self.events.len() as u32 {
            for &c in self.preset(e) {
                out[c as usize].push(e);
            }
        }
        out
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        (self.conditions.capacity() * std::mem::size_of::<Condition>()
            + self.events.capacity() * std::mem::size_of::<Event>()
            + (self.presets.capacity() + self.preds.capacity() + self.pred_start.capacity()) * 4)
            as u64
    }
}

/// Options of [`explore`].
#[derive(Clone, Copy, Debug, Default)]
pub struct PrefixOptions {
    /// The adequate order.
    pub order: Order,
    /// Also decide deadlock freedom from the finished prefix.
    pub deadlock: bool,
}

/// The deadlock answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeadlockAnswer {
    /// No reachable marking is dead.
    Free,
    /// A configuration of non-cutoff events (sorted by id, a firing order) whose marking
    /// enables no transition.
    Found(Vec<u32>),
    /// The search was stopped by a limit.
    Unknown(StopReason),
}

/// The net is not safe: a firing sequence that puts two tokens on `place`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the net is not safe: the run {} puts two tokens on place '{place}'", show_run(.run))]
pub struct NotSafe {
    /// The place's label.
    pub place: String,
    /// Transition labels.
    pub run: Vec<String>,
}

fn show_run(run: &[String]) -> String {
    if run.is_empty() {
        "(the initial marking)".to_string()
    } else {
        run.join(" ")
    }
}

/// Progress of a run, for displays.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrefixProgress {
    /// Events so far.
    pub events: u64,
    /// Conditions so far.
    pub conditions: u64,
    /// Possible extensions waiting.
    pub queue: u64,
    /// Bytes held.
    pub bytes: u64,
}

/// What [`explore`] produced.
#[derive(Debug)]
pub struct PrefixRun {
    /// The prefix (complete unless `stopped`).
    pub prefix: Prefix,
    /// Why the construction stopped early.
    pub stopped: Option<StopReason>,
    /// The deadlock answer, when asked for.
    pub deadlock: Option<DeadlockAnswer>,
    /// Read arcs unfolded as self-loops.
    pub read_arcs_as_loops: usize,
    /// Peak bytes held by the construction (its own accounting).
    pub bytes: u64,
    /// Seconds the deadlock search took (0 when not asked for).
    pub deadlock_seconds: f64,
    /// Work of building the possible extensions: events visited walking their histories plus
    /// marking words written. It grows with the prefix, not with its square, on chains and
    /// rings (where every event has one cause); a measure that needs no clock.
    pub work: u64,
}

/// Which phase of a run a limit stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoppedPhase {
    /// The construction of the prefix.
    Unfolding,
    /// The deadlock search on the finished prefix.
    DeadlockSearch,
}

impl StoppedPhase {
    /// Its name in reports (`stopped_phase` of the JSON).
    pub fn name(self) -> &'static str {
        match self {
            StoppedPhase::Unfolding => "unfolding",
            StoppedPhase::DeadlockSearch => "deadlock search",
        }
    }
}

impl PrefixRun {
    /// Whether the prefix is complete (the deadlock search aside: see
    /// [`answered`](Self::answered)).
    pub fn complete(&self) -> bool {
        self.stopped.is_none()
    }

    /// Whether everything asked was answered: the prefix complete, and the deadlock
    /// search, when asked for, finished.
    pub fn answered(&self) -> bool {
        self.stopped_phase().is_none()
    }

    /// The phase a limit stopped, and why; `None` when nothing was stopped.
    pub fn stopped_phase(&self) -> Option<(StoppedPhase, StopReason)> {
        match (self.stopped, &self.deadlock) {
            (Some(reason), _) => Some((StoppedPhase::Unfolding, reason)),
            (None, Some(DeadlockAnswer::Unknown(reason))) => {
                Some((StoppedPhase::DeadlockSearch, *reason))
            }
            _ => None,
        }
    }

    /// Decides deadlock freedom from the prefix (unknown when its construction stopped),
    /// timing the search and calling `progress` now and then.
    pub fn decide_deadlock(
        &mut self,
        limits: &Limits,
        progress: &mut dyn FnMut(deadlock::DeadlockProgress),
    ) {
        let start = std::time::Instant::now();
        self.deadlock = Some(match self.stopped {
            Some(reason) => DeadlockAnswer::Unknown(reason),
            None => deadlock::search_with_progress(&self.prefix, limits, progress),
        });
        self.deadlock_seconds = start.elapsed().as_secs_f64();
    }
}

/// A transition as the unfolder sees it: preset and postset places (read arcs as loops).
struct Tr {
    pre: Vec<PlaceIdx>,
    post: Vec<(PlaceIdx, u32)>,
    /// An input arc of weight above 1: never enabled in a safe net.
    dead: bool,
    /// An output arc of weight above 1: firing it makes the net unsafe.
    multi_out: bool,
    /// Marking change as bitset words to XOR: in a configuration of a safe net the tokens of
    /// a place are `M0 + produced - consumed ∈ {0, 1}`, which is the parity of
    /// `M0 + produced + consumed`, so the marking of a configuration is `M0` XOR the
    /// `pre ⊕ post` of its events.
    delta: Vec<(u32, u64)>,
}

/// A possible extension waiting in the queue.
struct Pe {
    t: TransIdx,
    preset: Box<[u32]>,
    size: u32,
    depth: u32,
    /// The Parikh vector of its local configuration, computed when first compared (an
    /// extension with one cause gets its size and marking from that cause without a walk).
    parikh: OnceCell<Box<[(u32, u32)]>>,
    /// The marking of its local configuration, encoded by [`Marks`].
    marking: Box<[u32]>,
    seq: u32,
}

impl Pe {
    /// Bytes held, for the accounting (the Parikh vector left out: it may come later, and
    /// the sum added at the push must be the one taken away at the pop).
    fn bytes(&self) -> u64 {
        (std::mem::size_of::<Pe>() + 4 * (self.preset.len() + self.marking.len()) + 32) as u64
    }
}

/// Scratch space for walking local configurations.
#[derive(Default)]
struct Walk {
    stamp: Vec<u32>,
    epoch: u32,
    events: Vec<u32>,
    stack: Vec<u32>,
    /// Occurrences of each transition (one entry per transition) in the configuration
    /// counted last.
    tcount: Vec<u32>,
    /// The transitions counted (non-zero in `tcount`).
    ttouched: Vec<u32>,
    /// Events visited by all walks (part of [`PrefixRun::work`]).
    visited: u64,
}

impl Walk {
    /// Starts a walk over a prefix of `events` events: a fresh stamp, an empty stack.
    fn begin(&mut self, events: usize) {
        if self.stamp.len() < events {
            self.stamp.resize(events.max(1024) * 2, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        self.stack.clear();
    }

    /// Collects into `self.events` the events of the histories of `preset`'s producers.
    fn history(&mut self, prefix: &Prefix, preset: &[u32]) {
        self.begin(prefix.events.len());
        self.events.clear();
        for &c in preset {
            let p = prefix.conditions[c as usize].producer;
            if p != NONE && self.stamp[p as usize] != self.epoch {
                self.stamp[p as usize] = self.epoch;
                self.stack.push(p);
            }
        }
        let stamp = &mut self.stamp[..];
        while let Some(e) = self.stack.pop() {
            self.visited += 1;
            self.events.push(e);
            for &p in prefix.causes(e) {
                if stamp[p as usize] != self.epoch {
                    stamp[p as usize] = self.epoch;
                    self.stack.push(p);
                }
            }
        }
    }
}

impl Walk {
    /// Walks the local configuration of the extension `(t, preset)` once, counting its
    /// transitions into `tcount` (the ones seen listed in `ttouched`); returns its size.
    fn count(
        &mut self,
        prefix: &Prefix,
        ev_trans: &[TransIdx],
        preset: &[u32],
        t: TransIdx,
    ) -> u32 {
        self.begin(prefix.events.len());
        self.ttouched.clear();
        let epoch = self.epoch;
        let Walk {
            stamp,
            stack,
            tcount,
            ttouched,
            visited,
            ..
        } = self;
        for &c in preset {
            let p = prefix.conditions[c as usize].producer;
            if p != NONE && stamp[p as usize] != epoch {
                stamp[p as usize] = epoch;
                stack.push(p);
            }
        }
        let mut size = 1;
        let mut count = |t: TransIdx| {
            let n = &mut tcount[t as usize];
            if *n == 0 {
                ttouched.push(t);
            }
            *n += 1;
        };
        count(t);
        while let Some(e) = stack.pop() {
            size += 1;
            count(ev_trans[e as usize]);
            for &p in prefix.causes(e) {
                if stamp[p as usize] != epoch {
                    stamp[p as usize] = epoch;
                    stack.push(p);
                }
            }
        }
        *visited += size as u64;
        ttouched.sort_unstable();
        size
    }

    /// The Parikh vector of what [`count`](Self::count) counted last, clearing the counts;
    /// `odd` is called on every transition occurring an odd number of times.
    fn parikh(&mut self, mut odd: impl FnMut(TransIdx)) -> Box<[(u32, u32)]> {
        let tcount = &mut self.tcount;
        self.ttouched
            .iter()
            .map(|&t| {
                let n = std::mem::take(&mut tcount[t as usize]);
                if n % 2 == 1 {
                    odd(t);
                }
                (t, n)
            })
            .collect()
    }
}

/// The Parikh vector of a possible extension's local configuration, computed once.
fn parikh_of<'p>(
    prefix: &Prefix,
    ev_trans: &[TransIdx],
    walk: &mut Walk,
    pe: &'p Pe,
) -> &'p [(u32, u32)] {
    pe.parikh.get_or_init(|| {
        walk.count(prefix, ev_trans, &pe.preset, pe.t);
        walk.parikh(|_| {})
    })
}

/// Foata normal form of a possible extension: `(depth, transition)` of its history and itself.
fn foata(prefix: &Prefix, walk: &mut Walk, pe: &Pe, out: &mut Vec<(u32, u32)>) {
    walk.history(prefix, &pe.preset);
    out.clear();
    out.extend(walk.events.iter().map(|&e| {
        let ev = &prefix.events[e as usize];
        (ev.depth, ev.transition)
    }));
    out.push((pe.depth, pe.t));
    out.sort_unstable();
}

/// Compares two possible extensions by `order` (ties, which a total order only has between
/// equal configurations, by creation).
fn cmp_pe(
    prefix: &Prefix,
    ev_trans: &[TransIdx],
    walk: &mut Walk,
    order: Order,
    a: &Pe,
    b: &Pe,
) -> Ordering {
    let c = a.size.cmp(&b.size);
    if c != Ordering::Equal || order == Order::Size {
        return c.then(a.seq.cmp(&b.seq));
    }
    let c = order::cmp_parikh(
        parikh_of(prefix, ev_trans, walk, a),
        parikh_of(prefix, ev_trans, walk, b),
    );
    if c != Ordering::Equal {
        return c;
    }
    let (mut fa, mut fb) = (Vec::new(), Vec::new());
    foata(prefix, walk, a, &mut fa);
    foata(prefix, walk, b, &mut fb);
    order::cmp_foata(&fa, &fb, order == Order::Mole).then(a.seq.cmp(&b.seq))
}

/// The unfolder's state.
struct Unfolder<'n> {
    net: &'n Net,
    order: Order,
    trs: Vec<Tr>,
    consumers: Vec<Vec<TransIdx>>,
    words: usize,
    m0: Vec<u64>,
    prefix: Prefix,
    co: CoRelation,
    pes: Vec<Option<Pe>>,
    free_pes: Vec<u32>,
    seq: u32,
    heap: Heap,
    /// The markings of the events' local configurations and the cutoff table.
    marks: Marks,
    walk: Walk,
    /// The transition of every event (dense, for history walks).
    ev_trans: Vec<TransIdx>,
    /// Bytes held by the queued extensions.
    pe_bytes: u64,
    /// Marking words written for extensions (part of [`PrefixRun::work`]).
    mark_words: u64,
    // Scratch.
    places: Vec<u32>,
    next_places: Vec<u32>,
    bits: Vec<u64>,
    t_stamp: Vec<u32>,
    p_stamp: Vec<u32>,
    p_new: Vec<u32>,
    p_need: Vec<u32>,
    buckets: Vec<Vec<u32>>,
    epoch: u32,
    peak_bytes: u64,
}

/// Computes the complete finite prefix of `net` (which must be safe).
pub fn explore(
    net: &Net,
    options: &PrefixOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(PrefixProgress),
) -> Result<PrefixRun, NotSafe> {
    let mut u = Unfolder::new(net, options.order);
    let stopped = u.run(limits, progress)?;
    let bytes = u.peak_bytes.max(u.bytes());
    let work = u.walk.visited + u.mark_words;
    let mut run = PrefixRun {
        prefix: u.prefix,
        stopped,
        deadlock: None,
        read_arcs_as_loops: net.read_arc_count(),
        bytes,
        deadlock_seconds: 0.0,
        work,
    };
    if options.deadlock {
        run.decide_deadlock(limits, &mut |_| {});
    }
    Ok(run)
}

impl<'n> Unfolder<'n> {
    fn new(net: &'n Net, order: Order) -> Self {
        let np = net.places.len();
        let nt = net.transitions.len();
        let mut trs = Vec::with_capacity(nt);
        let mut consumers = vec![Vec::new(); np];
        for (ti, t) in net.transitions.iter().enumerate() {
            let mut pre: Vec<PlaceIdx> = t.pre.iter().chain(&t.reads).map(|a| a.place).collect();
            pre.sort_unstable();
            pre.dedup();
            // A read arc is a loop: its token is consumed (it is in `pre`) and produced again,
            // unless the transition consumes that place anyway (then the test adds nothing),
            // or on top of what it produces there (then the place gets one token more: a
            // second token, which the firing reports as unsafe).
            let mut post: Vec<(PlaceIdx, u32)> =
                t.post.iter().map(|a| (a.place, a.weight)).collect();
            for r in &t.reads {
                if t.pre.iter().any(|a| a.place == r.place) {
                    continue;
                }
                match post.iter_mut().find(|a| a.0 == r.place) {
                    Some(a) => a.1 += 1,
                    None => post.push((r.place, 1)),
                }
            }
            post.sort_unstable();
            let dead = t.pre.iter().chain(&t.reads).any(|a| a.weight > 1);
            let multi_out = post.iter().any(|a| a.1 > 1);
            let mut delta: Vec<(u32, u64)> = Vec::new();
            for p in pre.iter().copied().chain(post.iter().map(|a| a.0)) {
                let (w, bit) = (p / 64, 1u64 << (p % 64));
                match delta.iter_mut().find(|d| d.0 == w) {
                    Some(d) => d.1 ^= bit,
                    None => delta.push((w, bit)),
                }
            }
            delta.retain(|d| d.1 != 0);
            if !dead {
                for &p in &pre {
                    consumers[p as usize].push(ti as TransIdx);
                }
            }
            trs.push(Tr {
                pre,
                post,
                dead,
                multi_out,
                delta,
            });
        }
        let words = np.div_ceil(64).max(1);
        let mut m0 = vec![0u64; words];
        for (p, place) in net.places.iter().enumerate() {
            if place.initial > 0 {
                m0[p / 64] |= 1 << (p % 64);
            }
        }
        let marks = Marks::new(words, &m0);
        Unfolder {
            net,
            order,
            trs,
            consumers,
            words,
            m0,
            prefix: Prefix::default(),
            co: CoRelation::default(),
            pes: Vec::new(),
            free_pes: Vec::new(),
            seq: 0,
            heap: Heap::default(),
            marks,
            walk: Walk {
                tcount: vec![0; nt],
                ..Walk::default()
            },
            ev_trans: Vec::new(),
            pe_bytes: 0,
            mark_words: 0,
            places: Vec::new(),
            next_places: Vec::new(),
            bits: Vec::new(),
            t_stamp: vec![0; nt],
            p_stamp: vec![0; np],
            p_new: vec![NONE; np],
            p_need: vec![0; np],
            buckets: vec![Vec::new(); np],
            epoch: 0,
            peak_bytes: 0,
        }
    }

    fn bytes(&self) -> u64 {
        self.prefix.bytes()
            + self.co.bytes()
            + self.marks.bytes()
            + self.pe_bytes
            + self.heap.bytes()
    }

    fn not_safe(&self, place: PlaceIdx, events: &[u32], extra: Option<TransIdx>) -> NotSafe {
        let config = self.prefix.history(events);
        let mut run: Vec<String> = config
            .iter()
            .map(|&e| {
                self.net.transitions[self.prefix.events[e as usize].transition as usize]
                    .label
                    .to_string()
            })
            .collect();
        if let Some(t) = extra {
            run.push(self.net.transitions[t as usize].label.to_string());
        }
        NotSafe {
            place: self.net.places[place as usize].label.to_string(),
            run,
        }
    }

    fn run(
        &mut self,
        limits: &Limits,
        progress: &mut dyn FnMut(PrefixProgress),
    ) -> Result<Option<StopReason>, NotSafe> {
        // Initial conditions.
        for (p, place) in self.net.places.iter().enumerate() {
            if place.initial > 1 {
                return Err(self.not_safe(p as PlaceIdx, &[], None));
            }
            if place.initial == 1 {
                self.prefix.conditions.push(Condition {
                    place: p as PlaceIdx,
                    producer: NONE,
                });
            }
        }
        let n0 = self.prefix.conditions.len() as u32;
        self.prefix.initial = n0;
        self.prefix.pred_start.push(0);
        self.co.add_initial(n0);
        // Transitions without preset: enabled forever.
        for t in 0..self.trs.len() {
            if self.trs[t].pre.is_empty() && !self.trs[t].dead {
                if let Some(&(p, _)) = self.trs[t].post.first() {
                    let mut err = self.not_safe(p, &[], Some(t as TransIdx));
                    err.run.push(self.net.transitions[t].label.to_string());
                    return Err(err);
                }
                self.new_pe(t as TransIdx, Vec::new())?;
            }
        }
        self.extend(0..n0, &[])?;

        let mut steps: u64 = 0;
        loop {
            steps += 1;
            if steps.is_multiple_of(512) {
                let bytes = self.bytes();
                self.peak_bytes = self.peak_bytes.max(bytes);
                progress(PrefixProgress {
                    events: self.prefix.events.len() as u64,
                    conditions: self.prefix.conditions.len() as u64,
                    queue: self.heap.len() as u64,
                    bytes,
                });
                if let Err(r) = limits.check_time().and_then(|_| limits.check_memory(bytes)) {
                    return Ok(Some(r));
                }
            }
            let Some(id) = self.pop() else { break };
            let Some(pe) = self.pes[id as usize].take() else {
                continue;
            };
            self.pe_bytes = self.pe_bytes.saturating_sub(pe.bytes());
            self.free_pes.push(id);
            self.add_event(pe)?;
        }
        self.peak_bytes = self.peak_bytes.max(self.bytes());
        Ok(None)
    }

    fn pop(&mut self) -> Option<u32> {
        let Unfolder {
            heap,
            pes,
            prefix,
            walk,
            order,
            ev_trans,
            ..
        } = self;
        let order = *order;
        heap.pop(&mut |a, b| {
            cmp_pe(
                prefix,
                ev_trans,
                walk,
                order,
                pes[a as usize].as_ref().unwrap(),
                pes[b as usize].as_ref().unwrap(),
            )
        })
    }

    fn push(&mut self, pe: Pe) {
        self.pe_bytes += pe.bytes();
        let id = match self.free_pes.pop() {
            Some(id) => {
                self.pes[id as usize] = Some(pe);
                id
            }
            None => {
                self.pes.push(Some(pe));
                (self.pes.len() - 1) as u32
            }
        };
        let Unfolder {
            heap,
            pes,
            prefix,
            walk,
            order,
            ev_trans,
            ..
        } = self;
        let order = *order;
        heap.push(id, &mut |a, b| {
            cmp_pe(
                prefix,
                ev_trans,
                walk,
                order,
                pes[a as usize].as_ref().unwrap(),
                pes[b as usize].as_ref().unwrap(),
            )
        });
    }

    /// Builds the possible extension `(t, preset)`: size, depth, Parikh vector and marking of
    /// its local configuration.
    fn new_pe(&mut self, t: TransIdx, preset: Vec<u32>) -> Result<(), NotSafe> {
        let mut depth = 0;
        for &c in &preset {
            let p = self.prefix.conditions[c as usize].producer;
            if p != NONE {
                depth = depth.max(self.prefix.events[p as usize].depth);
            }
        }
        if self.trs[t as usize].multi_out {
            let producers: Vec<u32> = preset
                .iter()
                .map(|&c| self.prefix.conditions[c as usize].producer)
                .collect();
            let p = self.trs[t as usize]
                .post
                .iter()
                .find(|a| a.1 > 1)
                .map_or(0, |a| a.0);
            return Err(self.not_safe(p, &producers, Some(t)));
        }
        // One cause (or none): `[pe] = [cause] + pe`, so the size and the marking follow from
        // the cause's without walking its history, which keeps chains and rings linear.
        let mut causes = preset
            .iter()
            .map(|&c| self.prefix.conditions[c as usize].producer)
            .filter(|&p| p != NONE);
        let cause = causes.next().unwrap_or(NONE);
        let one_cause = causes.all(|p| p == cause);
        let mut key = Vec::new();
        let dense = one_cause && self.marks.bits_of(cause, &mut self.bits);
        let derived = dense || (one_cause && self.marks.places_of(cause, &mut self.places));
        let (size, parikh) = if dense {
            // Many tokens: the same step on the bitset.
            let tr = &self.trs[t as usize];
            for &p in &tr.pre {
                self.bits[(p / 64) as usize] &= !(1 << (p % 64));
            }
            for &(p, _) in &tr.post {
                self.bits[(p / 64) as usize] |= 1 << (p % 64);
            }
            self.marks.encode_bits(&self.bits, &mut key);
            let size = match cause {
                NONE => 1,
                e => self.prefix.events[e as usize].size + 1,
            };
            (size, OnceCell::new())
        } else if derived {
            // •pe lies in the cut of [cause]: take its places away, add pe•'s.
            let tr = &self.trs[t as usize];
            let mut next = std::mem::take(&mut self.next_places);
            next.clear();
            let (mut kept, mut post) = (
                self.places
                    .iter()
                    .copied()
                    .filter(|p| tr.pre.binary_search(p).is_err())
                    .peekable(),
                tr.post.iter().map(|a| a.0).peekable(),
            );
            loop {
                match (kept.peek(), post.peek()) {
                    (Some(&x), Some(&y)) if x == y => {
                        next.push(x);
                        kept.next();
                        post.next();
                    }
                    (Some(&x), Some(&y)) if x < y => {
                        next.push(x);
                        kept.next();
                    }
                    (_, Some(&y)) => {
                        next.push(y);
                        post.next();
                    }
                    (Some(&x), None) => {
                        next.push(x);
                        kept.next();
                    }
                    (None, None) => break,
                }
            }
            self.marks.encode_places(&next, &mut key);
            self.next_places = next;
            let size = match cause {
                NONE => 1,
                e => self.prefix.events[e as usize].size + 1,
            };
            (size, OnceCell::new())
        } else {
            let size = self.walk.count(&self.prefix, &self.ev_trans, &preset, t);
            // The marking by parity (see `Tr::delta`): only transitions occurring an odd
            // number of times change it, so it costs the Parikh vector's length, not the
            // history's.
            let mut marking = self.m0.clone();
            let trs = &self.trs;
            let parikh = self.walk.parikh(|t| {
                for &(w, mask) in &trs[t as usize].delta {
                    marking[w as usize] ^= mask;
                }
            });
            self.marks.encode_bits(&marking, &mut key);
            self.mark_words += self.words as u64;
            (size, OnceCell::from(parikh))
        };
        self.mark_words += key.len() as u64;
        let seq = self.seq;
        self.seq += 1;
        self.push(Pe {
            t,
            preset: preset.into_boxed_slice(),
            size,
            depth: depth + 1,
            parikh,
            marking: key.into_boxed_slice(),
            seq,
        });
        Ok(())
    }

    /// Turns a possible extension into an event, decides whether it is a cutoff, and extends.
    fn add_event(&mut self, pe: Pe) -> Result<(), NotSafe> {
        let e = self.prefix.events.len() as u32;
        let found = self.marks.find(&pe.marking);
        let (cutoff, corresponding) = match found {
            Some(corr) => {
                let smaller = self.order.is_total()
                    || corr == NONE
                    || self.prefix.events[corr as usize].size < pe.size;
                (smaller, if smaller { corr } else { NONE })
            }
            None => (false, NONE),
        };
        if cutoff {
            self.marks.push_none();
        } else {
            // Kept for the extensions this event causes; entered in the table when new.
            self.marks.push(&pe.marking, found.is_none());
        }
        let pre_start = self.prefix.presets.len() as u32;
        self.prefix.presets.extend_from_slice(&pe.preset);
        let first_pred = self.prefix.preds.len();
        for &c in pe.preset.iter() {
            let p = self.prefix.conditions[c as usize].producer;
            if p != NONE && !self.prefix.preds[first_pred..].contains(&p) {
                self.prefix.preds.push(p);
            }
        }
        self.prefix.pred_start.push(self.prefix.preds.len() as u32);
        let post_start = self.prefix.conditions.len() as u32;
        let tr = &self.trs[pe.t as usize];
        for &(p, _) in &tr.post {
            self.prefix.conditions.push(Condition {
                place: p,
                producer: e,
            });
        }
        let post_len = tr.post.len() as u32;
        self.ev_trans.push(pe.t);
        self.prefix.events.push(Event {
            transition: pe.t,
            cutoff,
            corresponding,
            depth: pe.depth,
            size: pe.size,
            pre_start,
            pre_len: pe.preset.len() as u32,
            post_start,
            post_len,
        });
        let new = post_start..post_start + post_len;
        // base = the conditions concurrent with all of •e.
        let base = self.co.intersect(&self.prefix, &pe.preset);
        self.epoch += 1;
        let epoch = self.epoch;
        for &(p, _) in &self.trs[pe.t as usize].post {
            self.p_stamp[p as usize] = epoch;
        }
        if let Some(&d) = base
            .iter()
            .find(|&&d| self.p_stamp[self.prefix.conditions[d as usize].place as usize] == epoch)
        {
            let place = self.prefix.conditions[d as usize].place;
            let producer = self.prefix.conditions[d as usize].producer;
            return Err(self.not_safe(place, &[e, producer], None));
        }
        self.co.add_event(&self.prefix, e, &base);
        if cutoff {
            return Ok(());
        }
        self.extend(new, &base)
    }

    /// Finds the possible extensions whose preset contains a condition of `new` (all pairwise
    /// concurrent, and concurrent with every condition of `base`, nothing else).
    fn extend(&mut self, new: Range<u32>, base: &[u32]) -> Result<(), NotSafe> {
        self.epoch += 1;
        let epoch = self.epoch;
        let mut ts = Vec::new();
        for c in new.clone() {
            let p = self.prefix.conditions[c as usize].place as usize;
            self.p_new[p] = c;
            self.p_stamp[p] = epoch;
            for &t in &self.consumers[p] {
                if self.t_stamp[t as usize] != epoch {
                    self.t_stamp[t as usize] = epoch;
                    ts.push(t);
                }
            }
        }
        if ts.is_empty() {
            return Ok(());
        }
        ts.sort_unstable();
        let mut need_any = false;
        for &t in &ts {
            for &p in &self.trs[t as usize].pre {
                if self.p_stamp[p as usize] != epoch {
                    self.p_need[p as usize] = epoch;
                    need_any = true;
                }
            }
        }
        let mut touched = Vec::new();
        if need_any {
            for &d in base {
                let p = self.prefix.conditions[d as usize].place as usize;
                if self.p_need[p] == epoch {
                    if self.buckets[p].is_empty() {
                        touched.push(p);
                    }
                    self.buckets[p].push(d);
                }
            }
        }
        let mut rem: Vec<usize> = Vec::new();
        let mut fixed: Vec<u32> = Vec::new();
        let mut chosen: Vec<u32> = Vec::new();
        let mut found: Vec<(TransIdx, Vec<u32>)> = Vec::new();
        for &t in &ts {
            rem.clear();
            fixed.clear();
            let mut possible = true;
            for &p in &self.trs[t as usize].pre {
                let p = p as usize;
                if self.p_stamp[p] == epoch {
                    fixed.push(self.p_new[p]);
                } else if self.buckets[p].is_empty() {
                    possible = false;
                    break;
                } else {
                    rem.push(p);
                }
            }
            if !possible {
                continue;
            }
            // Fewest candidates first.
            rem.sort_by_key(|&p| self.buckets[p].len());
            chosen.clear();
            self.choose(t, &rem, &fixed, &mut chosen, &mut found);
        }
        for p in touched {
            self.buckets[p].clear();
        }
        for (t, preset) in found {
            self.new_pe(t, preset)?;
        }
        Ok(())
    }

    fn choose(
        &self,
        t: TransIdx,
        rem: &[usize],
        fixed: &[u32],
        chosen: &mut Vec<u32>,
        found: &mut Vec<(TransIdx, Vec<u32>)>,
    ) {
        let i = chosen.len();
        if i == rem.len() {
            let mut preset: Vec<u32> = fixed.iter().chain(chosen.iter()).copied().collect();
            preset.sort_unstable();
            found.push((t, preset));
            return;
        }
        for &d in &self.buckets[rem[i]] {
            if chosen.iter().all(|&x| self.co.is_co(&self.prefix, x, d)) {
                chosen.push(d);
                self.choose(t, rem, fixed, chosen, found);
                chosen.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests;
