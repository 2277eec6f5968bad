//! The coloured (`symmetricnet`) PNML reader: the document is read into a small tree of
//! elements (graphics and tool-specific data skipped), whose declarations, places,
//! transitions and arcs are then turned into a [`ColouredNet`], which is unfolded to the P/T
//! net every engine runs on. The sorts, terms and guards are read in `coloured/terms.rs`.
//!
//! Whatever is not supported (an operator, a sort, a reference node, …) is refused with the
//! element's name and position, never read as something else.

mod terms;

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use compact_str::CompactString;
use quick_xml::events::{BytesStart, Event};
use rustc_hash::FxHashMap;

use super::{Parser, local};
use crate::formats::ReadError;
use crate::model::coloured::{
    Budget, ColouredArc, ColouredNet, ColouredPlace, ColouredTransition, Guard, Multiset,
    unfold_to_pt,
};
use crate::model::net::Net;

/// The attributes the coloured elements use, in [`El::attrs`] order.
const ATTRS: [&str; 11] = [
    "id",
    "name",
    "declaration",
    "refvariable",
    "value",
    "start",
    "end",
    "source",
    "target",
    "type",
    "refpartition",
];

/// An element of the document: local name, offset, the attributes of [`ATTRS`], the text
/// directly inside it, and its child elements.
pub(super) struct El<'a> {
    name: &'a str,
    off: usize,
    attrs: [Option<Cow<'a, str>>; ATTRS.len()],
    text: String,
    kids: Vec<El<'a>>,
}

impl<'a> El<'a> {
    /// The attribute `key` (one of [`ATTRS`]).
    fn attr(&self, key: &str) -> Option<&str> {
        let i = ATTRS.iter().position(|k| *k == key)?;
        self.attrs[i].as_deref()
    }

    /// The first child named `name`.
    fn child(&self, name: &str) -> Option<&El<'a>> {
        self.kids.iter().find(|k| k.name == name)
    }

    /// The trimmed text of the `<text>` child.
    fn text_child(&self) -> Option<&str> {
        self.child("text").map(|t| t.text.trim())
    }
}

/// Whether `input` is a PNML document whose first net is of type `symmetricnet`. Any error
/// answers no: the P/T reader then reports it.
pub(super) fn is_symmetric(input: &str, file: &Path) -> bool {
    let mut p = Parser::new(input, file);
    loop {
        match p.next() {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) if local(&e) == "net" => {
                let off = p.ev_start;
                return p
                    .attrs(&e, off, ["type"])
                    .ok()
                    .and_then(|[t]| t)
                    .is_some_and(|t| {
                        t.rsplit('/')
                            .next()
                            .is_some_and(|k| k.trim().eq_ignore_ascii_case("symmetricnet"))
                    });
            }
            Ok(Event::Eof) | Err(_) => return false,
            _ => {}
        }
    }
}

/// Reads a coloured net from `input` (a symmetric net, see [`is_symmetric`]).
pub fn parse_coloured(input: &str, file: &Path) -> Result<ColouredNet, ReadError> {
    let mut p = Parser::new(input, file);
    let root = loop {
        match p.next()? {
            Event::Start(e) if local(&e) == "pnml" => {
                let off = p.ev_start;
                break p.tree(e, false, off)?;
            }
            Event::Eof => return Err(p.err(input.len(), "no <pnml> element")),
            _ => {}
        }
    };
    let nets: Vec<&El> = root.kids.iter().filter(|k| k.name == "net").collect();
    let [net] = nets[..] else {
        return Err(p.err(root.off, "expected exactly one <net> in <pnml>"));
    };
    Reader::new(&p, file).net(net)
}

/// Reads a coloured net and unfolds it, the folding kept in the net.
pub(super) fn parse_and_unfold(input: &str, file: &Path) -> Result<Net, ReadError> {
    let coloured = parse_coloured(input, file)?;
    let unfolded = unfold_to_pt(&coloured, &Budget::default())
        .map_err(|e| ReadError::parse(file, None, format!("unfolding the coloured net: {e}")))?;
    let mut net = unfolded.net;
    net.folding = Some(Arc::new(unfolded.folding));
    Ok(net)
}

impl<'a> Parser<'a> {
    /// The element whose start tag `e` (at `open`) was just read, with its content.
    fn tree(&mut self, e: BytesStart<'a>, empty: bool, open: usize) -> Result<El<'a>, ReadError> {
        let mut stack = vec![self.element(&e, open)?];
        if empty {
            return Ok(stack.pop().expect("just pushed"));
        }
        loop {
            match self.next()? {
                // Skipped wholesale: drawings and other tools' data say nothing here.
                Event::Start(c) if matches!(local(&c), "graphics" | "toolspecific") => {
                    let off = self.ev_start;
                    self.skip(&c, off)?;
                }
                Event::Empty(c) if matches!(local(&c), "graphics" | "toolspecific") => {}
                Event::Start(c) => {
                    let off = self.ev_start;
                    let el = self.element(&c, off)?;
                    stack.push(el);
                }
                Event::Empty(c) => {
                    let off = self.ev_start;
                    let el = self.element(&c, off)?;
                    if let Some(top) = stack.last_mut() {
                        top.kids.push(el);
                    }
                }
                Event::Text(t) => {
                    if let Some(top) = stack.last_mut() {
                        top.text.push_str(&t.xml10_content());
                    }
                }
                Event::CData(t) => {
                    if let Some(top) = stack.last_mut() {
                        top.text.push_str(&t.xml10_content());
                    }
                }
                Event::GeneralRef(r) => {
                    let piece = self.entity(&r)?;
                    if let Some(top) = stack.last_mut() {
                        top.text.push_str(&piece);
                    }
                }
                Event::End(_) => {
                    let done = stack.pop().expect("an element is open");
                    match stack.last_mut() {
                        Some(top) => top.kids.push(done),
                        None => return Ok(done),
                    }
                }
                Event::Eof => {
                    let (name, off) = stack.last().map_or(("pnml", open), |t| (t.name, t.off));
                    return Err(self.unclosed(name, off));
                }
                _ => {}
            }
        }
    }

    /// A childless [`El`] for the start tag `e`.
    fn element(&self, e: &BytesStart<'a>, off: usize) -> Result<El<'a>, ReadError> {
        let raw = super::rebase(self.ctx.input, e)
            .ok_or_else(|| self.err(off, "internal error: tag not borrowed from the input"))?;
        let name_len = e.name().as_ref().len();
        let full = &raw[..name_len];
        let name = full.rsplit(':').next().unwrap_or(full);
        Ok(El {
            name,
            off,
            attrs: self.attrs(e, off, ATTRS)?,
            text: String::new(),
            kids: Vec::new(),
        })
    }
}

/// Turns the tree of a `<net>` into a [`ColouredNet`].
struct Reader<'p, 'a> {
    p: &'p Parser<'a>,
    net: ColouredNet,
    /// Sorts by declaration identifier.
    sorts: FxHashMap<String, u32>,
    /// Enumeration constants: (sort, colour).
    constants: FxHashMap<String, (u32, u32)>,
    /// Variables by identifier.
    variables: FxHashMap<String, u32>,
    /// The one `dot` sort.
    dot: Option<u32>,
    /// Partitions by declaration identifier: (the partition's sort, the partitioned sort, the
    /// element of each colour of the partitioned sort).
    partitions: FxHashMap<String, (u32, u32, Vec<u32>)>,
}

impl<'p, 'a> Reader<'p, 'a> {
    fn new(p: &'p Parser<'a>, file: &Path) -> Self {
        Reader {
            p,
            net: ColouredNet {
                name: crate::formats::text::model_name(file),
                ..ColouredNet::default()
            },
            sorts: FxHashMap::default(),
            constants: FxHashMap::default(),
            variables: FxHashMap::default(),
            dot: None,
            partitions: FxHashMap::default(),
        }
    }

    /// An error at `el`, naming it.
    fn bad(&self, el: &El, message: impl std::fmt::Display) -> ReadError {
        self.p.err(el.off, format!("<{}>: {message}", el.name))
    }

    /// The `<net>`: declarations first, then the nodes of every page, then the arcs.
    fn net(mut self, net: &El) -> Result<ColouredNet, ReadError> {
        if let Some(id) = net.attr("id").filter(|id| !id.is_empty()) {
            self.net.name = id.to_string();
        }
        let mut pages = vec![net];
        let mut nodes = Vec::new();
        let mut decls = Vec::new();
        while let Some(page) = pages.pop() {
            for k in page.kids.iter().rev() {
                match k.name {
                    "page" => pages.push(k),
                    "declaration" => decls.push(k),
                    "place" | "transition" | "arc" => nodes.push(k),
                    "referencePlace" | "referenceTransition" => {
                        return Err(
                            self.bad(k, "reference nodes are not supported in coloured nets")
                        );
                    }
                    _ => {}
                }
            }
        }
        nodes.reverse();
        for d in decls {
            self.declaration(d)?;
        }
        let mut ids: FxHashMap<&str, (bool, u32)> = FxHashMap::default();
        for el in nodes.iter().filter(|n| n.name != "arc") {
            let id = el
                .attr("id")
                .filter(|id| !id.is_empty())
                .ok_or_else(|| self.bad(el, "no id attribute"))?;
            let label = el
                .child("name")
                .and_then(|n| n.text_child())
                .filter(|t| !t.is_empty())
                .unwrap_or(id);
            let place = el.name == "place";
            let index = if place {
                self.place(el, id, label)?
            } else {
                self.transition(el, id, label)?
            };
            if ids.insert(id, (place, index)).is_some() {
                return Err(self.bad(el, format!("duplicate id '{id}'")));
            }
        }
        for el in nodes.iter().filter(|n| n.name == "arc") {
            self.arc(el, &ids)?;
        }
        Ok(self.net)
    }

    fn place(&mut self, el: &El, id: &str, label: &str) -> Result<u32, ReadError> {
        let ty = el
            .child("type")
            .and_then(|t| t.child("structure"))
            .and_then(|s| s.kids.first())
            .ok_or_else(|| self.bad(el, format!("place '{id}' has no <type>")))?;
        let sort = self.sort(ty)?;
        let mut initial = None;
        if let Some(m) = el.child("hlinitialMarking") {
            if let Some(term) = m.child("structure").and_then(|s| s.kids.first()) {
                let ms = self.multiset(term, sort)?;
                let mut vars = Vec::new();
                ms.variables(&mut vars);
                if let Some(&v) = vars.first() {
                    let var = &self.net.variables[v as usize].id;
                    return Err(self.bad(term, format!("variable '{var}' in an initial marking")));
                }
                initial = Some(ms);
            }
        } else if let Some(m) = el.child("initialMarking") {
            initial = self.plain_count(m, sort)?;
        }
        self.net.places.push(ColouredPlace {
            id: id.into(),
            label: label.into(),
            sort,
            initial,
        });
        Ok(self.net.places.len() as u32 - 1)
    }

    /// A P/T-style count (`<initialMarking>`, `<inscription>`): `n'dot` on a `dot` place.
    fn plain_count(&mut self, el: &El, sort: u32) -> Result<Option<Multiset>, ReadError> {
        let text = el.text_child().unwrap_or("");
        let n: u64 = text
            .parse()
            .map_err(|_| self.bad(el, format!("expected a number, found '{text}'")))?;
        if !matches!(
            self.net.sorts.get(sort).kind,
            crate::model::coloured::SortKind::Dot
        ) {
            return Err(self.bad(el, "a plain number on a place whose sort is not dot"));
        }
        Ok((n > 0).then_some(Multiset::Of(n, crate::model::coloured::Term::Const(0))))
    }

    fn transition(&mut self, el: &El, id: &str, label: &str) -> Result<u32, ReadError> {
        let guard = match el
            .child("condition")
            .and_then(|c| c.child("structure"))
            .and_then(|s| s.kids.first())
        {
            Some(g) => self.guard(g)?,
            None => Guard::True,
        };
        self.net.transitions.push(ColouredTransition {
            id: id.into(),
            label: label.into(),
            guard,
        });
        Ok(self.net.transitions.len() as u32 - 1)
    }

    fn arc(&mut self, el: &El, ids: &FxHashMap<&str, (bool, u32)>) -> Result<(), ReadError> {
        let (Some(source), Some(target)) = (el.attr("source"), el.attr("target")) else {
            return Err(self.bad(el, "an arc needs a source and a target"));
        };
        if let Some(t) = el
            .attr("type")
            .or_else(|| el.child("type").and_then(|t| t.attr("value")))
            && !t.trim().is_empty()
            && !t.trim().eq_ignore_ascii_case("normal")
        {
            return Err(self.bad(el, format!("unsupported arc type '{t}'")));
        }
        let find = |name: &str| {
            ids.get(name)
                .copied()
                .ok_or_else(|| self.bad(el, format!("unknown node '{name}'")))
        };
        let (place, transition, input) = match (find(source)?, find(target)?) {
            ((true, p), (false, t)) => (p, t, true),
            ((false, t), (true, p)) => (p, t, false),
            _ => return Err(self.bad(el, "an arc must join a place and a transition")),
        };
        let sort = self.net.places[place as usize].sort;
        let inscription = if let Some(h) = el.child("hlinscription") {
            let term = h
                .child("structure")
                .and_then(|s| s.kids.first())
                .ok_or_else(|| self.bad(h, "no <structure>"))?;
            self.multiset(term, sort)?
        } else if let Some(i) = el.child("inscription") {
            self.plain_count(i, sort)?
                .ok_or_else(|| self.bad(i, "an arc weight must be at least 1"))?
        } else if matches!(
            self.net.sorts.get(sort).kind,
            crate::model::coloured::SortKind::Dot
        ) {
            Multiset::Of(1, crate::model::coloured::Term::Const(0))
        } else {
            return Err(self.bad(el, "an arc on a coloured place needs an <hlinscription>"));
        };
        self.net.arcs.push(ColouredArc {
            place,
            transition,
            input,
            inscription,
        });
        Ok(())
    }
}

/// The compact form of an identifier.
fn compact(s: &str) -> CompactString {
    CompactString::from(s)
}
