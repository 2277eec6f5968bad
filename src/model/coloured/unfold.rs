//! Unfolding a coloured net to a P/T net.
//!
//! Places: one per (coloured place, colour). Transitions: one per (coloured transition,
//! binding of the variables it mentions that satisfies its guard). Bindings are enumerated
//! depth first, one variable at a time; each conjunct of the guard is tested as soon as its
//! variables have values, and a variable that a conjunct `v = term` fixes from earlier ones
//! gets that one value instead of its whole sort. Then the dead nodes are dropped by a sound
//! fixpoint: a place is possibly marked when it is marked initially or in the postset of a
//! possibly enabled transition, a transition possibly enabled when its whole preset is
//! possibly marked; whatever the least fixpoint leaves out can never be marked or fire, so
//! dropping it changes no reachable marking of the kept places.

use std::time::Instant;

use compact_str::CompactString;

use super::compiled::{Code, GuardCode, MultisetCode};
use super::sort::Colour;
use super::term::{Cmp, Guard, Multiset, NegativeMultiset, Term, VarId, normalise_in_place};
use super::{ColouredNet, Fold, Folding, UnfoldStats};
use crate::model::net::{
    Arc, Arcs, BuildError, Net, NetTransition, Node, Place, PlaceIdx, TransIdx, id_hash, node_id,
};

/// Bounds on the unfolding's size and time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget {
    /// The most P/T places plus transitions plus arcs allowed, before dead nodes are dropped.
    pub max_size: Option<u64>,
    /// When to give up.
    pub deadline: Option<Instant>,
}

/// Why a coloured net could not be unfolded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnfoldError {
    /// The unfolding outgrew [`Budget::max_size`].
    #[error("the unfolded net would have more than {0} places, transitions and arcs")]
    TooLarge(u64),
    /// [`Budget::deadline`] passed.
    #[error("the unfolding ran out of time")]
    Timeout,
    /// More P/T places or transitions than indices.
    #[error("the unfolded net would have more than 2^32 places or transitions")]
    TooManyNodes,
    /// A subtraction went negative.
    #[error("{what}: {source}")]
    Negative {
        /// The arc or place.
        what: String,
        /// The failure.
        source: NegativeMultiset,
    },
    /// A weight or initial marking over `u32::MAX`.
    #[error("{0}: a multiplicity above 4294967295")]
    Overflow(String),
    /// The P/T net builder refused a node or an arc.
    #[error("{0}")]
    Build(#[from] BuildError),
}

/// A coloured net unfolded: the P/T net and the map back.
#[derive(Clone, Debug)]
pub struct Unfolded {
    /// The P/T net, dead nodes dropped.
    pub net: Net,
    /// What each coloured node became.
    pub folding: Folding,
}

/// The P/T transitions found, before dead ones are dropped, in flat arrays rather than a
/// record each (a million transitions made millions of small allocations): transition `i`
/// comes from coloured transition `origin[i]`, consumes `arcs[ends[2i]..ends[2i + 1]]`,
/// produces `arcs[ends[2i + 1]..ends[2i + 2]]` (P/T places before renumbering), and its
/// binding is `colours[bindings[i]..bindings[i + 1]]`, the colours of its plan's variables
/// in order (its name is written from them only if it is kept).
struct Pending {
    origin: Vec<u32>,
    ends: Vec<usize>,
    arcs: Vec<Arc>,
    bindings: Vec<usize>,
    colours: Vec<Colour>,
}

impl Pending {
    fn new() -> Pending {
        Pending {
            origin: Vec::new(),
            ends: vec![0],
            arcs: Vec::new(),
            bindings: vec![0],
            colours: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.origin.len()
    }

    /// Transition `t`'s input arcs.
    fn pre(&self, t: usize) -> &[Arc] {
        &self.arcs[self.ends[2 * t]..self.ends[2 * t + 1]]
    }

    /// Transition `t`'s output arcs.
    fn post(&self, t: usize) -> &[Arc] {
        &self.arcs[self.ends[2 * t + 1]..self.ends[2 * t + 2]]
    }

    /// Transition `t`'s binding.
    fn binding(&self, t: usize) -> &[Colour] {
        &self.colours[self.bindings[t]..self.bindings[t + 1]]
    }
}

/// The P/T places possibly marked so far, and whether that is all of them (when the tests of
/// input colours can be skipped).
struct Marked {
    places: Vec<bool>,
    all: bool,
}

/// The search for one transition's bindings: its variables in enumeration order, the guard's
/// conjuncts by the depth at which they can be tested, and the variables fixed by an equality.
struct Plan<'g> {
    vars: Vec<VarId>,
    sizes: Vec<u32>,
    /// Conjuncts to test once `vars[..=k]` have values, per `k`.
    tests: Vec<Vec<GuardCode<'g>>>,
    /// Per depth, the term that gives the variable its only possible value.
    fixed: Vec<Option<Code<'g>>>,
    /// Conjuncts without variables.
    closed: Vec<GuardCode<'g>>,
    /// Per depth, the colours an input arc needs once `vars[..=k]` have values, as (first
    /// P/T place of the arc's place, term): the binding is possible only when that P/T place
    /// is possibly marked. Index `n` (one past the last depth) holds the closed ones.
    needs: Vec<Vec<(u64, Code<'g>)>>,
}

/// The colour terms an input inscription certainly takes tokens of (with a positive count),
/// as far as it can tell: the parts of sums and scaled terms; nothing from a difference.
fn needed_terms<'g>(m: &'g Multiset, out: &mut Vec<&'g Term>) {
    match m {
        Multiset::Of(n, t) if *n > 0 => out.push(t),
        Multiset::Scale(n, m) if *n > 0 => needed_terms(m, out),
        Multiset::Add(ms) => ms.iter().for_each(|m| needed_terms(m, out)),
        _ => {}
    }
}

impl<'g> Plan<'g> {
    fn new(net: &ColouredNet, guard: &'g Guard, arcs: &[(&'g Multiset, bool, u64)]) -> Plan<'g> {
        let mut vars = Vec::new();
        // Input arcs first, then the guard, then outputs: variables bound by what is consumed
        // come early, so the guard's conjuncts are tested high in the search tree.
        for (m, input, _) in arcs {
            if *input {
                m.variables(&mut vars);
            }
        }
        guard.variables(&mut vars);
        for (m, input, _) in arcs {
            if !*input {
                m.variables(&mut vars);
            }
        }
        let mut seen = vec![false; net.variables.len()];
        vars.retain(|&v| !std::mem::replace(&mut seen[v as usize], true));
        let depth_of = |v: VarId| vars.iter().position(|&w| w == v).unwrap_or(0);
        let mut tests = vec![Vec::new(); vars.len()];
        let mut fixed = vec![None; vars.len()];
        let mut closed = Vec::new();
        for c in guard.conjuncts() {
            let mut used = Vec::new();
            c.variables(&mut used);
            match used.iter().map(|&v| depth_of(v)).max() {
                None => closed.push(GuardCode::new(c)),
                Some(d) => {
                    if let Guard::Compare(a, Cmp::Eq, b) = c {
                        for (x, t) in [(a, b), (b, a)] {
                            if let Term::Var(v) = x {
                                let dv = depth_of(*v);
                                let mut tv = Vec::new();
                                t.variables(&mut tv);
                                if fixed[dv].is_none() && tv.iter().all(|&w| depth_of(w) < dv) {
                                    fixed[dv] = Some(Code::new(t));
                                    break;
                                }
                            }
                        }
                    }
                    tests[d].push(GuardCode::new(c));
                }
            }
        }
        let mut needs = vec![Vec::new(); vars.len() + 1];
        for (m, input, base) in arcs {
            if !*input {
                continue;
            }
            let mut terms = Vec::new();
            needed_terms(m, &mut terms);
            for t in terms {
                let mut used = Vec::new();
                t.variables(&mut used);
                let d = used
                    .iter()
                    .map(|&v| depth_of(v))
                    .max()
                    .unwrap_or(vars.len());
                needs[d].push((*base, Code::new(t)));
            }
        }
        let sizes = vars
            .iter()
            .map(|&v| net.sorts.get(net.variables[v as usize].sort).size)
            .collect();
        Plan {
            vars,
            sizes,
            tests,
            fixed,
            closed,
            needs,
        }
    }

    /// The number of bindings of the guard's product, equalities that fix a variable counted.
    fn naive_cost(&self) -> u64 {
        self.sizes
            .iter()
            .zip(&self.fixed)
            .filter(|(_, f)| f.is_none())
            .fold(1u64, |acc, (&n, _)| acc.saturating_mul(n as u64))
    }

    /// Whether the input colours that depth `k` completes are possibly marked.
    fn possible(&self, k: usize, binding: &[Colour], marked: &Marked) -> bool {
        marked.all
            || self.needs[k]
                .iter()
                .all(|(base, t)| marked.places[(base + t.eval(binding) as u64) as usize])
    }

    /// Calls `emit` with every binding that satisfies the guard; counts the assignments tried.
    fn enumerate(
        &self,
        binding: &mut [Colour],
        marked: &Marked,
        tried: &mut u64,
        emit: &mut dyn FnMut(&[Colour]) -> Result<(), UnfoldError>,
    ) -> Result<(), UnfoldError> {
        if !self.closed.iter().all(|g| g.holds(binding))
            || !self.possible(self.vars.len(), binding, marked)
        {
            return Ok(());
        }
        let n = self.vars.len();
        if n == 0 {
            *tried += 1;
            return emit(binding);
        }
        // `next[k]`: the next value to try at depth k; `end[k]`: one past the last.
        let mut next = vec![0u32; n];
        let mut end = vec![0u32; n];
        let mut k = 0;
        self.open(0, &mut next, &mut end);
        loop {
            if next[k] >= end[k] {
                if k == 0 {
                    return Ok(());
                }
                k -= 1;
                continue;
            }
            let value = match &self.fixed[k] {
                Some(t) => t.eval(binding),
                None => next[k],
            };
            next[k] += 1;
            if value >= self.sizes[k] {
                // An equality with a term of another sort (the reader refuses those).
                continue;
            }
            binding[self.vars[k] as usize] = value;
            *tried += 1;
            if !self.tests[k].iter().all(|g| g.holds(binding)) || !self.possible(k, binding, marked)
            {
                continue;
            }
            if k + 1 == n {
                emit(binding)?;
            } else {
                k += 1;
                self.open(k, &mut next, &mut end);
            }
        }
    }

    /// Starts depth `k`: its whole sort, or the one value an equality gives it.
    fn open(&self, k: usize, next: &mut [u32], end: &mut [u32]) {
        next[k] = 0;
        end[k] = if self.fixed[k].is_some() {
            1
        } else {
            self.sizes[k]
        };
    }
}

/// Appends `pairs` (P/T place, weight), equal places merged and sorted, to `out` as arcs.
fn push_arcs(
    pairs: &mut Vec<(u64, u64)>,
    out: &mut Vec<Arc>,
    what: impl Fn() -> String,
) -> Result<(), UnfoldError> {
    normalise_in_place(pairs);
    for &(p, n) in pairs.iter() {
        out.push(Arc {
            place: p as PlaceIdx,
            weight: u32::try_from(n).map_err(|_| UnfoldError::Overflow(what()))?,
        });
    }
    Ok(())
}

/// Unfolds `net` to a P/T net within `budget`.
pub fn unfold_to_pt(net: &ColouredNet, budget: &Budget) -> Result<Unfolded, UnfoldError> {
    let started = Instant::now();
    let mut stats = UnfoldStats::default();
    let max_size = budget.max_size.unwrap_or(u64::MAX);
    // Places: a dense range of P/T places per coloured place.
    let mut base = Vec::with_capacity(net.places.len());
    let mut total = 0u64;
    for p in &net.places {
        base.push(total);
        total += net.sorts.get(p.sort).size as u64;
    }
    if total > u32::MAX as u64 {
        return Err(UnfoldError::TooManyNodes);
    }
    if total > max_size {
        return Err(UnfoldError::TooLarge(max_size));
    }
    stats.places_before = total;
    let mut initial = vec![0u32; total as usize];
    for (i, p) in net.places.iter().enumerate() {
        let Some(m) = &p.initial else { continue };
        let what = || format!("initial marking of place '{}'", p.id);
        let pairs = m.eval(&[]).map_err(|source| UnfoldError::Negative {
            what: what(),
            source,
        })?;
        for (c, n) in pairs {
            initial[(base[i] + c as u64) as usize] =
                u32::try_from(n).map_err(|_| UnfoldError::Overflow(what()))?;
        }
    }
    // Transitions: rounds of enumeration, each binding checked against the places possibly
    // marked so far, until a round marks nothing new; then the last round builds them.
    let mut arcs_of: Vec<Vec<usize>> = vec![Vec::new(); net.transitions.len()];
    for (i, a) in net.arcs.iter().enumerate() {
        arcs_of[a.transition as usize].push(i);
    }
    let plans: Vec<Plan> = net
        .transitions
        .iter()
        .enumerate()
        .map(|(ti, t)| {
            let arcs: Vec<(&Multiset, bool, u64)> = arcs_of[ti]
                .iter()
                .map(|&a| {
                    let a = &net.arcs[a];
                    (&a.inscription, a.input, base[a.place as usize])
                })
                .collect();
            Plan::new(net, &t.guard, &arcs)
        })
        .collect();
    let naive = plans
        .iter()
        .fold(0u64, |acc, p| acc.saturating_add(p.naive_cost()));
    let places: Vec<bool> = initial.iter().map(|&n| n > 0).collect();
    let mut marked = Marked {
        all: places.iter().all(|&m| m),
        places,
    };
    let codes: Vec<MultisetCode> = net
        .arcs
        .iter()
        .map(|a| MultisetCode::new(&a.inscription))
        .collect();
    let mut binding = vec![0 as Colour; net.variables.len()];
    let mut ticks = 0u64;
    let mut check_time = || -> Result<(), UnfoldError> {
        ticks += 1;
        if ticks.is_multiple_of(4096) && budget.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(UnfoldError::Timeout);
        }
        Ok(())
    };
    let mut scratch: Vec<(Colour, u64)> = Vec::new();
    loop {
        stats.rounds += 1;
        let mut grew = false;
        let mut tried = 0;
        for (ti, plan) in plans.iter().enumerate() {
            // Marked after the transition's enumeration, which reads `marked`; only colours
            // not marked yet are kept (most bindings mark nothing new).
            let mut newly = Vec::new();
            let mut emit = |b: &[Colour]| -> Result<(), UnfoldError> {
                check_time()?;
                for &ai in &arcs_of[ti] {
                    let a = &net.arcs[ai];
                    if a.input {
                        continue;
                    }
                    scratch.clear();
                    add_arc(net, ai, &codes[ai], b, &mut scratch)?;
                    let base = base[a.place as usize];
                    newly.extend(
                        scratch
                            .iter()
                            .map(|&(c, _)| (base + c as u64) as usize)
                            .filter(|&p| !marked.places[p]),
                    );
                }
                Ok(())
            };
            plan.enumerate(&mut binding, &marked, &mut tried, &mut emit)?;
            for p in newly {
                grew |= !std::mem::replace(&mut marked.places[p], true);
            }
        }
        if !grew {
            break;
        }
        // When the possibly-marked colours barely restrict the bindings, more rounds cost
        // more than they save (a token moving round a ring marks one colour more per round):
        // enumerate the guarded product once, and let the P/T fixpoint drop the dead nodes.
        if naive <= tried.saturating_mul(4) {
            marked.places.iter_mut().for_each(|m| *m = true);
            marked.all = true;
            break;
        }
    }
    let mut pending = Pending::new();
    let mut size = total;
    let mut pre: Vec<(u64, u64)> = Vec::new();
    let mut post: Vec<(u64, u64)> = Vec::new();
    for (ti, (t, plan)) in net.transitions.iter().zip(&plans).enumerate() {
        let mut emit = |b: &[Colour]| -> Result<(), UnfoldError> {
            check_time()?;
            stats.bindings_kept += 1;
            pre.clear();
            post.clear();
            for &ai in &arcs_of[ti] {
                let a = &net.arcs[ai];
                scratch.clear();
                add_arc(net, ai, &codes[ai], b, &mut scratch)?;
                let base = base[a.place as usize];
                let out = if a.input { &mut pre } else { &mut post };
                out.extend(scratch.iter().map(|&(c, n)| (base + c as u64, n)));
            }
            let what = || format!("an arc of transition '{}'", t.id);
            push_arcs(&mut pre, &mut pending.arcs, what)?;
            pending.ends.push(pending.arcs.len());
            push_arcs(&mut post, &mut pending.arcs, what)?;
            pending.ends.push(pending.arcs.len());
            size += 1 + pre.len() as u64 + post.len() as u64;
            if size > max_size {
                return Err(UnfoldError::TooLarge(max_size));
            }
            pending.origin.push(ti as u32);
            pending
                .colours
                .extend(plan.vars.iter().map(|&v| b[v as usize]));
            pending.bindings.push(pending.colours.len());
            Ok(())
        };
        plan.enumerate(&mut binding, &marked, &mut stats.bindings_tried, &mut emit)?;
    }
    if pending.len() > u32::MAX as usize {
        return Err(UnfoldError::TooManyNodes);
    }
    stats.transitions_before = pending.len() as u64;
    let (marked, enabled) = possibly_live(&initial, &pending);
    build(
        net, &plans, &base, &initial, pending, &marked, &enabled, stats, started,
    )
}

/// Adds the value under binding `b` of the inscription of arc `ai`, compiled to `code`, to
/// `out`, unsorted.
fn add_arc(
    net: &ColouredNet,
    ai: usize,
    code: &MultisetCode,
    b: &[Colour],
    out: &mut Vec<(Colour, u64)>,
) -> Result<(), UnfoldError> {
    let a = &net.arcs[ai];
    code.add_unsorted(b, out)
        .map_err(|source| UnfoldError::Negative {
            what: format!(
                "arc between place '{}' and transition '{}'",
                net.places[a.place as usize].id, net.transitions[a.transition as usize].id
            ),
            source,
        })
}

/// The least fixpoint of possibly-marked places and possibly-enabled transitions.
fn possibly_live(initial: &[u32], pending: &Pending) -> (Vec<bool>, Vec<bool>) {
    let mut marked: Vec<bool> = initial.iter().map(|&n| n > 0).collect();
    let mut enabled = vec![false; pending.len()];
    // The consumers of each place not marked initially, as one array cut by `starts` (a
    // vector per place costs an allocation each).
    let mut starts = vec![0usize; initial.len() + 1];
    for t in 0..pending.len() {
        for a in pending.pre(t) {
            if !marked[a.place as usize] {
                starts[a.place as usize + 1] += 1;
            }
        }
    }
    for p in 0..initial.len() {
        starts[p + 1] += starts[p];
    }
    let mut fill = starts.clone();
    let mut consumers = vec![0u32; starts[initial.len()]];
    let mut missing: Vec<u32> = Vec::with_capacity(pending.len());
    let mut ready = Vec::new();
    for t in 0..pending.len() {
        let mut m = 0;
        for a in pending.pre(t) {
            let p = a.place as usize;
            if !marked[p] {
                m += 1;
                consumers[fill[p]] = t as u32;
                fill[p] += 1;
            }
        }
        missing.push(m);
        if m == 0 {
            ready.push(t as u32);
        }
    }
    while let Some(t) = ready.pop() {
        if std::mem::replace(&mut enabled[t as usize], true) {
            continue;
        }
        for a in pending.post(t as usize) {
            let p = a.place as usize;
            if !std::mem::replace(&mut marked[p], true) {
                for &u in &consumers[starts[p]..starts[p + 1]] {
                    missing[u as usize] -= 1;
                    if missing[u as usize] == 0 {
                        ready.push(u);
                    }
                }
            }
        }
    }
    (marked, enabled)
}

/// The names of the colours of some sorts, written once into one string: every binding's
/// name repeats the names of its variables' colours.
struct ColourNames {
    /// Per sort: the end of each colour's name in `text`, after the offset of its first,
    /// once written.
    sorts: Vec<Option<(usize, Vec<usize>)>>,
    text: String,
}

/// Sorts of at most this many colours get their names written once.
const NAMED_SORT_LIMIT: u32 = 1 << 20;

impl ColourNames {
    fn new(net: &ColouredNet) -> ColourNames {
        ColourNames {
            sorts: vec![None; net.sorts.len()],
            text: String::new(),
        }
    }

    /// Appends the name of colour `c` of sort `sort` to `out`.
    fn push(&mut self, net: &ColouredNet, sort: u32, c: Colour, out: &mut String) {
        let size = net.sorts.get(sort).size;
        if size > NAMED_SORT_LIMIT {
            net.sorts.colour_name(sort, c, out);
            return;
        }
        let (first, ends) = self.sorts[sort as usize].get_or_insert_with(|| {
            let first = self.text.len();
            let ends = (0..size)
                .map(|c| {
                    net.sorts.colour_name(sort, c, &mut self.text);
                    self.text.len()
                })
                .collect();
            (first, ends)
        });
        let from = if c == 0 { *first } else { ends[c as usize - 1] };
        out.push_str(&self.text[from..ends[c as usize]]);
    }
}

/// The identifiers of the net's nodes, to find a second use of one: the hash of each with
/// the node, the identifiers themselves being in the net only.
struct Ids {
    table: hashbrown::HashTable<(u64, Node)>,
    /// Whether [`names_are_unique`] holds: the table is then kept in debug builds only, to
    /// check it (a table of a million names costs a cache miss per name).
    trusted: bool,
}

impl Ids {
    fn new(net: &ColouredNet, n: usize) -> Ids {
        let trusted = names_are_unique(net);
        let keep = !trusted || cfg!(debug_assertions);
        Ids {
            table: hashbrown::HashTable::with_capacity(if keep { n } else { 0 }),
            trusted,
        }
    }

    /// Records `node` under `id` unless a node of `net` has that identifier already.
    fn claim(&mut self, net: &Net, id: &str, node: Node) -> bool {
        let hash = id_hash(id);
        match self.table.entry(
            hash,
            |&(h, n)| h == hash && node_id(net, n) == id,
            |&(h, _)| h,
        ) {
            hashbrown::hash_table::Entry::Occupied(_) => false,
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert((hash, node));
                true
            }
        }
    }

    /// `name`, or when a node has it already `name_2`, `name_3`, …: the identifier that
    /// `node` gets, recorded.
    fn unique(&mut self, net: &Net, name: &str, node: Node) -> CompactString {
        if self.trusted && !cfg!(debug_assertions) {
            return CompactString::from(name);
        }
        if self.claim(net, name, node) {
            return CompactString::from(name);
        }
        assert!(!self.trusted, "the unfolding named two nodes {name}");
        let mut k = 1u64;
        loop {
            k += 1;
            let candidate = compact_str::format_compact!("{name}_{k}");
            if self.claim(net, &candidate, node) {
                return candidate;
            }
        }
    }
}

/// Whether the names the unfolding writes are distinct by construction: coloured identifiers
/// are distinct, and neither they nor any colour's name contain `_`, and the colours of each
/// sort have distinct names. A P/T name then splits at its `_`s into a coloured identifier
/// (which gives the coloured node) and the names of its colours, as many as that node's
/// colours have components (a place) or its binding has (a transition), which give the colour
/// or the binding back: no two P/T nodes can get the same name.
fn names_are_unique(net: &ColouredNet) -> bool {
    let mut seen = std::collections::HashSet::new();
    let ids = net.places.iter().map(|p| &p.id);
    let ids_ok = ids
        .chain(net.transitions.iter().map(|t| &t.id))
        .all(|id| !id.contains('_') && seen.insert(id.as_str()));
    ids_ok
        && (0..net.sorts.len() as u32).all(|s| match &net.sorts.get(s).kind {
            // `dot`, integers (digits and a sign) and products of named sorts.
            super::SortKind::Dot | super::SortKind::IntRange { .. } => true,
            super::SortKind::Product(_) => true,
            super::SortKind::Enumeration { constants, .. } => {
                let mut seen = std::collections::HashSet::new();
                constants
                    .iter()
                    .all(|c| !c.contains('_') && seen.insert(c.as_str()))
            }
        })
}

/// The P/T net of the live nodes, and the folding. The net is written directly, not through
/// [`NetBuilder`](crate::model::net::NetBuilder): arcs come merged and sorted by place (and
/// renumbering keeps the order), weights are positive, and identifiers are made unique here
/// as the builder would refuse them (`name_2`, `name_3`, … for a name taken).
#[allow(clippy::too_many_arguments)]
fn build(
    net: &ColouredNet,
    plans: &[Plan],
    base: &[u64],
    initial: &[u32],
    mut pending: Pending,
    marked: &[bool],
    enabled: &[bool],
    mut stats: UnfoldStats,
    started: Instant,
) -> Result<Unfolded, UnfoldError> {
    let live_places = marked.iter().filter(|&&m| m).count();
    let live_transitions = enabled.iter().filter(|&&e| e).count();
    let mut out = Net {
        name: net.name.clone(),
        places: Vec::with_capacity(live_places),
        transitions: Vec::with_capacity(live_transitions),
        ..Net::default()
    };
    let mut ids = Ids::new(net, live_places + live_transitions);
    let mut folding = Folding {
        coloured: net.sizes(),
        ..Folding::default()
    };
    let mut new_index = vec![PlaceIdx::MAX; initial.len()];
    let mut name = String::new();
    for (i, p) in net.places.iter().enumerate() {
        let sort = net.sorts.get(p.sort);
        let mut members = Vec::new();
        for c in 0..sort.size {
            let old = (base[i] + c as u64) as usize;
            if !marked[old] {
                continue;
            }
            name.clear();
            name.push_str(&p.id);
            if sort.size > 1 || !matches!(sort.kind, super::SortKind::Dot) {
                name.push('_');
                net.sorts.colour_name(p.sort, c, &mut name);
            }
            let idx = out.places.len() as PlaceIdx;
            let id = ids.unique(&out, &name, Node::Place(idx));
            out.places.push(Place {
                id: id.clone(),
                label: id.clone(),
                initial: initial[old],
            });
            new_index[old] = idx;
            members.push(id);
        }
        folding.places.push(Fold {
            id: p.id.clone(),
            label: p.label.clone(),
            members,
        });
    }
    stats.places_dropped = stats.places_before - out.places.len() as u64;
    let mut colour_names = ColourNames::new(net);
    // Every arc to its place's new index, in place: those of live transitions go to live
    // places, which have one (a live transition's preset and postset are marked).
    for a in &mut pending.arcs {
        a.place = new_index[a.place as usize];
    }
    let mut live_of = vec![0usize; net.transitions.len()];
    for (&o, _) in pending.origin.iter().zip(enabled).filter(|(_, e)| **e) {
        live_of[o as usize] += 1;
    }
    let mut members: Vec<Vec<CompactString>> =
        live_of.iter().map(|&n| Vec::with_capacity(n)).collect();
    for (t, _) in enabled.iter().enumerate().filter(|(_, e)| **e) {
        let origin = pending.origin[t] as usize;
        name.clear();
        name.push_str(&net.transitions[origin].id);
        for (&v, &c) in plans[origin].vars.iter().zip(pending.binding(t)) {
            name.push('_');
            colour_names.push(net, net.variables[v as usize].sort, c, &mut name);
        }
        let idx = out.transitions.len() as TransIdx;
        let id = ids.unique(&out, &name, Node::Transition(idx));
        let pre = Arcs::from_slice(pending.pre(t));
        let post = Arcs::from_slice(pending.post(t));
        // Renumbering keeps the order by place that the net promises.
        debug_assert!(pre.is_sorted() && post.is_sorted());
        debug_assert!(pre.iter().chain(&post).all(|a| a.place != PlaceIdx::MAX));
        out.transitions.push(NetTransition {
            id: id.clone(),
            label: id.clone(),
            pre,
            post,
            reads: Arcs::new(),
        });
        members[origin].push(id);
    }
    stats.transitions_dropped = stats.transitions_before - out.transitions.len() as u64;
    for (t, members) in net.transitions.iter().zip(members) {
        folding.transitions.push(Fold {
            id: t.id.clone(),
            label: t.label.clone(),
            members,
        });
    }
    stats.micros = started.elapsed().as_micros() as u64;
    folding.stats = stats;
    Ok(Unfolded { net: out, folding })
}
