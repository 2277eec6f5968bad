//! The contextual unfolding (`unfold prefix` on nets with read arcs) against Cunf's published
//! figures (ORACLES.tsv `cprefix.*`), against explicit-state reachability (every reachable
//! marking is the marking of a configuration of the prefix, the deadlock answers agree), and on
//! random small nets with read arcs (markings, deadlocks and safety against the state space).

use crate::common;

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use proptest::prelude::*;
use unfold::explore::contextual::{self, ContextualOptions, ContextualPrefix};
use unfold::explore::limits::Limits;
use unfold::explore::prefix::{self, DeadlockAnswer, PrefixOptions};
use unfold::explore::reach::explore_net;
use unfold::formats::read_net;
use unfold::model::net::Net;
use unfold::model::read_arcs::loops_to_read_arcs;
use unfold::unfolding::order::Order;

fn limits() -> Limits {
    Limits::new(Some(Duration::from_secs(600)), None)
}

/// `cprefix.*` rows: file → property → value.
fn cprefix_oracles() -> BTreeMap<String, BTreeMap<String, u64>> {
    let mut out: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for (file, props) in common::oracles() {
        for (k, v) in props {
            if let Some(name) = k.strip_prefix("cprefix.") {
                out.entry(file.clone())
                    .or_default()
                    .insert(name.to_string(), v.parse().unwrap());
            }
        }
    }
    out
}

fn figures(p: &ContextualPrefix) -> BTreeMap<String, u64> {
    let h = p.history_count() as u64;
    let c = p.cutoffs() as u64;
    [
        ("histories", h),
        ("events", p.event_count() as u64),
        ("conditions", p.conditions.len() as u64),
        ("cutoffs", c),
        ("noncutoff_events", h - c),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Cunf's figures on every read-arc net that has them, and the same figures on the net made
/// from its plain twin by `loops_to_read_arcs` (Cunf made `pep/cont/X` from `pep/X` so).
#[test]
fn published_contextual_prefix_sizes() {
    let oracles = cprefix_oracles();
    assert!(oracles.len() >= 6, "cprefix rows: {}", oracles.len());
    let dir = common::shared_nets();
    for (file, want) in &oracles {
        let net = read_net(&dir.join(file)).unwrap().0;
        assert!(net.read_arc_count() > 0, "{file} has no read arcs");
        let r = contextual::explore(&net, &ContextualOptions::default(), &limits(), &mut |_| {})
            .unwrap();
        assert!(r.stopped.is_none(), "{file}");
        let got = figures(&r.prefix);
        for (k, v) in want {
            assert_eq!(got[k], *v, "{file}: {k} (got {got:?})");
        }
        let twin = dir.join(file.replace("pep/cont/", "pep/"));
        if twin.is_file() {
            let (made, loops) = loops_to_read_arcs(&read_net(&twin).unwrap().0);
            assert_eq!(loops, net.read_arc_count(), "{file}: read arcs made");
            let r =
                contextual::explore(&made, &ContextualOptions::default(), &limits(), &mut |_| {})
                    .unwrap();
            assert_eq!(
                figures(&r.prefix),
                got,
                "{file}: made from {}",
                twin.display()
            );
        }
    }
}

/// On nets without read arcs the contextual construction is the plain one: Cunf's `prefix.*`
/// figures (events, conditions, cutoffs) on the plain nets of ../shared/nets/pep up to a few
/// thousand events.
#[test]
fn plain_nets_give_the_plain_figures() {
    let dir = common::shared_nets();
    let mut checked = 0;
    for (file, props) in common::oracles() {
        if !file.starts_with("pep/") || file.starts_with("pep/cont/") {
            continue;
        }
        let (Some(ev), Some(co), Some(cu)) = (
            props.get("prefix.events"),
            props.get("prefix.conditions"),
            props.get("prefix.cutoffs"),
        ) else {
            continue;
        };
        let want: (u64, u64, u64) = (
            ev.parse().unwrap(),
            co.parse().unwrap(),
            cu.parse().unwrap(),
        );
        if want.0 > 4_000 {
            continue;
        }
        let net = read_net(&dir.join(&file)).unwrap().0;
        let r = contextual::explore(&net, &ContextualOptions::default(), &limits(), &mut |_| {})
            .unwrap();
        let p = &r.prefix;
        // Without read arcs every event has one history.
        assert_eq!(p.history_count(), p.event_count(), "{file}");
        let got = (
            p.event_count() as u64,
            p.conditions.len() as u64,
            p.cutoffs() as u64,
        );
        assert_eq!(got, want, "{file}");
        // Textbook ERV is total too: the contextual construction in it gives the plain
        // prefix of that order.
        let erv = ContextualOptions { order: Order::Erv };
        let r = contextual::explore(&net, &erv, &limits(), &mut |_| {}).unwrap();
        let options = PrefixOptions {
            order: Order::Erv,
            deadlock: false,
        };
        let plain = prefix::explore(&net, &options, &limits(), &mut |_| {}).unwrap();
        assert_eq!(
            (
                r.prefix.event_count(),
                r.prefix.conditions.len(),
                r.prefix.cutoffs()
            ),
            (
                plain.prefix.events.len(),
                plain.prefix.conditions.len(),
                plain.prefix.cutoffs()
            ),
            "{file}: order erv"
        );
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} nets");
}

/// Fires `t` on the net marking `m` (asserting it is enabled and the result safe).
fn fire(net: &Net, m: &mut [u32], t: u32, what: &str) {
    let tr = &net.transitions[t as usize];
    for a in tr.pre.iter().chain(&tr.reads) {
        assert!(
            m[a.place as usize] >= a.weight,
            "{what}: {} not enabled",
            tr.label
        );
    }
    for a in &tr.pre {
        m[a.place as usize] -= a.weight;
    }
    for a in &tr.post {
        m[a.place as usize] += a.weight;
        assert!(
            m[a.place as usize] <= 1,
            "{what}: not safe after {}",
            tr.label
        );
    }
}

/// The markings of the configurations of `p` made of events with a kept history, by the
/// token game of the occurrence net (an event fires when its preset and context are in the
/// cut), each checked against the net's own firing rule; None above `cap` configurations.
fn configuration_markings(
    net: &Net,
    p: &ContextualPrefix,
    cap: usize,
) -> Option<HashSet<Vec<u32>>> {
    let m0: Vec<u32> = net.places.iter().map(|p| p.initial).collect();
    let start: Vec<u32> = (0..p.initial).collect();
    let mut seen: HashSet<Vec<u32>> = HashSet::from([start.clone()]);
    let mut markings = HashSet::new();
    let mut stack = vec![(start, m0)];
    while let Some((cut, m)) = stack.pop() {
        let mut places: Vec<u32> = cut
            .iter()
            .map(|&c| p.conditions[c as usize].place)
            .collect();
        places.sort_unstable();
        let from_net: Vec<u32> = (0..m.len() as u32).filter(|&q| m[q as usize] > 0).collect();
        assert_eq!(places, from_net, "the cut's places are the net's marking");
        markings.insert(places);
        let in_cut: HashSet<u32> = cut.iter().copied().collect();
        for (e, ev) in p.events.iter().enumerate() {
            if ev.cutoff
                || !ev
                    .preset
                    .iter()
                    .chain(&ev.context)
                    .all(|c| in_cut.contains(c))
            {
                continue;
            }
            let mut next: Vec<u32> = cut
                .iter()
                .copied()
                .filter(|c| !ev.preset.contains(c))
                .chain(ev.postset.iter().copied())
                .collect();
            next.sort_unstable();
            if seen.insert(next.clone()) {
                if seen.len() > cap {
                    return None;
                }
                let mut m2 = m.clone();
                fire(net, &mut m2, ev.transition, &format!("e{e}"));
                stack.push((next, m2));
            }
        }
    }
    Some(markings)
}

/// The markings of the cutoff-free configurations of a plain prefix.
fn plain_markings(p: &unfold::explore::prefix::Prefix) -> HashSet<Vec<u32>> {
    let consumers = p.consumers();
    let start: Vec<u32> = (0..p.initial).collect();
    let mut seen = HashSet::from([start.clone()]);
    let mut markings = HashSet::new();
    let mut stack = vec![start];
    while let Some(cut) = stack.pop() {
        let mut m: Vec<u32> = cut
            .iter()
            .map(|&c| p.conditions[c as usize].place)
            .collect();
        m.sort_unstable();
        markings.insert(m);
        for &c in &cut {
            for &e in &consumers[c as usize] {
                if p.events[e as usize].cutoff || !p.preset(e).iter().all(|b| cut.contains(b)) {
                    continue;
                }
                let mut next: Vec<u32> = cut
                    .iter()
                    .copied()
                    .filter(|b| !p.preset(e).contains(b))
                    .chain(p.postset(e))
                    .collect();
                next.sort_unstable();
                if seen.insert(next.clone()) {
                    stack.push(next);
                }
            }
        }
    }
    markings
}

/// Replays a deadlock witness on the net and checks that it ends in a dead marking.
fn check_deadlock_witness(net: &Net, p: &ContextualPrefix, run: &[u32], what: &str) {
    let mut m: Vec<u32> = net.places.iter().map(|p| p.initial).collect();
    for &e in run {
        fire(net, &mut m, p.events[e as usize].transition, what);
    }
    for t in &net.transitions {
        let enabled = t
            .pre
            .iter()
            .chain(&t.reads)
            .all(|a| m[a.place as usize] >= a.weight);
        assert!(
            !enabled,
            "{what}: the witness's marking enables {}",
            t.label
        );
    }
}

/// What one net must satisfy: a safe net's contextual prefix covers its reachable markings
/// (when its configurations are few enough to enumerate) and answers deadlocks as `reach`;
/// an unsafe net is refused with a run that puts two tokens on a place. Returns whether the
/// markings were compared exactly.
fn check_against_reach(net: &Net, what: &str, cap: usize, order: Order) -> bool {
    let what = &format!("{what} (order {order})");
    let reach = explore_net(
        net,
        &Limits::new(Some(Duration::from_secs(2)), None),
        &mut |_| {},
    )
    .unwrap();
    // An unbounded net runs `reach` to its limit: decided only when it met two tokens first.
    if reach.stopped.is_some() && reach.safe {
        return false;
    }
    let r = match contextual::explore(net, &ContextualOptions { order }, &limits(), &mut |_| {}) {
        Err(e) => {
            assert!(
                !reach.safe,
                "{what}: refused as unsafe, but reach finds it safe: {e}"
            );
            // The run puts two tokens on the place.
            let mut m: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
            for label in &e.run {
                let t = net
                    .transitions
                    .iter()
                    .find(|t| t.label == label.as_str())
                    .unwrap();
                for a in t.pre.iter().chain(&t.reads) {
                    assert!(m[a.place as usize] >= a.weight as u64, "{what}: witness");
                }
                for a in &t.pre {
                    m[a.place as usize] -= a.weight as u64;
                }
                for a in &t.post {
                    m[a.place as usize] += a.weight as u64;
                }
            }
            let p = net
                .places
                .iter()
                .position(|p| p.label == e.place.as_str())
                .unwrap();
            assert!(
                m[p] >= 2,
                "{what}: the witness leaves {} tokens on {}",
                m[p],
                e.place
            );
            return false;
        }
        Ok(r) => r,
    };
    assert!(
        reach.safe,
        "{what}: reach finds the net unsafe, the prefix did not"
    );
    let mut r = r;
    r.decide_deadlock(net, &limits());
    match r.deadlock.as_ref().unwrap() {
        DeadlockAnswer::Free => assert_eq!(reach.deadlocks, 0, "{what}: deadlock missed"),
        DeadlockAnswer::Found(run) => {
            assert!(reach.deadlocks > 0, "{what}: deadlock claimed");
            check_deadlock_witness(net, &r.prefix, run, what);
        }
        DeadlockAnswer::Unknown(why) => panic!("{what}: {why}"),
    }
    match configuration_markings(net, &r.prefix, cap) {
        Some(all) => {
            assert_eq!(all.len() as u64, reach.states, "{what}: markings covered");
            true
        }
        None => false,
    }
}

/// Every read-arc net of ../shared/nets/pep/cont, and the read-arc versions of the small plain
/// nets of ../shared/nets/pep, against explicit-state reachability.
#[test]
fn complete_against_reach() {
    let dir = common::shared_nets();
    let mut files: Vec<std::path::PathBuf> = ["pep/cont", "pep"]
        .iter()
        .flat_map(|d| std::fs::read_dir(dir.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll_net"))
        .collect();
    files.sort();
    let (mut checked, mut exact, mut exact_others) = (0, 0, 0);
    for file in files {
        let net = read_net(&file).unwrap().0;
        let (net, loops) = if net.read_arc_count() > 0 {
            (net, 1)
        } else {
            loops_to_read_arcs(&net)
        };
        if loops == 0 {
            continue;
        }
        // Small state spaces only: the configurations are enumerated.
        let reach = explore_net(
            &net,
            &Limits::new(Some(Duration::from_secs(5)), None),
            &mut |_| {},
        )
        .unwrap();
        if reach.stopped.is_some() || reach.states > 20_000 {
            continue;
        }
        let what = file.display().to_string();
        exact += usize::from(check_against_reach(&net, &what, 200_000, Order::Mole));
        // The other orders on the smaller nets, and on fewer configurations: the size order's
        // prefixes are up to ten times larger, and the deadlock search walks configurations.
        if reach.states <= 2_000 {
            for order in [Order::Erv, Order::Size] {
                exact_others += usize::from(check_against_reach(&net, &what, 10_000, order));
            }
        }
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} nets");
    assert!(exact >= 6, "only {exact} compared exactly");
    assert!(
        exact_others >= 8,
        "only {exact_others} compared exactly in erv and size"
    );
}

/// Every adequate order the contextual prefix offers.
const ORDERS: [Order; 3] = [Order::Mole, Order::Erv, Order::Size];

fn arb_machines_net() -> impl Strategy<Value = Net> {
    (2usize..=4, 2usize..=4)
        .prop_flat_map(|(k, len)| {
            let step = (
                prop::collection::vec((0..k, 0..len, 0..len), 1..=2),
                prop::option::of((0..k, 0..len)),
                0u8..3,
            );
            (Just(k), Just(len), prop::collection::vec(step, 1..=8))
        })
        .prop_map(|(k, len, steps)| common::machines_net(k, len, steps))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(256)))]

    /// Random nets of state machines that test each other's states with read arcs (and share
    /// a place that may get two tokens): the contextual prefix's markings are the reachable
    /// ones and the plain prefix's, its deadlock answer is `reach`'s, and it refuses exactly
    /// the unsafe nets.
    #[test]
    fn random_read_arc_nets_agree_with_the_state_space(net in arb_machines_net()) {
        for order in ORDERS {
            let exact = check_against_reach(&net, "random net", 1_000_000, order);
            if exact {
                // The plain prefix (read arcs as self-loops) reaches the same markings.
                let plain =
                    prefix::explore(&net, &PrefixOptions::default(), &limits(), &mut |_| {})
                        .unwrap();
                let options = ContextualOptions { order };
                let contextual = contextual::explore(&net, &options, &limits(), &mut |_| {})
                    .unwrap();
                prop_assert_eq!(
                    plain_markings(&plain.prefix),
                    configuration_markings(&net, &contextual.prefix, 1_000_000).unwrap(),
                    "order {}", order
                );
            }
        }
    }
}
