//! Cheap sound shortcuts before any search: a target decided by the initial marking, or shown
//! unreachable by the structural facts of the net ([`Facts`]: dead transitions, constant
//! places, semiflows, bounds); upper bounds of sums from the same facts.
//!
//! A predicate is evaluated over intervals: each atom is found true on every reachable
//! marking ([`Truth::Always`]), on none ([`Truth::Never`]), or not known; the connectives
//! combine these three values as Kleene's logic does. *Soundness*: an atom found `Always`
//! (`Never`) holds (fails) on every reachable marking by the rule that found it; a conjunction
//! of atoms each true on every reachable marking is true on every one, one false on every
//! marking makes it false on every one, and dually for disjunction and negation, so by
//! induction on the predicate its value is sound.
//!
//! Values are compared as [`Predicate::holds`] compares them, saturated at `u64::MAX`: a rule
//! that would be exact only without saturation (a constant non-zero difference, cancelling
//! the places the two sides share) is used only when both sides are known to stay below it.

use super::{Bound, Search};
use crate::model::net::{Net, PlaceIdx, TransIdx};
use crate::property::predicate::{Linear, Marking, Predicate};
use crate::property::syntax::Cmp;
use crate::structural::bounds::Interval;
use crate::structural::{Budget, Facts, signed_sum};

/// What the structural facts say of a predicate over the reachable markings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    /// It holds on every reachable marking.
    Always,
    /// It holds on no reachable marking.
    Never,
    /// Not known.
    Unknown,
}

impl Truth {
    fn not(self) -> Truth {
        match self {
            Truth::Always => Truth::Never,
            Truth::Never => Truth::Always,
            Truth::Unknown => Truth::Unknown,
        }
    }

    fn of(always: bool, never: bool) -> Truth {
        match (always, never) {
            (true, _) => Truth::Always,
            (_, true) => Truth::Never,
            _ => Truth::Unknown,
        }
    }
}

/// The shortcuts of one net: its structural facts, computed once, and what they decide.
#[derive(Clone, Debug)]
pub struct Shortcuts {
    facts: Facts,
    /// Whether the initial marking enables no transition.
    initially_dead: bool,
}

/// The initial marking, as a predicate sees it.
struct Initial<'a>(&'a Shortcuts);

impl Marking for Initial<'_> {
    fn tokens(&self, p: PlaceIdx) -> u64 {
        self.0.facts.initial(p)
    }
    fn enabled(&self, t: TransIdx) -> bool {
        self.0.facts.initially_enabled(t)
    }
    fn dead(&self) -> bool {
        self.0.initially_dead
    }
}

/// `a` and `b` less what they share: the smaller constant and, on each place of both, the
/// smaller coefficient (`a ⋈ b` iff `a − m ⋈ b − m`, without saturation).
fn cancel(a: &Linear, b: &Linear) -> (Linear, Linear) {
    let m = a.constant.min(b.constant);
    let (mut x, mut y) = (
        Linear {
            constant: a.constant - m,
            terms: Vec::new(),
        },
        Linear {
            constant: b.constant - m,
            terms: Vec::new(),
        },
    );
    let (mut i, mut j) = (0, 0);
    while i < a.terms.len() || j < b.terms.len() {
        let pa = a.terms.get(i).map_or(PlaceIdx::MAX, |t| t.0);
        let pb = b.terms.get(j).map_or(PlaceIdx::MAX, |t| t.0);
        if pa < pb {
            x.terms.push(a.terms[i]);
            i += 1;
        } else if pb < pa {
            y.terms.push(b.terms[j]);
            j += 1;
        } else {
            let (ka, kb) = (a.terms[i].1, b.terms[j].1);
            let k = ka.min(kb);
            if ka > k {
                x.terms.push((pa, ka - k));
            }
            if kb > k {
                y.terms.push((pb, kb - k));
            }
            i += 1;
            j += 1;
        }
    }
    (x, y)
}

/// `a − b` with signed coefficients (places sorted), `None` when a coefficient or the
/// constant does not fit.
fn difference(a: &Linear, b: &Linear) -> Option<(i128, Vec<(PlaceIdx, i64)>)> {
    let mut terms: Vec<(PlaceIdx, i64)> = Vec::with_capacity(a.terms.len() + b.terms.len());
    for &(p, k) in &a.terms {
        terms.push((p, i64::try_from(k).ok()?));
    }
    for &(p, k) in &b.terms {
        terms.push((p, -i64::try_from(k).ok()?));
    }
    // Each place is at most once in `a` (positive) and once in `b` (negative): their sum fits.
    Some((a.constant as i128 - b.constant as i128, signed_sum(terms)))
}

/// Whether some value of `[al, ah]` and some of `[bl, bh]` satisfy `c`, and whether all do:
/// `(always, never)`.
fn compare_intervals(c: Cmp, (al, ah): (u64, u64), (bl, bh): (u64, u64)) -> (bool, bool) {
    match c {
        Cmp::Le => (ah <= bl, al > bh),
        Cmp::Lt => (ah < bl, al >= bh),
        Cmp::Ge => (al >= bh, ah < bl),
        Cmp::Gt => (al > bh, ah <= bl),
        Cmp::Eq => (al == ah && bl == bh && al == bl, ah < bl || bh < al),
        Cmp::Ne => (ah < bl || bh < al, al == ah && bl == bh && al == bl),
    }
}

/// The counts `m` with `k·m + x ⋈ d` (as [`Predicate::holds`] compares, saturated), as an
/// interval `[lower, upper]`, when they form one that says something (`≠` does not); an
/// empty interval comes out crossed. `k ≥ 1`.
fn single_place(k: u64, x: u64, c: Cmp, d: u64) -> Option<(u64, Option<u64>)> {
    let (k, x, d) = (k as u128, x as u128, d as u128);
    // Saturated, `k·m + x ≥ d` iff it holds exactly (saturation only lowers the left side to
    // u64::MAX ≥ d); `k·m + x ≤ d` iff it holds exactly when d < u64::MAX (then the left
    // side was not saturated), and always when d = u64::MAX.
    let at_least = |d: u128| (d.saturating_sub(x)).div_ceil(k);
    let at_most = |d: u128| -> Option<u64> {
        if d >= u64::MAX as u128 {
            return None;
        }
        // An empty interval: lower 1, upper 0.
        Some(d.checked_sub(x).map_or(0, |r| (r / k) as u64))
    };
    let empty_below = |d: u128| d < x;
    let range = match c {
        Cmp::Ge => (at_least(d), None),
        Cmp::Gt => (at_least(d + 1), None),
        Cmp::Le => (u128::from(empty_below(d)), at_most(d)),
        Cmp::Lt if d == 0 => (1, Some(0)),
        Cmp::Lt => (u128::from(empty_below(d - 1)), at_most(d - 1)),
        Cmp::Eq => (at_least(d).max(u128::from(empty_below(d))), at_most(d)),
        Cmp::Ne => return None,
    };
    let lower = u64::try_from(range.0).unwrap_or(u64::MAX);
    (lower > 0 || range.1.is_some()).then_some((lower, range.1))
}

impl Shortcuts {
    /// The shortcuts of `net`, its semiflows computed within `budget`.
    pub fn of(net: &Net, budget: &Budget) -> Shortcuts {
        let facts = Facts::of(net, budget);
        let initially_dead =
            !(0..facts.transitions() as TransIdx).any(|t| facts.initially_enabled(t));
        Shortcuts {
            facts,
            initially_dead,
        }
    }

    /// The structural facts.
    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    /// Decides whether some reachable marking satisfies `target`, when a shortcut can:
    /// `Found(vec![])` when the initial marking does, `Absent` when [`truth`](Self::truth)
    /// finds it false on every reachable marking, `None` otherwise.
    pub fn decide(&self, target: &Predicate) -> Option<Search> {
        if target.holds(&Initial(self)) {
            return Some(Search::Found(Vec::new()));
        }
        (self.truth(target) == Truth::Never).then_some(Search::Absent)
    }

    /// What the structural facts say of `p` over the reachable markings. The atoms:
    /// - a comparison: when `a − b` is a P-invariant its value `v` is known, and `a ⋈ b` is
    ///   `v ⋈ 0`; otherwise by the [intervals](Self::interval) of the two sides (less the
    ///   places they share), `a ⋈ b` is true (false) on every marking when it holds (fails)
    ///   for every pair of values of the intervals;
    /// - `fireable(ts)`: never, when every transition of `ts` is dead; always, when one of
    ///   them is [always enabled](Facts::always_enabled);
    /// - `deadlock`: never, when some transition is always enabled; always, when every
    ///   transition is dead.
    pub fn truth(&self, p: &Predicate) -> Truth {
        let f = &self.facts;
        match p {
            Predicate::Bool(b) => Truth::of(*b, !*b),
            Predicate::Deadlock => {
                let ts = 0..f.transitions() as TransIdx;
                Truth::of(
                    ts.clone().all(|t| f.is_dead(t)),
                    ts.clone().any(|t| f.always_enabled(t)),
                )
            }
            Predicate::Fireable(ts) => Truth::of(
                ts.iter().any(|&t| f.always_enabled(t)),
                ts.iter().all(|&t| f.is_dead(t)),
            ),
            Predicate::Compare(a, c, b) => match self.compare(a, *c, b) {
                Truth::Unknown => self.refuted(p),
                t => t,
            },
            Predicate::Not(q) => self.truth(q).not(),
            Predicate::And(qs) => {
                let ts: Vec<Truth> = qs.iter().map(|q| self.truth(q)).collect();
                match Truth::of(
                    ts.iter().all(|&t| t == Truth::Always),
                    ts.contains(&Truth::Never),
                ) {
                    Truth::Unknown => self.refuted(p),
                    t => t,
                }
            }
            Predicate::Or(qs) => {
                let ts: Vec<Truth> = qs.iter().map(|q| self.truth(q)).collect();
                Truth::of(
                    ts.contains(&Truth::Always),
                    ts.iter().all(|&t| t == Truth::Never),
                )
            }
        }
    }

    /// `Never` when the bounds on single places that `p` implies (its conjuncts, flattened,
    /// of the forms `k·M(p) + c ⋈ d` and `fireable(t)` for one `t`) are
    /// [infeasible](Facts::feasible) together, else `Unknown`: a marking satisfying `p`
    /// satisfies them all.
    fn refuted(&self, p: &Predicate) -> Truth {
        let mut restrictions = Vec::new();
        self.restrictions(p, &mut restrictions);
        if !restrictions.is_empty() && !self.facts.feasible(&restrictions) {
            Truth::Never
        } else {
            Truth::Unknown
        }
    }

    /// Adds the single-place bounds `p` implies to `out` (see [`refuted`](Self::refuted)).
    fn restrictions(&self, p: &Predicate, out: &mut Vec<(PlaceIdx, u64, Option<u64>)>) {
        match p {
            Predicate::And(qs) => qs.iter().for_each(|q| self.restrictions(q, out)),
            Predicate::Fireable(ts) if ts.len() == 1 => {
                out.extend(self.facts.needs(ts[0]).iter().map(|&(p, n)| (p, n, None)));
            }
            Predicate::Compare(a, c, b) => {
                let one = |l: &Linear| match l.terms[..] {
                    [(p, k)] if k > 0 => Some((p, k, l.constant)),
                    _ => None,
                };
                let range = if b.terms.is_empty() {
                    one(a).and_then(|(p, k, x)| single_place(k, x, *c, b.constant).map(|r| (p, r)))
                } else if a.terms.is_empty() {
                    // d ⋈ k·M(p) + x is k·M(p) + x ⋈' d, ⋈' the converse.
                    let converse = match c {
                        Cmp::Le => Cmp::Ge,
                        Cmp::Lt => Cmp::Gt,
                        Cmp::Ge => Cmp::Le,
                        Cmp::Gt => Cmp::Lt,
                        c => *c,
                    };
                    one(b).and_then(|(p, k, x)| {
                        single_place(k, x, converse, a.constant).map(|r| (p, r))
                    })
                } else {
                    None
                };
                if let Some((p, (lo, hi))) = range {
                    out.push((p, lo, hi));
                }
            }
            _ => {}
        }
    }

    /// The truth of `a ⋈ b`.
    fn compare(&self, a: &Linear, c: Cmp, b: &Linear) -> Truth {
        let saturated = |i: Interval| {
            (
                u64::try_from(i.lower).unwrap_or(u64::MAX),
                i.upper
                    .map_or(u64::MAX, |u| u64::try_from(u).unwrap_or(u64::MAX)),
            )
        };
        // Whether neither side ever saturates: exact arithmetic is then the predicate's.
        let (ia, ib) = (self.interval(a), self.interval(b));
        let below = |i: Interval| i.upper.is_some_and(|u| u < u64::MAX as u128);
        let exact = below(ia) && below(ib);
        if let Some((k, terms)) = difference(a, b)
            && let Some(v) = self.facts.invariant_value(k, &terms)
            && (v == 0 || exact)
        {
            // Equal sides stay equal when saturated; unequal ones only without saturation.
            let (x, y) = if v >= 0 {
                (v as u64, 0)
            } else {
                (0, v.unsigned_abs() as u64)
            };
            let holds = c.holds(x, y);
            return Truth::of(holds, !holds);
        }
        let (ia, ib) = if exact {
            let (x, y) = cancel(a, b);
            (self.interval(&x), self.interval(&y))
        } else {
            (ia, ib)
        };
        let (always, never) = compare_intervals(c, saturated(ia), saturated(ib));
        Truth::of(always, never)
    }

    /// An interval holding the value of `sum` on every reachable marking
    /// ([`Facts::sum_interval`]).
    pub fn interval(&self, sum: &Linear) -> Interval {
        let terms: Vec<(PlaceIdx, u64)> = sum.terms.iter().copied().filter(|t| t.1 > 0).collect();
        self.facts.sum_interval(sum.constant, &terms)
    }

    /// A value `sum` exceeds on no reachable marking, when one is known.
    pub fn upper_bound(&self, sum: &Linear) -> Option<u64> {
        self.interval(sum).upper.and_then(|u| u64::try_from(u).ok())
    }

    /// The bound of `sum` as far as the shortcuts know it: the initial marking's value (with
    /// the empty run as witness) as the lower end, [`upper_bound`](Self::upper_bound) as the
    /// upper end.
    pub fn bound(&self, sum: &Linear) -> Bound {
        let lower = sum.value(&Initial(self));
        let upper = self.upper_bound(sum);
        // A sound upper bound is at least the initial value; were it not, know nothing.
        debug_assert!(upper.is_none_or(|u| u >= lower));
        Bound {
            lower,
            witness: Some(Vec::new()),
            upper: upper.filter(|&u| u >= lower),
            stopped: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::{ArcKind, NetBuilder};
    use crate::property::syntax::IntExpr;

    /// Two processes and a lock: idle₁ idle₂ cs₁ cs₂ lock, and `alarm`, which needs both
    /// critical sections (never enabled).
    fn mutex() -> Net {
        let mut b = NetBuilder::new("mutex");
        for (name, m) in [
            ("idle1", 1),
            ("idle2", 1),
            ("cs1", 0),
            ("cs2", 0),
            ("lock", 1),
        ] {
            b.add_place(name, None, m).unwrap();
        }
        let arcs: [(&str, &[(u32, ArcKind)]); 5] = [
            (
                "enter1",
                &[
                    (0, ArcKind::Input),
                    (4, ArcKind::Input),
                    (2, ArcKind::Output),
                ],
            ),
            (
                "exit1",
                &[
                    (2, ArcKind::Input),
                    (0, ArcKind::Output),
                    (4, ArcKind::Output),
                ],
            ),
            (
                "enter2",
                &[
                    (1, ArcKind::Input),
                    (4, ArcKind::Input),
                    (3, ArcKind::Output),
                ],
            ),
            (
                "exit2",
                &[
                    (3, ArcKind::Input),
                    (1, ArcKind::Output),
                    (4, ArcKind::Output),
                ],
            ),
            ("alarm", &[(2, ArcKind::Read), (3, ArcKind::Read)]),
        ];
        for (name, arcs) in arcs {
            let t = b.add_transition(name, None).unwrap();
            for &(p, kind) in arcs {
                b.add_arc(p, t, kind, 1).unwrap();
            }
        }
        b.finish()
    }

    fn tokens(ps: &[PlaceIdx]) -> Linear {
        Linear::of(&IntExpr::Tokens(ps.to_vec()))
    }

    fn constant(k: u64) -> Linear {
        Linear::of(&IntExpr::Const(k))
    }

    fn cmp(a: Linear, c: Cmp, b: Linear) -> Predicate {
        Predicate::Compare(a, c, b)
    }

    #[test]
    fn mutual_exclusion_is_proved_and_the_initial_marking_decides() {
        let s = Shortcuts::of(&mutex(), &Budget::default());
        let both = cmp(tokens(&[2, 3]), Cmp::Ge, constant(2));
        assert_eq!(s.decide(&both), Some(Search::Absent));
        assert_eq!(
            s.decide(&Predicate::Fireable(vec![4])),
            Some(Search::Absent)
        );
        // idle₁ + cs₁ is always 1.
        let one = cmp(tokens(&[0, 2]), Cmp::Eq, constant(1));
        assert_eq!(s.truth(&one), Truth::Always);
        assert_eq!(s.decide(&one.negated()), Some(Search::Absent));
        assert_eq!(s.decide(&one), Some(Search::Found(vec![])));
        // cs₁ = 1 is reachable: not decided.
        let cs1 = cmp(tokens(&[2]), Cmp::Eq, constant(1));
        assert_eq!(s.decide(&cs1), None);
        assert_eq!(s.decide(&Predicate::Deadlock), None);
        // idle₁ + cs₁ = idle₂ + cs₂, whatever happens; an invariant difference.
        let same = cmp(tokens(&[0, 2]), Cmp::Ne, tokens(&[1, 3]));
        assert_eq!(s.decide(&same), Some(Search::Absent));
        assert_eq!(s.upper_bound(&tokens(&[2, 3])), Some(1));
        assert_eq!(s.upper_bound(&tokens(&[0, 1, 2, 3, 4])), Some(3));
        let b = s.bound(&tokens(&[0, 1]));
        assert_eq!((b.lower, b.upper, b.exact()), (2, Some(2), Some(2)));
        assert_eq!(s.bound(&tokens(&[2])).exact(), None);
    }

    #[test]
    fn a_source_transition_rules_out_deadlocks() {
        let mut b = NetBuilder::new("source");
        let p = b.add_place("p", None, 0).unwrap();
        let t = b.add_transition("t", None).unwrap();
        b.add_arc(p, t, ArcKind::Output, 1).unwrap();
        let s = Shortcuts::of(&b.finish(), &Budget::default());
        assert_eq!(s.decide(&Predicate::Deadlock), Some(Search::Absent));
        assert_eq!(s.truth(&Predicate::Fireable(vec![0])), Truth::Always);
        assert_eq!(s.upper_bound(&tokens(&[0])), None);
        // p ≥ 0 always, p ≥ 1 not at first but reachable.
        assert_eq!(s.decide(&cmp(tokens(&[0]), Cmp::Ge, constant(1))), None);
        assert_eq!(
            s.decide(&cmp(tokens(&[0]), Cmp::Lt, constant(0))),
            Some(Search::Absent)
        );
    }
}
