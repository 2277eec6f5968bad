//! The lines of a PEP file and the items on them: comments and line breaks removed, numbers,
//! quoted strings and attributes read with nom, and the quick reading of the forms PEP tools
//! write, which most lines of large files have.

use nom::{
    IResult, Parser,
    branch::alt,
    bytes::complete::{take_till, take_while, take_while1},
    character::complete::{char as byte, digit1},
    combinator::{opt, recognize},
    sequence::{delimited, pair},
};

use crate::formats::text::{Res, fail};

/// Attribute letters that stand alone (entry, exit, synchronisation, refined).
const FLAGS: &[u8] = b"exSr";

/// One line of the file, without its line break and its comment.
#[derive(Clone, Copy)]
pub(super) struct Line<'a> {
    /// Offset of the line's first byte in the file.
    pub(super) start: usize,
    /// The content.
    pub(super) text: &'a [u8],
    /// Offset of the next line (past the line break).
    pub(super) end: usize,
}

impl<'a> Line<'a> {
    /// The file offset of `rest`, a suffix of the line's text.
    pub(super) fn off(&self, rest: &[u8]) -> usize {
        self.start + (self.text.len() - rest.len())
    }

    /// Whether the line has nothing but blanks.
    pub(super) fn is_blank(&self) -> bool {
        self.text.iter().all(u8::is_ascii_whitespace)
    }
}

/// The lines of `bytes` from `offset`, comments and carriage returns removed.
pub(super) fn lines(bytes: &[u8], offset: usize) -> impl Iterator<Item = Line<'_>> {
    let mut start = offset;
    std::iter::from_fn(move || {
        let line = line_at(bytes, start)?;
        start = line.end;
        Some(line)
    })
}

/// The line of `bytes` that starts at `start`, comment and carriage return removed; `None` at
/// the end of the input.
pub(super) fn line_at(bytes: &[u8], start: usize) -> Option<Line<'_>> {
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
pub(super) fn show(text: &[u8]) -> String {
    let cut = &text[..text.len().min(40)];
    let mut s = cut.escape_ascii().to_string();
    if cut.len() < text.len() {
        s.push('…');
    }
    s
}

// nom lexers on the bytes of one line.

pub(super) type In<'a> = &'a [u8];

fn blanks(i: In) -> IResult<In, In> {
    take_while(|b: u8| b == b' ' || b == b'\t').parse(i)
}

/// `i` without its leading blanks.
pub(super) fn skip_blanks(i: In) -> In {
    blanks(i).map_or(i, |(rest, _)| rest)
}

fn integer(i: In) -> IResult<In, In> {
    recognize(pair(opt(byte('-')), digit1)).parse(i)
}

pub(super) fn word(i: In) -> IResult<In, In> {
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
pub(super) enum Value<'a> {
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
pub(super) struct Item<'a> {
    pub(super) key: u8,
    pub(super) value: Value<'a>,
    /// Offset of the item in the file.
    pub(super) offset: usize,
    /// Offset of the value in the file.
    pub(super) value_offset: usize,
}

/// Reads a number at `rest`.
pub(super) fn number<'a>(line: &Line<'a>, rest: In<'a>) -> Res<(i64, In<'a>)> {
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
        _ => fail(
            line.off(rest),
            format!("number {text} is too large (at most {})", u32::MAX),
        ),
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
pub(super) fn item<'a>(line: &Line<'a>, rest: In<'a>) -> Res<Option<(Item<'a>, In<'a>)>> {
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

/// A place or transition line in the form PEP tools write, `<n>"<name>"` with an ASCII name and
/// an optional `M<tokens>` (places), read without the general item scanner.
pub(super) struct QuickNode<'a> {
    /// The number and its offset.
    pub(super) number: Option<(u32, usize)>,
    /// The quoted name (without quotes) and its offset.
    pub(super) name: (&'a [u8], usize),
    pub(super) marking: u32,
    /// Offset of the next line.
    pub(super) end: usize,
}

/// An arc line in the form PEP tools write, `<n><arrow><n>` with an optional `w<weight>`.
pub(super) struct QuickArc {
    /// The first number and its offset.
    pub(super) first: (u32, usize),
    /// The second number and its offset.
    pub(super) second: (u32, usize),
    /// The weight given by `w`, if any (at least 1).
    pub(super) weight: Option<u32>,
    /// Offset of the next line.
    pub(super) end: usize,
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
pub(super) fn quick_node(bytes: &[u8], start: usize, is_place: bool) -> Option<QuickNode<'_>> {
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
pub(super) fn quick_arc(bytes: &[u8], start: usize, arrow: u8) -> Option<QuickArc> {
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
