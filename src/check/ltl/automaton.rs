//! The tableau: an LTL formula in negation normal form becomes a generalised Büchi automaton
//! with acceptance on transitions, in the style of Gerth, Peled, Vardi and Wolper (1995).
//!
//! A state is a set of obligations (formulas that must hold from the current position on).
//! Expanding it splits disjunctions, `U` and `R` into *covers*: the literals that must hold
//! now, the obligations of the next position, and the `U` formulas the cover fulfils or does
//! not need. Each cover is an edge to the state of its next obligations. An accepting run
//! takes, for every `U` formula, infinitely many edges that fulfil it (acceptance set `k` of
//! the `k`-th `U` formula). Covers implied by a weaker one are dropped.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use super::formula::Ltl;

/// A literal: atom index and polarity.
pub type Literal = (u32, bool);

/// An edge of the automaton, read at the current position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Literals that must hold at the current state (sorted).
    pub literals: Vec<Literal>,
    /// The state of the next position's obligations.
    pub target: u32,
    /// The acceptance sets the edge belongs to (bit `k`: the `k`-th `U` formula).
    pub acceptance: u64,
    /// Whether the next obligations need a next position (a strong `X`, or a `U` put off):
    /// on finite paths, a path may end with an edge that does not.
    pub needs_next: bool,
}

/// A generalised Büchi automaton with acceptance on edges; state 0 is initial.
#[derive(Clone, Debug)]
pub struct Automaton {
    /// The edges out of each state.
    pub edges: Vec<Vec<Edge>>,
    /// Bits of every acceptance set.
    pub all_sets: u64,
}

/// Why the tableau was not built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TooLarge {
    /// More states or edges than the bound.
    #[error("the formula's automaton has more than {0} states or edges")]
    Size(usize),
    /// More `U` formulas than acceptance bits.
    #[error("the formula has more than 64 until subformulas")]
    Untils,
}

/// The most states or edges built.
const MAX_SIZE: usize = 100_000;

/// A formula of the tableau, its operands numbered.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    Bool(bool),
    Lit(u32, bool),
    And(Vec<u32>),
    Or(Vec<u32>),
    Next(u32),
    WeakNext(u32),
    /// The operands and the acceptance bit.
    Until(u32, u32, u32),
    Release(u32, u32),
}

#[derive(Default)]
struct Arena {
    nodes: Vec<Node>,
    index: FxHashMap<Node, u32>,
    untils: u32,
}

impl Arena {
    fn intern(&mut self, f: &Ltl) -> Result<u32, TooLarge> {
        let node = match f {
            Ltl::Bool(b) => Node::Bool(*b),
            Ltl::Lit(a, p) => Node::Lit(*a, *p),
            Ltl::And(fs) => Node::And(
                fs.iter()
                    .map(|g| self.intern(g))
                    .collect::<Result<_, _>>()?,
            ),
            Ltl::Or(fs) => Node::Or(
                fs.iter()
                    .map(|g| self.intern(g))
                    .collect::<Result<_, _>>()?,
            ),
            Ltl::Next(g) => Node::Next(self.intern(g)?),
            Ltl::WeakNext(g) => Node::WeakNext(self.intern(g)?),
            Ltl::Until(a, b) => {
                let (a, b) = (self.intern(a)?, self.intern(b)?);
                // The bit is given at first sight: look the formula up without it.
                if let Some(&id) =
                    (0..self.untils).find_map(|k| self.index.get(&Node::Until(a, b, k)))
                {
                    return Ok(id);
                }
                if self.untils == 64 {
                    return Err(TooLarge::Untils);
                }
                self.untils += 1;
                Node::Until(a, b, self.untils - 1)
            }
            Ltl::Release(a, b) => Node::Release(self.intern(a)?, self.intern(b)?),
        };
        if let Some(&id) = self.index.get(&node) {
            return Ok(id);
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(node.clone());
        self.index.insert(node, id);
        Ok(id)
    }
}

/// A cover under construction.
#[derive(Clone, Default)]
struct Partial {
    todo: Vec<u32>,
    old: BTreeSet<u32>,
    literals: BTreeSet<Literal>,
    next: BTreeSet<u32>,
    needs_next: bool,
}

/// A finished cover: literals, next obligations, acceptance, whether a next position is
/// needed.
type Cover = (Vec<Literal>, Vec<u32>, u64, bool);

impl Arena {
    /// Every cover of the obligations `now`.
    fn covers(&self, now: &[u32], budget: &mut usize) -> Result<Vec<Cover>, TooLarge> {
        let mut out: Vec<Cover> = Vec::new();
        let mut stack = vec![Partial {
            todo: now.to_vec(),
            ..Partial::default()
        }];
        'partial: while let Some(mut p) = stack.pop() {
            while let Some(f) = p.todo.pop() {
                if !p.old.insert(f) {
                    continue;
                }
                match &self.nodes[f as usize] {
                    Node::Bool(true) => {}
                    Node::Bool(false) => continue 'partial,
                    Node::Lit(a, pos) => {
                        if p.literals.contains(&(*a, !pos)) {
                            continue 'partial;
                        }
                        p.literals.insert((*a, *pos));
                    }
                    Node::And(gs) => p.todo.extend(gs),
                    Node::Or(gs) => {
                        for &g in &gs[1..] {
                            let mut q = p.clone();
                            q.todo.push(g);
                            stack.push(q);
                        }
                        p.todo.push(gs[0]);
                    }
                    Node::Next(g) => {
                        p.next.insert(*g);
                        p.needs_next = true;
                    }
                    Node::WeakNext(g) => {
                        p.next.insert(*g);
                    }
                    Node::Until(a, b, _) => {
                        // ψ now, or φ now and φ U ψ next.
                        let mut q = p.clone();
                        q.todo.push(*a);
                        q.next.insert(f);
                        q.needs_next = true;
                        stack.push(q);
                        p.todo.push(*b);
                    }
                    Node::Release(a, b) => {
                        // φ and ψ now, or ψ now and φ R ψ next.
                        let mut q = p.clone();
                        q.todo.push(*b);
                        q.next.insert(f);
                        stack.push(q);
                        p.todo.push(*a);
                        p.todo.push(*b);
                    }
                }
            }
            if *budget == 0 {
                return Err(TooLarge::Size(MAX_SIZE));
            }
            *budget -= 1;
            let mut acceptance = 0u64;
            for (id, node) in self.nodes.iter().enumerate() {
                if let Node::Until(_, b, k) = node
                    && (!p.old.contains(&(id as u32)) || p.old.contains(b))
                {
                    acceptance |= 1 << k;
                }
            }
            out.push((
                p.literals.into_iter().collect(),
                p.next.into_iter().collect(),
                acceptance,
                p.needs_next,
            ));
        }
        out.sort();
        out.dedup();
        Ok(prune(out))
    }
}

/// Drops covers implied by another: fewer literals, fewer next obligations, more acceptance
/// sets, no more need of a next position.
fn prune(covers: Vec<Cover>) -> Vec<Cover> {
    if covers.len() > 256 {
        return covers;
    }
    let subset = |a: &[u32], b: &[u32]| a.iter().all(|x| b.binary_search(x).is_ok());
    let lit_subset = |a: &[Literal], b: &[Literal]| a.iter().all(|x| b.binary_search(x).is_ok());
    let implies = |c: &Cover, d: &Cover| {
        lit_subset(&c.0, &d.0) && subset(&c.1, &d.1) && c.2 & d.2 == d.2 && (!c.3 || d.3)
    };
    let mut keep = vec![true; covers.len()];
    for i in 0..covers.len() {
        for j in 0..covers.len() {
            // Of two equal covers (not possible after dedup) only one would go.
            if i != j && keep[j] && implies(&covers[j], &covers[i]) {
                keep[i] = false;
                break;
            }
        }
    }
    covers
        .into_iter()
        .zip(keep)
        .filter_map(|(c, k)| k.then_some(c))
        .collect()
}

/// The automaton of the paths satisfying `f`.
pub fn build(f: &Ltl) -> Result<Automaton, TooLarge> {
    let mut arena = Arena::default();
    let root = arena.intern(f)?;
    let all_sets = if arena.untils == 64 {
        u64::MAX
    } else {
        (1u64 << arena.untils) - 1
    };
    let mut states: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
    let mut obligations: Vec<Vec<u32>> = vec![vec![root]];
    states.insert(vec![root], 0);
    let mut edges: Vec<Vec<Edge>> = Vec::new();
    let mut budget = MAX_SIZE;
    while edges.len() < obligations.len() {
        let now = obligations[edges.len()].clone();
        let mut out = Vec::new();
        for (literals, next, acceptance, needs_next) in arena.covers(&now, &mut budget)? {
            let fresh = obligations.len() as u32;
            let target = *states.entry(next.clone()).or_insert(fresh);
            if target == fresh {
                if obligations.len() >= MAX_SIZE {
                    return Err(TooLarge::Size(MAX_SIZE));
                }
                obligations.push(next);
            }
            out.push(Edge {
                literals,
                target,
                acceptance,
                needs_next,
            });
        }
        edges.push(out);
    }
    Ok(Automaton { edges, all_sets })
}

impl Automaton {
    /// Number of states.
    pub fn len(&self) -> usize {
        self.edges.len()
    }

    /// Whether the automaton has no state (never: state 0 exists).
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finally_has_one_accepting_loop() {
        // F a: the initial state waits (not accepting) or sees a and moves to `true`.
        let a = build(&Ltl::finally(Ltl::Lit(0, true))).unwrap();
        assert_eq!(a.all_sets, 1);
        assert_eq!(a.len(), 2);
        let init = &a.edges[0];
        assert!(
            init.iter()
                .any(|e| e.literals == vec![(0, true)] && e.acceptance == 1)
        );
        assert!(
            init.iter()
                .any(|e| e.literals.is_empty() && e.acceptance == 0)
        );
    }

    #[test]
    fn contradictions_have_no_edge() {
        let f = Ltl::And(vec![Ltl::Lit(0, true), Ltl::Lit(0, false)]);
        assert!(build(&f).unwrap().edges[0].is_empty());
    }
}
