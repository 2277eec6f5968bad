//! `unfold prefix` against the published prefix sizes (Cunf rev. 41 / Mole, ORACLES.tsv), the
//! published deadlock answers, and explicit-state reachability.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use unfold::explore::limits::Limits;
use unfold::explore::prefix::{self, DeadlockAnswer, Order, Prefix, PrefixOptions, PrefixRun};
use unfold::explore::reach::explore_net;
use unfold::formats::read_net;
use unfold::model::net::Net;

/// `../shared/nets`; fails (never skips) when missing.
fn shared() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/nets");
    assert!(
        dir.join("ORACLES.tsv").is_file(),
        "{} is missing: the prefix oracle tests need ../shared beside the checkout",
        dir.display()
    );
    dir
}

/// ORACLES.tsv rows of plain PEP nets (not pep/cont): file → property → value.
fn pep_oracles() -> BTreeMap<String, BTreeMap<String, String>> {
    let text = std::fs::read_to_string(shared().join("ORACLES.tsv")).unwrap();
    let mut map: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 || !cols[0].starts_with("pep/") || cols[0].starts_with("pep/cont/") {
            continue;
        }
        map.entry(cols[0].to_string())
            .or_default()
            .insert(cols[1].to_string(), cols[2].to_string());
    }
    map
}

fn run(net: &Net, order: Order, deadlock: bool) -> PrefixRun {
    prefix::explore(
        net,
        &PrefixOptions { order, deadlock },
        &Limits::new(Some(Duration::from_secs(600)), None),
        &mut |_| {},
    )
    .unwrap()
}

fn load(file: &str) -> Net {
    read_net(&shared().join(file)).unwrap().0
}

/// Checks the published `prefix.{events,conditions,cutoffs}` of every net whose expected event
/// count is at most `max_events` (None: all).
fn check_sizes(max_events: Option<u64>) {
    let oracles = pep_oracles();
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for (file, props) in &oracles {
        let (Some(ev), Some(co), Some(cu)) = (
            props.get("prefix.events"),
            props.get("prefix.conditions"),
            props.get("prefix.cutoffs"),
        ) else {
            continue;
        };
        let expected: (u64, u64, u64) = (
            ev.parse().unwrap(),
            co.parse().unwrap(),
            cu.parse().unwrap(),
        );
        if max_events.is_some_and(|m| expected.0 > m) {
            continue;
        }
        let net = load(file);
        let start = Instant::now();
        let r = run(&net, Order::Mole, false);
        let secs = start.elapsed().as_secs_f64();
        assert!(r.complete(), "{file}: stopped by a limit");
        let got = (
            r.prefix.events.len() as u64,
            r.prefix.conditions.len() as u64,
            r.prefix.cutoffs() as u64,
        );
        if got != expected {
            failures.push(file.clone());
        }
        rows.push((file.clone(), expected, got, secs));
    }
    println!(
        "{:<28} {:>22} {:>22} {:>9} {:>10}",
        "net", "expected (e/c/cut)", "got (e/c/cut)", "time (s)", "events/s"
    );
    for (file, e, g, secs) in &rows {
        println!(
            "{:<28} {:>22} {:>22} {:>9.3} {:>10.0}{}",
            file.trim_start_matches("pep/"),
            format!("{}/{}/{}", e.0, e.1, e.2),
            format!("{}/{}/{}", g.0, g.1, g.2),
            secs,
            g.0 as f64 / secs.max(1e-9),
            if e == g { "" } else { "  MISMATCH" }
        );
    }
    assert!(!rows.is_empty(), "no prefix rows in ORACLES.tsv");
    assert!(failures.is_empty(), "prefix sizes differ on {failures:?}");
}

/// The small nets: quick enough in debug builds.
#[test]
fn published_prefix_sizes_small_nets() {
    check_sizes(Some(3000));
}

/// Every net with published sizes, the large classic ones included.
#[test]
#[cfg_attr(debug_assertions, ignore = "release only: cargo test --release")]
fn published_prefix_sizes_all_nets() {
    check_sizes(None);
}

/// Mole's figures (`prefix.events_mole`) where Cunf's are absent too.
#[test]
#[cfg_attr(debug_assertions, ignore = "release only: cargo test --release")]
fn mole_event_counts() {
    let mut checked = 0;
    for (file, props) in pep_oracles() {
        let Some(mole) = props.get("prefix.events_mole") else {
            continue;
        };
        let r = run(&load(&file), Order::Mole, false);
        assert_eq!(
            r.prefix.events.len().to_string(),
            *mole,
            "{file}: events differ from Mole's"
        );
        checked += 1;
    }
    assert!(checked > 0);
}

/// The deadlock answer from the prefix equals the published one (rows where all tools agree).
#[test]
#[cfg_attr(debug_assertions, ignore = "release only: cargo test --release")]
fn published_deadlock_answers() {
    let mut checked = 0;
    println!(
        "{:<28} {:>9} {:>9} {:>9}",
        "net", "expected", "got", "time (s)"
    );
    for (file, props) in pep_oracles() {
        let Some(expected) = props.get("deadlock") else {
            continue;
        };
        let expected = expected == "TRUE";
        let net = load(&file);
        let start = Instant::now();
        let r = run(&net, Order::Mole, true);
        let got = match r.deadlock.unwrap() {
            DeadlockAnswer::Free => false,
            DeadlockAnswer::Found(config) => {
                check_deadlock_witness(&net, &r.prefix, &config, &file);
                true
            }
            DeadlockAnswer::Unknown(why) => panic!("{file}: deadlock search stopped: {why}"),
        };
        println!(
            "{:<28} {:>9} {:>9} {:>9.3}",
            file.trim_start_matches("pep/"),
            expected,
            got,
            start.elapsed().as_secs_f64()
        );
        assert_eq!(got, expected, "{file}: deadlock answer");
        checked += 1;
    }
    assert!(checked >= 20);
}

/// Replays `events` (sorted by id) on the net: each must be enabled, the marking must stay safe.
/// Returns the final marking as a sorted list of places.
fn replay(net: &Net, prefix: &Prefix, events: &[u32], what: &str) -> Vec<u32> {
    let mut m: Vec<u32> = net.places.iter().map(|p| p.initial).collect();
    for &e in events {
        let t = &net.transitions[prefix.events[e as usize].transition as usize];
        for a in t.pre.iter().chain(&t.reads) {
            assert!(
                m[a.place as usize] >= a.weight,
                "{what}: {} not enabled in replay",
                t.label
            );
        }
        for a in &t.pre {
            m[a.place as usize] -= a.weight;
        }
        for a in &t.post {
            m[a.place as usize] += a.weight;
            assert!(m[a.place as usize] <= 1, "{what}: replay is not safe");
        }
    }
    (0..m.len() as u32)
        .filter(|&p| m[p as usize] == 1)
        .collect()
}

fn check_deadlock_witness(net: &Net, prefix: &Prefix, config: &[u32], file: &str) {
    let m = replay(net, prefix, config, file);
    assert_eq!(m, prefix.marking(config), "{file}: witness marking");
    let marked: HashSet<u32> = m.iter().copied().collect();
    for t in &net.transitions {
        let enabled = t
            .pre
            .iter()
            .chain(&t.reads)
            .all(|a| a.weight == 1 && marked.contains(&a.place));
        assert!(!enabled, "{file}: witness marking enables {}", t.label);
    }
}

/// All markings of cutoff-free configurations of the prefix (breadth-first over cuts), or None
/// above `cap` configurations.
fn configuration_markings(prefix: &Prefix, cap: usize) -> Option<HashSet<Vec<u32>>> {
    let consumers = prefix.consumers();
    let start: Vec<u32> = (0..prefix.initial).collect();
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    let mut markings = HashSet::new();
    let mut queue = vec![start.clone()];
    seen.insert(start);
    while let Some(cut) = queue.pop() {
        let mut m: Vec<u32> = cut
            .iter()
            .map(|&c| prefix.conditions[c as usize].place)
            .collect();
        m.sort_unstable();
        markings.insert(m);
        let in_cut: HashSet<u32> = cut.iter().copied().collect();
        let mut tried = HashSet::new();
        for &c in &cut {
            for &e in &consumers[c as usize] {
                if prefix.events[e as usize].cutoff || !tried.insert(e) {
                    continue;
                }
                if prefix.preset(e).iter().all(|b| in_cut.contains(b)) {
                    let mut next: Vec<u32> = cut
                        .iter()
                        .copied()
                        .filter(|b| !prefix.preset(e).contains(b))
                        .chain(prefix.postset(e))
                        .collect();
                    next.sort_unstable();
                    if seen.insert(next.clone()) {
                        if seen.len() > cap {
                            return None;
                        }
                        queue.push(next);
                    }
                }
            }
        }
    }
    Some(markings)
}

/// Completeness against explicit-state reachability on the nets `reach` finishes quickly:
/// the deadlock answers agree; every local configuration replays on the net (so its marking
/// is reachable); and where the configurations are few enough to enumerate, the markings of
/// the cutoff-free configurations are exactly the reachable markings.
#[test]
#[cfg_attr(debug_assertions, ignore = "release only: cargo test --release")]
fn complete_against_reach() {
    let mut checked = 0;
    let mut exact = 0;
    println!(
        "{:<28} {:>8} {:>8} {:>10} {:>12} {:>9}",
        "net", "events", "states", "local mk", "config mk", "deadlock"
    );
    let mut files: Vec<String> = std::fs::read_dir(shared().join("pep"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| format!("pep/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    files.sort();
    for file in files {
        let net = load(&file);
        let limits = Limits::new(Some(Duration::from_secs(5)), Some(1 << 30));
        let Ok(reach) = explore_net(&net, &limits, &mut |_| {}) else {
            continue;
        };
        if reach.stopped.is_some() || !reach.safe || reach.states > 100_000 {
            continue;
        }
        let r = run(&net, Order::Mole, true);
        if r.prefix.events.len() > 20_000 {
            continue;
        }
        let prefix = &r.prefix;
        // Final markings of all local configurations (cutoffs included).
        let mut local = HashSet::new();
        for e in 0..prefix.events.len() as u32 {
            let config = prefix.local_configuration(e);
            let m = replay(&net, prefix, &config, &file);
            assert_eq!(m, prefix.marking(&config), "{file}: marking of [e{e}]");
            local.insert(m);
        }
        local.insert(replay(&net, prefix, &[], &file));
        assert!(
            local.len() as u64 <= reach.states,
            "{file}: more markings than states"
        );
        let config_markings = configuration_markings(prefix, 20_000);
        if let Some(all) = &config_markings {
            assert_eq!(
                all.len() as u64,
                reach.states,
                "{file}: configurations of the prefix do not cover the reachable markings"
            );
            exact += 1;
        }
        let dl = match r.deadlock.unwrap() {
            DeadlockAnswer::Free => false,
            DeadlockAnswer::Found(config) => {
                check_deadlock_witness(&net, prefix, &config, &file);
                true
            }
            DeadlockAnswer::Unknown(why) => panic!("{file}: {why}"),
        };
        assert_eq!(dl, reach.deadlocks > 0, "{file}: deadlock answer vs reach");
        println!(
            "{:<28} {:>8} {:>8} {:>10} {:>12} {:>9}",
            file.trim_start_matches("pep/"),
            prefix.events.len(),
            reach.states,
            local.len(),
            config_markings.map_or("-".to_string(), |m| m.len().to_string()),
            dl
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} nets checked");
    assert!(exact >= 5, "only {exact} nets checked exactly");
}

/// The other orders give complete prefixes too: same deadlock answers, and their cutoff-free
/// configurations reach the same markings as Mole's.
#[test]
fn other_orders_are_complete_on_small_nets() {
    for file in [
        "pep/do_od.ll_net",
        "pep/peterson.ll_net",
        "pep/sem.ll_net",
        "pep/recursion.ll_net",
    ] {
        let net = load(file);
        let mole = run(&net, Order::Mole, true);
        for order in [Order::Erv, Order::Size] {
            let other = run(&net, order, true);
            assert!(other.complete());
            assert_eq!(
                matches!(other.deadlock, Some(DeadlockAnswer::Found(_))),
                matches!(mole.deadlock, Some(DeadlockAnswer::Found(_))),
                "{file} with {order}"
            );
            let ms = |r: &PrefixRun| -> HashSet<Vec<u32>> {
                configuration_markings(&r.prefix, 1_000_000).unwrap()
            };
            assert_eq!(ms(&other), ms(&mole), "{file} with {order}: markings");
        }
    }
}
