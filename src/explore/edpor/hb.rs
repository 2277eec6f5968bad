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

use super::processes::{Inst, Processes, Step};
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

    /// The storage of the clocks, for computing other clocks into (large blocks allocated
    /// and freed for every candidate execution made the allocator the bottleneck).
    pub fn into_buffer(self) -> Vec<u32> {
        self.vc
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

/// Per resource: the position of the last write (its clock is that row), and the joins of
/// the reads and of the adds since (empty = all zero; cleared, not freed, by a write, so an
/// execution allocates them once).
#[derive(Clone, Default)]
struct ResClock {
    w: Option<usize>,
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

/// A message of an execution: its process, the position of its first step, and of its last
/// step that ran with the number of those (none when only a pending first step is there).
#[derive(Clone, Copy)]
struct Span {
    inst: Inst,
    first: usize,
    last: Option<usize>,
    ran: u32,
}

/// Messages of each handler in the order they started.
fn messages_by_handler(procs: &Processes, steps: &[Step], real: usize) -> Vec<Vec<Span>> {
    let mut by: Vec<Vec<Span>> = vec![Vec::new(); procs.handlers];
    let mut slot: Vec<Option<(usize, usize)>> = vec![None; procs.count()];
    for (pos, s) in steps.iter().enumerate() {
        let i = s.ev.inst as usize;
        let Some(h) = procs.handler[i] else {
            continue;
        };
        let (h, k) = *slot[i].get_or_insert_with(|| {
            by[h as usize].push(Span {
                inst: s.ev.inst,
                first: pos,
                last: None,
                ran: 0,
            });
            (h as usize, by[h as usize].len() - 1)
        });
        if pos < real {
            by[h][k].last = Some(pos);
            by[h][k].ran += 1;
        }
    }
    by
}

/// Adds the serialisation edges the clocks call for; returns whether any was added. Only steps
/// that ran decide whether two messages are related (a pending step only gets the edges).
#[allow(clippy::too_many_arguments)]
fn close(
    procs: &Processes,
    steps: &[Step],
    real: usize,
    clocks: &Clocks,
    extra: &mut [Vec<usize>],
    closure: &mut Vec<(usize, usize)>,
    skip: Option<(Inst, Inst)>,
) -> bool {
    let mut changed = false;
    for msgs in messages_by_handler(procs, steps, real) {
        for (b, m) in msgs.iter().enumerate() {
            let probe = m.last.unwrap_or(m.first);
            for m0 in &msgs[..b] {
                let Some(last0) = m0.last else {
                    continue;
                };
                if skip == Some((m0.inst, m.inst)) || last0 >= m.first {
                    continue;
                }
                if clocks.row(probe)[m0.inst as usize] > 0
                    && clocks.row(m.first)[m0.inst as usize] < m0.ran
                {
                    extra[m.first].push(last0);
                    closure.push((last0, m.first));
                    changed = true;
                }
            }
        }
    }
    changed
}

/// The clocks of `steps` (an execution from the initial state).
pub fn clocks(procs: &Processes, steps: &[Step]) -> Clocks {
    clocks_pending(procs, steps, steps.len())
}

/// The clocks of `steps` whose steps from position `real` on are pending (they did not run):
/// each is ordered after the steps that ran, never after another pending step.
pub fn clocks_pending(procs: &Processes, steps: &[Step], real: usize) -> Clocks {
    clocks_by_resource(procs, steps, real, false)
}

/// [`clocks_pending`], leaving out the lock resources when `without_locks` (a step touches a
/// lock resource iff it is a lock operation, and lock operations touch no other shared
/// resource: so this leaves out exactly the orderings between lock operations).
fn clocks_by_resource(
    procs: &Processes,
    steps: &[Step],
    real: usize,
    without_locks: bool,
) -> Clocks {
    clocks_in(procs, steps, real, without_locks, Vec::new())
}

/// The clocks of `steps` (an execution from the initial state), written into `buffer` (its
/// capacity is reused: see [`Clocks::into_buffer`]).
pub fn clocks_reusing(procs: &Processes, steps: &[Step], buffer: Vec<u32>) -> Clocks {
    clocks_in(procs, steps, steps.len(), false, buffer)
}

fn clocks_in(
    procs: &Processes,
    steps: &[Step],
    real: usize,
    without_locks: bool,
    mut vc: Vec<u32>,
) -> Clocks {
    let p = procs.count();
    let n = steps.len();
    let mut extra: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut closure = Vec::new();
    let res_count = procs.sys.resource_count();
    loop {
        vc.clear();
        vc.resize(n * p, 0);
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
            let own = procs.po_resource(s.ev.inst);
            for t in procs.footprint(s.ev.label) {
                if without_locks && procs.sys.is_lock_resource(t.resource) {
                    continue;
                }
                let rc = &res[t.resource as usize];
                let w = rc.w.map_or(&[][..], |j| &done[j * p..(j + 1) * p]);
                if t.resource == own {
                    // Program order is `last`; the post that created a message wrote it.
                    if s.ev.idx == 0 {
                        join_opt(cur, w);
                    }
                    continue;
                }
                let acc = t.access;
                join_opt(cur, w);
                if acc.contains(Access::WRITE) || acc.contains(Access::ADD) {
                    join_opt(cur, &rc.r);
                }
                if acc.contains(Access::WRITE) || acc.contains(Access::READ) {
                    join_opt(cur, &rc.a);
                }
            }
            cur[inst] = s.ev.idx + 1;
            if i >= real {
                continue;
            }
            let cur: &[u32] = cur;
            for t in procs.footprint(s.ev.label) {
                if t.resource == own || (without_locks && procs.sys.is_lock_resource(t.resource)) {
                    continue;
                }
                let rc = &mut res[t.resource as usize];
                if t.access.contains(Access::WRITE) {
                    rc.w = Some(i);
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
        if !close(procs, steps, real, &clocks, &mut extra, &mut closure, None) {
            return Clocks { closure, ..clocks };
        }
        vc = clocks.vc;
    }
}

/// The clocks of `steps` computed edge by edge, leaving out every direct conflict between
/// processes `m1` and `m2` and the serialisation edge from `m1` to `m2`: the happens-before
/// the execution would have if those two messages did not touch each other's data.
pub fn clocks_without(procs: &Processes, steps: &[Step], m1: Inst, m2: Inst) -> Clocks {
    clocks_filtered(
        procs,
        steps,
        steps.len(),
        &|a, b| {
            let (p, q) = (steps[a].ev.inst, steps[b].ev.inst);
            (p == m1 && q == m2) || (p == m2 && q == m1)
        },
        Some((m1, m2)),
    )
}

/// The clocks of `steps` without the orderings between lock operations (their data
/// dependencies and program order stay): what a race between two `lock`s has to respect.
/// Steps from position `real` on are pending, as for [`clocks_pending`].
pub fn clocks_without_locks(procs: &Processes, steps: &[Step], real: usize) -> Clocks {
    clocks_by_resource(procs, steps, real, true)
}

/// [`clocks_without_locks`] computed edge by edge (what the resource-based one is checked
/// against).
#[cfg(test)]
fn clocks_without_locks_by_edges(procs: &Processes, steps: &[Step], real: usize) -> Clocks {
    clocks_filtered(
        procs,
        steps,
        real,
        &|a, b| {
            a >= real
                || (procs.is_lock_op(steps[a].ev.label) && procs.is_lock_op(steps[b].ev.label))
        },
        None,
    )
}

/// The clocks of `steps` computed edge by edge, leaving out the conflicts between positions
/// `a < b` for which `skip(a, b)` holds, and the serialisation edges `skip_closure`.
fn clocks_filtered(
    procs: &Processes,
    steps: &[Step],
    real: usize,
    skip: &dyn Fn(usize, usize) -> bool,
    skip_closure: Option<(Inst, Inst)>,
) -> Clocks {
    let p = procs.count();
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
                if o.ev.inst == inst || skip(j, i) || !procs.conflict(o.ev.label, s.ev.label) {
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
            procs,
            steps,
            real,
            &clocks,
            &mut extra,
            &mut closure,
            skip_closure,
        ) {
            return Clocks { closure, ..clocks };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::edpor::testutil::{run, system};

    /// Message `p2` reads what `t` wrote after reading what `p1` wrote.
    const CHAIN: &str = "var x, y, z; handler h;\n\
        message p1 { x = 1; z = 1; }\n\
        message p2 { b = y; }\n\
        thread s { post h p1; post h p2; }\n\
        thread t { a = x; y = a; }";

    #[test]
    fn resource_clocks_agree_with_edge_by_edge_clocks() {
        let sys = system(CHAIN);
        let procs = Processes::new(&sys);
        let steps = run(&procs, &["s", "s", "s>p1", "t", "s>p1", "t", "s>p2"]);
        let fast = clocks(&procs, &steps);
        let slow = clocks_filtered(&procs, &steps, steps.len(), &|_, _| false, None);
        for i in 0..steps.len() {
            assert_eq!(fast.row(i), slow.row(i), "step {i}");
        }
    }

    #[test]
    fn serialisation_closure() {
        let sys = system(CHAIN);
        let procs = Processes::new(&sys);
        // s posts both; p1 writes x; t reads x; p1 writes z and ends; t writes y; p2 reads y.
        let steps = run(&procs, &["s", "s", "s>p1", "t", "s>p1", "t", "s>p2"]);
        let c = clocks(&procs, &steps);
        // p1's write of z (its last event) is before p2's read only by the closure.
        assert!(c.before(&steps, 4, 6));
        assert_eq!(c.closure, vec![(4, 6)]);
        // Without the conflicts between p1 and p2 nothing changes: they touch no common data.
        let w = clocks_without(&procs, &steps, steps[2].ev.inst, steps[6].ev.inst);
        assert!(!w.before(&steps, 4, 6));
        assert!(w.before(&steps, 2, 6), "x = 1 → a = x → y = a → b = y");
        // Two messages that touch nothing in common are not ordered by their handler.
        let sys = system(
            "var x, y; handler h; message p1 { x = 1; } message p2 { y = 1; }\n\
             thread s { post h p1; post h p2; }",
        );
        let procs = Processes::new(&sys);
        let steps = run(&procs, &["s", "s", "s>p1", "s>p2"]);
        let c = clocks(&procs, &steps);
        assert!(!c.before(&steps, 2, 3));
        assert!(c.closure.is_empty());
    }

    #[test]
    fn lock_orderings_can_be_left_out() {
        let sys = system(
            "var x; lock m; thread t { lock m; x = 1; unlock m; } thread u { lock m; unlock m; }",
        );
        let procs = Processes::new(&sys);
        let steps = run(&procs, &["t", "t", "t", "u", "u"]);
        let c = clocks(&procs, &steps);
        assert!(c.before(&steps, 0, 3));
        let relaxed = clocks_without_locks(&procs, &steps, steps.len());
        assert!(!relaxed.before(&steps, 0, 3));
        assert!(relaxed.before(&steps, 0, 2), "program order stays");
    }

    #[test]
    fn clocks_without_locks_agree_with_edge_by_edge_clocks() {
        let sys = system(
            "var x, y; lock m, n; handler h;\n\
             message p { lock n; y = 1; unlock n; }\n\
             thread t { lock m; x = 1; post h p; unlock m; }\n\
             thread u { lock m; a = x; lock n; b = y; unlock n; unlock m; }",
        );
        let procs = Processes::new(&sys);
        let order = [
            "t", "t", "t", "t", "t>p", "u", "u", "t>p", "t>p", "u", "u", "u", "u",
        ];
        let steps = run(&procs, &order);
        // With the last two steps pending too (they do not order anything).
        for real in [steps.len(), steps.len() - 2] {
            let fast = clocks_without_locks(&procs, &steps, real);
            let slow = clocks_without_locks_by_edges(&procs, &steps, real);
            for i in 0..steps.len() {
                assert_eq!(fast.row(i), slow.row(i), "step {i}, real {real}");
            }
            assert_eq!(fast.closure, slow.closure, "real {real}");
        }
    }
}
