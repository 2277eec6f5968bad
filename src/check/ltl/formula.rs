//! LTL formulas in negation normal form over numbered atoms (the state predicates of the
//! formula, compiled), their reading from the property tree, and the rewrite rules that
//! simplify them before the tableau.
//!
//! `F φ` is `true U φ` and `G φ` is `false R φ`; negations sit on atoms only. How a path
//! ending in a deadlock is read decides which rules are sound ([`Deadlocks`]).

use crate::property::Predicate;
use crate::property::syntax::{Form, ResolvedFormula};

/// How maximal paths that end in a deadlock are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Deadlocks {
    /// The contest's reading (confirmed on its answers, see `SEMANTICS.md`): the deadlock
    /// repeats forever, so `X φ` at a deadlock is `φ` there. Every path is infinite and the
    /// rules of infinite-word LTL hold.
    #[default]
    Stutter,
    /// Finite-path LTL: the path stops at the deadlock; a strong `X φ` at the last state is
    /// false (its dual, the weak next, true). Kept to compare with the contest's answers.
    Finite,
}

/// An LTL formula in negation normal form.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ltl {
    /// `true` / `false`.
    Bool(bool),
    /// Atom `index` (into the formula's atoms), positive or negated.
    Lit(u32, bool),
    /// Conjunction (at least two operands once simplified).
    And(Vec<Ltl>),
    /// Disjunction (at least two operands once simplified).
    Or(Vec<Ltl>),
    /// `X φ`: a next state exists and satisfies φ.
    Next(Box<Ltl>),
    /// Weak next: no next state, or it satisfies φ (the dual of `X` on finite paths; the
    /// same as `X` when deadlocks stutter).
    WeakNext(Box<Ltl>),
    /// `φ U ψ`.
    Until(Box<Ltl>, Box<Ltl>),
    /// `φ R ψ`: ψ holds up to and including the first state where φ does, or forever.
    Release(Box<Ltl>, Box<Ltl>),
}

/// Why a formula is not an LTL formula over state predicates.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotLtl {
    /// A path quantifier below the top one.
    #[error("a path quantifier inside an LTL path formula (a CTL formula)")]
    NestedQuantifier,
    /// No path quantifier at the top.
    #[error("an LTL formula starts with A (all paths) or E (some path)")]
    NoQuantifier,
}

/// An LTL question: whether every path (or, `existential`, some path) satisfies `path`.
#[derive(Clone, Debug)]
pub struct LtlQuestion {
    /// The path formula.
    pub path: Ltl,
    /// The atoms the literals of `path` number.
    pub atoms: Vec<Predicate>,
    /// `E φ` (some path) rather than `A φ`; then the formula's value is the negation of
    /// `A ¬φ`, which is what is checked.
    pub existential: bool,
    /// Whether the answer is negated (`¬` in front of the quantifier).
    pub negated: bool,
}

impl LtlQuestion {
    /// Reads `[¬]* A φ` or `[¬]* E φ` with φ free of path quantifiers.
    pub fn of(f: &ResolvedFormula, deadlocks: Deadlocks) -> Result<LtlQuestion, NotLtl> {
        let mut negated = false;
        let mut f = f;
        while let Form::Not(g) = f {
            negated = !negated;
            f = g;
        }
        let (existential, body) = match f {
            Form::All(g) => (false, g.as_ref()),
            Form::Exists(g) => (true, g.as_ref()),
            _ => return Err(NotLtl::NoQuantifier),
        };
        let mut atoms = Atoms::default();
        // `E φ` = `¬A ¬φ`: check `A ¬φ` and negate.
        let path = atoms.convert(body, existential, deadlocks)?;
        Ok(LtlQuestion {
            path: simplify(path, deadlocks),
            atoms: atoms.list,
            existential,
            negated,
        })
    }

    /// The question with the atoms whose value is the same on every reachable marking
    /// (`known[a]`, from structural facts) replaced by that value, then simplified: the
    /// contest's formulas often fold to a constant this way.
    pub fn with_constant_atoms(&self, known: &[Option<bool>], d: Deadlocks) -> LtlQuestion {
        let atoms = self
            .atoms
            .iter()
            .zip(known)
            .map(|(p, k)| k.map_or_else(|| p.clone(), Predicate::Bool))
            .collect();
        LtlQuestion {
            path: simplify(substitute(&self.path, known), d),
            atoms,
            ..self.clone()
        }
    }

    /// The formula's value given whether every path satisfies [`LtlQuestion::path`].
    pub fn answer(&self, all_paths_satisfy: bool) -> bool {
        (all_paths_satisfy != self.existential) != self.negated
    }
}

/// Whether `f` is an LTL formula: `[¬]* A φ` or `[¬]* E φ` with no path quantifier in φ.
pub fn is_ltl(f: &ResolvedFormula) -> bool {
    LtlQuestion::of(f, Deadlocks::Stutter).is_ok()
}

#[derive(Default)]
struct Atoms {
    list: Vec<Predicate>,
}

impl Atoms {
    /// The literal of a state predicate: an atom already known (or its negation), else a new
    /// one; constants become `Bool`.
    fn literal(&mut self, p: Predicate, positive: bool) -> Ltl {
        if let Predicate::Bool(b) = p {
            return Ltl::Bool(b == positive);
        }
        if let Some(i) = self.list.iter().position(|q| *q == p) {
            return Ltl::Lit(i as u32, positive);
        }
        let n = p.negated();
        if let Some(i) = self.list.iter().position(|q| *q == n) {
            return Ltl::Lit(i as u32, !positive);
        }
        self.list.push(p);
        Ltl::Lit(self.list.len() as u32 - 1, positive)
    }

    /// The NNF of `f`, negated when `neg`.
    fn convert(&mut self, f: &ResolvedFormula, neg: bool, d: Deadlocks) -> Result<Ltl, NotLtl> {
        if f.is_state() {
            let p = Predicate::compile(f).ok_or(NotLtl::NestedQuantifier)?;
            return Ok(self.literal(p, !neg));
        }
        let mut boxed = |g: &ResolvedFormula, n: bool| self.convert(g, n, d).map(Box::new);
        Ok(match f {
            Form::Not(g) => return self.convert(g, !neg, d),
            Form::And(gs) | Form::Or(gs) => {
                let parts = gs
                    .iter()
                    .map(|g| self.convert(g, neg, d))
                    .collect::<Result<Vec<_>, _>>()?;
                if matches!(f, Form::And(_)) != neg {
                    Ltl::And(parts)
                } else {
                    Ltl::Or(parts)
                }
            }
            Form::Next(g) => {
                let g = boxed(g, neg)?;
                if neg && d == Deadlocks::Finite {
                    Ltl::WeakNext(g)
                } else {
                    Ltl::Next(g)
                }
            }
            Form::Finally(g) if !neg => Ltl::Until(Box::new(Ltl::Bool(true)), boxed(g, false)?),
            Form::Finally(g) => Ltl::Release(Box::new(Ltl::Bool(false)), boxed(g, true)?),
            Form::Globally(g) if !neg => Ltl::Release(Box::new(Ltl::Bool(false)), boxed(g, false)?),
            Form::Globally(g) => Ltl::Until(Box::new(Ltl::Bool(true)), boxed(g, true)?),
            Form::Until(a, b) if !neg => Ltl::Until(boxed(a, false)?, boxed(b, false)?),
            Form::Until(a, b) => Ltl::Release(boxed(a, true)?, boxed(b, true)?),
            Form::Exists(_) | Form::All(_) => return Err(NotLtl::NestedQuantifier),
            Form::Bool(_) | Form::Deadlock | Form::Fireable(_) | Form::Compare(..) => {
                unreachable!("state formulas are handled above")
            }
        })
    }
}

impl Ltl {
    /// `F φ`.
    pub fn finally(f: Ltl) -> Ltl {
        Ltl::Until(Box::new(Ltl::Bool(true)), Box::new(f))
    }

    /// `G φ`.
    pub fn globally(f: Ltl) -> Ltl {
        Ltl::Release(Box::new(Ltl::Bool(false)), Box::new(f))
    }

    /// The negation, in negation normal form (under the given reading of deadlocks).
    pub fn negation(&self, d: Deadlocks) -> Ltl {
        match self {
            Ltl::Bool(b) => Ltl::Bool(!b),
            Ltl::Lit(a, p) => Ltl::Lit(*a, !p),
            Ltl::And(fs) => Ltl::Or(fs.iter().map(|f| f.negation(d)).collect()),
            Ltl::Or(fs) => Ltl::And(fs.iter().map(|f| f.negation(d)).collect()),
            Ltl::Next(f) if d == Deadlocks::Finite => Ltl::WeakNext(Box::new(f.negation(d))),
            Ltl::Next(f) | Ltl::WeakNext(f) => Ltl::Next(Box::new(f.negation(d))),
            Ltl::Until(a, b) => Ltl::Release(Box::new(a.negation(d)), Box::new(b.negation(d))),
            Ltl::Release(a, b) => Ltl::Until(Box::new(a.negation(d)), Box::new(b.negation(d))),
        }
    }

    /// Whether the formula has no next operator (stubborn sets preserve only such formulas).
    pub fn is_next_free(&self) -> bool {
        match self {
            Ltl::Bool(_) | Ltl::Lit(..) => true,
            Ltl::And(fs) | Ltl::Or(fs) => fs.iter().all(Ltl::is_next_free),
            Ltl::Next(_) | Ltl::WeakNext(_) => false,
            Ltl::Until(a, b) | Ltl::Release(a, b) => a.is_next_free() && b.is_next_free(),
        }
    }

    /// Calls `f` on every atom the formula reads.
    pub fn visit_atoms(&self, f: &mut dyn FnMut(u32)) {
        match self {
            Ltl::Bool(_) => {}
            Ltl::Lit(a, _) => f(*a),
            Ltl::And(fs) | Ltl::Or(fs) => fs.iter().for_each(|g| g.visit_atoms(f)),
            Ltl::Next(g) | Ltl::WeakNext(g) => g.visit_atoms(f),
            Ltl::Until(a, b) | Ltl::Release(a, b) => {
                a.visit_atoms(f);
                b.visit_atoms(f);
            }
        }
    }

    /// The number of temporal operators.
    pub fn temporal_size(&self) -> usize {
        match self {
            Ltl::Bool(_) | Ltl::Lit(..) => 0,
            Ltl::And(fs) | Ltl::Or(fs) => fs.iter().map(Ltl::temporal_size).sum(),
            Ltl::Next(g) | Ltl::WeakNext(g) => 1 + g.temporal_size(),
            Ltl::Until(a, b) | Ltl::Release(a, b) => 1 + a.temporal_size() + b.temporal_size(),
        }
    }

    fn is_finally(&self) -> Option<&Ltl> {
        match self {
            Ltl::Until(a, b) if **a == Ltl::Bool(true) => Some(b),
            _ => None,
        }
    }

    fn is_globally(&self) -> Option<&Ltl> {
        match self {
            Ltl::Release(a, b) if **a == Ltl::Bool(false) => Some(b),
            _ => None,
        }
    }

    /// Whether the formula holds on a path iff it holds on every suffix of it (`G F φ`,
    /// `F G φ` and their Boolean combinations), on infinite paths.
    fn suffix_invariant(&self) -> bool {
        match self {
            Ltl::Bool(_) => true,
            Ltl::And(fs) | Ltl::Or(fs) => fs.iter().all(Ltl::suffix_invariant),
            _ => {
                self.is_globally().and_then(Ltl::is_finally).is_some()
                    || self.is_finally().and_then(Ltl::is_globally).is_some()
            }
        }
    }
}

/// The formula after the rewrite rules, bottom-up: constants fold; `∧`, `∨` flatten, sort and
/// drop duplicates, a literal and its negation meet in `false` (`true`); `F F φ = F φ`,
/// `G G φ = G φ`, `φ U φ = φ`, `false U φ = φ`, `true R φ = φ`; with stuttering deadlocks
/// also `X true = true`, and `F φ = G φ = X φ = φ` for a suffix-invariant φ (`G F ψ`,
/// `F G ψ`), whence `F G F ψ = G F ψ` and `G F G ψ = F G ψ`.
pub fn simplify(f: Ltl, d: Deadlocks) -> Ltl {
    let infinite = d == Deadlocks::Stutter;
    match f {
        Ltl::Bool(_) | Ltl::Lit(..) => f,
        Ltl::And(fs) => junction(fs, true, d),
        Ltl::Or(fs) => junction(fs, false, d),
        Ltl::Next(g) => {
            let g = simplify(*g, d);
            let absorbs = matches!(g, Ltl::Bool(false))
                || (infinite && (matches!(g, Ltl::Bool(_)) || g.suffix_invariant()));
            if absorbs { g } else { Ltl::Next(Box::new(g)) }
        }
        Ltl::WeakNext(g) => {
            let g = simplify(*g, d);
            if matches!(g, Ltl::Bool(true)) {
                g
            } else {
                Ltl::WeakNext(Box::new(g))
            }
        }
        Ltl::Until(a, b) => {
            let (a, b) = (simplify(*a, d), simplify(*b, d));
            match (&a, &b) {
                (_, Ltl::Bool(_)) => b,
                (Ltl::Bool(false), _) => b,
                _ if a == b => b,
                (Ltl::Bool(true), _) if b.is_finally().is_some() => b,
                (Ltl::Bool(true), _) if infinite && b.suffix_invariant() => b,
                _ => Ltl::Until(Box::new(a), Box::new(b)),
            }
        }
        Ltl::Release(a, b) => {
            let (a, b) = (simplify(*a, d), simplify(*b, d));
            match (&a, &b) {
                (_, Ltl::Bool(_)) => b,
                (Ltl::Bool(true), _) => b,
                _ if a == b => b,
                (Ltl::Bool(false), _) if b.is_globally().is_some() => b,
                (Ltl::Bool(false), _) if infinite && b.suffix_invariant() => b,
                _ => Ltl::Release(Box::new(a), Box::new(b)),
            }
        }
    }
}

/// A simplified conjunction (`and`) or disjunction.
fn junction(fs: Vec<Ltl>, and: bool, d: Deadlocks) -> Ltl {
    let mut out = Vec::with_capacity(fs.len());
    for f in fs {
        match simplify(f, d) {
            Ltl::Bool(b) if b == and => {}
            Ltl::Bool(b) => return Ltl::Bool(b),
            Ltl::And(gs) if and => out.extend(gs),
            Ltl::Or(gs) if !and => out.extend(gs),
            g => out.push(g),
        }
    }
    out.sort();
    out.dedup();
    // A literal and its negation: sorted next to each other.
    if out
        .windows(2)
        .any(|w| matches!((&w[0], &w[1]), (Ltl::Lit(a, false), Ltl::Lit(b, true)) if a == b))
    {
        return Ltl::Bool(!and);
    }
    match out.len() {
        0 => Ltl::Bool(and),
        1 => out.pop().expect("one operand"),
        _ if and => Ltl::And(out),
        _ => Ltl::Or(out),
    }
}

/// `f` with the atoms of known value replaced by constants.
fn substitute(f: &Ltl, known: &[Option<bool>]) -> Ltl {
    let b = |g: &Ltl| Box::new(substitute(g, known));
    match f {
        Ltl::Lit(a, pos) => match known.get(*a as usize).copied().flatten() {
            Some(v) => Ltl::Bool(v == *pos),
            None => f.clone(),
        },
        Ltl::Bool(_) => f.clone(),
        Ltl::And(fs) => Ltl::And(fs.iter().map(|g| substitute(g, known)).collect()),
        Ltl::Or(fs) => Ltl::Or(fs.iter().map(|g| substitute(g, known)).collect()),
        Ltl::Next(g) => Ltl::Next(b(g)),
        Ltl::WeakNext(g) => Ltl::WeakNext(b(g)),
        Ltl::Until(x, y) => Ltl::Until(b(x), b(y)),
        Ltl::Release(x, y) => Ltl::Release(b(x), b(y)),
    }
}

/// The formula in the text syntax of the property language (atoms as `a0`, `a1`, …).
pub fn show(f: &Ltl) -> String {
    match f {
        Ltl::Bool(b) => b.to_string(),
        Ltl::Lit(a, true) => format!("a{a}"),
        Ltl::Lit(a, false) => format!("!a{a}"),
        Ltl::And(fs) => format!("({})", fs.iter().map(show).collect::<Vec<_>>().join(" & ")),
        Ltl::Or(fs) => format!("({})", fs.iter().map(show).collect::<Vec<_>>().join(" | ")),
        Ltl::Next(g) => format!("X {}", show(g)),
        Ltl::WeakNext(g) => format!("WX {}", show(g)),
        _ if f.is_finally().is_some() => format!("F {}", show(f.is_finally().unwrap_or(f))),
        _ if f.is_globally().is_some() => format!("G {}", show(f.is_globally().unwrap_or(f))),
        Ltl::Until(a, b) => format!("({} U {})", show(a), show(b)),
        Ltl::Release(a, b) => format!("({} R {})", show(a), show(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(a: u32) -> Ltl {
        Ltl::Lit(a, true)
    }

    #[test]
    fn rewrite_rules() {
        let d = Deadlocks::Stutter;
        let ff = Ltl::finally(Ltl::finally(lit(0)));
        assert_eq!(simplify(ff, d), Ltl::finally(lit(0)));
        let gfg = Ltl::globally(Ltl::finally(Ltl::globally(lit(1))));
        assert_eq!(simplify(gfg, d), Ltl::finally(Ltl::globally(lit(1))));
        let contradiction = Ltl::And(vec![lit(2), Ltl::Lit(2, false), lit(0)]);
        assert_eq!(simplify(contradiction, d), Ltl::Bool(false));
        let xt = Ltl::Next(Box::new(Ltl::Bool(true)));
        assert_eq!(simplify(xt.clone(), d), Ltl::Bool(true));
        // At the end of a finite path a strong next is false: `X true` stays.
        assert_eq!(simplify(xt.clone(), Deadlocks::Finite), xt);
        let u = Ltl::Until(Box::new(lit(0)), Box::new(Ltl::Bool(false)));
        assert_eq!(simplify(u, d), Ltl::Bool(false));
    }

    #[test]
    fn negation_is_involutive() {
        let f = Ltl::Until(
            Box::new(Ltl::Next(Box::new(lit(0)))),
            Box::new(Ltl::Or(vec![lit(1), Ltl::globally(Ltl::Lit(2, false))])),
        );
        for d in [Deadlocks::Stutter, Deadlocks::Finite] {
            assert_eq!(f.negation(d).negation(d), f);
        }
    }
}
