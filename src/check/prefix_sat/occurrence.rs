//! The occurrence net the encoding reads: a plain complete prefix (read arcs unfolded as
//! self-loops) or a contextual one (read arcs as contexts), seen through the few questions
//! the clauses ask.
//!
//! Both are occurrence nets whose events consume a preset and produce a postset; a contextual
//! event also reads a context. What differs is which events take part and what orders them:
//!
//! * plain: the non-cutoff events; an event follows the producers of its preset;
//! * contextual: the events with a history that is not a cutoff (Cunf's completeness: every
//!   reachable marking is the marking of a configuration each of whose events has a history
//!   in it that is not a cutoff, and such an event has a kept history); an event follows the
//!   producers of its preset and of its context, and a reader of a condition precedes its
//!   consumer (asymmetric conflict).

use std::borrow::Cow;
use std::ops::Range;

use crate::explore::contextual::ContextualPrefix;
use crate::explore::prefix::{NONE, Prefix};
use crate::model::net::{PlaceIdx, TransIdx};

/// A complete prefix, plain or contextual.
#[derive(Clone, Copy)]
pub(super) enum Occurrence<'a> {
    /// The plain prefix: read arcs were unfolded as self-loops.
    Plain(&'a Prefix),
    /// The contextual prefix: read arcs are contexts.
    Contextual(&'a ContextualPrefix),
}

impl<'a> Occurrence<'a> {
    /// Number of events (usable or not).
    pub(super) fn events(self) -> u32 {
        match self {
            Occurrence::Plain(p) => p.events.len() as u32,
            Occurrence::Contextual(p) => p.events.len() as u32,
        }
    }

    /// Number of conditions.
    pub(super) fn conditions(self) -> u32 {
        match self {
            Occurrence::Plain(p) => p.conditions.len() as u32,
            Occurrence::Contextual(p) => p.conditions.len() as u32,
        }
    }

    /// Number of initial conditions (ids `0..initial`).
    pub(super) fn initial(self) -> u32 {
        match self {
            Occurrence::Plain(p) => p.initial,
            Occurrence::Contextual(p) => p.initial,
        }
    }

    /// Whether configurations may contain `e` (see the module's documentation).
    pub(super) fn usable(self, e: u32) -> bool {
        match self {
            Occurrence::Plain(p) => !p.events[e as usize].cutoff,
            Occurrence::Contextual(p) => !p.events[e as usize].cutoff,
        }
    }

    /// The transition of `e`.
    pub(super) fn transition(self, e: u32) -> TransIdx {
        match self {
            Occurrence::Plain(p) => p.events[e as usize].transition,
            Occurrence::Contextual(p) => p.events[e as usize].transition,
        }
    }

    /// The place of condition `c`.
    pub(super) fn place(self, c: u32) -> PlaceIdx {
        match self {
            Occurrence::Plain(p) => p.conditions[c as usize].place,
            Occurrence::Contextual(p) => p.conditions[c as usize].place,
        }
    }

    /// The producer of condition `c`, [`NONE`] for an initial one.
    pub(super) fn producer(self, c: u32) -> u32 {
        match self {
            Occurrence::Plain(p) => p.conditions[c as usize].producer,
            Occurrence::Contextual(p) => p.conditions[c as usize].producer,
        }
    }

    /// The conditions `e` consumes.
    pub(super) fn preset(self, e: u32) -> &'a [u32] {
        match self {
            Occurrence::Plain(p) => p.preset(e),
            Occurrence::Contextual(p) => &p.events[e as usize].preset,
        }
    }

    /// The conditions `e` reads (none in a plain prefix).
    pub(super) fn context(self, e: u32) -> &'a [u32] {
        match self {
            Occurrence::Plain(_) => &[],
            Occurrence::Contextual(p) => &p.events[e as usize].context,
        }
    }

    /// The conditions `e` produces.
    pub(super) fn postset(self, e: u32) -> Postset<'a> {
        match self {
            Occurrence::Plain(p) => Postset::Range(p.postset(e)),
            Occurrence::Contextual(p) => Postset::Listed(p.events[e as usize].postset.iter()),
        }
    }

    /// The distinct immediate causes of `e`: the producers of its preset and context, the
    /// initial event left out.
    pub(super) fn causes(self, e: u32) -> Cow<'a, [u32]> {
        match self {
            Occurrence::Plain(p) => Cow::Borrowed(p.causes(e)),
            Occurrence::Contextual(_) => {
                let mut out: Vec<u32> = self
                    .preset(e)
                    .iter()
                    .chain(self.context(e))
                    .map(|&c| self.producer(c))
                    .filter(|&f| f != NONE)
                    .collect();
                out.sort_unstable();
                out.dedup();
                Cow::Owned(out)
            }
        }
    }

    /// Whether the prefix has read arcs as contexts (so asymmetric conflict orders events).
    pub(super) fn contextual(self) -> bool {
        matches!(self, Occurrence::Contextual(_))
    }
}

/// The postset of an event: a range of condition ids (plain) or a list (contextual).
pub(super) enum Postset<'a> {
    /// Consecutive ids.
    Range(Range<u32>),
    /// Listed ids.
    Listed(std::slice::Iter<'a, u32>),
}

impl Iterator for Postset<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        match self {
            Postset::Range(r) => r.next(),
            Postset::Listed(l) => l.next().copied(),
        }
    }
}
