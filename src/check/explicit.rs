//! The explicit engine: one breadth-first pass over the reachable markings
//! ([`reach::explore_until`]) checks every target and every bound at each new marking, and
//! stops as soon as all of them are decided. A target found has a shortest witness (the
//! breadth-first tree's path); a target not found after every marking was seen is absent; a
//! bound is exact once every marking was seen, or as soon as a marking reaches an upper bound
//! known beforehand (from [`super::shortcuts`], say).

use std::ops::ControlFlow;

use super::{Bound, Search};
use crate::explore::limits::Limits;
use crate::explore::reach::{self, ReachProgress, StateId};
use crate::model::net::{Net, PlaceIdx, TransIdx};
use crate::model::net_system::NetSystem;
use crate::property::{Linear, Marking, Predicate};
use crate::system::{Overflow, System};

/// A marking of a [`NetSystem`] as a property sees it.
pub struct NetMarking<'a, 'n> {
    /// The system whose packed counters `state` holds.
    pub sys: &'a NetSystem<'n>,
    /// The packed marking.
    pub state: &'a [u64],
}

impl Marking for NetMarking<'_, '_> {
    #[inline]
    fn tokens(&self, p: PlaceIdx) -> u64 {
        self.sys.tokens(self.state, p)
    }

    #[inline]
    fn enabled(&self, t: TransIdx) -> bool {
        self.sys.is_enabled(self.state, t)
    }

    fn dead(&self) -> bool {
        self.sys.is_deadlock(self.state)
    }
}

/// A bound to compute: the sum, and an upper bound already known (the search stops early
/// once a marking reaches it).
#[derive(Clone, Debug)]
pub struct BoundQuery {
    /// The sum of token counts.
    pub sum: Linear,
    /// A value no reachable marking exceeds, if known.
    pub known_upper: Option<u64>,
}

/// What the explicit engine found.
#[derive(Clone, Debug)]
pub struct ExplicitRun {
    /// One answer per target, in order.
    pub searches: Vec<Search>,
    /// One answer per bound, in order.
    pub bounds: Vec<Bound>,
    /// Markings found.
    pub states: u64,
    /// Whether every reachable marking was seen.
    pub complete: bool,
}

/// Checks `targets` and `bounds` on the reachable markings of `net` within `limits`.
///
/// The error is a counter overflow at 64 bits (counters are widened and the pass restarted
/// before that).
pub fn check(
    net: &Net,
    targets: &[Predicate],
    bounds: &[BoundQuery],
    limits: &Limits,
    progress: &mut dyn FnMut(ReachProgress),
) -> Result<ExplicitRun, Overflow> {
    NetSystem::new(net)
        .retry_widened(|sys| check_with(sys, targets, bounds, limits, progress))
        .map(|(run, _)| run)
}

fn check_with(
    sys: &NetSystem<'_>,
    targets: &[Predicate],
    bounds: &[BoundQuery],
    limits: &Limits,
    progress: &mut dyn FnMut(ReachProgress),
) -> Result<ExplicitRun, Overflow> {
    // The marking satisfying each target first, and the best marking of each bound.
    let mut found: Vec<Option<StateId>> = vec![None; targets.len()];
    let mut best: Vec<(u64, StateId)> = vec![(0, 0); bounds.len()];
    let mut open_targets = targets.len();
    let mut open_bounds: Vec<bool> = vec![true; bounds.len()];
    let mut open_bound_count = bounds.len();
    let mut first = true;
    let out = reach::explore_until(sys, limits, progress, &mut |id, state| {
        let m = NetMarking { sys, state };
        if open_targets > 0 {
            for (slot, target) in found.iter_mut().zip(targets) {
                if slot.is_none() && target.holds(&m) {
                    *slot = Some(id);
                    open_targets -= 1;
                }
            }
        }
        for (k, q) in bounds.iter().enumerate() {
            let v = q.sum.value(&m);
            if first || v > best[k].0 {
                best[k] = (v, id);
            }
            if open_bounds[k] && q.known_upper.is_some_and(|u| v >= u) {
                open_bounds[k] = false;
                open_bound_count -= 1;
            }
        }
        first = false;
        if open_targets == 0 && open_bound_count == 0 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    let complete = out.stopped.is_none() && !out.halted;
    let searches = found
        .iter()
        .map(|slot| match slot {
            Some(id) => Search::Found(out.space.path_to(*id)),
            None if complete => Search::Absent,
            None => Search::Unknown(out.stopped),
        })
        .collect();
    let bounds = best
        .iter()
        .zip(bounds)
        .zip(&open_bounds)
        .map(|((&(value, id), q), &open)| {
            let upper = if complete {
                Some(value)
            } else if !open {
                // A marking reached the known upper bound, so the bound is exact.
                q.known_upper.map(|u| u.max(value))
            } else {
                q.known_upper
            };
            Bound {
                lower: value,
                witness: Some(out.space.path_to(id)),
                upper,
                stopped: if upper == Some(value) {
                    None
                } else {
                    out.stopped
                },
            }
        })
        .collect();
    Ok(ExplicitRun {
        searches,
        bounds,
        states: out.space.len() as u64,
        complete,
    })
}
