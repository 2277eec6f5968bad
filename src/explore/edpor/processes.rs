//! The processes Event-DPOR explores: a program's threads and message instances (the messages
//! as pseudo-threads), their events, the conflict relation without the handler serialisation,
//! and stepping, all taken from [`ProgramSystem`] (no second interpreter).

use crate::model::program_system::{InstanceId, ProgramSystem, Status};
use crate::system::{Footprint, Overflow, System, Touch, Transition, footprints_conflict};

/// A process: a thread or a message instance.
pub type Inst = InstanceId;

/// An event: the `idx`-th step of process `inst`, which fires transition `label`.
///
/// A process is deterministic, so `(inst, idx)` names the event across equivalent executions;
/// the label is the statement it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ev {
    /// The process.
    pub inst: Inst,
    /// Index of the step in its process.
    pub idx: u32,
    /// The transition fired.
    pub label: Transition,
}

/// What a step did besides its event: whether it ended its message (the handler is free
/// again: the message finished or failed an assertion).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The event.
    pub ev: Ev,
    /// Whether the event ended its message.
    pub ends: bool,
}

/// The program as Event-DPOR sees it: its processes, each a deterministic sequence of steps,
/// and which of their transitions conflict.
pub struct Processes<'s> {
    /// The program's system (naive handlers); only its stepping is used.
    pub sys: &'s ProgramSystem,
    /// For each process, the handler running it (messages) or `None` (threads).
    pub handler: Vec<Option<u32>>,
    /// For each transition, its footprint without the handler resources.
    fp: Vec<Vec<Touch>>,
    /// For each transition, whether it is a `lock`.
    lock: Vec<bool>,
    /// For each transition, whether it is a `lock` or an `unlock`.
    lock_op: Vec<bool>,
    /// For each process, its transitions.
    trans: Vec<Vec<Transition>>,
    /// For each process, the resource of its program order.
    po: Vec<u32>,
    /// Number of handlers.
    pub handlers: usize,
}

impl<'s> Processes<'s> {
    /// The processes of `sys`.
    pub fn new(sys: &'s ProgramSystem) -> Processes<'s> {
        let n = sys.instances().len();
        let handler: Vec<Option<u32>> = (0..n as Inst).map(|i| sys.handler_of(i)).collect();
        let mut fp = Vec::with_capacity(sys.transition_count());
        let mut lock = Vec::with_capacity(sys.transition_count());
        let mut lock_op = Vec::with_capacity(sys.transition_count());
        let mut trans = vec![Vec::new(); n];
        for t in 0..sys.transition_count() as Transition {
            fp.push(sys.footprint_without_handlers(t));
            lock.push(sys.is_lock(t));
            lock_op.push(
                sys.footprint(t)
                    .iter()
                    .any(|x| sys.is_lock_resource(x.resource)),
            );
            trans[sys.transition_instance(t) as usize].push(t);
        }
        Processes {
            sys,
            handler,
            fp,
            lock,
            lock_op,
            trans,
            po: (0..n as u32)
                .map(|i| sys.program_order_resource(i))
                .collect(),
            handlers: sys.handler_count(),
        }
    }

    /// Number of processes.
    pub fn count(&self) -> usize {
        self.handler.len()
    }

    /// Number of `u64` words of a state.
    pub fn words(&self) -> usize {
        self.sys.state_words()
    }

    /// The footprint of `t` without handler resources.
    pub fn footprint(&self, t: Transition) -> &Footprint {
        &self.fp[t as usize]
    }

    /// The resource of process `i`'s program order.
    pub fn po_resource(&self, i: Inst) -> u32 {
        self.po[i as usize]
    }

    /// Whether two transitions conflict (they share a resource with non-commuting accesses;
    /// steps of one process always do). Two messages of one handler do not conflict merely
    /// because they share the handler.
    pub fn conflict(&self, a: Transition, b: Transition) -> bool {
        footprints_conflict(&self.fp[a as usize], &self.fp[b as usize])
    }

    /// Whether `t` is a `lock`.
    pub fn is_lock(&self, t: Transition) -> bool {
        self.lock[t as usize]
    }

    /// Whether `t` is a `lock` or an `unlock`.
    pub fn is_lock_op(&self, t: Transition) -> bool {
        self.lock_op[t as usize]
    }

    /// Whether process `i` is a message.
    pub fn is_message(&self, i: Inst) -> bool {
        self.handler[i as usize].is_some()
    }

    /// The status of process `i` at `state`.
    pub fn status(&self, state: &[u64], i: Inst) -> Status {
        self.sys.status(state, i)
    }

    /// The enabled transition of process `i` at `state`, if any (a process enables at most
    /// one).
    pub fn enabled_of(&self, state: &[u64], i: Inst) -> Option<Transition> {
        match self.sys.status(state, i) {
            Status::Running | Status::Pending => self.trans[i as usize]
                .iter()
                .copied()
                .find(|&t| self.sys.is_enabled(state, t)),
            _ => None,
        }
    }

    /// The steps that are next but not enabled at `state` (a `lock` whose lock is held, the
    /// start of a message whose handler is busy), by process.
    pub fn pending(&self, state: &[u64], out: &mut Vec<(Inst, Transition)>) {
        out.clear();
        for i in 0..self.count() as Inst {
            if matches!(self.sys.status(state, i), Status::Running | Status::Pending)
                && let Some(&t) = self.trans[i as usize]
                    .iter()
                    .find(|&&t| self.sys.is_next(state, t))
                && !self.sys.is_enabled(state, t)
            {
                out.push((i, t));
            }
        }
    }

    /// Every enabled step at `state`, by process.
    pub fn enabled(&self, state: &[u64], out: &mut Vec<(Inst, Transition)>) {
        out.clear();
        for i in 0..self.count() as Inst {
            if let Some(t) = self.enabled_of(state, i) {
                out.push((i, t));
            }
        }
    }

    /// Fires `t` of process `inst` at `state` into `out`; returns whether the step ended its
    /// message.
    pub fn fire(
        &self,
        state: &[u64],
        inst: Inst,
        t: Transition,
        out: &mut [u64],
    ) -> Result<bool, Overflow> {
        self.sys.fire(state, t, out)?;
        Ok(self.handler[inst as usize].is_some()
            && matches!(self.sys.status(out, inst), Status::Done | Status::Failed))
    }

    /// For each handler, the message occupying it at `state` (running, or stopped for good by
    /// a false `assume`, which keeps its handler).
    pub fn occupants(&self, state: &[u64]) -> Vec<Option<Inst>> {
        let mut busy = vec![None; self.handlers];
        for (i, h) in self.handler.iter().enumerate() {
            if let Some(h) = h
                && matches!(
                    self.sys.status(state, i as Inst),
                    Status::Running | Status::Blocked
                )
            {
                busy[*h as usize] = Some(i as Inst);
            }
        }
        busy
    }
}
