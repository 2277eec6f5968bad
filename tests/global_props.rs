//! The global properties (deadlock, 1-safety, quasi-liveness, stable marking, liveness) of
//! `explore::global` against their textbook definitions evaluated on an explicitly built
//! reachability graph (a hash map of markings and adjacency lists, liveness by a search from
//! every marking), on random bounded nets with cycles.

use std::collections::{HashMap, VecDeque};

use proptest::prelude::*;
use unfold::explore::global::{self, GlobalOptions, Property};
use unfold::explore::limits::Limits;
use unfold::model::net::{ArcKind, Net, NetBuilder};
use unfold::model::net_system::NetSystem;
use unfold::system::{System, Transition};

/// A random net whose transitions never produce more tokens than they consume, so that the
/// total number of tokens never grows and the state space is finite; cycles are frequent.
fn arb_bounded_net() -> impl Strategy<Value = Net> {
    (2usize..=5, 1usize..=5).prop_flat_map(|(np, nt)| {
        let transition = (
            prop::collection::vec((0..np, 1u32..=2), 1..=2),
            prop::collection::vec((0..np, 1u32..=2), 0..=2),
        );
        (
            prop::collection::vec(0u32..=2, np),
            prop::collection::vec(transition, nt),
        )
            .prop_map(move |(marking, transitions)| {
                let mut b = NetBuilder::new("random");
                for (p, &m) in marking.iter().enumerate() {
                    b.add_place(format!("p{p}"), None, m).unwrap();
                }
                for (i, (pre, post)) in transitions.into_iter().enumerate() {
                    let t = b.add_transition(format!("t{i}"), None).unwrap();
                    let mut budget: u32 = 0;
                    for (p, w) in pre {
                        if b.add_arc(p as u32, t, ArcKind::Input, w).is_ok() {
                            budget += w;
                        }
                    }
                    for (p, w) in post {
                        if w <= budget && b.add_arc(p as u32, t, ArcKind::Output, w).is_ok() {
                            budget -= w;
                        }
                    }
                }
                b.finish()
            })
    })
}

/// The reachability graph, built naively.
struct Graph {
    states: Vec<Vec<u64>>,
    succ: Vec<Vec<usize>>,
    enabled: Vec<Vec<Transition>>,
}

fn graph(sys: &NetSystem<'_>) -> Graph {
    let mut init = vec![0u64; sys.state_words()];
    sys.initial_state(&mut init);
    let mut ids: HashMap<Vec<u64>, usize> = HashMap::new();
    let mut g = Graph {
        states: vec![init.clone()],
        succ: Vec::new(),
        enabled: Vec::new(),
    };
    ids.insert(init, 0);
    let mut queue = VecDeque::from([0usize]);
    while let Some(i) = queue.pop_front() {
        let m = g.states[i].clone();
        let en: Vec<Transition> = (0..sys.transition_count() as Transition)
            .filter(|&t| sys.is_enabled(&m, t))
            .collect();
        let mut out = Vec::new();
        for &t in &en {
            let mut next = vec![0u64; m.len()];
            sys.fire(&m, t, &mut next)
                .expect("8-bit counters hold these nets");
            let id = *ids.entry(next.clone()).or_insert_with(|| {
                g.states.push(next);
                queue.push_back(g.states.len() - 1);
                g.states.len() - 1
            });
            out.push(id);
        }
        if g.succ.len() <= i {
            g.succ.resize(i + 1, Vec::new());
            g.enabled.resize(i + 1, Vec::new());
        }
        g.succ[i] = out;
        g.enabled[i] = en;
    }
    g
}

fn reachable_from(g: &Graph, s: usize) -> Vec<bool> {
    let mut seen = vec![false; g.states.len()];
    let mut stack = vec![s];
    seen[s] = true;
    while let Some(u) = stack.pop() {
        for &v in &g.succ[u] {
            if !seen[v] {
                seen[v] = true;
                stack.push(v);
            }
        }
    }
    seen
}

fn textbook(net: &Net) -> [bool; 5] {
    let sys = NetSystem::with_bits(net, 8);
    let g = graph(&sys);
    let np = net.places.len() as u32;
    let nt = net.transitions.len() as Transition;
    let deadlock = g.enabled.iter().any(|e| e.is_empty());
    let one_safe = g
        .states
        .iter()
        .all(|m| (0..np).all(|p| sys.tokens(m, p) <= 1));
    let quasi_live = (0..nt).all(|t| g.enabled.iter().any(|e| e.contains(&t)));
    let stable = (0..np).any(|p| {
        g.states
            .iter()
            .all(|m| sys.tokens(m, p) == sys.tokens(&g.states[0], p))
    });
    let live = (0..g.states.len()).all(|s| {
        let r = reachable_from(&g, s);
        (0..nt).all(|t| (0..g.states.len()).any(|u| r[u] && g.enabled[u].contains(&t)))
    });
    [deadlock, one_safe, quasi_live, stable, live]
}

fn ours(net: &Net) -> [bool; 5] {
    [
        Property::Deadlock,
        Property::OneSafe,
        Property::QuasiLiveness,
        Property::StableMarking,
        Property::Liveness,
    ]
    .map(|p| {
        global::explore(
            net,
            &GlobalOptions {
                property: p,
                stop_early: false,
            },
            &Limits::default(),
            &mut |_| {},
        )
        .unwrap()
        .verdict
        .expect("no limit: a verdict")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn global_properties_match_their_definitions(net in arb_bounded_net()) {
        prop_assert_eq!(ours(&net), textbook(&net));
    }
}

/// The random nets above must exercise both verdicts of every property, or the comparison
/// proves little.
#[test]
fn random_nets_cover_both_verdicts() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut seen = [[false; 2]; 5];
    for _ in 0..400 {
        let net = arb_bounded_net().new_tree(&mut runner).unwrap().current();
        for (k, v) in textbook(&net).into_iter().enumerate() {
            seen[k][v as usize] = true;
        }
    }
    assert_eq!(seen, [[true; 2]; 5], "[false, true] seen per property");
}
