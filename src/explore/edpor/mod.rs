//! Event-DPOR (Abdulla, Atig, Bønneland, Das, Jonsson, Lång, Sagonas, ATVA 2023): stateless
//! model checking of programs with threads and handler threads, exploring one execution per
//! equivalence class (same events, same happens-before, DESIGN §4).
//!
//! It is Optimal-DPOR (Abdulla, Aronis, Jonsson, Sagonas, POPL 2014): a depth-first
//! exploration with sleep sets and wakeup trees, where races between events adjacent in
//! happens-before are reversed by inserting wakeup sequences, extended for events:
//!
//! - **Messages are pseudo-threads** ([`processes`]): each posted message instance is a process;
//!   its handler only forbids two of its messages to overlap. Happens-before ([`hb`]) has no
//!   edge for the handler order, only the serialisation closure.
//! - **Message races** ([`races`]): two messages of one handler with conflicting events are
//!   reordered by branching *before the first one starts*; the wakeup sequence is the events
//!   not after it, then the second message up to and including its first conflicting event.
//!   A wakeup sequence has at most one unfinished message per handler, placed last ([`lin`]).
//!   Besides Optimal-DPOR's races: races between `lock`s with the lock orderings left out
//!   (reversing one acquisition may need reversing others), races of the steps left pending
//!   at the end of an execution (a `lock` whose lock is held, a message whose handler stays
//!   busy), and of messages that keep their handler for good.
//! - **Sleeping messages** ([`sleep`]): a message explored first after a prefix sleeps until
//!   something conflicts with its first step; once another message of its handler starts, it
//!   is parked: whether running it later is redundant depends on all of its steps, so it may
//!   run, and is settled exactly as soon as it ends (later steps cannot order it any more).
//! - **`done`**: each explored child that starts a message keeps the sequences of statements
//!   the message ran in the executions below it (its access sequences).
//! - **Redundancy checks**: a candidate is redundant when a process explored first after one of
//!   its prefixes could start the rest of it. Cheap tests first: the process's next event must
//!   have no predecessor in the rest (vector clocks), and a message's access sequence must be
//!   among its `done` sequences; then the exact test, a search for a handler-respecting
//!   reordering that starts with it ([`lin::first`]; NP-hard in general, memoised).
//! - **Wakeup sequences are completed before insertion**: race detection runs on whole
//!   executions, and each wakeup sequence is extended to a maximal execution that no explored
//!   child makes redundant (processes not asleep, in the order of the execution that showed
//!   the race, parked messages last; backtracking over the choices when a parked message
//!   makes a completion redundant), so its place in the wakeup tree is known. A sequence whose completion is not
//!   decided within [`EdporOptions::search_budget`] is **parked** as a partial leaf: its
//!   branch runs freely and the execution it reaches is checked exactly at the end. Anything
//!   found redundant then is counted as *blocked*: possibly wasted work, never a missed class.
//!
//! Without handlers this is Optimal-DPOR, and the number of executions equals the number of
//! Mazurkiewicz traces (the unfolding DPOR's maximal configurations).

pub mod hb;
pub mod lin;
pub mod processes;
pub mod races;
pub mod sleep;
pub mod wut;

mod explorer;

use crate::explore::limits::{Limits, StopReason};
use crate::model::program_system::ProgramSystem;
use crate::system::{Overflow, Transition};

/// Options of the exploration.
#[derive(Clone, Debug)]
pub struct EdporOptions {
    /// Steps a completion search may take before its wakeup sequence is parked.
    pub search_budget: u64,
    /// Keep every execution explored in [`EdporStats::explored`] (for tests and debugging).
    pub record: bool,
    /// Stop after this many executions (explored plus blocked): a bound on the work that
    /// gives the same run on every machine, unlike a timeout.
    pub max_executions: Option<u64>,
}

impl Default for EdporOptions {
    fn default() -> Self {
        EdporOptions {
            search_budget: 100_000,
            record: false,
            max_executions: None,
        }
    }
}

/// What the exploration found.
#[derive(Clone, Debug, Default)]
pub struct EdporStats {
    /// Executions explored (one per equivalence class when complete).
    pub executions: u64,
    /// Executions found redundant at their end (or stuck with every process asleep).
    pub blocked: u64,
    /// Explored executions ending with an assertion failure.
    pub assertion_failures: u64,
    /// Explored executions ending in a deadlock (no step enabled, some process unfinished).
    pub deadlocks: u64,
    /// The first failing execution (its transitions).
    pub assertion_witness: Option<Vec<Transition>>,
    /// The first deadlocking execution.
    pub deadlock_witness: Option<Vec<Transition>>,
    /// Race reversals considered.
    pub races: u64,
    /// Wakeup sequences inserted.
    pub wakeup_inserted: u64,
    /// Completions found redundant because of a parked message, then searched further.
    pub completion_retries: u64,
    /// Wakeup sequences parked (completion undecided).
    pub parked: u64,
    /// Steps taken by completion searches.
    pub completion_steps: u64,
    /// Wakeup sequences all of whose completions proved redundant (after a search).
    pub completions_exhausted: u64,
    /// The longest execution.
    pub max_depth: u64,
    /// Steps of all executions (explored and blocked) added up: with their number, the mean
    /// length.
    pub total_steps: u64,
    /// The most wakeup-tree nodes held at once.
    pub peak_tree_nodes: u64,
    /// Why the run stopped early, if it did.
    pub stopped: Option<StopReason>,
    /// With [`EdporOptions::record`]: every execution explored, and whether it was blocked.
    pub explored: Vec<(Vec<Transition>, bool)>,
}

impl EdporStats {
    /// Whether every class was explored.
    pub fn complete(&self) -> bool {
        self.stopped.is_none()
    }

    /// The mean length of the executions run (explored and blocked); 0 before the first.
    pub fn mean_length(&self) -> f64 {
        let runs = self.executions + self.blocked;
        if runs == 0 {
            0.0
        } else {
            self.total_steps as f64 / runs as f64
        }
    }
}

/// Progress of a running exploration.
#[derive(Clone, Copy, Debug)]
pub struct EdporProgress {
    /// Executions so far.
    pub executions: u64,
    /// Blocked executions so far.
    pub blocked: u64,
    /// Length of the execution just finished.
    pub depth: usize,
}

/// Explores `sys` with Event-DPOR.
pub fn explore(
    sys: &ProgramSystem,
    opts: &EdporOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(EdporProgress),
) -> Result<EdporStats, Overflow> {
    let procs = processes::Processes::new(sys);
    let mut ex = explorer::Explorer::new(&procs, opts.clone(), limits);
    ex.run(progress)?;
    Ok(ex.stats)
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Builds executions of small programs for the unit tests.

    use super::processes::{Ev, Processes, Step};
    use crate::formats::tsys;
    use crate::model::program_system::ProgramSystem;
    use crate::system::System;

    /// The program's system.
    pub fn system(text: &str) -> ProgramSystem {
        ProgramSystem::new(&tsys::parse_str(text).unwrap()).unwrap()
    }

    /// Runs the processes named in `order`, one step each, from the initial state.
    pub fn run(procs: &Processes, order: &[&str]) -> Vec<Step> {
        let sys = procs.sys;
        let mut state = vec![0u64; sys.state_words()];
        sys.initial_state(&mut state);
        let mut next = state.clone();
        let mut counts = vec![0u32; procs.count()];
        let mut steps = Vec::new();
        for name in order {
            let inst = sys
                .instances()
                .iter()
                .position(|i| i.name == *name)
                .unwrap_or_else(|| panic!("no process {name}")) as u32;
            let label = procs
                .enabled_of(&state, inst)
                .unwrap_or_else(|| panic!("{name} is not enabled"));
            let ends = procs.fire(&state, inst, label, &mut next).unwrap();
            std::mem::swap(&mut state, &mut next);
            steps.push(Step {
                ev: Ev {
                    inst,
                    idx: counts[inst as usize],
                    label,
                },
                ends,
            });
            counts[inst as usize] += 1;
        }
        steps
    }
}
