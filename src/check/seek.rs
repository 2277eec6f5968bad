//! Seeking a target: a best-first search over the reachable markings that expands first the
//! marking nearest to satisfying the target, by a distance that counts the tokens missing (or
//! in excess) for each atom. A target that needs thousands of tokens moved together (a
//! kanban's cells filled, five hundred clients served at once) lies far deeper than a
//! breadth-first search gets in time, and random walks scatter the tokens instead of
//! gathering them; the distance leads the search there.
//!
//! *Soundness.* The distance only orders the search. A marking found is checked against the
//! target itself, and its run (the search tree's path) is replayed from the initial marking
//! before it counts ([`replays_to`]). A search that expanded every reachable marking without
//! meeting the target proves it absent, as a breadth-first search would.

use std::ops::ControlFlow;
use std::time::Duration;

use super::Search;
use super::explicit::NetMarking;
use crate::explore::limits::Limits;
use crate::explore::reach::{self, StateId};
use crate::model::net::{Net, TransIdx};
use crate::model::net_system::NetSystem;
use crate::property::{Cmp, Marking, Predicate};
use crate::system::{Overflow, System};

/// The distance of an unsatisfiable atom (`false`): far above any count of tokens, and still
/// far from overflowing when a few are added.
const FAR: u64 = 1 << 48;

/// How far `m` is from satisfying `p` (0 exactly when it does): a comparison counts the
/// difference between its sides, `fireable(t)` the tokens `t` misses on its input and read
/// places (the least over the transitions named), a conjunction adds its members' distances,
/// a disjunction takes the least; negations are pushed to the atoms. `deadlock` counts the
/// transitions enabled.
pub fn distance(net: &Net, p: &Predicate, m: &impl Marking) -> u64 {
    signed_distance(net, p, true, m)
}

/// The distance to `p` when `positive`, to `¬p` otherwise.
fn signed_distance(net: &Net, p: &Predicate, positive: bool, m: &impl Marking) -> u64 {
    match p {
        Predicate::Bool(b) => {
            if *b == positive {
                0
            } else {
                FAR
            }
        }
        Predicate::Deadlock => {
            let enabled = (0..net.transitions.len() as TransIdx).filter(|&t| m.enabled(t));
            if positive {
                enabled.count() as u64
            } else if m.dead() {
                (0..net.transitions.len() as TransIdx)
                    .map(|t| missing(net, t, m))
                    .min()
                    .unwrap_or(FAR)
            } else {
                0
            }
        }
        Predicate::Fireable(ts) => {
            if positive {
                ts.iter().map(|&t| missing(net, t, m)).min().unwrap_or(FAR)
            } else {
                ts.iter()
                    .map(|&t| excess(net, t, m))
                    .fold(0, u64::saturating_add)
            }
        }
        Predicate::Compare(a, c, b) => {
            let c = if positive { *c } else { c.negated() };
            comparison_distance(a.value(m), c, b.value(m))
        }
        Predicate::Not(q) => signed_distance(net, q, !positive, m),
        Predicate::And(ps) | Predicate::Or(ps) => {
            // A conjunction when positive and `And`, or negated and `Or` (De Morgan).
            let all = matches!(p, Predicate::And(_)) == positive;
            let each = ps.iter().map(|q| signed_distance(net, q, positive, m));
            if all {
                each.fold(0, u64::saturating_add)
            } else {
                each.min().unwrap_or(FAR)
            }
        }
    }
}

/// How far `a ⋈ b` is from holding.
fn comparison_distance(a: u64, c: Cmp, b: u64) -> u64 {
    match c {
        Cmp::Le => a.saturating_sub(b),
        Cmp::Lt => a.saturating_add(1).saturating_sub(b),
        Cmp::Ge => b.saturating_sub(a),
        Cmp::Gt => b.saturating_add(1).saturating_sub(a),
        Cmp::Eq => a.abs_diff(b),
        Cmp::Ne => u64::from(a == b),
    }
}

/// The tokens `t` misses to be enabled at `m`.
fn missing(net: &Net, t: TransIdx, m: &impl Marking) -> u64 {
    let tr = &net.transitions[t as usize];
    tr.pre
        .iter()
        .chain(&tr.reads)
        .map(|a| u64::from(a.weight).saturating_sub(m.tokens(a.place)))
        .fold(0, u64::saturating_add)
}

/// The fewest tokens to take from one place for `t` to be disabled at `m` (0 when it is).
fn excess(net: &Net, t: TransIdx, m: &impl Marking) -> u64 {
    let tr = &net.transitions[t as usize];
    tr.pre
        .iter()
        .chain(&tr.reads)
        .map(|a| (m.tokens(a.place) + 1).saturating_sub(u64::from(a.weight)))
        .min()
        // A transition without input or read places is never disabled.
        .unwrap_or(FAR)
}

/// Seeks a marking satisfying `target` for at most `budget` (within `limits`): `Found` with a
/// replayed run, `Absent` when every reachable marking was expanded, else `Unknown` with what
/// stopped it.
pub fn seek(
    net: &Net,
    target: &Predicate,
    budget: Duration,
    limits: &Limits,
) -> Result<Search, Overflow> {
    let limits = limits.phase(Some(budget));
    let (search, _) =
        NetSystem::new(net).retry_widened(|sys| seek_with(net, sys, target, &limits))?;
    Ok(match search {
        Search::Found(run) if !replays_to(net, &run, target) => Search::Unknown(None),
        other => other,
    })
}

fn seek_with(
    net: &Net,
    sys: &NetSystem<'_>,
    target: &Predicate,
    limits: &Limits,
) -> Result<Search, Overflow> {
    let mut found: Option<StateId> = None;
    let out = reach::explore_best_first(
        sys,
        limits,
        // Highest priority first: the nearest marking.
        &mut |state| u64::MAX - distance(net, target, &NetMarking { sys, state }),
        &mut |id, state| {
            if target.holds(&NetMarking { sys, state }) {
                found = Some(id);
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    )?;
    Ok(match found {
        Some(id) => Search::Found(out.space.path_to(id)),
        None if out.stopped.is_none() && !out.halted => Search::Absent,
        None => Search::Unknown(out.stopped),
    })
}

/// Whether `run` fires from the initial marking of `net` and ends in a marking satisfying
/// `target` (the check every witness passes before it counts).
pub fn replays_to(net: &Net, run: &[TransIdx], target: &Predicate) -> bool {
    NetSystem::new(net)
        .retry_widened(|sys| {
            let mut state = vec![0u64; sys.state_words()];
            sys.initial_state(&mut state);
            let mut next = state.clone();
            for &t in run {
                if t as usize >= net.transitions.len() || !sys.is_enabled(&state, t) {
                    return Ok(false);
                }
                sys.fire(&state, t, &mut next)?;
                std::mem::swap(&mut state, &mut next);
            }
            Ok(target.holds(&NetMarking { sys, state: &state }))
        })
        .map(|(ok, _)| ok)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_distances_vanish_exactly_where_the_comparison_holds() {
        for a in 0..6 {
            for b in 0..6 {
                for c in Cmp::ALL {
                    assert_eq!(
                        comparison_distance(a, c, b) == 0,
                        c.holds(a, b),
                        "{a} {c:?} {b}"
                    );
                }
            }
        }
    }
}
