//! Malformed PEP nets given to the real binary: `unfold info` exits with code 2 and prints one
//! line naming the file, the position and what is wrong.

use crate::common;

/// `unfold info` refuses `content` at `line:col` with a message containing `words`.
fn rejects(content: &[u8], line: u32, col: u32, words: &[&str]) {
    common::info_rejects("bad.ll_net", content, line as usize, col as usize, words);
}

const HEAD: &str = "PEP\nPTNet\nFORMAT_N\n";

fn net(body: &str) -> Vec<u8> {
    format!("{HEAD}{body}").into_bytes()
}

#[test]
fn missing_place_section() {
    rejects(&net("TR\n\"t\"\nTP\nPT\n"), 4, 1, &["missing", "PL"]);
}

#[test]
fn misplaced_section() {
    // PT before TR.
    rejects(
        &net("PL\n\"p\"M1\nPT\n1>1\nTR\n\"t\"\nTP\n"),
        6,
        1,
        &["PT", "out of order", "TR"],
    );
}

#[test]
fn arc_to_unknown_place() {
    rejects(
        &net("PL\n\"p\"M1\nTR\n\"t\"\nTP\n1<9\nPT\n1>1\n"),
        9,
        3,
        &["unknown place 9"],
    );
}

#[test]
fn arc_from_unknown_transition() {
    rejects(
        &net("PL\n\"p\"M1\nTR\n\"t\"\nTP\n5<1\nPT\n1>1\n"),
        9,
        1,
        &["unknown transition 5"],
    );
}

#[test]
fn zero_weight() {
    rejects(
        &net("PL\n\"p\"M1\nTR\n\"t\"\nTP\n1<1\nPT\n1>1w0\n"),
        11,
        5,
        &["weight", "at least 1"],
    );
}

#[test]
fn garbage_number() {
    rejects(
        &net("PL\n\"p\"M1\nTR\n\"t\"\nTP\n1<p1\nPT\n"),
        9,
        3,
        &["expected a number"],
    );
}

#[test]
fn number_too_large() {
    rejects(
        &net("PL\n\"p\"M99999999999999999999\nTR\nTP\nPT\n"),
        5,
        5,
        &["too large"],
    );
}

#[test]
fn truncated_after_header() {
    rejects(HEAD.as_bytes(), 4, 1, &["missing section", "PL"]);
}

#[test]
fn binary_junk_after_magic_word() {
    rejects(
        b"PEP\x00\x01\xff\xfe\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        1,
        4,
        &["PEP", "line break"],
    );
}
