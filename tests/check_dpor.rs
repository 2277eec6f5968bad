//! The DPOR engine of `unfold check` (`check::dpor`) against a naive oracle that shares no code
//! with it: markings as vectors of counts, arcs read straight from the `Net`, every reachable
//! marking enumerated breadth-first. Random bounded nets (weights, read arcs, not safe) and
//! random nets of communicating state machines (safe, concurrent), random predicates (every
//! kind of atom and connective) and sums: every target's answer is the oracle's, every witness
//! replays to a marking satisfying its target, every bound is the maximum over the markings.

use crate::common;

use common::{arb_linear, arb_predicate};

use std::time::Duration;

use common::{NetSpec, Plain, machines_net, markings, net_of_spec, replay};
use proptest::prelude::*;
use unfold::check::dpor;
use unfold::check::explicit::BoundQuery;
use unfold::check::{Bound, Search};
use unfold::explore::limits::{Limits, StopReason};
use unfold::model::net::{ArcKind, Net, NetBuilder, PlaceIdx};
use unfold::property::{Cmp, Linear, Predicate};

/// Random nets whose transitions mostly move as many tokens as they take (small finite state
/// spaces; the rare ones that grow are left out by the enumeration's cap), with weights and
/// read arcs: not safe.
fn arb_counting_net() -> impl Strategy<Value = Net> {
    let transition = (
        prop::collection::vec((0usize..6, prop::sample::select(vec![1u32, 1, 1, 2])), 1..3),
        prop::collection::vec(0usize..6, 1..3),
        prop::collection::vec((0usize..6, 1u32..2), 0..2),
        0u8..4,
    )
        .prop_map(|(pre, outs, reads, extra)| {
            let total: u32 = pre.iter().map(|a| a.1).sum();
            let mut post: Vec<(usize, u32)> = outs.iter().map(|&p| (p, 1)).collect();
            post[0].1 = total.saturating_sub(outs.len() as u32 - 1).max(1);
            match extra {
                0 => post.push((pre[0].0 + 1, 1)),
                1 => {
                    post.pop();
                }
                _ => {}
            }
            // A place both read and taken or given is only taken or given.
            let touched: Vec<usize> = pre.iter().chain(&post).map(|a| a.0 % 6).collect();
            let reads = reads
                .into_iter()
                .filter(|a| !touched.contains(&(a.0 % 6)))
                .collect();
            (pre, post, reads)
        });
    (
        prop::collection::vec(prop::sample::select(vec![0u32, 1, 1, 2]), 6..=6),
        prop::collection::vec(transition, 3..9),
    )
        .prop_map(|(initial, transitions)| {
            net_of_spec(&NetSpec {
                initial,
                transitions,
            })
        })
}

/// Nets of communicating state machines: one-token components, a shared lock, read arcs.
fn arb_machines_net() -> impl Strategy<Value = Net> {
    (1usize..=4, 2usize..=4)
        .prop_flat_map(|(k, len)| {
            let step = (
                prop::collection::vec((0..k, 0..len, 0..len), 1..=2),
                prop::option::of((0..k, 0..len)),
                0u8..3,
            );
            (Just(k), Just(len), prop::collection::vec(step, 1..=10))
        })
        .prop_map(|(k, len, steps)| machines_net(k, len, steps))
}

type Case = (Net, Vec<Predicate>, Vec<Linear>);

fn arb_case(net: impl Strategy<Value = Net>) -> impl Strategy<Value = Case> {
    net.prop_flat_map(|net| {
        let (np, nt) = (net.places.len() as u32, net.transitions.len() as u32);
        (
            Just(net),
            prop::collection::vec(arb_predicate(np, nt, 3), 1..=5),
            prop::collection::vec(arb_linear(np, 3), 0..=2),
        )
    })
}

/// The engine's answers on `net` against the oracle's.
fn agree(net: &Net, targets: &[Predicate], sums: &[Linear]) -> Result<(), String> {
    let Some(all) = markings(net, 3000) else {
        return Ok(());
    };
    let queries: Vec<BoundQuery> = sums
        .iter()
        .map(|s| BoundQuery {
            sum: s.clone(),
            known_upper: None,
        })
        .collect();
    let run = dpor::check(net, targets, &queries, &Limits::default(), &mut |_| {})
        .map_err(|o| format!("overflow {o:?}"))?;
    for (p, search) in targets.iter().zip(&run.searches) {
        let reachable = all.iter().any(|m| p.holds(&Plain { net, m }));
        match search {
            Search::Found(w) => {
                let m =
                    replay(net, w).ok_or(format!("the witness {w:?} of {p:?} does not fire"))?;
                if !p.holds(&Plain { net, m: &m }) {
                    return Err(format!("the witness {w:?} of {p:?} ends elsewhere"));
                }
            }
            Search::Absent if reachable => return Err(format!("{p:?} said absent")),
            Search::Absent => {}
            Search::Unknown(r) => return Err(format!("{p:?} undecided without a limit ({r:?})")),
        }
    }
    for (s, b) in sums.iter().zip(&run.bounds) {
        let max = all
            .iter()
            .map(|m| s.value(&Plain { net, m }))
            .max()
            .unwrap();
        if b.exact() != Some(max) {
            return Err(format!(
                "bound of {s:?}: {b:?}, the markings' maximum is {max}"
            ));
        }
        let w = b.witness.as_ref().ok_or("a bound without witness")?;
        let m = replay(net, w).ok_or(format!("the bound's witness {w:?} does not fire"))?;
        if s.value(&Plain { net, m: &m }) != max {
            return Err(format!("the bound's witness {w:?} of {s:?} ends elsewhere"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(300)))]

    #[test]
    fn counting_nets_agree_with_the_naive_enumeration((net, targets, sums) in arb_case(arb_counting_net())) {
        if let Err(e) = agree(&net, &targets, &sums) {
            return Err(TestCaseError::fail(format!("{e}\nnet: {net:?}")));
        }
    }

    #[test]
    fn machine_nets_agree_with_the_naive_enumeration((net, targets, sums) in arb_case(arb_machines_net())) {
        if let Err(e) = agree(&net, &targets, &sums) {
            return Err(TestCaseError::fail(format!("{e}\nnet: {net:?}")));
        }
    }
}

/// Every reachable marking of `net` (up to 40 of them, the enumeration's first) asked as a
/// target of its own, place by place: the DPOR must reach each one, however concurrent the
/// net (the states of the visited configurations alone miss some).
fn covers(net: &Net) -> Result<(), String> {
    let Some(all) = markings(net, 3000) else {
        return Ok(());
    };
    let exactly = |m: &[u64]| {
        Predicate::And(
            m.iter()
                .enumerate()
                .map(|(p, &k)| {
                    let sum = Linear {
                        constant: 0,
                        terms: vec![(p as PlaceIdx, 1)],
                    };
                    let k = Linear {
                        constant: k,
                        terms: vec![],
                    };
                    Predicate::Compare(sum, Cmp::Eq, k)
                })
                .collect(),
        )
    };
    let targets: Vec<Predicate> = all.iter().take(40).map(|m| exactly(m)).collect();
    let run = dpor::check(net, &targets, &[], &Limits::default(), &mut |_| {})
        .map_err(|o| format!("overflow {o:?}"))?;
    for (m, search) in all.iter().zip(&run.searches) {
        let Search::Found(w) = search else {
            return Err(format!(
                "the reachable marking {m:?} was not reached: {search:?}"
            ));
        };
        if replay(net, w).as_deref() != Some(&m[..]) {
            return Err(format!("the witness {w:?} of {m:?} ends elsewhere"));
        }
    }
    Ok(())
}

proptest! {
    // (Each case watches every place: the slowest of this file.)
    #![proptest_config(ProptestConfig::with_cases(common::cases(100)))]

    #[test]
    fn every_reachable_marking_is_reached(net in prop_oneof![arb_counting_net(), arb_machines_net()]) {
        if let Err(e) = covers(&net) {
            return Err(TestCaseError::fail(format!("{e}\nnet: {net:?}")));
        }
    }
}

/// Small PEP nets of ../shared (plain and with read arcs) whose markings the naive enumeration
/// lists: random targets and bounds agree with it (`agree`, which fails on a net it cannot
/// enumerate too).
#[test]
#[cfg_attr(debug_assertions, ignore = "release only: cargo test --release")]
fn small_pep_nets_agree_with_the_naive_enumeration() {
    use proptest::strategy::ValueTree;
    for file in [
        "pep/sem.ll_net",
        "pep/do_od.ll_net",
        "pep/gas_station.ll_net",
        "pep/peterson.ll_net",
        "pep/elevator_1.ll_net",
        "pep/rw_1w1r.ll_net",
        "pep/key_2.ll_net",
        "pep/cont/peterson.ll_net",
    ] {
        let net = unfold::formats::read_net(&common::shared_nets().join(file))
            .unwrap()
            .0;
        assert!(markings(&net, 3000).is_some(), "{file}: too many markings");
        let (np, nt) = (net.places.len() as u32, net.transitions.len() as u32);
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = (
            prop::collection::vec(arb_predicate(np, nt, 3), 8),
            prop::collection::vec(arb_linear(np, 3), 2),
        );
        for _ in 0..4 {
            let (targets, sums) = strategy.new_tree(&mut runner).unwrap().current();
            if let Err(e) = agree(&net, &targets, &sums) {
                panic!("{file}: {e}");
            }
        }
    }
}

/// Three concurrent transitions `a`, `b`, `c`, each moving a token from `xᵢ` to `yᵢ`: the DPOR
/// explores one maximal configuration through `∅, {a}, {a, b}, {a, b, c}` (in some order),
/// which never reaches the marking of two of them without the third. The engine must find it
/// (and its witness), and must find no marking with all three moved and one not.
#[test]
fn finds_markings_off_the_visited_chain() {
    let mut b = NetBuilder::new("three");
    let mut moved = Vec::new();
    for i in 0..3 {
        let x = b.add_place(format!("x{i}"), None, 1).unwrap();
        let y = b.add_place(format!("y{i}"), None, 0).unwrap();
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        b.add_arc(x, t, ArcKind::Input, 1).unwrap();
        b.add_arc(y, t, ArcKind::Output, 1).unwrap();
        moved.push(y);
    }
    let net = b.finish();
    let at = |p: PlaceIdx, k: u64| {
        Predicate::Compare(
            Linear {
                constant: 0,
                terms: vec![(p, 1)],
            },
            Cmp::Eq,
            Linear {
                constant: k,
                terms: vec![],
            },
        )
    };
    let mut targets = Vec::new();
    // Every pair moved with the third not, and each one alone.
    for skip in 0..3 {
        targets.push(Predicate::And(
            (0..3).map(|i| at(moved[i], u64::from(i != skip))).collect(),
        ));
        targets.push(Predicate::And(
            (0..3).map(|i| at(moved[i], u64::from(i == skip))).collect(),
        ));
    }
    let run = dpor::check(&net, &targets, &[], &Limits::default(), &mut |_| {}).unwrap();
    for (p, search) in targets.iter().zip(&run.searches) {
        let Search::Found(w) = search else {
            panic!("{p:?} not found: {search:?}");
        };
        let m = replay(&net, w).expect("the witness fires");
        assert!(p.holds(&Plain { net: &net, m: &m }), "{p:?}: {w:?}");
    }
    // A marking no configuration reaches.
    let never = Predicate::And(vec![at(moved[0], 1), at(moved[0], 0)]);
    let run = dpor::check(&net, &[never], &[], &Limits::default(), &mut |_| {}).unwrap();
    assert_eq!(run.searches, vec![Search::Absent]);
    assert!(run.complete);
}

/// A limit stops the engine with unknown answers (never a guess), and a bound keeps what it
/// reached as a lower value.
#[test]
fn a_limit_leaves_the_rest_unknown() {
    // A counter that grows without bound: the exploration never ends.
    let mut b = NetBuilder::new("grow");
    let p = b.add_place("p", None, 0).unwrap();
    let q = b.add_place("q", None, 0).unwrap();
    let t = b.add_transition("t", None).unwrap();
    b.add_arc(p, t, ArcKind::Output, 1).unwrap();
    let net = b.finish();
    let never = Predicate::Compare(
        Linear {
            constant: 0,
            terms: vec![(q, 1)],
        },
        Cmp::Ge,
        Linear {
            constant: 1,
            terms: vec![],
        },
    );
    let sum = BoundQuery {
        sum: Linear {
            constant: 0,
            terms: vec![(p, 1)],
        },
        known_upper: None,
    };
    let limits = Limits::new(Some(Duration::from_millis(300)), None);
    let run = dpor::check(&net, &[never], &[sum], &limits, &mut |_| {}).unwrap();
    assert!(!run.complete);
    assert!(
        matches!(run.searches[0], Search::Unknown(Some(_))),
        "{:?}",
        run.searches
    );
    let Bound {
        lower,
        upper,
        stopped,
        ..
    } = &run.bounds[0];
    assert!(*lower > 0);
    assert_eq!(*upper, None);
    assert!(matches!(
        stopped,
        Some(StopReason::Timeout | StopReason::DepthLimit)
    ));
}

/// `EF` targets for the benchmark: a conjunction of two or three atoms, each a token count of
/// one or two places compared with 0 or 1, or the fireability of one transition.
fn bench_target(np: u32, nt: u32) -> impl Strategy<Value = Predicate> {
    let count = (
        prop::collection::btree_set(0..np, 1..=2),
        prop::sample::select(vec![Cmp::Ge, Cmp::Eq, Cmp::Le]),
        0u64..2,
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
    let atom = prop_oneof![3 => count, 1 => (0..nt).prop_map(|t| Predicate::Fireable(vec![t]))];
    prop::collection::vec(atom, 2..=3).prop_map(Predicate::And)
}

/// What one engine said of a set of targets, and how long the set took.
struct Column {
    answers: Vec<Option<bool>>,
    seconds: f64,
}

impl Column {
    fn of(searches: &[Search], seconds: f64) -> Column {
        let answers = searches
            .iter()
            .map(|s| match s {
                Search::Found(_) => Some(true),
                Search::Absent => Some(false),
                Search::Unknown(_) => None,
            })
            .collect();
        Column { answers, seconds }
    }

    /// `found/absent/unknown, ms per formula`.
    fn cell(&self) -> String {
        let count = |v: Option<bool>| self.answers.iter().filter(|&&a| a == v).count();
        format!(
            "{}/{}/{} | {:.1}",
            count(Some(true)),
            count(Some(false)),
            count(None),
            self.seconds * 1e3 / self.answers.len() as f64
        )
    }
}

/// Times the prefix, DPOR and explicit engines on random reachability targets over the large
/// PEP nets whose state spaces `reach` does not finish (a Markdown table), each engine given
/// the whole set of targets at once within 30 s, and the DPOR also one target at a time
/// within 3 s each (its observed net watches only that target's places). Fails on any answer
/// of two engines that differ. Run by tools/bench_check_engines.sh (release build);
/// `BENCH_NETS` and `BENCH_FORMULAS` choose the nets and the number of targets.
#[test]
#[ignore = "benchmark: tools/bench_check_engines.sh"]
fn bench_engines_on_large_pep_nets() {
    use proptest::strategy::ValueTree;
    use unfold::check::explicit;
    use unfold::check::prefix_sat;
    let nets = std::env::var("BENCH_NETS")
        .unwrap_or_else(|_| "buf100 fifo20 rrr30-1 byzagr4_2a byzagr4_0b".to_string());
    let formulas: usize = std::env::var("BENCH_FORMULAS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let set_limit = || Limits::new(Some(Duration::from_secs(30)), None);
    println!(
        "| net | places / transitions | prefix: found/absent/unknown | ms per formula | \
         dpor (set) | ms per formula | dpor (one by one) | ms per formula | explicit | \
         ms per formula |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut disagreements = Vec::new();
    for name in nets.split_whitespace() {
        let file = common::shared_nets().join(format!("pep/{name}.ll_net"));
        let net = unfold::formats::read_net(&file).unwrap().0;
        let (np, nt) = (net.places.len() as u32, net.transitions.len() as u32);
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = bench_target(np, nt);
        let targets: Vec<Predicate> = (0..formulas)
            .map(|_| strategy.new_tree(&mut runner).unwrap().current())
            .collect();
        let timed = |f: &mut dyn FnMut() -> Vec<Search>| {
            let t = std::time::Instant::now();
            let searches = f();
            Column::of(&searches, t.elapsed().as_secs_f64())
        };
        let prefix = timed(
            &mut || match prefix_sat::check_net(&net, &targets, &[], &set_limit()) {
                Ok(a) => a.targets,
                Err(_) => vec![Search::Unknown(None); targets.len()],
            },
        );
        let dpor_set = timed(&mut || {
            dpor::check(&net, &targets, &[], &set_limit(), &mut |_| {})
                .unwrap()
                .searches
        });
        let dpor_one = timed(&mut || {
            let limits = || Limits::new(Some(Duration::from_secs(3)), None);
            targets
                .iter()
                .map(|t| {
                    dpor::check(&net, std::slice::from_ref(t), &[], &limits(), &mut |_| {})
                        .unwrap()
                        .searches
                        .remove(0)
                })
                .collect()
        });
        let explicit = timed(&mut || {
            explicit::check(&net, &targets, &[], &set_limit(), &mut |_| {})
                .unwrap()
                .searches
        });
        let columns = [&prefix, &dpor_set, &dpor_one, &explicit];
        for (k, target) in targets.iter().enumerate() {
            let decided: Vec<bool> = columns.iter().filter_map(|c| c.answers[k]).collect();
            if decided.windows(2).any(|w| w[0] != w[1]) {
                disagreements.push(format!("{name}: {target:?}"));
            }
        }
        println!(
            "| {name} | {np} / {nt} | {} | {} | {} | {} |",
            prefix.cell(),
            dpor_set.cell(),
            dpor_one.cell(),
            explicit.cell()
        );
    }
    assert!(
        disagreements.is_empty(),
        "engines disagree:\n{}",
        disagreements.join("\n")
    );
}
