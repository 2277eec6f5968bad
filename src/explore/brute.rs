//! The brute-force oracle (DESIGN §6.1): enumerate every maximal run of a small system,
//! reduce each to its Mazurkiewicz trace (Foata normal form under the dependence relation),
//! and count distinct traces (= maximal configurations of the unfolding) and distinct events
//! (= distinct pairs of a transition and the canonical trace of its causal past).
//!
//! It shares no code with the unfolding: only [`System::enabled`], [`System::fire`] and
//! [`System::dependent`]. Exponential by nature; meant for systems with a few transitions.

use rustc_hash::FxHashSet;

use super::limits::{Limits, StopReason};
use crate::system::{Overflow, System, Transition};

/// What the enumeration found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BruteStats {
    /// Maximal runs enumerated (interleavings).
    pub runs: u64,
    /// Distinct maximal traces.
    pub traces: u64,
    /// Distinct events.
    pub events: u64,
    /// Distinct deadlock states.
    pub deadlocks: u64,
    /// Why the run stopped early, if it did (runs longer than the bound, or a limit).
    pub stopped: Option<StopReason>,
}

/// A Foata normal form: levels of transitions, each level sorted.
type Foata = Vec<Vec<Transition>>;

/// The Foata normal form of `run` restricted to the positions in `keep` (all when `None`).
fn foata<S: System + ?Sized>(sys: &S, run: &[Transition], keep: Option<&[bool]>) -> Foata {
    let mut level = vec![0usize; run.len()];
    let mut levels: Foata = Vec::new();
    for i in 0..run.len() {
        if keep.is_some_and(|k| !k[i]) {
            continue;
        }
        let mut l = 0;
        for j in 0..i {
            if keep.is_none_or(|k| k[j]) && sys.dependent(run[j], run[i]) {
                l = l.max(level[j] + 1);
            }
        }
        level[i] = l;
        if levels.len() <= l {
            levels.resize(l + 1, Vec::new());
        }
        levels[l].push(run[i]);
    }
    for lv in &mut levels {
        lv.sort_unstable();
    }
    levels
}

/// Everything the enumeration collects.
struct Search<'a, S: System + ?Sized> {
    sys: &'a S,
    max_len: usize,
    limits: &'a Limits,
    stats: BruteStats,
    traces: FxHashSet<Foata>,
    events: FxHashSet<(Transition, Foata)>,
    deadlocks: FxHashSet<Vec<u64>>,
    run: Vec<Transition>,
    visits: u64,
}

impl<S: System + ?Sized> Search<'_, S> {
    fn dfs(&mut self, state: &[u64]) -> Result<(), Overflow> {
        self.visits += 1;
        if self.visits.is_multiple_of(4096)
            && let Err(r) = self.limits.check_time()
        {
            self.stats.stopped = Some(r);
        }
        if self.stats.stopped.is_some() {
            return Ok(());
        }
        let mut en = Vec::new();
        self.sys.enabled(state, &mut en);
        if en.is_empty() {
            self.stats.runs += 1;
            record(self.sys, &self.run, &mut self.traces, &mut self.events);
            if !self.sys.is_terminal(state) {
                self.deadlocks.insert(state.to_vec());
            }
            return Ok(());
        }
        if self.run.len() >= self.max_len {
            self.stats.stopped = Some(StopReason::DepthLimit);
            return Ok(());
        }
        let mut next = vec![0u64; state.len()];
        for t in en {
            self.sys.fire(state, t, &mut next)?;
            self.run.push(t);
            self.dfs(&next.clone())?;
            self.run.pop();
        }
        Ok(())
    }
}

/// Enumerates every maximal run of `sys` up to `max_len` transitions (recursion depth is
/// `max_len`: keep it small).
pub fn enumerate<S: System + ?Sized>(
    sys: &S,
    max_len: usize,
    limits: &Limits,
) -> Result<BruteStats, Overflow> {
    let mut initial = vec![0u64; sys.state_words()];
    sys.initial_state(&mut initial);
    let mut search = Search {
        sys,
        max_len,
        limits,
        stats: BruteStats::default(),
        traces: FxHashSet::default(),
        events: FxHashSet::default(),
        deadlocks: FxHashSet::default(),
        run: Vec::new(),
        visits: 0,
    };
    search.dfs(&initial)?;
    let mut stats = search.stats;
    stats.traces = search.traces.len() as u64;
    stats.events = search.events.len() as u64;
    stats.deadlocks = search.deadlocks.len() as u64;
    Ok(stats)
}

/// Records the trace of a maximal run and the events along it.
fn record<S: System + ?Sized>(
    sys: &S,
    run: &[Transition],
    traces: &mut FxHashSet<Foata>,
    events: &mut FxHashSet<(Transition, Foata)>,
) {
    traces.insert(foata(sys, run, None));
    // past[i][j]: position j is in the causal past of position i.
    let n = run.len();
    let mut past = vec![vec![false; n]; n];
    for i in 0..n {
        for j in (0..i).rev() {
            if past[i][j] {
                continue;
            }
            if sys.dependent(run[j], run[i]) {
                past[i][j] = true;
                let (before, rest) = past.split_at_mut(i);
                for (mine, &theirs) in rest[0].iter_mut().zip(&before[j][..j]) {
                    *mine |= theirs;
                }
            }
        }
        events.insert((run[i], foata(sys, run, Some(&past[i]))));
    }
}
