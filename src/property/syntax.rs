//! The abstract syntax of properties: the Model Checking Contest's property language (state
//! predicates, path quantifiers and temporal operators, place bounds), one tree for every
//! examination, so that reachability, LTL and CTL checkers read the same formulas.
//!
//! The tree is generic over how it names places and transitions: [`Name`]s as read from a file
//! ([`Formula`], [`Query`]), indices of the net once resolved ([`ResolvedFormula`],
//! [`ResolvedQuery`], see [`super::resolve`]).

use crate::model::net::{PlaceIdx, TransIdx};

/// A comparison between two integer expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `<=` (`integer-le`).
    Le,
    /// `<` (`integer-lt`).
    Lt,
    /// `==` (`integer-eq`).
    Eq,
    /// `>=` (`integer-ge`).
    Ge,
    /// `>` (`integer-gt`).
    Gt,
    /// `!=` (`integer-ne`).
    Ne,
}

impl Cmp {
    /// Every comparison.
    pub const ALL: [Cmp; 6] = [Cmp::Le, Cmp::Lt, Cmp::Eq, Cmp::Ge, Cmp::Gt, Cmp::Ne];

    /// Whether `a ⋈ b`.
    #[inline]
    pub fn holds(self, a: u64, b: u64) -> bool {
        match self {
            Cmp::Le => a <= b,
            Cmp::Lt => a < b,
            Cmp::Eq => a == b,
            Cmp::Ge => a >= b,
            Cmp::Gt => a > b,
            Cmp::Ne => a != b,
        }
    }

    /// The comparison that holds exactly when this one does not.
    pub fn negated(self) -> Cmp {
        match self {
            Cmp::Le => Cmp::Gt,
            Cmp::Lt => Cmp::Ge,
            Cmp::Eq => Cmp::Ne,
            Cmp::Ge => Cmp::Lt,
            Cmp::Gt => Cmp::Le,
            Cmp::Ne => Cmp::Eq,
        }
    }

    /// The comparison with its sides swapped: `a ⋈ b` iff `b ⋈' a`.
    pub fn swapped(self) -> Cmp {
        match self {
            Cmp::Le => Cmp::Ge,
            Cmp::Lt => Cmp::Gt,
            Cmp::Ge => Cmp::Le,
            Cmp::Gt => Cmp::Lt,
            Cmp::Eq | Cmp::Ne => self,
        }
    }

    /// The operator of the text syntax.
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Le => "<=",
            Cmp::Lt => "<",
            Cmp::Eq => "==",
            Cmp::Ge => ">=",
            Cmp::Gt => ">",
            Cmp::Ne => "!=",
        }
    }

    /// The element name of the contest's XML (`integer-le`, …).
    pub fn xml_name(self) -> &'static str {
        match self {
            Cmp::Le => "integer-le",
            Cmp::Lt => "integer-lt",
            Cmp::Eq => "integer-eq",
            Cmp::Ge => "integer-ge",
            Cmp::Gt => "integer-gt",
            Cmp::Ne => "integer-ne",
        }
    }
}

/// An integer expression over a marking.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IntExpr<P> {
    /// A constant (`integer-constant`).
    Const(u64),
    /// The total number of tokens on these places (`tokens-count`); a place named twice
    /// counts twice, as in the contest's definition of a multiset sum.
    Tokens(Vec<P>),
    /// A sum (`integer-sum`; `+` in the text syntax).
    Sum(Vec<IntExpr<P>>),
}

/// A formula: state predicates, Boolean connectives, path quantifiers and temporal operators
/// in one tree (the contest's XML nests them freely). `P` names places, `T` transitions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Form<P, T> {
    /// `true` / `false`.
    Bool(bool),
    /// The marking enables no transition.
    Deadlock,
    /// Some of these transitions is enabled (`is-fireable`; false for the empty list).
    Fireable(Vec<T>),
    /// `left ⋈ right`.
    Compare(IntExpr<P>, Cmp, IntExpr<P>),
    /// `¬φ` (`negation`).
    Not(Box<Form<P, T>>),
    /// `φ₁ ∧ … ∧ φₙ` (`conjunction`; true when empty).
    And(Vec<Form<P, T>>),
    /// `φ₁ ∨ … ∨ φₙ` (`disjunction`; false when empty).
    Or(Vec<Form<P, T>>),
    /// `E φ` (`exists-path`).
    Exists(Box<Form<P, T>>),
    /// `A φ` (`all-paths`).
    All(Box<Form<P, T>>),
    /// `X φ` (`next`).
    Next(Box<Form<P, T>>),
    /// `F φ` (`finally`).
    Finally(Box<Form<P, T>>),
    /// `G φ` (`globally`).
    Globally(Box<Form<P, T>>),
    /// `φ U ψ` (`until`, with `before` φ and `reach` ψ).
    Until(Box<Form<P, T>>, Box<Form<P, T>>),
}

/// What a property asks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ask<P, T> {
    /// Whether the formula holds in the initial marking (for path formulas: of the net's
    /// maximal runs, as the quantifiers say).
    Holds(Form<P, T>),
    /// The largest total number of tokens on these places over the reachable markings
    /// (`place-bound`, the UpperBounds examination).
    Bound(Vec<P>),
}

/// A named property, as read from a file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Property<P, T> {
    /// The property's identifier (the contest's formula id; a name in the text syntax).
    pub id: String,
    /// What it asks.
    pub ask: Ask<P, T>,
    /// Where the nodes of its formula were read (empty when it was not read from a file).
    pub spans: Spans,
}

/// Where the Boolean nodes of a formula were read: the 1-based line and column of each, in
/// pre-order (a node, then the nodes of its operands in the tree's order: `before` before
/// `reach` of an until; integer expressions are not nodes here). Empty when the formula was
/// not read from a text. Positions are not part of a property's meaning: any two `Spans` are
/// equal, as two [`Name`]s of the same text are.
#[derive(Clone, Debug, Default)]
pub struct Spans(pub Vec<(u32, u32)>);

impl Spans {
    /// The line and column of node `node` (in pre-order), `(0, 0)` when unknown.
    pub fn at(&self, node: usize) -> (u32, u32) {
        self.0.get(node).copied().unwrap_or((0, 0))
    }
}

impl PartialEq for Spans {
    fn eq(&self, _: &Spans) -> bool {
        true
    }
}

impl Eq for Spans {}

impl std::hash::Hash for Spans {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

/// A place or transition as a file names it, with where (1-based line and column; 0 when the
/// name was not read from a file). Two names are equal when their texts are.
#[derive(Clone, Debug, Eq)]
pub struct Name {
    /// The identifier or label.
    pub text: String,
    /// Line of the name in its file (1-based; 0: unknown).
    pub line: u32,
    /// Column of the name in its line (1-based, in characters; 0: unknown).
    pub column: u32,
}

impl Name {
    /// A name with no position.
    pub fn new(text: impl Into<String>) -> Name {
        Name {
            text: text.into(),
            line: 0,
            column: 0,
        }
    }

    /// A name read at `line`:`column`.
    pub fn at(text: impl Into<String>, line: u32, column: u32) -> Name {
        Name {
            text: text.into(),
            line,
            column,
        }
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.text == other.text
    }
}

impl std::hash::Hash for Name {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state)
    }
}

/// A formula naming places and transitions as the file does.
pub type Formula = Form<Name, Name>;
/// A formula over the indices of a net's places and transitions.
pub type ResolvedFormula = Form<PlaceIdx, TransIdx>;
/// A property as read.
pub type Query = Property<Name, Name>;
/// A property resolved against a net.
pub type ResolvedQuery = Property<PlaceIdx, TransIdx>;

impl<P, T> Form<P, T> {
    /// Whether the formula has no path quantifier and no temporal operator: a predicate on one
    /// marking.
    pub fn is_state(&self) -> bool {
        match self {
            Form::Bool(_) | Form::Deadlock | Form::Fireable(_) | Form::Compare(..) => true,
            Form::Not(f) => f.is_state(),
            Form::And(fs) | Form::Or(fs) => fs.iter().all(Form::is_state),
            Form::Exists(_)
            | Form::All(_)
            | Form::Next(_)
            | Form::Finally(_)
            | Form::Globally(_)
            | Form::Until(..) => false,
        }
    }

    /// The formula as a reachability question, when it is one: `EF φ` or `AG φ` with `φ` a
    /// state predicate (also written `E F φ` or `A G φ`, and `¬` in front of either).
    pub fn as_reachability(&self) -> Option<Reachability<'_, P, T>> {
        match self {
            Form::Exists(f) => match f.as_ref() {
                Form::Finally(g) if g.is_state() => Some(Reachability {
                    kind: ReachKind::Possibly,
                    predicate: g,
                    negated: false,
                }),
                _ => None,
            },
            Form::All(f) => match f.as_ref() {
                Form::Globally(g) if g.is_state() => Some(Reachability {
                    kind: ReachKind::Invariantly,
                    predicate: g,
                    negated: false,
                }),
                _ => None,
            },
            Form::Not(f) => f.as_reachability().map(|r| Reachability {
                negated: !r.negated,
                ..r
            }),
            _ => None,
        }
    }
}

/// Which reachability question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReachKind {
    /// `EF φ`: some reachable marking satisfies φ.
    Possibly,
    /// `AG φ`: every reachable marking satisfies φ.
    Invariantly,
}

/// A formula `[¬] EF φ` or `[¬] AG φ`.
#[derive(Clone, Copy, Debug)]
pub struct Reachability<'f, P, T> {
    /// `EF` or `AG`.
    pub kind: ReachKind,
    /// The state predicate φ.
    pub predicate: &'f Form<P, T>,
    /// Whether the answer is negated (an odd number of `¬` in front).
    pub negated: bool,
}

impl<P, T> Reachability<'_, P, T> {
    /// The answer of the formula given whether some reachable marking satisfies the *target*:
    /// φ for `EF φ`, ¬φ for `AG φ` (see [`Reachability::target_is_negation`]).
    pub fn answer(&self, target_reachable: bool) -> bool {
        let holds = match self.kind {
            ReachKind::Possibly => target_reachable,
            ReachKind::Invariantly => !target_reachable,
        };
        holds != self.negated
    }

    /// Whether the marking searched for is one violating φ (`AG φ`) rather than one
    /// satisfying it (`EF φ`).
    pub fn target_is_negation(&self) -> bool {
        self.kind == ReachKind::Invariantly
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_negate_and_swap() {
        for c in Cmp::ALL {
            for a in 0..4 {
                for b in 0..4 {
                    assert_eq!(c.negated().holds(a, b), !c.holds(a, b), "{c:?}");
                    assert_eq!(c.swapped().holds(b, a), c.holds(a, b), "{c:?}");
                }
            }
        }
    }

    #[test]
    fn reachability_shapes() {
        let p: Formula = Form::Deadlock;
        let ef = Form::Exists(Box::new(Form::Finally(Box::new(p.clone()))));
        let r = ef.as_reachability().unwrap();
        assert_eq!(r.kind, ReachKind::Possibly);
        assert!(r.answer(true) && !r.answer(false));
        let ag = Form::Not(Box::new(Form::All(Box::new(Form::Globally(Box::new(
            p.clone(),
        ))))));
        let r = ag.as_reachability().unwrap();
        assert!(r.negated && r.target_is_negation());
        // ¬AG φ holds iff a marking violating φ is reachable.
        assert!(r.answer(true) && !r.answer(false));
        let nested = Form::Exists(Box::new(Form::Finally(Box::new(ef.clone()))));
        assert!(nested.as_reachability().is_none());
        assert!(
            Form::<Name, Name>::Next(Box::new(p))
                .as_reachability()
                .is_none()
        );
    }
}
