//! DOT rendering of a contextual occurrence net (a prefix built by `unfold prefix` on a net
//! with read arcs).
//!
//! As for plain prefixes, conditions are circles labelled with their place and events boxes
//! labelled `eN:transition`, here with their number of histories when it is above one; read
//! arcs are undirected edges (`dir=none`). An event all of whose histories are cutoffs is grey
//! and dashed.

use std::io::Write;

use dot_writer::{Attributes, Color, DotWriter, Shape, Style};

use crate::explore::contextual::{ContextualPrefix, HistoryState};
use crate::model::net::Net;

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Renders `prefix` (of `net`) as DOT into `out` (the caller checks the size limit).
pub fn write_contextual_net(
    net: &Net,
    prefix: &ContextualPrefix,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut bytes = Vec::new();
    {
        let mut writer = DotWriter::from(&mut bytes);
        let mut g = writer.digraph();
        g.graph_attributes()
            .set_label(&escape(&format!("contextual prefix of {}", net.name)));
        for (i, c) in prefix.conditions.iter().enumerate() {
            let mut n = g.node_named(format!("c{i}"));
            n.set_shape(Shape::Circle)
                .set_label(&escape(&net.places[c.place as usize].label));
        }
        for (i, e) in prefix.events.iter().enumerate() {
            let histories = e
                .histories
                .iter()
                .filter(|&&h| prefix.histories[h as usize].state != HistoryState::Queued)
                .count();
            let t = &net.transitions[e.transition as usize].label;
            let label = if histories > 1 {
                format!("e{i}:{t} ({histories} histories)")
            } else {
                format!("e{i}:{t}")
            };
            let mut n = g.node_named(format!("e{i}"));
            n.set_shape(Shape::Rectangle).set_label(&escape(&label));
            if e.cutoff {
                n.set_style(Style::Dashed)
                    .set_color(Color::Grey)
                    .set_font_color(Color::Grey);
            }
        }
        for (i, e) in prefix.events.iter().enumerate() {
            for &b in &e.preset {
                g.edge(format!("c{b}"), format!("e{i}"));
            }
            for &c in &e.context {
                g.edge(format!("c{c}"), format!("e{i}"))
                    .attributes()
                    .set("dir", "none", false);
            }
            for &c in &e.postset {
                g.edge(format!("e{i}"), format!("c{c}"));
            }
        }
    }
    out.write_all(&bytes)?;
    out.write_all(b"\n")
}
