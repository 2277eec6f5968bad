//! The product of a net's reachability graph with a Büchi automaton, explored on the fly by
//! depth-first search, and its emptiness decided by Couvreur's SCC algorithm (1999): a stack
//! of the roots of the strongly connected components on the search path, each with the
//! acceptance sets seen inside; an accepting component is reported as soon as an edge closes
//! it, and its lasso is the counterexample: by default a short one rebuilt by breadth-first
//! searches ([`LassoShape::Shortest`]: a shortest stem to the component, then a shortest cycle
//! through every acceptance set back to the stem's end), or the search path and a cycle
//! through every acceptance set from its top ([`LassoShape::AsFound`]).
//!
//! A product state is a marking with the automaton state of the obligations it must meet; an
//! edge reads the literals of an automaton edge at the marking and fires a transition. A
//! deadlock stutters (an edge to itself without a transition), or, when paths are finite,
//! ends the path, accepted when the automaton edge needs no next position.

use std::collections::VecDeque;

use hashbrown::HashTable;
use rustc_hash::{FxHashMap, FxHashSet};

use super::automaton::{Automaton, Edge};
use super::formula::Deadlocks;
use super::stubborn::{Scratch, Stubborn};
use crate::check::explicit::NetMarking;
use crate::explore::limits::{Limits, StopReason};
use crate::model::net::TransIdx;
use crate::model::net_system::NetSystem;
use crate::property::Predicate;
use crate::system::{Overflow, System};

/// A step of a product path: a transition, or a deadlock's stutter.
pub type Step = Option<TransIdx>;

/// Which lasso the search returns for an accepting component.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LassoShape {
    /// "Shortest" counts transitions (a deadlock's stutter counts nothing). The stem is a
    /// shortest path from the initial state to the component, among the product states the
    /// search visited (every edge of the full product between them: a run of the net); the
    /// cycle starts and ends at the stem's last state, stays in the component, and is a
    /// shortest such cycle through every acceptance set (a breadth-first search over the
    /// state and the sets met so far; when the component times 2 to the number of sets
    /// exceeds [`EXACT_CYCLE_LIMIT`], the shortest path to each missing set in turn, then
    /// back). The same is built with the cycle at the state on top of the search path, and
    /// the lasso with fewer transitions kept: so it is never longer than
    /// [`LassoShape::AsFound`]'s (whose stem is a path to that state, and whose cycle is the
    /// one by sets from it). Minimal are the stem (to its end
    /// state) and the cycle (through its start state); their sum and the choice of the
    /// component are not minimised: a shorter lasso may go through states the search did not
    /// visit, start its cycle elsewhere, or end in another accepting component. The run is
    /// then shortened once more by starting the cycle earlier where the stem ends with the
    /// cycle's last transition ([`super::Lasso::roll_back`]: the product's stem often goes
    /// one lap into the cycle).
    #[default]
    Shortest,
    /// The depth-first search path at the moment the component was found, then the cycle
    /// through each missing set in turn from its top (the shape before shortest lassos; kept
    /// to measure them against).
    AsFound,
}

/// The largest product of a component's states with 2 to the number of acceptance sets for
/// which the cycle of [`LassoShape::Shortest`] is exact.
pub const EXACT_CYCLE_LIMIT: usize = 1 << 22;

/// What the emptiness check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Emptiness {
    /// An accepted path: steps from the initial marking, then steps repeated forever (empty:
    /// the path ends, or stutters, in a deadlock).
    Accepted(Vec<Step>, Vec<Step>),
    /// No accepted path.
    Empty,
    /// A limit stopped the search.
    Stopped(StopReason),
}

/// What the search counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Product states visited.
    pub states: u64,
    /// Distinct markings among them.
    pub markings: u64,
    /// Product states expanded with a stubborn set smaller than the enabled transitions.
    pub reduced: u64,
}

/// The successors of a marking, `(transition, marking)`, stubborn ones first, and how many
/// are stubborn.
type Successors = (Box<[(TransIdx, u32)]>, u32);

/// The markings met, numbered, with their atom values and their successors once computed.
struct Markings {
    words: usize,
    arena: Vec<u64>,
    table: HashTable<u32>,
    /// Atom values, `atom_words` words per marking.
    values: Vec<u64>,
    atom_words: usize,
    /// Successors `(transition, marking)`, stubborn ones first, and how many are stubborn.
    succ: Vec<Option<Successors>>,
}

/// Fx's rotate-multiply per word, then Murmur3's finaliser: Fx alone leaves packed markings,
/// which differ in a few low bits, in few buckets.
fn hash(words: &[u64]) -> u64 {
    let mut h = words.len() as u64;
    for &w in words {
        h = (h.rotate_left(5) ^ w).wrapping_mul(0x517C_C1B7_2722_0A95);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

impl Markings {
    fn get(&self, id: u32) -> &[u64] {
        let i = id as usize * self.words;
        &self.arena[i..i + self.words]
    }

    fn intern(&mut self, state: &[u64], sys: &NetSystem<'_>, atoms: &[Predicate]) -> u32 {
        let h = hash(state);
        let (words, arena) = (self.words, &self.arena);
        let at = |id: u32| &arena[id as usize * words..(id as usize + 1) * words];
        if let Some(&id) = self.table.find(h, |&id| at(id) == state) {
            return id;
        }
        let id = self.succ.len() as u32;
        self.arena.extend_from_slice(state);
        let (words, arena) = (self.words, &self.arena);
        self.table.insert_unique(h, id, |&id| {
            hash(&arena[id as usize * words..(id as usize + 1) * words])
        });
        let m = NetMarking { sys, state };
        let base = self.values.len();
        self.values.resize(base + self.atom_words, 0);
        for (k, a) in atoms.iter().enumerate() {
            if a.holds(&m) {
                self.values[base + k / 64] |= 1 << (k % 64);
            }
        }
        self.succ.push(None);
        id
    }

    fn holds(&self, id: u32, edge: &Edge) -> bool {
        let v = &self.values[id as usize * self.atom_words..];
        edge.literals
            .iter()
            .all(|&(a, pos)| ((v[a as usize / 64] >> (a % 64)) & 1 == 1) == pos)
    }

    fn bytes(&self) -> u64 {
        (self.arena.capacity() * 8
            + self.table.capacity() * 5
            + self.values.capacity() * 8
            + self.succ.capacity() * 24) as u64
    }
}

/// A state of the search path.
struct Frame {
    key: u64,
    num: u32,
    /// Successors: product key, acceptance of the edge, the step.
    succ: Vec<(u64, u64, Step)>,
    pos: usize,
    /// The step that led here.
    via: Step,
}

fn key(m: u32, q: u32) -> u64 {
    ((m as u64) << 32) | q as u64
}

fn split(k: u64) -> (u32, u32) {
    ((k >> 32) as u32, k as u32)
}

/// The search.
pub struct Search<'a, 'n> {
    sys: &'a NetSystem<'n>,
    aut: &'a Automaton,
    atoms: &'a [Predicate],
    deadlocks: Deadlocks,
    stubborn: Option<&'a Stubborn>,
    scratch: Scratch,
    markings: Markings,
    /// Search number of every product state met; 0 once its component is complete.
    num: FxHashMap<u64, u32>,
    on_path: FxHashSet<u64>,
    counts: Counts,
    enabled: Vec<TransIdx>,
    shape: LassoShape,
}

/// The expansion of a product state: its successors, or (finite paths only) the news that a
/// path may end accepted there.
enum Expand {
    Succ(Vec<(u64, u64, Step)>),
    EndsAccepted,
}

impl<'a, 'n> Search<'a, 'n> {
    /// A search of the product of `sys` with `aut`, whose literals number `atoms`.
    pub fn new(
        sys: &'a NetSystem<'n>,
        aut: &'a Automaton,
        atoms: &'a [Predicate],
        deadlocks: Deadlocks,
        stubborn: Option<&'a Stubborn>,
    ) -> Self {
        let words = sys.state_words();
        Search {
            sys,
            aut,
            atoms,
            deadlocks,
            stubborn,
            scratch: Scratch::default(),
            markings: Markings {
                words,
                arena: Vec::new(),
                table: HashTable::new(),
                values: Vec::new(),
                atom_words: atoms.len().div_ceil(64).max(1),
                succ: Vec::new(),
            },
            num: FxHashMap::default(),
            on_path: FxHashSet::default(),
            counts: Counts::default(),
            enabled: Vec::new(),
            shape: LassoShape::default(),
        }
    }

    /// The search, returning lassos of `shape`.
    pub fn with_lasso(mut self, shape: LassoShape) -> Self {
        self.shape = shape;
        self
    }

    /// What was counted so far.
    pub fn counts(&self) -> Counts {
        Counts {
            markings: self.markings.succ.len() as u64,
            ..self.counts
        }
    }

    /// The successors of marking `m` (computed once), stubborn ones first.
    fn net_successors(&mut self, m: u32) -> Result<(), Overflow> {
        if self.markings.succ[m as usize].is_some() {
            return Ok(());
        }
        let state = self.markings.get(m).to_vec();
        self.enabled.clear();
        self.sys.enabled(&state, &mut self.enabled);
        let mut order = self.enabled.clone();
        let mut stubborn = order.len();
        if let Some(s) = self.stubborn
            && order.len() > 1
        {
            let set = s.reduce(self.sys, &state, &order, &mut self.scratch);
            if set.len() < order.len() {
                stubborn = set.len();
                let rest = order.iter().filter(|t| set.binary_search(t).is_err());
                order = set.iter().chain(rest).copied().collect();
            }
        }
        let mut next = vec![0u64; state.len()];
        let mut out = Vec::with_capacity(order.len());
        for t in order {
            self.sys.fire(&state, t, &mut next)?;
            let id = self.markings.intern(&next, self.sys, self.atoms);
            out.push((t, id));
        }
        self.markings.succ[m as usize] = Some((out.into_boxed_slice(), stubborn as u32));
        Ok(())
    }

    /// The product successors of `k`, the cycle condition applied when `reduce`.
    fn expand(&mut self, k: u64, reduce: bool) -> Result<Expand, Overflow> {
        let (m, q) = split(k);
        self.net_successors(m)?;
        let aut = self.aut;
        let edges: Vec<&Edge> = aut.edges[q as usize]
            .iter()
            .filter(|e| self.markings.holds(m, e))
            .collect();
        let (succ, stubborn) = self.markings.succ[m as usize]
            .as_ref()
            .expect("successors computed");
        let mut out = Vec::new();
        if succ.is_empty() {
            match self.deadlocks {
                Deadlocks::Stutter => {
                    out.extend(edges.iter().map(|e| (key(m, e.target), e.acceptance, None)));
                }
                Deadlocks::Finite => {
                    if edges.iter().any(|e| !e.needs_next) {
                        return Ok(Expand::EndsAccepted);
                    }
                }
            }
            return Ok(Expand::Succ(out));
        }
        let take = |n: usize, out: &mut Vec<(u64, u64, Step)>| {
            out.clear();
            for e in &edges {
                for &(t, m2) in &succ[..n] {
                    out.push((key(m2, e.target), e.acceptance, Some(t)));
                }
            }
        };
        let n = *stubborn as usize;
        if reduce && n < succ.len() {
            take(n, &mut out);
            // The cycle condition: an edge back to the search path expands fully.
            if out.iter().any(|s| self.on_path.contains(&s.0)) {
                take(succ.len(), &mut out);
            } else {
                self.counts.reduced += 1;
            }
        } else {
            take(succ.len(), &mut out);
        }
        // The steps that stay at the marking first (a transition without arcs, or any whose
        // firing changes nothing): the search then closes the cycles at this marking before
        // it goes deeper. On a state space without end (an unbounded net) a depth-first search
        // that took the other steps first could dive forever past a lasso that stutters here.
        out.sort_by_key(|&(w, _, _)| split(w).0 != m);
        Ok(Expand::Succ(out))
    }

    /// Whether the product has an accepted path from the initial marking, within `limits`.
    pub fn run(&mut self, limits: &Limits) -> Result<Emptiness, Overflow> {
        let mut init = vec![0u64; self.sys.state_words()];
        self.sys.initial_state(&mut init);
        let m0 = self.markings.intern(&init, self.sys, self.atoms);
        let all = self.aut.all_sets;
        let reduce = self.stubborn.is_some();
        let mut dfs: Vec<Frame> = Vec::new();
        // Roots of the components on the path: search number, acceptance sets inside, and
        // the acceptance of the edge that entered the component.
        let mut roots: Vec<(u32, u64, u64)> = Vec::new();
        let mut live: Vec<u64> = Vec::new();
        let mut count: u32 = 0;
        let mut work: u64 = 0;
        // Pushes a new product state; `Some` when a finite path ends accepted there.
        macro_rules! push {
            ($k:expr, $acc:expr, $via:expr) => {{
                let k: u64 = $k;
                count += 1;
                self.counts.states += 1;
                self.num.insert(k, count);
                self.on_path.insert(k);
                live.push(k);
                roots.push((count, 0, $acc));
                match self.expand(k, reduce)? {
                    Expand::Succ(succ) => {
                        work += 1 + succ.len() as u64;
                        dfs.push(Frame {
                            key: k,
                            num: count,
                            succ,
                            pos: 0,
                            via: $via,
                        });
                        false
                    }
                    Expand::EndsAccepted => {
                        dfs.push(Frame {
                            key: k,
                            num: count,
                            succ: Vec::new(),
                            pos: 0,
                            via: $via,
                        });
                        true
                    }
                }
            }};
        }
        let init = key(m0, 0);
        if push!(init, 0, None) {
            return Ok(Emptiness::Accepted(Vec::new(), Vec::new()));
        }
        let mut next_check = 0u64;
        while let Some(top) = dfs.last_mut() {
            if work >= next_check {
                next_check = work + 4096;
                if let Err(r) = limits.check_time() {
                    return Ok(Emptiness::Stopped(r));
                }
                let bytes = self.markings.bytes()
                    + (self.num.capacity() * 13 + self.on_path.capacity() * 9) as u64
                    + live.capacity() as u64 * 8;
                if let Err(r) = limits.check_memory(bytes) {
                    return Ok(Emptiness::Stopped(r));
                }
                if self.num.len() >= u32::MAX as usize - 1 {
                    return Ok(Emptiness::Stopped(StopReason::MemoryLimit));
                }
            }
            if top.pos < top.succ.len() {
                let (w, acc, step) = top.succ[top.pos];
                top.pos += 1;
                match self.num.get(&w).copied() {
                    None => {
                        if push!(w, acc, step) {
                            let found: Vec<Step> = dfs.iter().skip(1).map(|f| f.via).collect();
                            // A shortest path to the state where the path ends accepted.
                            let prefix = match self.shape {
                                LassoShape::Shortest => self
                                    .stem(init, |k| k == w, limits)
                                    .map_or(found, |(steps, _)| steps),
                                LassoShape::AsFound => found,
                            };
                            return Ok(Emptiness::Accepted(prefix, Vec::new()));
                        }
                    }
                    Some(0) => {}
                    Some(nw) => {
                        // An edge back into the components on the path: merge them.
                        let mut sets = acc;
                        loop {
                            let (n, inside, entry) = roots.pop().expect("a root");
                            sets |= inside;
                            if n <= nw {
                                roots.push((n, sets, entry));
                                break;
                            }
                            sets |= entry;
                        }
                        if sets & all == all {
                            let root = roots.last().expect("a root").0;
                            if self.shape == LassoShape::Shortest {
                                let size = live
                                    .iter()
                                    .rev()
                                    .take_while(|k| self.num.get(k).is_some_and(|&n| n >= root))
                                    .count();
                                let top = dfs.last().expect("a frame").key;
                                if let Some(lasso) =
                                    self.shortest_lasso(init, top, (root, size), limits)
                                {
                                    return Ok(lasso);
                                }
                            }
                            return Ok(self.lasso(&dfs, root, limits));
                        }
                    }
                }
            } else {
                let f = dfs.pop().expect("a frame");
                self.on_path.remove(&f.key);
                if roots.last().is_some_and(|r| r.0 == f.num) {
                    roots.pop();
                    // The component is complete: none of its states is on an accepted cycle.
                    while let Some(k) = live.pop() {
                        self.num.insert(k, 0);
                        if k == f.key {
                            break;
                        }
                    }
                }
            }
        }
        Ok(Emptiness::Empty)
    }

    /// The full product successors of `k` (all of them, whatever the reduction), or none.
    fn all_successors(&mut self, k: u64) -> Vec<(u64, u64, Step)> {
        match self.expand(k, false) {
            Ok(Expand::Succ(succ)) => succ,
            // Successors were computed when the state was pushed: no overflow here; a path
            // that ends at a deadlock has none.
            Ok(Expand::EndsAccepted) | Err(_) => Vec::new(),
        }
    }

    /// The lasso of [`LassoShape::Shortest`] for the accepting component whose root has
    /// search number `root` and which has `size` states, `top` the state on top of the search
    /// path: of the two lassos whose cycle starts at the end of a shortest stem to the
    /// component, or at `top` (after a shortest stem to it), the one with fewer transitions.
    /// The second is never longer than the lasso as found: the search path is a path to
    /// `top`, and the cycle as found is [`Search::cycle_by_sets`] from `top` (which an exact
    /// cycle is not longer than).
    /// `None` if a limit stopped a search (the caller then returns the lasso as found).
    fn shortest_lasso(
        &mut self,
        init: u64,
        top: u64,
        (root, size): (u32, usize),
        limits: &Limits,
    ) -> Option<Emptiness> {
        let num = std::mem::take(&mut self.num);
        let inside = |k: u64| num.get(&k).is_some_and(|&n| n >= root);
        let visited = |k: u64| num.contains_key(&k);
        let sets = self.aut.all_sets.count_ones();
        let exact = sets < usize::BITS
            && size
                .checked_shl(sets)
                .is_some_and(|n| n <= EXACT_CYCLE_LIMIT);
        let cycle = |search: &mut Self, start: u64| {
            if exact {
                search.exact_cycle(start, inside, limits)
            } else {
                search.cycle_by_sets(start, inside, limits)
            }
        };
        let transitions = |steps: &[Step]| steps.iter().flatten().count();
        let mut best: Option<(Vec<Step>, Vec<Step>)> = None;
        if let Some((stem, start)) = self.stem_in(init, inside, visited, limits)
            && let Some(c) = cycle(self, start)
        {
            best = Some((stem, c));
        }
        if let Some((stem, _)) = self.stem_in(init, |k| k == top, visited, limits)
            && let Some(c) = cycle(self, top)
            && best.as_ref().is_none_or(|(s, b)| {
                transitions(&stem) + transitions(&c) < transitions(s) + transitions(b)
            })
        {
            best = Some((stem, c));
        }
        self.num = num;
        best.map(|(stem, cycle)| Emptiness::Accepted(stem, cycle))
    }

    /// A shortest path from `init` to a state `goal` accepts, through visited states (see
    /// [`Search::stem_in`]).
    fn stem(
        &mut self,
        init: u64,
        goal: impl Fn(u64) -> bool,
        limits: &Limits,
    ) -> Option<(Vec<Step>, u64)> {
        let num = std::mem::take(&mut self.num);
        let found = self.stem_in(init, goal, |k| num.contains_key(&k), limits);
        self.num = num;
        found
    }

    /// A path with the fewest transitions (a deadlock's stutter costs nothing) from `init` to
    /// a state `goal` accepts, through the states `visited` accepts (with every product edge
    /// between them), and the state it ends in; `None` if there is none or a limit stopped the
    /// search.
    fn stem_in(
        &mut self,
        init: u64,
        goal: impl Fn(u64) -> bool,
        visited: impl Fn(u64) -> bool,
        limits: &Limits,
    ) -> Option<(Vec<Step>, u64)> {
        let next = |search: &mut Self, k: u64| {
            let succ = search.all_successors(k);
            succ.into_iter()
                .filter(|&(w, _, _)| visited(w))
                .map(|(w, _, step)| (w, step))
                .collect()
        };
        self.fewest_transitions(init, goal, next, limits)
    }

    /// A shortest cycle (in transitions) from `start` back to it through states `inside`
    /// accepts, whose edges meet every acceptance set: a search over a state, the sets met so
    /// far, and whether a step was taken. `None` if there is none or a limit stopped the
    /// search.
    fn exact_cycle(
        &mut self,
        start: u64,
        inside: impl Fn(u64) -> bool,
        limits: &Limits,
    ) -> Option<Vec<Step>> {
        let all = self.aut.all_sets;
        let next = |search: &mut Self, (k, sets, _): (u64, u64, bool)| {
            let succ = search.all_successors(k);
            succ.into_iter()
                .filter(|&(w, _, _)| inside(w))
                .map(|(w, acc, step)| ((w, (sets | acc) & all, true), step))
                .collect()
        };
        let goal = |node| node == (start, all, true);
        self.fewest_transitions((start, 0, false), goal, next, limits)
            .map(|(steps, _)| steps)
    }

    /// A path with the fewest transitions from `origin` to a node `goal` accepts, the nodes
    /// and steps out of each given by `next` (a breadth-first search in which a stutter costs
    /// nothing: 0-1 BFS), and the node it ends in; `None` if there is none or a limit stopped
    /// the search.
    fn fewest_transitions<N: Copy + Eq + std::hash::Hash>(
        &mut self,
        origin: N,
        goal: impl Fn(N) -> bool,
        next: impl Fn(&mut Self, N) -> Vec<(N, Step)>,
        limits: &Limits,
    ) -> Option<(Vec<Step>, N)> {
        // Per node: transitions from the origin, and the node and step it was reached by.
        let mut best: FxHashMap<N, (u32, Option<(N, Step)>)> = FxHashMap::default();
        best.insert(origin, (0, None));
        let mut queue = VecDeque::from([(origin, 0u32)]);
        let mut pops = 0u32;
        while let Some((n, d)) = queue.pop_front() {
            if best[&n].0 < d {
                continue;
            }
            pops = pops.wrapping_add(1);
            if pops.is_multiple_of(256) && limits.check_time().is_err() {
                return None;
            }
            if goal(n) {
                let mut path = Vec::new();
                let mut c = n;
                while let Some((p, s)) = best[&c].1 {
                    path.push(s);
                    c = p;
                }
                path.reverse();
                return Some((path, n));
            }
            for (w, step) in next(self, n) {
                let dw = d + u32::from(step.is_some());
                if best.get(&w).is_some_and(|&(e, _)| e <= dw) {
                    continue;
                }
                best.insert(w, (dw, Some((n, step))));
                if step.is_some() {
                    queue.push_back((w, dw));
                } else {
                    queue.push_front((w, dw));
                }
            }
        }
        None
    }

    /// A cycle from `start` back to it through states `inside` accepts that meets every
    /// acceptance set: a shortest path to an edge of a missing set, from there to the next,
    /// then a shortest path back. `None` if a search found nothing or a limit stopped it.
    fn cycle_by_sets(
        &mut self,
        start: u64,
        inside: impl Fn(u64) -> bool,
        limits: &Limits,
    ) -> Option<Vec<Step>> {
        let mut cycle: Vec<Step> = Vec::new();
        let mut at = start;
        let mut missing = self.aut.all_sets;
        loop {
            let done = missing == 0;
            let mut parent: FxHashMap<u64, (u64, Step)> = FxHashMap::default();
            let mut queue = VecDeque::from([at]);
            let mut reached: Option<(u64, u64, Step, u64)> = None;
            'bfs: while let Some(k) = queue.pop_front() {
                if limits.check_time().is_err() {
                    return None;
                }
                for (w, acc, step) in self.all_successors(k) {
                    if !inside(w) {
                        continue;
                    }
                    let wanted = if done { w == start } else { acc & missing != 0 };
                    if wanted {
                        reached = Some((k, w, step, acc));
                        break 'bfs;
                    }
                    if w != at && !parent.contains_key(&w) {
                        parent.insert(w, (k, step));
                        queue.push_back(w);
                    }
                }
            }
            let (k, w, step, acc) = reached?;
            let mut path = vec![step];
            let mut c = k;
            while c != at {
                let (p, s) = parent[&c];
                path.push(s);
                c = p;
            }
            path.reverse();
            cycle.extend(path);
            missing &= !acc;
            at = w;
            if done {
                return Some(cycle);
            }
        }
    }

    /// The lasso of [`LassoShape::AsFound`] for the accepting component whose root has search
    /// number `root`: the search path to its top, then [`Search::cycle_by_sets`] from there.
    fn lasso(&mut self, dfs: &[Frame], root: u32, limits: &Limits) -> Emptiness {
        let prefix: Vec<Step> = dfs.iter().skip(1).map(|f| f.via).collect();
        let start = dfs.last().expect("a frame").key;
        let num = std::mem::take(&mut self.num);
        let cycle = self.cycle_by_sets(start, |k| num.get(&k).is_some_and(|&n| n >= root), limits);
        self.num = num;
        match cycle {
            Some(cycle) => Emptiness::Accepted(prefix, cycle),
            None if limits.check_time().is_err() => Emptiness::Stopped(StopReason::Timeout),
            // Not expected: the component is strongly connected and accepting.
            None => Emptiness::Stopped(StopReason::Interrupted),
        }
    }
}
