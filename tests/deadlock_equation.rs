//! The state equation's refutations ([`StateEquation::refute_box`]) and the deadlock proofs
//! built on them ([`deadlock_free_with`]) against brute force: on random small nets with
//! weights and read arcs, no reachable marking (found by a naive breadth-first search that
//! shares no code with the library's explorers) lies in a refuted box, and no net proved
//! deadlock-free has a reachable dead marking, and a liveness verdict from an emptied siphon
//! ([`by_siphons`]) is backed by a run after which some transition is never enabled again.
//! Hand-made nets show what the state equation adds to the plain trap argument, and what it
//! cannot prove.

use crate::common;

use std::collections::{HashSet, VecDeque};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use unfold::check::global::by_siphons;
use unfold::explore::limits::Limits;
use unfold::model::net::{ArcKind, Net, NetBuilder};
use unfold::structural::siphons::{consumers, emptiable_siphons, is_siphon};
use unfold::structural::state_equation::{Certificate, MarkingBox, StateEquation};
use unfold::structural::traps::{TrapVerdict, deadlock_free, deadlock_free_with};
use unfold::structural::{Budget, Facts};

use common::{Arcs, NetSpec, enabled, fire, net_of_spec};

/// The most markings the naive search visits.
const MAX_STATES: usize = 4_000;

/// The markings reachable from the initial one, breadth first, at most [`MAX_STATES`], and
/// whether that is all of them.
fn reachable(net: &Net) -> (Vec<Vec<u64>>, bool) {
    let initial: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
    let mut seen = HashSet::from([initial.clone()]);
    let mut queue = VecDeque::from([initial.clone()]);
    let mut all = vec![initial];
    while let Some(m) = queue.pop_front() {
        for t in 0..net.transitions.len() as u32 {
            if enabled(net, &m, t) {
                let next = fire(net, &m, t);
                if seen.insert(next.clone()) {
                    if all.len() >= MAX_STATES {
                        return (all, false);
                    }
                    all.push(next.clone());
                    queue.push_back(next);
                }
            }
        }
    }
    (all, true)
}

fn is_dead(net: &Net, m: &[u64]) -> bool {
    (0..net.transitions.len() as u32).all(|t| !enabled(net, m, t))
}

fn arb_weight() -> impl Strategy<Value = u32> {
    prop_oneof![6 => Just(1u32), 2 => Just(2u32), 1 => Just(3u32)]
}

fn arb_arcs(max: usize) -> impl Strategy<Value = Arcs> {
    prop::collection::vec((0..8usize, arb_weight()), 0..=max)
}

/// Nets of 2 to 6 places and 1 to 6 transitions, with weights and read arcs.
fn arb_spec() -> impl Strategy<Value = NetSpec> {
    (2..=6usize, 1..=6usize).prop_flat_map(|(places, transitions)| {
        (
            prop::collection::vec(
                prop_oneof![2 => Just(0u32), 2 => Just(1), 1 => 2..=3u32],
                places,
            ),
            prop::collection::vec((arb_arcs(3), arb_arcs(3), arb_arcs(1)), transitions),
        )
            .prop_map(|(initial, transitions)| NetSpec {
                initial,
                transitions,
            })
    })
}

/// A random box on `places` places: each bound absent or small.
fn arb_box(places: usize) -> impl Strategy<Value = MarkingBox> {
    (
        prop::collection::vec(prop_oneof![3 => Just(0i64), 1 => 1..=3i64], places),
        prop::collection::vec(
            prop_oneof![2 => Just(None), 1 => (0..=3i64).prop_map(Some)],
            places,
        ),
    )
        .prop_map(|(lower, upper)| MarkingBox { lower, upper })
}

fn inside(b: &MarkingBox, m: &[u64]) -> bool {
    m.iter().enumerate().all(|(p, &k)| {
        let k = k as i64;
        k >= b.lower[p] && b.upper[p].is_none_or(|u| k <= u)
    })
}

fn budget() -> Instant {
    Instant::now() + Duration::from_secs(10)
}

proptest! {
    #![proptest_config(Config::with_cases(common::cases(1024)))]

    /// No reachable marking lies in a box the state equation refutes, and the certificate
    /// passes the exact check on its own.
    #[test]
    fn refuted_boxes_hold_no_reachable_marking(
        (spec, b) in arb_spec().prop_flat_map(|s| {
            let places = s.initial.len();
            (Just(s), arb_box(places))
        })
    ) {
        let net = net_of_spec(&spec);
        let se = StateEquation::new(&net);
        if let Some(r) = se.refute_box(&b, None) {
            prop_assert!(se.verify_box(&b, &r.certificate).is_some());
            let (states, _) = reachable(&net);
            for m in &states {
                prop_assert!(!inside(&b, m), "{m:?} is reachable and inside the refuted {b:?}");
            }
            // The bounds it names suffice: the box of those alone is refuted by it too.
            let mut only = MarkingBox::unbounded(b.lower.len());
            for &p in &r.lower {
                only.lower[p as usize] = b.lower[p as usize];
            }
            for &p in &r.upper {
                only.upper[p as usize] = b.upper[p as usize];
            }
            prop_assert!(se.verify_box(&only, &r.certificate).is_some());
        }
    }

    /// A net proved deadlock-free with the state equation has no reachable dead marking; and
    /// what the plain trap argument proves, the state equation proves too.
    #[test]
    fn equation_proofs_of_deadlock_freedom_hold(spec in arb_spec()) {
        let net = net_of_spec(&spec);
        let facts = Facts::of(&net, &Budget::default());
        let with = deadlock_free_with(&net, &facts, budget(), true);
        if let TrapVerdict::DeadlockFree { .. } = with {
            let (states, _) = reachable(&net);
            for m in &states {
                prop_assert!(!is_dead(&net, m), "proved deadlock-free, but {m:?} is dead and reachable");
            }
        }
        if let TrapVerdict::DeadlockFree { .. } = deadlock_free(&net, &facts, budget()) {
            prop_assert!(matches!(with, TrapVerdict::DeadlockFree { .. }), "{with:?}");
        }
    }
}

/// Nets where weights matter: heavier arcs and more tokens than [`arb_spec`], one or two arcs
/// each way.
fn arb_weighted_spec() -> impl Strategy<Value = NetSpec> {
    let arcs = || {
        prop::collection::vec(
            (
                0..8usize,
                prop_oneof![2 => Just(1u32), 2 => Just(2u32), 1 => Just(3u32)],
            ),
            1..=2,
        )
    };
    (2..=4usize, 2..=4usize).prop_flat_map(move |(places, transitions)| {
        (
            prop::collection::vec(0..=4u32, places),
            prop::collection::vec(
                (
                    arcs(),
                    arcs(),
                    prop::collection::vec((0..8usize, Just(1u32)), 0..=0),
                ),
                transitions,
            ),
        )
            .prop_map(|(initial, transitions)| NetSpec {
                initial,
                transitions,
            })
    })
}

/// The state equation proves more than the traps: over fixed random cases with weights and
/// complete state spaces, it proves deadlock-free nets the traps leave open, and never one
/// that deadlocks (checked above).
#[test]
fn the_equation_proves_more_than_the_traps() {
    let mut runner = TestRunner::deterministic();
    let strategy = arb_weighted_spec();
    let (mut traps, mut equation, mut free) = (0, 0, 0);
    for _ in 0..600 {
        let spec = strategy.new_tree(&mut runner).unwrap().current();
        let net = net_of_spec(&spec);
        let (states, complete) = reachable(&net);
        if !complete {
            continue;
        }
        let dead = states.iter().any(|m| is_dead(&net, m));
        free += usize::from(!dead);
        let facts = Facts::of(&net, &Budget::default());
        let proved = |v: TrapVerdict| usize::from(matches!(v, TrapVerdict::DeadlockFree { .. }));
        let with = proved(deadlock_free_with(&net, &facts, budget(), true));
        assert!(!(dead && with == 1), "{spec:?}");
        traps += proved(deadlock_free(&net, &facts, budget()));
        equation += with;
    }
    eprintln!(
        "of {free} deadlock-free nets: {traps} proved by traps, {equation} with the state equation"
    );
    assert!(equation >= traps + 5, "{traps} {equation} {free}");
}

/// A net from its initial marking and transitions `(inputs, outputs)`, arcs `(place, weight)`.
type Arcs2<'a> = &'a [(u32, u32)];
fn net(initial: &[u32], transitions: &[(Arcs2, Arcs2)]) -> Net {
    let mut b = NetBuilder::new("n");
    for (i, &k) in initial.iter().enumerate() {
        b.add_place(format!("p{i}"), None, k).unwrap();
    }
    for (i, (pre, post)) in transitions.iter().enumerate() {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        for &(p, w) in pre.iter() {
            b.add_arc(p, t, ArcKind::Input, w).unwrap();
        }
        for &(p, w) in post.iter() {
            b.add_arc(p, t, ArcKind::Output, w).unwrap();
        }
    }
    b.finish()
}

fn verdicts(n: &Net) -> (TrapVerdict, TrapVerdict) {
    let facts = Facts::of(n, &Budget::default());
    (
        deadlock_free(n, &facts, budget()),
        deadlock_free_with(n, &facts, budget(), true),
    )
}

/// Three tokens moved two at a time between two places: a dead marking has at most one token
/// on each, so at most two in all, but there are three. The traps know nothing of weights;
/// the state equation counts.
#[test]
fn pairs_of_three_tokens_never_deadlock() {
    let n = net(&[3, 0], &[(&[(0, 2)], &[(1, 2)]), (&[(1, 2)], &[(0, 2)])]);
    let (states, complete) = reachable(&n);
    assert!(complete && !states.iter().any(|m| is_dead(&n, m)));
    let (traps, with) = verdicts(&n);
    assert!(matches!(traps, TrapVerdict::Candidate(_)), "{traps:?}");
    assert!(
        matches!(with, TrapVerdict::DeadlockFree { equations, .. } if equations > 0),
        "{with:?}"
    );
}

/// Two tokens moved two at a time: deadlock-free, but the state equation has the real
/// solution of one token on each place (half a firing), dead; so nothing is proved.
#[test]
fn pairs_of_two_tokens_stay_unknown() {
    let n = net(&[2, 0], &[(&[(0, 2)], &[(1, 2)]), (&[(1, 2)], &[(0, 2)])]);
    let (states, complete) = reachable(&n);
    assert!(complete && !states.iter().any(|m| is_dead(&n, m)));
    let (traps, with) = verdicts(&n);
    assert!(matches!(traps, TrapVerdict::Candidate(_)), "{traps:?}");
    assert!(matches!(with, TrapVerdict::Candidate(_)), "{with:?}");
}

/// A net that deadlocks (two philosophers) gives a candidate, with or without the equation.
#[test]
fn a_deadlock_stays_a_candidate() {
    let n = net(
        &[1, 1, 0, 0],
        &[
            (&[(0, 1)], &[(2, 1)]),
            (&[(1, 1)], &[(3, 1)]),
            (&[(2, 1), (1, 1)], &[(0, 1), (1, 1)]),
            (&[(3, 1), (0, 1)], &[(0, 1), (1, 1)]),
        ],
    );
    let (states, _) = reachable(&n);
    assert!(states.iter().any(|m| is_dead(&n, m)));
    let (traps, with) = verdicts(&n);
    assert!(matches!(traps, TrapVerdict::Candidate(_)), "{traps:?}");
    assert!(matches!(with, TrapVerdict::Candidate(_)), "{with:?}");
}

/// The exact check rejects what does not refute the box.
#[test]
fn a_doctored_box_certificate_is_rejected() {
    // p0 ⇄ p1, one token: the box "both empty" is refuted by y = (−1, −1).
    let n = net(&[1, 0], &[(&[(0, 1)], &[(1, 1)]), (&[(1, 1)], &[(0, 1)])]);
    let se = StateEquation::new(&n);
    let b = MarkingBox {
        lower: vec![0, 0],
        upper: vec![Some(0), Some(0)],
    };
    let good = Certificate {
        numerators: vec![-1, -1],
        denominator: 1,
    };
    let r = se.verify_box(&b, &good).expect("refutes");
    assert_eq!((r.lower, r.upper), (vec![], vec![0, 1]));
    assert!(se.refute_box(&b, None).is_some());
    // yᵀC > 0 on t1.
    let bad = Certificate {
        numerators: vec![-1, 0],
        denominator: 1,
    };
    assert!(se.verify_box(&b, &bad).is_none());
    // Without the upper bound of p1 the negative entry proves nothing.
    let open = MarkingBox {
        lower: vec![0, 0],
        upper: vec![Some(0), None],
    };
    assert!(se.verify_box(&open, &good).is_none());
    assert!(se.refute_box(&open, None).is_none());
    for denominator in [0, -1] {
        let bad = Certificate {
            denominator,
            ..good.clone()
        };
        assert!(se.verify_box(&b, &bad).is_none());
    }
    let huge = Certificate {
        numerators: vec![i128::MIN, i128::MIN],
        denominator: 1,
    };
    assert!(se.verify_box(&b, &huge).is_none());
    // A box a reachable marking lies in is never refuted.
    let holds = MarkingBox {
        lower: vec![0, 1],
        upper: vec![None, Some(1)],
    };
    assert!(se.refute_box(&holds, None).is_none());
}

/// The markings reachable from `m` (at most [`MAX_STATES`]), and whether that is all.
fn reachable_from(net: &Net, m: Vec<u64>) -> (Vec<Vec<u64>>, bool) {
    let mut seen = HashSet::from([m.clone()]);
    let mut queue = VecDeque::from([m.clone()]);
    let mut all = vec![m];
    while let Some(m) = queue.pop_front() {
        for t in 0..net.transitions.len() as u32 {
            if enabled(net, &m, t) {
                let next = fire(net, &m, t);
                if seen.insert(next.clone()) {
                    if all.len() >= MAX_STATES {
                        return (all, false);
                    }
                    all.push(next.clone());
                    queue.push_back(next);
                }
            }
        }
    }
    (all, true)
}

/// Whether a siphon verdict holds by brute force: the witness fires from the initial marking
/// (the naive firing rule) and some transition is enabled
/// in no marking reachable from where the witness ends (when those are all seen). `None`
/// when there is no verdict.
fn siphon_verdict_holds(net: &Net) -> Option<bool> {
    let facts = Facts::of(net, &Budget::default());
    let early = by_siphons(net, &facts, Duration::from_millis(50), &Limits::default())
        .expect("no overflow")?;
    let mut m: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
    for &t in early.witness.as_ref().expect("a run") {
        if !enabled(net, &m, t) {
            return Some(false);
        }
        m = fire(net, &m, t);
    }
    let (after, complete) = reachable_from(net, m);
    let never =
        (0..net.transitions.len() as u32).any(|t| !after.iter().any(|m| enabled(net, m, t)));
    Some(!early.verdict && (never || !complete))
}

proptest! {
    #![proptest_config(Config::with_cases(common::cases(512)))]

    /// Every siphon proposed is a siphon over the transitions that may fire, and a liveness
    /// verdict from an emptied siphon is backed by a run after which some transition is never
    /// enabled again (brute force).
    #[test]
    fn siphon_verdicts_hold(spec in arb_spec()) {
        let net = net_of_spec(&spec);
        let facts = Facts::of(&net, &Budget::default());
        for s in emptiable_siphons(&net, &facts, budget(), 8) {
            let mut set = vec![false; net.places.len()];
            for &p in &s {
                set[p as usize] = true;
            }
            prop_assert!(is_siphon(&net, facts.dead(), &set), "{s:?}");
            prop_assert!(!consumers(&net, facts.dead(), &set).is_empty(), "{s:?}");
        }
        if let Some(holds) = siphon_verdict_holds(&net) {
            prop_assert!(holds);
        }
    }
}

/// The siphon search says something: over fixed random cases it refutes liveness on some.
#[test]
fn siphons_refute_liveness_on_some_random_nets() {
    let mut runner = TestRunner::deterministic();
    let strategy = arb_spec();
    let mut refuted = 0;
    for _ in 0..200 {
        let net = net_of_spec(&strategy.new_tree(&mut runner).unwrap().current());
        if let Some(holds) = siphon_verdict_holds(&net) {
            assert!(holds);
            refuted += 1;
        }
    }
    assert!(refuted >= 10, "{refuted}");
}

/// A one-shot start and a cycle: the siphon {go} empties after one step, and `start` is
/// dead from then on.
#[test]
fn a_one_shot_start_empties_its_siphon() {
    let n = net(
        &[1, 0, 0],
        &[
            (&[(0, 1)], &[(1, 1)]),
            (&[(1, 1)], &[(2, 1)]),
            (&[(2, 1)], &[(1, 1)]),
        ],
    );
    assert_eq!(siphon_verdict_holds(&n), Some(true));
    // A ring with its token: every siphon holds the marked trap of the ring.
    let ring = net(&[1, 0], &[(&[(0, 1)], &[(1, 1)]), (&[(1, 1)], &[(0, 1)])]);
    let facts = Facts::of(&ring, &Budget::default());
    assert!(emptiable_siphons(&ring, &facts, budget(), 8).is_empty());
    assert_eq!(siphon_verdict_holds(&ring), None);
}
