//! Place/transition nets: places, transitions, weighted arcs and read arcs.
//!
//! A [`Net`] is what every net reader produces and every net writer consumes. It keeps the
//! order of places and transitions of the file (the Parikh tie-breaks of adequate orders and the
//! numbering of PEP files depend on it) and both the file identifier and the display label of
//! every node. Arcs are sparse and sorted by place.

use std::fmt;

/// Index of a place in [`Net::places`].
pub type PlaceIdx = u32;
/// Index of a transition in [`Net::transitions`].
pub type TransIdx = u32;

/// A place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// Identifier in the file (unique among places and transitions).
    pub id: String,
    /// Display label (the file's name, or the identifier when it has none).
    pub label: String,
    /// Tokens in the initial marking.
    pub initial: u32,
}

/// One arc between a place and a transition, seen from the transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Arc {
    /// The place.
    pub place: PlaceIdx,
    /// The weight (at least 1).
    pub weight: u32,
}

/// A net transition with its arcs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetTransition {
    /// Identifier in the file.
    pub id: String,
    /// Display label.
    pub label: String,
    /// Input arcs (place → transition), sorted by place: tokens consumed.
    pub pre: Vec<Arc>,
    /// Output arcs (transition → place), sorted by place: tokens produced.
    pub post: Vec<Arc>,
    /// Read arcs, sorted by place: tokens tested, not consumed (PEP `RA`).
    pub reads: Vec<Arc>,
}

/// The NUPN block of a PNML file (`<toolspecific tool="nupn">`): sizes and the 1-safety
/// certificate declared by the model's authors.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Nupn {
    /// Declared number of places.
    pub places: Option<u64>,
    /// Declared number of transitions.
    pub transitions: Option<u64>,
    /// Declared number of arcs.
    pub arcs: Option<u64>,
    /// Declared number of units.
    pub units: Option<u64>,
    /// The `safe` attribute: the authors certify that the net is 1-safe.
    pub safe: Option<bool>,
}

/// A place/transition net.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Net {
    /// The net's name (PNML net id, or the file stem).
    pub name: String,
    /// Places in file order.
    pub places: Vec<Place>,
    /// Transitions in file order.
    pub transitions: Vec<NetTransition>,
    /// The NUPN block, when the file has one.
    pub nupn: Option<Nupn>,
}

/// Direction of an arc given to [`NetBuilder::add_arc`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArcKind {
    /// Place → transition.
    Input,
    /// Transition → place.
    Output,
    /// Read arc (test without consuming).
    Read,
}

/// Why the builder refused something. Readers add the position in the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// Two nodes share an identifier.
    #[error("duplicate identifier '{0}'")]
    DuplicateId(String),
    /// The same arc was given twice.
    #[error("duplicate {kind} arc between place '{place}' and transition '{transition}'")]
    DuplicateArc {
        /// Direction, in words.
        kind: &'static str,
        /// Place identifier.
        place: String,
        /// Transition identifier.
        transition: String,
    },
    /// An arc weight of zero.
    #[error("arc weight must be at least 1, found 0")]
    ZeroWeight,
}

/// Builds a [`Net`] node by node, checking identifiers and arcs.
#[derive(Default)]
pub struct NetBuilder {
    net: Net,
    ids: rustc_hash::FxHashMap<String, Node>,
}

/// A node of a net: a place or a transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A place.
    Place(PlaceIdx),
    /// A transition.
    Transition(TransIdx),
}

impl NetBuilder {
    /// A builder for a net named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        NetBuilder {
            net: Net {
                name: name.into(),
                ..Net::default()
            },
            ids: Default::default(),
        }
    }

    /// Sets the net's name.
    pub fn set_name(&mut self, name: impl Into<String>) {
        self.net.name = name.into();
    }

    /// Records the NUPN block.
    pub fn set_nupn(&mut self, nupn: Nupn) {
        self.net.nupn = Some(nupn);
    }

    /// Adds a place; its identifier must be new.
    pub fn add_place(
        &mut self,
        id: impl Into<String>,
        label: Option<String>,
        initial: u32,
    ) -> Result<PlaceIdx, BuildError> {
        let id = id.into();
        let idx = self.net.places.len() as PlaceIdx;
        self.claim(&id, Node::Place(idx))?;
        let label = label.unwrap_or_else(|| id.clone());
        self.net.places.push(Place { id, label, initial });
        Ok(idx)
    }

    /// Adds a transition without arcs; its identifier must be new.
    pub fn add_transition(
        &mut self,
        id: impl Into<String>,
        label: Option<String>,
    ) -> Result<TransIdx, BuildError> {
        let id = id.into();
        let idx = self.net.transitions.len() as TransIdx;
        self.claim(&id, Node::Transition(idx))?;
        let label = label.unwrap_or_else(|| id.clone());
        self.net.transitions.push(NetTransition {
            id,
            label,
            pre: Vec::new(),
            post: Vec::new(),
            reads: Vec::new(),
        });
        Ok(idx)
    }

    fn claim(&mut self, id: &str, node: Node) -> Result<(), BuildError> {
        if self.ids.contains_key(id) {
            return Err(BuildError::DuplicateId(id.to_string()));
        }
        self.ids.insert(id.to_string(), node);
        Ok(())
    }

    /// The node with identifier `id`, if any.
    pub fn node(&self, id: &str) -> Option<Node> {
        self.ids.get(id).copied()
    }

    /// Number of places so far.
    pub fn place_count(&self) -> usize {
        self.net.places.len()
    }

    /// Number of transitions so far.
    pub fn transition_count(&self) -> usize {
        self.net.transitions.len()
    }

    /// Adds an arc. A second arc of the same kind between the same pair is refused.
    pub fn add_arc(
        &mut self,
        place: PlaceIdx,
        transition: TransIdx,
        kind: ArcKind,
        weight: u32,
    ) -> Result<(), BuildError> {
        if weight == 0 {
            return Err(BuildError::ZeroWeight);
        }
        let t = &mut self.net.transitions[transition as usize];
        let (list, name) = match kind {
            ArcKind::Input => (&mut t.pre, "input"),
            ArcKind::Output => (&mut t.post, "output"),
            ArcKind::Read => (&mut t.reads, "read"),
        };
        if list.iter().any(|a| a.place == place) {
            return Err(BuildError::DuplicateArc {
                kind: name,
                place: self.net.places[place as usize].id.clone(),
                transition: t.id.clone(),
            });
        }
        list.push(Arc { place, weight });
        Ok(())
    }

    /// The finished net, with arcs sorted by place.
    pub fn finish(mut self) -> Net {
        for t in &mut self.net.transitions {
            t.pre.sort_unstable();
            t.post.sort_unstable();
            t.reads.sort_unstable();
        }
        self.net
    }
}

/// Structural class of a net (Murata's taxonomy), for `unfold info`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Structure {
    /// Every arc has weight 1 (and there are no read arcs).
    pub ordinary: bool,
    /// Every transition has exactly one input and one output place.
    pub state_machine: bool,
    /// Every place has exactly one input and one output transition.
    pub marked_graph: bool,
    /// Ordinary, and two transitions sharing an input place have the same preset.
    pub free_choice: bool,
}

impl Net {
    /// Number of arcs (input, output and read arcs).
    pub fn arc_count(&self) -> usize {
        self.transitions
            .iter()
            .map(|t| t.pre.len() + t.post.len() + t.reads.len())
            .sum()
    }

    /// Number of read arcs.
    pub fn read_arc_count(&self) -> usize {
        self.transitions.iter().map(|t| t.reads.len()).sum()
    }

    /// The largest arc weight (1 for a net without arcs).
    pub fn max_weight(&self) -> u32 {
        self.transitions
            .iter()
            .flat_map(|t| t.pre.iter().chain(&t.post).chain(&t.reads))
            .map(|a| a.weight)
            .max()
            .unwrap_or(1)
    }

    /// Total number of tokens in the initial marking.
    pub fn initial_tokens(&self) -> u64 {
        self.places.iter().map(|p| p.initial as u64).sum()
    }

    /// Whether the net is declared or obviously 1-safe without exploring it: the NUPN
    /// certificate says so. (Everything else needs a reachability check.)
    pub fn certified_safe(&self) -> bool {
        matches!(
            self.nupn,
            Some(Nupn {
                safe: Some(true),
                ..
            })
        )
    }

    /// Input transitions (producers) and output transitions (consumers) of every place.
    pub fn place_neighbours(&self) -> (Vec<Vec<TransIdx>>, Vec<Vec<TransIdx>>) {
        let mut producers = vec![Vec::new(); self.places.len()];
        let mut consumers = vec![Vec::new(); self.places.len()];
        for (ti, t) in self.transitions.iter().enumerate() {
            for a in &t.post {
                producers[a.place as usize].push(ti as TransIdx);
            }
            for a in &t.pre {
                consumers[a.place as usize].push(ti as TransIdx);
            }
        }
        (producers, consumers)
    }

    /// The structural class of the net.
    pub fn structure(&self) -> Structure {
        let ordinary = self.max_weight() == 1 && self.read_arc_count() == 0;
        let state_machine = self
            .transitions
            .iter()
            .all(|t| t.pre.len() == 1 && t.post.len() == 1);
        let (producers, consumers) = self.place_neighbours();
        let marked_graph =
            (0..self.places.len()).all(|p| producers[p].len() == 1 && consumers[p].len() == 1);
        let free_choice = ordinary
            && consumers.iter().all(|ts| {
                ts.windows(2).all(|w| {
                    self.transitions[w[0] as usize].pre == self.transitions[w[1] as usize].pre
                })
            });
        Structure {
            ordinary,
            state_machine,
            marked_graph,
            free_choice,
        }
    }
}

impl fmt::Display for Net {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "net '{}': {} places, {} transitions, {} arcs",
            self.name,
            self.places.len(),
            self.transitions.len(),
            self.arc_count()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_transitions() -> Net {
        let mut b = NetBuilder::new("n");
        let p = b.add_place("p", None, 1).unwrap();
        let q = b.add_place("q", Some("Q".into()), 0).unwrap();
        let t = b.add_transition("t", None).unwrap();
        let u = b.add_transition("u", None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 1).unwrap();
        b.add_arc(q, t, ArcKind::Output, 1).unwrap();
        b.add_arc(q, u, ArcKind::Input, 1).unwrap();
        b.add_arc(p, u, ArcKind::Output, 1).unwrap();
        b.finish()
    }

    #[test]
    fn builder_refuses_duplicates() {
        let mut b = NetBuilder::new("n");
        let p = b.add_place("x", None, 0).unwrap();
        assert_eq!(
            b.add_transition("x", None),
            Err(BuildError::DuplicateId("x".into()))
        );
        let t = b.add_transition("t", None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 2).unwrap();
        assert!(matches!(
            b.add_arc(p, t, ArcKind::Input, 1),
            Err(BuildError::DuplicateArc { .. })
        ));
        assert_eq!(
            b.add_arc(p, t, ArcKind::Output, 0),
            Err(BuildError::ZeroWeight)
        );
    }

    #[test]
    fn structure_of_a_cycle() {
        let net = two_transitions();
        assert_eq!(net.arc_count(), 4);
        assert_eq!(net.places[1].label, "Q");
        let s = net.structure();
        assert!(s.ordinary && s.state_machine && s.marked_graph && s.free_choice);
    }
}
