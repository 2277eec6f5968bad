//! Siphons that might be emptied: candidates for showing a net not live.
//!
//! A *siphon* `S` (here over the transitions that may fire: those the facts show dead never
//! fire, so they cannot refill anything) is a set of places such that every transition that
//! puts a token into `S` needs (consumes or reads) a place of `S`. Once `S` is empty it stays
//! empty: a transition that would refill it is disabled. So every transition needing a place
//! of `S` is dead from a marking where `S` is empty; if such a marking is reachable and such a
//! transition exists, the net is not live. This module only proposes siphons; a caller must
//! reach a marking that empties one (a run is the proof) before concluding anything.
//!
//! Siphons that can never be emptied are left out: those holding a place with a structural
//! lower bound, the support of a P-semiflow carrying tokens, an initially marked trap (it
//! stays marked), or a set the state equation refutes empty ([`StateEquation::refute_box`]).
//! The search asks a SAT solver for a non-empty siphon with a consumer that avoids what has
//! been excluded, shrinks what it gets to a smaller siphon, and goes on until it has enough
//! candidates, runs out of sets or reaches its deadline. When it runs out of sets
//! ([`no_siphon_empties`]), no siphon with a consumer is ever empty: a free-choice net is then
//! live (`check::global`).

use std::time::Instant;

use batsat::{Callbacks, Lit, Solver, SolverInterface, SolverOpts, lbool};

use super::Facts;
use super::state_equation::{MarkingBox, StateEquation};
use super::traps::TrapFinder;
use crate::model::net::{Net, PlaceIdx, TransIdx};

/// The most SAT rounds of one search.
const MAX_ROUNDS: usize = 2_000;

/// Stops the solver at the deadline.
struct Deadline(Instant);

impl Callbacks for Deadline {
    fn stop(&self) -> bool {
        Instant::now() >= self.0
    }
}

/// Whether `set` (by place) is a siphon of `net` over the transitions not in `dead`: every
/// such transition putting a token into it needs a place of it. Checked on the net itself,
/// whatever produced the set.
pub fn is_siphon(net: &Net, dead: &[bool], set: &[bool]) -> bool {
    net.transitions.iter().enumerate().all(|(t, tr)| {
        dead.get(t).copied().unwrap_or(false)
            || !tr.post.iter().any(|a| set[a.place as usize])
            || tr
                .pre
                .iter()
                .chain(&tr.reads)
                .any(|a| set[a.place as usize])
    })
}

/// The transitions (not in `dead`) that need a place of `set`: dead once `set` is an empty
/// siphon.
pub fn consumers(net: &Net, dead: &[bool], set: &[bool]) -> Vec<TransIdx> {
    (0..net.transitions.len())
        .filter(|&t| !dead.get(t).copied().unwrap_or(false))
        .filter(|&t| {
            let tr = &net.transitions[t];
            tr.pre
                .iter()
                .chain(&tr.reads)
                .any(|a| set[a.place as usize])
        })
        .map(|t| t as TransIdx)
        .collect()
}

/// The largest siphon (over the transitions not in `dead`) inside `set`: the greatest
/// fixpoint dropping every place that a transition fills without needing a place left.
fn largest_siphon_within(net: &Net, dead: &[bool], set: &[bool]) -> Vec<bool> {
    let mut inside = set.to_vec();
    loop {
        let mut changed = false;
        for (t, tr) in net.transitions.iter().enumerate() {
            if dead.get(t).copied().unwrap_or(false)
                || tr
                    .pre
                    .iter()
                    .chain(&tr.reads)
                    .any(|a| inside[a.place as usize])
            {
                continue;
            }
            for a in &tr.post {
                changed |= std::mem::replace(&mut inside[a.place as usize], false);
            }
        }
        if !changed {
            return inside;
        }
    }
}

/// Up to `max` siphons of `net` that nothing here shows can never be emptied, each with a
/// consumer, found until `deadline` (see the module documentation). Each is a siphon over the
/// transitions the facts do not show dead ([`is_siphon`] holds of it).
pub fn emptiable_siphons(
    net: &Net,
    facts: &Facts,
    deadline: Instant,
    max: usize,
) -> Vec<Vec<PlaceIdx>> {
    search(net, facts, deadline, max).0
}

/// Whether the search of [`emptiable_siphons`] runs out of sets before `deadline` without a
/// candidate: then no siphon with a consumer (over the transitions the facts do not show
/// dead) is empty at any reachable marking, each being excluded by a structural lower bound,
/// a marked P-semiflow, an initially marked trap inside it or a refutation by the state
/// equation (all of which hold of every reachable marking). `false` proves nothing.
pub fn no_siphon_empties(net: &Net, facts: &Facts, deadline: Instant) -> bool {
    let (found, exhausted) = search(net, facts, deadline, 1);
    found.is_empty() && exhausted
}

/// The search of [`emptiable_siphons`]: the candidates, and whether the solver proved that no
/// other set is left (rather than stopping at `max`, the deadline or the round limit).
fn search(net: &Net, facts: &Facts, deadline: Instant, max: usize) -> (Vec<Vec<PlaceIdx>>, bool) {
    let places = net.places.len();
    let dead = facts.dead();
    let mut solver = Solver::new(SolverOpts::default(), Deadline(deadline));
    let s: Vec<Lit> = (0..places)
        .map(|_| Lit::new(solver.new_var(lbool::UNDEF, true), true))
        .collect();
    let mut clause: Vec<Lit> = Vec::new();
    let mut some_consumer: Vec<Lit> = Vec::new();
    for (t, tr) in net.transitions.iter().enumerate() {
        if dead[t] {
            continue;
        }
        let needs: Vec<Lit> = tr
            .pre
            .iter()
            .chain(&tr.reads)
            .map(|a| s[a.place as usize])
            .collect();
        // Siphon: filling a place of it needs a place of it.
        for a in &tr.post {
            clause.clear();
            clause.push(!s[a.place as usize]);
            clause.extend(&needs);
            solver.add_clause_reuse(&mut clause);
        }
        // `c`: t is a consumer, so it needs a place of the siphon.
        if !needs.is_empty() {
            let c = Lit::new(solver.new_var(lbool::UNDEF, true), true);
            clause.clear();
            clause.push(!c);
            clause.extend(&needs);
            solver.add_clause_reuse(&mut clause);
            some_consumer.push(c);
        }
    }
    if !solver.add_clause_reuse(&mut some_consumer) {
        return (Vec::new(), true);
    }
    for (p, &lit) in s.iter().enumerate() {
        if facts.lower(p as PlaceIdx) >= 1 {
            clause.clear();
            clause.push(!lit);
            solver.add_clause_reuse(&mut clause);
        }
    }
    for flow in &facts.semiflows().flows {
        if flow.value(|p| facts.initial(p)) > 0 {
            clause.clear();
            clause.extend(flow.places().map(|p| !s[p as usize]));
            solver.add_clause_reuse(&mut clause);
        }
    }
    let lp = StateEquation::without(net, dead);
    let marked: Vec<bool> = net.places.iter().map(|p| p.initial > 0).collect();
    let traps = TrapFinder::new(net);
    let holds_marked_trap = |set: &[bool]| {
        traps
            .largest_within(set)
            .iter()
            .any(|&p| marked[p as usize])
    };
    let mut found = Vec::new();
    let mut exhausted = false;
    for _ in 0..MAX_ROUNDS {
        if found.len() >= max {
            break;
        }
        let answer = solver.solve_limited(&[]);
        if answer != lbool::TRUE {
            // FALSE: no set left; UNDEF: stopped at the deadline.
            exhausted = answer == lbool::FALSE;
            break;
        }
        let set: Vec<bool> = s
            .iter()
            .map(|&l| solver.value_lit(l) == lbool::TRUE)
            .collect();
        clause.clear();
        let trap = traps.largest_within(&set);
        if trap.iter().any(|&p| marked[p as usize]) {
            clause.extend(trap.iter().map(|&p| !s[p as usize]));
            solver.add_clause_reuse(&mut clause);
            continue;
        }
        let mut empty = MarkingBox::unbounded(places);
        for (upper, &inside) in empty.upper.iter_mut().zip(&set) {
            if inside {
                *upper = Some(0);
            }
        }
        let budget = deadline.checked_duration_since(Instant::now());
        if budget.is_none() {
            break;
        }
        if let Some(r) = lp.refute_box(&empty, budget) {
            clause.extend(r.upper.iter().map(|&p| !s[p as usize]));
            solver.add_clause_reuse(&mut clause);
            continue;
        }
        // Shrink: a smaller siphon is emptied sooner. Drop places while what is left still
        // holds a siphon with a consumer and no marked trap.
        let mut siphon = set;
        for q in 0..places {
            if !siphon[q] || Instant::now() >= deadline {
                continue;
            }
            let mut fewer = siphon.clone();
            fewer[q] = false;
            let fewer = largest_siphon_within(net, dead, &fewer);
            if fewer.iter().any(|&b| b)
                && !consumers(net, dead, &fewer).is_empty()
                && !holds_marked_trap(&fewer)
            {
                siphon = fewer;
            }
        }
        let places_of: Vec<PlaceIdx> = (0..places as PlaceIdx)
            .filter(|&p| siphon[p as usize])
            .collect();
        // Look for others: none containing this one.
        clause.extend(places_of.iter().map(|&p| !s[p as usize]));
        solver.add_clause_reuse(&mut clause);
        found.push(places_of);
    }
    (found, exhausted)
}
