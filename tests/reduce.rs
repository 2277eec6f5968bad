//! Structural reductions ([`unfold::structural::reduce`]) against brute force: on random small
//! nets (safe and not, with weights and read arcs) a naive breadth-first search of the net and
//! of its reduction must agree on what the preservation class promises — whether a dead
//! marking is reachable, the reachable markings projected on the kept places with the
//! fireability of the kept transitions, and for LTL-X both, plus LTL-X formulas checked on
//! lassos of both state spaces — and every run of the reduced net, lifted, must replay on the
//! original to the same marking (a dead one for dead runs). Each rule also has hand-made
//! nets where its precondition holds and where it does not.

use crate::common;

use common::{Arcs, NetSpec as Spec, enabled, fire, net_of_spec as build};

use std::collections::{BTreeSet, HashMap, VecDeque};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use unfold::model::net::{ArcKind, Net, NetBuilder, PlaceIdx, TransIdx};
use unfold::structural::Budget;
use unfold::structural::reduce::{Preserve, Reduction, reduce};

pub(crate) fn arb_weight() -> impl Strategy<Value = u32> {
    prop_oneof![8 => Just(1u32), 2 => Just(2u32), 1 => Just(3u32)]
}

/// Mostly one input and one output arc, so that sequences, choices and parallel nodes (what
/// the rules look for) are common.
pub(crate) fn arb_arcs(max: usize) -> impl Strategy<Value = Arcs> {
    prop_oneof![
        4 => prop::collection::vec((0..8usize, Just(1u32)), 1..=1),
        2 => prop::collection::vec((0..8usize, arb_weight()), 0..=max),
    ]
}

/// Small nets (safe and not, weights, read arcs), shaped for the rules (shared with
/// `reduce_liveness`).
pub(crate) fn arb_spec() -> impl Strategy<Value = Spec> {
    (2..=7usize, 1..=7usize).prop_flat_map(|(places, transitions)| {
        (
            prop::collection::vec(
                prop_oneof![4 => Just(0u32), 3 => Just(1), 1 => 2..=3u32],
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

/// A hand-made transition: name, input arcs and output arcs as `(place, weight)`.
pub(crate) type Hand<'a> = (&'a str, &'a [(&'a str, u32)], &'a [(&'a str, u32)]);

/// Builds a net from place `(name, tokens)` and transition `(name, pre, post)` lists.
pub(crate) fn net(places: &[(&str, u32)], transitions: &[Hand]) -> Net {
    let mut b = NetBuilder::new("hand-made");
    let mut index = HashMap::new();
    for &(name, m) in places {
        index.insert(name, b.add_place(name, None, m).unwrap());
    }
    for &(name, pre, post) in transitions {
        let t = b.add_transition(name, None).unwrap();
        for (arcs, kind) in [(pre, ArcKind::Input), (post, ArcKind::Output)] {
            for &(p, w) in arcs {
                b.add_arc(index[p], t, kind, w).unwrap();
            }
        }
    }
    b.finish()
}

/// The explicit state space, by a naive breadth-first search: states, their successors and the
/// path to each, or `None` beyond `limit` states.
struct Space {
    states: Vec<Vec<u64>>,
    successors: Vec<Vec<usize>>,
    parent: Vec<Option<(usize, TransIdx)>>,
}

impl Space {
    fn of(net: &Net, limit: usize) -> Option<Space> {
        let initial: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
        let mut index = HashMap::from([(initial.clone(), 0usize)]);
        let mut space = Space {
            states: vec![initial],
            successors: vec![Vec::new()],
            parent: vec![None],
        };
        let mut queue = VecDeque::from([0usize]);
        while let Some(s) = queue.pop_front() {
            for t in 0..net.transitions.len() as TransIdx {
                if !enabled(net, &space.states[s], t) {
                    continue;
                }
                let next = fire(net, &space.states[s], t);
                let id = match index.get(&next) {
                    Some(&id) => id,
                    None => {
                        if space.states.len() >= limit {
                            return None;
                        }
                        let id = space.states.len();
                        index.insert(next.clone(), id);
                        space.states.push(next);
                        space.successors.push(Vec::new());
                        space.parent.push(Some((s, t)));
                        queue.push_back(id);
                        id
                    }
                };
                space.successors[s].push(id);
            }
        }
        Some(space)
    }

    fn path(&self, mut s: usize) -> Vec<TransIdx> {
        let mut run = Vec::new();
        while let Some((p, t)) = self.parent[s] {
            run.push(t);
            s = p;
        }
        run.reverse();
        run
    }

    fn dead(&self) -> Option<usize> {
        self.successors.iter().position(|s| s.is_empty())
    }
}

/// What is observed of a marking: the kept places' tokens and the kept transitions'
/// fireability.
fn observe(net: &Net, m: &[u64], places: &[PlaceIdx], transitions: &[TransIdx]) -> Vec<u64> {
    places
        .iter()
        .map(|&p| m[p as usize])
        .chain(
            transitions
                .iter()
                .map(|&t| enabled(net, m, t) as u64 + 1000),
        )
        .collect()
}

/// The observed parts of the original and reduced nets' names: the reduced net's kept nodes.
fn kept_in_reduced(
    r: &Reduction,
    places: &[PlaceIdx],
    transitions: &[TransIdx],
) -> (Vec<PlaceIdx>, Vec<TransIdx>) {
    (
        places
            .iter()
            .map(|&p| r.place_of(p).expect("a kept place survives"))
            .collect(),
        transitions
            .iter()
            .map(|&t| r.transition_of(t).expect("a kept transition survives"))
            .collect(),
    )
}

/// Every run to a reduced state lifts to a run of the original reaching the same marking on
/// the reduced places.
fn check_lifting(original: &Net, r: &Reduction, reduced: &Space) -> Result<(), TestCaseError> {
    for s in 0..reduced.states.len() {
        let lifted = r.lift_run(&reduced.path(s));
        let mut m: Vec<u64> = original.places.iter().map(|p| p.initial as u64).collect();
        for &t in &lifted {
            prop_assert!(enabled(original, &m, t), "lifted run not firable");
            m = fire(original, &m, t);
        }
        for (q, &tokens) in reduced.states[s].iter().enumerate() {
            prop_assert_eq!(m[r.original_place(q as PlaceIdx) as usize], tokens);
        }
    }
    Ok(())
}

/// Deadlock verdicts agree, and a dead run of the reduced net lifts to a dead run.
fn check_deadlock(
    original: &Net,
    r: &Reduction,
    space: &Space,
    reduced: &Space,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        space.dead().is_some(),
        reduced.dead().is_some(),
        "{:?}",
        r.rules
    );
    if let Some(d) = reduced.dead() {
        let run = r.lift_dead_run(original, &reduced.path(d));
        let mut m: Vec<u64> = original.places.iter().map(|p| p.initial as u64).collect();
        for &t in &run {
            prop_assert!(enabled(original, &m, t), "lifted dead run not firable");
            m = fire(original, &m, t);
        }
        prop_assert!(
            (0..original.transitions.len() as TransIdx).all(|t| !enabled(original, &m, t)),
            "lifted dead run ends at a live marking; rules {:?}",
            r.rules
        );
    }
    Ok(())
}

/// The sets of observed markings agree.
fn check_observed(
    original: &Net,
    r: &Reduction,
    space: &Space,
    reduced: &Space,
    places: &[PlaceIdx],
    transitions: &[TransIdx],
) -> Result<(), TestCaseError> {
    let (rp, rt) = kept_in_reduced(r, places, transitions);
    let of = |net: &Net, s: &Space, ps: &[PlaceIdx], ts: &[TransIdx]| -> BTreeSet<Vec<u64>> {
        s.states.iter().map(|m| observe(net, m, ps, ts)).collect()
    };
    prop_assert_eq!(
        of(original, space, places, transitions),
        of(&r.net, reduced, &rp, &rt),
        "rules {:?}",
        r.rules
    );
    Ok(())
}

/// Whether a run from `s` can stay forever on `s`'s observation: it reaches, through states
/// observed alike, a dead state (which stutters) or a cycle.
fn can_stay(obs: &[Vec<u64>], successors: &[Vec<usize>], s: usize) -> bool {
    let same: Vec<bool> = obs.iter().map(|o| *o == obs[s]).collect();
    // States of the block reachable from s; a cycle among them exists iff some state reaches
    // itself.
    let reach = |from: usize| -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<usize> = successors[from]
            .iter()
            .copied()
            .filter(|&n| same[n])
            .collect();
        while let Some(n) = stack.pop() {
            if seen.insert(n) {
                stack.extend(successors[n].iter().copied().filter(|&m| same[m]));
            }
        }
        seen
    };
    let block: BTreeSet<usize> = std::iter::once(s).chain(reach(s)).collect();
    block
        .iter()
        .any(|&n| successors[n].is_empty() || reach(n).contains(&n))
}

/// The stutter-free traces of observations with at most `changes` changes, each with whether
/// a run with that trace can stay forever at its end (a dead run stutters): what LTL without
/// next sees of the runs' beginnings, and of the maximal runs that change finitely often.
fn traces(
    obs: &[Vec<u64>],
    successors: &[Vec<usize>],
    changes: usize,
) -> BTreeSet<(Vec<Vec<u64>>, bool)> {
    let mut out = BTreeSet::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![(0usize, vec![obs[0].clone()])];
    while let Some((s, trace)) = stack.pop() {
        if !seen.insert((s, trace.clone())) {
            continue;
        }
        out.insert((trace.clone(), false));
        if can_stay(obs, successors, s) {
            out.insert((trace.clone(), true));
        }
        for &n in &successors[s] {
            if obs[n] == obs[s] {
                stack.push((n, trace.clone()));
            } else if trace.len() <= changes {
                let mut longer = trace.clone();
                longer.push(obs[n].clone());
                stack.push((n, longer));
            }
        }
    }
    out
}

/// Random nets with a random set of kept nodes, `check` applied to those with a small state
/// space; the number of nets checked must be large enough to mean something.
fn random_nets(
    cases: u32,
    check: impl Fn(&Net, &Space, Vec<PlaceIdx>, Vec<TransIdx>) -> Result<(), TestCaseError>,
) {
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let checked = std::cell::Cell::new(0u32);
    runner
        .run(
            &(
                arb_spec(),
                prop::collection::vec(0..8usize, 0..=2),
                prop::collection::vec(0..8usize, 0..=1),
            ),
            |(spec, kp, kt)| {
                let original = build(&spec);
                let Some(space) = Space::of(&original, 400) else {
                    return Ok(());
                };
                checked.set(checked.get() + 1);
                let mut places: Vec<PlaceIdx> = kp
                    .iter()
                    .map(|&p| (p % original.places.len()) as PlaceIdx)
                    .collect();
                places.sort_unstable();
                places.dedup();
                let mut transitions: Vec<TransIdx> = kt
                    .iter()
                    .map(|&t| (t % original.transitions.len()) as TransIdx)
                    .collect();
                transitions.dedup();
                check(&original, &space, places, transitions)
            },
        )
        .unwrap();
    assert!(
        checked.get() * 2 > cases,
        "only {} of {cases} random nets were small enough",
        checked.get()
    );
}

fn reduced_space(r: &Reduction) -> Result<Space, TestCaseError> {
    // The reduced net's markings are projections of the original's: never more of them.
    Space::of(&r.net, 400).ok_or_else(|| TestCaseError::fail("reduced net larger"))
}

#[test]
fn deadlocks_are_preserved_and_dead_runs_lift() {
    random_nets(3000, |original, space, _, _| {
        let r = reduce(original, &Preserve::Deadlock, &Budget::default());
        let reduced = reduced_space(&r)?;
        check_lifting(original, &r, &reduced)?;
        check_deadlock(original, &r, space, &reduced)
    });
}

#[test]
fn projected_markings_and_fireability_are_preserved() {
    random_nets(3000, |original, space, places, transitions| {
        let preserve = Preserve::Reachability {
            places: places.clone(),
            transitions: transitions.clone(),
        };
        let r = reduce(original, &preserve, &Budget::default());
        let reduced = reduced_space(&r)?;
        check_lifting(original, &r, &reduced)?;
        check_observed(original, &r, space, &reduced, &places, &transitions)
    });
}

#[test]
fn ltl_x_traces_are_preserved() {
    random_nets(2000, |original, space, places, transitions| {
        let preserve = Preserve::LtlX {
            places: places.clone(),
            transitions: transitions.clone(),
        };
        let r = reduce(original, &preserve, &Budget::default());
        let reduced = reduced_space(&r)?;
        check_lifting(original, &r, &reduced)?;
        check_deadlock(original, &r, space, &reduced)?;
        check_observed(original, &r, space, &reduced, &places, &transitions)?;
        if space.states.len() > 60 {
            return Ok(()); // Traces are exponential in the changes.
        }
        let (rp, rt) = kept_in_reduced(&r, &places, &transitions);
        let obs: Vec<Vec<u64>> = space
            .states
            .iter()
            .map(|m| observe(original, m, &places, &transitions))
            .collect();
        let robs: Vec<Vec<u64>> = reduced
            .states
            .iter()
            .map(|m| observe(&r.net, m, &rp, &rt))
            .collect();
        prop_assert_eq!(
            traces(&obs, &space.successors, 4),
            traces(&robs, &reduced.successors, 4),
            "rules {:?}",
            r.rules
        );
        Ok(())
    });
}

/// How often each rule applies over random nets: every rule must be exercised by the tests
/// above, or they prove nothing about it.
#[test]
fn every_rule_is_exercised_by_the_random_nets() {
    let mut runner = TestRunner::deterministic();
    let mut seen: HashMap<&'static str, usize> = HashMap::new();
    for _ in 0..3000 {
        let spec =
            proptest::strategy::ValueTree::current(&arb_spec().new_tree(&mut runner).unwrap());
        let original = build(&spec);
        if Space::of(&original, 400).is_none() {
            continue;
        }
        for preserve in [
            Preserve::Deadlock,
            Preserve::Reachability {
                places: vec![0],
                transitions: vec![],
            },
        ] {
            for (rule, n) in reduce(&original, &preserve, &Budget::default()).rules {
                *seen.entry(rule).or_default() += n;
            }
        }
    }
    for rule in [
        "dead transitions",
        "constant places",
        "sink places",
        "implicit places",
        "parallel transitions",
        "self-loop transitions",
        "post-agglomeration",
        "pre-agglomeration",
    ] {
        assert!(
            seen.get(rule).copied().unwrap_or(0) >= 10,
            "{rule}: {seen:?}"
        );
    }
}

/// How many times `rule` applied.
fn applied(r: &Reduction, rule: &str) -> usize {
    r.rules
        .iter()
        .find(|(name, _)| *name == rule)
        .map_or(0, |&(_, n)| n)
}

fn deadlock(net: &Net) -> Reduction {
    reduce(net, &Preserve::Deadlock, &Budget::default())
}

fn keeping(net: &Net, places: &[PlaceIdx], transitions: &[TransIdx]) -> Reduction {
    let preserve = Preserve::Reachability {
        places: places.to_vec(),
        transitions: transitions.to_vec(),
    };
    reduce(net, &preserve, &Budget::default())
}

/// A loop `a → t → b → u → a` with a token on `a`: nothing for most rules to do, to which the
/// hand-made nets add what each rule looks for.
const LOOP: [Hand; 2] = [
    ("t", &[("a", 1)], &[("b", 1)]),
    ("u", &[("b", 1)], &[("a", 1)]),
];

#[test]
fn unmarkable_place_kills_its_consumers() {
    // `c` is empty and never produced: `v` never fires.
    let n = net(
        &[("a", 1), ("b", 0), ("c", 0)],
        &[LOOP[0], LOOP[1], ("v", &[("c", 1), ("a", 1)], &[("b", 1)])],
    );
    let r = deadlock(&n);
    assert!(applied(&r, "dead transitions") >= 1, "{:?}", r.rules);
    assert!(r.net.transitions.iter().all(|t| t.id != "v"));
    // Produced by `t`: `v` may fire, and stays (the agglomerations may merge it).
    let n = net(
        &[("a", 1), ("b", 0), ("c", 0)],
        &[
            ("t", &[("a", 1)], &[("b", 1), ("c", 1)]),
            LOOP[1],
            ("v", &[("c", 1)], &[("a", 1)]),
        ],
    );
    assert_eq!(applied(&deadlock(&n), "dead transitions"), 0);
}

#[test]
fn constant_place_goes_with_the_transitions_it_blocks() {
    // `k` holds 1 token; `t` tests it through a loop, `v` needs 2 of it.
    let n = net(
        &[("a", 1), ("b", 0), ("k", 1)],
        &[
            ("t", &[("a", 1), ("k", 1)], &[("b", 1), ("k", 1)]),
            LOOP[1],
            ("v", &[("a", 1), ("k", 2)], &[("b", 1)]),
        ],
    );
    let r = keeping(&n, &[0, 1], &[]);
    assert_eq!(applied(&r, "constant places"), 1, "{:?}", r.rules);
    assert!(r.net.places.iter().all(|p| p.id != "k"));
    assert!(r.net.transitions.iter().all(|t| t.id != "v"));
    // `k` kept: it stays.
    let r = keeping(&n, &[0, 1, 2], &[]);
    assert_eq!(applied(&r, "constant places"), 0);
}

#[test]
fn sink_places_go_unless_kept() {
    let n = net(
        &[("a", 1), ("b", 0), ("s", 0)],
        &[("t", &[("a", 1)], &[("b", 1), ("s", 1)]), LOOP[1]],
    );
    assert_eq!(applied(&keeping(&n, &[0, 1], &[]), "sink places"), 1);
    assert_eq!(applied(&keeping(&n, &[0, 1, 2], &[]), "sink places"), 0);
}

#[test]
fn parallel_places_keep_the_smaller() {
    let both = |ma: u32, mc: u32| {
        net(
            &[("a", ma), ("b", 0), ("c", mc)],
            &[
                ("t", &[("a", 1), ("c", 1)], &[("b", 1)]),
                ("u", &[("b", 1)], &[("a", 1), ("c", 1)]),
            ],
        )
    };
    let r = keeping(&both(1, 2), &[0, 1], &[]);
    assert_eq!(applied(&r, "implicit places"), 1, "{:?}", r.rules);
    assert!(r.net.places.iter().all(|p| p.id != "c"));
    // `c` has fewer tokens: `c` can block where `a` does not; `a` goes, unless kept.
    let r = keeping(&both(2, 1), &[1, 2], &[]);
    assert!(r.net.places.iter().all(|p| p.id != "a"));
    assert_eq!(
        applied(&keeping(&both(2, 1), &[0, 1], &[]), "implicit places"),
        0
    );
}

#[test]
fn implicit_place_needs_enough_tokens_for_its_extra_tests() {
    // `c` changes as `a` does; `s` also tests two tokens of `c`, which `a` does not.
    let n = |mc: u32| {
        net(
            &[("a", 1), ("b", 0), ("c", mc)],
            &[
                ("t", &[("a", 1), ("c", 1)], &[("b", 1)]),
                ("u", &[("b", 1)], &[("a", 1), ("c", 1)]),
                ("s", &[("c", 2)], &[("c", 2)]),
            ],
        )
    };
    // LTL-X keeps the self-loop `s` (reachability would remove it, and `c` with it).
    let ltl = Preserve::LtlX {
        places: vec![0, 1],
        transitions: vec![],
    };
    // M(c) = M(a) + 2: `s` always has its tokens of `c`.
    let r = reduce(&n(3), &ltl, &Budget::default());
    assert_eq!(applied(&r, "implicit places"), 1, "{:?}", r.rules);
    assert!(r.net.places.iter().all(|p| p.id != "c"));
    // M(c) = M(a) + 1: when `b` is marked, `c` has one token and blocks `s`.
    let r = reduce(&n(2), &ltl, &Budget::default());
    assert!(r.net.places.iter().any(|p| p.id == "c"), "{:?}", r.rules);
}

#[test]
fn parallel_transitions_keep_one_preferring_the_kept() {
    let n = net(
        &[("a", 1), ("b", 0)],
        &[LOOP[0], LOOP[1], ("t2", &[("a", 1)], &[("b", 1)])],
    );
    let r = keeping(&n, &[0, 1], &[2]);
    assert_eq!(applied(&r, "parallel transitions"), 1);
    assert!(r.transition_of(2).is_some() && r.transition_of(0).is_none());
    let n = net(
        &[("a", 1), ("b", 0)],
        &[LOOP[0], LOOP[1], ("t2", &[("a", 1)], &[("b", 2)])],
    );
    assert_eq!(
        applied(&keeping(&n, &[0, 1], &[]), "parallel transitions"),
        0
    );
}

#[test]
fn self_loops_go_for_reachability_only() {
    let n = net(
        &[("a", 1), ("b", 0)],
        &[LOOP[0], LOOP[1], ("s", &[("b", 1)], &[("b", 1)])],
    );
    assert_eq!(
        applied(&keeping(&n, &[0, 1], &[]), "self-loop transitions"),
        1
    );
    assert_eq!(applied(&deadlock(&n), "self-loop transitions"), 0);
    let ltl = Preserve::LtlX {
        places: vec![0, 1],
        transitions: vec![],
    };
    assert_eq!(
        applied(
            &reduce(&n, &ltl, &Budget::default()),
            "self-loop transitions"
        ),
        0
    );
}

#[test]
fn post_agglomeration_needs_unobserved_outputs() {
    // a → h → p → f → b, and b → u → a; `a` is also consumed by g (so not pre-agglomerable).
    let n = net(
        &[("a", 1), ("b", 0), ("p", 0), ("c", 0)],
        &[
            ("h", &[("a", 1)], &[("p", 1)]),
            ("f", &[("p", 1)], &[("b", 1)]),
            ("u", &[("b", 1)], &[("a", 1)]),
            ("g", &[("a", 1)], &[("c", 1)]),
            ("v", &[("c", 1)], &[("a", 1)]),
        ],
    );
    let r = keeping(&n, &[0, 3], &[]);
    assert!(applied(&r, "post-agglomeration") >= 1, "{:?}", r.rules);
    assert!(r.net.transitions.iter().any(|t| t.id == "h__f"));
    // `b` observed: `f` may not be moved.
    let r = keeping(&n, &[0, 1, 3], &[]);
    assert!(
        r.net.transitions.iter().all(|t| t.id != "h__f"),
        "{:?}",
        r.rules
    );
}

#[test]
fn pre_agglomeration_needs_a_private_input() {
    // a → h → p → f (f also needs c), f → b → u → a, c.
    let n = |shared: bool| {
        let mut ts = vec![
            ("h", &[("a", 1)][..], &[("p", 1)][..]),
            ("f", &[("p", 1), ("c", 1)], &[("b", 1)]),
            ("u", &[("b", 1)], &[("a", 1), ("c", 1)]),
        ];
        if shared {
            ts.push(("g", &[("a", 1)], &[("b", 1)]));
        }
        net(&[("a", 1), ("b", 0), ("p", 0), ("c", 1)], &ts)
    };
    let r = keeping(&n(false), &[1, 3], &[]);
    assert_eq!(applied(&r, "pre-agglomeration"), 1, "{:?}", r.rules);
    assert!(r.net.transitions.iter().any(|t| t.id == "h__f"));
    // `a` consumed by `g` too: delaying `h` could let `g` fire where it could not.
    let r = keeping(&n(true), &[1, 3], &[]);
    assert!(
        r.net.transitions.iter().all(|t| t.id != "h__f"),
        "{:?}",
        r.rules
    );
    // `a` observed: delaying `h` would show on it.
    let r = keeping(&n(false), &[0, 1, 3], &[]);
    assert!(
        r.net.transitions.iter().all(|t| t.id != "h__f"),
        "{:?}",
        r.rules
    );
}

/// On the shared nets, the reduced net's deadlock verdict (explicit search, where small
/// enough) is the oracle's, and its dead runs lift to dead runs of the original.
#[test]
fn shared_nets_keep_their_deadlock_verdicts() {
    let oracles = common::oracles();
    let mut checked = 0;
    for file in common::shared_net_files() {
        let Some(expected) = oracles.get(&file).and_then(|o| o.get("deadlock")) else {
            continue;
        };
        let Ok((original, _)) = unfold::formats::read_net(&common::shared_nets().join(&file))
        else {
            continue; // Coloured nets.
        };
        let r = deadlock(&original);
        let Some(space) = Space::of(&r.net, 20_000) else {
            continue;
        };
        checked += 1;
        let dead = space.dead();
        assert_eq!(dead.is_some(), expected == "TRUE", "{file}: {:?}", r.rules);
        if let Some(d) = dead {
            let run = r.lift_dead_run(&original, &space.path(d));
            let mut m: Vec<u64> = original.places.iter().map(|p| p.initial as u64).collect();
            for &t in &run {
                assert!(enabled(&original, &m, t), "{file}: lifted run not firable");
                m = fire(&original, &m, t);
            }
            assert!(
                (0..original.transitions.len() as TransIdx).all(|t| !enabled(&original, &m, t)),
                "{file}: the lifted run ends at a live marking"
            );
        }
    }
    assert!(checked >= 15, "only {checked} shared nets checked");
}

/// `unfold reduce` writes a net that reads back with the sizes it reports, in both formats.
#[test]
fn reduce_command_writes_the_reduced_net() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::shared_nets().join("pep/fifo20.ll_net");
    for out in ["r.ll_net", "r.pnml"] {
        let path = dir.path().join(out);
        let json = dir.path().join("r.json");
        common::unfold()
            .arg("reduce")
            .arg(&input)
            .arg(&path)
            .args(["--preserve", "deadlock", "--json"])
            .arg(&json)
            .assert()
            .success();
        let (net, _) = unfold::formats::read_net(&path).unwrap();
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(report["places_after"], net.places.len() as u64);
        assert_eq!(report["transitions_after"], net.transitions.len() as u64);
        assert!(net.places.len() < 166, "fifo20 has 166 places and reduces");
    }
    common::unfold()
        .arg("reduce")
        .arg(&input)
        .arg(dir.path().join("x.pnml"))
        .args(["--preserve", "places:nosuchplace"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("nosuchplace"));
}
