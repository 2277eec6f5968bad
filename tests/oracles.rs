//! `unfold reach` against the published answers of ../shared/nets/ORACLES.tsv: state counts,
//! deadlocks, 1-safety and token bounds of the MCC rows, and the deadlock rows of the PEP nets.
//!
//! Release only (`cargo test --release`): it explores real state spaces, each net under a
//! 60-second budget. Nets that do not finish are listed, and at least 25 must be checked.

use crate::common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use unfold::explore::limits::Limits;
use unfold::explore::reach::{NetReach, explore_net};
use unfold::formats::read_net;

/// What one net's oracle rows say.
#[derive(Default, Debug)]
struct Expected {
    states: Option<u64>,
    deadlock: Option<bool>,
    one_safe: Option<bool>,
    max_in_place: Option<u64>,
    max_per_marking: Option<u64>,
}

fn expected(rows: &std::collections::BTreeMap<String, String>) -> Expected {
    let flag = |k: &str| rows.get(k).map(|v| v == "TRUE");
    // `-1` means unknown to the source; `+inf` or counts past 64 bits cannot be finished here.
    let count = |k: &str| rows.get(k).and_then(|v| v.parse::<u64>().ok());
    Expected {
        states: count("mcc.states"),
        deadlock: flag("mcc.deadlock").or_else(|| flag("deadlock")),
        one_safe: flag("mcc.one_safe"),
        max_in_place: count("mcc.max_tokens_in_place"),
        max_per_marking: count("mcc.max_tokens_per_marking"),
    }
}

fn check(file: &str, e: &Expected, r: &NetReach) -> Vec<String> {
    let mut bad = Vec::new();
    let mut cmp = |what: &str, want: Option<String>, got: String| {
        if let Some(want) = want
            && want != got
        {
            bad.push(format!("{file}: {what}: oracle {want}, reach {got}"));
        }
    };
    cmp(
        "states",
        e.states.map(|v| v.to_string()),
        r.states.to_string(),
    );
    cmp(
        "deadlock",
        e.deadlock.map(|v| v.to_string()),
        (r.deadlocks > 0).to_string(),
    );
    cmp(
        "one_safe",
        e.one_safe.map(|v| v.to_string()),
        r.safe.to_string(),
    );
    cmp(
        "max_tokens_in_place",
        e.max_in_place.map(|v| v.to_string()),
        r.max_tokens_in_place.to_string(),
    );
    cmp(
        "max_tokens_per_marking",
        e.max_per_marking.map(|v| v.to_string()),
        r.max_tokens_per_marking.to_string(),
    );
    bad
}

#[test]
#[cfg_attr(debug_assertions, ignore = "release only: cargo test --release")]
fn reach_agrees_with_published_answers() {
    let root = common::shared_nets();
    let oracles = common::oracles();
    let jobs: Vec<(String, Expected)> = oracles
        .iter()
        .filter(|(file, _)| !file.starts_with("pnml/col/"))
        .map(|(file, rows)| (file.clone(), expected(rows)))
        .filter(|(_, e)| e.states.is_some() || e.deadlock.is_some())
        .collect();
    assert!(
        jobs.len() >= 50,
        "only {} nets with oracle rows",
        jobs.len()
    );

    let next = AtomicUsize::new(0);
    let report = Mutex::new(Vec::new());
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((file, e)) = jobs.get(i) else { break };
                    let (net, _) = read_net(&root.join(file)).unwrap();
                    let limits = Limits::new(Some(Duration::from_secs(60)), None);
                    let r = explore_net(&net, &limits, &mut |_| {}).unwrap();
                    let line = format!(
                        "{file:48} states {:>10} deadlocks {:>8} safe {:5} {:>7.2}s {}",
                        r.states,
                        r.deadlocks,
                        r.safe,
                        limits.elapsed().as_secs_f64(),
                        if r.stopped.is_some() {
                            "NOT FINISHED"
                        } else {
                            "checked"
                        }
                    );
                    if r.stopped.is_none() {
                        failures.lock().unwrap().extend(check(file, e, &r));
                    } else if r.deadlocks > 0 && e.deadlock == Some(false) {
                        // A deadlock found before the limit is definitive.
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("{file}: deadlock found, oracle says none"));
                    }
                    report
                        .lock()
                        .unwrap()
                        .push((file.clone(), r.stopped.is_none(), line));
                }
            });
        }
    });
    let mut report = report.into_inner().unwrap();
    report.sort();
    for (_, _, line) in &report {
        println!("{line}");
    }
    let checked = report.iter().filter(|(_, done, _)| *done).count();
    println!("{checked} of {} nets checked", report.len());
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "disagreements:\n{}",
        failures.join("\n")
    );
    assert!(checked >= 25, "only {checked} nets finished within 60 s");
}
