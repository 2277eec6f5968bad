//! State predicates compiled for the hot loop: integer expressions become linear sums over
//! place indices (`c + Σ kₚ·M(p)`), fireability a list of transition indices; nothing is looked
//! up by name while a marking is checked. Explorers see a marking only through [`Marking`].

use super::syntax::{Cmp, Form, IntExpr, ResolvedFormula};
use crate::model::net::{PlaceIdx, TransIdx};

/// What a predicate needs to know of a marking.
pub trait Marking {
    /// Tokens on place `p`.
    fn tokens(&self, p: PlaceIdx) -> u64;
    /// Whether transition `t` is enabled.
    fn enabled(&self, t: TransIdx) -> bool;
    /// Whether no transition is enabled.
    fn dead(&self) -> bool;
}

/// `constant + Σ coefficient·M(place)`, places sorted and distinct.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Linear {
    /// The constant part.
    pub constant: u64,
    /// `(place, coefficient)`, sorted by place, coefficients above 0.
    pub terms: Vec<(PlaceIdx, u64)>,
}

impl Linear {
    /// The linear form of `e`.
    pub fn of(e: &IntExpr<PlaceIdx>) -> Linear {
        let mut out = Linear::default();
        out.add(e);
        out.terms.sort_unstable();
        // Merge repeated places.
        let mut merged: Vec<(PlaceIdx, u64)> = Vec::with_capacity(out.terms.len());
        for (p, k) in out.terms.drain(..) {
            match merged.last_mut() {
                Some((q, j)) if *q == p => *j = j.saturating_add(k),
                _ => merged.push((p, k)),
            }
        }
        out.terms = merged;
        out
    }

    fn add(&mut self, e: &IntExpr<PlaceIdx>) {
        match e {
            IntExpr::Const(k) => self.constant = self.constant.saturating_add(*k),
            IntExpr::Tokens(ps) => self.terms.extend(ps.iter().map(|&p| (p, 1))),
            IntExpr::Sum(es) => es.iter().for_each(|e| self.add(e)),
        }
    }

    /// The value on `m` (saturating at `u64::MAX`).
    #[inline]
    pub fn value(&self, m: &impl Marking) -> u64 {
        self.terms.iter().fold(self.constant, |acc, &(p, k)| {
            acc.saturating_add(m.tokens(p).saturating_mul(k))
        })
    }

    /// The places the value depends on.
    pub fn places(&self) -> impl Iterator<Item = PlaceIdx> + '_ {
        self.terms.iter().map(|&(p, _)| p)
    }
}

/// A compiled state predicate.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Predicate {
    /// A constant.
    Bool(bool),
    /// No transition enabled.
    Deadlock,
    /// Some of these transitions enabled (sorted, distinct).
    Fireable(Vec<TransIdx>),
    /// `left ⋈ right`.
    Compare(Linear, Cmp, Linear),
    /// Negation.
    Not(Box<Predicate>),
    /// Conjunction.
    And(Vec<Predicate>),
    /// Disjunction.
    Or(Vec<Predicate>),
}

impl Predicate {
    /// The predicate of a state formula; `None` when `f` has a path quantifier or a temporal
    /// operator.
    pub fn compile(f: &ResolvedFormula) -> Option<Predicate> {
        Some(match f {
            Form::Bool(b) => Predicate::Bool(*b),
            Form::Deadlock => Predicate::Deadlock,
            Form::Fireable(ts) => {
                let mut ts = ts.clone();
                ts.sort_unstable();
                ts.dedup();
                Predicate::Fireable(ts)
            }
            Form::Compare(a, c, b) => Predicate::Compare(Linear::of(a), *c, Linear::of(b)),
            Form::Not(g) => Predicate::Not(Box::new(Predicate::compile(g)?)),
            Form::And(gs) => {
                Predicate::And(gs.iter().map(Predicate::compile).collect::<Option<_>>()?)
            }
            Form::Or(gs) => {
                Predicate::Or(gs.iter().map(Predicate::compile).collect::<Option<_>>()?)
            }
            _ => return None,
        })
    }

    /// Whether the predicate holds on `m`.
    pub fn holds(&self, m: &impl Marking) -> bool {
        match self {
            Predicate::Bool(b) => *b,
            Predicate::Deadlock => m.dead(),
            Predicate::Fireable(ts) => ts.iter().any(|&t| m.enabled(t)),
            Predicate::Compare(a, c, b) => c.holds(a.value(m), b.value(m)),
            Predicate::Not(p) => !p.holds(m),
            Predicate::And(ps) => ps.iter().all(|p| p.holds(m)),
            Predicate::Or(ps) => ps.iter().any(|p| p.holds(m)),
        }
    }

    /// The negation, pushed to the atoms where that is free (comparisons flip, `¬¬` cancels,
    /// De Morgan on connectives).
    pub fn negated(&self) -> Predicate {
        match self {
            Predicate::Bool(b) => Predicate::Bool(!b),
            Predicate::Compare(a, c, b) => Predicate::Compare(a.clone(), c.negated(), b.clone()),
            Predicate::Not(p) => (**p).clone(),
            Predicate::And(ps) => Predicate::Or(ps.iter().map(Predicate::negated).collect()),
            Predicate::Or(ps) => Predicate::And(ps.iter().map(Predicate::negated).collect()),
            Predicate::Deadlock | Predicate::Fireable(_) => Predicate::Not(Box::new(self.clone())),
        }
    }

    /// Calls `place` for every place and `transition` for every transition the predicate
    /// reads (a deadlock atom reads every transition: `all_transitions` is then called).
    pub fn visit_support(
        &self,
        place: &mut dyn FnMut(PlaceIdx),
        transition: &mut dyn FnMut(TransIdx),
        all_transitions: &mut dyn FnMut(),
    ) {
        match self {
            Predicate::Bool(_) => {}
            Predicate::Deadlock => all_transitions(),
            Predicate::Fireable(ts) => ts.iter().for_each(|&t| transition(t)),
            Predicate::Compare(a, _, b) => a.places().chain(b.places()).for_each(place),
            Predicate::Not(p) => p.visit_support(place, transition, all_transitions),
            Predicate::And(ps) | Predicate::Or(ps) => ps
                .iter()
                .for_each(|p| p.visit_support(place, transition, all_transitions)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct M(Vec<u64>, Vec<bool>);

    impl Marking for M {
        fn tokens(&self, p: PlaceIdx) -> u64 {
            self.0[p as usize]
        }
        fn enabled(&self, t: TransIdx) -> bool {
            self.1[t as usize]
        }
        fn dead(&self) -> bool {
            !self.1.iter().any(|&e| e)
        }
    }

    #[test]
    fn linear_merges_repeated_places() {
        let e = IntExpr::Sum(vec![
            IntExpr::Tokens(vec![2, 0, 2]),
            IntExpr::Const(3),
            IntExpr::Tokens(vec![0]),
        ]);
        let l = Linear::of(&e);
        assert_eq!(l.constant, 3);
        assert_eq!(l.terms, vec![(0, 2), (2, 2)]);
        assert_eq!(l.value(&M(vec![1, 5, 2], vec![])), 3 + 2 + 4);
    }

    #[test]
    fn negation_agrees_with_evaluation() {
        let f: ResolvedFormula = Form::Or(vec![
            Form::And(vec![
                Form::Compare(IntExpr::Tokens(vec![0]), Cmp::Ge, IntExpr::Const(2)),
                Form::Fireable(vec![1]),
            ]),
            Form::Not(Box::new(Form::Deadlock)),
        ]);
        let p = Predicate::compile(&f).unwrap();
        let n = p.negated();
        for tokens in 0..4 {
            for en in [[false, false], [true, false], [false, true], [true, true]] {
                let m = M(vec![tokens], en.to_vec());
                assert_eq!(n.holds(&m), !p.holds(&m));
            }
        }
        let temporal: ResolvedFormula = Form::Exists(Box::new(Form::Deadlock));
        assert!(Predicate::compile(&temporal).is_none());
    }
}
