//! Races of an execution and the wakeup sequences that reverse them.
//!
//! Two kinds:
//! - *Event races* `e ⋖ e'`: events of different processes that conflict, `e` first, with no
//!   event in between in `→` (Optimal-DPOR's races). Two `lock`s of one lock race across the
//!   critical section in between (the release is the only thing between them). The wakeup
//!   sequence branches just before `e`: the events not after `e`, then `e'`. When a handler
//!   cannot run those (the message of `e` is still running there and holds its handler), it
//!   branches before that message starts instead.
//! - *Message races*: messages `m1`, `m2` of one handler, `m1` ran first, and some event of
//!   `m2` conflicts with some event of `m1` while nothing else orders them. Reversed by
//!   branching **before `m1` starts**: the events not after `m1`, then `m2` up to and
//!   including its first event that conflicts with `m1`, unfinished and last on its handler.

use super::hb::{Clocks, clocks_without};
use super::lin::wakeup;
use super::model::{Inst, Model, Step};

/// A wakeup sequence to try: branch at position `k` of the execution with the steps at
/// positions `v` (in that order).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reversal {
    /// The branch point (a prefix length).
    pub k: usize,
    /// Positions (into the execution) of the wakeup sequence.
    pub v: Vec<usize>,
}

/// The handler occupants after the first `k` steps.
fn busy_at(model: &Model, steps: &[Step], k: usize) -> Vec<Option<Inst>> {
    let mut occ = vec![None; model.handlers];
    for s in &steps[..k] {
        if let Some(h) = model.handler[s.ev.inst as usize] {
            if s.ev.idx == 0 {
                occ[h as usize] = Some(s.ev.inst);
            }
            if s.ends {
                occ[h as usize] = None;
            }
        }
    }
    occ
}

/// Position of the first event of process `p` (which occurs in `steps`).
fn first_of(steps: &[Step], p: Inst) -> usize {
    steps
        .iter()
        .position(|s| s.ev.inst == p)
        .expect("the process has events")
}

/// The reversal of `e ⋖ e'` branching at `k` (`k ≤ e`): the steps after `k` not after the
/// event at `from` (`e`, or the first event of `e`'s message), then `e'`.
fn reverse_at(
    model: &Model,
    steps: &[Step],
    clocks: &Clocks,
    k: usize,
    from: usize,
    e2: usize,
) -> Option<Reversal> {
    let set: Vec<usize> = (k..steps.len())
        .filter(|&x| x != e2 && !clocks.before(steps, from, x))
        .collect();
    let v = wakeup(
        model,
        steps,
        clocks,
        k,
        &set,
        e2,
        Some(steps[from].ev.inst),
        &busy_at(model, steps, k),
    )?;
    Some(Reversal { k, v })
}

/// Every reversal of a race in `steps` (an execution with `clocks`), each once.
pub fn reversals(model: &Model, steps: &[Step], clocks: &Clocks) -> Vec<Reversal> {
    let n = steps.len();
    let mut out: Vec<Reversal> = Vec::new();
    let mut last_of: Vec<Option<usize>> = vec![None; model.procs()];
    let mut closure_into: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(from, to) in &clocks.closure {
        closure_into[to].push(from);
    }
    for j in 0..n {
        let sj = steps[j];
        // Direct predecessors of `e'` from other processes: the conflicting events.
        let conflicting: Vec<usize> = (0..j)
            .filter(|&i| {
                steps[i].ev.inst != sj.ev.inst && model.conflict(steps[i].ev.label, sj.ev.label)
            })
            .collect();
        let mut direct: Vec<usize> = conflicting.clone();
        direct.extend(last_of[sj.ev.inst as usize]);
        direct.extend(closure_into[j].iter().copied());
        for &i in &conflicting {
            let si = steps[i];
            let (hi, hj) = (
                model.handler[si.ev.inst as usize],
                model.handler[sj.ev.inst as usize],
            );
            if hi.is_some() && hi == hj {
                continue; // two messages of one handler: a message race
            }
            let locks = model.is_lock(si.ev.label) && model.is_lock(sj.ev.label);
            let adjacent = direct.iter().all(|&y| {
                y == i || (locks && steps[y].ev.inst == si.ev.inst) || !clocks.before(steps, i, y)
            });
            if !adjacent {
                continue;
            }
            let r = reverse_at(model, steps, clocks, i, i, j).or_else(|| {
                // The message of `e` holds its handler: branch before it starts.
                if model.handler[si.ev.inst as usize].is_some() && si.ev.idx > 0 {
                    let f = first_of(steps, si.ev.inst);
                    reverse_at(model, steps, clocks, f, f, j)
                } else {
                    None
                }
            });
            if let Some(r) = r
                && !out.contains(&r)
            {
                out.push(r);
            }
        }
        last_of[sj.ev.inst as usize] = Some(j);
    }
    message_reversals(model, steps, &mut out);
    out
}

/// The reversals of message races.
fn message_reversals(model: &Model, steps: &[Step], out: &mut Vec<Reversal>) {
    // Messages of each handler in the order they started.
    let mut order: Vec<Vec<Inst>> = vec![Vec::new(); model.handlers];
    for s in steps {
        if let Some(h) = model.handler[s.ev.inst as usize]
            && s.ev.idx == 0
        {
            order[h as usize].push(s.ev.inst);
        }
    }
    for msgs in &order {
        for (b, &m2) in msgs.iter().enumerate() {
            for &m1 in &msgs[..b] {
                // The first event of `m2` in a direct conflict with `m1`.
                let Some(e2) = (0..steps.len()).find(|&j| {
                    steps[j].ev.inst == m2
                        && steps[..j].iter().any(|s| {
                            s.ev.inst == m1 && model.conflict(s.ev.label, steps[j].ev.label)
                        })
                }) else {
                    continue;
                };
                let idx2 = steps[e2].ev.idx;
                let hb = clocks_without(model, steps, m1, m2);
                // `m2` up to `e2` must not depend on `m1` through other processes.
                if (0..=e2).any(|j| steps[j].ev.inst == m2 && hb.row(j)[m1 as usize] > 0) {
                    continue;
                }
                let k = first_of(steps, m1);
                let set: Vec<usize> = (k..steps.len())
                    .filter(|&x| {
                        x != e2 && hb.row(x)[m1 as usize] == 0 && hb.row(x)[m2 as usize] <= idx2
                    })
                    .collect();
                if let Some(v) = wakeup(
                    model,
                    steps,
                    &hb,
                    k,
                    &set,
                    e2,
                    None,
                    &busy_at(model, steps, k),
                ) {
                    let r = Reversal { k, v };
                    if !out.contains(&r) {
                        out.push(r);
                    }
                }
            }
        }
    }
}
