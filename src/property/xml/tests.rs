//! Tests of the XML reader and writer.

use proptest::prelude::*;

use super::*;
use crate::property::text::parse_formula;
use crate::property::text::tests::arb_query;

/// A file of one property with this formula content.
fn file(formula: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<property-set xmlns=\"http://mcc.lip6.fr/\">\n<property>\n\
         <id>x</id>\n<description>Automatically generated</description>\n<formula>\n{formula}\n\
         </formula>\n</property>\n</property-set>\n"
    )
}

/// What the formula content reads as, in the text syntax.
fn read(formula: &str) -> String {
    let qs = parse_xml(&file(formula)).unwrap_or_else(|e| panic!("{formula}: {e}"));
    assert_eq!(qs.len(), 1);
    assert_eq!(qs[0].id, "x");
    qs[0].to_string().strip_prefix("x: ").unwrap().to_string()
}

/// The error reading the formula content (which starts on line 7 of [`file`]).
fn error(formula: &str) -> String {
    match parse_xml(&file(formula)) {
        Err(e) => e.to_string(),
        Ok(q) => panic!("{formula} read as {q:?}"),
    }
}

fn places(ps: &[&str]) -> String {
    ps.iter().map(|p| format!("<place>{p}</place>")).collect()
}

#[test]
fn every_element_reads() {
    let tc = |ps: &[&str]| format!("<tokens-count>{}</tokens-count>", places(ps));
    let c = |k: u64| format!("<integer-constant>{k}</integer-constant>");
    for cmp in Cmp::ALL {
        let tag = cmp.xml_name();
        assert_eq!(
            read(&format!("<{tag}>{}{}</{tag}>", tc(&["p1", "p2"]), c(3))),
            format!("tokens(p1, p2) {} 3", cmp.symbol())
        );
    }
    assert_eq!(
        read(&format!(
            "<integer-le><integer-sum>{}{}<integer-sum>{}{}</integer-sum></integer-sum>{}</integer-le>",
            tc(&["a"]),
            c(1),
            c(2),
            tc(&["b"]),
            c(18446744073709551615)
        )),
        "tokens(a) + 1 + (2 + tokens(b)) <= 18446744073709551615"
    );
    let fire = "<is-fireable><transition>t1</transition><transition>t2</transition></is-fireable>";
    assert_eq!(read(fire), "fireable(t1, t2)");
    assert_eq!(read("<true/>"), "true");
    assert_eq!(read("<false></false>"), "false");
    assert_eq!(read("<deadlock/>"), "deadlock");
    let wrap = |tag: &str, inner: &str| format!("<{tag}>{inner}</{tag}>");
    assert_eq!(read(&wrap("negation", "<true/>")), "!true");
    assert_eq!(
        read(&wrap("exists-path", &wrap("finally", "<true/>"))),
        "EF true"
    );
    assert_eq!(
        read(&wrap("all-paths", &wrap("globally", "<true/>"))),
        "AG true"
    );
    assert_eq!(
        read(&wrap("all-paths", &wrap("next", "<true/>"))),
        "AX true"
    );
    assert_eq!(read(&wrap("exists-path", "<true/>")), "E true");
    assert_eq!(
        read(&wrap(
            "conjunction",
            &format!(
                "<true/>{}<false/>",
                wrap("disjunction", "<deadlock/><true/>")
            )
        )),
        "true && (deadlock || true) && false"
    );
    // `<reach>` before `<before>` is the same `until`.
    assert_eq!(
        read("<until><reach><false/></reach><before><true/></before></until>"),
        "true U false"
    );
    let q = &parse_xml(&file(&format!(
        "<place-bound>{}</place-bound>",
        places(&["p", "q"])
    )))
    .unwrap()[0];
    assert_eq!(q.ask, Ask::Bound(vec![Name::new("p"), Name::new("q")]));
}

#[test]
fn namespaces_entities_comments_and_blanks() {
    let text = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!-- made by hand -->\n\
        <m:property-set xmlns:m=\"http://mcc.lip6.fr/\"><m:property><m:id> a&amp;b </m:id>\
        <m:formula><!-- why --><m:is-fireable><m:transition>  t&#49;<![CDATA[<x>]]>\n\
        </m:transition></m:is-fireable></m:formula></m:property></m:property-set>\n";
    let qs = parse_xml(text).unwrap();
    assert_eq!(qs[0].id, "a&b");
    assert_eq!(qs[0].to_string(), "\"a&b\": fireable(\"t1<x>\")");
    let bare = "<property-set><property><id>y</id><formula><deadlock/></formula></property>\
        <property><id>z</id><toolspecific><any><thing/></any></toolspecific><formula><true/>\
        </formula></property><toolspecific/></property-set>";
    let ids: Vec<_> = parse_xml(bare).unwrap().into_iter().map(|q| q.id).collect();
    assert_eq!(ids, ["y", "z"]);
    assert_eq!(parse_xml("<property-set/>").unwrap(), vec![]);
}

#[test]
fn names_carry_the_position_of_their_text() {
    let text = "<property-set>\n <property><id>a</id><formula><is-fireable>\n  <transition>\n    t1\
        </transition><transition>é</transition><transition>ü</transition></is-fireable></formula>\
        </property></property-set>";
    let qs = parse_xml(text).unwrap();
    let Ask::Holds(Form::Fireable(ts)) = &qs[0].ask else {
        panic!()
    };
    let at: Vec<_> = ts.iter().map(|t| (t.line, t.column)).collect();
    assert_eq!(at, [(4, 5), (4, 32), (4, 58)]);
}

#[test]
fn structural_errors_have_a_line_and_column() {
    assert_eq!(
        error("<negation/>"),
        "7:1: missing child: <negation> needs a formula"
    );
    assert_eq!(
        error("<negation><true/><false/></negation>"),
        "7:18: <negation> has one child, found a second: <false>"
    );
    assert_eq!(
        error("<until><before><true/></before></until>"),
        "7:1: missing child: <until> without <reach>"
    );
    assert_eq!(
        error("<until><reach><true/></reach></until>"),
        "7:1: missing child: <until> without <before>"
    );
    assert_eq!(
        error("<until><before><true/></before><before><true/></before></until>"),
        "7:32: a second <before> in <until>"
    );
    assert_eq!(
        error("<until><next><true/></next></until>"),
        "7:8: unexpected element <next> in <until>"
    );
    assert_eq!(
        error("<integer-le><integer-constant>1</integer-constant></integer-le>"),
        "7:1: missing child: <integer-le> needs two integer expressions"
    );
    let three = "<integer-eq><integer-constant>1</integer-constant><integer-constant>1</integer-constant>\
        <integer-constant>1</integer-constant></integer-eq>";
    assert_eq!(
        error(three),
        "7:89: <integer-eq> compares two integer expressions, found a third: <integer-constant>"
    );
    assert_eq!(error("<frobnicate/>"), "7:1: unknown element <frobnicate>");
    assert_eq!(
        error("<negation><frob/></negation>"),
        "7:11: unknown element <frob>"
    );
    assert_eq!(
        error("<id>y</id>"),
        "7:1: unexpected element <id> where a formula is expected"
    );
    assert_eq!(
        error("<is-fireable><place>p</place></is-fireable>"),
        "7:14: unexpected element <place> in <is-fireable>"
    );
    assert_eq!(
        error("<tokens-count><transition>p</transition></tokens-count>"),
        "7:1: type error: <tokens-count> is an integer expression, where a formula is expected"
    );
    assert_eq!(
        error("<integer-le><true/><integer-constant>1</integer-constant></integer-le>"),
        "7:13: type error: <true> is a formula, where an integer expression is expected"
    );
    assert_eq!(
        error("<negation><place-bound><place>p</place></place-bound></negation>"),
        "7:11: <place-bound> is a whole property (UpperBounds): only directly under <formula>"
    );
    assert_eq!(
        error("<true><false/></true>"),
        "7:7: <true> has no children, found <false>"
    );
    assert_eq!(
        error("<negation> oops <true/></negation>"),
        "7:12: unexpected text in <negation>"
    );
    assert_eq!(
        error("<negation>&amp;<true/></negation>"),
        "7:11: unexpected text in <negation>"
    );
    assert_eq!(
        error("<is-fireable><transition><x/></transition></is-fireable>"),
        "7:26: unexpected element <x> in <transition>"
    );
    assert_eq!(
        error("<is-fireable><transition> </transition></is-fireable>"),
        "7:27: empty <transition>"
    );
    assert_eq!(
        error("<is-fireable><transition>&nope;</transition></is-fireable>"),
        "7:26: unknown entity '&nope;'"
    );
    assert_eq!(
        error("<true/><true/>"),
        "7:8: <formula> has one child, found a second: <true>"
    );
    assert_eq!(error(""), "6:1: missing child: <formula> needs a formula");
}

#[test]
fn integer_constants_are_natural_numbers_of_64_bits() {
    let constant = |k: &str| {
        error(&format!(
            "<integer-le><integer-constant>{k}</integer-constant><integer-constant>1</integer-constant></integer-le>"
        ))
    };
    assert_eq!(
        constant("18446744073709551616"),
        "7:31: integer constant too large (at most 18446744073709551615)"
    );
    assert_eq!(
        constant(" -1"),
        "7:32: <integer-constant>: expected a natural number, found '-1'"
    );
    assert_eq!(
        constant(""),
        "7:31: <integer-constant>: expected a natural number, found ''"
    );
}

#[test]
fn property_and_document_errors() {
    let e = |text: &str| parse_xml(text).unwrap_err().to_string();
    assert_eq!(e(""), "1:1: not a property file: no <property-set> element");
    assert_eq!(
        e("<pnml/>"),
        "1:1: not a property file: the root element is <pnml>, expected <property-set>"
    );
    assert_eq!(
        e("<property-set/>\n<property-set/>"),
        "2:1: unexpected element after the <property-set>"
    );
    assert_eq!(
        e("oops <property-set/>"),
        "1:1: text outside of the <property-set> element"
    );
    assert_eq!(
        e("<property-set><property><formula><true/></formula></property></property-set>"),
        "1:15: missing child: <property> without an <id>"
    );
    assert_eq!(
        e("<property-set><property><id>a</id></property></property-set>"),
        "1:15: missing child: <property> without a <formula>"
    );
    assert_eq!(
        e("<property-set><property><id>a</id><id>b</id></property></property-set>"),
        "1:35: a second <id> in <property>"
    );
    assert_eq!(
        e("<property-set><property><id>a</id><tags/></property></property-set>"),
        "1:35: unknown element <tags> in <property>"
    );
    assert_eq!(
        e("<property-set><formula/></property-set>"),
        "1:15: unexpected element <formula> in <property-set>"
    );
    assert_eq!(
        e("<property-set><property><id> </id><formula><true/></formula></property></property-set>"),
        "1:30: empty <id>"
    );
    let twice = "<property-set>\n<property><id>a</id><formula><true/></formula></property>\n\
        <property><id>a</id><formula><true/></formula></property></property-set>";
    assert_eq!(e(twice), "3:15: duplicate id 'a' (first at 2:15)");
}

#[test]
fn malformed_xml_is_an_error_at_its_position() {
    let e = |text: &str| parse_xml(text).unwrap_err().to_string();
    let mismatched = e("<property-set>\n  <property></nope>");
    assert!(
        mismatched.starts_with("2:13: malformed XML: "),
        "{mismatched}"
    );
    let truncated = e("<property-set>\n  <property><id>a</id>");
    assert_eq!(
        truncated,
        "2:23: unexpected end of file: <property> opened at 2:3 is not closed"
    );
    assert_eq!(
        e("<property-set>\n<property><!-- x"),
        "2:11: malformed XML: syntax error: comment not closed: `-->` not found before end of input"
    );
    assert_eq!(
        e("<property-set>\n</property>"),
        "2:1: malformed XML: ill-formed document: expected `</property-set>`, but `</property>` was found"
    );
    let attribute = e("<property-set>\n<property x><id>a</id></property></property-set>");
    assert!(attribute.starts_with("2:1: malformed XML: "), "{attribute}");
    let tag = e("<property-set>\n<property><id>a</id><formula><true</formula>");
    assert!(tag.starts_with("2:30: "), "{tag}");
}

#[test]
fn deep_nesting_is_refused() {
    let deep = format!(
        "{}<true/>{}",
        "<negation>".repeat(MAX_NESTING + 1),
        "</negation>".repeat(MAX_NESTING + 1)
    );
    let e = error(&deep);
    assert!(
        e.ends_with("formula nested too deeply (more than 100 levels)"),
        "{e}"
    );
    let ok = format!(
        "{}<true/>{}",
        "<negation>".repeat(MAX_NESTING - 1),
        "</negation>".repeat(MAX_NESTING - 1)
    );
    let text = read(&ok);
    assert!(text.ends_with("true"));
    // What the XML reader accepts, the text reader reads back.
    let printed = crate::property::text::parse_formula(&text).unwrap();
    assert_eq!(printed.to_string(), text);
    let compare = format!(
        "{}<integer-le><integer-constant>1</integer-constant><integer-constant>2</integer-constant></integer-le>{}",
        "<negation>".repeat(MAX_NESTING - 2),
        "</negation>".repeat(MAX_NESTING - 2)
    );
    let text = read(&compare);
    assert!(
        crate::property::text::parse_formula(&text).is_ok(),
        "{text}"
    );
}

#[test]
fn the_writer_uses_the_contests_layout() {
    let q = parse_formula("a: EF (tokens(p) <= 2 && fireable(t))").unwrap();
    let want = "<?xml version=\"1.0\"?>\n<property-set xmlns=\"http://mcc.lip6.fr/\">\n  <property>\n    \
        <id>a</id>\n    <formula>\n      <exists-path>\n        <finally>\n          <conjunction>\n            \
        <integer-le>\n              <tokens-count>\n                <place>p</place>\n              \
        </tokens-count>\n              <integer-constant>2</integer-constant>\n            </integer-le>\n            \
        <is-fireable>\n              <transition>t</transition>\n            </is-fireable>\n          \
        </conjunction>\n        </finally>\n      </exists-path>\n    </formula>\n  </property>\n</property-set>\n";
    assert_eq!(to_xml(&[q]), want);
}

#[test]
fn degenerate_trees_write_and_read_back() {
    let f: Formula = Form::And(vec![
        Form::And(vec![]),
        Form::Or(vec![Form::Deadlock]),
        Form::Fireable(vec![]),
        Form::Compare(IntExpr::Sum(vec![]), Cmp::Lt, IntExpr::Tokens(vec![])),
    ]);
    let q = Property {
        id: "d".into(),
        ask: Ask::Holds(f),
        spans: Default::default(),
    };
    assert_eq!(
        parse_xml(&to_xml(std::slice::from_ref(&q))).unwrap(),
        vec![q]
    );
}

proptest! {
    #[test]
    fn written_files_read_back_to_the_same_trees(qs in proptest::collection::vec(arb_query(), 0..4)) {
        // Ids must be distinct in a file.
        let mut qs = qs;
        for (i, q) in qs.iter_mut().enumerate() {
            q.id = format!("{}-{i}", q.id);
        }
        let text = to_xml(&qs);
        let back = parse_xml(&text).map_err(|e| TestCaseError::fail(format!("{text}\n{e}")))?;
        // One position per Boolean node, each inside the file.
        let lines = text.lines().count() as u32;
        for q in &back {
            let nodes = match &q.ask {
                Ask::Holds(f) => crate::property::logic::size(f),
                Ask::Bound(_) => 0,
            };
            prop_assert_eq!(q.spans.0.len(), nodes);
            prop_assert!(q.spans.0.iter().all(|&(l, c)| l >= 2 && l <= lines && c >= 1));
        }
        prop_assert_eq!(back, qs);
    }
}

proptest! {
    #[test]
    fn damaged_files_read_or_fail_without_panicking(
        q in arb_query(),
        cut in (0.0..1.0f64, 0.0..1.0f64),
        insert in prop_oneof![Just(String::new()), "[<>/&;\"'= a-z!-]{1,4}"],
    ) {
        let text = crate::property::text::tests::mutated(&to_xml(&[q]), cut, &insert);
        if let Err(e) = parse_xml(&text) {
            let lines = text.split('\n').count() as u32;
            prop_assert!(e.line >= 1 && e.line <= lines && e.column >= 1, "{}: {}", text, e);
        }
    }
}
