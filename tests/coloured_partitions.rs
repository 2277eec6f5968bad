//! Partitions of coloured nets (`partition`, `partitionelementof`, `ltp`, `gtp`): the
//! hand-written net nets/pnml/col/Partition-levels.pnml unfolds to the P/T nodes and the
//! reachable markings counted by hand in its header comment, and ill-formed partitions are
//! refused at their element.

use crate::common;

use std::path::Path;

use unfold::explore::limits::Limits;
use unfold::explore::reach::explore;
use unfold::model::net::Net;
use unfold::model::net_system::NetSystem;

const LEVELS: &str = "nets/pnml/col/Partition-levels.pnml";

fn read(path: &Path) -> Net {
    unfold::formats::read_net(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .0
}

#[test]
fn partition_levels_unfolds_to_the_bindings_counted_by_hand() {
    let net = read(Path::new(LEVELS));
    let mut places: Vec<&str> = net.places.iter().map(|p| p.id.as_str()).collect();
    places.sort_unstable();
    let mut want: Vec<String> = ["idle", "busy"]
        .iter()
        .flat_map(|p| "abcde".chars().map(move |u| format!("{p}_{u}")))
        .chain(["seen_low", "seen_mid", "seen_high"].map(String::from))
        .collect();
    want.sort_unstable();
    assert_eq!(places, want);
    // enter: users whose level is not high; leave: the low user; pass: strictly upwards in
    // the declared order low < mid < high.
    let mut transitions: Vec<&str> = net.transitions.iter().map(|t| t.id.as_str()).collect();
    transitions.sort_unstable();
    let mut want = vec![
        "enter_a", "enter_b", "enter_c", "enter_d", "leave_a", "pass_a_b", "pass_a_c", "pass_a_d",
        "pass_a_e", "pass_b_e", "pass_c_e", "pass_d_e",
    ];
    want.sort_unstable();
    assert_eq!(transitions, want);
    // leave_a loops on seen_low: the element of `a` (partitionelementof in an inscription).
    let leave = net.transitions.iter().find(|t| t.id == "leave_a").unwrap();
    let seen_low = net.places.iter().position(|p| p.id == "seen_low").unwrap();
    assert!(leave.pre.iter().any(|a| a.place as usize == seen_low));
    assert!(leave.post.iter().any(|a| a.place as usize == seen_low));
    let initial: u32 = net.places.iter().map(|p| p.initial).sum();
    assert_eq!(initial, 8, "five idle users and the three levels once each");
}

#[test]
fn partition_levels_has_every_busy_set_reachable() {
    let net = read(Path::new(LEVELS));
    let sys = NetSystem::new(&net);
    let out = explore(&sys, &Limits::default(), &mut |_| {}, &mut |_, _| {}).expect("no overflow");
    assert!(out.stopped.is_none());
    // Every subset of the five users is a busy set (the header comment's argument).
    assert_eq!(out.space.len(), 32);
}

/// The net with `from` replaced by `to`, and the line and column of `mark` in the result.
fn levels_with(from: &str, to: &str, mark: &str) -> (Vec<u8>, usize, usize) {
    let text = std::fs::read_to_string(LEVELS).unwrap();
    let at = text.find(from).unwrap_or_else(|| panic!("no {from}"));
    let out = format!("{}{to}{}", &text[..at], &text[at + from.len()..]);
    let at = at + to.find(mark).unwrap_or_else(|| panic!("no {mark}"));
    let line = out[..at].matches('\n').count() + 1;
    let col = at - out[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    (out.into_bytes(), line, col)
}

#[test]
fn ill_formed_partitions_are_refused_at_their_element() {
    let high = r#"<partitionelement id="high" name="high"><useroperator declaration="e"/></partitionelement>"#;
    // The partition from its start tag to its last element, and the same without `e`.
    let text = std::fs::read_to_string(LEVELS).unwrap();
    let start = text.find("<partition id=").unwrap();
    let end = text.find(high).unwrap() + high.len();
    let whole = &text[start..end];
    let without_e = whole.replace(r#"<useroperator declaration="e"/>"#, "");
    // (what to replace, by what, where in the replacement the error is, words of the message)
    let cases: [(&str, &str, &str, &[&str]); 5] = [
        (
            whole,
            &without_e,
            "<partition",
            &["<partition>", "'e' is in no element of partition 'level'"],
        ),
        // `a` in two elements.
        (
            high,
            r#"<partitionelement id="high" name="high"><useroperator declaration="e"/><useroperator declaration="a"/></partitionelement>"#,
            r#"<useroperator declaration="a"/></partitionelement>"#,
            &["<useroperator>", "'a' is in two partition elements"],
        ),
        (
            r#"<partitionelementof refpartition="level"><subterm><variable refvariable="x"/></subterm></partitionelementof></subterm><subterm><useroperator declaration="high"/>"#,
            r#"<partitionelementof refpartition="nosuch"><subterm><variable refvariable="x"/></subterm></partitionelementof></subterm><subterm><useroperator declaration="high"/>"#,
            "<partitionelementof",
            &["<partitionelementof>", "unknown partition 'nosuch'"],
        ),
        // A partition element compared with a user.
        (
            r#"<useroperator declaration="high"/></subterm></inequality>"#,
            r#"<useroperator declaration="e"/></subterm></inequality>"#,
            "<useroperator",
            &["<useroperator>", "ill-typed"],
        ),
        // ltp on users, not on partition elements.
        (
            r#"<ltp><subterm><partitionelementof refpartition="level"><subterm><variable refvariable="x"/></subterm></partitionelementof></subterm><subterm><partitionelementof refpartition="level"><subterm><variable refvariable="y"/></subterm></partitionelementof></subterm></ltp>"#,
            r#"<ltp><subterm><variable refvariable="x"/></subterm><subterm><variable refvariable="y"/></subterm></ltp>"#,
            "<ltp",
            &["<ltp>", "compares partition elements"],
        ),
    ];
    for (from, to, mark, words) in cases {
        let (text, line, col) = levels_with(from, to, mark);
        common::info_rejects("bad-partition.pnml", &text, line, col, words);
    }
}
