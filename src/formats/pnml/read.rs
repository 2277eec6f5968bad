//! The PNML reader: the document's elements (the `<pnml>` root, the net, its pages, places,
//! transitions, arcs, reference nodes and tool-specific data), read as quick-xml streams them.
//!
//! The XML access the element readers share (events, attributes, text, identifiers) is in
//! `xml`; the references and arcs, resolved once the whole net is read, in `resolve`.

mod coloured;
mod resolve;
mod xml;

pub use coloured::parse_coloured;

use std::borrow::Cow;
use std::path::Path;

use compact_str::CompactString;
use quick_xml::Reader;
use quick_xml::events::attributes::Attributes;
use quick_xml::events::{BytesStart, Event};
use rustc_hash::FxHashMap;

use super::{PTNET_TYPE, TOOL};
use crate::formats::text::model_name;
use crate::formats::{Position, ReadError};
use crate::model::net::{
    Arcs, Net, NetTransition, Node, Nupn, NupnUnit, Place, PlaceIdx, TransIdx,
};

/// Parses a P/T net in PNML.
///
/// `file` is only used in error messages. A coloured net (`symmetricnet`) is read and unfolded
/// to P/T, its [`Net::folding`] set; other high-level nets, inhibitor, reset and timed arcs are
/// refused with an error naming the type or the arc.
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
    if coloured::is_symmetric(input, file) {
        return coloured::parse_and_unfold(input, file);
    }
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
                name: model_name(file),
                ..Net::default()
            },
            refs: Vec::new(),
            arcs: Vec::with_capacity(guess / 2),
        }
    }

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
                        let [units, safe, root] = p.attrs(&c, off, ["units", "safe", "root"])?;
                        nupn.root = root.map(|r| r.trim().into());
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
                if !empty {
                    if local(&c) == "structure" {
                        p.nupn_units(off, &mut nupn.unit_tree)?;
                    } else {
                        p.skip(&c, off)?;
                    }
                }
                Ok(())
            })?;
        }
        self.net.nupn = Some(nupn);
        Ok(())
    }

    /// The `<unit>`s of a NUPN `<structure>` (opened at `open`), each with the identifiers
    /// listed in its `<places>` and `<subunits>`.
    fn nupn_units(&mut self, open: usize, out: &mut Vec<NupnUnit>) -> Result<(), ReadError> {
        self.children("structure", open, |p, u, empty, uoff| {
            if local(&u) != "unit" {
                if !empty {
                    p.skip(&u, uoff)?;
                }
                return Ok(());
            }
            let [id] = p.attrs(&u, uoff, ["id"])?;
            let mut unit = NupnUnit {
                id: id.map(|i| i.trim().into()).unwrap_or_default(),
                ..NupnUnit::default()
            };
            if !empty {
                p.children("unit", uoff, |p, list, empty, loff| {
                    let names = match local(&list) {
                        "places" => &mut unit.places,
                        "subunits" => &mut unit.subunits,
                        _ => {
                            if !empty {
                                p.skip(&list, loff)?;
                            }
                            return Ok(());
                        }
                    };
                    if !empty {
                        let (text, _) = p.text_content(loff)?;
                        names.extend(text.split_whitespace().map(CompactString::from));
                    }
                    Ok(())
                })?;
            }
            out.push(unit);
            Ok(())
        })
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
}

#[cfg(test)]
pub(super) mod tests;
