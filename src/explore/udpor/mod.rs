//! The stateless unfolding-based DPOR (Rodríguez, Sousa, Sharma, Kroening, CONCUR 2015,
//! Alg. 1): an optimal exploration of the maximal configurations of the unfolding of any
//! [`System`].
//!
//! ```text
//! Explore(C, D, A):
//!   Extend(C)
//!   if en(C) = ∅: C is maximal; return
//!   e := an event of en(C) ∩ A if A ≠ ∅, else an event of en(C) \ D
//!   Explore(C ∪ {e}, D, A \ {e})
//!   if some J ∈ Alt(C, D ∪ {e}): Explore(C, D ∪ {e}, J \ C)
//! ```
//!
//! The recursion runs on an explicit stack of frames, so configurations thousands of events
//! deep do not overflow the call stack. `Extend` is incremental: when `e` joins `C`, the only
//! new extensions are the events whose history contains `e`; they are enumerated from the
//! slot chains of `C` (see [`crate::unfolding::event`]). `en(C)` is kept per depth.
//!
//! Alternatives are computed exactly by default, the "comb" way: every event of `D` that no
//! event of `C` conflicts with (an *unjustified* one) needs an event of `U` in immediate
//! conflict with it (its *spike*), the picks pairwise conflict-free and conflict-free with
//! `C`; `J` is the union of their local configurations. `alt_k` restricts the comb to the last
//! `k` unjustified events (k-partial alternatives, QPOR, CAV 2018): polynomial, complete, but
//! some runs may end blocked, and those are counted.
//!
//! Cutoffs (optional): an event whose state an earlier event reached with a smaller local
//! configuration (McMillan's size order or the total ERV order) is recorded but never enters
//! `U`: never extended, picked, or part of an alternative.
//!
//! `Remove` and the garbage set `G`: the store holds `U` (what `Q(C, D, U)` of the paper needs:
//! `C`, `D`, the events in immediate conflict with them, the pending alternatives and their
//! histories) and, beside it, every other event built so far as a cache, so that `Extend` finds
//! an event again with the same identity instead of rebuilding it. Past three quarters of the
//! memory limit the cache is evicted least recently used first; with [`Cache::Off`] it is
//! emptied at every `Remove`. Alternatives are searched among all stored events: any event of
//! the unfolding makes a valid alternative, and those of `G` only add choices.
//!
//! The immediate conflicts of an event (its spike candidates) are memoised and extended as new
//! siblings appear; a candidate found in conflict with a prefix of `C` is not tested again
//! while that prefix stays, since failed alternative searches test the same candidates over
//! and over as `C` grows.
//!
//! The enumeration of new extensions keeps the choice of positions on the slot chains of `C`
//! consistent as it goes, and tests the transition's guard on a resource as soon as the slot
//! that fixes the resource's value is chosen; candidate histories are still exponential in the
//! worst case, and the limits are checked inside the enumeration.
//!
//! The module is split along the procedures of the paper; every part borrows the one state,
//! `Explorer`, in `explorer`:
//!
//! - `explore_loop`: Explore(C, D, A), the loop and its frames;
//! - `extend`: Extend, `en(C ∪ {e})` as `e` joins `C`, with `dependents` (the transitions an
//!   event may extend into), `guards` (guards decided by one slot) and `history_search` (the
//!   histories through `e`);
//! - `alternatives`: Alt, the comb and its k-partial variant, with `immediate_conflicts` (the
//!   spikes) and `disabled` (the set `D`);
//! - `cache`: Remove and the cache `G`, and the samples of `|U|` and `|G|`;
//! - `cutoffs`: the cutoff verdict of a new event;
//! - `enabled`: `en(C)` for every prefix of `C`;
//! - `options` and `outcome`: what goes in and what comes out;
//! - `observe`: what an observer of the exploration sees ([`explore_observed`]).

mod alternatives;
mod cache;
mod cutoffs;
mod dependents;
mod disabled;
mod enabled;
mod explore_loop;
mod explorer;
mod extend;
mod guards;
mod history_search;
mod immediate_conflicts;
mod observe;
mod options;
mod outcome;

use self::explorer::Explorer;
pub use self::observe::Visit;
pub use self::options::{Cache, ClassBitsets, Pick, UdporOptions};
pub use self::outcome::{ExploredEvent, UdporOutcome, UdporProgress, UdporStats};
use super::limits::Limits;
use crate::system::{Overflow, System};
use std::ops::ControlFlow;

/// What watches an exploration: called at every configuration visited (see [`Visit`]);
/// `Break` stops the exploration (its statistics then say `halted`).
pub type Observer<'o> = &'o mut dyn FnMut(&Visit<'_>) -> ControlFlow<()>;

/// Explores every maximal configuration of the unfolding of `sys`.
pub fn explore<S: System + ?Sized>(
    sys: &S,
    opts: &UdporOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(UdporProgress),
) -> Result<UdporStats, Overflow> {
    Ok(explore_with_events(sys, opts, limits, progress, None)?.stats)
}

/// Like [`explore`], and also returns the explored events when `with_events` is `Some(n)`; their
/// immediate conflicts too when there are at most `n` events (a picture's size limit: finding
/// them costs the square of the number of siblings of an event, too much on large runs).
pub fn explore_with_events<S: System + ?Sized>(
    sys: &S,
    opts: &UdporOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(UdporProgress),
    with_events: Option<usize>,
) -> Result<UdporOutcome, Overflow> {
    explore_inner(sys, opts, limits, progress, with_events, None)
}

/// Like [`explore`], with `observer` shown every configuration visited (the initial one first,
/// then one per event added, see [`Visit`]), which may stop the exploration.
pub fn explore_observed<S: System + ?Sized>(
    sys: &S,
    opts: &UdporOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(UdporProgress),
    observer: Observer<'_>,
) -> Result<UdporStats, Overflow> {
    Ok(explore_inner(sys, opts, limits, progress, None, Some(observer))?.stats)
}

fn explore_inner<S: System + ?Sized>(
    sys: &S,
    opts: &UdporOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(UdporProgress),
    with_events: Option<usize>,
    observer: Option<Observer<'_>>,
) -> Result<UdporOutcome, Overflow> {
    let start = std::time::Instant::now();
    let mut x = Explorer::new(sys, opts.clone());
    x.limits = limits.clone();
    x.record_conflicts = with_events;
    x.run(limits, progress, observer)?;
    if x.first_descent {
        // Stopped before the first pop (or a single descent): U is every event stored.
        x.note_u_of_first_descent();
    }
    // The last sample walks everything stored: after a limit struck, stop promptly instead
    // (the peaks are those of the samples taken during the run).
    if x.stats.stopped.is_none() {
        x.sample_u_and_g(&[]);
    }
    x.stats.events = x.log.len() as u64 - 1;
    x.stats.store_bytes = x.store.bytes();
    x.stats.flat_cones = x.store.cones_are_flat();
    x.stats.slots = x.store.slots().count() as u64;
    x.stats.token_slots = x.store.slots().token_count() as u64;
    x.stats.assembled_histories = x.store.assembles_histories();
    x.stats.peak_bytes = x.stats.peak_bytes.max(x.accounted_bytes());
    x.stats.explore_seconds = start.elapsed().as_secs_f64();
    if opts.record_states {
        x.stats.deadlock_states = Some(x.deadlock_states.states(x.store.state_blocks()).collect());
    }
    let (events, conflicts) = if let Some(cap) = with_events {
        x.explored_events(cap)
    } else {
        (Vec::new(), Vec::new())
    };
    let stats = std::mem::take(&mut x.stats);
    if !opts.release_memory {
        std::mem::forget(x);
    }
    Ok(UdporOutcome {
        stats,
        events,
        conflicts,
    })
}
