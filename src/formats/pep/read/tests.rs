//! The PEP reader's tests: each reads a whole file, through both the quick and the general
//! reading of lines.

use std::path::Path;

use super::*;
use crate::formats::Position;
use crate::model::net::Arc;

fn read(text: &str) -> Result<Net, ReadError> {
    parse(text.as_bytes(), Path::new("dir/test.ll_net"))
}

fn ok(text: &str) -> Net {
    read(text).unwrap_or_else(|e| panic!("{e}"))
}

/// The error's line, column and message.
fn err(text: &[u8]) -> (u32, u32, String) {
    match parse(text, Path::new("bad.ll_net")) {
        Err(ReadError::Parse {
            pos: Some(Position::LineCol { line, col }),
            message,
            ..
        }) => (line, col, message),
        other => panic!("expected a parse error with a position, got {other:?}"),
    }
}

fn arcs(v: &[Arc]) -> Vec<(u32, u32)> {
    v.iter().map(|a| (a.place, a.weight)).collect()
}

const HEAD: &str = "PEP\nPTNet\nFORMAT_N\n";

#[test]
fn implicit_numbering() {
    let net = ok(&format!(
        "{HEAD}PL\n\"a\"M1\n\"b\"\nTR\n\"t\"\n\"u\"\nTP\n1<2\n2<1\nPT\n1>1\n2>2\n"
    ));
    assert_eq!(net.name, "test");
    let ids: Vec<_> = net
        .places
        .iter()
        .map(|p| (&*p.id, &*p.label, p.initial))
        .collect();
    assert_eq!(ids, [("p1", "a", 1), ("p2", "b", 0)]);
    assert_eq!(net.transitions[0].id, "t1");
    assert_eq!(net.transitions[1].label, "u");
    assert_eq!(arcs(&net.transitions[0].pre), [(0, 1)]);
    assert_eq!(arcs(&net.transitions[0].post), [(1, 1)]);
    assert_eq!(arcs(&net.transitions[1].pre), [(1, 1)]);
    assert_eq!(arcs(&net.transitions[1].post), [(0, 1)]);
}

#[test]
fn explicit_numbering_with_gaps_and_any_order() {
    let net = ok(&format!(
        "{HEAD}PL\n7\"a\"\n3\"b\"M2\nTR\n10\"t\"\nTP\n10<7\nPT\n3>10\n"
    ));
    assert_eq!(net.places[0].id, "p7");
    assert_eq!(net.places[1].id, "p3");
    assert_eq!(net.places[1].initial, 2);
    assert_eq!(net.transitions[0].id, "t10");
    assert_eq!(arcs(&net.transitions[0].post), [(0, 1)]);
    assert_eq!(arcs(&net.transitions[0].pre), [(1, 1)]);
}

#[test]
fn shared_number_range() {
    // Places 1..2, transitions 3..4; arcs use those numbers.
    let net = ok(&format!(
        "{HEAD}PL\n1\"p\"M1\n2\"q\"\nTR\n3\"t\"\n4\"u\"\nTP\n3<2\n4<1\nPT\n1>3\n2>4\n"
    ));
    assert_eq!(net.transitions[0].id, "t3");
    assert_eq!(arcs(&net.transitions[0].pre), [(0, 1)]);
    assert_eq!(arcs(&net.transitions[1].post), [(0, 1)]);
    // Number 1 names a place in PT but there is no transition 1.
    let (l, c, m) = err(format!("{HEAD}PL\n1\"p\"\nTR\n3\"t\"\nTP\nPT\n1>1\n").as_bytes());
    assert_eq!((l, c), (10, 3));
    assert!(m.contains("unknown transition 1"), "{m}");
}

#[test]
fn separate_ranges_may_overlap() {
    let net = ok(&format!("{HEAD}PL\n1\"p\"\nTR\n1\"t\"\nTP\n1<1\nPT\n1>1\n"));
    assert_eq!(net.places[0].id, "p1");
    assert_eq!(net.transitions[0].id, "t1");
    assert_eq!(net.arc_count(), 2);
}

#[test]
fn implicit_after_out_of_sequence_is_an_error() {
    let (l, _, m) = err(format!("{HEAD}PL\n5\"a\"\n\"b\"\nTR\nTP\nPT\n").as_bytes());
    assert_eq!(l, 6);
    assert!(m.contains("without a number"), "{m}");
    // In sequence, mixing is fine.
    let net = ok(&format!("{HEAD}PL\n1\"a\"\n\"b\"\n3\"c\"\nTR\nTP\nPT\n"));
    assert_eq!(net.places[1].id, "p2");
}

#[test]
fn comments_blank_lines_and_percent_in_strings() {
    let net = ok(concat!(
        "% leading comment\n\nPEP % magic\nPetriBox\r\nFORMAT_N2\n%c\n",
        "DPL s7n10@-9t2\nDTR s7n10@-9t2\nDPT w1t1\nBL\n1 \"B1\"1710@630 b\"blk\"\n",
        "PL\n  \n\"a%b\"1@2b\"x % y\"R\"(1,2;3,4)\"eM1m1M1 % trailing\n",
        "TR\n\"t\"3@4v65P\"(1)\"b\"<j' = (('j + 1) % 2)>\"u\"(1)\"S\n",
        "PTR\n1\"PT1\"1230@150P\"(1)\"v64\nTP\n1<1J153@81\nPT\n1>1v4\nPTP\n1<6\nPPT\n",
        "TX\nanything at all \" here\nPL\n",
    ));
    assert_eq!(net.places[0].label, "a%b");
    assert_eq!(net.places[0].initial, 1);
    assert_eq!(net.transitions[0].label, "t");
    assert_eq!(net.arc_count(), 2);
}

#[test]
fn arcs_in_any_order_fill_lists_allocated_at_their_size() {
    let net = ok(&format!(
        "{HEAD}PL\n\"a\"\n\"b\"\n\"c\"\nTR\n\"t\"\n\"u\"\nTP\n1<3\n2<1\n1<1\n1<2\n2<3\n\
             PT\n2>2\n1>1\n3>1\n"
    ));
    let (t, u) = (&net.transitions[0], &net.transitions[1]);
    assert_eq!(arcs(&t.post), [(0, 1), (1, 1), (2, 1)]);
    assert_eq!(arcs(&u.post), [(0, 1), (2, 1)]);
    assert_eq!(arcs(&t.pre), [(0, 1), (2, 1)]);
    assert_eq!(arcs(&u.pre), [(1, 1)]);
    // (Lists up to the inline size take no allocation.)
    for list in [&t.pre, &t.post, &u.pre, &u.post] {
        assert_eq!(list.capacity(), list.len().max(list.inline_size()));
    }
}

#[test]
fn read_arcs() {
    let net = ok(&format!(
        "{HEAD}PL\n\"a\"M1\n\"b\"\n\"mid\"M1\nTR\n\"t\"\nTP\n1<2\nPT\n1>1\nRA\n1<3\n"
    ));
    assert_eq!(arcs(&net.transitions[0].reads), [(2, 1)]);
    assert_eq!(net.read_arc_count(), 1);
    let (l, c, m) = err(format!("{HEAD}PL\n\"a\"\nTR\n\"t\"\nTP\nPT\nRA\n1<9\n").as_bytes());
    assert_eq!((l, c), (11, 3));
    assert!(m.contains("unknown place 9") && m.contains("RA"), "{m}");
}

#[test]
fn weights_and_markings() {
    let net = ok(&format!(
        "{HEAD}PL\n\"a\"M5\n\"b\"M0\nTR\n\"t\"\nTP\n1<2w3\nPT\n1>1 w2 v4\n"
    ));
    assert_eq!(net.places[0].initial, 5);
    assert_eq!(net.places[1].initial, 0);
    assert_eq!(arcs(&net.transitions[0].pre), [(0, 2)]);
    assert_eq!(arcs(&net.transitions[0].post), [(1, 3)]);
    // The DPT default weight applies to arcs without w.
    let net = ok("PEP\nPTNet\nFORMAT_N\nDPT w2\nPL\n\"a\"\nTR\n\"t\"\nTP\n1<1\nPT\n1>1w1\n");
    assert_eq!(arcs(&net.transitions[0].post), [(0, 2)]);
    assert_eq!(arcs(&net.transitions[0].pre), [(0, 1)]);
}

#[test]
fn zero_weight_is_an_error() {
    let (l, c, m) = err(format!("{HEAD}PL\n\"a\"\nTR\n\"t\"\nTP\n1<1w0\nPT\n").as_bytes());
    assert_eq!((l, c), (9, 5));
    assert!(m.contains("weight"), "{m}");
    let (_, _, m) = err(format!("{HEAD}DPT w0\nPL\nTR\nTP\nPT\n").as_bytes());
    assert!(m.contains("weight"), "{m}");
    let (_, _, m) = err(format!("{HEAD}PL\n\"a\"\nTR\n\"t\"\nTP\n1<1w\nPT\n").as_bytes());
    assert!(m.contains("'w' needs a value"), "{m}");
}

#[test]
fn empty_name_falls_back_to_id() {
    let net = ok(&format!("{HEAD}PL\n4\"\"\nTR\n2\nTP\nPT\n"));
    assert_eq!(net.places[0].label, "p4");
    assert_eq!(net.transitions[0].label, "t2");
}

#[test]
fn missing_section() {
    let (l, c, m) = err(format!("{HEAD}TR\n\"t\"\nTP\nPT\n").as_bytes());
    assert_eq!((l, c), (4, 1));
    assert!(m.contains("missing section 'PL'"), "{m}");
    let (l, _, m) = err(format!("{HEAD}PL\nTR\nTP\n").as_bytes());
    assert_eq!(l, 7);
    assert!(m.contains("missing section 'PT'"), "{m}");
}

#[test]
fn misplaced_sections() {
    let (l, _, m) = err(format!("{HEAD}PL\nPT\nTR\nTP\n").as_bytes());
    assert_eq!(l, 5);
    assert!(
        m.contains("'PT'") && m.contains("after section 'TR'"),
        "{m}"
    );
    let (l, _, m) = err(format!("{HEAD}PL\nTR\nTP\nPT\nTP\n").as_bytes());
    assert_eq!(l, 8);
    assert!(m.contains("'TP' is out of order"), "{m}");
    let (_, _, m) = err(format!("{HEAD}PL\nPL\n").as_bytes());
    assert!(m.contains("twice"), "{m}");
    let (_, _, m) = err(format!("{HEAD}PL\nTR\nTP\nPT\nXY\n").as_bytes());
    assert!(m.contains("unknown section 'XY'"), "{m}");
    let (l, c, m) = err(format!("{HEAD}1\"a\"\nPL\n").as_bytes());
    assert_eq!((l, c), (4, 1));
    assert!(m.contains("section keyword"), "{m}");
}

#[test]
fn header_errors() {
    let (l, c, m) = err(b"");
    assert_eq!((l, c), (1, 1));
    assert!(m.contains("empty"), "{m}");
    let (_, _, m) = err(b"  % only a comment\n");
    assert!(m.contains("empty"), "{m}");
    let (_, _, m) = err(b"PEP\nPTNet\n");
    assert!(m.contains("FORMAT_N"), "{m}");
    let (_, _, m) = err(b"PEP\nFORMAT_N\nPL\n");
    assert!(m.contains("net type"), "{m}");
    let (_, _, m) = err(b"PEP\nPTNet\nFORMAT_N\n");
    assert!(m.contains("missing section 'PL'"), "{m}");
    let (l, c, m) = err(b"PEP\x00\xff\xfe\x01junk\n");
    assert_eq!((l, c), (1, 4));
    assert!(m.contains("after 'PEP'"), "{m}");
    let (_, _, m) = err(b"PEPX");
    assert!(m.contains("after 'PEP'"), "{m}");
    let (_, _, m) = err(b"NOTPEP\n");
    assert!(m.contains("expected 'PEP'"), "{m}");
    // A byte-order mark and other format words are fine.
    ok("\u{feff}PEP\nPTNet\nFORMAT_X\nPL\nTR\nTP\nPT\n");
}

#[test]
fn bad_lines() {
    let cases: &[(&[u8], &str)] = &[
        (b"PL\n1\"a\"M99999999999\n", "too large"),
        (b"PL\n1\"a\"M-1\n", "negative"),
        (b"PL\n1\"a\"Mx\n", "'M' needs a value"),
        (b"PL\n1\"a\n", "unterminated"),
        (b"PL\n1\"a\"\"b\"\n", "second quoted name"),
        (b"PL\n1\"a\"2\n", "unexpected number 2"),
        (b"PL\n1\"a\"#\n", "unexpected character"),
        (b"PL\n1\"a\"\n1\"b\"\n", "duplicate place number 1"),
        (b"PL\n1\"\xff\"\n", "UTF-8"),
        (b"PL\n\"a\"\nTR\n\"t\"\nTP\n1>1\n", "expected '<'"),
        (b"PL\n\"a\"\nTR\n\"t\"\nTP\nx<1\n", "expected a number"),
        (b"PL\n\"a\"\nTR\n\"t\"\nTP\n1<x\n", "expected a number"),
        (b"PL\n\"a\"\nTR\n\"t\"\nTP\n1<1\"z\"\n", "unexpected"),
        (
            b"PL\n\"a\"\nTR\n\"t\"\nTP\n1<1\n1<1\n",
            "duplicate output arc",
        ),
        (
            b"PL\n\"a\"\nTR\n\"t\"\nTP\nPT\n1>1\n1>1w2\n",
            "duplicate input arc",
        ),
        (b"PL\n\"a\"\nTR\n\"t\"\nTP\n5<1\n", "unknown transition 5"),
        (b"PL\nTR\nTP\nPT\nPT\n", "twice"),
        (b"PL extra\n", "after section keyword"),
        (b"DPL s7\n1\"a\"\n", "one-line section"),
    ];
    for (body, want) in cases {
        let mut text = HEAD.as_bytes().to_vec();
        text.extend_from_slice(body);
        let (_, _, m) = err(&text);
        assert!(m.contains(want), "{}: {m}", String::from_utf8_lossy(body));
    }
}

#[test]
fn error_display_has_file_and_position() {
    let e = read(&format!("{HEAD}PL\n\"a\"\nTR\n\"t\"\nTP\n1<7\nPT\n")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "dir/test.ll_net:9:3: unknown place 7 in an arc of section TP"
    );
}

#[test]
fn junk_never_panics() {
    // Prefixes and byte-flipped variants of a valid net: errors, never panics or hangs.
    let good = format!(
        "{HEAD}DPT w1\nPL\n1\"a\"1@2M1\n2'b'\nTR\n1\"t\"v3\nTP\n1<2w2\nPT\n1>1\nRA\n1<2\nTX\nx\n"
    );
    let good = good.as_bytes();
    for cut in 0..good.len() {
        let _ = parse(&good[..cut], Path::new("x"));
        for junk in [b'\0', b'"', b'\n', b'%', b'-', b'@', 0xff] {
            let mut v = good.to_vec();
            v[cut] = junk;
            let _ = parse(&v, Path::new("x"));
        }
    }
    ok(std::str::from_utf8(good).unwrap());
}

#[test]
fn quick_and_general_lines_read_alike() {
    // The same net in the common form (read by the quick path) and with blanks, comments
    // and attribute order that only the general reader takes.
    let quick = ok(&format!(
        "{HEAD}PL\n1\"a b%\"M2\n2'q\"'\n\"\"M0\nTR\n1\"t\"\n2\"\"\nTP\n1<2\n2<3w4\n\
             PT\n1>1\n3@2w2\nRA\n2<1\n"
    ));
    let general = ok(&format!(
        "{HEAD}PL\n 1 \"a b%\" M 2\n2 'q\"' % c\n\"\" M0 \nTR\n1\"t\" v1\n 2\"\"\nTP\n1 <2\n\
             2<3 w4\nPT\n1>1 % c\n3@2 w 2\nRA\n2<1 \n"
    ));
    assert_eq!(quick, general);
    assert_eq!(quick.places[0].label, "a b%");
    assert_eq!(quick.places[0].initial, 2);
    assert_eq!(quick.places[1].label, "q\"");
    assert_eq!(quick.places[2].id, "p3");
    assert_eq!(quick.places[2].label, "p3");
    assert_eq!(quick.transitions[1].label, "t2");
    assert_eq!(arcs(&quick.transitions[1].post), [(2, 4)]);
    assert_eq!(arcs(&quick.transitions[1].pre), [(2, 2)]);
    assert_eq!(arcs(&quick.transitions[1].reads), [(0, 1)]);
    // Carriage returns and a last line without a line break.
    let crlf = ok(&format!(
        "{HEAD}PL\r\n1\"a\"M1\r\n\"b\"\r\nTR\r\n1\"t\"\r\nTP\r\n1<2\r\nPT\r\n1>1"
    ));
    assert_eq!(crlf.places[1].id, "p2");
    assert_eq!(crlf.places[0].initial, 1);
    assert_eq!(arcs(&crlf.transitions[0].pre), [(0, 1)]);
    let cr_at_end = ok(&format!("{HEAD}PL\n1\"a\"\nTR\n1\"t\"\nTP\nPT\n1>1\r"));
    assert_eq!(arcs(&cr_at_end.transitions[0].pre), [(0, 1)]);
}

#[test]
fn quick_lines_report_errors_like_the_general_reader() {
    // (body after HEAD, line, column, part of the message): each line has the quick form
    // up to the error, or falls back to the general reader at the error.
    let cases: &[(&[u8], u32, u32, &str)] = &[
        (b"PL\n1\"a\"\n1\"b\"\n", 6, 1, "duplicate place number 1"),
        (
            b"PL\nTR\n7\"t\"\n7\"u\"\n",
            7,
            1,
            "duplicate transition number 7",
        ),
        (b"PL\n5\"a\"\n\"b\"\n", 6, 1, "without a number"),
        (b"PL\n0\"a\"\n\"b\"\n", 6, 1, "without a number"),
        (
            b"PL\n1\"a\"\n\"b\"\n2\"c\"\n",
            7,
            1,
            "duplicate place number 2",
        ),
        (b"PL\n1'a\"'\n1\"b\"\n", 6, 1, "duplicate place number 1"),
        (
            b"PL\n1\"a\"M1%x\n1\"b\"\n",
            6,
            1,
            "duplicate place number 1",
        ),
        (
            b"PL\n1\"ab\xff\"\n",
            5,
            5,
            "the place name is not valid UTF-8",
        ),
        (
            b"PL\n1\"a\"M99999999999\n",
            5,
            6,
            "number 99999999999 is too large",
        ),
        (
            b"PL\n99999999999\"a\"\n",
            5,
            1,
            "number 99999999999 is too large",
        ),
        (b"PL\n1\"a\"M\n", 5, 5, "'M' needs a value"),
        (b"PL\n1\"a\n", 5, 2, "unterminated"),
        (b"PL\n1\"a\"\"b\"\n", 5, 5, "a second quoted name"),
        (b"PL\n1\"a\"M1\r\r\n", 5, 7, "unexpected character '\\r'"),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<2\nPT\n",
            9,
            3,
            "unknown place 2",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n2<1\nPT\n",
            9,
            1,
            "unknown transition 2",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\nPT\n1>2\n",
            10,
            3,
            "unknown transition 2",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\nPT\n2>1\n",
            10,
            1,
            "unknown place 2",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<0\nPT\n",
            9,
            3,
            "unknown place 0",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1\n1<1w2\nPT\n",
            10,
            1,
            "duplicate output arc between place 'p1' and transition 't1'",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1@1\n1<1\nPT\n",
            10,
            1,
            "duplicate output arc",
        ),
        (
            b"PL\n0\"a\"\nTR\n0\"t\"\nTP\n0<0\n0<0\nPT\n",
            10,
            1,
            "duplicate output arc between place 'p0' and transition 't0'",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1\nPT\n1>1\n1>1\n",
            12,
            1,
            "duplicate input arc",
        ),
        // Arcs reach the builder when their section ends: a duplicate is still the error
        // reported when a later line of the section, a later section or the end of the
        // file has another one.
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1\n1<1\n5<1\nPT\n",
            10,
            1,
            "duplicate output arc",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1\n1<1\nPT\n1>1\nPT\n",
            10,
            1,
            "duplicate output arc",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1\n1<1\n",
            10,
            1,
            "duplicate output arc",
        ),
        (
            b"PL\n1\"a\"\n2\"b\"\nTR\n1\"t\"\n2\"u\"\nTP\n1<1\n2<2\n1<2\n2<1\n1<1\n2<2\nPT\n",
            15,
            1,
            "duplicate output arc between place 'p1' and transition 't1'",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1w0\nPT\n",
            9,
            5,
            "at least 1, found 0",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1w\nPT\n",
            9,
            4,
            "'w' needs a value",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1w9999999999\nPT\n",
            9,
            5,
            "number 9999999999 is too large",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1>1\nPT\n",
            9,
            2,
            "expected '<'",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<x\nPT\n",
            9,
            3,
            "expected a number",
        ),
        (
            b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<12345678901\nPT\n",
            9,
            3,
            "number 12345678901 is too large",
        ),
    ];
    for &(body, line, col, want) in cases {
        let mut text = HEAD.as_bytes().to_vec();
        text.extend_from_slice(body);
        let (l, c, m) = err(&text);
        let shown = String::from_utf8_lossy(body);
        assert!(m.contains(want), "{shown}: {m}");
        assert_eq!((l, c), (line, col), "{shown}: {m}");
    }
}

#[test]
fn numbers_far_apart() {
    // Numbers beyond the dense table (and one at the largest u32) are found by arcs and
    // checked for duplicates all the same.
    let net = ok(&format!(
        "{HEAD}PL\n4294967295\"a\"\n3\"b\"\n100000\"c\"\nTR\n999999999\"t\"\n2\"u\"\n\
             TP\n999999999<100000\n2<4294967295\nPT\n3>999999999\n"
    ));
    assert_eq!(net.places[0].id, "p4294967295");
    assert_eq!(net.transitions[0].id, "t999999999");
    assert_eq!(arcs(&net.transitions[0].post), [(2, 1)]);
    assert_eq!(arcs(&net.transitions[0].pre), [(1, 1)]);
    assert_eq!(arcs(&net.transitions[1].post), [(0, 1)]);
    let (l, _, m) = err(format!("{HEAD}PL\n100000\"c\"\n1\"a\"\n100000\"d\"\n").as_bytes());
    assert_eq!(l, 7);
    assert!(m.contains("duplicate place number 100000"), "{m}");
    let (l, _, m) = err(format!("{HEAD}PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<100000\nPT\n").as_bytes());
    assert_eq!(l, 9);
    assert!(m.contains("unknown place 100000"), "{m}");
    // Many nodes numbered downwards, then upwards with gaps: the table grows on the way.
    let mut text = format!("{HEAD}PL\n");
    for n in (1..=3000).rev().chain((5000..9000).step_by(3)) {
        text += &format!("{n}\"\"\n");
    }
    text += "TR\n1\"t\"\nTP\n1<8999\n1<1\nPT\n3000>1\n";
    let net = ok(&text);
    assert_eq!(net.places[0].id, "p3000");
    assert_eq!(net.places.len(), 3000 + 1334);
    assert_eq!(net.places.last().unwrap().id, "p8999");
    assert_eq!(arcs(&net.transitions[0].post), [(2999, 1), (4333, 1)]);
    assert_eq!(arcs(&net.transitions[0].pre), [(0, 1)]);
}

#[test]
fn numbered_ids() {
    for n in [0, 1, 9, 10, 99, 100, 123_456_789, u32::MAX] {
        assert_eq!(numbered_id(b'p', n), format!("p{n}"));
    }
}
