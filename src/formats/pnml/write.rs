//! The PNML writer: a net as a PNML 2009 P/T net of one page, read arcs marked as ours (see
//! the module documentation of [`super`] for what it does not preserve).

use std::io::{self, Write};

use rustc_hash::FxHashSet;

use super::{PNML_NS, PTNET_TYPE, TOOL};
use crate::model::net::Net;

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
        let safe = nupn.safe.unwrap_or(false);
        writeln!(o, r#"      <toolspecific tool="nupn" version="1.1">"#)?;
        writeln!(
            o,
            r#"        <size places="{}" transitions="{}" arcs="{}"/>"#,
            net.places.len(),
            net.transitions.len(),
            n_arcs
        )?;
        if let Some(root) = nupn.root.as_deref().filter(|_| units_fit(net)) {
            // The declared units, when they still partition the places of this net.
            write!(
                o,
                r#"        <structure units="{}" root=""#,
                nupn.unit_tree.len()
            )?;
            escape(o, root)?;
            writeln!(o, r#"" safe="{safe}">"#)?;
            for u in &nupn.unit_tree {
                o.write_all(b"          <unit id=\"")?;
                escape(o, &u.id)?;
                o.write_all(b"\"><places>")?;
                names(o, &u.places)?;
                o.write_all(b"</places><subunits>")?;
                names(o, &u.subunits)?;
                o.write_all(b"</subunits></unit>\n")?;
            }
        } else {
            one_unit_per_place(o, net, safe)?;
        }
        writeln!(o, "        </structure>")?;
        writeln!(o, "      </toolspecific>")?;
    }

    writeln!(o, "    </page>")?;
    writeln!(o, "  </net>")?;
    writeln!(o, "</pnml>")?;
    w.flush()
}

/// A NUPN structure of one unit per place under an empty root unit: a valid NUPN for any net
/// (a single place never has two marked places), unlike one unit holding all places.
fn one_unit_per_place(o: &mut dyn Write, net: &Net, safe: bool) -> io::Result<()> {
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
    Ok(())
}

/// Writes `names` escaped, separated by spaces.
fn names(o: &mut dyn Write, names: &[compact_str::CompactString]) -> io::Result<()> {
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            o.write_all(b" ")?;
        }
        escape(o, n)?;
    }
    Ok(())
}

/// Whether the net's NUPN units can be written back as declared: a root among them, unique
/// unit identifiers, subunits that exist, and every place of the net in exactly one unit (a
/// net changed since it was read, by unfolding or reduction, gets the one-unit-per-place
/// block instead).
fn units_fit(net: &Net) -> bool {
    let Some(nupn) = &net.nupn else {
        return false;
    };
    let units: FxHashSet<&str> = nupn.unit_tree.iter().map(|u| u.id.as_str()).collect();
    if units.len() != nupn.unit_tree.len()
        || !nupn.root.as_deref().is_some_and(|r| units.contains(r))
        || !nupn
            .unit_tree
            .iter()
            .flat_map(|u| &u.subunits)
            .all(|s| units.contains(s.as_str()))
    {
        return false;
    }
    let mut places: FxHashSet<&str> = net.places.iter().map(|p| p.id.as_str()).collect();
    let listed: usize = nupn.unit_tree.iter().map(|u| u.places.len()).sum();
    listed == places.len()
        && nupn
            .unit_tree
            .iter()
            .flat_map(|u| &u.places)
            .all(|p| places.remove(p.as_str()))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::formats::pnml::read::tests::{bad, ok, wrap};
    use crate::model::net::{ArcKind, Nupn, NupnUnit};
    use compact_str::CompactString;

    pub(in crate::formats::pnml) fn small_net() -> Net {
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

    pub(in crate::formats::pnml) fn written(net: &Net) -> String {
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
    fn nupn_units_are_written_back_while_they_cover_the_places() {
        let mut net = small_net();
        let ids: Vec<CompactString> = net.places.iter().map(|p| p.id.clone()).collect();
        let unit = |id: &str, places: &[CompactString], subunits: &[&str]| NupnUnit {
            id: id.into(),
            places: places.to_vec(),
            subunits: subunits.iter().map(|&s| s.into()).collect(),
        };
        let tree = vec![
            unit("root", &ids[..1], &["rest"]),
            unit("rest", &ids[1..], &[]),
        ];
        net.nupn = Some(Nupn {
            safe: Some(true),
            root: Some("root".into()),
            unit_tree: tree.clone(),
            ..Nupn::default()
        });
        let back = ok(&written(&net)).nupn.unwrap();
        assert_eq!(
            (back.root.as_deref(), &back.unit_tree),
            (Some("root"), &tree)
        );
        // A place missing from the units (the net changed): the one-unit-per-place block.
        net.nupn.as_mut().unwrap().unit_tree[1].places.pop();
        let back = ok(&written(&net)).nupn.unwrap();
        assert_eq!(back.unit_tree.len(), net.places.len() + 1);
        assert_eq!(back.safe, Some(true));
    }

    #[test]
    fn nupn_round_trip() {
        let mut net = small_net();
        net.nupn = Some(Nupn {
            safe: Some(true),
            ..Nupn::default()
        });
        let back = ok(&written(&net));
        let nupn = back.nupn.clone().unwrap();
        assert_eq!(
            (
                nupn.places,
                nupn.transitions,
                nupn.arcs,
                nupn.units,
                nupn.safe
            ),
            (Some(3), Some(2), Some(8), Some(4), Some(true))
        );
        assert_eq!(nupn.unit_tree.len(), 4, "one unit per place under a root");
        assert_eq!(back.places, net.places);
        assert_eq!(back.transitions, net.transitions);
    }
}
