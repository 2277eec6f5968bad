//! The cutoff verdicts of the unfolding DPOR against the adequate orders' definitions, on the
//! shared nets (release only). Events are classified as they are built: `e` is a cutoff iff
//! an event built before it (or ⊥, for the initial marking) reaches the same marking with a
//! smaller local configuration. The test recomputes every event's local configuration, its
//! marking and its key from the explored events alone, with its own dense Parikh vectors and
//! Foata levels, and checks every verdict and every corresponding event against them.

use crate::common;

use std::cmp::Ordering;
use std::time::Duration;

use rustc_hash::FxHashMap;
use unfold::explore::limits::{Limits, StopReason};
use unfold::explore::udpor::{self, Cache, ExploredEvent, UdporOptions};
use unfold::formats::read_net;
use unfold::model::net_system::NetSystem;
use unfold::system::System;
use unfold::unfolding::order::Order;

/// A local configuration's key: its size, its Parikh vector (one count per transition), and
/// its events' (Foata level, transition) pairs, sorted.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    size: usize,
    parikh: Vec<u32>,
    foata: Vec<(usize, usize)>,
}

/// The Parikh vector of Foata level `l` of `key`, over `transitions` transitions.
fn level(key: &Key, l: usize, transitions: usize) -> Vec<u32> {
    let mut v = vec![0; transitions];
    for &(_, t) in key.foata.iter().filter(|&&(m, _)| m == l) {
        v[t] += 1;
    }
    v
}

/// Dense Parikh vectors compared as Mole and Cunf compare them: at the first transition whose
/// counts differ, *more* is smaller (Rust's lexicographic order of the vectors, reversed).
fn parikh(a: &[u32], b: &[u32]) -> Ordering {
    b.cmp(a)
}

/// The sorted word of transitions of Foata level `l` of `key`.
fn level_word(key: &Key, l: usize) -> Vec<usize> {
    key.foata
        .iter()
        .filter(|&&(m, _)| m == l)
        .map(|&(_, t)| t)
        .collect()
}

/// Size, then the Parikh vectors, then the Foata levels one by one, each by `by_level`.
fn by_levels(a: &Key, b: &Key, by_level: impl Fn(usize) -> Ordering) -> Ordering {
    a.size
        .cmp(&b.size)
        .then_with(|| parikh(&a.parikh, &b.parikh))
        .then_with(|| {
            let depth = |k: &Key| k.foata.last().map_or(0, |&(l, _)| l);
            for l in 1..=depth(a).min(depth(b)) {
                let c = by_level(l);
                if c != Ordering::Equal {
                    return c;
                }
            }
            depth(a).cmp(&depth(b))
        })
}

/// Esparza–Römer–Vogler: each Foata level by its Parikh vector.
fn erv(a: &Key, b: &Key) -> Ordering {
    let n = a.parikh.len();
    by_levels(a, b, |l| parikh(&level(a, l, n), &level(b, l, n)))
}

/// Mole's variant: each Foata level by its number of distinct transitions, then by its sorted
/// word of transitions (lexicographically, a proper prefix first).
fn mole(a: &Key, b: &Key) -> Ordering {
    by_levels(a, b, |l| {
        let (wa, wb) = (level_word(a, l), level_word(b, l));
        let distinct = |w: &[usize]| w.chunk_by(|x, y| x == y).count();
        distinct(&wa).cmp(&distinct(&wb)).then_with(|| wa.cmp(&wb))
    })
}

/// McMillan: size alone.
fn size(a: &Key, b: &Key) -> Ordering {
    a.size.cmp(&b.size)
}

/// Per explored event (index = id - 1): its key and the marking of its local configuration.
fn keys_and_markings<S: System>(sys: &S, events: &[ExploredEvent]) -> Vec<(Key, Vec<u64>)> {
    let transitions = sys.transition_count();
    let mut level = vec![0usize; events.len()];
    let mut local: Vec<Vec<usize>> = Vec::with_capacity(events.len());
    let mut out: Vec<(Key, Vec<u64>)> = Vec::with_capacity(events.len());
    let mut initial = vec![0u64; sys.state_words()];
    sys.initial_state(&mut initial);
    for (i, e) in events.iter().enumerate() {
        let preds: Vec<usize> = e.preds.iter().map(|&p| p as usize - 1).collect();
        assert!(
            preds.iter().all(|&p| p < i),
            "event {i}: a predecessor built later"
        );
        level[i] = 1 + preds.iter().map(|&p| level[p]).max().unwrap_or(0);
        let mut l: Vec<usize> = preds.clone();
        for &p in &preds {
            l.extend_from_slice(&local[p]);
        }
        l.push(i);
        l.sort_unstable();
        l.dedup();
        let mut parikh = vec![0u32; transitions];
        let mut foata = Vec::with_capacity(l.len());
        for &x in &l {
            let t = events[x].label as usize;
            parikh[t] += 1;
            foata.push((level[x], t));
        }
        foata.sort_unstable();
        // The marking: the largest predecessor's, then the events of [e] outside its local
        // configuration fired level by level (a causal order).
        let base = preds.iter().copied().max_by_key(|&p| local[p].len());
        let (mut marking, mut rest) = match base {
            Some(p) => (
                out[p].1.clone(),
                l.iter()
                    .copied()
                    .filter(|x| local[p].binary_search(x).is_err())
                    .collect::<Vec<_>>(),
            ),
            None => (initial.clone(), l.clone()),
        };
        rest.sort_by_key(|&x| level[x]);
        let mut next = marking.clone();
        for &x in &rest {
            sys.fire(&marking, events[x].label, &mut next).unwrap();
            std::mem::swap(&mut marking, &mut next);
        }
        out.push((
            Key {
                size: l.len(),
                parikh,
                foata,
            },
            marking,
        ));
        local.push(l);
    }
    out
}

#[test]
#[cfg_attr(debug_assertions, ignore = "release only: cargo test --release")]
fn cutoffs_are_exactly_the_events_a_smaller_configuration_reached_first() {
    let root = common::shared_nets();
    let mut failures = Vec::new();
    let mut ties_decided = 0;
    let mut checked = 0;
    for file in common::shared_net_files() {
        if file.starts_with("pnml/col/") {
            continue;
        }
        let (net, _) = read_net(&root.join(&file)).unwrap();
        let mut sys = NetSystem::new(&net);
        // The cache off rebuilds events: their verdicts must survive that.
        for (order, cache, max_events) in [
            (Order::Erv, Cache::Bounded, 10_000),
            (Order::Mole, Cache::Bounded, 10_000),
            (Order::Size, Cache::Bounded, 10_000),
            (Order::Erv, Cache::Off, 3_000),
        ] {
            let opts = UdporOptions {
                cutoffs: Some(order),
                cache,
                max_events: Some(max_events),
                ..UdporOptions::default()
            };
            // Few events: every event's local configuration is listed. (rrr30-1 reaches
            // millions of maximal configurations with a hundred events: the clock stops it.)
            let limits = Limits::new(Some(Duration::from_secs(3)), None);
            let t0 = std::time::Instant::now();
            // Counters wider on an overflow, as `unfold` does.
            let outcome = loop {
                match udpor::explore_with_events(&sys, &opts, &limits, &mut |_| {}, Some(0)) {
                    Ok(outcome) => break outcome,
                    Err(_) => sys = sys.widened().unwrap(),
                }
            };
            // A run stopped by the event limit has classified every event it built; one
            // stopped by the clock may stop anywhere, and differently from run to run.
            let checks =
                outcome.stats.complete() || outcome.stats.stopped == Some(StopReason::EventLimit);
            println!(
                "{file:45} {order:?}/{cache:?}: events {:>6} cutoffs {:>6}{} {:.2}",
                outcome.stats.events,
                outcome.stats.cutoffs,
                if checks {
                    ""
                } else {
                    "  stopped by the clock, not checked"
                },
                t0.elapsed().as_secs_f64()
            );
            if !checks {
                continue;
            }
            let events = &outcome.events;
            let cmp = match order {
                Order::Erv => erv,
                Order::Mole => mole,
                Order::Size => size,
            };
            let facts = keys_and_markings(&sys, events);
            let mut initial = vec![0u64; sys.state_words()];
            sys.initial_state(&mut initial);
            let empty = Key {
                size: 0,
                parikh: vec![0; sys.transition_count()],
                foata: Vec::new(),
            };
            // Per marking, the least key among ⊥ and the events built so far.
            let mut least: FxHashMap<&[u64], &Key> = FxHashMap::default();
            least.insert(&initial, &empty);
            for (i, e) in events.iter().enumerate() {
                let (key, marking) = &facts[i];
                let best = least.get(marking.as_slice()).copied();
                let should_cut = best.is_some_and(|b| cmp(b, key) == Ordering::Less);
                if best.is_some_and(|b| b.size == key.size) {
                    ties_decided += 1;
                }
                let at = format!("{file} {order:?}: event {} (t{})", i + 1, e.label);
                if e.cutoff != should_cut {
                    failures.push(format!(
                        "{at}: cutoff {} but {}",
                        e.cutoff,
                        if should_cut {
                            "a smaller configuration reached its marking first"
                        } else {
                            "no smaller configuration reached its marking first"
                        }
                    ));
                }
                if e.cutoff {
                    // Its corresponding event: built before it, same marking, smaller.
                    let (ck, cm) = match e.corresponding {
                        None => (&empty, &initial),
                        Some(c) if (c as usize) <= i => {
                            let (ck, cm) = &facts[c as usize - 1];
                            (ck, cm)
                        }
                        Some(c) => {
                            failures.push(format!("{at}: cut against {c}, built later"));
                            continue;
                        }
                    };
                    if cm != marking || cmp(ck, key) != Ordering::Less {
                        failures.push(format!(
                            "{at}: cut against {:?}, which does not reach its marking with a \
                             smaller configuration",
                            e.corresponding
                        ));
                    }
                } else if best.is_none_or(|b| cmp(key, b) == Ordering::Less) {
                    least.insert(marking, key);
                }
            }
            checked += 1;
        }
    }
    println!("{checked} runs checked, {ties_decided} ties on size decided");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 100, "only {checked} runs checked");
    // The shared nets have configurations of one size reaching one marking: the full ERV
    // keys had to decide those.
    assert!(ties_decided >= 100, "only {ties_decided} ties on size");
}
