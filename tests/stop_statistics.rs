//! A run stopped by the memory limit prints the statistics it has, marked incomplete, and
//! exits with 3 — whether the explorer stops itself or the process watchdog stops it (issue
//! 39: a run of the DPOR with cutoffs on rw_12 passed the explorers' budget unmeasured and was
//! stopped by the watchdog with no statistics).

use crate::common;

use serde_json::Value;

#[test]
fn a_memory_stop_prints_the_statistics_so_far() {
    let net = common::shared_nets().join("pep/rw_12.ll_net");
    let out = common::unfold()
        .arg(&net)
        .args(["--cutoffs", "--mem-limit", "40M", "--timeout", "120"])
        .args(["--json", "-", "-q"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Value = serde_json::from_slice(&out.stdout).expect("the statistics, as JSON");
    assert_eq!(j["complete"], false);
    assert_eq!(j["stopped"], "memory_limit", "{j}");
    assert_eq!(j["mode"], "udpor");
    // The explorer's own counts, not only the input and the phase.
    assert!(j["events"].as_u64().unwrap_or(0) > 0, "{j}");
    assert!(j["maximal_configurations"].as_u64().unwrap_or(0) > 0, "{j}");
}
