//! `en(C')` for every prefix `C'` of `C`: the events that extend it, kept level by level as
//! Explore pushes and pops events, each level made from the one below (an extension of `C`
//! stays one of `C ∪ {e}` unless it shares a slot with `e`) plus the new extensions through `e`.

use crate::unfolding::event::EventId;
use crate::unfolding::slots::Slot;

/// The key slot of a transition with no slot: its events are never disabled.
pub const NO_SLOT: Slot = Slot::MAX;

/// A list of enabled events for every prefix of `C`, level after level in shared vectors:
/// levels are opened and closed in stack order, so a deep configuration costs no allocation
/// per level. Each level is cut into runs of consecutive events with one key slot (the slot of
/// their transition with the most members): an event added to `C` on that slot disables the
/// whole run, which is then passed over at once.
#[derive(Default)]
pub struct EnStack {
    events: Vec<EventId>,
    /// (end in its level's events, key slot), run after run, level after level.
    runs: Vec<(u32, Slot)>,
    /// Per level: where its events and its runs start.
    starts: Vec<(u32, u32)>,
}

impl EnStack {
    /// Opens an empty level on top.
    pub fn open(&mut self) {
        self.starts
            .push((self.events.len() as u32, self.runs.len() as u32));
    }

    /// Closes the top level.
    pub fn close(&mut self) {
        let (events, runs) = self.starts.pop().expect("a level is open");
        self.events.truncate(events as usize);
        self.runs.truncate(runs as usize);
    }

    /// Appends `e`, keyed by `key`, to the top level.
    pub fn push(&mut self, e: EventId, key: Slot) {
        let &(from, runs_from) = self.starts.last().expect("a level is open");
        self.events.push(e);
        let end = self.events.len() as u32 - from;
        match self.runs[runs_from as usize..].last_mut() {
            Some((last, k)) if *k == key => *last = end,
            _ => self.runs.push((end, key)),
        }
    }

    /// Where level `level`'s events and runs end.
    fn ends(&self, level: usize) -> (usize, usize) {
        self.starts
            .get(level + 1)
            .map_or((self.events.len(), self.runs.len()), |&(e, r)| {
                (e as usize, r as usize)
            })
    }

    /// The events of level `level`.
    pub fn events(&self, level: usize) -> &[EventId] {
        &self.events[self.starts[level].0 as usize..self.ends(level).0]
    }

    /// How many levels are open.
    pub fn levels(&self) -> usize {
        self.starts.len()
    }

    /// Whether level `level` holds no event.
    pub fn is_empty(&self, level: usize) -> bool {
        self.events(level).is_empty()
    }

    /// The events of every level.
    pub fn all(&self) -> &[EventId] {
        &self.events
    }

    /// Opens a level holding, in order and with their keys, the events of the top level that
    /// `stays` keeps, passing over whole the runs whose key `run_goes` names. Returns how many
    /// events were looked at.
    pub fn open_from_top(
        &mut self,
        mut run_goes: impl FnMut(Slot) -> bool,
        mut stays: impl FnMut(EventId) -> bool,
    ) -> u64 {
        let level = self.starts.len() - 1;
        let (from, runs_from) = self.starts[level];
        let runs_end = self.runs.len();
        self.open();
        let mut looked = 0;
        let mut start = 0;
        for r in runs_from as usize..runs_end {
            let (end, key) = self.runs[r];
            let run = (from + start) as usize..(from + end) as usize;
            start = end;
            if key != NO_SLOT && run_goes(key) {
                continue;
            }
            looked += run.len() as u64;
            for i in run {
                let x = self.events[i];
                if stays(x) {
                    self.push(x, key);
                }
            }
        }
        looked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a stack of levels should hold, kept the plain way: one list of (event, key) per
    /// level.
    #[derive(Clone, Debug)]
    enum Op {
        Open,
        Close,
        Push(EventId, Slot),
        /// Keys in `0..4` whose runs go, and the modulus of the events that stay.
        FromTop(Vec<Slot>, EventId),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            Just(Op::Open),
            Just(Op::Close),
            (0u32..20, prop_oneof![0u32..4, Just(NO_SLOT)]).prop_map(|(e, k)| Op::Push(e, k)),
            (proptest::collection::vec(0u32..4, 0..3), 1u32..4)
                .prop_map(|(goes, m)| Op::FromTop(goes, m)),
        ]
    }

    proptest! {
        /// Every level holds what the plain lists hold, after any sequence of operations;
        /// a level made from the top one drops the runs keyed by a slot that goes (never
        /// those of `NO_SLOT`) and the events `stays` rejects, and counts the events it looked
        /// at.
        #[test]
        fn levels_hold_what_plain_lists_hold(ops in proptest::collection::vec(op(), 1..60)) {
            let mut stack = EnStack::default();
            stack.open();
            let mut model: Vec<Vec<(EventId, Slot)>> = vec![Vec::new()];
            for op in ops {
                match op {
                    Op::Open => {
                        stack.open();
                        model.push(Vec::new());
                    }
                    Op::Close if model.len() > 1 => {
                        stack.close();
                        model.pop();
                    }
                    Op::Close => {}
                    Op::Push(e, k) => {
                        stack.push(e, k);
                        model.last_mut().unwrap().push((e, k));
                    }
                    Op::FromTop(goes, m) => {
                        let top = model.last().unwrap().clone();
                        // The runs of NO_SLOT never go, and their key is never asked about
                        // (it indexes no table).
                        let mut asked_no_slot = false;
                        let looked = stack.open_from_top(
                            |k| {
                                asked_no_slot |= k == NO_SLOT;
                                goes.contains(&k)
                            },
                            |e| e % m == 0,
                        );
                        prop_assert!(!asked_no_slot);
                        let kept_runs: Vec<_> = top
                            .iter()
                            .filter(|&&(_, k)| k == NO_SLOT || !goes.contains(&k))
                            .copied()
                            .collect();
                        prop_assert_eq!(looked, kept_runs.len() as u64);
                        model.push(kept_runs.into_iter().filter(|&(e, _)| e % m == 0).collect());
                    }
                }
                prop_assert_eq!(stack.levels(), model.len());
                for (level, want) in model.iter().enumerate() {
                    let events: Vec<EventId> = want.iter().map(|&(e, _)| e).collect();
                    prop_assert_eq!(stack.events(level), &events[..]);
                    prop_assert_eq!(stack.is_empty(level), events.is_empty());
                }
                let all: Vec<EventId> = model.iter().flatten().map(|&(e, _)| e).collect();
                prop_assert_eq!(stack.all(), &all[..]);
            }
        }
    }
}
