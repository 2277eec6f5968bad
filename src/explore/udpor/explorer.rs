//! The explorer's state: one struct, [`Explorer`], that every procedure of the exploration
//! borrows. It holds the configuration `C` (its events in order, its cone `top`, its state),
//! `en(C)` for every prefix of `C`, the set `D`, the event store (`U` and the cache `G`) with
//! the log of every event built, and the memos and scratch room of the procedures. Its fields
//! are visible to the whole `udpor` module, whose files read and update them. The table of
//! dependents ([`Dependents`]) is defined here too, for the compiler's sake (see its doc); its
//! methods are in `dependents`.
//!
//! Invariants between two steps: `in_c[e]` holds iff `e ∈ C`, and then `c_index[e]` is `e`'s
//! index in `C`; `top[s]` is the entry of `C`'s last event on slot `s` (⊥'s when none);
//! `push_ids` grows along `C`; `en` and `en_cutoffs` have one level per prefix of `C`; `state` is
//! `state(C)`. Tables indexed by event id grow with [`extend_to`] as ids appear, and never
//! shrink.

use rustc_hash::{FxHashMap, FxHashSet};

use super::alternatives::{CMemo, PickMemo};
use super::cutoffs::LeastEntry;
use super::dependents::GuardClass;
use super::disabled::DisabledSet;
use super::enabled::{EnStack, NO_SLOT};
use super::extend::{Candidate, Candidates};
use super::guards::Guard;
use super::history_search::SearchScratch;
use super::immediate_conflicts::IcfMemo;
use super::options::{Pick, UdporOptions};
use super::outcome::UdporStats;
use crate::explore::limits::Limits;
use crate::rows::Rows;
use crate::system::{System, Transition};
use crate::unfolding::event::{BOTTOM, ConeEntry, EventId, EventStore};
use crate::unfolding::log::{EventLog, LogId};
use crate::unfolding::order::DiffRoom;
use crate::unfolding::slots::{Slot, SlotMap};
use crate::unfolding::states::{StateSet, WHOLE_WORDS, state_hash};

pub(super) struct Explorer<'s, S: System + ?Sized> {
    pub(super) sys: &'s S,
    pub(super) opts: UdporOptions,
    pub(super) store: EventStore,
    /// The transitions each event may extend into.
    pub(super) dependents: Dependents,
    /// By transition: the slot that keys its events' runs in `en` lists.
    pub(super) key_slot: Vec<Slot>,
    /// By transition: marks `push` sets on the transitions it visits (all false between).
    pub(super) visit_mark: Vec<bool>,
    /// Scratch room of `Dependents::visit`'s bitsets.
    pub(super) visit_bits: Vec<u64>,
    /// The transitions `push` visits (scratch room).
    pub(super) visits: Vec<Transition>,
    /// By slot: whether the event `push` is adding is on it (all false between pushes).
    pub(super) on_e: Vec<bool>,
    /// By slot: the node of its parent there of the event whose immediate conflicts
    /// `refresh_icf` is updating, if that event is on it (`u32::MAX` between calls).
    pub(super) d_parent: Vec<u32>,
    /// By transition, for `refresh_icf`'s scan of one slot `s` of `d` (its round): whether
    /// `s` is the first slot that transition shares with `d`'s label.
    pub(super) first_shared: Vec<(u32, bool)>,
    pub(super) first_shared_round: u32,
    /// Scratch room of `refresh_icf`: the siblings of `d` that may be in immediate conflict
    /// with it (their histories not yet compared), with their positions among the children.
    pub(super) sibling_scratch: Vec<(u32, EventId)>,
    /// Scratch room of `refresh_icf`: the immediate conflicts found, with their positions.
    pub(super) found_scratch: Vec<(u32, EventId)>,
    /// The events of a chunk of `sibling_scratch`, and whether each parts from `d` on one
    /// slot.
    pub(super) sibling_events: Vec<EventId>,
    pub(super) parted: Vec<bool>,
    /// Scratch room of the cones' lookups for `parted`.
    pub(super) cone_room: Vec<u32>,
    /// The candidate events of `push`'s searches, found or made by windows (see
    /// `make_candidates`), and the events they gave: the extensions through the event added.
    pub(super) candidates: Candidates,
    /// Scratch room of `alternative`: the picks, then the events still to walk in their
    /// histories, and those met.
    pub(super) alt_picks_scratch: Vec<EventId>,
    pub(super) seen_scratch: Vec<u32>,
    /// The mark of the current walk in `seen_scratch`.
    pub(super) seen_round: u32,
    /// Scratch room of `comb`: its choice points.
    pub(super) choices_scratch: Vec<(usize, usize)>,
    /// By slot: `[e]`'s entry there for the event `e` that push number `.0` added.
    pub(super) e_cone: Vec<(u64, ConeEntry)>,
    /// Per transition, its guards decided by one of its slots.
    pub(super) guards: Rows<Guard>,
    /// The configuration `C`, in the order its events were added.
    pub(super) c: Vec<EventId>,
    /// A number for each position of `C`, given when its event was pushed (never reused):
    /// equal numbers at position `k` mean the same prefix of `C` up to `k`.
    pub(super) push_ids: Vec<u64>,
    pub(super) pushes: u64,
    /// By event id: what is known of its conflict with `C`.
    pub(super) c_memo: Vec<CMemo>,
    /// The slot on which the last candidate found in conflict with `C` was (a hint only).
    pub(super) c_parting: Option<Slot>,
    /// The slot on which the last spike member found in conflict with a pick parted from it
    /// (a hint only).
    pub(super) pick_parting: Option<Slot>,
    /// Verdicts of `conflicts_with_pick` by hashed pair `(pick, member)`, valid in the epoch
    /// they carry: the epoch changes when events leave the store, since their ids are then
    /// reused.
    pub(super) pick_memo: Vec<PickMemo>,
    pub(super) pick_epoch: u32,
    pub(super) in_c: Vec<bool>,
    /// By event id: its index in `C`, while `in_c` says it is there.
    pub(super) c_index: Vec<u32>,
    /// The cone of `C`: the last event on every slot.
    pub(super) top: Vec<ConeEntry>,
    pub(super) undo: Vec<(Slot, ConeEntry)>,
    pub(super) undo_marks: Vec<usize>,
    /// `en(C')` for every prefix `C'` of `C` (level = size), cutoffs left out.
    pub(super) en: EnStack,
    /// The cutoff events that would extend each prefix.
    pub(super) en_cutoffs: EnStack,
    /// Which events are cutoffs (by id).
    pub(super) cutoff: Vec<bool>,
    /// The least local configuration (in the adequate order) reaching each state seen.
    /// Per state: the size of that configuration and its event (log id).
    pub(super) least: FxHashMap<Vec<u64>, LeastEntry>,
    /// Room for comparing two configurations of one size (see `classify`).
    pub(super) diff_room: DiffRoom,
    /// For each cutoff, the event it was cut against (⊥ for the initial state), by log id.
    pub(super) corresponding: FxHashMap<LogId, LogId>,
    /// Events of the first deadlocking configurations, by log id: for pictures only (when
    /// `record_conflicts` is set).
    pub(super) deadlock_events: FxHashSet<LogId>,
    /// Every distinct event built, with its cutoff verdict.
    pub(super) log: EventLog,
    /// The log id of every stored event (by store id).
    pub(super) log_id: Vec<LogId>,
    /// When each stored event was last used (by store id), for least-recently-used eviction.
    pub(super) last_use: Vec<u64>,
    pub(super) clock: u64,
    /// The store's size when memory was last measured.
    pub(super) measured_at: u64,
    /// `event_creations` when the store's size was last read for the memory check.
    pub(super) bytes_read_at: u64,
    /// Scratch room of `add_candidate` (the candidate and the immediate predecessors), of
    /// `make_new_event` (two states), of `built` (log ids) and of `extensions_through`.
    pub(super) preds_scratch: Vec<EventId>,
    pub(super) cands_scratch: Vec<Candidate>,
    /// The events a step may pick, and the events of `A` enabled in `C` (scratch room of
    /// every step of the exploration).
    pub(super) picks_scratch: Vec<EventId>,
    pub(super) a_in_c_scratch: Vec<EventId>,
    /// Lists of the frames popped, kept for the `A` of the frames pushed.
    pub(super) spare_lists: Vec<Vec<EventId>>,
    pub(super) state_scratch: Vec<u64>,
    pub(super) log_preds_scratch: Vec<LogId>,
    pub(super) search_scratch: Option<Box<SearchScratch>>,
    /// Bytes held by the state table `least`.
    pub(super) least_bytes: u64,
    /// For pictures: immediate conflicts are recorded (also of evicted events) while there
    /// are at most this many events.
    pub(super) record_conflicts: Option<usize>,
    /// Whether no frame was popped yet. Until then nothing left `U` (no Remove, no level's
    /// extensions dropped), so `U` is every event stored: its size needs no walk.
    pub(super) first_descent: bool,
    /// Immediate conflicts of evicted events (log ids, smaller first).
    pub(super) evicted_conflicts: FxHashSet<(LogId, LogId)>,
    /// `state(C)`.
    pub(super) state: Vec<u64>,
    /// The words each push changed in `state`, with their old values, and where each push's
    /// entries start: popping restores them (a stack of whole states would cost the depth of
    /// `C` times the width of a state).
    pub(super) state_undo: Vec<(u32, u64)>,
    pub(super) state_undo_marks: Vec<usize>,
    /// Whether states are too wide to be stored whole (more than [`WHOLE_WORDS`] words): pushes
    /// then fire in place and compare only the words an event's transition touches, and
    /// deadlocks are hashed and stored from the words changed since the last one (the
    /// fields below); smaller states are cheaper handled whole.
    pub(super) wide: bool,
    /// [`state_hash`]`(state)`, kept as `state` changes when states are wide.
    pub(super) state_hash: u64,
    /// The words of `state` changed since the last deadlock test (each once, flagged in
    /// `dirty_mark`), and the slot of `deadlock_states` holding the state tested then: a new
    /// deadlock is stored as that state with these words changed, and hashed without being
    /// read.
    pub(super) dirty: Vec<u32>,
    pub(super) dirty_mark: Vec<bool>,
    pub(super) last_tested: Option<u32>,
    pub(super) dirty_changes: Vec<(u32, u64)>,
    /// `state(∅)`.
    pub(super) initial: Vec<u64>,
    /// Room for `state(C ∪ {e})` in push.
    pub(super) next_state: Vec<u64>,
    /// A whole-state buffer where guards read the words of a state kept in blocks.
    pub(super) guard_room: std::cell::RefCell<Vec<u64>>,
    pub(super) words: usize,
    /// `D`, the events Explore must not add to `C`.
    pub(super) disabled: DisabledSet,
    pub(super) rng: u64,
    /// The run's limits, also checked inside long extension enumerations.
    pub(super) limits: Limits,
    /// Histories tried since the last limit check.
    pub(super) tried: u64,
    pub(super) deadlock_states: StateSet,
    /// Memoised immediate conflicts, by event id (alternatives ask for the same ones at
    /// every frame).
    pub(super) icf_memo: Vec<Option<Box<IcfMemo>>>,
    /// Bytes held by `icf_memo`'s lists.
    pub(super) icf_bytes: u64,
    pub(super) stats: UdporStats,
}

/// Extends a table indexed by event id to `len` entries, growing its room by an eighth at a
/// time rather than doubling it: under a memory limit a doubling of a large table is a jump
/// the explorer's periodic measure may not see coming.
pub(super) fn extend_to<T: Clone>(v: &mut Vec<T>, len: usize, fill: T) {
    extend_with(v, len, || fill.clone());
}

/// [`extend_to`] with new entries made by `fill`.
pub(super) fn extend_with<T>(v: &mut Vec<T>, len: usize, mut fill: impl FnMut() -> T) {
    if v.len() >= len {
        return;
    }
    if len > v.capacity() {
        v.reserve_exact((len - v.len()).max(v.len() / 8).max(256));
    }
    // Mostly one entry, for the event just made: a push costs less than a resize.
    if len == v.len() + 1 {
        v.push(fill());
    } else {
        v.resize_with(len, fill);
    }
}

impl<'s, S: System + ?Sized> Explorer<'s, S> {
    pub(super) fn new(sys: &'s S, opts: UdporOptions) -> Self {
        // (Read by the history parts of the store and by the guards decided by one slot.)
        let (slots, changers) = SlotMap::with_cover_and_changers(sys, opts.slots);
        let store = EventStore::with_slots(sys, opts.cones, opts.history_states, slots, &changers);
        let n = sys.transition_count();
        let slots = store.slots();
        // By slot, its members in increasing order.
        let members = Rows::group(slots.count(), || {
            (0..n as Transition).flat_map(|t| slots.of(t).iter().map(move |&s| (s as usize, t)))
        });
        let guards = Self::single_slot_guards(sys, slots, &changers);
        let dependents = Dependents::new(
            sys,
            slots,
            &members,
            &guards,
            opts.listed_dependents,
            opts.class_bitsets,
        );
        let key_slot = (0..n as Transition)
            .map(|t| {
                let mine = slots.of(t);
                // The slot with the most members is the likeliest to change.
                mine.iter()
                    .copied()
                    .max_by_key(|&s| (members.row(s as usize).len(), std::cmp::Reverse(s)))
                    .unwrap_or(NO_SLOT)
            })
            .collect();
        let words = sys.state_words();
        let top = (0..store.slots().count() as Slot)
            .map(ConeEntry::bottom)
            .collect();
        let mut initial = vec![0; store.words()];
        store.state_into(BOTTOM, &mut initial);
        let rng = match opts.pick {
            Pick::Random(seed) => seed ^ 0x9E37_79B9_7F4A_7C15,
            _ => 0,
        };
        Explorer {
            sys,
            opts,
            store,
            dependents,
            key_slot,
            visit_mark: Vec::new(),
            visit_bits: Vec::new(),
            visits: Vec::new(),
            on_e: Vec::new(),
            d_parent: Vec::new(),
            first_shared: Vec::new(),
            sibling_scratch: Vec::new(),
            alt_picks_scratch: Vec::new(),
            seen_scratch: Vec::new(),
            seen_round: 0,
            choices_scratch: Vec::new(),
            found_scratch: Vec::new(),
            sibling_events: Vec::new(),
            parted: Vec::new(),
            cone_room: Vec::new(),
            candidates: Candidates::default(),
            first_shared_round: 0,
            e_cone: Vec::new(),
            guards,
            c: Vec::new(),
            push_ids: Vec::new(),
            pushes: 0,
            c_memo: Vec::new(),
            c_parting: None,
            pick_parting: None,
            pick_memo: Vec::new(),
            pick_epoch: 1,
            in_c: vec![false],
            c_index: Vec::new(),
            top,
            undo: Vec::new(),
            undo_marks: Vec::new(),
            en: EnStack::default(),
            en_cutoffs: EnStack::default(),
            cutoff: vec![false],
            least: FxHashMap::default(),
            diff_room: DiffRoom::default(),
            corresponding: FxHashMap::default(),
            deadlock_events: FxHashSet::default(),
            log: EventLog::new(),
            log_id: vec![0],
            last_use: vec![0],
            clock: 0,
            measured_at: 0,
            bytes_read_at: 0,
            preds_scratch: Vec::new(),
            cands_scratch: Vec::new(),
            picks_scratch: Vec::new(),
            a_in_c_scratch: Vec::new(),
            spare_lists: Vec::new(),
            state_scratch: Vec::new(),
            log_preds_scratch: Vec::new(),
            search_scratch: Some(Box::default()),
            least_bytes: 0,
            record_conflicts: None,
            first_descent: true,
            evicted_conflicts: FxHashSet::default(),
            state: initial.clone(),
            wide: words > WHOLE_WORDS,
            state_hash: state_hash(&initial),
            dirty: Vec::new(),
            dirty_mark: vec![false; words],
            last_tested: None,
            dirty_changes: Vec::new(),
            state_undo: Vec::new(),
            state_undo_marks: Vec::new(),
            next_state: Vec::new(),
            guard_room: std::cell::RefCell::new(vec![0; initial.len()]),
            initial,
            words,
            disabled: DisabledSet::default(),
            rng,
            limits: Limits::default(),
            tried: 0,
            deadlock_states: StateSet::new(words),
            icf_memo: Vec::new(),
            icf_bytes: 0,
            stats: UdporStats::default(),
        }
    }

    pub(super) fn flag(v: &mut Vec<bool>, e: EventId) -> &mut bool {
        extend_to(v, e as usize + 1, false);
        &mut v[e as usize]
    }

    pub(super) fn is_in(v: &[bool], e: EventId) -> bool {
        v.get(e as usize).copied().unwrap_or(false)
    }

    /// `e ∈ en(C)` for an event whose history lies in `C`: on each of its slots, `C` ends
    /// where `e`'s history does.
    pub(super) fn enabled_in_c(&self, e: EventId) -> bool {
        let enabled = self
            .store
            .parent_nodes(e)
            .all(|(s, parent)| self.top[s as usize].node == parent);
        debug_assert_eq!(
            enabled,
            self.store
                .event_slots(e)
                .iter()
                .all(|&s| self.top[s as usize].event == self.store.parent_on(e, s))
        );
        enabled
    }

    /// `e # C` for an event of `D` or an extension of `C` (its history lies in `C`).
    pub(super) fn justified(&self, d: EventId) -> bool {
        !self.enabled_in_c(d)
    }
}

/// The transitions an event may extend into: those sharing one of its slots.
///
/// A transition with few dependents keeps them in a sorted list. Beyond that, they are
/// gathered from its slots' members, which are kept in classes that one guard test decides: on
/// a slot `s` of an event `e`, the members whose guards on the resource `s` fixes are of one
/// [`System::guard_class`] are all enabled there by `state([e])`, or all not, and a class that
/// fails is dropped whole without looking at its members. (`n` transitions that take the token
/// of one place make one class, which the event that took the token disables at once: O(1),
/// not O(n), per event.)
///
/// Where many transitions share many slots, a dependent is a member of a class of most of
/// them, and gathering the members one by one reads each dependent many times over. A
/// transition with no list keeps instead, for each class of each of its slots, the class's
/// members as a bitset over its sorted dependents: the classes that pass are joined word by
/// word, and the bits set name the dependents, sorted.
///
/// Its methods are in `dependents`; the struct is defined here because the compiler puts a
/// type's methods in the code unit of the module that defines the type, and
/// [`visit`](Self::visit), generic over the guard test that `push` hands it, must be compiled
/// with the explorer's methods: in a unit of its own it leaves the guard tests of Extend
/// calls instead of inlined code.
pub(super) struct Dependents {
    /// By transition: its dependents, sorted, when there are few
    /// ([`UdporOptions::listed_dependents`]), and whether it has such a list.
    ///
    /// [`UdporOptions::listed_dependents`]: super::UdporOptions::listed_dependents
    pub(super) listed: Rows<Transition>,
    pub(super) is_listed: Vec<bool>,
    /// By slot: its members, class after class.
    pub(super) members: Rows<Transition>,
    /// By slot: its classes, in the order of `members`: on a token slot, those with no guard
    /// first, then by the resource of their guard.
    pub(super) classes: Rows<GuardClass>,
    /// By slot: whether it is a token slot
    /// ([`SlotMap::is_token`](crate::unfolding::slots::SlotMap::is_token)).
    pub(super) token: Vec<bool>,
    /// By resource of a token set: its token slot and the first of the slot's classes guarded
    /// by it (`u32::MAX`: none).
    pub(super) class_at: Vec<(Slot, u32)>,
    /// By transition with bitsets: every member of its slots, sorted (empty for the others).
    pub(super) union: Rows<Transition>,
    /// By transition: where its bitsets start in `class_bits` (`NO_BITS`: it has none).
    pub(super) bits_at: Vec<usize>,
    /// For each transition with bitsets, one bitset over its `union` per class of each of
    /// its slots, in the order of the slots and of their classes.
    pub(super) class_bits: Vec<u64>,
}
