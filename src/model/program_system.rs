//! A [`Program`] as a [`System`], with the naive treatment of handlers (DESIGN §1, §4).
//!
//! # Instances
//!
//! Every normal thread is one *instance*; so is every message that can ever be posted. A
//! message instance is named by where it comes from, never by the schedule: (posting instance,
//! post statement in it, iteration of that statement). A post inside loops can run up to the
//! product of their bounds, and each of those runs gets its own instance, so the set of
//! instances, and the packing of states, is fixed before exploring. (Messages that post
//! themselves are refused: there would be no bound.)
//!
//! # States
//!
//! A state is a fixed number of `u64` words: first 16-bit fields, four to a word — per
//! instance its status ([`Status`]), program counter, loop counters and post counters; per lock
//! its owner; per handler the instance it is running — then one word per shared variable and
//! per register of every instance (values are `i64`).
//!
//! # Transitions
//!
//! One transition per visible statement of each instance (per run, for a post inside loops): a shared access (`r = x`, `x = e`,
//! `cas`, `fetch_add`), `lock`, `unlock`, `post` or `assert`. Local statements (register
//! assignments, `if`, `while` tests, `assume`) are folded into the visible statement before
//! them: firing a transition runs its statement and then every local step up to the next visible
//! statement (or the end). The local steps at the start of a body run in the initial state (for
//! messages, on the instance's registers, which start at 0, so the result does not depend on
//! when the message is posted). A message whose body reaches no visible statement gets one
//! synthetic `start` transition, so that running it still takes a step.
//!
//! A transition is enabled when its statement is next and not blocked: a `lock` whose lock is
//! held is not enabled; a false `assume`, or a loop whose bound is exhausted while its condition
//! still holds, stops the instance for good ([`Status::Blocked`]). The first step of a message
//! is enabled when the message is pending and its handler runs nothing; it makes the handler
//! run it until its end.
//!
//! # Assertion failures
//!
//! A failing `assert`, a division or remainder by zero, or an `unlock` of a lock the instance
//! does not hold marks the instance [`Status::Failed`] and stops it (a failed message frees its
//! handler; a failed thread keeps its locks). The rest of the program runs on, so explorers see
//! every failure; [`ProgramSystem::assertion_failed`] tells whether a state has one. The status
//! is per instance rather than one global flag, so that failures add no dependence.
//!
//! # Footprints and the soundness of independence
//!
//! Resources: every shared variable, every lock, every handler, and every instance's *program
//! order*. A transition of instance `i` touches
//! - `W` on `i`'s program order (its status, counter, loop and post counters, registers);
//! - a read of `x`: `R` on `x`; a write or `cas`: `W`; a `fetch_add` whose result register is
//!   read nowhere in the body: `A` (its result is then not stored at all), else `W`;
//! - `lock m` / `unlock m`: `W` on `m`;
//! - `post`: `W` on the program order of the instance it creates (a post statement in a loop
//!   is one transition per run, enabled when its post counter says it is that run);
//! - if `i` is a message of handler `h`: `W` on `h` (the naive treatment: all steps of the
//!   messages of one handler are mutually dependent, which serialises them).
//!
//! *Claim.* If two transitions `t`, `u` are independent, then at every state `s` firing one
//! neither enables nor disables the other, and when both are enabled `s·t·u = s·u·t`.
//!
//! *Proof.* Partition the state into components: the fields of each instance (owned by its
//! program-order resource), each variable, each lock owner, each handler's running instance.
//! Firing `t` reads and writes only the components of resources in its footprint, and writes
//! only those where it has `W` or `A` (a `post` writes the status of its child, whose program
//! order it holds with `W`; the first and last step of a message write their handler, held with
//! `W`). Enabledness of `t` depends only on its own program order, the lock of a `lock` and the
//! handler of a message, all in its footprint with `W`. If `t` and `u` are independent, every
//! shared resource is accessed `R`–`R` or `A`–`A`. With `R`–`R` neither writes the component.
//! With `A`–`A` both are `fetch_add`s without stored result on one variable: each adds a
//! constant that depends only on its own registers, and wrapping additions commute; neither
//! enabledness depends on the variable. So each transition reads nothing the other writes and
//! their writes are to disjoint components or commute: the diamond holds. ∎
//!
//! Transitions of one instance are dependent (both `W` on its program order), a `post` is
//! dependent with every step of the messages it may create, and two messages of one handler
//! are dependent through the handler.

use std::fmt::Write as _;

use super::program::{
    Expr, HandlerId, LockId, MessageId, Program, RegId, SharedAccess, Stmt, StmtKind, VarId,
};
use crate::system::{Access, Footprint, Overflow, Resource, System, Touch, Transition};

/// Index of an instance (a thread, or a message instance).
pub type InstanceId = u32;

/// The most instances a program may have (16-bit fields hold instance ids and counters).
pub const MAX_INSTANCES: usize = 4096;

/// Why a program has no [`System`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    /// A message can post itself: its instances are unbounded.
    #[error(
        "message `{0}` can post itself (directly or through other messages): the number of messages would be unbounded"
    )]
    RecursivePost(String),
    /// Too many message instances after unrolling the posts in loops.
    #[error("the program has more than {MAX_INSTANCES} thread and message instances")]
    TooManyInstances,
}

/// The life-cycle of an instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// A message not posted (yet).
    Unposted,
    /// A message posted and waiting in its handler's mailbox.
    Pending,
    /// Started and not finished.
    Running,
    /// Finished.
    Done,
    /// Stopped for good by a false `assume` or an exhausted loop bound.
    Blocked,
    /// Stopped by an assertion failure.
    Failed,
}

impl Status {
    fn code(self) -> u64 {
        self as u64
    }

    fn from_code(c: u64) -> Status {
        [
            Status::Unposted,
            Status::Pending,
            Status::Running,
            Status::Done,
            Status::Blocked,
            Status::Failed,
        ][c as usize]
    }
}

/// What an instance is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstanceKind {
    /// Normal thread number `n` of the program.
    Thread(usize),
    /// A message instance.
    Message {
        /// The message.
        message: MessageId,
        /// The handler running it.
        handler: HandlerId,
        /// The instance whose post creates it.
        poster: InstanceId,
        /// Which post statement of the poster (in program order).
        site: u32,
        /// Which run of that statement (0 unless it is in a loop).
        iteration: u32,
    },
}

/// One instance with where its fields live.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Display name: the thread name, or `poster>message` (with `#site.iteration` when the
    /// poster creates several instances of the message).
    pub name: String,
    /// What it is.
    pub kind: InstanceKind,
    code: usize,
    /// 16-bit field of the status; the program counter, loop and post counters follow.
    status_f: u32,
    loops_f: u32,
    posts_f: u32,
    /// First word of the registers.
    regs_w: u32,
    /// For every post site of the body, the first of its consecutive child instances.
    children: Vec<InstanceId>,
}

impl Instance {
    fn pc_f(&self) -> u32 {
        self.status_f + 1
    }
}

/// A compiled operation. The first kinds are visible (one transition each); the others are
/// local and folded.
#[derive(Clone, Debug)]
enum Op {
    /// A shared access, as parsed; `store` says whether the old value goes to its register
    /// (false only for a `fetch_add` whose register nothing reads).
    Shared {
        access: SharedAccess,
        store: bool,
    },
    Lock(LockId),
    Unlock(LockId),
    Assert(Expr),
    Post {
        site: u32,
    },
    Local {
        reg: RegId,
        value: Expr,
    },
    JumpUnless {
        cond: Expr,
        target: u32,
    },
    Jump(u32),
    LoopHead {
        slot: u32,
        cond: Expr,
        bound: u32,
        exit: u32,
    },
    Assume(Expr),
    End,
}

impl Op {
    fn visible(&self) -> bool {
        matches!(
            self,
            Op::Shared { .. } | Op::Lock(_) | Op::Unlock(_) | Op::Assert(_) | Op::Post { .. }
        )
    }
}

/// A compiled body.
#[derive(Clone, Debug, Default)]
struct Code {
    ops: Vec<Op>,
    texts: Vec<String>,
    registers: Vec<String>,
    loops: u32,
    /// Post sites: handler, message, how many times the site can run.
    sites: Vec<(HandlerId, MessageId, u64)>,
}

fn compile_stmts(stmts: &[Stmt], used: &[bool], code: &mut Code) {
    for s in stmts {
        let op = match &s.kind {
            StmtKind::Shared(access) => Op::Shared {
                // An unread result is not stored: then two such adds commute exactly.
                store: !matches!(access, SharedAccess::FetchAdd { reg, .. } if !used[*reg as usize]),
                access: access.clone(),
            },
            StmtKind::Local { reg, value } => Op::Local {
                reg: *reg,
                value: value.clone(),
            },
            StmtKind::Lock(l) => Op::Lock(*l),
            StmtKind::Unlock(l) => Op::Unlock(*l),
            StmtKind::Assume(c) => Op::Assume(c.clone()),
            StmtKind::Assert(c) => Op::Assert(c.clone()),
            StmtKind::Post { handler, message } => {
                // `sites` is filled from `Body::post_sites`, which walks in this same order.
                let _ = (handler, message);
                let site = code
                    .ops
                    .iter()
                    .filter(|o| matches!(o, Op::Post { .. }))
                    .count();
                Op::Post { site: site as u32 }
            }
            StmtKind::If { cond, then, els } => {
                let at = code.ops.len();
                code.ops.push(Op::JumpUnless {
                    cond: cond.clone(),
                    target: 0,
                });
                code.texts.push(s.text.clone());
                compile_stmts(then, used, code);
                let jump = code.ops.len();
                code.ops.push(Op::Jump(0));
                code.texts.push(String::new());
                let else_at = code.ops.len() as u32;
                compile_stmts(els, used, code);
                let end = code.ops.len() as u32;
                if let Op::JumpUnless { target, .. } = &mut code.ops[at] {
                    *target = else_at;
                }
                code.ops[jump] = Op::Jump(end);
                continue;
            }
            StmtKind::While { cond, bound, body } => {
                let head = code.ops.len();
                let slot = code.loops;
                code.loops += 1;
                code.ops.push(Op::LoopHead {
                    slot,
                    cond: cond.clone(),
                    bound: *bound,
                    exit: 0,
                });
                code.texts.push(s.text.clone());
                compile_stmts(body, used, code);
                code.ops.push(Op::Jump(head as u32));
                code.texts.push(String::new());
                let end = code.ops.len() as u32;
                if let Op::LoopHead { exit, .. } = &mut code.ops[head] {
                    *exit = end;
                }
                continue;
            }
        };
        code.ops.push(op);
        code.texts.push(s.text.clone());
    }
}

fn compile(body: &super::program::Body) -> Code {
    let used = body.registers_read();
    let mut code = Code {
        registers: body.registers.clone(),
        sites: body.post_sites(),
        ..Code::default()
    };
    compile_stmts(&body.stmts, &used, &mut code);
    code.ops.push(Op::End);
    code.texts.push(String::new());
    code
}

/// Program counter of a message whose only step is the synthetic `start`.
const START_PC: u64 = 0xFFFE;
/// "Nobody" in a lock owner or handler field.
const NONE: u64 = 0xFFFF;

/// Where folding local steps stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    At(u32),
    End,
    Blocked,
    Failed,
}

#[derive(Clone, Debug)]
struct Trans {
    inst: InstanceId,
    /// The visible operation, or `None` for a synthetic start (then `start` is its outcome).
    pc: Option<u32>,
    start: Outcome,
    /// For a post: which run of the statement this transition is (its post counter value).
    post_run: u32,
    name: String,
    footprint: Vec<Touch>,
}

/// A program with the naive treatment of handlers, implementing [`System`].
#[derive(Clone, Debug)]
pub struct ProgramSystem {
    codes: Vec<Code>,
    instances: Vec<Instance>,
    transitions: Vec<Trans>,
    resource_names: Vec<String>,
    var_names: Vec<String>,
    lock_names: Vec<String>,
    handler_names: Vec<String>,
    /// First 16-bit field of the lock owners, then of the handlers' running instance.
    locks_f: u32,
    handlers_f: u32,
    /// Words of 16-bit fields; the variables start right after.
    small_words: usize,
    words: usize,
    initial: Vec<u64>,
}

impl ProgramSystem {
    /// Compiles `program`: instances, the state layout and the transitions.
    pub fn new(program: &Program) -> Result<ProgramSystem, ProgramError> {
        if let Some(m) = program.recursive_message() {
            return Err(ProgramError::RecursivePost(
                program.messages[m as usize].name.clone(),
            ));
        }
        let nt = program.threads.len();
        let mut codes: Vec<Code> = program.threads.iter().map(|t| compile(&t.body)).collect();
        codes.extend(program.messages.iter().map(|m| compile(&m.body)));

        // Instances: threads, then breadth first the messages each instance can post.
        let mut instances: Vec<Instance> = Vec::new();
        let mut next_field = 0u32;
        let mut next_word = 0u32;
        let mut alloc = |code: &Code, name: String, kind: InstanceKind| {
            let status_f = next_field;
            let loops_f = status_f + 2;
            let posts_f = loops_f + code.loops;
            next_field = posts_f + code.sites.len() as u32;
            let regs_w = next_word;
            next_word += code.registers.len() as u32;
            Instance {
                name,
                kind,
                code: 0,
                status_f,
                loops_f,
                posts_f,
                regs_w,
                children: Vec::new(),
            }
        };
        for (n, t) in program.threads.iter().enumerate() {
            let mut inst = alloc(&codes[n], t.name.clone(), InstanceKind::Thread(n));
            inst.code = n;
            instances.push(inst);
        }
        let mut i = 0;
        while i < instances.len() {
            let code = instances[i].code;
            let sites = codes[code].sites.clone();
            let mut per_message = vec![0u64; program.messages.len()];
            for &(_, m, mult) in &sites {
                per_message[m as usize] += mult;
            }
            let mut children = Vec::with_capacity(sites.len());
            for (site, &(handler, message, mult)) in sites.iter().enumerate() {
                if instances.len() as u64 + mult > MAX_INSTANCES as u64 {
                    return Err(ProgramError::TooManyInstances);
                }
                children.push(instances.len() as InstanceId);
                for iteration in 0..mult as u32 {
                    let base = format!(
                        "{}>{}",
                        instances[i].name, program.messages[message as usize].name
                    );
                    let name = if per_message[message as usize] > 1 {
                        format!("{base}#{site}.{iteration}")
                    } else {
                        base
                    };
                    let mc = nt + message as usize;
                    let mut inst = alloc(
                        &codes[mc],
                        name,
                        InstanceKind::Message {
                            message,
                            handler,
                            poster: i as InstanceId,
                            site: site as u32,
                            iteration,
                        },
                    );
                    inst.code = mc;
                    instances.push(inst);
                }
            }
            instances[i].children = children;
            i += 1;
        }
        let locks_f = next_field;
        let handlers_f = locks_f + program.locks.len() as u32;
        let fields = handlers_f + program.handlers.len() as u32;
        let small_words = (fields as usize).div_ceil(4);
        let words = small_words + program.vars.len() + next_word as usize;

        // Resources: variables, locks, handlers, program orders.
        let nv = program.vars.len() as u32;
        let nl = program.locks.len() as u32;
        let nh = program.handlers.len() as u32;
        let mut resource_names: Vec<String> = program.vars.iter().map(|v| v.name.clone()).collect();
        resource_names.extend(program.locks.iter().map(|l| format!("lock {l}")));
        resource_names.extend(program.handlers.iter().map(|h| format!("handler {h}")));
        resource_names.extend(instances.iter().map(|i| format!("po {}", i.name)));
        let po = |i: InstanceId| nv + nl + nh + i;

        let mut sys = ProgramSystem {
            codes,
            instances,
            transitions: Vec::new(),
            resource_names,
            var_names: program.vars.iter().map(|v| v.name.clone()).collect(),
            lock_names: program.locks.clone(),
            handler_names: program.handlers.clone(),
            locks_f,
            handlers_f,
            small_words,
            words,
            initial: vec![0; words],
        };

        // The initial state: locks free, handlers idle, variables initialised, and every
        // instance's leading local steps run.
        let mut init = vec![0u64; words];
        for f in locks_f..fields {
            set16(&mut init, f, NONE);
        }
        for (v, var) in program.vars.iter().enumerate() {
            init[small_words + v] = var.init as u64;
        }
        let mut starts = Vec::new();
        for i in 0..sys.instances.len() {
            let inst = &sys.instances[i];
            let out = sys.fold(i as InstanceId, &mut init, 0);
            let is_thread = matches!(inst.kind, InstanceKind::Thread(_));
            let (status_f, pc_f) = (inst.status_f, inst.pc_f());
            match (out, is_thread) {
                (Outcome::At(pc), true) => {
                    set16(&mut init, status_f, Status::Running.code());
                    set16(&mut init, pc_f, pc as u64);
                }
                (other, true) => set16(&mut init, status_f, outcome_status(other).code()),
                (Outcome::At(pc), false) => set16(&mut init, pc_f, pc as u64),
                (other, false) => {
                    set16(&mut init, pc_f, START_PC);
                    starts.push((i, other));
                }
            }
        }
        sys.initial = init;

        // Transitions, instance by instance, in program order.
        for (i, inst) in sys.instances.iter().enumerate() {
            let i = i as InstanceId;
            let code = &sys.codes[inst.code];
            let mut base = vec![Touch {
                resource: po(i),
                access: Access::WRITE,
            }];
            if let InstanceKind::Message { handler, .. } = inst.kind {
                base.push(Touch {
                    resource: nv + nl + handler,
                    access: Access::WRITE,
                });
            }
            if let Some(&(_, outcome)) = starts.iter().find(|(j, _)| *j == i as usize) {
                sys.transitions.push(Trans {
                    inst: i,
                    pc: None,
                    start: outcome,
                    post_run: 0,
                    name: format!("{}: start", inst.name),
                    footprint: sorted(base.clone()),
                });
            }
            for (pc, op) in code.ops.iter().enumerate() {
                if !op.visible() {
                    continue;
                }
                let mut fp = base.clone();
                let mut touch = |resource, access| fp.push(Touch { resource, access });
                match op {
                    Op::Shared {
                        access: SharedAccess::Read { var, .. },
                        ..
                    } => touch(*var, Access::READ),
                    Op::Shared {
                        access: SharedAccess::FetchAdd { var, .. },
                        store: false,
                    } => touch(*var, Access::ADD),
                    Op::Shared { access, .. } => touch(access.var(), Access::WRITE),
                    Op::Lock(l) | Op::Unlock(l) => touch(nv + *l, Access::WRITE),
                    Op::Post { site } => {
                        // One transition per run of the post statement, each creating one
                        // instance: a later run does not depend on the earlier children.
                        let first = inst.children[*site as usize];
                        let mult = code.sites[*site as usize].2 as u32;
                        for k in 0..mult {
                            let mut fp = fp.clone();
                            fp.push(Touch {
                                resource: po(first + k),
                                access: Access::WRITE,
                            });
                            let suffix = if mult > 1 {
                                format!(" #{k}")
                            } else {
                                String::new()
                            };
                            sys.transitions.push(Trans {
                                inst: i,
                                pc: Some(pc as u32),
                                start: Outcome::At(pc as u32),
                                post_run: k,
                                name: format!("{}: {}{suffix}", inst.name, code.texts[pc]),
                                footprint: sorted(fp),
                            });
                        }
                        continue;
                    }
                    _ => {}
                }
                sys.transitions.push(Trans {
                    inst: i,
                    pc: Some(pc as u32),
                    start: Outcome::At(pc as u32),
                    post_run: 0,
                    name: format!("{}: {}", inst.name, code.texts[pc]),
                    footprint: sorted(fp),
                });
            }
        }
        Ok(sys)
    }

    /// The instances (threads first, in file order, then message instances).
    pub fn instances(&self) -> &[Instance] {
        &self.instances
    }

    /// The instance a transition belongs to.
    pub fn transition_instance(&self, t: Transition) -> InstanceId {
        self.transitions[t as usize].inst
    }

    /// The statement of transition `t`, without the name of its instance.
    pub fn statement(&self, t: Transition) -> &str {
        let tr = &self.transitions[t as usize];
        let skip = self.instances[tr.inst as usize].name.len() + 2;
        tr.name.get(skip..).unwrap_or(&tr.name)
    }

    /// Whether transition `t` is a `lock` (an acquisition, disabled while the lock is held).
    pub fn is_lock(&self, t: Transition) -> bool {
        let tr = &self.transitions[t as usize];
        let code = &self.codes[self.instances[tr.inst as usize].code];
        tr.pc
            .is_some_and(|pc| matches!(code.ops[pc as usize], Op::Lock(_)))
    }

    /// The statement instance `i` runs next at `state` (for a running or pending instance).
    pub fn next_statement(&self, state: &[u64], i: InstanceId) -> Option<&str> {
        let inst = &self.instances[i as usize];
        match self.status(state, i) {
            Status::Running | Status::Pending => {
                let pc = get16(state, inst.pc_f());
                if pc == START_PC {
                    return Some("start");
                }
                self.codes[inst.code]
                    .texts
                    .get(pc as usize)
                    .map(String::as_str)
            }
            _ => None,
        }
    }

    /// Whether resource `r` is a lock.
    pub fn is_lock_resource(&self, r: Resource) -> bool {
        let nv = self.var_names.len() as Resource;
        (nv..nv + self.lock_names.len() as Resource).contains(&r)
    }

    /// Whether transition `t` is the next step of its instance at `state`, enabled or not: the
    /// statement is next, though its lock may be held or (for a message not started) its
    /// handler busy.
    pub fn is_next(&self, state: &[u64], t: Transition) -> bool {
        let tr = &self.transitions[t as usize];
        let inst = &self.instances[tr.inst as usize];
        let pc = get16(state, inst.pc_f());
        let here = match Status::from_code(get16(state, inst.status_f)) {
            Status::Running => tr.pc.is_some_and(|p| p as u64 == pc),
            Status::Pending => tr.pc.map_or(START_PC, |p| p as u64) == pc,
            _ => false,
        };
        here && match tr.pc.map(|p| &self.codes[inst.code].ops[p as usize]) {
            Some(Op::Post { site }) => get16(state, inst.posts_f + site) == tr.post_run as u64,
            _ => true,
        }
    }

    /// Number of handler threads.
    pub fn handler_count(&self) -> usize {
        self.handler_names.len()
    }

    /// The name of handler `h`.
    pub fn handler_name(&self, h: HandlerId) -> &str {
        &self.handler_names[h as usize]
    }

    /// The footprint resource of handler `h`: every step of its messages writes it (the naive
    /// serialisation of the handler, which Event-DPOR leaves out of its conflicts).
    pub fn handler_resource(&self, h: HandlerId) -> Resource {
        (self.var_names.len() + self.lock_names.len()) as Resource + h
    }

    /// The footprint of `t` without the handler resources: what Event-DPOR and its oracle
    /// count as conflicts, two messages of one handler being ordered by the handler alone.
    pub fn footprint_without_handlers(&self, t: Transition) -> Vec<Touch> {
        let first = self.handler_resource(0);
        let handlers = first..first + self.handler_names.len() as Resource;
        self.footprint(t)
            .iter()
            .filter(|x| !handlers.contains(&x.resource))
            .copied()
            .collect()
    }

    /// The footprint resource of instance `i`'s program order (written by each of its steps
    /// and by the post that creates it).
    pub fn program_order_resource(&self, i: InstanceId) -> Resource {
        (self.var_names.len() + self.lock_names.len() + self.handler_names.len()) as Resource + i
    }

    /// The status of instance `i` at `state`.
    pub fn status(&self, state: &[u64], i: InstanceId) -> Status {
        Status::from_code(get16(state, self.instances[i as usize].status_f))
    }

    /// Whether some instance has failed an assertion at `state` (a failing `assert`, a
    /// division by zero, an `unlock` of a lock not held). Failed instances stop; the others
    /// run on, so this is sticky along a run.
    pub fn assertion_failed(&self, state: &[u64]) -> bool {
        (0..self.instances.len() as InstanceId).any(|i| self.status(state, i) == Status::Failed)
    }

    /// The value of shared variable `v` at `state`.
    pub fn var(&self, state: &[u64], v: VarId) -> i64 {
        state[self.small_words + v as usize] as i64
    }

    fn reg_word(&self, i: InstanceId, r: RegId) -> usize {
        self.small_words + self.var_names.len() + (self.instances[i as usize].regs_w + r) as usize
    }

    fn eval(&self, i: InstanceId, state: &[u64], e: &Expr) -> Result<i64, ()> {
        e.eval(&|r| state[self.reg_word(i, r)] as i64)
            .map_err(|_| ())
    }

    /// Runs the local steps of instance `i` from `pc` on `state` until a visible operation,
    /// the end, a block or a failure.
    fn fold(&self, i: InstanceId, state: &mut [u64], mut pc: u32) -> Outcome {
        let inst = &self.instances[i as usize];
        let code = &self.codes[inst.code];
        loop {
            let op = &code.ops[pc as usize];
            if op.visible() {
                return Outcome::At(pc);
            }
            match op {
                Op::Local { reg, value } => match self.eval(i, state, value) {
                    Ok(v) => {
                        state[self.reg_word(i, *reg)] = v as u64;
                        pc += 1;
                    }
                    Err(()) => return Outcome::Failed,
                },
                Op::JumpUnless { cond, target } => match self.eval(i, state, cond) {
                    Ok(0) => pc = *target,
                    Ok(_) => pc += 1,
                    Err(()) => return Outcome::Failed,
                },
                Op::Jump(t) => pc = *t,
                Op::LoopHead {
                    slot,
                    cond,
                    bound,
                    exit,
                } => {
                    let f = inst.loops_f + slot;
                    match self.eval(i, state, cond) {
                        Ok(0) => {
                            // Reset, so that an inner loop starts afresh next time.
                            set16(state, f, 0);
                            pc = *exit;
                        }
                        Ok(_) => {
                            let n = get16(state, f);
                            if n >= *bound as u64 {
                                return Outcome::Blocked;
                            }
                            set16(state, f, n + 1);
                            pc += 1;
                        }
                        Err(()) => return Outcome::Failed,
                    }
                }
                Op::Assume(c) => match self.eval(i, state, c) {
                    Ok(0) => return Outcome::Blocked,
                    Ok(_) => pc += 1,
                    Err(()) => return Outcome::Failed,
                },
                Op::End => return Outcome::End,
                _ => unreachable!("visible operations return above"),
            }
        }
    }

    /// The handler running instance `i` (a message), or `None` (a thread).
    pub fn handler_of(&self, i: InstanceId) -> Option<HandlerId> {
        match self.instances[i as usize].kind {
            InstanceKind::Message { handler, .. } => Some(handler),
            InstanceKind::Thread(_) => None,
        }
    }

    /// Runs the shared access `a` of instance `i` on `out`, storing the old value in its
    /// register when `store`; fails on a division by zero.
    fn access(
        &self,
        i: InstanceId,
        a: &SharedAccess,
        store: bool,
        out: &mut [u64],
    ) -> Result<(), ()> {
        let var_word = self.small_words + a.var() as usize;
        let old = out[var_word];
        let (reg, new) = match a {
            SharedAccess::Read { reg, .. } => (Some(*reg), old),
            SharedAccess::Write { value, .. } => (None, self.eval(i, out, value)? as u64),
            SharedAccess::Cas {
                reg, expected, new, ..
            } => {
                let (e, n) = (self.eval(i, out, expected)?, self.eval(i, out, new)?);
                (Some(*reg), if old as i64 == e { n as u64 } else { old })
            }
            SharedAccess::FetchAdd { reg, delta, .. } => {
                let d = self.eval(i, out, delta)?;
                (Some(*reg), (old as i64).wrapping_add(d) as u64)
            }
        };
        out[var_word] = new;
        if let Some(r) = reg.filter(|_| store) {
            out[self.reg_word(i, r)] = old;
        }
        Ok(())
    }

    /// Runs the visible operation at `pc` of instance `i` on `out`.
    fn step(&self, i: InstanceId, pc: u32, out: &mut [u64]) -> Outcome {
        let inst = &self.instances[i as usize];
        let code = &self.codes[inst.code];
        match &code.ops[pc as usize] {
            Op::Shared { access, store } => {
                if self.access(i, access, *store, out).is_err() {
                    return Outcome::Failed;
                }
            }
            Op::Lock(l) => set16(out, self.locks_f + l, i as u64),
            Op::Unlock(l) => {
                if get16(out, self.locks_f + l) != i as u64 {
                    return Outcome::Failed;
                }
                set16(out, self.locks_f + l, NONE);
            }
            Op::Assert(c) => {
                if !matches!(self.eval(i, out, c), Ok(v) if v != 0) {
                    return Outcome::Failed;
                }
            }
            Op::Post { site } => {
                let f = inst.posts_f + site;
                let k = get16(out, f);
                debug_assert!(
                    k < code.sites[*site as usize].2,
                    "loop bounds cap the posts"
                );
                let child = inst.children[*site as usize] + k as u32;
                set16(
                    out,
                    self.instances[child as usize].status_f,
                    Status::Pending.code(),
                );
                set16(out, f, k + 1);
            }
            _ => unreachable!("transitions are visible operations"),
        }
        self.fold(i, out, pc + 1)
    }
}

fn outcome_status(o: Outcome) -> Status {
    match o {
        Outcome::At(_) => Status::Running,
        Outcome::End => Status::Done,
        Outcome::Blocked => Status::Blocked,
        Outcome::Failed => Status::Failed,
    }
}

/// Sorts a footprint by resource, merging repeated resources.
fn sorted(mut fp: Vec<Touch>) -> Vec<Touch> {
    fp.sort_by_key(|t| t.resource);
    let mut out: Vec<Touch> = Vec::with_capacity(fp.len());
    for t in fp {
        match out.last_mut() {
            Some(last) if last.resource == t.resource => last.access = last.access.union(t.access),
            _ => out.push(t),
        }
    }
    out
}

fn get16(state: &[u64], f: u32) -> u64 {
    (state[(f / 4) as usize] >> (16 * (f % 4))) & 0xFFFF
}

fn set16(state: &mut [u64], f: u32, v: u64) {
    debug_assert!(v <= 0xFFFF);
    let w = &mut state[(f / 4) as usize];
    let shift = 16 * (f % 4);
    *w = (*w & !(0xFFFF << shift)) | (v << shift);
}

impl System for ProgramSystem {
    fn state_words(&self) -> usize {
        self.words
    }

    /// A normal end: no instance is pending or running. Messages never posted, instances
    /// stopped by a failed assertion (reported as such, not as deadlocks) and instances blocked
    /// for good by a false `assume` or an exhausted loop bound (a discarded execution) count as
    /// ended; a thread waiting for a lock does not.
    fn is_terminal(&self, state: &[u64]) -> bool {
        (0..self.instances.len() as InstanceId).all(|i| {
            matches!(
                self.status(state, i),
                Status::Done | Status::Unposted | Status::Failed | Status::Blocked
            )
        })
    }

    fn initial_state(&self, out: &mut [u64]) {
        out.copy_from_slice(&self.initial);
    }

    fn transition_count(&self) -> usize {
        self.transitions.len()
    }

    fn transition_name(&self, t: Transition) -> &str {
        &self.transitions[t as usize].name
    }

    fn resource_count(&self) -> usize {
        self.resource_names.len()
    }

    fn resource_name(&self, r: Resource) -> &str {
        &self.resource_names[r as usize]
    }

    fn is_enabled(&self, state: &[u64], t: Transition) -> bool {
        let tr = &self.transitions[t as usize];
        let inst = &self.instances[tr.inst as usize];
        let pc = get16(state, inst.pc_f());
        let here = match Status::from_code(get16(state, inst.status_f)) {
            Status::Running => tr.pc.is_some_and(|p| p as u64 == pc),
            Status::Pending => {
                let idle = self
                    .handler_of(tr.inst)
                    .is_some_and(|h| get16(state, self.handlers_f + h) == NONE);
                idle && tr.pc.map_or(START_PC, |p| p as u64) == pc
            }
            _ => false,
        };
        here && match tr.pc.map(|p| &self.codes[inst.code].ops[p as usize]) {
            Some(Op::Lock(l)) => get16(state, self.locks_f + l) == NONE,
            Some(Op::Post { site }) => get16(state, inst.posts_f + site) == tr.post_run as u64,
            _ => true,
        }
    }

    fn fire(&self, state: &[u64], t: Transition, out: &mut [u64]) -> Result<(), Overflow> {
        out.copy_from_slice(state);
        self.fire_in_place(out, t)
    }

    fn fire_in_place(&self, out: &mut [u64], t: Transition) -> Result<(), Overflow> {
        let tr = &self.transitions[t as usize];
        let i = tr.inst;
        let inst = &self.instances[i as usize];
        let handler = self.handler_of(i);
        if let Some(h) = handler
            && get16(out, inst.status_f) == Status::Pending.code()
        {
            set16(out, self.handlers_f + h, i as u64);
        }
        let outcome = match tr.pc {
            Some(pc) => self.step(i, pc, out),
            None => tr.start,
        };
        set16(out, inst.status_f, outcome_status(outcome).code());
        if let Outcome::At(pc) = outcome {
            set16(out, inst.pc_f(), pc as u64);
        }
        // A finished or failed message frees its handler; a blocked one keeps it.
        if let Some(h) = handler
            && matches!(outcome, Outcome::End | Outcome::Failed)
        {
            set16(out, self.handlers_f + h, NONE);
        }
        Ok(())
    }

    fn footprint(&self, t: Transition) -> &Footprint {
        &self.transitions[t as usize].footprint
    }

    fn resource_bits(&self, r: Resource, out: &mut Vec<(usize, u64)>) -> bool {
        // The layout of `new`: a variable's word; a lock's or a handler's 16-bit field; an
        // instance's fields (status, counters) and register words. Every transition touches
        // what it changes (see the module doc), and the state holds nothing else.
        let field = |f: u32, out: &mut Vec<(usize, u64)>| {
            out.push(((f / 4) as usize, 0xFFFF << (16 * (f % 4))));
        };
        let (nv, nl, nh) = (
            self.var_names.len() as u32,
            self.lock_names.len() as u32,
            self.handler_names.len() as u32,
        );
        if r < nv {
            out.push((self.small_words + r as usize, u64::MAX));
        } else if r < nv + nl {
            field(self.locks_f + (r - nv), out);
        } else if r < nv + nl + nh {
            field(self.handlers_f + (r - nv - nl), out);
        } else {
            let inst = &self.instances[(r - nv - nl - nh) as usize];
            let code = &self.codes[inst.code];
            for f in inst.status_f..inst.posts_f + code.sites.len() as u32 {
                field(f, out);
            }
            let regs = self.small_words + self.var_names.len() + inst.regs_w as usize;
            out.extend((regs..regs + code.registers.len()).map(|w| (w, u64::MAX)));
        }
        true
    }

    /// The instances stopped by a failure (their status [`Status::Failed`] is never left:
    /// a failed instance enables nothing, and only its own steps change its status).
    fn failed_assertion(&self, state: &[u64]) -> Option<String> {
        let failed: Vec<&str> = (0..self.instances.len() as InstanceId)
            .filter(|&i| self.status(state, i) == Status::Failed)
            .map(|i| self.instances[i as usize].name.as_str())
            .collect();
        (!failed.is_empty()).then(|| format!("failed in {}", failed.join(", ")))
    }

    fn describe_state(&self, state: &[u64]) -> String {
        let mut s = String::new();
        for (v, name) in self.var_names.iter().enumerate() {
            let _ = write!(s, "{name}={} ", self.var(state, v as VarId));
        }
        for (l, name) in self.lock_names.iter().enumerate() {
            let o = get16(state, self.locks_f + l as u32);
            if o != NONE {
                let _ = write!(s, "{name}@{} ", self.instances[o as usize].name);
            }
        }
        for (h, name) in self.handler_names.iter().enumerate() {
            let o = get16(state, self.handlers_f + h as u32);
            if o != NONE {
                let _ = write!(s, "{name}:{} ", self.instances[o as usize].name);
            }
        }
        for (i, inst) in self.instances.iter().enumerate() {
            let st = self.status(state, i as InstanceId);
            if st == Status::Unposted {
                continue;
            }
            let _ = write!(s, "| {}:", inst.name);
            match st {
                Status::Running => {
                    let pc = get16(state, inst.pc_f()) as usize;
                    let _ = write!(s, "[{}]", self.codes[inst.code].texts[pc]);
                }
                other => {
                    let _ = write!(s, "{other:?}").map(|_| ());
                }
            }
            for (r, name) in self.codes[inst.code].registers.iter().enumerate() {
                let v = state[self.reg_word(i as InstanceId, r as RegId)] as i64;
                if v != 0 {
                    let _ = write!(s, " {name}={v}");
                }
            }
            s.push(' ');
        }
        s.trim_end().to_string()
    }
}
