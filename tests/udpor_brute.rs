//! The unfolding DPOR against the brute-force oracle (DESIGN §6.1) and explicit reachability,
//! on random small acyclic nets and on families with analytic counts.

use crate::common;

use proptest::prelude::*;
use unfold::explore::brute::{self, BruteOptions};
use unfold::explore::limits::Limits;
use unfold::explore::reach::explore_net;
use unfold::explore::traces;
use unfold::explore::udpor::{self, Cache, ClassBitsets, Pick, UdporOptions, UdporStats};
use unfold::model::net::{ArcKind, Net, NetBuilder};
use unfold::model::net_system::NetSystem;
use unfold::system::Overflow;
use unfold::unfolding::event::HistoryStates;
use unfold::unfolding::order::Order;
use unfold::unfolding::slots::{SlotCover, SlotMap};

/// A random acyclic net: every transition consumes from at least one place and produces only
/// on places after all it consumes from, so every run is finite.
fn arb_acyclic_net(max_weight: u32, max_tokens: u32, reads: bool) -> impl Strategy<Value = Net> {
    (2usize..=7, 1usize..=7).prop_flat_map(move |(np, nt)| {
        let transition = (
            prop::collection::vec((0..np, 1..=max_weight), 1..=2),
            prop::collection::vec((0..np, 1..=max_weight), 0..=2),
            prop::collection::vec(0..np, 0..=if reads { 1 } else { 0 }),
        );
        (
            prop::collection::vec(0..=max_tokens, np),
            prop::collection::vec(transition, nt),
        )
            .prop_map(move |(marking, transitions)| {
                let mut b = NetBuilder::new("random");
                for (p, &m) in marking.iter().enumerate() {
                    b.add_place(format!("p{p}"), None, m).unwrap();
                }
                for (i, (pre, post, rd)) in transitions.into_iter().enumerate() {
                    let t = b.add_transition(format!("t{i}"), None).unwrap();
                    let top = pre.iter().map(|&(p, _)| p).max().unwrap();
                    for (p, w) in pre {
                        let _ = b.add_arc(p as u32, t, ArcKind::Input, w);
                    }
                    for (p, w) in post {
                        // Shift outputs past every input place: no cycles.
                        let p = top + 1 + p;
                        if p < marking.len() {
                            let _ = b.add_arc(p as u32, t, ArcKind::Output, w);
                        }
                    }
                    for p in rd {
                        let _ = b.add_arc(p as u32, t, ArcKind::Read, 1);
                    }
                }
                b.finish()
            })
    })
}

/// A random acyclic net of `k` state machines (processes) of `len` states each, one token in
/// state 0 of each: every transition moves one or two machines forward (a synchronisation)
/// and may test a state of another, and some also take from or put into a shared place
/// (a lock-like resource, marked once). Such nets have one-token components, which the
/// unfolding puts on token slots ([`SlotCover::TokenSets`]).
fn arb_acyclic_machines() -> impl Strategy<Value = Net> {
    let moves = (0usize..3, 0usize..3, 1usize..3);
    let transition = (
        prop::collection::vec(moves, 1..=2),
        prop::option::of((0usize..3, 0usize..5)),
        0u8..4,
    );
    (1usize..=3, prop::collection::vec(transition, 1..=8)).prop_map(|(k, transitions)| {
        // Forward moves only: every run is finite.
        let len = 5;
        let steps = transitions
            .into_iter()
            .map(|(moves, test, lock)| {
                let forward = moves
                    .into_iter()
                    .map(|(m, from, step)| (m, from, (from + step).min(len - 1)))
                    .collect();
                (forward, test, lock)
            })
            .collect();
        common::machines_net(k, len, steps)
    })
}

/// `net` with `gap` untouched places (some marked) before each of its places: the same
/// behaviour, but states hundreds of words wide, which the store keeps in shared blocks
/// (events' places then lie in different blocks of the state).
fn padded(net: &Net, gap: usize) -> Net {
    let mut b = NetBuilder::new("padded");
    let mut at = Vec::new();
    for (i, p) in net.places.iter().enumerate() {
        for k in 0..gap {
            b.add_place(format!("pad{i}_{k}"), None, (k % 3 == 0) as u32)
                .unwrap();
        }
        at.push(b.add_place(p.id.clone(), None, p.initial).unwrap());
    }
    for t in &net.transitions {
        let x = b.add_transition(t.id.clone(), None).unwrap();
        for (arcs, kind) in [
            (&t.pre, ArcKind::Input),
            (&t.post, ArcKind::Output),
            (&t.reads, ArcKind::Read),
        ] {
            for a in arcs {
                b.add_arc(at[a.place as usize], x, kind, a.weight).unwrap();
            }
        }
    }
    b.finish()
}

fn udpor_run(net: &Net, pick: Pick) -> UdporStats {
    udpor_run_bits(net, pick, 8).unwrap()
}

fn udpor_run_bits(net: &Net, pick: Pick, bits: u32) -> Option<UdporStats> {
    let sys = NetSystem::with_bits(net, bits);
    let opts = UdporOptions {
        pick,
        ..UdporOptions::default()
    };
    udpor::explore(&sys, &opts, &case_limits(), &mut |_| {}).ok()
}

/// The exploration of `sys` with `options`, under [`case_limits`].
fn explore_with(sys: &NetSystem, options: UdporOptions) -> Result<UdporStats, Overflow> {
    udpor::explore(sys, &options, &case_limits(), &mut |_| {})
}

/// Every run of a random case gets a minute: a case that takes longer (each takes
/// milliseconds) fails with its net instead of hanging the suite.
fn case_limits() -> Limits {
    Limits::new(Some(std::time::Duration::from_secs(60)), None)
}

/// Shrinking stops after two minutes, so a failure is reported promptly even when each run of
/// the failing case is slow.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_time: 120_000,
        ..ProptestConfig::default()
    }
}

fn check_against_oracles(net: &Net) -> Result<(), TestCaseError> {
    check_with_bits(net, 8)
}

/// Most maximal runs the brute force is asked to enumerate: a guard, since weighted nets can
/// multiply tokens along their places (none of 100 000 nets drawn had more than 2 000 runs).
const MAX_RUNS: u128 = 20_000;

/// The exploration of `sys` with `options` completes with the brute force's maximal
/// configurations, events and deadlocks, and no blocked visit.
fn matches_brute(
    sys: &NetSystem,
    options: &UdporOptions,
    b: &brute::BruteStats,
    what: &str,
) -> Result<(), TestCaseError> {
    let u = explore_with(sys, options.clone());
    prop_assert!(u.is_ok(), "{}", what);
    let u = u.unwrap();
    prop_assert_eq!(
        (u.maximal_configurations, u.events, u.blocked, u.deadlocks),
        (b.traces, b.events, 0, b.deadlocks),
        "{}",
        what
    );
    Ok(())
}

/// As [`matches_brute`], every transition finding its possible extensions through guard
/// classes, as for large systems, instead of from its list of dependents: joined as bitsets,
/// and (as where those would take too much memory) member by member.
fn through_guard_classes(
    sys: &NetSystem,
    b: &brute::BruteStats,
    what: &str,
) -> Result<(), TestCaseError> {
    for class_bitsets in [ClassBitsets::Always, ClassBitsets::Never] {
        let options = UdporOptions {
            listed_dependents: 0,
            class_bitsets,
            pick: Pick::Last,
            ..UdporOptions::default()
        };
        matches_brute(sys, &options, b, &format!("{what}, {class_bitsets:?}"))?;
    }
    Ok(())
}

/// The DPOR against the brute force, both on `bits`-wide counters (with 1 bit, nets that turn
/// out not to be safe are left out).
fn check_with_bits(net: &Net, bits: u32) -> Result<(), TestCaseError> {
    let sys = NetSystem::with_bits(net, bits);
    // Counted without enumeration; overflows are the brute force's to report (below).
    let counted = traces::explore(&sys, &case_limits(), &mut |_| {});
    if let Ok(c) = &counted {
        prop_assume!(c.runs <= MAX_RUNS, "too many maximal runs");
    }
    let b = brute::explore(
        &sys,
        &BruteOptions { max_len: 64 },
        &case_limits(),
        &mut |_| {},
    );
    prop_assume!(bits != 1 || b.is_ok());
    let b = b.unwrap();
    prop_assert_eq!(b.stopped, None, "brute force");
    // The two oracles agree with each other.
    let counted = counted.map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(
        (counted.runs, counted.traces),
        (b.runs as u128, b.traces as u128),
        "runs and traces counted vs enumerated"
    );
    let reach = explore_net(net, &case_limits(), &mut |_| {}).unwrap();
    for pick in [Pick::First, Pick::Last, Pick::Random(7)] {
        let u = udpor_run_bits(net, pick, bits);
        prop_assert!(
            u.is_some(),
            "the DPOR overflowed where the brute force did not"
        );
        let u = u.unwrap();
        prop_assert_eq!(
            u.maximal_configurations,
            b.traces,
            "maximal configurations, {:?}",
            pick
        );
        prop_assert_eq!(u.events, b.events, "events, {:?}", pick);
        prop_assert_eq!(u.blocked, 0, "blocked, {:?}", pick);
        prop_assert_eq!(u.deadlocks, b.deadlocks, "deadlocks vs brute, {:?}", pick);
        prop_assert_eq!(
            u.deadlocks,
            reach.deadlocks,
            "deadlocks vs reach, {:?}",
            pick
        );
        prop_assert!(u.complete());
    }
    through_guard_classes(&sys, &b, "guard classes")?;
    // States hundreds of words wide, kept in shared blocks, with the cache off too (events
    // evicted give their blocks back, and rebuilt ones take them again).
    let wide = padded(net, 300);
    let wide_sys = NetSystem::with_bits(&wide, bits);
    for cache in [Cache::Bounded, Cache::Off] {
        let options = UdporOptions {
            cache,
            ..UdporOptions::default()
        };
        matches_brute(&wide_sys, &options, &b, &format!("wide states, {cache:?}"))?;
    }
    // Cutoffs compare the states of local configurations, which wide states keep as changes
    // to their largest predecessor's: the same exploration as on the narrow states.
    let with_cutoffs = |sys: &NetSystem| {
        explore_with(
            sys,
            UdporOptions {
                cutoffs: Some(Order::Erv),
                ..UdporOptions::default()
            },
        )
        .map(|u| (u.maximal_configurations, u.events, u.cutoffs, u.deadlocks))
    };
    prop_assert_eq!(
        with_cutoffs(&wide_sys),
        with_cutoffs(&sys),
        "wide states, cutoffs"
    );
    // With the cache off, Remove drops every event outside U at each backtrack, and the
    // events needed again are rebuilt: the exploration must not change.
    let off = UdporOptions {
        cache: Cache::Off,
        ..UdporOptions::default()
    };
    matches_brute(&sys, &off, &b, "cache off")?;
    // The states of histories assembled from the slots' last events (which 1-bit counters
    // allow) or fired event by event: the same exploration, cutoffs included (they compare
    // the states of local configurations, and enabledness is tested on them).
    for cutoffs in [None, Some(Order::Erv)] {
        let run = |history_states| {
            explore_with(
                &sys,
                UdporOptions {
                    cutoffs,
                    history_states,
                    ..UdporOptions::default()
                },
            )
        };
        let (assembled, fired) = (run(HistoryStates::Auto), run(HistoryStates::Fire));
        prop_assert!(assembled.is_ok() && fired.is_ok());
        let (a, f) = (assembled.unwrap(), fired.unwrap());
        prop_assert!(!f.assembled_histories);
        prop_assert!(
            bits != 1 || a.assembled_histories,
            "1-bit counters assemble"
        );
        prop_assert_eq!(
            (a.maximal_configurations, a.events, a.cutoffs, a.deadlocks),
            (f.maximal_configurations, f.events, f.cutoffs, f.deadlocks),
            "assembled vs fired histories, cutoffs {:?}",
            cutoffs
        );
    }
    // k-partial alternatives (only the last k events of D not in conflict with C need a
    // conflicting event) may lead into blocked leaves, but the subtrees of Explore stay
    // disjoint and every maximal configuration is still reached: the counts stay exact.
    for k in [1, 2] {
        let partial = explore_with(
            &sys,
            UdporOptions {
                alt_k: Some(k),
                ..UdporOptions::default()
            },
        );
        prop_assert!(partial.is_ok());
        let partial = partial.unwrap();
        prop_assert!(partial.complete());
        prop_assert_eq!(
            (
                partial.maximal_configurations,
                partial.events,
                partial.deadlocks
            ),
            (b.traces, b.events, b.deadlocks),
            "alternatives of {} events",
            k
        );
    }
    Ok(())
}

/// Packed markings (the places of a one-token component share one field): the brute force and
/// the DPOR on them agree with the brute force `b` on plain ones, with the states of histories
/// assembled from the token slots (or fired, where `--slots resources` leaves a field without
/// one slot), the cache on and off, dependents through guard classes, and wide states.
fn check_packed(net: &Net, b: &brute::BruteStats) -> Result<(), TestCaseError> {
    let packed = NetSystem::packed(net);
    let bp = brute::explore(
        &packed,
        &BruteOptions { max_len: 64 },
        &case_limits(),
        &mut |_| {},
    );
    prop_assert!(bp.is_ok());
    let bp = bp.unwrap();
    prop_assert_eq!(
        (bp.traces, bp.events, bp.deadlocks),
        (b.traces, b.events, b.deadlocks),
        "brute force on packed markings"
    );
    for slots in [SlotCover::TokenSets, SlotCover::Resources] {
        for history_states in [HistoryStates::Auto, HistoryStates::Fire] {
            for cache in [Cache::Bounded, Cache::Off] {
                let options = UdporOptions {
                    slots,
                    history_states,
                    cache,
                    ..UdporOptions::default()
                };
                let what = format!("packed, {slots:?}, {history_states:?}, {cache:?}");
                matches_brute(&packed, &options, b, &what)?;
            }
        }
    }
    through_guard_classes(&packed, b, "packed, guard classes")?;
    let assembled = explore_with(&packed, UdporOptions::default());
    prop_assert!(
        assembled.is_ok_and(|u| u.assembled_histories),
        "token slots assemble"
    );
    let wide_net = padded(net, 300);
    let wide = NetSystem::packed(&wide_net);
    matches_brute(&wide, &UdporOptions::default(), b, "packed, wide states")?;
    let deadlocks = cutoff_deadlocks(&packed, SlotCover::TokenSets)?;
    prop_assert_eq!(deadlocks, b.deadlocks, "packed, cutoffs");
    Ok(())
}

/// The deadlocks the exploration of `sys` with ERV cutoffs finds, once complete.
fn cutoff_deadlocks(sys: &NetSystem, slots: SlotCover) -> Result<u64, TestCaseError> {
    let cut = explore_with(
        sys,
        UdporOptions {
            slots,
            cutoffs: Some(Order::Erv),
            ..UdporOptions::default()
        },
    );
    prop_assert!(cut.is_ok());
    let cut = cut.unwrap();
    prop_assert!(cut.complete());
    Ok(cut.deadlocks)
}

proptest! {
    #![proptest_config(config(250))]

    /// Nets of state machines, whose one-token components put their movers on one slot each:
    /// the oracles hold with token slots (the default) as without, and the two explore alike
    /// (with cutoffs, the order of exploration may differ: the same deadlocks), also when
    /// every transition finds its possible extensions through its slots' guard classes.
    #[test]
    fn state_machine_nets(net in arb_acyclic_machines()) {
        check_against_oracles(&net)?;
        let sys = NetSystem::with_bits(&net, 1);
        let b = brute::explore(&sys, &BruteOptions { max_len: 64 }, &case_limits(), &mut |_| {});
        prop_assume!(b.is_ok());
        let b = b.unwrap();
        for slots in [SlotCover::TokenSets, SlotCover::Resources] {
            for listed_dependents in [256, 0] {
                let options = UdporOptions {
                    slots,
                    listed_dependents,
                    class_bitsets: ClassBitsets::Never,
                    ..UdporOptions::default()
                };
                matches_brute(&sys, &options, &b, &format!("{slots:?}, {listed_dependents}"))?;
            }
            let deadlocks = cutoff_deadlocks(&sys, slots)?;
            prop_assert_eq!(deadlocks, b.deadlocks, "{:?}, cutoffs", slots);
        }
        check_packed(&net, &b)?;
    }

    #[test]
    fn safe_like_nets(net in arb_acyclic_net(1, 1, false)) {
        check_against_oracles(&net)?;
    }

    #[test]
    fn weighted_nets_with_read_arcs(net in arb_acyclic_net(2, 2, true)) {
        check_against_oracles(&net)?;
    }

    /// Safe nets on 1-bit counters, where pure producers are writes (coarser than the adds
    /// of wide counters): the brute force under that relation agrees, and so do the counts
    /// under the finer relation of 8-bit counters, since a safe net never lets two producers
    /// of one place fire after the same marking.
    #[test]
    fn safe_nets_on_one_bit_counters(net in arb_acyclic_net(1, 1, true)) {
        check_with_bits(&net, 1)?;
        let narrow = udpor_run_bits(&net, Pick::First, 1).unwrap();
        let wide = udpor_run(&net, Pick::First);
        prop_assert_eq!(
            (narrow.maximal_configurations, narrow.events, narrow.deadlocks),
            (wide.maximal_configurations, wide.events, wide.deadlocks)
        );
    }
}

/// `n` independent places, each with two racing consumers: 2^n maximal configurations and
/// 2n events.
fn racing_pairs(n: usize) -> Net {
    let mut b = NetBuilder::new("pairs");
    for i in 0..n {
        let p = b.add_place(format!("p{i}"), None, 1).unwrap();
        add_racers(&mut b, i, p);
    }
    b.finish()
}

/// Two transitions `a{i}`, `b{i}` racing for the token on `p`.
fn add_racers(b: &mut NetBuilder, i: usize, p: u32) {
    for side in ["a", "b"] {
        let q = b.add_place(format!("{side}{i}_done"), None, 0).unwrap();
        let t = b.add_transition(format!("{side}{i}"), None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 1).unwrap();
        b.add_arc(q, t, ArcKind::Output, 1).unwrap();
    }
}

/// Like [`racing_pairs`], but each pair's token is first put in place by a start
/// transition: 2^n maximal configurations and 3n events. The events of a pair are built after
/// its start, inside each branch of the pairs explored before it, which makes them garbage
/// between branches (what the cache is for).
fn racing_pairs_behind_starts(n: usize) -> Net {
    let mut b = NetBuilder::new("started-pairs");
    for i in 0..n {
        let ready = b.add_place(format!("ready{i}"), None, 1).unwrap();
        let p = b.add_place(format!("p{i}"), None, 0).unwrap();
        let start = b.add_transition(format!("start{i}"), None).unwrap();
        b.add_arc(ready, start, ArcKind::Input, 1).unwrap();
        b.add_arc(p, start, ArcKind::Output, 1).unwrap();
        add_racers(&mut b, i, p);
    }
    b.finish()
}

/// A chain of `n` transitions moving one token: one configuration, n events.
fn chain(n: usize) -> Net {
    let mut b = NetBuilder::new("chain");
    let mut prev = b.add_place("s0", None, 1).unwrap();
    for i in 0..n {
        let next = b.add_place(format!("s{}", i + 1), None, 0).unwrap();
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        b.add_arc(prev, t, ArcKind::Input, 1).unwrap();
        b.add_arc(next, t, ArcKind::Output, 1).unwrap();
        prev = next;
    }
    b.finish()
}

/// The chain's places are one component: its transitions share one token slot (instead of a
/// slot per place), and explore as on the places' slots.
#[test]
fn a_chain_is_one_token_slot() {
    let net = chain(50);
    let sys = NetSystem::new(&net);
    let slots = SlotMap::new(&sys);
    assert_eq!(slots.count(), 1);
    assert!(slots.is_token(0));
    // Without: one slot per place its two transitions share.
    assert_eq!(SlotMap::with_cover(&sys, SlotCover::Resources).count(), 49);
    for cover in [SlotCover::TokenSets, SlotCover::Resources] {
        let u = explore_with(
            &sys,
            UdporOptions {
                slots: cover,
                listed_dependents: 0,
                ..UdporOptions::default()
            },
        )
        .unwrap();
        assert_eq!((u.maximal_configurations, u.events), (1, 50), "{cover:?}");
        assert_eq!(u.token_slots, u64::from(cover == SlotCover::TokenSets));
    }
}

/// A machine `a0 → a1 → a2 → a3` whose every state is read by a transition of a machine of
/// its own: no slot holds all of `a`'s movers (each place's readers make cliques with the
/// movers touching it), and no place of `a` is pure, so plain markings give `a` no token slot.
/// Packed, `a`'s places share one field, which needs one slot deciding it: `a` gets a token
/// slot, the states of histories are assembled on it, and the exploration matches the brute
/// force's and the plain one's.
#[test]
fn a_packed_component_read_everywhere_gets_a_token_slot() {
    let mut b = NetBuilder::new("read everywhere");
    let a: Vec<u32> = (0..4)
        .map(|i| {
            b.add_place(format!("a{i}"), None, u32::from(i == 0))
                .unwrap()
        })
        .collect();
    for i in 0..3 {
        let t = b.add_transition(format!("m{i}"), None).unwrap();
        b.add_arc(a[i], t, ArcKind::Input, 1).unwrap();
        b.add_arc(a[i + 1], t, ArcKind::Output, 1).unwrap();
    }
    for (i, &p) in a.iter().enumerate() {
        let from = b.add_place(format!("r{i}_0"), None, 1).unwrap();
        let to = b.add_place(format!("r{i}_1"), None, 0).unwrap();
        let t = b.add_transition(format!("read{i}"), None).unwrap();
        b.add_arc(p, t, ArcKind::Read, 1).unwrap();
        b.add_arc(from, t, ArcKind::Input, 1).unwrap();
        b.add_arc(to, t, ArcKind::Output, 1).unwrap();
    }
    let net = b.finish();
    let plain = NetSystem::with_bits(&net, 1);
    let packed = NetSystem::packed(&net);
    assert!(packed.is_packed());
    let token_slots = |sys: &NetSystem| {
        let slots = SlotMap::new(sys);
        (0..slots.count() as u32)
            .filter(|&s| slots.is_token(s))
            .count()
    };
    // (The readers' machines are packed too, but their one mover each lies in a slot of `a`,
    // which covers their token slots.)
    assert_eq!(token_slots(&plain) + 1, token_slots(&packed));
    let b = brute::explore(
        &plain,
        &BruteOptions { max_len: 64 },
        &case_limits(),
        &mut |_| {},
    )
    .unwrap();
    for sys in [&plain, &packed] {
        for cache in [Cache::Bounded, Cache::Off] {
            let u = explore_with(
                sys,
                UdporOptions {
                    cache,
                    ..UdporOptions::default()
                },
            )
            .unwrap();
            assert!(u.assembled_histories);
            assert_eq!(
                (u.maximal_configurations, u.events, u.deadlocks, u.blocked),
                (b.traces, b.events, b.deadlocks, 0),
                "packed: {}, {cache:?}",
                sys.is_packed()
            );
        }
    }
}

/// `n` transitions competing for one token: n configurations, n events.
fn conflict(n: usize) -> Net {
    let mut b = NetBuilder::new("conflict");
    let p = b.add_place("token", None, 1).unwrap();
    for i in 0..n {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 1).unwrap();
    }
    b.finish()
}

/// `n` transitions competing for one token, each enabled only once its own enabler fired:
/// n maximal configurations (every enabler fires, then one competitor), 2n events. The
/// competitors appear one by one as siblings under ⊥ on the token's slot, so an event's list
/// of siblings grows while its immediate conflicts are memoised.
fn conflict_enabled_later(n: usize) -> Net {
    let mut b = NetBuilder::new("conflict-enabled-later");
    let p = b.add_place("token", None, 1).unwrap();
    for i in 0..n {
        let ready = b.add_place(format!("ready{i}"), None, 1).unwrap();
        let go = b.add_place(format!("go{i}"), None, 0).unwrap();
        let enable = b.add_transition(format!("enable{i}"), None).unwrap();
        b.add_arc(ready, enable, ArcKind::Input, 1).unwrap();
        b.add_arc(go, enable, ArcKind::Output, 1).unwrap();
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 1).unwrap();
        b.add_arc(go, t, ArcKind::Input, 1).unwrap();
    }
    b.finish()
}

/// `n` transitions competing for one token, each followed by a race of its own: 2n maximal
/// configurations, 3n events.
fn conflict_then_races(n: usize) -> Net {
    let mut b = NetBuilder::new("conflict-then-races");
    let p = b.add_place("token", None, 1).unwrap();
    for i in 0..n {
        let q = b.add_place(format!("q{i}"), None, 0).unwrap();
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 1).unwrap();
        b.add_arc(q, t, ArcKind::Output, 1).unwrap();
        add_racers(&mut b, i, q);
    }
    b.finish()
}

/// Many siblings under one event (the store keeps them in an array past a dozen): the counts
/// must not change as the lists cross that size, whatever the order, with or without the
/// cache (which removes events from those lists and puts them back).
#[test]
fn wide_sibling_lists() {
    // 70 competitors: more than a transition keeps listed as dependents.
    for n in [2, 11, 12, 13, 40, 70] {
        for pick in [Pick::First, Pick::Last] {
            for cache in [Cache::Bounded, Cache::Off] {
                let opts = UdporOptions {
                    cache,
                    pick,
                    ..UdporOptions::default()
                };
                let run = |net: &Net| {
                    let sys = NetSystem::with_bits(net, 8);
                    udpor::explore(&sys, &opts, &Limits::default(), &mut |_| {}).unwrap()
                };
                let u = run(&conflict_enabled_later(n));
                assert_eq!(
                    (u.maximal_configurations, u.events, u.blocked),
                    (n as u64, 2 * n as u64, 0),
                    "conflict enabled later {n}, {pick:?}, {cache:?}"
                );
                let u = run(&conflict_then_races(n));
                assert_eq!(
                    (u.maximal_configurations, u.events, u.blocked),
                    (2 * n as u64, 3 * n as u64, 0),
                    "conflict then races {n}, {pick:?}, {cache:?}"
                );
            }
        }
    }
}

/// `k` transitions competing for one token, each also taking a token from each of `m` side
/// places; each side place is filled by one of two racing producers, and may then be passed
/// once through a relay before it is taken. An event's siblings on the token's slot then share
/// the side slots with it, some with the same parents there (in immediate conflict with it)
/// and some with others: the other producer, or the relay below the same producer (in
/// conflict with it only through those). `4^m · k` maximal configurations, `4m + 4^m · k`
/// events. With `side_first`, the side places are declared first, which changes the order of
/// the slots.
fn competitors_behind_producers(k: usize, m: usize, side_first: bool) -> Net {
    let mut b = NetBuilder::new("competitors-behind-producers");
    let add_token = |b: &mut NetBuilder| b.add_place("token", None, 1).unwrap();
    let token = if side_first {
        None
    } else {
        Some(add_token(&mut b))
    };
    let mut sides = Vec::new();
    for j in 0..m {
        let ready = b.add_place(format!("ready{j}"), None, 1).unwrap();
        let side = b.add_place(format!("side{j}"), None, 0).unwrap();
        for which in ["a", "b"] {
            let producer = b
                .add_transition(format!("produce{j}{which}"), None)
                .unwrap();
            b.add_arc(ready, producer, ArcKind::Input, 1).unwrap();
            b.add_arc(side, producer, ArcKind::Output, 1).unwrap();
        }
        let once = b.add_place(format!("once{j}"), None, 1).unwrap();
        let relay = b.add_transition(format!("relay{j}"), None).unwrap();
        b.add_arc(once, relay, ArcKind::Input, 1).unwrap();
        b.add_arc(side, relay, ArcKind::Input, 1).unwrap();
        b.add_arc(side, relay, ArcKind::Output, 1).unwrap();
        sides.push(side);
    }
    let token = token.unwrap_or_else(|| add_token(&mut b));
    for i in 0..k {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        b.add_arc(token, t, ArcKind::Input, 1).unwrap();
        for &side in &sides {
            b.add_arc(side, t, ArcKind::Input, 1).unwrap();
        }
    }
    b.finish()
}

/// Wide lists of siblings whose members differ on other slots they share: the scan for an
/// event's immediate conflicts compares those slots in columns kept beside the siblings'
/// groups by label (debug builds also check every verdict against the direct test), with the
/// cache dropping and rebuilding events, so removing them from the groups and columns.
#[test]
fn wide_siblings_that_differ_on_shared_slots() {
    for (k, m) in [(12, 2), (13, 2), (30, 2), (12, 3)] {
        for side_first in [false, true] {
            let net = competitors_behind_producers(k, m, side_first);
            for pick in [Pick::First, Pick::Last, Pick::Random(3)] {
                for cache in [Cache::Bounded, Cache::Off] {
                    let opts = UdporOptions {
                        cache,
                        pick,
                        ..UdporOptions::default()
                    };
                    let sys = NetSystem::with_bits(&net, 8);
                    let u = udpor::explore(&sys, &opts, &Limits::default(), &mut |_| {}).unwrap();
                    let mirrors = 4u64.pow(m as u32);
                    assert_eq!(
                        (u.maximal_configurations, u.events, u.blocked),
                        (mirrors * k as u64, 4 * m as u64 + mirrors * k as u64, 0),
                        "k = {k}, m = {m}, side first {side_first}, {pick:?}, {cache:?}"
                    );
                }
            }
        }
    }
    // The counts above against the brute force, on the smallest.
    let net = competitors_behind_producers(12, 2, true);
    let b = brute::explore(
        &NetSystem::with_bits(&net, 8),
        &BruteOptions { max_len: 64 },
        &Limits::default(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!((b.traces, b.events), (16 * 12, 8 + 16 * 12));
}

/// `n` transitions on one slot, each with `n` dependents, far more than a transition keeps
/// listed: they are found through the slot's guard classes. The event that takes the token
/// disables the whole class at once, and the whole run of `en(∅)` keyed on that slot, so the
/// work per maximal configuration must not grow with `n` (it grew linearly, n² in all, when
/// every dependent and every enabled event was looked at one by one).
#[test]
fn conflict_family_work_does_not_grow_with_n() {
    for n in [300, 3000] {
        for pick in [Pick::First, Pick::Last] {
            let u = udpor_run(&conflict(n), pick);
            assert_eq!(
                (u.maximal_configurations, u.events, u.blocked),
                (n as u64, n as u64, 0),
                "conflict {n}"
            );
            let per_configuration = (u.extension_searches + u.enabled_checks) as f64 / n as f64;
            assert!(
                per_configuration <= 2.0,
                "conflict {n}, {pick:?}: {} searches and {} checks of enabled events",
                u.extension_searches,
                u.enabled_checks
            );
            // The siblings read while listing immediate conflicts stay linear in n: a list is
            // refreshed by reading only the siblings added since (a scan that went through
            // the labels of all of the token's n children at every refresh read n² of them).
            assert!(
                u.sibling_reads <= 4 * n as u64,
                "conflict {n}, {pick:?}: {} siblings read",
                u.sibling_reads
            );
        }
        // Each competitor then races with a transition of its own: the searches and checks
        // per configuration stay bounded too.
        let u = udpor_run(&conflict_then_races(n), Pick::First);
        assert_eq!(
            (u.maximal_configurations, u.events),
            (2 * n as u64, 3 * n as u64)
        );
        let per_configuration = (u.extension_searches + u.enabled_checks) as f64 / (2 * n) as f64;
        assert!(
            per_configuration <= 8.0,
            "conflict then races {n}: {} searches and {} checks",
            u.extension_searches,
            u.enabled_checks
        );
    }
}

/// A chain of 10 000 transitions has 10 001 places, 1251 words of state on 8-bit counters:
/// each event's state shares every block but the one or two its transition changes with its
/// predecessor's, so an event costs far less than the 10 KB of a whole state.
#[test]
fn wide_states_are_shared_between_events() {
    let n = 10_000;
    let u = udpor_run(&chain(n), Pick::First);
    assert_eq!((u.maximal_configurations, u.events), (1, n as u64));
    let per_event = u.store_bytes / u.events;
    assert!(per_event < 2048, "{per_event} bytes per event in the store");
}

/// `n` threads each taking and releasing one lock once: n! lock orders, all distinct traces.
fn lock_users(n: usize) -> Net {
    let mut b = NetBuilder::new("lock");
    let lock = b.add_place("lock", None, 1).unwrap();
    for i in 0..n {
        let ready = b.add_place(format!("ready{i}"), None, 1).unwrap();
        let held = b.add_place(format!("held{i}"), None, 0).unwrap();
        let done = b.add_place(format!("done{i}"), None, 0).unwrap();
        let acquire = b.add_transition(format!("acquire{i}"), None).unwrap();
        let release = b.add_transition(format!("release{i}"), None).unwrap();
        b.add_arc(ready, acquire, ArcKind::Input, 1).unwrap();
        b.add_arc(lock, acquire, ArcKind::Input, 1).unwrap();
        b.add_arc(held, acquire, ArcKind::Output, 1).unwrap();
        b.add_arc(held, release, ArcKind::Input, 1).unwrap();
        b.add_arc(lock, release, ArcKind::Output, 1).unwrap();
        b.add_arc(done, release, ArcKind::Output, 1).unwrap();
    }
    b.finish()
}

#[test]
fn families_with_analytic_counts() {
    for n in 1..=10 {
        let u = udpor_run(&racing_pairs(n), Pick::First);
        assert_eq!(u.maximal_configurations, 1 << n, "pairs {n}");
        assert_eq!(u.events, 2 * n as u64, "pairs {n}");
        assert_eq!(u.blocked, 0);
        // Without the cache, the events of the pairs explored later are dropped between the
        // branches of the pairs explored first, and rebuilt.
        let net = racing_pairs_behind_starts(n);
        let sys = NetSystem::with_bits(&net, 8);
        let off = UdporOptions {
            cache: Cache::Off,
            // Last first: each pair is raced before the next one starts.
            pick: Pick::Last,
            ..UdporOptions::default()
        };
        let u = udpor::explore(&sys, &off, &Limits::default(), &mut |_| {}).unwrap();
        assert_eq!(
            (u.maximal_configurations, u.events, u.blocked),
            (1 << n, 3 * n as u64, 0),
            "started pairs {n}, cache off"
        );
        if n >= 2 {
            assert!(
                u.cache_evictions > 0 && u.cache_misses > 0,
                "started pairs {n}: {u:?}"
            );
            assert_eq!(u.event_creations, u.events + u.cache_misses);
        }
        let u = udpor_run(&chain(n), Pick::First);
        assert_eq!(
            (u.maximal_configurations, u.events),
            (1, n as u64),
            "chain {n}"
        );
        let u = udpor_run(&conflict(n), Pick::Last);
        assert_eq!(
            (u.maximal_configurations, u.events),
            (n as u64, n as u64),
            "conflict {n}"
        );
    }
    // Lock users: every lock order is a distinct trace (n!); the event count is checked
    // against the brute force.
    for n in 1..=5 {
        let net = lock_users(n);
        let u = udpor_run(&net, Pick::First);
        let factorial: u64 = (1..=n as u64).product();
        assert_eq!(u.maximal_configurations, factorial, "lock users {n}");
        let b = brute::explore(
            &NetSystem::with_bits(&net, 8),
            &BruteOptions { max_len: 64 },
            &Limits::default(),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(u.events, b.events, "lock users {n}");
        assert_eq!(u.blocked, 0);
    }
}
