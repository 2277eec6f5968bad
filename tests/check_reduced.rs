//! Properties checked on the net reduced for them ([`unfold::check::reduced::check`]) against
//! brute force on the net as given: on random small nets (with weights and read arcs) and
//! random formulas over random places and transitions — `EF φ`, `AG φ`, place bounds, and
//! the next-free LTL formulas `A F φ` and `A G F φ` — the answers must be those of a naive
//! breadth-first search of the given net's markings, and every witness must be a run of the
//! given net that shows the answer.

use crate::common;

use common::{Arcs, NetSpec as Spec, enabled, fire, net_of_spec as build};

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use unfold::check::reduced::check;
use unfold::check::run::{CheckOptions, EngineChoice, Value};
use unfold::explore::limits::Limits;
use unfold::model::net::{ArcKind, Net, NetBuilder, PlaceIdx, TransIdx};
use unfold::property::syntax::{Ask, Cmp, Form, IntExpr, ResolvedFormula, ResolvedQuery};

/// Mostly one input and one output arc: sequences and choices, what the rules reduce.
fn arb_arcs(max: usize) -> impl Strategy<Value = Arcs> {
    prop_oneof![
        5 => prop::collection::vec((0..8usize, Just(1u32)), 1..=1),
        2 => prop::collection::vec((0..8usize, 1..=2u32), 0..=max),
    ]
}

fn arb_spec() -> impl Strategy<Value = Spec> {
    (2..=8usize, 1..=8usize).prop_flat_map(|(places, transitions)| {
        (
            prop::collection::vec(
                prop_oneof![4 => Just(0u32), 3 => Just(1), 1 => Just(2)],
                places,
            ),
            prop::collection::vec(
                (
                    arb_arcs(2),
                    arb_arcs(2),
                    prop_oneof![6 => Just(Vec::new()), 1 => arb_arcs(1)],
                ),
                transitions,
            ),
        )
            .prop_map(|(initial, transitions)| Spec {
                initial,
                transitions,
            })
    })
}

/// A random state predicate over places `< places` and transitions `< transitions`.
#[derive(Clone, Debug)]
enum Atom {
    /// `tokens(ps) ⋈ c`.
    Count(Vec<usize>, usize, u64),
    /// `tokens(a) ⋈ tokens(b)`.
    Counts(usize, usize, usize),
    /// `is-fireable(ts)`.
    Fireable(Vec<usize>),
}

fn arb_atom() -> impl Strategy<Value = Atom> {
    prop_oneof![
        3 => (prop::collection::vec(0..8usize, 1..=2), 0..6usize, 0..=2u64)
            .prop_map(|(ps, c, k)| Atom::Count(ps, c, k)),
        1 => (0..8usize, 0..6usize, 0..8usize).prop_map(|(a, c, b)| Atom::Counts(a, c, b)),
        2 => prop::collection::vec(0..8usize, 1..=2).prop_map(Atom::Fireable),
    ]
}

/// A predicate: a literal, or a conjunction or disjunction of two.
fn arb_predicate() -> impl Strategy<Value = (Vec<(Atom, bool)>, bool)> {
    (
        prop::collection::vec((arb_atom(), any::<bool>()), 1..=2),
        any::<bool>(),
    )
}

/// The formula shapes: `EF φ`, `AG φ`, `A F φ`, `A G F φ`, a bound.
const SHAPES: usize = 5;

fn formula(net: &Net, (literals, and): &(Vec<(Atom, bool)>, bool)) -> ResolvedFormula {
    let (np, nt) = (net.places.len(), net.transitions.len());
    let place = |p: usize| (p % np) as PlaceIdx;
    let parts: Vec<ResolvedFormula> = literals
        .iter()
        .map(|(atom, positive)| {
            let f = match atom {
                Atom::Count(ps, c, k) => Form::Compare(
                    IntExpr::Tokens(ps.iter().map(|&p| place(p)).collect()),
                    Cmp::ALL[*c],
                    IntExpr::Const(*k),
                ),
                Atom::Counts(a, c, b) => Form::Compare(
                    IntExpr::Tokens(vec![place(*a)]),
                    Cmp::ALL[*c],
                    IntExpr::Tokens(vec![place(*b)]),
                ),
                Atom::Fireable(ts) => {
                    Form::Fireable(ts.iter().map(|&t| (t % nt) as TransIdx).collect())
                }
            };
            if *positive { f } else { Form::Not(Box::new(f)) }
        })
        .collect();
    if *and {
        Form::And(parts)
    } else {
        Form::Or(parts)
    }
}

fn query(net: &Net, shape: usize, p: &(Vec<(Atom, bool)>, bool), bound: &[usize]) -> ResolvedQuery {
    let phi = Box::new(formula(net, p));
    let ask = match shape {
        0 => Ask::Holds(Form::Exists(Box::new(Form::Finally(phi)))),
        1 => Ask::Holds(Form::All(Box::new(Form::Globally(phi)))),
        2 => Ask::Holds(Form::All(Box::new(Form::Finally(phi)))),
        3 => Ask::Holds(Form::All(Box::new(Form::Globally(Box::new(
            Form::Finally(phi),
        ))))),
        _ => Ask::Bound(
            bound
                .iter()
                .map(|&q| (q % net.places.len()) as PlaceIdx)
                .collect(),
        ),
    };
    ResolvedQuery {
        id: format!("q{shape}"),
        ask,
        spans: Default::default(),
    }
}

/// The marking `run` reaches from the initial one, if it can be fired.
fn replay(net: &Net, from: Vec<u64>, run: &[TransIdx]) -> Option<Vec<u64>> {
    run.iter().try_fold(from, |m, &t| {
        (enabled(net, &m, t)).then(|| fire(net, &m, t))
    })
}

fn initial(net: &Net) -> Vec<u64> {
    net.places.iter().map(|p| p.initial as u64).collect()
}

/// The value of a state predicate at `m` (written here, apart from the library's).
fn holds(net: &Net, f: &ResolvedFormula, m: &[u64]) -> bool {
    let count = |e: &IntExpr<PlaceIdx>| -> u64 {
        match e {
            IntExpr::Const(c) => *c,
            IntExpr::Tokens(ps) => ps.iter().map(|&p| m[p as usize]).sum(),
            IntExpr::Sum(_) => unreachable!("not generated"),
        }
    };
    match f {
        Form::Bool(b) => *b,
        Form::Compare(a, c, b) => c.holds(count(a), count(b)),
        Form::Fireable(ts) => ts.iter().any(|&t| enabled(net, m, t)),
        Form::Not(g) => !holds(net, g, m),
        Form::And(gs) => gs.iter().all(|g| holds(net, g, m)),
        Form::Or(gs) => gs.iter().any(|g| holds(net, g, m)),
        _ => unreachable!("not a generated state predicate"),
    }
}

/// The reachable markings and their successors, or `None` beyond `limit` markings.
struct Space {
    states: Vec<Vec<u64>>,
    successors: Vec<Vec<usize>>,
}

impl Space {
    fn of(net: &Net, limit: usize) -> Option<Space> {
        let mut index = HashMap::new();
        let mut space = Space {
            states: vec![initial(net)],
            successors: vec![Vec::new()],
        };
        index.insert(initial(net), 0);
        let mut queue = VecDeque::from([0usize]);
        while let Some(s) = queue.pop_front() {
            for t in 0..net.transitions.len() as TransIdx {
                if !enabled(net, &space.states[s], t) {
                    continue;
                }
                let next = fire(net, &space.states[s], t);
                let j = match index.get(&next) {
                    Some(&j) => j,
                    None => {
                        if space.states.len() >= limit {
                            return None;
                        }
                        let j = space.states.len();
                        index.insert(next.clone(), j);
                        space.states.push(next);
                        space.successors.push(Vec::new());
                        queue.push_back(j);
                        j
                    }
                };
                space.successors[s].push(j);
            }
        }
        Some(space)
    }

    /// Whether some maximal run from the initial marking, its states within `allowed` up to
    /// some point, then within `stay` forever (a dead marking repeating forever), exists.
    fn can_end_within(&self, allowed: &[bool], stay: &[bool]) -> bool {
        // The states of `stay` from which one can stay in `stay` forever: greatest fixpoint.
        let mut forever: Vec<bool> = stay.to_vec();
        loop {
            let mut changed = false;
            for s in 0..self.states.len() {
                if forever[s]
                    && !self.successors[s].is_empty()
                    && !self.successors[s].iter().any(|&j| forever[j])
                {
                    forever[s] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // Reachable through `allowed` states (the last one may be any of `forever`).
        let mut seen = vec![false; self.states.len()];
        let mut stack = vec![0usize];
        while let Some(s) = stack.pop() {
            if std::mem::replace(&mut seen[s], true) {
                continue;
            }
            if forever[s] {
                return true;
            }
            if allowed[s] {
                stack.extend(&self.successors[s]);
            }
        }
        false
    }
}

/// The brute-force value of `q` on `net`.
fn truth(net: &Net, space: &Space, q: &ResolvedQuery) -> Value {
    let sat = |f: &ResolvedFormula| -> Vec<bool> {
        space.states.iter().map(|m| holds(net, f, m)).collect()
    };
    let not = |v: &[bool]| -> Vec<bool> { v.iter().map(|b| !b).collect() };
    let all = vec![true; space.states.len()];
    match &q.ask {
        Ask::Bound(ps) => Value::Bound(
            space
                .states
                .iter()
                .map(|m| ps.iter().map(|&p| m[p as usize]).sum::<u64>())
                .max()
                .unwrap_or(0),
        ),
        Ask::Holds(Form::Exists(f)) => match f.as_ref() {
            Form::Finally(phi) => Value::Bool(sat(phi).into_iter().any(|b| b)),
            _ => unreachable!(),
        },
        Ask::Holds(Form::All(f)) => match f.as_ref() {
            Form::Globally(g) => match g.as_ref() {
                // A G F φ fails when a run ends up avoiding φ forever.
                Form::Finally(phi) => {
                    let avoid = not(&sat(phi));
                    Value::Bool(!space.can_end_within(&all, &avoid))
                }
                phi => Value::Bool(sat(phi).into_iter().all(|b| b)),
            },
            // A F φ fails when a run avoids φ from the start, forever.
            Form::Finally(phi) => {
                let avoid = not(&sat(phi));
                Value::Bool(!space.can_end_within(&avoid, &avoid))
            }
            _ => unreachable!(),
        },
        _ => unreachable!(),
    }
}

/// Checks that the witness of an answer is a run of `net` showing it.
fn check_witness(
    net: &Net,
    q: &ResolvedQuery,
    value: Value,
    witness: &[TransIdx],
    cycle: Option<&[TransIdx]>,
) -> Result<(), TestCaseError> {
    let end = replay(net, initial(net), witness)
        .ok_or_else(|| TestCaseError::fail(format!("{}: the witness does not fire", q.id)))?;
    match (&q.ask, value) {
        (Ask::Bound(ps), Value::Bound(b)) => {
            let sum: u64 = ps.iter().map(|&p| end[p as usize]).sum();
            prop_assert_eq!(sum, b, "{}: the witness reaches another sum", q.id);
        }
        (Ask::Holds(Form::Exists(f)), Value::Bool(true)) => {
            let Form::Finally(phi) = f.as_ref() else {
                unreachable!()
            };
            prop_assert!(holds(net, phi, &end), "{}: the witness misses φ", q.id);
        }
        (Ask::Holds(Form::All(f)), Value::Bool(false)) => match (f.as_ref(), cycle) {
            (Form::Globally(phi), None) => {
                prop_assert!(!holds(net, phi, &end), "{}: the witness keeps φ", q.id)
            }
            (_, Some([])) => {
                let dead = (0..net.transitions.len() as TransIdx).all(|t| !enabled(net, &end, t));
                prop_assert!(dead, "{}: the lasso's end is not dead", q.id);
            }
            (_, Some(cycle)) => {
                prop_assert!(
                    replay(net, end, cycle).is_some(),
                    "{}: the lasso's cycle does not fire",
                    q.id
                );
            }
            (_, None) => {}
        },
        _ => {}
    }
    Ok(())
}

#[test]
fn answers_on_reduced_nets_are_those_of_the_given_net() {
    let cases = common::cases(1500);
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let checked = std::cell::Cell::new(0u32);
    let reduced = std::cell::Cell::new(0u32);
    runner
        .run(
            &(
                arb_spec(),
                prop::collection::vec(
                    (
                        0..SHAPES,
                        arb_predicate(),
                        prop::collection::vec(0..8usize, 1..=2),
                    ),
                    1..=3,
                ),
            ),
            |(spec, asked)| {
                let net = build(&spec);
                let Some(space) = Space::of(&net, 500) else {
                    return Ok(());
                };
                checked.set(checked.get() + 1);
                // Several queries: the reduction for all of them, then for each alone.
                let queries: Vec<ResolvedQuery> = asked
                    .iter()
                    .enumerate()
                    .map(|(k, (shape, predicate, bound))| {
                        let mut q = query(&net, *shape, predicate, bound);
                        q.id = format!("{}-{k}", q.id);
                        q
                    })
                    .collect();
                let limits = Limits::new(Some(Duration::from_secs(20)), None);
                let found = check(
                    &net,
                    &queries,
                    EngineChoice::Auto,
                    &limits,
                    CheckOptions::default(),
                )
                .unwrap();
                prop_assert_eq!(found.answers.len(), queries.len(), "one answer per query");
                if found.reduced.contains(&true) {
                    reduced.set(reduced.get() + 1);
                }
                for (q, answer) in queries.iter().zip(&found.answers) {
                    prop_assert_eq!(&answer.id, &q.id);
                    let Some(value) = answer.value else {
                        return Err(TestCaseError::fail(format!(
                            "undecided on a small net: {:?}",
                            answer.unknown
                        )));
                    };
                    prop_assert_eq!(value, truth(&net, &space, q), "{:?} on {:?}", q, spec);
                    if let Some(w) = &answer.witness {
                        check_witness(&net, q, value, w, answer.cycle.as_deref())?;
                    }
                }
                Ok(())
            },
        )
        .unwrap();
    assert!(
        checked.get() * 2 > cases,
        "only {} of {cases} random nets were small enough",
        checked.get()
    );
    assert!(
        reduced.get() * 5 > checked.get(),
        "only {} of {} checks ran on a reduced net",
        reduced.get(),
        checked.get()
    );
}

/// A formula the reductions cannot answer (`next`, `deadlock`) is checked on the given net,
/// and a reduction that removes something is reported.
#[test]
fn next_and_deadlock_stay_on_the_given_net() {
    // A chain p0 → t0 → p1 → t1 → p2: the agglomerations fuse t0 and t1 unless observed.
    let mut b = NetBuilder::new("chain");
    let p: Vec<PlaceIdx> = (0..3)
        .map(|i| {
            b.add_place(format!("p{i}"), None, u32::from(i == 0))
                .unwrap()
        })
        .collect();
    for i in 0..2 {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        b.add_arc(p[i], t, ArcKind::Input, 1).unwrap();
        b.add_arc(p[i + 1], t, ArcKind::Output, 1).unwrap();
    }
    let net = b.finish();
    let count = |i: usize| IntExpr::Tokens(vec![p[i]]);
    let marked = |i: usize| Form::Compare(count(i), Cmp::Ge, IntExpr::Const(1));
    let ef = |f: ResolvedFormula| Form::Exists(Box::new(Form::Finally(Box::new(f))));
    let queries = vec![
        ResolvedQuery {
            id: "reach".into(),
            ask: Ask::Holds(ef(marked(2))),
            spans: Default::default(),
        },
        ResolvedQuery {
            id: "next".into(),
            ask: Ask::Holds(Form::All(Box::new(Form::Next(Box::new(marked(1)))))),
            spans: Default::default(),
        },
        ResolvedQuery {
            id: "dead".into(),
            ask: Ask::Holds(ef(Form::And(vec![Form::Deadlock, marked(2)]))),
            spans: Default::default(),
        },
    ];
    let limits = Limits::new(Some(Duration::from_secs(20)), None);
    let found = check(
        &net,
        &queries,
        EngineChoice::Auto,
        &limits,
        CheckOptions::default(),
    )
    .unwrap();
    assert_eq!(found.reduced, [true, false, false]);
    assert_eq!(found.notes.len(), 1, "{:?}", found.notes);
    let values: Vec<Option<Value>> = found.answers.iter().map(|a| a.value).collect();
    assert_eq!(
        values,
        [
            Some(Value::Bool(true)),
            Some(Value::Bool(true)),
            Some(Value::Bool(true))
        ]
    );
    // The witness of the first is a run of the chain, in its names.
    let w = found.answers[0].witness.clone().unwrap();
    assert_eq!(replay(&net, initial(&net), &w), Some(vec![0, 0, 1]));
}
