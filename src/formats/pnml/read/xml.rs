//! The XML access of the PNML reader: the next event with its offset, positioned errors,
//! elements skipped or walked child by child, attributes (checked only where quick-xml's checks
//! are needed), entities, text content and numbers, and the claim of an identifier.

use std::borrow::Cow;
use std::collections::hash_map::Entry;

use quick_xml::events::attributes::Attributes;
use quick_xml::events::{BytesRef, BytesStart, Event};

use super::{IdInfo, IdKind, Parser, local, rebase, shorten};
use crate::formats::ReadError;

/// Tags with more attributes than this are read with quick-xml's checks (PNML tags have a few).
const FEW_ATTRIBUTES: usize = 8;

impl<'a> Parser<'a> {
    pub(super) fn err(&self, off: usize, message: impl Into<String>) -> ReadError {
        self.ctx.err(off, message)
    }

    /// The next XML event; records where it starts.
    pub(super) fn next(&mut self) -> Result<Event<'a>, ReadError> {
        self.ev_start = self.reader.buffer_position() as usize;
        match self.reader.read_event() {
            Ok(ev) => Ok(ev),
            Err(e) => Err(self.xml_error(e)),
        }
    }

    fn xml_error(&self, e: quick_xml::Error) -> ReadError {
        let off = self.reader.error_position() as usize;
        self.err(off, format!("malformed XML: {e}"))
    }

    /// The error for an element still open at the end of the input.
    pub(super) fn unclosed(&self, name: &str, open: usize) -> ReadError {
        self.err(
            self.ctx.input.len(),
            format!(
                "unexpected end of file: <{name}> opened at {} is not closed (truncated file?)",
                self.ctx.pos(open)
            ),
        )
    }

    /// Skips the content of the element whose start tag `e` (at `open`) was just read.
    pub(super) fn skip(&mut self, e: &BytesStart<'_>, open: usize) -> Result<(), ReadError> {
        match self.reader.read_to_end(e.name()) {
            Ok(_) => Ok(()),
            Err(quick_xml::Error::IllFormed(quick_xml::errors::IllFormedError::MissingEndTag(
                _,
            ))) => Err(self.unclosed(local(e), open)),
            Err(err) => Err(self.xml_error(err)),
        }
    }

    /// Reads the children of the element `name` opened at `open`, up to its end tag. `child`
    /// gets each child's start tag, whether it is empty (`<x/>`) and its offset; it must consume
    /// the content of a non-empty child. Text and comments are ignored.
    pub(super) fn children(
        &mut self,
        name: &str,
        open: usize,
        mut child: impl FnMut(&mut Self, BytesStart<'a>, bool, usize) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        loop {
            match self.next()? {
                Event::Start(e) => {
                    let off = self.ev_start;
                    child(self, e, false, off)?;
                }
                Event::Empty(e) => {
                    let off = self.ev_start;
                    child(self, e, true, off)?;
                }
                Event::End(_) => return Ok(()),
                Event::Eof => return Err(self.unclosed(name, open)),
                _ => {}
            }
        }
    }

    /// The attributes `names` (matched by local name) of `e`, unescaped, borrowed from the
    /// input when possible.
    pub(super) fn attrs<const N: usize>(
        &self,
        e: &BytesStart<'_>,
        off: usize,
        names: [&str; N],
    ) -> Result<[Option<Cow<'a, str>>; N], ReadError> {
        // The tag borrows from the input, but quick-xml only lends it for the event's lifetime:
        // re-borrow the same bytes from the input so the values outlive the event.
        let raw = rebase(self.ctx.input, e)
            .ok_or_else(|| self.err(off, "internal error: tag not borrowed from the input"))?;
        let name_len = e.name().as_ref().len();
        match Self::attrs_unchecked(raw, name_len, names) {
            Some(out) => Ok(out),
            None => self.attrs_checked(raw, name_len, off, names),
        }
    }

    /// The common case of [`Parser::attrs`]: well-formed attributes, at most
    /// [`FEW_ATTRIBUTES`] of them, all distinct. quick-xml's duplicate check allocates a list
    /// per tag; this one compares with the earlier keys on the stack. `None` when the tag is
    /// not that simple, and [`Parser::attrs_checked`] (which reports the errors) must read it.
    fn attrs_unchecked<const N: usize>(
        raw: &'a str,
        name_len: usize,
        names: [&str; N],
    ) -> Option<[Option<Cow<'a, str>>; N]> {
        let mut out = [const { None }; N];
        let mut keys: [&str; FEW_ATTRIBUTES] = [""; FEW_ATTRIBUTES];
        let mut attrs = Attributes::new(raw, name_len);
        attrs.with_checks(false);
        for (count, attr) in attrs.enumerate() {
            let attr = attr.ok()?;
            let key: &str = attr.key.into_inner();
            if count == FEW_ATTRIBUTES || keys[..count].contains(&key) {
                return None;
            }
            keys[count] = key;
            let local = attr.key.local_name();
            if let Some(i) = names.iter().position(|n| *n == local.as_ref()) {
                out[i] = Some(
                    attr.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .ok()?,
                );
            }
        }
        Some(out)
    }

    /// [`Parser::attrs`] with quick-xml's checks, which give the errors.
    fn attrs_checked<const N: usize>(
        &self,
        raw: &'a str,
        name_len: usize,
        off: usize,
        names: [&str; N],
    ) -> Result<[Option<Cow<'a, str>>; N], ReadError> {
        let mut out = [const { None }; N];
        for attr in Attributes::new(raw, name_len) {
            let attr = attr.map_err(|err| self.err(off, format!("malformed attribute: {err}")))?;
            let key = attr.key.local_name();
            if let Some(i) = names.iter().position(|n| *n == key.as_ref()) {
                let value = attr
                    .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .map_err(|err| {
                        self.err(off, format!("bad value of attribute '{}': {err}", names[i]))
                    })?;
                out[i] = Some(value);
            }
        }
        Ok(out)
    }

    /// The `id` attribute of a node, arc or reference, required.
    pub(super) fn required_id(
        &self,
        e: &BytesStart<'_>,
        off: usize,
    ) -> Result<Cow<'a, str>, ReadError> {
        let [id] = self.attrs(e, off, ["id"])?;
        match id {
            Some(id) if !id.is_empty() => Ok(id),
            _ => Err(self.err(off, format!("<{}> without an id attribute", local(e)))),
        }
    }

    /// Records `id` as declared at `off`; a second declaration is an error.
    pub(super) fn claim(
        &mut self,
        id: Cow<'a, str>,
        kind: IdKind,
        off: usize,
    ) -> Result<(), ReadError> {
        let ctx = self.ctx;
        match self.ids.entry(id) {
            Entry::Occupied(o) => Err(ctx.err(
                off,
                format!(
                    "duplicate id '{}' (first declared at {})",
                    o.key(),
                    ctx.pos(o.get().offset)
                ),
            )),
            Entry::Vacant(v) => {
                v.insert(IdInfo { kind, offset: off });
                Ok(())
            }
        }
    }

    /// Resolves a general reference (`&amp;`, `&#10;`…) inside text.
    pub(super) fn entity(&self, r: &BytesRef<'a>) -> Result<Cow<'a, str>, ReadError> {
        let off = self.ev_start;
        match r.resolve_char_ref() {
            Ok(Some(c)) => Ok(Cow::Owned(c.to_string())),
            Ok(None) => match &**r {
                "lt" => Ok(Cow::Borrowed("<")),
                "gt" => Ok(Cow::Borrowed(">")),
                "amp" => Ok(Cow::Borrowed("&")),
                "apos" => Ok(Cow::Borrowed("'")),
                "quot" => Ok(Cow::Borrowed("\"")),
                other => Err(self.err(off, format!("unknown entity '&{};'", shorten(other)))),
            },
            Err(e) => Err(self.err(off, format!("bad character reference: {e}"))),
        }
    }

    /// The content of a `<text>` element whose start tag (at `open`) was just read: text,
    /// CDATA sections and references concatenated, white space trimmed, with the offset of the
    /// content (for errors about its value).
    pub(super) fn text_content(&mut self, open: usize) -> Result<(Cow<'a, str>, usize), ReadError> {
        let mut acc: Option<Cow<'a, str>> = None;
        let mut first = None;
        loop {
            let piece: Cow<'a, str> = match self.next()? {
                Event::Text(t) => t.xml10_content(),
                Event::CData(c) => c.xml10_content(),
                Event::GeneralRef(r) => self.entity(&r)?,
                Event::Start(e) => {
                    let off = self.ev_start;
                    self.skip(&e, off)?;
                    continue;
                }
                Event::End(_) => break,
                Event::Eof => return Err(self.unclosed("text", open)),
                _ => continue,
            };
            first.get_or_insert(self.ev_start);
            // The common case is a single borrowed piece; only split text allocates.
            acc = Some(match acc {
                None => piece,
                Some(prev) => Cow::Owned(prev.into_owned() + &piece),
            });
        }
        let text = match acc {
            None => Cow::Borrowed(""),
            Some(Cow::Borrowed(s)) => Cow::Borrowed(s.trim()),
            Some(Cow::Owned(s)) => Cow::Owned(s.trim().to_string()),
        };
        // Point at the first non-blank character when the text is a slice of the input.
        let off = match &text {
            Cow::Borrowed(s) => rebase(self.ctx.input, s)
                .map(|r| r.as_ptr() as usize - self.ctx.input.as_ptr() as usize)
                .or(first),
            Cow::Owned(_) => first,
        }
        .unwrap_or(open);
        Ok((text, off))
    }

    /// The `<text>` of an annotation such as `<name>` or `<initialMarking>` whose start tag was
    /// just read; `None` when it has none.
    pub(super) fn annotation(
        &mut self,
        name: &str,
        open: usize,
    ) -> Result<Option<(Cow<'a, str>, usize)>, ReadError> {
        let mut text = None;
        self.children(name, open, |p, c, empty, off| {
            if local(&c) == "text" {
                text = Some(if empty {
                    (Cow::Borrowed(""), off)
                } else {
                    p.text_content(off)?
                });
            } else if !empty {
                p.skip(&c, off)?;
            }
            Ok(())
        })?;
        Ok(text)
    }

    /// Parses a natural number for `what` (u64, then narrowed to u32).
    pub(super) fn number(&self, text: &str, off: usize, what: &str) -> Result<u32, ReadError> {
        if text.is_empty() {
            return Err(self.err(off, format!("{what}: expected a number, found nothing")));
        }
        if text.starts_with('-') {
            return Err(self.err(
                off,
                format!("{what} must not be negative, found '{}'", shorten(text)),
            ));
        }
        let v: u64 = text.parse().map_err(|_| {
            // All digits and still no u64: say so, rather than "not a number".
            let why = if text.bytes().all(|b| b.is_ascii_digit()) {
                format!(
                    "{what} {} is too large (at most {})",
                    shorten(text),
                    u32::MAX
                )
            } else {
                format!("{what} is not a number: '{}'", shorten(text))
            };
            self.err(off, why)
        })?;
        u32::try_from(v).map_err(|_| {
            self.err(
                off,
                format!("{what} {v} is too large (at most {})", u32::MAX),
            )
        })
    }
}
