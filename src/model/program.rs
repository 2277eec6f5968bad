//! Programs: a fixed set of threads over shared integer variables, with locks and handler
//! threads that run posted messages (the model behind `.tsys` files, DESIGN §1 and §4).
//!
//! A [`Program`] is the resolved form of a `.tsys` file: every name is an index, every
//! statement knows whether it touches shared state. Normal threads run their body once. A
//! handler thread has no code of its own: it owns a mailbox (a multiset, unbounded, posting
//! never blocks) and runs the pending messages one at a time, in any order, each to completion.
//!
//! Values are 64-bit signed integers with wrapping arithmetic (`+ - *`); division or remainder
//! by zero is a runtime assertion failure of the thread or message that evaluates it.
//! Conditions are integers too (non-zero is true); comparisons and `&& || !` give 0 or 1.
//!
//! Registers are local to one body (a thread's, or a message's: every posted instance of a
//! message has registers of its own), start at 0, and are declared by use.

use std::fmt;

/// Index of a shared variable.
pub type VarId = u32;
/// Index of a lock.
pub type LockId = u32;
/// Index of a handler thread.
pub type HandlerId = u32;
/// Index of a message (named or inline) in [`Program::messages`].
pub type MessageId = u32;
/// Index of a register inside one [`Body`].
pub type RegId = u32;

/// A shared variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedVar {
    /// Its name.
    pub name: String,
    /// Its initial value.
    pub init: i64,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// Arithmetic negation `-e`.
    Neg,
    /// Logical negation `!e` (1 if `e` is 0, else 0).
    Not,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (truncating; by zero: assertion failure)
    Div,
    /// `%` (remainder; by zero: assertion failure)
    Rem,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&` (short-circuit)
    And,
    /// `||` (short-circuit)
    Or,
}

/// An expression over registers and constants (never shared variables).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// An integer constant.
    Const(i64),
    /// A register of the enclosing body.
    Reg(RegId),
    /// A unary operation.
    Unary(UnOp, Box<Expr>),
    /// A binary operation.
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

/// Evaluation stopped: division or remainder by zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DivByZero;

impl Expr {
    /// The value of the expression, registers read from `regs`.
    pub fn eval(&self, regs: &dyn Fn(RegId) -> i64) -> Result<i64, DivByZero> {
        Ok(match self {
            Expr::Const(c) => *c,
            Expr::Reg(r) => regs(*r),
            Expr::Unary(UnOp::Neg, e) => e.eval(regs)?.wrapping_neg(),
            Expr::Unary(UnOp::Not, e) => (e.eval(regs)? == 0) as i64,
            Expr::Binary(BinOp::And, a, b) => (a.eval(regs)? != 0 && b.eval(regs)? != 0) as i64,
            Expr::Binary(BinOp::Or, a, b) => (a.eval(regs)? != 0 || b.eval(regs)? != 0) as i64,
            Expr::Binary(op, a, b) => {
                let (x, y) = (a.eval(regs)?, b.eval(regs)?);
                match op {
                    BinOp::Add => x.wrapping_add(y),
                    BinOp::Sub => x.wrapping_sub(y),
                    BinOp::Mul => x.wrapping_mul(y),
                    BinOp::Div if y == 0 => return Err(DivByZero),
                    BinOp::Div => x.wrapping_div(y),
                    BinOp::Rem if y == 0 => return Err(DivByZero),
                    BinOp::Rem => x.wrapping_rem(y),
                    BinOp::Eq => (x == y) as i64,
                    BinOp::Ne => (x != y) as i64,
                    BinOp::Lt => (x < y) as i64,
                    BinOp::Le => (x <= y) as i64,
                    BinOp::Gt => (x > y) as i64,
                    BinOp::Ge => (x >= y) as i64,
                    BinOp::And | BinOp::Or => unreachable!("handled above"),
                }
            }
        })
    }

    /// Calls `f` on every register the expression reads.
    pub fn registers(&self, f: &mut dyn FnMut(RegId)) {
        match self {
            Expr::Const(_) => {}
            Expr::Reg(r) => f(*r),
            Expr::Unary(_, e) => e.registers(f),
            Expr::Binary(_, a, b) => {
                a.registers(f);
                b.registers(f);
            }
        }
    }
}

/// An access to a shared variable: a read, a write, a `cas` or a `fetch_add`. The parsed
/// statement ([`StmtKind::Shared`]) and the compiled operation of the program's system hold the
/// same value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SharedAccess {
    /// `reg = var`: a read of a shared variable.
    Read {
        /// Destination register.
        reg: RegId,
        /// The variable read.
        var: VarId,
    },
    /// `var = value`: a write of a shared variable.
    Write {
        /// The variable written.
        var: VarId,
        /// The value (over registers).
        value: Expr,
    },
    /// `reg = cas(var, expected, new)`: if `var == expected` then `var = new`; `reg` gets the
    /// value `var` held before (so the swap happened iff `reg == expected`).
    Cas {
        /// Destination register.
        reg: RegId,
        /// The variable.
        var: VarId,
        /// The value compared with.
        expected: Expr,
        /// The value stored on success.
        new: Expr,
    },
    /// `reg = fetch_add(var, delta)`: `var += delta` (wrapping), `reg` gets the old value.
    FetchAdd {
        /// Destination register.
        reg: RegId,
        /// The variable.
        var: VarId,
        /// The increment.
        delta: Expr,
    },
}

impl SharedAccess {
    /// The variable accessed.
    pub fn var(&self) -> VarId {
        match self {
            SharedAccess::Read { var, .. }
            | SharedAccess::Write { var, .. }
            | SharedAccess::Cas { var, .. }
            | SharedAccess::FetchAdd { var, .. } => *var,
        }
    }

    /// Calls `f` on every register the access reads (in its expressions).
    pub fn registers(&self, f: &mut dyn FnMut(RegId)) {
        match self {
            SharedAccess::Read { .. } => {}
            SharedAccess::Write { value, .. } => value.registers(f),
            SharedAccess::Cas { expected, new, .. } => {
                expected.registers(f);
                new.registers(f);
            }
            SharedAccess::FetchAdd { delta, .. } => delta.registers(f),
        }
    }
}

/// What a statement does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// A read, write, `cas` or `fetch_add` of a shared variable.
    Shared(SharedAccess),
    /// `reg = value`: a local step.
    Local {
        /// Destination register.
        reg: RegId,
        /// The value.
        value: Expr,
    },
    /// `lock m`: blocks while `m` is held by anyone (locks are not reentrant).
    Lock(LockId),
    /// `unlock m`: releasing a lock the thread does not hold is an assertion failure.
    Unlock(LockId),
    /// `if (cond) { then } else { els }`.
    If {
        /// The condition.
        cond: Expr,
        /// Taken when the condition is non-zero.
        then: Vec<Stmt>,
        /// Taken otherwise (possibly empty).
        els: Vec<Stmt>,
    },
    /// `while (cond) bound N { body }`: the body runs at most `bound` times; if the condition
    /// still holds after that, the thread blocks for good (an unwinding assumption, like
    /// `assume(!cond)`), so bounded programs never silently leave a loop early.
    While {
        /// The condition.
        cond: Expr,
        /// The largest number of iterations.
        bound: u32,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `assume(cond)`: blocks for good when the condition is false (it only reads registers).
    Assume(Expr),
    /// `assert(cond)`: an assertion failure when false.
    Assert(Expr),
    /// `post h m`: adds an instance of message `m` to the mailbox of handler `h`.
    Post {
        /// The handler.
        handler: HandlerId,
        /// The message.
        message: MessageId,
    },
}

/// A statement with where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    /// What it does.
    pub kind: StmtKind,
    /// 1-based source line (0 for programs built by hand).
    pub line: u32,
    /// A short rendering, for transition names.
    pub text: String,
}

/// The code of a thread or a message, with its registers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Body {
    /// Register names (index = [`RegId`]).
    pub registers: Vec<String>,
    /// The statements.
    pub stmts: Vec<Stmt>,
}

impl Body {
    /// For every register, whether some statement reads it (in any expression).
    pub fn registers_read(&self) -> Vec<bool> {
        let mut used = vec![false; self.registers.len()];
        fn walk(stmts: &[Stmt], used: &mut Vec<bool>) {
            for s in stmts {
                let mut mark = |r: RegId| used[r as usize] = true;
                match &s.kind {
                    StmtKind::Lock(_) | StmtKind::Unlock(_) | StmtKind::Post { .. } => {}
                    StmtKind::Shared(a) => a.registers(&mut mark),
                    StmtKind::Local { value, .. } => value.registers(&mut mark),
                    StmtKind::Assume(c) | StmtKind::Assert(c) => c.registers(&mut mark),
                    StmtKind::If { cond, then, els } => {
                        cond.registers(&mut mark);
                        walk(then, used);
                        walk(els, used);
                    }
                    StmtKind::While { cond, body, .. } => {
                        cond.registers(&mut mark);
                        walk(body, used);
                    }
                }
            }
        }
        walk(&self.stmts, &mut used);
        used
    }

    /// The post statements in program order, each with how often it can run in one execution
    /// of the body (the product of the bounds of the loops around it, saturated).
    pub fn post_sites(&self) -> Vec<(HandlerId, MessageId, u64)> {
        fn walk(stmts: &[Stmt], mult: u64, out: &mut Vec<(HandlerId, MessageId, u64)>) {
            for s in stmts {
                match &s.kind {
                    StmtKind::Post { handler, message } => out.push((*handler, *message, mult)),
                    StmtKind::If { then, els, .. } => {
                        walk(then, mult, out);
                        walk(els, mult, out);
                    }
                    StmtKind::While { bound, body, .. } => {
                        walk(body, mult.saturating_mul(*bound as u64), out)
                    }
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.stmts, 1, &mut out);
        out
    }
}

/// A normal thread: its body runs once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    /// Its name.
    pub name: String,
    /// Its code.
    pub body: Body,
}

/// A message: code that a handler runs when it takes an instance from its mailbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// Its name (`name@line:col` for an inline body).
    pub name: String,
    /// Its code.
    pub body: Body,
}

/// A whole program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// The program's name (the file stem).
    pub name: String,
    /// Shared variables.
    pub vars: Vec<SharedVar>,
    /// Lock names.
    pub locks: Vec<String>,
    /// Handler thread names.
    pub handlers: Vec<String>,
    /// Messages, named and inline.
    pub messages: Vec<Message>,
    /// Normal threads, in file order.
    pub threads: Vec<Thread>,
}

impl Program {
    /// A message that can post itself, directly or through other messages (which would make
    /// the number of message instances unbounded), if any.
    pub fn recursive_message(&self) -> Option<MessageId> {
        // Depth-first search for a cycle in the "posts" graph of messages.
        let n = self.messages.len();
        let posts: Vec<Vec<MessageId>> = self
            .messages
            .iter()
            .map(|m| m.body.post_sites().iter().map(|s| s.1).collect())
            .collect();
        let mut colour = vec![0u8; n]; // 0 new, 1 on the stack, 2 done
        fn dfs(m: usize, posts: &[Vec<MessageId>], colour: &mut [u8]) -> Option<MessageId> {
            colour[m] = 1;
            for &p in &posts[m] {
                match colour[p as usize] {
                    1 => return Some(p),
                    0 => {
                        if let Some(c) = dfs(p as usize, posts, colour) {
                            return Some(c);
                        }
                    }
                    _ => {}
                }
            }
            colour[m] = 2;
            None
        }
        (0..n).find_map(|m| {
            if colour[m] == 0 {
                dfs(m, &posts, &mut colour)
            } else {
                None
            }
        })
    }
}

impl fmt::Display for BinOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluation() {
        let regs = |r: RegId| [3i64, 0][r as usize];
        let b = |op, x, y| Expr::Binary(op, Box::new(x), Box::new(y));
        let e = b(BinOp::Add, Expr::Reg(0), Expr::Const(4));
        assert_eq!(e.eval(&regs), Ok(7));
        assert_eq!(
            b(BinOp::Div, Expr::Const(1), Expr::Reg(1)).eval(&regs),
            Err(DivByZero)
        );
        // Short-circuit: the division is never evaluated.
        let sc = b(
            BinOp::And,
            Expr::Reg(1),
            b(BinOp::Div, Expr::Const(1), Expr::Reg(1)),
        );
        assert_eq!(sc.eval(&regs), Ok(0));
        assert_eq!(
            Expr::Unary(UnOp::Not, Box::new(Expr::Reg(1))).eval(&regs),
            Ok(1)
        );
    }
}
