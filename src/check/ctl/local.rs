//! The on-the-fly local engine: a subformula is evaluated at a state only when its value is
//! asked for, markings are generated as the searches reach them, and the check ends as soon
//! as the root's value at the initial marking is known.
//!
//! `E[φ U ψ]` and `EG φ` are decided by a depth-first search from the state asked about,
//! through states satisfying φ (and not ψ), evaluating the operands on demand (their own
//! searches nest, one per temporal operator). Values are kept per (node, state) and reused
//! only where they are sure:
//! - when the search finds its goal (a ψ-state; a cycle of φ-states, or a φ-deadlock, which
//!   ends a maximal path or stutters forever), the states on the search stack have a path to
//!   it and are *true*; the other visited states learnt nothing and are forgotten;
//! - when the search ends without a goal, every visited state is *false*: all its φ-paths
//!   stay in the visited, acyclic region and end in a state where the operator failed.
//!
//! Successor lists are kept once computed (nested searches ask for them again).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::formula::{Ctl, Node, NodeId};
use super::{DeadlockRule, Trace};
use crate::check::explicit::NetMarking;
use crate::explore::limits::{Limits, StopReason};
use crate::model::net::TransIdx;
use crate::model::net_system::NetSystem;
use crate::system::{Overflow, System};

/// Why an evaluation ended without a value.
#[derive(Debug)]
pub(super) enum Halt {
    /// A limit struck.
    Stop(StopReason),
    /// A counter did not fit (the caller widens the counters and starts over).
    Overflow(Overflow),
}

impl From<Overflow> for Halt {
    fn from(o: Overflow) -> Halt {
        Halt::Overflow(o)
    }
}

/// How often (in units of work: states expanded, search steps) the limits are checked.
const CHECK_EVERY: u64 = 4096;

/// A successor list not computed yet.
const UNEXPANDED: u32 = u32::MAX;

/// The markings reached, each once, with their successor lists once computed; kept from one
/// formula to the next of a [`super::Checker`].
pub(super) struct Store {
    words: usize,
    arena: Vec<u64>,
    table: HashTable<u32>,
    hasher: FxBuildHasher,
    /// Per state: `(first edge, number of edges)`, the number [`UNEXPANDED`] until computed.
    spans: Vec<(u32, u32)>,
    /// `(successor, transition)`, the lists of the states one after another.
    edges: Vec<(u32, TransIdx)>,
}

impl Store {
    pub(super) fn new(words: usize) -> Store {
        Store {
            words,
            arena: Vec::new(),
            table: HashTable::new(),
            hasher: FxBuildHasher,
            spans: Vec::new(),
            edges: Vec::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.spans.len()
    }

    fn state(&self, s: u32) -> &[u64] {
        let i = s as usize * self.words;
        &self.arena[i..i + self.words]
    }

    /// The id of `m`, added if new.
    fn insert(&mut self, m: &[u64]) -> u32 {
        let h = self.hasher.hash_one(m);
        let (arena, words) = (&self.arena, self.words);
        let at = |id: u32| &arena[id as usize * words..(id as usize + 1) * words];
        if let Some(&id) = self.table.find(h, |&id| at(id) == m) {
            return id;
        }
        let id = self.spans.len() as u32;
        self.arena.extend_from_slice(m);
        self.spans.push((0, UNEXPANDED));
        let (arena, hasher) = (&self.arena, &self.hasher);
        self.table.insert_unique(h, id, |&id| {
            hasher.hash_one(&arena[id as usize * words..(id as usize + 1) * words])
        });
        id
    }

    fn bytes(&self) -> u64 {
        (self.arena.capacity() * 8
            + self.table.capacity() * 5
            + self.spans.capacity() * 8
            + self.edges.capacity() * 8) as u64
    }
}

/// Memo values per (node, state).
const UNKNOWN: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
/// Visited by the running search of this node, finished.
const SEEN: u8 = 3;
/// On the stack of the running search of this node.
const ON_STACK: u8 = 4;

/// One evaluation of a formula on one system.
pub(super) struct Engine<'a, 'n> {
    sys: &'a NetSystem<'n>,
    ctl: &'a Ctl,
    limits: &'a Limits,
    rule: DeadlockRule,
    store: Store,
    /// Per node, per state; empty for nodes without memory (constants, atoms, connectives).
    memo: Vec<Vec<u8>>,
    work: u64,
    next_check: u64,
    scratch: Vec<u64>,
    next: Vec<u64>,
    enabled: Vec<TransIdx>,
    /// The node whose search at the initial state should leave its path, and that path.
    trace_of: Option<NodeId>,
    pub(super) trace: Option<Trace>,
}

/// What a search step makes of a state.
enum Visit {
    /// The goal: the search ends true. `cycle_at`: the stack position a cycle closes at.
    Goal {
        cycle_at: Option<usize>,
        complete: bool,
    },
    /// Nothing to do there.
    Skip,
    /// Search on from there.
    Push,
}

/// An entry of a search stack: the state, its next edge, its last edge, and the transition
/// that led to it.
struct Frame {
    state: u32,
    next: u32,
    end: u32,
    via: TransIdx,
}

impl<'a, 'n> Engine<'a, 'n> {
    pub(super) fn new(
        sys: &'a NetSystem<'n>,
        ctl: &'a Ctl,
        rule: DeadlockRule,
        limits: &'a Limits,
        trace_of: Option<NodeId>,
        store: Store,
    ) -> Engine<'a, 'n> {
        let words = sys.state_words();
        Engine {
            sys,
            ctl,
            limits,
            rule,
            store,
            memo: vec![Vec::new(); ctl.len()],
            work: 0,
            next_check: 0,
            scratch: vec![0; words],
            next: vec![0; words],
            enabled: Vec::new(),
            trace_of,
            trace: None,
        }
    }

    /// The markings and successor lists, for the next formula.
    pub(super) fn into_store(self) -> Store {
        self.store
    }

    /// The value of the root at the initial marking.
    pub(super) fn run(&mut self) -> Result<bool, Halt> {
        self.sys.initial_state(&mut self.scratch);
        let m0 = self.scratch.clone();
        let s0 = self.store.insert(&m0);
        self.eval(self.ctl.root, s0)
    }

    fn tick(&mut self, amount: u64) -> Result<(), Halt> {
        self.work += amount;
        if self.work >= self.next_check {
            self.next_check = self.work + CHECK_EVERY;
            self.limits.check_time().map_err(Halt::Stop)?;
            let memo: usize = self.memo.iter().map(Vec::capacity).sum();
            let bytes = self.store.bytes() + memo as u64;
            self.limits.check_memory(bytes).map_err(Halt::Stop)?;
        }
        Ok(())
    }

    fn get(&self, n: NodeId, s: u32) -> u8 {
        self.memo[n as usize]
            .get(s as usize)
            .copied()
            .unwrap_or(UNKNOWN)
    }

    fn set(&mut self, n: NodeId, s: u32, v: u8) {
        let m = &mut self.memo[n as usize];
        if m.len() <= s as usize {
            m.resize((s as usize + 1).max(m.len() * 2).max(64), UNKNOWN);
        }
        m[s as usize] = v;
    }

    /// The range of `s`'s edges, computing them the first time.
    fn expand(&mut self, s: u32) -> Result<(u32, u32), Halt> {
        let (first, count) = self.store.spans[s as usize];
        if count != UNEXPANDED {
            return Ok((first, first + count));
        }
        self.scratch.copy_from_slice(self.store.state(s));
        self.enabled.clear();
        self.sys.enabled(&self.scratch, &mut self.enabled);
        self.tick(1 + self.enabled.len() as u64)?;
        if self.store.edges.len() + self.enabled.len() >= u32::MAX as usize
            || self.store.len() >= (u32::MAX - 1) as usize
        {
            return Err(Halt::Stop(StopReason::MemoryLimit));
        }
        let first = self.store.edges.len() as u32;
        for k in 0..self.enabled.len() {
            let t = self.enabled[k];
            self.sys.fire(&self.scratch, t, &mut self.next)?;
            let next = std::mem::take(&mut self.next);
            let w = self.store.insert(&next);
            self.next = next;
            self.store.edges.push((w, t));
        }
        let count = self.enabled.len() as u32;
        self.store.spans[s as usize] = (first, count);
        Ok((first, first + count))
    }

    /// The value of node `n` at state `s`.
    fn eval(&mut self, n: NodeId, s: u32) -> Result<bool, Halt> {
        let ctl = self.ctl;
        match ctl.node(n) {
            Node::True => Ok(true),
            Node::False => Ok(false),
            Node::Atom(p) => {
                let m = NetMarking {
                    sys: self.sys,
                    state: self.store.state(s),
                };
                Ok(p.holds(&m))
            }
            Node::Not(a) => Ok(!self.eval(*a, s)?),
            Node::And(xs) => {
                for &x in xs {
                    if !self.eval(x, s)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Node::Or(xs) => {
                for &x in xs {
                    if self.eval(x, s)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Node::Ex(a) => {
                match self.get(n, s) {
                    TRUE => return Ok(true),
                    FALSE => return Ok(false),
                    _ => {}
                }
                let v = self.ex(n, *a, s)?;
                self.set(n, s, if v { TRUE } else { FALSE });
                Ok(v)
            }
            Node::Eu(..) | Node::Eg(_) => match self.get(n, s) {
                TRUE => Ok(true),
                FALSE => Ok(false),
                _ => self.search(n, s),
            },
        }
    }

    fn ex(&mut self, n: NodeId, a: NodeId, s: u32) -> Result<bool, Halt> {
        let (first, end) = self.expand(s)?;
        if first == end {
            return match self.rule {
                DeadlockRule::Stutter => self.eval(a, s),
                DeadlockRule::Maximal => Ok(false),
            };
        }
        for e in first..end {
            let (w, t) = self.store.edges[e as usize];
            if self.eval(a, w)? {
                if self.trace_of == Some(n) && s == 0 {
                    self.trace = Some(Trace {
                        prefix: vec![t],
                        cycle: Vec::new(),
                    });
                }
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// What the search of `n` (an `EU` or `EG` node) makes of state `v`; `stack` is its stack.
    fn visit(&mut self, n: NodeId, v: u32, stack: &[Frame]) -> Result<Visit, Halt> {
        match self.get(n, v) {
            TRUE => {
                return Ok(Visit::Goal {
                    cycle_at: None,
                    complete: false,
                });
            }
            FALSE | SEEN => return Ok(Visit::Skip),
            // A cycle of φ-states is the goal of `EG φ`, nothing new for `E[φ U ψ]`.
            ON_STACK if !matches!(self.ctl.node(n), Node::Eg(_)) => return Ok(Visit::Skip),
            ON_STACK => {
                let at = stack.iter().rposition(|f| f.state == v);
                return Ok(Visit::Goal {
                    cycle_at: at,
                    complete: at.is_some(),
                });
            }
            _ => {}
        }
        match *self.ctl.node(n) {
            Node::Eu(a, b) => {
                if self.eval(b, v)? {
                    self.set(n, v, TRUE);
                    return Ok(Visit::Goal {
                        cycle_at: None,
                        complete: true,
                    });
                }
                if !self.eval(a, v)? {
                    self.set(n, v, FALSE);
                    return Ok(Visit::Skip);
                }
            }
            Node::Eg(a) => {
                if !self.eval(a, v)? {
                    self.set(n, v, FALSE);
                    return Ok(Visit::Skip);
                }
            }
            _ => return Ok(Visit::Skip),
        }
        Ok(Visit::Push)
    }

    /// The value of the `EU` or `EG` node `n` at `s` (not known yet), by a depth-first
    /// search; see the module's documentation.
    fn search(&mut self, n: NodeId, s: u32) -> Result<bool, Halt> {
        let is_eg = matches!(self.ctl.node(n), Node::Eg(_));
        let mut visited: Vec<u32> = Vec::new();
        let mut stack: Vec<Frame> = Vec::new();
        let mut goal = None;
        // The first visit, then one per edge followed.
        let mut pending = Some((s, 0 as TransIdx));
        loop {
            if let Some((v, via)) = pending.take() {
                self.tick(1)?;
                match self.visit(n, v, &stack)? {
                    Visit::Goal { cycle_at, complete } => {
                        goal = Some((cycle_at, complete, via, v));
                        break;
                    }
                    Visit::Skip => {}
                    Visit::Push => {
                        let (first, end) = self.expand(v)?;
                        self.set(n, v, ON_STACK);
                        visited.push(v);
                        stack.push(Frame {
                            state: v,
                            next: first,
                            end,
                            via,
                        });
                        if is_eg && first == end {
                            // A deadlock satisfying φ: the maximal path ends (or stutters) here.
                            goal = Some((None, true, via, v));
                            break;
                        }
                    }
                }
            }
            let Some(top) = stack.last_mut() else { break };
            if top.next < top.end {
                let (w, t) = self.store.edges[top.next as usize];
                top.next += 1;
                pending = Some((w, t));
            } else {
                let done = top.state;
                stack.pop();
                self.set(n, done, SEEN);
            }
        }
        let Some((cycle_at, complete, via, v)) = goal else {
            for v in visited {
                self.set(n, v, FALSE);
            }
            return Ok(false);
        };
        if complete && self.trace_of == Some(n) && s == 0 {
            self.trace = Some(Self::path(&stack, cycle_at, via, v));
        }
        for f in &stack {
            self.set(n, f.state, TRUE);
        }
        for v in visited {
            if self.get(n, v) != TRUE {
                self.set(n, v, UNKNOWN);
            }
        }
        Ok(true)
    }

    /// The trace of a search that reached its goal at `v` (through `via` from the top of the
    /// stack, unless `v` is the top itself).
    fn path(stack: &[Frame], cycle_at: Option<usize>, via: TransIdx, v: u32) -> Trace {
        let vias = stack.iter().skip(1).map(|f| f.via);
        let on_top = stack.last().is_some_and(|f| f.state == v) && cycle_at.is_none();
        match cycle_at {
            Some(i) => Trace {
                prefix: stack[1..=i].iter().map(|f| f.via).collect(),
                cycle: stack[i + 1..]
                    .iter()
                    .map(|f| f.via)
                    .chain(std::iter::once(via))
                    .collect(),
            },
            None if on_top || stack.is_empty() => Trace {
                prefix: vias.collect(),
                cycle: Vec::new(),
            },
            None => Trace {
                prefix: vias.chain(std::iter::once(via)).collect(),
                cycle: Vec::new(),
            },
        }
    }
}
