//! CTL model checking of nets (the contest's CTLCardinality and CTLFireability): a formula is
//! translated into a core logic and simplified ([`formula`]), then evaluated at the initial
//! marking by an on-the-fly local engine ([`local`]) that generates markings only as far as
//! the value needs and stops as soon as the root is decided.
//!
//! # Finite maximal paths
//!
//! Paths are the net's *maximal* runs, finite ones ending in a deadlock included
//! ([`DeadlockRule::Maximal`], the contest's rule, confirmed on its answers: see
//! `tests/mcc_ctl.rs`): at a deadlock `EX φ` is false and `AX φ` true (there is no next
//! state), `EG φ` holds when φ does (the path of the deadlock alone), `E[φ U ψ]` and
//! `A[φ U ψ]` when ψ does. [`DeadlockRule::Stutter`] (a deadlock repeats forever) differs only
//! in `EX φ = AX φ = φ` at a deadlock; it is kept to compare the two on answers.
//!
//! A limit gives no verdict, never a guess.

pub mod formula;
mod local;

use crate::check::shortcuts::Shortcuts;
use crate::explore::limits::{Limits, StopReason};
use crate::model::net::{Net, TransIdx};
use crate::model::net_system::NetSystem;
use crate::property::syntax::{Form, ResolvedFormula};
use crate::system::{Overflow, System};

use formula::{Ctl, Node};
use local::{Engine, Halt, Store};

/// How paths end at a deadlock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeadlockRule {
    /// Maximal paths, finite ones included: a deadlock has no next state (`EX φ` false, `AX
    /// φ` true there). The contest's rule.
    #[default]
    Maximal,
    /// A deadlock repeats forever: its next state is itself.
    Stutter,
}

/// Why a formula cannot be checked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CtlError {
    /// The formula is not CTL.
    #[error("not a CTL formula: {reason}")]
    NotCtl {
        /// What is wrong.
        reason: &'static str,
    },
    /// A count did not fit even in 64-bit counters.
    #[error(transparent)]
    Overflow(#[from] Overflow),
}

/// A run of the net that shows the formula's top operator: a witness of `EX`, `EF`, `E[φ U
/// ψ]` (a path to the state where the goal holds) or `EG` (a lasso: a path then a cycle, or a
/// path to a deadlock all of whose states satisfy φ); for `AX`, `AG`, `AF`, `A[φ U ψ]` at the
/// top, a counterexample: the witness of the dual existential formula.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Transitions fired from the initial marking.
    pub prefix: Vec<TransIdx>,
    /// Transitions fired from the end of the prefix back to it; empty when the path is
    /// finite.
    pub cycle: Vec<TransIdx>,
}

/// What a check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CtlOutcome {
    /// The formula's value at the initial marking; `None` when a limit stopped the check.
    pub verdict: Option<bool>,
    /// A witness (when the verdict is true) or counterexample (false) of the top operator,
    /// where the formula has one and the engine found it; see [`Trace`].
    pub trace: Option<Trace>,
    /// Whether the verdict came from rewriting and the structural facts alone, without a
    /// marking explored.
    pub structural: bool,
    /// Markings generated.
    pub states: u64,
    /// What stopped the check, if anything did.
    pub stopped: Option<StopReason>,
}

/// Options of a check.
#[derive(Clone, Copy, Debug, Default)]
pub struct CtlOptions {
    /// How paths end at a deadlock.
    pub deadlock: DeadlockRule,
}

/// Whether `f` is a CTL formula (every temporal operator directly under a path quantifier,
/// up to the negations `¬X`, `¬F`, `¬G`): the formulas [`check`] accepts.
pub fn is_ctl(f: &ResolvedFormula) -> bool {
    Ctl::build(f, DeadlockRule::Maximal, None).is_ok()
}

/// Checks the CTL formula `f` at the initial marking of `net` within `limits`, under the
/// contest's rule for deadlocks.
pub fn check(net: &Net, f: &ResolvedFormula, limits: &Limits) -> Result<CtlOutcome, CtlError> {
    check_with(net, f, &CtlOptions::default(), None, limits)
}

/// Checks `f` as [`check`] does, with `options`, and with `shortcuts` (the net's structural
/// facts) deciding the atoms they fix.
pub fn check_with(
    net: &Net,
    f: &ResolvedFormula,
    options: &CtlOptions,
    shortcuts: Option<&Shortcuts>,
    limits: &Limits,
) -> Result<CtlOutcome, CtlError> {
    Checker::new(net, *options, shortcuts).check(f, limits)
}

/// Checks formulas one after another on one net, keeping the markings and successor lists
/// generated for one formula for the next (the contest's sixteen formulas per net share
/// much of their state space).
pub struct Checker<'n, 's> {
    options: CtlOptions,
    shortcuts: Option<&'s Shortcuts>,
    sys: NetSystem<'n>,
    store: Option<Store>,
}

impl<'n, 's> Checker<'n, 's> {
    /// A checker of formulas of `net`; `shortcuts` (the net's structural facts, computed once)
    /// decide the atoms they fix.
    pub fn new(net: &'n Net, options: CtlOptions, shortcuts: Option<&'s Shortcuts>) -> Self {
        Checker {
            options,
            shortcuts,
            sys: NetSystem::new(net),
            store: None,
        }
    }

    /// The value of `f` at the initial marking, within `limits`. `states` counts the markings
    /// generated so far by this checker. The error: `f` is not CTL, or a count does not fit in
    /// 64 bits.
    pub fn check(&mut self, f: &ResolvedFormula, limits: &Limits) -> Result<CtlOutcome, CtlError> {
        let rule = self.options.deadlock;
        let ctl = Ctl::build(f, rule, self.shortcuts)?;
        if let Some(v) = ctl.constant() {
            return Ok(CtlOutcome {
                verdict: Some(v),
                trace: None,
                structural: true,
                states: 0,
                stopped: None,
            });
        }
        let trace_of = traced(f, &ctl);
        loop {
            let store = self
                .store
                .take()
                .unwrap_or_else(|| Store::new(self.sys.state_words()));
            let mut engine = Engine::new(&self.sys, &ctl, rule, limits, trace_of, store);
            let value = engine.run();
            let trace = engine.trace.take();
            let store = engine.into_store();
            let states = store.len() as u64;
            let (verdict, stopped) = match value {
                Ok(v) => (Some(v), None),
                Err(Halt::Stop(reason)) => (None, Some(reason)),
                Err(Halt::Overflow(o)) => {
                    // Wider counters, and the markings generated again.
                    self.sys = self.sys.widened().ok_or(o)?;
                    continue;
                }
            };
            // A memory limit: the next formula starts afresh rather than from a full store.
            if stopped != Some(StopReason::MemoryLimit) {
                self.store = Some(store);
            }
            return Ok(CtlOutcome {
                verdict,
                trace: trace.filter(|_| verdict.is_some()),
                structural: false,
                states,
                stopped,
            });
        }
    }
}

/// The node whose search leaves a trace: the root's top operator (under a negation for a
/// counterexample), when it is the operator the formula has at its top as written (`EF`,
/// `EU` → `EU`; `AG` → `¬EU`; `EG` → `EG`; `AF` → `¬EG`; `EX` → `EX`; `AX` → `¬EX`;
/// negations flip), so that the trace is one of the formula's own operator.
fn traced(f: &ResolvedFormula, ctl: &Ctl) -> Option<formula::NodeId> {
    #[derive(PartialEq)]
    enum Kind {
        Next,
        Until,
        Globally,
    }
    let mut negated = false;
    let mut top = f;
    while let Form::Not(g) = top {
        negated = !negated;
        top = g;
    }
    let written = match top {
        Form::Exists(p) | Form::All(p) => {
            let all = matches!(top, Form::All(_));
            let kind = match (p.as_ref(), all) {
                (Form::Next(_), _) => Kind::Next,
                (Form::Finally(_) | Form::Until(..), false) | (Form::Globally(_), true) => {
                    Kind::Until
                }
                (Form::Globally(_), false) | (Form::Finally(_), true) => Kind::Globally,
                _ => return None,
            };
            (negated != all, kind)
        }
        _ => return None,
    };
    let (root_negated, n) = match ctl.node(ctl.root) {
        Node::Not(a) => (true, *a),
        _ => (false, ctl.root),
    };
    let kind = match ctl.node(n) {
        Node::Ex(_) => Kind::Next,
        Node::Eu(..) => Kind::Until,
        Node::Eg(_) => Kind::Globally,
        _ => return None,
    };
    (written == (root_negated, kind)).then_some(n)
}
