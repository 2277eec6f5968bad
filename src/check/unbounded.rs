//! Unboundedness by pumping: a run `σ` to a marking `M`, then a run `τ` from `M` to a marking
//! `M'` with `M' ≥ M` and `M' ≠ M`. Firing is monotone (a transition enabled at `M` is
//! enabled at every larger marking, and adds the same change), so `τ` fires again from `M'`,
//! and again, each time adding `M' − M`: the places where `M'` exceeds `M` grow without bound.
//! This is the pumping argument of Karp and Miller's coverability tree, found here along
//! random walks (each marking of a walk is compared with the earlier ones of the same walk);
//! it proves unboundedness and never boundedness.

use std::time::{Duration, Instant};

use super::walk::SplitMix;
use crate::model::net::{Net, PlaceIdx, TransIdx};

/// A proof that the net is unbounded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pumping {
    /// A firing sequence from the initial marking to `M`.
    pub prefix: Vec<TransIdx>,
    /// A firing sequence from `M` back to a marking at least `M` and larger somewhere.
    pub pump: Vec<TransIdx>,
    /// The places the pump adds to, with what one round adds.
    pub grows: Vec<(PlaceIdx, u64)>,
}

/// How long the search may go on.
#[derive(Clone, Copy, Debug)]
pub struct PumpSearch {
    /// Walks tried.
    pub walks: usize,
    /// Longest walk.
    pub length: usize,
    /// The search gives up at this time at the latest.
    pub time: Duration,
    /// Seed of the random choices.
    pub seed: u64,
}

impl Default for PumpSearch {
    /// 64 walks of up to 1 000 steps, within a second: a few milliseconds on most nets.
    fn default() -> Self {
        PumpSearch {
            walks: 64,
            length: 1000,
            time: Duration::from_secs(1),
            seed: 0x9a3b_17c5,
        }
    }
}

/// Looks for a pumping run of `net` within `search`.
pub fn find_pumping(net: &Net, search: PumpSearch) -> Option<Pumping> {
    let deadline = Instant::now() + search.time;
    let initial: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
    let mut rng = SplitMix(search.seed);
    // The markings of the current walk and their totals, and the transitions fired.
    let mut markings: Vec<Vec<u64>> = Vec::with_capacity(search.length + 1);
    let mut totals: Vec<u128> = Vec::with_capacity(search.length + 1);
    let mut fired: Vec<TransIdx> = Vec::with_capacity(search.length);
    let mut enabled: Vec<TransIdx> = Vec::new();
    for _ in 0..search.walks {
        if Instant::now() >= deadline {
            return None;
        }
        markings.clear();
        totals.clear();
        fired.clear();
        markings.push(initial.clone());
        totals.push(initial.iter().map(|&k| k as u128).sum());
        let mut highest = totals[0];
        for _ in 0..search.length {
            let m = markings
                .last()
                .expect("the walk starts at the initial marking");
            enabled.clear();
            enabled
                .extend((0..net.transitions.len() as TransIdx).filter(|&t| is_enabled(net, m, t)));
            if enabled.is_empty() {
                break;
            }
            let t = enabled[rng.below(enabled.len())];
            let Some(next) = fire(net, m, t) else {
                break;
            };
            let total: u128 = next.iter().map(|&k| k as u128).sum();
            fired.push(t);
            // A marking strictly above an earlier one has a larger total than it; looking back
            // only from the walk's new highest totals keeps the cost linear in the walk for
            // nets whose totals go up and down (an unbounded net keeps making new highs).
            let record = total > highest;
            highest = highest.max(total);
            let covered = record
                .then(|| {
                    (0..markings.len())
                        .rev()
                        .find(|&i| totals[i] < total && covers(&next, &markings[i]))
                })
                .flatten();
            if let Some(i) = covered {
                let grows = (0..net.places.len())
                    .filter(|&p| next[p] > markings[i][p])
                    .map(|p| (p as PlaceIdx, next[p] - markings[i][p]))
                    .collect();
                return Some(Pumping {
                    prefix: fired[..i].to_vec(),
                    pump: fired[i..].to_vec(),
                    grows,
                });
            }
            markings.push(next);
            totals.push(total);
        }
    }
    None
}

/// Whether `t` is enabled at `m` (every place it consumes from or reads holds enough).
pub(super) fn is_enabled(net: &Net, m: &[u64], t: TransIdx) -> bool {
    let tr = &net.transitions[t as usize];
    tr.pre
        .iter()
        .chain(&tr.reads)
        .all(|a| m[a.place as usize] >= a.weight as u64)
}

/// The marking after firing the enabled `t` at `m`; `None` when a count passes 64 bits.
pub(super) fn fire(net: &Net, m: &[u64], t: TransIdx) -> Option<Vec<u64>> {
    let tr = &net.transitions[t as usize];
    let mut next = m.to_vec();
    for a in &tr.pre {
        next[a.place as usize] -= a.weight as u64;
    }
    for a in &tr.post {
        let k = &mut next[a.place as usize];
        *k = k.checked_add(a.weight as u64)?;
    }
    Some(next)
}

/// Whether `big ≥ small` place by place.
fn covers(big: &[u64], small: &[u64]) -> bool {
    big.iter().zip(small).all(|(b, s)| b >= s)
}

/// Fires `run` from `m`; `None` when some transition is not enabled or a count overflows.
pub fn replay(net: &Net, m: &[u64], run: &[TransIdx]) -> Option<Vec<u64>> {
    let mut m = m.to_vec();
    for &t in run {
        if !is_enabled(net, &m, t) {
            return None;
        }
        m = fire(net, &m, t)?;
    }
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::{ArcKind, NetBuilder};

    fn chain(grow: bool) -> Net {
        // p → t → q, q → u → p (+ r when `grow`).
        let mut b = NetBuilder::new("n");
        let p = b.add_place("p", None, 1).unwrap();
        let q = b.add_place("q", None, 0).unwrap();
        let r = b.add_place("r", None, 0).unwrap();
        let t = b.add_transition("t", None).unwrap();
        let u = b.add_transition("u", None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 1).unwrap();
        b.add_arc(q, t, ArcKind::Output, 1).unwrap();
        b.add_arc(q, u, ArcKind::Input, 1).unwrap();
        b.add_arc(p, u, ArcKind::Output, 1).unwrap();
        if grow {
            b.add_arc(r, u, ArcKind::Output, 1).unwrap();
        }
        b.finish()
    }

    #[test]
    fn a_growing_cycle_pumps_and_replays() {
        let net = chain(true);
        let found = find_pumping(&net, PumpSearch::default()).expect("unbounded");
        let initial: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
        let m = replay(&net, &initial, &found.prefix).unwrap();
        let m2 = replay(&net, &m, &found.pump).unwrap();
        assert!(covers(&m2, &m) && m2 != m);
        assert_eq!(found.grows, vec![(2, 1)]);
    }

    #[test]
    fn a_bounded_cycle_does_not() {
        assert_eq!(find_pumping(&chain(false), PumpSearch::default()), None);
    }
}
