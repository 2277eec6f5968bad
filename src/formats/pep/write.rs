//! The PEP writer: a net as a PEP low-level net, numbered in model order (see the module
//! documentation of [`super`]).

use std::io::Write;

use crate::model::net::Net;

/// Writes `net` as a PEP low-level net, numbering places and transitions from 1 in model order
/// (see the [module documentation](super)).
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::formats::pep::parse;
    use crate::model::net::{ArcKind, NetBuilder};

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
        let net = parse(
            b"PEP\nPTNet\nFORMAT_N\nPL\n\"a\"\nTR\n\"t\"\nTP\n1<1\nPT\n",
            Path::new("t.ll_net"),
        )
        .unwrap();
        let mut out = Vec::new();
        write(&net, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains("RA"), "{text}");
        assert!(text.ends_with("TP\n1<1\nPT\n"), "{text}");
    }
}
