//! Reader of the binary `.mci` format of PEP, Mole and Punf: the complete prefixes these
//! unfolders write (and `unfold prefix --mci`, see [`crate::report::mci`]), read back so that
//! their sizes can be compared with ours and their structure checked.
//!
//! Every number is a 32-bit little-endian integer; events, conditions, places and transitions
//! are numbered from 1 (0 ends a list or means "none"):
//!
//! ```text
//! #conditions #events
//! for each event:      its transition
//! for each condition:  its place, its producing event (0: initial), its consumers..., 0
//! for each cutoff:     the cutoff, its corresponding event (0: the initial event ⊥); then 0
//! for each configuration: its events..., 0; then 0   (none in Mole's, Punf's and ours)
//! #places #transitions length-of-the-longest-name
//! place names, each NUL-terminated, then one more NUL
//! transition names, each NUL-terminated, then one more NUL
//! ```
//!
//! This is the layout of Punf's published description of the format (`mci_format.txt`) and of
//! what Mole writes. The reader checks that every number it can check refers to something in
//! the file (events, places, transitions) and reports the byte offset of the first value that
//! does not. The corresponding event of a cutoff is kept as written: Punf writes `0xFFFFFFFF`
//! when it is not a local configuration's event.

use std::fmt;
use std::path::Path;

use super::{Position, ReadError, load};

/// A condition of an `.mci` prefix (numbers as in the file).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MciCondition {
    /// Its place, from 1.
    pub place: u32,
    /// The event that produces it, from 1; 0 for an initial condition.
    pub producer: u32,
    /// The events that consume it, from 1, in file order.
    pub consumers: Vec<u32>,
}

/// A cutoff of an `.mci` prefix (numbers as in the file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MciCutoff {
    /// The cutoff event, from 1.
    pub event: u32,
    /// Its corresponding event, from 1; 0 for the initial event ⊥.
    pub corresponding: u32,
}

/// A prefix read from an `.mci` file. Event `k` of the file is `events[k - 1]`, condition `k`
/// is `conditions[k - 1]`; places and transitions likewise.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mci {
    /// The transition of each event, from 1.
    pub events: Vec<u32>,
    /// The conditions.
    pub conditions: Vec<MciCondition>,
    /// The cutoffs, in file order.
    pub cutoffs: Vec<MciCutoff>,
    /// The configurations listed after the cutoffs (event numbers; none in the files of Mole,
    /// Punf and unfold).
    pub configurations: Vec<Vec<u32>>,
    /// The length of the longest place or transition name, as the file states it.
    pub longest_name: u32,
    /// The place names (bytes that are not UTF-8 replaced).
    pub places: Vec<String>,
    /// The transition names.
    pub transitions: Vec<String>,
}

impl Mci {
    /// Events, cutoffs included.
    pub fn event_count(&self) -> usize {
        self.events.len()
    }

    /// Conditions.
    pub fn condition_count(&self) -> usize {
        self.conditions.len()
    }

    /// Cutoff events.
    pub fn cutoff_count(&self) -> usize {
        self.cutoffs.len()
    }
}

/// What is wrong at a place in an `.mci` file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MciErrorKind {
    /// The file ends before the value it must hold there.
    #[error("the file ends inside {0}")]
    Truncated(&'static str),
    /// A number refers to nothing in the file.
    #[error("{what} is {value}, outside 1..={max}")]
    OutOfRange {
        /// What the number names ("the transition of event 3").
        what: String,
        /// The number.
        value: u32,
        /// The largest number allowed.
        max: u32,
    },
    /// A list of names does not end with an empty name.
    #[error("the {0} names are not closed by an empty name")]
    Unclosed(&'static str),
    /// Bytes after the transition names.
    #[error("{0} bytes after the end of the transition names")]
    Trailing(u64),
}

/// Why bytes are not an `.mci` prefix: what is wrong and the byte offset where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct MciError {
    /// The 0-based byte offset of the value in question.
    pub offset: u64,
    /// What is wrong.
    pub kind: MciErrorKind,
}

impl fmt::Display for MciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.kind)
    }
}

/// Reads the bytes of an `.mci` file.
pub fn parse(bytes: &[u8]) -> Result<Mci, MciError> {
    let mut r = Reader { bytes, pos: 0 };
    let n_conditions = r.int("the number of conditions")?;
    let n_events = r.int("the number of events")?;
    // Capacities from the file's own sizes, but never more than the bytes can hold: a corrupt
    // header must not allocate gigabytes.
    let room = bytes.len() / 4;
    let mut mci = Mci {
        events: Vec::with_capacity((n_events as usize).min(room)),
        conditions: Vec::with_capacity((n_conditions as usize).min(room)),
        ..Mci::default()
    };
    // Transition and place numbers are checked once their counts (at the end) are known.
    let mut transition_at = Vec::with_capacity(mci.events.capacity());
    for _ in 0..n_events {
        transition_at.push(r.pos);
        mci.events.push(r.int("the transitions of the events")?);
    }
    let mut place_at = Vec::with_capacity(mci.conditions.capacity());
    for _ in 0..n_conditions {
        place_at.push(r.pos);
        let place = r.int("the place of a condition")?;
        let producer = r.event_or_end(n_events, "the producer of a condition")?;
        let mut consumers = Vec::new();
        loop {
            match r.event_or_end(n_events, "the consumers of a condition")? {
                0 => break,
                e => consumers.push(e),
            }
        }
        mci.conditions.push(MciCondition {
            place,
            producer,
            consumers,
        });
    }
    loop {
        match r.event_or_end(n_events, "a cutoff")? {
            0 => break,
            event => {
                let corresponding = r.int("the corresponding event of a cutoff")?;
                mci.cutoffs.push(MciCutoff {
                    event,
                    corresponding,
                });
            }
        }
    }
    loop {
        let mut config = Vec::new();
        loop {
            match r.event_or_end(n_events, "a configuration")? {
                0 => break,
                e => config.push(e),
            }
        }
        if config.is_empty() {
            break;
        }
        mci.configurations.push(config);
    }
    let n_places = r.int("the number of places")?;
    let n_transitions = r.int("the number of transitions")?;
    mci.longest_name = r.int("the length of the longest name")?;
    mci.places = r.names(n_places, "place")?;
    mci.transitions = r.names(n_transitions, "transition")?;
    if r.pos < bytes.len() {
        return Err(r.error(MciErrorKind::Trailing((bytes.len() - r.pos) as u64)));
    }
    for (k, (&t, &at)) in mci.events.iter().zip(&transition_at).enumerate() {
        check_range(t, n_transitions, at, || {
            format!("the transition of event {}", k + 1)
        })?;
    }
    for (k, (c, &at)) in mci.conditions.iter().zip(&place_at).enumerate() {
        check_range(c.place, n_places, at, || {
            format!("the place of condition {}", k + 1)
        })?;
    }
    Ok(mci)
}

/// Reads an `.mci` file; errors name the file and the byte offset.
pub fn read_mci(path: &Path) -> Result<Mci, ReadError> {
    let bytes = load(path)?;
    parse(&bytes).map_err(|e| {
        ReadError::parse(
            path,
            Some(Position::Byte(e.offset)),
            format!("not an .mci prefix: {}", e.kind),
        )
    })
}

fn check_range(
    value: u32,
    max: u32,
    at: usize,
    what: impl FnOnce() -> String,
) -> Result<(), MciError> {
    if (1..=max).contains(&value) {
        Ok(())
    } else {
        Err(MciError {
            offset: at as u64,
            kind: MciErrorKind::OutOfRange {
                what: what(),
                value,
                max,
            },
        })
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn error(&self, kind: MciErrorKind) -> MciError {
        MciError {
            offset: self.pos as u64,
            kind,
        }
    }

    fn int(&mut self, what: &'static str) -> Result<u32, MciError> {
        let Some(b) = self.bytes.get(self.pos..self.pos + 4) else {
            return Err(self.error(MciErrorKind::Truncated(what)));
        };
        self.pos += 4;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// An event number, or 0 (for "none" or the end of a list).
    fn event_or_end(&mut self, n_events: u32, what: &'static str) -> Result<u32, MciError> {
        let at = self.pos;
        let v = self.int(what)?;
        if v > n_events {
            return Err(MciError {
                offset: at as u64,
                kind: MciErrorKind::OutOfRange {
                    what: what.to_string(),
                    value: v,
                    max: n_events,
                },
            });
        }
        Ok(v)
    }

    /// One NUL-terminated name.
    fn name(&mut self, what: &'static str) -> Result<String, MciError> {
        let rest = &self.bytes[self.pos..];
        let Some(len) = rest.iter().position(|&b| b == 0) else {
            return Err(self.error(MciErrorKind::Truncated(what)));
        };
        let name = String::from_utf8_lossy(&rest[..len]).into_owned();
        self.pos += len + 1;
        Ok(name)
    }

    /// `count` names, then the empty name that closes the list.
    fn names(&mut self, count: u32, kind: &'static str) -> Result<Vec<String>, MciError> {
        let what = if kind == "place" {
            "the place names"
        } else {
            "the transition names"
        };
        let mut names = Vec::new();
        for _ in 0..count {
            names.push(self.name(what)?);
        }
        let at = self.pos;
        if !self.name(what)?.is_empty() {
            return Err(MciError {
                offset: at as u64,
                kind: MciErrorKind::Unclosed(kind),
            });
        }
        Ok(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(words: &[u32], tail: &[u8]) -> Vec<u8> {
        let mut out: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        out.extend_from_slice(tail);
        out
    }

    /// p -> a -> q -> b -> p, unfolded: a, then b as a cutoff of ⊥ (laid out by hand from the
    /// format's description).
    fn cycle() -> Vec<u8> {
        #[rustfmt::skip]
        let words = [
            3, 2,
            1, 2,
            1, 0, 1, 0,
            2, 1, 2, 0,
            1, 2, 0,
            2, 0, 0,
            0,
            2, 2, 1,
        ];
        bytes(&words, b"p\0q\0\0a\0b\0\0")
    }

    #[test]
    fn reads_a_small_prefix() {
        let m = parse(&cycle()).unwrap();
        assert_eq!(m.events, vec![1, 2]);
        assert_eq!(
            m.conditions,
            vec![
                MciCondition {
                    place: 1,
                    producer: 0,
                    consumers: vec![1]
                },
                MciCondition {
                    place: 2,
                    producer: 1,
                    consumers: vec![2]
                },
                MciCondition {
                    place: 1,
                    producer: 2,
                    consumers: vec![]
                },
            ]
        );
        assert_eq!(
            m.cutoffs,
            vec![MciCutoff {
                event: 2,
                corresponding: 0
            }]
        );
        assert_eq!(
            (m.event_count(), m.condition_count(), m.cutoff_count()),
            (2, 3, 1)
        );
        assert_eq!(m.places, ["p", "q"]);
        assert_eq!(m.transitions, ["a", "b"]);
        assert_eq!(m.longest_name, 1);
        assert!(m.configurations.is_empty());
    }

    #[test]
    fn every_cut_is_truncated_at_its_end() {
        let full = cycle();
        for len in 0..full.len() {
            let err = parse(&full[..len]).unwrap_err();
            assert!(
                matches!(err.kind, MciErrorKind::Truncated(_)),
                "{len}: {err}"
            );
            // The offset is where the missing value starts: never past the end.
            assert!(err.offset as usize <= len, "{len}: {err}");
            assert!(
                err.to_string()
                    .starts_with(&format!("byte {}:", err.offset))
            );
        }
    }

    #[test]
    fn bad_numbers_name_their_offset() {
        let mut b = cycle();
        // Event 1's transition (byte 8) is 7: only 2 transitions.
        b[8] = 7;
        let err = parse(&b).unwrap_err();
        assert_eq!(err.offset, 8);
        assert_eq!(
            err.to_string(),
            "byte 8: the transition of event 1 is 7, outside 1..=2"
        );
        // Condition 2's producer (byte 36) is event 9 of 2.
        let mut b = cycle();
        b[36] = 9;
        let err = parse(&b).unwrap_err();
        assert_eq!(err.offset, 36);
        assert!(matches!(
            err.kind,
            MciErrorKind::OutOfRange { value: 9, .. }
        ));
        // Condition 3's place (byte 48) is 0.
        let mut b = cycle();
        b[48] = 0;
        assert_eq!(parse(&b).unwrap_err().offset, 48);
        // A trailing byte; a list of names without its closing empty name.
        let mut b = cycle();
        b.push(0);
        assert_eq!(parse(&b).unwrap_err().kind, MciErrorKind::Trailing(1));
        let mut b = cycle();
        let at = b.len() - 1;
        b[at] = b'x';
        b.push(0);
        let err = parse(&b).unwrap_err();
        assert_eq!(err.kind, MciErrorKind::Unclosed("transition"));
        assert_eq!(err.offset as usize, at);
    }

    /// Configurations after the cutoffs (the format allows them; no current writer makes them),
    /// and Punf's "no corresponding event" (`0xFFFFFFFF`).
    #[test]
    fn configurations_and_unspecified_correspondents() {
        #[rustfmt::skip]
        let words = [
            3, 2,
            1, 2,
            1, 0, 1, 0,
            2, 1, 2, 0,
            1, 2, 0,
            2, u32::MAX, 0,
            1, 2, 0, 1, 0, 0,
            2, 2, 1,
        ];
        let m = parse(&bytes(&words, b"p\0q\0\0a\0b\0\0")).unwrap();
        assert_eq!(m.configurations, vec![vec![1, 2], vec![1]]);
        assert_eq!(m.cutoffs[0].corresponding, u32::MAX);
        assert_eq!(m.places, ["p", "q"]);
        // An event of a configuration that does not exist.
        let mut words = words;
        words[20] = 3;
        let err = parse(&bytes(&words, b"p\0q\0\0a\0b\0\0")).unwrap_err();
        assert_eq!(err.offset, 80);
    }

    #[test]
    fn a_huge_header_does_not_allocate() {
        let err = parse(&bytes(&[u32::MAX, u32::MAX, 1], b"")).unwrap_err();
        assert_eq!(err.offset, 12);
    }

    #[test]
    fn read_mci_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.mci");
        std::fs::write(&path, &cycle()[..10]).unwrap();
        let msg = read_mci(&path).unwrap_err().to_string();
        assert!(
            msg.starts_with(&format!("{}:byte 8:", path.display())),
            "{msg}"
        );
        assert!(msg.contains("ends inside"), "{msg}");
    }

    proptest::proptest! {
        /// Arbitrary bytes are an error or a prefix, never a panic.
        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(0u8..4, 0..200)) {
            let _ = parse(&data);
        }
    }

    mod round_trip {
        use crate::explore::limits::Limits;
        use crate::explore::prefix::{self, NONE, PrefixOptions};
        use crate::report::mci::write_mci;

        use super::super::parse;

        proptest::proptest! {
            #![proptest_config(proptest::prelude::ProptestConfig::with_cases(100))]
            /// What `write_mci` writes reads back as the same prefix: sizes, the transition of
            /// every event, places, producers and consumers of every condition, cutoffs with
            /// their corresponding events, and the names.
            #[test]
            fn writer_output_reads_back(
                k in 1usize..4,
                moves in proptest::collection::vec(
                    proptest::collection::vec((0usize..3, 0usize..3, 0usize..3), 1..3),
                    1..7,
                ),
            ) {
                let net = crate::model::test_nets::machines(k, &moves);
                let limits = Limits::new(Some(std::time::Duration::from_secs(5)), None);
                let r = prefix::explore(&net, &PrefixOptions::default(), &limits, &mut |_| {})
                    .unwrap();
                proptest::prop_assume!(r.complete());
                let p = &r.prefix;
                let mut out = Vec::new();
                write_mci(&net, p, &mut out).unwrap();
                let m = parse(&out).unwrap();
                proptest::prop_assert_eq!(m.event_count(), p.events.len());
                proptest::prop_assert_eq!(m.condition_count(), p.conditions.len());
                proptest::prop_assert_eq!(m.cutoff_count(), p.cutoffs());
                let names: Vec<&str> = net.places.iter().map(|x| x.label.as_str()).collect();
                proptest::prop_assert_eq!(&m.places, &names);
                let names: Vec<&str> = net.transitions.iter().map(|x| x.label.as_str()).collect();
                proptest::prop_assert_eq!(&m.transitions, &names);
                // Match file events to ours by their transition and preset places: the
                // multiset of (transition, preset places, postset places) must agree.
                let mut theirs: Vec<(u32, Vec<u32>, Vec<u32>, bool)> = (1..=m.event_count() as u32)
                    .map(|e| {
                        let mut pre: Vec<u32> = m.conditions.iter()
                            .filter(|c| c.consumers.contains(&e)).map(|c| c.place - 1).collect();
                        let mut post: Vec<u32> = m.conditions.iter()
                            .filter(|c| c.producer == e).map(|c| c.place - 1).collect();
                        pre.sort_unstable();
                        post.sort_unstable();
                        let cut = m.cutoffs.iter().any(|c| c.event == e);
                        (m.events[e as usize - 1] - 1, pre, post, cut)
                    })
                    .collect();
                let mut ours: Vec<(u32, Vec<u32>, Vec<u32>, bool)> = (0..p.events.len() as u32)
                    .map(|e| {
                        let mut pre: Vec<u32> = p.preset(e).iter()
                            .map(|&c| p.conditions[c as usize].place).collect();
                        let mut post: Vec<u32> = p.postset(e)
                            .map(|c| p.conditions[c as usize].place).collect();
                        pre.sort_unstable();
                        post.sort_unstable();
                        let ev = &p.events[e as usize];
                        (ev.transition, pre, post, ev.cutoff)
                    })
                    .collect();
                theirs.sort();
                ours.sort();
                proptest::prop_assert_eq!(theirs, ours);
                // Initial conditions and cutoffs' correspondents (⊥ or a non-cutoff event).
                let initial = m.conditions.iter().filter(|c| c.producer == 0).count();
                proptest::prop_assert_eq!(initial, p.initial as usize);
                let to_bottom = m.cutoffs.iter().filter(|c| c.corresponding == 0).count();
                let ours_bottom = p.events.iter().filter(|e| e.cutoff && e.corresponding == NONE).count();
                proptest::prop_assert_eq!(to_bottom, ours_bottom);
                for c in &m.cutoffs {
                    proptest::prop_assert!(!m.cutoffs.iter().any(|d| d.event == c.corresponding));
                }
            }
        }
    }
}
