//! Which temporal logic a formula is written in, and the refusal, at the offending operator's
//! line and column, of a formula outside the logic its file or examination expects.
//!
//! The rules are the contest's (its formula files follow them without exception; the test
//! `tests/property_logic.rs` checks that none is refused):
//!
//! - every temporal operator (`X`, `F`, `G`, `U`) lies under a path quantifier (`A`, `E`): a
//!   path formula is never a state predicate (`tokens(p) >= 3 && F q` means nothing at a
//!   marking);
//! - **LTL** (LTLCardinality, LTLFireability): one path quantifier, at the top (under
//!   negations), over a path formula without quantifiers: `A G F p`, not `A G E F p`; a state
//!   predicate alone is the LTL formula it is;
//! - **CTL** (CTLCardinality, CTLFireability): every temporal operator right under a path
//!   quantifier, its operands state formulas: `A G E F p`, not `A G F p`. As the CTL engine
//!   reads them (`check::ctl`), negations between the quantifier and `X`, `F` or `G` are
//!   allowed (`A ¬F φ` is `A G ¬φ`) and a quantifier over a state formula is that formula;
//! - **reachability** (ReachabilityCardinality, ReachabilityFireability): `EF φ` or `AG φ`
//!   (negated or not) over a state predicate φ, nothing else: not `A F φ`, not a state
//!   predicate alone, not a place bound;
//! - **bounds** (UpperBounds): place bounds only;
//! - **any** (`unfold check` without an examination): a state predicate, an LTL or a CTL
//!   formula, what the engines decide; a formula of neither logic (CTL*, `A (F p && E G q)`)
//!   is refused.

use super::load::ReadError;
use super::syntax::{Ask, Form, Property};

/// The logic a file or an examination expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logic {
    /// A state predicate, an LTL or a CTL formula.
    Any,
    /// LTL: one path quantifier at the top.
    Ltl,
    /// CTL: a path quantifier right before every temporal operator.
    Ctl,
    /// Reachability: `[¬] EF φ` or `[¬] AG φ` over a state predicate φ.
    Reachability,
    /// Place bounds only.
    Bounds,
}

impl Logic {
    /// The logic's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Logic::Any => "LTL or CTL",
            Logic::Ltl => "LTL",
            Logic::Ctl => "CTL",
            Logic::Reachability => "reachability",
            Logic::Bounds => "place bounds",
        }
    }
}

/// The error, at the line and column of the offending node, when the formula of `q` is not of
/// `logic` (positions from [`Property::spans`](super::syntax::Property::spans); 0:0 when the property was not read from a
/// text). Place bounds are of every logic but reachability, and the only properties of
/// [`Logic::Bounds`].
pub fn refusal<P, T>(q: &Property<P, T>, logic: Logic) -> Option<ReadError> {
    let error = |(node, message): (usize, String)| {
        let (line, column) = q.spans.at(node);
        ReadError {
            line,
            column,
            message,
        }
    };
    let f = match (&q.ask, logic) {
        (Ask::Bound(_), Logic::Reachability) => {
            return Some(error((
                0,
                format!("not reachability: a place bound; {REACHABILITY}"),
            )));
        }
        (Ask::Bound(_), _) => return None,
        (Ask::Holds(_), Logic::Bounds) => {
            return Some(error((
                0,
                "not a place bound: the formulas of upper bounds are place bounds only".into(),
            )));
        }
        (Ask::Holds(f), _) => f,
    };
    if let Some(e) = unquantified(f, 0, false) {
        return Some(error(e));
    }
    if logic == Logic::Reachability {
        return reachability(f)
            .map(|(at, why)| error((at, format!("not reachability: {why}; {REACHABILITY}"))));
    }
    if f.is_state() {
        return None;
    }
    const LTL: &str = "LTL has one path quantifier, at the top (nested quantifiers are CTL)";
    const CTL: &str = "in CTL every temporal operator is (A G F p is LTL, A G E F p is CTL)";
    match logic {
        Logic::Ltl => ltl(f).map(|(at, why)| error((at, format!("not LTL: {why}; {LTL}")))),
        Logic::Ctl => {
            ctl_state(f, 0).map(|(at, why)| error((at, format!("not CTL: {why}; {CTL}"))))
        }
        Logic::Reachability | Logic::Bounds => unreachable!("answered above"),
        Logic::Any => {
            let (as_ltl, as_ctl) = (ltl(f)?, ctl_state(f, 0)?);
            let (line, column) = q.spans.at(as_ltl.0);
            Some(error((
                as_ctl.0,
                format!(
                    "neither LTL nor CTL, the logics checked: as CTL, {}; as LTL, {} (at \
                     {line}:{column})",
                    as_ctl.1, as_ltl.1
                ),
            )))
        }
    }
}

/// What the reachability examinations ask, for their refusals.
const REACHABILITY: &str = "the reachability examinations ask EF φ or AG φ over a state \
                            predicate φ";

/// Why `f` (every temporal operator quantified) is not `[¬] EF φ` or `[¬] AG φ` over a state
/// predicate φ: the first node that is not.
fn reachability<P, T>(f: &Form<P, T>) -> Option<(usize, String)> {
    let (mut top, mut node) = (f, 0);
    while let Form::Not(g) = top {
        (top, node) = (g, node + 1);
    }
    let (body, at) = match top {
        Form::Exists(_) | Form::All(_) => numbered(top, node)[0],
        _ if top.is_state() => {
            return Some((
                node,
                "a state predicate alone (its value at the initial marking)".into(),
            ));
        }
        _ => {
            return Some((
                node,
                format!("{} where EF or AG is expected", operator(top)),
            ));
        }
    };
    let wanted = matches!(
        (top, body),
        (Form::Exists(_), Form::Finally(_)) | (Form::All(_), Form::Globally(_))
    );
    if !wanted {
        return Some((
            at,
            format!("{} right after {}", operator(body), operator(top)),
        ));
    }
    let (inner, at) = numbered(body, at)[0];
    (!inner.is_state()).then(|| {
        (
            at,
            format!(
                "{} over a path formula, not a state predicate",
                operator(body)
            ),
        )
    })
}

/// The operands of a Boolean node, in the tree's order.
fn operands<P, T>(f: &Form<P, T>) -> Vec<&Form<P, T>> {
    match f {
        Form::Not(g)
        | Form::Exists(g)
        | Form::All(g)
        | Form::Next(g)
        | Form::Finally(g)
        | Form::Globally(g) => vec![g],
        Form::And(gs) | Form::Or(gs) => gs.iter().collect(),
        Form::Until(a, b) => vec![a, b],
        Form::Bool(_) | Form::Deadlock | Form::Fireable(_) | Form::Compare(..) => Vec::new(),
    }
}

/// The number of Boolean nodes of `f` (what [`Spans`](super::syntax::Spans) has one position
/// for).
pub(crate) fn size<P, T>(f: &Form<P, T>) -> usize {
    1 + operands(f).into_iter().map(size).sum::<usize>()
}

/// The operands of `f` with their pre-order indices, `f` being node `node`.
fn numbered<P, T>(f: &Form<P, T>, node: usize) -> Vec<(&Form<P, T>, usize)> {
    let mut next = node + 1;
    operands(f)
        .into_iter()
        .map(|g| {
            let at = next;
            next += size(g);
            (g, at)
        })
        .collect()
}

/// An operator as the two syntaxes write it.
fn operator<P, T>(f: &Form<P, T>) -> &'static str {
    match f {
        Form::Next(_) => "X (next)",
        Form::Finally(_) => "F (finally)",
        Form::Globally(_) => "G (globally)",
        Form::Until(..) => "U (until)",
        Form::Exists(_) => "E (exists-path)",
        Form::All(_) => "A (all-paths)",
        Form::Not(_) => "! (negation)",
        Form::And(_) => "&& (conjunction)",
        Form::Or(_) => "|| (disjunction)",
        _ => "a state predicate",
    }
}

fn is_temporal<P, T>(f: &Form<P, T>) -> bool {
    matches!(
        f,
        Form::Next(_) | Form::Finally(_) | Form::Globally(_) | Form::Until(..)
    )
}

fn is_quantifier<P, T>(f: &Form<P, T>) -> bool {
    matches!(f, Form::Exists(_) | Form::All(_))
}

/// The first temporal operator (in pre-order) under no path quantifier, `f` being node `node`
/// (`quantified`: under a quantifier already).
fn unquantified<P, T>(f: &Form<P, T>, node: usize, quantified: bool) -> Option<(usize, String)> {
    if is_temporal(f) && !quantified {
        return Some((
            node,
            format!(
                "{} under no path quantifier: a path formula is not a state predicate \
                 (write A or E before it)",
                operator(f)
            ),
        ));
    }
    let quantified = quantified || is_quantifier(f);
    numbered(f, node)
        .into_iter()
        .find_map(|(g, at)| unquantified(g, at, quantified))
}

/// Why `f` (not a state formula, every temporal operator quantified) is not LTL.
fn ltl<P, T>(f: &Form<P, T>) -> Option<(usize, String)> {
    let (mut top, mut node) = (f, 0);
    while let Form::Not(g) = top {
        (top, node) = (g, node + 1);
    }
    if !is_quantifier(top) {
        return Some((
            node,
            format!(
                "{} over formulas with path quantifiers of their own",
                operator(top)
            ),
        ));
    }
    let (body, at) = numbered(top, node)[0];
    first_quantifier(body, at).map(|(q, at)| (at, format!("{} inside a path formula", operator(q))))
}

/// The first path quantifier of `f` (node `node`) in pre-order, and its index.
fn first_quantifier<P, T>(f: &Form<P, T>, node: usize) -> Option<(&Form<P, T>, usize)> {
    if is_quantifier(f) {
        return Some((f, node));
    }
    numbered(f, node)
        .into_iter()
        .find_map(|(g, at)| first_quantifier(g, at))
}

/// Why the state formula `f` (node `node`) is not CTL: as `check::ctl::formula` reads it.
fn ctl_state<P, T>(f: &Form<P, T>, node: usize) -> Option<(usize, String)> {
    if f.is_state() {
        return None;
    }
    match f {
        Form::Exists(p) | Form::All(p) => ctl_path(p, node + 1),
        _ if is_temporal(f) => Some((
            node,
            format!("{} not right after a path quantifier", operator(f)),
        )),
        _ => numbered(f, node)
            .into_iter()
            .find_map(|(g, at)| ctl_state(g, at)),
    }
}

/// Why the path formula `p` (node `node`) under a path quantifier is not CTL.
fn ctl_path<P, T>(p: &Form<P, T>, node: usize) -> Option<(usize, String)> {
    if is_temporal(p) {
        return numbered(p, node)
            .into_iter()
            .find_map(|(g, at)| ctl_state(g, at));
    }
    if let Form::Not(q) = p {
        match q.as_ref() {
            Form::Not(r) => return ctl_path(r, node + 2),
            Form::Next(g) | Form::Finally(g) | Form::Globally(g) => {
                return ctl_state(g, node + 2);
            }
            _ => {}
        }
    }
    // A quantifier over a state formula is that formula.
    ctl_state(p, node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::property::text::parse_formula;

    /// The refusal of the text formula `text` under `logic`, as `line:column: message`.
    fn refused(text: &str, logic: Logic) -> Option<String> {
        let q = parse_formula(text).unwrap();
        refusal(&q, logic).map(|e| e.to_string())
    }

    #[test]
    fn state_predicates_and_bounds_are_of_every_logic() {
        for logic in [Logic::Any, Logic::Ltl, Logic::Ctl] {
            for text in ["tokens(p) >= 3 && fireable(t)", "bound(p)", "!deadlock"] {
                assert_eq!(refused(text, logic), None, "{text} {logic:?}");
            }
        }
    }

    #[test]
    fn temporal_operators_need_a_path_quantifier() {
        for logic in [Logic::Any, Logic::Ltl, Logic::Ctl] {
            let e = refused("tokens(p) >= 3 && F fireable(q)", logic).unwrap();
            assert!(
                e.starts_with("1:19: F (finally) under no path quantifier"),
                "{e}"
            );
            let e = refused("fireable(t) || X tokens(p) >= 1", logic).unwrap();
            assert!(
                e.starts_with("1:16: X (next) under no path quantifier"),
                "{e}"
            );
            let e = refused("deadlock U deadlock", logic).unwrap();
            assert!(e.starts_with("1:10: U (until)"), "{e}");
        }
    }

    #[test]
    fn ltl_has_one_quantifier_at_the_top() {
        assert_eq!(refused("A G F deadlock", Logic::Ltl), None);
        assert_eq!(refused("!E (deadlock U X !deadlock)", Logic::Ltl), None);
        let e = refused("A (G (E F deadlock))", Logic::Ltl).unwrap();
        assert!(e.starts_with("1:7: not LTL: E (exists-path) inside"), "{e}");
        let e = refused("AF deadlock && AG !deadlock", Logic::Ltl).unwrap();
        assert!(
            e.starts_with("1:1: not LTL: && (conjunction) over formulas"),
            "{e}"
        );
        let e = refused("!!(AF deadlock || true)", Logic::Ltl).unwrap();
        assert!(e.starts_with("1:4: not LTL"), "{e}");
    }

    #[test]
    fn ctl_puts_a_quantifier_before_every_temporal_operator() {
        for ok in [
            "A G E F deadlock",
            "E [deadlock U A X !deadlock] && AF deadlock",
            "A !F deadlock",
            "E !!G deadlock",
            "A deadlock",
            "!(E X deadlock)",
        ] {
            assert_eq!(refused(ok, Logic::Ctl), None, "{ok}");
        }
        let e = refused("A G F deadlock", Logic::Ctl).unwrap();
        assert!(
            e.starts_with("1:5: not CTL: F (finally) not right after"),
            "{e}"
        );
        let e = refused("E (deadlock && X deadlock)", Logic::Ctl).unwrap();
        assert!(e.starts_with("1:16: not CTL: X (next)"), "{e}");
        let e = refused("A !(deadlock U deadlock)", Logic::Ctl).unwrap();
        assert!(e.starts_with("1:14: not CTL: U (until)"), "{e}");
    }

    #[test]
    fn any_takes_ltl_and_ctl_but_not_their_mixtures() {
        for ok in [
            "A G F deadlock",
            "A G E F deadlock",
            "EF deadlock",
            "A X deadlock",
        ] {
            assert_eq!(refused(ok, Logic::Any), None, "{ok}");
        }
        let e = refused("A (F deadlock && E G deadlock)", Logic::Any).unwrap();
        assert!(
            e.starts_with("1:4: neither LTL nor CTL")
                && e.contains("as LTL, E (exists-path) inside a path formula (at 1:18)"),
            "{e}"
        );
    }

    #[test]
    fn reachability_is_ef_or_ag_over_a_state_predicate() {
        for ok in [
            "EF deadlock",
            "A G (tokens(p) >= 3 && fireable(t))",
            "!E F !deadlock",
            "!!AG deadlock",
        ] {
            assert_eq!(refused(ok, Logic::Reachability), None, "{ok}");
        }
        for (text, at) in [
            (
                "A F deadlock",
                "1:3: not reachability: F (finally) right after A",
            ),
            (
                "E G deadlock",
                "1:3: not reachability: G (globally) right after E",
            ),
            (
                "A G F deadlock",
                "1:5: not reachability: G (globally) over a path formula",
            ),
            (
                "EF AG deadlock",
                "1:4: not reachability: F (finally) over a path formula",
            ),
            (
                "E X deadlock",
                "1:3: not reachability: X (next) right after E",
            ),
            (
                "!A (deadlock U deadlock)",
                "1:14: not reachability: U (until)",
            ),
            (
                "EF deadlock && AG deadlock",
                "1:1: not reachability: && (conjunction)",
            ),
            ("deadlock", "1:1: not reachability: a state predicate alone"),
        ] {
            let e = refused(text, Logic::Reachability).unwrap_or_default();
            assert!(e.starts_with(at), "{text}: {e}");
        }
        // A place bound has no position of its own.
        let e = refused("bound(p)", Logic::Reachability).unwrap_or_default();
        assert!(e.contains("not reachability: a place bound"), "{e}");
    }

    #[test]
    fn bounds_are_place_bounds_only() {
        assert_eq!(refused("bound(p, q)", Logic::Bounds), None);
        for text in ["EF deadlock", "tokens(p) >= 1", "A G F deadlock"] {
            let e = refused(text, Logic::Bounds).unwrap_or_default();
            assert!(e.starts_with("1:1: not a place bound"), "{text}: {e}");
        }
    }

    #[test]
    fn xml_formulas_are_refused_at_their_elements() {
        let xml = "<property-set><property><id>a</id><formula>\n\
                   <all-paths><globally>\n  <finally><deadlock/></finally>\n\
                   </globally></all-paths></formula></property></property-set>";
        let qs = crate::property::parse_xml(xml).unwrap();
        assert_eq!(refusal(&qs[0], Logic::Ltl), None);
        let e = refusal(&qs[0], Logic::Ctl).unwrap();
        assert_eq!((e.line, e.column), (3, 3), "{e}");
        // `reach` before `before` in the file: the spans follow the tree's order.
        let xml = "<property-set><property><id>a</id><formula><exists-path><until>\
                   <reach><deadlock/></reach><before><all-paths><finally><deadlock/>\
                   </finally></all-paths></before></until></exists-path></formula>\
                   </property></property-set>";
        let qs = crate::property::parse_xml(xml).unwrap();
        let e = refusal(&qs[0], Logic::Ltl).unwrap();
        let at = xml.find("<all-paths>").unwrap() as u32 + 1;
        assert_eq!((e.line, e.column), (1, at), "{e}");
    }
}
