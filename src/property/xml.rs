//! The Model Checking Contest's XML property files: the reader ([`parse_xml`], streaming with
//! quick-xml) and a writer in the contest's layout ([`to_xml`]).
//!
//! A file is a `<property-set>` (in the namespace `http://mcc.lip6.fr/` or none: elements are
//! matched by local name) of `<property>` elements, each with an `<id>`, an optional
//! `<description>` and a `<formula>` of one element: a Boolean formula, or a `<place-bound>`
//! (UpperBounds). `<description>` and `<toolspecific>` are skipped wherever the contest puts
//! metadata (in `<property>`, and `<toolspecific>` in `<property-set>`); any other unknown or
//! misplaced element, a missing or extra child, text where none belongs, an integer
//! expression where a formula is expected (or the reverse), or malformed XML is an error at a
//! line and column. Names (`<place>`, `<transition>`) and ids are the elements' text without
//! surrounding blanks, and carry where that text starts.

use compact_str::CompactString;
use quick_xml::Reader;
use quick_xml::events::{BytesRef, BytesStart, Event};
use rustc_hash::FxHashMap;

use super::load::{Lines, ReadError};
use super::syntax::{Ask, Cmp, Form, Formula, IntExpr, Name, Property, Query, Spans};
use super::text::MAX_NESTING;

/// The namespace of the contest's property files.
pub const NAMESPACE: &str = "http://mcc.lip6.fr/";

/// Reads the contest's XML property file `text`.
pub fn parse_xml(text: &str) -> Result<Vec<Query>, ReadError> {
    let lines = Lines::new(text);
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    Xml {
        text,
        lines: &lines,
        reader,
        start: 0,
    }
    .document()
}

/// The elements the reader knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tag {
    PropertySet,
    Property,
    Id,
    Description,
    Formula,
    ToolSpecific,
    ExistsPath,
    AllPaths,
    Finally,
    Globally,
    Next,
    Until,
    Before,
    Reach,
    Negation,
    Conjunction,
    Disjunction,
    IsFireable,
    Transition,
    Compare(Cmp),
    IntegerConstant,
    TokensCount,
    IntegerSum,
    PlaceBound,
    Place,
    True,
    False,
    Deadlock,
}

impl Tag {
    fn of(local: &str) -> Option<Tag> {
        Some(match local {
            "property-set" => Tag::PropertySet,
            "property" => Tag::Property,
            "id" => Tag::Id,
            "description" => Tag::Description,
            "formula" => Tag::Formula,
            "toolspecific" => Tag::ToolSpecific,
            "exists-path" => Tag::ExistsPath,
            "all-paths" => Tag::AllPaths,
            "finally" => Tag::Finally,
            "globally" => Tag::Globally,
            "next" => Tag::Next,
            "until" => Tag::Until,
            "before" => Tag::Before,
            "reach" => Tag::Reach,
            "negation" => Tag::Negation,
            "conjunction" => Tag::Conjunction,
            "disjunction" => Tag::Disjunction,
            "is-fireable" => Tag::IsFireable,
            "transition" => Tag::Transition,
            "integer-constant" => Tag::IntegerConstant,
            "tokens-count" => Tag::TokensCount,
            "integer-sum" => Tag::IntegerSum,
            "place-bound" => Tag::PlaceBound,
            "place" => Tag::Place,
            "true" => Tag::True,
            "false" => Tag::False,
            "deadlock" => Tag::Deadlock,
            _ => {
                return Cmp::ALL
                    .into_iter()
                    .find(|c| c.xml_name() == local)
                    .map(Tag::Compare);
            }
        })
    }

    /// Whether the element is a Boolean formula (`Some(true)`), an integer expression
    /// (`Some(false)`), or neither.
    fn is_formula(self) -> Option<bool> {
        match self {
            Tag::ExistsPath
            | Tag::AllPaths
            | Tag::Finally
            | Tag::Globally
            | Tag::Next
            | Tag::Until
            | Tag::Negation
            | Tag::Conjunction
            | Tag::Disjunction
            | Tag::IsFireable
            | Tag::Compare(_)
            | Tag::True
            | Tag::False
            | Tag::Deadlock => Some(true),
            Tag::IntegerConstant | Tag::TokensCount | Tag::IntegerSum => Some(false),
            _ => None,
        }
    }
}

/// A start tag just read.
struct Open {
    /// The element, if known.
    tag: Option<Tag>,
    /// Its local name, for messages.
    name: CompactString,
    /// Offset of its `<`.
    at: usize,
    /// Whether it is `<x/>`, without content.
    empty: bool,
}

/// The streaming reader of one file.
struct Xml<'a> {
    text: &'a str,
    lines: &'a Lines,
    reader: Reader<&'a [u8]>,
    /// Offset where the last event read starts.
    start: usize,
}

impl<'a> Xml<'a> {
    fn err(&self, at: usize, message: impl Into<String>) -> ReadError {
        self.lines.error(self.text, at, message)
    }

    fn next(&mut self) -> Result<Event<'a>, ReadError> {
        self.start = self.reader.buffer_position() as usize;
        self.reader.read_event().map_err(|e| {
            self.err(
                self.reader.error_position() as usize,
                format!("malformed XML: {e}"),
            )
        })
    }

    /// The element `e` starts; its attributes (which no element needs) must be well-formed.
    fn open(&self, e: &BytesStart<'_>, empty: bool) -> Result<Open, ReadError> {
        if let Some(Err(bad)) = e.attributes().find(Result::is_err) {
            return Err(self.err(self.start, format!("malformed XML: {bad}")));
        }
        let local = e.local_name();
        let name: &str = local.as_ref();
        Ok(Open {
            tag: Tag::of(name),
            name: CompactString::from(name),
            at: self.start,
            empty,
        })
    }

    fn unclosed(&self, o: &Open) -> ReadError {
        let (line, column) = self.lines.position(self.text, o.at);
        self.err(
            self.text.len(),
            format!(
                "unexpected end of file: <{}> opened at {line}:{column} is not closed",
                o.name
            ),
        )
    }

    /// The error for text in `parent`, whose elements hold no text.
    fn text_in(&self, parent: &Open, at: usize) -> ReadError {
        self.err(at, format!("unexpected text in <{}>", parent.name))
    }

    /// Reads the content of `parent` (its start tag just read) up to its end tag: `child`
    /// gets each child element and must read its content. Blank text, comments and
    /// processing instructions are skipped; other text is an error.
    fn children(
        &mut self,
        parent: &Open,
        mut child: impl FnMut(&mut Self, Open) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        if parent.empty {
            return Ok(());
        }
        loop {
            match self.next()? {
                Event::Start(e) => {
                    let o = self.open(&e, false)?;
                    child(self, o)?;
                }
                Event::Empty(e) => {
                    let o = self.open(&e, true)?;
                    child(self, o)?;
                }
                Event::End(_) => return Ok(()),
                Event::Text(t) => {
                    let blanks = t.len() - t.trim_ascii_start().len();
                    if blanks < t.len() {
                        return Err(self.text_in(parent, self.start + blanks));
                    }
                }
                Event::CData(_) | Event::GeneralRef(_) => {
                    return Err(self.text_in(parent, self.start));
                }
                Event::Eof => return Err(self.unclosed(parent)),
                Event::Comment(_) | Event::PI(_) | Event::Decl(_) | Event::DocType(_) => {}
            }
        }
    }

    /// Skips the content of `o` (metadata), whatever it is.
    fn skip(&mut self, o: &Open) -> Result<(), ReadError> {
        if o.empty {
            return Ok(());
        }
        let mut depth = 0usize;
        loop {
            match self.next()? {
                Event::Start(_) => depth += 1,
                Event::End(_) if depth == 0 => return Ok(()),
                Event::End(_) => depth -= 1,
                Event::Eof => return Err(self.unclosed(o)),
                _ => {}
            }
        }
    }

    /// The text content of `o` without surrounding blanks, and the offset where it starts
    /// (of the end tag when there is none); child elements are errors.
    fn text(&mut self, o: &Open) -> Result<(String, usize), ReadError> {
        let mut text = String::new();
        let mut first = None;
        if !o.empty {
            loop {
                let piece = match self.next()? {
                    Event::Text(t) => {
                        let blanks = t.len() - t.trim_ascii_start().len();
                        if blanks < t.len() && first.is_none() {
                            first = Some(self.start + blanks);
                        }
                        t.xml10_content()
                    }
                    Event::CData(c) => c.xml10_content(),
                    Event::GeneralRef(r) => self.entity(&r)?.into(),
                    Event::Start(e) | Event::Empty(e) => {
                        let c = self.open(&e, false)?;
                        return Err(self.err(
                            c.at,
                            format!("unexpected element <{}> in <{}>", c.name, o.name),
                        ));
                    }
                    Event::End(_) => break,
                    Event::Eof => return Err(self.unclosed(o)),
                    Event::Comment(_) | Event::PI(_) | Event::Decl(_) | Event::DocType(_) => {
                        continue;
                    }
                };
                if !piece.trim().is_empty() {
                    first.get_or_insert(self.start);
                }
                text.push_str(&piece);
            }
        }
        let trimmed = text.trim();
        let text = if trimmed.len() == text.len() {
            text
        } else {
            trimmed.to_string()
        };
        Ok((text, first.unwrap_or(self.start)))
    }

    /// The character a reference in text stands for (`&amp;`, `&#10;`, …).
    fn entity(&self, r: &BytesRef<'_>) -> Result<String, ReadError> {
        let at = self.start;
        match r.resolve_char_ref() {
            Ok(Some(c)) => Ok(c.to_string()),
            Ok(None) => match r.as_ref() {
                "lt" => Ok("<".into()),
                "gt" => Ok(">".into()),
                "amp" => Ok("&".into()),
                "apos" => Ok("'".into()),
                "quot" => Ok("\"".into()),
                other => Err(self.err(at, format!("unknown entity '&{other};'"))),
            },
            Err(e) => Err(self.err(at, format!("bad character reference: {e}"))),
        }
    }

    /// The whole file: a prolog, the `<property-set>`, nothing after it.
    fn document(&mut self) -> Result<Vec<Query>, ReadError> {
        let mut queries = None;
        loop {
            let (e, empty) = match self.next()? {
                Event::Start(e) => (e, false),
                Event::Empty(e) => (e, true),
                Event::Text(t) => {
                    let blanks = t.len() - t.trim_ascii_start().len();
                    if blanks < t.len() {
                        return Err(self.err(
                            self.start + blanks,
                            "text outside of the <property-set> element",
                        ));
                    }
                    continue;
                }
                Event::CData(_) | Event::GeneralRef(_) => {
                    return Err(self.err(self.start, "text outside of the <property-set> element"));
                }
                Event::End(_) => return Err(self.err(self.start, "unexpected end tag")),
                Event::Eof => break,
                Event::Comment(_) | Event::PI(_) | Event::Decl(_) | Event::DocType(_) => {
                    continue;
                }
            };
            let o = self.open(&e, empty)?;
            if queries.is_some() {
                return Err(self.err(o.at, "unexpected element after the <property-set>"));
            }
            if o.tag != Some(Tag::PropertySet) {
                return Err(self.err(
                    o.at,
                    format!(
                        "not a property file: the root element is <{}>, expected <property-set>",
                        o.name
                    ),
                ));
            }
            queries = Some(self.property_set(&o)?);
        }
        queries.ok_or_else(|| {
            self.err(
                self.text.len(),
                "not a property file: no <property-set> element",
            )
        })
    }

    fn property_set(&mut self, set: &Open) -> Result<Vec<Query>, ReadError> {
        let mut queries = Vec::new();
        let mut seen: FxHashMap<String, (u32, u32)> = FxHashMap::default();
        self.children(set, |x, c| match c.tag {
            Some(Tag::Property) => {
                let (query, at) = x.property(&c)?;
                let position = x.lines.position(x.text, at);
                if let Some((line, column)) = seen.insert(query.id.clone(), position) {
                    return Err(x.err(
                        at,
                        format!("duplicate id '{}' (first at {line}:{column})", query.id),
                    ));
                }
                queries.push(query);
                Ok(())
            }
            Some(Tag::ToolSpecific) => x.skip(&c),
            _ => Err(x.unexpected(&c, set)),
        })?;
        Ok(queries)
    }

    fn unexpected(&self, c: &Open, parent: &Open) -> ReadError {
        let what = if c.tag.is_some() {
            "unexpected"
        } else {
            "unknown"
        };
        self.err(
            c.at,
            format!("{what} element <{}> in <{}>", c.name, parent.name),
        )
    }

    /// A `<property>`, and the offset of its id.
    fn property(&mut self, p: &Open) -> Result<(Query, usize), ReadError> {
        let mut id = None;
        let mut ask = None;
        self.children(p, |x, c| match c.tag {
            Some(Tag::Id) if id.is_none() => {
                id = Some(x.text(&c)?);
                Ok(())
            }
            Some(Tag::Formula) if ask.is_none() => {
                ask = Some(x.root_formula(&c)?);
                Ok(())
            }
            Some(Tag::Id | Tag::Formula) => {
                Err(x.err(c.at, format!("a second <{}> in <property>", c.name)))
            }
            Some(Tag::Description | Tag::ToolSpecific) => x.skip(&c),
            _ => Err(x.unexpected(&c, p)),
        })?;
        let Some((id, at)) = id else {
            return Err(self.err(p.at, "missing child: <property> without an <id>"));
        };
        if id.is_empty() {
            return Err(self.err(at, "empty <id>"));
        }
        let Some((ask, spans)) = ask else {
            return Err(self.err(p.at, "missing child: <property> without a <formula>"));
        };
        Ok((Property { id, ask, spans }, at))
    }

    /// The one element of `parent`, read by `read` (which gets it and must read its
    /// content); `what` says what it must be, for the error when it is missing.
    fn only_child<R>(
        &mut self,
        parent: &Open,
        what: &str,
        mut read: impl FnMut(&mut Self, Open) -> Result<R, ReadError>,
    ) -> Result<R, ReadError> {
        let mut result = None;
        self.children(parent, |x, c| {
            if result.is_some() {
                return Err(x.err(
                    c.at,
                    format!(
                        "<{}> has one child, found a second: <{}>",
                        parent.name, c.name
                    ),
                ));
            }
            result = Some(read(x, c)?);
            Ok(())
        })?;
        result.ok_or_else(|| {
            self.err(
                parent.at,
                format!("missing child: <{}> needs {what}", parent.name),
            )
        })
    }

    /// The content of `<formula>`: a place bound or a Boolean formula.
    fn root_formula(&mut self, f: &Open) -> Result<(Ask<Name, Name>, Spans), ReadError> {
        self.only_child(f, "a formula", |x, c| {
            if c.tag == Some(Tag::PlaceBound) {
                Ok((Ask::Bound(x.names(&c, Tag::Place)?), Spans::default()))
            } else {
                let (f, spans) = x.formula(c, 1)?;
                Ok((Ask::Holds(f), Spans(spans)))
            }
        })
    }

    /// The elements of `parent` (all `<place>` or all `<transition>`, as `want` says) as
    /// names.
    fn names(&mut self, parent: &Open, want: Tag) -> Result<Vec<Name>, ReadError> {
        let mut names = Vec::new();
        self.children(parent, |x, c| {
            if c.tag != Some(want) {
                return Err(x.unexpected(&c, parent));
            }
            let (text, at) = x.text(&c)?;
            if text.is_empty() {
                return Err(x.err(at, format!("empty <{}>", c.name)));
            }
            let (line, column) = x.lines.position(x.text, at);
            names.push(Name::at(text, line, column));
            Ok(())
        })?;
        Ok(names)
    }

    /// The error unless `o` is an element of the kind wanted (`formula`: a Boolean formula,
    /// else an integer expression).
    fn check_kind(&self, o: &Open, formula: bool) -> Result<(), ReadError> {
        let (want, other) = if formula {
            ("a formula", "an integer expression")
        } else {
            ("an integer expression", "a formula")
        };
        match o.tag.and_then(Tag::is_formula) {
            Some(kind) if kind == formula => Ok(()),
            Some(_) => Err(self.err(
                o.at,
                format!(
                    "type error: <{}> is {other}, where {want} is expected",
                    o.name
                ),
            )),
            None if o.tag == Some(Tag::PlaceBound) => Err(self.err(
                o.at,
                "<place-bound> is a whole property (UpperBounds): only directly under <formula>",
            )),
            None if o.tag.is_some() => Err(self.err(
                o.at,
                format!("unexpected element <{}> where {want} is expected", o.name),
            )),
            None => Err(self.err(o.at, format!("unknown element <{}>", o.name))),
        }
    }

    fn nesting(&self, o: &Open, depth: usize) -> Result<(), ReadError> {
        if depth > MAX_NESTING {
            return Err(self.err(
                o.at,
                format!("formula nested too deeply (more than {MAX_NESTING} levels)"),
            ));
        }
        Ok(())
    }

    /// The Boolean formula `o` starts, at nesting `depth`, and where its nodes are (in
    /// pre-order, see [`Spans`]).
    fn formula(&mut self, o: Open, depth: usize) -> Result<(Formula, Vec<(u32, u32)>), ReadError> {
        self.check_kind(&o, true)?;
        self.nesting(&o, depth)?;
        let mut spans = vec![self.lines.position(self.text, o.at)];
        let sub = |x: &mut Self, c: Open| x.formula(c, depth + 1);
        let mut boxed = |x: &mut Self, o: &Open| {
            let (f, s) = x.only_child(o, "a formula", sub)?;
            spans.extend(s);
            Ok::<_, ReadError>(Box::new(f))
        };
        let f = match o.tag {
            Some(Tag::ExistsPath) => Form::Exists(boxed(self, &o)?),
            Some(Tag::AllPaths) => Form::All(boxed(self, &o)?),
            Some(Tag::Finally) => Form::Finally(boxed(self, &o)?),
            Some(Tag::Globally) => Form::Globally(boxed(self, &o)?),
            Some(Tag::Next) => Form::Next(boxed(self, &o)?),
            Some(Tag::Negation) => Form::Not(boxed(self, &o)?),
            Some(Tag::Until) => {
                let (f, s) = self.until(&o, depth)?;
                spans.extend(s);
                f
            }
            Some(Tag::Conjunction | Tag::Disjunction) => {
                let mut members = Vec::new();
                self.children(&o, |x, c| {
                    let (f, s) = x.formula(c, depth + 1)?;
                    members.push(f);
                    spans.extend(s);
                    Ok(())
                })?;
                if o.tag == Some(Tag::Conjunction) {
                    Form::And(members)
                } else {
                    Form::Or(members)
                }
            }
            Some(Tag::IsFireable) => Form::Fireable(self.names(&o, Tag::Transition)?),
            Some(Tag::Compare(cmp)) => {
                let mut sides = Vec::with_capacity(2);
                self.children(&o, |x, c| {
                    if sides.len() == 2 {
                        return Err(x.err(
                            c.at,
                            format!(
                                "<{}> compares two integer expressions, found a third: <{}>",
                                o.name, c.name
                            ),
                        ));
                    }
                    sides.push(x.integer(c, depth + 1)?);
                    Ok(())
                })?;
                let mut sides = sides.into_iter();
                match (sides.next(), sides.next()) {
                    (Some(a), Some(b)) => Form::Compare(a, cmp, b),
                    _ => {
                        return Err(self.err(
                            o.at,
                            format!("missing child: <{}> needs two integer expressions", o.name),
                        ));
                    }
                }
            }
            Some(Tag::True) => self.nothing(&o, Form::Bool(true))?,
            Some(Tag::False) => self.nothing(&o, Form::Bool(false))?,
            Some(Tag::Deadlock) => self.nothing(&o, Form::Deadlock)?,
            _ => unreachable!("check_kind let only formulas through"),
        };
        Ok((f, spans))
    }

    /// `<until>`: its `<before>` and `<reach>`, once each, in either order; the spans of the
    /// two operands, `before`'s first whatever the order in the file.
    fn until(&mut self, o: &Open, depth: usize) -> Result<(Formula, Vec<(u32, u32)>), ReadError> {
        let (mut before, mut reach) = (None, None);
        self.children(o, |x, c| {
            let slot = match c.tag {
                Some(Tag::Before) => &mut before,
                Some(Tag::Reach) => &mut reach,
                _ => return Err(x.unexpected(&c, o)),
            };
            if slot.is_some() {
                return Err(x.err(c.at, format!("a second <{}> in <until>", c.name)));
            }
            *slot = Some(x.only_child(&c, "a formula", |x, g| x.formula(g, depth + 1))?);
            Ok(())
        })?;
        match (before, reach) {
            (Some((b, mut spans)), Some((r, s))) => {
                spans.extend(s);
                Ok((Form::Until(Box::new(b), Box::new(r)), spans))
            }
            (None, _) => Err(self.err(o.at, "missing child: <until> without <before>")),
            (_, None) => Err(self.err(o.at, "missing child: <until> without <reach>")),
        }
    }

    /// `f`, after checking that `o` has no content.
    fn nothing(&mut self, o: &Open, f: Formula) -> Result<Formula, ReadError> {
        self.children(o, |x, c| {
            Err(x.err(
                c.at,
                format!("<{}> has no children, found <{}>", o.name, c.name),
            ))
        })?;
        Ok(f)
    }

    /// The integer expression `o` starts.
    fn integer(&mut self, o: Open, depth: usize) -> Result<IntExpr<Name>, ReadError> {
        self.check_kind(&o, false)?;
        self.nesting(&o, depth)?;
        Ok(match o.tag {
            Some(Tag::TokensCount) => IntExpr::Tokens(self.names(&o, Tag::Place)?),
            Some(Tag::IntegerSum) => {
                let mut terms = Vec::new();
                self.children(&o, |x, c| {
                    terms.push(x.integer(c, depth + 1)?);
                    Ok(())
                })?;
                IntExpr::Sum(terms)
            }
            Some(Tag::IntegerConstant) => {
                let (text, at) = self.text(&o)?;
                if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(self.err(
                        at,
                        format!("<integer-constant>: expected a natural number, found '{text}'"),
                    ));
                }
                IntExpr::Const(text.parse().map_err(|_| {
                    self.err(
                        at,
                        format!("integer constant too large (at most {})", u64::MAX),
                    )
                })?)
            }
            _ => unreachable!("check_kind let only integer expressions through"),
        })
    }
}

/// The contest's XML file of `queries`, in its layout (two blanks per level, no description).
pub fn to_xml(queries: &[Query]) -> String {
    let mut w = Writer { out: String::new() };
    w.out.push_str("<?xml version=\"1.0\"?>\n");
    w.out
        .push_str(&format!("<property-set xmlns=\"{NAMESPACE}\">\n"));
    for q in queries {
        w.open(1, "property");
        w.leaf(2, "id", &q.id);
        w.open(2, "formula");
        match &q.ask {
            Ask::Holds(f) => w.formula(3, f),
            Ask::Bound(ps) => w.names(3, "place-bound", "place", ps),
        }
        w.close(2, "formula");
        w.close(1, "property");
    }
    w.out.push_str("</property-set>\n");
    w.out
}

struct Writer {
    out: String,
}

impl Writer {
    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    fn open(&mut self, depth: usize, tag: &str) {
        self.indent(depth);
        self.out.push_str(&format!("<{tag}>\n"));
    }

    fn close(&mut self, depth: usize, tag: &str) {
        self.indent(depth);
        self.out.push_str(&format!("</{tag}>\n"));
    }

    fn empty(&mut self, depth: usize, tag: &str) {
        self.indent(depth);
        self.out.push_str(&format!("<{tag}/>\n"));
    }

    fn leaf(&mut self, depth: usize, tag: &str, text: &str) {
        self.indent(depth);
        let text = quick_xml::escape::escape(text);
        self.out.push_str(&format!("<{tag}>{text}</{tag}>\n"));
    }

    fn names(&mut self, depth: usize, tag: &str, item: &str, names: &[Name]) {
        if names.is_empty() {
            return self.empty(depth, tag);
        }
        self.open(depth, tag);
        for n in names {
            self.leaf(depth + 1, item, &n.text);
        }
        self.close(depth, tag);
    }

    /// `tag` around `members`, each written by `write`.
    fn list<M>(&mut self, depth: usize, tag: &str, members: &[M], write: fn(&mut Self, usize, &M)) {
        if members.is_empty() {
            return self.empty(depth, tag);
        }
        self.open(depth, tag);
        for m in members {
            write(self, depth + 1, m);
        }
        self.close(depth, tag);
    }

    fn formula(&mut self, depth: usize, f: &Formula) {
        let one = |w: &mut Self, tag: &str, g: &Formula| {
            w.list(depth, tag, std::slice::from_ref(g), Self::formula)
        };
        match f {
            Form::Bool(true) => self.empty(depth, "true"),
            Form::Bool(false) => self.empty(depth, "false"),
            Form::Deadlock => self.empty(depth, "deadlock"),
            Form::Fireable(ts) => self.names(depth, "is-fireable", "transition", ts),
            Form::Compare(a, c, b) => {
                self.open(depth, c.xml_name());
                self.int(depth + 1, a);
                self.int(depth + 1, b);
                self.close(depth, c.xml_name());
            }
            Form::Not(g) => one(self, "negation", g),
            Form::And(gs) => self.list(depth, "conjunction", gs, Self::formula),
            Form::Or(gs) => self.list(depth, "disjunction", gs, Self::formula),
            Form::Exists(g) => one(self, "exists-path", g),
            Form::All(g) => one(self, "all-paths", g),
            Form::Next(g) => one(self, "next", g),
            Form::Finally(g) => one(self, "finally", g),
            Form::Globally(g) => one(self, "globally", g),
            Form::Until(a, b) => {
                self.open(depth, "until");
                self.list(
                    depth + 1,
                    "before",
                    std::slice::from_ref(a.as_ref()),
                    Self::formula,
                );
                self.list(
                    depth + 1,
                    "reach",
                    std::slice::from_ref(b.as_ref()),
                    Self::formula,
                );
                self.close(depth, "until");
            }
        }
    }

    fn int(&mut self, depth: usize, e: &IntExpr<Name>) {
        match e {
            IntExpr::Const(k) => self.leaf(depth, "integer-constant", &k.to_string()),
            IntExpr::Tokens(ps) => self.names(depth, "tokens-count", "place", ps),
            IntExpr::Sum(es) => self.list(depth, "integer-sum", es, Self::int),
        }
    }
}

#[cfg(test)]
mod tests;
