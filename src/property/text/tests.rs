//! Tests of the text syntax, and the random properties the XML tests share.

use proptest::collection::vec;
use proptest::prelude::*;

use super::*;

fn name(s: &str) -> Name {
    Name::new(s)
}

fn tokens(ps: &[&str]) -> IntExpr<Name> {
    IntExpr::Tokens(ps.iter().map(|p| name(p)).collect())
}

fn fireable(ts: &[&str]) -> Formula {
    Form::Fireable(ts.iter().map(|t| name(t)).collect())
}

fn b(f: Formula) -> Box<Formula> {
    Box::new(f)
}

fn ef(f: Formula) -> Formula {
    Form::Exists(b(Form::Finally(b(f))))
}

fn ag(f: Formula) -> Formula {
    Form::All(b(Form::Globally(b(f))))
}

fn le(a: IntExpr<Name>, k: u64) -> Formula {
    Form::Compare(a, Cmp::Le, IntExpr::Const(k))
}

/// The formula `text` holds.
fn holds(text: &str) -> Formula {
    match parse_formula(text) {
        Ok(Property {
            ask: Ask::Holds(f), ..
        }) => f,
        other => panic!("{text}: {other:?}"),
    }
}

/// The error reading `text`, as displayed.
fn error(text: &str) -> String {
    match parse_formula(text) {
        Err(e) => e.to_string(),
        Ok(q) => panic!("{text} read as {q:?}"),
    }
}

#[test]
fn atoms() {
    assert_eq!(holds("true"), Form::Bool(true));
    assert_eq!(holds("false"), Form::Bool(false));
    assert_eq!(holds("deadlock"), Form::Deadlock);
    assert_eq!(holds("fireable(t1)"), fireable(&["t1"]));
    assert_eq!(holds("fireable( t1 ,t.2-x )"), fireable(&["t1", "t.2-x"]));
    for c in Cmp::ALL {
        assert_eq!(
            holds(&format!("tokens(p) {} 3", c.symbol())),
            Form::Compare(tokens(&["p"]), c, IntExpr::Const(3))
        );
        assert_eq!(
            holds(&format!("2{}tokens(p,q)", c.symbol())),
            Form::Compare(IntExpr::Const(2), c, tokens(&["p", "q"]))
        );
    }
    assert_eq!(
        holds("tokens(a) + 1 + tokens(b, c) >= tokens(d)"),
        Form::Compare(
            IntExpr::Sum(vec![tokens(&["a"]), IntExpr::Const(1), tokens(&["b", "c"])]),
            Cmp::Ge,
            tokens(&["d"])
        )
    );
    assert_eq!(
        holds("(tokens(a) + (1 + tokens(b))) == 18446744073709551615"),
        Form::Compare(
            IntExpr::Sum(vec![
                tokens(&["a"]),
                IntExpr::Sum(vec![IntExpr::Const(1), tokens(&["b"])])
            ]),
            Cmp::Eq,
            IntExpr::Const(u64::MAX)
        )
    );
    assert_eq!(holds("((deadlock))"), Form::Deadlock);
    assert_eq!(holds("(tokens(p)) <= 0"), le(tokens(&["p"]), 0));
}

#[test]
fn prefix_operators_and_quantifiers() {
    let d = || b(Form::Deadlock);
    assert_eq!(holds("!deadlock"), Form::Not(d()));
    assert_eq!(holds("!!deadlock"), Form::Not(b(Form::Not(d()))));
    assert_eq!(holds("E deadlock"), Form::Exists(d()));
    assert_eq!(holds("A deadlock"), Form::All(d()));
    assert_eq!(holds("X deadlock"), Form::Next(d()));
    assert_eq!(holds("F deadlock"), Form::Finally(d()));
    assert_eq!(holds("G deadlock"), Form::Globally(d()));
    type Wrap = fn(Box<Formula>) -> Formula;
    let pairs: [(&str, Wrap, Wrap); 6] = [
        ("EF", Form::Exists, Form::Finally),
        ("AG", Form::All, Form::Globally),
        ("AF", Form::All, Form::Finally),
        ("EG", Form::Exists, Form::Globally),
        ("EX", Form::Exists, Form::Next),
        ("AX", Form::All, Form::Next),
    ];
    for (word, outer, inner) in pairs {
        let want = outer(b(inner(d())));
        assert_eq!(holds(&format!("{word} deadlock")), want);
        assert_eq!(holds(&format!("{word}(deadlock)")), want);
        let spelled: String = word.chars().flat_map(|c| [c, ' ']).collect();
        assert_eq!(holds(&format!("{spelled}deadlock")), want);
    }
    assert_eq!(holds("EF!deadlock"), ef(Form::Not(d())));
    assert_eq!(
        holds("! tokens(p) <= 2"),
        Form::Not(b(le(tokens(&["p"]), 2)))
    );
}

#[test]
fn binary_operators_and_precedence() {
    let d = || Form::Deadlock;
    let t = || Form::Bool(true);
    assert_eq!(holds("deadlock && true"), Form::And(vec![d(), t()]));
    assert_eq!(
        holds("deadlock||true||false"),
        Form::Or(vec![d(), t(), Form::Bool(false)])
    );
    assert_eq!(
        holds("deadlock || true && false"),
        Form::Or(vec![d(), Form::And(vec![t(), Form::Bool(false)])])
    );
    assert_eq!(
        holds("(deadlock || true) && false"),
        Form::And(vec![Form::Or(vec![d(), t()]), Form::Bool(false)])
    );
    assert_eq!(
        holds("(deadlock && true) && false"),
        Form::And(vec![Form::And(vec![d(), t()]), Form::Bool(false)])
    );
    assert_eq!(holds("deadlock U true"), Form::Until(b(d()), b(t())));
    assert_eq!(
        holds("!deadlock U E true && false"),
        Form::And(vec![
            Form::Until(b(Form::Not(b(d()))), b(Form::Exists(b(t())))),
            Form::Bool(false)
        ])
    );
    assert_eq!(
        holds("E (deadlock U true)"),
        Form::Exists(b(Form::Until(b(d()), b(t()))))
    );
    assert_eq!(
        holds("EF (tokens(p1, p2) >= 3 && fireable(t1, t2))"),
        ef(Form::And(vec![
            Form::Compare(tokens(&["p1", "p2"]), Cmp::Ge, IntExpr::Const(3)),
            fireable(&["t1", "t2"])
        ]))
    );
    assert_eq!(
        holds("EF tokens(p) >= 3 && fireable(t)"),
        Form::And(vec![
            ef(Form::Compare(tokens(&["p"]), Cmp::Ge, IntExpr::Const(3))),
            fireable(&["t"])
        ])
    );
    assert_eq!(holds("AG !(deadlock)"), ag(Form::Not(b(d()))));
    // Brackets group like parentheses (the textbook's `E [φ U ψ]`), and must match.
    assert_eq!(holds("E [deadlock U true]"), holds("E (deadlock U true)"));
    assert!(parse_formula("E [deadlock U true)").is_err());
}

#[test]
fn ids_names_blanks_and_comments() {
    let q = parse_formula("ReachabilityCardinality-00: EF deadlock").unwrap();
    assert_eq!(q.id, "ReachabilityCardinality-00");
    assert_eq!(q.ask, Ask::Holds(ef(Form::Deadlock)));
    let q = parse_formula("  \"my id: 1\"  :  bound ( p1 , \"p 2\" )  ").unwrap();
    assert_eq!(q.id, "my id: 1");
    assert_eq!(q.ask, Ask::Bound(vec![name("p1"), name("p 2")]));
    let q = parse_formula("bound(p)").unwrap();
    assert_eq!((q.id.as_str(), q.ask), ("", Ask::Bound(vec![name("p")])));
    // Keywords are names where names stand, and ids when a ':' follows.
    let q = parse_formula("true: fireable(true, EF, 12, _x)").unwrap();
    assert_eq!(q.id, "true");
    assert_eq!(q.ask, Ask::Holds(fireable(&["true", "EF", "12", "_x"])));
    assert_eq!(
        holds(r##"fireable("a\"b\\c", "é ()", "#")"##),
        fireable(&["a\"b\\c", "é ()", "#"])
    );
    assert_eq!(
        holds("# a comment\n  EF   # another\n\tdeadlock # the end"),
        ef(Form::Deadlock)
    );
}

#[test]
fn names_carry_their_line_and_column_in_characters() {
    let q = parse_formula("\"é\": EF\n  fireable(t1,\n \"ü\", t3)").unwrap();
    let Ask::Holds(f) = q.ask else { panic!() };
    let Form::Exists(g) = f else { panic!() };
    let Form::Finally(h) = *g else { panic!() };
    let Form::Fireable(ts) = *h else { panic!() };
    let at: Vec<_> = ts
        .iter()
        .map(|t| (t.text.as_str(), t.line, t.column))
        .collect();
    assert_eq!(at, [("t1", 2, 12), ("ü", 3, 2), ("t3", 3, 7)]);
    let qs = parse_file("\n# c\na: bound(p, q)\n").unwrap();
    let Ask::Bound(ps) = &qs[0].ask else { panic!() };
    assert_eq!((ps[1].line, ps[1].column), (3, 13));
}

#[test]
fn syntax_errors_name_the_line_and_column_of_the_token() {
    assert_eq!(
        error("EF (deadlock"),
        "1:13: expected ')', found the end of the formula"
    );
    assert_eq!(
        error("EF (deadlock true)"),
        "1:14: expected ')', found 'true'"
    );
    assert_eq!(error("EF\n  dead"), "2:3: unknown keyword 'dead'");
    assert_eq!(error("EFdeadlock"), "1:1: unknown keyword 'EFdeadlock'");
    assert_eq!(error("EF p1 >= 2"), "1:4: unknown keyword 'p1'");
    assert_eq!(
        error(""),
        "1:1: expected a formula, found the end of the formula"
    );
    assert_eq!(error("  && true"), "1:3: expected a formula, found '&&'");
    assert_eq!(
        error("deadlock true"),
        "1:10: expected an operator or the end of the formula, found 'true'"
    );
    assert_eq!(
        error("deadlock | true"),
        "1:10: expected an operator or the end of the formula, found '|'"
    );
    assert_eq!(
        error("tokens(p) = 1"),
        "1:11: expected an operator or the end of the formula, found '=' (equality is '==')"
    );
    assert_eq!(
        error("deadlock U true U false"),
        "1:17: expected an operator or the end of the formula, found 'U'"
    );
    assert_eq!(error("U true"), "1:1: expected a formula, found 'U'");
    assert_eq!(error("fireable()"), "1:10: expected a name, found ')'");
    assert_eq!(error("fireable(t1,)"), "1:13: expected a name, found ')'");
    assert_eq!(error("fireable(-t)"), "1:10: expected a name, found '-t'");
    assert_eq!(error("fireable t"), "1:10: expected '(', found 't'");
    assert_eq!(error("fireable(t1 t2)"), "1:13: expected ')', found 't2'");
    assert_eq!(error("fireable(\"\")"), "1:10: empty name");
    assert_eq!(
        error("fireable(\"t1)"),
        "1:10: unterminated quoted name: expected a closing '\"'"
    );
    assert_eq!(
        error(r#"fireable("a\nb")"#),
        "1:12: unknown escape '\\n' in a quoted name (only \\\" and \\\\)"
    );
    assert_eq!(
        error("\"x\" deadlock"),
        "1:1: expected a formula, found a quoted name"
    );
    assert_eq!(
        error("EF bound(p)"),
        "1:4: bound(...) is a whole property (UpperBounds), not part of a formula"
    );
    assert_eq!(
        error("bound(p) && true"),
        "1:10: expected an operator or the end of the formula, found '&&'"
    );
    assert_eq!(error("a: b: true"), "1:4: unknown keyword 'b'");
}

#[test]
fn integer_constants_beyond_64_bits_are_too_large() {
    assert_eq!(
        error("tokens(p) <= 18446744073709551616"),
        "1:14: integer constant too large (at most 18446744073709551615)"
    );
    assert_eq!(
        error("99999999999999999999999 <= 1"),
        "1:1: integer constant too large (at most 18446744073709551615)"
    );
    assert_eq!(error("3x <= 1"), "1:1: unknown keyword '3x'");
}

#[test]
fn type_errors_point_at_the_offending_operand() {
    const NOT_BOOL: &str = "type error: an integer expression where a Boolean formula is \
                            expected (compare it: tokens(p) >= 1)";
    assert_eq!(error("tokens(p) && true"), format!("1:1: {NOT_BOOL}"));
    assert_eq!(error("3"), format!("1:1: {NOT_BOOL}"));
    assert_eq!(error("true || (1 + tokens(p))"), format!("1:9: {NOT_BOOL}"));
    assert_eq!(error("EF tokens(p)"), format!("1:4: {NOT_BOOL}"));
    assert_eq!(error("!3"), format!("1:2: {NOT_BOOL}"));
    assert_eq!(error("deadlock U 1"), format!("1:12: {NOT_BOOL}"));
    assert_eq!(error("x: 7"), format!("1:4: {NOT_BOOL}"));
    assert_eq!(
        error("true <= 3"),
        "1:1: type error: a Boolean formula where an integer expression is expected ('<=' \
         compares integer expressions)"
    );
    assert_eq!(
        error("AG (1 != deadlock)"),
        "1:10: type error: a Boolean formula where an integer expression is expected ('!=' \
         compares integer expressions)"
    );
    assert_eq!(
        error("deadlock == 1"),
        "1:1: type error: a Boolean formula where an integer expression is expected ('==' \
         compares integer expressions)"
    );
    assert_eq!(
        error("1 + fireable(t) > 0"),
        "1:5: type error: a Boolean formula where an integer expression is expected ('+' adds \
         integer expressions)"
    );
    assert_eq!(
        error("(tokens(p) <= 1) + 1 > 0"),
        "1:1: type error: a Boolean formula where an integer expression is expected ('+' adds \
         integer expressions)"
    );
}

#[test]
fn nesting_is_bounded() {
    let ok = format!(
        "{}deadlock{}",
        "(".repeat(MAX_NESTING),
        ")".repeat(MAX_NESTING)
    );
    assert_eq!(holds(&ok), Form::Deadlock);
    let deep = format!(
        "{}deadlock{}",
        "(".repeat(MAX_NESTING + 1),
        ")".repeat(MAX_NESTING + 1)
    );
    assert_eq!(
        error(&deep),
        format!(
            "1:{}: formula nested too deeply (more than {MAX_NESTING} levels)",
            MAX_NESTING + 1
        )
    );
    let nots = format!("{}deadlock", "!".repeat(100_000));
    assert!(error(&nots).contains("nested too deeply"));
    assert!(holds(&format!("{}deadlock", "!".repeat(MAX_NESTING))).is_state());
}

#[test]
fn files_have_one_named_property_per_line() {
    let text = "# reachability\r\na: EF deadlock\r\n\n  \t\nb: AG true # why\nc: bound(p)";
    let qs = parse_file(text).unwrap();
    let ids: Vec<_> = qs.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert_eq!(qs[1].ask, Ask::Holds(ag(Form::Bool(true))));
    assert_eq!(parse_file("").unwrap(), vec![]);
    let e = parse_file("a: true\n\n  EF deadlock").unwrap_err();
    assert_eq!(
        e.to_string(),
        "3:3: expected an id: a property in a file is written 'id: formula'"
    );
    let e = parse_file("a: true\nb: true\n a: false").unwrap_err();
    assert_eq!(e.to_string(), "3:2: duplicate id 'a' (first on line 1)");
    let e = parse_file("a: true\nb: (true").unwrap_err();
    assert_eq!(
        e.to_string(),
        "2:9: expected ')', found the end of the formula"
    );
}

#[test]
fn the_printer_writes_the_short_forms() {
    let f = holds("EF (tokens(p1, p2) >= 3 && fireable(t1, t2))");
    assert_eq!(
        f.to_string(),
        "EF (tokens(p1, p2) >= 3 && fireable(t1, t2))"
    );
    assert_eq!(holds("A (G (!(deadlock)))").to_string(), "AG !deadlock");
    assert_eq!(holds("!(tokens(p) <= 3)").to_string(), "!(tokens(p) <= 3)");
    assert_eq!(holds("E(true)").to_string(), "E true");
    assert_eq!(
        holds("(true U false) U (deadlock U true)").to_string(),
        "(true U false) U (deadlock U true)"
    );
    assert_eq!(
        holds("(true || false) && (deadlock && true) && (X true U false)").to_string(),
        "(true || false) && (deadlock && true) && (X true U false)"
    );
    let until = holds("tokens(p) <= 1 U deadlock");
    assert_eq!(
        until,
        Form::Until(b(le(tokens(&["p"]), 1)), b(Form::Deadlock))
    );
    assert_eq!(until.to_string(), "(tokens(p) <= 1) U deadlock");
    assert_eq!(
        holds("tokens(a) + (1 + tokens(b)) <= (2 + 3)").to_string(),
        "tokens(a) + (1 + tokens(b)) <= 2 + 3"
    );
    assert_eq!(
        holds("E (X true) && A (F true) && E (G true) && E (E true)").to_string(),
        "EX true && AF true && EG true && E E true"
    );
    let q = parse_formula(r#""id 1": bound("a\"b", c)"#).unwrap();
    assert_eq!(q.to_string(), r#""id 1": bound("a\"b", c)"#);
    let q = parse_formula("EF deadlock").unwrap();
    assert_eq!(q.to_string(), "EF deadlock");
}

#[test]
fn degenerate_trees_print_as_what_they_mean() {
    let f: Formula = Form::And(vec![
        Form::And(vec![]),
        Form::Or(vec![]),
        Form::Or(vec![Form::Deadlock]),
        Form::Fireable(vec![]),
        Form::Compare(
            IntExpr::Sum(vec![]),
            Cmp::Lt,
            IntExpr::Sum(vec![tokens(&[])]),
        ),
    ]);
    assert_eq!(f.to_string(), "true && false && deadlock && false && 0 < 0");
    let single_or = Form::Not(b(Form::Or(vec![Form::And(vec![
        Form::Deadlock,
        Form::Bool(true),
    ])])));
    assert_eq!(single_or.to_string(), "!(deadlock && true)");
}

#[test]
fn resolved_formulas_print_with_the_nets_names() {
    let f: Form<u32, u32> = Form::Exists(b2(Form::Finally(b2(Form::And(vec![
        Form::Compare(IntExpr::Tokens(vec![0, 1]), Cmp::Gt, IntExpr::Const(1)),
        Form::Fireable(vec![2]),
    ])))));
    let places = ["p0", "p 1"];
    let text = show(&f, &|p| places[*p as usize].to_string(), &|t| {
        format!("t{t}")
    });
    assert_eq!(text, "EF (tokens(p0, \"p 1\") > 1 && fireable(t2))");
    let q: Property<u32, u32> = Property {
        id: "b".into(),
        ask: Ask::Bound(vec![1]),
        spans: Default::default(),
    };
    assert_eq!(
        show_query(&q, &|p| places[*p as usize].to_string(), &|t| format!(
            "t{t}"
        )),
        "b: bound(\"p 1\")"
    );
}

fn b2(f: Form<u32, u32>) -> Box<Form<u32, u32>> {
    Box::new(f)
}

/// Names of every kind: plain identifiers, ones starting with a digit, and ones that need
/// quotes (no blanks at either end, which XML trims).
pub(crate) fn arb_name() -> impl Strategy<Value = Name> {
    prop_oneof![
        "[A-Za-z_][A-Za-z0-9_.-]{0,6}",
        "[0-9][A-Za-z0-9_.-]{0,3}",
        r#"[a-z "\\<>&'é#:(),!+=-]{1,6}"#
            .prop_filter("no blank at the ends", |s| { s.trim() == s.as_str() }),
    ]
    .prop_map(Name::new)
}

fn arb_names() -> impl Strategy<Value = Vec<Name>> {
    vec(arb_name(), 1..4)
}

/// Integer expressions as the readers produce them (sums of two or more terms).
pub(crate) fn arb_int() -> impl Strategy<Value = IntExpr<Name>> {
    let leaf = prop_oneof![
        prop_oneof![0..5u64, any::<u64>()].prop_map(IntExpr::Const),
        arb_names().prop_map(IntExpr::Tokens),
    ];
    leaf.prop_recursive(3, 8, 3, |inner| vec(inner, 2..4).prop_map(IntExpr::Sum))
}

/// Formulas of every variant, as the readers produce them (conjunctions and disjunctions of
/// two or more members, non-empty lists of names).
pub(crate) fn arb_formula() -> impl Strategy<Value = Formula> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(Form::Bool),
        Just(Form::Deadlock),
        arb_names().prop_map(Form::Fireable),
        (
            arb_int(),
            proptest::sample::select(Cmp::ALL.to_vec()),
            arb_int()
        )
            .prop_map(|(a, c, b)| Form::Compare(a, c, b)),
    ];
    leaf.prop_recursive(6, 48, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|f| Form::Not(Box::new(f))),
            inner.clone().prop_map(|f| Form::Exists(Box::new(f))),
            inner.clone().prop_map(|f| Form::All(Box::new(f))),
            inner.clone().prop_map(|f| Form::Next(Box::new(f))),
            inner.clone().prop_map(|f| Form::Finally(Box::new(f))),
            inner.clone().prop_map(|f| Form::Globally(Box::new(f))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Form::Until(Box::new(a), Box::new(b))),
            vec(inner.clone(), 2..4).prop_map(Form::And),
            vec(inner, 2..4).prop_map(Form::Or),
        ]
    })
}

/// Properties with ids plain or quoted, asking a formula or a bound.
pub(crate) fn arb_query() -> impl Strategy<Value = Query> {
    let ask = prop_oneof![
        4 => arb_formula().prop_map(Ask::Holds),
        1 => arb_names().prop_map(Ask::Bound),
    ];
    (arb_name(), ask).prop_map(|(id, ask)| Property {
        id: id.text,
        ask,
        spans: Default::default(),
    })
}

proptest! {
    #[test]
    fn printed_formulas_read_back_to_the_same_tree(f in arb_formula()) {
        let text = f.to_string();
        prop_assert_eq!(holds(&text), f, "{}", text);
    }

    #[test]
    fn printed_properties_read_back_to_the_same_tree(q in arb_query()) {
        let text = q.to_string();
        let back = parse_formula(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&back, &q, "{}", text);
        // One position per Boolean node, each inside the text.
        let nodes = match &q.ask {
            Ask::Holds(f) => crate::property::logic::size(f),
            Ask::Bound(_) => 0,
        };
        prop_assert_eq!(back.spans.0.len(), nodes);
        let width = text.chars().count() as u32;
        prop_assert!(back.spans.0.iter().all(|&(l, c)| l == 1 && c >= 1 && c <= width));
        let file = parse_file(&format!("{text}\n# end\n")).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(file, vec![q]);
    }
}

/// `text` with the characters in `range` (as fractions of its length) replaced by `insert`.
pub(crate) fn mutated(text: &str, cut: (f64, f64), insert: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = |f: f64| ((chars.len() as f64 * f) as usize).min(chars.len());
    let (a, z) = (at(cut.0.min(cut.1)), at(cut.0.max(cut.1)));
    chars[..a]
        .iter()
        .chain(insert.chars().collect::<Vec<_>>().iter())
        .chain(&chars[z..])
        .collect()
}

proptest! {
    #[test]
    fn any_text_reads_or_fails_without_panicking(s in "\\PC{0,40}") {
        let _ = parse_formula(&s);
        let _ = parse_file(&s);
    }

    #[test]
    fn damaged_formulas_read_or_fail_without_panicking(
        q in arb_query(),
        cut in (0.0..1.0f64, 0.0..1.0f64),
        insert in prop_oneof![Just(String::new()), "[()!&|<=>+,:\"\\\\# \na-zU0-9]{1,3}"],
    ) {
        let text = mutated(&q.to_string(), cut, &insert);
        if let Err(e) = parse_formula(&text) {
            // Errors point inside the text (or just past its end).
            let lines = text.split('\n').count() as u32;
            prop_assert!(e.line >= 1 && e.line <= lines && e.column >= 1, "{}: {}", text, e);
        }
    }
}
