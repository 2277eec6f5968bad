//! What the structural analysis says of a net as a whole, for `unfold info`: the invariants
//! and how much of the net they cover, the bounds they give (structural boundedness, a
//! 1-safety certificate), the T-semiflows, and the siphon-trap verdict on deadlocks.

use std::time::{Duration, Instant};

use super::traps::{TrapVerdict, deadlock_free, deadlock_free_with};
use super::tsemiflows::t_semiflows;
use super::{Budget, Facts};
use crate::model::net::{Net, PlaceIdx};
use crate::model::net_system::NetSystem;
use crate::system::System;

/// Random runs tried by [`runs_into_deadlock`], and the most firings in each.
const DEADLOCK_RUNS: usize = 16;
const DEADLOCK_RUN_STEPS: usize = 2_000;

/// Whether a few short random runs from the initial marking (a fixed seed, so the summary is
/// the same on every call) reach a dead marking, until `deadline`. Only a signal that proving
/// deadlock freedom is hopeless: a `true` never becomes a claim, the summary then merely
/// leaves the question unknown.
fn runs_into_deadlock(net: &Net, deadline: Instant) -> bool {
    let sys = NetSystem::new(net);
    let mut initial = vec![0u64; sys.state_words()];
    sys.initial_state(&mut initial);
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut enabled = Vec::new();
    for _ in 0..DEADLOCK_RUNS {
        let mut state = initial.clone();
        for step in 0..DEADLOCK_RUN_STEPS {
            if step % 64 == 0 && Instant::now() >= deadline {
                return false;
            }
            enabled.clear();
            sys.enabled(&state, &mut enabled);
            if enabled.is_empty() {
                return true;
            }
            // xorshift64*: cheap, and good enough to pick a transition.
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            let pick = seed.wrapping_mul(0x2545_f491_4f6c_dd1d) % enabled.len() as u64;
            if sys
                .fire_in_place(&mut state, enabled[pick as usize])
                .is_err()
            {
                break; // a counter would overflow: this run says nothing more
            }
        }
    }
    false
}

/// The structural summary of a net.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// P-semiflows found.
    pub p_semiflows: usize,
    /// Whether they generate every P-semiflow (the computation finished).
    pub p_complete: bool,
    /// Places in the support of some P-semiflow.
    pub places_covered: usize,
    /// Every place is covered by a P-semiflow of the whole net (no transition was set aside
    /// as dead): the net is conservative, so bounded for every initial marking (structurally
    /// bounded).
    pub structurally_bounded: bool,
    /// Every place has an upper bound from the invariants: the net is bounded.
    pub bounded: bool,
    /// Every place is bounded by one token: a certificate of 1-safety (without a NUPN block).
    pub safe: bool,
    /// The largest upper bound of a place, when every place has one.
    pub max_bound: Option<u64>,
    /// Transitions the facts show never fire.
    pub dead_transitions: usize,
    /// T-semiflows found (over the transitions that may fire).
    pub t_semiflows: usize,
    /// Whether they generate every T-semiflow.
    pub t_complete: bool,
    /// Transitions in the support of some T-semiflow.
    pub transitions_covered: usize,
    /// The siphon-trap argument: `Some(true)` when every set of places that could be empty at
    /// a dead marking holds an initially marked trap (no deadlock); `None` when it proves
    /// nothing (a candidate set without a marked trap, or out of time).
    pub deadlock_free_by_traps: Option<bool>,
    /// The same argument with the state equation refuting the candidates that hold no
    /// marked trap (tried when the traps alone prove nothing): `Some(true)` when it proves
    /// the net deadlock-free.
    pub deadlock_free_by_equation: Option<bool>,
    /// The time the three computations took.
    pub time: Duration,
    /// The time of each part: the facts (P-semiflows, bounds, dead transitions), the
    /// T-semiflows, the siphon-trap search, and the search with the state equation.
    pub parts: PartTimes,
}

/// The time each part of the structural summary took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartTimes {
    /// P-semiflows, bounds and dead transitions ([`Facts::of`]).
    pub facts: Duration,
    /// T-semiflows.
    pub t_semiflows: Duration,
    /// The siphon-trap search alone.
    pub traps: Duration,
    /// The siphon-trap search with the state equation (zero when the traps alone proved it).
    pub equation: Duration,
}

impl Summary {
    /// The summary of `net` within `time`, shared as the parts go: the facts (the
    /// P-semiflows, which give the bounds, are worth most) get half of it at most, the
    /// T-semiflows half of what is left, the siphon-trap searches the rest. A part that
    /// finishes early leaves its time to the next; one out of time says less, never
    /// something wrong.
    pub fn of(net: &Net, time: Duration) -> Summary {
        let start = Instant::now();
        let end = start + time;
        let left = || end.saturating_duration_since(Instant::now());
        let facts = Facts::of(
            net,
            &Budget {
                time: time / 2,
                ..Budget::default()
            },
        );
        let facts_time = start.elapsed();
        let p = facts.semiflows();
        let covered = p.covered(net.places.len());
        let uppers: Option<Vec<u64>> = (0..net.places.len())
            .map(|q| facts.upper(q as PlaceIdx))
            .collect();
        let t_start = Instant::now();
        let t = t_semiflows(
            net,
            facts.dead(),
            &Budget {
                time: left() / 2,
                ..Budget::default()
            },
        );
        let traps_start = Instant::now();
        let deadline = end;
        let proved = |v: TrapVerdict| matches!(v, TrapVerdict::DeadlockFree { .. }).then_some(true);
        let traps = proved(deadlock_free(net, &facts, deadline));
        let equation_start = Instant::now();
        // The state equation only ever proves deadlock freedom: a net a short random run
        // takes to a dead marking would spend its whole share on it in vain.
        let equation = match traps {
            Some(true) => Some(true),
            _ if runs_into_deadlock(net, deadline) => None,
            _ => proved(deadlock_free_with(net, &facts, deadline, true)),
        };
        let parts = PartTimes {
            facts: facts_time,
            t_semiflows: traps_start - t_start,
            traps: equation_start - traps_start,
            equation: equation_start.elapsed(),
        };
        Summary {
            p_semiflows: p.flows.len(),
            p_complete: p.complete(),
            places_covered: covered.iter().filter(|&&c| c).count(),
            structurally_bounded: covered.iter().all(|&c| c) && !facts.dead().contains(&true),
            bounded: uppers.is_some(),
            safe: uppers.as_ref().is_some_and(|u| u.iter().all(|&b| b <= 1)),
            max_bound: uppers.and_then(|u| u.into_iter().max()),
            dead_transitions: facts.dead().iter().filter(|&&d| d).count(),
            t_semiflows: t.flows.len(),
            t_complete: t.complete,
            transitions_covered: t
                .covered(net.transitions.len())
                .iter()
                .filter(|&&c| c)
                .count(),
            deadlock_free_by_traps: traps,
            deadlock_free_by_equation: equation,
            time: start.elapsed(),
            parts,
        }
    }
}
