//! The binary `.mci` format of PEP, Mole and Punf: a prefix that their checkers (deadlock and
//! reachability checkers of the Model-Checking Kit, `mci2dot`, Cunf's `prcompress`) read.
//!
//! Every number is a 32-bit little-endian integer; events, conditions, places and transitions
//! are numbered from 1 (0 ends a list or means "none"):
//!
//! ```text
//! #conditions #events
//! for each event:      its transition
//! for each condition:  its place, its producing event (0: initial), its consumers..., 0
//! for each cutoff:     the cutoff, its corresponding event (0: the initial event ⊥); then 0
//! 0                    (an empty list of further data)
//! #places #transitions length-of-the-longest-name
//! place names, each NUL-terminated, then one more NUL
//! transition names, each NUL-terminated, then one more NUL
//! ```
//!
//! The checkers expect events numbered in a causal order (causes before their effects). Like
//! Mole we number the non-cutoff events first, in the order they entered the prefix, then the
//! cutoffs (which cause nothing); conditions follow: the initial ones, then the postsets of the
//! events in their new order. Places and transitions are numbered in file order.
//! [`crate::formats::mci`] reads such files back.

use std::io::{self, Write};

use crate::explore::prefix::{NONE, Prefix};
use crate::model::net::Net;

/// Writes `prefix` (of `net`) in the `.mci` format to `out`.
pub fn write_mci(net: &Net, prefix: &Prefix, out: &mut dyn Write) -> io::Result<()> {
    let n_events = prefix.events.len();
    // Event numbering: non-cutoffs first, then cutoffs, each in prefix order.
    let order: Vec<u32> = (0..n_events as u32)
        .filter(|&e| !prefix.events[e as usize].cutoff)
        .chain((0..n_events as u32).filter(|&e| prefix.events[e as usize].cutoff))
        .collect();
    let mut ev_num = vec![0u32; n_events];
    for (i, &e) in order.iter().enumerate() {
        ev_num[e as usize] = i as u32 + 1;
    }
    // Condition numbering: initial ones, then postsets in the new event order.
    let conds: Vec<u32> = (0..prefix.initial)
        .chain(order.iter().flat_map(|&e| prefix.postset(e)))
        .collect();
    let mut consumers = prefix.consumers();
    for list in &mut consumers {
        for e in list.iter_mut() {
            *e = ev_num[*e as usize];
        }
        list.sort_unstable();
    }

    let mut w = Words::new(out);
    w.int(to_u32(conds.len())?)?;
    w.int(to_u32(n_events)?)?;
    for &e in &order {
        w.int(prefix.events[e as usize].transition + 1)?;
    }
    for &c in &conds {
        let cond = prefix.conditions[c as usize];
        w.int(cond.place + 1)?;
        w.int(if cond.producer == NONE {
            0
        } else {
            ev_num[cond.producer as usize]
        })?;
        for &e in &consumers[c as usize] {
            w.int(e)?;
        }
        w.int(0)?;
    }
    for &e in &order {
        let ev = &prefix.events[e as usize];
        if ev.cutoff {
            w.int(ev_num[e as usize])?;
            w.int(if ev.corresponding == NONE {
                0
            } else {
                ev_num[ev.corresponding as usize]
            })?;
        }
    }
    w.int(0)?;
    w.int(0)?;
    w.int(to_u32(net.places.len())?)?;
    w.int(to_u32(net.transitions.len())?)?;
    let longest = net
        .places
        .iter()
        .map(|p| p.label.len())
        .chain(net.transitions.iter().map(|t| t.label.len()))
        .max()
        .unwrap_or(0);
    w.int(to_u32(longest)?)?;
    for name in net.places.iter().map(|p| &p.label) {
        w.name(name)?;
    }
    w.name("")?;
    for name in net.transitions.iter().map(|t| &t.label) {
        w.name(name)?;
    }
    w.name("")?;
    w.out.flush()
}

fn to_u32(n: usize) -> io::Result<u32> {
    u32::try_from(n).map_err(|_| io::Error::other("too many nodes for the .mci format"))
}

/// Little-endian words and NUL-terminated names, buffered.
struct Words<'a> {
    out: io::BufWriter<&'a mut dyn Write>,
}

impl<'a> Words<'a> {
    fn new(out: &'a mut dyn Write) -> Self {
        Words {
            out: io::BufWriter::new(out),
        }
    }

    fn int(&mut self, v: u32) -> io::Result<()> {
        self.out.write_all(&v.to_le_bytes())
    }

    /// A name; an interior NUL (impossible in PEP names) would cut it, so it is dropped.
    fn name(&mut self, s: &str) -> io::Result<()> {
        self.out.write_all(s.replace('\0', "").as_bytes())?;
        self.out.write_all(&[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::limits::Limits;
    use crate::explore::prefix::{self, PrefixOptions};
    use crate::model::net::{ArcKind, NetBuilder};

    fn words(bytes: &[u8], n: usize) -> Vec<u32> {
        bytes
            .chunks_exact(4)
            .take(n)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// p -> a -> q -> b -> p: events a (1), b (2, a cutoff back to the initial marking).
    #[test]
    fn cycle_layout() {
        let mut b = NetBuilder::new("cycle");
        let p = b.add_place("p", None, 1).unwrap();
        let q = b.add_place("q", None, 0).unwrap();
        let a = b.add_transition("a", None).unwrap();
        let bb = b.add_transition("b", None).unwrap();
        b.add_arc(p, a, ArcKind::Input, 1).unwrap();
        b.add_arc(q, a, ArcKind::Output, 1).unwrap();
        b.add_arc(q, bb, ArcKind::Input, 1).unwrap();
        b.add_arc(p, bb, ArcKind::Output, 1).unwrap();
        let net = b.finish();
        let r = prefix::explore(
            &net,
            &PrefixOptions::default(),
            &Limits::default(),
            &mut |_| {},
        )
        .unwrap();
        let mut out = Vec::new();
        write_mci(&net, &r.prefix, &mut out).unwrap();
        #[rustfmt::skip]
        let expected = [
            3, 2,          // conditions, events
            1, 2,          // event 1 is a, event 2 is b
            1, 0, 1, 0,    // c1: p, initial, consumed by e1
            2, 1, 2, 0,    // c2: q, from e1, consumed by e2
            1, 2, 0,       // c3: p, from e2
            2, 0, 0,       // e2 is a cutoff of ⊥; end of cutoffs
            0,             // no further data
            2, 2, 1,       // places, transitions, longest name
        ];
        assert_eq!(words(&out, expected.len()), expected);
        assert_eq!(&out[expected.len() * 4..], b"p\0q\0\0a\0b\0\0");
    }
}
