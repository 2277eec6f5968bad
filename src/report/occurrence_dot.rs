//! DOT rendering of an occurrence net (a prefix built by `unfold prefix`).
//!
//! Conditions are circles labelled with their place, events boxes labelled `eN:transition`;
//! cutoffs are grey and dashed, with a dotted edge to their corresponding event (none when it is
//! the initial event ⊥). Arcs go condition → event → condition.

use std::io::Write;

use dot_writer::{Attributes, Color, DotWriter, Shape, Style};

use crate::explore::prefix::{NONE, Prefix};
use crate::model::net::Net;

/// Why a rendering was refused.
#[derive(Debug, thiserror::Error)]
pub enum DotError {
    /// Too many nodes.
    #[error("{}", crate::report::dot::refusal(
        &format!("the occurrence net ({conditions} conditions, {events} events)"),
        *nodes,
        *limit
    ))]
    TooLarge {
        /// Conditions + events.
        nodes: usize,
        /// Conditions.
        conditions: usize,
        /// Events.
        events: usize,
        /// The limit.
        limit: usize,
    },
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Renders `prefix` (of `net`) as DOT into `out`, refusing above `limit` nodes.
pub fn write_occurrence_net(
    net: &Net,
    prefix: &Prefix,
    limit: usize,
    out: &mut dyn Write,
) -> Result<(), DotError> {
    let nodes = prefix.conditions.len() + prefix.events.len();
    if nodes > limit {
        return Err(DotError::TooLarge {
            nodes,
            conditions: prefix.conditions.len(),
            events: prefix.events.len(),
            limit,
        });
    }
    let mut bytes = Vec::new();
    {
        let mut writer = DotWriter::from(&mut bytes);
        let mut g = writer.digraph();
        g.graph_attributes()
            .set_label(&escape(&format!("prefix of {}", net.name)));
        for (i, c) in prefix.conditions.iter().enumerate() {
            let mut n = g.node_named(format!("c{i}"));
            n.set_shape(Shape::Circle)
                .set_label(&escape(&net.places[c.place as usize].label));
        }
        for (i, e) in prefix.events.iter().enumerate() {
            let label = format!("e{}:{}", i, net.transitions[e.transition as usize].label);
            let mut n = g.node_named(format!("e{i}"));
            n.set_shape(Shape::Rectangle).set_label(&escape(&label));
            if e.cutoff {
                n.set_style(Style::Dashed)
                    .set_color(Color::Grey)
                    .set_font_color(Color::Grey);
            }
        }
        for (i, e) in prefix.events.iter().enumerate() {
            let ev = i as u32;
            for &b in prefix.preset(ev) {
                g.edge(format!("c{b}"), format!("e{i}"));
            }
            for c in prefix.postset(ev) {
                g.edge(format!("e{i}"), format!("c{c}"));
            }
            if e.cutoff && e.corresponding != NONE {
                g.edge(format!("e{i}"), format!("e{}", e.corresponding))
                    .attributes()
                    .set_style(Style::Dotted)
                    .set_color(Color::Grey)
                    .set("constraint", "false", false);
            }
        }
    }
    out.write_all(&bytes)?;
    out.write_all(b"\n")?;
    Ok(())
}
