//! The brute-force oracle for programs (DESIGN §4, §6): enumerate every maximal execution of a
//! small program and group them by happens-before trace, the equivalence Event-DPOR explores
//! one execution of.
//!
//! An execution's trace is its set of events (an event is the `n`-th step of a thread or
//! message instance, with the statement it runs) with the happens-before relation: the
//! transitive closure of program order, a post before the first step of its message,
//! conflicting accesses of different instances in execution order (footprints without the
//! handler resources: the handler order adds nothing), and the serialisation closure (messages
//! `m` before `m'` on one handler with some step of `m` before some step of `m'`: the last step
//! of `m` before the first of `m'`, to a fixpoint).
//!
//! Shares no code with the explorer: a depth-first search over [`System::enabled`] and
//! [`System::fire`], and a reachability matrix per execution. Exponential; small programs only.

use rustc_hash::FxHashMap;

use super::brute::{BruteOptions, BruteProgress};
use super::limits::{Limits, StopReason};
use crate::model::program_system::{InstanceId, ProgramSystem};
use crate::system::{Overflow, System, Touch, Transition, footprints_conflict};

/// What the enumeration found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramClasses {
    /// Maximal executions enumerated.
    pub runs: u64,
    /// Distinct happens-before traces.
    pub classes: u64,
    /// Traces whose final state is a deadlock.
    pub deadlocks: u64,
    /// Traces whose final state has a failed assertion.
    pub assertion_failures: u64,
    /// Why it stopped early, if it did.
    pub stopped: Option<StopReason>,
}

/// A happens-before trace: per event (instance, index, statement, its predecessors as
/// (instance, index)), sorted.
pub type Trace = Vec<(InstanceId, u32, Transition, Vec<(InstanceId, u32)>)>;

struct Search<'a> {
    sys: &'a ProgramSystem,
    fp: Vec<Vec<Touch>>,
    handler_of: Vec<Option<u32>>,
    max_len: usize,
    limits: &'a Limits,
    progress: &'a mut dyn FnMut(BruteProgress),
    run: Vec<Transition>,
    classes: FxHashMap<Trace, (bool, bool, Vec<u64>, Vec<Transition>)>,
    stats: ProgramClasses,
    visits: u64,
}

impl Search<'_> {
    fn dfs(&mut self, state: &[u64]) -> Result<(), Overflow> {
        self.visits += 1;
        if self.visits.is_multiple_of(4096) {
            if let Err(r) = self.limits.check_time() {
                self.stats.stopped = Some(r);
            }
            (self.progress)(BruteProgress {
                runs: self.stats.runs,
                traces: self.classes.len() as u64,
                visits: self.visits,
            });
        }
        if self.stats.stopped.is_some() {
            return Ok(());
        }
        let mut en = Vec::new();
        self.sys.enabled(state, &mut en);
        if en.is_empty() {
            self.stats.runs += 1;
            let trace = trace_of(self.sys, &self.fp, &self.handler_of, &self.run);
            let deadlock = self.sys.is_deadlock(state);
            let failed = self.sys.assertion_failed(state);
            let entry = self
                .classes
                .entry(trace)
                .or_insert_with(|| (deadlock, failed, state.to_vec(), self.run.clone()));
            assert_eq!(
                entry.2, state,
                "two executions with one trace end in different states"
            );
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

/// The happens-before trace of `run`.
fn trace_of(
    sys: &ProgramSystem,
    fp: &[Vec<Touch>],
    handler_of: &[Option<u32>],
    run: &[Transition],
) -> Trace {
    {
        let n = run.len();
        let inst: Vec<InstanceId> = run.iter().map(|&t| sys.transition_instance(t)).collect();
        let mut count = vec![0u32; handler_of.len()];
        let idx: Vec<u32> = inst
            .iter()
            .map(|&i| {
                count[i as usize] += 1;
                count[i as usize] - 1
            })
            .collect();
        // Direct edges: program order (same instance) and conflicts; closure edges added below.
        let mut edge = vec![vec![false; n]; n];
        for i in 0..n {
            for j in 0..i {
                edge[j][i] = inst[i] == inst[j]
                    || footprints_conflict(&fp[run[j] as usize], &fp[run[i] as usize]);
            }
        }
        loop {
            // reach[i][j]: j happens before i (j < i).
            let mut reach = vec![vec![false; n]; n];
            for i in 0..n {
                for j in 0..i {
                    if edge[j][i] {
                        reach[i][j] = true;
                        let (lo, hi) = reach.split_at_mut(i);
                        for (r, &x) in hi[0].iter_mut().zip(&lo[j]) {
                            *r |= x;
                        }
                    }
                }
            }
            // Messages per handler, in the order they started: (first, last, instance).
            let mut spans: FxHashMap<InstanceId, (usize, usize)> = FxHashMap::default();
            for (p, &i) in inst.iter().enumerate() {
                if handler_of[i as usize].is_some() {
                    spans.entry(i).and_modify(|s| s.1 = p).or_insert((p, p));
                }
            }
            let mut changed = false;
            for (&m0, &(f0, l0)) in &spans {
                for (&m1, &(f1, l1)) in &spans {
                    if m0 == m1 || f0 > f1 || handler_of[m0 as usize] != handler_of[m1 as usize] {
                        continue;
                    }
                    let related = (f1..=l1)
                        .any(|y| inst[y] == m1 && (f0..=l0).any(|x| inst[x] == m0 && reach[y][x]));
                    if related && !edge[l0][f1] {
                        edge[l0][f1] = true;
                        changed = true;
                    }
                }
            }
            if !changed {
                let mut trace: Trace = (0..n)
                    .map(|i| {
                        let mut preds: Vec<(InstanceId, u32)> = (0..i)
                            .filter(|&j| reach[i][j])
                            .map(|j| (inst[j], idx[j]))
                            .collect();
                        preds.sort_unstable();
                        (inst[i], idx[i], run[i], preds)
                    })
                    .collect();
                trace.sort_unstable();
                return trace;
            }
        }
    }
}

/// The oracle's view of a program: footprints without handler resources, and the handler of
/// each instance.
fn oracle_view(sys: &ProgramSystem) -> (Vec<Vec<Touch>>, Vec<Option<u32>>) {
    let fp = (0..sys.transition_count() as Transition)
        .map(|t| sys.footprint_without_handlers(t))
        .collect();
    let handler_of = (0..sys.instances().len() as InstanceId)
        .map(|i| sys.handler_of(i))
        .collect();
    (fp, handler_of)
}

/// The happens-before trace of `run`, an execution of `sys`.
pub fn trace(sys: &ProgramSystem, run: &[Transition]) -> Trace {
    let (fp, handler_of) = oracle_view(sys);
    trace_of(sys, &fp, &handler_of, run)
}

/// One class found by [`explore_classes`].
#[derive(Clone, Debug)]
pub struct Class {
    /// Whether its executions end in a deadlock.
    pub deadlock: bool,
    /// Whether they end with a failed assertion.
    pub assertion_failed: bool,
    /// One of its executions.
    pub run: Vec<Transition>,
}

/// Enumerates every maximal execution of `sys` up to `options.max_len` steps and counts the
/// happens-before traces (recursion depth is `max_len`: keep it small).
pub fn explore(
    sys: &ProgramSystem,
    options: &BruteOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(BruteProgress),
) -> Result<ProgramClasses, Overflow> {
    Ok(explore_classes(sys, options, limits, progress)?.0)
}

/// Like [`explore`], with every class by its trace.
pub fn explore_classes(
    sys: &ProgramSystem,
    options: &BruteOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(BruteProgress),
) -> Result<(ProgramClasses, FxHashMap<Trace, Class>), Overflow> {
    let (fp, handler_of) = oracle_view(sys);
    let mut initial = vec![0u64; sys.state_words()];
    sys.initial_state(&mut initial);
    let mut search = Search {
        sys,
        fp,
        handler_of,
        max_len: options.max_len,
        limits,
        progress,
        run: Vec::new(),
        classes: FxHashMap::default(),
        stats: ProgramClasses::default(),
        visits: 0,
    };
    search.dfs(&initial)?;
    let mut stats = search.stats;
    stats.classes = search.classes.len() as u64;
    stats.deadlocks = search.classes.values().filter(|c| c.0).count() as u64;
    stats.assertion_failures = search.classes.values().filter(|c| c.1).count() as u64;
    let classes = search
        .classes
        .into_iter()
        .map(|(t, (deadlock, assertion_failed, _, run))| {
            (
                t,
                Class {
                    deadlock,
                    assertion_failed,
                    run,
                },
            )
        })
        .collect();
    Ok((stats, classes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::tsys;

    fn count(text: &str) -> ProgramClasses {
        let sys = ProgramSystem::new(&tsys::parse_str(text).unwrap()).unwrap();
        explore(
            &sys,
            &BruteOptions { max_len: 100 },
            &Limits::default(),
            &mut |_| {},
        )
        .unwrap()
    }

    #[test]
    fn known_counts() {
        // n independent pairs of racing writers: 2^n classes.
        let c = count(
            "var x, y; thread a { x = 1; } thread b { x = 2; } thread c { y = 1; } \
             thread d { y = 2; }",
        );
        assert_eq!((c.runs, c.classes), (24, 4));
        // Two messages of one handler on different data: one class, two runs.
        let c = count(
            "var x, y; handler h; message p { x = 1; } message q { y = 1; }\n\
             thread s { post h p; } thread t { post h q; }",
        );
        assert_eq!(c.classes, 1);
        // On the same data: two.
        let c = count(
            "var x; handler h; message p { x = 1; } message q { a = x; }\n\
             thread s { post h p; } thread t { post h q; }",
        );
        assert_eq!(c.classes, 2);
        // A lock-order inversion: three classes, one a deadlock.
        let c = count(
            "lock m, n; thread s { lock m; lock n; unlock n; unlock m; }\n\
             thread t { lock n; lock m; unlock m; unlock n; }",
        );
        assert_eq!((c.classes, c.deadlocks), (3, 1));
    }
}
