//! Sleep sets: processes whose next step was already explored first after some prefix, and
//! stay redundant to run while nothing conflicts with that step.
//!
//! A message not started yet sleeps differently: when another message of its handler starts,
//! the sleeper is *parked*. The handler then keeps it waiting, and running it afterwards is
//! redundant only if it ends up ordered after none of those messages, which shows only once it
//! has run; a parked sleeper may run, and the exact redundancy check decides at the end.

use super::processes::{Inst, Processes, Step};
use crate::system::Transition;

/// A sleeping process.
#[derive(Clone, Copy, Debug)]
pub struct Sleeper {
    /// The process.
    pub inst: Inst,
    /// Its next step when it was explored.
    pub label: Transition,
    /// The handler of a message that had not started when it was explored.
    pub unstarted: Option<u32>,
    /// Another message of that handler started since.
    pub parked: bool,
    /// It ran while parked (redundancy is left to the exact check).
    pub started: bool,
    /// The prefix length after which it was explored.
    pub at: usize,
}

impl Sleeper {
    /// The sleeper for process `step.ev.inst` explored first with `step` after the first `at`
    /// steps.
    pub fn new(procs: &Processes, step: &Step, at: usize) -> Sleeper {
        let i = step.ev.inst;
        Sleeper {
            inst: i,
            label: step.ev.label,
            unstarted: if step.ev.idx == 0 {
                procs.handler[i as usize]
            } else {
                None
            },
            parked: false,
            started: false,
            at,
        }
    }

    /// Whether running the process now is redundant for sure.
    pub fn forbids(&self, i: Inst) -> bool {
        self.inst == i && !self.started && !self.parked
    }
}

/// The sleepers after `step`: woken by a conflict with their step, parked by another message
/// of their handler starting.
pub fn after(
    procs: &Processes,
    sleepers: impl IntoIterator<Item = Sleeper>,
    step: &Step,
) -> Vec<Sleeper> {
    let mut out = Vec::new();
    after_into(procs, sleepers, step, &mut out);
    out
}

/// [`after`] into `out` (cleared first), whose storage it reuses.
pub fn after_into(
    procs: &Processes,
    sleepers: impl IntoIterator<Item = Sleeper>,
    step: &Step,
    out: &mut Vec<Sleeper>,
) {
    out.clear();
    let starts_on = if step.ev.idx == 0 {
        procs.handler[step.ev.inst as usize]
    } else {
        None
    };
    for mut s in sleepers {
        if s.started {
            out.push(s);
        } else if s.inst == step.ev.inst {
            if s.parked {
                s.started = true;
                out.push(s);
            }
            // Otherwise a sleeping process ran: it no longer sleeps.
        } else if procs.conflict(step.ev.label, s.label) {
            // Woken.
        } else {
            if s.unstarted.is_some() && starts_on == s.unstarted {
                s.parked = true;
            }
            out.push(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::edpor::testutil::{run, system};

    #[test]
    fn sleepers_wake_on_conflict_and_park_on_their_handler() {
        let sys = system(
            "var x, y; handler h;\n\
             message p1 { x = 1; }\n\
             message p2 { y = 1; }\n\
             thread s { post h p1; post h p2; }\n\
             thread t { a = x; }",
        );
        let procs = Processes::new(&sys);
        let steps = run(&procs, &["s", "s", "s>p1", "s>p2", "t"]);
        let p1 = Sleeper::new(&procs, &steps[2], 2);
        assert_eq!(p1.unstarted, Some(0));
        assert!(p1.forbids(steps[2].ev.inst));
        // p2 starts on the same handler: p1 is parked, no longer forbidden.
        let after = super::after(&procs, vec![p1], &steps[3]);
        assert!(after[0].parked && !after[0].forbids(steps[2].ev.inst));
        // t reads x: p1 wakes up.
        assert!(super::after(&procs, vec![p1], &steps[4]).is_empty());
        // A thread's sleeper stays asleep across independent steps.
        let t = Sleeper::new(&procs, &steps[4], 4);
        let after = super::after(&procs, vec![t], &steps[3]);
        assert!(after[0].forbids(steps[4].ev.inst));
    }
}
