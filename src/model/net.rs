//! Place/transition nets: places, transitions, weighted arcs and read arcs.
//!
//! A [`Net`] is what every net reader produces and every net writer consumes. It keeps the
//! order of places and transitions of the file (the Parikh tie-breaks of adequate orders and the
//! numbering of PEP files depend on it) and both the file identifier and the display label of
//! every node. Arcs are sparse and sorted by place.

use std::fmt;

use compact_str::CompactString;

/// Index of a place in [`Net::places`].
pub type PlaceIdx = u32;
/// Index of a transition in [`Net::transitions`].
pub type TransIdx = u32;

/// A place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// Identifier in the file (unique among places and transitions).
    pub id: CompactString,
    /// Display label (the file's name, or the identifier when it has none).
    pub label: CompactString,
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

/// A transition's arcs of one kind. Most transitions have one or two of each: those are kept
/// inline, without an allocation (as `Vec`s, the pre- and postsets of a net of a million
/// transitions made two million allocations).
pub type Arcs = smallvec::SmallVec<[Arc; 2]>;

/// A net transition with its arcs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetTransition {
    /// Identifier in the file.
    pub id: CompactString,
    /// Display label.
    pub label: CompactString,
    /// Input arcs (place → transition), sorted by place: tokens consumed.
    pub pre: Arcs,
    /// Output arcs (transition → place), sorted by place: tokens produced.
    pub post: Arcs,
    /// Read arcs, sorted by place: tokens tested, not consumed (PEP `RA`).
    pub reads: Arcs,
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
    /// The `root` attribute: the identifier of the root unit.
    pub root: Option<CompactString>,
    /// The units as declared, in file order (kept so that `convert` writes them back).
    pub unit_tree: Vec<NupnUnit>,
}

/// One unit of a NUPN block: its places and its subunits, by identifier.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NupnUnit {
    /// The unit's identifier.
    pub id: CompactString,
    /// Identifiers of the places it holds directly.
    pub places: Vec<CompactString>,
    /// Identifiers of its subunits.
    pub subunits: Vec<CompactString>,
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
    /// When the net is the unfolding of a coloured net: which P/T nodes each coloured node
    /// became (formulas name the coloured ones), and the coloured sizes.
    pub folding: Option<std::sync::Arc<crate::model::coloured::Folding>>,
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
    /// Every node with the hash of its identifier. The identifiers themselves live in `net`
    /// only, so that adding a node allocates no second copy of its identifier.
    ids: hashbrown::HashTable<(u64, Node)>,
    /// Whether the caller vouched that identifiers are unique ([`with_unique_ids`]): the
    /// table of identifiers is then kept in debug builds only, to check that.
    ///
    /// [`with_unique_ids`]: NetBuilder::with_unique_ids
    ids_unique: bool,
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
            ids_unique: false,
        }
    }

    /// A builder for a net named `name` whose caller guarantees that no identifier is given
    /// twice, such as a reader whose identifiers are unique by construction: it skips the
    /// check (a hash table of every identifier, a tenth of the time of reading a large PEP
    /// net). Debug builds still check, and panic on a duplicate.
    pub fn with_unique_ids(name: impl Into<String>) -> Self {
        NetBuilder {
            ids_unique: true,
            ..Self::new(name)
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
        id: impl Into<CompactString>,
        label: Option<CompactString>,
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
        id: impl Into<CompactString>,
        label: Option<CompactString>,
    ) -> Result<TransIdx, BuildError> {
        let id = id.into();
        let idx = self.net.transitions.len() as TransIdx;
        self.claim(&id, Node::Transition(idx))?;
        let label = label.unwrap_or_else(|| id.clone());
        self.net.transitions.push(NetTransition {
            id,
            label,
            pre: Arcs::new(),
            post: Arcs::new(),
            reads: Arcs::new(),
        });
        Ok(idx)
    }

    /// Records `node`, whose identifier is `id`, unless a node has that identifier already.
    fn claim(&mut self, id: &str, node: Node) -> Result<(), BuildError> {
        if self.ids_unique && !cfg!(debug_assertions) {
            return Ok(());
        }
        let net = &self.net;
        let hash = id_hash(id);
        match self.ids.entry(
            hash,
            |&(h, n)| h == hash && node_id(net, n) == id,
            |&(h, _)| h,
        ) {
            hashbrown::hash_table::Entry::Occupied(_) => {
                assert!(!self.ids_unique, "identifier {id} given twice");
                Err(BuildError::DuplicateId(id.into()))
            }
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert((hash, node));
                Ok(())
            }
        }
    }

    /// The node with identifier `id`, if any (a builder [`with_unique_ids`] keeps no table of
    /// identifiers in release builds, and finds none).
    ///
    /// [`with_unique_ids`]: NetBuilder::with_unique_ids
    pub fn node(&self, id: &str) -> Option<Node> {
        let hash = id_hash(id);
        self.ids
            .find(hash, |&(h, n)| h == hash && node_id(&self.net, n) == id)
            .map(|&(_, n)| n)
    }

    /// Number of places so far.
    pub fn place_count(&self) -> usize {
        self.net.places.len()
    }

    /// Number of transitions so far.
    pub fn transition_count(&self) -> usize {
        self.net.transitions.len()
    }

    /// Makes room for `additional` more arcs of `kind` at `transition`, so that a reader that
    /// knows how many come allocates the list once, at its size.
    pub fn reserve_arcs(&mut self, transition: TransIdx, kind: ArcKind, additional: usize) {
        let t = &mut self.net.transitions[transition as usize];
        match kind {
            ArcKind::Input => t.pre.reserve_exact(additional),
            ArcKind::Output => t.post.reserve_exact(additional),
            ArcKind::Read => t.reads.reserve_exact(additional),
        }
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
                place: self.net.places[place as usize].id.to_string(),
                transition: t.id.to_string(),
            });
        }
        list.push(Arc { place, weight });
        Ok(())
    }

    /// The finished net, with arcs sorted by place.
    pub fn finish(mut self) -> Net {
        for t in &mut self.net.transitions {
            for list in [&mut t.pre, &mut t.post, &mut t.reads] {
                // Most lists are short and already sorted; checking is cheaper than sorting.
                if !list.is_sorted() {
                    list.sort_unstable();
                }
            }
        }
        self.net
    }
}

/// The hash of a node identifier in [`NetBuilder`]'s index (and the coloured unfolding's).
pub(crate) fn id_hash(id: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(id)
}

/// The identifier of `node` in `net`.
pub(crate) fn node_id(net: &Net, node: Node) -> &str {
    match node {
        Node::Place(p) => &net.places[p as usize].id,
        Node::Transition(t) => &net.transitions[t as usize].id,
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

    /// Whether the net is in the complete prefix's domain as far as can be seen without
    /// exploring: certified 1-safe, or an initial marking and arc weights of at most 1 (a run
    /// that puts two tokens on a place is then found by the prefix itself).
    pub fn looks_safe(&self) -> bool {
        self.certified_safe()
            || (self.places.iter().all(|p| p.initial <= 1) && self.max_weight() <= 1)
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
        // Counts and first consumers instead of the lists of `place_neighbours`: one allocation
        // per array rather than two per place.
        let mut producers = vec![0u32; self.places.len()];
        let mut consumers = vec![0u32; self.places.len()];
        // The first consumer of every place; two consumers of a place with different presets
        // break free choice (equal presets being transitive, comparing with the first is enough).
        let mut first = vec![TransIdx::MAX; self.places.len()];
        let mut free_choice = ordinary;
        for (ti, t) in self.transitions.iter().enumerate() {
            for a in &t.post {
                producers[a.place as usize] += 1;
            }
            for a in &t.pre {
                let p = a.place as usize;
                consumers[p] += 1;
                match first[p] {
                    TransIdx::MAX => first[p] = ti as TransIdx,
                    f if free_choice => {
                        free_choice = self.transitions[f as usize].pre == t.pre;
                    }
                    _ => {}
                }
            }
        }
        let marked_graph = producers
            .iter()
            .zip(&consumers)
            .all(|(&i, &o)| i == 1 && o == 1);
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

    /// A builder told that identifiers are unique trusts it in release builds, and checks it
    /// in debug builds (the test suite's).
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "identifier x given twice")]
    fn vouched_unique_ids_are_checked_in_debug_builds() {
        let mut b = NetBuilder::with_unique_ids("n");
        b.add_place("x", None, 0).unwrap();
        let _ = b.add_transition("x", None);
    }

    #[test]
    fn builder_index_finds_every_node() {
        // Enough nodes for the index to grow several times.
        let mut b = NetBuilder::new("n");
        for i in 0..1000 {
            assert_eq!(b.add_place(format!("n{i}"), None, 0), Ok(i));
            assert_eq!(b.add_transition(format!("m{i}"), None), Ok(i));
        }
        for i in 0..1000 {
            assert_eq!(b.node(&format!("n{i}")), Some(Node::Place(i)));
            assert_eq!(b.node(&format!("m{i}")), Some(Node::Transition(i)));
        }
        assert_eq!(b.node("n1000"), None);
        assert_eq!(b.node(""), None);
        assert_eq!(
            b.add_transition("n999", None),
            Err(BuildError::DuplicateId("n999".into()))
        );
        assert_eq!(
            b.add_place("m0", None, 1),
            Err(BuildError::DuplicateId("m0".into()))
        );
        let net = b.finish();
        assert_eq!((net.places.len(), net.transitions.len()), (1000, 1000));
        assert_eq!(net.places[999].label, "n999");
    }

    #[test]
    fn arc_lists_and_names_are_as_small_as_vecs_and_strings() {
        // Inline storage must not make every transition larger (smallvec's `union` layout).
        use std::mem::size_of;
        assert_eq!(size_of::<Arcs>(), size_of::<Vec<Arc>>());
        assert_eq!(size_of::<CompactString>(), size_of::<String>());
        let mut b = NetBuilder::new("n");
        let p = b.add_place("p", None, 1).unwrap();
        let t = b.add_transition("t", None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 1).unwrap();
        b.add_arc(p, t, ArcKind::Output, 2).unwrap();
        let net = b.finish();
        assert!(!net.transitions[0].pre.spilled() && !net.transitions[0].post.spilled());
        assert_eq!(
            net.transitions[0].post[..],
            [Arc {
                place: p,
                weight: 2
            }]
        );
    }

    #[test]
    fn finish_sorts_arcs() {
        let mut b = NetBuilder::new("n");
        let ps: Vec<_> = (0..3)
            .map(|i| b.add_place(format!("p{i}"), None, 0).unwrap())
            .collect();
        let t = b.add_transition("t", None).unwrap();
        for &p in ps.iter().rev() {
            b.add_arc(p, t, ArcKind::Input, p + 1).unwrap();
        }
        b.add_arc(ps[1], t, ArcKind::Output, 1).unwrap();
        b.add_arc(ps[0], t, ArcKind::Output, 1).unwrap();
        let net = b.finish();
        let places = |v: &[Arc]| v.iter().map(|a| (a.place, a.weight)).collect::<Vec<_>>();
        assert_eq!(places(&net.transitions[0].pre), [(0, 1), (1, 2), (2, 3)]);
        assert_eq!(places(&net.transitions[0].post), [(0, 1), (1, 1)]);
    }

    #[test]
    fn structure_of_choices() {
        // p is consumed by t and u; q by u only.
        let build = |u_reads_q: bool| {
            let mut b = NetBuilder::new("n");
            let p = b.add_place("p", None, 1).unwrap();
            let q = b.add_place("q", None, 1).unwrap();
            let t = b.add_transition("t", None).unwrap();
            let u = b.add_transition("u", None).unwrap();
            b.add_arc(p, t, ArcKind::Input, 1).unwrap();
            b.add_arc(p, u, ArcKind::Input, 1).unwrap();
            if u_reads_q {
                b.add_arc(q, u, ArcKind::Input, 1).unwrap();
            }
            b.add_arc(q, t, ArcKind::Output, 1).unwrap();
            b.add_arc(p, u, ArcKind::Output, 1).unwrap();
            b.finish()
        };
        let s = build(false).structure();
        assert!(s.ordinary && s.free_choice && s.state_machine && !s.marked_graph);
        let s = build(true).structure();
        assert!(s.ordinary && !s.free_choice && !s.state_machine && !s.marked_graph);
        // Not ordinary: never free choice.
        let mut net = build(false);
        net.transitions[0].post[0].weight = 2;
        let s = net.structure();
        assert!(!s.ordinary && !s.free_choice);
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
