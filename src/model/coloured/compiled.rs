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
    /// A variable (the commonest term of guards).
    Var(VarId),
    /// A constant.
    Const(Colour),
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
                OneDigit::Const(c) => Code::Const(c),
                OneDigit::Var(d) if d.by == 0 => Code::Var(d.var),
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
            Code::Var(v) => binding[*v as usize],
            Code::Const(c) => *c,
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Sizes of the three variables' sorts.
    const SIZES: [u32; 3] = [3, 1, 5];

    /// A random colour term over variables 0..3 of sizes [`SIZES`], of a sort of `size`
    /// colours when it is one digit: variables, constants, shifts (of shifts: a tree),
    /// tuples (of tuples: a tree), partition elements (a tree).
    fn term() -> impl Strategy<Value = Term> {
        let digit = prop_oneof![
            (0..3u32).prop_map(Term::Var),
            (0..3u32, -7..7i64).prop_map(|(v, by)| Term::Shift {
                of: Box::new(Term::Var(v)),
                by,
                size: SIZES[v as usize],
            }),
            (0..3u32, -7..7i64, -7..7i64).prop_map(|(v, a, b)| Term::Shift {
                of: Box::new(Term::Shift {
                    of: Box::new(Term::Var(v)),
                    by: a,
                    size: SIZES[v as usize],
                }),
                by: b,
                size: SIZES[v as usize],
            }),
            (0..3u32).prop_map(|v| Term::ElementOf {
                of: Box::new(Term::Var(v)),
                element: (0..SIZES[v as usize]).map(|c| c / 2).collect(),
            }),
        ];
        // A component with its radix: a digit of the variable's sort, or a constant.
        let part = prop_oneof![
            digit.clone().prop_map(|t| {
                let r = match &t {
                    Term::Var(v) => SIZES[*v as usize],
                    Term::Shift { size, .. } => *size,
                    Term::ElementOf { element, .. } => element.iter().max().unwrap() + 1,
                    _ => unreachable!(),
                };
                (t, r)
            }),
            (1..6u32).prop_flat_map(|r| (0..r).prop_map(move |c| (Term::Const(c), r))),
        ];
        let tuple = prop::collection::vec(part, 1..4).prop_map(|ps| {
            let (parts, radices) = ps.into_iter().unzip();
            Term::Tuple { parts, radices }
        });
        let nested = (tuple.clone(), tuple.clone()).prop_map(|(a, b)| {
            let size = |t: &Term| match t {
                Term::Tuple { radices, .. } => radices.iter().product::<u32>(),
                _ => unreachable!(),
            };
            let radices = vec![size(&a), size(&b)];
            Term::Tuple {
                parts: vec![a, b],
                radices,
            }
        });
        prop_oneof![digit, (0..4u32).prop_map(Term::Const), tuple, nested]
    }

    /// Every binding of the three variables.
    fn bindings() -> impl Iterator<Item = [Colour; 3]> {
        (0..SIZES[0])
            .flat_map(|a| (0..SIZES[1]).flat_map(move |b| (0..SIZES[2]).map(move |c| [a, b, c])))
    }

    fn multiset() -> impl Strategy<Value = Multiset> {
        let leaf = prop_oneof![
            (0..3u64, term()).prop_map(|(n, t)| Multiset::Of(n, t)),
            (1..4u32).prop_map(Multiset::All),
        ];
        leaf.prop_recursive(3, 10, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 1..4).prop_map(Multiset::Add),
                (0..3u64, inner.clone()).prop_map(|(n, m)| Multiset::Scale(n, Box::new(m))),
                (inner.clone(), inner)
                    .prop_map(|(a, b)| Multiset::Subtract(Box::new(a), Box::new(b))),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// A compiled term has the tree's value under every binding.
        #[test]
        fn compiled_terms_evaluate_as_their_trees(t in term()) {
            let code = Code::new(&t);
            for b in bindings() {
                prop_assert_eq!(code.eval(&b), t.eval(&b), "{:?} under {:?}", t, b);
            }
        }

        /// A compiled guard holds where the tree holds.
        #[test]
        fn compiled_guards_hold_as_their_trees(
            ts in prop::collection::vec(term(), 4),
            cmps in prop::collection::vec(0..6usize, 2),
            negate in any::<bool>(),
        ) {
            let cmp = |i: usize| [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge][i];
            let mut ts = ts.into_iter();
            let mut compare = |c| {
                Guard::Compare(ts.next().unwrap(), cmp(c), ts.next().unwrap())
            };
            let a = compare(cmps[0]);
            let b = compare(cmps[1]);
            let set = Guard::In(Term::Var(2), vec![1, 3]);
            let g = Guard::Or(vec![Guard::And(vec![a, set]), b]);
            let g = if negate { Guard::Not(Box::new(g)) } else { g };
            let code = GuardCode::new(&g);
            for b in bindings() {
                prop_assert_eq!(code.holds(&b), g.holds(&b));
            }
        }

        /// A compiled inscription's pairs, merged, are the tree's value (or its failure).
        #[test]
        fn compiled_inscriptions_evaluate_as_their_trees(m in multiset()) {
            let code = MultisetCode::new(&m);
            for b in bindings() {
                let mut got = Vec::new();
                let got = code
                    .add_unsorted(&b, &mut got)
                    .map(|()| {
                        crate::model::coloured::term::normalise_in_place(&mut got);
                        got
                    });
                prop_assert_eq!(got, m.eval(&b));
            }
        }
    }
}
