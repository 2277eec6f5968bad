//! The memory-bounded cache of the unfolding DPOR, through the binary: a `--mem-limit` that
//! forces evictions changes none of the answers, and the peak resident memory, measured from
//! outside with `/usr/bin/time -v`, stays under the limit.

use crate::common;

use std::process::Command;

use serde_json::Value;

/// Runs `unfold ARGS --json -` under `/usr/bin/time -v`: the JSON and the peak resident
/// memory in bytes.
fn run_measured(args: &[&str]) -> (Value, u64) {
    let bin = assert_cmd::cargo::cargo_bin("unfold");
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(&bin)
        .args(args)
        .args(["--json", "-", "-q", "--no-fail"])
        .output()
        .expect("/usr/bin/time runs (CI installs the `time` package)");
    assert!(
        out.status.success(),
        "unfold {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kb: u64 = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok())
        .expect("time -v reports the maximum resident set size");
    (json, kb * 1024)
}

const SAME: [&str; 5] = [
    "maximal_configurations",
    "events",
    "cutoffs",
    "deadlocks",
    "blocked",
];

#[test]
fn a_limit_that_forces_evictions_changes_no_answer_and_holds() {
    let net = common::shared_nets().join("pep/rw_1w2r.ll_net");
    let net = net.to_str().unwrap();
    let (free, free_rss) = run_measured(&[net, "--cutoffs"]);
    assert_eq!(free["complete"], true);
    assert_eq!(free["cache_evictions"], 0, "no limit, no eviction");
    // The explorer's own data must be a large part of the unlimited run, or the limit below
    // would test nothing. (A third, not a half: the rest, the binary and the allocator's
    // own, is about 10 MiB in debug builds, near the explorer's.)
    let held = free["explorer_bytes"].as_u64().unwrap();
    assert!(held * 3 > free_rss, "explorer {held} B of {free_rss} B");
    let limit = free_rss - held / 5;
    let limit_arg = limit.to_string();
    let (bounded, bounded_rss) = run_measured(&[net, "--cutoffs", "--mem-limit", &limit_arg]);
    assert_eq!(bounded["complete"], true, "{bounded}");
    for key in SAME {
        assert_eq!(bounded[key], free[key], "{key}");
    }
    assert!(
        bounded["cache_evictions"].as_u64().unwrap() > 0,
        "{bounded}"
    );
    assert!(
        bounded_rss <= limit,
        "peak RSS {bounded_rss} B over the limit {limit} B (unlimited: {free_rss} B)"
    );
    // Without the cache, G stays empty: the same answers again.
    let (off, _) = run_measured(&[net, "--cutoffs", "--cache", "off"]);
    for key in SAME {
        assert_eq!(off[key], free[key], "{key}, cache off");
    }
    assert!(off["peak_g"].as_u64().unwrap() <= free["peak_g"].as_u64().unwrap());
}

#[test]
fn a_limit_too_small_for_u_stops_cleanly() {
    let net = common::shared_nets().join("pep/rw_1w2r.ll_net");
    let net = net.to_str().unwrap();
    let (free, free_rss) = run_measured(&[net, "--cutoffs"]);
    // What the process holds besides the explorer, plus an eighth of what the explorer held:
    // U and the state table cannot fit.
    let held = free["explorer_bytes"].as_u64().unwrap();
    let limit = (free_rss - held + held / 8).to_string();
    let bin = assert_cmd::cargo::cargo_bin("unfold");
    let out = Command::new(&bin)
        .args([net, "--cutoffs", "--json", "-", "-q", "--mem-limit", &limit])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["complete"], false);
    assert_eq!(json["stopped"], "memory_limit");
    assert!(json["events"].as_u64().unwrap() > 0);
}
