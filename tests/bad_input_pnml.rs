//! Malformed PNML files given to the real binary: `unfold info` exits with code 2 and prints one
//! line naming the file, the position and what is wrong.

use crate::common;

/// The 1-based line and column of byte `offset` of `text`.
fn line_col(text: &[u8], offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    (line, offset - start + 1)
}

/// The position of the last occurrence of `needle` in `text`, plus `skip` bytes.
fn at(text: &str, needle: &str, skip: usize) -> (usize, usize) {
    let offset = text
        .rfind(needle)
        .unwrap_or_else(|| panic!("'{needle}' not in the test input"));
    line_col(text.as_bytes(), offset + skip)
}

/// `unfold info` refuses `content` at `(line, col)` with a message containing `words`.
fn rejects(content: &[u8], (line, col): (usize, usize), words: &[&str]) {
    common::info_rejects("bad.pnml", content, line, col, words);
}

const PTNET: &str = "http://www.pnml.org/version-2009/grammar/ptnet";

/// A P/T net with places `p`, `q` and transition `t`, then `body`.
fn net(body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">
  <net id="n" type="{PTNET}">
    <page id="page0">
      <place id="p"><initialMarking><text>1</text></initialMarking></place>
      <place id="q"/>
      <transition id="t"/>
{body}
    </page>
  </net>
</pnml>
"#
    )
}

/// An arc p → t with inscription `weight`.
fn weighted(weight: &str) -> String {
    net(&format!(
        r#"      <arc id="a1" source="p" target="t"><inscription><text>{weight}</text></inscription></arc>"#
    ))
}

#[test]
fn empty_file() {
    rejects(b"", (1, 1), &["empty"]);
}

#[test]
fn binary_junk() {
    let junk = b"\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe\x03\x00>\x00";
    rejects(junk, (1, 11), &["UTF-8", "binary"]);
}

#[test]
fn truncated_xml() {
    let full = net(r#"      <arc id="a1" source="p" target="t"/>"#);
    // Cut after a complete element: the page, net and pnml elements stay open.
    let tag = r#"<transition id="t"/>"#;
    let cut = &full[..full.find(tag).unwrap() + tag.len() + 1];
    let end = line_col(cut.as_bytes(), cut.len());
    rejects(
        cut.as_bytes(),
        end,
        &["end of file", "<page> opened at 4:5 is not closed"],
    );
    // Cut inside a tag.
    let cut = &full[..full.find(tag).unwrap() + 12];
    rejects(cut.as_bytes(), (7, 7), &["malformed XML", "not closed"]);
}

#[test]
fn unknown_arc_endpoint() {
    let text = net(r#"      <arc id="a1" source="p" target="nowhere"/>"#);
    rejects(
        text.as_bytes(),
        at(&text, "<arc", 0),
        &["arc 'a1'", "unknown target 'nowhere'"],
    );
}

#[test]
fn arc_between_two_places() {
    let text = net(r#"      <arc id="a1" source="p" target="q"/>"#);
    rejects(
        text.as_bytes(),
        at(&text, "<arc", 0),
        &["arc 'a1'", "two places"],
    );
}

#[test]
fn weight_zero() {
    let text = weighted("0");
    rejects(
        text.as_bytes(),
        at(&text, "<text>0", 6),
        &["arc 'a1'", "at least 1"],
    );
}

#[test]
fn negative_weight() {
    let text = weighted("-2");
    rejects(
        text.as_bytes(),
        at(&text, "<text>-2", 6),
        &["arc 'a1'", "negative"],
    );
}

#[test]
fn weight_not_a_number() {
    let text = weighted(" two ");
    rejects(
        text.as_bytes(),
        at(&text, "two", 0),
        &["arc 'a1'", "not a number", "'two'"],
    );
}

#[test]
fn duplicate_ids() {
    let text = net(r#"      <place id="p"/>"#);
    rejects(
        text.as_bytes(),
        at(&text, r#"<place id="p"/>"#, 0),
        &["duplicate id 'p'", "first declared at 5:7"],
    );
}

#[test]
fn reference_cycle() {
    let text = net(r#"      <referencePlace id="r1" ref="r2"/>
      <referencePlace id="r2" ref="r1"/>
      <arc id="a1" source="r1" target="t"/>"#);
    rejects(
        text.as_bytes(),
        at(&text, r#"<referencePlace id="r1""#, 0),
        &["cycle", "'r1'", "'r2'"],
    );
}

#[test]
fn coloured_net_type() {
    // Symmetric nets are unfolded (tests/coloured.rs); other high-level nets are refused.
    let text = net("").replace(
        PTNET,
        "http://www.pnml.org/version-2009/grammar/highlevelnet",
    );
    rejects(
        text.as_bytes(),
        at(&text, "<net", 0),
        &[
            "coloured nets are not supported",
            "http://www.pnml.org/version-2009/grammar/highlevelnet",
        ],
    );
}
