//! The textual transition-system format `.tsys`: programs with threads, locks, handler threads
//! and messages (see [`crate::model::program`] for the semantics).
//!
//! ```text
//! var x, y;                 // shared, initially 0 (`var z = 5;` to initialise)
//! lock m;                   // a lock (`lock m1, m2;` for several)
//! handler h;                // a handler thread with a mailbox (`handler h1, h2;`)
//! bound 3;                  // default bound of loops written without one
//! message p1 { y = 2; }
//! message p2 { a = x; if (a == 0) { b = y; } }   // a, b: registers, declared by use
//! thread s { post h p1; x = 1; }
//! thread t { post h p2; }
//! thread u { post h { x = 3; } }                  // an inline message body
//! ```
//!
//! Statements: `r = x;` (read), `x = e;` (write), `r = e;` (local), `r = cas(x, e1, e2);`,
//! `r = fetch_add(x, e);`, `lock m;`, `unlock m;`, `assume(c);`, `assert(c);`,
//! `post h p;` and the block statements (no `;` after them) `if (c) { … } else { … }`
//! (`else if` chains too), `while (c) bound N { … }` and `post h { … }`. Expressions are over
//! integer constants and registers: `+ - * / %`, `== != < <= > >=`, `&& || !`, unary `-`,
//! parentheses. A shared variable appears only as the variable of a read, write, `cas` or
//! `fetch_add`, so that one statement touches at most one shared object. `//` starts a comment.
//!
//! Names: shared variables, locks, handlers, messages and threads are declared at the top level
//! (messages may be used before their declaration); every other name in a body is a register
//! of that body, declared by being assigned. Errors carry a line and column: an undeclared
//! variable (read but never assigned, or not shared where a shared one is needed), a post to a
//! name that is not a handler, two shared accesses in one statement (or a shared variable inside
//! an expression), a loop without a bound when no `bound N;` is given, an unknown message, a
//! message that posts itself (unbounded instances), duplicate declarations.

use std::path::Path;

use nom::{
    IResult, Parser,
    branch::alt,
    bytes::complete::{tag, take_until, take_while1},
    character::complete::{alpha1, alphanumeric1, digit1, multispace1},
    combinator::recognize,
    multi::many0_count,
    sequence::pair,
};
use rustc_hash::FxHashMap;

use super::text::{Fail, Res, fail, model_name};
use super::{Position, ReadError};
use crate::model::program::{
    BinOp, Body, Expr, Message, MessageId, Program, SharedAccess, SharedVar, Stmt, StmtKind,
    Thread, UnOp,
};

/// The largest loop bound (loop counters are 16-bit fields of the packed state).
pub const MAX_BOUND: u32 = 1000;

/// The deepest nesting of statements and of expressions (parentheses, unary operators, and
/// the operators of one chain such as `a + b + c`): the parser and the later passes recurse
/// over the syntax tree, and a deeper program would overflow the stack.
pub const MAX_NESTING: usize = 256;

/// Parses a `.tsys` program; it is named after the file stem.
pub fn parse(bytes: &[u8], file: &Path) -> Result<Program, ReadError> {
    let in_file = |f: Fail| f.in_file(bytes, file);
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => return fail(e.valid_up_to(), "the file is not valid UTF-8").map_err(in_file),
    };
    let mut lexer = Lexer {
        src: text,
        pos: 0,
        depth: 0,
    };
    let raw = lexer.file().map_err(in_file)?;
    let mut program = resolve(text, raw).map_err(in_file)?;
    program.name = model_name(file);
    Ok(program)
}

/// Parses a program from a string (errors name the file `<input>`).
pub fn parse_str(text: &str) -> Result<Program, ReadError> {
    parse(text.as_bytes(), Path::new("<input>"))
}

/// The keywords that open the top-level declarations of a program: every program starts with
/// one of them, after white space and comments.
const DECLARATIONS: &[&str] = &["var", "lock", "handler", "bound", "message", "thread"];

/// Whether `head`, the first bytes of a file, opens as a program does: after white space and
/// `//` comments, one of the top-level declaration keywords as a whole word. `head` may end
/// anywhere, even inside a character; a byte-order mark is no white space here, as for
/// [`parse`].
pub(super) fn opens_as_program(head: &[u8]) -> bool {
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).expect("valid up to there"),
    };
    let rest = skip(text).map_or(text, |(rest, _)| rest);
    ident_token(rest).is_ok_and(|(_, word)| DECLARATIONS.contains(&word))
}

// ---------------------------------------------------------------------------------------------
// Lexing and the raw syntax tree

/// A name with its offset.
#[derive(Clone, Debug)]
struct Name {
    text: String,
    at: usize,
}

#[derive(Clone, Debug)]
enum RExpr {
    Int(i64),
    Name(Name),
    Un(UnOp, Box<RExpr>),
    Bin(BinOp, Box<RExpr>, Box<RExpr>),
}

#[derive(Clone, Debug)]
enum PostTarget {
    Named(Name),
    Inline(Vec<RStmt>),
}

#[derive(Clone, Debug)]
enum RKind {
    Assign(Name, RExpr),
    Cas(Name, Name, RExpr, RExpr),
    FetchAdd(Name, Name, RExpr),
    Lock(Name),
    Unlock(Name),
    If(RExpr, Vec<RStmt>, Vec<RStmt>),
    While(RExpr, Option<u32>, Vec<RStmt>),
    Assume(RExpr),
    Assert(RExpr),
    Post(Name, PostTarget),
}

#[derive(Clone, Debug)]
struct RStmt {
    kind: RKind,
    at: usize,
    /// End of the statement's header text (for the rendering).
    end: usize,
}

#[derive(Debug)]
enum Item {
    Vars(Vec<(Name, i64)>),
    Locks(Vec<Name>),
    Handlers(Vec<Name>),
    Bound(u32, usize),
    Message(Name, Vec<RStmt>),
    Thread(Name, Vec<RStmt>),
}

const KEYWORDS: &[&str] = &[
    "var",
    "lock",
    "unlock",
    "handler",
    "bound",
    "message",
    "thread",
    "if",
    "else",
    "while",
    "assume",
    "assert",
    "post",
    "cas",
    "fetch_add",
];

type NomRes<'a, O> = IResult<&'a str, O>;

/// White space and `//` comments.
fn skip(input: &str) -> NomRes<'_, usize> {
    many0_count(alt((
        multispace1,
        recognize(pair(
            tag("//"),
            alt((take_until("\n"), take_while1(|_| true))),
        )),
        tag("//"),
    )))
    .parse(input)
}

fn ident_token(input: &str) -> NomRes<'_, &str> {
    recognize(pair(
        alt((alpha1, tag("_"))),
        many0_count(alt((alphanumeric1, tag("_")))),
    ))
    .parse(input)
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    /// Current nesting of statements and expressions (see [`MAX_NESTING`]).
    depth: usize,
}

impl<'a> Lexer<'a> {
    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    /// One level deeper (a statement, a parenthesis, an operator); refused past
    /// [`MAX_NESTING`].
    fn enter(&mut self, at: usize) -> Res<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return fail(
                at,
                format!(
                    "nested too deep: more than {MAX_NESTING} levels of statements or \
                     expressions (an operator chain such as `a + b + c` counts one level per \
                     operator)"
                ),
            );
        }
        Ok(())
    }

    fn leave(&mut self, levels: usize) {
        self.depth -= levels;
    }

    /// Skips white space and comments; returns the offset of the next token.
    fn ws(&mut self) -> usize {
        if let Ok((rest, _)) = skip(self.rest()) {
            self.pos = self.src.len() - rest.len();
        }
        self.pos
    }

    /// Applies a nom parser after white space; advances on success.
    fn lex<O>(
        &mut self,
        mut p: impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>>,
    ) -> Option<O> {
        self.ws();
        match p.parse(self.rest()) {
            Ok((rest, o)) => {
                self.pos = self.src.len() - rest.len();
                Some(o)
            }
            Err(_) => None,
        }
    }

    fn at_end(&mut self) -> bool {
        self.ws();
        self.pos == self.src.len()
    }

    /// What the next token looks like, for error messages.
    fn next_desc(&mut self) -> String {
        let at = self.ws();
        let rest = &self.src[at..];
        if rest.is_empty() {
            return "end of file".into();
        }
        match ident_token(rest) {
            Ok((_, w)) => format!("`{w}`"),
            _ => format!("`{}`", rest.chars().next().unwrap()),
        }
    }

    /// Consumes punctuation `p` if it is next.
    fn eat(&mut self, p: &'static str) -> bool {
        self.lex(tag(p)).is_some()
    }

    fn expect(&mut self, p: &'static str) -> Res<()> {
        if self.eat(p) {
            Ok(())
        } else {
            let what = self.next_desc();
            fail(self.pos, format!("expected `{p}`, found {what}"))
        }
    }

    /// Consumes keyword `k` if it is the next word.
    fn keyword(&mut self, k: &str) -> bool {
        let save = self.pos;
        match self.lex(ident_token) {
            Some(w) if w == k => true,
            _ => {
                self.pos = save;
                false
            }
        }
    }

    fn peek_keyword(&mut self, k: &str) -> bool {
        let save = self.pos;
        let r = self.keyword(k);
        self.pos = save;
        r
    }

    fn name(&mut self, what: &str) -> Res<Name> {
        let at = self.ws();
        match self.lex(ident_token) {
            Some(w) if !KEYWORDS.contains(&w) => Ok(Name {
                text: w.to_string(),
                at,
            }),
            Some(w) => {
                self.pos = at;
                fail(at, format!("expected {what}, found the keyword `{w}`"))
            }
            None => {
                let found = self.next_desc();
                fail(at, format!("expected {what}, found {found}"))
            }
        }
    }

    fn integer(&mut self) -> Res<i64> {
        let at = self.ws();
        let neg = self.eat("-");
        match self.lex(digit1) {
            Some(d) => {
                let v: i64 = format!("{}{d}", if neg { "-" } else { "" })
                    .parse()
                    .map_err(|_| Fail {
                        offset: at,
                        message: format!("integer `{d}` out of range"),
                    })?;
                Ok(v)
            }
            None => {
                let found = self.next_desc();
                fail(self.pos, format!("expected an integer, found {found}"))
            }
        }
    }

    fn bound(&mut self) -> Res<u32> {
        let at = self.ws();
        let v = self.integer()?;
        if !(0..=MAX_BOUND as i64).contains(&v) {
            return fail(at, format!("loop bound {v} outside 0..={MAX_BOUND}"));
        }
        Ok(v as u32)
    }

    fn file(&mut self) -> Res<Vec<Item>> {
        let mut items = Vec::new();
        while !self.at_end() {
            items.push(self.item()?);
        }
        Ok(items)
    }

    fn name_list(&mut self, what: &str) -> Res<Vec<Name>> {
        let mut names = vec![self.name(what)?];
        while self.eat(",") {
            names.push(self.name(what)?);
        }
        self.expect(";")?;
        Ok(names)
    }

    fn item(&mut self) -> Res<Item> {
        let at = self.ws();
        if self.keyword("var") {
            let mut vars = Vec::new();
            loop {
                let n = self.name("a variable name")?;
                let init = if self.eat("=") { self.integer()? } else { 0 };
                vars.push((n, init));
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(";")?;
            Ok(Item::Vars(vars))
        } else if self.keyword("lock") {
            Ok(Item::Locks(self.name_list("a lock name")?))
        } else if self.keyword("handler") {
            Ok(Item::Handlers(self.name_list("a handler name")?))
        } else if self.keyword("bound") {
            let b = self.bound()?;
            self.expect(";")?;
            Ok(Item::Bound(b, at))
        } else if self.keyword("message") {
            let n = self.name("a message name")?;
            Ok(Item::Message(n, self.block()?))
        } else if self.keyword("thread") {
            let n = self.name("a thread name")?;
            Ok(Item::Thread(n, self.block()?))
        } else {
            let found = self.next_desc();
            fail(
                at,
                format!(
                    "expected a declaration (`var`, `lock`, `handler`, `bound`, `message`, `thread`), found {found}"
                ),
            )
        }
    }

    fn block(&mut self) -> Res<Vec<RStmt>> {
        self.expect("{")?;
        let mut stmts = Vec::new();
        while !self.eat("}") {
            if self.at_end() {
                return fail(self.pos, "expected `}`, found end of file");
            }
            stmts.push(self.stmt()?);
        }
        Ok(stmts)
    }

    fn stmt(&mut self) -> Res<RStmt> {
        let at = self.ws();
        self.enter(at)?;
        let stmt = self.stmt_inner(at);
        self.leave(1);
        stmt
    }

    fn stmt_inner(&mut self, at: usize) -> Res<RStmt> {
        let mut end = None;
        let kind = if self.keyword("if") {
            let c = self.paren_expr()?;
            end = Some(self.pos);
            let then = self.block()?;
            let els = if self.keyword("else") {
                if self.peek_keyword("if") {
                    vec![self.stmt()?]
                } else {
                    self.block()?
                }
            } else {
                Vec::new()
            };
            RKind::If(c, then, els)
        } else if self.keyword("while") {
            let c = self.paren_expr()?;
            let b = if self.keyword("bound") {
                Some(self.bound()?)
            } else {
                None
            };
            end = Some(self.pos);
            RKind::While(c, b, self.block()?)
        } else if self.keyword("post") {
            let h = self.name("a handler name")?;
            if self.peek_punct("{") {
                end = Some(self.pos);
                RKind::Post(h, PostTarget::Inline(self.block()?))
            } else {
                let m = self.name("a message name or `{`")?;
                self.expect(";")?;
                RKind::Post(h, PostTarget::Named(m))
            }
        } else if self.keyword("lock") {
            let n = self.name("a lock name")?;
            self.expect(";")?;
            RKind::Lock(n)
        } else if self.keyword("unlock") {
            let n = self.name("a lock name")?;
            self.expect(";")?;
            RKind::Unlock(n)
        } else if self.keyword("assume") {
            let c = self.paren_expr()?;
            self.expect(";")?;
            RKind::Assume(c)
        } else if self.keyword("assert") {
            let c = self.paren_expr()?;
            self.expect(";")?;
            RKind::Assert(c)
        } else {
            let lhs = self.name("a statement")?;
            self.expect("=")?;
            let kind = if self.keyword("cas") {
                self.expect("(")?;
                let v = self.name("a shared variable")?;
                self.expect(",")?;
                let e1 = self.expr()?;
                self.expect(",")?;
                let e2 = self.expr()?;
                self.expect(")")?;
                RKind::Cas(lhs, v, e1, e2)
            } else if self.keyword("fetch_add") {
                self.expect("(")?;
                let v = self.name("a shared variable")?;
                self.expect(",")?;
                let e = self.expr()?;
                self.expect(")")?;
                RKind::FetchAdd(lhs, v, e)
            } else {
                RKind::Assign(lhs, self.expr()?)
            };
            self.expect(";")?;
            kind
        };
        let end = end.unwrap_or(self.pos);
        Ok(RStmt { kind, at, end })
    }

    fn peek_punct(&mut self, p: &'static str) -> bool {
        let save = self.pos;
        let r = self.eat(p);
        self.pos = save;
        r
    }

    fn paren_expr(&mut self) -> Res<RExpr> {
        self.expect("(")?;
        let e = self.expr()?;
        self.expect(")")?;
        Ok(e)
    }

    fn expr(&mut self) -> Res<RExpr> {
        self.binary(0)
    }

    /// Precedence climbing: `||` < `&&` < comparisons < `+ -` < `* / %`.
    fn binary(&mut self, level: usize) -> Res<RExpr> {
        const LEVELS: &[&[(&str, BinOp)]] = &[
            &[("||", BinOp::Or)],
            &[("&&", BinOp::And)],
            &[
                ("==", BinOp::Eq),
                ("!=", BinOp::Ne),
                ("<=", BinOp::Le),
                (">=", BinOp::Ge),
                ("<", BinOp::Lt),
                (">", BinOp::Gt),
            ],
            &[("+", BinOp::Add), ("-", BinOp::Sub)],
            &[("*", BinOp::Mul), ("/", BinOp::Div), ("%", BinOp::Rem)],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        // Each operator of a chain nests the tree one level deeper (it is left-deep).
        let mut chain = 0;
        'more: loop {
            for &(p, op) in LEVELS[level] {
                let at = self.ws();
                if self.eat(p) {
                    self.enter(at)?;
                    chain += 1;
                    let rhs = self.binary(level + 1)?;
                    lhs = RExpr::Bin(op, Box::new(lhs), Box::new(rhs));
                    // Comparisons do not chain (`a < b < c` is refused).
                    if level == 2 {
                        break 'more;
                    }
                    continue 'more;
                }
            }
            break;
        }
        self.leave(chain);
        Ok(lhs)
    }

    fn unary(&mut self) -> Res<RExpr> {
        if self.peek_punct("!=") {
            let found = self.next_desc();
            return fail(self.pos, format!("expected an expression, found {found}"));
        }
        let at = self.ws();
        for (p, op) in [("!", Some(UnOp::Not)), ("-", Some(UnOp::Neg)), ("(", None)] {
            if self.eat(p) {
                self.enter(at)?;
                let e = match op {
                    Some(op) => RExpr::Un(op, Box::new(self.unary()?)),
                    None => {
                        let e = self.expr()?;
                        self.expect(")")?;
                        e
                    }
                };
                self.leave(1);
                return Ok(e);
            }
        }
        if let Some(d) = self.lex(digit1) {
            return d.parse().map(RExpr::Int).map_err(|_| Fail {
                offset: at,
                message: format!("integer `{d}` out of range"),
            });
        }
        let n = self.name("an expression")?;
        Ok(RExpr::Name(n))
    }
}

// ---------------------------------------------------------------------------------------------
// Name resolution

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Global {
    Var(u32),
    Lock(u32),
    Handler(u32),
    Message(u32),
    Thread,
}

impl Global {
    fn what(self) -> &'static str {
        match self {
            Global::Var(_) => "a shared variable",
            Global::Lock(_) => "a lock",
            Global::Handler(_) => "a handler",
            Global::Message(_) => "a message",
            Global::Thread => "a thread",
        }
    }
}

struct Resolver<'a> {
    src: &'a str,
    globals: FxHashMap<String, Global>,
    default_bound: Option<u32>,
    program: Program,
    /// Named message bodies, resolved on demand into `program.messages`.
    named: Vec<Option<Vec<RStmt>>>,
    /// Where each post statement of a message is, by message (for the recursion error).
    post_at: Vec<Vec<usize>>,
}

fn resolve(src: &str, items: Vec<Item>) -> Res<Program> {
    let mut r = Resolver {
        src,
        globals: FxHashMap::default(),
        default_bound: None,
        program: Program::default(),
        named: Vec::new(),
        post_at: Vec::new(),
    };
    // Pass 1: declarations, so that messages can be used before they are declared.
    let declare = |r: &mut Resolver, n: &Name, g: Global| -> Res<()> {
        if KEYWORDS.contains(&n.text.as_str()) {
            return fail(n.at, format!("`{}` is a keyword", n.text));
        }
        match r.globals.insert(n.text.clone(), g) {
            Some(old) => fail(
                n.at,
                format!("`{}` is already declared as {}", n.text, old.what()),
            ),
            None => Ok(()),
        }
    };
    let mut bodies = Vec::new();
    for item in items {
        match item {
            Item::Vars(vs) => {
                for (n, init) in vs {
                    let id = r.program.vars.len() as u32;
                    declare(&mut r, &n, Global::Var(id))?;
                    r.program.vars.push(SharedVar { name: n.text, init });
                }
            }
            Item::Locks(ls) => {
                for n in ls {
                    let id = r.program.locks.len() as u32;
                    declare(&mut r, &n, Global::Lock(id))?;
                    r.program.locks.push(n.text);
                }
            }
            Item::Handlers(hs) => {
                for n in hs {
                    let id = r.program.handlers.len() as u32;
                    declare(&mut r, &n, Global::Handler(id))?;
                    r.program.handlers.push(n.text);
                }
            }
            Item::Bound(b, at) => {
                if r.default_bound.replace(b).is_some() {
                    return fail(at, "the default loop bound is given twice");
                }
            }
            Item::Message(n, body) => {
                let id = r.program.messages.len() as u32;
                declare(&mut r, &n, Global::Message(id))?;
                r.program.messages.push(Message {
                    name: n.text,
                    body: Body::default(),
                });
                r.named.push(Some(body));
                r.post_at.push(Vec::new());
            }
            Item::Thread(n, body) => {
                declare(&mut r, &n, Global::Thread)?;
                bodies.push((n.text, body));
            }
        }
    }
    // Pass 2: bodies. Named messages first, so that their ids stay those of pass 1.
    for m in 0..r.named.len() {
        let raw = r.named[m].take().expect("each named message once");
        let body = r.body(&raw, m)?;
        r.program.messages[m].body = body;
    }
    for (name, raw) in bodies {
        let body = r.body(&raw, usize::MAX)?;
        r.program.threads.push(Thread { name, body });
    }
    if let Some(m) = r.program.recursive_message() {
        let name = &r.program.messages[m as usize].name;
        let at = r.post_at[m as usize].first().copied().unwrap_or(0);
        return fail(
            at,
            format!(
                "message `{name}` can post itself (directly or through other messages): the number of messages would be unbounded"
            ),
        );
    }
    Ok(r.program)
}

/// Registers of one body being resolved.
struct Regs {
    ids: FxHashMap<String, u32>,
    names: Vec<String>,
}

impl Resolver<'_> {
    /// Resolves a body; `owner` is the message being resolved (`usize::MAX` for a thread).
    fn body(&mut self, raw: &[RStmt], owner: usize) -> Res<Body> {
        // Registers are the names assigned in this body that are not global.
        let mut regs = Regs {
            ids: FxHashMap::default(),
            names: Vec::new(),
        };
        fn collect(stmts: &[RStmt], g: &FxHashMap<String, Global>, regs: &mut Regs) {
            for s in stmts {
                let lhs = match &s.kind {
                    RKind::Assign(l, _) | RKind::Cas(l, ..) | RKind::FetchAdd(l, ..) => Some(l),
                    _ => None,
                };
                if let Some(l) = lhs
                    && !g.contains_key(&l.text)
                    && !regs.ids.contains_key(&l.text)
                {
                    regs.ids.insert(l.text.clone(), regs.names.len() as u32);
                    regs.names.push(l.text.clone());
                }
                match &s.kind {
                    RKind::If(_, a, b) => {
                        collect(a, g, regs);
                        collect(b, g, regs);
                    }
                    RKind::While(_, _, b) => collect(b, g, regs),
                    // Inline message bodies have registers of their own.
                    _ => {}
                }
            }
        }
        collect(raw, &self.globals, &mut regs);
        let stmts = self.stmts(raw, &regs, owner)?;
        Ok(Body {
            registers: regs.names,
            stmts,
        })
    }

    fn stmts(&mut self, raw: &[RStmt], regs: &Regs, owner: usize) -> Res<Vec<Stmt>> {
        raw.iter().map(|s| self.stmt(s, regs, owner)).collect()
    }

    /// The rendering of a statement header: its source text with white space collapsed.
    fn text(&self, s: &RStmt) -> String {
        let raw = &self.src[s.at..s.end];
        let raw = raw.trim_end().trim_end_matches(';');
        let mut out = String::new();
        for w in raw.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(w);
        }
        out
    }

    fn line(&self, at: usize) -> u32 {
        match Position::of_offset(self.src.as_bytes(), at) {
            Position::LineCol { line, .. } => line,
            Position::Byte(_) => 0,
        }
    }

    fn stmt(&mut self, s: &RStmt, regs: &Regs, owner: usize) -> Res<Stmt> {
        let kind = match &s.kind {
            RKind::Assign(lhs, rhs) => match self.globals.get(&lhs.text) {
                Some(Global::Var(v)) => StmtKind::Shared(SharedAccess::Write {
                    var: *v,
                    value: self.expr(rhs, regs, true)?,
                }),
                Some(g) => {
                    return fail(
                        lhs.at,
                        format!("cannot assign to `{}`: it is {}", lhs.text, g.what()),
                    );
                }
                None => {
                    let reg = regs.ids[&lhs.text];
                    match rhs {
                        RExpr::Name(n)
                            if matches!(self.globals.get(&n.text), Some(Global::Var(_))) =>
                        {
                            let Some(Global::Var(var)) = self.globals.get(&n.text) else {
                                unreachable!()
                            };
                            StmtKind::Shared(SharedAccess::Read { reg, var: *var })
                        }
                        _ => StmtKind::Local {
                            reg,
                            value: self.expr(rhs, regs, false)?,
                        },
                    }
                }
            },
            RKind::Cas(lhs, var, e1, e2) => {
                let reg = self.result_register(lhs, regs)?;
                let var = self.shared(var)?;
                StmtKind::Shared(SharedAccess::Cas {
                    reg,
                    var,
                    expected: self.expr(e1, regs, true)?,
                    new: self.expr(e2, regs, true)?,
                })
            }
            RKind::FetchAdd(lhs, var, e) => {
                let reg = self.result_register(lhs, regs)?;
                let var = self.shared(var)?;
                StmtKind::Shared(SharedAccess::FetchAdd {
                    reg,
                    var,
                    delta: self.expr(e, regs, true)?,
                })
            }
            RKind::Lock(n) => StmtKind::Lock(self.lock(n)?),
            RKind::Unlock(n) => StmtKind::Unlock(self.lock(n)?),
            RKind::If(c, a, b) => StmtKind::If {
                cond: self.expr(c, regs, false)?,
                then: self.stmts(a, regs, owner)?,
                els: self.stmts(b, regs, owner)?,
            },
            RKind::While(c, b, body) => {
                let Some(bound) = b.or(self.default_bound) else {
                    return fail(
                        s.at,
                        "loop without a bound: write `while (c) bound N { … }` or declare a default `bound N;`",
                    );
                };
                StmtKind::While {
                    cond: self.expr(c, regs, false)?,
                    bound,
                    body: self.stmts(body, regs, owner)?,
                }
            }
            RKind::Assume(c) => StmtKind::Assume(self.expr(c, regs, false)?),
            RKind::Assert(c) => StmtKind::Assert(self.expr(c, regs, false)?),
            RKind::Post(h, target) => {
                let handler = match self.globals.get(&h.text) {
                    Some(Global::Handler(id)) => *id,
                    Some(g) => {
                        return fail(
                            h.at,
                            format!(
                                "cannot post to `{}`: it is {}, not a handler",
                                h.text,
                                g.what()
                            ),
                        );
                    }
                    None => {
                        return fail(
                            h.at,
                            format!("cannot post to `{}`: it is not a declared handler", h.text),
                        );
                    }
                };
                let message: MessageId = match target {
                    PostTarget::Named(m) => match self.globals.get(&m.text) {
                        Some(Global::Message(id)) => *id,
                        _ => return fail(m.at, format!("unknown message `{}`", m.text)),
                    },
                    PostTarget::Inline(body) => {
                        let id = self.program.messages.len();
                        let (line, col) = match Position::of_offset(self.src.as_bytes(), s.at) {
                            Position::LineCol { line, col } => (line, col),
                            Position::Byte(_) => (0, 0),
                        };
                        self.program.messages.push(Message {
                            name: format!(
                                "{}@{line}:{col}",
                                self.program.handlers[handler as usize]
                            ),
                            body: Body::default(),
                        });
                        self.post_at.push(Vec::new());
                        let b = self.body(body, id)?;
                        self.program.messages[id].body = b;
                        id as MessageId
                    }
                };
                if owner != usize::MAX {
                    self.post_at[owner].push(s.at);
                }
                StmtKind::Post { handler, message }
            }
        };
        Ok(Stmt {
            kind,
            line: self.line(s.at),
            text: self.text(s),
        })
    }

    fn result_register(&self, lhs: &Name, regs: &Regs) -> Res<u32> {
        match self.globals.get(&lhs.text) {
            Some(Global::Var(_)) => fail(
                lhs.at,
                format!(
                    "two shared accesses in one statement: `{}` is shared; use a register for the result",
                    lhs.text
                ),
            ),
            Some(g) => fail(
                lhs.at,
                format!("cannot assign to `{}`: it is {}", lhs.text, g.what()),
            ),
            None => Ok(regs.ids[&lhs.text]),
        }
    }

    fn shared(&self, n: &Name) -> Res<u32> {
        match self.globals.get(&n.text) {
            Some(Global::Var(v)) => Ok(*v),
            Some(g) => fail(
                n.at,
                format!("`{}` is {}, not a shared variable", n.text, g.what()),
            ),
            None => fail(
                n.at,
                format!(
                    "undeclared variable `{}` (declare it with `var {};`)",
                    n.text, n.text
                ),
            ),
        }
    }

    fn lock(&self, n: &Name) -> Res<u32> {
        match self.globals.get(&n.text) {
            Some(Global::Lock(l)) => Ok(*l),
            Some(g) => fail(n.at, format!("`{}` is {}, not a lock", n.text, g.what())),
            None => fail(
                n.at,
                format!(
                    "undeclared lock `{}` (declare it with `lock {};`)",
                    n.text, n.text
                ),
            ),
        }
    }

    /// Resolves an expression over registers. `accessing` says whether the statement already
    /// touches a shared variable (then another one is a second shared access).
    fn expr(&self, e: &RExpr, regs: &Regs, accessing: bool) -> Res<Expr> {
        Ok(match e {
            RExpr::Int(v) => Expr::Const(*v),
            RExpr::Name(n) => match self.globals.get(&n.text) {
                Some(Global::Var(_)) if accessing => {
                    return fail(
                        n.at,
                        format!(
                            "two shared accesses in one statement: read `{}` into a register first",
                            n.text
                        ),
                    );
                }
                Some(Global::Var(_)) => {
                    return fail(
                        n.at,
                        format!(
                            "shared variable `{}` inside an expression: read it into a register first (`r = {};`)",
                            n.text, n.text
                        ),
                    );
                }
                Some(g) => {
                    return fail(n.at, format!("`{}` is {}, not a value", n.text, g.what()));
                }
                None => match regs.ids.get(&n.text) {
                    Some(r) => Expr::Reg(*r),
                    None => {
                        return fail(
                            n.at,
                            format!(
                                "undeclared variable `{}`: neither shared nor assigned in this body",
                                n.text
                            ),
                        );
                    }
                },
            },
            RExpr::Un(op, a) => Expr::Unary(*op, Box::new(self.expr(a, regs, accessing)?)),
            RExpr::Bin(op, a, b) => Expr::Binary(
                *op,
                Box::new(self.expr(a, regs, accessing)?),
                Box::new(self.expr(b, regs, accessing)?),
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_example() {
        let p = parse_str(
            "var x, y;\nhandler h;\nmessage p1 { y = 2; }\n\
             message p2 { a = x; if (a == 0) { b = y; } }\n\
             thread s { post h p1; x = 1; }\nthread t { post h p2; }\n\
             thread u { post h { x = 3; } } // inline\n",
        )
        .unwrap();
        assert_eq!(p.vars.len(), 2);
        assert_eq!(p.messages.len(), 3);
        assert_eq!(p.messages[1].body.registers, ["a", "b"]);
        assert_eq!(p.threads[0].body.stmts[1].text, "x = 1");
        assert_eq!(p.messages[2].name, "h@7:12");
    }

    #[test]
    fn precedence() {
        let p = parse_str("thread t { a = 1 + 2 * 3 == 7 && !0; assert(a); }").unwrap();
        let StmtKind::Local { value, .. } = &p.threads[0].body.stmts[0].kind else {
            panic!()
        };
        assert_eq!(value.eval(&|_| 0), Ok(1));
    }
}
