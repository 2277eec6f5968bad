//! The unfolding DPOR with cutoffs against explicit reachability on the shared nets
//! (all of them in release builds, a few in debug builds): the same deadlock markings, and the states of the visited configurations
//! cover every reachable marking. Both adequate orders; several event-selection orders; exact
//! and 1-partial alternatives.

use crate::common;

use std::time::Duration;

use rustc_hash::FxHashSet;
use unfold::explore::limits::Limits;
use unfold::explore::reach;
use unfold::explore::udpor::{self, ExploredEvent, Pick, UdporOptions, UdporStats};
use unfold::formats::read_net;
use unfold::model::net_system::NetSystem;
use unfold::system::System;
use unfold::unfolding::cone::ConeLayout;
use unfold::unfolding::order::Order;
use unfold::unfolding::slots::SlotCover;

#[test]
#[cfg_attr(debug_assertions, ignore = "release only: cargo test --release")]
fn cutoffs_keep_deadlocks_and_reachable_states() {
    let root = common::shared_nets();
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in common::shared_net_files() {
        if file.starts_with("pnml/col/") {
            continue;
        }
        let (net, _) = read_net(&root.join(&file)).unwrap();
        let mut sys = NetSystem::new(&net);
        let Some((reachable, deadlocks)) = reach_sets(&mut sys) else {
            println!("{file:45} skipped: more than 50 000 reachable states");
            continue;
        };
        // The third run uses 1-partial alternatives: blocked runs are allowed there.
        for (order, pick, alt_k) in [
            (Order::Erv, Pick::First, None),
            (Order::Size, Pick::Last, None),
            (Order::Erv, Pick::First, Some(1)),
        ] {
            let opts = UdporOptions {
                cutoffs: Some(order),
                pick,
                alt_k,
                record_states: true,
                ..UdporOptions::default()
            };
            let limits = Limits::new(Some(Duration::from_secs(5)), None);
            let outcome =
                udpor::explore_with_events(&sys, &opts, &limits, &mut |_| {}, Some(0)).unwrap();
            let mut u = outcome.stats;
            let markings = if outcome.events.len() <= 3000 {
                configuration_states(&sys, &outcome.events, 20_000)
            } else {
                None
            };
            let visited = u.visited_states.take().unwrap();
            let found = u.deadlock_states.take().unwrap();
            let line = format!(
                "{file:45} {order:?}/{pick:?}/alt {alt_k:?}: reachable {:>7} covered {:>7} visited {:>7} \
                 deadlocks {:>4}/{:<4} configurations {:>7} events {:>7} cutoffs {:>6}{}",
                reachable.len(),
                markings
                    .as_ref()
                    .map_or("too many".to_string(), |m| m.len().to_string()),
                visited.len(),
                found.len(),
                deadlocks.len(),
                u.maximal_configurations,
                u.events,
                u.cutoffs,
                if u.complete() { "" } else { "  NOT FINISHED" }
            );
            println!("{line}");
            if !visited.is_subset(&reachable) {
                failures.push(format!("{line}: visits an unreachable state"));
            }
            if !found.is_subset(&deadlocks) {
                failures.push(format!("{line}: a deadlock reach does not know"));
            }
            if let Some(m) = &markings
                && !m.is_subset(&reachable)
            {
                failures.push(format!(
                    "{line}: a configuration reaches an unreachable state"
                ));
            }
            if u.complete() {
                checked += 1;
                if let Some(m) = &markings
                    && m.len() != reachable.len()
                {
                    failures.push(format!("{line}: reachable states not covered"));
                }
                if found != deadlocks {
                    failures.push(format!("{line}: deadlocks differ"));
                }
                if alt_k.is_none() {
                    assert_eq!(u.blocked, 0, "{line}");
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 40, "only {checked} runs finished");
}

/// The reachable markings of `sys` and its deadlocks, found by `reach` (which widens
/// `sys`'s counters where they overflow, so that both explorers then use one encoding);
/// `None` past 50 000 markings or 5 seconds.
#[allow(clippy::type_complexity)]
fn reach_sets(sys: &mut NetSystem<'_>) -> Option<(FxHashSet<Vec<u64>>, FxHashSet<Vec<u64>>)> {
    let limits = Limits::new(Some(Duration::from_secs(5)), None);
    let r = loop {
        match reach::explore(&*sys, &limits, &mut |_| {}, &mut |_, _| {}) {
            Ok(r) => break r,
            Err(_) => *sys = sys.widened().unwrap(),
        }
    };
    if r.stopped.is_some() || r.space.len() > 50_000 {
        return None;
    }
    let reachable = (0..r.space.len())
        .map(|i| r.space.state(i as u32).to_vec())
        .collect();
    let deadlocks = (0..r.space.len() as u32)
        .map(|i| r.space.state(i))
        .filter(|m| {
            let mut en = Vec::new();
            sys.enabled(m, &mut en);
            en.is_empty()
        })
        .map(|m| m.to_vec())
        .collect();
    Some((reachable, deadlocks))
}

/// Nets whose transitions synchronise many components, so that the search for an event's
/// histories chooses many slots one after the other (the random small nets of `udpor_brute`
/// seldom make it choose more than two). In both profiles: the
/// deadlocks are `reach`'s and the configurations cover its markings; in debug builds the
/// search's own checks run too (every history's last events within one another, the
/// shortcuts of the test against the choices made).
#[test]
fn wide_synchronisations_against_reach() {
    let root = common::shared_nets();
    for file in [
        "pep/key_2.ll_net",
        "pep/mutual.ll_net",
        "pep/peterson.ll_net",
        "pep/rw_1w1r.ll_net",
        "pep/sdl_example.ll_net",
    ] {
        let (net, _) = read_net(&root.join(file)).unwrap();
        let mut sys = NetSystem::new(&net);
        let (reachable, deadlocks) = reach_sets(&mut sys).expect("small nets");
        for pick in [Pick::First, Pick::Last] {
            let opts = UdporOptions {
                cutoffs: Some(Order::Erv),
                pick,
                record_states: true,
                ..UdporOptions::default()
            };
            let limits = Limits::new(None, None);
            let outcome =
                udpor::explore_with_events(&sys, &opts, &limits, &mut |_| {}, Some(0)).unwrap();
            let mut u = outcome.stats;
            assert!(u.complete(), "{file} {pick:?}");
            assert_eq!(u.blocked, 0, "{file} {pick:?}");
            assert_eq!(
                u.deadlock_states.take().unwrap(),
                deadlocks,
                "{file} {pick:?}"
            );
            let markings = configuration_states(&sys, &outcome.events, 200_000).expect("few");
            assert_eq!(markings, reachable, "{file} {pick:?}");
        }
    }
}

/// The layout of the events' cones is a matter of speed and memory only: trees, flat arrays,
/// and the automatic choice (which flattens these two runs after 8 192 events, in the middle
/// of the exploration) explore alike, event for event.
#[test]
#[cfg_attr(debug_assertions, ignore = "release only: cargo test --release")]
fn cone_layouts_explore_alike() {
    let root = common::shared_nets();
    for (file, cutoffs, max_events) in [
        ("pnml/Raft-PT-02.pnml", Some(Order::Erv), None),
        ("pnml/Dekker-PT-010.pnml", None, Some(60_000)),
    ] {
        let (net, _) = read_net(&root.join(file)).unwrap();
        let sys = NetSystem::new(&net);
        let run = |cones| {
            let opts = UdporOptions {
                cutoffs,
                max_events,
                cones,
                // (On the places' slots: with token slots, Dekker's cones are not flattened.)
                slots: SlotCover::Resources,
                ..UdporOptions::default()
            };
            udpor::explore(&sys, &opts, &Limits::new(None, None), &mut |_| {}).unwrap()
        };
        let summary = |u: &UdporStats| {
            (
                u.maximal_configurations,
                u.events,
                u.cutoffs,
                u.deadlocks,
                u.blocked,
                u.event_creations,
                u.peak_u,
                u.max_configuration_size,
                u.alternatives_found,
                u.deadlock_witness.clone(),
            )
        };
        let tree = run(ConeLayout::Tree);
        let flat = run(ConeLayout::Flat);
        let auto = run(ConeLayout::Auto);
        assert!(tree.events > 8192, "{file}: too small to flatten");
        assert_eq!(
            (tree.flat_cones, flat.flat_cones, auto.flat_cones),
            (false, true, true),
            "{file}: the layouts (tree, flat, auto)"
        );
        assert_eq!(summary(&flat), summary(&tree), "{file}: flat vs tree");
        assert_eq!(summary(&auto), summary(&tree), "{file}: auto vs tree");
    }
}

/// The states of every configuration made of the non-cutoff events explored (a breadth-first
/// search over configurations, adding one enabled event at a time), or `None` past `cap`
/// configurations.
fn configuration_states<S: System>(
    sys: &S,
    events: &[ExploredEvent],
    cap: usize,
) -> Option<FxHashSet<Vec<u64>>> {
    let n = events.len();
    // Local configurations as sorted index lists (event i is id i + 1).
    let mut local: Vec<Vec<usize>> = Vec::with_capacity(n);
    for (i, e) in events.iter().enumerate() {
        let mut l: Vec<usize> = e.preds.iter().map(|&p| p as usize - 1).collect();
        for &p in &e.preds {
            l.extend_from_slice(&local[p as usize - 1]);
        }
        l.push(i);
        l.sort_unstable();
        l.dedup();
        local.push(l);
    }
    let mut init = vec![0u64; sys.state_words()];
    sys.initial_state(&mut init);
    let mut seen: FxHashSet<Vec<usize>> = FxHashSet::default();
    let mut states: FxHashSet<Vec<u64>> = FxHashSet::default();
    // A configuration: its events, sorted.
    let mut queue: Vec<(Vec<usize>, Vec<u64>)> = vec![(Vec::new(), init)];
    seen.insert(Vec::new());
    while let Some((config, state)) = queue.pop() {
        states.insert(state.clone());
        if seen.len() > cap {
            return None;
        }
        'next: for (i, e) in events.iter().enumerate() {
            if e.cutoff
                || config.binary_search(&i).is_ok()
                || !e
                    .preds
                    .iter()
                    .all(|&p| config.binary_search(&(p as usize - 1)).is_ok())
            {
                continue;
            }
            // No event of the configuration outside [e] may be dependent with e.
            for &j in &config {
                if local[i].binary_search(&j).is_err() && sys.dependent(events[j].label, e.label) {
                    continue 'next;
                }
            }
            let mut next = config.clone();
            let at = next.binary_search(&i).unwrap_err();
            next.insert(at, i);
            if seen.insert(next.clone()) {
                let mut s = vec![0u64; state.len()];
                sys.fire(&state, e.label, &mut s).unwrap();
                queue.push((next, s));
            }
        }
    }
    Some(states)
}
