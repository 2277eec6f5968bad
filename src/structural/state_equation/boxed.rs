//! Markings in a box refuted by the state equation: no `M = M0 + C·x` with `x ≥ 0` lies within
//! `lower ≤ M ≤ upper`, proved by an exactly verified Farkas certificate.
//!
//! # The certificate
//!
//! Take a place vector `y` with `yᵀC ≤ 0` (one inequality per transition). Every solution of
//! the state equation (`x ≥ 0` real) has `y·M = y·M0 + (yᵀC)·x ≤ y·M0`. Over the box, `y·M` is
//! at least `low(y) = Σ_{y(p) > 0} y(p)·lower(p) + Σ_{y(p) < 0} y(p)·upper(p)` (finite only
//! when `upper(p)` is where `y(p) < 0`). So `y·M0 < low(y)` shows that no solution lies in the
//! box: in particular no reachable marking does. By Farkas' lemma such a `y` exists whenever
//! the box holds no real solution, so the linear program below finds one when the solver does.
//!
//! # The program
//!
//! Write `y = s − n` with `0 ≤ s, n ≤ 1` (`n = 0` where the box has no upper bound; the box
//! bounds are the normalisation that keeps the program bounded: the certificates form a cone,
//! and scaling one down keeps it one) and minimise `Σ s(p)·(M0(p) − lower(p)) + Σ
//! n(p)·(upper(p) − M0(p))` subject to `(s − n)ᵀC ≤ 0`. This objective is at least `y·M0 −
//! low(y)`, so a negative optimum gives a certificate. The floating-point answer is only a
//! candidate: it is rounded to rationals (a few denominators, then each entry as a fraction)
//! and each rounding is checked in exact integer arithmetic on *every* transition
//! ([`StateEquation::verify_box`]); only a candidate that passes refutes the box. A wrong or
//! interrupted solver costs a refutation, never an unsound one.

use std::time::Duration;

use microlp::{ComparisonOp, OptimizationDirection, Problem};

use super::{Certificate, DENOMINATORS, StateEquation, fractions_over_common_denominator};
use crate::model::net::PlaceIdx;

/// A box of markings: `lower(p) ≤ M(p) ≤ upper(p)` on every place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkingBox {
    /// `lower(p)`, in place order (0: no lower bound).
    pub lower: Vec<i64>,
    /// `upper(p)`, in place order (`None`: no upper bound).
    pub upper: Vec<Option<i64>>,
}

impl MarkingBox {
    /// The box of every marking of `places` places: no bound at all.
    pub fn unbounded(places: usize) -> MarkingBox {
        MarkingBox {
            lower: vec![0; places],
            upper: vec![None; places],
        }
    }
}

/// The bounds of the box that a verified certificate used: dropping any other bound leaves
/// the box refuted (so a caller learns the smallest reason).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refutation {
    /// Places whose lower bound the proof needs: of those with `y(p) > 0` and `lower(p) > 0`,
    /// the fewest of the largest terms `y(p)·lower(p)` that refute the box with the upper
    /// bounds below.
    pub lower: Vec<PlaceIdx>,
    /// Places whose upper bound the proof needs (`y(p) < 0`).
    pub upper: Vec<PlaceIdx>,
    /// The certificate.
    pub certificate: Certificate,
}

/// How far below zero the solver's objective must be before its answer is rounded.
const NEGATIVE: f64 = 1e-9;

impl StateEquation {
    /// A proof that no solution of the state equation, hence no reachable marking, lies in
    /// `bounds`, when the solver finds a certificate within `budget` and one of its roundings
    /// passes [`verify_box`](Self::verify_box); `None` otherwise (which proves nothing).
    pub fn refute_box(&self, bounds: &MarkingBox, budget: Option<Duration>) -> Option<Refutation> {
        if bounds.lower.len() != self.places() || bounds.upper.len() != self.places() {
            return None;
        }
        if budget.is_some_and(|b| b.is_zero()) {
            return None;
        }
        let y = self.solve_box(bounds, budget)?;
        for &d in &DENOMINATORS {
            if let Some(r) = round(&y, d).and_then(|c| self.verify_box(bounds, &c)) {
                return Some(r);
            }
        }
        fractions(&y).and_then(|c| self.verify_box(bounds, &c))
    }

    /// The bounds of `bounds` that `cert` uses when it refutes the box: `yᵀC ≤ 0` on every
    /// transition and `y·M0 < low(y)` (module documentation), checked in `i128` with every
    /// operation checked; `None` when it does not refute it (an overflow, a negative entry on
    /// a place without upper bound, a wrong length or a denominator below 1 included).
    pub fn verify_box(&self, bounds: &MarkingBox, cert: &Certificate) -> Option<Refutation> {
        let places = self.places();
        if cert.denominator < 1
            || cert.numerators.len() != places
            || bounds.lower.len() != places
            || bounds.upper.len() != places
        {
            return None;
        }
        let y = &cert.numerators;
        for t in 0..self.effects.len() {
            let mut sum = 0i128;
            for &(p, delta) in self.effects.row(t) {
                sum = sum.checked_add(y[p as usize].checked_mul(i128::from(delta))?)?;
            }
            if sum > 0 {
                return None;
            }
        }
        // D·(y·M0 − low(y)) < 0, and the bounds it leans on: every upper bound under a
        // negative entry (without it `low(y)` is unbounded), and of the lower bounds only the
        // largest terms `y(p)·lower(p)` that take the slack below zero (dropping the others
        // leaves the box refuted by the same `y`, and a caller that learns a clause from the
        // bounds learns a stronger one from fewer).
        let mut slack = 0i128;
        let mut upper = Vec::new();
        let mut terms: Vec<(i128, PlaceIdx)> = Vec::new();
        for (p, &yp) in y.iter().enumerate() {
            slack = slack.checked_add(yp.checked_mul(i128::from(self.initial[p]))?)?;
            if yp > 0 && bounds.lower[p] != 0 {
                terms.push((yp.checked_mul(i128::from(bounds.lower[p]))?, p as PlaceIdx));
            } else if yp < 0 {
                let u = bounds.upper[p]?;
                slack = slack.checked_sub(yp.checked_mul(i128::from(u))?)?;
                upper.push(p as PlaceIdx);
            }
        }
        terms.sort_unstable_by(|a, b| b.cmp(a));
        let mut lower = Vec::new();
        for &(term, p) in &terms {
            if slack < 0 {
                break;
            }
            slack = slack.checked_sub(term)?;
            lower.push(p);
        }
        lower.sort_unstable();
        (slack < 0).then(|| Refutation {
            lower,
            upper,
            certificate: cert.clone(),
        })
    }

    /// The solver's `y = s − n` on every place (0 on the places the program leaves out), when
    /// its optimum is negative.
    fn solve_box(&self, bounds: &MarkingBox, budget: Option<Duration>) -> Option<Vec<f64>> {
        let places = self.places();
        let mut y = vec![0.0; places];
        let mut lp = Problem::new(OptimizationDirection::Minimize);
        // Per place: its `s` and `n` variables. A place no transition changes is constant, at
        // `M0`: it takes part only when its bounds exclude `M0` (then alone it refutes).
        let mut changed = vec![false; places];
        for &p in &self.changed {
            changed[p as usize] = true;
        }
        let mut vars = Vec::with_capacity(places);
        for (p, &is_changed) in changed.iter().enumerate() {
            let m0 = self.initial[p];
            let (lo, up) = (bounds.lower[p], bounds.upper[p]);
            let outside = m0 < lo || up.is_some_and(|u| m0 > u);
            if !is_changed && !outside {
                vars.push(None);
                continue;
            }
            let s = lp.add_var((m0 - lo) as f64, (0.0, 1.0));
            let n = up.map(|u| lp.add_var((u - m0) as f64, (0.0, 1.0)));
            vars.push(Some((s, n)));
        }
        for &t in &self.distinct {
            let mut row = Vec::new();
            for &(p, delta) in self.effects.row(t as usize) {
                if let Some((s, n)) = vars[p as usize] {
                    row.push((s, delta as f64));
                    if let Some(n) = n {
                        row.push((n, -(delta as f64)));
                    }
                }
            }
            lp.add_constraint(row.as_slice(), ComparisonOp::Le, 0.0);
        }
        let solution = super::solve_within(&mut lp, budget)?;
        let objective = solution.objective();
        if objective.is_nan() || objective >= -NEGATIVE {
            return None;
        }
        for (p, v) in vars.iter().enumerate() {
            if let Some((s, n)) = *v {
                let value = solution.var_value(s) - n.map_or(0.0, |n| solution.var_value(n));
                if !value.is_finite() {
                    return None;
                }
                y[p] = value;
            }
        }
        Some(y)
    }
}

/// `y` rounded to the nearest multiple of `1/d`.
fn round(y: &[f64], d: i128) -> Option<Certificate> {
    let numerators = y
        .iter()
        .map(|&v| {
            let scaled = (v * d as f64).round();
            (scaled.is_finite() && scaled.abs() < 1e36).then_some(scaled as i128)
        })
        .collect::<Option<Vec<i128>>>()?;
    Some(Certificate {
        numerators,
        denominator: d,
    })
}

/// Each entry of `y` as a short fraction, over their common denominator.
fn fractions(y: &[f64]) -> Option<Certificate> {
    let (parts, lcm) = fractions_over_common_denominator(y)?;
    let numerators = parts
        .iter()
        .map(|&(n, d)| n.checked_mul(lcm / d))
        .collect::<Option<Vec<i128>>>()?;
    Some(Certificate {
        numerators,
        denominator: lcm,
    })
}
