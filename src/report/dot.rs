//! DOT rendering of the events an exploration visited: events as boxes `eN:transition`,
//! immediate causality as arrows, immediate conflicts as red dashed undirected edges, cutoffs
//! grey and dashed with a dotted edge to their corresponding event, events of deadlocking
//! configurations drawn in red, and the statistics in the graph label.

use std::io::Write;

use dot_writer::{Attributes, Color, DotWriter, Shape, Style};

/// One event to draw.
#[derive(Clone, Debug)]
pub struct EventNode {
    /// Its transition's name.
    pub transition: String,
    /// Immediate predecessors (event numbers, from 1).
    pub preds: Vec<u32>,
    /// Drawn grey and dashed.
    pub cutoff: bool,
    /// For a cutoff, the event it was cut against.
    pub corresponding: Option<u32>,
    /// Part of a deadlocking configuration: drawn in red.
    pub in_deadlock: bool,
}

/// What to draw: events numbered from 1 (event `i` is `nodes[i - 1]`).
#[derive(Clone, Debug, Default)]
pub struct EventGraph {
    /// The graph's caption (statistics).
    pub caption: String,
    /// The events.
    pub nodes: Vec<EventNode>,
    /// Immediate conflicts.
    pub conflicts: Vec<(u32, u32)>,
}

/// Why a rendering was refused.
#[derive(Debug, thiserror::Error)]
pub enum EventDotError {
    /// Too many nodes for GraphViz to lay out usefully.
    #[error(
        "the explored unfolding has {nodes} events, more than the DOT limit of {limit}; raise \
         --dot-limit to render it anyway"
    )]
    TooLarge {
        /// Events.
        nodes: usize,
        /// The limit.
        limit: usize,
    },
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Writes `graph` as DOT into `out`, refusing above `limit` events.
pub fn write_event_graph(
    graph: &EventGraph,
    limit: usize,
    out: &mut dyn Write,
) -> Result<(), EventDotError> {
    if graph.nodes.len() > limit {
        return Err(EventDotError::TooLarge {
            nodes: graph.nodes.len(),
            limit,
        });
    }
    let mut bytes = Vec::new();
    {
        let mut writer = DotWriter::from(&mut bytes);
        let mut g = writer.digraph();
        g.graph_attributes()
            .set("label", &quoted(&graph.caption), false)
            .set("labelloc", "t", false)
            .set_font("Helvetica");
        g.node_attributes()
            .set_shape(Shape::Rectangle)
            .set_font("Helvetica");
        for (i, n) in graph.nodes.iter().enumerate() {
            let id = i + 1;
            let mut node = g.node_named(format!("e{id}"));
            node.set("label", &quoted(&format!("e{id}:{}", n.transition)), false);
            if n.cutoff {
                node.set_style(Style::Dashed)
                    .set_color(Color::Grey)
                    .set_font_color(Color::Grey);
            } else if n.in_deadlock {
                node.set_color(Color::Red).set_pen_width(2.0);
            }
        }
        for (i, n) in graph.nodes.iter().enumerate() {
            for &p in &n.preds {
                g.edge(format!("e{p}"), format!("e{}", i + 1));
            }
            if let Some(c) = n.corresponding {
                g.edge(format!("e{}", i + 1), format!("e{c}"))
                    .attributes()
                    .set_style(Style::Dotted)
                    .set_color(Color::Grey)
                    .set("constraint", "false", false);
            }
        }
        for &(a, b) in &graph.conflicts {
            g.edge(format!("e{a}"), format!("e{b}"))
                .attributes()
                .set_style(Style::Dashed)
                .set_color(Color::Red)
                .set("dir", "none", false)
                .set("constraint", "false", false);
        }
    }
    out.write_all(&bytes)?;
    out.write_all(b"\n")?;
    Ok(())
}
