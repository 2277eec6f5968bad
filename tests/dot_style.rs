//! One visual style for the DPOR's and the prefix's drawings: snapshots pin both pictures of
//! ring-4 (and of the philosophers' deadlock), every drawing renders with GraphViz without a
//! warning, and the two share fonts, event and condition numbering from 1, the cutoff and
//! deadlock colours, the legend, and cutoff edges that do not constrain the layout.

use crate::common;

use std::process::Command as Std;

/// The DOT text `unfold ARGS --dot -` writes (exit 0 or 1: a deadlock found is fine).
fn drawing(args: &[&str]) -> String {
    let out = common::unfold()
        .args(args)
        .args(["--dot", "-", "-q"])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {out:?}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Checks that GraphViz lays out `text` without a word of complaint.
fn renders(text: &str, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.dot");
    std::fs::write(&file, text).unwrap();
    let svg = Std::new("dot")
        .args(["-Tsvg", "-o"])
        .arg(dir.path().join("out.svg"))
        .arg(&file)
        .output()
        .expect("GraphViz `dot` is installed (CI installs graphviz)");
    assert!(svg.status.success(), "{what}: {svg:?}");
    assert!(
        svg.stderr.is_empty(),
        "{what}: dot warnings: {}",
        String::from_utf8_lossy(&svg.stderr)
    );
}

/// The lines of `text` that set an attribute shared by every drawing.
fn common_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.trim_start().starts_with("node [") || l.trim_start().starts_with("edge ["))
        .collect()
}

#[test]
fn dpor_and_prefix_drawings_share_one_style() {
    let dpor = drawing(&["nets/ring-4.pnml", "--cutoffs"]);
    let prefix = drawing(&["prefix", "nets/ring-4.pnml"]);
    let dpor_deadlock = drawing(&["nets/philosophers-5.pnml", "--cutoffs"]);
    let prefix_deadlock = drawing(&["prefix", "--deadlock", "nets/philosophers-5.pnml"]);
    let conditions = drawing(&["nets/philosophers-5.pnml", "--cutoffs", "--dot-conditions"]);
    for (name, text) in [
        ("dpor-ring-4", &dpor),
        ("prefix-ring-4", &prefix),
        ("dpor-philosophers-5", &dpor_deadlock),
        ("prefix-philosophers-5", &prefix_deadlock),
        ("dpor-conditions-philosophers-5", &conditions),
    ] {
        renders(text, name);
        assert_eq!(
            common_lines(text),
            common_lines(&dpor),
            "{name}: the same fonts"
        );
        assert!(text.contains("legend ["), "{name}: a legend");
        assert!(text.contains("e1 [label=\"e1:"), "{name}: events from e1");
        assert!(!text.contains("\"e0:"), "{name}: no event 0");
        insta::assert_snapshot!(name, text);
    }
    for text in [&prefix, &conditions] {
        assert!(
            text.contains("c1 [shape=circle, label=\"c1:"),
            "conditions from c1"
        );
    }
    // Cutoffs: grey and dashed in both, their edges to the corresponding event outside the
    // layout.
    for text in [&dpor, &prefix] {
        let cutoff = "style=\"dashed\", color=gray, fontcolor=gray";
        assert!(text.contains(cutoff), "cutoffs drawn alike: {text}");
        let edges: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("style=\"dotted\""))
            .collect();
        assert!(!edges.is_empty());
        assert!(
            edges.iter().all(|l| l.contains("constraint=false")),
            "{edges:?}"
        );
    }
    // The deadlock of the philosophers: red in both.
    for text in [&dpor_deadlock, &prefix_deadlock] {
        assert!(text.contains("color=red, penwidth=2"), "{text}");
    }
}
