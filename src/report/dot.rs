//! DOT rendering of the events an exploration visited: events as boxes `eN:transition`,
//! immediate causality as arrows, immediate conflicts as red dashed undirected edges, cutoffs
//! grey and dashed with a dotted edge to their corresponding event, events of deadlocking
//! configurations drawn in red, the statistics in the graph label and a legend, all in the
//! style of `dot_style.rs`, which the prefix's drawing shares.
//!
//! For safe nets there is also the occurrence-net view (`--dot-conditions`), as Cunf and Mole
//! draw prefixes: conditions as circles between the events, arcs condition → event → condition,
//! read arcs as undirected dashed edges; causality and conflict are then read off the
//! conditions.

use std::io::Write;

use dot_writer::DotWriter;

use super::dot_style::{self as style, EventKind};

use crate::explore::udpor::ExploredEvent;
use crate::model::net::Net;

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

/// What to draw: events numbered from 1, the DPOR log's numbering and
/// [`FIRST`](super::dot_style::FIRST) (event `i` is `nodes[i - 1]`).
#[derive(Clone, Debug, Default)]
pub struct EventGraph {
    /// The graph's caption (statistics).
    pub caption: String,
    /// The events.
    pub nodes: Vec<EventNode>,
    /// Immediate conflicts.
    pub conflicts: Vec<(u32, u32)>,
    /// Conditions, for the occurrence-net view; when empty, events are linked directly.
    pub conditions: Vec<ConditionNode>,
}

/// A condition of the occurrence-net view: a token on a place, put there by one event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionNode {
    /// The place's name.
    pub place: String,
    /// The event that produced it (0: the initial marking).
    pub producer: u32,
    /// The events that consume it.
    pub consumers: Vec<u32>,
    /// The events that read it without consuming it.
    pub readers: Vec<u32>,
}

/// Why the occurrence-net view cannot be drawn.
#[derive(Debug, thiserror::Error)]
#[error(
    "--dot-conditions draws safe nets only: place {place} holds {tokens} tokens initially or an arc of {transition} has weight above 1"
)]
pub struct NotSafe {
    /// A place with more than one token or on a weighted arc.
    pub place: String,
    /// Its initial tokens.
    pub tokens: u32,
    /// A transition with a weighted arc on it (or empty).
    pub transition: String,
}

/// The conditions of the explored events of a safe `net` (events numbered from 1 as in
/// `events`). The token an event takes from place `p` was put there by the last event of its
/// history that changed `p` (in a safe net the changers of a place are totally ordered in
/// every configuration, and a log id is larger than its causes'), or by the initial marking.
pub fn net_conditions(net: &Net, events: &[ExploredEvent]) -> Result<Vec<ConditionNode>, NotSafe> {
    for (p, place) in net.places.iter().enumerate() {
        let weighted = net.transitions.iter().find(|t| {
            t.pre
                .iter()
                .chain(&t.post)
                .chain(&t.reads)
                .any(|a| a.place as usize == p && a.weight > 1)
        });
        if place.initial > 1 || weighted.is_some() {
            return Err(NotSafe {
                place: place.label.to_string(),
                tokens: place.initial,
                transition: weighted.map_or(String::new(), |t| t.label.to_string()),
            });
        }
    }
    let changes = |t: usize, p: u32| {
        let tr = &net.transitions[t];
        let w = |arcs: &[crate::model::net::Arc]| {
            arcs.iter().find(|a| a.place == p).map_or(0, |a| a.weight)
        };
        w(&tr.pre) != w(&tr.post)
    };
    let mut index: rustc_hash::FxHashMap<(u32, u32), usize> = rustc_hash::FxHashMap::default();
    let mut conditions: Vec<ConditionNode> = Vec::new();
    let mut condition = |producer: u32, place: u32, conditions: &mut Vec<ConditionNode>| {
        *index.entry((producer, place)).or_insert_with(|| {
            conditions.push(ConditionNode {
                place: net.places[place as usize].label.to_string(),
                producer,
                consumers: Vec::new(),
                readers: Vec::new(),
            });
            conditions.len() - 1
        })
    };
    for (p, place) in net.places.iter().enumerate() {
        if place.initial > 0 {
            condition(0, p as u32, &mut conditions);
        }
    }
    for (i, e) in events.iter().enumerate() {
        let id = i as u32 + 1;
        let t = &net.transitions[e.label as usize];
        // The strict past of e, by walking the predecessors.
        let mut past: Vec<u32> = Vec::new();
        let mut stack: Vec<u32> = e.preds.clone();
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some(x) = stack.pop() {
            if seen.insert(x) {
                past.push(x);
                stack.extend_from_slice(&events[x as usize - 1].preds);
            }
        }
        let producer_of = |p: u32| {
            past.iter()
                .copied()
                .filter(|&x| changes(events[x as usize - 1].label as usize, p))
                .max()
                .unwrap_or(0)
        };
        for a in t.pre.iter().chain(&t.reads) {
            let c = condition(producer_of(a.place), a.place, &mut conditions);
            let consumed = changes(e.label as usize, a.place);
            let list = if consumed {
                &mut conditions[c].consumers
            } else {
                &mut conditions[c].readers
            };
            if !list.contains(&id) {
                list.push(id);
            }
        }
        for a in &t.post {
            if changes(e.label as usize, a.place) {
                condition(id, a.place, &mut conditions);
            }
        }
    }
    Ok(conditions)
}

/// What is said of a drawing of `nodes` nodes refused under `--dot-limit limit`: the size,
/// the limit, and the option that draws it.
pub fn refusal(what: &str, nodes: usize, limit: usize) -> String {
    format!(
        "{what} has {nodes} nodes, more than --dot-limit {limit}: not drawn \
         (--dot-limit {nodes} draws it)"
    )
}

/// What is said at once of a drawing that passed `--dot-limit limit` while it grows.
pub fn refusal_ahead(what: &str, limit: usize) -> String {
    format!(
        "{what} has passed --dot-limit {limit} nodes: it will not be drawn; the run goes on \
         (a larger --dot-limit N draws up to N nodes)"
    )
}

/// Why a rendering was refused.
#[derive(Debug, thiserror::Error)]
pub enum EventDotError {
    /// Too many nodes for GraphViz to lay out usefully.
    #[error("{}", refusal("the explored unfolding", *nodes, *limit))]
    TooLarge {
        /// Events (and conditions).
        nodes: usize,
        /// The limit.
        limit: usize,
    },
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Writes `graph` as DOT into `out`, refusing above `limit` events.
pub fn write_event_graph(
    graph: &EventGraph,
    limit: usize,
    out: &mut dyn Write,
) -> Result<(), EventDotError> {
    let nodes = graph.nodes.len() + graph.conditions.len();
    if nodes > limit {
        return Err(EventDotError::TooLarge { nodes, limit });
    }
    let occurrence_net = !graph.conditions.is_empty();
    let mut bytes = Vec::new();
    {
        let mut writer = DotWriter::from(&mut bytes);
        let mut g = writer.digraph();
        style::header(&mut g, &graph.caption);
        for (i, n) in graph.nodes.iter().enumerate() {
            let kind = if n.cutoff {
                EventKind::Cutoff
            } else if n.in_deadlock {
                EventKind::Deadlock
            } else {
                EventKind::Plain
            };
            style::event(&mut g, i as u32 + 1, &n.transition, kind);
        }
        for (i, c) in graph.conditions.iter().enumerate() {
            let number = i as u32 + style::FIRST;
            style::condition(&mut g, number, &c.place);
            if c.producer != 0 {
                style::flow(
                    &mut g,
                    style::event_id(c.producer),
                    style::condition_id(number),
                );
            }
            for &e in &c.consumers {
                style::flow(&mut g, style::condition_id(number), style::event_id(e));
            }
            for &e in &c.readers {
                style::read_arc(&mut g, number, e);
            }
        }
        for (i, n) in graph.nodes.iter().enumerate() {
            let id = i as u32 + 1;
            if !occurrence_net {
                for &p in &n.preds {
                    style::flow(&mut g, style::event_id(p), style::event_id(id));
                }
            }
            if let Some(c) = n.corresponding {
                style::corresponding(&mut g, id, c);
            }
        }
        // In the occurrence-net view, conflicts show as conditions with several consumers.
        for &(a, b) in graph.conflicts.iter().filter(|_| !occurrence_net) {
            style::conflict(&mut g, a, b);
        }
        style::legend(&mut g, occurrence_net);
    }
    out.write_all(&bytes)?;
    out.write_all(b"\n")?;
    Ok(())
}
