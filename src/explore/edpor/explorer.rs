//! The depth-first exploration: frames along the current execution, each with its explored
//! children (the sleep set of later siblings, with the `done` access sequences of messages),
//! its wakeup tree, and the sleepers it inherited.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::lin::{self, Cand, Prefix, Search};
use super::processes::{Ev, Inst, Processes, Step};
use super::races::{Reversal, reversals};
use super::sleep::{self, Sleeper};
use super::wut::WNode;
use super::{EdporOptions, EdporProgress, EdporStats};
use crate::explore::limits::{Limits, StopReason};
use crate::system::{Overflow, System, Transition};

/// A child explored (or being explored) after a prefix.
struct Child {
    step: Step,
    /// For a message started by this child: the sequences of statements it ran in the
    /// executions explored below (its `done` access sequences).
    done: FxHashSet<Vec<Transition>>,
}

/// The exploration state at one prefix of the current execution.
struct Frame {
    /// The state after the prefix.
    state: Vec<u64>,
    /// The child being explored (the next step of the current execution).
    cur: Option<Child>,
    /// Children explored before it, in order.
    explored: Vec<Child>,
    /// Children still to explore.
    wut: Vec<WNode>,
    /// Sleepers inherited from shorter prefixes.
    sleep: Vec<Sleeper>,
}

/// What an insertion did with a candidate execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Insert {
    /// Added to a wakeup tree.
    Inserted,
    /// Already scheduled (or being explored) up to equivalence.
    Covered,
    /// Equivalent to an execution explored earlier (a process explored first before could
    /// start it).
    Redundant,
}

/// How an execution ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Maximal,
    /// Every enabled process sleeps (possible only after a parked wakeup sequence).
    SleepBlocked,
}

/// Budget of one linearization search (steps).
const LIN_BUDGET: u64 = 200_000;

pub(super) struct Explorer<'m, 's> {
    procs: &'m Processes<'s>,
    opts: EdporOptions,
    limits: &'m Limits,
    frames: Vec<Frame>,
    /// Events per process along the current execution.
    counts: Vec<u32>,
    en: Vec<(Inst, Transition)>,
    tree_nodes: u64,
    pub stats: EdporStats,
    steps_since_check: u64,
    /// Where the current execution left the previous one (its first new event).
    fresh: usize,
    /// Whether the program posts no message: happens-before of a prefix then depends on the
    /// prefix alone, so a race whose second event is in the part shared with the previous
    /// execution was reversed when that event first ran (Optimal-DPOR detects each race once,
    /// when its second event runs).
    threads_only: bool,
    /// Storage for the clocks of the next completed wakeup sequence.
    spare: Vec<u32>,
    /// The levels of the completion search, kept between searches: a completion visits
    /// thousands of levels per execution, and allocating their vectors afresh each time was
    /// most of the allocator's work.
    levels: Vec<Level>,
}

/// One choice point of a completion ([`Explorer::complete`]): the state before it and the
/// steps still to try there.
#[derive(Default)]
struct Level {
    state: Vec<u64>,
    sleep: Vec<Sleeper>,
    counts: Vec<u32>,
    choices: Vec<(Inst, Transition)>,
    next: usize,
    /// The enabled steps at `state`.
    en: Vec<(Inst, Transition)>,
}

impl<'m, 's> Explorer<'m, 's> {
    pub fn new(procs: &'m Processes<'s>, opts: EdporOptions, limits: &'m Limits) -> Self {
        Explorer {
            procs,
            opts,
            limits,
            frames: Vec::new(),
            counts: vec![0; procs.count()],
            en: Vec::new(),
            tree_nodes: 0,
            stats: EdporStats::default(),
            steps_since_check: 0,
            fresh: 0,
            threads_only: procs.handler.iter().all(Option::is_none),
            spare: Vec::new(),
            levels: Vec::new(),
        }
    }

    /// Runs the whole exploration (or until a limit stops it).
    pub fn run(&mut self, progress: &mut dyn FnMut(EdporProgress)) -> Result<(), Overflow> {
        let mut init = vec![0u64; self.procs.words()];
        self.procs.sys.initial_state(&mut init);
        self.frames.push(Frame {
            state: init,
            cur: None,
            explored: Vec::new(),
            wut: Vec::new(),
            sleep: Vec::new(),
        });
        loop {
            let end = self.descend()?;
            if self.stats.stopped.is_some() {
                return Ok(());
            }
            self.finish(end)?;
            let runs = self.stats.executions + self.stats.blocked;
            if self.opts.max_executions.is_some_and(|max| runs >= max) {
                self.stats.stopped = Some(StopReason::ExecutionLimit);
                return Ok(());
            }
            progress(EdporProgress {
                executions: self.stats.executions,
                blocked: self.stats.blocked,
                depth: self.frames.len() - 1,
            });
            if let Err(r) = self.limits.check_time() {
                self.stats.stopped = Some(r);
                return Ok(());
            }
            // Adding up the data costs a walk over the frames: now and then.
            let runs = self.stats.executions + self.stats.blocked;
            if runs % 64 == 1
                && let Err(r) = self.limits.check_memory(self.bytes())
            {
                self.stats.stopped = Some(r);
                return Ok(());
            }
            if self.stats.stopped.is_some() || !self.backtrack() {
                return Ok(());
            }
        }
    }

    /// The explorer's own data, approximately.
    fn bytes(&self) -> u64 {
        let words = self.procs.words() as u64 * 8;
        let frames = self.frames.len() as u64 * words
            + self.frames.capacity() as u64 * std::mem::size_of::<Frame>() as u64;
        let done: u64 = self
            .frames
            .iter()
            .flat_map(|f| f.explored.iter().chain(f.cur.iter()))
            .map(|c| c.done.iter().map(|s| 24 + 4 * s.len() as u64).sum::<u64>())
            .sum();
        frames + done + self.tree_nodes * std::mem::size_of::<WNode>() as u64
    }

    /// [`Self::bytes`] while the frames move into a buffer twice as large.
    fn bytes_after_growth(&self) -> u64 {
        let frame = std::mem::size_of::<Frame>() as u64;
        self.bytes() + 2 * self.frames.capacity().max(4) as u64 * frame
    }

    fn depth(&self) -> usize {
        self.frames.len() - 1
    }

    /// The steps of the current execution.
    fn path(&self) -> Vec<Step> {
        self.frames
            .iter()
            .filter_map(|f| f.cur.as_ref().map(|c| c.step))
            .collect()
    }

    /// Takes `step` (process and statement; its index is set here) from the last frame.
    fn step_into(
        &mut self,
        inst: Inst,
        label: Transition,
        children: Vec<WNode>,
    ) -> Result<(), Overflow> {
        let d = self.depth();
        let mut next = vec![0u64; self.procs.words()];
        let ends = self
            .procs
            .fire(&self.frames[d].state, inst, label, &mut next)?;
        let step = Step {
            ev: Ev {
                inst,
                idx: self.counts[inst as usize],
                label,
            },
            ends,
        };
        self.counts[inst as usize] += 1;
        let f = &self.frames[d];
        let inherited = f.sleep.iter().cloned().chain(
            f.explored
                .iter()
                .map(|c| Sleeper::new(self.procs, &c.step, d)),
        );
        let sleep = sleep::after(self.procs, inherited, &step);
        self.frames[d].cur = Some(Child {
            step,
            done: FxHashSet::default(),
        });
        self.frames.push(Frame {
            state: next,
            cur: None,
            explored: Vec::new(),
            wut: children,
            sleep,
        });
        self.stats.max_depth = self.stats.max_depth.max(self.depth() as u64);
        Ok(())
    }

    /// Follows the wakeup trees (and, past a parked leaf or on the first execution, any
    /// process not asleep) to the end of an execution.
    fn descend(&mut self) -> Result<End, Overflow> {
        loop {
            // Executions can be long (high loop bounds): the clock (and the memory watch's
            // flag) is read along the way, not only between executions.
            self.steps_since_check += 1;
            if self.steps_since_check >= 256 {
                self.steps_since_check = 0;
                if let Err(r) = self.limits.check_time() {
                    self.stats.stopped = Some(r);
                    return Ok(End::Maximal);
                }
            }
            // The next frame moves the frames into a buffer twice as large, both held while
            // they move: see that it fits before (a long execution's frames are most of the
            // memory, and the doubling would pass the limit between two looks of the watch).
            if self.frames.len() == self.frames.capacity()
                && let Err(r) = self.limits.check_memory(self.bytes_after_growth())
            {
                self.stats.stopped = Some(r);
                return Ok(End::Maximal);
            }
            let d = self.depth();
            if !self.frames[d].wut.is_empty() {
                let node = self.frames[d].wut.remove(0);
                self.tree_nodes = self.tree_nodes.saturating_sub(1);
                debug_assert!(
                    self.procs
                        .sys
                        .is_enabled(&self.frames[d].state, node.step.ev.label),
                    "a wakeup tree step is enabled"
                );
                debug_assert_eq!(node.step.ev.idx, self.counts[node.step.ev.inst as usize]);
                self.step_into(node.step.ev.inst, node.step.ev.label, node.children)?;
                continue;
            }
            let mut en = std::mem::take(&mut self.en);
            self.procs.enabled(&self.frames[d].state, &mut en);
            let pick = en
                .iter()
                .copied()
                .find(|&(i, _)| !self.frames[d].sleep.iter().any(|s| s.forbids(i)));
            let empty = en.is_empty();
            self.en = en;
            if empty {
                return Ok(End::Maximal);
            }
            match pick {
                Some((i, t)) => self.step_into(i, t, Vec::new())?,
                None => return Ok(End::SleepBlocked),
            }
        }
    }

    /// Pops finished frames; false when everything is explored.
    fn backtrack(&mut self) -> bool {
        self.frames.pop();
        while let Some(top) = self.frames.last_mut() {
            let cur = top.cur.take().expect("an inner frame has a current child");
            self.counts[cur.step.ev.inst as usize] -= 1;
            top.explored.push(cur);
            if !top.wut.is_empty() {
                self.fresh = self.frames.len() - 1;
                return true;
            }
            self.frames.pop();
        }
        false
    }

    /// Accounts for the execution just completed and reverses its races.
    fn finish(&mut self, end: End) -> Result<(), Overflow> {
        let steps = self.path();
        let cand = Cand::new(self.procs, steps);
        self.stats.total_steps += cand.len() as u64;
        let redundant = end == End::SleepBlocked || self.redundant(&cand);
        // Each pass over a long execution (a million steps) takes a while: the clock is read
        // between them, so a time limit is answered by the explorer, with its statistics.
        if let Err(r) = self.limits.check_time() {
            self.stats.stopped = Some(r);
            return Ok(());
        }
        if self.opts.record {
            self.stats.explored.push((labels(&cand.steps), redundant));
        }
        if redundant {
            self.stats.blocked += 1;
        } else {
            self.stats.executions += 1;
            let state = &self.frames[self.depth()].state;
            if self.procs.sys.assertion_failed(state) {
                self.stats.assertion_failures += 1;
                if self.stats.assertion_witness.is_none() {
                    self.stats.assertion_witness = Some(labels(&cand.steps));
                }
            }
            if self.procs.sys.is_deadlock(state) {
                self.stats.deadlocks += 1;
                if self.stats.deadlock_witness.is_none() {
                    self.stats.deadlock_witness = Some(labels(&cand.steps));
                }
            }
        }
        // The `done` access sequences of the messages started along the execution.
        for j in 0..self.depth() {
            let step = self.frames[j].cur.as_ref().expect("on the path").step;
            if step.ev.idx == 0 && self.procs.is_message(step.ev.inst) {
                let seq: Vec<Transition> = cand
                    .steps
                    .iter()
                    .filter(|s| s.ev.inst == step.ev.inst)
                    .map(|s| s.ev.label)
                    .collect();
                if let Some(c) = self.frames[j].cur.as_mut() {
                    c.done.insert(seq);
                }
            }
        }
        // Race detection on the execution with its pending steps appended.
        let mut pending = Vec::new();
        if end == End::Maximal {
            self.procs
                .pending(&self.frames[self.depth()].state, &mut pending);
        }
        let real = self.depth();
        let m = if pending.is_empty() {
            cand
        } else {
            let mut steps = cand.steps;
            let mut counts = self.counts.clone();
            for &(inst, label) in &pending {
                steps.push(Step {
                    ev: Ev {
                        inst,
                        idx: counts[inst as usize],
                        label,
                    },
                    ends: false,
                });
                counts[inst as usize] += 1;
            }
            Cand::with_pending(self.procs, steps, real)
        };
        if let Err(r) = self.limits.check_time() {
            self.stats.stopped = Some(r);
            return Ok(());
        }
        let limits = self.limits;
        let mut stopped = None;
        let mut go_on = || match limits.check_time() {
            Ok(()) => true,
            Err(r) => {
                stopped = Some(r);
                false
            }
        };
        let fresh = if self.threads_only { self.fresh } else { 0 };
        let Some(revs) = reversals(self.procs, &m.steps, &m.clocks, (real, fresh), &mut go_on)
        else {
            self.stats.stopped = stopped;
            return Ok(());
        };
        self.stats.races += revs.len() as u64;
        let shown = Shown::new(&m);
        for r in revs {
            self.reverse(&shown, &r)?;
            if self.stats.stopped.is_some() {
                break;
            }
        }
        Ok(())
    }

    /// Whether a process explored first after some prefix of the execution could start the
    /// rest of it (the exact check).
    fn redundant(&self, cand: &Cand) -> bool {
        let mut prefix = Prefix::new(self.procs);
        for a in 0..self.depth() {
            if self.frames[a]
                .explored
                .iter()
                .any(|c| self.starts(cand, a, &prefix, c, false))
            {
                return true;
            }
            prefix.push(self.procs, &cand.steps[a]);
        }
        false
    }

    /// Whether child `c` (explored after the first `a` steps, which leave `prefix`) can start
    /// the rest of `cand`: cheap tests first (its `done` sequences, when `use_done`), then the
    /// exact one.
    fn starts(&self, cand: &Cand, a: usize, prefix: &Prefix, c: &Child, use_done: bool) -> bool {
        let q = c.step.ev.inst;
        if c.step.ev.label != cand_next_label(cand, a, q) {
            return false; // not the same step: it has a predecessor after `a`
        }
        if use_done && c.step.ev.idx == 0 && self.procs.is_message(q) {
            let seq: Vec<Transition> = cand
                .steps
                .iter()
                .filter(|s| s.ev.inst == q)
                .map(|s| s.ev.label)
                .collect();
            if !c.done.contains(&seq) {
                return false;
            }
        }
        let mut budget = LIN_BUDGET;
        matches!(
            lin::first_after(self.procs, cand, a, prefix, q, &mut budget, false),
            Search::Found(_)
        )
    }

    /// Tries the wakeup sequence of one race: replays it, completes it into a maximal
    /// execution that no explored child makes redundant, and inserts that.
    fn reverse(&mut self, shown: &Shown, r: &Reversal) -> Result<(), Overflow> {
        let m = shown.m;
        let k = r.k;
        let procs = self.procs;
        let mut state = self.frames[k].state.clone();
        let mut next = state.clone();
        let mut seq: Vec<Step> = m.steps[..k].to_vec();
        let mut counts = vec![0u32; procs.count()];
        for s in &seq {
            counts[s.ev.inst as usize] += 1;
        }
        let f = &self.frames[k];
        let mut sleep: Vec<Sleeper> = f
            .sleep
            .iter()
            .cloned()
            .chain(
                f.explored
                    .iter()
                    .chain(f.cur.iter())
                    .map(|c| Sleeper::new(procs, &c.step, k)),
            )
            .collect();
        for (n, &pos) in r.v.iter().enumerate() {
            let ev = m.steps[pos].ev;
            let Some(t) = procs.enabled_of(&state, ev.inst) else {
                return Ok(()); // not enabled: not a reversal after all
            };
            if n + 1 < r.v.len() && t != ev.label {
                return Ok(());
            }
            if sleep.iter().any(|s| s.forbids(ev.inst)) {
                return Ok(()); // a sleeping process would run first: redundant
            }
            let ends = procs.fire(&state, ev.inst, t, &mut next)?;
            std::mem::swap(&mut state, &mut next);
            let step = Step {
                ev: Ev {
                    inst: ev.inst,
                    idx: counts[ev.inst as usize],
                    label: t,
                },
                ends,
            };
            counts[ev.inst as usize] += 1;
            sleep = sleep::after(procs, sleep, &step);
            seq.push(step);
            if self.settle(&seq, &mut sleep) {
                return Ok(()); // a parked message that ran could have run first: redundant
            }
        }
        self.complete(shown, k, seq, state, sleep)
    }

    /// Settles the parked sleeper whose message the last step of `seq` ended: later steps
    /// cannot order anything before it, so whether it could have run first is known now.
    /// Returns true when it could (every completion of `seq` is redundant); otherwise the
    /// sleeper is dropped.
    fn settle(&self, seq: &[Step], sleep: &mut Vec<Sleeper>) -> bool {
        let Some(last) = seq.last() else {
            return false;
        };
        if !last.ends {
            return false;
        }
        let Some(at) = sleep
            .iter()
            .position(|s| s.started && s.inst == last.ev.inst)
        else {
            return false;
        };
        let s = sleep.swap_remove(at);
        let cand = Cand::new(self.procs, seq.to_vec());
        let mut budget = LIN_BUDGET;
        matches!(
            lin::first(self.procs, &cand, s.at, s.inst, &mut budget),
            Search::Found(c) if c.steps[s.at].ev.label == s.label
        )
    }

    /// Completes the wakeup sequence `seq` (from the root; it ends in `state`) into a maximal
    /// execution that is not redundant: processes not asleep, in the order the execution `m`
    /// ran them, backtracking over the choices when a parked message makes a completion
    /// redundant. Out of budget, the sequence itself is parked in the tree.
    fn complete(
        &mut self,
        shown: &Shown,
        k: usize,
        seq: Vec<Step>,
        state: Vec<u64>,
        sleep: Vec<Sleeper>,
    ) -> Result<(), Overflow> {
        let mut levels = std::mem::take(&mut self.levels);
        let done = self.complete_in(&mut levels, shown, k, seq, state, sleep);
        self.levels = levels;
        done
    }

    /// [`Explorer::complete`] with the storage of its levels: `levels[..live]` are the choice
    /// points of the current completion, the rest spare storage.
    fn complete_in(
        &mut self,
        levels: &mut Vec<Level>,
        shown: &Shown,
        k: usize,
        mut seq: Vec<Step>,
        state: Vec<u64>,
        sleep: Vec<Sleeper>,
    ) -> Result<(), Overflow> {
        let procs = self.procs;
        let (m, in_m) = (shown.m, &shown.at);
        let start = seq.len();
        // The step just taken from a level (its depth), to update that level's enabled steps.
        let mut taken: Option<(usize, Inst, Transition)> = None;
        let mut counts = vec![0u32; procs.count()];
        for s in &seq {
            counts[s.ev.inst as usize] += 1;
        }
        let mut live = 0usize;
        let (mut cur_state, mut cur_sleep) = (state, sleep);
        let mut budget = self.opts.search_budget;
        let mut en = Vec::new();
        let mut first = true;
        loop {
            match taken {
                // Without messages, only a lock operation changes whether another process can
                // step (a lock taken or released); any other step changes its own process only.
                Some((depth, i, t)) if self.threads_only && !procs.is_lock_op(t) => {
                    en.clone_from(&levels[depth].en);
                    let at = en.iter().position(|&(q, _)| q == i).expect("it stepped");
                    match procs.enabled_of(&cur_state, i) {
                        Some(t2) => en[at].1 = t2,
                        None => {
                            en.remove(at);
                        }
                    }
                    debug_assert!({
                        let mut all = Vec::new();
                        procs.enabled(&cur_state, &mut all);
                        all == en
                    });
                }
                _ => procs.enabled(&cur_state, &mut en),
            }
            if en.is_empty() {
                let cand = Cand::new_reusing(procs, seq.clone(), std::mem::take(&mut self.spare));
                let clocks = Rc::clone(&cand.clocks);
                let inserted = self.insert(k, cand, false);
                if let Ok(c) = Rc::try_unwrap(clocks) {
                    self.spare = c.into_buffer();
                }
                match inserted {
                    Insert::Inserted => {
                        self.stats.wakeup_inserted += 1;
                        return Ok(());
                    }
                    Insert::Covered => return Ok(()),
                    Insert::Redundant => {
                        if first {
                            self.stats.completion_retries += 1;
                        }
                        first = false;
                    }
                }
            } else {
                if live == levels.len() {
                    levels.push(Level::default());
                }
                let level = &mut levels[live];
                level.choices.clear();
                level.choices.extend(
                    en.iter()
                        .copied()
                        .filter(|&(i, _)| !cur_sleep.iter().any(|s| s.forbids(i))),
                );
                // Parked sleepers last: the later such a message runs, the likelier it is
                // ordered after what ran meanwhile, which is what keeps it from being redundant.
                level.choices.sort_by_key(|&(i, t)| {
                    let parked = cur_sleep.iter().any(|s| s.inst == i);
                    let order = match in_m.get(&(i, counts[i as usize])) {
                        Some(&(pos, label)) if label == t => pos,
                        _ => m.len() + i as usize,
                    };
                    (parked, order)
                });
                if !level.choices.is_empty() {
                    level.state.clone_from(&cur_state);
                    level.sleep.clone_from(&cur_sleep);
                    level.counts.clone_from(&counts);
                    level.next = 0;
                    level.en.clone_from(&en);
                    live += 1;
                } else {
                    first = false;
                }
            }
            // The next choice of the deepest level that has one left.
            loop {
                if live == 0 {
                    // Every completion is redundant: so is the sequence.
                    if !first {
                        self.stats.completions_exhausted += 1;
                    }
                    return Ok(());
                }
                let depth = live - 1;
                let top = &mut levels[depth];
                if top.next < top.choices.len() {
                    let (i, t) = top.choices[top.next];
                    top.next += 1;
                    let top = &levels[depth];
                    seq.truncate(start + depth);
                    counts.clone_from(&top.counts);
                    let ends = procs.fire(&top.state, i, t, &mut cur_state)?;
                    let step = Step {
                        ev: Ev {
                            inst: i,
                            idx: counts[i as usize],
                            label: t,
                        },
                        ends,
                    };
                    counts[i as usize] += 1;
                    sleep::after_into(procs, top.sleep.iter().copied(), &step, &mut cur_sleep);
                    taken = Some((depth, i, t));
                    seq.push(step);
                    if self.settle(&seq, &mut cur_sleep) {
                        // Redundant whatever follows: try the next choice.
                        self.stats.completion_steps += 1;
                        continue;
                    }
                    break;
                }
                live -= 1;
            }
            budget = budget.saturating_sub(1);
            self.stats.completion_steps += 1;
            self.steps_since_check += 1;
            if self.steps_since_check >= 256 {
                self.steps_since_check = 0;
                if let Err(r) = self.limits.check_time() {
                    self.stats.stopped = Some(r);
                    return Ok(());
                }
            }
            if budget == 0 {
                // Undecided: park the sequence; its branch runs freely and is checked at the end.
                seq.truncate(start);
                let cand = Cand::new(procs, seq);
                if self.insert(k, cand, true) == Insert::Inserted {
                    self.stats.parked += 1;
                }
                return Ok(());
            }
        }
    }

    /// Inserts the execution `cand` (which agrees with the current one on its first `k`
    /// steps), unless a process explored first after one of its prefixes could start it, or
    /// it is already scheduled. It goes down the current execution while the current child
    /// can start it, then down the wakeup tree the same way, and is added as a new branch
    /// where no existing one can start it.
    fn insert(&mut self, k: usize, cand: Cand, parked: bool) -> Insert {
        let procs = self.procs;
        let mut prefix = Prefix::new(procs);
        for a in 0..=k {
            if self.frames[a]
                .explored
                .iter()
                .any(|c| self.starts(&cand, a, &prefix, c, true))
            {
                return Insert::Redundant;
            }
            if a < k {
                prefix.push(procs, &cand.steps[a]);
            }
        }
        let mut j = k;
        let mut cand = cand;
        let mut budget = LIN_BUDGET;
        let mut prefix = Prefix::of(procs, &cand, j);
        while j < self.depth() {
            let cur = self.frames[j].cur.as_ref().expect("on the path").step;
            if cand_next_label(&cand, j, cur.ev.inst) != cur.ev.label {
                break;
            }
            match lin::first_after(procs, &cand, j, &prefix, cur.ev.inst, &mut budget, true) {
                Search::Found(c2) => {
                    if let Some(c2) = c2 {
                        cand = c2;
                    }
                    prefix.push(procs, &cand.steps[j]);
                    j += 1;
                    if j == cand.len() {
                        return Insert::Covered;
                    }
                    if self.frames[j]
                        .explored
                        .iter()
                        .any(|c| self.starts(&cand, j, &prefix, c, true))
                    {
                        return Insert::Redundant;
                    }
                }
                _ => break,
            }
        }
        let mut pos = j;
        let mut nodes = &mut self.frames[j].wut;
        loop {
            let mut found = None;
            for (ci, node) in nodes.iter().enumerate() {
                if cand_next_label(&cand, pos, node.step.ev.inst) != node.step.ev.label {
                    continue;
                }
                let mut budget = LIN_BUDGET;
                if let Search::Found(c2) = lin::first_after(
                    procs,
                    &cand,
                    pos,
                    &prefix,
                    node.step.ev.inst,
                    &mut budget,
                    true,
                ) {
                    found = Some((ci, c2));
                    break;
                }
            }
            match found {
                Some((ci, c2)) => {
                    if let Some(c2) = c2 {
                        cand = c2;
                    }
                    prefix.push(procs, &cand.steps[pos]);
                    pos += 1;
                    if pos == cand.len() || nodes[ci].children.is_empty() {
                        return Insert::Covered;
                    }
                    nodes = &mut nodes[ci].children;
                }
                None => {
                    if pos == cand.len() {
                        return Insert::Covered;
                    }
                    nodes.push(WNode::chain(&cand.steps[pos..], parked));
                    self.tree_nodes += (cand.len() - pos) as u64;
                    self.stats.peak_tree_nodes = self.stats.peak_tree_nodes.max(self.tree_nodes);
                    return Insert::Inserted;
                }
            }
        }
    }
}

/// The execution that showed the races being reversed, with where it ran each event (the
/// completions' preference), indexed once for all its races.
struct Shown<'c> {
    m: &'c Cand,
    at: FxHashMap<(Inst, u32), (usize, Transition)>,
}

impl<'c> Shown<'c> {
    fn new(m: &'c Cand) -> Self {
        let at = m
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| ((s.ev.inst, s.ev.idx), (i, s.ev.label)))
            .collect();
        Shown { m, at }
    }
}

fn labels(steps: &[Step]) -> Vec<Transition> {
    steps.iter().map(|s| s.ev.label).collect()
}

/// The statement of the next step of process `q` after the first `a` steps of `cand` (none
/// when it has no more).
fn cand_next_label(cand: &Cand, a: usize, q: Inst) -> Transition {
    cand.steps[a..]
        .iter()
        .find(|s| s.ev.inst == q)
        .map_or(Transition::MAX, |s| s.ev.label)
}
