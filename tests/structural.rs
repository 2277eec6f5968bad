//! The structural facts ([`unfold::structural`]) and the shortcuts built on them
//! ([`unfold::check::shortcuts`]) against explicit reachability as the oracle: on random small
//! nets with weights and read arcs, every semiflow is constant on every reachable marking, no
//! dead transition is ever enabled, constant places never change, every bound holds, and no
//! verdict of `decide` or `truth` is contradicted by a reachable marking. Semiflows are also
//! checked against a brute-force enumeration of small weight vectors (complete and minimal),
//! and the facts of the contest's instances against the contest's answers.

use crate::common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use unfold::check::Search;
use unfold::check::global::{by_walks, structural};
use unfold::check::shortcuts::{Shortcuts, Truth};
use unfold::check::unbounded::{PumpSearch, find_pumping};
use unfold::explore::global::{self, GlobalOptions, Property};
use unfold::explore::limits::Limits;
use unfold::explore::reach::explore;
use unfold::model::net::{Net, PlaceIdx, TransIdx};
use unfold::model::net_system::NetSystem;
use unfold::property::predicate::{Linear, Marking, Predicate};
use unfold::property::syntax::{Cmp, IntExpr};
use unfold::structural::semiflows::{Semiflows, semiflows, zero_one_semiflows};
use unfold::structural::traps::{TrapVerdict, deadlock_free};
use unfold::structural::{Budget, Facts};
use unfold::system::System;

use common::{Arcs, NetSpec, net_of_spec};

fn arb_weight() -> impl Strategy<Value = u32> {
    prop_oneof![6 => Just(1u32), 2 => Just(2u32), 1 => Just(3u32)]
}

fn arb_arcs(max: usize) -> impl Strategy<Value = Arcs> {
    prop::collection::vec((0..8usize, arb_weight()), 0..=max)
}

fn arb_spec() -> impl Strategy<Value = NetSpec> {
    arb_spec_of(2..=5, 1..=5)
}

/// Nets of `places` places and `transitions` transitions.
fn arb_spec_of(
    places: std::ops::RangeInclusive<usize>,
    transitions: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = NetSpec> {
    (places, transitions).prop_flat_map(|(places, transitions)| {
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

/// The arcs of `arcs` on `places` places, repeated places merged (weights added).
/// A reachable marking: tokens and enabled transitions.
struct State {
    tokens: Vec<u64>,
    enabled: Vec<bool>,
}

impl Marking for State {
    fn tokens(&self, p: PlaceIdx) -> u64 {
        self.tokens[p as usize]
    }
    fn enabled(&self, t: TransIdx) -> bool {
        self.enabled[t as usize]
    }
    fn dead(&self) -> bool {
        !self.enabled.iter().any(|&e| e)
    }
}

/// The reachable markings of `net` (breadth-first, the initial one first) within a small
/// memory budget, and whether that is all of them.
fn reachable(net: &Net) -> (Vec<State>, bool) {
    let ((states, complete), sys) = NetSystem::new(net)
        .retry_widened(|sys| {
            let limits = Limits::default().with_mem_limit(Some(1 << 18));
            let mut states: Vec<Vec<u64>> = Vec::new();
            let out = explore(sys, &limits, &mut |_| {}, &mut |_, s| {
                states.push(s.to_vec())
            })?;
            Ok((states, out.stopped.is_none()))
        })
        .expect("fits in 64 bits");
    let places = net.places.len() as PlaceIdx;
    let transitions = net.transitions.len() as u32;
    let states = states
        .iter()
        .map(|s| State {
            tokens: (0..places).map(|p| sys.tokens(s, p)).collect(),
            enabled: (0..transitions).map(|t| sys.is_enabled(s, t)).collect(),
        })
        .collect();
    (states, complete)
}

/// `y·C(·, t)` computed from the arcs.
fn change(net: &Net, t: usize, weight: impl Fn(PlaceIdx) -> i128) -> i128 {
    let tr = &net.transitions[t];
    let post: i128 = tr
        .post
        .iter()
        .map(|a| weight(a.place) * a.weight as i128)
        .sum();
    let pre: i128 = tr
        .pre
        .iter()
        .map(|a| weight(a.place) * a.weight as i128)
        .sum();
    post - pre
}

fn arb_linear(places: usize) -> impl Strategy<Value = Linear> {
    (
        prop_oneof![Just(0u64), 0..5u64],
        prop::collection::vec(0..places as PlaceIdx, 0..=3),
    )
        .prop_map(|(c, ps)| Linear::of(&IntExpr::Sum(vec![IntExpr::Const(c), IntExpr::Tokens(ps)])))
}

fn arb_cmp() -> impl Strategy<Value = Cmp> {
    prop::sample::select(Cmp::ALL.to_vec())
}

fn arb_predicate(places: usize, transitions: usize) -> impl Strategy<Value = Predicate> {
    let constant = (0..4u64).prop_map(|k| Linear::of(&IntExpr::Const(k)));
    let leaf = prop_oneof![
        1 => any::<bool>().prop_map(Predicate::Bool),
        1 => Just(Predicate::Deadlock),
        2 => prop::collection::vec(0..transitions as TransIdx, 1..=2).prop_map(|mut ts| {
            ts.sort_unstable();
            ts.dedup();
            Predicate::Fireable(ts)
        }),
        4 => (arb_linear(places), arb_cmp(), constant)
            .prop_map(|(a, c, b)| Predicate::Compare(a, c, b)),
        2 => (arb_linear(places), arb_cmp(), arb_linear(places))
            .prop_map(|(a, c, b)| Predicate::Compare(a, c, b)),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|p| Predicate::Not(Box::new(p))),
            prop::collection::vec(inner.clone(), 2..=3).prop_map(Predicate::And),
            prop::collection::vec(inner, 2..=3).prop_map(Predicate::Or),
        ]
    })
}

fn arb_case() -> impl Strategy<Value = (NetSpec, Vec<Predicate>, Vec<Linear>)> {
    arb_spec().prop_flat_map(|spec| {
        let (n, m) = (spec.initial.len(), spec.transitions.len());
        (
            Just(spec),
            prop::collection::vec(arb_predicate(n, m), 8),
            prop::collection::vec(arb_linear(n), 4),
        )
    })
}

/// The rank of an integer matrix, by fraction-free Gaussian elimination (exact for small
/// entries).
fn rank(mut rows: Vec<Vec<i128>>) -> usize {
    let columns = rows.first().map_or(0, Vec::len);
    let mut rank = 0;
    for c in 0..columns {
        let Some(pivot) = (rank..rows.len()).find(|&r| rows[r][c] != 0) else {
            continue;
        };
        rows.swap(rank, pivot);
        let (top, below) = rows.split_at_mut(rank + 1);
        let pivot_row = &top[rank];
        for row in below {
            let (a, b) = (pivot_row[c], row[c]);
            for (x, &y) in row.iter_mut().zip(pivot_row) {
                *x = *x * a - y * b;
            }
            let g = row.iter().fold(0i128, |g, &x| num_gcd(g, x.abs()));
            if g > 1 {
                row.iter_mut().for_each(|x| *x /= g);
            }
        }
        rank += 1;
    }
    rank
}

fn num_gcd(a: i128, b: i128) -> i128 {
    if b == 0 { a } else { num_gcd(b, a % b) }
}

/// Whether the semiflow with support `support` has a minimal support: the rows of the
/// incidence matrix on it have rank one less than its size (its left kernel is the
/// semiflow's line, so no semiflow has a smaller support inside it).
fn minimal_support(net: &Net, support: &[PlaceIdx]) -> bool {
    let rows: Vec<Vec<i128>> = support
        .iter()
        .map(|&p| {
            (0..net.transitions.len())
                .map(|t| change(net, t, |q| (q == p) as i128))
                .collect()
        })
        .collect();
    rank(rows) + 1 == support.len()
}

/// How often the facts said something, over the cases checked.
#[derive(Debug, Default)]
struct Said {
    cases: usize,
    complete: usize,
    semiflows: usize,
    dead: usize,
    constant: usize,
    bounded: usize,
    found: usize,
    absent: usize,
    always: usize,
    exact_bounds: usize,
}

/// Checks every fact and verdict of `spec` against its reachable markings; adds what was
/// said to `said`.
fn check(spec: &NetSpec, predicates: &[Predicate], sums: &[Linear], said: &mut Said) {
    let net = net_of_spec(spec);
    let (states, complete) = reachable(&net);
    let s = Shortcuts::of(&net, &Budget::default());
    let f = s.facts();
    said.cases += 1;
    said.complete += complete as usize;
    let (places, transitions) = (net.places.len(), net.transitions.len());
    // Semiflows: constant on every marking, and yᵀ·C = 0 on every transition that may fire.
    assert!(f.semiflows().complete());
    for y in &f.semiflows().flows {
        said.semiflows += 1;
        let value = |m: &State| y.value(|p| m.tokens[p as usize]);
        let v0 = value(&states[0]);
        for m in &states {
            assert_eq!(value(m), v0, "{y:?} changes on {:?}", m.tokens);
        }
        for t in 0..transitions {
            if !f.is_dead(t as TransIdx) {
                assert_eq!(change(&net, t, |p| y.weight(p) as i128), 0, "{y:?} at t{t}");
            }
        }
    }
    for t in 0..transitions {
        if f.is_dead(t as TransIdx) {
            said.dead += 1;
            assert!(states.iter().all(|m| !m.enabled[t]), "t{t} is enabled");
        }
        if f.always_enabled(t as TransIdx) {
            assert!(
                states.iter().all(|m| m.enabled[t]),
                "t{t} is not always enabled"
            );
        }
    }
    for p in 0..places {
        let (lo, hi) = (f.lower(p as PlaceIdx), f.upper(p as PlaceIdx));
        said.constant += f.is_constant(p as PlaceIdx) as usize;
        said.bounded += hi.is_some() as usize;
        for m in &states {
            let k = m.tokens[p];
            assert!(
                lo <= k && hi.is_none_or(|h| k <= h),
                "p{p}: {k} ∉ [{lo}, {hi:?}]"
            );
            if f.is_constant(p as PlaceIdx) {
                assert_eq!(k, states[0].tokens[p], "p{p} changes");
            }
        }
    }
    for sum in sums {
        let i = s.interval(sum);
        let b = s.bound(sum);
        assert_eq!(b.lower, sum.value(&states[0]));
        let max = states.iter().map(|m| sum.value(m)).max().unwrap();
        for m in &states {
            let v = sum.value(m) as u128;
            assert!(
                i.lower <= v && i.upper.is_none_or(|u| v <= u),
                "{sum:?}: {v} ∉ {i:?}"
            );
        }
        assert!(
            s.upper_bound(sum).is_none_or(|u| u >= max),
            "{sum:?} reaches {max}"
        );
        if complete && b.exact() == Some(max) {
            said.exact_bounds += 1;
        }
    }
    for p in predicates {
        let holds: Vec<bool> = states.iter().map(|m| p.holds(m)).collect();
        match s.truth(p) {
            Truth::Always => {
                said.always += 1;
                assert!(holds.iter().all(|&h| h), "{p:?} is not always true");
            }
            Truth::Never => assert!(!holds.contains(&true), "{p:?} is not always false"),
            Truth::Unknown => {}
        }
        match s.decide(p) {
            Some(Search::Found(run)) => {
                said.found += 1;
                assert!(
                    run.is_empty() && holds[0],
                    "{p:?}: not in the initial marking"
                );
            }
            Some(Search::Absent) => {
                said.absent += 1;
                assert!(!holds.contains(&true), "{p:?} holds on a reachable marking");
            }
            Some(Search::Unknown(_)) => panic!("decide says Unknown"),
            None => {}
        }
    }
}

proptest! {
    #![proptest_config(Config::with_cases(common::cases(512)))]

    #[test]
    fn facts_and_verdicts_hold_on_every_reachable_marking(
        (spec, predicates, sums) in arb_case()
    ) {
        check(&spec, &predicates, &sums, &mut Said::default());
    }

}

proptest! {
    #![proptest_config(Config::with_cases(1024))]

    /// Against every weight vector in `{0..3}ⁿ`: each semiflow among them has a support
    /// containing a found one's (complete: every support contains a minimal one, whose
    /// semiflow is an extreme ray), and none has a support strictly inside a found one's
    /// (minimal).
    #[test]
    fn semiflows_are_complete_and_minimal(spec in arb_spec_of(3..=6, 1..=4)) {
        let net = net_of_spec(&spec);
        let found = semiflows(&net, &[], &Budget::default());
        prop_assert!(found.complete());
        let n = net.places.len();
        // The search for 0/1 semiflows covers every place some 0/1 semiflow covers.
        let deadline = Instant::now() + Duration::from_secs(10);
        let zero_one = Semiflows {
            flows: zero_one_semiflows(&net, &[], &vec![true; n], deadline),
            gave_up: None,
        };
        for y in &zero_one.flows {
            prop_assert!(y.weights.iter().all(|&(_, w)| w == 1));
            prop_assert!((0..net.transitions.len()).all(|t| change(&net, t, |p| y.weight(p) as i128) == 0));
        }
        let covered = zero_one.covered(n);
        let supports: Vec<Vec<usize>> = found
            .flows
            .iter()
            .map(|y| y.places().map(|p| p as usize).collect())
            .collect();
        for code in 1..4usize.pow(n as u32) {
            let y: Vec<i128> = (0..n).map(|i| (code / 4usize.pow(i as u32) % 4) as i128).collect();
            if (0..net.transitions.len()).any(|t| change(&net, t, |p| y[p as usize]) != 0) {
                continue;
            }
            let support: Vec<usize> = (0..n).filter(|&i| y[i] > 0).collect();
            if y.iter().all(|&w| w <= 1) {
                prop_assert!(support.iter().all(|&p| covered[p]), "{y:?} not covered: {:?}", zero_one.flows);
            }
            prop_assert!(
                supports.iter().any(|s| s.iter().all(|p| support.contains(p))),
                "{y:?} contains no found support: {supports:?}"
            );
            prop_assert!(
                !supports
                    .iter()
                    .any(|s| s.len() > support.len() && support.iter().all(|p| s.contains(p))),
                "{y:?} lies strictly inside a found support: {supports:?}"
            );
        }
    }

    /// On larger nets, every semiflow found has a minimal support (by rank, see
    /// [`minimal_support`]), and no two are the same.
    #[test]
    fn semiflows_have_minimal_supports(spec in arb_spec_of(5..=9, 2..=7)) {
        let net = net_of_spec(&spec);
        let found = semiflows(&net, &[], &Budget::default());
        prop_assert!(found.complete());
        for (i, y) in found.flows.iter().enumerate() {
            prop_assert!((0..net.transitions.len()).all(|t| change(&net, t, |p| y.weight(p) as i128) == 0));
            let support: Vec<PlaceIdx> = y.places().collect();
            prop_assert!(minimal_support(&net, &support), "{y:?} is not minimal");
            prop_assert!(!found.flows[..i].contains(y));
        }
    }
}

/// Fires `run` from the initial marking of `net` with the textbook rule (enough tokens on
/// every input and read place), apart from the library's firing; `None` if a step is not
/// enabled.
fn replay_run(net: &Net, start: &[u64], run: &[TransIdx]) -> Option<Vec<u64>> {
    let mut m = start.to_vec();
    for &t in run {
        let tr = &net.transitions[t as usize];
        if !tr
            .pre
            .iter()
            .chain(&tr.reads)
            .all(|a| m[a.place as usize] >= a.weight as u64)
        {
            return None;
        }
        for a in &tr.pre {
            m[a.place as usize] -= a.weight as u64;
        }
        for a in &tr.post {
            m[a.place as usize] += a.weight as u64;
        }
    }
    Some(m)
}

proptest! {
    #![proptest_config(Config::with_cases(common::cases(1024)))]

    /// A pumping run found replays: its pump leads from a marking to a strictly larger one,
    /// adding what it says; and a net whose state space is finite has none.
    #[test]
    fn pumping_runs_prove_unboundedness(spec in arb_spec_of(2..=5, 1..=5)) {
        let net = net_of_spec(&spec);
        let found = find_pumping(&net, PumpSearch::default());
        let (_, complete) = reachable(&net);
        if let Some(p) = found {
            prop_assert!(!complete, "a pumping run on a net with finitely many markings: {p:?}");
            let initial: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
            let m = replay_run(&net, &initial, &p.prefix).expect("the prefix fires");
            let m2 = replay_run(&net, &m, &p.pump).expect("the pump fires");
            prop_assert!(m2.iter().zip(&m).all(|(a, b)| a >= b) && m2 != m);
            for (q, k) in p.grows {
                prop_assert_eq!(m2[q as usize] - m[q as usize], k);
            }
        }
    }
}

/// Pumping finds most unbounded random nets: of those whose exploration does not finish
/// within its small budget (most of them unbounded), it proves a share unbounded.
#[test]
fn pumping_finds_unbounded_random_nets() {
    let mut runner = TestRunner::deterministic();
    let strategy = arb_spec_of(2..=5, 1..=5);
    let (mut open, mut pumped) = (0, 0);
    for _ in 0..300 {
        let net = net_of_spec(&strategy.new_tree(&mut runner).unwrap().current());
        if !reachable(&net).1 {
            open += 1;
            pumped += usize::from(find_pumping(&net, PumpSearch::default()).is_some());
        }
    }
    eprintln!("{pumped} of {open} unfinished explorations shown unbounded");
    assert!(open >= 20 && pumped * 10 >= open * 9, "{pumped} of {open}");
}

proptest! {
    #![proptest_config(Config::with_cases(common::cases(512)))]

    /// The early verdicts on the global properties (structural, trap argument, walks) agree
    /// with the explicit state space wherever it decides.
    #[test]
    fn early_global_verdicts_agree_with_the_state_space(spec in arb_spec_of(2..=6, 1..=6)) {
        let net = net_of_spec(&spec);
        let facts = Facts::of(&net, &Budget::default());
        for property in [
            Property::Deadlock,
            Property::OneSafe,
            Property::QuasiLiveness,
            Property::StableMarking,
            Property::Liveness,
        ] {
            let limits = Limits::default().with_mem_limit(Some(1 << 20));
            let Some(truth) = global::explore(&net, &GlobalOptions { property, stop_early: false }, &limits, &mut |_| {}).unwrap().verdict else {
                continue;
            };
            let deadline = Instant::now() + Duration::from_secs(5);
            if let Some(e) = structural(&net, property, &facts, deadline) {
                prop_assert_eq!(e.verdict, truth, "{:?} structurally: {}", property, e.evidence);
            }
            let walked = by_walks(&net, property, Duration::from_millis(20), &Limits::default()).unwrap();
            if let Some(e) = walked {
                prop_assert_eq!(e.verdict, truth, "{:?} by walks: {}", property, e.evidence);
                if let Some(run) = &e.witness {
                    let initial: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
                    prop_assert!(replay_run(&net, &initial, run).is_some(), "the witness does not fire");
                }
            }
        }
    }
}

/// The trap argument's verdict on `spec`, and whether a reachable marking is dead (with
/// whether all markings were seen).
fn trap_case(spec: &NetSpec) -> (TrapVerdict, bool, bool) {
    let net = net_of_spec(spec);
    let facts = Facts::of(&net, &Budget::default());
    let verdict = deadlock_free(&net, &facts, Instant::now() + Duration::from_secs(10));
    let (states, complete) = reachable(&net);
    let dead = states.iter().any(|s| s.enabled.iter().all(|&e| !e));
    (verdict, dead, complete)
}

proptest! {
    #![proptest_config(Config::with_cases(common::cases(1024)))]

    /// A net the trap argument proves deadlock-free has no reachable dead marking; a
    /// candidate set of empty places holds no initially marked trap (every subset tried).
    #[test]
    fn trap_proofs_of_deadlock_freedom_hold(spec in arb_spec_of(2..=6, 1..=6)) {
        let (verdict, dead, _) = trap_case(&spec);
        if let TrapVerdict::DeadlockFree { .. } = verdict {
            prop_assert!(!dead, "proved deadlock-free, but a dead marking is reachable");
        }
        if let TrapVerdict::Candidate(set) = verdict {
            let net = net_of_spec(&spec);
            for bits in 1u32..1 << set.len() {
                let sub: Vec<PlaceIdx> =
                    (0..set.len()).filter(|i| bits >> i & 1 == 1).map(|i| set[i]).collect();
                // A trap: every transition consuming from it outputs to it, or reads a place of
                // it that it does not consume from.
                let trap = net.transitions.iter().all(|t| {
                    let consumes = |p: PlaceIdx| t.pre.iter().any(|a| a.place == p);
                    !sub.iter().any(|&p| consumes(p))
                        || t.post.iter().any(|a| sub.contains(&a.place))
                        || t.reads.iter().any(|a| sub.contains(&a.place) && !consumes(a.place))
                });
                let marked = sub.iter().any(|&p| net.places[p as usize].initial > 0);
                prop_assert!(!(trap && marked), "{sub:?} is a marked trap inside {set:?}");
            }
        }
    }
}

/// The trap argument proves something: over fixed random cases with complete state spaces, it
/// proves most deadlock-free nets so, and gives candidates on others. (Random nets seldom need
/// a trap beyond the semiflows: `traps.rs` has a net that does.)
#[test]
fn trap_proofs_decide_a_share_of_random_nets() {
    let mut runner = TestRunner::deterministic();
    let strategy = arb_spec_of(3..=6, 2..=6);
    let (mut proved, mut free, mut candidates) = (0, 0, 0);
    for _ in 0..400 {
        let spec = strategy.new_tree(&mut runner).unwrap().current();
        let (verdict, dead, complete) = trap_case(&spec);
        if !complete {
            continue;
        }
        free += usize::from(!dead);
        match verdict {
            TrapVerdict::DeadlockFree { .. } => proved += 1,
            TrapVerdict::Candidate(_) => candidates += 1,
            TrapVerdict::GaveUp => {}
        }
    }
    eprintln!("{proved} proved of {free} deadlock-free, {candidates} candidates");
    assert!(
        proved * 2 >= free && proved >= 10 && candidates >= 20,
        "{proved} {candidates} {free}"
    );
}

/// The checks above say something: over a fixed set of random cases, the facts find
/// semiflows, dead transitions, constant places and bounds, and the shortcuts decide
/// predicates both ways.
#[test]
fn shortcuts_decide_a_share_of_random_predicates() {
    let mut runner = TestRunner::deterministic();
    let mut said = Said::default();
    for _ in 0..common::cases(400) {
        let (spec, predicates, sums) = arb_case().new_tree(&mut runner).unwrap().current();
        check(&spec, &predicates, &sums, &mut said);
    }
    eprintln!("{said:?}");
    let cases = said.cases;
    assert!(said.complete * 2 > cases, "{said:?}");
    assert!(said.semiflows > cases / 2, "{said:?}");
    assert!(said.dead > cases / 10, "{said:?}");
    assert!(said.constant > cases / 10, "{said:?}");
    assert!(said.found > cases, "{said:?}");
    assert!(said.absent > cases / 2, "{said:?}");
    assert!(said.always > cases / 4, "{said:?}");
    assert!(said.exact_bounds > cases / 4, "{said:?}");
}

// ---- The contest's instances ----

/// The P/T instances, sorted, with their nets.
fn pt_instances() -> Vec<(String, Net)> {
    let dir = common::shared_mcc();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| std::fs::read_to_string(p.join("iscolored")).is_ok_and(|s| s.trim() == "FALSE"))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 50, "only {} P/T instances", names.len());
    names
        .into_iter()
        .map(|name| {
            let (net, _) = unfold::formats::read_net(&dir.join(&name).join("model.pnml")).unwrap();
            (name, net)
        })
        .collect()
}

/// The index of each place by its identifier.
fn place_ids(net: &Net) -> HashMap<&str, PlaceIdx> {
    net.places
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id.as_str(), i as PlaceIdx))
        .collect()
}

/// `oracle.tsv`: (instance, examination, id) → answer, known answers only.
fn oracle() -> HashMap<(String, String, String), String> {
    let text = std::fs::read_to_string(common::shared_mcc().join("oracle.tsv")).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let c: Vec<&str> = line.split('\t').collect();
            (c.len() == 4 && c[3] != "?")
                .then(|| ((c[0].into(), c[1].into(), c[2].into()), c[3].into()))
        })
        .collect()
}

/// The UpperBounds formulas of an instance: id → place identifiers (a plain scan of the XML:
/// each `<property>` has an `<id>` and `<place>` elements under its `<place-bound>`).
fn upper_bound_formulas(instance: &str) -> Vec<(String, Vec<String>)> {
    let path = common::shared_mcc().join(instance).join("UpperBounds.xml");
    let text = std::fs::read_to_string(path).unwrap();
    let inner = |s: &str, tag: &str| -> Vec<String> {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        s.split(&open)
            .skip(1)
            .filter_map(|rest| rest.split(&close).next())
            .map(|v| v.trim().to_string())
            .collect()
    };
    text.split("<property>")
        .skip(1)
        .map(|prop| (inner(prop, "id")[0].clone(), inner(prop, "place")))
        .collect()
}

/// The facts of every P/T instance agree with the contest's answers: upper bounds at least the
/// known bounds (UpperBounds, StateSpace's largest counts), initial values at most them; no
/// dead transition where every transition can fire (QuasiLiveness, Liveness), no constant
/// place where no marking is stable (StableMarking), no deadlock ruled out where one is
/// reachable, no place above 1 token where the net is not safe (OneSafe).
#[test]
fn facts_agree_with_the_contest_answers() {
    let oracle = oracle();
    let known = |instance: &str, exam: &str, id: &str| {
        oracle
            .get(&(instance.to_string(), exam.to_string(), id.to_string()))
            .cloned()
    };
    let budget = Budget {
        time: Duration::from_millis(500),
        ..Budget::default()
    };
    let mut bounds_checked = 0;
    for (name, net) in pt_instances() {
        let s = Shortcuts::of(&net, &budget);
        let f = s.facts();
        let ids = place_ids(&net);
        let places = net.places.len() as PlaceIdx;
        let transitions = net.transitions.len() as TransIdx;
        for (id, names) in upper_bound_formulas(&name) {
            let Some(answer) = known(&name, "UpperBounds", &id) else {
                continue;
            };
            let answer: u64 = answer.parse().unwrap();
            let sum = Linear::of(&IntExpr::Tokens(
                names.iter().map(|n| ids[n.as_str()]).collect(),
            ));
            let b = s.bound(&sum);
            assert!(b.lower <= answer, "{id}: initial {} > {answer}", b.lower);
            assert!(
                b.upper.is_none_or(|u| u >= answer),
                "{id}: {:?} < {answer}",
                b.upper
            );
            bounds_checked += 1;
        }
        let all = Linear::of(&IntExpr::Tokens((0..places).collect()));
        if let Some(max) = known(&name, "StateSpace", "MAX_TOKEN_PER_MARKING") {
            let max: u64 = max.parse().unwrap();
            assert!(
                s.upper_bound(&all).is_none_or(|u| u >= max),
                "{name}: tokens > bound"
            );
        }
        let largest = (0..places).map(|p| f.upper(p)).max().flatten();
        let all_bounded = (0..places).all(|p| f.upper(p).is_some());
        if let Some(max) = known(&name, "StateSpace", "MAX_TOKEN_IN_PLACE") {
            let max: u64 = max.parse().unwrap();
            assert!(
                !all_bounded || largest >= Some(max),
                "{name}: a place above its bound"
            );
        }
        if known(&name, "OneSafe", "OneSafe").as_deref() == Some("FALSE") {
            assert!(!all_bounded || largest > Some(1), "{name}: bounds say safe");
        }
        let dead = (0..transitions).filter(|&t| f.is_dead(t)).count();
        for exam in ["QuasiLiveness", "Liveness"] {
            if known(&name, exam, exam).as_deref() == Some("TRUE") {
                assert_eq!(dead, 0, "{name}: {exam} but dead transitions");
            }
        }
        if known(&name, "StableMarking", "StableMarking").as_deref() == Some("FALSE") {
            assert!(!f.constant().contains(&true), "{name}: a constant place");
        }
        match known(&name, "ReachabilityDeadlock", "ReachabilityDeadlock").as_deref() {
            Some("TRUE") => {
                assert_ne!(
                    s.decide(&Predicate::Deadlock),
                    Some(Search::Absent),
                    "{name}"
                )
            }
            Some("FALSE") => assert!(
                !matches!(s.decide(&Predicate::Deadlock), Some(Search::Found(_))),
                "{name}"
            ),
            _ => {}
        }
    }
    assert!(bounds_checked > 500, "only {bounds_checked} bounds checked");
}

/// What the facts find on every P/T instance, and how long they take (a measurement, not a
/// check: run in a release build with `--ignored --nocapture`).
#[test]
#[ignore]
fn report_on_the_contest_instances() {
    let oracle = oracle();
    let budget = Budget::default();
    let (mut finished, mut total) = (0, 0);
    let (mut all_exact, mut all_tight, mut all_asked) = (0, 0, 0);
    let mut times = Vec::new();
    println!(
        "instance\tplaces\ttransitions\tsemiflows\tcomplete\tms\tdead\tconstant\tbounded\tub_exact\tub_tight\tub_known"
    );
    for (name, net) in pt_instances() {
        let start = Instant::now();
        let s = Shortcuts::of(&net, &budget);
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        times.push(ms);
        let f = s.facts();
        total += 1;
        finished += f.semiflows().complete() as usize;
        let ids = place_ids(&net);
        let (mut exact, mut tight, mut asked) = (0, 0, 0);
        for (id, names) in upper_bound_formulas(&name) {
            let key = (name.clone(), "UpperBounds".to_string(), id);
            let Some(answer) = oracle.get(&key) else {
                continue;
            };
            asked += 1;
            let sum = Linear::of(&IntExpr::Tokens(
                names.iter().map(|n| ids[n.as_str()]).collect(),
            ));
            let b = s.bound(&sum);
            exact += (b.exact().map(|v| v.to_string()).as_ref() == Some(answer)) as usize;
            tight += (b.upper.map(|v| v.to_string()).as_ref() == Some(answer)) as usize;
        }
        (all_exact, all_tight, all_asked) =
            (all_exact + exact, all_tight + tight, all_asked + asked);
        println!(
            "{name}\t{}\t{}\t{}\t{}\t{ms:.1}\t{}\t{}\t{}\t{exact}\t{tight}\t{asked}",
            net.places.len(),
            net.transitions.len(),
            f.semiflows().flows.len(),
            f.semiflows().complete(),
            f.dead().iter().filter(|&&d| d).count(),
            f.constant().iter().filter(|&&c| c).count(),
            (0..net.places.len() as PlaceIdx)
                .filter(|&p| f.upper(p).is_some())
                .count(),
        );
    }
    times.sort_by(f64::total_cmp);
    println!("upper bounds: {all_exact} exact, {all_tight} tight, of {all_asked} known");
    println!(
        "finished {finished}/{total}; time median {:.1} ms, max {:.1} ms, total {:.1} ms",
        times[times.len() / 2],
        times.last().unwrap(),
        times.iter().sum::<f64>()
    );
}
