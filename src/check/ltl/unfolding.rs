//! LTL-X on the net unfolding, after Esparza and Heljanko ("A new unfolding approach to LTL
//! model checking", ICALP 2000): the Büchi automaton of the negated formula moves only with
//! the *visible* transitions (those that may change an atom's value), so in the unfolding of
//! the net synchronised with it the visible events are totally ordered (they all take the
//! automaton's token), while the invisible ones stay concurrent.
//!
//! The search here is over the *visible steps* of that unfolding. A node is a product state
//! `(M, q)`: the marking of the local configuration of a visible event (or the initial
//! marking) and the automaton's state after it. From `M`, the invisible transitions are
//! unfolded ([`Local`]: events cut off where their local configuration repeats the marking of
//! one in their own past, or `M` itself); every visible event that extends this prefix is a
//! step to the marking of its local configuration, taken with every automaton edge whose
//! literals hold at `M` (invisible transitions change no atom, so `M`'s valuation is the one
//! the visible event fires at). Then, on the infinite and the finite maximal runs:
//!
//! - *infinitely many visible transitions* (Esparza and Heljanko's successful terminals of
//!   type I): a reachable cycle of steps whose edges meet every acceptance set, found by
//!   Tarjan's components over the nodes;
//! - *finitely many* (type II, the illegal livelocks; and the deadlocks, which the contest
//!   reads as repeating forever, as [`super::formula::Deadlocks::Stutter`] says): a node
//!   `(M, q)` where the automaton accepts `M`'s valuation repeated forever from `q`, and from
//!   which the invisible transitions alone run forever (the invisible prefix has a cut-off
//!   event: its local configuration repeats a marking of its own past) or reach a marking
//!   where no transition is enabled (an explicit search over the invisible transitions).
//!
//! Why nothing is missed. A step's local configuration with an invisible event `e` above an
//! `e'` of the same marking can lose `[e] \ [e']` and what follows shifted down: the same
//! visible transition reaches the same marking, so every target of a step is found within
//! the cut prefix; an infinite invisible run gives an infinite causal chain in the invisible
//! unfolding (König), whose markings repeat. Why nothing is wrong: every step is a firing
//! sequence between the two markings, so a cycle of steps is a cycle of the net, and its
//! visible transitions read exactly the valuations the automaton's edges were taken at; the
//! formula has no next operator, so its language is closed under stuttering and the
//! invisible transitions in between do not matter.
//!
//! Scope: ordinary nets whose reachable markings are safe (read arcs are read as a
//! consume-and-produce pair, which on a safe net has the same runs), formulas without next,
//! the contest's reading of deadlocks. A second token on a place, seen where a condition
//! would become concurrent with one of the same place, stops the search without a verdict.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};

use super::automaton::{self, Automaton, Literal};
use super::formula::{self, Deadlocks, Ltl, LtlQuestion};
use super::stubborn::Stubborn;
use super::{Lasso, LtlOutcome};
use crate::explore::limits::{Limits, StopReason};
use crate::model::net::{Net, PlaceIdx, TransIdx};
use crate::property::{Marking, Predicate};

/// A set of small integers as words of bits.
type Bits = Vec<u64>;

fn has(b: &[u64], i: usize) -> bool {
    b.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1)
}

fn put(b: &mut Bits, i: usize) {
    if b.len() <= i / 64 {
        b.resize(i / 64 + 1, 0);
    }
    b[i / 64] |= 1u64 << (i % 64);
}

fn ones(b: &[u64]) -> impl Iterator<Item = usize> + '_ {
    b.iter().enumerate().flat_map(|(k, &w)| {
        let mut w = w;
        std::iter::from_fn(move || {
            (w != 0).then(|| {
                let i = w.trailing_zeros() as usize;
                w &= w - 1;
                k * 64 + i
            })
        })
    })
}

fn union_into(a: &mut Bits, b: &[u64]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x |= y;
    }
}

fn intersect_into(a: &mut Bits, b: &[u64]) {
    a.truncate(b.len());
    for (x, y) in a.iter_mut().zip(b) {
        *x &= y;
    }
}

/// What the search counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnfoldingCounts {
    /// Nodes of the search: product states reached by visible steps.
    pub nodes: u64,
    /// Distinct markings among them.
    pub markings: u64,
    /// Events of the invisible prefixes (visible events on top of them included).
    pub events: u64,
    /// Markings visited by the explicit search for deadlocks behind invisible transitions.
    pub deadlock_states: u64,
}

/// Checks the LTL question `q` on `net` by the unfolding; `None` in the outcome's verdict
/// when the net or the formula is outside the method's scope (`unsupported` says why) or a
/// limit stopped it.
pub fn check_question(
    net: &Net,
    q: &LtlQuestion,
    limits: &Limits,
    deadlocks: Deadlocks,
) -> (LtlOutcome, UnfoldingCounts) {
    let mut outcome = LtlOutcome::default();
    let mut counts = UnfoldingCounts::default();
    if deadlocks != Deadlocks::Stutter {
        outcome.unsupported = Some("the unfolding reads deadlocks as repeating forever".into());
        return (outcome, counts);
    }
    let negation = formula::simplify(q.path.negation(deadlocks), deadlocks);
    if let Ltl::Bool(b) = negation {
        outcome.verdict = Some(q.answer(!b));
        return (outcome, counts);
    }
    if !negation.is_next_free() {
        outcome.unsupported = Some("the unfolding checks formulas without next (LTL-X)".into());
        return (outcome, counts);
    }
    let plain = match Plain::of(net, &q.atoms) {
        Ok(p) => p,
        Err(why) => {
            outcome.unsupported = Some(why.into());
            return (outcome, counts);
        }
    };
    let aut = match automaton::build(&negation) {
        Ok(a) => a,
        Err(e) => {
            outcome.unsupported = Some(e.to_string());
            return (outcome, counts);
        }
    };
    outcome.automaton_states = aut.len();
    let mut search = Search::new(&plain, &aut, &q.atoms, limits);
    let result = search.run();
    counts = UnfoldingCounts {
        nodes: search.nodes.len() as u64,
        markings: search.markings.len() as u64,
        events: search.budget.events,
        deadlock_states: search.budget.deadlock_states,
    };
    outcome.states = counts.nodes;
    outcome.markings = counts.markings;
    match result {
        Ok(None) => outcome.verdict = Some(q.answer(true)),
        Ok(Some(mut lasso)) => {
            lasso.roll_back();
            outcome.verdict = Some(q.answer(false));
            outcome.counterexample = Some(lasso);
        }
        Err(Halt::Stopped(r)) => outcome.stopped = Some(r),
        Err(Halt::Unsafe) => {
            outcome.unsupported =
                Some("the net is not safe (a reachable marking puts two tokens on a place)".into())
        }
    }
    (outcome, counts)
}

/// Why the search ended without a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Halt {
    Stopped(StopReason),
    Unsafe,
}

/// The net as the search reads it: places as bits, read arcs as a taken and given token.
struct Plain {
    /// Input places of each transition (its read places included), sorted.
    pre: Vec<Vec<PlaceIdx>>,
    /// Output places of each transition (its read places included), sorted.
    post: Vec<Vec<PlaceIdx>>,
    /// The transitions that take a token from each place.
    consumers: Vec<Vec<TransIdx>>,
    /// Whether each transition may change an atom's value.
    visible: Vec<bool>,
    /// The initial marking.
    initial: Bits,
    /// A transition without arcs, if there is one.
    idle: Option<TransIdx>,
}

impl Plain {
    fn of(net: &Net, atoms: &[Predicate]) -> Result<Plain, &'static str> {
        let words = net.places.len().div_ceil(64).max(1);
        let mut initial = vec![0u64; words];
        for (p, place) in net.places.iter().enumerate() {
            match place.initial {
                0 => {}
                1 => put(&mut initial, p),
                _ => return Err("the unfolding checks safe nets: a place starts with two tokens"),
            }
        }
        let mut pre = Vec::with_capacity(net.transitions.len());
        let mut post = Vec::with_capacity(net.transitions.len());
        let mut consumers = vec![Vec::new(); net.places.len()];
        let mut idle = None;
        for (t, tr) in net.transitions.iter().enumerate() {
            let all = tr.pre.iter().chain(&tr.post).chain(&tr.reads);
            if all.clone().any(|a| a.weight > 1) {
                return Err("the unfolding checks safe nets: an arc of weight above 1");
            }
            let mut ins: Vec<PlaceIdx> = tr.pre.iter().chain(&tr.reads).map(|a| a.place).collect();
            ins.sort_unstable();
            ins.dedup();
            let mut outs: Vec<PlaceIdx> =
                tr.post.iter().chain(&tr.reads).map(|a| a.place).collect();
            outs.sort_unstable();
            outs.dedup();
            if ins.is_empty() {
                if !outs.is_empty() {
                    // Always enabled: it fills its output places twice.
                    return Err("the net is not safe (a transition without input place)");
                }
                // No arc at all: always enabled, changing nothing, an invisible loop anywhere.
                idle.get_or_insert(t as TransIdx);
            }
            for &p in &ins {
                consumers[p as usize].push(t as TransIdx);
            }
            pre.push(ins);
            post.push(outs);
        }
        let visible = Stubborn::new(net, atoms).visible().to_vec();
        Ok(Plain {
            pre,
            post,
            consumers,
            visible,
            initial,
            idle,
        })
    }

    fn transitions(&self) -> usize {
        self.pre.len()
    }

    fn enabled(&self, m: &[u64], t: TransIdx) -> bool {
        self.pre[t as usize].iter().all(|&p| has(m, p as usize))
    }

    fn dead(&self, m: &[u64]) -> bool {
        (0..self.transitions() as TransIdx).all(|t| !self.enabled(m, t))
    }

    /// Fires the enabled `t` at `m`; `false` when that puts a second token on a place.
    fn fire(&self, m: &mut Bits, t: TransIdx) -> bool {
        let (ins, outs) = (&self.pre[t as usize], &self.post[t as usize]);
        for &p in ins {
            m[p as usize / 64] &= !(1u64 << (p % 64));
        }
        for &p in outs {
            if has(m, p as usize) {
                return false;
            }
            put(m, p as usize);
        }
        true
    }
}

/// A marking shown to the predicates.
struct View<'a> {
    net: &'a Plain,
    m: &'a [u64],
}

impl Marking for View<'_> {
    fn tokens(&self, p: PlaceIdx) -> u64 {
        u64::from(has(self.m, p as usize))
    }
    fn enabled(&self, t: TransIdx) -> bool {
        self.net.enabled(self.m, t)
    }
    fn dead(&self) -> bool {
        self.net.dead(self.m)
    }
}

/// Events, time and memory spent, against the limits.
struct Budget<'a> {
    limits: &'a Limits,
    events: u64,
    deadlock_states: u64,
    bytes: u64,
    ticks: u32,
}

impl Budget<'_> {
    fn tick(&mut self, bytes: usize) -> Result<(), Halt> {
        self.bytes += bytes as u64;
        self.ticks += 1;
        if self.ticks.is_multiple_of(1024) {
            self.limits
                .check_time()
                .and_then(|_| self.limits.check_memory(self.bytes))
                .map_err(Halt::Stopped)?;
        }
        Ok(())
    }
}

/// The unfolding of the invisible transitions from one marking, and the visible events that
/// extend it.
struct Local {
    /// Per marking reached by a visible event (the marking of its local configuration): a
    /// firing sequence from the root to it, the shortest found.
    frontier: FxHashMap<Bits, Vec<TransIdx>>,
    /// An invisible run from the root that comes back to a marking it passed: the way to
    /// that marking, then the cycle.
    livelock: Option<(Vec<TransIdx>, Vec<TransIdx>)>,
}

/// No event: a condition of the root's marking.
const ROOT: u32 = u32::MAX;

/// Builds a [`Local`]: conditions and events of the invisible prefix from `root`.
struct Builder<'a, 'b> {
    net: &'a Plain,
    root: &'a [u64],
    budget: &'a mut Budget<'b>,
    /// Place of each condition.
    place: Vec<PlaceIdx>,
    /// The event that produced each condition, or [`ROOT`].
    producer: Vec<u32>,
    /// The conditions concurrent with each condition.
    co: Vec<Bits>,
    /// Conditions of each place.
    by_place: Vec<Vec<u32>>,
    /// Transition of each (invisible, not cut-off) event.
    label: Vec<TransIdx>,
    /// The local configuration of each event, itself included.
    history: Vec<Bits>,
    /// The events of each marking of a local configuration.
    marks: FxHashMap<Bits, Vec<u32>>,
    out: Local,
}

impl<'a, 'b> Builder<'a, 'b> {
    fn unfold(net: &'a Plain, root: &'a [u64], budget: &'a mut Budget<'b>) -> Result<Local, Halt> {
        let places = net.consumers.len();
        let mut b = Builder {
            net,
            root,
            budget,
            place: Vec::new(),
            producer: Vec::new(),
            co: Vec::new(),
            by_place: vec![Vec::new(); places],
            label: Vec::new(),
            history: Vec::new(),
            marks: FxHashMap::default(),
            out: Local {
                frontier: FxHashMap::default(),
                livelock: net.idle.map(|t| (Vec::new(), vec![t])),
            },
        };
        let marked: Vec<usize> = ones(root).filter(|&p| p < places).collect();
        for (i, &p) in marked.iter().enumerate() {
            let mut co = Bits::new();
            for j in (0..marked.len()).filter(|&j| j != i) {
                put(&mut co, j);
            }
            b.new_condition(p as PlaceIdx, ROOT, co);
        }
        // Conditions in the order they were made: each extension is found once, when its
        // last condition comes.
        let mut next = 0;
        while next < b.place.len() {
            b.extend_from(next as u32)?;
            next += 1;
        }
        Ok(b.out)
    }

    fn new_condition(&mut self, p: PlaceIdx, producer: u32, co: Bits) -> u32 {
        let c = self.place.len() as u32;
        self.place.push(p);
        self.producer.push(producer);
        self.co.push(co);
        self.by_place[p as usize].push(c);
        c
    }

    /// Every event whose preset holds `c` and otherwise earlier conditions.
    fn extend_from(&mut self, c: u32) -> Result<(), Halt> {
        let p = self.place[c as usize];
        let net = self.net;
        for &t in &net.consumers[p as usize] {
            let mut chosen = Vec::with_capacity(net.pre[t as usize].len());
            self.choose(t, 0, c, &mut chosen)?;
        }
        Ok(())
    }

    /// Picks a condition for the `k`-th input place of `t` and on: `c` for its own place,
    /// earlier ones concurrent with all chosen for the others.
    fn choose(&mut self, t: TransIdx, k: usize, c: u32, chosen: &mut Vec<u32>) -> Result<(), Halt> {
        let net = self.net;
        let ins = &net.pre[t as usize];
        if k == ins.len() {
            return self.add_event(t, chosen);
        }
        let q = ins[k];
        if q == self.place[c as usize] {
            chosen.push(c);
            self.choose(t, k + 1, c, chosen)?;
            chosen.pop();
            return Ok(());
        }
        let candidates: Vec<u32> = self.by_place[q as usize]
            .iter()
            .copied()
            .filter(|&d| {
                d < c
                    && has(&self.co[c as usize], d as usize)
                    && chosen
                        .iter()
                        .all(|&x| has(&self.co[x as usize], d as usize))
            })
            .collect();
        for d in candidates {
            chosen.push(d);
            self.choose(t, k + 1, c, chosen)?;
            chosen.pop();
        }
        Ok(())
    }

    fn add_event(&mut self, t: TransIdx, preset: &[u32]) -> Result<(), Halt> {
        let net = self.net;
        let mut common = self.co[preset[0] as usize].clone();
        for &b in &preset[1..] {
            intersect_into(&mut common, &self.co[b as usize]);
        }
        // A token put where a concurrent condition already has one: the net is not safe.
        for &p in &net.post[t as usize] {
            if net.pre[t as usize].binary_search(&p).is_err()
                && self.by_place[p as usize]
                    .iter()
                    .any(|&d| has(&common, d as usize))
            {
                return Err(Halt::Unsafe);
            }
        }
        let mut history = Bits::new();
        for &b in preset {
            let e = self.producer[b as usize];
            if e != ROOT {
                union_into(&mut history, &self.history[e as usize]);
            }
        }
        // Events are made after the producers of their preset: index order is a firing order.
        let run: Vec<TransIdx> = ones(&history).map(|e| self.label[e]).chain([t]).collect();
        let mut m = self.root.to_vec();
        for &u in &run {
            if !net.fire(&mut m, u) {
                return Err(Halt::Unsafe);
            }
        }
        self.budget.events += 1;
        self.budget
            .tick(8 * (history.len() + m.len() + common.len()) + 4 * run.len())?;
        if net.visible[t as usize] {
            let entry = self.out.frontier.entry(m).or_insert_with(|| run.clone());
            if run.len() < entry.len() {
                *entry = run;
            }
            return Ok(());
        }
        let e = self.label.len() as u32;
        put(&mut history, e as usize);
        // A cut-off: the marking of the root, or of an event in its own past.
        let partner = if m == self.root {
            Some(None)
        } else {
            self.marks.get(&m).and_then(|es| {
                es.iter()
                    .find(|&&x| has(&history, x as usize))
                    .map(|&x| Some(x))
            })
        };
        self.label.push(t);
        self.history.push(history);
        if let Some(partner) = partner {
            if self.out.livelock.is_none() {
                let before = partner.map(|x| self.history[x as usize].clone());
                let inside = |y: usize| before.as_ref().is_some_and(|b| has(b, y));
                let all = &self.history[e as usize];
                let stem = ones(all).filter(|&y| inside(y)).map(|y| self.label[y]);
                let cycle = ones(all).filter(|&y| !inside(y)).map(|y| self.label[y]);
                self.out.livelock = Some((stem.collect(), cycle.collect()));
            }
            return Ok(());
        }
        self.marks.entry(m).or_default().push(e);
        let outs = &net.post[t as usize];
        let first = self.place.len() as u32;
        for (i, &p) in outs.iter().enumerate() {
            let mut co = common.clone();
            for j in (0..outs.len()).filter(|&j| j != i) {
                put(&mut co, first as usize + j);
            }
            self.new_condition(p, e, co);
        }
        for d in ones(&common).collect::<Vec<_>>() {
            for j in 0..outs.len() {
                put(&mut self.co[d], first as usize + j);
            }
        }
        Ok(())
    }
}

/// The visible steps from one marking.
struct Steps {
    /// Target marking and a firing sequence reaching it.
    to: Vec<(u32, Vec<TransIdx>)>,
    livelock: Option<(Vec<TransIdx>, Vec<TransIdx>)>,
}

/// An edge of the search: a visible step with an automaton edge.
#[derive(Clone, Copy, Debug)]
struct Step {
    from: u32,
    to: u32,
    acceptance: u64,
    /// The marking the step leaves and its index among that marking's steps.
    from_marking: u32,
    index: u32,
}

struct Search<'a> {
    net: &'a Plain,
    aut: &'a Automaton,
    atoms: &'a [Predicate],
    budget: Budget<'a>,
    markings: Vec<Bits>,
    marking_ids: FxHashMap<Bits, u32>,
    steps: Vec<Option<Steps>>,
    valuations: Vec<Vec<bool>>,
    /// Per valuation: the automaton states that accept it repeated forever.
    stutter: FxHashMap<Vec<bool>, Vec<bool>>,
    /// Per marking: a run of invisible transitions to a deadlock, if one was looked for.
    deadends: FxHashMap<u32, Option<Vec<TransIdx>>>,
    nodes: Vec<(u32, u32)>,
    node_ids: FxHashMap<(u32, u32), u32>,
    /// The step each node was first reached by.
    parent: Vec<Option<Step>>,
    edges: Vec<Vec<Step>>,
}

impl<'a> Search<'a> {
    fn new(net: &'a Plain, aut: &'a Automaton, atoms: &'a [Predicate], limits: &'a Limits) -> Self {
        Search {
            net,
            aut,
            atoms,
            budget: Budget {
                limits,
                events: 0,
                deadlock_states: 0,
                bytes: 0,
                ticks: 0,
            },
            markings: Vec::new(),
            marking_ids: FxHashMap::default(),
            steps: Vec::new(),
            valuations: Vec::new(),
            stutter: FxHashMap::default(),
            deadends: FxHashMap::default(),
            nodes: Vec::new(),
            node_ids: FxHashMap::default(),
            parent: Vec::new(),
            edges: Vec::new(),
        }
    }

    fn marking(&mut self, m: Bits) -> u32 {
        if let Some(&id) = self.marking_ids.get(&m) {
            return id;
        }
        let id = self.markings.len() as u32;
        let view = View {
            net: self.net,
            m: &m,
        };
        self.valuations
            .push(self.atoms.iter().map(|a| a.holds(&view)).collect());
        self.markings.push(m.clone());
        self.marking_ids.insert(m, id);
        self.steps.push(None);
        id
    }

    /// The node `(m, q)`, made (and queued) if new, with the step that reached it first.
    fn node(&mut self, m: u32, q: u32, queue: &mut VecDeque<u32>) -> (u32, bool) {
        if let Some(&id) = self.node_ids.get(&(m, q)) {
            return (id, false);
        }
        let id = self.nodes.len() as u32;
        self.nodes.push((m, q));
        self.node_ids.insert((m, q), id);
        self.parent.push(None);
        self.edges.push(Vec::new());
        queue.push_back(id);
        (id, true)
    }

    fn steps_of(&mut self, m: u32) -> Result<(), Halt> {
        if self.steps[m as usize].is_some() {
            return Ok(());
        }
        let root = self.markings[m as usize].clone();
        let local = Builder::unfold(self.net, &root, &mut self.budget)?;
        let mut to: Vec<(Bits, Vec<TransIdx>)> = local.frontier.into_iter().collect();
        // A fixed order, so that runs and counterexamples do not depend on hashing.
        to.sort_unstable();
        let to = to
            .into_iter()
            .map(|(target, run)| (self.marking(target), run))
            .collect();
        self.steps[m as usize] = Some(Steps {
            to,
            livelock: local.livelock,
        });
        Ok(())
    }

    fn holds(&self, m: u32, lits: &[Literal]) -> bool {
        let v = &self.valuations[m as usize];
        lits.iter().all(|&(a, pos)| v[a as usize] == pos)
    }

    /// Whether the automaton accepts, from `q`, the valuation of `m` repeated forever.
    fn stutter_accepts(&mut self, m: u32, q: u32) -> bool {
        let v = self.valuations[m as usize].clone();
        if let Some(states) = self.stutter.get(&v) {
            return states[q as usize];
        }
        let aut = self.aut;
        let n = aut.edges.len();
        let usable = |s: usize| -> Vec<usize> {
            aut.edges[s]
                .iter()
                .filter(|e| e.literals.iter().all(|&(a, pos)| v[a as usize] == pos))
                .map(|e| e.target as usize)
                .collect()
        };
        let comp = components(n, &usable);
        let mut sets = vec![0u64; n];
        let mut inner = vec![false; n];
        for s in 0..n {
            for e in &aut.edges[s] {
                if e.literals.iter().all(|&(a, pos)| v[a as usize] == pos)
                    && comp[s] == comp[e.target as usize]
                {
                    sets[comp[s] as usize] |= e.acceptance;
                    inner[comp[s] as usize] = true;
                }
            }
        }
        let mut accepts: Vec<bool> = (0..n)
            .map(|s| {
                let c = comp[s] as usize;
                inner[c] && sets[c] & aut.all_sets == aut.all_sets
            })
            .collect();
        // Backwards: a state with an edge into an accepting state accepts.
        loop {
            let mut changed = false;
            for s in 0..n {
                if !accepts[s] && usable(s).iter().any(|&t| accepts[t]) {
                    accepts[s] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let answer = accepts[q as usize];
        self.stutter.insert(v, accepts);
        answer
    }

    /// A run of invisible transitions from `m` to a marking where nothing is enabled.
    fn deadend(&mut self, m: u32) -> Result<Option<Vec<TransIdx>>, Halt> {
        if let Some(found) = self.deadends.get(&m) {
            return Ok(found.clone());
        }
        let start = self.markings[m as usize].clone();
        let mut parent: FxHashMap<Bits, Option<(Bits, TransIdx)>> = FxHashMap::default();
        parent.insert(start.clone(), None);
        let mut queue = VecDeque::from([start]);
        let mut found = None;
        while let Some(x) = queue.pop_front() {
            self.budget.deadlock_states += 1;
            self.budget.tick(16 * x.len())?;
            if self.net.dead(&x) {
                let mut run = Vec::new();
                let mut cur = x;
                while let Some(Some((prev, t))) = parent.get(&cur).cloned() {
                    run.push(t);
                    cur = prev;
                }
                run.reverse();
                found = Some(run);
                break;
            }
            for t in 0..self.net.transitions() as TransIdx {
                if self.net.visible[t as usize] || !self.net.enabled(&x, t) {
                    continue;
                }
                let mut y = x.clone();
                if !self.net.fire(&mut y, t) {
                    return Err(Halt::Unsafe);
                }
                if !parent.contains_key(&y) {
                    parent.insert(y.clone(), Some((x.clone(), t)));
                    queue.push_back(y);
                }
            }
        }
        self.deadends.insert(m, found.clone());
        Ok(found)
    }

    /// The firing sequence of a step.
    fn run_of(&self, s: &Step) -> &[TransIdx] {
        let steps = self.steps[s.from_marking as usize].as_ref();
        &steps.expect("a step leaves an expanded marking").to[s.index as usize].1
    }

    /// The firing sequence from the initial marking to node `n`.
    fn stem(&self, mut n: u32) -> Vec<TransIdx> {
        let mut parts = Vec::new();
        while let Some(s) = self.parent[n as usize] {
            parts.push(s);
            n = s.from;
        }
        parts.reverse();
        parts.iter().flat_map(|s| self.run_of(s).to_vec()).collect()
    }

    /// `None`: no run violates the formula; else a lasso that does.
    fn run(&mut self) -> Result<Option<Lasso>, Halt> {
        let m0 = self.marking(self.net.initial.clone());
        let mut queue = VecDeque::new();
        self.node(m0, 0, &mut queue);
        // The components of the graph so far are looked at each time it doubles: a cycle
        // of the steps found so far is one of the whole graph.
        let mut look_at = 64;
        while let Some(n) = queue.pop_front() {
            if self.nodes.len() >= look_at {
                look_at = 2 * self.nodes.len();
                if let Some(lasso) = self.accepting_cycle() {
                    return Ok(Some(lasso));
                }
            }
            let (m, q) = self.nodes[n as usize];
            self.steps_of(m)?;
            self.budget.tick(64)?;
            // Finitely many visible transitions from here on.
            if self.stutter_accepts(m, q) {
                let steps = self.steps[m as usize].as_ref().expect("expanded");
                let tail = match &steps.livelock {
                    Some((stem, cycle)) => Some((stem.clone(), cycle.clone())),
                    None => self.deadend(m)?.map(|run| (run, Vec::new())),
                };
                if let Some((stem, cycle)) = tail {
                    let mut prefix = self.stem(n);
                    prefix.extend(stem);
                    return Ok(Some(Lasso { prefix, cycle }));
                }
            }
            let aut = self.aut;
            let count = self.steps[m as usize].as_ref().expect("expanded").to.len();
            for edge in &aut.edges[q as usize] {
                if !self.holds(m, &edge.literals) {
                    continue;
                }
                for index in 0..count {
                    let target = self.steps[m as usize].as_ref().expect("expanded").to[index].0;
                    let (to, new) = self.node(target, edge.target, &mut queue);
                    let step = Step {
                        from: n,
                        to,
                        acceptance: edge.acceptance,
                        from_marking: m,
                        index: index as u32,
                    };
                    if new {
                        self.parent[to as usize] = Some(step);
                    }
                    self.edges[n as usize].push(step);
                }
            }
        }
        Ok(self.accepting_cycle())
    }

    /// Infinitely many visible transitions: a reachable component of nodes whose inner
    /// steps meet every acceptance set, and a lasso through it.
    fn accepting_cycle(&self) -> Option<Lasso> {
        let n = self.nodes.len();
        let succ =
            |s: usize| -> Vec<usize> { self.edges[s].iter().map(|e| e.to as usize).collect() };
        let comp = components(n, &succ);
        let mut sets = vec![0u64; n];
        let mut inner = vec![false; n];
        for s in 0..n {
            for e in &self.edges[s] {
                if comp[s] == comp[e.to as usize] {
                    sets[comp[s] as usize] |= e.acceptance;
                    inner[comp[s] as usize] = true;
                }
            }
        }
        let all = self.aut.all_sets;
        let start = (0..n).find(|&s| {
            let c = comp[s] as usize;
            inner[c] && sets[c] & all == all
        })?;
        let c = comp[start];
        let within = |e: &Step| comp[e.to as usize] == c;
        let mut need = all;
        let mut cur = start as u32;
        let mut cycle: Vec<Step> = Vec::new();
        while need != 0 {
            let path = self.path(cur, &within, &|e: &Step| e.acceptance & need != 0);
            for e in &path {
                need &= !e.acceptance;
            }
            cur = path.last().expect("the component meets every set").to;
            cycle.extend(path);
        }
        if cur != start as u32 || cycle.is_empty() {
            let back = self.path(cur, &within, &|e: &Step| e.to == start as u32);
            cycle.extend(back);
        }
        Some(Lasso {
            prefix: self.stem(start as u32),
            cycle: cycle.iter().flat_map(|s| self.run_of(s).to_vec()).collect(),
        })
    }

    /// The shortest path of steps from `from` along steps `within`, ending with a step that
    /// meets `goal`.
    fn path(
        &self,
        from: u32,
        within: &dyn Fn(&Step) -> bool,
        goal: &dyn Fn(&Step) -> bool,
    ) -> Vec<Step> {
        let mut came: FxHashMap<u32, Step> = FxHashMap::default();
        let mut seen = FxHashSet::from_iter([from]);
        let mut queue = VecDeque::from([from]);
        let back = |came: &FxHashMap<u32, Step>, mut at: u32, last: Step| {
            let mut path = vec![last];
            while at != from {
                let s = came[&at];
                path.push(s);
                at = s.from;
            }
            path.reverse();
            path
        };
        while let Some(x) = queue.pop_front() {
            for e in &self.edges[x as usize] {
                if !within(e) {
                    continue;
                }
                if goal(e) {
                    return back(&came, x, *e);
                }
                if seen.insert(e.to) {
                    came.insert(e.to, *e);
                    queue.push_back(e.to);
                }
            }
        }
        unreachable!("the goal is in the component")
    }
}

/// Tarjan's strongly connected components (iterative): the component of each node.
fn components(n: usize, succ: &dyn Fn(usize) -> Vec<usize>) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut comp = vec![NONE; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut counter = 0u32;
    let mut comps = 0u32;
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        let mut calls: Vec<(usize, Vec<usize>, usize)> = vec![(root, succ(root), 0)];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some((v, next, i)) = calls.last_mut() {
            let v = *v;
            if *i < next.len() {
                let w = next[*i];
                *i += 1;
                if index[w] == NONE {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, succ(w), 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                calls.pop();
                if let Some((u, _, _)) = calls.last() {
                    low[*u] = low[*u].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = comps;
                        if w == v {
                            break;
                        }
                    }
                    comps += 1;
                }
            }
        }
    }
    comp
}
