//! A refused drawing keeps the answer (issue 39.4): the limit is checked as the prefix grows
//! and said at once, the run's exit code stays (a deadlock is 1), the message offers
//! `--dot-limit N`; output paths that cannot be written are refused before the run starts.

use crate::common;

use std::path::PathBuf;

fn shared(path: &str) -> PathBuf {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(path);
    assert!(
        file.is_file(),
        "{} is missing: these tests need ../shared beside the checkout",
        file.display()
    );
    file
}

#[test]
fn a_prefix_too_large_to_draw_keeps_its_deadlock() {
    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("k.dot");
    let out = common::unfold()
        .args(["prefix", "--deadlock", "-q", "--dot-limit", "100", "--dot"])
        .arg(&dot)
        .arg(shared("nets/pep/key_3.sync.ll_net"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "the deadlock's exit code: {out:?}"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("deadlock witness"), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    // Said as the prefix passes the limit, then with the size once it is known.
    let ahead = err
        .find("has passed --dot-limit 100")
        .expect("said at once");
    let after = err
        .find("more than --dot-limit 100")
        .expect("said at the end");
    assert!(ahead < after, "{err}");
    let nodes: u64 = ["conditions", "events"]
        .iter()
        .map(|k| {
            text.lines()
                .find_map(|l| l.strip_prefix(k))
                .unwrap()
                .trim()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert!(
        err.contains(&format!("(--dot-limit {nodes} draws it)")),
        "{err}"
    );
    assert!(!dot.exists());
}

#[test]
fn unwritable_outputs_are_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/dir/out");
    let net = shared("nets/pep/peterson.ll_net");
    for (mode, flag) in [
        ("prefix", "--dot"),
        ("prefix", "--mci"),
        ("prefix", "--json"),
        ("run", "--dot"),
        ("run", "--json"),
    ] {
        let out = common::unfold()
            .args([mode, "-q", flag])
            .arg(&missing)
            .arg(&net)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{mode} {flag}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("cannot write") && err.contains(flag), "{err}");
        // Refused before the run: no statistics were printed.
        assert!(out.stdout.is_empty(), "{mode} {flag}: {out:?}");
    }
    // A writable path is left as it was found: absent until the run writes it.
    let fine = dir.path().join("p.json");
    let out = common::unfold()
        .args(["prefix", "-q", "--json"])
        .arg(&fine)
        .arg(&net)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        std::fs::read_to_string(&fine)
            .unwrap()
            .contains("\"events\"")
    );
}
