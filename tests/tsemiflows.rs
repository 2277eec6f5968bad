//! T-semiflows ([`unfold::structural::tsemiflows`]), the global verdicts they give
//! ([`unfold::check::global::structural`]) and the structural summary of `unfold info`
//! ([`unfold::structural::summary`]) against the explicit state space of random small nets
//! (with weights and read arcs), found by a naive breadth-first search: every T-semiflow
//! found leaves the marking unchanged; when the computation finished, every transition on a
//! cycle of the reachability graph is in the support of one; the structural verdicts on
//! deadlocks and liveness are those of the state space; the summary's bounds, safety
//! certificate and siphon-trap verdict hold of it.

use crate::common;

use common::{Arcs, NetSpec as Spec, enabled, fire, net_of_spec as build};

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use unfold::check::global::structural;
use unfold::explore::global::Property;
use unfold::model::net::{ArcKind, Net, NetBuilder, PlaceIdx, TransIdx};
use unfold::structural::summary::Summary;
use unfold::structural::tsemiflows::t_semiflows;
use unfold::structural::{Budget, Facts};

/// Mostly one input and one output arc (state machines, which have T-semiflows, and their
/// synchronisations), sometimes none (sources and sinks, which may have none).
fn arb_arcs(max: usize) -> impl Strategy<Value = Arcs> {
    prop_oneof![
        5 => prop::collection::vec((0..6usize, Just(1u32)), 1..=1),
        2 => prop::collection::vec((0..6usize, 1..=2u32), 0..=max),
    ]
}

fn arb_spec() -> impl Strategy<Value = Spec> {
    (1..=6usize, 1..=6usize).prop_flat_map(|(places, transitions)| {
        (
            prop::collection::vec(
                prop_oneof![2 => Just(0u32), 3 => Just(1), 1 => Just(2)],
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

/// The reachability graph: successors of each marking with the transition fired, or `None`
/// beyond `limit` markings.
fn graph(net: &Net, limit: usize) -> Option<Vec<Vec<(TransIdx, usize)>>> {
    graph_and_markings(net, limit).map(|(edges, _)| edges)
}

/// The reachability graph of [`graph`] and the markings.
#[allow(clippy::type_complexity)]
pub(crate) fn graph_and_markings(
    net: &Net,
    limit: usize,
) -> Option<(Vec<Vec<(TransIdx, usize)>>, Vec<Vec<u64>>)> {
    let initial: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
    let mut index = HashMap::from([(initial.clone(), 0usize)]);
    let mut states = vec![initial];
    let mut edges: Vec<Vec<(TransIdx, usize)>> = vec![Vec::new()];
    let mut queue = VecDeque::from([0usize]);
    while let Some(s) = queue.pop_front() {
        for t in 0..net.transitions.len() as TransIdx {
            if !enabled(net, &states[s], t) {
                continue;
            }
            let next = fire(net, &states[s], t);
            let j = match index.get(&next) {
                Some(&j) => j,
                None => {
                    if states.len() >= limit {
                        return None;
                    }
                    index.insert(next.clone(), states.len());
                    states.push(next);
                    edges.push(Vec::new());
                    queue.push_back(states.len() - 1);
                    states.len() - 1
                }
            };
            edges[s].push((t, j));
        }
    }
    Some((edges, states))
}

/// The markings reachable from each marking (itself included).
fn reach_from(edges: &[Vec<(TransIdx, usize)>]) -> Vec<Vec<bool>> {
    (0..edges.len())
        .map(|s| {
            let mut seen = vec![false; edges.len()];
            let mut stack = vec![s];
            while let Some(u) = stack.pop() {
                if !std::mem::replace(&mut seen[u], true) {
                    stack.extend(edges[u].iter().map(|&(_, v)| v));
                }
            }
            seen
        })
        .collect()
}

/// `C·x` on every place is zero.
fn leaves_markings_unchanged(net: &Net, weights: &[(TransIdx, u64)]) -> bool {
    let mut change = vec![0i128; net.places.len()];
    for &(t, w) in weights {
        let tr = &net.transitions[t as usize];
        for a in &tr.pre {
            change[a.place as usize] -= a.weight as i128 * w as i128;
        }
        for a in &tr.post {
            change[a.place as usize] += a.weight as i128 * w as i128;
        }
    }
    change.iter().all(|&c| c == 0)
}

#[test]
fn t_semiflows_and_their_verdicts_agree_with_the_state_space() {
    let cases = common::cases(2000);
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let checked = std::cell::Cell::new(0u32);
    let decided = std::cell::Cell::new([0u32; 2]);
    runner
        .run(&arb_spec(), |spec| {
            let net = build(&spec);
            let Some(edges) = graph(&net, 400) else {
                return Ok(());
            };
            checked.set(checked.get() + 1);
            let flows = t_semiflows(&net, &[], &Budget::default());
            prop_assert!(flows.complete, "a small net's T-semiflows finish");
            for f in &flows.flows {
                prop_assert!(!f.weights.is_empty());
                prop_assert!(leaves_markings_unchanged(&net, &f.weights), "{f:?}");
            }
            let reach = reach_from(&edges);
            // A transition on a cycle of the reachability graph is in some semiflow's support.
            let covered = flows.covered(net.transitions.len());
            for (s, out) in edges.iter().enumerate() {
                for &(t, j) in out {
                    if reach[j][s] {
                        prop_assert!(covered[t as usize], "t{t} is on a cycle");
                    }
                }
            }
            // The verdicts, against the state space.
            let facts = Facts::of(&net, &Budget::default());
            let deadline = Instant::now() + Duration::from_secs(5);
            let dead_reachable = edges.iter().any(Vec::is_empty);
            let live = (0..edges.len()).all(|s| {
                (0..net.transitions.len() as TransIdx).all(|t| {
                    (0..edges.len()).any(|u| reach[s][u] && edges[u].iter().any(|e| e.0 == t))
                })
            });
            let mut d = decided.get();
            if let Some(early) = structural(&net, Property::Deadlock, &facts, deadline) {
                prop_assert_eq!(early.verdict, dead_reachable, "{}", early.evidence);
                d[0] += 1;
            }
            if let Some(early) = structural(&net, Property::Liveness, &facts, deadline) {
                prop_assert_eq!(early.verdict, live, "{}", early.evidence);
                d[1] += 1;
            }
            decided.set(d);
            Ok(())
        })
        .unwrap();
    assert!(
        checked.get() * 2 > cases,
        "only {} of {cases} random nets were small enough",
        checked.get()
    );
    let [deadlock, liveness] = decided.get();
    assert!(
        deadlock * 10 > checked.get() && liveness * 10 > checked.get(),
        "few structural verdicts: {deadlock} on deadlocks, {liveness} on liveness of {}",
        checked.get()
    );
}

#[test]
fn the_summary_holds_of_the_state_space() {
    let cases = common::cases(1000);
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let proved = std::cell::Cell::new([0u32; 3]);
    runner
        .run(&arb_spec(), |spec| {
            let net = build(&spec);
            let s = Summary::of(&net, Duration::from_secs(3));
            let mut n = proved.get();
            if s.bounded {
                // Bounded: the state space is finite, and within the bounds.
                let (edges, markings) = graph_and_markings(&net, 100_000)
                    .ok_or_else(|| TestCaseError::fail("bounded, yet huge"))?;
                let most = markings.iter().flatten().copied().max().unwrap_or(0);
                prop_assert!(s.max_bound.is_some_and(|b| most <= b), "{:?}: {}", s, most);
                prop_assert!(!s.safe || most <= 1, "{:?}", s);
                if s.deadlock_free_by_traps == Some(true) {
                    prop_assert!(edges.iter().all(|e| !e.is_empty()), "{:?}", s);
                    n[2] += 1;
                }
                n[0] += 1;
                n[1] += u32::from(s.safe);
            } else if let Some(edges) = graph(&net, 400)
                && s.deadlock_free_by_traps == Some(true)
            {
                prop_assert!(edges.iter().all(|e| !e.is_empty()), "{:?}", s);
                n[2] += 1;
            }
            prop_assert!(!s.structurally_bounded || s.bounded, "{:?}", s);
            prop_assert!(s.places_covered <= net.places.len());
            prop_assert!(s.transitions_covered <= net.transitions.len());
            proved.set(n);
            Ok(())
        })
        .unwrap();
    let [bounded, safe, traps] = proved.get();
    assert!(
        bounded * 10 > cases && safe > 0 && traps > 0,
        "few summaries to check: {bounded} bounded, {safe} safe, {traps} deadlock-free"
    );
}

/// `unfold info` prints the summary (JSON fields) of a conservative, deadlock-free net.
#[test]
fn info_reports_the_structural_summary() {
    let out = common::unfold()
        .args(["info", "nets/ring-4.pnml", "--json", "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "p_semiflows",
        "places_covered",
        "structurally_bounded",
        "bounded",
        "safe_certificate",
        "t_semiflows",
        "transitions_covered",
        "deadlock_free_by_traps",
    ] {
        assert!(json.get(key).is_some(), "no {key} in {json}");
    }
    // A ring of four places passing one token: one P-semiflow covering every place, one
    // T-semiflow covering every transition, 1-safe, deadlock-free.
    assert_eq!(json["structurally_bounded"], true, "{json}");
    assert_eq!(json["safe_certificate"], true, "{json}");
    assert_eq!(json["deadlock_free_by_traps"], "yes", "{json}");
}

/// A sequence `p0 → t0 → p1 → t1 → p2` has no T-semiflow: it must end in a deadlock and is
/// not live; closing it into a cycle gives the semiflow `t0 + t1 + t2`.
#[test]
fn a_chain_has_none_and_a_cycle_has_one() {
    let chain = |cycle: bool| {
        let mut b = NetBuilder::new("chain");
        let p: Vec<PlaceIdx> = (0..3)
            .map(|i| {
                b.add_place(format!("p{i}"), None, u32::from(i == 0))
                    .unwrap()
            })
            .collect();
        let steps = if cycle { 3 } else { 2 };
        for i in 0..steps {
            let t = b.add_transition(format!("t{i}"), None).unwrap();
            b.add_arc(p[i], t, ArcKind::Input, 1).unwrap();
            b.add_arc(p[(i + 1) % 3], t, ArcKind::Output, 1).unwrap();
        }
        b.finish()
    };
    let deadline = || Instant::now() + Duration::from_secs(5);
    let open = chain(false);
    let flows = t_semiflows(&open, &[], &Budget::default());
    assert!(flows.complete && flows.flows.is_empty());
    let facts = Facts::of(&open, &Budget::default());
    let d = structural(&open, Property::Deadlock, &facts, deadline()).unwrap();
    assert!(d.verdict, "{}", d.evidence);
    let l = structural(&open, Property::Liveness, &facts, deadline()).unwrap();
    assert!(!l.verdict, "{}", l.evidence);
    let closed = chain(true);
    let flows = t_semiflows(&closed, &[], &Budget::default());
    assert_eq!(flows.flows.len(), 1);
    assert_eq!(flows.flows[0].weights, [(0, 1), (1, 1), (2, 1)]);
}
