//! The explicit engine and random walks of `unfold check`, against a naive oracle that shares
//! no code with them: markings as vectors of counts, arcs read straight from the `Net`, every
//! reachable marking enumerated breadth-first. Random bounded nets (weights, read arcs) and
//! random predicates (every kind of atom and connective, every comparison).

use crate::common;

use std::time::Duration;

use common::{Plain, markings, replay};
use proptest::prelude::*;
use unfold::check::explicit::{self, BoundQuery};
use unfold::check::walk::{self, WalkOptions};
use unfold::check::{Bound, Search};
use unfold::explore::limits::Limits;
use unfold::model::net::{ArcKind, Net, NetBuilder, PlaceIdx, TransIdx};
use unfold::property::{Cmp, Linear, Predicate};

/// A transition: input, output and read arcs as (place, weight).
type Arcs = (Vec<(usize, u32)>, Vec<(usize, u32)>, Vec<(usize, u32)>);

fn build(initial: &[u32], transitions: &[Arcs]) -> Net {
    let mut b = NetBuilder::new("random");
    let places: Vec<PlaceIdx> = initial
        .iter()
        .enumerate()
        .map(|(i, &k)| b.add_place(format!("p{i}"), None, k).unwrap())
        .collect();
    let n = places.len();
    for (i, (pre, post, reads)) in transitions.iter().enumerate() {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        let mut used_in = Vec::new();
        for &(p, w) in pre {
            if !used_in.contains(&(p % n)) {
                used_in.push(p % n);
                b.add_arc(places[p % n], t, ArcKind::Input, w).unwrap();
            }
        }
        let mut used_out = Vec::new();
        for &(p, w) in post {
            if !used_out.contains(&(p % n)) {
                used_out.push(p % n);
                b.add_arc(places[p % n], t, ArcKind::Output, w).unwrap();
            }
        }
        for &(p, w) in reads {
            if !used_in.contains(&(p % n)) && !used_out.contains(&(p % n)) {
                used_in.push(p % n);
                b.add_arc(places[p % n], t, ArcKind::Read, w).unwrap();
            }
        }
    }
    b.finish()
}

/// Random nets whose transitions move as many tokens as they take (so that the state space
/// stays finite and small), with read arcs; one in four transitions also creates or destroys
/// a token, and the enumeration gives up on the rare nets that grow too large.
fn arb_net() -> impl Strategy<Value = Net> {
    let transition = (
        prop::collection::vec((0usize..6, prop::sample::select(vec![1u32, 1, 1, 2])), 1..3),
        prop::collection::vec(0usize..6, 1..3),
        prop::collection::vec((0usize..6, 1u32..2), 0..2),
        0u8..4,
    )
        .prop_map(|(pre, outs, reads, extra)| {
            // The tokens taken go to the output places, the first one getting the rest.
            let total: u32 = pre.iter().map(|a| a.1).sum();
            let mut post: Vec<(usize, u32)> = outs.iter().map(|&p| (p, 0)).collect();
            post[0].1 = total - (outs.len() as u32 - 1).min(total);
            for o in post.iter_mut().skip(1) {
                o.1 = 1;
            }
            let mut post: Vec<(usize, u32)> = post.into_iter().filter(|o| o.1 > 0).collect();
            match extra {
                0 => post.push((pre[0].0 + 1, 1)),
                1 => post.truncate(post.len().saturating_sub(1)),
                _ => {}
            }
            (pre, post, reads)
        });
    (
        prop::collection::vec(prop::sample::select(vec![0u32, 1, 2, 3]), 3..7),
        prop::collection::vec(transition, 3..9),
    )
        .prop_map(|(initial, transitions)| build(&initial, &transitions))
}

fn arb_linear() -> impl Strategy<Value = Linear> {
    (0u64..3, prop::collection::vec((0u32..6, 1u64..3), 0..3)).prop_map(|(constant, terms)| {
        let mut terms: Vec<(PlaceIdx, u64)> = terms;
        terms.sort_unstable();
        terms.dedup_by_key(|t| t.0);
        Linear { constant, terms }
    })
}

fn arb_predicate() -> impl Strategy<Value = Predicate> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(Predicate::Bool),
        Just(Predicate::Deadlock),
        prop::collection::btree_set(0u32..6, 0..3)
            .prop_map(|ts| Predicate::Fireable(ts.into_iter().collect())),
        (
            arb_linear(),
            prop::sample::select(Cmp::ALL.to_vec()),
            arb_linear()
        )
            .prop_map(|(a, c, b)| Predicate::Compare(a, c, b)),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|p| Predicate::Not(Box::new(p))),
            prop::collection::vec(inner.clone(), 0..3).prop_map(Predicate::And),
            prop::collection::vec(inner, 0..3).prop_map(Predicate::Or),
        ]
    })
}

/// Keeps the random indices inside the net (places and transitions named past its size are
/// taken modulo its size).
fn fit(p: &Predicate, net: &Net) -> Predicate {
    let (np, nt) = (net.places.len() as u32, net.transitions.len() as u32);
    let lin = |l: &Linear| {
        let mut terms: Vec<(PlaceIdx, u64)> = l.terms.iter().map(|&(p, k)| (p % np, k)).collect();
        terms.sort_unstable();
        terms.dedup_by_key(|t| t.0);
        Linear {
            constant: l.constant,
            terms,
        }
    };
    match p {
        Predicate::Fireable(ts) => {
            let mut ts: Vec<TransIdx> = ts.iter().map(|t| t % nt).collect();
            ts.sort_unstable();
            ts.dedup();
            Predicate::Fireable(ts)
        }
        Predicate::Compare(a, c, b) => Predicate::Compare(lin(a), *c, lin(b)),
        Predicate::Not(q) => Predicate::Not(Box::new(fit(q, net))),
        Predicate::And(qs) => Predicate::And(qs.iter().map(|q| fit(q, net)).collect()),
        Predicate::Or(qs) => Predicate::Or(qs.iter().map(|q| fit(q, net)).collect()),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    #[test]
    fn explicit_agrees_with_the_naive_enumeration(
        net in arb_net(),
        preds in prop::collection::vec(arb_predicate(), 1..4),
        sums in prop::collection::vec(arb_linear(), 0..3),
    ) {
        let Some(all) = markings(&net, 3000) else {
            return Ok(());
        };
        let preds: Vec<Predicate> = preds.iter().map(|p| fit(p, &net)).collect();
        let sums: Vec<Linear> = sums
            .iter()
            .map(|s| match fit(&Predicate::Compare(s.clone(), Cmp::Eq, Linear::default()), &net) {
                Predicate::Compare(l, _, _) => l,
                _ => unreachable!(),
            })
            .collect();
        let queries: Vec<BoundQuery> = sums
            .iter()
            .map(|s| BoundQuery { sum: s.clone(), known_upper: None })
            .collect();
        let run = explicit::check(&net, &preds, &queries, &Limits::default(), &mut |_| {}).unwrap();
        prop_assert!(run.complete || run.searches.iter().all(Search::decided));
        for (p, search) in preds.iter().zip(&run.searches) {
            let reachable = all.iter().any(|m| p.holds(&Plain { net: &net, m }));
            match search {
                Search::Found(w) => {
                    let m = replay(&net, w).expect("the witness fires");
                    let holds = p.holds(&Plain { net: &net, m: &m });
                    prop_assert!(holds, "the witness of {:?} ends elsewhere", p);
                    prop_assert!(reachable);
                }
                Search::Absent => prop_assert!(!reachable, "{p:?} said absent"),
                Search::Unknown(_) => prop_assert!(false, "undecided without a limit"),
            }
        }
        for (s, b) in sums.iter().zip(&run.bounds) {
            let max = all.iter().map(|m| s.value(&Plain { net: &net, m })).max().unwrap();
            prop_assert_eq!(b.exact(), Some(max));
            let m = replay(&net, b.witness.as_ref().unwrap()).expect("the witness fires");
            prop_assert_eq!(s.value(&Plain { net: &net, m: &m }), max);
        }
    }

    #[test]
    fn walks_find_only_reachable_targets(
        net in arb_net(),
        preds in prop::collection::vec(arb_predicate(), 1..4),
        seed in any::<u64>(),
    ) {
        let Some(all) = markings(&net, 3000) else {
            return Ok(());
        };
        let preds: Vec<Predicate> = preds.iter().map(|p| fit(p, &net)).collect();
        let sums = vec![Linear { constant: 0, terms: vec![(0, 1)] }];
        let options = WalkOptions { max_length: 50, seed };
        let run = walk::walk(&net, &preds, &sums, options, Duration::from_millis(20), &Limits::default()).unwrap();
        for (p, search) in preds.iter().zip(&run.searches) {
            match search {
                Search::Found(w) => {
                    let m = replay(&net, w).expect("the walk's run fires");
                    let holds = p.holds(&Plain { net: &net, m: &m });
                    prop_assert!(holds, "the walk's run for {:?} ends elsewhere", p);
                }
                Search::Absent => prop_assert!(false, "a walk never proves absence"),
                Search::Unknown(_) => {
                    // Unreachable targets are never met; reachable ones may be missed.
                }
            }
        }
        let Bound { lower, witness, upper, .. } = &run.bounds[0];
        prop_assert!(upper.is_none());
        let m = replay(&net, witness.as_ref().unwrap()).expect("the walk's run fires");
        prop_assert_eq!(m[0], *lower);
        prop_assert!(all.iter().any(|m| m[0] == *lower));
    }
}
