//! The global properties of the contest (deadlock, 1-safety, quasi-liveness, stable marking,
//! liveness) decided before any exhaustive exploration: from the structural facts and the
//! trap argument, or by random walks that meet a marking settling an existential question.
//!
//! Each verdict is sound on its own. Structural ones hold of every reachable marking by the
//! fact that gives them (a dead transition is never enabled, so the net is neither
//! quasi-live nor live; a constant place is a stable marking; upper bounds of one token on
//! every place make the net 1-safe; see [`crate::structural`]); a walk's verdict is backed by
//! its run, a firing sequence from the initial marking (a dead marking reached: a deadlock,
//! and not live; two tokens on a place: not 1-safe; every transition enabled somewhere:
//! quasi-live; a transition that the net's graph shows can never fire again after the run, or
//! that the state equation from the run's last marking shows never enabled: not live). Walks
//! never prove a universal answer. A free-choice net none of whose siphons can be emptied is
//! live (Commoner's theorem, see [`structural`]).

use std::time::{Duration, Instant};

use super::Search;
use super::unbounded::{fire, is_enabled};
use super::walk::{SplitMix, WalkOptions, walk};
use crate::explore::global::Property;
use crate::explore::limits::Limits;
use crate::model::net::{Net, PlaceIdx, TransIdx};
use crate::property::predicate::{Linear, Predicate};
use crate::property::syntax::{Cmp, IntExpr};
use crate::structural::dead::never_fire_from;
use crate::structural::siphons::{consumers, emptiable_siphons, is_siphon, no_siphon_empties};
use crate::structural::state_equation::{MarkingBox, StateEquation};
use crate::structural::traps::{TrapVerdict, deadlock_free, deadlock_free_with};
use crate::structural::tsemiflows::t_semiflows;
use crate::structural::{Budget, Facts};
use crate::system::Overflow;

/// How a global verdict was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// From the structural facts, without firing anything.
    Structural,
    /// From the trap argument (a SAT search over sets of places).
    Traps,
    /// From the trap argument with the state equation (a SAT search over sets of places and
    /// linear programs with exactly checked certificates).
    StateEquation,
    /// A random walk met a marking that settles it.
    Walk,
}

/// A verdict found early, with its evidence in the net's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Early {
    /// The answer to the property as the contest asks it.
    pub verdict: bool,
    /// Why it holds.
    pub evidence: String,
    /// How it was found.
    pub method: Method,
    /// For a walk, the firing sequence to the marking that settles it.
    pub witness: Option<Vec<TransIdx>>,
}

impl Early {
    fn structural(verdict: bool, evidence: String) -> Early {
        Early {
            verdict,
            evidence,
            method: Method::Structural,
            witness: None,
        }
    }
}

/// The verdict on `property` from the structural `facts` of `net` (and, for deadlocks, the
/// trap argument, given until `deadline`), if they settle it.
pub fn structural(
    net: &Net,
    property: Property,
    facts: &Facts,
    deadline: Instant,
) -> Option<Early> {
    let place = |p: usize| net.places[p].label.as_str();
    let transition = |t: usize| net.transitions[t].label.as_str();
    let dead = (0..net.transitions.len()).find(|&t| facts.is_dead(t as TransIdx));
    match property {
        Property::Deadlock => {
            if net.transitions.is_empty() {
                return Some(Early::structural(true, "the net has no transition".into()));
            }
            if let Some(t) =
                (0..net.transitions.len()).find(|&t| facts.always_enabled(t as TransIdx))
            {
                let why = format!(
                    "transition {} is enabled in every reachable marking",
                    transition(t)
                );
                return Some(Early::structural(false, why));
            }
            if let Some(early) = finite_runs(net, facts, half_way(deadline))
                .filter(|f| f.no_semiflow)
                .map(|f| Early::structural(true, f.evidence))
            {
                return Some(early);
            }
            // The plain trap argument first (cheap), then with the state equation, which
            // refutes the candidates it leaves.
            let half = half_way(deadline);
            let verdict = match deadlock_free(net, facts, half) {
                TrapVerdict::GaveUp if Instant::now() < half => TrapVerdict::GaveUp,
                TrapVerdict::Candidate(_) | TrapVerdict::GaveUp => {
                    deadlock_free_with(net, facts, deadline, true)
                }
                free => free,
            };
            match verdict {
                TrapVerdict::DeadlockFree { traps, equations } => Some(Early {
                    method: if equations > 0 {
                        Method::StateEquation
                    } else {
                        Method::Traps
                    },
                    ..Early::structural(
                        false,
                        if equations > 0 {
                            format!(
                                "no solution of the state equation is dead: every set of \
                                 places that could be empty at a dead marking holds an \
                                 initially marked trap ({traps} traps) or leaves the state \
                                 equation without a solution ({equations} certificates)"
                            )
                        } else {
                            format!(
                                "every set of places that could be empty at a dead marking \
                                 holds an initially marked trap ({traps} traps)"
                            )
                        },
                    )
                }),
                TrapVerdict::Candidate(_) | TrapVerdict::GaveUp => None,
            }
        }
        Property::OneSafe => {
            if let Some(p) = (0..net.places.len()).find(|&p| net.places[p].initial > 1) {
                let why = format!(
                    "place {} holds {} tokens initially",
                    place(p),
                    net.places[p].initial
                );
                return Some(Early::structural(false, why));
            }
            if net.certified_safe() {
                return Some(Early::structural(
                    true,
                    "the NUPN block certifies the net safe".into(),
                ));
            }
            (0..net.places.len())
                .all(|p| facts.upper(p as PlaceIdx).is_some_and(|u| u <= 1))
                .then(|| {
                    Early::structural(
                        true,
                        "the P-semiflows bound every place by one token".into(),
                    )
                })
        }
        Property::QuasiLiveness => dead
            .map(|t| {
                Early::structural(
                    false,
                    format!("transition {} can never fire", transition(t)),
                )
            })
            .or_else(|| never_enabled_by_equation(net, facts, deadline)),
        Property::StableMarking => (0..net.places.len())
            .find(|&p| facts.is_constant(p as PlaceIdx))
            .map(|p| {
                Early::structural(
                    true,
                    format!("place {} never changes its marking", place(p)),
                )
            }),
        Property::Liveness => dead
            .map(|t| {
                Early::structural(
                    false,
                    format!("transition {} can never fire", transition(t)),
                )
            })
            .or_else(|| never_enabled_by_equation(net, facts, half_way(deadline)))
            .or_else(|| live_free_choice(net, facts, half_way(deadline)))
            .or_else(|| {
                let f = finite_runs(net, facts, deadline)?;
                let t = f.uncovered?;
                Some(Early::structural(
                    false,
                    format!(
                        "{}; transition {} is in none, so it fires finitely often in every run",
                        f.evidence,
                        transition(t as usize)
                    ),
                ))
            }),
    }
}

/// A transition that the state equation shows never enabled: no solution of it (without the
/// transitions the facts show dead) has the tokens the transition needs
/// ([`StateEquation::refute_box`] on the box `M ≥ needs(t)`), tried transition by transition
/// until `deadline`. *Soundness*: every reachable marking solves that equation, so none
/// enables the transition; it never fires, so the net is neither quasi-live nor live.
fn never_enabled_by_equation(net: &Net, facts: &Facts, deadline: Instant) -> Option<Early> {
    if Instant::now() >= deadline {
        return None;
    }
    let lp = StateEquation::without(net, facts.dead());
    for t in 0..net.transitions.len() as TransIdx {
        let budget = deadline.checked_duration_since(Instant::now())?;
        let mut needs = MarkingBox::unbounded(net.places.len());
        for &(p, n) in facts.needs(t) {
            needs.lower[p as usize] = i64::try_from(n).ok()?;
        }
        if lp.refute_box(&needs, Some(budget)).is_some() {
            return Some(Early {
                method: Method::StateEquation,
                ..Early::structural(
                    false,
                    format!(
                        "transition {} is never enabled: the state equation has no solution \
                         with the tokens it needs",
                        net.transitions[t as usize].label
                    ),
                )
            });
        }
    }
    None
}

/// Liveness of a free-choice net from its siphons: no transition is dead by the facts and no
/// siphon with a consumer can be empty at a reachable marking ([`no_siphon_empties`], searched
/// until `deadline`). *Soundness*: in a free-choice net (ordinary, no read arcs, transitions
/// sharing an input place have the same input places) that is not live there is a reachable
/// marking `M` and a non-empty siphon empty at `M` made of one input place of each transition
/// dead at `M` (the first half of the proof of Commoner's theorem; P. Jančar, *A concise proof
/// of Commoner's theorem*, Petri Net Newsletter 49, 1995): a siphon with a consumer, empty at
/// a reachable marking, which the search excludes. So the net is live. (Commoner's condition,
/// every siphon holding an initially marked trap, is the case where the traps alone exclude
/// every siphon.)
fn live_free_choice(net: &Net, facts: &Facts, deadline: Instant) -> Option<Early> {
    if net.transitions.is_empty()
        || !net.structure().free_choice
        || facts.dead().iter().any(|&d| d)
        || Instant::now() >= deadline
        || !no_siphon_empties(net, facts, deadline)
    {
        return None;
    }
    Some(Early {
        method: Method::Traps,
        ..Early::structural(
            true,
            "the net is free-choice and no siphon can be emptied (each holds a marked trap, a \
             marked P-semiflow or a place bounded below, or the state equation refutes it \
             empty)"
                .into(),
        )
    })
}

/// The most candidate siphons handed to the walks.
const SIPHON_TARGETS: usize = 8;

/// Liveness refuted by emptying a siphon: candidate siphons ([`emptiable_siphons`], searched
/// for a quarter of `budget`) become targets "the siphon is empty" of random walks (the
/// rest). *Soundness*: the walk's run is a firing sequence, replayed here, that ends with the
/// siphon empty; the siphon is checked to be one ([`is_siphon`], over the transitions the
/// facts show dead, which never fire), so it stays empty, and a transition needing one of
/// its places can never fire again: the net is not live. Not finding one proves nothing.
pub fn by_siphons(
    net: &Net,
    facts: &Facts,
    budget: Duration,
    limits: &Limits,
) -> Result<Option<Early>, Overflow> {
    let started = Instant::now();
    let siphons = emptiable_siphons(net, facts, started + budget / 4, SIPHON_TARGETS);
    if siphons.is_empty() {
        return Ok(None);
    }
    let targets: Vec<Predicate> = siphons
        .iter()
        .map(|s| {
            let tokens = IntExpr::Tokens(s.clone());
            Predicate::Compare(Linear::of(&tokens), Cmp::Le, Linear::of(&IntExpr::Const(0)))
        })
        .collect();
    let left = budget.saturating_sub(started.elapsed());
    let run = walk(net, &targets, &[], WalkOptions::default(), left, limits)?;
    let initial: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
    for (siphon, search) in siphons.iter().zip(&run.searches) {
        let Search::Found(w) = search else { continue };
        let mut set = vec![false; net.places.len()];
        for &p in siphon {
            set[p as usize] = true;
        }
        let Some(m) = replay(net, &initial, w) else {
            continue;
        };
        let consumers = consumers(net, facts.dead(), &set);
        if !is_siphon(net, facts.dead(), &set)
            || siphon.iter().any(|&p| m[p as usize] > 0)
            || consumers.is_empty()
        {
            continue;
        }
        let names: Vec<&str> = siphon
            .iter()
            .map(|&p| net.places[p as usize].label.as_str())
            .collect();
        return Ok(Some(Early {
            verdict: false,
            evidence: format!(
                "a random walk emptied the siphon {{{}}}, so transition {} can never fire again",
                names.join(", "),
                net.transitions[consumers[0] as usize].label
            ),
            method: Method::Walk,
            witness: Some(w.clone()),
        }));
    }
    Ok(None)
}

/// The marking after firing `run` from `m`, when every step is enabled.
fn replay(net: &Net, m: &[u64], run: &[TransIdx]) -> Option<Vec<u64>> {
    let mut m = m.to_vec();
    for &t in run {
        if !is_enabled(net, &m, t) {
            return None;
        }
        m = fire(net, &m, t)?;
    }
    Some(m)
}

/// The instant half-way from now to `deadline`.
fn half_way(deadline: Instant) -> Instant {
    let now = Instant::now();
    now + deadline.saturating_duration_since(now) / 2
}

/// What the T-semiflows say of the runs of a bounded net ([`crate::structural::tsemiflows`]).
struct FiniteRuns {
    /// No T-semiflow at all: every run is finite, so a dead marking is reachable.
    no_semiflow: bool,
    /// A transition in the support of no T-semiflow (it fires finitely often in every run,
    /// so it is not live), the first one.
    uncovered: Option<TransIdx>,
    /// Why, in the net's words.
    evidence: String,
}

/// The T-semiflows of `net` over its transitions that may fire, computed until `deadline`,
/// when the facts bound every place and the computation finishes (else `None`: an unbounded
/// net may run forever without repeating a marking, and an unfinished computation may have
/// missed semiflows).
fn finite_runs(net: &Net, facts: &Facts, deadline: Instant) -> Option<FiniteRuns> {
    if net.transitions.is_empty()
        || !(0..net.places.len()).all(|p| facts.upper(p as PlaceIdx).is_some())
    {
        return None;
    }
    let budget = Budget {
        time: deadline.saturating_duration_since(Instant::now()),
        ..Budget::default()
    };
    let flows = t_semiflows(net, facts.dead(), &budget);
    if !flows.complete {
        return None;
    }
    let covered = flows.covered(net.transitions.len());
    let uncovered = (0..net.transitions.len())
        .find(|&t| !covered[t])
        .map(|t| t as TransIdx);
    Some(FiniteRuns {
        no_semiflow: flows.flows.is_empty(),
        uncovered,
        evidence: format!(
            "the P-semiflows bound every place and the net has {} minimal T-semiflows",
            flows.flows.len()
        ),
    })
}

/// The longest walk of [`dead_after_walks`].
const LIVENESS_WALK: usize = 1 << 14;

/// What a look at a walk's marking finds.
enum Look {
    /// This transition is not live: the walk's run is the witness.
    NotLive(TransIdx),
    /// Nothing yet: walk on.
    Nothing,
    /// Give up (the time is over, or the look cannot be made).
    Stop,
}

/// Random walks of up to [`LIVENESS_WALK`] steps from the initial marking (seeded with
/// `seed`), until `deadline`: after each step `look` sees the step's number and the marking
/// reached. The run and the transition of the first [`Look::NotLive`].
fn walks_until_not_live(
    net: &Net,
    seed: u64,
    deadline: Instant,
    mut look: impl FnMut(usize, &[u64]) -> Look,
) -> Option<(Vec<TransIdx>, TransIdx)> {
    let initial: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
    let mut rng = SplitMix(seed);
    let mut enabled = Vec::new();
    while Instant::now() < deadline {
        let mut m = initial.clone();
        let mut run = Vec::new();
        for step in 1..=LIVENESS_WALK {
            enabled.clear();
            enabled
                .extend((0..net.transitions.len() as TransIdx).filter(|&t| is_enabled(net, &m, t)));
            let Some(&t) = enabled.get(rng.below(enabled.len().max(1))) else {
                break;
            };
            let Some(next) = fire(net, &m, t) else {
                break;
            };
            m = next;
            run.push(t);
            match look(step, &m) {
                Look::NotLive(t) => return Some((run, t)),
                Look::Nothing => {}
                Look::Stop => return None,
            }
        }
    }
    None
}

/// Random walks looking for a reachable marking from which some transition can never fire
/// again (by the graph argument of [`never_fire_from`], looked at after 1, 2, 4, … steps):
/// the run to that marking and the transition. *Soundness*: the run is a firing sequence, and
/// a transition that never fires from a reachable marking is not live.
fn dead_after_walks(net: &Net, budget: Duration) -> Option<(Vec<TransIdx>, TransIdx)> {
    let deadline = Instant::now() + budget;
    walks_until_not_live(net, 0x11fe_5eed, deadline, |step, m| {
        if !step.is_power_of_two() {
            return Look::Nothing;
        }
        let dead = never_fire_from(net, |p| m[p as usize] > 0, &[]);
        if let Some(t) = dead.iter().position(|&d| d) {
            Look::NotLive(t as TransIdx)
        } else if Instant::now() >= deadline {
            Look::Stop
        } else {
            Look::Nothing
        }
    })
}

/// Random walks looking for a reachable marking `M` from which the state equation shows a
/// transition never enabled again: no `M + C·x` with `x ≥ 0` (over the transitions the facts
/// do not show dead) has the tokens it needs ([`StateEquation::from_marking`],
/// [`StateEquation::refute_box`], looked at after 8, 16, 32, … steps, for the transitions
/// disabled there), until `deadline`. *Soundness*: the run is a firing sequence to `M`; every
/// marking reachable from `M` solves that equation, so none enables the transition, which is
/// then not live.
fn never_enabled_after_walks(
    net: &Net,
    facts: &Facts,
    deadline: Instant,
) -> Option<(Vec<TransIdx>, TransIdx)> {
    let lp = StateEquation::without(net, facts.dead());
    walks_until_not_live(net, 0x5eed_e9a7, deadline, |step, m| {
        if step < 8 || !step.is_power_of_two() {
            return Look::Nothing;
        }
        let Some(from) = lp.from_marking(m) else {
            return Look::Stop;
        };
        for t in 0..net.transitions.len() as TransIdx {
            let Some(budget) = deadline.checked_duration_since(Instant::now()) else {
                return Look::Stop;
            };
            if is_enabled(net, m, t) {
                continue;
            }
            let mut needs = MarkingBox::unbounded(net.places.len());
            for &(p, n) in facts.needs(t) {
                let Ok(n) = i64::try_from(n) else {
                    return Look::Stop;
                };
                needs.lower[p as usize] = n;
            }
            if from.refute_box(&needs, Some(budget)).is_some() {
                return Look::NotLive(t);
            }
        }
        Look::Nothing
    })
}

/// The most markings explored when looking for the undoing sequence of one transition.
const UNDO_STATES: usize = 512;

/// Whether the firing of `t` can always be undone: from `B' = B − pre(t) + post(t)`, where
/// `B` is the least marking enabling `t` (the larger of its input and read weights on each
/// place), a breadth-first search of at most [`UNDO_STATES`] markings reaches `B` again.
/// Then from any marking `M` enabling `t`, `M ≥ B`, the marking after `t` is `M − B + B'` and
/// the same sequence fires from it (monotonicity) and leads back to `M`.
fn undoable(net: &Net, t: TransIdx) -> bool {
    let tr = &net.transitions[t as usize];
    let mut least = vec![0u64; net.places.len()];
    for a in tr.pre.iter().chain(&tr.reads) {
        let b = &mut least[a.place as usize];
        *b = (*b).max(a.weight as u64);
    }
    let Some(after) = fire(net, &least, t) else {
        return false;
    };
    let mut seen = rustc_hash::FxHashSet::default();
    seen.insert(after.clone());
    let mut queue = std::collections::VecDeque::from([after]);
    while let Some(m) = queue.pop_front() {
        if m == least {
            return true;
        }
        for u in 0..net.transitions.len() as TransIdx {
            if !is_enabled(net, &m, u) {
                continue;
            }
            let Some(next) = fire(net, &m, u) else {
                continue;
            };
            if seen.len() < UNDO_STATES && seen.insert(next.clone()) {
                queue.push_back(next);
            }
        }
    }
    false
}

/// Liveness proved from a home state: when the firing of every transition can be undone
/// ([`undoable`]), the initial marking is reachable from every reachable marking (undo the
/// run to it, last firing first), so a transition that fires from some reachable marking
/// fires again from every one (back to the initial marking, then that run). Random walks
/// within `budget` look for a run firing each transition; when they find one for each, the
/// net is live. Not finding them proves nothing.
pub fn by_reversibility(
    net: &Net,
    facts: &Facts,
    budget: Duration,
    limits: &Limits,
) -> Result<Option<Early>, Overflow> {
    let deadline = Instant::now() + budget / 2;
    if net.transitions.is_empty() || facts.dead().iter().any(|&d| d) {
        return Ok(None);
    }
    for t in 0..net.transitions.len() as TransIdx {
        if Instant::now() >= deadline || !undoable(net, t) {
            return Ok(None);
        }
    }
    let targets: Vec<Predicate> = (0..net.transitions.len())
        .map(|t| Predicate::Fireable(vec![t as TransIdx]))
        .collect();
    let left = budget.saturating_sub(budget / 2);
    let run = walk(net, &targets, &[], WalkOptions::default(), left, limits)?;
    if !run.searches.iter().all(|s| matches!(s, Search::Found(_))) {
        return Ok(None);
    }
    Ok(Some(Early {
        verdict: true,
        evidence: "the firing of every transition can be undone, so the initial marking is a \
                   home state, and random walks enabled every transition"
            .into(),
        method: Method::Walk,
        witness: None,
    }))
}

/// Liveness refuted by [`never_enabled_after_walks`] within `budget`.
pub fn by_equation_after_walks(net: &Net, facts: &Facts, budget: Duration) -> Option<Early> {
    let (run, t) = never_enabled_after_walks(net, facts, Instant::now() + budget)?;
    Some(Early {
        verdict: false,
        evidence: format!(
            "after a random walk, the state equation shows transition {} never enabled again",
            net.transitions[t as usize].label
        ),
        method: Method::Walk,
        witness: Some(run),
    })
}

/// The verdict on `property` found by random walks within `budget`, if they meet a marking
/// that settles it.
pub fn by_walks(
    net: &Net,
    property: Property,
    budget: Duration,
    limits: &Limits,
) -> Result<Option<Early>, Overflow> {
    let at_least = |p: usize, k: u64| {
        Predicate::Compare(
            Linear::of(&IntExpr::Tokens(vec![p as PlaceIdx])),
            Cmp::Ge,
            Linear::of(&IntExpr::Const(k)),
        )
    };
    let targets: Vec<Predicate> = match property {
        Property::Deadlock | Property::Liveness if !net.transitions.is_empty() => {
            vec![Predicate::Deadlock]
        }
        Property::OneSafe => vec![Predicate::Or(
            (0..net.places.len()).map(|p| at_least(p, 2)).collect(),
        )],
        Property::QuasiLiveness => (0..net.transitions.len())
            .map(|t| Predicate::Fireable(vec![t as TransIdx]))
            .collect(),
        _ => return Ok(None),
    };
    if targets.is_empty() {
        return Ok(None);
    }
    let run = walk(
        net,
        &targets,
        &[],
        WalkOptions::default(),
        budget / 2,
        limits,
    )?;
    let found = |i: usize| match &run.searches[i] {
        Search::Found(w) => Some(w.clone()),
        _ => None,
    };
    let early = |verdict: bool, evidence: &str, witness: Vec<TransIdx>| Early {
        verdict,
        evidence: evidence.to_string(),
        method: Method::Walk,
        witness: Some(witness),
    };
    Ok(match property {
        Property::Deadlock => {
            found(0).map(|w| early(true, "a random walk reached a dead marking", w))
        }
        Property::Liveness => match found(0) {
            Some(w) => Some(early(false, "a random walk reached a dead marking", w)),
            None => dead_after_walks(net, budget / 2).map(|(w, t)| {
                let why = format!(
                    "after a random walk, transition {} can never fire again",
                    net.transitions[t as usize].label
                );
                early(false, &why, w)
            }),
        },
        Property::OneSafe => {
            found(0).map(|w| early(false, "a random walk put two tokens on a place", w))
        }
        Property::QuasiLiveness => {
            // Every transition enabled somewhere: one run per transition, no single witness.
            (0..targets.len())
                .all(|i| found(i).is_some())
                .then(|| Early {
                    verdict: true,
                    evidence: "random walks enabled every transition".into(),
                    method: Method::Walk,
                    witness: None,
                })
        }
        Property::StableMarking => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::{ArcKind, NetBuilder};

    #[test]
    fn a_one_shot_start_is_not_live() {
        // start: go → run; then a cycle run → t → idle → u → run. `start` never fires again.
        let mut b = NetBuilder::new("n");
        let go = b.add_place("go", None, 1).unwrap();
        let run = b.add_place("run", None, 0).unwrap();
        let idle = b.add_place("idle", None, 0).unwrap();
        for (name, from, to) in [("start", go, run), ("t", run, idle), ("u", idle, run)] {
            let t = b.add_transition(name, None).unwrap();
            b.add_arc(from, t, ArcKind::Input, 1).unwrap();
            b.add_arc(to, t, ArcKind::Output, 1).unwrap();
        }
        let net = b.finish();
        let (run, dead) = dead_after_walks(&net, Duration::from_secs(1)).expect("found");
        assert_eq!(net.transitions[dead as usize].label, "start");
        assert_eq!(run.first(), Some(&0));
    }
}
