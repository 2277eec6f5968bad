//! Happens-before of an execution (DESIGN §4) as vector clocks.
//!
//! `e → e'` is the least transitive relation containing program order, the post of a message
//! before its first event, conflicting accesses of different processes in execution order, and
//! the serialisation closure: when messages `m`, `m'` of one handler ran in that order and some
//! event of `m` happens before some event of `m'`, the last event of `m` happens before the
//! first of `m'` (to a fixpoint). The handler order alone adds nothing.
//!
//! A clock counts, per process, how many of its events happen before or at an event, so
//! `y → x` iff `clock(x)[proc(y)] > index(y)`. Clocks depend only on the equivalence class
//! (same events, same `→`), not on the interleaving chosen, which lets the explorer move events
//! around and keep their clocks.

use super::model::{Inst, Model, Step};
use crate::system::{Access, System};

/// Vector clocks of the events of one execution.
#[derive(Clone, Debug)]
pub struct Clocks {
    procs: usize,
    vc: Vec<u32>,
    /// Serialisation edges added by the closure: (last event of `m`, first event of `m'`),
    /// as positions.
    pub closure: Vec<(usize, usize)>,
}

impl Clocks {
    /// The clock of the event at position `i`.
    pub fn row(&self, i: usize) -> &[u32] {
        &self.vc[i * self.procs..(i + 1) * self.procs]
    }

    /// Whether the event at `y` happens before (or is) the event at `x`.
    pub fn before(&self, steps: &[Step], y: usize, x: usize) -> bool {
        let e = steps[y].ev;
        self.row(x)[e.inst as usize] > e.idx
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.vc.len() / self.procs.max(1)
    }

    /// Whether there are no events.
    pub fn is_empty(&self) -> bool {
        self.vc.is_empty()
    }
}

fn join(into: &mut [u32], from: &[u32]) {
    for (a, b) in into.iter_mut().zip(from) {
        if *b > *a {
            *a = *b;
        }
    }
}

/// Per resource: the clock of the last write, and the joins of the reads and of the adds
/// since (empty = all zero).
#[derive(Clone, Default)]
struct ResClock {
    w: Vec<u32>,
    r: Vec<u32>,
    a: Vec<u32>,
}

fn join_opt(into: &mut [u32], from: &[u32]) {
    if !from.is_empty() {
        join(into, from);
    }
}

fn accumulate(into: &mut Vec<u32>, from: &[u32]) {
    if into.is_empty() {
        into.extend_from_slice(from);
    } else {
        join(into, from);
    }
}

/// Messages of each handler in the order they started: (process, first position, last
/// position, number of events).
fn messages_by_handler(model: &Model, steps: &[Step]) -> Vec<Vec<(Inst, usize, usize, u32)>> {
    let mut by: Vec<Vec<(Inst, usize, usize, u32)>> = vec![Vec::new(); model.handlers];
    let mut slot: Vec<Option<(usize, usize)>> = vec![None; model.procs()];
    for (pos, s) in steps.iter().enumerate() {
        let i = s.ev.inst as usize;
        if let Some(h) = model.handler[i] {
            match slot[i] {
                None => {
                    slot[i] = Some((h as usize, by[h as usize].len()));
                    by[h as usize].push((s.ev.inst, pos, pos, 1));
                }
                Some((h, k)) => {
                    by[h][k].2 = pos;
                    by[h][k].3 += 1;
                }
            }
        }
    }
    by
}

/// Adds the serialisation edges the clocks call for; returns whether any was added.
fn close(
    model: &Model,
    steps: &[Step],
    clocks: &Clocks,
    extra: &mut [Vec<usize>],
    closure: &mut Vec<(usize, usize)>,
    skip: Option<(Inst, Inst)>,
) -> bool {
    let mut changed = false;
    for msgs in messages_by_handler(model, steps) {
        for (b, &(m, first, last, _)) in msgs.iter().enumerate() {
            for &(m0, _, last0, len0) in &msgs[..b] {
                // (With pending steps appended, `m0` may not have ended before `m`.)
                if skip == Some((m0, m)) || last0 >= first {
                    continue;
                }
                if clocks.row(last)[m0 as usize] > 0 && clocks.row(first)[m0 as usize] < len0 {
                    extra[first].push(last0);
                    closure.push((last0, first));
                    changed = true;
                }
            }
        }
    }
    changed
}

/// The clocks of `steps` (an execution from the initial state).
pub fn clocks(model: &Model, steps: &[Step]) -> Clocks {
    let p = model.procs();
    let n = steps.len();
    let mut extra: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut closure = Vec::new();
    let res_count = model.sys.resource_count();
    loop {
        let mut vc = vec![0u32; n * p];
        let mut last: Vec<Option<usize>> = vec![None; p];
        let mut res: Vec<ResClock> = vec![ResClock::default(); res_count];
        for (i, s) in steps.iter().enumerate() {
            let (done, rest) = vc.split_at_mut(i * p);
            let cur = &mut rest[..p];
            let inst = s.ev.inst as usize;
            if let Some(j) = last[inst] {
                join(cur, &done[j * p..(j + 1) * p]);
            }
            for &j in &extra[i] {
                join(cur, &done[j * p..(j + 1) * p]);
            }
            let own = model.po_resource(s.ev.inst);
            for t in model.footprint(s.ev.label) {
                let rc = &res[t.resource as usize];
                if t.resource == own {
                    // Program order is `last`; the post that created a message wrote it.
                    if s.ev.idx == 0 {
                        join_opt(cur, &rc.w);
                    }
                    continue;
                }
                let acc = t.access;
                join_opt(cur, &rc.w);
                if acc.contains(Access::WRITE) || acc.contains(Access::ADD) {
                    join_opt(cur, &rc.r);
                }
                if acc.contains(Access::WRITE) || acc.contains(Access::READ) {
                    join_opt(cur, &rc.a);
                }
            }
            cur[inst] = s.ev.idx + 1;
            let cur: &[u32] = cur;
            for t in model.footprint(s.ev.label) {
                if t.resource == own {
                    continue;
                }
                let rc = &mut res[t.resource as usize];
                if t.access.contains(Access::WRITE) {
                    rc.w = cur.to_vec();
                    rc.r.clear();
                    rc.a.clear();
                } else {
                    if t.access.contains(Access::READ) {
                        accumulate(&mut rc.r, cur);
                    }
                    if t.access.contains(Access::ADD) {
                        accumulate(&mut rc.a, cur);
                    }
                }
            }
            last[inst] = Some(i);
        }
        let clocks = Clocks {
            procs: p,
            vc,
            closure: Vec::new(),
        };
        if !close(model, steps, &clocks, &mut extra, &mut closure, None) {
            return Clocks { closure, ..clocks };
        }
    }
}

/// The clocks of `steps` computed edge by edge, leaving out every direct conflict between
/// processes `m1` and `m2` and the serialisation edge from `m1` to `m2`: the happens-before
/// the execution would have if those two messages did not touch each other's data.
pub fn clocks_without(model: &Model, steps: &[Step], m1: Inst, m2: Inst) -> Clocks {
    clocks_filtered(
        model,
        steps,
        &|a, b| {
            let (p, q) = (steps[a].ev.inst, steps[b].ev.inst);
            (p == m1 && q == m2) || (p == m2 && q == m1)
        },
        Some((m1, m2)),
    )
}

/// The clocks of `steps` without the orderings between lock operations (their data
/// dependencies and program order stay): what a race between two `lock`s has to respect.
pub fn clocks_without_locks(model: &Model, steps: &[Step]) -> Clocks {
    clocks_filtered(
        model,
        steps,
        &|a, b| model.is_lock_op(steps[a].ev.label) && model.is_lock_op(steps[b].ev.label),
        None,
    )
}

/// The clocks of `steps` computed edge by edge, leaving out the conflicts between positions
/// `a < b` for which `skip(a, b)` holds, and the serialisation edges `skip_closure`.
fn clocks_filtered(
    model: &Model,
    steps: &[Step],
    skip: &dyn Fn(usize, usize) -> bool,
    skip_closure: Option<(Inst, Inst)>,
) -> Clocks {
    let p = model.procs();
    let n = steps.len();
    let mut extra: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut closure = Vec::new();
    loop {
        let mut vc = vec![0u32; n * p];
        let mut last: Vec<Option<usize>> = vec![None; p];
        for (i, s) in steps.iter().enumerate() {
            let (done, rest) = vc.split_at_mut(i * p);
            let cur = &mut rest[..p];
            let inst = s.ev.inst;
            if let Some(j) = last[inst as usize] {
                join(cur, &done[j * p..(j + 1) * p]);
            }
            for &j in &extra[i] {
                join(cur, &done[j * p..(j + 1) * p]);
            }
            for (j, o) in steps[..i].iter().enumerate() {
                if o.ev.inst == inst || skip(j, i) || !model.conflict(o.ev.label, s.ev.label) {
                    continue;
                }
                join(cur, &done[j * p..(j + 1) * p]);
            }
            cur[inst as usize] = s.ev.idx + 1;
            last[inst as usize] = Some(i);
        }
        let clocks = Clocks {
            procs: p,
            vc,
            closure: Vec::new(),
        };
        if !close(
            model,
            steps,
            &clocks,
            &mut extra,
            &mut closure,
            skip_closure,
        ) {
            return Clocks { closure, ..clocks };
        }
    }
}
