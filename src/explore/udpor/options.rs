//! The options of an exploration ([`UdporOptions`]): how `Explore` picks its event, exact or
//! k-partial alternatives, cutoffs and their adequate order, what `Remove` does with the events
//! it takes out of `U` ([`Cache`]), and the layouts of the event store and of the dependents'
//! tables. The defaults are Alg. 1 with exact alternatives, no cutoffs and a bounded cache.
//!
//! The cache and the layouts trade speed for memory without changing what is explored, but
//! for the slots' cover, which with cutoffs changes the order of exploration.

use crate::unfolding::cone::ConeLayout;
use crate::unfolding::event::HistoryStates;
use crate::unfolding::order::Order;
use crate::unfolding::slots::SlotCover;

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
    /// freeing the store of a long run takes time for nothing.
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
