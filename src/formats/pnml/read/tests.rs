//! The PNML reader's tests, and the helpers the writer's tests share.

use super::*;
use crate::formats::pnml::write::tests::{small_net, written};
use crate::formats::pnml::{PNML_NS, PTNET_TYPE};

fn file() -> &'static Path {
    Path::new("t.pnml")
}

pub(in crate::formats::pnml) fn ok(src: &str) -> Net {
    match parse(src.as_bytes(), file()) {
        Ok(net) => net,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

/// The error message, which must carry a line:column position.
pub(in crate::formats::pnml) fn bad(src: &str) -> String {
    match parse(src.as_bytes(), file()) {
        Ok(net) => panic!("accepted: {net:?}"),
        Err(e) => {
            let ReadError::Parse { pos, .. } = &e else {
                panic!("not a parse error: {e}")
            };
            assert!(
                matches!(pos, Some(Position::LineCol { .. })),
                "no position: {e}"
            );
            e.to_string()
        }
    }
}

pub(in crate::formats::pnml) fn wrap(body: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<pnml xmlns="{PNML_NS}"><net id="n" type="{PTNET_TYPE}"><page id="pg">
{body}
</page></net></pnml>"#
    )
}

const SMALL: &str = r#"
<place id="p"><name><text>P</text></name><initialMarking><text>2</text></initialMarking></place>
<place id="q"/>
<transition id="t"><name><text>T</text></name></transition>
<arc id="a1" source="p" target="t"><inscription><text>2</text></inscription></arc>
<arc id="a2" source="t" target="q"/>
"#;

#[test]
fn reads_a_small_net() {
    let net = ok(&wrap(SMALL));
    assert_eq!(net.name, "n");
    assert_eq!(net.places.len(), 2);
    assert_eq!(net.places[0].label, "P");
    assert_eq!(net.places[0].initial, 2);
    assert_eq!(net.places[1].label, "q");
    assert_eq!(net.places[1].initial, 0);
    let t = &net.transitions[0];
    assert_eq!(t.label, "T");
    assert_eq!(
        t.pre[..],
        [crate::model::net::Arc {
            place: 0,
            weight: 2
        }]
    );
    assert_eq!(
        t.post[..],
        [crate::model::net::Arc {
            place: 1,
            weight: 1
        }]
    );
    assert!(net.nupn.is_none());
}

#[test]
fn namespace_prefix_or_none() {
    let plain = ok(&wrap(SMALL));
    let none = ok(&format!(
        r#"<pnml><net id="n" type="{PTNET_TYPE}"><page id="pg">{SMALL}</page></net></pnml>"#
    ));
    assert_eq!(plain, none);
    let prefixed = SMALL.replace("<", "<x:").replace("<x:/", "</x:");
    let prefixed = ok(&format!(
        r#"<x:pnml xmlns:x="{PNML_NS}"><x:net id="n" type="{PTNET_TYPE}"><x:page id="pg">{prefixed}</x:page></x:net></x:pnml>"#
    ));
    assert_eq!(plain, prefixed);
}

#[test]
fn nested_pages_are_flattened() {
    let net = ok(&wrap(
        r#"<place id="p"/>
            <page id="inner"><transition id="t"/>
              <page id="deeper"><place id="q"/><arc id="x" source="p" target="t"/></page>
            </page>
            <arc id="y" source="t" target="q"/>"#,
    ));
    assert_eq!(net.places.len(), 2);
    assert_eq!(net.places[1].id, "q");
    assert_eq!(net.arc_count(), 2);
    // Deep nesting is iterative, not recursive.
    let deep = format!(
        "{}<place id=\"p\"/>{}",
        "<page>".repeat(100_000),
        "</page>".repeat(100_000)
    );
    assert_eq!(ok(&wrap(&deep)).places.len(), 1);
}

#[test]
fn reference_chains_resolve() {
    let net = ok(&wrap(
        r#"<arc id="a" source="rp2" target="rt"/>
            <referencePlace id="rp2" ref="rp1"/>
            <referencePlace id="rp1" ref="p"><name><text>x</text></name></referencePlace>
            <referenceTransition id="rt" ref="t"/>
            <place id="p"/><transition id="t"/>"#,
    ));
    assert_eq!(net.places.len(), 1);
    assert_eq!(net.transitions.len(), 1);
    assert_eq!(net.transitions[0].pre.len(), 1);
}

#[test]
fn reference_errors() {
    let e = bad(&wrap(
        r#"<referencePlace id="r1" ref="r2"/><referencePlace id="r2" ref="r3"/>
            <referencePlace id="r3" ref="r1"/>"#,
    ));
    assert!(
        e.contains("cycle") && e.contains("'r1'") && e.contains("'r3'"),
        "{e}"
    );
    let e = bad(&wrap(r#"<referencePlace id="r1" ref="r1"/>"#));
    assert!(e.contains("cycle") && e.contains("'r1'"), "{e}");
    let e = bad(&wrap(r#"<referencePlace id="r" ref="nowhere"/>"#));
    assert!(e.contains("unknown node 'nowhere'"), "{e}");
    let e = bad(&wrap(
        r#"<transition id="t"/><referencePlace id="r" ref="t"/>"#,
    ));
    assert!(
        e.contains("referencePlace 'r'") && e.contains("transition"),
        "{e}"
    );
}

#[test]
fn arcs_before_endpoints() {
    let net = ok(&wrap(
        r#"<arc id="a" source="p" target="t"/><arc id="b" source="t" target="p"/>
            <transition id="t"/><place id="p"><initialMarking><text>1</text></initialMarking></place>"#,
    ));
    assert_eq!(net.arc_count(), 2);
    // An unmarked self-loop stays two arcs.
    assert_eq!(net.read_arc_count(), 0);
}

#[test]
fn split_text_is_concatenated() {
    let net = ok(&wrap(
        r#"<place id="p"><name><text> a&amp;<![CDATA[<b>]]>&#99; </text></name>
            <initialMarking><text>
              1<!-- c --><![CDATA[2]]>&#51;
            </text></initialMarking></place>"#,
    ));
    assert_eq!(net.places[0].label, "a&<b>c");
    assert_eq!(net.places[0].initial, 123);
    let net = ok(&wrap(r#"<place id="p&amp;q"/>"#));
    assert_eq!(net.places[0].id, "p&q");
}

#[test]
fn nupn_block() {
    let net = ok(&wrap(&format!(
        r#"{SMALL}<toolspecific tool="nupn" version="1.1">
            <size places="2" transitions="1" arcs="2"/>
            <structure units="2" root="u0" safe="true">
              <unit id="u0"><places/><subunits>u1</subunits></unit>
              <unit id="u1"><places>p q</places><subunits/></unit>
            </structure></toolspecific>"#
    )));
    assert_eq!(
        net.nupn,
        Some(Nupn {
            places: Some(2),
            transitions: Some(1),
            arcs: Some(2),
            units: Some(2),
            safe: Some(true),
            root: Some("u0".into()),
            unit_tree: vec![
                NupnUnit {
                    id: "u0".into(),
                    places: vec![],
                    subunits: vec!["u1".into()],
                },
                NupnUnit {
                    id: "u1".into(),
                    places: vec!["p".into(), "q".into()],
                    subunits: vec![],
                },
            ],
        })
    );
    assert!(net.certified_safe());
    let e = bad(&wrap(
        r#"<toolspecific tool="nupn"><structure safe="maybe"/></toolspecific>"#,
    ));
    assert!(e.contains("safe"), "{e}");
}

#[test]
fn other_toolspecific_and_graphics_skipped() {
    let net = ok(&wrap(
        r#"<toolspecific tool="x"><place id="ignored"/></toolspecific>
            <place id="p"><graphics><position x="1" y="2"/></graphics>
              <toolspecific tool="y"><a><b/></a></toolspecific></place>"#,
    ));
    assert_eq!(net.places.len(), 1);
}

#[test]
fn refused_net_types_and_arcs() {
    // Symmetric nets are unfolded (tests/coloured.rs); other high-level nets are refused.
    let e = bad(
        r#"<pnml><net id="n" type="http://www.pnml.org/version-2009/grammar/highlevelnet"></net></pnml>"#,
    );
    assert!(
        e.contains("coloured nets are not supported")
            && e.contains("http://www.pnml.org/version-2009/grammar/highlevelnet"),
        "{e}"
    );
    let empty = ok(
        r#"<pnml><net id="n" type="http://www.pnml.org/version-2009/grammar/symmetricnet"></net></pnml>"#,
    );
    assert!(empty.folding.is_some() && empty.places.is_empty());
    let e = bad(r#"<pnml><net id="n" type="http://example.org/whatever"/></pnml>"#);
    assert!(
        e.contains("unsupported net type http://example.org/whatever"),
        "{e}"
    );
    let e = bad(&wrap(
        r#"<place id="p"/><transition id="t"/><arc id="inh" source="p" target="t"><type value="inhibitor"/></arc>"#,
    ));
    assert!(e.contains("arc 'inh'") && e.contains("inhibitor"), "{e}");
    let e = bad(&wrap(
        r#"<place id="p"/><transition id="t"/><arc id="rst" source="p" target="t" type="reset"/>"#,
    ));
    assert!(e.contains("arc 'rst'") && e.contains("reset"), "{e}");
    let e = bad(&wrap(
        r#"<place id="p"/><transition id="t"/><arc id="tool" source="p" target="t"><toolspecific tool="PIPE"><arcType>inhibitor</arcType></toolspecific></arc>"#,
    ));
    assert!(e.contains("arc 'tool'") && e.contains("inhibitor"), "{e}");
    let e = bad(&wrap(
        r#"<place id="p"/><transition id="t"/><arc id="hl" source="p" target="t"><hlinscription><text>x</text></hlinscription></arc>"#,
    ));
    assert!(e.contains("arc 'hl'") && e.contains("high-level"), "{e}");
    let e = bad(&wrap(
        r#"<place id="p"><hlinitialMarking><text>x</text></hlinitialMarking></place>"#,
    ));
    assert!(e.contains("place 'p'") && e.contains("high-level"), "{e}");
}

/// The bad-input cases of `tests/bad_input_pnml.rs`, through the library.
#[test]
fn bad_inputs() {
    let arc = |attrs: &str, weight: &str| {
        wrap(&format!(
            r#"<place id="p"/><place id="q"/><transition id="t"/>
<arc id="a" {attrs}><inscription><text>{weight}</text></inscription></arc>"#
        ))
    };
    let cases: Vec<(String, &str)> = vec![
        (String::new(), "empty"),
        ("  \n ".into(), "empty"),
        ("\u{0}\u{1}garbage".into(), "not a PNML document"),
        (
            "<pnml><net id=\"n\"><page>".into(),
            "unexpected end of file",
        ),
        ("<pnml><net id=\"n\"><page></net>".into(), "malformed XML"),
        ("<pnml></pnml>".into(), "no <net>"),
        ("<other/>".into(), "expected <pnml>"),
        (arc(r#"source="p" target="zz""#, "1"), "unknown target 'zz'"),
        (arc(r#"source="p" target="q""#, "1"), "connects two places"),
        (
            arc(r#"source="t" target="t""#, "1"),
            "connects two transitions",
        ),
        (arc(r#"source="p" target="t""#, "0"), "at least 1"),
        (arc(r#"source="p" target="t""#, "-3"), "negative"),
        (arc(r#"source="p" target="t""#, "two"), "not a number"),
        (arc(r#"source="p" target="t""#, "4294967296"), "too large"),
        // Beyond 64 bits too: "too large", not "not a number".
        (
            arc(r#"source="p" target="t""#, "99999999999999999999999"),
            "99999999999999999999999 is too large",
        ),
        (arc(r#"source="p" target="t""#, ""), "expected a number"),
        (
            wrap(r#"<place id="p"/><transition id="p"/>"#),
            "duplicate id 'p'",
        ),
        (wrap(r#"<page id="p"/><place id="p"/>"#), "duplicate id 'p'"),
        (
            wrap(
                r#"<place id="p"/><transition id="t"/><arc id="a" source="p" target="t"/><arc id="b" source="p" target="t"/>"#,
            ),
            "duplicate input arc",
        ),
        (wrap(r#"<place/>"#), "without an id"),
    ];
    for (src, want) in cases {
        let e = bad(&src);
        assert!(e.contains(want), "{src:?}: {e}");
        assert!(e.starts_with("t.pnml:"), "{e}");
    }
    // Binary junk that is not UTF-8.
    let e = parse(b"\x7fELF\x02\x01\xff\xfe\x00", file())
        .unwrap_err()
        .to_string();
    assert!(e.contains("t.pnml:1:") && e.contains("UTF-8"), "{e}");
}

#[test]
fn attributes_read_without_checks_give_the_checked_errors() {
    // Duplicates, syntax errors and bad values: the messages of quick-xml's checks.
    let cases = [
        (
            r#"<place id="p" id="q"/>"#,
            "3:1: malformed attribute: position 13: duplicated attribute, previous \
                 declaration at position 6",
        ),
        (
            r#"<place id="p" x="1" x="2"/>"#,
            "3:1: malformed attribute: position 19: duplicated attribute, previous \
                 declaration at position 13",
        ),
        (
            // The duplicate is reported before the value that follows it.
            r#"<place x="1" x="2" id=x/>"#,
            "3:1: malformed attribute: position 12: duplicated attribute",
        ),
        (
            r#"<place id="p" x/>"#,
            "3:1: malformed attribute: position 14: attribute key must be directly followed",
        ),
        (
            r#"<place id="p" x=/>"#,
            "3:1: malformed attribute: position 15:",
        ),
        (
            r#"<place id="a&bogus;b"/>"#,
            "3:1: bad value of attribute 'id': at 2..7: unrecognized entity `bogus`",
        ),
        (
            // More attributes than the stack holds: the duplicate is found all the same.
            r#"<place a="1" b="2" c="3" d="4" e="5" f="6" g="7" h="8" i="9" a="0" id="p"/>"#,
            "3:1: malformed attribute: position 60: duplicated attribute, previous \
                 declaration at position 6",
        ),
        (
            r#"<place a="1" b="2" c="3" d="4" e="5" f="6" g="7" h="8" id="p" id="q"/>"#,
            "3:1: malformed attribute: position 61: duplicated attribute, previous \
                 declaration at position 54",
        ),
        (
            r#"<place id="p"/><transition id="t"/><arc id="a" source="p" target="t" source="t"/>"#,
            "3:36: malformed attribute: position 33: duplicated attribute",
        ),
    ];
    for (body, want) in cases {
        let e = bad(&wrap(body));
        assert!(e.starts_with(&format!("t.pnml:{want}")), "{body}: {e}");
    }
    // Well-formed tags: values unescaped and normalised, the last of two local names `id`
    // (different qualified names) wins, many attributes are fine.
    let net = ok(&wrap(
        r#"<place id="a&amp;b"/><place a="1" b="2" c="3" d="4" e="5" f="6" g="7" h="8" id="p9"/>
               <place a="1" b="2" c="3" d="4" e="5" f="6" g="7" id="p8"/>
               <place xmlns:u="x" u:id="u" id="q"/><place id="r" u:id="s"/>
               <transition id="t"/><arc id="x" source=" p&#9;q " target="t"/>
               <place id=" p&#9;q "/>"#,
    ));
    let ids: Vec<_> = net.places.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["a&b", "p9", "p8", "q", "s", " p\tq "]);
    assert_eq!(net.transitions[0].pre.len(), 1);
}

#[test]
fn error_positions() {
    let src = "<pnml><net id=\"n\">\n<page>\n  <place id=\"p\"/>\n  <place id=\"p\"/>\n</page></net></pnml>";
    let e = bad(src);
    assert!(
        e.starts_with("t.pnml:4:3: duplicate id 'p' (first declared at 3:3)"),
        "{e}"
    );
    let src = "<pnml><net>\n<place id=\"p\"><initialMarking><text> x</text></initialMarking></place></net></pnml>";
    let e = bad(src);
    assert!(
        e.starts_with("t.pnml:2:38: initial marking is not a number"),
        "{e}"
    );
}

#[test]
fn never_panics_on_truncations() {
    let text = written(&small_net());
    for cut in 0..text.len() {
        if text.is_char_boundary(cut) {
            let _ = parse(&text.as_bytes()[..cut], file());
        }
    }
    let mut bytes = text.into_bytes();
    for i in 0..bytes.len() {
        let saved = bytes[i];
        for b in [b'<', b'>', b'"', b'&', b'/', 0xff] {
            bytes[i] = b;
            let _ = parse(&bytes, file());
        }
        bytes[i] = saved;
    }
}
