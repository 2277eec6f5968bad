//! Cutoff events: when an event is first built, [`Explorer::classify`] decides whether an
//! event seen earlier reached the same state with a smaller local configuration in the
//! adequate order (McMillan's size order or the total ERV order), and otherwise whether the new
//! event becomes the least one known for its state.
//!
//! A cutoff is recorded in the log, with the event it was cut against, but never enters `U`:
//! Extend lists it in `en_cutoffs`, apart from `en`, so it is never extended, picked, or part
//! of an alternative.

use super::explorer::Explorer;
use crate::explore::limits::StopReason;
use crate::system::System;
use crate::unfolding::event::EventId;
use crate::unfolding::log::LogId;
use crate::unfolding::order::{Order, cmp_logged_equal_size};

/// The least local configuration known to reach a state.
pub(super) struct LeastEntry {
    pub(super) size: u32,
    pub(super) event: LogId,
}

impl<'s, S: System + ?Sized> Explorer<'s, S> {
    /// Decides whether the new event `e` is a cutoff: an event seen earlier reaches the same
    /// state with a smaller local configuration. Otherwise `e` may become the new reference
    /// for its state.
    pub(super) fn classify(&mut self, e: EventId) {
        let Some(order) = self.opts.cutoffs else {
            return;
        };
        let lid = self.log_id[e as usize];
        let size = self.store.size(e);
        let state: std::borrow::Cow<'_, [u64]> = match self.store.state(e) {
            Some(state) => state.into(),
            None => {
                let mut whole = vec![0; self.words];
                self.store.state_into(e, &mut whole);
                whole.into()
            }
        };
        let verdict = match self.least.get_mut(&*state) {
            None => {
                // Doubling the table is the largest single allocation of a run: it must fit.
                if self.least.len() == self.least.capacity()
                    && let Some(limit) = self.limits.mem_limit()
                {
                    let entry = std::mem::size_of::<(Vec<u64>, LeastEntry)>() + 1;
                    let grown = (2 * self.least.capacity().max(16) * entry) as u64;
                    if crate::explore::limits::rss_bytes() + grown > limit {
                        self.stats.stopped = Some(StopReason::MemoryLimit);
                        return;
                    }
                }
                self.least_bytes += (self.words * 8 + 64) as u64;
                self.least
                    .insert(state.into_owned(), LeastEntry { size, event: lid });
                None
            }
            Some(best) if best.size < size => Some(best.event),
            Some(best) if best.size > size || order == Order::Size => {
                if best.size > size {
                    *best = LeastEntry { size, event: lid };
                }
                None
            }
            Some(best) => {
                // A tie on size: the configurations' differences decide.
                match cmp_logged_equal_size(&self.log, best.event, lid, order, &mut self.diff_room)
                {
                    std::cmp::Ordering::Less => Some(best.event),
                    std::cmp::Ordering::Greater => {
                        best.event = lid;
                        None
                    }
                    std::cmp::Ordering::Equal => None,
                }
            }
        };
        let is_cutoff = verdict.is_some();
        if let Some(reference) = verdict {
            self.corresponding.insert(lid, reference);
        }
        if is_cutoff {
            self.cutoff[e as usize] = true;
            self.stats.cutoffs += 1;
        }
    }
}
