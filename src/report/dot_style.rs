//! The one visual style of every DOT drawing of an unfolding (the DPOR's explored events and
//! the complete prefix): fonts, how events and conditions are numbered and labelled, the
//! colours of cutoffs and deadlocks, the kinds of edges, and the legend. Both writers draw
//! through these functions only, so the two pictures read the same.

use dot_writer::{Attributes, Color, Scope, Shape, Style};

/// The font of every label.
pub const FONT: &str = "Helvetica";

/// The number of the first event and of the first condition in labels and node names (the
/// DPOR's log and the prefix both count from here).
pub const FIRST: u32 = 1;

/// How an event is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// An ordinary event: black box.
    Plain,
    /// A cutoff: grey and dashed.
    Cutoff,
    /// An event of a deadlocking configuration: red, thick.
    Deadlock,
}

/// A DOT string literal of `s`.
pub fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The node name of event number `n` (counted from [`FIRST`]).
pub fn event_id(n: u32) -> String {
    format!("e{n}")
}

/// The node name of condition number `n` (counted from [`FIRST`]).
pub fn condition_id(n: u32) -> String {
    format!("c{n}")
}

/// The graph's caption at the top, and the fonts and shapes of nodes and edges.
pub fn header(g: &mut Scope<'_, '_>, caption: &str) {
    g.graph_attributes()
        .set("label", &quoted(caption), false)
        .set("labelloc", "t", false)
        .set_font(FONT);
    g.node_attributes()
        .set_shape(Shape::Rectangle)
        .set_font(FONT);
    g.edge_attributes().set_font(FONT);
}

/// Event number `n` of transition `transition`: a box `eN:transition` in its kind's colours.
pub fn event(g: &mut Scope<'_, '_>, n: u32, transition: &str, kind: EventKind) {
    let mut node = g.node_named(event_id(n));
    node.set("label", &quoted(&format!("e{n}:{transition}")), false);
    match kind {
        EventKind::Plain => {}
        EventKind::Cutoff => {
            node.set_style(Style::Dashed)
                .set_color(Color::Grey)
                .set_font_color(Color::Grey);
        }
        EventKind::Deadlock => {
            node.set_color(Color::Red).set_pen_width(2.0);
        }
    }
}

/// Condition number `n`, a token on `place`: a circle `cN:place`.
pub fn condition(g: &mut Scope<'_, '_>, n: u32, place: &str) {
    g.node_named(condition_id(n)).set_shape(Shape::Circle).set(
        "label",
        &quoted(&format!("c{n}:{place}")),
        false,
    );
}

/// A flow arc (condition → event, event → condition) or an immediate causality (event →
/// event).
pub fn flow(g: &mut Scope<'_, '_>, from: String, to: String) {
    g.edge(from, to);
}

/// From a cutoff to its corresponding event: grey, dotted, and left out of the layout
/// (`constraint=false`), so that the drawing keeps the shape of the causality.
pub fn corresponding(g: &mut Scope<'_, '_>, cutoff: u32, event: u32) {
    g.edge(event_id(cutoff), event_id(event))
        .attributes()
        .set_style(Style::Dotted)
        .set_color(Color::Grey)
        .set("constraint", "false", false);
}

/// An immediate conflict between two events: red, dashed, undirected, outside the layout.
pub fn conflict(g: &mut Scope<'_, '_>, a: u32, b: u32) {
    g.edge(event_id(a), event_id(b))
        .attributes()
        .set_style(Style::Dashed)
        .set_color(Color::Red)
        .set("dir", "none", false)
        .set("constraint", "false", false);
}

/// A read arc between condition `condition` and the event `event` that reads it without
/// consuming it: undirected (`dir=none`), dashed.
pub fn read_arc(g: &mut Scope<'_, '_>, condition: u32, event: u32) {
    g.edge(condition_id(condition), event_id(event))
        .attributes()
        .set_style(Style::Dashed)
        .set("dir", "none", false);
}

/// The legend: a note naming what each look means (conditions only when the drawing has some).
pub fn legend(g: &mut Scope<'_, '_>, with_conditions: bool) {
    let mut text = String::from("eN:t  event N, an occurrence of transition t\\l");
    if with_conditions {
        text.push_str("cN:p  condition N, a token on place p\\l");
    }
    text.push_str("grey, dashed  cutoff; dotted arrow to its corresponding event\\l");
    text.push_str("red  in a deadlocking configuration\\l");
    if !with_conditions {
        text.push_str("red dashed line  immediate conflict\\l");
    }
    g.node_named("legend")
        .set("shape", "note", false)
        .set("label", &format!("\"{text}\""), false)
        .set_font_size(10.0);
}
