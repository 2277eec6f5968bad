//! The exact vertex behind the solver's floating-point answer, for when rounding to a few
//! denominators fails (weighted nets: vertices with denominators in the hundreds of
//! thousands).
//!
//! A simplex answer is a vertex of `{ y : yᵀC ≤ 0, y ≥ c }`: the unique solution of the
//! inequalities it meets with equality. So: take as exact the entries the answer leaves at
//! their lower bound (`y(p) = c(p)`) and the rows it makes tight (`yᵀC_t = 0`), solve that
//! sparse system exactly in rationals (Gauss–Jordan on sorted sparse rows; entries the system
//! leaves free keep a rational near their float), and hand the result to the exact check like
//! every other candidate. Nothing here needs to be right for soundness: a wrong guess of
//! the tight set gives a candidate that the check rejects, or none. Arithmetic is `i128`,
//! checked; an overflow, a budget or a size cap gives up.

use std::time::Instant;

use rustc_hash::FxHashMap;

use super::{Certificate, StateEquation, fraction};
use crate::model::net::PlaceIdx;

/// Entries at most this far (relative) from their lower bound are taken to lie on it.
const AT_BOUND: f64 = 1e-7;
/// Rows whose activity is at most this fraction of their magnitude are taken to be tight.
const TIGHT: f64 = 1e-7;
/// Give up when the rows being reduced hold more entries than this (fill-in).
const MAX_ENTRIES: usize = 4_000_000;
/// The grid of the free entries no short fraction matches.
const FINE: i128 = 1 << 30;
/// Numerators and denominators stay below this, so that no operation of [`Rat`] can reach
/// `i128::MIN` (whose absolute value `i128` does not hold).
const LIMIT: u128 = 1 << 120;

/// A rational `n/d`, `d > 0`, in lowest terms, both below [`LIMIT`] in absolute value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rat {
    n: i128,
    d: i128,
}

impl Default for Rat {
    fn default() -> Rat {
        Rat::ZERO
    }
}

impl Rat {
    const ZERO: Rat = Rat { n: 0, d: 1 };

    fn int(k: i64) -> Rat {
        Rat {
            n: i128::from(k),
            d: 1,
        }
    }

    /// `n/d` in lowest terms; `None` for `d = 0` or past [`LIMIT`].
    fn new(n: i128, d: i128) -> Option<Rat> {
        if d == 0 {
            return None;
        }
        let (un, ud) = (n.unsigned_abs(), d.unsigned_abs());
        let g = gcd(un, ud);
        let (un, ud) = (un / g, ud / g);
        if un >= LIMIT || ud >= LIMIT {
            return None;
        }
        let negative = (n < 0) != (d < 0);
        let n = un as i128;
        Some(Rat {
            n: if negative { -n } else { n },
            d: ud as i128,
        })
    }

    fn is_zero(self) -> bool {
        self.n == 0
    }

    fn add(self, o: Rat) -> Option<Rat> {
        if self.d == o.d {
            return Rat::new(self.n.checked_add(o.n)?, self.d);
        }
        let n = self
            .n
            .checked_mul(o.d)?
            .checked_add(o.n.checked_mul(self.d)?)?;
        Rat::new(n, self.d.checked_mul(o.d)?)
    }

    fn mul(self, o: Rat) -> Option<Rat> {
        // Cross-cancel first: the operands are in lowest terms.
        let g1 = gcd(self.n.unsigned_abs(), o.d.unsigned_abs()) as i128;
        let g2 = gcd(o.n.unsigned_abs(), self.d.unsigned_abs()) as i128;
        Rat::new(
            (self.n / g1).checked_mul(o.n / g2)?,
            (self.d / g2).checked_mul(o.d / g1)?,
        )
    }

    fn neg(self) -> Rat {
        Rat {
            n: -self.n,
            d: self.d,
        }
    }

    fn div(self, o: Rat) -> Option<Rat> {
        if o.is_zero() {
            return None;
        }
        self.mul(Rat { n: o.d, d: o.n }.normalised()?)
    }

    /// The sign moved to the numerator (after swapping numerator and denominator).
    fn normalised(self) -> Option<Rat> {
        Rat::new(self.n, self.d)
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// A sparse row `Σ a·y(p) = rhs`, sorted by place, no zero coefficient.
#[derive(Clone, Debug, Default)]
struct Row {
    terms: Vec<(PlaceIdx, Rat)>,
    rhs: Rat,
}

impl Row {
    /// `self − k·other`.
    fn subtract(&self, k: Rat, other: &Row) -> Option<Row> {
        let mut terms = Vec::with_capacity(self.terms.len() + other.terms.len());
        let (mut i, mut j) = (0, 0);
        while i < self.terms.len() || j < other.terms.len() {
            let a = self.terms.get(i);
            let b = other.terms.get(j);
            let (p, v) = match (a, b) {
                (Some(&(p, x)), Some(&(q, _))) if p < q => {
                    i += 1;
                    (p, x)
                }
                (Some(&(p, _)), Some(&(q, y))) if q < p => {
                    j += 1;
                    (q, k.mul(y)?.neg())
                }
                (Some(&(p, x)), Some(&(_, y))) => {
                    i += 1;
                    j += 1;
                    (p, x.add(k.mul(y)?.neg())?)
                }
                (Some(&(p, x)), None) => {
                    i += 1;
                    (p, x)
                }
                (None, Some(&(q, y))) => {
                    j += 1;
                    (q, k.mul(y)?.neg())
                }
                (None, None) => unreachable!("loop condition"),
            };
            if !v.is_zero() {
                terms.push((p, v));
            }
        }
        Some(Row {
            terms,
            rhs: self.rhs.add(k.mul(other.rhs)?.neg())?,
        })
    }
}

/// The exact vertex near `y` (floats on every place; `c` the lower bounds), as a certificate
/// for the exact check; `None` when the system is inconsistent, too large, overflows, or
/// `deadline` passes.
pub(super) fn recover(
    se: &StateEquation,
    c: &[i64],
    y: &[f64],
    deadline: Option<Instant>,
) -> Option<Certificate> {
    let at_bound = |p: usize| (y[p] - c[p] as f64).abs() <= AT_BOUND * (1.0 + (c[p] as f64).abs());
    // The equations of the tight rows over the entries off their bounds.
    let mut pivots: Vec<(PlaceIdx, Row)> = Vec::new();
    let mut pivot_of: FxHashMap<PlaceIdx, usize> = FxHashMap::default();
    let mut entries = 0usize;
    for &t in &se.distinct {
        let column = se.effects.row(t as usize);
        let activity: f64 = column.iter().map(|&(p, k)| k as f64 * y[p as usize]).sum();
        let magnitude: f64 = column
            .iter()
            .map(|&(p, k)| (k as f64 * y[p as usize]).abs())
            .sum();
        if activity.abs() > TIGHT * (1.0 + magnitude) {
            continue;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        let mut row = Row::default();
        for &(p, k) in column {
            if at_bound(p as usize) {
                row.rhs = row
                    .rhs
                    .add(Rat::int(k).mul(Rat::int(c[p as usize]))?.neg())?;
            } else {
                row.terms.push((p, Rat::int(k)));
            }
        }
        // Reduce by the pivots in the order they were made: pivot row `i` holds no pivot
        // made before it, so each subtraction only brings in later ones and this ends.
        while let Some((i, k)) = row
            .terms
            .iter()
            .filter_map(|&(p, k)| pivot_of.get(&p).map(|&i| (i, k)))
            .min_by_key(|&(i, _)| i)
        {
            row = row.subtract(k, &pivots[i].1)?;
        }
        let Some(&(p, k)) = row.terms.first() else {
            if row.rhs.is_zero() {
                continue; // implied by the others
            }
            return None; // contradicts them: the tight set was guessed wrong
        };
        let one = Rat::int(1).div(k)?;
        for term in &mut row.terms {
            term.1 = term.1.mul(one)?;
        }
        row.rhs = row.rhs.mul(one)?;
        entries += row.terms.len();
        if entries > MAX_ENTRIES {
            return None;
        }
        pivot_of.insert(p, pivots.len());
        pivots.push((p, row));
    }
    // Entries at their bound take it; free ones off their bound keep a rational near their
    // float; pivots follow from later pivots and free entries, so go backwards.
    let mut value: Vec<Option<Rat>> = vec![None; y.len()];
    for p in 0..y.len() {
        if at_bound(p) {
            value[p] = Some(Rat::int(c[p]));
        } else if !pivot_of.contains_key(&(p as PlaceIdx)) {
            // A vertex pins every entry; an entry left free here (a degenerate vertex, or a
            // tight row missed) keeps its float, rounded to a fine grid if no short fraction
            // matches it.
            let (n, d) = fraction(y[p]).or_else(|| {
                let scaled = (y[p] * FINE as f64).round();
                (scaled.abs() < 1e30).then_some((scaled as i128, FINE))
            })?;
            value[p] = Some(Rat::new(n, d)?);
        }
    }
    for (p, row) in pivots.iter().rev() {
        let mut v = row.rhs;
        for &(q, k) in &row.terms {
            if q != *p {
                v = v.add(k.mul(value[q as usize]?)?.neg())?;
            }
        }
        value[*p as usize] = Some(v);
    }
    let mut lcm: i128 = 1;
    for v in value.iter().flatten() {
        lcm = lcm.checked_mul(v.d / gcd(lcm as u128, v.d as u128) as i128)?;
        if lcm as u128 >= LIMIT {
            return None;
        }
    }
    let numerators = value
        .iter()
        .map(|v| {
            let v = (*v)?;
            v.n.checked_mul(lcm / v.d)
        })
        .collect::<Option<Vec<i128>>>()?;
    Some(Certificate {
        numerators,
        denominator: lcm,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::{ArcKind, NetBuilder};

    /// 10007 (a prime past every denominator tried by rounding) tokens of place 0 make one of
    /// place 1 and back: the only certificates for place 1 have `y(0) = y(1)/10007`.
    #[test]
    fn a_vertex_of_large_denominator_is_recovered_exactly() {
        let mut b = NetBuilder::new("n");
        b.add_place("p0", None, 3 * 10007).unwrap();
        b.add_place("p1", None, 0).unwrap();
        let t = b.add_transition("t", None).unwrap();
        b.add_arc(0, t, ArcKind::Input, 10007).unwrap();
        b.add_arc(1, t, ArcKind::Output, 1).unwrap();
        let u = b.add_transition("u", None).unwrap();
        b.add_arc(1, u, ArcKind::Input, 1).unwrap();
        b.add_arc(0, u, ArcKind::Output, 10007).unwrap();
        let se = StateEquation::new(&b.finish());
        let c = [0, 1];
        let y = [1.0 / 10007.0 + 1e-12, 1.0 - 1e-12];
        for d in super::super::DENOMINATORS {
            assert_eq!(se.rounded(&c, &y, d).and_then(|r| se.check(&c, &r)), None);
        }
        assert_eq!(se.fractions(&c, &y).and_then(|r| se.check(&c, &r)), None);
        let cert = recover(&se, &c, &y, None).unwrap();
        assert_eq!(cert.denominator, 10007);
        assert_eq!(se.verify(&[(1, 1)], &cert), Some(3));
        assert_eq!(se.upper_bound(&[(1, 1)], None), Some(3));
    }

    #[test]
    fn rationals_stay_in_lowest_terms() {
        let a = Rat::new(6, -4).unwrap();
        assert_eq!(a, Rat { n: -3, d: 2 });
        let b = Rat::new(1, 6).unwrap();
        assert_eq!(a.add(b), Rat::new(-4, 3));
        assert_eq!(a.mul(b), Rat::new(-1, 4));
        assert_eq!(a.div(b), Rat::new(-9, 1));
        assert_eq!(b.div(Rat::ZERO), None);
        assert_eq!(Rat::new(1, 0), None);
        assert_eq!(Rat::new(i128::MIN, 1), None);
        let big = Rat::new(1 << 100, 1).unwrap();
        assert_eq!(big.mul(big), None);
    }
}
