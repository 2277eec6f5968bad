//! Sleep sets: processes whose next step was already explored first after some prefix, and
//! stay redundant to run while nothing conflicts with that step.
//!
//! A message not started yet sleeps differently: when another message of its handler starts,
//! the sleeper is *parked*. The handler then keeps it waiting, and running it afterwards is
//! redundant only if it ends up ordered after none of those messages, which shows only once it
//! has run; a parked sleeper may run, and the exact redundancy check decides at the end.

use super::model::{Inst, Model, Step};
use crate::system::Transition;

/// A sleeping process.
#[derive(Clone, Debug)]
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
}

impl Sleeper {
    /// The sleeper for process `step.ev.inst` explored first with `step`.
    pub fn new(model: &Model, step: &Step) -> Sleeper {
        let i = step.ev.inst;
        Sleeper {
            inst: i,
            label: step.ev.label,
            unstarted: if step.ev.idx == 0 {
                model.handler[i as usize]
            } else {
                None
            },
            parked: false,
            started: false,
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
    model: &Model,
    sleepers: impl IntoIterator<Item = Sleeper>,
    step: &Step,
) -> Vec<Sleeper> {
    let mut out = Vec::new();
    let starts_on = if step.ev.idx == 0 {
        model.handler[step.ev.inst as usize]
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
        } else if model.conflict(step.ev.label, s.label) {
            // Woken.
        } else {
            if s.unstarted.is_some() && starts_on == s.unstarted {
                s.parked = true;
            }
            out.push(s);
        }
    }
    out
}
