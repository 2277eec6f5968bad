//! Coloured (symmetric) nets and their unfolding to place/transition nets.
//!
//! This module owns the coloured net as the contest's `symmetricnet` PNML declares it: finite
//! sorts (`sort.rs`), colour terms, multiset terms and guards with their evaluation under a
//! binding (`term.rs`) and compiled for the unfolding's inner loops (`compiled.rs`), the net
//! itself (here), and the unfolding to an equivalent [`Net`] (`unfold.rs`): a place per (place, colour), a transition per (transition, binding that
//! satisfies the guard), with a [`Folding`] that remembers which P/T nodes each coloured node
//! became, so that formulas naming coloured nodes can be resolved on the unfolded net.
//!
//! [`Net`]: crate::model::net::Net

mod compiled;
pub mod sort;
pub mod term;
mod unfold;

#[cfg(test)]
mod tests;

use compact_str::CompactString;

pub use sort::{Colour, Sort, SortError, SortId, SortKind, Sorts};
pub use term::{Cmp, Guard, Multiset, Term, VarId};
pub use unfold::{Budget, UnfoldError, Unfolded, unfold_to_pt};

/// A declared variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    /// Identifier in the file.
    pub id: CompactString,
    /// Its sort.
    pub sort: SortId,
}

/// A coloured place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColouredPlace {
    /// Identifier in the file.
    pub id: CompactString,
    /// Display label.
    pub label: CompactString,
    /// The colour domain.
    pub sort: SortId,
    /// The initial marking (a closed multiset term), if any.
    pub initial: Option<Multiset>,
}

/// A coloured transition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColouredTransition {
    /// Identifier in the file.
    pub id: CompactString,
    /// Display label.
    pub label: CompactString,
    /// The guard ([`Guard::True`] when the file has none).
    pub guard: Guard,
}

/// An arc with its inscription, a multiset over the place's sort.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColouredArc {
    /// Index in [`ColouredNet::places`].
    pub place: u32,
    /// Index in [`ColouredNet::transitions`].
    pub transition: u32,
    /// Place → transition (consumed) when true, transition → place (produced) otherwise.
    pub input: bool,
    /// The inscription.
    pub inscription: Multiset,
}

/// A coloured net: sorts, variables, places, transitions and inscribed arcs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColouredNet {
    /// The net's name.
    pub name: String,
    /// Every sort, named or inline.
    pub sorts: Sorts,
    /// Every declared variable.
    pub variables: Vec<Variable>,
    /// Places in file order.
    pub places: Vec<ColouredPlace>,
    /// Transitions in file order.
    pub transitions: Vec<ColouredTransition>,
    /// Arcs in file order.
    pub arcs: Vec<ColouredArc>,
}

/// The sizes of a coloured net, for `unfold info`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ColouredSizes {
    /// Coloured places.
    pub places: usize,
    /// Coloured transitions.
    pub transitions: usize,
    /// Coloured arcs.
    pub arcs: usize,
    /// Declared variables.
    pub variables: usize,
}

impl ColouredNet {
    /// Its sizes.
    pub fn sizes(&self) -> ColouredSizes {
        ColouredSizes {
            places: self.places.len(),
            transitions: self.transitions.len(),
            arcs: self.arcs.len(),
            variables: self.variables.len(),
        }
    }
}

/// One coloured node and the P/T nodes it became (by identifier, so that the map stays right
/// when the P/T net is renumbered).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fold {
    /// The coloured node's identifier.
    pub id: CompactString,
    /// Its label.
    pub label: CompactString,
    /// The identifiers of the P/T nodes it became, dead ones dropped.
    pub members: Vec<CompactString>,
}

/// How the unfolding went: what it tried, kept and dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct UnfoldStats {
    /// Rounds of binding enumeration until the possibly-marked colours stopped growing.
    pub rounds: u64,
    /// Variable assignments tried in the last round (partial ones included).
    pub bindings_tried: u64,
    /// Bindings that satisfy their guard.
    pub bindings_kept: u64,
    /// P/T places before dead ones were dropped.
    pub places_before: u64,
    /// P/T transitions before dead ones were dropped.
    pub transitions_before: u64,
    /// Places dropped: never marked in any reachable marking (the fixpoint of `unfold.rs`).
    pub places_dropped: u64,
    /// Transitions dropped: never enabled.
    pub transitions_dropped: u64,
    /// Time spent unfolding, in microseconds.
    pub micros: u64,
}

/// The map from a coloured net's nodes to the unfolded net's, with the coloured sizes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Folding {
    /// Per coloured place, in file order.
    pub places: Vec<Fold>,
    /// Per coloured transition, in file order.
    pub transitions: Vec<Fold>,
    /// The coloured net's sizes.
    pub coloured: ColouredSizes,
    /// What the unfolding did.
    pub stats: UnfoldStats,
}
