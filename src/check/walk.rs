//! Random walks: runs from the initial marking that fire an enabled transition drawn at
//! random, step after step, checking every target at each marking; every other walk climbs
//! one of the sums asked (it mostly fires a transition that raises the sum most). A target met has its run
//! as a witness (sound: the run is a firing sequence); a walk never proves a target absent.
//! Bounds get a lower value with its run. Walks find deep markings that a breadth-first
//! search of a large state space reaches too late.

use std::time::Duration;

use super::explicit::NetMarking;
use super::{Bound, Search};
use crate::explore::limits::Limits;
use crate::model::net::{Net, TransIdx};
use crate::model::net_system::NetSystem;
use crate::property::{Linear, Predicate};
use crate::system::{Overflow, System, Transition};

/// Options of the walks.
#[derive(Clone, Copy, Debug)]
pub struct WalkOptions {
    /// Longest walk before starting over from the initial marking.
    pub max_length: usize,
    /// Seed of the pseudo-random choices (the same seed gives the same walks).
    pub seed: u64,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            max_length: 100_000,
            seed: 0x5eed,
        }
    }
}

/// What the walks found.
#[derive(Clone, Debug)]
pub struct WalkRun {
    /// One answer per target: `Found` or `Unknown`.
    pub searches: Vec<Search>,
    /// One lower bound per sum (`upper` unknown).
    pub bounds: Vec<Bound>,
    /// Transitions fired in all.
    pub steps: u64,
}

/// SplitMix64: a tiny, well-distributed generator; walks need speed, not cryptography.
pub(super) struct SplitMix(pub(super) u64);

impl SplitMix {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }
}

/// Where a walk met something: the generator's state at the walk's start and the number of
/// steps; replaying the walk from there rebuilds the run without storing every run.
#[derive(Clone, Copy, Debug)]
struct Mark {
    seed: u64,
    length: usize,
    /// The sum the walk climbs (`None`: a walk at random).
    climbs: Option<usize>,
}

/// The change of each sum by each transition: what a climbing walk follows.
struct Slopes(Vec<Vec<i64>>);

impl Slopes {
    fn of(net: &Net, sums: &[Linear]) -> Slopes {
        Slopes(
            sums.iter()
                .map(|sum| {
                    net.transitions
                        .iter()
                        .map(|t| {
                            let k = |p| {
                                sum.terms
                                    .binary_search_by_key(&p, |&(q, _)| q)
                                    .map_or(0, |i| sum.terms[i].1 as i64)
                            };
                            let gain: i64 =
                                t.post.iter().map(|a| k(a.place) * a.weight as i64).sum();
                            let loss: i64 =
                                t.pre.iter().map(|a| k(a.place) * a.weight as i64).sum();
                            gain - loss
                        })
                        .collect()
                })
                .collect(),
        )
    }

    /// The transition a walk takes among `enabled`: climbing sum `j`, most of the time one of
    /// those that raise it most (at random among them), else any.
    fn choose(
        &self,
        climbs: Option<usize>,
        enabled: &[Transition],
        rng: &mut SplitMix,
    ) -> Transition {
        let pick = rng.below(enabled.len());
        let Some(j) = climbs else {
            return enabled[pick];
        };
        if rng.below(8) == 0 {
            return enabled[pick];
        }
        let slope = &self.0[j];
        let best = enabled
            .iter()
            .map(|&t| slope[t as usize])
            .max()
            .unwrap_or(0);
        if best <= 0 {
            return enabled[pick];
        }
        let top = enabled
            .iter()
            .filter(|&&t| slope[t as usize] == best)
            .count();
        let nth = rng.below(top);
        *enabled
            .iter()
            .filter(|&&t| slope[t as usize] == best)
            .nth(nth)
            .expect("nth < top")
    }
}

/// Walks `net` for at most `budget` (and within `limits`) until every target is met.
pub fn walk(
    net: &Net,
    targets: &[Predicate],
    sums: &[Linear],
    options: WalkOptions,
    budget: Duration,
    limits: &Limits,
) -> Result<WalkRun, Overflow> {
    let limits = limits.phase(Some(budget));
    let slopes = Slopes::of(net, sums);
    NetSystem::new(net)
        .retry_widened(|sys| walk_with(sys, targets, sums, &slopes, options, &limits))
        .map(|(run, _)| run)
}

fn walk_with(
    sys: &NetSystem<'_>,
    targets: &[Predicate],
    sums: &[Linear],
    slopes: &Slopes,
    options: WalkOptions,
    limits: &Limits,
) -> Result<WalkRun, Overflow> {
    let words = sys.state_words();
    let mut initial = vec![0u64; words];
    sys.initial_state(&mut initial);
    let mut state = initial.clone();
    let mut next = vec![0u64; words];
    let mut enabled = Vec::new();
    let mut rng = SplitMix(options.seed);
    let mut walks = 0usize;
    let mut here = Mark {
        seed: rng.0,
        length: 0,
        climbs: None,
    };
    let mut found: Vec<Option<Mark>> = vec![None; targets.len()];
    let mut open = targets.len();
    let m0 = NetMarking {
        sys,
        state: &initial,
    };
    let mut best: Vec<(u64, Mark)> = sums.iter().map(|s| (s.value(&m0), here)).collect();
    let mut steps = 0u64;
    let mut stopped = None;
    loop {
        let m = NetMarking { sys, state: &state };
        if open > 0 {
            for (slot, target) in found.iter_mut().zip(targets) {
                if slot.is_none() && target.holds(&m) {
                    *slot = Some(here);
                    open -= 1;
                }
            }
        }
        for (b, sum) in best.iter_mut().zip(sums) {
            let v = sum.value(&m);
            if v > b.0 {
                *b = (v, here);
            }
        }
        if open == 0 && sums.is_empty() {
            break;
        }
        if steps.is_multiple_of(1024)
            && let Err(reason) = limits.check_time()
        {
            stopped = Some(reason);
            break;
        }
        steps += 1;
        enabled.clear();
        sys.enabled(&state, &mut enabled);
        if enabled.is_empty() || here.length >= options.max_length {
            state.copy_from_slice(&initial);
            // Every other walk climbs one of the sums, in turn.
            walks += 1;
            here = Mark {
                seed: rng.0,
                length: 0,
                climbs: (walks % 2 == 1 && !sums.is_empty()).then(|| (walks / 2) % sums.len()),
            };
            continue;
        }
        let t = slopes.choose(here.climbs, &enabled, &mut rng);
        sys.fire(&state, t, &mut next)?;
        std::mem::swap(&mut state, &mut next);
        here.length += 1;
    }
    let replay = |mark: Mark| -> Result<Vec<TransIdx>, Overflow> {
        let mut rng = SplitMix(mark.seed);
        let mut state = initial.clone();
        let mut next = vec![0u64; words];
        let mut enabled = Vec::new();
        let mut run = Vec::with_capacity(mark.length);
        for _ in 0..mark.length {
            enabled.clear();
            sys.enabled(&state, &mut enabled);
            let t = slopes.choose(mark.climbs, &enabled, &mut rng);
            sys.fire(&state, t, &mut next)?;
            std::mem::swap(&mut state, &mut next);
            run.push(t);
        }
        Ok(run)
    };
    let mut searches = Vec::with_capacity(targets.len());
    for f in found {
        searches.push(match f {
            Some(mark) => Search::Found(replay(mark)?),
            None => Search::Unknown(stopped),
        });
    }
    let mut bounds = Vec::with_capacity(sums.len());
    for (lower, mark) in best {
        bounds.push(Bound {
            lower,
            witness: Some(replay(mark)?),
            upper: None,
            stopped,
        });
    }
    Ok(WalkRun {
        searches,
        bounds,
        steps,
    })
}

/// A time budget for walks: `share` of the time `limits` leave, at most `cap` (`cap` when
/// there is no timeout).
pub fn budget(limits: &Limits, share: f64, cap: Duration) -> Duration {
    limits
        .remaining()
        .map_or(cap, |r| r.mul_f64(share).min(cap))
}
