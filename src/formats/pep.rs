//! PEP low-level nets (`.ll_net`): reader and writer.
//!
//! # What is read
//!
//! A PEP net file is a header followed by sections, each introduced by a keyword at the start of
//! a line:
//!
//! ```text
//! PEP                    % the magic word
//! PTNet                  % the net type: PTNet, PetriBox, or another word
//! FORMAT_N2              % FORMAT_N, FORMAT_N2, or another FORMAT_ word
//! DPT w1                 % optional one-line defaults: DBL, DPL, DTR, DPT (in this order)
//! BL                     % optional blocks (skipped)
//! PL                     % places (required)
//! 1"p1"M1                %   number, quoted name, attributes (M<n>: initial marking)
//! 2"p2"
//! TR                     % transitions (required)
//! 1"t1"
//! PTR                    % optional phantom transitions (skipped)
//! TP                     % transition→place arcs (required): t<p
//! 1<2
//! PT                     % place→transition arcs (required): p>t
//! 1>1w2                  %   w<n>: weight
//! RA                     % optional read arcs: t<p, transition t reads place p
//! PTP                    % optional phantom arcs (skipped)
//! PPT                    % optional phantom arcs (skipped)
//! TX                     % optional texts: the rest of the file is skipped
//! ```
//!
//! Sections must appear in the order above, each at most once; `PL`, `TR`, `TP` and `PT` are
//! required. `%` starts a comment that runs to the end of the line, except inside quoted strings
//! (PEP writes `%` inside transition meanings). Quoted strings are delimited by `"` or `'` and
//! have no escapes; they cannot span lines.
//!
//! Place and transition lines are: an optional number, a quoted name, then attributes in any
//! order. An attribute is a letter followed by a number (`v65`), a coordinate pair (`n10@-9`)
//! or a quoted string (`b"<a=1>"`); the flags `e`, `x`, `S` and `r` stand alone; a bare pair
//! `x@y` is the node's position. Only `M<n>` (initial marking, the last one wins) is used; the
//! rest is layout and meaning for PEP's editor and is skipped. Arc lines are two numbers joined
//! by `<` (TP, RA) or `>` (PT) (`@` is also accepted, as PEP's own reader does), followed by
//! attributes, of which only `w<n>` (weight, at least 1) is used; the default weight is the
//! `w` of the `DPT` line, else 1.
//!
//! # Numbering
//!
//! Places and transitions have separate number ranges, and arcs name their place and transition
//! by these numbers (which end of an arc is which is given by the section). A line without a
//! number gets the next number in sequence (1, 2, 3, … within its section) as long as every
//! earlier line of the section was numbered that way; a line without a number after explicitly
//! numbered ones out of sequence is an error. Explicit numbers may be in any order and may
//! leave gaps, so files whose places and transitions share one range (places 1..38,
//! transitions 39..) read as they should.
//!
//! The model gets place identifiers `p<number>` and transition identifiers `t<number>`, labels
//! from the quoted names (the identifier when the name is empty), nodes in file order, and the
//! file stem as the net's name.
//!
//! # What is written
//!
//! [`write()`] emits `PEP`, `PTNet`, `FORMAT_N2`, then `PL` with the places numbered 1..n in model
//! order (`1"label"M2`, the marking only when positive), `TR` with the transitions numbered
//! 1..m in model order (a range of its own, also from 1), `TP` (`t<p`), `PT` (`p>t`), and `RA`
//! (`t<p`) only when the net has read arcs; weights (`w<n>`) only when above 1. Arcs are written
//! transition by transition in model order, each transition's arcs by place. Cunf, Mole and
//! Punf read this numbering; keeping the model order of transitions matters because the Parikh
//! tie-break of adequate orders depends on it. A quoted name cannot contain `"` or a line
//! break, so the writer replaces `"` by `'` and carriage returns and line feeds by spaces.

use std::io::Write;
use std::path::Path;

use compact_str::CompactString;
use nom::{
    IResult, Parser,
    branch::alt,
    bytes::complete::{take_till, take_while, take_while1},
    character::complete::{char as byte, digit1},
    combinator::{opt, recognize},
    sequence::{delimited, pair},
};
use rustc_hash::FxHashMap;

use super::{Position, ReadError};
use crate::model::net::{ArcKind, Net, NetBuilder, PlaceIdx, TransIdx};

/// Parses a PEP low-level net; the net is named after the file stem.
pub fn parse(bytes: &[u8], file: &Path) -> Result<Net, ReadError> {
    let name = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Reader::new(bytes, name)
        .run()
        .map_err(|f| ReadError::parse(file, Some(Position::of_offset(bytes, f.offset)), f.message))
}

/// Writes `net` as a PEP low-level net, numbering places and transitions from 1 in model order
/// (see the module documentation).
pub fn write(net: &Net, out: &mut dyn Write) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(out);
    writeln!(out, "PEP\nPTNet\nFORMAT_N2\nPL")?;
    for (i, p) in net.places.iter().enumerate() {
        write!(out, "{}\"{}\"", i + 1, quotable(&p.label))?;
        if p.initial > 0 {
            write!(out, "M{}", p.initial)?;
        }
        writeln!(out)?;
    }
    writeln!(out, "TR")?;
    for (i, t) in net.transitions.iter().enumerate() {
        writeln!(out, "{}\"{}\"", i + 1, quotable(&t.label))?;
    }
    // Places are written 1-based, hence the `+ 1` on every place index below.
    writeln!(out, "TP")?;
    for (i, t) in net.transitions.iter().enumerate() {
        for a in &t.post {
            write_arc(&mut out, i + 1, '<', a.place as usize + 1, a.weight)?;
        }
    }
    writeln!(out, "PT")?;
    for (i, t) in net.transitions.iter().enumerate() {
        for a in &t.pre {
            write_arc(&mut out, a.place as usize + 1, '>', i + 1, a.weight)?;
        }
    }
    if net.read_arc_count() > 0 {
        writeln!(out, "RA")?;
        for (i, t) in net.transitions.iter().enumerate() {
            for a in &t.reads {
                write_arc(&mut out, i + 1, '<', a.place as usize + 1, a.weight)?;
            }
        }
    }
    out.flush()
}

fn write_arc(
    out: &mut impl Write,
    from: usize,
    arrow: char,
    to: usize,
    weight: u32,
) -> std::io::Result<()> {
    write!(out, "{from}{arrow}{to}")?;
    if weight > 1 {
        write!(out, "w{weight}")?;
    }
    writeln!(out)
}

/// `label` with the characters a PEP quoted name cannot hold replaced.
fn quotable(label: &str) -> std::borrow::Cow<'_, str> {
    if label.contains(['"', '\n', '\r']) {
        label
            .chars()
            .map(|c| match c {
                '"' => '\'',
                '\n' | '\r' => ' ',
                c => c,
            })
            .collect::<String>()
            .into()
    } else {
        label.into()
    }
}

// ---------------------------------------------------------------------------------------------
// Reader

/// A parse failure at a byte offset.
#[derive(Debug)]
struct Fail {
    offset: usize,
    message: String,
}

type Res<T> = Result<T, Fail>;

fn fail<T>(offset: usize, message: impl Into<String>) -> Res<T> {
    Err(Fail {
        offset,
        message: message.into(),
    })
}

/// The sections of a PEP net, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    /// A one-line defaults section (`DBL`, `DPL`, `DTR`).
    Defaults,
    /// `DPT`: arc defaults, among them the default weight.
    ArcDefaults,
    /// A section whose lines are skipped (`BL`, `PTR`, `PTP`, `PPT`).
    Skipped,
    Places,
    Transitions,
    /// Arcs of the given kind (`TP`, `PT`, `RA`).
    Arcs(ArcKind),
    /// `TX`: free text up to the end of the file.
    Text,
}

/// Keyword, whether required, and meaning of every section; the index is the rank in the order.
const SECTIONS: &[(&str, bool, Section)] = &[
    ("DBL", false, Section::Defaults),
    ("DPL", false, Section::Defaults),
    ("DTR", false, Section::Defaults),
    ("DPT", false, Section::ArcDefaults),
    ("BL", false, Section::Skipped),
    ("PL", true, Section::Places),
    ("TR", true, Section::Transitions),
    ("PTR", false, Section::Skipped),
    ("TP", true, Section::Arcs(ArcKind::Output)),
    ("PT", true, Section::Arcs(ArcKind::Input)),
    ("RA", false, Section::Arcs(ArcKind::Read)),
    ("PTP", false, Section::Skipped),
    ("PPT", false, Section::Skipped),
    ("TX", false, Section::Text),
];

/// Attribute letters that stand alone (entry, exit, synchronisation, refined).
const FLAGS: &[u8] = b"exSr";

/// One line of the file, without its line break and its comment.
#[derive(Clone, Copy)]
struct Line<'a> {
    /// Offset of the line's first byte in the file.
    start: usize,
    /// The content.
    text: &'a [u8],
    /// Offset of the next line (past the line break).
    end: usize,
}

impl<'a> Line<'a> {
    /// The file offset of `rest`, a suffix of the line's text.
    fn off(&self, rest: &[u8]) -> usize {
        self.start + (self.text.len() - rest.len())
    }

    /// Whether the line has nothing but blanks.
    fn is_blank(&self) -> bool {
        self.text.iter().all(u8::is_ascii_whitespace)
    }
}

/// The lines of `bytes` from `offset`, comments and carriage returns removed.
fn lines(bytes: &[u8], offset: usize) -> impl Iterator<Item = Line<'_>> {
    let mut start = offset;
    std::iter::from_fn(move || {
        let line = line_at(bytes, start)?;
        start = line.end;
        Some(line)
    })
}

/// The line of `bytes` that starts at `start`, comment and carriage return removed; `None` at
/// the end of the input.
fn line_at(bytes: &[u8], start: usize) -> Option<Line<'_>> {
    if start >= bytes.len() {
        return None;
    }
    let rest = &bytes[start..];
    let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let mut text = &rest[..len];
    if let Some(t) = text.strip_suffix(b"\r") {
        text = t;
    }
    Some(Line {
        start,
        text: strip_comment(text),
        end: (start + len + 1).min(bytes.len()),
    })
}

/// `text` up to its first `%` outside quoted strings.
fn strip_comment(text: &[u8]) -> &[u8] {
    let mut quote = None;
    for (i, &b) in text.iter().enumerate() {
        match (quote, b) {
            (None, b'%') => return &text[..i],
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if q == b => quote = None,
            _ => {}
        }
    }
    text
}

/// A few bytes of `text`, printable, for messages.
fn show(text: &[u8]) -> String {
    let cut = &text[..text.len().min(40)];
    let mut s = cut.escape_ascii().to_string();
    if cut.len() < text.len() {
        s.push('…');
    }
    s
}

// nom lexers on the bytes of one line.

type In<'a> = &'a [u8];

fn blanks(i: In) -> IResult<In, In> {
    take_while(|b: u8| b == b' ' || b == b'\t').parse(i)
}

/// `i` without its leading blanks.
fn skip_blanks(i: In) -> In {
    blanks(i).map_or(i, |(rest, _)| rest)
}

fn integer(i: In) -> IResult<In, In> {
    recognize(pair(opt(byte('-')), digit1)).parse(i)
}

fn word(i: In) -> IResult<In, In> {
    take_while1(|b: u8| b.is_ascii_alphanumeric() || b == b'_').parse(i)
}

fn quoted(i: In) -> IResult<In, In> {
    alt((
        delimited(byte('"'), take_till(|b| b == b'"'), byte('"')),
        delimited(byte('\''), take_till(|b| b == b'\''), byte('\'')),
    ))
    .parse(i)
}

/// The value of an attribute or a bare item of a line.
#[derive(Debug, PartialEq)]
enum Value<'a> {
    /// A flag letter without value.
    None,
    /// A number.
    Number(i64),
    /// A coordinate pair `x@y`.
    Coords,
    /// A quoted string.
    Str(&'a [u8]),
}

/// One item of a node or arc line: a bare value (key 0) or an attribute.
struct Item<'a> {
    key: u8,
    value: Value<'a>,
    /// Offset of the item in the file.
    offset: usize,
    /// Offset of the value in the file.
    value_offset: usize,
}

/// Reads a number at `rest`.
fn number<'a>(line: &Line<'a>, rest: In<'a>) -> Res<(i64, In<'a>)> {
    let Ok((after, digits)) = integer(rest) else {
        return fail(
            line.off(rest),
            format!("expected a number, found '{}'", show(rest)),
        );
    };
    // Every byte is an ASCII digit or a leading minus sign.
    let text = std::str::from_utf8(digits).unwrap_or_default();
    match text.parse::<i64>() {
        Ok(n) if n.unsigned_abs() <= u32::MAX as u64 => Ok((n, after)),
        _ => fail(line.off(rest), format!("number {text} is too large")),
    }
}

/// Reads a number, or a coordinate pair when `@` follows it.
fn number_or_coords<'a>(line: &Line<'a>, rest: In<'a>) -> Res<(Value<'a>, In<'a>)> {
    let (n, after) = number(line, rest)?;
    let r = skip_blanks(after);
    if let Some(r) = r.strip_prefix(b"@") {
        let r = skip_blanks(r);
        let (_, r) = number(line, r)?;
        Ok((Value::Coords, r))
    } else {
        Ok((Value::Number(n), after))
    }
}

/// Reads a quoted string.
fn string<'a>(line: &Line<'a>, rest: In<'a>) -> Res<(&'a [u8], In<'a>)> {
    match quoted(rest) {
        Ok((after, s)) => Ok((s, after)),
        Err(_) => fail(
            line.off(rest),
            "unterminated quoted string (no closing quote on this line)",
        ),
    }
}

/// The next item of `rest`, or `None` at the end of the line. Every item consumes input.
fn item<'a>(line: &Line<'a>, rest: In<'a>) -> Res<Option<(Item<'a>, In<'a>)>> {
    let rest = skip_blanks(rest);
    let offset = line.off(rest);
    let Some(&first) = rest.first() else {
        return Ok(None);
    };
    let (key, value_at) = match first {
        b'0'..=b'9' | b'-' | b'"' | b'\'' => (0, rest),
        b if b.is_ascii_alphabetic() || b == b',' => (b, &rest[1..]),
        _ => {
            return fail(
                offset,
                format!("unexpected character '{}'", show(&rest[..1])),
            );
        }
    };
    // A value may be separated from its letter by blanks; flags have no value.
    let value_at = if key == 0 || FLAGS.contains(&key) {
        value_at
    } else {
        skip_blanks(value_at)
    };
    let value_offset = line.off(value_at);
    let (value, after) = match value_at.first() {
        _ if FLAGS.contains(&key) => (Value::None, value_at),
        Some(b'0'..=b'9' | b'-') => number_or_coords(line, value_at)?,
        Some(b'"' | b'\'') => {
            let (s, after) = string(line, value_at)?;
            (Value::Str(s), after)
        }
        _ => {
            return fail(
                offset,
                format!(
                    "attribute '{}' needs a value (a number or a quoted string)",
                    key as char
                ),
            );
        }
    };
    let item = Item {
        key,
        value,
        offset,
        value_offset,
    };
    Ok(Some((item, after)))
}

/// A numbered node section being read (places or transitions).
#[derive(Default)]
struct Numbering {
    /// Index in the model of the small numbers, plus one (0: unused). PEP files number their
    /// nodes 1, 2, 3, …, which this table serves without hashing.
    dense: Vec<u32>,
    /// Index in the model of the numbers too large for `dense` when they were read.
    sparse: FxHashMap<u32, u32>,
    /// Lines read so far in the section.
    count: u32,
    /// Whether every line so far was numbered 1, 2, 3, …, so a missing number can be implied.
    sequential: bool,
}

impl Numbering {
    /// The index in the model of number `n`, if a node has it.
    fn get(&self, n: u32) -> Option<u32> {
        match self.dense.get(n as usize) {
            Some(&i) if i > 0 => Some(i - 1),
            _ if self.sparse.is_empty() => None,
            _ => self.sparse.get(&n).copied(),
        }
    }

    /// Records that number `n`, not used yet, has index `idx`.
    fn insert(&mut self, n: u32, idx: u32) {
        let n = n as usize;
        // The table grows to a few times the number of nodes, no more: gaps in the numbers
        // cannot make it large, and numbers beyond it go to the map.
        let limit = 2 * self.count as usize + 1024;
        if n >= self.dense.len() && n < limit {
            let len = (n + 1).max(2 * self.dense.len()).min(limit);
            self.dense.resize(len, 0);
        }
        match self.dense.get_mut(n) {
            Some(slot) => *slot = idx + 1,
            None => {
                self.sparse.insert(n as u32, idx);
            }
        }
    }
}

/// A place or transition line in the form PEP tools write, `<n>"<name>"` with an ASCII name and
/// an optional `M<tokens>` (places), read without the general item scanner.
struct QuickNode<'a> {
    /// The number and its offset.
    number: Option<(u32, usize)>,
    /// The quoted name (without quotes) and its offset.
    name: (&'a [u8], usize),
    marking: u32,
    /// Offset of the next line.
    end: usize,
}

/// An arc line in the form PEP tools write, `<n><arrow><n>` with an optional `w<weight>`.
struct QuickArc {
    /// The first number and its offset.
    first: (u32, usize),
    /// The second number and its offset.
    second: (u32, usize),
    /// The weight given by `w`, if any (at least 1).
    weight: Option<u32>,
    /// Offset of the next line.
    end: usize,
}

/// The number of one to nine digits at `i` and the offset after it. Longer numbers (which may
/// not fit in a `u32`) and signs are left to the general reader.
fn quick_digits(bytes: &[u8], mut i: usize) -> Option<(u32, usize)> {
    let start = i;
    let mut n = 0u32;
    while let Some(&b) = bytes.get(i).filter(|b| b.is_ascii_digit()) {
        if i - start == 9 {
            return None;
        }
        n = n * 10 + u32::from(b - b'0');
        i += 1;
    }
    (i > start).then_some((n, i))
}

/// The offset of the next line when the line ends at `i` (a line feed, a carriage return and
/// line feed, or the end of the input, with nothing else before).
fn quick_eol(bytes: &[u8], i: usize) -> Option<usize> {
    match bytes.get(i) {
        None => Some(i),
        Some(b'\n') => Some(i + 1),
        Some(b'\r') => match bytes.get(i + 1) {
            None => Some(i + 1),
            Some(b'\n') => Some(i + 2),
            Some(_) => None,
        },
        Some(_) => None,
    }
}

/// The node line at `start` when it has the common form (see [`QuickNode`]); `None` for any
/// other line, which the general reader then reads (and reports errors in).
fn quick_node(bytes: &[u8], start: usize, is_place: bool) -> Option<QuickNode<'_>> {
    let (number, i) = match quick_digits(bytes, start) {
        Some((n, i)) => (Some((n, start)), i),
        None => (None, start),
    };
    let quote = *bytes.get(i).filter(|&&b| b == b'"' || b == b'\'')?;
    let name_at = i + 1;
    let len = bytes[name_at..]
        .iter()
        .position(|&b| b == quote || b == b'\n')?;
    let mut i = name_at + len;
    // Other names go to the general reader, which places UTF-8 errors its own way.
    if bytes[i] != quote || !bytes[name_at..i].is_ascii() {
        return None;
    }
    i += 1;
    let mut marking = 0;
    if is_place && bytes.get(i) == Some(&b'M') {
        (marking, i) = quick_digits(bytes, i + 1)?;
    }
    Some(QuickNode {
        number,
        name: (&bytes[name_at..name_at + len], name_at),
        marking,
        end: quick_eol(bytes, i)?,
    })
}

/// The arc line at `start` when it has the common form (see [`QuickArc`]); `None` for any
/// other line, which the general reader then reads (and reports errors in).
fn quick_arc(bytes: &[u8], start: usize, arrow: u8) -> Option<QuickArc> {
    let (first, i) = quick_digits(bytes, start)?;
    if !bytes.get(i).is_some_and(|&b| b == arrow || b == b'@') {
        return None;
    }
    let second_at = i + 1;
    let (second, mut i) = quick_digits(bytes, second_at)?;
    let mut weight = None;
    if bytes.get(i) == Some(&b'w') {
        let (w, after) = quick_digits(bytes, i + 1).filter(|&(w, _)| w >= 1)?;
        weight = Some(w);
        i = after;
    }
    Some(QuickArc {
        first: (first, start),
        second: (second, second_at),
        weight,
        end: quick_eol(bytes, i)?,
    })
}

/// The parser state.
struct Reader<'a> {
    bytes: &'a [u8],
    builder: NetBuilder,
    places: Numbering,
    transitions: Numbering,
    /// The weight of arcs without `w` (from `DPT`).
    default_weight: u32,
    /// The arcs of the current arc section, given to the builder when it ends (see
    /// [`flush_arcs`](Self::flush_arcs)).
    pending: Vec<PendingArc>,
    /// The kind of the pending arcs.
    pending_kind: ArcKind,
}

/// An arc read but not yet given to the builder.
struct PendingArc {
    place: PlaceIdx,
    trans: TransIdx,
    weight: u32,
    /// Where the builder's complaints about it are reported (its line's first number).
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], name: String) -> Self {
        Reader {
            bytes,
            // Identifiers are p<n> and t<n>, with numbers checked unique per kind.
            builder: NetBuilder::with_unique_ids(name),
            places: Numbering {
                sequential: true,
                ..Numbering::default()
            },
            transitions: Numbering {
                sequential: true,
                ..Numbering::default()
            },
            default_weight: 1,
            pending: Vec::new(),
            pending_kind: ArcKind::Input,
        }
    }

    fn run(mut self) -> Res<Net> {
        let read = self.read();
        // The pending arcs all come before whatever ended the reading: an arc among them that
        // the builder refuses is the first error of the file.
        self.flush_arcs()?;
        read?;
        Ok(self.builder.finish())
    }

    /// Reads the file into the builder, but for the arcs of the last arc section read.
    fn read(&mut self) -> Res<()> {
        let bytes = self.bytes;
        let start = if bytes.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let body = self.header(start)?;

        // `rank`: index in SECTIONS of the current section.
        let mut rank: Option<usize> = None;
        let mut pos = body;
        while pos < bytes.len() {
            // Most lines of large files have one simple form, read here in one pass; every
            // other line, and every malformed one, goes to the general reader below.
            match rank.map(|r| SECTIONS[r]) {
                Some((_, _, kind @ (Section::Places | Section::Transitions))) => {
                    let is_place = kind == Section::Places;
                    if let Some(q) = quick_node(bytes, pos, is_place) {
                        self.add_node(pos, is_place, q.number, Some(q.name), q.marking)?;
                        pos = q.end;
                        continue;
                    }
                }
                Some((name, _, Section::Arcs(kind))) => {
                    let arrow = match kind {
                        ArcKind::Input => b'>',
                        ArcKind::Output | ArcKind::Read => b'<',
                    };
                    if let Some(q) = quick_arc(bytes, pos, arrow) {
                        let w = q.weight.unwrap_or(self.default_weight);
                        self.add_arc(name, kind, q.first, q.second, w)?;
                        pos = q.end;
                        continue;
                    }
                }
                _ => {}
            }
            let Some(line) = line_at(bytes, pos) else {
                break;
            };
            pos = line.end;
            if line.is_blank() {
                continue;
            }
            let rest = skip_blanks(line.text);
            if rest.first().is_some_and(u8::is_ascii_uppercase) {
                let next = self.section(&line, rest, rank)?;
                self.flush_arcs()?;
                rank = Some(next);
                if SECTIONS[next].2 == Section::Text {
                    // The texts run to the end of the file, in any form.
                    break;
                }
                continue;
            }
            let Some(r) = rank else {
                return fail(
                    line.off(rest),
                    format!(
                        "expected a section keyword (such as PL), found '{}'",
                        show(rest)
                    ),
                );
            };
            let (name, _, kind) = SECTIONS[r];
            match kind {
                Section::Defaults | Section::ArcDefaults => {
                    return fail(
                        line.off(rest),
                        format!(
                            "unexpected line in the one-line section '{name}': expected a \
                             section keyword"
                        ),
                    );
                }
                Section::Skipped | Section::Text => {}
                Section::Places => self.node(&line, true)?,
                Section::Transitions => self.node(&line, false)?,
                Section::Arcs(arc) => self.arc(&line, name, arc)?,
            }
        }
        let end = bytes.len();
        let seen = rank.map_or(0, |r| r + 1);
        if let Some((name, _, _)) = SECTIONS[seen..].iter().find(|s| s.1) {
            return fail(end, format!("missing section '{name}': the file ends here"));
        }
        Ok(())
    }

    /// Gives the pending arcs to the builder in the order of the file, each transition's list
    /// allocated once at its size (arcs come in any order, so pushed one by one the lists
    /// would each be allocated when their first arc comes, and grown as more do).
    fn flush_arcs(&mut self) -> Res<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut count = vec![0u32; self.builder.transition_count()];
        for a in &self.pending {
            count[a.trans as usize] += 1;
        }
        let kind = self.pending_kind;
        for a in std::mem::take(&mut self.pending) {
            let n = std::mem::take(&mut count[a.trans as usize]);
            if n > 0 {
                self.builder.reserve_arcs(a.trans, kind, n as usize);
            }
            self.builder
                .add_arc(a.place, a.trans, kind, a.weight)
                .or_else(|e| fail(a.at, e.to_string()))?;
        }
        Ok(())
    }

    /// Checks the header from `start`; returns the offset of the line after it.
    fn header(&self, start: usize) -> Res<usize> {
        let mut words: Vec<(usize, &[u8])> = Vec::with_capacity(3);
        for line in lines(self.bytes, start) {
            let mut rest = line.text;
            loop {
                let trimmed = rest.trim_ascii_start();
                if trimmed.is_empty() {
                    break;
                }
                let len = trimmed
                    .iter()
                    .position(u8::is_ascii_whitespace)
                    .unwrap_or(trimmed.len());
                if words.len() == 3 {
                    return fail(
                        line.off(trimmed),
                        format!("unexpected '{}' after the header", show(trimmed)),
                    );
                }
                words.push((line.off(trimmed), &trimmed[..len]));
                self.header_word(words.len() - 1, line.off(trimmed), &trimmed[..len])?;
                rest = &trimmed[len..];
            }
            if words.len() == 3 {
                return Ok(line.end);
            }
        }
        let end = self.bytes.len();
        match words.len() {
            0 => fail(
                end,
                "empty file: expected a PEP net, which starts with 'PEP'",
            ),
            1 => fail(
                end,
                "unexpected end of file in the header: expected the net type (PTNet or PetriBox)",
            ),
            _ => fail(
                end,
                "unexpected end of file in the header: expected FORMAT_N or FORMAT_N2",
            ),
        }
    }

    /// Checks the `index`th header word.
    fn header_word(&self, index: usize, offset: usize, w: &[u8]) -> Res<()> {
        let is_word = |w: &[u8]| {
            w.first().is_some_and(u8::is_ascii_alphabetic)
                && w.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        };
        match index {
            0 if w == b"PEP" => Ok(()),
            0 if w.starts_with(b"PEP") => fail(
                offset + 3,
                format!(
                    "unexpected '{}' after 'PEP': expected a line break",
                    show(&w[3..])
                ),
            ),
            0 => fail(
                offset,
                format!(
                    "expected 'PEP' at the start of a PEP net, found '{}'",
                    show(w)
                ),
            ),
            1 if w.starts_with(b"FORMAT_") => fail(
                offset,
                format!("missing net type (PTNet or PetriBox) before '{}'", show(w)),
            ),
            1 if is_word(w) => Ok(()),
            1 => fail(
                offset,
                format!(
                    "expected the net type (PTNet or PetriBox), found '{}'",
                    show(w)
                ),
            ),
            _ if w.starts_with(b"FORMAT_") && is_word(w) => Ok(()),
            _ => fail(
                offset,
                format!(
                    "expected the format (FORMAT_N or FORMAT_N2), found '{}'",
                    show(w)
                ),
            ),
        }
    }

    /// Handles a section keyword line; returns the new section's rank.
    fn section(&mut self, line: &Line<'a>, rest: In<'a>, current: Option<usize>) -> Res<usize> {
        let offset = line.off(rest);
        let (after, kw) = word(rest).unwrap_or((rest, &rest[..0]));
        let Some(rank) = SECTIONS.iter().position(|s| s.0.as_bytes() == kw) else {
            return fail(offset, format!("unknown section '{}'", show(kw)));
        };
        let (name, _, kind) = SECTIONS[rank];
        if let Some(cur) = current {
            if rank == cur {
                return fail(offset, format!("section '{name}' appears twice"));
            }
            if rank < cur {
                return fail(
                    offset,
                    format!(
                        "section '{name}' is out of order: it must come before section '{}'",
                        SECTIONS[cur].0
                    ),
                );
            }
        }
        let first = current.map_or(0, |c| c + 1);
        if let Some((missing, _, _)) = SECTIONS[first..rank].iter().find(|s| s.1) {
            let later = lines(self.bytes, line.end).any(|l| {
                word(l.text.trim_ascii_start()).is_ok_and(|(_, w)| w == missing.as_bytes())
            });
            let message = if later {
                format!("section '{name}' is out of order: it must come after section '{missing}'")
            } else {
                format!("missing section '{missing}' (expected before section '{name}')")
            };
            return fail(offset, message);
        }
        match kind {
            Section::Defaults | Section::ArcDefaults => {
                // One-line sections: the defaults follow the keyword.
                let mut r = after;
                while let Some((it, next)) = item(line, r)? {
                    if kind == Section::ArcDefaults && it.key == b'w' {
                        self.default_weight = weight(&it)?;
                    }
                    r = next;
                }
            }
            Section::Text => {}
            _ => {
                if !after.trim_ascii().is_empty() {
                    return fail(
                        line.off(after),
                        format!(
                            "unexpected '{}' after section keyword '{name}'",
                            show(after)
                        ),
                    );
                }
            }
        }
        Ok(rank)
    }

    /// Reads a place (`is_place`) or transition line.
    fn node(&mut self, line: &Line<'a>, is_place: bool) -> Res<()> {
        let what = if is_place { "place" } else { "transition" };
        let mut number: Option<(u32, usize)> = None;
        let mut name: Option<&[u8]> = None;
        let mut marking = 0u32;
        let mut rest = line.text;
        let mut first = true;
        while let Some((it, next)) = item(line, rest)? {
            match (it.key, &it.value) {
                (0, Value::Number(n)) if first => {
                    let n = u32::try_from(*n).or_else(|_| {
                        fail(it.offset, format!("{what} number {n} must not be negative"))
                    })?;
                    number = Some((n, it.offset));
                }
                (0, Value::Number(n)) => {
                    return fail(
                        it.offset,
                        format!("unexpected number {n} in a {what} line: expected an attribute"),
                    );
                }
                (0, Value::Str(s)) => {
                    if name.is_some() {
                        return fail(it.offset, format!("a second quoted name in a {what} line"));
                    }
                    name = Some(s);
                }
                (b'M', _) if is_place => match it.value {
                    Value::Number(n) => {
                        marking = u32::try_from(n).or_else(|_| {
                            fail(
                                it.value_offset,
                                format!("initial marking {n} must not be negative"),
                            )
                        })?;
                    }
                    _ => {
                        return fail(it.value_offset, "expected a number of tokens after 'M'");
                    }
                },
                // Layout, meanings, blocks, flags: of no use here.
                _ => {}
            }
            first = false;
            rest = next;
        }

        // The name is a slice of the line's text (not a suffix: `off` does not apply).
        let name = name.map(|s| {
            (
                s,
                line.start + (s.as_ptr() as usize - line.text.as_ptr() as usize),
            )
        });
        self.add_node(line.start, is_place, number, name, marking)
    }

    /// Adds the place (`is_place`) or transition of the line at `line_start` with its number
    /// and the number's offset, if any, its quoted name and the offset its UTF-8 errors are
    /// counted from, and its initial marking.
    fn add_node(
        &mut self,
        line_start: usize,
        is_place: bool,
        number: Option<(u32, usize)>,
        name: Option<(&[u8], usize)>,
        marking: u32,
    ) -> Res<()> {
        let what = if is_place { "place" } else { "transition" };
        let numbering = if is_place {
            &mut self.places
        } else {
            &mut self.transitions
        };
        numbering.count += 1;
        let (n, offset) = match number {
            Some((n, offset)) => {
                if n != numbering.count {
                    numbering.sequential = false;
                }
                (n, offset)
            }
            None if numbering.sequential => (numbering.count, line_start),
            None => {
                return fail(
                    line_start,
                    format!(
                        "{what} without a number, after {what}s numbered out of sequence \
                         (give every {what} a number)"
                    ),
                );
            }
        };
        if numbering.get(n).is_some() {
            return fail(offset, format!("duplicate {what} number {n}"));
        }
        let label = match name {
            Some((s, at)) if !s.is_empty() => match std::str::from_utf8(s) {
                Ok(s) => Some(CompactString::from(s)),
                Err(e) => {
                    let at = at + e.valid_up_to();
                    return fail(at, format!("the {what} name is not valid UTF-8"));
                }
            },
            _ => None,
        };
        let built = if is_place {
            self.builder.add_place(numbered_id(b'p', n), label, marking)
        } else {
            self.builder.add_transition(numbered_id(b't', n), label)
        };
        let idx = built.or_else(|e| fail(offset, e.to_string()))?;
        numbering.insert(n, idx);
        Ok(())
    }

    /// Reads an arc line of section `name`.
    fn arc(&mut self, line: &Line<'a>, name: &str, kind: ArcKind) -> Res<()> {
        let (arrow, shape) = match kind {
            ArcKind::Input => (b'>', "p>t"),
            ArcKind::Output | ArcKind::Read => (b'<', "t<p"),
        };
        let rest = skip_blanks(line.text);
        let first_at = line.off(rest);
        let (first, rest) = self.arc_end(line, rest, name, shape)?;
        let rest = skip_blanks(rest);
        let rest = match rest.first() {
            Some(&b) if b == arrow || b == b'@' => &rest[1..],
            _ => {
                return fail(
                    line.off(rest),
                    format!(
                        "expected '{}' in an arc of section {name} (arcs there are '{shape}'), \
                         found '{}'",
                        arrow as char,
                        show(rest)
                    ),
                );
            }
        };
        let rest = skip_blanks(rest);
        let second_at = line.off(rest);
        let (second, mut rest) = self.arc_end(line, rest, name, shape)?;

        let mut w = self.default_weight;
        while let Some((it, next)) = item(line, rest)? {
            match it.key {
                b'w' => w = weight(&it)?,
                0 => {
                    return fail(
                        it.offset,
                        format!(
                            "unexpected '{}' in an arc line",
                            show(&rest.trim_ascii()[..1])
                        ),
                    );
                }
                // Layout, inscriptions, visibility: of no use here.
                _ => {}
            }
            rest = next;
        }

        self.add_arc(name, kind, (first, first_at), (second, second_at), w)
    }

    /// Adds the arc of section `name` between the nodes numbered `first` and `second` (each
    /// with its offset), in the order of the section's lines: both ends are checked here, the
    /// arc waits for the builder until the section ends.
    fn add_arc(
        &mut self,
        name: &str,
        kind: ArcKind,
        (first, first_at): (u32, usize),
        (second, second_at): (u32, usize),
        w: u32,
    ) -> Res<()> {
        let ((p, p_at), (t, t_at)) = match kind {
            ArcKind::Input => ((first, first_at), (second, second_at)),
            ArcKind::Output | ArcKind::Read => ((second, second_at), (first, first_at)),
        };
        let Some(place) = self.places.get(p) else {
            return fail(
                p_at,
                format!("unknown place {p} in an arc of section {name}"),
            );
        };
        let Some(trans) = self.transitions.get(t) else {
            return fail(
                t_at,
                format!("unknown transition {t} in an arc of section {name}"),
            );
        };
        // Sections never interleave: all pending arcs are of this section's kind.
        self.pending_kind = kind;
        self.pending.push(PendingArc {
            place: place as PlaceIdx,
            trans: trans as TransIdx,
            weight: w,
            at: first_at,
        });
        Ok(())
    }

    /// Reads one end (a node number) of an arc.
    fn arc_end(
        &self,
        line: &Line<'a>,
        rest: In<'a>,
        name: &str,
        shape: &str,
    ) -> Res<(u32, In<'a>)> {
        if !rest.first().is_some_and(u8::is_ascii_digit) {
            return fail(
                line.off(rest),
                format!(
                    "expected a number in an arc of section {name} (arcs there are '{shape}'), \
                     found '{}'",
                    show(rest)
                ),
            );
        }
        let (n, after) = number(line, rest)?;
        Ok((n as u32, after))
    }
}

/// The identifier `prefix` followed by `n` in decimal, as `format!` would write it but without
/// its machinery (it runs once per node).
fn numbered_id(prefix: u8, mut n: u32) -> CompactString {
    // A u32 has at most 10 digits.
    let mut buf = [0u8; 11];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    i -= 1;
    buf[i] = prefix;
    // (At most 11 bytes: kept inline, no allocation.)
    CompactString::from_utf8(&buf[i..]).expect("a letter and digits are ASCII")
}

/// The weight given by attribute `w`.
fn weight(it: &Item<'_>) -> Res<u32> {
    match it.value {
        Value::Number(n) if n >= 1 => Ok(n as u32),
        Value::Number(n) => fail(
            it.value_offset,
            format!("arc weight must be at least 1, found {n}"),
        ),
        _ => fail(
            it.value_offset,
            "expected a number after 'w' (the arc weight)",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::Arc;

    fn read(text: &str) -> Result<Net, ReadError> {
        parse(text.as_bytes(), Path::new("dir/test.ll_net"))
    }

    fn ok(text: &str) -> Net {
        read(text).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The error's line, column and message.
    fn err(text: &[u8]) -> (u32, u32, String) {
        match parse(text, Path::new("bad.ll_net")) {
            Err(ReadError::Parse {
                pos: Some(Position::LineCol { line, col }),
                message,
                ..
            }) => (line, col, message),
            other => panic!("expected a parse error with a position, got {other:?}"),
        }
    }

    fn arcs(v: &[Arc]) -> Vec<(u32, u32)> {
        v.iter().map(|a| (a.place, a.weight)).collect()
    }

    const HEAD: &str = "PEP\nPTNet\nFORMAT_N\n";

    #[test]
    fn implicit_numbering() {
        let net = ok(&format!(
            "{HEAD}PL\n\"a\"M1\n\"b\"\nTR\n\"t\"\n\"u\"\nTP\n1<2\n2<1\nPT\n1>1\n2>2\n"
        ));
        assert_eq!(net.name, "test");
        let ids: Vec<_> = net
            .places
            .iter()
            .map(|p| (&*p.id, &*p.label, p.initial))
            .collect();
        assert_eq!(ids, [("p1", "a", 1), ("p2", "b", 0)]);
        assert_eq!(net.transitions[0].id, "t1");
        assert_eq!(net.transitions[1].label, "u");
        assert_eq!(arcs(&net.transitions[0].pre), [(0, 1)]);
        assert_eq!(arcs(&net.transitions[0].post), [(1, 1)]);
        assert_eq!(arcs(&net.transitions[1].pre), [(1, 1)]);
        assert_eq!(arcs(&net.transitions[1].post), [(0, 1)]);
    }

    #[test]
    fn explicit_numbering_with_gaps_and_any_order() {
        let net = ok(&format!(
            "{HEAD}PL\n7\"a\"\n3\"b\"M2\nTR\n10\"t\"\nTP\n10<7\nPT\n3>10\n"
        ));
        assert_eq!(net.places[0].id, "p7");
        assert_eq!(net.places[1].id, "p3");
        assert_eq!(net.places[1].initial, 2);
        assert_eq!(net.transitions[0].id, "t10");
        assert_eq!(arcs(&net.transitions[0].post), [(0, 1)]);
        assert_eq!(arcs(&net.transitions[0].pre), [(1, 1)]);
    }

    #[test]
    fn shared_number_range() {
        // Places 1..2, transitions 3..4; arcs use those numbers.
        let net = ok(&format!(
            "{HEAD}PL\n1\"p\"M1\n2\"q\"\nTR\n3\"t\"\n4\"u\"\nTP\n3<2\n4<1\nPT\n1>3\n2>4\n"
        ));
        assert_eq!(net.transitions[0].id, "t3");
        assert_eq!(arcs(&net.transitions[0].pre), [(0, 1)]);
        assert_eq!(arcs(&net.transitions[1].post), [(0, 1)]);
        // Number 1 names a place in PT but there is no transition 1.
        let (l, c, m) = err(format!("{HEAD}PL\n1\"p\"\nTR\n3\"t\"\nTP\nPT\n1>1\n").as_bytes());
        assert_eq!((l, c), (10, 3));
        assert!(m.contains("unknown transition 1"), "{m}");
    }

    #[test]
    fn separate_ranges_may_overlap() {
        let net = ok(&format!("{HEAD}PL\n1\"p\"\nTR\n1\"t\"\nTP\n1<1\nPT\n1>1\n"));
        assert_eq!(net.places[0].id, "p1");
        assert_eq!(net.transitions[0].id, "t1");
        assert_eq!(net.arc_count(), 2);
    }

    #[test]
    fn implicit_after_out_of_sequence_is_an_error() {
        let (l, _, m) = err(format!("{HEAD}PL\n5\"a\"\n\"b\"\nTR\nTP\nPT\n").as_bytes());
        assert_eq!(l, 6);
        assert!(m.contains("without a number"), "{m}");
        // In sequence, mixing is fine.
        let net = ok(&format!("{HEAD}PL\n1\"a\"\n\"b\"\n3\"c\"\nTR\nTP\nPT\n"));
        assert_eq!(net.places[1].id, "p2");
    }

    #[test]
    fn comments_blank_lines_and_percent_in_strings() {
        let net = ok(concat!(
            "% leading comment\n\nPEP % magic\nPetriBox\r\nFORMAT_N2\n%c\n",
            "DPL s7n10@-9t2\nDTR s7n10@-9t2\nDPT w1t1\nBL\n1 \"B1\"1710@630 b\"blk\"\n",
            "PL\n  \n\"a%b\"1@2b\"x % y\"R\"(1,2;3,4)\"eM1m1M1 % trailing\n",
            "TR\n\"t\"3@4v65P\"(1)\"b\"<j' = (('j + 1) % 2)>\"u\"(1)\"S\n",
            "PTR\n1\"PT1\"1230@150P\"(1)\"v64\nTP\n1<1J153@81\nPT\n1>1v4\nPTP\n1<6\nPPT\n",
            "TX\nanything at all \" here\nPL\n",
        ));
        assert_eq!(net.places[0].label, "a%b");
        assert_eq!(net.places[0].initial, 1);
        assert_eq!(net.transitions[0].label, "t");
        assert_eq!(net.arc_count(), 2);
    }

    #[test]
    fn arcs_in_any_order_fill_lists_allocated_at_their_size() {
        let net = ok(&format!(
            "{HEAD}PL\n\"a\"\n\"b\"\n\"c\"\nTR\n\"t\"\n\"u\"\nTP\n1<3\n2<1\n1<1\n1<2\n2<3\n\
             PT\n2>2\n1>1\n3>1\n"
        ));
        let (t, u) = (&net.transitions[0], &net.transitions[1]);
        assert_eq!(arcs(&t.post), [(0, 1), (1, 1), (2, 1)]);
        assert_eq!(arcs(&u.post), [(0, 1), (2, 1)]);
        assert_eq!(arcs(&t.pre), [(0, 1), (2, 1)]);
        assert_eq!(arcs(&u.pre), [(1, 1)]);
        // (Lists up to the inline size take no allocation.)
        for list in [&t.pre, &t.post, &u.pre, &u.post] {
            assert_eq!(list.capacity(), list.len().max(list.inline_size()));
        }
    }

    #[test]
    fn read_arcs() {
        let net = ok(&format!(
            "{HEAD}PL\n\"a\"M1\n\"b\"\n\"mid\"M1\nTR\n\"t\"\nTP\n1<2\nPT\n1>1\nRA\n1<3\n"
        ));
        assert_eq!(arcs(&net.transitions[0].reads), [(2, 1)]);
        assert_eq!(net.read_arc_count(), 1);
        let (l, c, m) = err(format!("{HEAD}PL\n\"a\"\nTR\n\"t\"\nTP\nPT\nRA\n1<9\n").as_bytes());
        assert_eq!((l, c), (11, 3));
        assert!(m.contains("unknown place 9") && m.contains("RA"), "{m}");
    }

    #[test]
    fn weights_and_markings() {
        let net = ok(&format!(
            "{HEAD}PL\n\"a\"M5\n\"b\"M0\nTR\n\"t\"\nTP\n1<2w3\nPT\n1>1 w2 v4\n"
        ));
        assert_eq!(net.places[0].initial, 5);
        assert_eq!(net.places[1].initial, 0);
        assert_eq!(arcs(&net.transitions[0].pre), [(0, 2)]);
        assert_eq!(arcs(&net.transitions[0].post), [(1, 3)]);
        // The DPT default weight applies to arcs without w.
        let net = ok("PEP\nPTNet\nFORMAT_N\nDPT w2\nPL\n\"a\"\nTR\n\"t\"\nTP\n1<1\nPT\n1>1w1\n");
        assert_eq!(arcs(&net.transitions[0].post), [(0, 2)]);
        assert_eq!(arcs(&net.transitions[0].pre), [(0, 1)]);
    }

    #[test]
    fn zero_weight_is_an_error() {
        let (l, c, m) = err(format!("{HEAD}PL\n\"a\"\nTR\n\"t\"\nTP\n1<1w0\nPT\n").as_bytes());
        assert_eq!((l, c), (9, 5));
        assert!(m.contains("weight"), "{m}");
        let (_, _, m) = err(format!("{HEAD}DPT w0\nPL\nTR\nTP\nPT\n").as_bytes());
        assert!(m.contains("weight"), "{m}");
        let (_, _, m) = err(format!("{HEAD}PL\n\"a\"\nTR\n\"t\"\nTP\n1<1w\nPT\n").as_bytes());
        assert!(m.contains("'w' needs a value"), "{m}");
    }

    #[test]
    fn empty_name_falls_back_to_id() {
        let net = ok(&format!("{HEAD}PL\n4\"\"\nTR\n2\nTP\nPT\n"));
        assert_eq!(net.places[0].label, "p4");
        assert_eq!(net.transitions[0].label, "t2");
    }

    #[test]
    fn missing_section() {
        let (l, c, m) = err(format!("{HEAD}TR\n\"t\"\nTP\nPT\n").as_bytes());
        assert_eq!((l, c), (4, 1));
        assert!(m.contains("missing section 'PL'"), "{m}");
        let (l, _, m) = err(format!("{HEAD}PL\nTR\nTP\n").as_bytes());
        assert_eq!(l, 7);
        assert!(m.contains("missing section 'PT'"), "{m}");
    }

    #[test]
    fn misplaced_sections() {
        let (l, _, m) = err(format!("{HEAD}PL\nPT\nTR\nTP\n").as_bytes());
        assert_eq!(l, 5);
        assert!(
            m.contains("'PT'") && m.contains("after section 'TR'"),
            "{m}"
        );
        let (l, _, m) = err(format!("{HEAD}PL\nTR\nTP\nPT\nTP\n").as_bytes());
        assert_eq!(l, 8);
        assert!(m.contains("'TP' is out of order"), "{m}");
        let (_, _, m) = err(format!("{HEAD}PL\nPL\n").as_bytes());
        assert!(m.contains("twice"), "{m}");
        let (_, _, m) = err(format!("{HEAD}PL\nTR\nTP\nPT\nXY\n").as_bytes());
        assert!(m.contains("unknown section 'XY'"), "{m}");
        let (l, c, m) = err(format!("{HEAD}1\"a\"\nPL\n").as_bytes());
        assert_eq!((l, c), (4, 1));
        assert!(m.contains("section keyword"), "{m}");
    }

    #[test]
    fn header_errors() {
        let (l, c, m) = err(b"");
        assert_eq!((l, c), (1, 1));
        assert!(m.contains("empty"), "{m}");
        let (_, _, m) = err(b"  % only a comment\n");
        assert!(m.contains("empty"), "{m}");
        let (_, _, m) = err(b"PEP\nPTNet\n");
        assert!(m.contains("FORMAT_N"), "{m}");
        let (_, _, m) = err(b"PEP\nFORMAT_N\nPL\n");
        assert!(m.contains("net type"), "{m}");
        let (_, _, m) = err(b"PEP\nPTNet\nFORMAT_N\n");
        assert!(m.contains("missing section 'PL'"), "{m}");
        let (l, c, m) = err(b"PEP\x00\xff\xfe\x01junk\n");
        assert_eq!((l, c), (1, 4));
        assert!(m.contains("after 'PEP'"), "{m}");
        let (_, _, m) = err(b"PEPX");
        assert!(m.contains("after 'PEP'"), "{m}");
        let (_, _, m) = err(b"NOTPEP\n");
        assert!(m.contains("expected 'PEP'"), "{m}");
        // A byte-order mark and other format words are fine.
        ok("\u{feff}PEP\nPTNet\nFORMAT_X\nPL\nTR\nTP\nPT\n");
    }

    #[test]
    fn bad_lines() {
        let cases: &[(&[u8], &str)] = &[
            (b"PL\n1\"a\"M99999999999\n", "too large"),
            (b"PL\n1\"a\"M-1\n", "negative"),
            (b"PL\n1\"a\"Mx\n", "'M' needs a value"),
            (b"PL\n1\"a\n", "unterminated"),
            (b"PL\n1\"a\"\"b\"\n", "second quoted name"),
            (b"PL\n1\"a\"2\n", "unexpected number 2"),
            (b"PL\n1\"a\"#\n", "unexpected character"),
            (b"PL\n1\"a\"\n1\"b\"\n", "duplicate place number 1"),
            (b"PL\n1\"\xff\"\n", "UTF-8"),
            (b"PL\n\"a\"\nTR\n\"t\"\nTP\n1>1\n", "expected '<'"),
            (b"PL\n\"a\"\nTR\n\"t\"\nTP\nx<1\n", "expected a number"),
            (b"PL\n\"a\"\nTR\n\"t\"\nTP\n1<x\n", "expected a number"),
            (b"PL\n\"a\"\nTR\n\"t\"\nTP\n1<1\"z\"\n", "unexpected"),
            (
                b"PL\n\"a\"\nTR\n\"t\"\nTP\n1<1\n1<1\n",
                "duplicate output arc",
            ),
            (
                b"PL\n\"a\"\nTR\n\"t\"\nTP\nPT\n1>1\n1>1w2\n",
                "duplicate input arc",
            ),
            (b"PL\n\"a\"\nTR\n\"t\"\nTP\n5<1\n", "unknown transition 5"),
            (b"PL\nTR\nTP\nPT\nPT\n", "twice"),
            (b"PL extra\n", "after section keyword"),
            (b"DPL s7\n1\"a\"\n", "one-line section"),
        ];
        for (body, want) in cases {
            let mut text = HEAD.as_bytes().to_vec();
            text.extend_from_slice(body);
            let (_, _, m) = err(&text);
            assert!(m.contains(want), "{}: {m}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn error_display_has_file_and_position() {
        let e = read(&format!("{HEAD}PL\n\"a\"\nTR\n\"t\"\nTP\n1<7\nPT\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "dir/test.ll_net:9:3: unknown place 7 in an arc of section TP"
        );
    }

    #[test]
    fn junk_never_panics() {
        // Prefixes and byte-flipped variants of a valid net: errors, never panics or hangs.
        let good = format!(
            "{HEAD}DPT w1\nPL\n1\"a\"1@2M1\n2'b'\nTR\n1\"t\"v3\nTP\n1<2w2\nPT\n1>1\nRA\n1<2\nTX\nx\n"
        );
        let good = good.as_bytes();
        for cut in 0..good.len() {
            let _ = parse(&good[..cut], Path::new("x"));
            for junk in [b'\0', b'"', b'\n', b'%', b'-', b'@', 0xff] {
                let mut v = good.to_vec();
                v[cut] = junk;
                let _ = parse(&v, Path::new("x"));
            }
        }
        ok(std::str::from_utf8(good).unwrap());
    }

    #[test]
    fn quick_and_general_lines_read_alike() {
        // The same net in the common form (read by the quick path) and with blanks, comments
        // and attribute order that only the general reader takes.
        let quick = ok(&format!(
            "{HEAD}PL\n1\"a b%\"M2\n2'q\"'\n\"\"M0\nTR\n1\"t\"\n2\"\"\nTP\n1<2\n2<3w4\n\
             PT\n1>1\n3@2w2\nRA\n2<1\n"
        ));
        let general = ok(&format!(
            "{HEAD}PL\n 1 \"a b%\" M 2\n2 'q\"' % c\n\"\" M0 \nTR\n1\"t\" v1\n 2\"\"\nTP\n1 <2\n\
             2<3 w4\nPT\n1>1 % c\n3@2 w 2\nRA\n2<1 \n"
        ));
        assert_eq!(quick, general);
        assert_eq!(quick.places[0].label, "a b%");
        assert_eq!(quick.places[0].initial, 2);
        assert_eq!(quick.places[1].label, "q\"");
        assert_eq!(quick.places[2].id, "p3");
        assert_eq!(quick.places[2].label, "p3");
        assert_eq!(quick.transitions[1].label, "t2");
        assert_eq!(arcs(&quick.transitions[1].post), [(2, 4)]);
        assert_eq!(arcs(&quick.transitions[1].pre), [(2, 2)]);
        assert_eq!(arcs(&quick.transitions[1].reads), [(0, 1)]);
        // Carriage returns and a last line without a line break.
        let crlf = ok(&format!(
            "{HEAD}PL\r\n1\"a\"M1\r\n\"b\"\r\nTR\r\n1\"t\"\r\nTP\r\n1<2\r\nPT\r\n1>1"
        ));
        assert_eq!(crlf.places[1].id, "p2");
        assert_eq!(crlf.places[0].initial, 1);
        assert_eq!(arcs(&crlf.transitions[0].pre), [(0, 1)]);
        let cr_at_end = ok(&format!("{HEAD}PL\n1\"a\"\nTR\n1\"t\"\nTP\nPT\n1>1\r"));
        assert_eq!(arcs(&cr_at_end.transitions[0].pre), [(0, 1)]);
    }

    #[test]
    fn quick_lines_report_errors_like_the_general_reader() {
        // (body after HEAD, line, column, part of the message): each line has the quick form
        // up to the error, or falls back to the general reader at the error.
        let cases: &[(&[u8], u32, u32, &str)] = &[
            (b"PL\n1\"a\"\n1\"b\"\n", 6, 1, "duplicate place number 1"),
            (
                b"PL\nTR\n7\"t\"\n7\"u\"\n",
                7,
                1,
                "duplicate transition number 7",
            ),
            (b"PL\n5\"a\"\n\"b\"\n", 6, 1, "without a number"),
            (b"PL\n0\"a\"\n\"b\"\n", 6, 1, "without a number"),
            (
                b"PL\n1\"a\"\n\"b\"\n2\"c\"\n",
                7,
                1,
                "duplicate place number 2",
            ),
            (b"PL\n1'a\"'\n1\"b\"\n", 6, 1, "duplicate place number 1"),
            (
                b"PL\n1\"a\"M1%x\n1\"b\"\n",
                6,
                1,
                "duplicate place number 1",
            ),
            (
                b"PL\n1\"ab\xff\"\n",
                5,
                5,
                "the place name is not valid UTF-8",
            ),
            (
                b"PL\n1\"a\"M99999999999\n",
                5,
                6,
                "number 99999999999 is too large",
            ),
            (
                b"PL\n99999999999\"a\"\n",
                5,
                1,
                "number 99999999999 is too large",
            ),
            (b"PL\n1\"a\"M\n", 5, 5, "'M' needs a value"),
            (b"PL\n1\"a\n", 5, 2, "unterminated"),
            (b"PL\n1\"a\"\"b\"\n", 5, 5, "a second quoted name"),
            (b"PL\n1\"a\"M1\r\r\n", 5, 7, "unexpected character '\\r'"),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<2\nPT\n",
                9,
                3,
                "unknown place 2",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n2<1\nPT\n",
                9,
                1,
                "unknown transition 2",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\nPT\n1>2\n",
                10,
                3,
                "unknown transition 2",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\nPT\n2>1\n",
                10,
                1,
                "unknown place 2",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<0\nPT\n",
                9,
                3,
                "unknown place 0",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1\n1<1w2\nPT\n",
                10,
                1,
                "duplicate output arc between place 'p1' and transition 't1'",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1@1\n1<1\nPT\n",
                10,
                1,
                "duplicate output arc",
            ),
            (
                b"PL\n0\"a\"\nTR\n0\"t\"\nTP\n0<0\n0<0\nPT\n",
                10,
                1,
                "duplicate output arc between place 'p0' and transition 't0'",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1\nPT\n1>1\n1>1\n",
                12,
                1,
                "duplicate input arc",
            ),
            // Arcs reach the builder when their section ends: a duplicate is still the error
            // reported when a later line of the section, a later section or the end of the
            // file has another one.
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1\n1<1\n5<1\nPT\n",
                10,
                1,
                "duplicate output arc",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1\n1<1\nPT\n1>1\nPT\n",
                10,
                1,
                "duplicate output arc",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1\n1<1\n",
                10,
                1,
                "duplicate output arc",
            ),
            (
                b"PL\n1\"a\"\n2\"b\"\nTR\n1\"t\"\n2\"u\"\nTP\n1<1\n2<2\n1<2\n2<1\n1<1\n2<2\nPT\n",
                15,
                1,
                "duplicate output arc between place 'p1' and transition 't1'",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1w0\nPT\n",
                9,
                5,
                "at least 1, found 0",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1w\nPT\n",
                9,
                4,
                "'w' needs a value",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<1w9999999999\nPT\n",
                9,
                5,
                "number 9999999999 is too large",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1>1\nPT\n",
                9,
                2,
                "expected '<'",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<x\nPT\n",
                9,
                3,
                "expected a number",
            ),
            (
                b"PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<12345678901\nPT\n",
                9,
                3,
                "number 12345678901 is too large",
            ),
        ];
        for &(body, line, col, want) in cases {
            let mut text = HEAD.as_bytes().to_vec();
            text.extend_from_slice(body);
            let (l, c, m) = err(&text);
            let shown = String::from_utf8_lossy(body);
            assert!(m.contains(want), "{shown}: {m}");
            assert_eq!((l, c), (line, col), "{shown}: {m}");
        }
    }

    #[test]
    fn numbers_far_apart() {
        // Numbers beyond the dense table (and one at the largest u32) are found by arcs and
        // checked for duplicates all the same.
        let net = ok(&format!(
            "{HEAD}PL\n4294967295\"a\"\n3\"b\"\n100000\"c\"\nTR\n999999999\"t\"\n2\"u\"\n\
             TP\n999999999<100000\n2<4294967295\nPT\n3>999999999\n"
        ));
        assert_eq!(net.places[0].id, "p4294967295");
        assert_eq!(net.transitions[0].id, "t999999999");
        assert_eq!(arcs(&net.transitions[0].post), [(2, 1)]);
        assert_eq!(arcs(&net.transitions[0].pre), [(1, 1)]);
        assert_eq!(arcs(&net.transitions[1].post), [(0, 1)]);
        let (l, _, m) = err(format!("{HEAD}PL\n100000\"c\"\n1\"a\"\n100000\"d\"\n").as_bytes());
        assert_eq!(l, 7);
        assert!(m.contains("duplicate place number 100000"), "{m}");
        let (l, _, m) = err(format!("{HEAD}PL\n1\"a\"\nTR\n1\"t\"\nTP\n1<100000\nPT\n").as_bytes());
        assert_eq!(l, 9);
        assert!(m.contains("unknown place 100000"), "{m}");
        // Many nodes numbered downwards, then upwards with gaps: the table grows on the way.
        let mut text = format!("{HEAD}PL\n");
        for n in (1..=3000).rev().chain((5000..9000).step_by(3)) {
            text += &format!("{n}\"\"\n");
        }
        text += "TR\n1\"t\"\nTP\n1<8999\n1<1\nPT\n3000>1\n";
        let net = ok(&text);
        assert_eq!(net.places[0].id, "p3000");
        assert_eq!(net.places.len(), 3000 + 1334);
        assert_eq!(net.places.last().unwrap().id, "p8999");
        assert_eq!(arcs(&net.transitions[0].post), [(2999, 1), (4333, 1)]);
        assert_eq!(arcs(&net.transitions[0].pre), [(0, 1)]);
    }

    #[test]
    fn numbered_ids() {
        for n in [0, 1, 9, 10, 99, 100, 123_456_789, u32::MAX] {
            assert_eq!(numbered_id(b'p', n), format!("p{n}"));
        }
    }

    fn round_trip(net: &Net) -> Net {
        let mut out = Vec::new();
        write(net, &mut out).unwrap();
        parse(&out, Path::new("again.ll_net")).unwrap_or_else(|e| {
            panic!("{e}\n{}", String::from_utf8_lossy(&out));
        })
    }

    #[test]
    fn writer_format() {
        let mut b = NetBuilder::new("n");
        let p = b
            .add_place("x", Some("say \"hi\"\nthere".into()), 2)
            .unwrap();
        let q = b.add_place("y", None, 0).unwrap();
        let t = b.add_transition("t", Some("T".into())).unwrap();
        let u = b.add_transition("u", None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 1).unwrap();
        b.add_arc(q, t, ArcKind::Output, 3).unwrap();
        b.add_arc(q, u, ArcKind::Input, 2).unwrap();
        b.add_arc(p, u, ArcKind::Read, 1).unwrap();
        let net = b.finish();
        let mut out = Vec::new();
        write(&net, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "PEP\nPTNet\nFORMAT_N2\nPL\n1\"say 'hi' there\"M2\n2\"y\"\nTR\n1\"T\"\n2\"u\"\n\
             TP\n1<2w3\nPT\n1>1\n2>2w2\nRA\n2<1\n"
        );
        let again = round_trip(&net);
        assert_eq!(again.places[0].label, "say 'hi' there");
        assert_eq!(again.places[1].label, "y");
        for (a, b) in net.transitions.iter().zip(&again.transitions) {
            assert_eq!(
                (&a.label, &a.pre, &a.post, &a.reads),
                (&b.label, &b.pre, &b.post, &b.reads)
            );
        }
    }

    #[test]
    fn writer_omits_empty_read_section() {
        let net = ok(&format!("{HEAD}PL\n\"a\"\nTR\n\"t\"\nTP\n1<1\nPT\n"));
        let mut out = Vec::new();
        write(&net, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains("RA"), "{text}");
        assert!(text.ends_with("TP\n1<1\nPT\n"), "{text}");
    }
}
