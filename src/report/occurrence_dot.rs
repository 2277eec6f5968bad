//! DOT rendering of an occurrence net (a prefix built by `unfold prefix`).
//!
//! Conditions are circles labelled `cN:place`, events boxes labelled `eN:transition`, both
//! numbered from [`FIRST`](super::dot_style::FIRST) as the DPOR's drawing is; cutoffs are grey
//! and dashed, with a dotted edge outside the layout to their corresponding event (none when it
//! is the initial event ⊥), a deadlocking configuration's events red. Arcs go condition → event
//! → condition. The style is `dot_style.rs`'s.

use std::io::Write;

use dot_writer::DotWriter;

use super::dot_style::{self as style, EventKind};

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

/// Renders `prefix` (of `net`) as DOT into `out`, refusing above `limit` nodes; the events of
/// `deadlock` (a deadlocking configuration, by event index) are drawn red.
pub fn write_occurrence_net(
    net: &Net,
    prefix: &Prefix,
    deadlock: &[u32],
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
    // Indices in the prefix count from 0, numbers in the drawing from FIRST.
    let number = |i: u32| i + style::FIRST;
    let mut in_deadlock = vec![false; prefix.events.len()];
    for &e in deadlock {
        if let Some(x) = in_deadlock.get_mut(e as usize) {
            *x = true;
        }
    }
    let mut bytes = Vec::new();
    {
        let mut writer = DotWriter::from(&mut bytes);
        let mut g = writer.digraph();
        style::header(&mut g, &format!("prefix of {}", net.name));
        for (i, c) in prefix.conditions.iter().enumerate() {
            style::condition(
                &mut g,
                number(i as u32),
                &net.places[c.place as usize].label,
            );
        }
        for (i, e) in prefix.events.iter().enumerate() {
            let kind = if e.cutoff {
                EventKind::Cutoff
            } else if in_deadlock[i] {
                EventKind::Deadlock
            } else {
                EventKind::Plain
            };
            let transition = &net.transitions[e.transition as usize].label;
            style::event(&mut g, number(i as u32), transition, kind);
        }
        for (i, e) in prefix.events.iter().enumerate() {
            let ev = i as u32;
            for &b in prefix.preset(ev) {
                style::flow(
                    &mut g,
                    style::condition_id(number(b)),
                    style::event_id(number(ev)),
                );
            }
            for c in prefix.postset(ev) {
                style::flow(
                    &mut g,
                    style::event_id(number(ev)),
                    style::condition_id(number(c)),
                );
            }
            if e.cutoff && e.corresponding != NONE {
                style::corresponding(&mut g, number(ev), number(e.corresponding));
            }
        }
        style::legend(&mut g, true);
    }
    out.write_all(&bytes)?;
    out.write_all(b"\n")?;
    Ok(())
}
