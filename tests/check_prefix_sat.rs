//! The prefix engine (`check::prefix_sat`) against brute force: on random small safe nets (with
//! read arcs, transitions that can never fire, every adequate order) and on the small PEP nets
//! of ../shared, every target's answer agrees with the evaluation of the predicate on every
//! marking of the explicit state space (`reach`), every witness replays to a marking that
//! satisfies it, and every bound is the maximum over the state space. Limits stop the engine
//! with unknown. The large PEP nets are timed by an ignored test
//! (`tools/bench_prefix_sat.sh`).

use crate::common;

use common::{arb_linear, arb_predicate};

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use unfold::check::prefix_sat::{PrefixChecker, check_net};
use unfold::check::{Bound, Search};
use unfold::explore::contextual::{self, ContextualRun};
use unfold::explore::limits::{Limits, StopReason};
use unfold::explore::prefix::{self, Order, PrefixOptions, PrefixRun};
use unfold::explore::reach::explore;
use unfold::formats::read_net;
use unfold::model::net::{ArcKind, Net, NetBuilder, PlaceIdx, TransIdx};
use unfold::model::net_system::NetSystem;
use unfold::model::read_arcs::loops_to_read_arcs;
use unfold::property::{Cmp, Linear, Marking, Predicate};
use unfold::system::System;

/// A state of the net's system as the predicates see it (the oracle's own adapter).
struct State<'s, 'n>(&'s NetSystem<'n>, &'s [u64]);

impl Marking for State<'_, '_> {
    fn tokens(&self, p: PlaceIdx) -> u64 {
        self.0.tokens(self.1, p)
    }
    fn enabled(&self, t: TransIdx) -> bool {
        self.0.is_enabled(self.1, t)
    }
    fn dead(&self) -> bool {
        self.0.is_deadlock(self.1)
    }
}

/// Every reachable state of `net`, by explicit search.
fn all_states(net: &Net) -> Vec<Vec<u64>> {
    let sys = NetSystem::new(net);
    let mut states = Vec::new();
    let out = explore(&sys, &Limits::default(), &mut |_| {}, &mut |_, s| {
        states.push(s.to_vec())
    })
    .expect("no overflow on a safe net");
    assert!(out.stopped.is_none());
    states
}

/// The state `run` reaches, failing on a step that is not enabled.
fn replay(net: &Net, run: &[TransIdx]) -> Result<Vec<u64>, String> {
    let sys = NetSystem::new(net);
    let mut s = vec![0; sys.state_words()];
    sys.initial_state(&mut s);
    for (i, &t) in run.iter().enumerate() {
        if !sys.is_enabled(&s, t) {
            return Err(format!("step {i} (t{t}) of {run:?} is not enabled"));
        }
        sys.fire_in_place(&mut s, t)
            .map_err(|_| "overflow".to_string())?;
    }
    Ok(s)
}

fn prefix(net: &Net, order: Order) -> Option<PrefixRun> {
    let options = PrefixOptions {
        order,
        deadlock: false,
    };
    let run = prefix::explore(net, &options, &Limits::default(), &mut |_| {}).ok()?;
    assert!(run.complete());
    Some(run)
}

/// Checks the engine's answers to `targets` and `sums` on `net` against its state space.
fn agree(net: &Net, order: Order, targets: &[Predicate], sums: &[Linear]) -> Result<(), String> {
    let Some(run) = prefix(net, order) else {
        return Err("not safe".into());
    };
    agree_on(net, PrefixChecker::new(net, &run.prefix), targets, sums)
}

/// The contextual prefix of `net`, if the net is safe.
fn contextual_prefix(net: &Net) -> Option<ContextualRun> {
    let run = contextual::explore(
        net,
        &contextual::ContextualOptions::default(),
        &Limits::default(),
        &mut |_| {},
    )
    .ok()?;
    assert!(run.stopped.is_none());
    Some(run)
}

/// [`agree`] on the contextual prefix of `net`.
fn agree_contextual(net: &Net, targets: &[Predicate], sums: &[Linear]) -> Result<(), String> {
    let Some(run) = contextual_prefix(net) else {
        return Err("not safe".into());
    };
    agree_on(
        net,
        PrefixChecker::contextual(net, &run.prefix),
        targets,
        sums,
    )
}

/// Checks `checker`'s answers to `targets` and `sums` on `net` against its state space.
fn agree_on(
    net: &Net,
    mut checker: PrefixChecker,
    targets: &[Predicate],
    sums: &[Linear],
) -> Result<(), String> {
    let states = all_states(net);
    let sys = NetSystem::new(net);
    let limits = Limits::default();
    for target in targets {
        let exists = states.iter().any(|s| target.holds(&State(&sys, s)));
        match checker.find(target, &limits) {
            Search::Found(w) => {
                if !exists {
                    return Err(format!(
                        "{target:?}: found {w:?}, but no state satisfies it"
                    ));
                }
                let end = replay(net, &w)?;
                if !target.holds(&State(&sys, &end)) {
                    return Err(format!("{target:?}: the witness {w:?} does not satisfy it"));
                }
            }
            Search::Absent if exists => {
                return Err(format!("{target:?}: absent, but a state satisfies it"));
            }
            Search::Absent => {}
            Search::Unknown(r) => return Err(format!("{target:?}: unknown ({r:?})")),
        }
    }
    for sum in sums {
        let max = states
            .iter()
            .map(|s| sum.value(&State(&sys, s)))
            .max()
            .unwrap();
        let b = checker.bound(sum, &limits);
        if b.exact() != Some(max) {
            return Err(format!("bound of {sum:?}: {b:?}, the maximum is {max}"));
        }
        let w = b.witness.ok_or("no witness")?;
        let end = replay(net, &w)?;
        if sum.value(&State(&sys, &end)) != max {
            return Err(format!("bound of {sum:?}: the witness {w:?} reaches less"));
        }
    }
    Ok(())
}

/// A random net: initial marks, then per transition its input, output and read places (bit
/// masks) and maybe a place it needs two tokens from (it can never fire in a safe net).
type RawNet = (Vec<bool>, Vec<(u32, u32, u32, Option<u32>)>);

fn build(raw: &RawNet) -> Net {
    let (marks, transitions) = raw;
    let mut b = NetBuilder::new("random");
    let places: Vec<PlaceIdx> = marks
        .iter()
        .enumerate()
        .map(|(i, &m)| b.add_place(format!("p{i}"), None, u32::from(m)).unwrap())
        .collect();
    let np = places.len() as u32;
    for (i, &(pre, post, read, double)) in transitions.iter().enumerate() {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        // A place may be read and consumed (the read adds nothing) or read and produced (a
        // second token: the prefix refuses the net) by the same transition.
        for p in 0..np {
            let bit = 1 << p;
            if pre & bit != 0 {
                let w = if double == Some(p) { 2 } else { 1 };
                b.add_arc(places[p as usize], t, ArcKind::Input, w).unwrap();
            } else if double == Some(p) {
                b.add_arc(places[p as usize], t, ArcKind::Input, 2).unwrap();
            }
            if post & bit != 0 {
                b.add_arc(places[p as usize], t, ArcKind::Output, 1)
                    .unwrap();
            }
            if read & bit != 0 {
                b.add_arc(places[p as usize], t, ArcKind::Read, 1).unwrap();
            }
        }
    }
    b.finish()
}

fn arb_random_net() -> impl Strategy<Value = Net> {
    (2u32..=6)
        .prop_flat_map(|np| {
            let mask = 0u32..1 << np;
            // Reads are rarer than inputs and outputs.
            let read = prop_oneof![3 => Just(0u32), 1 => 0u32..1 << np];
            let double = prop_oneof![9 => Just(None), 1 => (0..np).prop_map(Some)];
            let transition = (mask.clone(), mask, read, double);
            (
                proptest::collection::vec(any::<bool>(), np as usize),
                proptest::collection::vec(transition, 1..=6),
            )
        })
        .prop_map(|raw| build(&raw))
}

/// Nets of communicating state machines (one-token components, a shared lock, read arcs).
fn arb_machines_net() -> impl Strategy<Value = Net> {
    (1usize..=4, 2usize..=4)
        .prop_flat_map(|(k, len)| {
            let step = (
                proptest::collection::vec((0..k, 0..len, 0..len), 1..=2),
                proptest::option::of((0..k, 0..len)),
                0u8..3,
            );
            (Just(k), Just(len), proptest::collection::vec(step, 1..=10))
        })
        .prop_map(|(k, len, steps)| common::machines_net(k, len, steps))
}

type Case = (Net, Order, Vec<Predicate>, Vec<Linear>);

fn arb_case(net: impl Strategy<Value = Net>) -> impl Strategy<Value = Case> {
    net.prop_filter("safe nets only", |n| prefix(n, Order::Size).is_some())
        .prop_flat_map(|net| {
            let (np, nt) = (net.places.len() as u32, net.transitions.len() as u32);
            let order = proptest::sample::select(vec![Order::Mole, Order::Erv, Order::Size]);
            (
                Just(net),
                order,
                proptest::collection::vec(arb_predicate(np, nt, 4), 1..=6),
                proptest::collection::vec(arb_linear(np, 4), 1..=2),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: common::cases(2000),
        max_global_rejects: 1 << 16,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_nets_agree_with_brute_force((net, order, targets, sums) in arb_case(arb_random_net())) {
        if let Err(e) = agree(&net, order, &targets, &sums) {
            return Err(TestCaseError::fail(format!("{e}\nnet: {net:?}")));
        }
    }

    #[test]
    fn machine_nets_agree_with_brute_force((net, order, targets, sums) in arb_case(arb_machines_net())) {
        if let Err(e) = agree(&net, order, &targets, &sums) {
            return Err(TestCaseError::fail(format!("{e}\nnet: {net:?}")));
        }
    }

    /// The contextual prefix (read arcs as contexts, asymmetric conflict): on random nets
    /// with read arcs, every answer is brute force's and every witness replays.
    #[test]
    fn contextual_prefixes_of_random_nets_agree_with_brute_force(
        (net, targets, sums) in arb_contextual_case(arb_read_net())
    ) {
        if let Err(e) = agree_contextual(&net, &targets, &sums) {
            return Err(TestCaseError::fail(format!("{e}\nnet: {net:?}")));
        }
    }

    #[test]
    fn contextual_prefixes_of_machine_nets_agree_with_brute_force(
        (net, targets, sums) in arb_contextual_case(arb_machines_net())
    ) {
        if let Err(e) = agree_contextual(&net, &targets, &sums) {
            return Err(TestCaseError::fail(format!("{e}\nnet: {net:?}")));
        }
    }
}

/// Nets of `k` one-token state machines of `len` states in a ring whose transitions move one
/// or two machines a step on and read the states of up to three others (safe by
/// construction): readers of one machine's state and movers of it form cycles of asymmetric
/// conflict.
fn arb_read_net() -> impl Strategy<Value = Net> {
    (2usize..=4, 2usize..=3)
        .prop_flat_map(|(k, len)| {
            let state = prop_oneof![1 => Just(0usize), 1 => 0..len];
            let step = (
                proptest::collection::vec(
                    (0..k, state.clone()).prop_map(move |(m, s)| (m, s, (s + 1) % len)),
                    1..=2,
                ),
                proptest::collection::vec((0..k, state), 0..=3),
            );
            (Just(k), Just(len), proptest::collection::vec(step, 1..=9))
        })
        .prop_map(|(k, len, steps)| reading_machines(k, len, &steps))
}

type ReadingStep = (Vec<(usize, usize, usize)>, Vec<(usize, usize)>);

fn reading_machines(k: usize, len: usize, steps: &[ReadingStep]) -> Net {
    let mut b = NetBuilder::new("reading machines");
    let state: Vec<Vec<PlaceIdx>> = (0..k)
        .map(|m| {
            (0..len)
                .map(|s| {
                    b.add_place(format!("m{m}s{s}"), None, u32::from(s == 0))
                        .unwrap()
                })
                .collect()
        })
        .collect();
    for (i, (moves, reads)) in steps.iter().enumerate() {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        let mut used = Vec::new();
        for &(m, from, to) in moves {
            if used.contains(&m) || from == to {
                continue;
            }
            used.push(m);
            b.add_arc(state[m][from], t, ArcKind::Input, 1).unwrap();
            b.add_arc(state[m][to], t, ArcKind::Output, 1).unwrap();
        }
        for &(m, s) in reads {
            if !used.contains(&m) {
                used.push(m);
                b.add_arc(state[m][s], t, ArcKind::Read, 1).unwrap();
            }
        }
    }
    b.finish()
}

/// `tokens(p) ≥ 1` for every `p` of `places`.
fn cube(places: impl IntoIterator<Item = PlaceIdx>) -> Predicate {
    Predicate::And(
        places
            .into_iter()
            .map(|p| {
                Predicate::Compare(
                    Linear {
                        constant: 0,
                        terms: vec![(p, 1)],
                    },
                    Cmp::Ge,
                    Linear {
                        constant: 1,
                        terms: Vec::new(),
                    },
                )
            })
            .collect(),
    )
}

/// A random predicate, or a conjunction of marked places (markings that a set of events in
/// cyclic asymmetric conflict would reach).
fn arb_contextual_predicate(np: u32, nt: u32) -> BoxedStrategy<Predicate> {
    prop_oneof![
        arb_predicate(np, nt, 4),
        proptest::collection::btree_set(0..np, 1..=np as usize).prop_map(cube),
    ]
    .boxed()
}

type ContextualCase = (Net, Vec<Predicate>, Vec<Linear>);

fn arb_contextual_case(net: impl Strategy<Value = Net>) -> impl Strategy<Value = ContextualCase> {
    net.prop_filter("safe nets with read arcs and a few events only", |n| {
        n.read_arc_count() > 0 && contextual_prefix(n).is_some_and(|r| r.prefix.events.len() >= 3)
    })
    .prop_flat_map(|net| {
        let (np, nt) = (net.places.len() as u32, net.transitions.len() as u32);
        (
            Just(net),
            proptest::collection::vec(arb_contextual_predicate(np, nt), 1..=8),
            proptest::collection::vec(arb_linear(np, 4), 1..=2),
        )
    })
}

/// Transitions `tᵢ` consuming `pᵢ`, reading `pᵢ₊₁ mod k` and producing `qᵢ`: each `tᵢ`
/// must fire before `tᵢ₊₁ mod k`, so the `k` of them form a cycle of asymmetric conflict and
/// never all fire, while any `k − 1` of them do.
fn ring_of_readers(k: u32) -> Net {
    let mut b = NetBuilder::new("ring of readers");
    let p: Vec<PlaceIdx> = (0..k)
        .map(|i| b.add_place(format!("p{i}"), None, 1).unwrap())
        .collect();
    let q: Vec<PlaceIdx> = (0..k)
        .map(|i| b.add_place(format!("q{i}"), None, 0).unwrap())
        .collect();
    for i in 0..k as usize {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        b.add_arc(p[i], t, ArcKind::Input, 1).unwrap();
        b.add_arc(p[(i + 1) % k as usize], t, ArcKind::Read, 1)
            .unwrap();
        b.add_arc(q[i], t, ArcKind::Output, 1).unwrap();
    }
    b.finish()
}

#[test]
fn cycles_of_asymmetric_conflict_are_no_configurations() {
    for k in 2..=6u32 {
        let net = ring_of_readers(k);
        let run = contextual_prefix(&net).unwrap();
        let mut checker = PrefixChecker::contextual(&net, &run.prefix);
        let limits = Limits::default();
        let all = cube(k..2 * k);
        assert_eq!(checker.find(&all, &limits), Search::Absent, "k = {k}");
        let most = cube(k + 1..2 * k);
        let Search::Found(w) = checker.find(&most, &limits) else {
            panic!("k = {k}: k − 1 readers fire");
        };
        // t₀ is left out; the others fire readers first: t₁, …, t_{k−1}.
        let want: Vec<TransIdx> = (1..k).collect();
        assert_eq!(w, want, "k = {k}");
        let qs = Linear {
            constant: 0,
            terms: (k..2 * k).map(|p| (p, 1)).collect(),
        };
        assert_eq!(checker.bound(&qs, &limits).exact(), Some(u64::from(k - 1)));
        if k > 2 {
            assert!(checker.size().cycles > 0, "k = {k}: no cycle was met");
        }
        agree_contextual(&net, &[all, most, Predicate::Deadlock], &[qs]).unwrap();
    }
}

/// Values of `strategy`, drawn with a fixed seed.
fn draw<T: std::fmt::Debug>(strategy: impl Strategy<Value = T>, n: usize) -> Vec<T> {
    let mut runner = TestRunner::deterministic();
    (0..n)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect()
}

fn load(file: &str) -> Net {
    read_net(&common::shared_nets().join(file)).unwrap().0
}

/// Small PEP nets (plain and with read arcs) whose state spaces `reach` finishes at once.
const SMALL_PEP: &[&str] = &[
    "pep/sem.ll_net",
    "pep/do_od.ll_net",
    "pep/gas_station.ll_net",
    "pep/recursion.ll_net",
    "pep/only_hl.ll_net",
    "pep/peterson.ll_net",
    "pep/mutual.ll_net",
    "pep/elevator_1.ll_net",
    "pep/reader_writer_2.ll_net",
    "pep/sdl_arq.ll_net",
    "pep/sdl_arq_deadlock.ll_net",
    "pep/rw_1w1r.ll_net",
    "pep/dijkstra_2.ll_net",
    "pep/key_2.ll_net",
    "pep/rrr10-1.sync.ll_net",
    "pep/cont/peterson.ll_net",
    "pep/cont/mutual.ll_net",
    "pep/cont/reader_writer_2.ll_net",
    "pep/cont/sdl_arq.ll_net",
    "pep/cont/elevator.ll_net",
    "pep/cont/dijkstra_2.ll_net",
    "pep/cont/mid3.ll_net",
    "pep/cont/middle.ll_net",
];

#[test]
fn small_pep_nets_agree_with_explicit_reach() {
    let oracles = common::oracles();
    for file in SMALL_PEP {
        eprintln!("{file}");
        let net = load(file);
        let (np, nt) = (net.places.len() as u32, net.transitions.len() as u32);
        let mut targets = draw(arb_predicate(np, nt, 4), 40);
        targets.push(Predicate::Deadlock);
        let sums = draw(arb_linear(np, 4), 4);
        agree(&net, Order::Mole, &targets, &sums).unwrap_or_else(|e| panic!("{file}: {e}"));
        if net.read_arc_count() > 0 {
            agree_contextual(&net, &targets, &sums)
                .unwrap_or_else(|e| panic!("{file} (contextual): {e}"));
        }
        // Its contextual version (self-loops as read arcs, as `convert --read-arcs` makes it).
        let (with_reads, made) = loops_to_read_arcs(&net);
        if made > 0 {
            agree_contextual(&with_reads, &targets, &sums)
                .unwrap_or_else(|e| panic!("{file} (self-loops as read arcs): {e}"));
        }
        // The published deadlock answer too.
        if let Some(want) = oracles.get(*file).and_then(|o| o.get("deadlock")) {
            let got = check_net(&net, &[Predicate::Deadlock], &[], &Limits::default()).unwrap();
            let found = matches!(got.targets[0], Search::Found(_));
            assert_eq!(found, want == "TRUE", "{file}: deadlock");
        }
    }
}

#[test]
fn unsafe_nets_are_refused() {
    let net = build(&(
        vec![true, false],
        vec![(0b01, 0b11, 0, None), (0b10, 0, 0, None)],
    ));
    assert!(check_net(&net, &[Predicate::Bool(true)], &[], &Limits::default()).is_err());
}

#[test]
fn names_outside_the_net_give_unknown() {
    let net = build(&(vec![true, false], vec![(0b01, 0b10, 0, None)]));
    let run = prefix(&net, Order::Erv).unwrap();
    let mut checker = PrefixChecker::new(&net, &run.prefix);
    let limits = Limits::default();
    let far = Linear {
        constant: 0,
        terms: vec![(7, 1)],
    };
    let zero = Linear::default();
    for target in [
        Predicate::Fireable(vec![5]),
        Predicate::Compare(far.clone(), Cmp::Ge, zero.clone()),
    ] {
        assert_eq!(checker.find(&target, &limits), Search::Unknown(None));
    }
    assert_eq!(checker.bound(&far, &limits).exact(), None);
    // The checker still answers what is in the net.
    let p1 = Linear {
        constant: 0,
        terms: vec![(1, 1)],
    };
    assert_eq!(checker.bound(&p1, &limits).exact(), Some(1));
}

/// A transition that reads a place it also produces puts a second token there: the prefix
/// refuses the net as not safe, so the checker is never asked.
#[test]
fn a_read_arc_beside_an_output_arc_makes_the_net_unsafe() {
    let mut b = NetBuilder::new("read and produce");
    let p = b.add_place("p", None, 1).unwrap();
    let t = b.add_transition("t", None).unwrap();
    b.add_arc(p, t, ArcKind::Read, 1).unwrap();
    b.add_arc(p, t, ArcKind::Output, 1).unwrap();
    let net = b.finish();
    assert!(prefix(&net, Order::Erv).is_none());
}

#[test]
fn limits_give_unknown() {
    let net = load("pep/elevator_2.ll_net");
    let target = Predicate::Deadlock;
    // A place empty at first: its bound needs the solver.
    let empty = net.places.iter().position(|p| p.initial == 0).unwrap() as PlaceIdx;
    let sum = Linear {
        constant: 0,
        terms: vec![(empty, 1)],
    };
    let run = prefix(&net, Order::Erv).unwrap();
    let mut checker = PrefixChecker::new(&net, &run.prefix);
    let expired = Limits::new(Some(Duration::ZERO), None);
    assert_eq!(
        checker.find(&target, &expired),
        Search::Unknown(Some(StopReason::Timeout))
    );
    let b = checker.bound(&sum, &expired);
    assert_eq!(b.stopped, Some(StopReason::Timeout));
    assert_eq!(b.exact(), None);
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let interrupted = Limits::default().with_interrupt_flag(flag);
    assert_eq!(
        checker.find(&target, &interrupted),
        Search::Unknown(Some(StopReason::Interrupted))
    );
    // The same checker still answers once the limits allow it.
    assert!(checker.find(&target, &Limits::default()).decided());
    let answers = check_net(&net, &[target], &[sum], &expired).unwrap();
    assert_eq!(
        answers.targets,
        vec![Search::Unknown(Some(StopReason::Timeout))]
    );
    assert_eq!(answers.bounds[0].stopped, Some(StopReason::Timeout));
    assert_eq!(
        answers.bounds[0],
        Bound {
            stopped: Some(StopReason::Timeout),
            ..Bound::default()
        }
    );
}

/// `EF` of a conjunction of a few token counts, or of fireability.
fn arb_bench_target(np: u32, nt: u32) -> impl Strategy<Value = Predicate> {
    let count = (
        proptest::collection::btree_set(0..np, 1..=3),
        proptest::sample::select(vec![Cmp::Ge, Cmp::Le, Cmp::Eq]),
        0u64..3,
    )
        .prop_map(|(ps, c, k)| {
            Predicate::Compare(
                Linear {
                    constant: 0,
                    terms: ps.into_iter().map(|p| (p, 1)).collect(),
                },
                c,
                Linear {
                    constant: k,
                    terms: Vec::new(),
                },
            )
        });
    let fire = proptest::collection::btree_set(0..nt, 1..=2)
        .prop_map(|ts| Predicate::Fireable(ts.into_iter().collect()));
    let atom = prop_oneof![count, fire];
    prop_oneof![
        proptest::collection::vec(atom.clone(), 2..=4).prop_map(Predicate::And),
        proptest::collection::vec(atom.clone(), 2..=3).prop_map(|v| {
            Predicate::And(vec![
                Predicate::Or(v),
                Predicate::Not(Box::new(Predicate::Deadlock)),
            ])
        }),
        atom,
    ]
}

/// The median and the largest of `times`, in milliseconds.
fn median_max(times: &mut [Duration]) -> (f64, f64) {
    times.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (ms(times[times.len() / 2]), ms(times[times.len() - 1]))
}

/// Times the engine on the large PEP nets (a Markdown table): the prefix, the encoding, random
/// targets (`arb_bench_target`), the deadlock target, bounds of random sets of up to 8 places
/// and the bound of all places. Run by tools/bench_prefix_sat.sh (release build); `BENCH_NETS`
/// and `BENCH_FORMULAS` choose the nets and the number of targets, each formula gets 30 s.
#[test]
#[ignore = "benchmark: tools/bench_prefix_sat.sh"]
fn bench_large_pep_nets() {
    let nets = std::env::var("BENCH_NETS").unwrap_or_else(|_| {
        "buf100 fifo20 rrr30-1 byzagr4_2a byzagr4_0b rw_12 furnace_3 dpd_7.sync key_3.sync \
         q_1.sync"
            .to_string()
    });
    let formulas: usize = std::env::var("BENCH_FORMULAS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let limits = || Limits::new(Some(Duration::from_secs(30)), None);
    println!(
        "| net | events | cutoffs | prefix s | encoding s | found / absent / unknown | \
         median ms | max ms | deadlock | deadlock ms | bounds exact | bound median ms | \
         bound max ms | all places | all places ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for name in nets.split_whitespace() {
        let net = load(&format!("pep/{name}.ll_net"));
        let t0 = Instant::now();
        let Some(run) = prefix(&net, Order::Erv) else {
            println!("| {name} | not safe |");
            continue;
        };
        let prefix_s = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let mut checker = PrefixChecker::new(&net, &run.prefix);
        let encode_s = t1.elapsed().as_secs_f64();
        let (np, nt) = (net.places.len() as u32, net.transitions.len() as u32);
        let mut counts = BTreeMap::<&str, usize>::new();
        let mut times = Vec::new();
        for target in draw(arb_bench_target(np, nt), formulas) {
            let t = Instant::now();
            let answer = checker.find(&target, &limits());
            times.push(t.elapsed());
            *counts
                .entry(match answer {
                    Search::Found(_) => "found",
                    Search::Absent => "absent",
                    Search::Unknown(_) => "unknown",
                })
                .or_default() += 1;
        }
        let (median, max) = median_max(&mut times);
        let t = Instant::now();
        let deadlock = match checker.find(&Predicate::Deadlock, &limits()) {
            Search::Found(w) => format!("yes ({} steps)", w.len()),
            Search::Absent => "no".to_string(),
            Search::Unknown(_) => "?".to_string(),
        };
        let deadlock_ms = t.elapsed().as_secs_f64() * 1e3;
        let sums = draw(
            proptest::collection::btree_set(0..np, 1..=8).prop_map(|ps| Linear {
                constant: 0,
                terms: ps.into_iter().map(|p| (p, 1)).collect(),
            }),
            10,
        );
        let (mut exact, mut btimes) = (0, Vec::new());
        for sum in &sums {
            let t = Instant::now();
            let b = checker.bound(sum, &limits());
            btimes.push(t.elapsed());
            exact += usize::from(b.exact().is_some());
        }
        let (bmedian, bmax) = median_max(&mut btimes);
        let all = Linear {
            constant: 0,
            terms: (0..np).map(|p| (p, 1)).collect(),
        };
        let t = Instant::now();
        let b = checker.bound(&all, &limits());
        let all_ms = t.elapsed().as_secs_f64() * 1e3;
        let all = match b.exact() {
            Some(v) => v.to_string(),
            None => format!(
                "{}..{}",
                b.lower,
                b.upper.map_or("?".into(), |u| u.to_string())
            ),
        };
        println!(
            "| {name} | {} | {} | {prefix_s:.3} | {encode_s:.3} | {} / {} / {} | {median:.2} | \
             {max:.1} | {deadlock} | {deadlock_ms:.1} | {exact}/{} | {bmedian:.2} | {bmax:.1} | \
             {all} | {all_ms:.1} |",
            run.prefix.events.len(),
            run.prefix.cutoffs(),
            counts.get("found").unwrap_or(&0),
            counts.get("absent").unwrap_or(&0),
            counts.get("unknown").unwrap_or(&0),
            sums.len(),
        );
    }
}

/// Every reachable state of `net` if explicit search finishes within `limit`.
fn states_within(net: &Net, limit: Duration) -> Option<Vec<Vec<u64>>> {
    let sys = NetSystem::new(net);
    let mut states = Vec::new();
    let out = explore(
        &sys,
        &Limits::new(Some(limit), None),
        &mut |_| {},
        &mut |_, s| states.push(s.to_vec()),
    )
    .ok()?;
    out.stopped.is_none().then_some(states)
}

/// Whether `a` and `b` say the same when both decide (a witness found is "true").
fn same_answer(a: &Search, b: &Search) -> bool {
    !a.decided() || !b.decided() || matches!(a, Search::Found(_)) == matches!(b, Search::Found(_))
}

/// The contextual prefix engine against the self-loop one (read arcs unfolded as
/// consume-and-produce, the plain prefix in the ERV order), a Markdown table: on the nets of
/// pep/cont and on the contextual versions (`loops_to_read_arcs`) of larger PEP nets, the
/// random targets of `arb_bench_target`, the deadlock target and the bounds of random sets of
/// places; every answer of one engine must equal the other's and, where `reach` finishes in
/// 20 s, brute force's. Times are the prefix's construction, the encoding and every call
/// together, per engine, and their ratio (contextual over self-loops). Run by
/// tools/bench_prefix_contextual.sh (release build); `BENCH_NETS` (names under pep/, `cont/…`
/// for the read-arc nets) and `BENCH_FORMULAS` choose; each call gets 30 s.
#[test]
#[ignore = "benchmark: tools/bench_prefix_contextual.sh"]
fn bench_contextual_against_self_loops() {
    let nets = std::env::var("BENCH_NETS").unwrap_or_else(|_| {
        "cont/dijkstra_2 cont/elevator cont/mutual cont/peterson cont/reader_writer_2 \
         cont/sdl_arq elevator_3 rw_1w2r rw_2w1r key_3.sync q_1 q_1.sync dpd_7.sync furnace_3 \
         rw_12"
            .to_string()
    });
    let formulas: usize = std::env::var("BENCH_FORMULAS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50);
    let limits = || Limits::new(Some(Duration::from_secs(30)), None);
    println!(
        "| net | read arcs | histories / events (contextual) | events (self-loops) | \
         checked by | answers equal | unknown (ctx / loops) | cycle clauses | \
         contextual s (prefix) | self-loops s (prefix) | ratio |"
    );
    println!("|---|---:|---|---:|---|---|---|---:|---:|---:|---:|");
    for name in nets.split_whitespace() {
        let plain = load(&format!("pep/{name}.ll_net"));
        let net = if plain.read_arc_count() > 0 {
            plain
        } else {
            loops_to_read_arcs(&plain).0
        };
        let (np, nt) = (net.places.len() as u32, net.transitions.len() as u32);
        let mut targets = draw(arb_bench_target(np, nt), formulas);
        targets.push(Predicate::Deadlock);
        let sums = draw(
            proptest::collection::btree_set(0..np, 1..=8).prop_map(|ps| Linear {
                constant: 0,
                terms: ps.into_iter().map(|p| (p, 1)).collect(),
            }),
            10,
        );
        // The contextual engine, from the prefix on.
        let t = Instant::now();
        let Some(crun) = contextual_prefix(&net) else {
            println!("| {name} | not safe |");
            continue;
        };
        let ctx_prefix_s = t.elapsed().as_secs_f64();
        let mut ctx = PrefixChecker::contextual(&net, &crun.prefix);
        let ctx_found: Vec<Search> = targets.iter().map(|p| ctx.find(p, &limits())).collect();
        let ctx_bounds: Vec<Bound> = sums.iter().map(|s| ctx.bound(s, &limits())).collect();
        let ctx_s = t.elapsed().as_secs_f64();
        // The self-loop engine.
        let t = Instant::now();
        let prun = prefix(&net, Order::Erv).expect("safe");
        let loops_prefix_s = t.elapsed().as_secs_f64();
        let mut loops = PrefixChecker::new(&net, &prun.prefix);
        let loop_found: Vec<Search> = targets.iter().map(|p| loops.find(p, &limits())).collect();
        let loop_bounds: Vec<Bound> = sums.iter().map(|s| loops.bound(s, &limits())).collect();
        let loops_s = t.elapsed().as_secs_f64();
        let mut equal = 0;
        for (i, (a, b)) in ctx_found.iter().zip(&loop_found).enumerate() {
            assert!(same_answer(a, b), "{name}: {:?}: {a:?} / {b:?}", targets[i]);
            equal += usize::from(a.decided() && b.decided());
        }
        for (i, (a, b)) in ctx_bounds.iter().zip(&loop_bounds).enumerate() {
            if let (Some(x), Some(y)) = (a.exact(), b.exact()) {
                assert_eq!(x, y, "{name}: bound of {:?}", sums[i]);
                equal += 1;
            }
        }
        // Brute force where it finishes.
        let by = match states_within(&net, Duration::from_secs(20)) {
            Some(states) => {
                let sys = NetSystem::new(&net);
                for (p, a) in targets.iter().zip(&ctx_found) {
                    let exists = states.iter().any(|s| p.holds(&State(&sys, s)));
                    if a.decided() {
                        assert_eq!(matches!(a, Search::Found(_)), exists, "{name}: {p:?}");
                    }
                }
                for (s, b) in sums.iter().zip(&ctx_bounds) {
                    let max = states.iter().map(|x| s.value(&State(&sys, x))).max();
                    if let Some(v) = b.exact() {
                        assert_eq!(Some(v), max, "{name}: bound of {s:?}");
                    }
                }
                format!("both, reach ({} states)", states.len())
            }
            None => "both".to_string(),
        };
        let unknown = |f: &[Search], b: &[Bound]| {
            f.iter().filter(|s| !s.decided()).count()
                + b.iter().filter(|b| b.exact().is_none()).count()
        };
        println!(
            "| {name} | {} | {} / {} | {} | {by} | {equal}/{} | {} / {} | {} | {ctx_s:.3} \
             ({ctx_prefix_s:.3}) | {loops_s:.3} ({loops_prefix_s:.3}) | {:.2} |",
            net.read_arc_count(),
            crun.prefix.history_count(),
            crun.prefix.event_count(),
            prun.prefix.events.len(),
            targets.len() + sums.len(),
            unknown(&ctx_found, &ctx_bounds),
            unknown(&loop_found, &loop_bounds),
            ctx.size().cycles,
            ctx_s / loops_s,
        );
    }
}
