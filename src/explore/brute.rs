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
    /// Distinct maximal traces ending with a failed assertion
    /// ([`System::failed_assertion`]).
    pub assertion_failures: u64,
    /// The first maximal run found ending with a failed assertion.
    pub assertion_witness: Option<Vec<Transition>>,
    /// Why the run stopped early, if it did (runs longer than the bound, or a limit).
    pub stopped: Option<StopReason>,
}

/// Options of [`explore`].
#[derive(Clone, Copy, Debug)]
pub struct BruteOptions {
    /// The longest run enumerated: a run that reaches it is cut there, and the enumeration
    /// stops ([`StopReason::DepthLimit`]).
    pub max_len: usize,
}

/// Progress of a running enumeration, for progress displays.
#[derive(Clone, Copy, Debug)]
pub struct BruteProgress {
    /// Maximal runs enumerated so far.
    pub runs: u64,
    /// Distinct maximal traces so far.
    pub traces: u64,
    /// States visited (one per step of every run).
    pub visits: u64,
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
    progress: &'a mut dyn FnMut(BruteProgress),
    stats: BruteStats,
    traces: FxHashSet<Foata>,
    events: FxHashSet<(Transition, Foata)>,
    deadlocks: FxHashSet<Vec<u64>>,
    run: Vec<Transition>,
    visits: u64,
    /// Heap bytes of the traces, events and states recorded (the tables not included).
    key_bytes: u64,
    /// Bytes of the search stack (a state per step of the current run).
    stack_bytes: u64,
}

/// Heap bytes of a Foata normal form (allocated capacity, a word of allocator overhead per
/// block).
fn foata_bytes(f: &Foata) -> u64 {
    (f.capacity() * std::mem::size_of::<Vec<Transition>>()
        + f.iter().map(|l| l.capacity() * 4 + 16).sum::<usize>()
        + 16) as u64
}

/// Bytes of a hash set's table of `capacity` entries of `T` (one control byte each).
fn table_bytes<T>(capacity: usize) -> u64 {
    (capacity * (std::mem::size_of::<T>() + 1)) as u64
}

/// A state of the depth-first search with successors left to try.
struct Frame {
    state: Vec<u64>,
    enabled: Vec<Transition>,
    next: usize,
    /// Whether a transition was pushed onto the run to get here (all but the root).
    entered: bool,
}

impl<S: System + ?Sized> Search<'_, S> {
    /// Depth-first search from `initial`, on an explicit stack (runs as long as `max_len` do
    /// not overflow the call stack).
    fn search(&mut self, initial: &[u64]) -> Result<(), Overflow> {
        let mut stack: Vec<Frame> = Vec::new();
        let frame_bytes = |f: &Frame| {
            (std::mem::size_of::<Frame>() + f.state.capacity() * 8 + f.enabled.capacity() * 4)
                as u64
        };
        let mut pending = Some((initial.to_vec(), false));
        loop {
            if let Some((state, entered)) = pending.take() {
                match self.visit(state, entered) {
                    Some(frame) => {
                        self.stack_bytes += frame_bytes(&frame);
                        // Long runs hold a state per step: the stack counts too.
                        if let Err(r) = self
                            .limits
                            .check_memory(self.held_bytes() + self.stack_bytes)
                        {
                            self.stats.stopped = Some(r);
                        }
                        stack.push(frame);
                    }
                    None if entered => {
                        self.run.pop();
                    }
                    None => {}
                }
                if self.stats.stopped.is_some() {
                    return Ok(());
                }
            }
            let Some(top) = stack.last_mut() else {
                return Ok(());
            };
            if top.next == top.enabled.len() {
                if top.entered {
                    self.run.pop();
                }
                self.stack_bytes -= frame_bytes(top);
                stack.pop();
                continue;
            }
            let t = top.enabled[top.next];
            top.next += 1;
            let mut next = vec![0u64; top.state.len()];
            self.sys.fire(&top.state, t, &mut next)?;
            self.run.push(t);
            pending = Some((next, true));
        }
    }

    /// Visits `state` (reached by `self.run`): records it when maximal, else returns its frame.
    fn visit(&mut self, state: Vec<u64>, entered: bool) -> Option<Frame> {
        self.visits += 1;
        if self.visits.is_multiple_of(4096) {
            if let Err(r) = self.limits.check_time() {
                self.stats.stopped = Some(r);
            }
            (self.progress)(BruteProgress {
                runs: self.stats.runs,
                traces: self.traces.len() as u64,
                visits: self.visits,
            });
        }
        if self.stats.stopped.is_some() {
            return None;
        }
        let mut enabled = Vec::new();
        self.sys.enabled(&state, &mut enabled);
        if enabled.is_empty() {
            self.stats.runs += 1;
            // The sets double when full: see that the larger tables fit before recording.
            if let Err(r) = self.limits.check_memory(self.bytes_after_growth()) {
                self.stats.stopped = Some(r);
                return None;
            }
            match record(
                self.sys,
                &self.run,
                &mut self.traces,
                &mut self.events,
                self.limits,
            ) {
                Ok((bytes, new_trace)) => {
                    self.key_bytes += bytes;
                    // (Every run of a trace reaches the same state: count the trace once.)
                    if new_trace && self.sys.failed_assertion(&state).is_some() {
                        self.stats.assertion_failures += 1;
                        if self.stats.assertion_witness.is_none() {
                            self.stats.assertion_witness = Some(self.run.clone());
                        }
                    }
                }
                Err(r) => {
                    self.stats.stopped = Some(r);
                    return None;
                }
            }
            if !self.sys.is_terminal(&state) && self.deadlocks.insert(state.clone()) {
                self.key_bytes += (state.len() * 8 + 16) as u64;
            }
            return None;
        }
        if self.run.len() >= self.max_len {
            self.stats.stopped = Some(StopReason::DepthLimit);
            return None;
        }
        Some(Frame {
            state,
            enabled,
            next: 0,
            entered,
        })
    }
}

impl<S: System + ?Sized> Search<'_, S> {
    /// The bytes held by the recorded sets.
    fn held_bytes(&self) -> u64 {
        self.key_bytes
            + table_bytes::<Foata>(self.traces.capacity())
            + table_bytes::<(Transition, Foata)>(self.events.capacity())
            + table_bytes::<Vec<u64>>(self.deadlocks.capacity())
    }

    /// The bytes held once the current run is recorded: a full set doubles its table on the
    /// next insertion, and `record` builds a matrix of the causal pasts.
    fn bytes_after_growth(&self) -> u64 {
        fn table<T>(set: &FxHashSet<T>, extra: usize) -> u64 {
            let cap = if set.len() + extra > set.capacity() {
                (set.len() + extra).next_power_of_two() * 2
            } else {
                set.capacity()
            };
            table_bytes::<T>(cap)
        }
        // One run adds a trace, up to `run.len()` events and a state; each key about as large
        // as the run's trace.
        let n = self.run.len() as u64;
        let run_bytes = (n + 2) * (n * 4 + 64);
        // `record` also builds an n × n matrix of the causal pasts.
        let past = n * (n + 24);
        self.stack_bytes
            + self.key_bytes
            + run_bytes
            + past
            + table(&self.traces, 1)
            + table(&self.events, self.run.len())
            + table(&self.deadlocks, 1)
    }
}

/// Enumerates every maximal run of `sys` up to `options.max_len` transitions.
pub fn explore<S: System + ?Sized>(
    sys: &S,
    options: &BruteOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(BruteProgress),
) -> Result<BruteStats, Overflow> {
    let mut initial = vec![0u64; sys.state_words()];
    sys.initial_state(&mut initial);
    let mut search = Search {
        sys,
        max_len: options.max_len,
        limits,
        progress,
        stats: BruteStats::default(),
        traces: FxHashSet::default(),
        events: FxHashSet::default(),
        deadlocks: FxHashSet::default(),
        run: Vec::new(),
        visits: 0,
        key_bytes: 0,
        stack_bytes: 0,
    };
    search.search(&initial)?;
    let mut stats = search.stats;
    stats.traces = search.traces.len() as u64;
    stats.events = search.events.len() as u64;
    stats.deadlocks = search.deadlocks.len() as u64;
    Ok(stats)
}

/// Records the trace of a maximal run and the events along it; returns the heap bytes of the
/// new entries and whether the trace is new. Long runs take a while (cubic in their length): the limits are checked per
/// event.
fn record<S: System + ?Sized>(
    sys: &S,
    run: &[Transition],
    traces: &mut FxHashSet<Foata>,
    events: &mut FxHashSet<(Transition, Foata)>,
    limits: &Limits,
) -> Result<(u64, bool), StopReason> {
    limits.check_time()?;
    let mut bytes = 0;
    let trace = foata(sys, run, None);
    let size = foata_bytes(&trace);
    let new_trace = traces.insert(trace);
    if new_trace {
        bytes += size;
    }
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
        limits.check_time()?;
        let event = foata(sys, run, Some(&past[i]));
        let size = foata_bytes(&event);
        if events.insert((run[i], event)) {
            bytes += size;
        }
    }
    Ok((bytes, new_trace))
}
