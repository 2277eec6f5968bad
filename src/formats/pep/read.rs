//! The PEP reader: sections in their order, numbered nodes, arcs handed to the builder a
//! section at a time (see the module documentation of [`super`] for what is read).
//!
//! The lines themselves, and the quick reading of the common forms of node and arc lines, are
//! in `lines`.

mod lines;

use std::path::Path;

use compact_str::CompactString;
use rustc_hash::FxHashMap;

use crate::formats::ReadError;
use crate::formats::text::{Res, fail, model_name};
use crate::model::net::{ArcKind, Net, NetBuilder, PlaceIdx, TransIdx};
use lines::{
    In, Item, Line, Value, item, line_at, lines, number, quick_arc, quick_node, show, skip_blanks,
    word,
};

/// Parses a PEP low-level net; the net is named after the file stem.
pub fn parse(bytes: &[u8], file: &Path) -> Result<Net, ReadError> {
    Reader::new(bytes, model_name(file))
        .run()
        .map_err(|f| f.in_file(bytes, file))
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
mod tests;
