//! T-semiflows: non-negative integer weightings `x` of the transitions with `C·x = 0`, `C` the
//! incidence matrix. Firing a sequence whose Parikh vector is `x` from a marking comes back to
//! it, and conversely the Parikh vector of every cycle of the reachability graph is a
//! T-semiflow. They are the P-semiflows of the transposed incidence matrix: the Farkas
//! algorithm of [`super::semiflows`] on the *dual* net, whose places are the transitions and
//! whose transitions are the places (the effect of `t` on `p` becomes an arc of the same
//! weight and opposite direction).
//!
//! *What they give.* In a bounded net every infinite run visits some marking twice, with a
//! non-empty sequence between the two visits: its Parikh vector is a T-semiflow, and a
//! transition fired infinitely often in the run fires in that sequence for a suitable choice
//! of the two visits. So when the net is bounded and the semiflows are a generating set, a
//! transition in the support of no T-semiflow fires finitely often in every run — it is not
//! live — and without any T-semiflow every run is finite, so a dead marking is reachable.

use super::{Budget, effect, semiflows};
use crate::model::net::{ArcKind, Net, NetBuilder, TransIdx};

/// A T-semiflow: firing a sequence with these numbers of each transition changes no marking.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TSemiflow {
    /// `(transition, weight)`, sorted by transition, weights at least 1, their gcd 1.
    pub weights: Vec<(TransIdx, u64)>,
}

/// The T-semiflows found, and whether they generate every T-semiflow of the transitions
/// considered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TSemiflows {
    /// Semiflows, of minimal support when `complete`.
    pub flows: Vec<TSemiflow>,
    /// Whether `flows` generates every T-semiflow over the transitions not ignored (the
    /// computation finished within its budget).
    pub complete: bool,
}

impl TSemiflows {
    /// Which of the `transitions` transitions some semiflow has in its support.
    pub fn covered(&self, transitions: usize) -> Vec<bool> {
        let mut out = vec![false; transitions];
        for &(t, _) in self.flows.iter().flat_map(|f| &f.weights) {
            if let Some(c) = out.get_mut(t as usize) {
                *c = true;
            }
        }
        out
    }
}

/// The T-semiflows of `net` over the transitions not marked in `ignored` (indexed by
/// transition; those that never fire can be ignored: no run fires them), within `budget`.
pub fn t_semiflows(net: &Net, ignored: &[bool], budget: &Budget) -> TSemiflows {
    let kept: Vec<TransIdx> = (0..net.transitions.len() as TransIdx)
        .filter(|&t| !ignored.get(t as usize).copied().unwrap_or(false))
        .collect();
    let Some(dual) = dual(net, &kept) else {
        return TSemiflows::default();
    };
    let found = semiflows::semiflows(&dual, &[], budget);
    TSemiflows {
        complete: found.complete(),
        flows: found
            .flows
            .into_iter()
            .map(|y| TSemiflow {
                weights: y
                    .weights
                    .iter()
                    .map(|&(i, w)| (kept[i as usize], w))
                    .collect(),
            })
            .collect(),
    }
}

/// The dual net of `net` restricted to the transitions `kept`: a place per kept transition, a
/// transition per place, and for an effect `k` of transition `t` on place `p` an arc of
/// weight `|k|` from `p` to `t` (`k > 0`) or from `t` to `p` (`k < 0`), so that its incidence
/// matrix is the transpose of the restricted one. `None` when a weight does not fit (no
/// semiflow is then claimed).
fn dual(net: &Net, kept: &[TransIdx]) -> Option<Net> {
    let mut b = NetBuilder::new(net.name.clone());
    for i in 0..kept.len() {
        b.add_place(format!("t{i}"), None, 0).ok()?;
    }
    for p in 0..net.places.len() {
        b.add_transition(format!("p{p}"), None).ok()?;
    }
    for (i, &t) in kept.iter().enumerate() {
        for (p, k) in effect(net, t) {
            let weight = u32::try_from(k.unsigned_abs()).ok()?;
            let kind = if k > 0 {
                ArcKind::Output
            } else {
                ArcKind::Input
            };
            b.add_arc(i as u32, p, kind, weight).ok()?;
        }
    }
    Some(b.finish())
}
