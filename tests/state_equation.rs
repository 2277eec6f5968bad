//! Bounds from the state equation (`structural::state_equation`) against the truth: on random
//! small nets (weights, read arcs) the bound of a random linear sum (negative coefficients
//! too) is at least its maximum over every marking the explicit explorer reaches; on the
//! contest's P/T instances, at least every known answer of UpperBounds in `oracle.tsv`.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use unfold::explore::limits::Limits;
use unfold::explore::reach::explore;
use unfold::model::net::{ArcKind, Net, NetBuilder, PlaceIdx};
use unfold::model::net_system::NetSystem;
use unfold::property::{Ask, Names};
use unfold::structural::state_equation::{StateEquation, unreachable_at_least};

/// A transition: input, output and read arcs as (place, weight), places taken modulo the
/// number of places.
type Arcs = (Vec<(usize, u32)>, Vec<(usize, u32)>, Vec<(usize, u32)>);

fn build(initial: &[u32], transitions: &[Arcs]) -> Net {
    let mut b = NetBuilder::new("random");
    let n = initial.len();
    for (i, &k) in initial.iter().enumerate() {
        b.add_place(format!("p{i}"), None, k).unwrap();
    }
    for (i, (pre, post, reads)) in transitions.iter().enumerate() {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        let (mut ins, mut outs) = (Vec::new(), Vec::new());
        for &(p, w) in pre {
            if !ins.contains(&(p % n)) {
                ins.push(p % n);
                b.add_arc((p % n) as PlaceIdx, t, ArcKind::Input, w)
                    .unwrap();
            }
        }
        for &(p, w) in post {
            if !outs.contains(&(p % n)) {
                outs.push(p % n);
                b.add_arc((p % n) as PlaceIdx, t, ArcKind::Output, w)
                    .unwrap();
            }
        }
        for &(p, w) in reads {
            if !ins.contains(&(p % n)) && !outs.contains(&(p % n)) {
                ins.push(p % n);
                b.add_arc((p % n) as PlaceIdx, t, ArcKind::Read, w).unwrap();
            }
        }
    }
    b.finish()
}

/// Random nets, mostly bounded: each transition gives back at most as many tokens as it
/// takes, but one in four may create one (such nets may be unbounded: the exploration is
/// then cut by a memory budget, and every marking it found is still reachable).
fn arb_net() -> impl Strategy<Value = Net> {
    let transition = (
        prop::collection::vec((0usize..6, prop::sample::select(vec![1u32, 1, 2, 3])), 1..3),
        prop::collection::vec((0usize..6, prop::sample::select(vec![1u32, 1, 2])), 0..3),
        prop::collection::vec((0usize..6, 1u32..3), 0..2),
        0u8..4,
    )
        .prop_map(|(pre, mut post, reads, extra)| {
            let taken: u32 = pre.iter().map(|a| a.1).sum();
            let mut left = taken;
            for o in post.iter_mut() {
                o.1 = o.1.min(left);
                left -= o.1;
            }
            post.retain(|o| o.1 > 0);
            if extra == 0 {
                post.push((pre[0].0 + 1, 1));
            }
            (pre, post, reads)
        });
    (
        prop::collection::vec(prop::sample::select(vec![0u32, 1, 2, 3]), 2..7),
        prop::collection::vec(transition, 1..8),
    )
        .prop_map(|(initial, transitions)| build(&initial, &transitions))
}

/// Random nets with heavy weights and many tokens, whose state equations have vertices of
/// large denominators (so that rounding fails and the exact vertex is needed).
fn arb_weighted_net() -> impl Strategy<Value = Net> {
    let weight = prop::sample::select(vec![1u32, 2, 3, 5, 7, 11, 13, 17]);
    let transition = (
        prop::collection::vec((0usize..5, weight.clone()), 1..3),
        prop::collection::vec((0usize..5, weight), 0..3),
    )
        .prop_map(|(pre, post)| (pre, post, Vec::new()));
    (
        prop::collection::vec(0u32..40, 2..6),
        prop::collection::vec(transition, 1..7),
    )
        .prop_map(|(initial, transitions)| build(&initial, &transitions))
}

/// Random sums `Σ k·M(p)` with coefficients of both signs.
fn arb_sum() -> impl Strategy<Value = Vec<(PlaceIdx, i64)>> {
    prop::collection::vec((0u32..6, -3i64..4), 1..4)
}

/// The largest value of every sum over the markings the explicit explorer reaches, and
/// whether it reached them all.
fn brute_max(net: &Net, sums: &[Vec<(PlaceIdx, i64)>]) -> (Vec<i64>, bool) {
    let limits = Limits::new(Some(Duration::from_secs(5)), Some(8 << 20));
    let mut best = vec![i64::MIN; sums.len()];
    let result = NetSystem::new(net).retry_widened(|sys| {
        best.fill(i64::MIN);
        explore(sys, &limits, &mut |_| {}, &mut |_, state| {
            for (b, sum) in best.iter_mut().zip(sums) {
                let v: i64 = sum
                    .iter()
                    .map(|&(p, k)| k * sys.tokens(state, p) as i64)
                    .sum();
                *b = (*b).max(v);
            }
        })
    });
    match result {
        Ok((out, _)) => (best, out.stopped.is_none()),
        // Counters past 64 bits: what was seen so far was reachable all the same.
        Err(_) => (best, false),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(800)))]

    #[test]
    fn the_bound_is_at_least_the_reachable_maximum(
        net in arb_net(),
        sums in prop::collection::vec(arb_sum(), 1..5),
    ) {
        let n = net.places.len() as u32;
        let sums: Vec<Vec<(PlaceIdx, i64)>> = sums
            .into_iter()
            .map(|s| s.into_iter().map(|(p, k)| (p % n, k)).collect())
            .collect();
        let (truth, complete) = brute_max(&net, &sums);
        let se = StateEquation::new(&net);
        for (sum, &max) in sums.iter().zip(&truth) {
            let bound = se.upper_bound(sum, None);
            if let Some(b) = bound {
                prop_assert!(b >= max, "bound {} of {:?} below the reached {}", b, sum, max);
                prop_assert!(!unreachable_at_least(&net, sum, max, None));
            }
            // With no positive coefficient the sum is at most 0, and y = 0 proves it.
            if complete && sum.iter().all(|&(_, k)| k <= 0) {
                prop_assert!(bound.is_some_and(|b| b <= 0), "{:?}: {:?}", sum, bound);
            }
        }
    }

    #[test]
    fn weighted_bounds_are_at_least_the_reachable_maximum(
        net in arb_weighted_net(),
        sum in arb_sum(),
    ) {
        let n = net.places.len() as u32;
        let sum: Vec<(PlaceIdx, i64)> = sum.into_iter().map(|(p, k)| (p % n, k)).collect();
        let (truth, _) = brute_max(&net, std::slice::from_ref(&sum));
        if let Some(b) = StateEquation::new(&net).upper_bound(&sum, None) {
            prop_assert!(b >= truth[0], "bound {} of {:?} below the reached {}", b, sum, truth[0]);
        }
    }

    /// On nets that conserve tokens (every transition gives back what it takes, weights 1)
    /// the state equation bounds every sum by its largest coefficient times the tokens, and
    /// the certificate `y = max k` must be found and pass the exact check.
    #[test]
    fn conservative_nets_are_bounded(
        initial in prop::collection::vec(0u32..4, 2..7),
        moves in prop::collection::vec((0usize..6, 0usize..6, prop::option::of(0usize..6)), 1..8),
        sum in arb_sum(),
    ) {
        let transitions: Vec<Arcs> = moves
            .iter()
            .map(|&(from, to, read)| (vec![(from, 1)], vec![(to, 1)], read.map(|r| (r, 1)).into_iter().collect()))
            .collect();
        let net = build(&initial, &transitions);
        let n = net.places.len() as u32;
        let sum: Vec<(PlaceIdx, i64)> = sum.into_iter().map(|(p, k)| (p % n, k)).collect();
        let tokens: i64 = initial.iter().map(|&k| i64::from(k)).sum();
        let mut dense = vec![0i64; n as usize];
        for &(p, k) in &sum {
            dense[p as usize] += k;
        }
        let top = dense.iter().copied().max().unwrap().max(0);
        let bound = StateEquation::new(&net).upper_bound(&sum, None);
        prop_assert!(bound.is_some_and(|b| b <= top * tokens), "{:?}: {:?}", sum, bound);
        let (truth, _) = brute_max(&net, std::slice::from_ref(&sum));
        prop_assert!(bound.unwrap() >= truth[0]);
    }
}

/// The known UpperBounds answers of `oracle.tsv`: formula id → bound.
fn known_bounds(mcc: &std::path::Path) -> BTreeMap<String, i64> {
    let text = std::fs::read_to_string(mcc.join("oracle.tsv")).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            (cols.len() == 4 && cols[1] == "UpperBounds")
                .then(|| Some((cols[2].to_string(), cols[3].parse().ok()?)))
                .flatten()
        })
        .collect()
}

/// Every UpperBounds formula of every P/T instance: the state equation's bound is never
/// below the contest's answer. Prints, per instance, the program's size, the time and how
/// many bounds were found and equal the answer (`--nocapture`).
#[test]
fn mcc_upper_bounds_are_never_below_the_contest_answers() {
    let mcc = common::shared_mcc();
    let known = known_bounds(&mcc);
    assert!(
        known.len() > 100,
        "oracle.tsv has too few UpperBounds answers"
    );
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&mcc)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|d| std::fs::read_to_string(d.join("iscolored")).is_ok_and(|s| s.trim() == "FALSE"))
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 50, "expected the 53 P/T instances");
    let (mut formulas, mut bounded, mut known_here, mut compared, mut equal) = (0, 0, 0, 0, 0);
    let mut slowest = Duration::ZERO;
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let (net, _) = unfold::formats::read_net(&dir.join("model.pnml")).unwrap();
        let queries = unfold::property::load(&dir.join("UpperBounds.xml")).unwrap();
        let names = Names::of(&net);
        let started = Instant::now();
        let se = StateEquation::new(&net);
        let (mut here_bounded, mut here_equal, mut here_known) = (0, 0, 0);
        let mut here_slowest = Duration::ZERO;
        for q in &queries {
            let resolved = names.resolve(q).unwrap();
            let Ask::Bound(places) = &resolved.ask else {
                panic!("{name}: {} is not a bound", q.id);
            };
            let sum: Vec<(PlaceIdx, i64)> = places.iter().map(|&p| (p, 1)).collect();
            let one = Instant::now();
            let bound = se.upper_bound(&sum, Some(Duration::from_secs(20)));
            here_slowest = here_slowest.max(one.elapsed());
            formulas += 1;
            here_bounded += usize::from(bound.is_some());
            if let Some(&answer) = known.get(&q.id) {
                here_known += 1;
                if let Some(b) = bound {
                    assert!(b >= answer, "{}: bound {b} below the answer {answer}", q.id);
                    compared += 1;
                    here_equal += usize::from(b == answer);
                }
            }
        }
        bounded += here_bounded;
        known_here += here_known;
        equal += here_equal;
        slowest = slowest.max(here_slowest);
        let (vars, rows) = se.program_size();
        println!(
            "{name:40} P={:6} T={:6} lp={vars}x{rows} {:8.3}s (slowest {:.3}s) bounded {here_bounded}/{} equal {here_equal}/{here_known}",
            net.places.len(),
            net.transitions.len(),
            started.elapsed().as_secs_f64(),
            here_slowest.as_secs_f64(),
            queries.len(),
        );
    }
    println!(
        "{formulas} formulas, {known_here} with a known answer: {bounded} bounded, {compared} of them known, {equal} equal to the answer; slowest bound {:.3}s",
        slowest.as_secs_f64()
    );
}
