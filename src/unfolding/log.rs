//! The log of every distinct event an exploration built: a compact record that outlives the
//! event's stay in memory.
//!
//! The event store forgets events when the cache evicts them, and a rebuilt event gets a new
//! store id. The log names each event once, by its label and the log ids of its immediate
//! predecessors, so that the exploration can count distinct events apart from creations, keep
//! per-event verdicts (cutoff or not) stable across evictions, and draw everything it visited.

use hashbrown::HashTable;

use super::{short_hash, table_hash};
use crate::system::Transition;

/// Dense id of a logged event; 0 is ⊥.
pub type LogId = u32;

/// The log of distinct events.
pub struct EventLog {
    labels: Vec<Transition>,
    pred_start: Vec<u32>,
    preds: Vec<LogId>,
    /// The Foata level of each event: 1 + the largest of its predecessors' (⊥: 0). Kept so
    /// that the key of a logged configuration in the ERV order needs no walk to find levels.
    levels: Vec<u32>,
    cutoff: Vec<bool>,
    /// The ids, each with its [`short_hash`]: those below `indexed` (the table is filled in
    /// only when a lookup needs it, see [`append`](EventLog::append)).
    table: HashTable<(LogId, u32)>,
    indexed: LogId,
}

impl Default for EventLog {
    fn default() -> Self {
        Self::new()
    }
}

impl EventLog {
    /// A log holding only ⊥.
    pub fn new() -> Self {
        EventLog {
            labels: vec![Transition::MAX],
            pred_start: vec![0, 0],
            preds: Vec::new(),
            levels: vec![0],
            cutoff: vec![false],
            table: HashTable::new(),
            indexed: 1,
        }
    }

    /// Number of logged events, ⊥ included.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether only ⊥ is logged.
    pub fn is_empty(&self) -> bool {
        self.labels.len() == 1
    }

    /// The label of a logged event.
    pub fn label(&self, e: LogId) -> Transition {
        self.labels[e as usize]
    }

    /// The immediate predecessors of a logged event, sorted (`[0]` for a minimal event).
    pub fn preds(&self, e: LogId) -> &[LogId] {
        &self.preds[self.pred_start[e as usize] as usize..self.pred_start[e as usize + 1] as usize]
    }

    /// The Foata level of a logged event: the most events on a causal chain from ⊥ to it,
    /// itself included (⊥: 0).
    pub fn level(&self, e: LogId) -> u32 {
        self.levels[e as usize]
    }

    /// Whether the event was decided to be a cutoff when it was first built.
    pub fn is_cutoff(&self, e: LogId) -> bool {
        self.cutoff[e as usize]
    }

    /// Records the cutoff verdict of an event.
    pub fn set_cutoff(&mut self, e: LogId, cutoff: bool) {
        self.cutoff[e as usize] = cutoff;
    }

    /// The id of the event `(label, preds)` (`preds` sorted) at Foata level `level` (see
    /// [`level`](Self::level)), and whether it is new.
    pub fn intern(&mut self, label: Transition, preds: &[LogId], level: u32) -> (LogId, bool) {
        self.index_appended();
        let h = short_hash(label, preds);
        if let Some(&(e, _)) = self.table.find(table_hash(h), |&(e, eh)| {
            eh == h && self.labels[e as usize] == label && self.preds(e) == preds
        }) {
            return (e, false);
        }
        let id = self.append(label, preds, level);
        self.table
            .insert_unique(table_hash(h), (id, h), |&(_, eh)| table_hash(eh));
        self.indexed = id + 1;
        (id, true)
    }

    /// Logs an event the caller knows to be new (`preds` sorted, `level` its Foata level, which
    /// the caller has at hand), and returns its id. An
    /// exploration that has not evicted anything knows that of every event it builds: it
    /// then pays for no lookup, and the table is filled in at the first
    /// [`intern`](Self::intern).
    pub fn append(&mut self, label: Transition, preds: &[LogId], level: u32) -> LogId {
        let id = self.labels.len() as LogId;
        debug_assert_eq!(
            level,
            1 + preds.iter().map(|&p| self.level(p)).max().unwrap_or(0),
            "the level of a logged event"
        );
        self.levels.push(level);
        self.labels.push(label);
        self.preds.extend_from_slice(preds);
        self.pred_start.push(self.preds.len() as u32);
        self.cutoff.push(false);
        id
    }

    /// Puts the events appended since the last lookup into the table.
    fn index_appended(&mut self) {
        let pending = self.labels.len() - self.indexed as usize;
        if pending > 0 {
            // Once, instead of growing step by step over millions of events.
            self.table.reserve(pending, |&(_, eh)| table_hash(eh));
        }
        while (self.indexed as usize) < self.labels.len() {
            let e = self.indexed;
            let h = short_hash(self.labels[e as usize], self.preds(e));
            debug_assert!(
                self.table
                    .find(table_hash(h), |&(x, xh)| xh == h
                        && self.labels[x as usize] == self.labels[e as usize]
                        && self.preds(x) == self.preds(e))
                    .is_none(),
                "an appended event was logged already"
            );
            self.table
                .insert_unique(table_hash(h), (e, h), |&(_, eh)| table_hash(eh));
            self.indexed += 1;
        }
    }

    /// Bytes held by the log (allocated capacity).
    pub fn bytes(&self) -> u64 {
        (self.labels.capacity() * 4
            + self.pred_start.capacity() * 4
            + self.preds.capacity() * 4
            + self.levels.capacity() * 4
            + self.cutoff.capacity()
            + self.table.capacity() * 9) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_names_each_event_once() {
        let mut log = EventLog::new();
        let (a, new_a) = log.intern(3, &[0], 1);
        let (b, new_b) = log.intern(4, &[0], 1);
        let (c, new_c) = log.intern(5, &[a, b], 2);
        assert!(new_a && new_b && new_c);
        assert_eq!((a, b, c), (1, 2, 3));
        assert_eq!(log.intern(5, &[a, b], 2), (c, false));
        assert_eq!(log.intern(3, &[0], 1), (a, false));
        assert_eq!(log.preds(c), &[1, 2]);
        assert_eq!(log.label(c), 5);
        assert_eq!(log.len(), 4);
        assert_eq!((log.level(0), log.level(a), log.level(b)), (0, 1, 1));
        assert_eq!(log.level(c), 2);
        let (d, _) = log.intern(6, &[b, c], 3);
        assert_eq!(log.level(d), 3);
        log.set_cutoff(b, true);
        assert!(log.is_cutoff(b) && !log.is_cutoff(a));
    }

    #[test]
    fn appended_events_are_found_later() {
        let mut log = EventLog::new();
        let a = log.append(3, &[0], 1);
        let b = log.append(4, &[a], 2);
        assert_eq!((a, b), (1, 2));
        assert_eq!(log.intern(4, &[a], 2), (b, false));
        assert_eq!(log.intern(3, &[0], 1), (a, false));
        let c = log.append(5, &[a, b], 3);
        assert_eq!(log.intern(5, &[a, b], 3), (c, false));
        assert_eq!(log.intern(5, &[b], 3), (4, true));
        assert_eq!(log.len(), 5);
        assert_eq!((log.level(b), log.level(c), log.level(4)), (2, 3, 3));
    }
}
