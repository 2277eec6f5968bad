//! The LTL engine: `A φ` (and `E φ`, as `¬A ¬φ`) decided the automata-theoretic way. The
//! path formula is read into negation normal form over its state predicates and simplified
//! ([`formula`]); its negation becomes a generalised Büchi automaton by a tableau
//! ([`automaton`]); the product with the net's reachability graph is explored on the fly and
//! its emptiness decided by Couvreur's SCC algorithm ([`product`]), optionally on the
//! stubborn-set reduced graph when the formula has no next operator ([`stubborn`]).
//!
//! Paths that end in a deadlock are read as the contest reads them: the deadlock repeats
//! forever (`X φ` at a deadlock is `φ` there); the evidence is in `SEMANTICS.md` and the
//! tests of `tests/check_ltl.rs`. A limit that stops the search gives no verdict, never a
//! guess.

pub mod automaton;
pub mod formula;
pub mod product;
pub mod stubborn;
pub mod unfolding;

pub use formula::{Deadlocks, Ltl, LtlQuestion, NotLtl, is_ltl};

use crate::explore::limits::{Limits, StopReason};
use crate::model::net::{Net, TransIdx};
use crate::model::net_system::NetSystem;
use crate::property::syntax::ResolvedFormula;
use crate::system::Overflow;
pub use product::LassoShape;
use product::{Emptiness, Search};

/// How to check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LtlOptions {
    /// Explore the stubborn-set reduced state space when the formula has no next operator.
    pub stubborn: bool,
    /// How paths ending in a deadlock are read.
    pub deadlocks: Deadlocks,
    /// Which counterexample: a short lasso rebuilt after the search, or the one it found.
    pub lasso: LassoShape,
}

impl Default for LtlOptions {
    fn default() -> Self {
        LtlOptions {
            stubborn: true,
            deadlocks: Deadlocks::Stutter,
            lasso: LassoShape::Shortest,
        }
    }
}

/// An ultimately periodic run: `prefix`, then `cycle` repeated forever; an empty cycle means
/// the run ends in the deadlock `prefix` leads to (which repeats forever).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lasso {
    /// Transitions from the initial marking to the start of the cycle.
    pub prefix: Vec<TransIdx>,
    /// Transitions of the cycle (from and back to the marking `prefix` leads to).
    pub cycle: Vec<TransIdx>,
}

impl Lasso {
    /// The same run with the cycle started earlier while the prefix ends with the cycle's last
    /// transition: `p t (c t)^ω` is `p (t c)^ω`. The product's lasso often has such a tail: the
    /// automaton reads a marking one step late, so the stem goes one lap into the cycle. The
    /// cycle still returns to its marking: firing `t` is injective (the marking before is the
    /// one after minus `t`'s effect), so the marking before the prefix's `t` is the one before
    /// the cycle's.
    pub fn roll_back(&mut self) {
        while !self.cycle.is_empty() && self.prefix.last() == self.cycle.last() {
            self.prefix.pop();
            self.cycle.rotate_right(1);
        }
    }
}

/// What the LTL engine found (by default: nothing decided, nothing explored).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LtlOutcome {
    /// The formula's value; `None` when undecided.
    pub verdict: Option<bool>,
    /// The run that decided: for `A φ` false, a run violating φ; for `E φ` true, one
    /// satisfying φ.
    pub counterexample: Option<Lasso>,
    /// Product states (marking and automaton state) visited.
    pub states: u64,
    /// Distinct markings among them.
    pub markings: u64,
    /// States of the automaton of the negated path formula.
    pub automaton_states: usize,
    /// Whether stubborn sets were used (asked for, and the formula has no next operator).
    pub stubborn: bool,
    /// What stopped the search, if a limit did.
    pub stopped: Option<StopReason>,
    /// Why the formula was not checked (too large an automaton), if so.
    pub unsupported: Option<String>,
}

/// Checks the LTL formula `f` (`[¬] A φ` or `[¬] E φ`) on `net` within `limits`.
///
/// The errors: `f` is not an LTL formula; a counter overflow at 64 bits.
pub fn check(
    net: &Net,
    f: &ResolvedFormula,
    limits: &Limits,
    options: LtlOptions,
) -> Result<LtlOutcome, LtlError> {
    let question = LtlQuestion::of(f, options.deadlocks)?;
    Ok(check_question(net, &question, limits, options)?)
}

/// Why the LTL engine gave no outcome.
#[derive(Debug, thiserror::Error)]
pub enum LtlError {
    /// Not an LTL formula.
    #[error(transparent)]
    NotLtl(#[from] NotLtl),
    /// A counter overflowed at 64 bits.
    #[error(transparent)]
    Overflow(#[from] Overflow),
}

/// Checks an LTL question already read.
pub fn check_question(
    net: &Net,
    q: &LtlQuestion,
    limits: &Limits,
    options: LtlOptions,
) -> Result<LtlOutcome, Overflow> {
    // Paths violating φ: the automaton of ¬φ (for `E φ`, φ was negated when read).
    let negation = formula::simplify(q.path.negation(options.deadlocks), options.deadlocks);
    let mut outcome = LtlOutcome::default();
    if let Ltl::Bool(b) = negation {
        // ¬φ false: every path satisfies φ; ¬φ true: every path violates it.
        outcome.verdict = Some(q.answer(!b));
        return Ok(outcome);
    }
    let aut = match automaton::build(&negation) {
        Ok(a) => a,
        Err(e) => {
            outcome.unsupported = Some(e.to_string());
            return Ok(outcome);
        }
    };
    outcome.automaton_states = aut.len();
    let use_stubborn = options.stubborn && negation.is_next_free();
    outcome.stubborn = use_stubborn;
    let stub = use_stubborn.then(|| stubborn::Stubborn::new(net, &q.atoms));
    let (result, _) = NetSystem::new(net).retry_widened(|sys| {
        let mut search = Search::new(sys, &aut, &q.atoms, options.deadlocks, stub.as_ref())
            .with_lasso(options.lasso);
        let r = search.run(limits)?;
        Ok((r, search.counts()))
    })?;
    let (emptiness, counts) = result;
    outcome.states = counts.states;
    outcome.markings = counts.markings;
    match emptiness {
        Emptiness::Empty => outcome.verdict = Some(q.answer(true)),
        Emptiness::Accepted(prefix, cycle) => {
            outcome.verdict = Some(q.answer(false));
            let mut lasso = Lasso {
                prefix: prefix.into_iter().flatten().collect(),
                cycle: cycle.into_iter().flatten().collect(),
            };
            if options.lasso == LassoShape::Shortest {
                lasso.roll_back();
            }
            outcome.counterexample = Some(lasso);
        }
        Emptiness::Stopped(r) => outcome.stopped = Some(r),
    }
    Ok(outcome)
}
