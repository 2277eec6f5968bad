//! The liveness-preserving reductions ([`Preserve::Liveness`]) against brute force: on random
//! small bounded nets (safe and not, with weights and read arcs, and nets of mostly
//! token-conserving transitions, which are often live), whether every transition is live —
//! decided naively on the full reachability graph (a transition is live iff a marking
//! enabling it is reachable from every reachable marking) — is the same on the net and on its
//! reduction, and the explicit engine (`explore::global`, bottom strongly connected
//! components) on the reduced net gives that verdict too. Hand-made nets check that the rules
//! which would lose liveness (removing never-enabled transitions and self-loops) stay off.

use crate::common;

use common::{Arcs, NetSpec as Spec, enabled, net_of_spec as build};

use std::collections::HashMap;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::time::{Duration, Instant};

use unfold::check::global::{by_equation_after_walks, by_reversibility, structural};
use unfold::explore::global::{GlobalOptions, Property, explore};
use unfold::explore::limits::Limits;
use unfold::model::net::{Net, TransIdx};
use unfold::structural::reduce::{Preserve, Reduction, reduce};
use unfold::structural::{Budget, Facts};

/// Any small net: the nets of the reductions' own tests.
fn arb_any() -> impl Strategy<Value = Spec> {
    crate::reduce::arb_spec()
}

/// A net of token-conserving transitions (as many unit arcs in as out: moves and
/// synchronisations), often live, with now and then a weighted or read arc.
fn arb_conserving() -> impl Strategy<Value = Spec> {
    (3..=8usize, 2..=9usize).prop_flat_map(|(places, transitions)| {
        let unit = |k: std::ops::RangeInclusive<usize>| {
            prop::collection::vec((0..8usize, Just(1u32)), k)
        };
        (
            prop::collection::vec(prop_oneof![3 => Just(0u32), 2 => Just(1), 1 => Just(2)], places),
            prop::collection::vec(
                prop_oneof![
                    6 => unit(1..=1).prop_flat_map(move |pre| (Just(pre), unit(1..=1), Just(Vec::new()))),
                    2 => unit(2..=2).prop_flat_map(move |pre| (Just(pre), unit(2..=2), Just(Vec::new()))),
                    1 => (unit(1..=1), unit(1..=1), unit(1..=1)),
                    1 => (crate::reduce::arb_arcs(2), crate::reduce::arb_arcs(2), Just(Vec::new())),
                ],
                transitions,
            ),
        )
            .prop_map(|(initial, transitions)| Spec {
                initial,
                transitions,
            })
    })
}

/// Rings of places, one or two tokens on each, stepped by moves and by synchronisations of
/// two rings, with now and then a shortcut inside a ring, a copy of a place (same arcs, an
/// implicit place) and a random transition: often live, and full of sequences.
fn arb_rings() -> impl Strategy<Value = Spec> {
    (
        prop::collection::vec(
            (2..=4usize, prop_oneof![4 => Just(1u32), 1 => Just(2)]),
            1..=3,
        ),
        prop::collection::vec((0..3usize, 0..4usize, 0..3usize, 0..4usize), 0..=2),
        prop::collection::vec((0..3usize, 0..4usize, 0..4usize), 0..=1),
        prop::collection::vec(0..12usize, 0..=1),
        prop::collection::vec(
            (crate::reduce::arb_arcs(2), crate::reduce::arb_arcs(2)),
            0..=1,
        ),
    )
        .prop_map(|(rings, syncs, shortcuts, copies, extra)| {
            let mut initial = Vec::new();
            let mut start = Vec::new();
            for &(len, tokens) in &rings {
                start.push(initial.len());
                initial.push(tokens);
                initial.extend(std::iter::repeat_n(0, len - 1));
            }
            let place = |r: usize, i: usize| {
                let r = r % rings.len();
                start[r] + i % rings[r].0
            };
            let next = |r: usize, i: usize| place(r, (i % rings[r % rings.len()].0) + 1);
            let mut steps: Vec<(usize, usize, bool)> = Vec::new(); // (ring, position, synced)
            let mut transitions: Vec<(Arcs, Arcs, Arcs)> = Vec::new();
            for &(ra, ia, rb, ib) in &syncs {
                let (ra, rb) = (ra % rings.len(), rb % rings.len());
                if ra == rb {
                    continue;
                }
                let (ia, ib) = (ia % rings[ra].0, ib % rings[rb].0);
                steps.push((ra, ia, true));
                steps.push((rb, ib, true));
                transitions.push((
                    vec![(place(ra, ia), 1), (place(rb, ib), 1)],
                    vec![(next(ra, ia), 1), (next(rb, ib), 1)],
                    Vec::new(),
                ));
            }
            for (r, &(len, _)) in rings.iter().enumerate() {
                for i in 0..len {
                    if !steps.contains(&(r, i, true)) {
                        transitions.push((
                            vec![(place(r, i), 1)],
                            vec![(next(r, i), 1)],
                            Vec::new(),
                        ));
                    }
                }
            }
            for &(r, i, j) in &shortcuts {
                transitions.push((vec![(place(r, i), 1)], vec![(place(r, j), 1)], Vec::new()));
            }
            for &c in &copies {
                let p = c % initial.len();
                let q = initial.len();
                initial.push(initial[p]);
                for (pre, post, _) in &mut transitions {
                    for arcs in [pre, post] {
                        if let Some(&(_, w)) = arcs.iter().find(|a| a.0 == p) {
                            arcs.push((q, w));
                        }
                    }
                }
            }
            for (pre, post) in extra {
                transitions.push((pre, post, Vec::new()));
            }
            // `net_of_spec` takes places modulo the count; the random arcs use 0..8.
            Spec {
                initial,
                transitions,
            }
        })
}

fn arb_spec() -> impl Strategy<Value = Spec> {
    prop_oneof![1 => arb_any(), 1 => arb_conserving(), 2 => arb_rings()]
}

/// Whether every transition of `net` is live, on its full reachability graph by a naive
/// breadth-first search (`None` beyond `limit` markings): for each transition, the markings
/// from which a marking enabling it is reachable (backwards from those), all of them or not.
fn naive_live(net: &Net, limit: usize) -> Option<bool> {
    let (edges, states) = crate::tsemiflows::graph_and_markings(net, limit)?;
    let mut predecessors: Vec<Vec<usize>> = vec![Vec::new(); states.len()];
    for (s, out) in edges.iter().enumerate() {
        for &(_, next) in out {
            predecessors[next].push(s);
        }
    }
    Some((0..net.transitions.len() as TransIdx).all(|t| {
        let mut seen: Vec<bool> = states.iter().map(|m| enabled(net, m, t)).collect();
        let mut stack: Vec<usize> = (0..states.len()).filter(|&s| seen[s]).collect();
        while let Some(s) = stack.pop() {
            for &p in &predecessors[s] {
                if !seen[p] {
                    seen[p] = true;
                    stack.push(p);
                }
            }
        }
        seen.iter().all(|&s| s)
    }))
}

/// The engine's verdict on `net`.
fn engine_live(net: &Net) -> Option<bool> {
    explore(
        net,
        &GlobalOptions::new(Property::Liveness),
        &Limits::default(),
        &mut |_| {},
    )
    .expect("no overflow on small nets")
    .verdict
}

/// The structural verdict on liveness (dead transitions, the state equation, T-semiflows, and
/// for free-choice nets the siphons), if any.
fn structural_live(net: &Net) -> Option<bool> {
    let facts = Facts::of(net, &Budget::default());
    structural(
        net,
        Property::Liveness,
        &facts,
        Instant::now() + Duration::from_secs(5),
    )
    .map(|e| e.verdict)
}

fn liveness(net: &Net) -> Reduction {
    reduce(net, &Preserve::Liveness, &Budget::default())
}

/// Counts of what the random nets showed, to make sure the property test tests something.
#[derive(Default, Debug)]
struct Seen {
    checked: u32,
    live: u32,
    not_live: u32,
    /// Nets the reduction changed, by verdict.
    reduced_live: u32,
    reduced_not_live: u32,
    /// Structural verdicts "live" on free-choice nets (from the siphons).
    free_choice_live: u32,
    /// Verdicts "not live" from the state equation after a walk.
    equation_walks: u32,
    /// Verdicts "live" from the home-state argument.
    home_state: u32,
    rules: HashMap<&'static str, usize>,
}

#[test]
fn liveness_is_preserved_by_the_reductions() {
    let cases = common::cases(4000);
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let seen = std::cell::RefCell::new(Seen::default());
    runner
        .run(&arb_spec(), |spec| {
            let original = build(&spec);
            let Some(live) = naive_live(&original, 600) else {
                return Ok(());
            };
            let r = liveness(&original);
            // The reduced net's markings are projections of the original's: never more.
            let reduced =
                naive_live(&r.net, 600).ok_or_else(|| TestCaseError::fail("reduced net larger"))?;
            prop_assert_eq!(live, reduced, "naive liveness, original then reduced");
            prop_assert_eq!(engine_live(&r.net), Some(live), "engine on the reduced net");
            prop_assert_eq!(engine_live(&original), Some(live), "engine on the original");
            let mut s = seen.borrow_mut();
            let facts = Facts::of(&original, &Budget::default());
            if let Some(early) =
                by_equation_after_walks(&original, &facts, Duration::from_millis(3))
            {
                prop_assert!(!early.verdict && !live, "the state equation after a walk");
                s.equation_walks += 1;
            }
            if let Some(early) = by_reversibility(
                &original,
                &facts,
                Duration::from_millis(20),
                &Limits::default(),
            )
            .expect("no overflow on small nets")
            {
                prop_assert!(early.verdict && live, "the home-state argument");
                s.home_state += 1;
            }
            for (which, n) in [("original", &original), ("reduced", &r.net)] {
                if let Some(v) = structural_live(n) {
                    prop_assert_eq!(v, live, "structural verdict on the {} net", which);
                    if v && n.structure().free_choice {
                        s.free_choice_live += 1;
                    }
                }
            }
            s.checked += 1;
            let changed = r.after != r.before;
            match (live, changed) {
                (true, c) => {
                    s.live += 1;
                    s.reduced_live += c as u32;
                }
                (false, c) => {
                    s.not_live += 1;
                    s.reduced_not_live += c as u32;
                }
            }
            for &(rule, n) in &r.rules {
                *s.rules.entry(rule).or_default() += n;
            }
            Ok(())
        })
        .unwrap();
    let s = seen.into_inner();
    eprintln!("{s:?}");
    assert!(s.checked * 2 > cases, "too few small nets: {s:?}");
    // Both verdicts, on nets the rules changed, in numbers.
    let enough = cases / 50;
    assert!(
        s.reduced_live >= enough
            && s.reduced_not_live >= enough
            && s.free_choice_live >= enough
            && s.equation_walks >= enough
            && s.home_state >= enough,
        "{s:?}"
    );
    for rule in [
        "constant places",
        "sink places",
        "implicit places",
        "parallel transitions",
        "post-agglomeration",
        "pre-agglomeration",
    ] {
        assert!(
            s.rules.get(rule).copied().unwrap_or(0) >= enough as usize,
            "{rule}: {s:?}"
        );
    }
    for rule in ["dead transitions", "self-loop transitions"] {
        assert!(!s.rules.contains_key(rule), "{rule} under liveness: {s:?}");
    }
}

use crate::reduce::net;

#[test]
fn a_never_enabled_transition_stays_under_liveness() {
    // A live cycle a → b → a, and `stuck` needing the empty place `never`: not live. Removing
    // `stuck` (as the deadlock class does) would leave a live net.
    let n = net(
        &[("a", 1), ("b", 0), ("never", 0)],
        &[
            ("go", &[("a", 1)], &[("b", 1)]),
            ("back", &[("b", 1)], &[("a", 1)]),
            ("stuck", &[("never", 1), ("a", 1)], &[("b", 1)]),
        ],
    );
    assert_eq!(naive_live(&n, 100), Some(false));
    let r = liveness(&n);
    assert_eq!(engine_live(&r.net), Some(false));
    assert!(r.net.transitions.iter().any(|t| t.id.contains("stuck")));
    let d = reduce(&n, &Preserve::Deadlock, &Budget::default());
    assert!(d.net.transitions.iter().all(|t| !t.id.contains("stuck")));
}

#[test]
fn a_constant_place_blocking_a_transition_stays_under_liveness() {
    // `c` holds one token forever; `greedy` needs two of it, so it never fires.
    let n = net(
        &[("a", 1), ("b", 0), ("c", 1)],
        &[
            ("go", &[("a", 1), ("c", 1)], &[("b", 1), ("c", 1)]),
            ("back", &[("b", 1)], &[("a", 1)]),
            ("greedy", &[("b", 1), ("c", 2)], &[("a", 1), ("c", 2)]),
        ],
    );
    assert_eq!(naive_live(&n, 100), Some(false));
    let r = liveness(&n);
    assert_eq!(engine_live(&r.net), Some(false));
    assert!(r.net.transitions.iter().any(|t| t.id.contains("greedy")));
}

#[test]
fn a_self_loop_stays_under_liveness() {
    // `look` needs `gate`, which empties for good once `close` fires: not live, although the
    // net without `look` is live... and `look` changes no marking.
    let n = net(
        &[("a", 1), ("b", 0), ("gate", 1)],
        &[
            ("go", &[("a", 1)], &[("b", 1)]),
            ("back", &[("b", 1)], &[("a", 1)]),
            ("look", &[("gate", 1)], &[("gate", 1)]),
            ("close", &[("gate", 1), ("a", 1)], &[("b", 1)]),
        ],
    );
    assert_eq!(naive_live(&n, 100), Some(false));
    let r = liveness(&n);
    assert_eq!(engine_live(&r.net), Some(false));
    assert_eq!(applied_any(&r, "self-loop transitions"), 0);
}

#[test]
fn a_sequence_of_a_live_cycle_fuses_to_one_transition() {
    // A ring of four places and four transitions, one token: live; the agglomerations fuse it
    // down, and the reduced net is live too.
    let n = net(
        &[("p0", 1), ("p1", 0), ("p2", 0), ("p3", 0)],
        &[
            ("t0", &[("p0", 1)], &[("p1", 1)]),
            ("t1", &[("p1", 1)], &[("p2", 1)]),
            ("t2", &[("p2", 1)], &[("p3", 1)]),
            ("t3", &[("p3", 1)], &[("p0", 1)]),
        ],
    );
    let r = liveness(&n);
    assert!(r.net.transitions.len() < 4, "{:?}", r.rules);
    assert_eq!(engine_live(&r.net), Some(true));
    assert_eq!(naive_live(&n, 100), Some(true));
}

/// How many times `rule` applied.
fn applied_any(r: &Reduction, rule: &str) -> usize {
    r.rules
        .iter()
        .find(|(name, _)| *name == rule)
        .map_or(0, |&(_, n)| n)
}

#[test]
fn reduce_command_preserves_liveness() {
    // RwMutex-PT-r0010w0010 is live (the contest's answer in ORACLES.tsv); its reduction for
    // liveness is a single transition without arcs, live too.
    let dir = tempfile::tempdir().unwrap();
    let input = common::shared_nets().join("pnml/RwMutex-PT-r0010w0010.pnml");
    let path = dir.path().join("r.pnml");
    common::unfold()
        .arg("reduce")
        .arg(&input)
        .arg(&path)
        .args(["--preserve", "liveness"])
        .assert()
        .success();
    let (original, _) = unfold::formats::read_net(&input).unwrap();
    let (net, _) = unfold::formats::read_net(&path).unwrap();
    assert!(net.transitions.len() < original.transitions.len());
    assert_eq!(engine_live(&net), Some(true));
    assert_eq!(
        common::oracles()["pnml/RwMutex-PT-r0010w0010.pnml"]["mcc.liveness"],
        "TRUE"
    );
    common::unfold()
        .arg("reduce")
        .arg(&input)
        .arg(dir.path().join("x.pnml"))
        .args(["--preserve", "lively"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("liveness"));
}
