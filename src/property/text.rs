//! The text syntax of properties, for people: its reader ([`parse_formula`] for one property,
//! [`parse_file`] for a file of them) and its printer (`Display` of [`Formula`] and [`Query`],
//! [`show`] and [`show_query`] for resolved formulas), which prints what the reader reads back
//! to the same tree.
//!
//! # Grammar
//!
//! ```text
//! property := [id ':'] (bound | or)
//! bound    := 'bound' '(' names ')'
//! or       := and ('||' and)*
//! and      := until ('&&' until)*
//! until    := unary ['U' unary]
//! unary    := '!' unary | Q unary | atom
//! Q        := 'A' | 'E' | 'X' | 'F' | 'G' | 'EF' | 'AG' | 'AF' | 'EG' | 'EX' | 'AX'
//! atom     := 'true' | 'false' | 'deadlock' | 'fireable' '(' names ')'
//!           | int CMP int | '(' or ')' | '[' or ']'
//! int      := term ('+' term)*
//! term     := number | 'tokens' '(' names ')' | '(' int ')'
//! CMP      := '<=' | '<' | '==' | '>=' | '>' | '!='
//! names    := name (',' name)*
//! id       := name
//! name     := [A-Za-z0-9_][A-Za-z0-9_.-]*  |  '"' (any character but '"' and '\', or '\"', '\\')* '"'
//! number   := [0-9]+   (at most 18446744073709551615)
//! ```
//!
//! - `E` is `exists-path`, `A` `all-paths`, `X` `next`, `F` `finally`, `G` `globally`, `U`
//!   `until`; a two-letter quantifier is the two one-letter ones (`EF φ` is `E F φ`). `!`,
//!   `&&`, `||` are negation, conjunction and disjunction, `fireable(t1, t2)` holds when one of
//!   the transitions is enabled, `tokens(p1, p2)` is the total number of tokens on the places,
//!   `deadlock` holds when no transition is enabled, `bound(p1, p2)` asks the largest
//!   `tokens(p1, p2)` over the reachable markings (UpperBounds).
//! - Precedence, loosest first: `||`, `&&`, `U` (not associative: write `(a U b) U c`),
//!   the prefix operators `!` and the quantifiers, then comparisons, then `+`. So
//!   `EF tokens(p) >= 3 && fireable(t)` is `(EF (tokens(p) >= 3)) && fireable(t)`.
//! - Keywords (`true`, `tokens`, `EF`, `U`, …) are words: one is not followed by a letter,
//!   digit, `_`, `.` or `-` (`EFx` is an unknown keyword, not `EF x`).
//! - Blanks (spaces, tabs, line breaks) may stand between any two tokens; `#` starts a
//!   comment up to the end of the line.
//! - A formula is typed: `&&`, `||`, `U`, `!` and the quantifiers take Boolean formulas, a
//!   comparison and `+` integer expressions. A parenthesised expression may be of either type
//!   (`(tokens(p) + 1) <= 3`); a whole property is Boolean.
//! - A name in quotes may contain any character (`tokens("p 1", "q\"")`); a name that is not
//!   a plain identifier must be quoted.
//!
//! [`parse_formula`] reads one property; its id is optional and is the empty string when the
//! text has none (the caller names it). [`parse_file`] reads one property per line, each with
//! its id, the ids distinct; blank lines and comment lines are skipped. Every error is a
//! [`ReadError`] at the line and column (in characters) of the token where it is found.
//!
//! The printer writes conjunctions, disjunctions and sums of fewer than two members, and empty
//! lists of places or transitions, which no reader produces, as what they mean (`true`,
//! `false`, `0`, the single member); `bound()` of no place does not read back.

use std::fmt;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_while1};
use nom::character::complete::{char, multispace1};
use nom::combinator::value;
use nom::multi::many0_count;
use nom::sequence::preceded;
use nom::{IResult, Parser as _};
use rustc_hash::FxHashMap;

use super::load::{Lines, ReadError, saturate};
use super::syntax::{Ask, Cmp, Form, Formula, IntExpr, Name, Property, Query, Spans};

/// The deepest nesting of a formula (parentheses and prefix operators in the text, elements in
/// XML; the contest's formulas nest at most 20 deep): readers and checkers recurse over the
/// tree, and a deeper one could overflow a thread's stack (the text reader takes about 10 KiB
/// per level in a debug build; test threads have 2 MiB).
pub const MAX_NESTING: usize = 100;

/// Reads one property: an optional `id:` and a formula or `bound(...)` (see the
/// [module](self) for the grammar). Without an id, the property's id is the empty string: the
/// caller names it.
pub fn parse_formula(text: &str) -> Result<Query, ReadError> {
    let lines = Lines::new(text);
    let mut p = Parser::new(text, &lines, 0);
    Ok(p.property()?.0)
}

/// Reads a file of properties, one per line, each `id: formula` (or `id: bound(...)`), the
/// ids distinct; blank lines and lines holding only a `#` comment are skipped.
pub fn parse_file(text: &str) -> Result<Vec<Query>, ReadError> {
    let mut queries = Vec::new();
    let mut first_line: FxHashMap<String, u32> = FxHashMap::default();
    for (i, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let lines = Lines::new(line);
        let mut p = Parser::new(line, &lines, saturate(i));
        let start = p.ws();
        if p.at_end() {
            continue;
        }
        let (query, has_id) = p.property()?;
        if !has_id {
            return Err(p.err(
                start,
                "expected an id: a property in a file is written 'id: formula'",
            ));
        }
        if let Some(l) = first_line.insert(query.id.clone(), saturate(i + 1)) {
            return Err(p.err(
                start,
                format!("duplicate id '{}' (first on line {l})", query.id),
            ));
        }
        queries.push(query);
    }
    Ok(queries)
}

type Nom<'a, O> = IResult<&'a str, O, nom::error::Error<&'a str>>;

/// Blanks and comments.
fn blank(i: &str) -> Nom<'_, ()> {
    value(
        (),
        many0_count(alt((
            multispace1,
            preceded(char('#'), take_till(|c| c == '\n')),
        ))),
    )
    .parse(i)
}

/// A word: a keyword, a number or a plain name (see [`is_word_char`]).
fn word(i: &str) -> Nom<'_, &str> {
    take_while1(is_word_char).parse(i)
}

/// Characters of words: keywords end where these do.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// Whether `s` can be written without quotes.
fn is_plain(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') && s.chars().all(is_word_char)
}

/// The prefix operators that are words, with the operators they stand for (outermost first).
const QUANTIFIERS: [(&str, &[Unary]); 11] = [
    ("A", &[Unary::All]),
    ("E", &[Unary::Exists]),
    ("X", &[Unary::Next]),
    ("F", &[Unary::Finally]),
    ("G", &[Unary::Globally]),
    ("EF", &[Unary::Exists, Unary::Finally]),
    ("AG", &[Unary::All, Unary::Globally]),
    ("AF", &[Unary::All, Unary::Finally]),
    ("EG", &[Unary::Exists, Unary::Globally]),
    ("EX", &[Unary::Exists, Unary::Next]),
    ("AX", &[Unary::All, Unary::Next]),
];

/// A prefix operator of one formula.
#[derive(Clone, Copy, Debug)]
enum Unary {
    Not,
    Exists,
    All,
    Next,
    Finally,
    Globally,
}

impl Unary {
    fn apply(self, f: Formula) -> Formula {
        let f = Box::new(f);
        match self {
            Unary::Not => Form::Not(f),
            Unary::Exists => Form::Exists(f),
            Unary::All => Form::All(f),
            Unary::Next => Form::Next(f),
            Unary::Finally => Form::Finally(f),
            Unary::Globally => Form::Globally(f),
        }
    }
}

/// What an expression is, before its context says what it must be.
enum Value {
    Bool(Formula),
    Int(IntExpr<Name>),
}

/// An expression, the offset of its first token, and where its Boolean nodes are (in
/// pre-order, see [`Spans`]; empty for an integer expression).
struct Expr {
    value: Value,
    at: usize,
    spans: Vec<(u32, u32)>,
}

/// The reader of one property: a text, the position in it, and the line of the text's first
/// line in its file (to number the lines of [`parse_file`]).
struct Parser<'a> {
    src: &'a str,
    lines: &'a Lines,
    pos: usize,
    /// Lines before the text's first line.
    line_base: u32,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, lines: &'a Lines, line_base: u32) -> Parser<'a> {
        Parser {
            src,
            lines,
            pos: 0,
            line_base,
        }
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn position(&self, at: usize) -> (u32, u32) {
        let (line, column) = self.lines.position(self.src, at);
        (line.saturating_add(self.line_base), column)
    }

    fn err(&self, at: usize, message: impl Into<String>) -> ReadError {
        let (line, column) = self.position(at);
        ReadError {
            line,
            column,
            message: message.into(),
        }
    }

    /// Skips blanks and comments; the offset of the next token.
    fn ws(&mut self) -> usize {
        if let Ok((rest, ())) = blank(self.rest()) {
            self.pos = self.src.len() - rest.len();
        }
        self.pos
    }

    fn at_end(&mut self) -> bool {
        self.ws();
        self.pos == self.src.len()
    }

    /// Consumes `token` after blanks, if it is next.
    fn eat(&mut self, token: &str) -> bool {
        self.ws();
        match tag::<_, _, nom::error::Error<&str>>(token).parse(self.rest()) {
            Ok(_) => {
                self.pos += token.len();
                true
            }
            Err(_) => false,
        }
    }

    /// The next word after blanks, not consumed.
    fn peek_word(&mut self) -> Option<&'a str> {
        self.ws();
        word(self.rest()).ok().map(|(_, w)| w)
    }

    /// The next token, described for an error message.
    fn found(&mut self) -> String {
        self.ws();
        let rest = self.rest();
        if rest.is_empty() {
            return "the end of the formula".into();
        }
        if let Some(w) = self.peek_word() {
            return format!("'{w}'");
        }
        if rest.starts_with('"') {
            return "a quoted name".into();
        }
        let two: String = rest.chars().take(2).collect();
        let token = match two.as_str() {
            "&&" | "||" | "<=" | ">=" | "==" | "!=" => two,
            _ => rest.chars().take(1).collect(),
        };
        format!("'{token}'")
    }

    /// Consumes `token`, or fails with "expected `token`".
    fn expect(&mut self, token: &str) -> Result<(), ReadError> {
        if self.eat(token) {
            return Ok(());
        }
        let at = self.pos;
        let found = self.found();
        Err(self.err(at, format!("expected '{token}', found {found}")))
    }

    /// `[id ':'] (bound | or)` up to the end of the text; whether it has an id.
    fn property(&mut self) -> Result<(Query, bool), ReadError> {
        let id = self.id()?;
        let bound = if self.peek_word() == Some("bound") {
            self.pos += "bound".len();
            Some(self.names()?)
        } else {
            None
        };
        let formula = match bound {
            None => Some(self.or(0)?),
            Some(_) => None,
        };
        if !self.at_end() {
            let at = self.pos;
            let found = self.found();
            let message = if found == "'='" {
                "expected an operator or the end of the formula, found '=' (equality is '==')"
                    .to_string()
            } else {
                format!("expected an operator or the end of the formula, found {found}")
            };
            return Err(self.err(at, message));
        }
        // Type checked after the syntax: `tokens(p) = 1` is best told about its '='.
        let (ask, spans) = match (bound, formula) {
            (Some(places), _) => (Ask::Bound(places), Vec::new()),
            (None, Some(e)) => {
                let (f, spans) = self.boolean(e)?;
                (Ask::Holds(f), spans)
            }
            (None, None) => unreachable!("a property is a bound or a formula"),
        };
        let has_id = id.is_some();
        Ok((
            Property {
                id: id.unwrap_or_default(),
                ask,
                spans: Spans(spans),
            },
            has_id,
        ))
    }

    /// The text of the name that comes next, quoted or plain; `None` (and nothing consumed)
    /// when no name comes. A quoted string that does not end is an error.
    fn name_text(&mut self) -> Result<Option<String>, ReadError> {
        self.ws();
        if self.rest().starts_with('"') {
            return self.quoted().map(Some);
        }
        Ok(match self.peek_word() {
            Some(w) if is_plain(w) => {
                self.pos += w.len();
                Some(w.to_string())
            }
            _ => None,
        })
    }

    /// `name ':'` if the text starts so; the position is unchanged otherwise.
    fn id(&mut self) -> Result<Option<String>, ReadError> {
        let start = self.ws();
        // A quoted string cannot start a formula: if it is not an id, it is an error.
        let Some(name) = self.name_text()? else {
            return Ok(None);
        };
        if self.eat(":") {
            Ok(Some(name))
        } else {
            self.pos = start;
            Ok(None)
        }
    }

    /// `(name (',' name)*)`.
    fn names(&mut self) -> Result<Vec<Name>, ReadError> {
        self.expect("(")?;
        let mut names = vec![self.name()?];
        while self.eat(",") {
            names.push(self.name()?);
        }
        self.expect(")")?;
        Ok(names)
    }

    fn name(&mut self) -> Result<Name, ReadError> {
        let at = self.ws();
        let Some(text) = self.name_text()? else {
            let found = self.found();
            return Err(self.err(at, format!("expected a name, found {found}")));
        };
        if text.is_empty() {
            return Err(self.err(at, "empty name"));
        }
        let (line, column) = self.position(at);
        Ok(Name::at(text, line, column))
    }

    /// A string in double quotes, `\"` and `\\` escaped; the position is at the quote.
    fn quoted(&mut self) -> Result<String, ReadError> {
        let open = self.pos;
        let mut text = String::new();
        let mut chars = self.rest().char_indices().skip(1);
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos = open + i + 1;
                    return Ok(text);
                }
                '\\' => match chars.next() {
                    Some((_, e @ ('"' | '\\'))) => text.push(e),
                    Some((_, e)) => {
                        return Err(self.err(
                            open + i,
                            format!("unknown escape '\\{e}' in a quoted name (only \\\" and \\\\)"),
                        ));
                    }
                    None => break,
                },
                c => text.push(c),
            }
        }
        Err(self.err(open, "unterminated quoted name: expected a closing '\"'"))
    }

    /// The Boolean formula `e` is and where its nodes are, or a type error.
    fn boolean(&self, e: Expr) -> Result<(Formula, Vec<(u32, u32)>), ReadError> {
        match e.value {
            Value::Bool(f) => Ok((f, e.spans)),
            Value::Int(_) => Err(self.err(
                e.at,
                "type error: an integer expression where a Boolean formula is expected \
                 (compare it: tokens(p) >= 1)",
            )),
        }
    }

    /// The integer expression `e` is, or a type error saying what needed one (`why`).
    fn integer(&self, e: Expr, why: &str) -> Result<IntExpr<Name>, ReadError> {
        match e.value {
            Value::Int(i) => Ok(i),
            Value::Bool(_) => Err(self.err(
                e.at,
                format!(
                    "type error: a Boolean formula where an integer expression is expected ({why})"
                ),
            )),
        }
    }

    /// `sub (op sub)*`, Boolean operands gathered by `make` when there are several.
    fn chain(
        &mut self,
        depth: usize,
        op: &str,
        sub: fn(&mut Self, usize) -> Result<Expr, ReadError>,
        make: fn(Vec<Formula>) -> Formula,
    ) -> Result<Expr, ReadError> {
        let first = sub(self, depth)?;
        if !self.eat(op) {
            return Ok(first);
        }
        let at = first.at;
        let mut spans = vec![self.position(at)];
        let (f, s) = self.boolean(first)?;
        let mut operands = vec![f];
        spans.extend(s);
        loop {
            let e = sub(self, depth)?;
            let (f, s) = self.boolean(e)?;
            operands.push(f);
            spans.extend(s);
            if !self.eat(op) {
                break;
            }
        }
        Ok(Expr {
            value: Value::Bool(make(operands)),
            at,
            spans,
        })
    }

    fn or(&mut self, depth: usize) -> Result<Expr, ReadError> {
        self.chain(depth, "||", Self::and, Form::Or)
    }

    fn and(&mut self, depth: usize) -> Result<Expr, ReadError> {
        self.chain(depth, "&&", Self::until, Form::And)
    }

    fn until(&mut self, depth: usize) -> Result<Expr, ReadError> {
        let before = self.unary(depth)?;
        if self.peek_word() != Some("U") {
            return Ok(before);
        }
        // The node is where its operator is: an error about the until points at its 'U'.
        let mut spans = vec![self.position(self.pos)];
        self.pos += 1;
        let at = before.at;
        let (before, s) = self.boolean(before)?;
        spans.extend(s);
        let reach = self.unary(depth)?;
        let (reach, s) = self.boolean(reach)?;
        spans.extend(s);
        Ok(Expr {
            value: Value::Bool(Form::Until(Box::new(before), Box::new(reach))),
            at,
            spans,
        })
    }

    fn unary(&mut self, depth: usize) -> Result<Expr, ReadError> {
        let at = self.ws();
        let ops: &[Unary] = if self.rest().starts_with('!') {
            self.pos += 1;
            &[Unary::Not]
        } else {
            match self
                .peek_word()
                .and_then(|w| QUANTIFIERS.iter().find(|(k, _)| *k == w))
            {
                Some((keyword, ops)) => {
                    self.pos += keyword.len();
                    ops
                }
                None => return self.comparison(depth),
            }
        };
        if depth >= MAX_NESTING {
            return Err(self.nested_too_deeply(at));
        }
        let operand = self.unary(depth + 1)?;
        let (mut f, operand_spans) = self.boolean(operand)?;
        for op in ops.iter().rev() {
            f = op.apply(f);
        }
        // `EF` is two nodes, both where the keyword is.
        let mut spans = vec![self.position(at); ops.len()];
        spans.extend(operand_spans);
        Ok(Expr {
            value: Value::Bool(f),
            at,
            spans,
        })
    }

    fn nested_too_deeply(&self, at: usize) -> ReadError {
        self.err(
            at,
            format!("formula nested too deeply (more than {MAX_NESTING} levels)"),
        )
    }

    /// `sum [CMP sum]`.
    fn comparison(&mut self, depth: usize) -> Result<Expr, ReadError> {
        let left = self.sum(depth)?;
        let Some(cmp) = self.cmp() else {
            return Ok(left);
        };
        let at = left.at;
        let why = format!("'{}' compares integer expressions", cmp.symbol());
        let left = self.integer(left, &why)?;
        let right = self.sum(depth)?;
        let right = self.integer(right, &why)?;
        Ok(Expr {
            value: Value::Bool(Form::Compare(left, cmp, right)),
            at,
            spans: vec![self.position(at)],
        })
    }

    fn cmp(&mut self) -> Option<Cmp> {
        // Two-character operators first: `<` is a prefix of `<=`.
        const ORDER: [Cmp; 6] = [Cmp::Le, Cmp::Ge, Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Gt];
        ORDER.into_iter().find(|c| self.eat(c.symbol()))
    }

    /// `primary ('+' primary)*`.
    fn sum(&mut self, depth: usize) -> Result<Expr, ReadError> {
        let first = self.primary(depth)?;
        if !self.eat("+") {
            return Ok(first);
        }
        const WHY: &str = "'+' adds integer expressions";
        let at = first.at;
        let mut terms = vec![self.integer(first, WHY)?];
        loop {
            let e = self.primary(depth)?;
            terms.push(self.integer(e, WHY)?);
            if !self.eat("+") {
                break;
            }
        }
        Ok(Expr {
            value: Value::Int(IntExpr::Sum(terms)),
            at,
            spans: Vec::new(),
        })
    }

    /// An atom of either type: a constant, a keyword with its arguments, or parentheses.
    fn primary(&mut self, depth: usize) -> Result<Expr, ReadError> {
        let at = self.ws();
        // Brackets group as parentheses do: the textbook's `E [φ U ψ]`.
        let close = if self.eat("(") {
            Some(")")
        } else if self.eat("[") {
            Some("]")
        } else {
            None
        };
        let (value, spans) = if let Some(close) = close {
            if depth >= MAX_NESTING {
                return Err(self.nested_too_deeply(at));
            }
            let inner = self.or(depth + 1)?;
            self.expect(close)?;
            (inner.value, inner.spans)
        } else if let Some(w) = self.peek_word() {
            let value = self.keyword(w, at)?;
            let spans = match value {
                Value::Bool(_) => vec![self.position(at)],
                Value::Int(_) => Vec::new(),
            };
            (value, spans)
        } else {
            let found = self.found();
            return Err(self.err(at, format!("expected a formula, found {found}")));
        };
        Ok(Expr { value, at, spans })
    }

    /// The atom starting with the word `w` (at `at`, not yet consumed).
    fn keyword(&mut self, w: &str, at: usize) -> Result<Value, ReadError> {
        if w.bytes().all(|b| b.is_ascii_digit()) {
            let k: u64 = w.parse().map_err(|_| {
                self.err(
                    at,
                    format!("integer constant too large (at most {})", u64::MAX),
                )
            })?;
            self.pos += w.len();
            return Ok(Value::Int(IntExpr::Const(k)));
        }
        let value = match w {
            "true" => Value::Bool(Form::Bool(true)),
            "false" => Value::Bool(Form::Bool(false)),
            "deadlock" => Value::Bool(Form::Deadlock),
            "fireable" | "tokens" => {
                self.pos += w.len();
                let names = self.names()?;
                return Ok(if w == "tokens" {
                    Value::Int(IntExpr::Tokens(names))
                } else {
                    Value::Bool(Form::Fireable(names))
                });
            }
            "bound" => {
                return Err(self.err(
                    at,
                    "bound(...) is a whole property (UpperBounds), not part of a formula",
                ));
            }
            "U" => return Err(self.err(at, "expected a formula, found 'U'")),
            _ => return Err(self.err(at, format!("unknown keyword '{w}'"))),
        };
        self.pos += w.len();
        Ok(value)
    }
}

/// How tightly a printed formula binds (the grammar's levels, loosest first).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Or,
    And,
    Until,
    Unary,
    Atom,
}

/// `f` without conjunctions and disjunctions of one member, which print as that member.
fn unwrapped<P, T>(mut f: &Form<P, T>) -> &Form<P, T> {
    while let Form::And(fs) | Form::Or(fs) = f {
        match fs.as_slice() {
            [g] => f = g,
            _ => break,
        }
    }
    f
}

fn level<P, T>(f: &Form<P, T>) -> Level {
    match unwrapped(f) {
        Form::Or(fs) if fs.len() > 1 => Level::Or,
        Form::And(fs) if fs.len() > 1 => Level::And,
        Form::Until(..) => Level::Until,
        Form::Not(_)
        | Form::Exists(_)
        | Form::All(_)
        | Form::Next(_)
        | Form::Finally(_)
        | Form::Globally(_) => Level::Unary,
        _ => Level::Atom,
    }
}

/// `s` as the text syntax writes a name: bare when it is a plain identifier, else quoted.
pub fn quote(s: &str) -> String {
    if is_plain(s) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Writes formulas in the text syntax, with the names the two closures give.
struct Printer<'f, P, T> {
    place: &'f dyn Fn(&P) -> String,
    transition: &'f dyn Fn(&T) -> String,
    out: String,
}

impl<P, T> Printer<'_, P, T> {
    fn names<N>(&mut self, names: &[N], text: &dyn Fn(&N) -> String) {
        self.out.push('(');
        for (i, n) in names.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(&quote(&text(n)));
        }
        self.out.push(')');
    }

    fn form(&mut self, f: &Form<P, T>, at_least: Level) {
        let f = unwrapped(f);
        let parens = level(f) < at_least;
        if parens {
            self.out.push('(');
        }
        match f {
            Form::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Form::Deadlock => self.out.push_str("deadlock"),
            Form::Fireable(ts) if ts.is_empty() => self.out.push_str("false"),
            Form::Fireable(ts) => {
                self.out.push_str("fireable");
                self.names(ts, self.transition);
            }
            Form::Compare(a, c, b) => {
                self.int(a, false);
                self.out.push_str(&format!(" {} ", c.symbol()));
                self.int(b, false);
            }
            Form::Not(g) => {
                self.out.push('!');
                // `!(tokens(p) <= 3)` reads better than `!tokens(p) <= 3`, the same tree.
                self.clear(g, Level::Unary, |g| matches!(g, Form::Compare(..)));
            }
            Form::Exists(g) | Form::All(g) => {
                self.out.push(if matches!(f, Form::Exists(_)) {
                    'E'
                } else {
                    'A'
                });
                match unwrapped(g) {
                    Form::Next(h) | Form::Finally(h) | Form::Globally(h) => {
                        self.out.push(temporal_letter(unwrapped(g)));
                        self.out.push(' ');
                        self.form(h, Level::Unary);
                    }
                    _ => {
                        self.out.push(' ');
                        self.form(g, Level::Unary);
                    }
                }
            }
            Form::Next(g) | Form::Finally(g) | Form::Globally(g) => {
                self.out.push(temporal_letter(f));
                self.out.push(' ');
                self.form(g, Level::Unary);
            }
            Form::Until(a, b) => {
                let compare = |g: &Form<P, T>| matches!(g, Form::Compare(..));
                self.clear(a, Level::Unary, compare);
                self.out.push_str(" U ");
                self.clear(b, Level::Unary, compare);
            }
            Form::And(fs) | Form::Or(fs) if fs.is_empty() => {
                self.out.push_str(if matches!(f, Form::And(_)) {
                    "true"
                } else {
                    "false"
                });
            }
            Form::And(fs) => self.members(fs, " && ", Level::Until),
            Form::Or(fs) => self.members(fs, " || ", Level::And),
        }
        if parens {
            self.out.push(')');
        }
    }

    /// `g` where it binds at least `at_least`, in parentheses also when `also` says so: the
    /// same tree, easier to read.
    fn clear(&mut self, g: &Form<P, T>, at_least: Level, also: fn(&Form<P, T>) -> bool) {
        if also(unwrapped(g)) {
            self.out.push('(');
            self.form(g, Level::Or);
            self.out.push(')');
        } else {
            self.form(g, at_least);
        }
    }

    fn members(&mut self, fs: &[Form<P, T>], op: &str, at_least: Level) {
        for (i, g) in fs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(op);
            }
            // `a && (b U c)`: `U` binds tighter than `&&`, but few readers know it.
            self.clear(g, at_least, |g| matches!(g, Form::Until(..)));
        }
    }

    /// An integer expression; `nested` when it is a term of a sum (a sum there needs
    /// parentheses).
    fn int(&mut self, e: &IntExpr<P>, nested: bool) {
        match e {
            IntExpr::Const(k) => self.out.push_str(&k.to_string()),
            IntExpr::Tokens(ps) if ps.is_empty() => self.out.push('0'),
            IntExpr::Tokens(ps) => {
                self.out.push_str("tokens");
                self.names(ps, self.place);
            }
            IntExpr::Sum(es) => match es.as_slice() {
                [] => self.out.push('0'),
                [e] => self.int(e, nested),
                _ => {
                    if nested {
                        self.out.push('(');
                    }
                    for (i, e) in es.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(" + ");
                        }
                        self.int(e, true);
                    }
                    if nested {
                        self.out.push(')');
                    }
                }
            },
        }
    }

    fn ask(&mut self, ask: &Ask<P, T>) {
        match ask {
            Ask::Holds(f) => self.form(f, Level::Or),
            Ask::Bound(ps) => {
                self.out.push_str("bound");
                self.names(ps, self.place);
            }
        }
    }
}

/// The letter of `X`, `F` or `G` (only called on those).
fn temporal_letter<P, T>(f: &Form<P, T>) -> char {
    match f {
        Form::Next(_) => 'X',
        Form::Finally(_) => 'F',
        _ => 'G',
    }
}

/// `f` in the text syntax, its places and transitions named by `place` and `transition`
/// (quoted where they are not plain identifiers): how a resolved formula prints with the
/// net's names.
pub fn show<P, T>(
    f: &Form<P, T>,
    place: &dyn Fn(&P) -> String,
    transition: &dyn Fn(&T) -> String,
) -> String {
    let mut p = Printer {
        place,
        transition,
        out: String::new(),
    };
    p.form(f, Level::Or);
    p.out
}

/// `q` in the text syntax, `id: formula` (only the formula when the id is empty), names given
/// by `place` and `transition` as in [`show`].
pub fn show_query<P, T>(
    q: &Property<P, T>,
    place: &dyn Fn(&P) -> String,
    transition: &dyn Fn(&T) -> String,
) -> String {
    let mut p = Printer {
        place,
        transition,
        out: String::new(),
    };
    if !q.id.is_empty() {
        p.out.push_str(&quote(&q.id));
        p.out.push_str(": ");
    }
    p.ask(&q.ask);
    p.out
}

fn text_of(n: &Name) -> String {
    n.text.clone()
}

impl fmt::Display for Form<Name, Name> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&show(self, &text_of, &text_of))
    }
}

impl fmt::Display for Property<Name, Name> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&show_query(self, &text_of, &text_of))
    }
}

#[cfg(test)]
pub(super) mod tests;
