//! Upper bounds of linear sums of token counts over the reachable markings, from the state
//! equation, by linear programming with an exactly verified certificate.
//!
//! # The bound
//!
//! Let `C = post − pre` be the incidence matrix (places × transitions; a read arc adds
//! nothing, it moves no token). Firing a sequence whose Parikh vector is `x` from the initial
//! marking `M0` reaches `M0 + C·x`, so every reachable marking `M` satisfies
//!
//! ```text
//! M = M0 + C·x,  x ≥ 0,  M ≥ 0            (the state equation)
//! ```
//!
//! Take a place vector `y` with `yᵀC ≤ 0` (one inequality per transition) and `y ≥ c`
//! (componentwise). Then for every reachable `M`, since `M ≥ 0` and `x ≥ 0`:
//!
//! ```text
//! c·M ≤ y·M = y·M0 + (yᵀC)·x ≤ y·M0.
//! ```
//!
//! `c·M` is an integer, so `max { c·M : M reachable } ≤ ⌊y·M0⌋`. Any such `y` is a
//! *certificate* for that bound; the best one solves the linear program
//!
//! ```text
//! minimise y·M0  subject to  yᵀC ≤ 0,  y ≥ c        (y rational, c of any sign)
//! ```
//!
//! the dual of `maximise c·M` over the state equation's real solutions. The program is never
//! unbounded (`y ≥ c` and `M0 ≥ 0` give `y·M0 ≥ c·M0`); it is infeasible exactly when the state
//! equation lets `c·M` grow without bound, and then there is no bound to give.
//!
//! # Why the solver need not be exact
//!
//! The LP is solved in floating point ([`microlp`], a sparse simplex). Its `y` is only a
//! candidate, turned into rationals in three ways: each entry rounded to the nearest multiple
//! of `1/D` for a few denominators `D` (raised to `c` where it falls below; a simplex answer
//! is a vertex, whose entries are rationals of small denominators on most nets, so some `D`
//! recovers it exactly); failing that or short of the optimum, the vertex itself, solved
//! exactly from the rows and bounds the answer meets with equality (`vertex`: weighted nets
//! have vertices of large denominators); last, each entry as a fraction on its own. Each
//! candidate is checked in exact integer arithmetic (`i128`, every operation checked: an
//! overflow rejects the candidate): `Y ≥ D·c` and `Yᵀ·C ≤ 0` on *every* transition of the
//! net. Only a candidate that passes gives a bound, `⌊Y·M0 / D⌋`; the smallest such bound is
//! returned. So a wrong, imprecise or interrupted solver costs a weaker bound or none, never
//! an unsound one.
//!
//! # Size
//!
//! The program has one variable per place that some transition changes and one inequality per
//! distinct effect (transitions whose effects are positive multiples of one another give the
//! same inequality; a transition that changes nothing gives none). A place no transition
//! changes takes `y = c` there (its objective coefficient `M0(p)` is not negative). Building
//! the incidence matrix is linear in the arcs; [`StateEquation`] does it once per net and is
//! queried for many sums.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use microlp::{ComparisonOp, OptimizationDirection, Problem};
use rustc_hash::FxHashSet;

use crate::model::net::{Net, PlaceIdx};
use crate::rows::Rows;

mod boxed;
mod polyhedron;
mod vertex;

/// Solves `lp` within `budget` (no limit without one). `None` when it has no solution, was
/// interrupted or failed: the solver is another crate's code, so a panic in it means no
/// answer, not a crash.
fn solve_within(lp: &mut Problem, budget: Option<Duration>) -> Option<microlp::Solution> {
    if let Some(b) = budget {
        lp.set_time_limit(b);
    }
    catch_unwind(AssertUnwindSafe(|| lp.solve()))
        .ok()?
        .ok()?
        .into_solution()
        .ok()
}

pub use boxed::{MarkingBox, Refutation};
pub use polyhedron::{AtLeast, RowCertificate};

/// Denominators tried when turning the solver's floating-point `y` into rationals: small ones
/// first (most vertices of nets' state equations are integral or halves), then products of
/// small primes, which are multiples of every small denominator.
const DENOMINATORS: [i128; 14] = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 60, 840, 27_720, 720_720];

/// Largest denominator tried when recovering each entry of `y` as a fraction on its own.
const MAX_ENTRY_DENOMINATOR: i64 = 10_000;

/// How far (absolute) a rational recovered from a float may lie from it.
const FRACTION_TOLERANCE: f64 = 1e-7;

/// A place vector `y = numerators / denominator`, proposed as a certificate of a bound (see
/// the module documentation); [`StateEquation::verify`] decides whether it is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// `D·y(p)` for every place `p`, in place order.
    pub numerators: Vec<i128>,
    /// `D`, at least 1.
    pub denominator: i128,
}

/// The state equation of a net: its incidence matrix, sparse, built once, and the linear
/// program's rows, for bounding many linear sums of token counts.
#[derive(Clone, Debug)]
pub struct StateEquation {
    /// `M0`, in place order.
    initial: Vec<i64>,
    /// Column `t` of `C`: `(place, post − pre)` for the places `t` changes, sorted by place.
    effects: Rows<(PlaceIdx, i64)>,
    /// One transition per distinct non-zero effect up to a positive factor: the LP's rows.
    distinct: Vec<u32>,
    /// The places some transition changes, in place order: the LP's variables.
    changed: Vec<PlaceIdx>,
}

impl StateEquation {
    /// The state equation of `net`.
    pub fn new(net: &Net) -> StateEquation {
        StateEquation::without(net, &[])
    }

    /// The same equation from the marking `marking` (token counts in place order) instead of
    /// the net's initial marking, `None` when a count does not fit. *Soundness*: every marking
    /// reachable from `marking` is `marking + C·x` for the Parikh vector `x` of the run, so it
    /// solves this equation; refutations then speak of the markings reachable from it.
    pub fn from_marking(&self, marking: &[u64]) -> Option<StateEquation> {
        if marking.len() != self.initial.len() {
            return None;
        }
        let initial = marking
            .iter()
            .map(|&m| i64::try_from(m).ok())
            .collect::<Option<Vec<i64>>>()?;
        Some(StateEquation {
            initial,
            ..self.clone()
        })
    }

    /// The state equation of `net` without the transitions of `dead` (indexed by transition;
    /// shorter means the rest may fire): their columns are left out, as if they changed
    /// nothing. *Soundness*: when they never fire, every reachable marking is `M0 + C·x` with
    /// `x` zero on them, so it solves this smaller equation; the caller vouches for `dead`.
    pub fn without(net: &Net, dead: &[bool]) -> StateEquation {
        let initial = net.places.iter().map(|p| i64::from(p.initial)).collect();
        let arcs: usize = net
            .transitions
            .iter()
            .map(|t| t.pre.len() + t.post.len())
            .sum();
        let mut effects = Rows::with_capacity(net.transitions.len(), arcs);
        let mut distinct = Vec::new();
        let mut seen: FxHashSet<Vec<(PlaceIdx, i64)>> = FxHashSet::default();
        let mut is_changed = vec![false; net.places.len()];
        for (t, tr) in net.transitions.iter().enumerate() {
            if dead.get(t).copied().unwrap_or(false) {
                effects.end_row();
                continue;
            }
            // Both arc lists are sorted by place: merge them.
            let (mut i, mut j) = (0, 0);
            while i < tr.pre.len() || j < tr.post.len() {
                let p = match (tr.pre.get(i), tr.post.get(j)) {
                    (Some(a), Some(b)) => a.place.min(b.place),
                    (Some(a), None) => a.place,
                    (None, Some(b)) => b.place,
                    (None, None) => unreachable!("loop condition"),
                };
                let mut delta = 0i64;
                if let Some(a) = tr.pre.get(i).filter(|a| a.place == p) {
                    delta -= i64::from(a.weight);
                    i += 1;
                }
                if let Some(b) = tr.post.get(j).filter(|b| b.place == p) {
                    delta += i64::from(b.weight);
                    j += 1;
                }
                if delta != 0 {
                    effects.push((p, delta));
                    is_changed[p as usize] = true;
                }
            }
            effects.end_row();
            let column = effects.row(t);
            if column.is_empty() {
                continue;
            }
            let g = column.iter().fold(0, |g, &(_, d)| gcd(g, d.unsigned_abs()));
            let key: Vec<(PlaceIdx, i64)> =
                column.iter().map(|&(p, d)| (p, d / g as i64)).collect();
            if seen.insert(key) {
                distinct.push(t as u32);
            }
        }
        let changed = (0..net.places.len() as PlaceIdx)
            .filter(|&p| is_changed[p as usize])
            .collect();
        StateEquation {
            initial,
            effects,
            distinct,
            changed,
        }
    }

    /// Number of places.
    pub fn places(&self) -> usize {
        self.initial.len()
    }

    /// Size of the linear program: (variables, inequalities).
    pub fn program_size(&self) -> (usize, usize) {
        (self.changed.len(), self.distinct.len())
    }

    /// An upper bound of `Σ k·M(p)` over `c = [(p, k)]` (a place named twice counts twice) on
    /// every reachable marking `M`, proved by a verified certificate; `None` when the state
    /// equation bounds no such sum, when the solver fails or takes longer than `budget`
    /// (`None`: no limit), when no rounding of its answer passes the exact check, or when `c`
    /// names a place the net does not have.
    pub fn upper_bound(&self, c: &[(PlaceIdx, i64)], budget: Option<Duration>) -> Option<i64> {
        let dense = self.dense(c)?;
        let deadline = budget.and_then(|b| Instant::now().checked_add(b));
        let out_of_time = || deadline.is_some_and(|d| Instant::now() >= d);
        let y = self.solve(&dense, budget)?;
        let proved = |cert: Option<Certificate>| cert.and_then(|cert| self.check(&dense, &cert));
        let mut best: Option<i64> = None;
        for &d in &DENOMINATORS {
            best = least(best, proved(self.rounded(&dense, &y, d)));
            // Exact checks cost a pass over the arcs each: stop when out of time.
            if out_of_time() {
                return best;
            }
        }
        // No certificate proves less than the optimum, which the solver's objective gives to
        // within its tolerance: short of it, look for the exact vertex.
        let objective: f64 = y
            .iter()
            .zip(&self.initial)
            .map(|(v, &m)| v * m as f64)
            .sum();
        let optimum = (objective + 1e-6 * objective.abs().max(1.0)).floor();
        if best.is_none_or(|b| b as f64 > optimum) {
            best = least(best, proved(vertex::recover(self, &dense, &y, deadline)));
        }
        if best.is_none() {
            best = proved(self.fractions(&dense, &y));
        }
        best
    }

    /// Whether `Σ k·M(p) ≥ b` holds on no reachable marking, by [`upper_bound`]: `false` when
    /// it cannot tell.
    ///
    /// [`upper_bound`]: StateEquation::upper_bound
    pub fn unreachable_at_least(
        &self,
        c: &[(PlaceIdx, i64)],
        b: i64,
        budget: Option<Duration>,
    ) -> bool {
        self.upper_bound(c, budget).is_some_and(|u| u < b)
    }

    /// The bound that `cert` proves for `Σ k·M(p)` over `c`, `⌊y·M0⌋`, when it is a
    /// certificate: `y ≥ c` and `yᵀC ≤ 0` on every transition, checked exactly. `None` when it
    /// is not one, when its length is not the number of places, when its denominator is not
    /// positive, when `c` names a place the net does not have, or when the arithmetic leaves
    /// `i128` or the bound `i64`.
    pub fn verify(&self, c: &[(PlaceIdx, i64)], cert: &Certificate) -> Option<i64> {
        self.check(&self.dense(c)?, cert)
    }

    /// `c` as one coefficient per place (repeated places added up).
    fn dense(&self, c: &[(PlaceIdx, i64)]) -> Option<Vec<i64>> {
        let mut dense = vec![0i64; self.places()];
        for &(p, k) in c {
            let slot = dense.get_mut(p as usize)?;
            *slot = slot.checked_add(k)?;
        }
        Some(dense)
    }

    /// [`verify`](Self::verify) on `c` given densely: the one place where a bound is proved.
    fn check(&self, c: &[i64], cert: &Certificate) -> Option<i64> {
        let d = cert.denominator;
        if d < 1 || cert.numerators.len() != self.places() {
            return None;
        }
        let y = &cert.numerators;
        for (&yp, &cp) in y.iter().zip(c) {
            if yp < i128::from(cp).checked_mul(d)? {
                return None;
            }
        }
        for t in 0..self.effects.len() {
            let mut sum = 0i128;
            for &(p, delta) in self.effects.row(t) {
                sum = sum.checked_add(y[p as usize].checked_mul(i128::from(delta))?)?;
            }
            if sum > 0 {
                return None;
            }
        }
        let mut value = 0i128;
        for (&yp, &m) in y.iter().zip(&self.initial) {
            value = value.checked_add(yp.checked_mul(i128::from(m))?)?;
        }
        i64::try_from(value.div_euclid(d)).ok()
    }

    /// The solver's `y` on every place (`c` where no transition changes the place), or `None`
    /// when it finds none in time.
    fn solve(&self, c: &[i64], budget: Option<Duration>) -> Option<Vec<f64>> {
        let mut y: Vec<f64> = c.iter().map(|&k| k as f64).collect();
        if self.changed.is_empty() {
            return Some(y);
        }
        if budget.is_some_and(|b| b.is_zero()) {
            return None;
        }
        let mut lp = Problem::new(OptimizationDirection::Minimize);
        let vars: Vec<_> = self
            .changed
            .iter()
            .map(|&p| {
                let p = p as usize;
                lp.add_var(self.initial[p] as f64, (c[p] as f64, f64::INFINITY))
            })
            .collect();
        // Place → variable, for the rows.
        let mut var_of = vec![u32::MAX; self.places()];
        for (i, &p) in self.changed.iter().enumerate() {
            var_of[p as usize] = i as u32;
        }
        for &t in &self.distinct {
            let row: Vec<_> = self
                .effects
                .row(t as usize)
                .iter()
                .map(|&(p, delta)| (vars[var_of[p as usize] as usize], delta as f64))
                .collect();
            lp.add_constraint(row.as_slice(), ComparisonOp::Le, 0.0);
        }
        let solution = solve_within(&mut lp, budget)?;
        for (&p, &v) in self.changed.iter().zip(&vars) {
            let value = solution.var_value(v);
            if !value.is_finite() {
                return None;
            }
            y[p as usize] = value;
        }
        Some(y)
    }

    /// `y` rounded to the nearest multiple of `1/d`, raised to `c` where it falls below.
    fn rounded(&self, c: &[i64], y: &[f64], d: i128) -> Option<Certificate> {
        let numerators = y
            .iter()
            .zip(c)
            .map(|(&v, &k)| {
                let scaled = (v * d as f64).round();
                // i128 holds every integer below 2^127 (NaN is refused too).
                if !scaled.is_finite() || scaled.abs() >= 1e36 {
                    return None;
                }
                Some((scaled as i128).max(i128::from(k).checked_mul(d)?))
            })
            .collect::<Option<Vec<i128>>>()?;
        Some(Certificate {
            numerators,
            denominator: d,
        })
    }

    /// Each entry of `y` as the nearest fraction of denominator at most
    /// [`MAX_ENTRY_DENOMINATOR`] (continued fractions), over their common denominator: for a
    /// vertex whose denominators the fixed list misses.
    fn fractions(&self, c: &[i64], y: &[f64]) -> Option<Certificate> {
        let (parts, lcm) = fractions_over_common_denominator(y)?;
        let numerators = parts
            .iter()
            .zip(c)
            .map(|(&(n, d), &k)| Some(n.checked_mul(lcm / d)?.max(i128::from(k).checked_mul(lcm)?)))
            .collect::<Option<Vec<i128>>>()?;
        Some(Certificate {
            numerators,
            denominator: lcm,
        })
    }
}

/// Each entry of `y` as the nearest short fraction `(n, d)` ([`fraction`]), with the least
/// common multiple of their denominators (`None` past 2⁶⁰ or when an entry has none).
fn fractions_over_common_denominator(y: &[f64]) -> Option<(Vec<(i128, i128)>, i128)> {
    let mut parts = Vec::with_capacity(y.len());
    let mut lcm: i128 = 1;
    for &v in y {
        let (n, d) = fraction(v)?;
        lcm = lcm.checked_mul(d / gcd128(lcm, d))?;
        if lcm > 1 << 60 {
            return None;
        }
        parts.push((n, d));
    }
    Some((parts, lcm))
}

/// `v` as `n/d` with `d ≤ MAX_ENTRY_DENOMINATOR`, within [`FRACTION_TOLERANCE`], by its
/// continued fraction; `None` when there is no such fraction.
fn fraction(v: f64) -> Option<(i128, i128)> {
    if !v.is_finite() || v.abs() > 1e15 {
        return None;
    }
    // Convergents h/k: (h0, k0) the one before last, (h1, k1) the last.
    let (mut h0, mut k0, mut h1, mut k1) = (0i128, 1i128, 1i128, 0i128);
    let mut x = v;
    for _ in 0..64 {
        let a = x.floor();
        let (h2, k2) = (
            (a as i128).checked_mul(h1)?.checked_add(h0)?,
            (a as i128).checked_mul(k1)?.checked_add(k0)?,
        );
        if k2 > i128::from(MAX_ENTRY_DENOMINATOR) {
            return None;
        }
        if (h2 as f64 / k2 as f64 - v).abs() <= FRACTION_TOLERANCE {
            return Some((h2, k2));
        }
        // x - a > 0 here, else h2/k2 would equal v; it is at least the tolerance, so the
        // next partial quotient stays finite.
        x = 1.0 / (x - a);
        (h0, k0, h1, k1) = (h1, k1, h2, k2);
    }
    None
}

/// The smaller of two bounds, either of which may be missing.
fn least(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        _ => a.or(b),
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

fn gcd128(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs().max(1)
    } else {
        gcd128(b, a % b)
    }
}

/// [`StateEquation::upper_bound`] on a state equation built for this one sum.
pub fn upper_bound(net: &Net, c: &[(PlaceIdx, i64)], budget: Option<Duration>) -> Option<i64> {
    StateEquation::new(net).upper_bound(c, budget)
}

/// Whether `Σ k·M(p) ≥ b` holds on no reachable marking of `net`, by [`upper_bound`]: `false`
/// when it cannot tell.
pub fn unreachable_at_least(
    net: &Net,
    c: &[(PlaceIdx, i64)],
    b: i64,
    budget: Option<Duration>,
) -> bool {
    upper_bound(net, c, budget).is_some_and(|u| u < b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::{ArcKind, NetBuilder};

    /// A net from its initial marking and transitions `(inputs, outputs, reads)`, arcs as
    /// `(place, weight)`.
    type Arcs<'a> = &'a [(u32, u32)];
    fn net(initial: &[u32], transitions: &[(Arcs, Arcs, Arcs)]) -> Net {
        let mut b = NetBuilder::new("n");
        for (i, &k) in initial.iter().enumerate() {
            b.add_place(format!("p{i}"), None, k).unwrap();
        }
        for (i, (pre, post, reads)) in transitions.iter().enumerate() {
            let t = b.add_transition(format!("t{i}"), None).unwrap();
            for (arcs, kind) in [
                (pre, ArcKind::Input),
                (post, ArcKind::Output),
                (reads, ArcKind::Read),
            ] {
                for &(p, w) in arcs.iter() {
                    b.add_arc(p, t, kind, w).unwrap();
                }
            }
        }
        b.finish()
    }

    /// Two processes (idle 0, 2; critical 1, 3) and a lock (4).
    fn mutex() -> Net {
        net(
            &[1, 0, 1, 0, 1],
            &[
                (&[(0, 1), (4, 1)], &[(1, 1)], &[]),
                (&[(1, 1)], &[(0, 1), (4, 1)], &[]),
                (&[(2, 1), (4, 1)], &[(3, 1)], &[]),
                (&[(3, 1)], &[(2, 1), (4, 1)], &[]),
            ],
        )
    }

    #[test]
    fn mutex_bounds_are_exact() {
        let se = StateEquation::new(&mutex());
        assert_eq!(se.upper_bound(&[(1, 1), (3, 1)], None), Some(1));
        assert_eq!(se.upper_bound(&[(1, 1)], None), Some(1));
        assert_eq!(se.upper_bound(&[(0, 1), (2, 1)], None), Some(2));
        assert_eq!(se.upper_bound(&[(1, 2), (3, 3), (4, 1)], None), Some(3));
        assert!(se.unreachable_at_least(&[(1, 1), (3, 1)], 2, None));
        assert!(!se.unreachable_at_least(&[(1, 1), (3, 1)], 1, None));
    }

    /// `k` places in a ring, `n` tokens on the first.
    fn ring(k: u32, n: u32) -> Net {
        let initial: Vec<u32> = (0..k).map(|i| if i == 0 { n } else { 0 }).collect();
        let arcs: Vec<[(u32, u32); 2]> = (0..k).map(|i| [(i, 1), ((i + 1) % k, 1)]).collect();
        let ts: Vec<(Arcs, Arcs, Arcs)> =
            arcs.iter().map(|a| (&a[..1], &a[1..], &[][..])).collect();
        net(&initial, &ts)
    }

    #[test]
    fn ring_bounds_one_place_by_its_tokens() {
        for (k, n) in [(1, 3), (2, 1), (5, 7), (12, 4)] {
            let se = StateEquation::new(&ring(k, n));
            for p in 0..k {
                assert_eq!(
                    se.upper_bound(&[(p, 1)], None),
                    Some(i64::from(n)),
                    "k={k} p={p}"
                );
                // Every place can be emptied (but the only one of a ring of one).
                let min = if k == 1 { -i64::from(n) } else { 0 };
                assert_eq!(se.upper_bound(&[(p, -1)], None), Some(min), "k={k} p={p}");
            }
        }
    }

    #[test]
    fn the_state_equation_is_weaker_than_reachability_and_still_above_it() {
        // t0 needs a token on the empty place 0, so it never fires and place 2 stays empty;
        // the state equation ignores that a place must be marked to be consumed from and
        // put back, and lets t0 move place 1's token to place 2.
        let n = net(&[0, 1, 0], &[(&[(0, 1), (1, 1)], &[(0, 1), (2, 1)], &[])]);
        assert_eq!(upper_bound(&n, &[(2, 1)], None), Some(1));
        assert!(!unreachable_at_least(&n, &[(2, 1)], 1, None));
        assert!(unreachable_at_least(&n, &[(2, 1)], 2, None));
    }

    #[test]
    fn weights_give_fractional_certificates_rounded_down() {
        // t0: 2·p0 → p1 with 5 tokens on p0: p1 ≤ 5/2, so 2; a read arc changes nothing.
        let n = net(&[5, 0, 0], &[(&[(0, 2)], &[(1, 1)], &[(2, 1)])]);
        assert_eq!(upper_bound(&n, &[(1, 1)], None), Some(2));
        assert_eq!(upper_bound(&n, &[(0, 1), (1, 1)], None), Some(5));
        assert_eq!(upper_bound(&n, &[(2, 1)], None), Some(0));
    }

    #[test]
    fn unbounded_sums_have_no_bound() {
        // t0 puts a token on p1 from nothing.
        let n = net(&[1, 0], &[(&[(0, 1)], &[(0, 1), (1, 1)], &[])]);
        assert_eq!(upper_bound(&n, &[(1, 1)], None), None);
        assert_eq!(upper_bound(&n, &[(0, 1)], None), Some(1));
        assert_eq!(upper_bound(&n, &[(1, -1)], None), Some(0));
    }

    #[test]
    fn a_doctored_certificate_is_rejected() {
        let se = StateEquation::new(&mutex());
        let c = [(1, 1), (3, 1)];
        // y = critical places + lock, over 2.
        let good = Certificate {
            numerators: vec![0, 2, 0, 2, 2],
            denominator: 2,
        };
        assert_eq!(se.verify(&c, &good), Some(1));
        // yᵀC > 0 on the first leave transition.
        let mut bad = good.clone();
        bad.numerators[0] = 1;
        assert_eq!(se.verify(&c, &bad), None);
        // Below c on place 3.
        let mut bad = good.clone();
        bad.numerators[3] = 1;
        assert_eq!(se.verify(&c, &bad), None);
        // Would give the wrong bound 0: y = 0 misses both constraints.
        let zero = Certificate {
            numerators: vec![0; 5],
            denominator: 1,
        };
        assert_eq!(se.verify(&c, &zero), None);
        for denominator in [0, -2] {
            let bad = Certificate {
                denominator,
                ..good.clone()
            };
            assert_eq!(se.verify(&c, &bad), None);
        }
        let short = Certificate {
            numerators: vec![0, 2, 0, 2],
            denominator: 2,
        };
        assert_eq!(se.verify(&c, &short), None);
        // Overflow rejects.
        let huge = Certificate {
            numerators: vec![i128::MAX; 5],
            denominator: 1,
        };
        assert_eq!(se.verify(&c, &huge), None);
        // A place the net does not have.
        assert_eq!(se.verify(&[(9, 1)], &good), None);
        assert_eq!(se.upper_bound(&[(9, 1)], None), None);
    }

    #[test]
    fn fractions_are_recovered() {
        assert_eq!(fraction(0.5), Some((1, 2)));
        assert_eq!(fraction(-2.0 / 3.0), Some((-2, 3)));
        assert_eq!(fraction(7.0), Some((7, 1)));
        assert_eq!(fraction(1.0 / 7919.0 + 3.0), Some((3 * 7919 + 1, 7919)));
        assert_eq!(fraction(std::f64::consts::PI), None);
        assert_eq!(fraction(f64::NAN), None);
    }

    #[test]
    fn a_net_without_transitions_bounds_by_the_initial_marking() {
        let n = net(&[3, 4], &[]);
        assert_eq!(upper_bound(&n, &[(0, 2), (1, -1)], None), Some(2));
    }
}
