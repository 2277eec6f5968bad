//! The best-first seek of a target ([`unfold::check::seek`]) and the state equation's
//! refutation of whole targets ([`Equation::refutes_together`], certificates of
//! [`StateEquation::refute_rows`]) against the full reachable state set of small random nets
//! (weights, read arcs, safe and not): a refuted target is satisfied by no reachable marking,
//! a target the seek finds has a run that replays to a marking satisfying it, and a target it
//! calls absent is satisfied by none; the seek's distance is 0 exactly on the markings that
//! satisfy the target.

use crate::common;

use std::time::Duration;

use proptest::prelude::*;
use unfold::check::Search;
use unfold::check::dpor;
use unfold::check::equation::Equation;
use unfold::check::seek::{distance, seek};
use unfold::explore::limits::Limits;
use unfold::model::net::Net;
use unfold::property::{Cmp, Linear, Predicate};
use unfold::structural::state_equation::{AtLeast, RowCertificate, StateEquation};

use common::{Arcs, NetSpec, Plain, arb_predicate, markings, net_of_spec, replay};

fn arb_arcs(max: usize) -> impl Strategy<Value = Arcs> {
    prop::collection::vec(
        (0..6usize, prop_oneof![5 => Just(1u32), 2 => Just(2u32)]),
        0..=max,
    )
}

fn arb_spec() -> impl Strategy<Value = NetSpec> {
    (2..=5usize, 1..=5usize).prop_flat_map(|(places, transitions)| {
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

fn arb_case() -> impl Strategy<Value = (NetSpec, Vec<Predicate>)> {
    arb_spec().prop_flat_map(|spec| {
        let (np, nt) = (spec.initial.len() as u32, spec.transitions.len() as u32);
        (
            Just(spec),
            prop::collection::vec(arb_predicate(np, nt, 3), 1..=6),
        )
    })
}

/// Whether some reachable marking of `net` (all given in `all`) satisfies `p`.
fn reachable(net: &Net, all: &[Vec<u64>], p: &Predicate) -> bool {
    all.iter().any(|m| p.holds(&Plain { net, m }))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(400)))]

    #[test]
    fn a_refuted_target_is_unreachable((spec, preds) in arb_case()) {
        let net = net_of_spec(&spec);
        let Some(all) = markings(&net, 5_000) else {
            return Ok(());
        };
        let eq = Equation::new(&net, Duration::from_secs(5), Duration::from_secs(60));
        for p in &preds {
            if eq.refutes_together(p) {
                prop_assert!(!reachable(&net, &all, p), "refuted but reachable: {p:?}");
            }
        }
    }

    #[test]
    fn the_seek_agrees_with_the_state_space((spec, preds) in arb_case()) {
        let net = net_of_spec(&spec);
        let Some(all) = markings(&net, 5_000) else {
            return Ok(());
        };
        let limits = Limits::default();
        for p in &preds {
            for m in &all {
                let plain = Plain { net: &net, m };
                prop_assert_eq!(distance(&net, p, &plain) == 0, p.holds(&plain), "{:?} at {:?}", p, m);
            }
            match seek(&net, p, Duration::from_secs(10), &limits).unwrap() {
                Search::Found(run) => {
                    let end = replay(&net, &run);
                    prop_assert!(end.is_some(), "the run does not fire");
                    let end = end.unwrap();
                    let satisfied = p.holds(&Plain { net: &net, m: &end });
                    prop_assert!(satisfied, "the run ends outside the target");
                }
                // The state space is at most 5 000 markings: the seek sees all of them.
                Search::Absent => prop_assert!(!reachable(&net, &all, p), "absent but reachable: {p:?}"),
                Search::Unknown(why) => prop_assert!(false, "undecided on a small net: {why:?}"),
            }
        }
    }
}

/// A single place `p0` whose tokens move to `p1` one at a time, weight 2 back: `p0 + 2·p1`
/// stays 4 (a P-invariant), so `p0 ≥ 3 ∧ p1 ≥ 1` is unreachable while each atom alone is
/// reachable.
fn exchange() -> Net {
    net_of_spec(&NetSpec {
        initial: vec![4, 0],
        transitions: vec![
            (vec![(0, 2)], vec![(1, 1)], vec![]),
            (vec![(1, 1)], vec![(0, 2)], vec![]),
        ],
    })
}

fn at_least(p: u32, k: u64) -> Predicate {
    Predicate::Compare(
        Linear {
            constant: 0,
            terms: vec![(p, 1)],
        },
        Cmp::Ge,
        Linear {
            constant: k,
            terms: vec![],
        },
    )
}

#[test]
fn a_conjunction_the_atoms_alone_do_not_refute() {
    let net = exchange();
    let eq = Equation::new(&net, Duration::from_secs(5), Duration::from_secs(60));
    let both = Predicate::And(vec![at_least(0, 3), at_least(1, 1)]);
    assert!(!eq.refutes(&both), "each atom is reachable on its own");
    assert!(eq.refutes_together(&both));
    // p0 = 2 ∧ p1 = 1 is reachable: never refuted.
    let reachable = Predicate::And(vec![at_least(0, 2), at_least(1, 1)]);
    assert!(!eq.refutes_together(&reachable));
}

#[test]
fn a_doctored_row_certificate_is_rejected() {
    let net = exchange();
    let se = StateEquation::new(&net);
    let rows = vec![
        AtLeast {
            terms: vec![(0, 1)],
            bound: 3,
        },
        AtLeast {
            terms: vec![(1, 1)],
            bound: 1,
        },
    ];
    let cert = se.refute_rows(&rows, None).expect("refuted");
    assert!(se.verify_rows(&rows, &cert));
    // y = (1, 2) (the invariant) and λ = (1, 2): 3 + 2 > 4.
    let good = RowCertificate {
        multipliers: vec![1, 2],
        numerators: vec![1, 2],
        denominator: 1,
    };
    assert!(se.verify_rows(&rows, &good));
    for bad in [
        // A negative multiplier.
        RowCertificate {
            multipliers: vec![1, -2],
            ..good.clone()
        },
        // y below g on p1.
        RowCertificate {
            numerators: vec![1, 1],
            ..good.clone()
        },
        // yᵀC > 0 on the first transition.
        RowCertificate {
            multipliers: vec![1, 0],
            numerators: vec![1, 3],
            denominator: 1,
        },
        // Not a contradiction: λ·b = 3 ≤ y·M0 = 4.
        RowCertificate {
            multipliers: vec![1, 0],
            numerators: vec![1, 2],
            denominator: 1,
        },
        RowCertificate {
            denominator: 0,
            ..good.clone()
        },
        RowCertificate {
            multipliers: vec![1],
            ..good.clone()
        },
        RowCertificate {
            numerators: vec![i128::MAX, i128::MAX],
            ..good.clone()
        },
    ] {
        assert!(!se.verify_rows(&rows, &bad), "{bad:?}");
    }
}

#[test]
fn the_seek_gathers_tokens_that_a_breadth_first_search_reaches_late() {
    // 3 000 tokens to move one by one from p0 to p1, with a side place p2 that every move
    // may also feed: p1 ≥ 3 000 lies 3 000 steps deep in a state space of millions.
    let net = net_of_spec(&NetSpec {
        initial: vec![3_000, 0, 0],
        transitions: vec![
            (vec![(0, 1)], vec![(1, 1)], vec![]),
            (vec![(0, 1)], vec![(2, 1)], vec![]),
            (vec![(2, 1)], vec![(0, 1)], vec![]),
        ],
    });
    let target = at_least(1, 3_000);
    match seek(&net, &target, Duration::from_secs(60), &Limits::default()).unwrap() {
        Search::Found(run) => {
            let end = replay(&net, &run).expect("the run fires");
            assert!(target.holds(&Plain { net: &net, m: &end }));
        }
        other => panic!("not found: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(400)))]

    /// `deadlock` alone goes to the DPOR on the net itself (not the observed net): it must
    /// agree with the full state space, with a witness that replays to a dead marking.
    #[test]
    fn the_dpor_finds_exactly_the_deadlocks(spec in arb_spec()) {
        let net = net_of_spec(&spec);
        let Some(all) = markings(&net, 5_000) else {
            return Ok(());
        };
        let dead = reachable(&net, &all, &Predicate::Deadlock);
        let run = dpor::check(&net, &[Predicate::Deadlock], &[], &Limits::default(), &mut |_| {})
            .unwrap();
        match &run.searches[0] {
            Search::Found(w) => {
                prop_assert!(dead, "a deadlock found on a deadlock-free net");
                let end = replay(&net, w);
                prop_assert!(end.is_some(), "the witness does not fire");
                let end = end.unwrap();
                let is_dead = Predicate::Deadlock.holds(&Plain { net: &net, m: &end });
                prop_assert!(is_dead, "the witness ends in a live marking");
            }
            Search::Absent => prop_assert!(!dead, "a reachable deadlock missed"),
            Search::Unknown(why) => prop_assert!(false, "undecided on a small net: {why:?}"),
        }
    }
}

#[test]
fn the_dpor_proves_buf100_deadlock_free_in_little_memory() {
    // The observed net watched every place for `deadlock` and ran out of memory here.
    let path = common::shared_nets().join("pep/buf100.ll_net");
    let bytes = std::fs::read(&path).expect("../shared/nets/pep/buf100.ll_net is needed");
    let net = unfold::formats::pep::parse(&bytes, &path).unwrap();
    let limits = Limits::new(Some(Duration::from_secs(120)), Some(256 << 20));
    let run = dpor::check(&net, &[Predicate::Deadlock], &[], &limits, &mut |_| {}).unwrap();
    // ../shared/nets/ORACLES.tsv: buf100 is deadlock-free (five tools agree).
    assert_eq!(run.searches[0], Search::Absent);
}
