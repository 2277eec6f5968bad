//! Colour terms, multiset terms and guards, and their values under a binding.
//!
//! A binding gives every variable of the net a colour (`binding[v]`); terms read only the
//! variables they mention. Sorts are checked when terms are built (by the reader), so
//! evaluation cannot meet an ill-typed term; the one failure left is a multiset difference
//! that would go negative.

use super::sort::Colour;

/// Index of a variable in [`ColouredNet::variables`](super::ColouredNet::variables).
pub type VarId = u32;

/// A term whose value is one colour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// A variable.
    Var(VarId),
    /// A constant colour (an enumeration constant, an integer of a range, `dot`).
    Const(Colour),
    /// `(of + by) mod size`: successors (`by > 0`) and predecessors (`by < 0`) in a cyclic
    /// sort of `size` colours.
    Shift {
        /// The operand.
        of: Box<Term>,
        /// How many steps forward (negative: backward).
        by: i64,
        /// The size of the operand's sort.
        size: u32,
    },
    /// A tuple of a product sort; `radices` are the components' sizes.
    Tuple {
        /// The components.
        parts: Vec<Term>,
        /// The size of each component's sort.
        radices: Vec<u32>,
    },
    /// `partitionelementof`: the partition element (a colour of the partition's sort) that the
    /// operand's colour belongs to; `element[c]` is the element of colour `c`.
    ElementOf {
        /// The operand, of the partitioned sort.
        of: Box<Term>,
        /// The element of each colour of the partitioned sort.
        element: Vec<Colour>,
    },
}

impl Term {
    /// Its value under `binding`.
    pub fn eval(&self, binding: &[Colour]) -> Colour {
        match self {
            Term::Var(v) => binding[*v as usize],
            Term::Const(c) => *c,
            Term::Shift { of, by, size } => {
                let size = *size as i64;
                (((of.eval(binding) as i64 + by) % size + size) % size) as Colour
            }
            Term::Tuple { parts, radices } => parts
                .iter()
                .zip(radices)
                .fold(0u64, |acc, (p, &r)| acc * r as u64 + p.eval(binding) as u64)
                as Colour,
            // The reader builds `element` over the operand's whole sort, so every colour has one.
            Term::ElementOf { of, element } => element[of.eval(binding) as usize],
        }
    }

    /// Adds the variables it mentions to `out`.
    pub fn variables(&self, out: &mut Vec<VarId>) {
        match self {
            Term::Var(v) => out.push(*v),
            Term::Const(_) => {}
            Term::Shift { of, .. } => of.variables(out),
            Term::Tuple { parts, .. } => parts.iter().for_each(|p| p.variables(out)),
            Term::ElementOf { of, .. } => of.variables(out),
        }
    }
}

/// A comparison between two colours of one sort (ordered sorts compare by position).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `equality`.
    Eq,
    /// `inequality`.
    Ne,
    /// `lessthan`.
    Lt,
    /// `lessthanorequal`.
    Le,
    /// `greaterthan`.
    Gt,
    /// `greaterthanorequal`.
    Ge,
}

impl Cmp {
    /// Whether `a` and `b` compare so.
    pub fn holds(self, a: Colour, b: Colour) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

/// A transition guard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Guard {
    /// Always true (no guard).
    True,
    /// A comparison.
    Compare(Term, Cmp, Term),
    /// Membership of a colour in a set of colours (a partition element).
    In(Term, Vec<Colour>),
    /// All hold.
    And(Vec<Guard>),
    /// One holds.
    Or(Vec<Guard>),
    /// Does not hold.
    Not(Box<Guard>),
}

impl Guard {
    /// Whether it holds under `binding`.
    pub fn holds(&self, binding: &[Colour]) -> bool {
        match self {
            Guard::True => true,
            Guard::Compare(a, c, b) => c.holds(a.eval(binding), b.eval(binding)),
            Guard::In(t, set) => set.binary_search(&t.eval(binding)).is_ok(),
            Guard::And(gs) => gs.iter().all(|g| g.holds(binding)),
            Guard::Or(gs) => gs.iter().any(|g| g.holds(binding)),
            Guard::Not(g) => !g.holds(binding),
        }
    }

    /// Adds the variables it mentions to `out`.
    pub fn variables(&self, out: &mut Vec<VarId>) {
        match self {
            Guard::True => {}
            Guard::Compare(a, _, b) => {
                a.variables(out);
                b.variables(out);
            }
            Guard::In(t, _) => t.variables(out),
            Guard::And(gs) | Guard::Or(gs) => gs.iter().for_each(|g| g.variables(out)),
            Guard::Not(g) => g.variables(out),
        }
    }

    /// Its top-level conjuncts (nested `and`s flattened).
    pub fn conjuncts(&self) -> Vec<&Guard> {
        let mut out = Vec::new();
        let mut todo = vec![self];
        while let Some(g) = todo.pop() {
            match g {
                Guard::And(gs) => todo.extend(gs.iter().rev()),
                Guard::True => {}
                g => out.push(g),
            }
        }
        out
    }
}

/// A term whose value is a multiset of colours.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Multiset {
    /// `count` times one colour (`numberof`; a bare colour term is `1'` of it).
    Of(u64, Term),
    /// Every colour of a sort of `size` colours, once (`all`).
    All(u32),
    /// `count` times a multiset (`numberof` over a multiset).
    Scale(u64, Box<Multiset>),
    /// The sum (`add`).
    Add(Vec<Multiset>),
    /// The difference (`subtract`); negative results are errors.
    Subtract(Box<Multiset>, Box<Multiset>),
    /// A tuple some of whose components are `all` (`None`): every tuple with the given
    /// components and any colour at the others, once.
    Tuple {
        /// The components; `None` for every colour of that component's sort.
        parts: Vec<Option<Term>>,
        /// The size of each component's sort.
        radices: Vec<u32>,
    },
}

/// A multiset difference that went negative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a multiset subtraction removes a colour the multiset does not hold")]
pub struct NegativeMultiset;

impl Multiset {
    /// Its value under `binding`: (colour, count) pairs sorted by colour, counts positive.
    pub fn eval(&self, binding: &[Colour]) -> Result<Vec<(Colour, u64)>, NegativeMultiset> {
        let mut out = Vec::new();
        self.eval_into(binding, &mut out)?;
        Ok(out)
    }

    /// Its value under `binding` in `out` (cleared first), as [`Multiset::eval`] gives it:
    /// the unfolding reuses one buffer for every arc instead of allocating a vector each.
    pub fn eval_into(
        &self,
        binding: &[Colour],
        out: &mut Vec<(Colour, u64)>,
    ) -> Result<(), NegativeMultiset> {
        out.clear();
        self.add_to(binding, 1, out)?;
        normalise_in_place(out);
        Ok(())
    }

    /// Adds `scale` times its value to `out` unsorted, colours possibly repeated (what the
    /// unfolding needs when it merges an arc's colours with other arcs' anyway).
    pub(super) fn add_unsorted(
        &self,
        binding: &[Colour],
        out: &mut Vec<(Colour, u64)>,
    ) -> Result<(), NegativeMultiset> {
        self.add_to(binding, 1, out)
    }

    /// Adds `scale` times its value to `out` (unsorted).
    fn add_to(
        &self,
        binding: &[Colour],
        scale: u64,
        out: &mut Vec<(Colour, u64)>,
    ) -> Result<(), NegativeMultiset> {
        match self {
            Multiset::Of(n, t) => {
                if *n > 0 && scale > 0 {
                    out.push((t.eval(binding), n.saturating_mul(scale)));
                }
            }
            Multiset::All(size) => {
                if scale > 0 {
                    out.extend((0..*size).map(|c| (c, scale)));
                }
            }
            Multiset::Scale(n, m) => m.add_to(binding, scale.saturating_mul(*n), out)?,
            Multiset::Tuple { parts, radices } => {
                if scale == 0 {
                    return Ok(());
                }
                let mut colours = vec![0u64];
                for (p, &r) in parts.iter().zip(radices) {
                    colours = match p {
                        Some(t) => {
                            let v = t.eval(binding) as u64;
                            colours.into_iter().map(|c| c * r as u64 + v).collect()
                        }
                        None => colours
                            .into_iter()
                            .flat_map(|c| (0..r as u64).map(move |v| c * r as u64 + v))
                            .collect(),
                    };
                }
                out.extend(colours.into_iter().map(|c| (c as Colour, scale)));
            }
            Multiset::Add(ms) => {
                for m in ms {
                    m.add_to(binding, scale, out)?;
                }
            }
            Multiset::Subtract(a, b) => {
                let a = a.eval(binding)?;
                let b = b.eval(binding)?;
                let mut j = 0;
                for (c, n) in a {
                    let mut left = n;
                    if j < b.len() && b[j].0 < c {
                        return Err(NegativeMultiset);
                    }
                    if j < b.len() && b[j].0 == c {
                        left = n.checked_sub(b[j].1).ok_or(NegativeMultiset)?;
                        j += 1;
                    }
                    if left > 0 && scale > 0 {
                        out.push((c, left.saturating_mul(scale)));
                    }
                }
                if j < b.len() {
                    return Err(NegativeMultiset);
                }
            }
        }
        Ok(())
    }

    /// Adds the variables it mentions to `out`.
    pub fn variables(&self, out: &mut Vec<VarId>) {
        match self {
            Multiset::Of(_, t) => t.variables(out),
            Multiset::All(_) => {}
            Multiset::Scale(_, m) => m.variables(out),
            Multiset::Tuple { parts, .. } => parts.iter().flatten().for_each(|t| t.variables(out)),
            Multiset::Add(ms) => ms.iter().for_each(|m| m.variables(out)),
            Multiset::Subtract(a, b) => {
                a.variables(out);
                b.variables(out);
            }
        }
    }
}

/// Sorts `pairs` by key (a colour, a P/T place) and sums the counts of equal keys
/// (saturating).
pub(super) fn normalise_in_place<K: Ord + Copy>(pairs: &mut Vec<(K, u64)>) {
    if pairs.len() > 1 && !pairs.is_sorted_by_key(|p| p.0) {
        pairs.sort_unstable_by_key(|p| p.0);
    }
    pairs.dedup_by(|later, kept| {
        if later.0 == kept.0 {
            kept.1 = kept.1.saturating_add(later.1);
            true
        } else {
            false
        }
    });
}
