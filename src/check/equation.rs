//! The state equation as an engine: upper bounds of sums ([`StateEquation::upper_bound`],
//! each certified exactly) and targets proved unreachable atom by atom.
//!
//! A target is refuted when no marking satisfying the state equation can satisfy it, judged
//! on the atoms alone: a comparison `L₁ ⋈ L₂` is one or two constraints `d·M ≥ b` (with `d` the
//! difference of the two sides' coefficients), refuted when the certified upper bound of `d·M`
//! is below `b`; `fireable(ts)` is refuted when every transition of `ts` needs more tokens on
//! some input place than that place's bound; a conjunction is refuted when one member is, a
//! disjunction when all are; negations are pushed to the atoms first. Each step only
//! weakens the question, so a refutation is sound; the other atoms (`deadlock`, negated
//! fireability) are never refuted.
//!
//! What the atoms alone leave, the whole predicate may still refute
//! ([`Equation::refutes_together`]): put in disjunctive normal form over linear inequalities
//! (`fireable(t)` is `M ≥ pre(t)`, its negation a choice of one input place below its
//! weight), each disjunct is refuted as one system of inequalities beside the state equation
//! (an exactly verified certificate, [`StateEquation::refute_rows`]). Where the form would
//! pass [`MAX_DISJUNCTS`], a conjunction drops its widest members and a disjunction becomes
//! `true`; `deadlock` and its negation are `true` too: each of these only enlarges the set
//! refuted, so a refutation stays sound.

use std::time::{Duration, Instant};

use crate::model::net::{Net, PlaceIdx};
use crate::property::{Cmp, Linear, Predicate};
use crate::structural::state_equation::{AtLeast, StateEquation};

/// The most disjuncts a predicate's normal form may have (each one a linear program).
pub const MAX_DISJUNCTS: usize = 32;

/// A conjunction of linear inequalities; a disjunctive normal form is a list of them.
type Conjunct = Vec<AtLeast>;

/// The state equation of a net, with a time budget per linear program.
pub struct Equation<'n> {
    net: &'n Net,
    lp: StateEquation,
    /// The most one linear program may take.
    per_call: Duration,
    /// When to stop asking (the engine's share of the time).
    deadline: Instant,
}

impl<'n> Equation<'n> {
    /// The state equation of `net`; each linear program may take `per_call`, and none starts
    /// after `total` from now.
    pub fn new(net: &'n Net, per_call: Duration, total: Duration) -> Self {
        Equation {
            net,
            lp: StateEquation::new(net),
            per_call,
            deadline: Instant::now() + total,
        }
    }

    fn upper(&self, c: &[(PlaceIdx, i64)]) -> Option<i64> {
        let left = self.deadline.checked_duration_since(Instant::now())?;
        if c.is_empty() {
            return Some(0);
        }
        self.lp.upper_bound(c, Some(self.per_call.min(left)))
    }

    /// A certified upper bound of `sum` over the reachable markings.
    pub fn upper_bound(&self, sum: &Linear) -> Option<u64> {
        let c: Vec<(PlaceIdx, i64)> = sum
            .terms
            .iter()
            .map(|&(p, k)| Some((p, i64::try_from(k).ok()?)))
            .collect::<Option<_>>()?;
        let bound = self.upper(&c)?;
        u64::try_from(bound).ok()?.checked_add(sum.constant)
    }

    /// Whether the state equation proves that no reachable marking satisfies `target`.
    pub fn refutes(&self, target: &Predicate) -> bool {
        match target {
            Predicate::Bool(b) => !b,
            Predicate::Deadlock => false,
            Predicate::Fireable(ts) => ts.iter().all(|&t| {
                self.net.transitions[t as usize]
                    .pre
                    .iter()
                    .chain(&self.net.transitions[t as usize].reads)
                    .any(|a| {
                        self.upper(&[(a.place, 1)])
                            .is_some_and(|u| u < i64::from(a.weight))
                    })
            }),
            Predicate::Compare(a, c, b) => self.refutes_comparison(a, *c, b),
            Predicate::Not(p) => match p.as_ref() {
                // ¬fireable and ¬deadlock stay as they are: nothing to refute with.
                Predicate::Fireable(_) | Predicate::Deadlock => false,
                other => self.refutes(&other.negated()),
            },
            Predicate::And(ps) => ps.iter().any(|p| self.refutes(p)),
            Predicate::Or(ps) => ps.iter().all(|p| self.refutes(p)),
        }
    }

    /// Whether the state equation proves that no reachable marking satisfies `target`,
    /// disjunct by disjunct of its normal form, each disjunct as one system (module
    /// documentation); stronger than [`refutes`](Self::refutes) on conjunctions, weaker on
    /// single atoms (no rounding of each bound on its own), so callers ask both.
    pub fn refutes_together(&self, target: &Predicate) -> bool {
        let Some(form) = normal_form(self.net, target, true) else {
            return false;
        };
        form.iter().all(|rows| {
            // An empty disjunct is `true`: nothing to refute.
            if rows.is_empty() {
                return false;
            }
            self.deadline
                .checked_duration_since(Instant::now())
                .is_some_and(|left| {
                    self.lp
                        .refute_rows(rows, Some(self.per_call.min(left)))
                        .is_some()
                })
        })
    }

    /// Whether `a ⋈ b` is refuted: `a ≥ b` is `(a − b)·M ≥ b₀ − a₀` (constants `a₀`, `b₀`).
    fn refutes_comparison(&self, a: &Linear, c: Cmp, b: &Linear) -> bool {
        let Some(d) = difference(a, b) else {
            return false;
        };
        let neg: Vec<(PlaceIdx, i64)> = d.iter().map(|&(p, k)| (p, -k)).collect();
        let (a0, b0) = (i128::from(a.constant), i128::from(b.constant));
        // Whether `v·M ≥ need` is refuted.
        let below =
            |v: &[(PlaceIdx, i64)], need: i128| self.upper(v).is_some_and(|u| i128::from(u) < need);
        let ge = || below(&d, b0 - a0);
        let gt = || below(&d, b0 - a0 + 1);
        let le = || below(&neg, a0 - b0);
        let lt = || below(&neg, a0 - b0 + 1);
        match c {
            Cmp::Ge => ge(),
            Cmp::Gt => gt(),
            Cmp::Le => le(),
            Cmp::Lt => lt(),
            Cmp::Eq => ge() || le(),
            Cmp::Ne => gt() && lt(),
        }
    }
}

/// The coefficients of `a − b` (without the constants), places sorted, zeros left out;
/// `None` when a coefficient does not fit.
fn difference(a: &Linear, b: &Linear) -> Option<Vec<(PlaceIdx, i64)>> {
    let mut out: Vec<(PlaceIdx, i64)> = Vec::new();
    for &(p, k) in &a.terms {
        out.push((p, i64::try_from(k).ok()?));
    }
    for &(p, k) in &b.terms {
        out.push((p, -i64::try_from(k).ok()?));
    }
    out.sort_unstable_by_key(|t| t.0);
    let mut merged: Vec<(PlaceIdx, i64)> = Vec::with_capacity(out.len());
    for (p, k) in out {
        match merged.last_mut() {
            Some((q, j)) if *q == p => *j = j.checked_add(k)?,
            _ => merged.push((p, k)),
        }
    }
    merged.retain(|t| t.1 != 0);
    Some(merged)
}

/// The disjunctive normal form of `p` (of `¬p` when not `positive`) over linear inequalities,
/// weakened where it would pass [`MAX_DISJUNCTS`] (module documentation): every marking
/// satisfying `p` satisfies some disjunct. `None` when a coefficient does not fit.
fn normal_form(net: &Net, p: &Predicate, positive: bool) -> Option<Vec<Conjunct>> {
    let truth = || vec![Vec::new()];
    Some(match p {
        Predicate::Bool(b) => {
            if *b == positive {
                truth()
            } else {
                Vec::new()
            }
        }
        Predicate::Deadlock => truth(),
        Predicate::Fireable(ts) => {
            // One disjunct per transition (positive), or one input place below its weight per
            // transition (negated).
            let each: Vec<Vec<Conjunct>> = ts
                .iter()
                .map(|&t| {
                    let tr = &net.transitions[t as usize];
                    let arcs = tr.pre.iter().chain(&tr.reads);
                    if positive {
                        vec![
                            arcs.map(|a| AtLeast {
                                terms: vec![(a.place, 1)],
                                bound: i64::from(a.weight),
                            })
                            .collect(),
                        ]
                    } else {
                        arcs.map(|a| {
                            vec![AtLeast {
                                terms: vec![(a.place, -1)],
                                bound: 1 - i64::from(a.weight),
                            }]
                        })
                        .collect()
                    }
                })
                .collect();
            if positive {
                each.into_iter().flatten().collect()
            } else {
                and_all(each)
            }
        }
        Predicate::Compare(a, c, b) => {
            let c = if positive { *c } else { c.negated() };
            let d = difference(a, b)?;
            let neg: Vec<(PlaceIdx, i64)> = d.iter().map(|&(p, k)| (p, -k)).collect();
            let k = i64::try_from(b.constant).ok()? - i64::try_from(a.constant).ok()?;
            // d·M ≥ k is `a ≥ b`; −d·M ≥ −k is `a ≤ b`.
            let ge = |bound: i64| AtLeast {
                terms: d.clone(),
                bound,
            };
            let le = |bound: i64| AtLeast {
                terms: neg.clone(),
                bound,
            };
            match c {
                Cmp::Ge => vec![vec![ge(k)]],
                Cmp::Gt => vec![vec![ge(k + 1)]],
                Cmp::Le => vec![vec![le(-k)]],
                Cmp::Lt => vec![vec![le(1 - k)]],
                Cmp::Eq => vec![vec![ge(k), le(-k)]],
                Cmp::Ne => vec![vec![ge(k + 1)], vec![le(1 - k)]],
            }
        }
        Predicate::Not(q) => normal_form(net, q, !positive)?,
        Predicate::And(ps) | Predicate::Or(ps) => {
            let each = ps
                .iter()
                .map(|q| normal_form(net, q, positive))
                .collect::<Option<Vec<_>>>()?;
            if matches!(p, Predicate::And(_)) == positive {
                and_all(each)
            } else {
                let all: Vec<Conjunct> = each.into_iter().flatten().collect();
                if all.len() > MAX_DISJUNCTS {
                    truth()
                } else {
                    all
                }
            }
        }
    })
}

/// The normal form of a conjunction of normal forms: the products of their disjuncts, the
/// widest members dropped (made `true`) while the product would pass [`MAX_DISJUNCTS`].
fn and_all(mut each: Vec<Vec<Conjunct>>) -> Vec<Conjunct> {
    if each.iter().any(Vec::is_empty) {
        return Vec::new();
    }
    each.sort_by_key(Vec::len);
    let mut out: Vec<Conjunct> = vec![Vec::new()];
    for form in each {
        if out.len() * form.len() > MAX_DISJUNCTS {
            // Sorted by width: every later member is as wide; drop them all.
            break;
        }
        out = out
            .iter()
            .flat_map(|left| {
                form.iter().map(move |right| {
                    let mut both = left.clone();
                    both.extend(right.iter().cloned());
                    both
                })
            })
            .collect();
    }
    out
}
