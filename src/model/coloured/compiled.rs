//! Terms, guards and arc inscriptions compiled for the unfolding's inner loops.
//!
//! The unfolding evaluates the same few terms once per binding tried, millions of times. Most
//! colour terms of the contest's models are tuples of variables, constants and successors of
//! variables; since a tuple's colour is the mixed-radix number of its components, such a term
//! is a sum of digits `multiplier × component`, evaluated here without recursion or the
//! vectors of [`Term`]. Anything else keeps its tree ([`Code::Tree`]), evaluated by
//! [`Term::eval`], so the values are the same for every term.

use super::sort::Colour;
use super::term::{Cmp, Guard, Multiset, NegativeMultiset, Term, VarId};

/// One component of a [`Code::Digits`]: `multiplier × ((binding[var] + by) wrapped below
/// size)`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Digit {
    var: VarId,
    /// The shift, in `0..size` (a predecessor is a shift by `size - 1`).
    by: u32,
    /// The size of the variable's sort for a shift; `u32::MAX` when there is none (the
    /// variable's colour is below its sort's size, so it never wraps).
    size: u32,
    multiplier: u32,
}

/// A compiled colour term.
#[derive(Clone, Debug)]
pub(super) enum Code<'t> {
    /// `constant + Σ digits`.
    Digits {
        constant: Colour,
        digits: Box<[Digit]>,
    },
    /// A term of another shape.
    Tree(&'t Term),
}

/// A colour term that is one digit: a variable, a constant, or a shifted variable.
enum OneDigit {
    Const(Colour),
    Var(Digit),
}

fn one_digit(t: &Term) -> Option<OneDigit> {
    match t {
        Term::Const(c) => Some(OneDigit::Const(*c)),
        Term::Var(v) => Some(OneDigit::Var(Digit {
            var: *v,
            by: 0,
            size: u32::MAX,
            multiplier: 1,
        })),
        Term::Shift { of, by, size } => match of.as_ref() {
            Term::Var(v) if *size > 0 => Some(OneDigit::Var(Digit {
                var: *v,
                by: by.rem_euclid(*size as i64) as u32,
                size: *size,
                multiplier: 1,
            })),
            _ => None,
        },
        _ => None,
    }
}

impl<'t> Code<'t> {
    /// `t` compiled.
    pub(super) fn new(t: &'t Term) -> Code<'t> {
        let digits = |constant, digits: Vec<Digit>| Code::Digits {
            constant,
            digits: digits.into_boxed_slice(),
        };
        if let Some(d) = one_digit(t) {
            return match d {
                OneDigit::Const(c) => digits(c, Vec::new()),
                OneDigit::Var(d) => digits(0, vec![d]),
            };
        }
        if let Term::Tuple { parts, radices } = t {
            // Component `i` is worth the product of the radices after it; a product sort has
            // at most 2^31 colours, so every multiplier and the sum fit in a colour.
            let mut multiplier = 1u64;
            let mut constant = 0u64;
            let mut out = Vec::new();
            for (p, &r) in parts.iter().zip(radices).rev() {
                match one_digit(p) {
                    Some(OneDigit::Const(c)) => constant += c as u64 * multiplier,
                    Some(OneDigit::Var(d)) => out.push(Digit {
                        multiplier: multiplier as u32,
                        ..d
                    }),
                    None => return Code::Tree(t),
                }
                multiplier *= r as u64;
            }
            if multiplier <= u32::MAX as u64 {
                out.reverse();
                return digits(constant as Colour, out);
            }
        }
        Code::Tree(t)
    }

    /// Its value under `binding` (that of [`Term::eval`]).
    #[inline]
    pub(super) fn eval(&self, binding: &[Colour]) -> Colour {
        match self {
            Code::Digits { constant, digits } => {
                let mut value = *constant;
                for d in digits.iter() {
                    let mut x = binding[d.var as usize] + d.by;
                    if x >= d.size {
                        x -= d.size;
                    }
                    value += d.multiplier * x;
                }
                value
            }
            Code::Tree(t) => t.eval(binding),
        }
    }
}

/// A compiled guard.
#[derive(Clone, Debug)]
pub(super) enum GuardCode<'t> {
    True,
    Compare(Code<'t>, Cmp, Code<'t>),
    In(Code<'t>, &'t [Colour]),
    And(Vec<GuardCode<'t>>),
    Or(Vec<GuardCode<'t>>),
    Not(Box<GuardCode<'t>>),
}

impl<'t> GuardCode<'t> {
    /// `g` compiled.
    pub(super) fn new(g: &'t Guard) -> GuardCode<'t> {
        match g {
            Guard::True => GuardCode::True,
            Guard::Compare(a, c, b) => GuardCode::Compare(Code::new(a), *c, Code::new(b)),
            Guard::In(t, set) => GuardCode::In(Code::new(t), set),
            Guard::And(gs) => GuardCode::And(gs.iter().map(GuardCode::new).collect()),
            Guard::Or(gs) => GuardCode::Or(gs.iter().map(GuardCode::new).collect()),
            Guard::Not(g) => GuardCode::Not(Box::new(GuardCode::new(g))),
        }
    }

    /// Whether it holds under `binding` (as [`Guard::holds`]).
    pub(super) fn holds(&self, binding: &[Colour]) -> bool {
        match self {
            GuardCode::True => true,
            GuardCode::Compare(a, c, b) => c.holds(a.eval(binding), b.eval(binding)),
            GuardCode::In(t, set) => set.binary_search(&t.eval(binding)).is_ok(),
            GuardCode::And(gs) => gs.iter().all(|g| g.holds(binding)),
            GuardCode::Or(gs) => gs.iter().any(|g| g.holds(binding)),
            GuardCode::Not(g) => !g.holds(binding),
        }
    }
}

/// A compiled arc inscription: a sum of counted colour terms when it is one (sums, scalings
/// and `numberof`s of colour terms), the tree otherwise.
#[derive(Clone, Debug)]
pub(super) enum MultisetCode<'t> {
    /// `Σ count × colour`, counts positive.
    Sum(Vec<(u64, Code<'t>)>),
    /// Another shape.
    Tree(&'t Multiset),
}

/// Adds the terms of `m` scaled by `scale` to `out`, or returns false when `m` is not a sum of
/// counted colour terms.
fn flatten<'t>(m: &'t Multiset, scale: u64, out: &mut Vec<(u64, Code<'t>)>) -> bool {
    match m {
        Multiset::Of(n, t) => {
            // As `Multiset::add_to`: no pair for a zero count.
            if *n > 0 && scale > 0 {
                out.push((n.saturating_mul(scale), Code::new(t)));
            }
            true
        }
        Multiset::Scale(n, m) => flatten(m, scale.saturating_mul(*n), out),
        Multiset::Add(ms) => ms.iter().all(|m| flatten(m, scale, out)),
        _ => false,
    }
}

impl<'t> MultisetCode<'t> {
    /// `m` compiled.
    pub(super) fn new(m: &'t Multiset) -> MultisetCode<'t> {
        let mut terms = Vec::new();
        if flatten(m, 1, &mut terms) {
            MultisetCode::Sum(terms)
        } else {
            MultisetCode::Tree(m)
        }
    }

    /// Adds its value under `binding` to `out`, unsorted, colours possibly repeated (the pairs
    /// of [`Multiset::eval`] before they are merged).
    #[inline]
    pub(super) fn add_unsorted(
        &self,
        binding: &[Colour],
        out: &mut Vec<(Colour, u64)>,
    ) -> Result<(), NegativeMultiset> {
        match self {
            MultisetCode::Sum(terms) => {
                out.extend(terms.iter().map(|(n, t)| (t.eval(binding), *n)));
                Ok(())
            }
            MultisetCode::Tree(m) => m.add_unsorted(binding, out),
        }
    }
}
