//! DOT rendering of a contextual occurrence net (a prefix built by `unfold prefix` on a net
//! with read arcs), in the style of every other drawing ([`super::dot_style`]).
//!
//! Conditions are circles `cN:place`, events boxes `eN:transition`, with their number of
//! histories when it is above one; read arcs are undirected dashed edges. An event all of whose
//! histories are cutoffs is grey and dashed; the events of a deadlocking configuration are red.

use std::io::Write;

use dot_writer::DotWriter;

use super::dot_style::{self as style, EventKind};
use crate::explore::contextual::{ContextualPrefix, HistoryState};
use crate::model::net::Net;

/// Renders `prefix` (of `net`) as DOT into `out`; the events of `deadlock` (by index) are
/// drawn red. The caller checks the size limit.
pub fn write_contextual_net(
    net: &Net,
    prefix: &ContextualPrefix,
    deadlock: &[u32],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let number = |i: u32| i + style::FIRST;
    let mut bytes = Vec::new();
    {
        let mut writer = DotWriter::from(&mut bytes);
        let mut g = writer.digraph();
        style::header(&mut g, &format!("contextual prefix of {}", net.name));
        for (i, c) in prefix.conditions.iter().enumerate() {
            let place = &net.places[c.place as usize].label;
            style::condition(&mut g, number(i as u32), place);
        }
        for (i, e) in prefix.events.iter().enumerate() {
            let histories = e
                .histories
                .iter()
                .filter(|&&h| prefix.histories[h as usize].state != HistoryState::Queued)
                .count();
            let t = &net.transitions[e.transition as usize].label;
            let label = if histories > 1 {
                format!("{t} ({histories} histories)")
            } else {
                t.to_string()
            };
            let kind = if e.cutoff {
                EventKind::Cutoff
            } else if deadlock.contains(&(i as u32)) {
                EventKind::Deadlock
            } else {
                EventKind::Plain
            };
            style::event(&mut g, number(i as u32), &label, kind);
        }
        for (i, e) in prefix.events.iter().enumerate() {
            let ev = number(i as u32);
            for &b in &e.preset {
                style::flow(&mut g, style::condition_id(number(b)), style::event_id(ev));
            }
            for &c in &e.context {
                style::read_arc(&mut g, number(c), ev);
            }
            for &c in &e.postset {
                style::flow(&mut g, style::event_id(ev), style::condition_id(number(c)));
            }
        }
        style::legend(&mut g, true);
    }
    out.write_all(&bytes)?;
    out.write_all(b"\n")
}
