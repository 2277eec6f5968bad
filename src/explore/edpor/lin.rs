//! Handler-respecting linearizations of a happens-before order.
//!
//! An interleaving of the events of an execution is itself an execution of the program iff it
//! is a linearization of `→` in which no two messages of one handler overlap: values read,
//! locks and posts are all ordered by `→`, and the handler is the one constraint `→` leaves
//! out. Two uses:
//! - [`first`]: is there an equivalent execution whose suffix after a prefix starts with a
//!   given process's event, and which one? For a thread (or a message already running) it is
//!   enough that the event has no predecessor in the suffix; for a message not started yet the
//!   other messages of its handler may have to be moved behind it, a search (deciding it in
//!   general is NP-hard, as for the consistency of event-driven traces), greedy first with
//!   memoised backtracking and a budget.
//! - [`wakeup`]: the wakeup sequence of a race: a down-closed set of events placed in
//!   execution order where the handlers allow, with at most one unfinished message per handler,
//!   placed last, and the racing event at the very end.

use std::rc::Rc;

use rustc_hash::FxHashSet;

use super::hb::Clocks;
use super::processes::{Inst, Processes, Step};

/// An execution (from the initial state) whose events carry their clocks. Reordering it into
/// an equivalent execution keeps each event's clock.
#[derive(Clone, Debug)]
pub struct Cand {
    /// The steps.
    pub steps: Vec<Step>,
    /// For each position, the row of its clock in `clocks`.
    pub rows: Vec<u32>,
    /// The clocks, as computed on some execution of the class.
    pub clocks: Rc<Clocks>,
}

impl Cand {
    /// `steps` with clocks computed for them.
    pub fn new(procs: &Processes, steps: Vec<Step>) -> Cand {
        let clocks = Rc::new(super::hb::clocks(procs, &steps));
        Cand {
            rows: (0..steps.len() as u32).collect(),
            steps,
            clocks,
        }
    }

    /// [`Cand::new`] with the clocks computed into `buffer` (see [`Clocks::into_buffer`]).
    pub fn new_reusing(procs: &Processes, steps: Vec<Step>, buffer: Vec<u32>) -> Cand {
        let clocks = Rc::new(super::hb::clocks_reusing(procs, &steps, buffer));
        Cand {
            rows: (0..steps.len() as u32).collect(),
            steps,
            clocks,
        }
    }

    /// `steps` whose steps from position `real` on are pending (see
    /// [`super::hb::clocks_pending`]).
    pub fn with_pending(procs: &Processes, steps: Vec<Step>, real: usize) -> Cand {
        let clocks = Rc::new(super::hb::clocks_pending(procs, &steps, real));
        Cand {
            rows: (0..steps.len() as u32).collect(),
            steps,
            clocks,
        }
    }

    /// The clock of the event at position `i`.
    pub fn clock(&self, i: usize) -> &[u32] {
        self.clocks.row(self.rows[i] as usize)
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether there are no events.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Events per process in the first `a` steps.
    pub fn counts(&self, procs: usize, a: usize) -> Vec<u32> {
        let mut c = vec![0u32; procs];
        for s in &self.steps[..a] {
            c[s.ev.inst as usize] += 1;
        }
        c
    }

    /// The same class with the suffix after `a` reordered as `order` (positions).
    fn reordered(&self, a: usize, order: &[usize]) -> Cand {
        let mut steps = self.steps[..a].to_vec();
        let mut rows = self.rows[..a].to_vec();
        for &i in order {
            steps.push(self.steps[i]);
            rows.push(self.rows[i]);
        }
        Cand {
            steps,
            rows,
            clocks: self.clocks.clone(),
        }
    }
}

/// The outcome of a search with a budget.
#[derive(Clone, Debug)]
pub enum Search<T> {
    /// Found.
    Found(T),
    /// There is none.
    None,
    /// The budget ran out first.
    Undecided,
}

/// What a prefix of an execution leaves: the steps of each process, and the message busy on
/// each handler (started and not ended).
#[derive(Clone, Debug)]
pub struct Prefix {
    /// Steps per process.
    pub counts: Vec<u32>,
    /// Busy handlers.
    pub busy: Vec<Option<Inst>>,
}

impl Prefix {
    /// The empty prefix.
    pub fn new(procs: &Processes) -> Prefix {
        Prefix {
            counts: vec![0; procs.count()],
            busy: vec![None; procs.handlers],
        }
    }

    /// The first `a` steps of `cand`.
    pub fn of(procs: &Processes, cand: &Cand, a: usize) -> Prefix {
        let mut p = Prefix::new(procs);
        for s in &cand.steps[..a] {
            p.push(procs, s);
        }
        p
    }

    /// The prefix one step longer.
    pub fn push(&mut self, procs: &Processes, s: &Step) {
        self.counts[s.ev.inst as usize] += 1;
        if let Some(h) = procs.handler[s.ev.inst as usize] {
            if s.ev.idx == 0 {
                self.busy[h as usize] = Some(s.ev.inst);
            }
            if s.ends {
                self.busy[h as usize] = None;
            }
        }
    }
}

/// The busy handlers after the first `a` steps of `cand`: for each handler, the message that
/// started and has not ended.
pub fn occupants_after(procs: &Processes, cand: &Cand, a: usize) -> Vec<Option<Inst>> {
    Prefix::of(procs, cand, a).busy
}

/// An equivalent execution whose step at position `a` is the next event of process `q`, if
/// one exists: the event must have no predecessor among the steps from `a` on, and the
/// handlers must allow moving it (and, for a message not started yet, all of it) first.
pub fn first(procs: &Processes, cand: &Cand, a: usize, q: Inst, budget: &mut u64) -> Search<Cand> {
    let prefix = Prefix::of(procs, cand, a);
    match first_after(procs, cand, a, &prefix, q, budget, true) {
        Search::Found(c) => Search::Found(c.unwrap_or_else(|| cand.clone())),
        Search::None => Search::None,
        Search::Undecided => Search::Undecided,
    }
}

/// [`first`] with the prefix of length `a` given; builds the reordered execution only when
/// `build` and the step is not already at `a` (otherwise `Found(None)` says there is one).
pub fn first_after(
    procs: &Processes,
    cand: &Cand,
    a: usize,
    prefix: &Prefix,
    q: Inst,
    budget: &mut u64,
    build: bool,
) -> Search<Option<Cand>> {
    let n_procs = procs.count();
    let base = &prefix.counts;
    let Some(pos) = (a..cand.len()).find(|&i| cand.steps[i].ev.inst == q) else {
        return Search::None;
    };
    if pos == a {
        return Search::Found(None);
    }
    // No predecessor after `a`.
    let clock = cand.clock(pos);
    if (0..n_procs).any(|r| r != q as usize && clock[r] > base[r]) {
        return Search::None;
    }
    let simple = match procs.handler[q as usize] {
        Some(h) if cand.steps[pos].ev.idx == 0 => {
            if prefix.busy[h as usize].is_some() {
                return Search::None;
            }
            // No other message of the handler starts before `pos`: moving the event is enough.
            !cand.steps[a..pos]
                .iter()
                .any(|s| s.ev.inst != q && procs.handler[s.ev.inst as usize] == Some(h))
        }
        _ => true,
    };
    if simple {
        if !build {
            return Search::Found(None);
        }
        let mut order: Vec<usize> = Vec::with_capacity(cand.len() - a);
        order.push(pos);
        order.extend((a..cand.len()).filter(|&i| i != pos));
        return Search::Found(Some(cand.reordered(a, &order)));
    }
    match linearize(procs, cand, a, base, pos, budget) {
        Search::Found(order) => Search::Found(build.then(|| cand.reordered(a, &order))),
        Search::None => Search::None,
        Search::Undecided => Search::Undecided,
    }
}

/// A handler-respecting linearization of the steps of `cand` after `a` that starts with the
/// step at `start`: depth-first, trying steps in execution order, remembering dead ends.
fn linearize(
    procs: &Processes,
    cand: &Cand,
    a: usize,
    base: &[u32],
    start: usize,
    budget: &mut u64,
) -> Search<Vec<usize>> {
    let n_procs = procs.count();
    let n = cand.len() - a;
    // Positions of each process's remaining steps, in program order.
    let mut by_proc: Vec<Vec<usize>> = vec![Vec::new(); n_procs];
    for i in a..cand.len() {
        by_proc[cand.steps[i].ev.inst as usize].push(i);
    }
    let mut placed = vec![0u32; n_procs];
    let mut occ = occupants_after(procs, cand, a);
    let placeable = |i: usize, placed: &[u32], occ: &[Option<Inst>]| -> bool {
        let s = cand.steps[i];
        let clock = cand.clock(i);
        let p = s.ev.inst as usize;
        if (0..n_procs).any(|r| r != p && clock[r] > base[r] + placed[r]) {
            return false;
        }
        match procs.handler[p] {
            Some(h) if s.ev.idx == 0 => occ[h as usize].is_none(),
            _ => true,
        }
    };
    let candidates = |placed: &[u32], occ: &[Option<Inst>]| -> Vec<usize> {
        let mut c: Vec<usize> = (0..n_procs)
            .filter_map(|p| by_proc[p].get(placed[p] as usize).copied())
            .filter(|&i| placeable(i, placed, occ))
            .collect();
        c.sort_unstable();
        c
    };
    if !placeable(start, &placed, &occ) {
        return Search::None;
    }
    let mut failed: FxHashSet<Vec<u32>> = FxHashSet::default();
    // Each frame: the candidates at that depth and the next to try; `undo` restores the
    // handler a placed step changed.
    let mut frames: Vec<(Vec<usize>, usize)> = vec![(vec![start], 0)];
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let mut undo: Vec<(usize, Option<Inst>)> = Vec::with_capacity(n);
    loop {
        if order.len() == n {
            return Search::Found(order);
        }
        if *budget == 0 {
            return Search::Undecided;
        }
        *budget -= 1;
        let Some(top) = frames.last_mut() else {
            return Search::None;
        };
        if top.1 < top.0.len() {
            let i = top.0[top.1];
            top.1 += 1;
            let s = cand.steps[i];
            let p = s.ev.inst as usize;
            placed[p] += 1;
            let h = procs.handler[p].map(|h| h as usize);
            let before = h.and_then(|h| occ[h]);
            if let Some(h) = h {
                if s.ev.idx == 0 {
                    occ[h] = Some(s.ev.inst);
                }
                if s.ends {
                    occ[h] = None;
                }
            }
            if failed.contains(&placed) {
                placed[p] -= 1;
                if let Some(h) = h {
                    occ[h] = before;
                }
                continue;
            }
            order.push(i);
            undo.push((h.unwrap_or(usize::MAX), before));
            let next = candidates(&placed, &occ);
            frames.push((next, 0));
        } else {
            failed.insert(placed.clone());
            frames.pop();
            let Some(i) = order.pop() else {
                return Search::None;
            };
            let (h, before) = undo.pop().expect("one undo per placed step");
            placed[cand.steps[i].ev.inst as usize] -= 1;
            if h != usize::MAX {
                occ[h] = before;
            }
        }
    }
}

/// The wakeup sequence of a race, as positions of `steps`: the steps of `set` (a set closed
/// under predecessors among the steps after the branch point `k`, in execution order) placed
/// where the handlers allow, `last` at the end. A message that would not end inside the
/// sequence is started only when no other message of its handler is still to be placed, so
/// that each handler has at most one unfinished message and it comes last; steps that cannot
/// be placed are left out unless `last` needs them (then there is no sequence). The events of
/// process `partner` (the other side of the race) are not required before `last`.
#[allow(clippy::too_many_arguments)]
pub fn wakeup(
    procs: &Processes,
    steps: &[Step],
    clocks: &Clocks,
    k: usize,
    set: &[usize],
    last: usize,
    partner: Option<Inst>,
    busy: &[Option<Inst>],
) -> Option<Vec<usize>> {
    let n_procs = procs.count();
    let mut base = vec![0u32; n_procs];
    for s in &steps[..k] {
        base[s.ev.inst as usize] += 1;
    }
    let mut occ = busy.to_vec();
    let mut placed_count = vec![0u32; n_procs];
    let mut placed = vec![false; steps.len()];
    // The set, less the steps with a predecessor after `k` outside it (which could never be
    // placed) and the messages that would stay unfinished without `last` needing them (at
    // most one unfinished message per handler, the one `last` needs, and it comes last), to a
    // fixpoint; `last` stays (its predecessors are checked when it is placed).
    let target = steps[last].ev.inst as usize;
    let mut in_set = vec![false; steps.len()];
    for &i in set {
        in_set[i] = true;
    }
    let mut ends_in = vec![false; n_procs];
    // Per process, the least index of its steps after `k` left out so far in a sweep: a step
    // has a predecessor left out iff its clock passes that index for some process.
    let mut out_from = vec![u32::MAX; n_procs];
    loop {
        out_from.iter_mut().for_each(|o| *o = u32::MAX);
        for x in k..steps.len() {
            if in_set[x] && clocks.row(x).iter().zip(&out_from).any(|(&c, &o)| c > o) {
                in_set[x] = false;
            }
            if !in_set[x] && x != last {
                let e = steps[x].ev;
                let o = &mut out_from[e.inst as usize];
                *o = (*o).min(e.idx);
            }
        }
        ends_in.iter_mut().for_each(|e| *e = false);
        let mut needed = vec![false; n_procs];
        for x in k..steps.len() {
            let p = steps[x].ev.inst as usize;
            if in_set[x] && steps[x].ends {
                ends_in[p] = true;
            }
            if (in_set[x] && clocks.before(steps, x, last)) || x == last {
                needed[p] = true;
            }
        }
        let mut changed = false;
        for x in k..steps.len() {
            let p = steps[x].ev.inst as usize;
            if in_set[x] && procs.handler[p].is_some() && !ends_in[p] && !needed[p] && p != target {
                in_set[x] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    in_set[last] = true;
    let set: Vec<usize> = set.iter().copied().filter(|&i| in_set[i]).collect();
    // Whether the message of each process ends at all.
    let mut ends = vec![false; n_procs];
    for s in steps {
        if s.ends {
            ends[s.ev.inst as usize] = true;
        }
    }
    let ok = |i: usize,
              placed_count: &[u32],
              occ: &[Option<Inst>],
              placed: &[bool],
              strand_check: bool|
     -> bool {
        let s = steps[i];
        let p = s.ev.inst as usize;
        if placed_count[p] + base[p] != s.ev.idx {
            return false;
        }
        let clock = clocks.row(i);
        let skip = if i == last { partner } else { None };
        if (0..n_procs)
            .any(|r| r != p && Some(r as Inst) != skip && clock[r] > base[r] + placed_count[r])
        {
            return false;
        }
        match procs.handler[p] {
            Some(h) if s.ev.idx == 0 => {
                if occ[h as usize].is_some() {
                    return false;
                }
                // Start a message that stays unfinished only when its handler has nothing else
                // left to run in the sequence; one that never ends (stopped by an assumption,
                // deadlocked) only when its handler has nothing else left at all, unless the
                // sequence is about it.
                let other = |j: usize| {
                    !placed[j]
                        && steps[j].ev.inst as usize != p
                        && procs.handler[steps[j].ev.inst as usize] == Some(h)
                };
                !strand_check
                    || ends_in[p]
                    || (!(k..steps.len()).any(|j| in_set[j] && other(j))
                        && (ends[p] || p == target || !(k..steps.len()).any(other)))
            }
            _ => true,
        }
    };
    let mut order = Vec::new();
    let mut place = |i: usize,
                     placed_count: &mut Vec<u32>,
                     occ: &mut Vec<Option<Inst>>,
                     placed: &mut Vec<bool>| {
        let s = steps[i];
        let p = s.ev.inst as usize;
        placed_count[p] += 1;
        placed[i] = true;
        if let Some(h) = procs.handler[p] {
            if s.ev.idx == 0 {
                occ[h as usize] = Some(s.ev.inst);
            }
            if s.ends {
                occ[h as usize] = None;
            }
        }
        order.push(i);
    };
    loop {
        let next = set
            .iter()
            .copied()
            .find(|&i| i != last && !placed[i] && ok(i, &placed_count, &occ, &placed, true));
        match next {
            Some(i) => place(i, &mut placed_count, &mut occ, &mut placed),
            None => break,
        }
    }
    if !ok(last, &placed_count, &occ, &placed, false) {
        return None;
    }
    place(last, &mut placed_count, &mut occ, &mut placed);
    Some(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::edpor::testutil::{run, system};

    #[test]
    fn a_message_moves_first_with_the_handler_reordered() {
        // p1 and p2 on one handler touch different variables; p2 (two steps) can go first.
        let sys = system(
            "var x, y; handler h;\n\
             message p1 { x = 1; }\n\
             message p2 { y = 1; y = 2; }\n\
             thread s { post h p1; post h p2; }",
        );
        let procs = Processes::new(&sys);
        let steps = run(&procs, &["s", "s", "s>p1", "s>p2", "s>p2"]);
        let cand = Cand::new(&procs, steps);
        let p2 = cand.steps[3].ev.inst;
        let mut budget = 1000;
        let Search::Found(c) = first(&procs, &cand, 2, p2, &mut budget) else {
            panic!("p2 can run first");
        };
        let order: Vec<u32> = c.steps[2..].iter().map(|s| s.ev.inst).collect();
        let p1 = cand.steps[2].ev.inst;
        assert_eq!(order, vec![p2, p2, p1], "all of p2 before p1");
        // p1's step cannot go first after p2 started (the handler is busy).
        let mut budget = 1000;
        assert!(matches!(
            first(&procs, &cand, 4, p1, &mut budget),
            Search::None
        ));
    }

    #[test]
    fn a_message_that_depends_cannot_move_first() {
        let sys = system(
            "var x; handler h;\n\
             message p1 { x = 1; }\n\
             message p2 { a = x; }\n\
             thread s { post h p1; post h p2; }",
        );
        let procs = Processes::new(&sys);
        let steps = run(&procs, &["s", "s", "s>p1", "s>p2"]);
        let cand = Cand::new(&procs, steps);
        let mut budget = 1000;
        assert!(matches!(
            first(&procs, &cand, 2, cand.steps[3].ev.inst, &mut budget),
            Search::None
        ));
    }

    #[test]
    fn wakeup_sequences_leave_an_unfinished_message_last() {
        // From the branch point 2, place everything but p1 (positions 3.. of the execution
        // s s p1 q q p2 p2), ending with p2's second step: q runs to its end first.
        let sys = system(
            "var x, y, z; handler h;\n\
             message p1 { x = 1; }\n\
             message q { z = 1; z = 2; }\n\
             message p2 { y = 1; a = x; y = 3; }\n\
             thread s { post h p1; post h q; post h p2; }",
        );
        let procs = Processes::new(&sys);
        let order = ["s", "s", "s", "s>p1", "s>q", "s>q", "s>p2", "s>p2", "s>p2"];
        let steps = run(&procs, &order);
        // As for a message race: without the conflicts between p1 and p2 (whose closure would
        // put all of p2 after p1).
        let (p1, p2) = (steps[3].ev.inst, steps[7].ev.inst);
        let clocks = super::super::hb::clocks_without(&procs, &steps, p1, p2);
        let busy = vec![None];
        let v = wakeup(&procs, &steps, &clocks, 3, &[4, 5, 6], 7, None, &busy)
            .expect("a wakeup sequence");
        assert_eq!(v, vec![4, 5, 6, 7]);
        // p2 stays unfinished (its last step is not in the sequence) so it starts only once q
        // is placed, even when it comes first in the set.
        let v = wakeup(&procs, &steps, &clocks, 3, &[6, 4, 5], 7, None, &busy)
            .expect("a wakeup sequence");
        assert_eq!(v, vec![4, 5, 6, 7]);
        // With the real order, p2 follows p1: no sequence without p1.
        let real = super::super::hb::clocks(&procs, &steps);
        assert!(wakeup(&procs, &steps, &real, 3, &[4, 5, 6], 7, None, &busy).is_none());
    }
}
