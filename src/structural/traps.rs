//! Deadlock freedom from traps: no reachable marking is dead when every set of places that
//! could be the empty places of a dead marking contains a trap marked initially.
//!
//! *The argument.* Let `M` be a reachable dead marking and `U` its set of empty places.
//! 1. Every transition `t` that needs one token on each place it consumes from or reads is
//!    disabled at `M`, so one of those places is in `U` (weights above one need not empty a
//!    place: their transitions give no constraint).
//! 2. A place with a structural lower bound of one token or more is not in `U`, and no
//!    P-semiflow `y` with `y·M₀ > 0` has its support inside `U` (`y·M = y·M₀`).
//! 3. A *trap* `Q` (every transition consuming from `Q` puts a token back into `Q`, by an
//!    output arc, or a read arc on a place it does not consume from) marked at `M₀` stays marked in every reachable marking: firing a
//!    transition that takes a token from `Q` leaves one on `Q`. So no marked trap lies inside
//!    `U`.
//!
//! The search asks a SAT solver for a set `U` satisfying 1 and 2 and avoiding every marked
//! trap found so far; for each set it gets, it computes the largest trap inside it (the
//! classic greatest fixpoint). When that trap is marked, it is shrunk to a smaller marked trap
//! and excluded, and the search goes on; when it is empty of tokens, the set may be the empty
//! places of a dead marking and nothing is proved. When no set is left, no reachable marking
//! is dead. This decides Commoner's siphon-trap property restricted to the sets of 1 and 2,
//! so it proves at least what that property proves (deadlock freedom of ordinary nets whose
//! siphons all hold a marked trap; exact for live free-choice nets).
//!
//! *With the state equation* ([`deadlock_free_with`]). The search then speaks of one marking
//! more precisely: besides `empty[p]` (`M(p) < 1`) it has a literal `M(p) < n` for each
//! larger weight `n` a transition needs of `p` (chained: `M(p) < n → M(p) < n'` for `n < n'`),
//! and a transition needing more than one token somewhere must have one place short of what
//! it needs. A candidate whose empty places hold no marked trap describes a box of markings
//! (`M(p) ≤ n − 1` for the least level it makes true, `M(p) ≥ n` for the greatest it makes
//! false); when the state equation without the dead transitions has no solution in it
//! ([`StateEquation::refute_box`], a Farkas certificate checked exactly), the clause "one of
//! the bounds the certificate used fails" is added and the search goes on. *Soundness*: a
//! reachable dead marking `M` makes every literal true or false as it says of `M`; this
//! valuation satisfies every clause (the transition clauses because `M` is dead, the traps
//! as above, and each certificate's clause because `M` solves the state equation, so it
//! cannot keep all the bounds of a refuted box). So when no model is left, no reachable
//! marking is dead. A candidate the state equation does not refute ends the search with
//! nothing proved: a real solution of the equation is no marking, let alone a reachable one.

use std::time::Instant;

use batsat::{Callbacks, Lit, Solver, SolverInterface, SolverOpts, lbool};

use super::Facts;
use super::state_equation::{MarkingBox, Refutation, StateEquation};
use crate::model::net::{Net, PlaceIdx};

/// What the trap argument says of deadlocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrapVerdict {
    /// No reachable marking is dead; the marked traps and the state-equation refutations the
    /// proof used.
    DeadlockFree {
        /// Marked traps excluded from the candidate sets.
        traps: usize,
        /// Candidate boxes refuted by the state equation (0 without it).
        equations: usize,
    },
    /// A set of places that could be the empty places of a dead marking: it holds no marked
    /// trap (and, with the state equation, the state equation has a solution dead on it); it
    /// proves nothing either way.
    Candidate(Vec<PlaceIdx>),
    /// The deadline passed, or the search made too many rounds.
    GaveUp,
}

/// The most candidate sets tried before giving up.
const MAX_ROUNDS: usize = 20_000;

/// The most places tried out when shrinking a marked trap.
const SHRINK_TRIES: usize = 64;

/// Stops the solver at the deadline.
struct Deadline(Instant);

impl Callbacks for Deadline {
    fn stop(&self) -> bool {
        Instant::now() >= self.0
    }
}

/// Decides by the trap argument whether `net` (with its structural `facts`) is deadlock-free,
/// giving up at `deadline`.
pub fn deadlock_free(net: &Net, facts: &Facts, deadline: Instant) -> TrapVerdict {
    deadlock_free_with(net, facts, deadline, false)
}

/// [`deadlock_free`], and with `equation` the state equation too: a candidate whose empty
/// places hold no marked trap is refuted when no solution of the state equation is dead in
/// the way the candidate says (see the module documentation, *With the state equation*).
pub fn deadlock_free_with(
    net: &Net,
    facts: &Facts,
    deadline: Instant,
    equation: bool,
) -> TrapVerdict {
    let places = net.places.len();
    let mut solver = Solver::new(SolverOpts::default(), Deadline(deadline));
    // `empty[p]`: place p is in the candidate set (empty at the dead marking).
    let empty: Vec<Lit> = (0..places)
        .map(|_| Lit::new(solver.new_var(lbool::UNDEF, true), true))
        .collect();
    let mut levels = Levels::new(&empty);
    let mut clause: Vec<Lit> = Vec::new();
    // 1. Every transition needing one token per place has one of its places empty; with the
    // state equation, every transition has one place short of what it needs.
    for t in 0..net.transitions.len() {
        let needs = facts.needs(t as u32);
        if facts.is_dead(t as u32) {
            continue;
        }
        clause.clear();
        if needs.iter().any(|&(_, n)| n > 1) {
            if !equation {
                continue;
            }
            for &(p, n) in needs {
                clause.push(levels.below(&mut solver, p, n));
            }
        } else {
            clause.extend(needs.iter().map(|&(p, _)| empty[p as usize]));
        }
        if !solver.add_clause_reuse(&mut clause) {
            // A transition needing nothing that may fire: never dead.
            return TrapVerdict::DeadlockFree {
                traps: 0,
                equations: 0,
            };
        }
    }
    levels.chain(&mut solver);
    // 2. Places always marked, and the supports of semiflows carrying tokens.
    for (p, &lit) in empty.iter().enumerate() {
        if facts.lower(p as PlaceIdx) >= 1 {
            clause.clear();
            clause.push(!lit);
            solver.add_clause_reuse(&mut clause);
        }
    }
    for flow in &facts.semiflows().flows {
        if flow.value(|p| facts.initial(p)) > 0 {
            clause.clear();
            clause.extend(flow.places().map(|p| !empty[p as usize]));
            solver.add_clause_reuse(&mut clause);
        }
    }
    let traps = TrapFinder::new(net);
    let lp = equation.then(|| StateEquation::without(net, facts.dead()));
    let initial: Vec<bool> = net.places.iter().map(|p| p.initial > 0).collect();
    let (mut trap_count, mut equations) = (0, 0);
    for _ in 0..MAX_ROUNDS {
        let result = solver.solve_limited(&[]);
        if result == lbool::FALSE {
            return TrapVerdict::DeadlockFree {
                traps: trap_count,
                equations,
            };
        }
        if result != lbool::TRUE {
            return TrapVerdict::GaveUp;
        }
        let set: Vec<bool> = empty
            .iter()
            .map(|&l| solver.value_lit(l) == lbool::TRUE)
            .collect();
        let trap = traps.largest_within(&set);
        clause.clear();
        if trap.iter().any(|&p| initial[p as usize]) {
            // 3. The candidates must avoid this marked trap (a smaller one excludes more).
            let trap = traps.shrink(trap, &initial, deadline);
            clause.extend(trap.iter().map(|&p| !empty[p as usize]));
            trap_count += 1;
        } else {
            let refuted = lp.as_ref().and_then(|lp| {
                let budget = deadline.checked_duration_since(Instant::now())?;
                lp.refute_box(&levels.marking_box(&solver, places), Some(budget))
            });
            let Some(refuted) = refuted else {
                return if Instant::now() >= deadline {
                    TrapVerdict::GaveUp
                } else {
                    TrapVerdict::Candidate(
                        (0..places as PlaceIdx)
                            .filter(|&p| set[p as usize])
                            .collect(),
                    )
                };
            };
            // 4. The candidates must leave some bound the refutation used.
            levels.reasons(&solver, &refuted, &mut clause);
            equations += 1;
        }
        solver.add_clause_reuse(&mut clause);
    }
    TrapVerdict::GaveUp
}

/// The literals `M(p) < n` ("place p short of n tokens") of the search, per place: `n = 1` is
/// `empty[p]`; larger `n` are made when a transition needs them.
struct Levels {
    /// Per place, `(n, literal)` sorted by `n`, the first `(1, empty[p])`.
    of: Vec<Vec<(u64, Lit)>>,
}

impl Levels {
    fn new(empty: &[Lit]) -> Levels {
        Levels {
            of: empty.iter().map(|&l| vec![(1, l)]).collect(),
        }
    }

    /// The literal `M(p) < n`, made on first use.
    fn below(&mut self, solver: &mut Solver<Deadline>, p: PlaceIdx, n: u64) -> Lit {
        let row = &mut self.of[p as usize];
        match row.binary_search_by_key(&n, |&(k, _)| k) {
            Ok(i) => row[i].1,
            Err(i) => {
                let lit = Lit::new(solver.new_var(lbool::UNDEF, true), true);
                row.insert(i, (n, lit));
                lit
            }
        }
    }

    /// `M(p) < n → M(p) < n'` for consecutive levels `n < n'` of each place: the literals
    /// mean what they say of one marking.
    fn chain(&self, solver: &mut Solver<Deadline>) {
        for row in &self.of {
            for pair in row.windows(2) {
                let mut clause = vec![!pair[0].1, pair[1].1];
                solver.add_clause_reuse(&mut clause);
            }
        }
    }

    /// The box of markings the solver's model describes: `M(p) ≤ n − 1` for the least level
    /// `n` it makes true, `M(p) ≥ n` for the greatest it makes false.
    fn marking_box(&self, solver: &Solver<Deadline>, places: usize) -> MarkingBox {
        let mut b = MarkingBox::unbounded(places);
        for (p, row) in self.of.iter().enumerate() {
            for &(n, lit) in row {
                if solver.value_lit(lit) == lbool::TRUE {
                    b.upper[p] = Some(n as i64 - 1);
                    break;
                }
                b.lower[p] = n as i64;
            }
        }
        b
    }

    /// The clause excluding every model that keeps the bounds `refuted` used: for each, the
    /// level literal that gave it, negated.
    fn reasons(&self, solver: &Solver<Deadline>, refuted: &Refutation, clause: &mut Vec<Lit>) {
        for &p in &refuted.upper {
            let lit = self.of[p as usize]
                .iter()
                .map(|&(_, l)| l)
                .find(|&l| solver.value_lit(l) == lbool::TRUE);
            clause.extend(lit.map(|l| !l));
        }
        for &p in &refuted.lower {
            let lit = self.of[p as usize]
                .iter()
                .map(|&(_, l)| l)
                .take_while(|&l| solver.value_lit(l) != lbool::TRUE)
                .last();
            clause.extend(lit);
        }
    }
}

/// The largest trap inside a set of places.
pub(super) struct TrapFinder {
    /// For each place, the transitions that consume from it.
    consumers: Vec<Vec<u32>>,
    /// For each place, the transitions that put a token on it or read it.
    keepers: Vec<Vec<u32>>,
    /// For each transition, the places it leaves marked: those it puts a token on, and those
    /// it reads without consuming from them.
    keeps: Vec<Vec<PlaceIdx>>,
    /// For each transition, the places it consumes from.
    takes: Vec<Vec<PlaceIdx>>,
}

impl TrapFinder {
    pub(super) fn new(net: &Net) -> TrapFinder {
        let mut consumers = vec![Vec::new(); net.places.len()];
        let mut keepers = vec![Vec::new(); net.places.len()];
        let mut keeps = Vec::with_capacity(net.transitions.len());
        let mut takes = Vec::with_capacity(net.transitions.len());
        for (t, tr) in net.transitions.iter().enumerate() {
            for a in &tr.pre {
                consumers[a.place as usize].push(t as u32);
            }
            // A place read and not consumed keeps its tokens; one read and consumed may not.
            let kept: Vec<PlaceIdx> = tr
                .post
                .iter()
                .map(|a| a.place)
                .chain(
                    tr.reads
                        .iter()
                        .map(|a| a.place)
                        .filter(|&p| !tr.pre.iter().any(|a| a.place == p)),
                )
                .collect();
            for &p in &kept {
                keepers[p as usize].push(t as u32);
            }
            keeps.push(kept);
            takes.push(tr.pre.iter().map(|a| a.place).collect());
        }
        TrapFinder {
            consumers,
            keepers,
            keeps,
            takes,
        }
    }

    /// The largest trap whose places are all in `set`: the greatest fixpoint that drops the
    /// places consumed by a transition putting nothing back into what is left.
    pub(super) fn largest_within(&self, set: &[bool]) -> Vec<PlaceIdx> {
        let mut inside = set.to_vec();
        // Transitions to look at: every consumer of a place inside, again whenever a place
        // they keep leaves.
        let mut queue: Vec<u32> = (0..set.len())
            .filter(|&p| inside[p])
            .flat_map(|p| self.consumers[p].iter().copied())
            .collect();
        while let Some(t) = queue.pop() {
            let t = t as usize;
            let takes_inside = self.takes[t].iter().any(|&p| inside[p as usize]);
            let keeps_inside = self.keeps[t].iter().any(|&p| inside[p as usize]);
            if !takes_inside || keeps_inside {
                continue;
            }
            for &p in &self.takes[t] {
                if inside[p as usize] {
                    inside[p as usize] = false;
                    // Transitions that kept only this place may now break the trap.
                    for &u in &self.keepers[p as usize] {
                        if self.takes[u as usize].iter().any(|&q| inside[q as usize]) {
                            queue.push(u);
                        }
                    }
                }
            }
        }
        (0..set.len() as PlaceIdx)
            .filter(|&p| inside[p as usize])
            .collect()
    }

    /// A marked trap inside `trap` (itself a marked trap), smaller where a few tries find one:
    /// each try drops one place and keeps the largest trap left if it is still marked.
    fn shrink(&self, mut trap: Vec<PlaceIdx>, marked: &[bool], deadline: Instant) -> Vec<PlaceIdx> {
        let mut set = vec![false; marked.len()];
        for &p in &trap {
            set[p as usize] = true;
        }
        let mut tries = 0;
        let mut i = 0;
        while i < trap.len() && tries < SHRINK_TRIES && Instant::now() < deadline {
            tries += 1;
            let p = trap[i];
            set[p as usize] = false;
            let smaller = self.largest_within(&set);
            if smaller.iter().any(|&q| marked[q as usize]) {
                for &q in &trap {
                    set[q as usize] = false;
                }
                for &q in &smaller {
                    set[q as usize] = true;
                }
                trap = smaller;
                i = 0;
            } else {
                set[p as usize] = true;
                i += 1;
            }
        }
        trap
    }

    /// Whether `places` is a trap (for the tests).
    #[cfg(test)]
    fn is_trap(&self, places: &[PlaceIdx]) -> bool {
        let mut inside = vec![false; self.consumers.len()];
        for &p in places {
            inside[p as usize] = true;
        }
        places.iter().all(|&p| {
            self.consumers[p as usize]
                .iter()
                .all(|&t| self.keeps[t as usize].iter().any(|&q| inside[q as usize]))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::{ArcKind, NetBuilder};
    use crate::structural::Budget;
    use std::time::Duration;

    /// `places` initial markings; transitions as (inputs, outputs).
    fn net(initial: &[u32], transitions: &[(&[u32], &[u32])]) -> Net {
        let mut b = NetBuilder::new("n");
        for (i, &m) in initial.iter().enumerate() {
            b.add_place(format!("p{i}"), None, m).unwrap();
        }
        for (i, (pre, post)) in transitions.iter().enumerate() {
            let t = b.add_transition(format!("t{i}"), None).unwrap();
            for &p in *pre {
                b.add_arc(p, t, ArcKind::Input, 1).unwrap();
            }
            for &p in *post {
                b.add_arc(p, t, ArcKind::Output, 1).unwrap();
            }
        }
        b.finish()
    }

    fn verdict(n: &Net) -> TrapVerdict {
        let facts = Facts::of(n, &Budget::default());
        deadlock_free(n, &facts, Instant::now() + Duration::from_secs(5))
    }

    #[test]
    fn a_ring_is_deadlock_free() {
        // p0 → t0 → p1 → t1 → p2 → t2 → p0, one token.
        let n = net(&[1, 0, 0], &[(&[0], &[1]), (&[1], &[2]), (&[2], &[0])]);
        assert!(matches!(verdict(&n), TrapVerdict::DeadlockFree { .. }));
    }

    #[test]
    fn a_growing_net_needs_a_trap() {
        // a → t0 → b, b → t1 → a + b: no semiflow, tokens grow, {a, b} is a marked trap.
        let n = net(&[1, 0], &[(&[0], &[1]), (&[1], &[0, 1])]);
        assert!(
            Facts::of(&n, &Budget::default())
                .semiflows()
                .flows
                .is_empty()
        );
        assert_eq!(
            verdict(&n),
            TrapVerdict::DeadlockFree {
                traps: 1,
                equations: 0
            }
        );
        // A ring: its semiflow proves it. Without a token back, it dies.
        let n = net(&[1, 0], &[(&[0], &[1]), (&[1], &[0])]);
        assert!(matches!(verdict(&n), TrapVerdict::DeadlockFree { .. }));
        let n = net(&[1, 0], &[(&[0], &[1]), (&[1], &[])]);
        assert!(matches!(verdict(&n), TrapVerdict::Candidate(_)));
    }

    #[test]
    fn two_philosophers_give_a_candidate() {
        // Forks f0, f1 (p0, p1), each philosopher takes its left fork (p2, p3 hold one), then
        // the right one, eats and puts both back: the classic deadlock.
        let n = net(
            &[1, 1, 0, 0],
            &[
                (&[0], &[2]),
                (&[1], &[3]),
                (&[2, 1], &[0, 1]),
                (&[3, 0], &[0, 1]),
            ],
        );
        assert!(matches!(verdict(&n), TrapVerdict::Candidate(_)));
    }

    #[test]
    fn the_largest_trap_is_a_trap_and_contains_every_trap() {
        let n = net(
            &[1, 0, 0, 1],
            &[(&[0], &[1]), (&[1], &[0, 2]), (&[2], &[]), (&[3], &[3])],
        );
        let finder = TrapFinder::new(&n);
        // Every subset: its largest trap is a trap, inside it, and holds every trap inside.
        for bits in 0u32..16 {
            let set: Vec<bool> = (0..4).map(|i| bits >> i & 1 == 1).collect();
            let trap = finder.largest_within(&set);
            assert!(finder.is_trap(&trap), "{set:?}: {trap:?}");
            assert!(trap.iter().all(|&p| set[p as usize]));
            for sub in 0u32..16 {
                let places: Vec<PlaceIdx> = (0..4).filter(|&i| sub >> i & 1 == 1).collect();
                if sub & !bits == 0 && finder.is_trap(&places) {
                    assert!(
                        places.iter().all(|p| trap.contains(p)),
                        "{set:?} {places:?}"
                    );
                }
            }
        }
    }
}
