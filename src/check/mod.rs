//! Checking properties of nets: the engines that decide a reachability formula or a place
//! bound, each sound on its own, and the choice between them.
//!
//! An engine answers a *target* (a state predicate: is some reachable marking satisfying it?)
//! with a [`Search`], and a bound (the largest value of a linear sum of token counts over the
//! reachable markings) with a [`Bound`]. A formula `AG φ` is the target `¬φ`; the answer
//! follows from [`crate::property::syntax::Reachability::answer`]. An engine that is not sure
//! says [`Search::Unknown`]: it never guesses.

pub mod climb;
pub mod ctl;
pub mod dpor;
pub mod equation;
pub mod explicit;
pub mod global;
pub mod ltl;
pub mod prefix_sat;
pub mod reduced;
pub mod run;
pub mod seek;
pub mod shortcuts;
pub mod unbounded;
pub mod walk;

use crate::explore::limits::StopReason;
use crate::model::net::TransIdx;

/// What a search for a marking satisfying a target found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Search {
    /// A reachable marking satisfies the target: a firing sequence from the initial marking
    /// to one (transition indices).
    Found(Vec<TransIdx>),
    /// No reachable marking satisfies the target.
    Absent,
    /// Not decided: a limit stopped the engine (the reason), or the engine cannot decide this
    /// target (`None`).
    Unknown(Option<StopReason>),
}

impl Search {
    /// Whether the search decided.
    pub fn decided(&self) -> bool {
        !matches!(self, Search::Unknown(_))
    }
}

/// What an engine knows of a bound: the true bound `b` satisfies `lower ≤ b ≤ upper`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bound {
    /// A value reached by some reachable marking (0 when none is known: every sum is at least
    /// 0).
    pub lower: u64,
    /// A firing sequence to a marking reaching `lower`, when the engine has one.
    pub witness: Option<Vec<TransIdx>>,
    /// A value no reachable marking exceeds; `None` when unknown (or unbounded).
    pub upper: Option<u64>,
    /// What stopped the engine before the bound was exact, if anything did.
    pub stopped: Option<StopReason>,
}

impl Bound {
    /// The bound, when the engine pinned it.
    pub fn exact(&self) -> Option<u64> {
        (self.upper == Some(self.lower)).then_some(self.lower)
    }
}
