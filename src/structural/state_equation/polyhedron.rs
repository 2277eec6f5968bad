//! Markings satisfying a system of linear inequalities refuted by the state equation: no
//! integer `M = M0 + C·x` with `x ≥ 0` and `M ≥ 0` satisfies `aᵢ·M ≥ bᵢ` for every row `i`,
//! proved by an exactly verified Farkas certificate (with a Chvátal–Gomory rounding).
//!
//! # The certificate
//!
//! Take multipliers `λ ≥ 0` (one per row) and a place vector `y` with `yᵀC ≤ 0` (one
//! inequality per transition) and `g ≤ y` componentwise, where `g = Σᵢ λᵢ·aᵢ`. Every reachable
//! `M` satisfying the rows has
//!
//! ```text
//! λ·b ≤ g·M ≤ y·M = y·M0 + (yᵀC)·x ≤ y·M0        (M ≥ 0, x ≥ 0)
//! ```
//!
//! so `λ·b > y·M0` shows that none exists. With `λ` and `y` integral (scale them by a common
//! denominator) and `G` the greatest common divisor of `g`'s entries, `g·M / G` is an integer
//! for an integer `M`: it is at least `⌈λ·b / G⌉` and at most `⌊y·M0 / G⌋`, so `⌈λ·b / G⌉ >
//! ⌊y·M0 / G⌋` already refutes (the rounding a single bound gets from integrality). When
//! `g = 0`, `λ·b > 0` refutes alone.
//!
//! # The program
//!
//! Maximise `λ·b − y·M0` subject to `g ≤ y`, `yᵀC ≤ 0` and `0 ≤ λ ≤ 1` (the box on `λ` keeps
//! the program bounded: certificates form a cone). The floating-point answer is a candidate
//! only: it is rounded to rationals (a few denominators, then each entry as a fraction; `y`
//! raised to `g` where the rounding left it below) and each rounding is checked in exact
//! integer arithmetic on *every* transition ([`StateEquation::verify_rows`]). A wrong or
//! interrupted solver costs a refutation, never an unsound one.

use std::time::Duration;

use microlp::{ComparisonOp, OptimizationDirection, Problem};

use super::{DENOMINATORS, StateEquation, fractions_over_common_denominator};
use crate::model::net::PlaceIdx;

/// One linear inequality over the marking: `Σ k·M(p) ≥ bound` over `terms = [(p, k)]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtLeast {
    /// `(place, coefficient)`; a place named twice counts twice.
    pub terms: Vec<(PlaceIdx, i64)>,
    /// The right-hand side.
    pub bound: i64,
}

/// A proof that no reachable marking satisfies a system of [`AtLeast`] rows (see the module
/// documentation): `λ = multipliers / denominator`, `y = numerators / denominator`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowCertificate {
    /// `D·λᵢ`, one per row, in row order.
    pub multipliers: Vec<i128>,
    /// `D·y(p)` for every place, in place order.
    pub numerators: Vec<i128>,
    /// `D`, at least 1.
    pub denominator: i128,
}

/// How far above `−1` the solver's objective must be before its answer is rounded: below,
/// not even the rounding of an integral `g` could refute.
const HOPELESS: f64 = -1.0 + 1e-9;

impl StateEquation {
    /// A proof that no reachable marking satisfies every row of `rows`, when the solver finds
    /// a candidate within `budget` and one of its roundings passes
    /// [`verify_rows`](Self::verify_rows); `None` otherwise (which proves nothing).
    pub fn refute_rows(
        &self,
        rows: &[AtLeast],
        budget: Option<Duration>,
    ) -> Option<RowCertificate> {
        if budget.is_some_and(|b| b.is_zero()) {
            return None;
        }
        if rows
            .iter()
            .flat_map(|r| &r.terms)
            .any(|&(p, _)| p as usize >= self.places())
        {
            return None;
        }
        let (lambda, y) = self.solve_rows(rows, budget)?;
        for &d in &DENOMINATORS {
            if let Some(c) = self.rounded_rows(rows, &lambda, &y, d)
                && self.verify_rows(rows, &c)
            {
                return Some(c);
            }
        }
        let all: Vec<f64> = lambda.iter().chain(&y).copied().collect();
        let (parts, lcm) = fractions_over_common_denominator(&all)?;
        let exact: Vec<i128> = parts
            .iter()
            .map(|&(n, d)| n.checked_mul(lcm / d))
            .collect::<Option<_>>()?;
        let multipliers: Vec<i128> = exact[..rows.len()].iter().map(|&k| k.max(0)).collect();
        let g = combination(rows, &multipliers, self.places())?;
        let numerators = exact[rows.len()..]
            .iter()
            .zip(&g)
            .map(|(&k, &gp)| k.max(gp))
            .collect();
        let c = RowCertificate {
            multipliers,
            numerators,
            denominator: lcm,
        };
        self.verify_rows(rows, &c).then_some(c)
    }

    /// Whether `cert` proves that no reachable marking satisfies every row of `rows`: `λ ≥ 0`,
    /// `g ≤ y`, `yᵀC ≤ 0` on every transition and `⌈λ·b / G⌉ > ⌊y·M0 / G⌋` (module
    /// documentation), checked in `i128` with every operation checked (an overflow, a wrong
    /// length, a place the net does not have or a denominator below 1 rejects).
    pub fn verify_rows(&self, rows: &[AtLeast], cert: &RowCertificate) -> bool {
        self.check_rows(rows, cert).unwrap_or(false)
    }

    fn check_rows(&self, rows: &[AtLeast], cert: &RowCertificate) -> Option<bool> {
        let places = self.places();
        if cert.denominator < 1
            || cert.multipliers.len() != rows.len()
            || cert.numerators.len() != places
        {
            return None;
        }
        let (l, y) = (&cert.multipliers, &cert.numerators);
        if l.iter().any(|&k| k < 0) {
            return Some(false);
        }
        let g = combination(rows, l, places)?;
        if g.iter().zip(y).any(|(gp, yp)| gp > yp) {
            return Some(false);
        }
        for t in 0..self.effects.len() {
            let mut sum = 0i128;
            for &(p, delta) in self.effects.row(t) {
                sum = sum.checked_add(y[p as usize].checked_mul(i128::from(delta))?)?;
            }
            if sum > 0 {
                return Some(false);
            }
        }
        let mut need = 0i128;
        for (&k, r) in l.iter().zip(rows) {
            need = need.checked_add(k.checked_mul(i128::from(r.bound))?)?;
        }
        let mut have = 0i128;
        for (&yp, &m) in y.iter().zip(&self.initial) {
            have = have.checked_add(yp.checked_mul(i128::from(m))?)?;
        }
        let divisor = g.iter().fold(0i128, |a, &b| gcd(a, b.abs()));
        if divisor == 0 {
            return Some(need > 0);
        }
        // ⌈need / G⌉ > ⌊have / G⌋, G > 0.
        let ceil = -((-need).div_euclid(divisor));
        Some(ceil > have.div_euclid(divisor))
    }

    /// `λ` and `y` rounded to multiples of `1/d` (`λ` raised to 0, `y` to `g` where below).
    fn rounded_rows(
        &self,
        rows: &[AtLeast],
        lambda: &[f64],
        y: &[f64],
        d: i128,
    ) -> Option<RowCertificate> {
        let scale = |v: f64| {
            let s = (v * d as f64).round();
            (s.is_finite() && s.abs() < 1e30).then_some(s as i128)
        };
        let multipliers: Vec<i128> = lambda
            .iter()
            .map(|&v| scale(v).map(|k| k.max(0)))
            .collect::<Option<_>>()?;
        let g = combination(rows, &multipliers, self.places())?;
        let numerators: Vec<i128> = y
            .iter()
            .zip(&g)
            .map(|(&v, &gp)| scale(v).map(|k| k.max(gp)))
            .collect::<Option<_>>()?;
        Some(RowCertificate {
            multipliers,
            numerators,
            denominator: d,
        })
    }

    /// The solver's `λ` and `y` (0 on the places the program leaves out), when its optimum is
    /// not hopeless.
    fn solve_rows(
        &self,
        rows: &[AtLeast],
        budget: Option<Duration>,
    ) -> Option<(Vec<f64>, Vec<f64>)> {
        let places = self.places();
        let mut lp = Problem::new(OptimizationDirection::Maximize);
        let lambda: Vec<_> = rows
            .iter()
            .map(|r| lp.add_var(r.bound as f64, (0.0, 1.0)))
            .collect();
        // `y(p)` for the places a transition changes or a row names; elsewhere `g(p) = 0` and
        // `y(p) = 0` is best (`M0 ≥ 0`).
        let mut used = vec![false; places];
        for &p in &self.changed {
            used[p as usize] = true;
        }
        // Per place, the rows' coefficients on it: the row `g(p) − y(p) ≤ 0`.
        let mut column: Vec<Vec<(usize, f64)>> = vec![Vec::new(); places];
        for (i, r) in rows.iter().enumerate() {
            for &(p, k) in &r.terms {
                used[p as usize] = true;
                column[p as usize].push((i, k as f64));
            }
        }
        let mut var_of = vec![None; places];
        for p in 0..places {
            if used[p] {
                let v = lp.add_var(
                    -(self.initial[p] as f64),
                    (f64::NEG_INFINITY, f64::INFINITY),
                );
                var_of[p] = Some(v);
                let mut row: Vec<_> = column[p].iter().map(|&(i, k)| (lambda[i], k)).collect();
                row.push((v, -1.0));
                lp.add_constraint(row.as_slice(), ComparisonOp::Le, 0.0);
            }
        }
        for &t in &self.distinct {
            let row: Vec<_> = self
                .effects
                .row(t as usize)
                .iter()
                .filter_map(|&(p, delta)| var_of[p as usize].map(|v| (v, delta as f64)))
                .collect();
            lp.add_constraint(row.as_slice(), ComparisonOp::Le, 0.0);
        }
        let solution = super::solve_within(&mut lp, budget)?;
        let objective = solution.objective();
        if objective.is_nan() || objective < HOPELESS {
            return None;
        }
        let l: Vec<f64> = lambda.iter().map(|&v| solution.var_value(v)).collect();
        let y: Vec<f64> = var_of
            .iter()
            .map(|v| v.map_or(0.0, |v| solution.var_value(v)))
            .collect();
        if l.iter().chain(&y).any(|v| !v.is_finite()) {
            return None;
        }
        Some((l, y))
    }
}

/// `g = Σᵢ multipliers[i]·aᵢ`, one entry per place (`None` on overflow or a place out of
/// range).
fn combination(rows: &[AtLeast], multipliers: &[i128], places: usize) -> Option<Vec<i128>> {
    let mut g = vec![0i128; places];
    for (r, &k) in rows.iter().zip(multipliers) {
        for &(p, a) in &r.terms {
            let slot = g.get_mut(p as usize)?;
            *slot = slot.checked_add(k.checked_mul(i128::from(a))?)?;
        }
    }
    Some(g)
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 { a } else { gcd(b, a % b) }
}
