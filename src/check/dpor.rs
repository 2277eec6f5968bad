//! The DPOR engine: reachability targets and place bounds decided by the unfolding DPOR with
//! cutoffs ([`crate::explore::udpor`]), which checks every target and every bound at each
//! configuration it visits and stops as soon as all of them are decided.
//!
//! The DPOR visits one chain of configurations per maximal configuration, which leaves out
//! reachable markings (of three concurrent transitions `a`, `b`, `c` it visits `∅`, `{a}`,
//! `{a, b}`, `{a, b, c}`, never `{b, c}`). So it runs on the *observed* net: the net with a
//! place `live`, initially marked, read by every *visible* transition (one that changes the
//! marking of a place the goals read: their places, the presets and read places of the
//! transitions whose fireability they ask, every one of those for `deadlock`), and a
//! transition `halt` that takes `live`'s token. Then:
//!
//! - every state the DPOR visits is reachable in the observed net, and its marking of the
//!   original places is reachable in the net (the observed net fires as the net does while
//!   `live` is marked, and after `halt` only invisible transitions, which the net may fire
//!   too); a witness is the visited configuration's firing sequence without `halt`;
//! - every reachable marking `M` of the net agrees on the watched places with a visited state:
//!   `M + live↦0` is reachable in the observed net, so (the prefix with cutoffs is complete)
//!   some cutoff-free configuration `K` reaches it; `K` holds one `halt` event `h`, and every
//!   visible event of `K` is in `[h]` (visible events read `live`, which `h` takes: each is
//!   before `h` or in conflict with it), so `state([h])` agrees with `M` on the watched places.
//!   `h` is not a cutoff, so it lies in a maximal cutoff-free configuration, which the DPOR
//!   explores: it visits a configuration `C ∪ {h}` with `[h] ⊆ C ∪ {h}` whose other events
//!   are concurrent with `h`, hence invisible. A goal reads only watched places (fireability
//!   and deadlock are evaluated with the net's arcs, not the observed net's), so it has the
//!   same value at `M` and at that state.
//!
//! So a target not met once the exploration is complete is absent, and a bound is the
//! maximum over the visited states. Only the transitions that change a watched place are
//! serialised against `halt`: goals over a few places keep most of the concurrency.
//! Every witness is replayed on the net and its target checked again before it is returned.
//!
//! The target `deadlock` alone is not observed that way (it would watch every place and
//! serialise every transition against `halt`): the DPOR runs on the net itself and stops at
//! the first configuration whose state is dead. That is sound both ways: every visited state
//! is reachable, and every deadlock is the state of a maximal cutoff-free configuration
//! (completeness of the prefix), which a complete exploration visits.

use std::ops::ControlFlow;

use super::explicit::BoundQuery;
use super::{Bound, Search};
use crate::explore::limits::{Limits, StopReason};
use crate::explore::udpor::{self, UdporOptions, UdporProgress, Visit};
use crate::model::net::{Arc, Net, NetTransition, Place, PlaceIdx, TransIdx};
use crate::model::net_system::NetSystem;
use crate::property::{Marking, Predicate};
use crate::system::{Overflow, System};
use crate::unfolding::order::Order;

/// What the DPOR engine found.
#[derive(Clone, Debug)]
pub struct DporRun {
    /// One answer per target, in order.
    pub searches: Vec<Search>,
    /// One answer per bound, in order.
    pub bounds: Vec<Bound>,
    /// Configurations visited.
    pub visited: u64,
    /// Whether the exploration was complete (every reachable marking covered).
    pub complete: bool,
}

/// Checks `targets` and `bounds` on the reachable markings of `net` within `limits`, by the
/// DPOR with cutoffs (Mole's order) on the observed net (see the module's doc).
///
/// The error is a counter overflow at 64 bits (counters are widened and the run restarted
/// before that).
pub fn check(
    net: &Net,
    targets: &[Predicate],
    bounds: &[BoundQuery],
    limits: &Limits,
    progress: &mut dyn FnMut(UdporProgress),
) -> Result<DporRun, Overflow> {
    // `deadlock` alone is the DPOR's own question: every deadlock is the state of a maximal
    // cutoff-free configuration, which the DPOR on the net itself visits. Watching every
    // place for it instead would serialise every transition against `halt`.
    let (dead, rest): (Vec<usize>, Vec<usize>) =
        (0..targets.len()).partition(|&i| targets[i] == Predicate::Deadlock);
    let mut searches = vec![Search::Unknown(None); targets.len()];
    let (mut visited, mut complete) = (0, true);
    if !dead.is_empty() {
        let (found, seen, all) = NetSystem::new(net)
            .retry_widened(|sys| find_deadlock(sys, limits, progress))?
            .0;
        for &i in &dead {
            searches[i] = found.clone();
        }
        visited += seen;
        complete &= all;
    }
    let others: Vec<Predicate> = rest.iter().map(|&i| targets[i].clone()).collect();
    let mut run = if others.is_empty() && bounds.is_empty() {
        DporRun {
            searches: Vec::new(),
            bounds: Vec::new(),
            visited: 0,
            complete: true,
        }
    } else {
        let observed = Observed::new(net, &others, bounds);
        NetSystem::new(&observed.net)
            .retry_widened(|sys| observe(sys, &observed, &others, bounds, limits, progress))?
            .0
    };
    for (&i, search) in rest.iter().zip(run.searches.drain(..)) {
        searches[i] = search;
    }
    run.searches = searches;
    run.visited += visited;
    run.complete &= complete;
    replay_witnesses(net, targets, bounds, &mut run);
    Ok(run)
}

/// The DPOR with cutoffs on the net itself, stopped at the first configuration whose state
/// is a deadlock: its firing sequence, or `Absent` when the exploration was complete; with
/// the configurations visited and whether it was complete.
fn find_deadlock(
    sys: &NetSystem<'_>,
    limits: &Limits,
    progress: &mut dyn FnMut(UdporProgress),
) -> Result<(Search, u64, bool), Overflow> {
    let opts = UdporOptions {
        cutoffs: Some(Order::default()),
        ..UdporOptions::default()
    };
    let mut found = None;
    let mut visited = 0u64;
    let mut watch = |visit: &Visit<'_>| {
        visited += 1;
        if sys.is_deadlock(visit.state()) {
            found = Some(visit.firing_sequence());
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let stats = udpor::explore_observed(sys, &opts, limits, progress, &mut watch)?;
    let complete = stats.complete();
    let search = match found {
        Some(run) => Search::Found(run),
        None if complete => Search::Absent,
        None => Search::Unknown(
            stats
                .stopped
                .or((!stats.halted).then_some(StopReason::DepthLimit)),
        ),
    };
    Ok((search, visited, complete))
}

/// The observed net and what it adds to the net.
struct Observed<'n> {
    original: &'n Net,
    net: Net,
    /// The transition `halt` (the last one).
    halt: TransIdx,
}

impl<'n> Observed<'n> {
    fn new(net: &'n Net, targets: &[Predicate], bounds: &[BoundQuery]) -> Self {
        let places = net.places.len();
        let mut watched = vec![false; places];
        let mut all = false;
        let read_by = |t: TransIdx, watched: &mut Vec<bool>| {
            let t = &net.transitions[t as usize];
            for a in t.pre.iter().chain(&t.reads) {
                watched[a.place as usize] = true;
            }
        };
        for p in targets {
            let mut fireable = Vec::new();
            p.visit_support(
                &mut |q| watched[q as usize] = true,
                &mut |t| fireable.push(t),
                &mut || all = true,
            );
            for t in fireable {
                read_by(t, &mut watched);
            }
        }
        if all {
            for t in 0..net.transitions.len() as TransIdx {
                read_by(t, &mut watched);
            }
        }
        for q in bounds {
            for p in q.sum.places() {
                watched[p as usize] = true;
            }
        }
        let mut observed = net.clone();
        observed.nupn = None;
        observed.folding = None;
        let live = places as PlaceIdx;
        observed.places.push(Place {
            id: fresh_id(net, "live").into(),
            label: "live".into(),
            initial: 1,
        });
        for t in &mut observed.transitions {
            if changes_watched(t, &watched) {
                // `live` is new: the list stays sorted with it last.
                t.reads.push(Arc {
                    place: live,
                    weight: 1,
                });
            }
        }
        let mut pre = crate::model::net::Arcs::new();
        pre.push(Arc {
            place: live,
            weight: 1,
        });
        observed.transitions.push(NetTransition {
            id: fresh_id(net, "halt").into(),
            label: "halt".into(),
            pre,
            post: Default::default(),
            reads: Default::default(),
        });
        let halt = net.transitions.len() as TransIdx;
        Observed {
            original: net,
            net: observed,
            halt,
        }
    }
}

/// Whether `t` changes the marking of a watched place.
fn changes_watched(t: &NetTransition, watched: &[bool]) -> bool {
    let weight =
        |arcs: &[Arc], p: PlaceIdx| arcs.iter().find(|a| a.place == p).map_or(0, |a| a.weight);
    t.pre
        .iter()
        .chain(&t.post)
        .any(|a| watched[a.place as usize] && weight(&t.pre, a.place) != weight(&t.post, a.place))
}

/// An identifier starting with `stem` that no node of `net` has.
fn fresh_id(net: &Net, stem: &str) -> String {
    let taken = |id: &str| {
        net.places.iter().any(|p| p.id == id) || net.transitions.iter().any(|t| t.id == id)
    };
    let mut id = format!("__unfold_{stem}");
    while taken(&id) {
        id.push('_');
    }
    id
}

/// A state of the observed net as the goals see it: token counts of the net's places, and
/// fireability by the net's own arcs (the observed net's visible transitions also need `live`).
struct ObservedMarking<'a, 'n> {
    sys: &'a NetSystem<'n>,
    net: &'a Net,
    state: &'a [u64],
}

impl ObservedMarking<'_, '_> {
    fn arcs_hold(&self, arcs: &[Arc]) -> bool {
        arcs.iter()
            .all(|a| self.sys.tokens(self.state, a.place) >= u64::from(a.weight))
    }
}

impl Marking for ObservedMarking<'_, '_> {
    #[inline]
    fn tokens(&self, p: PlaceIdx) -> u64 {
        self.sys.tokens(self.state, p)
    }

    fn enabled(&self, t: TransIdx) -> bool {
        let t = &self.net.transitions[t as usize];
        self.arcs_hold(&t.pre) && self.arcs_hold(&t.reads)
    }

    fn dead(&self) -> bool {
        (0..self.net.transitions.len() as TransIdx).all(|t| !self.enabled(t))
    }
}

fn observe(
    sys: &NetSystem<'_>,
    observed: &Observed<'_>,
    targets: &[Predicate],
    bounds: &[BoundQuery],
    limits: &Limits,
    progress: &mut dyn FnMut(UdporProgress),
) -> Result<DporRun, Overflow> {
    let opts = UdporOptions {
        cutoffs: Some(Order::default()),
        ..UdporOptions::default()
    };
    let halt = observed.halt;
    let run_of = |visit: &Visit<'_>| -> Vec<TransIdx> {
        let mut run = visit.firing_sequence();
        run.retain(|&t| t != halt);
        run
    };
    let mut found: Vec<Option<Vec<TransIdx>>> = vec![None; targets.len()];
    let mut best: Vec<Option<(u64, Vec<TransIdx>)>> = vec![None; bounds.len()];
    let mut open_targets = targets.len();
    let mut open_bounds: Vec<bool> = vec![true; bounds.len()];
    let mut open_bound_count = bounds.len();
    let mut visited = 0u64;
    let mut watch = |visit: &Visit<'_>| {
        visited += 1;
        let m = ObservedMarking {
            sys,
            net: observed.original,
            state: visit.state(),
        };
        if open_targets > 0 {
            for (slot, target) in found.iter_mut().zip(targets) {
                if slot.is_none() && target.holds(&m) {
                    *slot = Some(run_of(visit));
                    open_targets -= 1;
                }
            }
        }
        for (k, q) in bounds.iter().enumerate() {
            let v = q.sum.value(&m);
            if best[k].as_ref().is_none_or(|(b, _)| v > *b) {
                best[k] = Some((v, run_of(visit)));
            }
            if open_bounds[k] && q.known_upper.is_some_and(|u| v >= u) {
                open_bounds[k] = false;
                open_bound_count -= 1;
            }
        }
        if open_targets == 0 && open_bound_count == 0 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let stats = udpor::explore_observed(sys, &opts, limits, progress, &mut watch)?;
    let complete = stats.complete();
    // A configuration cut by the depth bound leaves the run incomplete without a limit's
    // reason: it is the depth limit.
    let stopped = stats
        .stopped
        .or((!complete && !stats.halted).then_some(StopReason::DepthLimit));
    let searches = found
        .into_iter()
        .map(|slot| match slot {
            Some(run) => Search::Found(run),
            None if complete => Search::Absent,
            None => Search::Unknown(stopped),
        })
        .collect();
    let bounds = best
        .into_iter()
        .zip(bounds)
        .zip(&open_bounds)
        .map(|((best, q), &open)| {
            let (value, witness) = best.expect("the initial state is visited");
            let upper = if complete {
                Some(value)
            } else if !open {
                // A state reached the known upper bound, so the bound is exact.
                q.known_upper.map(|u| u.max(value))
            } else {
                q.known_upper
            };
            Bound {
                lower: value,
                witness: Some(witness),
                upper,
                stopped: if upper == Some(value) { None } else { stopped },
            }
        })
        .collect();
    Ok(DporRun {
        searches,
        bounds,
        visited,
        complete,
    })
}

/// Replays every witness on `net`; one that does not fire, or reaches a marking that does not
/// satisfy its target (or another value of its bound), is a bug: its answer becomes unknown.
fn replay_witnesses(net: &Net, targets: &[Predicate], bounds: &[BoundQuery], run: &mut DporRun) {
    let sys = NetSystem::new(net);
    let replay = |sys: &NetSystem<'_>, witness: &[TransIdx]| -> Option<Vec<u64>> {
        let mut state = vec![0; sys.state_words()];
        sys.initial_state(&mut state);
        for &t in witness {
            if !sys.is_enabled(&state, t) {
                return None;
            }
            sys.fire_in_place(&mut state, t).ok()?;
        }
        Some(state)
    };
    // Counters wide enough for any count the run reached: 64 bits.
    let mut wide = sys;
    while let Some(w) = wide.widened() {
        wide = w;
    }
    for (search, target) in run.searches.iter_mut().zip(targets) {
        if let Search::Found(witness) = search {
            let ok = replay(&wide, witness).is_some_and(|state| {
                target.holds(&crate::check::explicit::NetMarking {
                    sys: &wide,
                    state: &state,
                })
            });
            if !ok {
                *search = Search::Unknown(None);
            }
        }
    }
    for (bound, q) in run.bounds.iter_mut().zip(bounds) {
        if let Some(witness) = &bound.witness {
            let reached = replay(&wide, witness).map(|state| {
                q.sum.value(&crate::check::explicit::NetMarking {
                    sys: &wide,
                    state: &state,
                })
            });
            if reached != Some(bound.lower) {
                *bound = Bound::default();
            }
        }
    }
}
