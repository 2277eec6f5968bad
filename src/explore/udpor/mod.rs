//! The stateless unfolding-based DPOR (Rodríguez, Sousa, Sharma, Kroening, CONCUR 2015,
//! Alg. 1): an optimal exploration of the maximal configurations of the unfolding of any
//! [`System`].
//!
//! ```text
//! Explore(C, D, A):
//!   Extend(C)
//!   if en(C) = ∅: C is maximal; return
//!   e := an event of en(C) ∩ A if A ≠ ∅, else an event of en(C) \ D
//!   Explore(C ∪ {e}, D, A \ {e})
//!   if some J ∈ Alt(C, D ∪ {e}): Explore(C, D ∪ {e}, J \ C)
//! ```
//!
//! The recursion runs on an explicit stack of frames, so configurations thousands of events
//! deep do not overflow the call stack. `Extend` is incremental: when `e` joins `C`, the only
//! new extensions are the events whose history contains `e`; they are enumerated from the
//! slot chains of `C` (see [`crate::unfolding::event`]). `en(C)` is kept per depth.
//!
//! Alternatives are computed exactly by default, the "comb" way: every event of `D` that no
//! event of `C` conflicts with (an *unjustified* one) needs an event of `U` in immediate
//! conflict with it (its *spike*), the picks pairwise conflict-free and conflict-free with
//! `C`; `J` is the union of their local configurations. `alt_k` restricts the comb to the last
//! `k` unjustified events (k-partial alternatives, QPOR, CAV 2018): polynomial, complete, but
//! some runs may end blocked, and those are counted.
//!
//! Cutoffs (optional): an event whose state an earlier event reached with a smaller local
//! configuration (McMillan's size order or the total ERV order) is recorded but never enters
//! `U`: never extended, picked, or part of an alternative.
//!
//! `Remove` and the garbage set `G`: the store holds `U` (what `Q(C, D, U)` of the paper needs:
//! `C`, `D`, the events in immediate conflict with them, the pending alternatives and their
//! histories) and, beside it, every other event built so far as a cache, so that `Extend` finds
//! an event again with the same identity instead of rebuilding it. Past three quarters of the
//! memory limit the cache is evicted least recently used first; with [`Cache::Off`] it is
//! emptied at every `Remove`. Alternatives are searched among all stored events: any event of
//! the unfolding makes a valid alternative, and those of `G` only add choices.
//!
//! The immediate conflicts of an event (its spike candidates) are memoised and extended as new
//! siblings appear; a candidate found in conflict with a prefix of `C` is not tested again
//! while that prefix stays, since failed alternative searches test the same candidates over
//! and over as `C` grows.
//!
//! The enumeration of new extensions keeps the choice of positions on the slot chains of `C`
//! consistent as it goes, and tests the transition's guard on a resource as soon as the slot
//! that fixes the resource's value is chosen; candidate histories are still exponential in the
//! worst case, and the limits are checked inside the enumeration.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

mod disabled;
mod enabled;

use self::disabled::{DisabledSet, RunKey};
use self::enabled::{EnStack, NO_SLOT};
use super::limits::{Limits, StopReason};
use crate::rows::Rows;
use crate::system::{Access, Footprint, GuardField, Overflow, Resource, System, Transition};
use crate::unfolding::cone::{ConeForest, ConeLayout};
use crate::unfolding::event::{
    BOTTOM, ChildCursor, ConeEntry, EventId, EventStore, HistoryStates, LabeledChildren,
};
use crate::unfolding::log::{EventLog, LogId};
use crate::unfolding::order::{DiffRoom, Order, cmp_logged_equal_size};
use crate::unfolding::slots::{Slot, SlotCover, SlotMap};
use crate::unfolding::states::{Known, StateSet, WHOLE_WORDS, state_hash, word_hash};

/// How `Explore` picks the next event among the candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The first candidate (in discovery order).
    First,
    /// The last candidate.
    Last,
    /// A pseudo-random candidate, from a seed.
    Random(u64),
}

/// Options of the exploration.
#[derive(Clone, Debug)]
pub struct UdporOptions {
    /// Configurations are not extended past this many events (`complete` is then false).
    pub max_depth: usize,
    /// Stop once this many distinct events were created: a bound on the work that, unlike
    /// a time limit, gives the same run on every machine (benchmarks, instruction counts).
    pub max_events: Option<u64>,
    /// k-partial alternatives; `None` for exact ones.
    pub alt_k: Option<usize>,
    /// Event selection.
    pub pick: Pick,
    /// Cutoff events, decided with this adequate order; `None`: no cutoffs.
    pub cutoffs: Option<Order>,
    /// Collect the state of every visited configuration (for coverage checks).
    pub record_states: bool,
    /// What happens to the events `Remove` takes out of `U`.
    pub cache: Cache,
    /// Most dependents a transition keeps in a sorted list; past that, an event's possible
    /// extensions are found through its slots' guard classes. Tests set 0 so that small
    /// systems take the path of large ones.
    pub listed_dependents: usize,
    /// Which transitions gather their dependents from guard classes as bitsets (see
    /// `Dependents`) rather than member by member.
    pub class_bitsets: ClassBitsets,
    /// How the event store lays out the events' cones.
    pub cones: ConeLayout,
    /// How the event store computes the states of new events' histories.
    pub history_states: HistoryStates,
    /// Which cliques the slots are made of: a speed and memory trade-off. Without cutoffs the
    /// results do not depend on it; with cutoffs the order of exploration does.
    pub slots: SlotCover,
    /// Whether the explorer's memory is given back when the exploration ends. A process that
    /// exits right after (the command line's single run) leaves it to the exit instead:
    /// freeing the store of a long run costs a few percent of the run.
    pub release_memory: bool,
}

/// Which transitions with no list of dependents keep bitsets of them by guard class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassBitsets {
    /// Those whose slots name each dependent several times, within a memory budget.
    Auto,
    /// All of them (tests: small systems then take the path of large ones).
    Always,
    /// None: the classes' members are gathered one by one.
    Never,
}

/// The fate of the events `Remove` takes out of `U` (the garbage set `G`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cache {
    /// They stay in memory as a cache while the memory limit allows; past three quarters of
    /// it, the least recently used are evicted first.
    Bounded,
    /// They are dropped at every `Remove` (`G` stays empty; Alg. 1 with the smallest memory,
    /// every event outside `U` rebuilt when needed again).
    Off,
}

impl Default for UdporOptions {
    fn default() -> Self {
        UdporOptions {
            max_depth: 10_000,
            max_events: None,
            alt_k: None,
            pick: Pick::First,
            cutoffs: None,
            record_states: false,
            cache: Cache::Bounded,
            listed_dependents: 256,
            class_bitsets: ClassBitsets::Auto,
            cones: ConeLayout::Auto,
            history_states: HistoryStates::Auto,
            slots: SlotCover::TokenSets,
            release_memory: true,
        }
    }
}

/// What the exploration found.
#[derive(Clone, Debug, Default)]
pub struct UdporStats {
    /// Maximal configurations explored.
    pub maximal_configurations: u64,
    /// Distinct events (⊥ excluded).
    pub events: u64,
    /// Visits where every enabled event was in `D` (zero with exact alternatives).
    pub blocked: u64,
    /// Distinct deadlock states.
    pub deadlocks: u64,
    /// A run (transition labels) to the first deadlock found.
    pub deadlock_witness: Option<Vec<Transition>>,
    /// Configurations cut by `max_depth`.
    pub depth_cut: u64,
    /// The largest `|U|`, the events `Remove` must keep (`Q(C, D, U)` with the extensions of
    /// the configurations on the stack; sampled at the first maximal configuration, at every
    /// eviction, and after as many steps as the store holds events (every 8192 steps and at
    /// the 2^k-th maximal configurations), or eight times as many event creations (the first
    /// once 4096 events were created).
    pub peak_u: u64,
    /// The deepest configuration explored.
    pub max_configuration_size: u64,
    /// Alternatives searched for, and found.
    pub alternatives_searched: u64,
    /// Alternatives found.
    pub alternatives_found: u64,
    /// Transitions whose histories through a new event of `C` were searched for (the
    /// transitions of the guard classes the new event's state passes).
    pub extension_searches: u64,
    /// Events of `en(C)` looked at one by one as `C` grew (the runs of events that an added
    /// event disables on their key slot are passed over whole and not counted).
    pub enabled_checks: u64,
    /// Siblings, and groups of siblings by label, read while listing immediate conflicts.
    pub sibling_reads: u64,
    /// Bytes held by the event store at the end.
    pub store_bytes: u64,
    /// Whether the events' cones were flat arrays at the end (see [`ConeLayout`]).
    pub flat_cones: bool,
    /// The number of slots of the events (see [`SlotCover`]).
    pub slots: u64,
    /// How many of them hold the movers of a token set.
    pub token_slots: u64,
    /// Whether the states of histories were assembled from the slots' last events rather
    /// than fired (see [`HistoryStates`]).
    pub assembled_histories: bool,
    /// Cutoff events (distinct; included in `events`).
    pub cutoffs: u64,
    /// Maximal configurations whose only extensions are cutoffs.
    pub ended_by_cutoff: u64,
    /// Distinct states of visited configurations (with `record_states`).
    pub visited_states: Option<FxHashSet<Vec<u64>>>,
    /// The deadlock states found (with `record_states`).
    pub deadlock_states: Option<FxHashSet<Vec<u64>>>,
    /// Why the run stopped early, if it did.
    pub stopped: Option<StopReason>,
    /// Events built, rebuilds after eviction included (`events` counts each once).
    pub event_creations: u64,
    /// Extensions found again in memory (in `U` or the cache `G`) instead of being built.
    pub cache_hits: u64,
    /// Extensions rebuilt because the cache had evicted them.
    pub cache_misses: u64,
    /// Events evicted from the cache.
    pub cache_evictions: u64,
    /// The largest `|G|` seen (sampled with `peak_u`).
    pub peak_g: u64,
    /// The largest number of bytes held by the event store, the event log and the state
    /// table together (their allocated capacity).
    pub peak_bytes: u64,
    /// Seconds the exploration took, the explorer's setup (slots, tables) included: what
    /// events per second are measured against, apart from reading the input.
    pub explore_seconds: f64,
}

impl UdporStats {
    /// Whether every maximal configuration was explored.
    pub fn complete(&self) -> bool {
        self.stopped.is_none() && self.depth_cut == 0
    }
}

/// Progress of a running exploration.
#[derive(Clone, Copy, Debug)]
pub struct UdporProgress {
    /// Maximal configurations so far.
    pub maximal_configurations: u64,
    /// Events so far.
    pub events: u64,
    /// Current configuration size.
    pub depth: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Start,
    AfterFirst,
    AfterSecond,
}

/// What is known of an event's conflict with `C` (see `Explorer::conflicts_with_c`). Both
/// facts sit side by side so that a candidate's test reads one cache line.
#[derive(Clone, Copy, Default)]
struct CMemo {
    /// `(k, push id)` when the event was found in conflict with the prefix of `C` of length
    /// `k` carrying that push id at position `k - 1` (conflict is inherited by every
    /// configuration extending it); `k = 0` when unknown.
    conflict_len: u32,
    conflict_id: u64,
    /// The number of pushes made when the event was last found in no conflict with `C` (0
    /// when unknown). Push ids grow along `C`, so the events of `C` pushed by then are a
    /// prefix of it, which that `C` held too: they still leave `[e]` conflict-free.
    compatible_since: u64,
}

/// Entries (log2) of the table of pick conflicts (`Explorer::pick_memo`): 256 KiB.
const PICK_MEMO_BITS: u32 = 14;

/// A verdict of `Explorer::conflicts_with_pick`: whether the pair `key` (pick, member)
/// conflicts, in epoch `epoch` (0: never).
#[derive(Clone, Copy, Default)]
struct PickMemo {
    key: u64,
    epoch: u32,
    conflict: bool,
}

/// Whether a member of a spike can be picked (see `Explorer::spike_verdict`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum SpikeVerdict {
    Member,
    /// Ruled out by a pick so far.
    NotWithPicks,
    /// Ruled out whatever the picks: a cutoff, in `D`, in conflict with `C`, or (for a partial
    /// alternative) with an event of `D` in its history.
    Never,
}

struct Frame {
    /// The events still to add, from an alternative (`A`); once the frame has picked its event
    /// `e`, its child's (`A \ {e}`), and empty here.
    a: Vec<EventId>,
    stage: Stage,
    e: EventId,
}

/// The state of the search for the histories of one transition through a new event.
struct HistorySearch<'a> {
    t: Transition,
    /// The event just added to `C`, through which the histories go.
    e: EventId,
    /// The slots of `t`.
    slots: &'a [Slot],
    /// The open slots (indexes into `slots`), in the order they are chosen.
    order: &'a [usize],
    /// Guards of `t` decided by one slot.
    guards: &'a [Guard],
    /// The last event of the history on every slot (chosen or fixed).
    xs: Vec<ConeEntry>,
    /// Per level of the search, the floor depth of every slot (`slots.len()` per level); kept
    /// up to date on the slots still open only.
    floors: Vec<u32>,
    /// Per level, for each run of slots in one leaf of the cones, the leaf block whose
    /// depths the floors hold already (`runs` per level; none: `u32::MAX`).
    merged: Vec<u32>,
    runs: usize,
    /// For each slot (index into `slots`), its run of slots in one leaf of the cones.
    run_of: &'a [u32],
    /// Per level `f`, the open slots chosen after it (indexes into `slots`, increasing):
    /// `order[f + 1..]` sorted, one level after the other (see
    /// [`rest_at`](Self::rest_at)). Made as levels are first reached.
    rest: Vec<u32>,
    /// Levels whose `rest` is made.
    rest_levels: usize,
    /// The chosen slots whose choice lies below `C`'s last event on the slot: the only ones a
    /// candidate's cone can reach past (every event of `C` is within `C`'s last events).
    lowered: Vec<usize>,
}

impl HistorySearch<'_> {
    /// Where level `f`'s list of `rest` starts: after the lists of `m - 1`, `m - 2`, ...
    /// slots of the levels before it (`m` open slots).
    fn rest_at(&self, f: usize) -> usize {
        let m = self.order.len();
        f * (m - 1) - f * f.saturating_sub(1) / 2
    }
}

/// An event of a candidate history, on the slot of the new event's label it was found on: a
/// candidate immediate predecessor.
#[derive(Clone, Copy)]
struct Candidate {
    event: EventId,
    slot: Slot,
    /// Its depth on that slot.
    depth: u32,
    /// |[event]|.
    size: u32,
}

/// Reusable room for the [`HistorySearch`] of `extensions_through`.
#[derive(Default)]
struct SearchScratch {
    slots: Vec<Slot>,
    guards: Vec<Guard>,
    xs: Vec<ConeEntry>,
    fixed: Vec<bool>,
    floors: Vec<u32>,
    merged: Vec<u32>,
    order: Vec<usize>,
    run_of: Vec<u32>,
    rest: Vec<u32>,
    lowered: Vec<usize>,
}

struct Explorer<'s, S: System + ?Sized> {
    sys: &'s S,
    opts: UdporOptions,
    store: EventStore,
    /// The transitions each event may extend into.
    dependents: Dependents,
    /// By transition: the slot that keys its events' runs in `en` lists.
    key_slot: Vec<Slot>,
    /// By transition: marks `push` sets on the transitions it visits (all false between).
    visit_mark: Vec<bool>,
    /// Scratch room of `Dependents::visit`'s bitsets.
    visit_bits: Vec<u64>,
    /// The transitions `push` visits (scratch room).
    visits: Vec<Transition>,
    /// By slot: whether the event `push` is adding is on it (all false between pushes).
    on_e: Vec<bool>,
    /// By slot: the node of its parent there of the event whose immediate conflicts
    /// `refresh_icf` is updating, if that event is on it (`u32::MAX` between calls).
    d_parent: Vec<u32>,
    /// By transition, for `refresh_icf`'s scan of one slot `s` of `d` (its round): whether
    /// `s` is the first slot that transition shares with `d`'s label.
    first_shared: Vec<(u32, bool)>,
    first_shared_round: u32,
    /// Scratch room of `refresh_icf`: the siblings of `d` that may be in immediate conflict
    /// with it (their histories not yet compared), with their positions among the children.
    sibling_scratch: Vec<(u32, EventId)>,
    /// Scratch room of `refresh_icf`: the immediate conflicts found, with their positions.
    found_scratch: Vec<(u32, EventId)>,
    /// The events of a chunk of `sibling_scratch`, and whether each parts from `d` on one
    /// slot.
    sibling_events: Vec<EventId>,
    parted: Vec<bool>,
    /// Scratch room of the cones' lookups for `parted`.
    cone_room: Vec<u32>,
    /// The candidate events of `push`'s searches, found or made by windows (see
    /// `make_candidates`), and the events they gave: the extensions through the event added.
    candidates: Candidates,
    /// Scratch room of `alternative`: the picks, then the events still to walk in their
    /// histories, and those met.
    alt_picks_scratch: Vec<EventId>,
    seen_scratch: Vec<u32>,
    /// The mark of the current walk in `seen_scratch`.
    seen_round: u32,
    /// Scratch room of `comb`: its choice points.
    choices_scratch: Vec<(usize, usize)>,
    /// By slot: `[e]`'s entry there for the event `e` that push number `.0` added.
    e_cone: Vec<(u64, ConeEntry)>,
    /// Per transition, its guards decided by one of its slots.
    guards: Rows<Guard>,
    /// The configuration `C`, in the order its events were added.
    c: Vec<EventId>,
    /// A number for each position of `C`, given when its event was pushed (never reused):
    /// equal numbers at position `k` mean the same prefix of `C` up to `k`.
    push_ids: Vec<u64>,
    pushes: u64,
    /// By event id: what is known of its conflict with `C`.
    c_memo: Vec<CMemo>,
    /// The slot on which the last candidate found in conflict with `C` was (a hint only).
    c_parting: Option<Slot>,
    /// The slot on which the last spike member found in conflict with a pick parted from it
    /// (a hint only).
    pick_parting: Option<Slot>,
    /// Verdicts of `conflicts_with_pick` by hashed pair `(pick, member)`, valid in the epoch
    /// they carry: the epoch changes when events leave the store, since their ids are then
    /// reused.
    pick_memo: Vec<PickMemo>,
    pick_epoch: u32,
    in_c: Vec<bool>,
    /// By event id: its index in `C`, while `in_c` says it is there.
    c_index: Vec<u32>,
    /// The cone of `C`: the last event on every slot.
    top: Vec<ConeEntry>,
    undo: Vec<(Slot, ConeEntry)>,
    undo_marks: Vec<usize>,
    /// `en(C')` for every prefix `C'` of `C` (level = size), cutoffs left out.
    en: EnStack,
    /// The cutoff events that would extend each prefix.
    en_cutoffs: EnStack,
    /// Which events are cutoffs (by id).
    cutoff: Vec<bool>,
    /// The least local configuration (in the adequate order) reaching each state seen.
    /// Per state: the size of that configuration and its event (log id).
    least: FxHashMap<Vec<u64>, LeastEntry>,
    /// Room for comparing two configurations of one size (see `classify`).
    diff_room: DiffRoom,
    /// For each cutoff, the event it was cut against (⊥ for the initial state), by log id.
    corresponding: FxHashMap<LogId, LogId>,
    /// Events of the first deadlocking configurations, by log id: for pictures only (when
    /// `record_conflicts` is set).
    deadlock_events: FxHashSet<LogId>,
    /// Every distinct event built, with its cutoff verdict.
    log: EventLog,
    /// The log id of every stored event (by store id).
    log_id: Vec<LogId>,
    /// When each stored event was last used (by store id), for least-recently-used eviction.
    last_use: Vec<u64>,
    clock: u64,
    /// The store's size when memory was last measured.
    measured_at: u64,
    /// `event_creations` when the store's size was last read for the memory check.
    bytes_read_at: u64,
    /// Scratch room of `add_candidate` (the candidate and the immediate predecessors), of
    /// `make_new_event` (two states), of `built` (log ids) and of `extensions_through`.
    preds_scratch: Vec<EventId>,
    cands_scratch: Vec<Candidate>,
    /// The events a step may pick, and the events of `A` enabled in `C` (scratch room of
    /// every step of the exploration).
    picks_scratch: Vec<EventId>,
    a_in_c_scratch: Vec<EventId>,
    /// Lists of the frames popped, kept for the `A` of the frames pushed.
    spare_lists: Vec<Vec<EventId>>,
    state_scratch: Vec<u64>,
    log_preds_scratch: Vec<LogId>,
    search_scratch: Option<Box<SearchScratch>>,
    /// Bytes held by the state table `least`.
    least_bytes: u64,
    /// For pictures: immediate conflicts are recorded (also of evicted events) while there
    /// are at most this many events.
    record_conflicts: Option<usize>,
    /// Whether no frame was popped yet. Until then nothing left `U` (no Remove, no level's
    /// extensions dropped), so `U` is every event stored: its size needs no walk.
    first_descent: bool,
    /// Immediate conflicts of evicted events (log ids, smaller first).
    evicted_conflicts: FxHashSet<(LogId, LogId)>,
    /// `state(C)`.
    state: Vec<u64>,
    /// The words each push changed in `state`, with their old values, and where each push's
    /// entries start: popping restores them (a stack of whole states would cost the depth of
    /// `C` times the width of a state).
    state_undo: Vec<(u32, u64)>,
    state_undo_marks: Vec<usize>,
    /// Whether states are too wide to be stored whole (more than [`WHOLE_WORDS`] words): pushes
    /// then fire in place and compare only the words an event's transition touches, and
    /// deadlocks are hashed and stored from the words changed since the last one (the
    /// fields below); smaller states are cheaper handled whole.
    wide: bool,
    /// [`state_hash`]`(state)`, kept as `state` changes when states are wide.
    state_hash: u64,
    /// The words of `state` changed since the last deadlock test (each once, flagged in
    /// `dirty_mark`), and the slot of `deadlock_states` holding the state tested then: a new
    /// deadlock is stored as that state with these words changed, and hashed without being
    /// read.
    dirty: Vec<u32>,
    dirty_mark: Vec<bool>,
    last_tested: Option<u32>,
    dirty_changes: Vec<(u32, u64)>,
    /// `state(∅)`.
    initial: Vec<u64>,
    /// Room for `state(C ∪ {e})` in push.
    next_state: Vec<u64>,
    /// A whole-state buffer where guards read the words of a state kept in blocks.
    guard_room: std::cell::RefCell<Vec<u64>>,
    words: usize,
    /// `D`, the events Explore must not add to `C`.
    disabled: DisabledSet,
    rng: u64,
    /// The run's limits, also checked inside long extension enumerations.
    limits: Limits,
    /// Histories tried since the last limit check.
    tried: u64,
    deadlock_states: StateSet,
    /// Memoised immediate conflicts, by event id (alternatives ask for the same ones at
    /// every frame).
    icf_memo: Vec<Option<Box<IcfMemo>>>,
    /// Bytes held by `icf_memo`'s lists.
    icf_bytes: u64,
    stats: UdporStats,
}

/// A guard of a transition that one of its slots decides: the resource it tests, whose
/// changers all lie on that slot (so the last event of a history there fixes the resource's
/// value after the history), and the slot, also as its index among the transition's slots.
#[derive(Clone, Copy, Debug)]
struct Guard {
    index: usize,
    slot: Slot,
    resource: Resource,
    /// The guard as one field of the state, when the system says ([`System::guard_field`]).
    field: Option<GuardField>,
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
/// them, and gathering the members one by one reads each dependent dozens of times
/// (elevator_3: 1 500 members read for 39 dependents). A transition with no list keeps
/// instead, for each class of each of its slots, the class's members as a bitset over its
/// sorted dependents: the classes that pass are joined word by word, and the bits set name
/// the dependents, sorted.
struct Dependents {
    /// By transition: its dependents, sorted, when there are few
    /// ([`UdporOptions::listed_dependents`]), and whether it has such a list.
    listed: Rows<Transition>,
    is_listed: Vec<bool>,
    /// By slot: its members, class after class.
    members: Rows<Transition>,
    /// By slot: its classes, in the order of `members`: on a token slot, those with no guard
    /// first, then by the resource of their guard.
    classes: Rows<GuardClass>,
    /// By slot: whether it is a token slot
    /// ([`SlotMap::is_token`](crate::unfolding::slots::SlotMap::is_token)).
    token: Vec<bool>,
    /// By resource of a token set: its token slot and the first of the slot's classes guarded
    /// by it (`u32::MAX`: none).
    class_at: Vec<(Slot, u32)>,
    /// By transition with bitsets: every member of its slots, sorted (empty for the others).
    union: Rows<Transition>,
    /// By transition: where its bitsets start in `class_bits` ([`NO_BITS`]: it has none).
    bits_at: Vec<usize>,
    /// For each transition with bitsets, one bitset over its `union` per class of each of
    /// its slots, in the order of the slots and of their classes.
    class_bits: Vec<u64>,
}

/// How many times, at least, a transition's slots must name each of its dependents on
/// average for it to keep bitsets.
const REPEATS_FOR_BITSETS: usize = 4;

/// Event creations before the first sample of `|U|` (by the events created), and the least
/// wait between two.
const SAMPLE_FIRST: u64 = 4096;

/// Event creations between two samples of `|U|` (by the events created), per event the store
/// can hold: a sample reads every stored event at random, several times the cost of making one
/// (Raft-PT-02 without cutoffs, 2 000 000 events: 22 % more time with a wait of one, 8 % with
/// four, 3 % with eight).
const SAMPLE_WAIT: u64 = 8;

/// A transition's entry in `Dependents::bits_at` when it has no bitsets.
const NO_BITS: usize = usize::MAX;

/// Candidates of `refresh_icf` whose cones are read together (see
/// [`EventStore::histories_part_on_each`]).
const SIBLING_CHUNK: usize = 32;

/// What puts members of a slot in one class: the resource of their guard on the slot and its
/// [`System::guard_class`] (or the transition itself, when it has none); `None` for members
/// with no guard on the slot.
type ClassKey = Option<(Resource, Result<u64, Transition>)>;

/// A class of the members of one slot (see [`Dependents`]).
#[derive(Clone, Copy, Default)]
struct GuardClass {
    /// Where the class ends in the slot's members.
    end: u32,
    /// The guard the class shares, as a member and the resource it tests; `None` for the
    /// members with no guard on the slot, which are always looked at.
    guard: Option<(Transition, Resource)>,
    /// That guard as one field of the state, when the system says.
    field: Option<GuardField>,
}

impl Dependents {
    /// Most listed entries in all (32 MiB).
    const LISTED_ENTRIES: usize = 8 << 20;

    /// Most words of bitsets in all (32 MiB), with [`ClassBitsets::Auto`].
    const BITSET_WORDS: usize = 4 << 20;

    fn new<S: System + ?Sized>(
        sys: &S,
        slots: &SlotMap,
        members: &Rows<Transition>,
        guards: &Rows<Guard>,
        listed: usize,
        bitsets: ClassBitsets,
    ) -> Self {
        let n = sys.transition_count();
        let mut deps = Dependents {
            listed: Rows::with_capacity(n, 0),
            is_listed: Vec::with_capacity(n),
            // The same members, grouped by class.
            members: Rows::with_capacity(members.len(), members.items().len()),
            classes: Rows::with_capacity(members.len(), 0),
            token: (0..members.len() as Slot)
                .map(|s| slots.is_token(s))
                .collect(),
            class_at: Vec::new(),
            union: Rows::with_capacity(n, 0),
            bits_at: Vec::with_capacity(n),
            class_bits: Vec::new(),
        };
        let mut entries = 0;
        let mut v: Vec<Transition> = Vec::new();
        for t in 0..n as Transition {
            let mine = slots.of(t);
            let bound: usize = mine.iter().map(|&s| members.row(s as usize).len()).sum();
            // The list is at least as long as the longest slot's members: past `listed`, it
            // is not built (n transitions on one slot would cost n² here).
            let widest = mine
                .iter()
                .map(|&s| members.row(s as usize).len())
                .max()
                .unwrap_or(0);
            v.clear();
            if widest <= listed && bound <= 16 * listed && entries + bound <= Self::LISTED_ENTRIES {
                v.extend(
                    mine.iter()
                        .flat_map(|&s| members.row(s as usize).iter().copied()),
                );
                v.sort_unstable();
                v.dedup();
                if v.len() <= listed {
                    // Left out: dependents whose guard on a slot shared with t always fails
                    // after t (on that slot their history ends with t's event, whose state
                    // decides it). Only on lists kept: on longer ones this would cost the
                    // square of a slot's members, and their classes drop such dependents at
                    // once anyway.
                    v.retain(|&x| {
                        !guards.row(x as usize).iter().any(|g| {
                            mine.binary_search(&g.slot).is_ok() && sys.disables(t, x, g.resource)
                        })
                    });
                    entries += v.len();
                    deps.is_listed.push(true);
                    deps.listed.push_row(v.iter().copied());
                    continue;
                }
            }
            deps.is_listed.push(false);
            deps.listed.push_row([]);
        }
        // Each slot's members by class, the classes in the order their first members come.
        // A class is found from the resource of its key: `head[r]` is the last class made
        // with a key on `r` in the slot at hand, `next_of[c]` the one made before `c` (classes
        // of one resource are few); `head` is reset after each slot (O(members), where a
        // hash map of keys cost a third of the setup on a slot of a million members).
        let mut head: Vec<u32> = vec![u32::MAX; sys.resource_count()];
        let mut next_of: Vec<u32> = Vec::new();
        let mut keyed: Vec<(u32, Transition)> = Vec::new();
        let mut keys: Vec<ClassKey> = Vec::new();
        let mut ends: Vec<u32> = Vec::new();
        for s in 0..members.len() {
            keyed.clear();
            keys.clear();
            next_of.clear();
            let mut unguarded = u32::MAX;
            for &t in members.row(s) {
                let key: ClassKey = guards
                    .row(t as usize)
                    .iter()
                    // On a token slot, a mover's class is that of its guard on a resource of
                    // the set (the place it takes the token from), which visit relies on.
                    .find(|g| {
                        g.slot == s as Slot
                            && (!deps.token[s] || slots.token_slot_of(g.resource) == Some(g.slot))
                    })
                    .map(|g| (g.resource, sys.guard_class(t, g.resource).ok_or(t)));
                let known = match key {
                    None => (unguarded != u32::MAX).then_some(unguarded),
                    // A guard with no class is a class of its own.
                    Some((_, Err(_))) => None,
                    Some((r, Ok(_))) => {
                        let mut c = head[r as usize];
                        while c != u32::MAX && keys[c as usize] != key {
                            c = next_of[c as usize];
                        }
                        (c != u32::MAX).then_some(c)
                    }
                };
                let class = known.unwrap_or_else(|| {
                    let c = keys.len() as u32;
                    keys.push(key);
                    match key {
                        None => {
                            unguarded = c;
                            next_of.push(u32::MAX);
                        }
                        Some((r, _)) => {
                            next_of.push(head[r as usize]);
                            head[r as usize] = c;
                        }
                    }
                    c
                });
                keyed.push((class, t));
            }
            for (r, _) in keys.iter().flatten() {
                head[*r as usize] = u32::MAX;
            }
            if deps.token[s] {
                // Classes by the resource of their guard (`None` first), and an index from
                // each resource to its first class: an event finds the classes of the places
                // it changed without a scan.
                let mut order: Vec<u32> = (0..keys.len() as u32).collect();
                order.sort_by_key(|&c| keys[c as usize].map(|(r, _)| r));
                let mut rank = vec![0; keys.len()];
                for (i, &c) in order.iter().enumerate() {
                    rank[c as usize] = i as u32;
                }
                for k in &mut keyed {
                    k.0 = rank[k.0 as usize];
                }
                keys = order.iter().map(|&c| keys[c as usize]).collect();
                for (c, key) in keys.iter().enumerate().rev() {
                    if let Some((r, _)) = key {
                        extend_to(&mut deps.class_at, *r as usize + 1, (0, u32::MAX));
                        deps.class_at[*r as usize] = (s as Slot, c as u32);
                    }
                }
            }
            // Stable: a class keeps its members in order.
            keyed.sort_by_key(|&(class, _)| class);
            deps.members.push_row(keyed.iter().map(|&(_, t)| t));
            // Where each class ends in `keyed`.
            ends.clear();
            ends.resize(keys.len(), 0);
            keyed.iter().for_each(|&(c, _)| ends[c as usize] += 1);
            ends.iter_mut().fold(0, |sum, end| {
                *end += sum;
                *end
            });
            deps.classes
                .push_row(keys.iter().enumerate().map(|(c, key)| {
                    let start = c.checked_sub(1).map_or(0, |b| ends[b]) as usize;
                    let end = ends[c];
                    let guard = key.map(|(r, _)| (keyed[start].1, r));
                    GuardClass {
                        end,
                        guard,
                        field: guard.and_then(|(rep, r)| {
                            guards
                                .row(rep as usize)
                                .iter()
                                .find(|g| g.slot == s as Slot && g.resource == r)
                                .and_then(|g| g.field)
                        }),
                    }
                }));
        }
        deps.build_bitsets(slots, bitsets);
        deps
    }

    /// The bitsets of the transitions with no list, as `mode` says. `Auto` keeps them while
    /// they fit in [`Self::BITSET_WORDS`] words and their members, read slot by slot, in twice
    /// as many reads (`n` transitions on one slot would otherwise cost n² reads here).
    fn build_bitsets(&mut self, slots: &SlotMap, mode: ClassBitsets) {
        let n = self.is_listed.len();
        let (budget, repeats_wanted) = match mode {
            ClassBitsets::Auto => (Self::BITSET_WORDS, REPEATS_FOR_BITSETS),
            ClassBitsets::Always => (usize::MAX / 4, 0),
            ClassBitsets::Never => (0, 0),
        };
        let mut reads_left = 2 * budget;
        // By transition: its index in the union being built (`u32::MAX` outside it). The
        // members repeat from slot to slot: they are not sorted with their repeats.
        let mut index = vec![u32::MAX; n];
        let mut union: Vec<Transition> = Vec::new();
        for t in 0..n as Transition {
            let mine = slots.of(t);
            // On one slot, every dependent is read once: bitsets never pay.
            if self.is_listed[t as usize] || (mine.len() <= 1 && repeats_wanted > 1) {
                self.bits_at.push(NO_BITS);
                self.union.push_row([]);
                continue;
            }
            union.clear();
            let rows = || mine.iter().map(|&s| self.members.row(s as usize).len());
            let (reads, widest) = (rows().sum::<usize>(), rows().max().unwrap_or(0));
            let classes: usize = mine
                .iter()
                .map(|&s| self.classes.row(s as usize).len())
                .sum();
            // Bitsets pay where a dependent is a member of many of the slots (its reads then
            // repeat); the union is at least as wide as the widest slot.
            let repeats = |union: usize| reads >= repeats_wanted * union;
            let fits = |words: usize| self.class_bits.len() + words * classes <= budget;
            if repeats(widest) && reads <= reads_left && fits(widest.div_ceil(64)) {
                reads_left -= reads;
                for &s in mine {
                    for &x in self.members.row(s as usize) {
                        if index[x as usize] == u32::MAX {
                            index[x as usize] = 0;
                            union.push(x);
                        }
                    }
                }
                union.sort_unstable();
                for (i, &x) in union.iter().enumerate() {
                    index[x as usize] = i as u32;
                }
            }
            let words = union.len().div_ceil(64);
            if union.is_empty() || !repeats(union.len()) || !fits(words) {
                self.bits_at.push(NO_BITS);
            } else {
                self.bits_at.push(self.class_bits.len());
                for &s in mine {
                    let members = self.members.row(s as usize);
                    let mut start = 0;
                    for class in self.classes.row(s as usize) {
                        let base = self.class_bits.len();
                        self.class_bits.resize(base + words, 0);
                        for &x in &members[start..class.end as usize] {
                            let i = index[x as usize] as usize;
                            self.class_bits[base + i / 64] |= 1 << (i % 64);
                        }
                        start = class.end as usize;
                    }
                }
            }
            let kept = self.bits_at[t as usize] != NO_BITS;
            self.union.push_row(union.iter().copied().filter(|_| kept));
            for &x in &union {
                index[x as usize] = u32::MAX;
            }
        }
    }

    /// Puts into `out`, sorted, the transitions an event labelled `t`, on `slots`, may
    /// extend into (`footprint` is `t`'s): its dependents, less (when they are many) the
    /// classes whose guard `holds(transition, resource, field)` denies in the event's local
    /// state. `mark` is all false, by transition, and left so; `bits` is scratch.
    fn visit(
        &self,
        (t, slots, footprint): (Transition, &[Slot], &Footprint),
        holds: impl Fn(Transition, Resource, Option<GuardField>) -> bool,
        mark: &mut [bool],
        bits: &mut Vec<u64>,
        out: &mut Vec<Transition>,
    ) {
        out.clear();
        if self.is_listed[t as usize] {
            out.extend_from_slice(self.listed.row(t as usize));
            return;
        }
        if self.bits_at[t as usize] != NO_BITS {
            let union = self.union.row(t as usize);
            let words = union.len().div_ceil(64);
            bits.clear();
            bits.resize(words, 0);
            let mut at = self.bits_at[t as usize];
            for &s in slots {
                for class in self.classes.row(s as usize) {
                    let passes = class
                        .guard
                        .is_none_or(|(rep, r)| holds(rep, r, class.field));
                    if passes {
                        for (acc, &b) in bits.iter_mut().zip(&self.class_bits[at..at + words]) {
                            *acc |= b;
                        }
                    }
                    at += words;
                }
            }
            for (w, &word) in bits.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    out.push(union[w * 64 + word.trailing_zeros() as usize]);
                    word &= word - 1;
                }
            }
            return;
        }
        for &s in slots {
            let members = self.members.row(s as usize);
            let classes = self.classes.row(s as usize);
            let mut take = |i: usize| {
                let class = &classes[i];
                if let Some((rep, r)) = class.guard
                    && !holds(rep, r, class.field)
                {
                    return;
                }
                let start = if i == 0 {
                    0
                } else {
                    classes[i - 1].end as usize
                };
                for &x in &members[start..class.end as usize] {
                    if !mark[x as usize] {
                        mark[x as usize] = true;
                        out.push(x);
                    }
                }
            };
            if !self.token[s as usize] {
                (0..classes.len()).for_each(take);
                continue;
            }
            // On a token slot, the guards on the resources of the set that t did not change
            // fail (`System::token_sets`): only the classes with no guard and those on the
            // resources t changed are looked at, not one class per place of the set.
            (0..classes.len())
                .take_while(|&i| classes[i].guard.is_none())
                .for_each(&mut take);
            for touch in footprint {
                let r = touch.resource;
                let (on, from) = self
                    .class_at
                    .get(r as usize)
                    .copied()
                    .unwrap_or((0, u32::MAX));
                if on != s || from == u32::MAX || !touch.access.conflicts_with(Access::READ) {
                    continue;
                }
                (from as usize..classes.len())
                    .take_while(|&i| classes[i].guard.is_some_and(|(_, x)| x == r))
                    .for_each(&mut take);
            }
        }
        for &x in out.iter() {
            mark[x as usize] = false;
        }
        out.sort_unstable();
    }
}

/// The least local configuration known to reach a state.
struct LeastEntry {
    size: u32,
    event: LogId,
}

/// The most candidate events noted before they are found or made (see
/// `Explorer::make_candidates`): enough for their probes to overlap, few enough that the
/// events come out while the search goes on, which checks the time limit (a step may have
/// millions: Dekker-PT-010 without cutoffs), and that the notes take little room. (Debug
/// builds keep windows of 3, so that their tests make events in the middle of searches too.)
const CANDIDATE_WINDOW: usize = if cfg!(debug_assertions) { 3 } else { 1024 };

/// Candidate events `<t, H>` (see `Explorer::add_candidate`): each with its immediate
/// predecessors and its last events on the slots of `t`, in flat arrays.
#[derive(Default)]
struct Candidates {
    /// `(t, end of its preds, end of its last events)`.
    heads: Vec<(Transition, u32, u32)>,
    preds: Vec<EventId>,
    xs: Vec<ConeEntry>,
    /// Scratch room of `make_candidates`: what the store holds of each.
    found: Vec<Option<EventId>>,
    /// The events found or made, in order.
    made: Vec<EventId>,
}

impl Candidates {
    fn clear(&mut self) {
        self.clear_notes();
        self.made.clear();
    }

    /// Forgets the candidates (not the events they gave).
    fn clear_notes(&mut self) {
        self.heads.clear();
        self.preds.clear();
        self.xs.clear();
    }

    fn len(&self) -> usize {
        self.heads.len()
    }

    fn push(&mut self, t: Transition, preds: &[EventId], xs: &[ConeEntry]) {
        self.preds.extend_from_slice(preds);
        self.xs.extend_from_slice(xs);
        self.heads
            .push((t, self.preds.len() as u32, self.xs.len() as u32));
    }

    /// The `k`-th candidate.
    fn get(&self, k: usize) -> (Transition, &[EventId], &[ConeEntry]) {
        let (p0, x0) = match k.checked_sub(1) {
            Some(j) => (self.heads[j].1 as usize, self.heads[j].2 as usize),
            None => (0, 0),
        };
        let (t, p1, x1) = self.heads[k];
        (t, &self.preds[p0..p1 as usize], &self.xs[x0..x1 as usize])
    }
}

/// The events in immediate conflict with one event that are not cutoffs (they are all among
/// its siblings on its slots), valid while the store's [`EventStore::siblings_removals`] of
/// that event equals `removals`: siblings are then only appended, and `seen[i]` is the last
/// of those on the event's `i`-th slot that was looked at.
///
/// Most events have few slots and few immediate conflicts: both lists are kept inline, and a
/// memo then costs one allocation (a store holds one per event of `D` it has met).
struct IcfMemo {
    removals: u64,
    seen: SmallVec<[ChildCursor; 4]>,
    events: SmallVec<[EventId; 4]>,
    /// `(k, len, mark)`: `events[..k]` all lie in the prefix of `D` of length `len` that
    /// carried `mark` (see [`DisabledSet::prefix_mark`]); alternatives skip them while that
    /// prefix stays.
    past_d: (u32, u32, u64),
}

impl IcfMemo {
    fn bytes(&self) -> u64 {
        let spilled = |on_heap: bool, bytes: usize| if on_heap { bytes } else { 0 };
        (std::mem::size_of::<IcfMemo>()
            + spilled(self.events.spilled(), self.events.capacity() * 4)
            + spilled(
                self.seen.spilled(),
                self.seen.capacity() * std::mem::size_of::<ChildCursor>(),
            )) as u64
    }
}

/// Extends a table indexed by event id to `len` entries, growing its room by an eighth at a
/// time rather than doubling it: under a memory limit a doubling of a large table is a jump
/// the explorer's periodic measure may not see coming.
fn extend_to<T: Clone>(v: &mut Vec<T>, len: usize, fill: T) {
    extend_with(v, len, || fill.clone());
}

/// [`extend_to`] with new entries made by `fill`.
fn extend_with<T>(v: &mut Vec<T>, len: usize, mut fill: impl FnMut() -> T) {
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

/// One explored event, for pictures of the unfolding.
#[derive(Clone, Debug)]
pub struct ExploredEvent {
    /// Its transition.
    pub label: Transition,
    /// Immediate predecessors (ids into the event list, ⊥ left out).
    pub preds: Vec<EventId>,
    /// Whether it is a cutoff.
    pub cutoff: bool,
    /// For a cutoff: the event it was cut against (`None`: the initial state).
    pub corresponding: Option<EventId>,
    /// Whether it belongs to one of the first deadlocking configurations found.
    pub in_deadlock: bool,
}

/// The events explored, their immediate conflicts and the statistics.
pub struct UdporOutcome {
    /// Statistics.
    pub stats: UdporStats,
    /// Every event built (index = id - 1; ⊥ is not listed).
    pub events: Vec<ExploredEvent>,
    /// Pairs of events in immediate conflict (ids, smaller first).
    pub conflicts: Vec<(EventId, EventId)>,
}

/// Explores every maximal configuration of the unfolding of `sys`.
pub fn explore<S: System + ?Sized>(
    sys: &S,
    opts: &UdporOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(UdporProgress),
) -> Result<UdporStats, Overflow> {
    Ok(explore_with_events(sys, opts, limits, progress, None)?.stats)
}

/// Like [`explore`], and also returns the explored events when `with_events` is `Some(n)`; their
/// immediate conflicts too when there are at most `n` events (a picture's size limit: finding
/// them costs the square of the number of siblings of an event, too much on large runs).
pub fn explore_with_events<S: System + ?Sized>(
    sys: &S,
    opts: &UdporOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(UdporProgress),
    with_events: Option<usize>,
) -> Result<UdporOutcome, Overflow> {
    let start = std::time::Instant::now();
    let mut x = Explorer::new(sys, opts.clone());
    x.limits = limits.clone();
    x.record_conflicts = with_events;
    x.run(limits, progress)?;
    if x.first_descent {
        // Stopped before the first pop (or a single descent): U is every event stored.
        x.note_u_of_first_descent();
    }
    // The last sample walks everything stored: after a limit struck, stop promptly instead
    // (the peaks are those of the samples taken during the run).
    if x.stats.stopped.is_none() {
        x.sample_u_and_g(&[]);
    }
    x.stats.events = x.log.len() as u64 - 1;
    x.stats.store_bytes = x.store.bytes();
    x.stats.flat_cones = x.store.cones_are_flat();
    x.stats.slots = x.store.slots().count() as u64;
    x.stats.token_slots = x.store.slots().token_count() as u64;
    x.stats.assembled_histories = x.store.assembles_histories();
    x.stats.peak_bytes = x.stats.peak_bytes.max(x.accounted_bytes());
    x.stats.explore_seconds = start.elapsed().as_secs_f64();
    if opts.record_states {
        x.stats.deadlock_states = Some(x.deadlock_states.states(x.store.state_blocks()).collect());
    }
    let (events, conflicts) = if let Some(cap) = with_events {
        x.explored_events(cap)
    } else {
        (Vec::new(), Vec::new())
    };
    let stats = std::mem::take(&mut x.stats);
    if !opts.release_memory {
        std::mem::forget(x);
    }
    Ok(UdporOutcome {
        stats,
        events,
        conflicts,
    })
}

impl<'s, S: System + ?Sized> Explorer<'s, S> {
    fn new(sys: &'s S, opts: UdporOptions) -> Self {
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

    /// For every transition `t` and resource `r` that `t` tests, the slot of `t` (if any) that
    /// holds every transition changing `r`: the last event of a history on that slot fixes
    /// `r`'s value after the history. `changers` are the transitions changing each resource
    /// ([`SlotMap::with_cover_and_changers`]).
    fn single_slot_guards(sys: &S, slots: &SlotMap, changers: &Rows<Transition>) -> Rows<Guard> {
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

    fn flag(v: &mut Vec<bool>, e: EventId) -> &mut bool {
        extend_to(v, e as usize + 1, false);
        &mut v[e as usize]
    }

    fn is_in(v: &[bool], e: EventId) -> bool {
        v.get(e as usize).copied().unwrap_or(false)
    }

    /// `t`'s guard on resource `r` in `state([x])` ([`System::enabled_on`]). A state kept
    /// in blocks is not read whole: only `r`'s words.
    #[inline]
    fn enabled_on_event(&self, x: EventId, t: Transition, r: Resource) -> bool {
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
    #[inline]
    fn guard_holds(&self, x: EventId, t: Transition, g: &Guard) -> bool {
        let holds = match g.field {
            Some(f) => f.holds_on(self.store.state_word(x, f.word as usize)),
            None => self.enabled_on_event(x, t, g.resource),
        };
        debug_assert_eq!(holds, self.enabled_on_event(x, t, g.resource));
        holds
    }

    /// `e ∈ en(C)` for an event whose history lies in `C`: on each of its slots, `C` ends
    /// where `e`'s history does.
    fn enabled_in_c(&self, e: EventId) -> bool {
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
    fn justified(&self, d: EventId) -> bool {
        !self.enabled_in_c(d)
    }

    fn run(
        &mut self,
        limits: &Limits,
        progress: &mut dyn FnMut(UdporProgress),
    ) -> Result<(), Overflow> {
        if self.opts.cutoffs.is_some() {
            self.least_bytes += (self.words * 8 + 64) as u64;
            self.least
                .insert(self.initial.clone(), LeastEntry { size: 0, event: 0 });
        }
        if self.opts.record_states {
            self.stats.visited_states = Some(FxHashSet::default());
        }
        // en(∅): the events <t, {⊥}>.
        let mut initial = Vec::new();
        let mut xs = Vec::new();
        for t in 0..self.sys.transition_count() as Transition {
            if self.stats.stopped.is_some() {
                break;
            }
            // A wide net has many initial events, each as large as its number of slots.
            if t % 64 == 63 {
                let held = self.accounted_bytes();
                if let Err(r) = limits.check_time().and_then(|_| limits.check_memory(held)) {
                    self.stats.stopped = Some(r);
                    return Ok(());
                }
            }
            if self.sys.is_enabled(&self.initial, t) {
                xs.clear();
                xs.extend(
                    self.store
                        .slots()
                        .of(t)
                        .iter()
                        .map(|&s| ConeEntry::bottom(s)),
                );
                // (The store holds ⊥ alone: no event is found again.)
                let e = self
                    .make_new_event(t, &[BOTTOM], &xs)?
                    .expect("t is enabled at the initial state");
                initial.push(e);
            }
        }
        if self.stats.stopped.is_some() {
            // A limit struck among the minimal events (`--max-events`, or the state table's
            // memory).
            return Ok(());
        }
        self.en.open();
        self.en_cutoffs.open();
        for e in initial {
            let list = if self.cutoff[e as usize] {
                &mut self.en_cutoffs
            } else {
                &mut self.en
            };
            list.push(e, self.key_slot[self.store.label(e) as usize]);
        }

        let mut frames = vec![Frame {
            a: Vec::new(),
            stage: Stage::Start,
            e: BOTTOM,
        }];
        let mut steps: u64 = 0;
        // The step from which `|U|` may be sampled again, and the event creations and the
        // store's size at the last sample (see `sample_due`).
        let mut next_sample: u64 = 0;
        let mut last_sample: Option<(u64, u64)> = None;
        // Whether the samples' schedule started, from the end of the first descent (which
        // counts as a sample, see `first_descent`).
        let mut sampling = false;
        while !frames.is_empty() {
            steps += 1;
            if !sampling && !self.first_descent {
                sampling = true;
                let held = self.store.id_bound() as u64;
                (next_sample, last_sample) =
                    (steps + held, Some((self.stats.event_creations, held)));
            }
            // Between two steps no search holds cone blocks: the store may change its layout.
            self.store.choose_cone_layout();
            // Memory is measured every 256 steps, and whenever the store grew by a 64th of
            // the limit since the last measure.
            // (The store's size is read only once 16 events were made since the last read:
            // it sums a score of tables, which cost a few percent of a run read at every step.)
            let grown = |x: &mut Self, limit: u64| {
                x.stats.event_creations >= x.bytes_read_at + 16 && {
                    x.bytes_read_at = x.stats.event_creations;
                    x.store.bytes() > x.measured_at + limit / 64
                }
            };
            if let Some(limit) = limits.mem_limit()
                && (steps.is_multiple_of(256) || grown(self, limit))
            {
                self.measured_at = self.store.bytes();
                self.stats.peak_bytes = self.stats.peak_bytes.max(self.accounted_bytes());
                if !self.make_room(limit, &frames) {
                    self.stats.stopped = Some(StopReason::MemoryLimit);
                    return Ok(());
                }
            }
            if steps.is_multiple_of(1024) {
                progress(UdporProgress {
                    maximal_configurations: self.stats.maximal_configurations,
                    events: self.log.len() as u64 - 1,
                    depth: self.c.len(),
                });
                // A sample walks the whole store: it waits at least as many steps as the store
                // has events, so that sampling stays a small share of a long run.
                if steps.is_multiple_of(8192) && steps >= next_sample && sampling {
                    (next_sample, last_sample) = self.sample_u_at(&frames, steps);
                }
                if let Err(r) = limits.check_time() {
                    self.stats.stopped = Some(r);
                    return Ok(());
                }
            }
            // A step may create thousands of events (runs stopped by a limit before 8192
            // steps, such as Raft-PT-02's first 300 000 events, had no sample at all): a sample
            // is also due once `SAMPLE_WAIT` times as many events as the store held at the
            // last one were created.
            if sampling && self.sample_due(last_sample) {
                (next_sample, last_sample) = self.sample_u_at(&frames, steps);
            }
            let frame = frames.last_mut().expect("the stack is not empty");
            match frame.stage {
                Stage::Start => {
                    let level = self.c.len();
                    if let Some(states) = &mut self.stats.visited_states {
                        states.insert(self.state.clone());
                    }
                    if self.en.is_empty(level) {
                        self.record_maximal();
                        // U is largest at the leaves: sample there too, at the 2nd, 4th,
                        // 8th... maximal configuration within the same budget of steps as
                        // above (a sample walks U, which can hold the whole store: the n-way
                        // conflict's n events are all in en(∅)). The first ends the first
                        // descent, whose U needs no walk (`pop_frame`).
                        let count = self.stats.maximal_configurations;
                        if count > 1 && count.is_power_of_two() && steps >= next_sample {
                            (next_sample, last_sample) = self.sample_u_at(&frames, steps);
                        }
                        self.pop_frame(&mut frames);
                        continue;
                    }
                    if level >= self.opts.max_depth {
                        self.stats.depth_cut += 1;
                        self.pop_frame(&mut frames);
                        continue;
                    }
                    // (Scratch room, taken and given back: this runs at every step.)
                    let mut candidates = std::mem::take(&mut self.picks_scratch);
                    candidates.clear();
                    if frame.a.is_empty() {
                        candidates.extend(
                            self.en
                                .events(level)
                                .iter()
                                .copied()
                                .filter(|&e| !self.disabled.contains(e)),
                        );
                    } else {
                        // en(C) ∩ A: the events of A whose history lies in C. Found from A, which
                        // is usually far shorter than en(C); several are put in en(C)'s order,
                        // which the picks follow.
                        let mut found = std::mem::take(&mut self.a_in_c_scratch);
                        found.clear();
                        found.extend(frame.a.iter().copied().filter(|&x| self.enabled_in_c(x)));
                        if found.len() > 1 {
                            found.sort_unstable();
                            candidates.extend(
                                self.en
                                    .events(level)
                                    .iter()
                                    .copied()
                                    .filter(|e| found.binary_search(e).is_ok()),
                            );
                        } else {
                            candidates.extend_from_slice(&found);
                        }
                        self.a_in_c_scratch = found;
                        debug_assert!(candidates.iter().all(|e| self.en.events(level).contains(e)));
                        debug_assert_eq!(
                            candidates.len(),
                            self.en
                                .events(level)
                                .iter()
                                .filter(|e| frame.a.contains(e))
                                .count()
                        );
                    }
                    if candidates.is_empty() {
                        self.picks_scratch = candidates;
                        self.stats.blocked += 1;
                        self.pop_frame(&mut frames);
                        continue;
                    }
                    let e = self.pick(&candidates);
                    self.picks_scratch = candidates;
                    debug_assert!(!self.disabled.contains(e), "C and D stay disjoint");
                    // A \ {e} goes to the child; this frame's A is not read again (what it
                    // held is the child's A and e, in C): its list moves down, no allocation.
                    let mut rest = std::mem::take(&mut frame.a);
                    rest.retain(|&x| x != e);
                    frame.e = e;
                    frame.stage = Stage::AfterFirst;
                    self.push(e)?;
                    if self.stats.stopped.is_some() {
                        // A limit struck while extending: en(C ∪ {e}) is partial, stop here.
                        return Ok(());
                    }
                    frames.push(Frame {
                        a: rest,
                        stage: Stage::Start,
                        e: BOTTOM,
                    });
                }
                Stage::AfterFirst => {
                    let e = frame.e;
                    frame.stage = Stage::AfterSecond;
                    self.pop();
                    let joins = self.joins_last_run(e);
                    self.disabled.push(e, joins);
                    self.stats.alternatives_searched += 1;
                    if let Some(a) = self.alternative() {
                        self.stats.alternatives_found += 1;
                        frames.push(Frame {
                            a,
                            stage: Stage::Start,
                            e: BOTTOM,
                        });
                    }
                }
                Stage::AfterSecond => {
                    let e = frame.e;
                    let popped = self.disabled.pop();
                    debug_assert_eq!(popped, Some(e));
                    self.pop_frame(&mut frames);
                    if self.opts.cache == Cache::Off {
                        // Remove(e, C, D): everything outside U leaves memory.
                        self.sample_u_and_g(&frames);
                        self.evict(&frames, usize::MAX);
                    }
                }
            }
        }
        Ok(())
    }

    /// Pops the top frame, keeping its list for a frame to come.
    fn pop_frame(&mut self, frames: &mut Vec<Frame>) {
        if self.first_descent {
            // The first descent ends: `U` is at its largest so far, and may shrink from here.
            self.note_u_of_first_descent();
            debug_assert_eq!(
                self.pinned(frames).iter().filter(|&&k| k).count() as u64 - 1,
                self.store.live() as u64,
                "U is the whole store until the first pop"
            );
            self.first_descent = false;
        }
        if let Some(f) = frames.pop()
            && f.a.capacity() > 0
        {
            self.spare_lists.push(f.a);
        }
    }

    fn pick(&mut self, candidates: &[EventId]) -> EventId {
        match self.opts.pick {
            Pick::First => candidates[0],
            Pick::Last => candidates[candidates.len() - 1],
            Pick::Random(_) => {
                // xorshift64*: deterministic for a seed, no dependency needed.
                self.rng ^= self.rng >> 12;
                self.rng ^= self.rng << 25;
                self.rng ^= self.rng >> 27;
                let r = self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D);
                candidates[(r % candidates.len() as u64) as usize]
            }
        }
    }

    fn record_maximal(&mut self) {
        self.stats.maximal_configurations += 1;
        let level = self.c.len();
        if !self.en_cutoffs.is_empty(level) {
            self.stats.ended_by_cutoff += 1;
        }
        let state = &self.state;
        // Every transition enabled at state(C) has an event in en(C): with en(C) empty, the
        // state is a deadlock iff no cutoff is enabled either (asking the system instead costs
        // O(transitions) per maximal configuration).
        let stuck = self.en_cutoffs.is_empty(level);
        debug_assert_eq!(
            stuck,
            !(0..self.sys.transition_count() as Transition).any(|t| self.sys.is_enabled(state, t))
        );
        if !stuck || self.sys.is_terminal(state) {
            return;
        }
        let local = (self.c.last())
            .filter(|&&e| self.store.size(e) as usize == self.c.len())
            .copied();
        let blocks = self.store.state_blocks_mut();
        let new = if self.wide {
            // C = [e] for its last event e (n-way conflicts, sequential runs): the state is
            // e's, whose tree the set shares. Otherwise it is stored as the state of the last
            // test with the words changed since.
            let mut changes = std::mem::take(&mut self.dirty_changes);
            changes.clear();
            changes.extend(self.dirty.iter().map(|&w| (w, state[w as usize])));
            let known = match (local, self.last_tested) {
                (Some(e), _) => Known::Slot(e),
                (None, Some(l)) => Known::Like(l, &mut changes[..]),
                (None, None) => Known::Nothing,
            };
            let (slot, new) =
                self.deadlock_states
                    .insert_hashed(blocks, state, self.state_hash, known);
            self.dirty_changes = changes;
            self.last_tested = Some(slot);
            for &w in &self.dirty {
                self.dirty_mark[w as usize] = false;
            }
            self.dirty.clear();
            new
        } else {
            self.deadlock_states.insert(blocks, state)
        };
        if new {
            self.stats.deadlocks += 1;
            // (Only pictures show them.)
            if self.record_conflicts.is_some() && self.deadlock_events.len() < 256 {
                let lids: Vec<LogId> = self.c.iter().map(|&e| self.log_id[e as usize]).collect();
                self.deadlock_events.extend(lids);
            }
            if self.stats.deadlock_witness.is_none() {
                self.stats.deadlock_witness =
                    Some(self.c.iter().map(|&e| self.store.label(e)).collect());
            }
        }
    }

    /// Adds `e ∈ en(C)` to `C` and computes `en(C ∪ {e})`.
    fn push(&mut self, e: EventId) -> Result<(), Overflow> {
        let level = self.c.len();
        // state(C ∪ {e}), with the words it changes remembered for pop.
        let label = self.store.label(e);
        let mark = self.state_undo.len();
        self.state_undo_marks.push(mark);
        let mut next = std::mem::take(&mut self.next_state);
        match self.store.touched_words(label).filter(|_| self.wide) {
            Some(words) => {
                // Only the words of e's footprint can change: fire in place, compare those.
                next.clear();
                next.extend(words.iter().map(|&w| self.state[w as usize]));
                self.sys.fire_in_place(&mut self.state, label)?;
                for (&w, &old) in words.iter().zip(&next) {
                    if self.state[w as usize] != old {
                        self.state_undo.push((w, old));
                    }
                }
            }
            None => {
                next.resize(self.words, 0);
                self.sys.fire(&self.state, label, &mut next)?;
                for (w, (now, new)) in self.state.iter_mut().zip(&next).enumerate() {
                    if *now != *new {
                        self.state_undo.push((w as u32, *now));
                        *now = *new;
                    }
                }
            }
        }
        self.next_state = next;
        if self.wide {
            for i in mark..self.state_undo.len() {
                let (w, old) = self.state_undo[i];
                self.note_change(w, old, self.state[w as usize]);
            }
        }
        self.touch(e);
        extend_to(&mut self.c_index, e as usize + 1, 0);
        self.c_index[e as usize] = self.c.len() as u32;
        self.c.push(e);
        self.pushes += 1;
        self.push_ids.push(self.pushes);
        *Self::flag(&mut self.in_c, e) = true;
        self.undo_marks.push(self.undo.len());
        for (k, &s) in self.store.event_slots(e).iter().enumerate() {
            self.undo.push((s, self.top[s as usize]));
            self.top[s as usize] = self.store.entry_on_kth(e, k);
        }
        self.stats.max_configuration_size =
            self.stats.max_configuration_size.max(self.c.len() as u64);
        // e's slots as flags, and [e]'s entries as they are looked up: every transition
        // visited below asks about each of its slots.
        extend_to(&mut self.on_e, self.store.slots().count(), false);
        for &s in self.store.event_slots(e) {
            self.on_e[s as usize] = true;
        }
        extend_to(
            &mut self.e_cone,
            self.store.slots().count(),
            (0, ConeEntry::bottom(0)),
        );
        // An extension x of C stays one of C ∪ {e} iff it shares no slot with e: on a shared
        // slot its parent is C's last event there, which e has just replaced. A run keyed by
        // one of e's slots goes whole.
        debug_assert_eq!(self.en.levels(), level + 1);
        let (on_e, store) = (&self.on_e, &self.store);
        for list in [&mut self.en, &mut self.en_cutoffs] {
            self.stats.enabled_checks += list.open_from_top(
                |key| on_e[key as usize],
                |x| x != e && !store.event_slots(x).iter().any(|&s| on_e[s as usize]),
            );
        }
        // Exactly the events of en(C) other than e that C ∪ {e} leaves enabled stay.
        debug_assert!([&self.en, &self.en_cutoffs].iter().all(|list| {
            let (kept, before) = (list.events(level + 1), list.events(level));
            kept.iter().all(|&x| self.enabled_in_c(x))
                && kept.len()
                    == before
                        .iter()
                        .filter(|&&x| x != e && self.enabled_in_c(x))
                        .count()
        }));
        // The new extensions: events of transitions on e's slots, but not of a class whose
        // guard state([e]) fails. They are searched in the order of transitions.
        let mut visits = std::mem::take(&mut self.visits);
        let mut mark = std::mem::take(&mut self.visit_mark);
        let mut bits = std::mem::take(&mut self.visit_bits);
        extend_to(&mut mark, self.sys.transition_count(), false);
        self.dependents.visit(
            (
                self.store.label(e),
                self.store.event_slots(e),
                self.sys.footprint(self.store.label(e)),
            ),
            |t, r, field| match field {
                Some(f) => f.holds_on(self.store.state_word(e, f.word as usize)),
                None => self.enabled_on_event(e, t, r),
            },
            &mut mark,
            &mut bits,
            &mut visits,
        );
        self.visit_mark = mark;
        self.visit_bits = bits;
        self.stats.extension_searches += visits.len() as u64;
        self.candidates.clear();
        let searched = visits.iter().try_for_each(|&t| {
            if self.guards_allow(t, e) {
                self.extensions_through(t, e)
            } else {
                Ok(())
            }
        });
        self.visits = visits;
        for &s in self.store.event_slots(e) {
            self.on_e[s as usize] = false;
        }
        searched?;
        self.make_candidates()?;
        let found = std::mem::take(&mut self.candidates.made);
        for &x in &found {
            if !self.enabled_in_c(x) {
                continue;
            }
            let list = if self.cutoff[x as usize] {
                &mut self.en_cutoffs
            } else {
                &mut self.en
            };
            debug_assert!(!list.events(level + 1).contains(&x));
            list.push(x, self.key_slot[self.store.label(x) as usize]);
        }
        self.candidates.made = found;
        Ok(())
    }

    /// Removes the last event of `C`.
    fn pop(&mut self) {
        let e = self.c.pop().expect("C is not empty");
        self.push_ids.pop();
        self.in_c[e as usize] = false;
        let mark = self.undo_marks.pop().expect("undo mark");
        while self.undo.len() > mark {
            let (s, old) = self.undo.pop().expect("undo entry");
            self.top[s as usize] = old;
        }
        self.en.close();
        self.en_cutoffs.close();
        let mark = self.state_undo_marks.pop().expect("state undo mark");
        while self.state_undo.len() > mark {
            let (w, old) = self.state_undo.pop().expect("state undo entry");
            if self.wide {
                self.note_change(w, self.state[w as usize], old);
            }
            self.state[w as usize] = old;
        }
    }

    /// Word `w` of `state` goes from `old` to `new`: updates its hash, and flags the word
    /// for the next deadlock test.
    #[inline]
    fn note_change(&mut self, w: u32, old: u64, new: u64) {
        self.state_hash = self
            .state_hash
            .wrapping_sub(word_hash(w as usize, old))
            .wrapping_add(word_hash(w as usize, new));
        let flag = &mut self.dirty_mark[w as usize];
        if !*flag {
            *flag = true;
            self.dirty.push(w);
        }
    }

    /// `[e]`'s entry on slot `s`, for the event `e` the current push adds (looked up once per
    /// slot and push: every dependent of `e` asks about its slots).
    #[inline]
    fn e_cone_at(&mut self, e: EventId, s: Slot) -> ConeEntry {
        match self.e_cone[s as usize] {
            (push, at) if push == self.pushes => at,
            _ => {
                let at = self.store.cone_at(e, s);
                self.e_cone[s as usize] = (self.pushes, at);
                at
            }
        }
    }

    /// Whether `t`'s guards leave room for an event `<t, H>` with `e ∈ H ⊆ C`. Guards decided
    /// by a slot shared with `e` are decided by `state([e])`; a guard on an open slot needs one
    /// candidate there, between `C`'s last event on it and `[e]`'s, that satisfies it. Most
    /// dependents fail one or the other, and are dropped before any search is set up.
    #[inline(always)]
    fn guards_allow(&mut self, t: Transition, e: EventId) -> bool {
        let guards = self.guards.range(t as usize);
        if self.guards.items()[guards.clone()]
            .iter()
            .any(|g| self.on_e[g.slot as usize] && !self.guard_holds(e, t, g))
        {
            return false;
        }
        for g in guards {
            let guard = self.guards.items()[g];
            let s = guard.slot;
            if self.on_e[s as usize] {
                continue;
            }
            let floor = self.e_cone_at(e, s).depth;
            let mut cand = self.top[s as usize];
            let satisfied = loop {
                if cand.depth < floor {
                    break false;
                }
                if self.guard_holds(cand.event, t, &guard) {
                    break true;
                }
                if cand.depth == 0 {
                    break false;
                }
                cand = self.store.parent_entry(cand);
            };
            if !satisfied {
                return false;
            }
        }
        true
    }

    /// Every event `<t, H>` with `e ∈ H ⊆ C` (where `e` is the last event added to `C`), found
    /// in or added to the store, pushed onto `out`.
    ///
    /// `H` is determined by its last event `x_s` on every slot `s` of `t`: `x_s = e` on the
    /// slots `t` shares with `e`; elsewhere `x_s` runs down the chain of `C` on `s`, not below
    /// `[e]`'s last event there. A tuple is a history iff no `[x_i]` reaches past `x_j` on slot
    /// `j` — inside `C` every slot is a chain, so that is a comparison of depths. The slots are
    /// chosen one at a time and consistency is kept as they are: each choice raises the floors
    /// of the slots still open and must stay within the ones already chosen. A slot that holds
    /// every event changing a resource `t` tests fixes that resource's value in `state(H)`, so
    /// `t`'s guard on it is checked as soon as the slot is chosen (see
    /// [`System::enabled_on`]).
    ///
    /// Call it for the transitions [`guards_allow`](Self::guards_allow) lets through: most
    /// dependents are not, and are dropped without this function's setup.
    #[inline(never)]
    fn extensions_through(&mut self, t: Transition, e: EventId) -> Result<(), Overflow> {
        let k = self.store.slots().of(t).len();
        if (0..k).all(|i| self.on_e[self.store.slots().of(t)[i] as usize]) {
            // Every slot of t is one of e's: the one history is [e]'s last events there, and
            // there is nothing to search (a sequential process's next step, a token's next
            // move).
            if self.stats.stopped.is_some() {
                return Ok(());
            }
            let mut scratch = self.search_scratch.take().unwrap_or_default();
            let xs = &mut scratch.xs;
            xs.clear();
            for i in 0..k {
                let s = self.store.slots().of(t)[i];
                let at = self.e_cone_at(e, s);
                xs.push(at);
            }
            let result = self.add_candidate(t, e, xs);
            self.search_scratch = Some(scratch);
            return result;
        }
        // Scratch room, taken and given back: this runs for every transition sharing a slot
        // with every event added to C. (Boxed: taking it moves a pointer, not ten vectors.)
        let mut scratch = self.search_scratch.take().unwrap_or_default();
        let SearchScratch {
            slots,
            xs,
            fixed,
            floors,
            merged,
            order,
            guards,
            run_of,
            rest,
            lowered,
        } = &mut *scratch;
        slots.clear();
        slots.extend_from_slice(self.store.slots().of(t));
        guards.clear();
        guards.extend_from_slice(self.guards.row(t as usize));
        let k = slots.len();
        xs.clear();
        fixed.clear();
        fixed.resize(k, false);
        // The floors and merged blocks of the levels past the first are written before they
        // are read: the room keeps its length (and old values) from search to search.
        if floors.len() < k {
            floors.resize(k, 0);
        }
        for (i, &s) in slots.iter().enumerate() {
            let at = self.e_cone_at(e, s);
            floors[i] = at.depth;
            if self.on_e[s as usize] {
                xs.push(at);
                fixed[i] = true;
            } else {
                xs.push(self.top[s as usize]);
            }
        }
        // (Guards on the slots shared with e were checked by `guards_allow`.)
        // Open slots with guards first: they prune the most. (Two passes, not a sort: this
        // runs for every dependent of every event added to C.)
        order.clear();
        let guarded = |i: usize| guards.iter().any(|g| g.index == i);
        order.extend((0..k).filter(|&i| !fixed[i] && guarded(i)));
        order.extend((0..k).filter(|&i| !fixed[i] && !guarded(i)));
        // Level f's floors are read when slot `order[f]` is chosen, and raised into level
        // f + 1's; with one open slot or none, nothing is raised.
        let levels = order.len().max(1);
        if floors.len() < k * levels {
            floors.resize(k * levels, 0);
        }
        run_of.clear();
        if levels > 1 {
            ConeForest::leaf_run_indexes(slots, run_of);
        }
        let runs = run_of.last().map_or(0, |&r| r as usize + 1);
        if merged.len() < runs * levels {
            merged.resize(runs * levels, u32::MAX);
        }
        merged[..runs].fill(u32::MAX);
        rest.clear();
        lowered.clear();
        let mut search = HistorySearch {
            t,
            e,
            slots,
            order,
            guards,
            xs: std::mem::take(xs),
            floors: std::mem::take(floors),
            merged: std::mem::take(merged),
            runs,
            run_of,
            rest: std::mem::take(rest),
            rest_levels: 0,
            lowered: std::mem::take(lowered),
        };
        let result = self.enumerate(&mut search, 0);
        *xs = search.xs;
        *floors = search.floors;
        *merged = search.merged;
        *rest = search.rest;
        *lowered = search.lowered;
        self.search_scratch = Some(scratch);
        result
    }

    /// Chooses the `f`-th open slot of `search.order` (and the ones after it), then makes the
    /// event.
    fn enumerate(&mut self, search: &mut HistorySearch<'_>, f: usize) -> Result<(), Overflow> {
        if self.stats.stopped.is_some() {
            return Ok(());
        }
        if f == search.order.len() {
            // A history's last events: none of their cones reaches past another.
            debug_assert!(search.xs.iter().all(|x| {
                search
                    .slots
                    .iter()
                    .zip(&search.xs)
                    .all(|(&s, y)| self.store.cone_at(x.event, s).depth <= y.depth)
            }));
            return self.add_candidate(search.t, search.e, &search.xs);
        }
        let k = search.slots.len();
        // When every slot still open has its floor at C's last event there (as on most
        // levels of most searches), each has that one candidate, and choosing them raises no
        // floor that matters: the history is complete once they pass their guards. (They
        // stay within the choices made: a floor at C's last event `x` means that `x` lies in
        // `[e]` or in the cone of a choice, which all stay within one another.)
        let floors = &search.floors[f * k..(f + 1) * k];
        if search.order[f..]
            .iter()
            .all(|&j| floors[j] == self.top[search.slots[j] as usize].depth)
        {
            for &j in &search.order[f..] {
                let cand = self.top[search.slots[j] as usize];
                debug_assert!(self.within_choices(search, f, cand));
                if !self.guards_hold(search, j, cand) {
                    return Ok(());
                }
                search.xs[j] = cand;
            }
            return self.enumerate(search, search.order.len());
        }
        let i = search.order[f];
        let s = search.slots[i];
        let floor = search.floors[f * k + i];
        let last = f + 1 == search.order.len();
        if !last && search.rest_levels == f {
            // The slots open after this level: the previous level's without this one.
            debug_assert_eq!(search.rest.len(), search.rest_at(f));
            if f == 0 {
                search
                    .rest
                    .extend(search.order[1..].iter().map(|&j| j as u32));
                search.rest.sort_unstable();
            } else {
                let previous = search.rest_at(f - 1)..search.rest_at(f);
                search.rest.extend_from_within(previous);
                let now = search.rest_at(f);
                let at = now
                    + search.rest[now..]
                        .iter()
                        .position(|&j| j as usize == i)
                        .expect("i is open");
                search.rest.remove(at);
            }
            search.rest_levels = f + 1;
        }
        let top = self.top[s as usize];
        let mut cand = top;
        // Down the chain on `s`, each candidate's cone holds the next one's: once one stays
        // within the choices made so far, every later one does.
        let mut within = search.lowered.is_empty();
        loop {
            if cand.depth < floor {
                break;
            }
            self.tried += 1;
            if self.tried.is_multiple_of(1 << 12)
                && let Err(r) = self.limits.check_time()
            {
                self.stats.stopped = Some(r);
                return Ok(());
            }
            if self.guards_hold(search, i, cand)
                && (within || {
                    within = search.lowered.iter().all(|&j| {
                        self.store.cone_at(cand.event, search.slots[j]).depth <= search.xs[j].depth
                    });
                    debug_assert_eq!(within, self.within_choices(search, f, cand));
                    within
                })
            {
                debug_assert!(self.within_choices(search, f, cand));
                search.xs[i] = cand;
                let lowered = cand.depth < top.depth;
                if lowered {
                    search.lowered.push(i);
                }
                if !last {
                    // Floors of the slots still open, raised by [cand]. Leaves of [cand]'s
                    // cone already merged at this level are skipped (nothing is removed from
                    // the store during a search, so a block id names the same block
                    // throughout).
                    let rest = search.rest_at(f)..search.rest_at(f + 1);
                    let (done, next) = search.floors.split_at_mut((f + 1) * k);
                    let current = &done[f * k..];
                    next[..k].copy_from_slice(&current[..k]);
                    let g = search.runs;
                    let (merged_done, merged_next) = search.merged.split_at_mut((f + 1) * g);
                    merged_next[..g].copy_from_slice(&merged_done[f * g..(f + 1) * g]);
                    self.store.raise_to_cone_depths(
                        cand.event,
                        search.slots,
                        &search.rest[rest],
                        search.run_of,
                        &mut next[..k],
                        &mut merged_next[..g],
                    );
                }
                let result = self.enumerate(search, f + 1);
                if lowered {
                    search.lowered.pop();
                }
                result?;
            }
            if cand.depth == 0 {
                break;
            }
            cand = self.store.parent_entry(cand);
        }
        Ok(())
    }

    /// Whether `t`'s guards decided by the `i`-th slot hold with `cand` as the history's last
    /// event there.
    fn guards_hold(&self, search: &HistorySearch<'_>, i: usize, cand: ConeEntry) -> bool {
        search
            .guards
            .iter()
            .all(|g| g.index != i || self.guard_holds(cand.event, search.t, g))
    }

    /// Whether `[cand]` stays within the choices made on the first `f` slots of the order.
    fn within_choices(&self, search: &HistorySearch<'_>, f: usize, cand: ConeEntry) -> bool {
        search.order[..f]
            .iter()
            .all(|&j| self.store.cone_at(cand.event, search.slots[j]).depth <= search.xs[j].depth)
    }

    /// Notes the candidate event `<t, ⋃[x_s]>`, to be found or made (if `t` is enabled after
    /// that history) by [`make_candidates`](Self::make_candidates) with the others of its
    /// window.
    ///
    /// `e`, the event just added to `C`, is in the history, and maximal there (no event of
    /// `C` is above it): the other last events that lie in `[e]` are left out at once.
    fn add_candidate(
        &mut self,
        t: Transition,
        e: EventId,
        xs: &[ConeEntry],
    ) -> Result<(), Overflow> {
        // Scratch buffers, taken and given back: this runs once per candidate history.
        let mut cands = std::mem::take(&mut self.cands_scratch);
        cands.clear();
        for (x, i) in xs.iter().zip(0..) {
            let s = self.store.slots().of(t)[i];
            // (Looked up once per push: the search set out from [e]'s depths.)
            if x.event != e && self.e_cone_at(e, s).depth < x.depth {
                cands.push(Candidate {
                    event: x.event,
                    slot: s,
                    depth: x.depth,
                    size: 0,
                });
            }
        }
        let store = &self.store;
        cands.sort_unstable_by_key(|c| c.event);
        cands.dedup_by_key(|c| c.event);
        for c in &mut cands {
            c.size = store.size(c.event);
        }
        // Keep the maximal ones: a non-maximal event is below a maximal one, which is never
        // dropped, so checking against the ones kept and the ones not yet looked at suffices.
        // They all lie in C, so on one branch of each slot's tree: `p ≤ q` when `[q]` reaches
        // as deep as `p` on a slot of `p`'s, here the one `p` was found on.
        let mut preds = std::mem::take(&mut self.preds_scratch);
        preds.clear();
        preds.push(e);
        let mut kept = 0;
        for i in 0..cands.len() {
            let p = cands[i];
            let below = cands[..kept]
                .iter()
                .chain(&cands[i + 1..])
                .any(|q| q.size > p.size && store.cone_at(q.event, p.slot).depth >= p.depth);
            debug_assert_eq!(
                below,
                cands
                    .iter()
                    .any(|q| q.event != p.event && store.leq_in_configuration(p.event, q.event))
            );
            debug_assert!(!store.leq_in_configuration(p.event, e));
            if !below {
                cands[kept] = p;
                kept += 1;
                preds.push(p.event);
            }
        }
        // Sorted, as the store names histories.
        preds.sort_unstable();
        debug_assert!(xs.iter().all(|x| {
            preds.contains(&x.event)
                || preds
                    .iter()
                    .any(|&q| store.leq_in_configuration(x.event, q))
        }));
        self.cands_scratch = cands;
        self.candidates.push(t, &preds, xs);
        self.preds_scratch = preds;
        if self.candidates.len() == CANDIDATE_WINDOW {
            self.make_candidates()?;
        }
        Ok(())
    }

    /// Finds or makes the events of the candidates noted so far (a window of at most
    /// [`CANDIDATE_WINDOW`]), in the order they were found, and appends them to the list of
    /// events made. The store is probed for all of them first, in a loop of its own: a probe
    /// misses the caches once the store is large, and independent probes overlap their misses
    /// where one probe per search waited on each (Raft-PT-02 without cutoffs: a tenth of the
    /// time). Nothing the searches read changes in between: they read `C`, not the events
    /// being made. And a probe that finds nothing stays true while the others' events are
    /// made, for they all have other histories or other labels.
    fn make_candidates(&mut self) -> Result<(), Overflow> {
        let mut cs = std::mem::take(&mut self.candidates);
        cs.found.clear();
        for k in 0..cs.len() {
            let (t, preds, xs) = cs.get(k);
            cs.found.push(self.store.find_by_parents(t, preds, xs));
        }
        let mut result = Ok(());
        for k in 0..cs.len() {
            // As the searches stopped at once, before.
            if self.stats.stopped.is_some() {
                break;
            }
            let (t, preds, xs) = cs.get(k);
            let made = match cs.found[k] {
                Some(ev) => Ok(Some(self.found_again(ev))),
                None => self.make_new_event(t, preds, xs),
            };
            match made {
                Ok(Some(ev)) => cs.made.push(ev),
                Ok(None) => {}
                Err(overflow) => {
                    result = Err(overflow);
                    break;
                }
            }
        }
        cs.clear_notes();
        self.candidates = cs;
        result
    }

    /// Counts `ev`, found in the store instead of being made, as a cache hit, and as just used.
    fn found_again(&mut self, ev: EventId) -> EventId {
        self.stats.cache_hits += 1;
        self.touch(ev);
        ev
    }

    /// The event `<t, H>`, which the store does not hold, with immediate predecessors
    /// `preds` and last events `xs` on the slots of `t`, if `t` is enabled after `H`.
    fn make_new_event(
        &mut self,
        t: Transition,
        preds: &[EventId],
        xs: &[ConeEntry],
    ) -> Result<Option<EventId>, Overflow> {
        let mut states = std::mem::take(&mut self.state_scratch);
        states.resize(2 * self.words, 0);
        let (h, after) = states.split_at_mut(self.words);
        let made = self.store.make(self.sys, t, preds, xs, h, after);
        self.state_scratch = states;
        if let Ok(Some(e)) = made {
            self.built(e);
        }
        made
    }

    /// Registers the event `e` just inserted into the store: its log id, and its cutoff
    /// verdict (decided when the event is first built, and kept for its rebuilds, so that the
    /// cache never changes what the exploration sees).
    fn built(&mut self, e: EventId) {
        let i = e as usize;
        if self.log_id.len() <= i {
            extend_to(&mut self.log_id, i + 1, 0);
            extend_to(&mut self.last_use, i + 1, 0);
            extend_to(&mut self.cutoff, i + 1, false);
        }
        let mut preds = std::mem::take(&mut self.log_preds_scratch);
        preds.clear();
        preds.extend(self.store.preds(e).iter().map(|&p| self.log_id[p as usize]));
        preds.sort_unstable();
        // The id may have belonged to an evicted event.
        self.forget_icf(e);
        if let Some(x) = self.c_memo.get_mut(i) {
            *x = CMemo::default();
        }
        // Until the cache evicts an event, the store holds every event ever built: one it
        // did not hold is new to the log too.
        let (label, level) = (self.store.label(e), self.store.level(e));
        let (lid, new) = if self.stats.cache_evictions == 0 {
            (self.log.append(label, &preds, level), true)
        } else {
            self.log.intern(label, &preds, level)
        };
        self.log_preds_scratch = preds;
        self.log_id[i] = lid;
        self.stats.event_creations += 1;
        self.cutoff[i] = false;
        if new {
            self.classify(e);
            self.log.set_cutoff(lid, self.cutoff[i]);
            // Checked here, not once per step: one extension can build thousands of events.
            if let Some(max) = self.opts.max_events
                && self.log.len() as u64 > max
            {
                self.stats.stopped.get_or_insert(StopReason::EventLimit);
            }
        } else {
            self.stats.cache_misses += 1;
            self.cutoff[i] = self.log.is_cutoff(lid);
        }
        self.touch(e);
    }

    /// Marks `e` as just used.
    fn touch(&mut self, e: EventId) {
        self.clock += 1;
        self.last_use[e as usize] = self.clock;
    }

    /// Bytes held by the event store, the log and the state table.
    fn accounted_bytes(&self) -> u64 {
        self.store.bytes()
            + self.log.bytes()
            + self.least_bytes
            + self.deadlock_states.bytes()
            + self.icf_bytes
            + (self.icf_memo.capacity() * 8) as u64
            + (self.c_memo.capacity() * std::mem::size_of::<CMemo>()) as u64
            + (self.pick_memo.capacity() * std::mem::size_of::<PickMemo>()) as u64
            + self.diff_room.bytes()
    }

    /// The events `Remove` must keep in `U` now, as flags by store id: `C`, `D`, the events in
    /// immediate conflict with an event of `C ∪ D` (`Q(C, D, U)` of the paper), and what this
    /// implementation keeps besides: the other siblings of the events of `C ∪ D` on their
    /// slots, the extensions of every configuration on the stack (`en` is kept incrementally,
    /// per level) and the events of pending alternatives; all closed under causality.
    fn pinned(&self, frames: &[Frame]) -> Vec<bool> {
        let mut keep = vec![false; self.store.id_bound()];
        keep[BOTTOM as usize] = true;
        // Each event is flagged when first met and stacked once (stacking every name of an
        // event, then testing it when popped, stacked each about ten times on Raft-PT-02).
        let mut stack: Vec<EventId> = Vec::new();
        let mut meet = |x: EventId, stack: &mut Vec<EventId>| {
            if !keep[x as usize] {
                keep[x as usize] = true;
                stack.push(x);
            }
        };
        let roots = self.c.iter().chain(self.disabled.events());
        let pending = frames.iter().flat_map(|f| f.a.iter());
        for &x in roots
            .chain(self.en.all())
            .chain(self.en_cutoffs.all())
            .chain(pending)
        {
            meet(x, &mut stack);
        }
        // The events in immediate conflict with y are among its siblings on its slots; all
        // of them are kept (a superset, cheaper than testing each for immediate conflict).
        // Each list of siblings is walked once: the events of D are often siblings of one
        // another, and n of them would otherwise cost n² here. A list is named by its parent's
        // node (one per event and slot).
        let mut walked = vec![0u64; self.store.node_bound().div_ceil(64)];
        for &y in self.c.iter().chain(self.disabled.events()) {
            for k in 0..self.store.event_slots(y).len() {
                let parent = self.store.parent_node_on_kth(y, k);
                let (word, bit) = (parent / 64, 1u64 << (parent % 64));
                if walked[word] & bit == 0 {
                    walked[word] |= bit;
                    for x in self.store.children_of_node(parent) {
                        meet(x, &mut stack);
                    }
                }
            }
        }
        while let Some(x) = stack.pop() {
            for &p in self.store.preds(x) {
                meet(p, &mut stack);
            }
        }
        keep
    }

    /// Samples `|U|` at step `steps`; returns the step from which the next sample may come
    /// (as many steps later as the store can hold events) and the event creations and store
    /// size now (see [`sample_due`](Self::sample_due)).
    fn sample_u_at(&mut self, frames: &[Frame], steps: u64) -> (u64, Option<(u64, u64)>) {
        // U lies in the store: with no more events stored than the peak, no walk can raise it
        // (the n-way conflict's U is all its events from the first descent on). G's peak then
        // waits for a later sample: before an eviction, or the last one, after the run.
        if self.store.live() as u64 > self.stats.peak_u {
            self.sample_u_and_g(frames);
        }
        let held = self.store.id_bound() as u64;
        (steps + held, Some((self.stats.event_creations, held)))
    }

    /// Whether a sample of `|U|` is due by the events created, the last one taken at `last`
    /// (see [`sample_u_at`](Self::sample_u_at)): [`SAMPLE_WAIT`] times as many events as the
    /// store could hold then were created since, or, before any sample, [`SAMPLE_FIRST`].
    fn sample_due(&self, last: Option<(u64, u64)>) -> bool {
        let now = self.stats.event_creations;
        match last {
            None => now >= SAMPLE_FIRST,
            Some((then, held)) => now - then >= (SAMPLE_WAIT * held).max(SAMPLE_FIRST),
        }
    }

    /// `|U|` while no frame was popped: every event stored (see `first_descent`).
    fn note_u_of_first_descent(&mut self) {
        self.stats.peak_u = self.stats.peak_u.max(self.store.live() as u64);
    }

    /// Samples `|U|` and `|G|` for their peaks.
    fn sample_u_and_g(&mut self, frames: &[Frame]) {
        let keep = self.pinned(frames);
        let u = keep.iter().filter(|&&k| k).count() as u64 - 1;
        self.stats.peak_u = self.stats.peak_u.max(u);
        self.stats.peak_g = self
            .stats
            .peak_g
            .max(self.store.live() as u64 - u.min(self.store.live() as u64));
    }

    /// Keeps the process under `limit` bytes of resident memory (measured, `VmRSS`): past
    /// three quarters of it, when few ids are free for reuse, evicts a quarter of the store
    /// from the cache `G`, least recently used first, so that later events are built in the
    /// room of evicted ones instead of growing the store. Returns false when the process holds
    /// more than the limit, or nearly so with nothing left to evict (`U` and the state table
    /// alone fill it).
    fn make_room(&mut self, limit: u64, frames: &[Frame]) -> bool {
        let rss = super::limits::rss_bytes();
        if rss <= limit / 4 * 3 {
            return true;
        }
        if self.store.free_ids() < self.store.live() / 16 + 64 {
            self.sample_u_and_g(frames);
            let freed = self.evict(frames, (self.store.live() / 4).max(64));
            if freed == 0 && rss > limit / 20 * 19 {
                return false;
            }
        }
        rss <= limit
    }

    /// Evicts up to `target` events of `G` (everything outside `U`), least recently used
    /// first; only leaves can go, and removing one may make its predecessors leaves.
    /// Returns how many went.
    fn evict(&mut self, frames: &[Frame], target: usize) -> usize {
        use std::cmp::Reverse;
        let keep = self.pinned(frames);
        let mut heap: std::collections::BinaryHeap<Reverse<(u64, EventId)>> =
            (1..self.store.id_bound() as EventId)
                .filter(|&e| !keep[e as usize] && self.store.is_live(e) && self.store.is_leaf(e))
                .map(|e| Reverse((self.last_use[e as usize], e)))
                .collect();
        let mut queued: Vec<bool> = vec![false; self.store.id_bound()];
        for r in &heap {
            queued[r.0.1 as usize] = true;
        }
        let mut freed = 0;
        while freed < target {
            let Some(Reverse((_, e))) = heap.pop() else {
                break;
            };
            let mut next: Vec<EventId> = self.store.preds(e).to_vec();
            next.extend(
                self.store
                    .event_slots(e)
                    .iter()
                    .map(|&s| self.store.parent_on(e, s)),
            );
            if self
                .record_conflicts
                .is_some_and(|cap| self.log.len() <= cap + 1)
            {
                self.record_conflicts_of(e);
            }
            self.store.remove(e);
            self.forget_icf(e);
            self.stats.cache_evictions += 1;
            freed += 1;
            for p in next {
                if p != BOTTOM
                    && !keep[p as usize]
                    && !queued[p as usize]
                    && self.store.is_live(p)
                    && self.store.is_leaf(p)
                {
                    queued[p as usize] = true;
                    heap.push(Reverse((self.last_use[p as usize], p)));
                }
            }
        }
        if freed > 0 {
            // The ids freed will name other events: the pick verdicts kept so far expire.
            self.pick_epoch = self.pick_epoch.wrapping_add(1);
            if self.pick_epoch == 0 {
                self.pick_memo.fill(PickMemo::default());
                self.pick_epoch = 1;
            }
        }
        freed
    }

    /// Keeps the immediate conflicts of `e`, about to be evicted, for pictures.
    fn record_conflicts_of(&mut self, e: EventId) {
        for &s in self.store.event_slots(e) {
            let parent = self.store.parent_on(e, s);
            for c in self.store.children_on(parent, s) {
                if c != e && self.store.immediate_conflict(e, c) {
                    let (a, b) = (self.log_id[e as usize], self.log_id[c as usize]);
                    self.evicted_conflicts.insert((a.min(b), a.max(b)));
                }
            }
        }
    }

    /// Decides whether the new event `e` is a cutoff: an event seen earlier reaches the same
    /// state with a smaller local configuration. Otherwise `e` may become the new reference
    /// for its state.
    fn classify(&mut self, e: EventId) {
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
                    if super::limits::rss_bytes() + grown > limit {
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

    /// An alternative `J` to `D` after `C`, as the events of `J \ C`; `None` if there is none.
    fn alternative(&mut self) -> Option<Vec<EventId>> {
        // With k-partial alternatives, only the last k events of D not yet in conflict with
        // C need a conflicting event in J.
        let from = match self.opts.alt_k {
            None => 0,
            Some(k) => self.last_unjustified(k),
        };
        // (Scratch room, taken and given back: this runs at every Remove.)
        let mut picks = std::mem::take(&mut self.alt_picks_scratch);
        picks.clear();
        let found = self.comb(from, &mut picks);
        let a = found.then(|| {
            // J \ C: the local configurations of the picks, outside C.
            // (Events seen are marked with this walk's round, by id: no set to clear.)
            self.seen_round = self.seen_round.wrapping_add(1);
            if self.seen_round == 0 {
                self.seen_scratch.fill(0);
                self.seen_round = 1;
            }
            let mut a = self.spare_lists.pop().unwrap_or_default();
            a.clear();
            while let Some(x) = picks.pop() {
                if x == BOTTOM || Self::is_in(&self.in_c, x) {
                    continue;
                }
                extend_to(&mut self.seen_scratch, x as usize + 1, 0);
                let mark = &mut self.seen_scratch[x as usize];
                if *mark == self.seen_round {
                    continue;
                }
                *mark = self.seen_round;
                a.push(x);
                picks.extend_from_slice(self.store.preds(x));
            }
            a
        });
        self.alt_picks_scratch = picks;
        a
    }

    /// The key under which `e`, about to enter `D`, extends `D`'s last run of siblings: a
    /// slot on which `e` has the parent every event of the run has.
    fn joins_last_run(&self, e: EventId) -> Option<RunKey> {
        let (key, last) = self.disabled.last_run()?;
        match key {
            Some(key) => self.child_on(e, key).then_some(key),
            None => self.store.sibling_slot(last, e),
        }
    }

    /// Whether every event of a run with key `(s, p)` is in conflict with `C`: `C` has moved
    /// past `p` on `s`, so it holds another child of `p` there (the events of `D` have their
    /// histories in `C`, and are not in it).
    fn run_justified(&self, (s, p): RunKey) -> bool {
        self.top[s as usize].event != p
    }

    /// Whether `c` is a child of `p` on slot `s`, so in conflict with every other child.
    fn child_on(&self, c: EventId, (s, p): RunKey) -> bool {
        let slots = self.store.event_slots(c);
        slots
            .binary_search(&s)
            .is_ok_and(|k| self.store.parent_on_kth(c, k) == p)
    }

    /// The index in `D` of the `k`-th last event of `D` not in conflict with `C` (0 if there
    /// are fewer).
    fn last_unjustified(&self, k: usize) -> usize {
        let mut found = 0;
        let mut i = self.disabled.len();
        while i > 0 {
            let (run, key) = self.disabled.run_at(i - 1);
            if key.is_some_and(|key| self.run_justified(key)) {
                i = run.start;
                continue;
            }
            i -= 1;
            if !self.justified(self.disabled.get(i)) {
                found += 1;
                if found == k {
                    return i;
                }
            }
        }
        0
    }

    /// From index `i` of `D` on, the first event that still needs a pick: one not in conflict
    /// with `C`, nor with a pick so far (an event in immediate conflict with a pick needs no
    /// pick of its own: another would only add constraints). Runs of siblings are settled as
    /// a whole.
    fn next_needing_pick(&self, i: &mut usize, picks: &[EventId]) -> Option<EventId> {
        while *i < self.disabled.len() {
            let (run, key) = self.disabled.run_at(*i);
            if let Some(key) = key
                && (self.run_justified(key) || picks.iter().any(|&c| self.child_on(c, key)))
            {
                // A pick that is a child of the run's parent is in conflict with every event
                // of the run. That is enough: for an event d of D not in conflict with C,
                // some event of [pick] outside C is then in immediate conflict with d.
                debug_assert!(self.disabled.events()[*i..run.end].iter().all(|&d| {
                    self.justified(d) || picks.iter().any(|&c| self.store.conflict(d, c))
                }));
                *i = run.end;
                continue;
            }
            let d = self.disabled.get(*i);
            if self.justified(d) || picks.iter().any(|&c| self.store.immediate_conflict(d, c)) {
                *i += 1;
                continue;
            }
            return Some(d);
        }
        None
    }

    /// Every event built (from the log, so evicted ones too) with its causality, cutoff and
    /// conflict information.
    fn explored_events(&self, cap: usize) -> (Vec<ExploredEvent>, Vec<(EventId, EventId)>) {
        let events = (1..self.log.len() as LogId)
            .map(|e| ExploredEvent {
                label: self.log.label(e),
                preds: self
                    .log
                    .preds(e)
                    .iter()
                    .copied()
                    .filter(|&p| p != 0)
                    .collect(),
                cutoff: self.log.is_cutoff(e),
                corresponding: self.corresponding.get(&e).copied().filter(|&c| c != 0),
                in_deadlock: self.deadlock_events.contains(&e),
            })
            .collect::<Vec<_>>();
        if events.len() > cap {
            return (events, Vec::new());
        }
        // Immediate conflicts are siblings on a shared slot.
        let mut conflicts = self.evicted_conflicts.clone();
        for e in 1..self.store.id_bound() as EventId {
            if !self.store.is_live(e) {
                continue;
            }
            for &s in self.store.event_slots(e) {
                let parent = self.store.parent_on(e, s);
                for c in self.store.children_on(parent, s) {
                    if c != e && self.store.immediate_conflict(e, c) {
                        let (a, b) = (self.log_id[e as usize], self.log_id[c as usize]);
                        conflicts.insert((a.min(b), a.max(b)));
                    }
                }
            }
        }
        let mut conflicts: Vec<(EventId, EventId)> = conflicts.into_iter().collect();
        conflicts.sort_unstable();
        (events, conflicts)
    }

    /// Drops the memo of `e`'s immediate conflicts.
    fn forget_icf(&mut self, e: EventId) {
        if let Some(m) = self.icf_memo.get_mut(e as usize).and_then(Option::take) {
            self.icf_bytes -= m.bytes();
        }
    }

    /// Brings the memo of the events of the store in immediate conflict with `d` up to date:
    /// only siblings added since the last call are tested, unless one was removed.
    fn refresh_icf(&mut self, d: EventId) {
        let removals = self.store.siblings_removals(d);
        let i = d as usize;
        extend_with(&mut self.icf_memo, i + 1, || None);
        let n = self.store.event_slots(d).len();
        let mut memo = match self.icf_memo[i].take() {
            Some(m) if m.removals == removals => {
                self.icf_bytes -= m.bytes();
                m
            }
            stale => {
                if let Some(m) = stale {
                    self.icf_bytes -= m.bytes();
                }
                // An event that is the only child of its parents has nothing in immediate
                // conflict, and no memo says more than none: a later call finds the same
                // from the start (a chain's every event; no allocation then).
                let alone = (0..n).all(|k| {
                    let last = self
                        .store
                        .last_child_of_node(self.store.parent_node_on_kth(d, k));
                    self.store.only_new_child_is(d, k, ChildCursor::START, last)
                });
                if alone {
                    return;
                }
                Box::new(IcfMemo {
                    removals,
                    seen: SmallVec::from_elem(ChildCursor::START, n),
                    events: SmallVec::new(),
                    past_d: (0, 0, 0),
                })
            }
        };
        // Most calls find no sibling added on any slot since the last one, or only `d` itself
        // (the first call, on slots where `d` has no siblings), never in its own spike: then
        // there is nothing to scan.
        let mut quiet = true;
        for k in 0..n {
            let parent = self.store.parent_node_on_kth(d, k);
            let last = self.store.last_child_of_node(parent);
            if last == memo.seen[k] {
                continue;
            }
            if self.store.only_new_child_is(d, k, memo.seen[k], last) {
                memo.seen[k] = last;
            } else {
                // (The scan below reads the other slots.)
                quiet = false;
                break;
            }
        }
        if quiet {
            self.icf_bytes += memo.bytes();
            self.icf_memo[i] = Some(memo);
            return;
        }
        extend_to(&mut self.d_parent, self.store.slots().count(), u32::MAX);
        extend_to(
            &mut self.first_shared,
            self.sys.transition_count(),
            (0, false),
        );
        for (k, &s) in self.store.event_slots(d).iter().enumerate() {
            self.d_parent[s as usize] = self.store.parent_node_on_kth(d, k) as u32;
        }
        // The slot on which the last candidate's history parted from `d`'s: siblings alike
        // part alike, so it is tried first.
        let mut parting = None;
        let mut siblings = std::mem::take(&mut self.sibling_scratch);
        for k in 0..n {
            let s = self.store.event_slots(d)[k];
            let parent = self.d_parent[s as usize] as usize;
            // Most slots have no sibling added since the last refresh: nothing to scan.
            if self.store.last_child_of_node(parent) == memo.seen[k] {
                continue;
            }
            // The siblings in arrays are scanned by label, and compared on the slots past `s`
            // that they share with `d` in columns.
            let d_parent = &self.d_parent;
            self.store
                .index_children(parent, memo.seen[k].seen(), |slots_lc, wanted| {
                    if first_shared_is(slots_lc, s, d_parent) {
                        wanted.extend(shared_past(slots_lc, s, d_parent));
                    }
                });
            self.first_shared_round = self.first_shared_round.wrapping_add(1);
            if self.first_shared_round == 0 {
                self.first_shared.fill((0, false));
                self.first_shared_round = 1;
            }
            let round = self.first_shared_round;
            let new = self
                .store
                .labeled_children_of_node_after(parent, memo.seen[k]);
            // An event in immediate conflict with `d` has `d`'s parent on every slot they
            // share: it is kept from the first of them only (decided from the labels, before
            // the event itself is looked at: none of its slots below `s` is one of `d`'s),
            // and the parents on the other shared slots are compared before the histories.
            // Cutoffs are never picked (see `spike_verdict`), and a verdict never changes while
            // the event is stored: they are left out before the costly test.
            let slot_map = self.store.slots();
            let d_parent = &self.d_parent;
            let store = &self.store;
            let first_shared = &mut self.first_shared;
            let (cutoffs, cutoff) = (self.opts.cutoffs.is_some(), &self.cutoff);
            // Siblings mostly repeat a few labels: the test on labels is kept per label.
            let mut first_here = |lc: Transition| {
                let (seen, first) = &mut first_shared[lc as usize];
                if *seen != round {
                    *seen = round;
                    *first = first_shared_is(slot_map.of(lc), s, d_parent);
                }
                *first
            };
            // Whether `c` may be in immediate conflict with `d`, before their histories are
            // compared (`siblings` gathers those, with their positions).
            let candidate = |c: EventId| !(cutoffs && cutoff[c as usize]) && c != d;
            // What the scan must find, for debug builds.
            let in_conflict = |c: EventId, lc: Transition| {
                !(cutoffs && cutoff[c as usize])
                    && first_shared_is(slot_map.of(lc), s, d_parent)
                    && store.immediate_conflict_first_on(d, c, s)
            };
            siblings.clear();
            let mut reads = 0;
            let grouped = match new {
                LabeledChildren::Each(children) => {
                    for (p, c) in children.enumerate() {
                        reads += 1;
                        let lc = store.label(c);
                        if first_here(lc)
                            && candidate(c)
                            && slot_map.of(lc).iter().enumerate().all(|(j, &x)| {
                                let want = d_parent[x as usize];
                                want == u32::MAX
                                    || x <= s
                                    || store.parent_node_on_kth(c, j) as u32 == want
                            })
                        {
                            siblings.push((p as u32, c));
                        } else {
                            debug_assert!(!in_conflict(c, lc));
                        }
                    }
                    false
                }
                LabeledChildren::Grouped { all, groups, from } => {
                    // The labels whose events are kept on another slot are skipped whole; the
                    // parents on the other slots shared with `d` are compared in the group's
                    // columns (most siblings differ there).
                    let mut filter: SmallVec<[(u32, usize); 8]> = SmallVec::new();
                    for group in groups {
                        reads += 1;
                        let lc = group.label();
                        if !first_here(lc) {
                            continue;
                        }
                        let rows = group.rows_from(from);
                        if rows.len() == 0 {
                            continue;
                        }
                        filter.clear();
                        filter.extend(shared_past(slot_map.of(lc), s, d_parent).map(|j| {
                            let want = d_parent[slot_map.of(lc)[j] as usize];
                            (want, group.column(j).expect("indexed for this scan"))
                        }));
                        let mut test = |row: &[u32]| {
                            reads += 1;
                            let p = row[0];
                            let c = all[p as usize];
                            if filter.iter().all(|&(want, at)| row[at] == want) && candidate(c) {
                                siblings.push((p, c));
                            } else {
                                debug_assert!(!in_conflict(c, lc));
                            }
                        };
                        // Most siblings have another parent on the first slot compared: they
                        // are passed over through the group's index where it has one.
                        match filter.first() {
                            Some(&(want, at)) => group.for_rows_with(from, at, want, &mut test),
                            None => rows.for_each(test),
                        }
                    }
                    true
                }
            };
            // Most candidates part from `d` on the slot the last one did: that slot is tried
            // on a chunk of them at once, and the others are compared whole.
            let mut found = std::mem::take(&mut self.found_scratch);
            found.clear();
            for chunk in siblings.chunks(SIBLING_CHUNK) {
                let mut rest = chunk;
                if parting.is_none() {
                    // The first one is compared whole, to find a slot to try on the others.
                    let (&(p, c), others) = rest.split_first().expect("chunks are not empty");
                    rest = others;
                    match store.histories_parting_slot(d, c) {
                        Some(y) => parting = Some(y),
                        None => found.push((p, c)),
                    }
                    debug_assert_eq!(parting.is_none(), in_conflict(c, store.label(c)));
                }
                let tried = parting;
                match tried {
                    Some(y) => {
                        self.sibling_events.clear();
                        self.sibling_events.extend(rest.iter().map(|&(_, c)| c));
                        store.histories_part_on_each(
                            d,
                            y,
                            &self.sibling_events,
                            &mut self.cone_room,
                            &mut self.parted,
                        )
                    }
                    None => {
                        // Every candidate so far was kept: the others are compared whole.
                        self.parted.clear();
                        self.parted.resize(rest.len(), false);
                    }
                }
                for (&(p, c), &parted) in rest.iter().zip(&self.parted) {
                    // Parted on the slot tried, or on the one a candidate parted on since.
                    let parted = parted
                        || (parting != tried
                            && parting.is_some_and(|y| store.histories_part_on(d, c, y)));
                    let kept = !parted
                        && match store.histories_parting_slot(d, c) {
                            Some(y) => {
                                parting = Some(y);
                                false
                            }
                            None => true,
                        };
                    debug_assert_eq!(kept, in_conflict(c, store.label(c)), "{d} and {c}");
                    if kept {
                        found.push((p, c));
                    }
                }
            }
            // The events found are kept in the order they were added.
            if grouped {
                found.sort_unstable();
            }
            // (Most scans find nothing: no call to extend then.)
            if !found.is_empty() {
                memo.events.extend(found.iter().map(|&(_, c)| c));
            }
            self.found_scratch = found;
            self.stats.sibling_reads += reads;
            memo.seen[k] = self.store.last_child_of_node(parent);
        }
        self.sibling_scratch = siblings;
        for &s in self.store.event_slots(d) {
            self.d_parent[s as usize] = u32::MAX;
        }
        self.icf_bytes += memo.bytes();
        self.icf_memo[i] = Some(memo);
    }

    /// Whether `c`, in immediate conflict with an event of `D`, belongs to that event's
    /// spike: not a cutoff, outside `D`, and compatible with `C` and with the picks so far;
    /// if not, whether the picks are to blame.
    fn spike_verdict(&mut self, c: EventId, picks: &[EventId]) -> SpikeVerdict {
        if self.cutoff[c as usize]
            || self.disabled.contains(c)
            || self.conflicts_with_c(c)
            || (self.opts.alt_k.is_some() && !self.history_avoids_d(c))
        {
            SpikeVerdict::Never
        } else if picks.iter().any(|&p| self.conflicts_with_pick(p, c)) {
            SpikeVerdict::NotWithPicks
        } else {
            SpikeVerdict::Member
        }
    }

    /// Whether `[c]` conflicts with `[p]`, for a pick `p`. Combs that fail test the same pairs
    /// again and again: the verdicts are kept in a small direct-mapped table. The members of one
    /// spike mostly part from the picks on one slot: the slot of the last conflict found is
    /// tried first.
    fn conflicts_with_pick(&mut self, p: EventId, c: EventId) -> bool {
        // (Empty entries carry epoch 0, which is never the current one.)
        let key = (u64::from(p) << 32) | u64::from(c);
        let at = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - PICK_MEMO_BITS)) as usize;
        if self.pick_memo.is_empty() {
            self.pick_memo = vec![PickMemo::default(); 1 << PICK_MEMO_BITS];
        }
        let known = self.pick_memo[at];
        if known.key == key && known.epoch == self.pick_epoch {
            debug_assert_eq!(known.conflict, self.store.conflict(p, c));
            return known.conflict;
        }
        let verdict = match self.pick_parting {
            Some(s) if self.store.conflict_on(p, c, s) => {
                debug_assert!(self.store.conflict(p, c));
                true
            }
            _ => {
                let slot = self.store.conflict_slot(p, c);
                if slot.is_some() {
                    self.pick_parting = slot;
                }
                slot.is_some()
            }
        };
        self.pick_memo[at] = PickMemo {
            key,
            epoch: self.pick_epoch,
            conflict: verdict,
        };
        verdict
    }

    /// Whether no event of `D` lies in `[c] \ C`. A partial alternative must check this: an
    /// event of `D` it does not have to conflict with could otherwise enter `J`, and Explore
    /// would add it to `C` (an exact alternative conflicts with all of `D`, so never holds
    /// one).
    fn history_avoids_d(&self, c: EventId) -> bool {
        let mut seen = FxHashSet::default();
        let mut stack = vec![c];
        while let Some(x) = stack.pop() {
            if x == BOTTOM || Self::is_in(&self.in_c, x) || !seen.insert(x) {
                continue;
            }
            if self.disabled.contains(x) {
                return false;
            }
            stack.extend_from_slice(self.store.preds(x));
        }
        true
    }

    /// Events added to `C` since a candidate was last found compatible with it, up to which
    /// only their slots are checked again (past it, the candidate's whole cone).
    const RECHECKED_EVENTS: usize = 8;

    /// Whether `[c]` conflicts with `C`. Failed alternatives test the same candidates again
    /// and again as `C` grows and shrinks: a conflict found is remembered while the event of
    /// `C` it was found with stays, and so is the absence of one, after which only the slots
    /// of the events added since can separate `[c]` from `C`.
    fn conflicts_with_c(&mut self, c: EventId) -> bool {
        let i = c as usize;
        let memo = self.c_memo.get(i).copied().unwrap_or_default();
        if memo.conflict_len > 0
            && self.push_ids.get(memo.conflict_len as usize - 1) == Some(&memo.conflict_id)
        {
            return true;
        }
        let n = self.c.len();
        // The events of C pushed since the last test are a suffix of C (push ids grow along
        // it), and only a suffix of up to RECHECKED_EVENTS matters: it is found by a scan from
        // the end (a binary search over all of C was a chain of dependent loads, 4 % of the
        // time with cutoffs). 0 when there was no test or the suffix is longer.
        let kept = match memo.compatible_since {
            pushes if pushes > 0 => {
                let low = n.saturating_sub(Self::RECHECKED_EVENTS);
                let k = (low..=n)
                    .rev()
                    .find(|&k| k == 0 || self.push_ids[k - 1] <= pushes)
                    .unwrap_or(0);
                debug_assert_eq!(k, {
                    let p = self.push_ids.partition_point(|&id| id <= pushes);
                    if p >= low { p } else { 0 }
                });
                k
            }
            _ => 0,
        };
        let parting = match kept {
            k if k > 0 && n - k <= Self::RECHECKED_EVENTS => {
                let answer = self.c[k..].iter().find_map(|&g| {
                    self.store
                        .event_slots(g)
                        .iter()
                        .copied()
                        .find(|&s| self.store.conflicts_with_cone_on(c, &self.top, s))
                });
                debug_assert_eq!(
                    answer.is_some(),
                    self.store.conflicts_with_cone(c, &self.top)
                );
                answer
            }
            // Candidates mostly conflict with C on the slot the last one did: tried first.
            _ => match self.c_parting {
                Some(s) if self.store.conflicts_with_cone_on(c, &self.top, s) => Some(s),
                _ => {
                    let slot = self.store.conflict_slot_with_cone(c, &self.top);
                    if slot.is_some() {
                        self.c_parting = slot;
                    }
                    slot
                }
            },
        };
        if n == 0 {
            return parting.is_some();
        }
        match parting {
            Some(s) => {
                let at = self.conflict_witness(c, s);
                extend_to(&mut self.c_memo, i + 1, CMemo::default());
                self.c_memo[i].conflict_len = at as u32 + 1;
                self.c_memo[i].conflict_id = self.push_ids[at];
            }
            None => {
                extend_to(&mut self.c_memo, i + 1, CMemo::default());
                self.c_memo[i].compatible_since = self.pushes;
            }
        }
        parting.is_some()
    }

    /// The index in `C` of an event of `C` in conflict with `[c]`, given a slot `s` on which
    /// `[c]` and `C` part: on `s`, `[c]`'s last event `x` and `C`'s chain of events branch
    /// apart, so the event of `C`'s chain at `x`'s depth (or `C`'s last one there, if `x` is
    /// deeper) is not on `x`'s branch.
    fn conflict_witness(&self, c: EventId, s: Slot) -> usize {
        let x = self.store.cone_at(c, s);
        let y = self.top[s as usize];
        let w = if x.depth <= y.depth {
            self.store.ancestor_on(y, x.depth)
        } else {
            y.event
        };
        debug_assert!(Self::is_in(&self.in_c, w) && self.store.conflict(c, w));
        self.c_index[w as usize] as usize
    }

    /// Depth-first search for one pick per event of `D` (from index `from` on) not in
    /// conflict with `C`, the picks pairwise conflict-free. Spikes are built only for the
    /// events that need a pick (see [`next_needing_pick`](Self::next_needing_pick)): with
    /// `n` events of `D` in conflict with one another this makes an alternative cost O(1)
    /// amortised (it was O(n), and O(n²) before that). Iterative: `D` can hold many
    /// thousands of events.
    fn comb(&mut self, from: usize, picks: &mut Vec<EventId>) -> bool {
        // One choice point per pick: the index of its event in `D`, and where to go on in
        // that event's spike if the rest of the comb fails.
        let mut choices = std::mem::take(&mut self.choices_scratch);
        choices.clear();
        let found = self.comb_with(from, picks, &mut choices);
        self.choices_scratch = choices;
        found
    }

    /// [`comb`](Self::comb) with its choice points in `choices` (empty).
    fn comb_with(
        &mut self,
        from: usize,
        picks: &mut Vec<EventId>,
        choices: &mut Vec<(usize, usize)>,
    ) -> bool {
        let mut i = from;
        let mut resume = None;
        loop {
            let (d, from, fresh) = match resume.take() {
                Some((at, k)) => {
                    i = at;
                    (self.disabled.get(i), k, false)
                }
                None => {
                    let Some(d) = self.next_needing_pick(&mut i, picks) else {
                        return true;
                    };
                    // (The memo of `d` is not touched while `d` is a choice point: `D`
                    // names each event once.)
                    self.refresh_icf(d);
                    (d, self.spike_past_d(d), true)
                }
            };
            // The spike of `d` is walked lazily: the first member that completes the comb
            // ends the search, and the rest of the spike is never tested against `C`.
            let mut picked = false;
            // Whether every member walked so far is ruled out whatever the picks.
            let mut never = true;
            // Members of D at the head of the spike are remembered as skipped.
            let mut head = fresh;
            for k in from.. {
                let Some(c) = self.icf_memo[d as usize]
                    .as_ref()
                    .and_then(|m| m.events.get(k).copied())
                else {
                    break;
                };
                if head {
                    match self.disabled.position(c) {
                        Some(at) => {
                            let m = self.icf_memo[d as usize].as_mut().expect("refreshed");
                            let len = (at + 1).max(m.past_d.1 as usize);
                            m.past_d = (k as u32 + 1, len as u32, self.disabled.prefix_mark(len));
                            continue;
                        }
                        None => head = false,
                    }
                }
                match self.spike_verdict(c, picks) {
                    SpikeVerdict::Member => {
                        picks.push(c);
                        choices.push((i, k + 1));
                        i += 1;
                        picked = true;
                        break;
                    }
                    SpikeVerdict::NotWithPicks => never = false,
                    SpikeVerdict::Never => {}
                }
            }
            if !picked {
                // No other picks can help `d`: one that did would be (or have in its history)
                // an event in immediate conflict with `d`, so a member of its spike, outside
                // D, compatible with C (and, for a partial alternative, with a history clear of
                // D), which this walk from the start of the spike would have met. Backtracking
                // would try every combination of the picks before `d` in vain.
                if fresh && never {
                    return false;
                }
                let Some(back) = choices.pop() else {
                    return false;
                };
                picks.pop();
                resume = Some(back);
            }
        }
    }

    /// Where the walk of `d`'s spike starts: past the members found in `D` at its head
    /// earlier, while the prefix of `D` holding them is still there (the mark is dropped
    /// otherwise).
    fn spike_past_d(&mut self, d: EventId) -> usize {
        let disabled = &self.disabled;
        let Some(m) = self.icf_memo[d as usize].as_mut() else {
            return 0;
        };
        let (k, len, mark) = m.past_d;
        if disabled.len() >= len as usize && disabled.holds_prefix(len as usize, mark) {
            k as usize
        } else {
            m.past_d = (0, 0, 0);
            0
        }
    }
}

/// Whether `s` is the first of the slots `slots` of a label on which the event being scanned
/// for has a parent (`d_parent`, `u32::MAX` where it has none), given that it has one on `s`.
fn first_shared_is(slots: &[Slot], s: Slot, d_parent: &[u32]) -> bool {
    slots
        .iter()
        .take_while(|&&x| x < s)
        .all(|&x| d_parent[x as usize] == u32::MAX)
}

/// The indexes, among the slots `slots` of a label, of the slots past `s` on which the event
/// being scanned for has a parent (`d_parent`, `u32::MAX` where it has none).
fn shared_past(slots: &[Slot], s: Slot, d_parent: &[u32]) -> impl Iterator<Item = usize> {
    slots
        .iter()
        .enumerate()
        .filter(move |&(_, &x)| x > s && d_parent[x as usize] != u32::MAX)
        .map(|(j, _)| j)
}
