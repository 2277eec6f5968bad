//! Unit tests of the prefix construction (private parts: the unfolder, the co-relation).

use super::*;
use crate::model::net::{ArcKind, NetBuilder};

/// A read arc beside an input arc on the same place: the firing consumes the token (the
/// net's semantics), the read adds nothing. Beside an output arc: the place gets a second
/// token, so the net is not safe.
#[test]
fn a_read_arc_beside_another_arc_of_its_place() {
    let mut b = NetBuilder::new("read-and-take");
    let p = b.add_place("p", None, 1).unwrap();
    let q = b.add_place("q", None, 0).unwrap();
    let t = b.add_transition("t", None).unwrap();
    b.add_arc(p, t, ArcKind::Input, 1).unwrap();
    b.add_arc(p, t, ArcKind::Read, 1).unwrap();
    b.add_arc(q, t, ArcKind::Output, 1).unwrap();
    let net = b.finish();
    let options = PrefixOptions {
        order: Order::Erv,
        deadlock: true,
    };
    let run = explore(&net, &options, &Limits::default(), &mut |_| {}).unwrap();
    assert_eq!(run.prefix.events.len(), 1);
    assert_eq!(run.prefix.marking(&[0]), vec![q]);
    assert_eq!(run.deadlock, Some(DeadlockAnswer::Found(vec![0])));

    let mut b = NetBuilder::new("read-and-give");
    let p = b.add_place("p", None, 1).unwrap();
    let t = b.add_transition("t", None).unwrap();
    b.add_arc(p, t, ArcKind::Read, 1).unwrap();
    b.add_arc(p, t, ArcKind::Output, 1).unwrap();
    let net = b.finish();
    let err = explore(&net, &options, &Limits::default(), &mut |_| {}).unwrap_err();
    assert_eq!(err.place, "p");
}

/// p0 -> a -> p1 -> b -> p0 plus q0 -> c -> q1: a cycle concurrent with a one-shot.
fn small() -> Net {
    let mut b = NetBuilder::new("small");
    let p0 = b.add_place("p0", None, 1).unwrap();
    let p1 = b.add_place("p1", None, 0).unwrap();
    let q0 = b.add_place("q0", None, 1).unwrap();
    let q1 = b.add_place("q1", None, 0).unwrap();
    let a = b.add_transition("a", None).unwrap();
    let bb = b.add_transition("b", None).unwrap();
    let c = b.add_transition("c", None).unwrap();
    b.add_arc(p0, a, ArcKind::Input, 1).unwrap();
    b.add_arc(p1, a, ArcKind::Output, 1).unwrap();
    b.add_arc(p1, bb, ArcKind::Input, 1).unwrap();
    b.add_arc(p0, bb, ArcKind::Output, 1).unwrap();
    b.add_arc(q0, c, ArcKind::Input, 1).unwrap();
    b.add_arc(q1, c, ArcKind::Output, 1).unwrap();
    b.finish()
}

#[test]
fn cycle_and_one_shot() {
    let net = small();
    let r = explore(
        &net,
        &PrefixOptions {
            order: Order::Mole,
            deadlock: true,
        },
        &Limits::default(),
        &mut |_| {},
    )
    .unwrap();
    // Events: a, c, b (cutoff: back to p0 with q0 — the initial marking).
    assert_eq!(r.prefix.events.len(), 3);
    assert_eq!(r.prefix.cutoffs(), 1);
    assert_eq!(r.prefix.conditions.len(), 5);
    assert_eq!(r.deadlock, Some(DeadlockAnswer::Free));
}

/// Whether two conditions are concurrent, from the definition: neither causes the other
/// and the union of their producers' histories is conflict-free.
fn co_by_definition(prefix: &Prefix, a: u32, b: u32) -> bool {
    if a == b {
        return false;
    }
    let producers = [
        prefix.conditions[a as usize].producer,
        prefix.conditions[b as usize].producer,
    ];
    let config = prefix.history(&producers);
    let mut consumed = rustc_hash::FxHashSet::default();
    for &e in &config {
        for &c in prefix.preset(e) {
            if !consumed.insert(c) {
                return false;
            }
        }
    }
    !consumed.contains(&a) && !consumed.contains(&b)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// The concurrency relation kept during the construction equals the definition on every
    /// pair of conditions of non-cutoff events, and enumerates in increasing order.
    #[test]
    fn concurrency_relation_matches_definition(
        k in 2usize..5,
        moves in proptest::collection::vec(
            proptest::collection::vec((0usize..4, 0usize..3, 0usize..3), 1..3),
            1..9,
        ),
    ) {
        let net = crate::model::test_nets::machines(k, &moves);
        let mut u = Unfolder::new(&net, Order::Mole);
        let limits = Limits::new(Some(std::time::Duration::from_secs(5)), None);
        proptest::prop_assume!(u.run(&limits, &mut |_| {}).unwrap().is_none());
        let prefix = &u.prefix;
        let live: Vec<u32> = (0..prefix.conditions.len() as u32)
            .filter(|&c| {
                let p = prefix.conditions[c as usize].producer;
                p == NONE || !prefix.events[p as usize].cutoff
            })
            .collect();
        for &a in &live {
            let mut listed = Vec::new();
            u.co.for_each_co(prefix, a, |x| listed.push(x));
            let want: Vec<u32> =
                live.iter().copied().filter(|&b| co_by_definition(prefix, a, b)).collect();
            proptest::prop_assert_eq!(&listed, &want, "co({})", a);
            for &b in &live {
                proptest::prop_assert_eq!(
                    u.co.is_co(prefix, a, b),
                    want.contains(&b),
                    "is_co({}, {})", a, b
                );
            }
        }
    }
}

#[test]
fn unsafe_net_is_refused() {
    let mut b = NetBuilder::new("u");
    let p = b.add_place("p", None, 1).unwrap();
    let q = b.add_place("q", None, 0).unwrap();
    let t = b.add_transition("t", None).unwrap();
    b.add_arc(p, t, ArcKind::Input, 1).unwrap();
    b.add_arc(p, t, ArcKind::Output, 1).unwrap();
    b.add_arc(q, t, ArcKind::Output, 1).unwrap();
    let net = b.finish();
    let err = explore(
        &net,
        &PrefixOptions::default(),
        &Limits::default(),
        &mut |_| {},
    )
    .unwrap_err();
    assert_eq!(err.place, "q");
    assert_eq!(err.run, vec!["t", "t"]);
}
