//! The guards of a transition that one of its slots decides: a slot that holds every
//! transition changing the resource a guard tests fixes that resource's value after a history
//! (by its last event there), so Extend tests the guard as soon as it chooses that slot, and
//! the dependents' guard classes are decided by the state of one event.
//!
//! Guards are tested in the local state `state([x])` of an event; one that is a field of the
//! state reads one word, and agrees with the system's test (checked in debug builds).

use super::explorer::Explorer;
use crate::rows::Rows;
use crate::system::{Access, GuardField, Resource, System, Transition};
use crate::unfolding::event::EventId;
use crate::unfolding::slots::{Slot, SlotMap};

/// A guard of a transition that one of its slots decides: the resource it tests, whose
/// changers all lie on that slot (so the last event of a history there fixes the resource's
/// value after the history), and the slot, also as its index among the transition's slots.
#[derive(Clone, Copy, Debug)]
pub(super) struct Guard {
    pub(super) index: usize,
    pub(super) slot: Slot,
    pub(super) resource: Resource,
    /// The guard as one field of the state, when the system says ([`System::guard_field`]).
    pub(super) field: Option<GuardField>,
}

impl<'s, S: System + ?Sized> Explorer<'s, S> {
    /// For every transition `t` and resource `r` that `t` tests, the slot of `t` (if any) that
    /// holds every transition changing `r`: the last event of a history on that slot fixes
    /// `r`'s value after the history. `changers` are the transitions changing each resource
    /// ([`SlotMap::with_cover_and_changers`]).
    pub(super) fn single_slot_guards(
        sys: &S,
        slots: &SlotMap,
        changers: &Rows<Transition>,
    ) -> Rows<Guard> {
        let n = sys.transition_count();
        // Per resource, once: the slots that hold all its changers (`Every` slot for a
        // resource nothing changes). Deciding this per reader instead costs O(n²) on a
        // resource with n changers and n readers.
        #[derive(Clone, Copy)]
        enum Holding {
            Unknown,
            Every,
            Slots(u32, u32),
        }
        let mut holding = vec![Holding::Unknown; sys.resource_count()];
        let mut pool: Vec<Slot> = Vec::new();
        let mut common: Vec<Slot> = Vec::new();
        // At most one guard per test; mostly one test per transition.
        let mut guards = Rows::with_capacity(n, n);
        for t in 0..n as Transition {
            let mine = slots.of(t);
            for touch in sys.footprint(t) {
                if !touch.access.contains(Access::READ) {
                    continue;
                }
                let r = touch.resource as usize;
                if let Holding::Unknown = holding[r] {
                    holding[r] = match changers.row(r).split_first() {
                        None => Holding::Every,
                        Some((&first, rest)) => {
                            let at = pool.len();
                            common.clear();
                            common.extend_from_slice(slots.of(first));
                            for &c in rest {
                                // (In `c`'s own slots, sorted: a slot's members may be
                                // millions, read at random.)
                                let of_c = slots.of(c);
                                common.retain(|s| of_c.binary_search(s).is_ok());
                                if common.is_empty() {
                                    break;
                                }
                            }
                            pool.extend_from_slice(&common);
                            Holding::Slots(at as u32, common.len() as u32)
                        }
                    };
                }
                let held = match holding[r] {
                    Holding::Slots(at, len) => Some(&pool[at as usize..(at + len) as usize]),
                    _ => None,
                };
                if let Some(i) = mine.iter().position(|s| held.is_none_or(|h| h.contains(s))) {
                    guards.push(Guard {
                        index: i,
                        slot: mine[i],
                        resource: touch.resource,
                        field: sys.guard_field(t, touch.resource),
                    });
                }
            }
            guards.end_row();
        }
        guards
    }

    /// `t`'s guard on resource `r` in `state([x])` ([`System::enabled_on`]). A state kept
    /// in blocks is not read whole: only `r`'s words.
    #[inline]
    pub(super) fn enabled_on_event(&self, x: EventId, t: Transition, r: Resource) -> bool {
        match self.store.state(x) {
            Some(state) => self.sys.enabled_on(state, t, r),
            None => {
                let mut room = self.guard_room.borrow_mut();
                self.store
                    .state_words_into(x, self.sys.resource_words(r), &mut room);
                self.sys.enabled_on(&room, t, r)
            }
        }
    }

    /// Whether `t`'s guard `g` holds in `state([x])`: one word read when the guard is a field
    /// of the state, else [`enabled_on_event`](Self::enabled_on_event).
    #[inline(always)]
    pub(super) fn guard_holds(&self, x: EventId, t: Transition, g: &Guard) -> bool {
        let holds = match g.field {
            Some(f) => f.holds_on(self.store.state_word(x, f.word as usize)),
            None => self.enabled_on_event(x, t, g.resource),
        };
        debug_assert_eq!(holds, self.enabled_on_event(x, t, g.resource));
        holds
    }
}
