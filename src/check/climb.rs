//! Climbing to a bound: a best-first search over the reachable markings that expands the
//! marking of largest sum first, so that a marking reaching the bound is found long before a
//! breadth-first search would get there (a kanban's 2 000 tokens gathered on one place). The
//! witness is the search tree's run to the best marking; the bound is exact when the search
//! reaches an upper bound known beforehand, or sees every reachable marking.

use std::ops::ControlFlow;
use std::time::Duration;

use super::Bound;
use super::explicit::NetMarking;
use crate::explore::limits::Limits;
use crate::explore::reach::{self, StateId};
use crate::model::net::Net;
use crate::model::net_system::NetSystem;
use crate::property::Linear;
use crate::system::Overflow;

/// Climbs towards the largest value of `sum` for at most `budget` (within `limits`), stopping
/// at `known_upper` when it is reached.
pub fn climb(
    net: &Net,
    sum: &Linear,
    known_upper: Option<u64>,
    budget: Duration,
    limits: &Limits,
) -> Result<Bound, Overflow> {
    let limits = limits.phase(Some(budget));
    NetSystem::new(net)
        .retry_widened(|sys| climb_with(sys, sum, known_upper, &limits))
        .map(|(bound, _)| bound)
}

fn climb_with(
    sys: &NetSystem<'_>,
    sum: &Linear,
    known_upper: Option<u64>,
    limits: &Limits,
) -> Result<Bound, Overflow> {
    let mut best: Option<(u64, StateId)> = None;
    let out = reach::explore_best_first(
        sys,
        limits,
        &mut |state| sum.value(&NetMarking { sys, state }),
        &mut |id, state| {
            let v = sum.value(&NetMarking { sys, state });
            if best.is_none_or(|(b, _)| v > b) {
                best = Some((v, id));
            }
            if known_upper.is_some_and(|u| v >= u) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    )?;
    let (lower, id) = best.expect("the initial marking is seen");
    let complete = out.stopped.is_none() && !out.halted;
    let upper = if complete || known_upper.is_some_and(|u| lower >= u) {
        Some(lower)
    } else {
        known_upper
    };
    Ok(Bound {
        lower,
        witness: Some(out.space.path_to(id)),
        upper,
        stopped: if upper == Some(lower) {
            None
        } else {
            out.stopped
        },
    })
}
