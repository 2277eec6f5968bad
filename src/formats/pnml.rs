//! PNML reader and writer for place/transition nets, as the Model Checking Contest publishes
//! them.
//!
//! The reader streams over the (possibly memory-mapped) bytes with quick-xml, borrowing
//! identifiers from the input where it can. Elements are matched by their local name, so the
//! PNML namespace may be the default one, bound to a prefix, or absent. Pages are flattened,
//! reference nodes resolved, and arcs collected and resolved once the whole net is read, so
//! they may come before their endpoints. Every error is a [`ReadError::Parse`] with a position.
//!
//! Read arcs have no standard PNML encoding: the writer encodes one as a pair of arcs p→t and
//! t→p, both marked with `<toolspecific tool="unfold" version="1"><read/></toolspecific>`, and
//! the reader turns such a marked pair back into one read arc. Tina's `<type value="test"/>`
//! arcs (place → transition) are read as read arcs too.
//!
//! What the writer does not preserve: leading and trailing white space of labels (the reader
//! trims text), an empty label (read back as the identifier), and the NUPN block, which is
//! written as the trivial valid NUPN of the written net (one unit per place, declared sizes
//! equal to the written ones, `safe` copied, `false` when unknown).

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::io::{self, Write};
use std::path::Path;

use compact_str::CompactString;
use quick_xml::Reader;
use quick_xml::events::attributes::Attributes;
use quick_xml::events::{BytesRef, BytesStart, Event};
use rustc_hash::{FxHashMap, FxHashSet};

use super::{Position, ReadError};
use crate::model::net::{
    Arc, ArcKind, Arcs, BuildError, Net, NetTransition, Node, Nupn, Place, PlaceIdx, TransIdx,
};

/// The PNML 2009 grammar namespace.
const PNML_NS: &str = "http://www.pnml.org/version-2009/grammar/pnml";
/// The PNML 2009 P/T net type.
const PTNET_TYPE: &str = "http://www.pnml.org/version-2009/grammar/ptnet";
/// Our tool name in `<toolspecific>` (read-arc marker).
const TOOL: &str = "unfold";
/// Tags with more attributes than this are read with quick-xml's checks (PNML tags have a few).
const FEW_ATTRIBUTES: usize = 8;

// ---------------------------------------------------------------------------------------------
// Reader
// ---------------------------------------------------------------------------------------------

/// Parses a P/T net in PNML.
///
/// `file` is only used in error messages. Coloured (symmetric / high-level) nets, inhibitor,
/// reset and timed arcs are refused with an error naming the type or the arc.
pub fn parse(bytes: &[u8], file: &Path) -> Result<Net, ReadError> {
    // Validating UTF-8 once up front lets every later slice be a `&str` borrowed from the
    // input (quick-xml 0.42 only hands out `str` content anyway).
    let input = std::str::from_utf8(bytes).map_err(|e| {
        ReadError::parse(
            file,
            Some(Position::of_offset(bytes, e.valid_up_to())),
            "not a PNML file: invalid UTF-8 (binary data or another encoding); PNML must be \
             UTF-8 encoded XML",
        )
    })?;
    let mut parser = Parser::new(input, file);
    parser.document()
}

/// File and text, to turn byte offsets into positioned errors.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    input: &'a str,
    file: &'a Path,
}

impl Ctx<'_> {
    fn pos(&self, off: usize) -> Position {
        Position::of_offset(self.input.as_bytes(), off)
    }

    fn err(&self, off: usize, message: impl Into<String>) -> ReadError {
        ReadError::parse(self.file, Some(self.pos(off)), message)
    }
}

/// What an identifier names.
#[derive(Clone, Copy, Debug)]
enum IdKind {
    Node(Node),
    /// Index in [`Parser::refs`].
    Ref(u32),
    Arc,
    Page,
}

/// An identifier's owner and where it was declared.
#[derive(Clone, Copy, Debug)]
struct IdInfo {
    kind: IdKind,
    offset: usize,
}

/// A `referencePlace` or `referenceTransition`.
struct RefNode<'a> {
    id: Cow<'a, str>,
    target: Cow<'a, str>,
    is_place: bool,
    offset: usize,
}

/// How an arc was marked in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ArcMark {
    /// An ordinary arc.
    Plain,
    /// Half of a read arc written by us (`<toolspecific tool="unfold"><read/>`).
    ReadHalf,
    /// A test arc (Tina's `<type value="test"/>`): a whole read arc.
    Test,
}

/// An arc waiting for the whole net to be read.
struct PendingArc<'a> {
    id: Cow<'a, str>,
    source: Cow<'a, str>,
    target: Cow<'a, str>,
    weight: u32,
    mark: ArcMark,
    offset: usize,
}

/// The streaming PNML parser.
struct Parser<'a> {
    ctx: Ctx<'a>,
    reader: Reader<&'a [u8]>,
    /// Offset of the start of the last event read.
    ev_start: usize,
    ids: FxHashMap<Cow<'a, str>, IdInfo>,
    /// The net being built: nodes in file order, arcs added by [`Parser::resolve`].
    net: Net,
    refs: Vec<RefNode<'a>>,
    arcs: Vec<PendingArc<'a>>,
}

/// The local name of an element (without namespace prefix).
fn local<'e>(e: &'e BytesStart<'_>) -> &'e str {
    e.local_name().into_inner()
}

/// `part` as a slice of `whole` with `whole`'s lifetime, when it lies inside it.
fn rebase<'a>(whole: &'a str, part: &str) -> Option<&'a str> {
    let off = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    whole.get(off..off.checked_add(part.len())?)
}

/// `s` cut to a readable length for messages.
fn shorten(s: &str) -> String {
    shorten_to(s, 40)
}

/// `s` cut to at most `max` characters.
fn shorten_to(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Arc types refused wherever they appear in an arc's tool-specific data (lower case).
fn is_unsupported_arc_marker(s: &str) -> bool {
    let s = s.trim();
    [
        "inhibitor",
        "inhibitorarc",
        "reset",
        "resetarc",
        "timed",
        "timedarc",
    ]
    .iter()
    .any(|m| s.eq_ignore_ascii_case(m))
}

impl<'a> Parser<'a> {
    fn new(input: &'a str, file: &'a Path) -> Self {
        let mut reader = Reader::from_str(input);
        // Mismatched end tags are errors; empty elements stay `Empty` (no allocation).
        reader.config_mut().check_end_names = true;
        // Guess sizes from the file length (an MCC place or arc takes ~100-200 bytes) to avoid
        // rehashing; bounded so a huge file does not reserve absurd amounts up front.
        let guess = (input.len() / 128).min(1 << 22);
        Parser {
            ctx: Ctx { input, file },
            reader,
            ev_start: 0,
            ids: FxHashMap::with_capacity_and_hasher(guess, Default::default()),
            net: Net {
                name: file
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                ..Net::default()
            },
            refs: Vec::new(),
            arcs: Vec::with_capacity(guess / 2),
        }
    }

    fn err(&self, off: usize, message: impl Into<String>) -> ReadError {
        self.ctx.err(off, message)
    }

    /// The next XML event; records where it starts.
    fn next(&mut self) -> Result<Event<'a>, ReadError> {
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
    fn unclosed(&self, name: &str, open: usize) -> ReadError {
        self.err(
            self.ctx.input.len(),
            format!(
                "unexpected end of file: <{name}> opened at {} is not closed (truncated file?)",
                self.ctx.pos(open)
            ),
        )
    }

    /// Skips the content of the element whose start tag `e` (at `open`) was just read.
    fn skip(&mut self, e: &BytesStart<'_>, open: usize) -> Result<(), ReadError> {
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
    fn children(
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
    fn attrs<const N: usize>(
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
    fn required_id(&self, e: &BytesStart<'_>, off: usize) -> Result<Cow<'a, str>, ReadError> {
        let [id] = self.attrs(e, off, ["id"])?;
        match id {
            Some(id) if !id.is_empty() => Ok(id),
            _ => Err(self.err(off, format!("<{}> without an id attribute", local(e)))),
        }
    }

    /// Records `id` as declared at `off`; a second declaration is an error.
    fn claim(&mut self, id: Cow<'a, str>, kind: IdKind, off: usize) -> Result<(), ReadError> {
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
    fn entity(&self, r: &BytesRef<'a>) -> Result<Cow<'a, str>, ReadError> {
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
    fn text_content(&mut self, open: usize) -> Result<(Cow<'a, str>, usize), ReadError> {
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
    fn annotation(
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
    fn number(&self, text: &str, off: usize, what: &str) -> Result<u32, ReadError> {
        if text.is_empty() {
            return Err(self.err(off, format!("{what}: expected a number, found nothing")));
        }
        if text.starts_with('-') {
            return Err(self.err(
                off,
                format!("{what} must not be negative, found '{}'", shorten(text)),
            ));
        }
        let v: u64 = text
            .parse()
            .map_err(|_| self.err(off, format!("{what} is not a number: '{}'", shorten(text))))?;
        u32::try_from(v).map_err(|_| {
            self.err(
                off,
                format!("{what} {v} is too large (at most {})", u32::MAX),
            )
        })
    }

    // --- document structure --------------------------------------------------------------

    /// The whole document: prolog, `<pnml>` root, nothing after it.
    fn document(&mut self) -> Result<Net, ReadError> {
        let mut net = None;
        loop {
            match self.next()? {
                Event::Start(e) if net.is_none() && local(&e) == "pnml" => {
                    let off = self.ev_start;
                    net = Some(self.pnml(off)?);
                }
                Event::Empty(e) if net.is_none() && local(&e) == "pnml" => {
                    return Err(self.err(self.ev_start, "no <net> element in <pnml>"));
                }
                Event::Start(e) | Event::Empty(e) => {
                    let msg = if net.is_none() {
                        format!(
                            "not a PNML document: root element is <{}>, expected <pnml>",
                            shorten(e.name().as_ref())
                        )
                    } else {
                        "unexpected element after the end of <pnml>".to_string()
                    };
                    return Err(self.err(self.ev_start, msg));
                }
                Event::Text(t) if !t.trim().is_empty() => {
                    let off = self.ev_start + (t.len() - t.trim_start().len());
                    return Err(self.err(off, "not a PNML document: text outside of any element"));
                }
                Event::CData(_) | Event::GeneralRef(_) => {
                    return Err(self.err(
                        self.ev_start,
                        "not a PNML document: text outside of any element",
                    ));
                }
                Event::End(_) => {
                    return Err(self.err(self.ev_start, "unexpected end tag"));
                }
                Event::Eof => break,
                _ => {}
            }
        }
        net.ok_or_else(|| {
            let blank = self.ctx.input.trim().is_empty();
            self.err(
                self.ctx.input.len(),
                if blank {
                    "empty file: expected a PNML document"
                } else {
                    "not a PNML document: no <pnml> element"
                },
            )
        })
    }

    /// The `<pnml>` element: exactly one `<net>`.
    fn pnml(&mut self, open: usize) -> Result<Net, ReadError> {
        let mut seen_net = false;
        self.children("pnml", open, |p, c, empty, off| {
            if local(&c) == "net" {
                if seen_net {
                    return Err(p.err(off, "more than one <net> in the file: not supported"));
                }
                seen_net = true;
                p.net(&c, empty, off)
            } else if !empty {
                p.skip(&c, off)
            } else {
                Ok(())
            }
        })?;
        if !seen_net {
            return Err(self.err(open, "no <net> element in <pnml>"));
        }
        Ok(std::mem::take(&mut self.net))
    }

    /// Checks the net type: P/T nets only.
    fn check_type(&self, ty: &str, off: usize) -> Result<(), ReadError> {
        let kind = ty.rsplit('/').next().unwrap_or(ty).trim();
        if kind.eq_ignore_ascii_case("ptnet") {
            return Ok(());
        }
        let lower = kind.to_ascii_lowercase();
        let msg = if [
            "symmetricnet",
            "highlevelnet",
            "pt-hlpng",
            "hlpn",
            "colored",
            "coloured",
        ]
        .iter()
        .any(|k| lower.contains(k))
        {
            format!(
                "coloured nets are not supported: net type {}",
                shorten_to(ty, 200)
            )
        } else {
            format!(
                "unsupported net type {} (only P/T nets, type {PTNET_TYPE}, are read)",
                shorten_to(ty, 200)
            )
        };
        Err(self.err(off, msg))
    }

    /// The `<net>` element: its pages (flattened), nodes, arcs and NUPN block; then resolves
    /// references and arcs.
    fn net(&mut self, e: &BytesStart<'a>, empty: bool, open: usize) -> Result<(), ReadError> {
        let [id, ty] = self.attrs(e, open, ["id", "type"])?;
        // A missing type is tolerated (some tools omit it); a wrong one is refused.
        if let Some(ty) = &ty {
            self.check_type(ty, open)?;
        }
        let mut name_from_id = false;
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            self.net.name = id.into_owned();
            name_from_id = true;
        }
        if !empty {
            // Pages are flattened iteratively (a stack of open pages, not recursion), so deep
            // nesting cannot overflow the stack.
            let mut pages: Vec<usize> = Vec::new();
            loop {
                let (e, empty) = match self.next()? {
                    Event::Start(e) => (e, false),
                    Event::Empty(e) => (e, true),
                    Event::End(_) => {
                        if pages.pop().is_none() {
                            break;
                        }
                        continue;
                    }
                    Event::Eof => {
                        return Err(match pages.last() {
                            Some(&page) => self.unclosed("page", page),
                            None => self.unclosed("net", open),
                        });
                    }
                    _ => continue,
                };
                let off = self.ev_start;
                match local(&e) {
                    "page" => {
                        let [pid] = self.attrs(&e, off, ["id"])?;
                        if let Some(pid) = pid {
                            self.claim(pid, IdKind::Page, off)?;
                        }
                        if !empty {
                            pages.push(off);
                        }
                    }
                    "place" => self.place(&e, empty, off)?,
                    "transition" => self.transition(&e, empty, off)?,
                    "arc" => self.arc(&e, empty, off)?,
                    "referencePlace" => self.reference(&e, empty, off, true)?,
                    "referenceTransition" => self.reference(&e, empty, off, false)?,
                    "toolspecific" => self.net_toolspecific(&e, empty, off)?,
                    "name" if pages.is_empty() && !empty => {
                        let name = self.annotation("name", off)?;
                        if let Some((name, _)) =
                            name.filter(|(n, _)| !name_from_id && !n.is_empty())
                        {
                            self.net.name = name.into_owned();
                        }
                    }
                    "declaration" | "declarations" if !empty => {
                        return Err(self.err(
                            off,
                            "coloured nets are not supported: the net has declarations (sorts, \
                             variables)",
                        ));
                    }
                    _ if !empty => self.skip(&e, off)?,
                    _ => {}
                }
            }
        }
        self.resolve()
    }

    /// A `<place>`.
    fn place(&mut self, e: &BytesStart<'a>, empty: bool, open: usize) -> Result<(), ReadError> {
        let id = self.required_id(e, open)?;
        let mut label = None;
        let mut initial = 0;
        if !empty {
            self.children("place", open, |p, c, empty, off| {
                match local(&c) {
                    "name" if !empty => {
                        if let Some((text, _)) = p.annotation("name", off)?
                            && !text.is_empty()
                        {
                            label = Some(CompactString::from(text));
                        }
                    }
                    "initialMarking" if !empty => {
                        if let Some((text, toff)) = p.annotation("initialMarking", off)? {
                            initial = p.number(&text, toff, "initial marking")?;
                        }
                    }
                    "hlinitialMarking" => {
                        return Err(p.err(
                            off,
                            format!(
                                "place '{}' has a high-level initial marking \
                                 (hlinitialMarking): coloured nets are not supported",
                                shorten(&id)
                            ),
                        ));
                    }
                    _ if !empty => p.skip(&c, off)?,
                    _ => {}
                }
                Ok(())
            })?;
        }
        let idx = self.net.places.len() as PlaceIdx;
        let owned = CompactString::from(&*id);
        self.claim(id, IdKind::Node(Node::Place(idx)), open)?;
        let label = label.unwrap_or_else(|| owned.clone());
        self.net.places.push(Place {
            id: owned,
            label,
            initial,
        });
        Ok(())
    }

    /// A `<transition>`.
    fn transition(
        &mut self,
        e: &BytesStart<'a>,
        empty: bool,
        open: usize,
    ) -> Result<(), ReadError> {
        let id = self.required_id(e, open)?;
        let mut label = None;
        if !empty {
            self.children("transition", open, |p, c, empty, off| {
                match local(&c) {
                    "name" if !empty => {
                        if let Some((text, _)) = p.annotation("name", off)?
                            && !text.is_empty()
                        {
                            label = Some(CompactString::from(text));
                        }
                    }
                    _ if !empty => p.skip(&c, off)?,
                    _ => {}
                }
                Ok(())
            })?;
        }
        let idx = self.net.transitions.len() as TransIdx;
        let owned = CompactString::from(&*id);
        self.claim(id, IdKind::Node(Node::Transition(idx)), open)?;
        let label = label.unwrap_or_else(|| owned.clone());
        self.net.transitions.push(NetTransition {
            id: owned,
            label,
            pre: Arcs::new(),
            post: Arcs::new(),
            reads: Arcs::new(),
        });
        Ok(())
    }

    /// The mark given by an arc type (`<type value=…>` or the `type` attribute).
    fn arc_type(&self, id: &str, ty: &str, off: usize) -> Result<ArcMark, ReadError> {
        let t = ty.trim();
        if t.is_empty() || t.eq_ignore_ascii_case("normal") || t.eq_ignore_ascii_case("regular") {
            Ok(ArcMark::Plain)
        } else if t.eq_ignore_ascii_case("test") || t.eq_ignore_ascii_case("read") {
            Ok(ArcMark::Test)
        } else if is_unsupported_arc_marker(t) {
            Err(self.err(
                off,
                format!(
                    "arc '{}' is a {} arc: only ordinary and read arcs are supported",
                    shorten(id),
                    t.to_ascii_lowercase().trim_end_matches("arc")
                ),
            ))
        } else {
            Err(self.err(
                off,
                format!(
                    "arc '{}' has unsupported type '{}': only ordinary and read arcs are \
                     supported",
                    shorten(id),
                    shorten(t)
                ),
            ))
        }
    }

    /// An `<arc>`: recorded, resolved when the net is complete.
    fn arc(&mut self, e: &BytesStart<'a>, empty: bool, open: usize) -> Result<(), ReadError> {
        let [id, source, target, ty] = self.attrs(e, open, ["id", "source", "target", "type"])?;
        let id = match id {
            Some(id) if !id.is_empty() => id,
            _ => return Err(self.err(open, "<arc> without an id attribute")),
        };
        let (Some(source), Some(target)) = (source, target) else {
            return Err(self.err(
                open,
                format!("arc '{}' lacks a source or target attribute", shorten(&id)),
            ));
        };
        let mut mark = match &ty {
            Some(ty) => self.arc_type(&id, ty, open)?,
            None => ArcMark::Plain,
        };
        let mut weight = 1;
        if !empty {
            self.children("arc", open, |p, c, empty, off| {
                match local(&c) {
                    "inscription" if !empty => {
                        if let Some((text, toff)) = p.annotation("inscription", off)? {
                            let what = format!("weight of arc '{}'", shorten(&id));
                            weight = p.number(&text, toff, &what)?;
                            if weight == 0 {
                                return Err(
                                    p.err(toff, format!("{what} must be at least 1, found 0"))
                                );
                            }
                        }
                    }
                    "hlinscription" => {
                        return Err(p.err(
                            off,
                            format!(
                                "arc '{}' has a high-level inscription (hlinscription): \
                                 coloured nets are not supported",
                                shorten(&id)
                            ),
                        ));
                    }
                    "type" => {
                        let [value] = p.attrs(&c, off, ["value"])?;
                        if let Some(value) = value {
                            mark = p.arc_type(&id, &value, off)?;
                        }
                        if !empty {
                            p.skip(&c, off)?;
                        }
                    }
                    "toolspecific" => {
                        let [tool] = p.attrs(&c, off, ["tool"])?;
                        if tool.as_deref() == Some(TOOL) {
                            if !empty && p.unfold_arc_toolspecific(off)? {
                                mark = ArcMark::ReadHalf;
                            }
                        } else if !empty {
                            p.scan_arc_toolspecific(&id, off)?;
                        }
                    }
                    _ if !empty => p.skip(&c, off)?,
                    _ => {}
                }
                Ok(())
            })?;
        }
        self.claim(id.clone(), IdKind::Arc, open)?;
        self.arcs.push(PendingArc {
            id,
            source,
            target,
            weight,
            mark,
            offset: open,
        });
        Ok(())
    }

    /// Our own `<toolspecific tool="unfold">` in an arc: whether it holds `<read/>`.
    fn unfold_arc_toolspecific(&mut self, open: usize) -> Result<bool, ReadError> {
        let mut read = false;
        self.children("toolspecific", open, |p, c, empty, off| {
            if local(&c) == "read" {
                read = true;
            }
            if !empty {
                p.skip(&c, off)?;
            }
            Ok(())
        })?;
        Ok(read)
    }

    /// Another tool's `<toolspecific>` in an arc: refuses the arc when it marks it as an
    /// inhibitor, reset or timed arc (an element, attribute value or text saying so).
    fn scan_arc_toolspecific(&mut self, arc: &str, open: usize) -> Result<(), ReadError> {
        let mut depth = 0usize;
        loop {
            let (e, empty) = match self.next()? {
                Event::Start(e) => (e, false),
                Event::Empty(e) => (e, true),
                Event::Text(t) => {
                    if is_unsupported_arc_marker(&t) {
                        let off = self.ev_start;
                        return Err(self.refuse_tool_arc(arc, t.trim(), off));
                    }
                    continue;
                }
                Event::End(_) => {
                    if depth == 0 {
                        return Ok(());
                    }
                    depth -= 1;
                    continue;
                }
                Event::Eof => return Err(self.unclosed("toolspecific", open)),
                _ => continue,
            };
            let off = self.ev_start;
            if is_unsupported_arc_marker(local(&e)) {
                return Err(self.refuse_tool_arc(arc, local(&e), off));
            }
            let raw = rebase(self.ctx.input, &e).unwrap_or("");
            for attr in Attributes::new(raw, e.name().as_ref().len()).flatten() {
                if is_unsupported_arc_marker(&attr.value) {
                    return Err(self.refuse_tool_arc(arc, &attr.value, off));
                }
            }
            if !empty {
                depth += 1;
            }
        }
    }

    fn refuse_tool_arc(&self, arc: &str, what: &str, off: usize) -> ReadError {
        self.err(
            off,
            format!(
                "arc '{}' is marked '{}' by a tool: inhibitor, reset and timed arcs are not \
                 supported",
                shorten(arc),
                shorten(what)
            ),
        )
    }

    /// A `referencePlace` (`is_place`) or `referenceTransition`.
    fn reference(
        &mut self,
        e: &BytesStart<'a>,
        empty: bool,
        open: usize,
        is_place: bool,
    ) -> Result<(), ReadError> {
        let [id, target] = self.attrs(e, open, ["id", "ref"])?;
        let id = match id {
            Some(id) if !id.is_empty() => id,
            _ => return Err(self.err(open, format!("<{}> without an id attribute", local(e)))),
        };
        let Some(target) = target else {
            return Err(self.err(
                open,
                format!("reference node '{}' lacks a ref attribute", shorten(&id)),
            ));
        };
        if !empty {
            self.skip(e, open)?;
        }
        let idx = self.refs.len() as u32;
        self.claim(id.clone(), IdKind::Ref(idx), open)?;
        self.refs.push(RefNode {
            id,
            target,
            is_place,
            offset: open,
        });
        Ok(())
    }

    /// A `<toolspecific>` in a net or page: the NUPN block, or skipped.
    fn net_toolspecific(
        &mut self,
        e: &BytesStart<'a>,
        empty: bool,
        open: usize,
    ) -> Result<(), ReadError> {
        let [tool] = self.attrs(e, open, ["tool"])?;
        if tool.as_deref() != Some("nupn") {
            if !empty {
                self.skip(e, open)?;
            }
            return Ok(());
        }
        if self.net.nupn.is_some() {
            return Err(self.err(
                open,
                "more than one NUPN block (toolspecific tool=\"nupn\")",
            ));
        }
        let mut nupn = Nupn::default();
        if !empty {
            self.children("toolspecific", open, |p, c, empty, off| {
                match local(&c) {
                    "size" => {
                        let [places, transitions, arcs] =
                            p.attrs(&c, off, ["places", "transitions", "arcs"])?;
                        nupn.places = p.nupn_count(places, off, "places")?;
                        nupn.transitions = p.nupn_count(transitions, off, "transitions")?;
                        nupn.arcs = p.nupn_count(arcs, off, "arcs")?;
                    }
                    "structure" => {
                        let [units, safe] = p.attrs(&c, off, ["units", "safe"])?;
                        nupn.units = p.nupn_count(units, off, "units")?;
                        nupn.safe = match safe.as_deref().map(str::trim) {
                            None => None,
                            Some("true") => Some(true),
                            Some("false") => Some(false),
                            Some(other) => {
                                return Err(p.err(
                                    off,
                                    format!(
                                        "NUPN safe attribute must be true or false, found '{}'",
                                        shorten(other)
                                    ),
                                ));
                            }
                        };
                    }
                    _ => {}
                }
                // Unit contents are not needed: skip them wholesale.
                if !empty {
                    p.skip(&c, off)?;
                }
                Ok(())
            })?;
        }
        self.net.nupn = Some(nupn);
        Ok(())
    }

    /// A NUPN size attribute.
    fn nupn_count(
        &self,
        value: Option<Cow<'a, str>>,
        off: usize,
        what: &str,
    ) -> Result<Option<u64>, ReadError> {
        value
            .map(|v| {
                v.trim().parse::<u64>().map_err(|_| {
                    self.err(
                        off,
                        format!("NUPN {what} is not a number: '{}'", shorten(&v)),
                    )
                })
            })
            .transpose()
    }

    // --- resolution ------------------------------------------------------------------------

    /// Resolves every reference node to its place or transition (chains followed, cycles and
    /// unknown targets refused).
    fn resolve_refs(&self) -> Result<Vec<Node>, ReadError> {
        const UNSEEN: u8 = 0;
        const ON_PATH: u8 = 1;
        const DONE: u8 = 2;
        let n = self.refs.len();
        let mut state = vec![UNSEEN; n];
        let mut resolved = vec![Node::Place(0); n];
        let mut path: Vec<usize> = Vec::new();
        for start in 0..n {
            if state[start] != UNSEEN {
                continue;
            }
            path.clear();
            let mut cur = start;
            // Walk the chain until a real node or an already resolved reference.
            let node = loop {
                state[cur] = ON_PATH;
                path.push(cur);
                let r = &self.refs[cur];
                let Some(info) = self.ids.get(&*r.target) else {
                    return Err(self.err(
                        r.offset,
                        format!(
                            "reference node '{}' refers to unknown node '{}'",
                            shorten(&r.id),
                            shorten(&r.target)
                        ),
                    ));
                };
                match info.kind {
                    IdKind::Node(node) => break node,
                    IdKind::Ref(next) => {
                        let next = next as usize;
                        match state.get(next).copied() {
                            Some(DONE) => break resolved[next],
                            Some(ON_PATH) => {
                                let from = path.iter().position(|&i| i == next).unwrap_or(0);
                                let mut ids: Vec<String> = path[from..]
                                    .iter()
                                    .map(|&i| format!("'{}'", shorten(&self.refs[i].id)))
                                    .collect();
                                ids.push(format!("'{}'", shorten(&self.refs[next].id)));
                                return Err(self.err(
                                    self.refs[next].offset,
                                    format!("cycle of reference nodes: {}", ids.join(" -> ")),
                                ));
                            }
                            _ => cur = next,
                        }
                    }
                    IdKind::Arc | IdKind::Page => {
                        return Err(self.err(
                            r.offset,
                            format!(
                                "reference node '{}' refers to '{}', which is not a place or \
                                 transition",
                                shorten(&r.id),
                                shorten(&r.target)
                            ),
                        ));
                    }
                }
            };
            for &i in &path {
                state[i] = DONE;
                resolved[i] = node;
            }
        }
        // A reference place must end at a place, a reference transition at a transition.
        for (r, node) in self.refs.iter().zip(&resolved) {
            let ok = matches!(
                (r.is_place, node),
                (true, Node::Place(_)) | (false, Node::Transition(_))
            );
            if !ok {
                let (this, other) = if r.is_place {
                    ("referencePlace", "a transition")
                } else {
                    ("referenceTransition", "a place")
                };
                return Err(self.err(
                    r.offset,
                    format!(
                        "{this} '{}' refers (via '{}') to {other}",
                        shorten(&r.id),
                        shorten(&r.target)
                    ),
                ));
            }
        }
        Ok(resolved)
    }

    /// The node an arc end names.
    fn endpoint(
        &self,
        refs: &[Node],
        a: &PendingArc<'a>,
        end: &str,
        what: &str,
    ) -> Result<Node, ReadError> {
        match self.ids.get(end).map(|i| i.kind) {
            Some(IdKind::Node(n)) => Ok(n),
            Some(IdKind::Ref(r)) => refs
                .get(r as usize)
                .copied()
                .ok_or_else(|| self.err(a.offset, "internal error: unresolved reference")),
            Some(IdKind::Arc | IdKind::Page) => Err(self.err(
                a.offset,
                format!(
                    "arc '{}': {what} '{}' is not a place or transition",
                    shorten(&a.id),
                    shorten(end)
                ),
            )),
            None => Err(self.err(
                a.offset,
                format!(
                    "arc '{}' has unknown {what} '{}'",
                    shorten(&a.id),
                    shorten(end)
                ),
            )),
        }
    }

    /// The place, transition and direction (input or output) of an arc.
    fn arc_nodes(
        &self,
        refs: &[Node],
        a: &PendingArc<'a>,
    ) -> Result<(PlaceIdx, TransIdx, ArcKind), ReadError> {
        let source = self.endpoint(refs, a, &a.source, "source")?;
        let target = self.endpoint(refs, a, &a.target, "target")?;
        let two = |what: &str| {
            self.err(
                a.offset,
                format!(
                    "arc '{}' connects two {what} ('{}' -> '{}'): arcs must join a place and a \
                     transition",
                    shorten(&a.id),
                    shorten(&a.source),
                    shorten(&a.target)
                ),
            )
        };
        match (source, target) {
            (Node::Place(p), Node::Transition(t)) => Ok((p, t, ArcKind::Input)),
            (Node::Transition(t), Node::Place(p)) => Ok((p, t, ArcKind::Output)),
            (Node::Place(_), Node::Place(_)) => Err(two("places")),
            (Node::Transition(_), Node::Transition(_)) => Err(two("transitions")),
        }
    }

    /// The kind an arc is added as, given its direction; `None` for the output half of a read
    /// arc (the input half stands for the pair).
    fn effective_kind(
        &self,
        a: &PendingArc<'a>,
        dir: ArcKind,
    ) -> Result<Option<ArcKind>, ReadError> {
        match (a.mark, dir) {
            (ArcMark::Plain, _) => Ok(Some(dir)),
            (ArcMark::Test | ArcMark::ReadHalf, ArcKind::Input) => Ok(Some(ArcKind::Read)),
            (ArcMark::ReadHalf, _) => Ok(None),
            (ArcMark::Test, _) => Err(self.err(
                a.offset,
                format!(
                    "test arc '{}' must go from a place to a transition",
                    shorten(&a.id)
                ),
            )),
        }
    }

    /// Resolves references and arcs and puts the arcs into the net's transitions, sorted by
    /// place, refusing duplicates.
    fn resolve(&mut self) -> Result<(), ReadError> {
        let refs = self.resolve_refs()?;
        let arcs = std::mem::take(&mut self.arcs);
        // Halves of read arcs, by (place, transition): [input half, output half].
        let mut halves: FxHashMap<(PlaceIdx, TransIdx), [Option<usize>; 2]> = FxHashMap::default();
        for (i, a) in arcs.iter().enumerate() {
            let (place, trans, dir) = self.arc_nodes(&refs, a)?;
            if a.mark == ArcMark::ReadHalf {
                let slot = &mut halves.entry((place, trans)).or_default()
                    [usize::from(dir == ArcKind::Output)];
                if slot.is_some() {
                    return Err(self.err(
                        a.offset,
                        format!(
                            "arc '{}': duplicate read arc between place '{}' and transition '{}'",
                            shorten(&a.id),
                            shorten(&a.source),
                            shorten(&a.target)
                        ),
                    ));
                }
                *slot = Some(i);
                continue;
            }
            if let Some(kind) = self.effective_kind(a, dir)? {
                self.push_arc(place, trans, kind, a.weight);
            }
        }
        // Pair the halves, in file order of their first half.
        let mut pairs: Vec<_> = halves.into_iter().collect();
        pairs.sort_unstable_by_key(|(_, h)| h.iter().flatten().min().copied());
        for ((place, trans), half) in pairs {
            match half {
                [Some(i), Some(o)] => {
                    let (a, b) = (&arcs[i], &arcs[o]);
                    if a.weight != b.weight {
                        return Err(self.err(
                            b.offset,
                            format!(
                                "read arc halves '{}' and '{}' have different weights ({} and {})",
                                shorten(&a.id),
                                shorten(&b.id),
                                a.weight,
                                b.weight
                            ),
                        ));
                    }
                    self.push_arc(place, trans, ArcKind::Read, a.weight);
                }
                [Some(i), None] | [None, Some(i)] => {
                    let a = &arcs[i];
                    return Err(self.err(
                        a.offset,
                        format!(
                            "arc '{}' is marked as half of a read arc (toolspecific unfold \
                             <read/>) but the arc in the other direction is missing",
                            shorten(&a.id)
                        ),
                    ));
                }
                [None, None] => {}
            }
        }
        // Sort every arc list by place; equal neighbours are duplicate arcs.
        let mut dup = None;
        'all: for (ti, t) in self.net.transitions.iter_mut().enumerate() {
            for (list, kind) in [
                (&mut t.pre, ArcKind::Input),
                (&mut t.post, ArcKind::Output),
                (&mut t.reads, ArcKind::Read),
            ] {
                list.sort_unstable();
                if let Some(w) = list.windows(2).find(|w| w[0].place == w[1].place) {
                    dup = Some((w[0].place, ti as TransIdx, kind));
                    break 'all;
                }
            }
        }
        match dup {
            Some((place, trans, kind)) => Err(self.duplicate_arc(&refs, &arcs, place, trans, kind)),
            None => Ok(()),
        }
    }

    /// Adds an arc to its transition (unsorted).
    fn push_arc(&mut self, place: PlaceIdx, trans: TransIdx, kind: ArcKind, weight: u32) {
        if let Some(t) = self.net.transitions.get_mut(trans as usize) {
            let list = match kind {
                ArcKind::Input => &mut t.pre,
                ArcKind::Output => &mut t.post,
                ArcKind::Read => &mut t.reads,
            };
            list.push(Arc { place, weight });
        }
    }

    /// The error for a duplicate arc, at the second arc of the file that makes it (error
    /// path only: re-resolves the arcs to find it).
    fn duplicate_arc(
        &self,
        refs: &[Node],
        arcs: &[PendingArc<'a>],
        place: PlaceIdx,
        trans: TransIdx,
        kind: ArcKind,
    ) -> ReadError {
        let place_id = self
            .net
            .places
            .get(place as usize)
            .map_or("", |p| p.id.as_str());
        let trans_id = self
            .net
            .transitions
            .get(trans as usize)
            .map_or("", |t| t.id.as_str());
        let err = BuildError::DuplicateArc {
            kind: match kind {
                ArcKind::Input => "input",
                ArcKind::Output => "output",
                ArcKind::Read => "read",
            },
            place: place_id.to_string(),
            transition: trans_id.to_string(),
        };
        let mut seen = false;
        for a in arcs {
            let Ok((p, t, dir)) = self.arc_nodes(refs, a) else {
                continue;
            };
            if (p, t) == (place, trans)
                && matches!(self.effective_kind(a, dir), Ok(Some(k)) if k == kind)
            {
                if seen {
                    return self.err(a.offset, format!("arc '{}': {err}", shorten(&a.id)));
                }
                seen = true;
            }
        }
        ReadError::parse(self.ctx.file, Some(Position::Byte(0)), err.to_string())
    }
}

// ---------------------------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------------------------

/// Writes `s` XML-escaped (for text and attribute values). Line ends and tabs become character
/// references so that attribute normalisation and end-of-line handling keep them.
fn escape(out: &mut dyn Write, s: &str) -> io::Result<()> {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let rep: &[u8] = match b {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'"' => b"&quot;",
            b'\'' => b"&apos;",
            b'\n' => b"&#10;",
            b'\r' => b"&#13;",
            b'\t' => b"&#9;",
            _ => continue,
        };
        out.write_all(&bytes[start..i])?;
        out.write_all(rep)?;
        start = i + 1;
    }
    out.write_all(&bytes[start..])
}

/// Fresh identifiers `{prefix}{n}` that avoid the node identifiers of a net.
struct FreshIds<'n> {
    taken: FxHashSet<&'n str>,
}

impl FreshIds<'_> {
    /// `{prefix}{n}`, with `_` appended until it is not a node identifier. Distinct `n` give
    /// distinct results (the digits end before the underscores).
    fn get(&self, prefix: &str, n: usize) -> String {
        let mut id = format!("{prefix}{n}");
        while self.taken.contains(id.as_str()) {
            id.push('_');
        }
        id
    }
}

/// Writes `net` as a PNML 2009 P/T net: one page, places, transitions and arcs in model order.
///
/// Read arcs become a pair of arcs p→t, t→p marked `<toolspecific tool="unfold">`. A NUPN
/// block, when the net has one, is written as the trivial NUPN (one unit per place) with the
/// sizes of the written net and the model's `safe` flag.
pub fn write(net: &Net, out: &mut dyn Write) -> io::Result<()> {
    let mut w = io::BufWriter::with_capacity(1 << 16, out);
    let o: &mut dyn Write = &mut w;
    let fresh = FreshIds {
        taken: net
            .places
            .iter()
            .map(|p| p.id.as_str())
            .chain(net.transitions.iter().map(|t| t.id.as_str()))
            .collect(),
    };
    writeln!(o, r#"<?xml version="1.0" encoding="utf-8"?>"#)?;
    writeln!(o, r#"<pnml xmlns="{PNML_NS}">"#)?;
    o.write_all(b"  <net id=\"")?;
    escape(o, &net.name)?;
    writeln!(o, r#"" type="{PTNET_TYPE}">"#)?;
    o.write_all(b"    <name><text>")?;
    escape(o, &net.name)?;
    o.write_all(b"</text></name>\n")?;
    o.write_all(b"    <page id=\"")?;
    escape(o, &fresh.get("page", 0))?;
    o.write_all(b"\">\n")?;

    for p in &net.places {
        o.write_all(b"      <place id=\"")?;
        escape(o, &p.id)?;
        o.write_all(b"\">")?;
        if p.label != p.id {
            o.write_all(b"<name><text>")?;
            escape(o, &p.label)?;
            o.write_all(b"</text></name>")?;
        }
        if p.initial > 0 {
            write!(
                o,
                "<initialMarking><text>{}</text></initialMarking>",
                p.initial
            )?;
        }
        o.write_all(b"</place>\n")?;
    }
    for t in &net.transitions {
        o.write_all(b"      <transition id=\"")?;
        escape(o, &t.id)?;
        o.write_all(b"\">")?;
        if t.label != t.id {
            o.write_all(b"<name><text>")?;
            escape(o, &t.label)?;
            o.write_all(b"</text></name>")?;
        }
        o.write_all(b"</transition>\n")?;
    }

    let mut n_arcs = 0usize;
    let mut arc =
        |o: &mut dyn Write, from: &str, to: &str, weight: u32, read: bool| -> io::Result<()> {
            o.write_all(b"      <arc id=\"")?;
            escape(o, &fresh.get("a", n_arcs))?;
            n_arcs += 1;
            o.write_all(b"\" source=\"")?;
            escape(o, from)?;
            o.write_all(b"\" target=\"")?;
            escape(o, to)?;
            o.write_all(b"\">")?;
            if weight > 1 {
                write!(o, "<inscription><text>{weight}</text></inscription>")?;
            }
            if read {
                write!(
                    o,
                    r#"<toolspecific tool="{TOOL}" version="1"><read/></toolspecific>"#
                )?;
            }
            o.write_all(b"</arc>\n")
        };
    for t in &net.transitions {
        for a in &t.pre {
            arc(o, &net.places[a.place as usize].id, &t.id, a.weight, false)?;
        }
        for a in &t.post {
            arc(o, &t.id, &net.places[a.place as usize].id, a.weight, false)?;
        }
        for a in &t.reads {
            let p = &net.places[a.place as usize].id;
            arc(o, p, &t.id, a.weight, true)?;
            arc(o, &t.id, p, a.weight, true)?;
        }
    }

    if let Some(nupn) = &net.nupn {
        // One unit per place under an empty root unit: a valid NUPN for any net (a single
        // place never has two marked places), unlike one unit holding all places.
        let safe = nupn.safe.unwrap_or(false);
        writeln!(o, r#"      <toolspecific tool="nupn" version="1.1">"#)?;
        writeln!(
            o,
            r#"        <size places="{}" transitions="{}" arcs="{}"/>"#,
            net.places.len(),
            net.transitions.len(),
            n_arcs
        )?;
        writeln!(
            o,
            r#"        <structure units="{}" root="u0" safe="{safe}">"#,
            net.places.len() + 1
        )?;
        o.write_all(b"          <unit id=\"u0\"><places/><subunits>")?;
        for i in 1..=net.places.len() {
            if i > 1 {
                o.write_all(b" ")?;
            }
            write!(o, "u{i}")?;
        }
        o.write_all(b"</subunits></unit>\n")?;
        for (i, p) in net.places.iter().enumerate() {
            write!(o, "          <unit id=\"u{}\"><places>", i + 1)?;
            escape(o, &p.id)?;
            o.write_all(b"</places><subunits/></unit>\n")?;
        }
        writeln!(o, "        </structure>")?;
        writeln!(o, "      </toolspecific>")?;
    }

    writeln!(o, "    </page>")?;
    writeln!(o, "  </net>")?;
    writeln!(o, "</pnml>")?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> &'static Path {
        Path::new("t.pnml")
    }

    fn ok(src: &str) -> Net {
        match parse(src.as_bytes(), file()) {
            Ok(net) => net,
            Err(e) => panic!("unexpected error: {e}"),
        }
    }

    /// The error message, which must carry a line:column position.
    fn bad(src: &str) -> String {
        match parse(src.as_bytes(), file()) {
            Ok(net) => panic!("accepted: {net:?}"),
            Err(e) => {
                let ReadError::Parse { pos, .. } = &e else {
                    panic!("not a parse error: {e}")
                };
                assert!(
                    matches!(pos, Some(Position::LineCol { .. })),
                    "no position: {e}"
                );
                e.to_string()
            }
        }
    }

    fn wrap(body: &str) -> String {
        format!(
            r#"<?xml version="1.0"?>
<pnml xmlns="{PNML_NS}"><net id="n" type="{PTNET_TYPE}"><page id="pg">
{body}
</page></net></pnml>"#
        )
    }

    const SMALL: &str = r#"
<place id="p"><name><text>P</text></name><initialMarking><text>2</text></initialMarking></place>
<place id="q"/>
<transition id="t"><name><text>T</text></name></transition>
<arc id="a1" source="p" target="t"><inscription><text>2</text></inscription></arc>
<arc id="a2" source="t" target="q"/>
"#;

    #[test]
    fn reads_a_small_net() {
        let net = ok(&wrap(SMALL));
        assert_eq!(net.name, "n");
        assert_eq!(net.places.len(), 2);
        assert_eq!(net.places[0].label, "P");
        assert_eq!(net.places[0].initial, 2);
        assert_eq!(net.places[1].label, "q");
        assert_eq!(net.places[1].initial, 0);
        let t = &net.transitions[0];
        assert_eq!(t.label, "T");
        assert_eq!(
            t.pre[..],
            [crate::model::net::Arc {
                place: 0,
                weight: 2
            }]
        );
        assert_eq!(
            t.post[..],
            [crate::model::net::Arc {
                place: 1,
                weight: 1
            }]
        );
        assert!(net.nupn.is_none());
    }

    #[test]
    fn namespace_prefix_or_none() {
        let plain = ok(&wrap(SMALL));
        let none = ok(&format!(
            r#"<pnml><net id="n" type="{PTNET_TYPE}"><page id="pg">{SMALL}</page></net></pnml>"#
        ));
        assert_eq!(plain, none);
        let prefixed = SMALL.replace("<", "<x:").replace("<x:/", "</x:");
        let prefixed = ok(&format!(
            r#"<x:pnml xmlns:x="{PNML_NS}"><x:net id="n" type="{PTNET_TYPE}"><x:page id="pg">{prefixed}</x:page></x:net></x:pnml>"#
        ));
        assert_eq!(plain, prefixed);
    }

    #[test]
    fn nested_pages_are_flattened() {
        let net = ok(&wrap(
            r#"<place id="p"/>
            <page id="inner"><transition id="t"/>
              <page id="deeper"><place id="q"/><arc id="x" source="p" target="t"/></page>
            </page>
            <arc id="y" source="t" target="q"/>"#,
        ));
        assert_eq!(net.places.len(), 2);
        assert_eq!(net.places[1].id, "q");
        assert_eq!(net.arc_count(), 2);
        // Deep nesting is iterative, not recursive.
        let deep = format!(
            "{}<place id=\"p\"/>{}",
            "<page>".repeat(100_000),
            "</page>".repeat(100_000)
        );
        assert_eq!(ok(&wrap(&deep)).places.len(), 1);
    }

    #[test]
    fn reference_chains_resolve() {
        let net = ok(&wrap(
            r#"<arc id="a" source="rp2" target="rt"/>
            <referencePlace id="rp2" ref="rp1"/>
            <referencePlace id="rp1" ref="p"><name><text>x</text></name></referencePlace>
            <referenceTransition id="rt" ref="t"/>
            <place id="p"/><transition id="t"/>"#,
        ));
        assert_eq!(net.places.len(), 1);
        assert_eq!(net.transitions.len(), 1);
        assert_eq!(net.transitions[0].pre.len(), 1);
    }

    #[test]
    fn reference_errors() {
        let e = bad(&wrap(
            r#"<referencePlace id="r1" ref="r2"/><referencePlace id="r2" ref="r3"/>
            <referencePlace id="r3" ref="r1"/>"#,
        ));
        assert!(
            e.contains("cycle") && e.contains("'r1'") && e.contains("'r3'"),
            "{e}"
        );
        let e = bad(&wrap(r#"<referencePlace id="r1" ref="r1"/>"#));
        assert!(e.contains("cycle") && e.contains("'r1'"), "{e}");
        let e = bad(&wrap(r#"<referencePlace id="r" ref="nowhere"/>"#));
        assert!(e.contains("unknown node 'nowhere'"), "{e}");
        let e = bad(&wrap(
            r#"<transition id="t"/><referencePlace id="r" ref="t"/>"#,
        ));
        assert!(
            e.contains("referencePlace 'r'") && e.contains("transition"),
            "{e}"
        );
    }

    #[test]
    fn arcs_before_endpoints() {
        let net = ok(&wrap(
            r#"<arc id="a" source="p" target="t"/><arc id="b" source="t" target="p"/>
            <transition id="t"/><place id="p"><initialMarking><text>1</text></initialMarking></place>"#,
        ));
        assert_eq!(net.arc_count(), 2);
        // An unmarked self-loop stays two arcs.
        assert_eq!(net.read_arc_count(), 0);
    }

    #[test]
    fn split_text_is_concatenated() {
        let net = ok(&wrap(
            r#"<place id="p"><name><text> a&amp;<![CDATA[<b>]]>&#99; </text></name>
            <initialMarking><text>
              1<!-- c --><![CDATA[2]]>&#51;
            </text></initialMarking></place>"#,
        ));
        assert_eq!(net.places[0].label, "a&<b>c");
        assert_eq!(net.places[0].initial, 123);
        let net = ok(&wrap(r#"<place id="p&amp;q"/>"#));
        assert_eq!(net.places[0].id, "p&q");
    }

    #[test]
    fn nupn_block() {
        let net = ok(&wrap(&format!(
            r#"{SMALL}<toolspecific tool="nupn" version="1.1">
            <size places="2" transitions="1" arcs="2"/>
            <structure units="2" root="u0" safe="true">
              <unit id="u0"><places/><subunits>u1</subunits></unit>
              <unit id="u1"><places>p q</places><subunits/></unit>
            </structure></toolspecific>"#
        )));
        assert_eq!(
            net.nupn,
            Some(Nupn {
                places: Some(2),
                transitions: Some(1),
                arcs: Some(2),
                units: Some(2),
                safe: Some(true),
            })
        );
        assert!(net.certified_safe());
        let e = bad(&wrap(
            r#"<toolspecific tool="nupn"><structure safe="maybe"/></toolspecific>"#,
        ));
        assert!(e.contains("safe"), "{e}");
    }

    #[test]
    fn other_toolspecific_and_graphics_skipped() {
        let net = ok(&wrap(
            r#"<toolspecific tool="x"><place id="ignored"/></toolspecific>
            <place id="p"><graphics><position x="1" y="2"/></graphics>
              <toolspecific tool="y"><a><b/></a></toolspecific></place>"#,
        ));
        assert_eq!(net.places.len(), 1);
    }

    fn small_net() -> Net {
        let mut b = crate::model::net::NetBuilder::new("small <&> \"net\"");
        let p = b.add_place("p", Some("the place".into()), 1).unwrap();
        let q = b.add_place("a0", None, 0).unwrap(); // clashes with the first arc id
        let r = b.add_place("r&x", Some("R'\"<>".into()), 7).unwrap();
        let t = b.add_transition("t", Some("tee".into())).unwrap();
        let u = b.add_transition("page0", None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 1).unwrap();
        b.add_arc(q, t, ArcKind::Output, 3).unwrap();
        b.add_arc(r, t, ArcKind::Read, 2).unwrap();
        b.add_arc(q, u, ArcKind::Read, 1).unwrap();
        b.add_arc(q, u, ArcKind::Input, 1).unwrap();
        b.add_arc(p, u, ArcKind::Output, 1).unwrap();
        b.finish()
    }

    fn written(net: &Net) -> String {
        let mut out = Vec::new();
        write(net, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn writer_reader_round_trip() {
        let net = small_net();
        let text = written(&net);
        let back = ok(&text);
        assert_eq!(back, net, "{text}");
        assert_eq!(back.read_arc_count(), 2);
    }

    #[test]
    fn read_arc_round_trip_and_errors() {
        let text = written(&small_net());
        assert!(text.contains(r#"<toolspecific tool="unfold" version="1"><read/></toolspecific>"#));
        // One half of a read arc alone is an error.
        let e = bad(&wrap(
            r#"<place id="p"/><transition id="t"/>
            <arc id="a" source="p" target="t"><toolspecific tool="unfold" version="1"><read/></toolspecific></arc>"#,
        ));
        assert!(e.contains("arc 'a'") && e.contains("read arc"), "{e}");
        // Tina test arcs are read arcs.
        let net = ok(&wrap(
            r#"<place id="p"/><transition id="t"/><arc id="a" source="p" target="t"><type value="test"/></arc>"#,
        ));
        assert_eq!(net.read_arc_count(), 1);
    }

    #[test]
    fn nupn_round_trip() {
        let mut net = small_net();
        net.nupn = Some(Nupn {
            safe: Some(true),
            ..Nupn::default()
        });
        let back = ok(&written(&net));
        assert_eq!(
            back.nupn,
            Some(Nupn {
                places: Some(3),
                transitions: Some(2),
                arcs: Some(8),
                units: Some(4),
                safe: Some(true),
            })
        );
        assert_eq!(back.places, net.places);
        assert_eq!(back.transitions, net.transitions);
    }

    #[test]
    fn refused_net_types_and_arcs() {
        let e = bad(
            r#"<pnml><net id="n" type="http://www.pnml.org/version-2009/grammar/symmetricnet"></net></pnml>"#,
        );
        assert!(
            e.contains("coloured nets are not supported")
                && e.contains("http://www.pnml.org/version-2009/grammar/symmetricnet"),
            "{e}"
        );
        let e = bad(r#"<pnml><net id="n" type="http://example.org/whatever"/></pnml>"#);
        assert!(
            e.contains("unsupported net type http://example.org/whatever"),
            "{e}"
        );
        let e = bad(&wrap(
            r#"<place id="p"/><transition id="t"/><arc id="inh" source="p" target="t"><type value="inhibitor"/></arc>"#,
        ));
        assert!(e.contains("arc 'inh'") && e.contains("inhibitor"), "{e}");
        let e = bad(&wrap(
            r#"<place id="p"/><transition id="t"/><arc id="rst" source="p" target="t" type="reset"/>"#,
        ));
        assert!(e.contains("arc 'rst'") && e.contains("reset"), "{e}");
        let e = bad(&wrap(
            r#"<place id="p"/><transition id="t"/><arc id="tool" source="p" target="t"><toolspecific tool="PIPE"><arcType>inhibitor</arcType></toolspecific></arc>"#,
        ));
        assert!(e.contains("arc 'tool'") && e.contains("inhibitor"), "{e}");
        let e = bad(&wrap(
            r#"<place id="p"/><transition id="t"/><arc id="hl" source="p" target="t"><hlinscription><text>x</text></hlinscription></arc>"#,
        ));
        assert!(e.contains("arc 'hl'") && e.contains("high-level"), "{e}");
        let e = bad(&wrap(
            r#"<place id="p"><hlinitialMarking><text>x</text></hlinitialMarking></place>"#,
        ));
        assert!(e.contains("place 'p'") && e.contains("high-level"), "{e}");
    }

    /// The bad-input cases of `tests/bad_input_pnml.rs`, through the library.
    #[test]
    fn bad_inputs() {
        let arc = |attrs: &str, weight: &str| {
            wrap(&format!(
                r#"<place id="p"/><place id="q"/><transition id="t"/>
<arc id="a" {attrs}><inscription><text>{weight}</text></inscription></arc>"#
            ))
        };
        let cases: Vec<(String, &str)> = vec![
            (String::new(), "empty"),
            ("  \n ".into(), "empty"),
            ("\u{0}\u{1}garbage".into(), "not a PNML document"),
            (
                "<pnml><net id=\"n\"><page>".into(),
                "unexpected end of file",
            ),
            ("<pnml><net id=\"n\"><page></net>".into(), "malformed XML"),
            ("<pnml></pnml>".into(), "no <net>"),
            ("<other/>".into(), "expected <pnml>"),
            (arc(r#"source="p" target="zz""#, "1"), "unknown target 'zz'"),
            (arc(r#"source="p" target="q""#, "1"), "connects two places"),
            (
                arc(r#"source="t" target="t""#, "1"),
                "connects two transitions",
            ),
            (arc(r#"source="p" target="t""#, "0"), "at least 1"),
            (arc(r#"source="p" target="t""#, "-3"), "negative"),
            (arc(r#"source="p" target="t""#, "two"), "not a number"),
            (arc(r#"source="p" target="t""#, "4294967296"), "too large"),
            (arc(r#"source="p" target="t""#, ""), "expected a number"),
            (
                wrap(r#"<place id="p"/><transition id="p"/>"#),
                "duplicate id 'p'",
            ),
            (wrap(r#"<page id="p"/><place id="p"/>"#), "duplicate id 'p'"),
            (
                wrap(
                    r#"<place id="p"/><transition id="t"/><arc id="a" source="p" target="t"/><arc id="b" source="p" target="t"/>"#,
                ),
                "duplicate input arc",
            ),
            (wrap(r#"<place/>"#), "without an id"),
        ];
        for (src, want) in cases {
            let e = bad(&src);
            assert!(e.contains(want), "{src:?}: {e}");
            assert!(e.starts_with("t.pnml:"), "{e}");
        }
        // Binary junk that is not UTF-8.
        let e = parse(b"\x7fELF\x02\x01\xff\xfe\x00", file())
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.pnml:1:") && e.contains("UTF-8"), "{e}");
    }

    #[test]
    fn attributes_read_without_checks_give_the_checked_errors() {
        // Duplicates, syntax errors and bad values: the messages of quick-xml's checks.
        let cases = [
            (
                r#"<place id="p" id="q"/>"#,
                "3:1: malformed attribute: position 13: duplicated attribute, previous \
                 declaration at position 6",
            ),
            (
                r#"<place id="p" x="1" x="2"/>"#,
                "3:1: malformed attribute: position 19: duplicated attribute, previous \
                 declaration at position 13",
            ),
            (
                // The duplicate is reported before the value that follows it.
                r#"<place x="1" x="2" id=x/>"#,
                "3:1: malformed attribute: position 12: duplicated attribute",
            ),
            (
                r#"<place id="p" x/>"#,
                "3:1: malformed attribute: position 14: attribute key must be directly followed",
            ),
            (
                r#"<place id="p" x=/>"#,
                "3:1: malformed attribute: position 15:",
            ),
            (
                r#"<place id="a&bogus;b"/>"#,
                "3:1: bad value of attribute 'id': at 2..7: unrecognized entity `bogus`",
            ),
            (
                // More attributes than the stack holds: the duplicate is found all the same.
                r#"<place a="1" b="2" c="3" d="4" e="5" f="6" g="7" h="8" i="9" a="0" id="p"/>"#,
                "3:1: malformed attribute: position 60: duplicated attribute, previous \
                 declaration at position 6",
            ),
            (
                r#"<place a="1" b="2" c="3" d="4" e="5" f="6" g="7" h="8" id="p" id="q"/>"#,
                "3:1: malformed attribute: position 61: duplicated attribute, previous \
                 declaration at position 54",
            ),
            (
                r#"<place id="p"/><transition id="t"/><arc id="a" source="p" target="t" source="t"/>"#,
                "3:36: malformed attribute: position 33: duplicated attribute",
            ),
        ];
        for (body, want) in cases {
            let e = bad(&wrap(body));
            assert!(e.starts_with(&format!("t.pnml:{want}")), "{body}: {e}");
        }
        // Well-formed tags: values unescaped and normalised, the last of two local names `id`
        // (different qualified names) wins, many attributes are fine.
        let net = ok(&wrap(
            r#"<place id="a&amp;b"/><place a="1" b="2" c="3" d="4" e="5" f="6" g="7" h="8" id="p9"/>
               <place a="1" b="2" c="3" d="4" e="5" f="6" g="7" id="p8"/>
               <place xmlns:u="x" u:id="u" id="q"/><place id="r" u:id="s"/>
               <transition id="t"/><arc id="x" source=" p&#9;q " target="t"/>
               <place id=" p&#9;q "/>"#,
        ));
        let ids: Vec<_> = net.places.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["a&b", "p9", "p8", "q", "s", " p\tq "]);
        assert_eq!(net.transitions[0].pre.len(), 1);
    }

    #[test]
    fn error_positions() {
        let src = "<pnml><net id=\"n\">\n<page>\n  <place id=\"p\"/>\n  <place id=\"p\"/>\n</page></net></pnml>";
        let e = bad(src);
        assert!(
            e.starts_with("t.pnml:4:3: duplicate id 'p' (first declared at 3:3)"),
            "{e}"
        );
        let src = "<pnml><net>\n<place id=\"p\"><initialMarking><text> x</text></initialMarking></place></net></pnml>";
        let e = bad(src);
        assert!(
            e.starts_with("t.pnml:2:38: initial marking is not a number"),
            "{e}"
        );
    }

    #[test]
    fn never_panics_on_truncations() {
        let text = written(&small_net());
        for cut in 0..text.len() {
            if text.is_char_boundary(cut) {
                let _ = parse(&text.as_bytes()[..cut], file());
            }
        }
        let mut bytes = text.into_bytes();
        for i in 0..bytes.len() {
            let saved = bytes[i];
            for b in [b'<', b'>', b'"', b'&', b'/', 0xff] {
                bytes[i] = b;
                let _ = parse(&bytes, file());
            }
            bytes[i] = saved;
        }
    }
}
