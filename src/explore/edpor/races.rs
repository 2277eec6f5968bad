//! Races of an execution and the wakeup sequences that reverse them.
//!
//! Two kinds:
//! - *Event races* `e ⋖ e'`: events of different processes that conflict, `e` first, with no
//!   event in between in `→` (Optimal-DPOR's races). The wakeup sequence branches just before
//!   `e`: the events not after `e`, then `e'`. When a handler cannot run those (the message of
//!   `e` is still running there and holds its handler), it branches before that message starts
//!   instead.
//! - *Lock races*: two `lock`s of one lock, the second not after the first once the orderings
//!   between lock operations are left out (the releases in between only follow from the first
//!   acquisition; other locks' orderings may have to be reversed with it, or the reversal would
//!   pass through a deadlock and never reach the second acquisition).
//! - *Message races*: messages `m1`, `m2` of one handler, `m1` ran first, and some event of
//!   `m2` conflicts with some event of `m1` while nothing else orders them. Reversed by
//!   branching **before `m1` starts**: the events not after `m1`, then `m2` up to and
//!   including its first event that conflicts with `m1`, unfinished and last on its handler.

use rustc_hash::FxHashMap;

use super::hb::{Clocks, clocks_without, clocks_without_locks};
use super::lin::wakeup;
use super::processes::{Inst, Processes, Step};
use crate::system::{Access, Resource};

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
fn busy_at(procs: &Processes, steps: &[Step], k: usize) -> Vec<Option<Inst>> {
    let mut occ = vec![None; procs.handlers];
    for s in &steps[..k] {
        if let Some(h) = procs.handler[s.ev.inst as usize] {
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
#[allow(clippy::too_many_arguments)]
fn reverse_at(
    procs: &Processes,
    steps: &[Step],
    clocks: &Clocks,
    real: usize,
    k: usize,
    from: usize,
    e2: usize,
) -> Option<Reversal> {
    let set: Vec<usize> = (k..real)
        .filter(|&x| x != e2 && !clocks.before(steps, from, x))
        .collect();
    let v = wakeup(
        procs,
        steps,
        clocks,
        k,
        &set,
        e2,
        Some(steps[from].ev.inst),
        &busy_at(procs, steps, k),
    )?;
    Some(Reversal { k, v })
}

/// Every reversal of a race in `steps` (an execution with `clocks`), each once. The steps from
/// position `real` on did not run: they are the steps left pending at the end (a `lock` whose
/// lock is held, the start of a message whose handler stays busy); they race as second events
/// (Optimal-DPOR's races with blocked steps).
///
/// Event and lock races whose second event is before position `fresh` are left out: the
/// caller reversed them in an earlier execution with the same prefix up to that event (see
/// [`Explorer`](super::explorer) for when that holds).
///
/// An execution can be millions of steps long: `go_on` is asked now and then whether to keep
/// going, and `None` is the answer when it said no (a time limit, an interrupt).
pub fn reversals(
    procs: &Processes,
    steps: &[Step],
    clocks: &Clocks,
    (real, fresh): (usize, usize),
    go_on: &mut dyn FnMut() -> bool,
) -> Option<Vec<Reversal>> {
    let n = steps.len();
    let mut out: Vec<Reversal> = Vec::new();
    let mut last_of: Vec<Option<usize>> = vec![None; procs.count()];
    let mut closure_into: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(from, to) in &clocks.closure {
        closure_into[to].push(from);
    }
    // The last access to each resource by each process, per access mode: an earlier
    // conflicting event of a process precedes its last one in program order, so only the last
    // one per process can be a direct predecessor (and scanning the whole prefix for each
    // event made long executions cubic).
    let mut last_access: FxHashMap<(Resource, Inst), Vec<(Access, usize)>> = FxHashMap::default();
    let mut latest: Vec<Option<usize>> = vec![None; procs.count()];
    for j in 0..n {
        if j % POLL_EVERY == POLL_EVERY - 1 && !go_on() {
            return None;
        }
        let sj = steps[j];
        // Direct predecessors of `e'` from other processes: the conflicting events.
        latest.iter_mut().for_each(|l| *l = None);
        for touch in procs.footprint(sj.ev.label) {
            for q in 0..procs.count() as Inst {
                if q == sj.ev.inst {
                    continue;
                }
                let Some(modes) = last_access.get(&(touch.resource, q)) else {
                    continue;
                };
                for &(mode, at) in modes {
                    if mode.conflicts_with(touch.access) {
                        latest[q as usize] = latest[q as usize].max(Some(at));
                    }
                }
            }
        }
        let conflicting: Vec<usize> = latest.iter().flatten().copied().collect();
        debug_assert!(
            conflicting
                .iter()
                .all(|&i| i < j.min(real) && procs.conflict(steps[i].ev.label, sj.ev.label))
        );
        if j < real {
            for touch in procs.footprint(sj.ev.label) {
                let modes = last_access.entry((touch.resource, sj.ev.inst)).or_default();
                match modes.iter_mut().find(|(mode, _)| *mode == touch.access) {
                    Some(entry) => entry.1 = j,
                    None => modes.push((touch.access, j)),
                }
            }
        }
        if j < fresh {
            last_of[sj.ev.inst as usize] = Some(j);
            continue;
        }
        let mut direct: Vec<usize> = conflicting.clone();
        direct.extend(last_of[sj.ev.inst as usize]);
        direct.extend(closure_into[j].iter().copied());
        for &i in &conflicting {
            let si = steps[i];
            let (hi, hj) = (
                procs.handler[si.ev.inst as usize],
                procs.handler[sj.ev.inst as usize],
            );
            if hi.is_some() && hi == hj {
                continue; // two messages of one handler: a message race
            }
            if procs.is_lock(si.ev.label) && procs.is_lock(sj.ev.label) {
                continue; // two acquisitions: a lock race
            }
            let adjacent = direct
                .iter()
                .all(|&y| y == i || !clocks.before(steps, i, y));
            if adjacent {
                reverse(procs, steps, clocks, real, (i, j), &mut out);
            }
        }
        last_of[sj.ev.inst as usize] = Some(j);
    }
    // Each phase below is one more pass over the execution.
    lock_reversals(procs, steps, clocks, (real, fresh), &mut out);
    go_on().then_some(())?;
    message_reversals(procs, &steps[..real], &mut out);
    go_on().then_some(())?;
    pending_message_reversals(procs, steps, clocks, real, &mut out);
    go_on().then_some(())?;
    blocking_message_reversals(procs, steps, clocks, real, &mut out);
    Some(out)
}

/// Steps of the race scan between two questions to its `go_on`.
const POLL_EVERY: usize = 4096;

/// The reversals for a message that holds its handler for good (stopped by an assumption, or
/// deadlocked): run it before each earlier message of its handler it does not depend on, which
/// then never runs.
fn blocking_message_reversals(
    procs: &Processes,
    steps: &[Step],
    clocks: &Clocks,
    real: usize,
    out: &mut Vec<Reversal>,
) {
    for m1 in busy_at(procs, steps, real).into_iter().flatten() {
        let h = procs.handler[m1 as usize];
        let last = (0..real)
            .rev()
            .find(|&i| steps[i].ev.inst == m1)
            .expect("a busy handler's message ran");
        let earlier: Vec<Inst> = steps[..real]
            .iter()
            .filter(|s| s.ev.idx == 0 && s.ev.inst != m1 && procs.handler[s.ev.inst as usize] == h)
            .map(|s| s.ev.inst)
            .collect();
        for m0 in earlier {
            let k = first_of(steps, m0);
            if clocks.before(steps, k, last) {
                continue; // the blocking message depends on the earlier one
            }
            let set: Vec<usize> = (k..real)
                .filter(|&x| x != last && !clocks.before(steps, k, x))
                .collect();
            if let Some(v) = wakeup(
                procs,
                steps,
                clocks,
                k,
                &set,
                last,
                None,
                &busy_at(procs, steps, k),
            ) {
                let r = Reversal { k, v };
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
    }
}

/// The reversals for messages left waiting at the end because their handler stays busy
/// (its message blocked for good or deadlocked): run the waiting message before the busy one
/// starts.
fn pending_message_reversals(
    procs: &Processes,
    steps: &[Step],
    clocks: &Clocks,
    real: usize,
    out: &mut Vec<Reversal>,
) {
    let busy = busy_at(procs, steps, real);
    for j in real..steps.len() {
        let p = steps[j].ev.inst;
        let Some(h) = procs.handler[p as usize] else {
            continue;
        };
        let Some(m1) = busy[h as usize] else {
            continue;
        };
        if steps[j].ev.idx != 0 || m1 == p {
            continue;
        }
        let k = first_of(steps, m1);
        // The steps not after the busy message starts; when the waiting message starts with a
        // `lock`, not the acquisitions of that lock it does not need either (lock orderings
        // left out, as for lock races).
        let relaxed;
        let (order, set): (&Clocks, Vec<usize>) = if procs.is_lock(steps[j].ev.label) {
            relaxed = clocks_without_locks(procs, steps, real);
            let set = (k..real)
                .filter(|&x| {
                    let unneeded = procs.is_lock(steps[x].ev.label)
                        && procs.conflict(steps[x].ev.label, steps[j].ev.label)
                        && !relaxed.before(steps, x, j);
                    !clocks.before(steps, k, x) && !unneeded
                })
                .collect();
            (&relaxed, set)
        } else {
            let set = (k..real).filter(|&x| !clocks.before(steps, k, x)).collect();
            (clocks, set)
        };
        if let Some(v) = wakeup(
            procs,
            steps,
            order,
            k,
            &set,
            j,
            Some(m1),
            &busy_at(procs, steps, k),
        ) {
            let r = Reversal { k, v };
            if !out.contains(&r) {
                out.push(r);
            }
        }
    }
}

/// Adds the reversal of `e ⋖ e'` (positions `i < j`), branching before `e`, or before the
/// message of `e` starts when the handler cannot run the wakeup sequence while it runs.
fn reverse(
    procs: &Processes,
    steps: &[Step],
    clocks: &Clocks,
    real: usize,
    (i, j): (usize, usize),
    out: &mut Vec<Reversal>,
) {
    let si = steps[i];
    let r = reverse_at(procs, steps, clocks, real, i, i, j).or_else(|| {
        if procs.handler[si.ev.inst as usize].is_some() && si.ev.idx > 0 {
            let f = first_of(steps, si.ev.inst);
            reverse_at(procs, steps, clocks, real, f, f, j)
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

/// The reversals of lock races: two acquisitions of one lock by different processes, the
/// second not depending on the first except through lock operations (of any lock: taking a
/// lock first may need taking others first too). Happens-before without the lock orderings
/// decides what the wakeup sequence holds.
fn lock_reversals(
    procs: &Processes,
    steps: &[Step],
    clocks: &Clocks,
    (real, fresh): (usize, usize),
    out: &mut Vec<Reversal>,
) {
    let locks: Vec<usize> = (0..steps.len())
        .filter(|&i| procs.is_lock(steps[i].ev.label))
        .collect();
    let pairs: Vec<(usize, usize)> = locks
        .iter()
        .enumerate()
        .flat_map(|(b, &j)| locks[..b].iter().map(move |&i| (i, j)))
        .filter(|&(i, j)| {
            i < real
                && j >= fresh
                && steps[i].ev.inst != steps[j].ev.inst
                && procs.conflict(steps[i].ev.label, steps[j].ev.label)
        })
        .collect();
    if pairs.is_empty() {
        return;
    }
    let relaxed = clocks_without_locks(procs, steps, real);
    // Branch just before the first acquisition `i`, or before its message starts at `from`.
    let at = |from: usize, j: usize| -> Option<Reversal> {
        // The events not after `from`, leaving out the lock operations that follow it in the
        // real order and that the second acquisition does not need (with the lock orderings
        // gone they could be placed where their locks are held).
        let set: Vec<usize> = (from..real)
            .filter(|&x| {
                x != j
                    && !relaxed.before(steps, from, x)
                    && (!procs.is_lock_op(steps[x].ev.label)
                        || !clocks.before(steps, from, x)
                        || relaxed.before(steps, x, j))
            })
            .collect();
        let busy = busy_at(procs, steps, from);
        let partner = Some(steps[from].ev.inst);
        let v = wakeup(procs, steps, &relaxed, from, &set, j, partner, &busy)?;
        Some(Reversal { k: from, v })
    };
    for (i, j) in pairs {
        if relaxed.before(steps, i, j) {
            continue;
        }
        let si = steps[i];
        let r = at(i, j).or_else(|| {
            if procs.handler[si.ev.inst as usize].is_some() && si.ev.idx > 0 {
                at(first_of(steps, si.ev.inst), j)
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
}

/// The reversals of message races.
fn message_reversals(procs: &Processes, steps: &[Step], out: &mut Vec<Reversal>) {
    // Messages of each handler in the order they started.
    let mut order: Vec<Vec<Inst>> = vec![Vec::new(); procs.handlers];
    for s in steps {
        if let Some(h) = procs.handler[s.ev.inst as usize]
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
                            s.ev.inst == m1 && procs.conflict(s.ev.label, steps[j].ev.label)
                        })
                }) else {
                    continue;
                };
                let idx2 = steps[e2].ev.idx;
                let hb = clocks_without(procs, steps, m1, m2);
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
                    procs,
                    steps,
                    &hb,
                    k,
                    &set,
                    e2,
                    None,
                    &busy_at(procs, steps, k),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::edpor::hb::clocks;
    use crate::explore::edpor::testutil::{run, system};

    #[test]
    fn a_message_race_branches_before_the_first_message() {
        // Fig. 2 (bottom): p1 writes x then y, p2 reads them.
        let sys = system(
            "var x, y; handler h;\n\
             message p1 { x = 1; y = 1; }\n\
             message p2 { a = x; b = y; }\n\
             thread s { post h p1; }\n\
             thread t { post h p2; }",
        );
        let procs = Processes::new(&sys);
        let steps = run(&procs, &["s", "t", "s>p1", "s>p1", "t>p2", "t>p2"]);
        let c = clocks(&procs, &steps);
        let revs = reversals(&procs, &steps, &c, (steps.len(), 0), &mut || true).unwrap();
        // Before p1 starts (position 2): p2 up to its first conflicting step (a = x).
        assert!(revs.contains(&Reversal { k: 2, v: vec![4] }), "{revs:?}");
        // No reversal branches inside p1: it would have to interrupt it.
        assert!(revs.iter().all(|r| r.k != 3), "{revs:?}");
    }

    #[test]
    fn a_lock_race_takes_the_other_locks_along() {
        let sys = system(
            "var x; lock m1, m2; handler h;\n\
             message p { lock m2; lock m1; unlock m1; unlock m2; }\n\
             thread s { post h p; lock m1; lock m2; unlock m2; unlock m1; }",
        );
        let procs = Processes::new(&sys);
        let order = ["s", "s", "s", "s", "s", "s>p", "s>p", "s>p", "s>p"];
        let steps = run(&procs, &order);
        let c = clocks(&procs, &steps);
        let revs = reversals(&procs, &steps, &c, (steps.len(), 0), &mut || true).unwrap();
        // p's `lock m1` before s's: p's `lock m2` has to come first too.
        assert!(
            revs.contains(&Reversal {
                k: 1,
                v: vec![5, 6]
            }),
            "{revs:?}"
        );
    }
}
