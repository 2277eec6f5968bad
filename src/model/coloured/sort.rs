//! Finite sorts (colour domains) and their colours.
//!
//! A colour of a sort is an index in `0..size`: the position of an enumeration constant, the
//! offset of an integer from the start of its range, or, for a product, the mixed-radix number
//! of its components (the first component most significant), so that tuples are built and
//! taken apart by arithmetic and the colours of a place are a dense range.

use compact_str::CompactString;

/// Index of a sort in [`Sorts`].
pub type SortId = u32;
/// A colour: an index in `0..size` of its sort.
pub type Colour = u32;

/// The largest sort accepted: colours are `u32`, and a place of more colours than this could
/// not be unfolded anyway.
pub const MAX_SORT_SIZE: u64 = 1 << 31;

/// What a sort is made of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SortKind {
    /// The one-colour sort `dot`.
    Dot,
    /// An enumeration: constants in order; `cyclic` for a `cyclicenumeration` (successor wraps
    /// around).
    Enumeration {
        /// Constant identifiers, in declaration order.
        constants: Vec<CompactString>,
        /// Whether successor and predecessor wrap around.
        cyclic: bool,
    },
    /// The integers `start..=end`.
    IntRange {
        /// Smallest value.
        start: i64,
        /// Largest value.
        end: i64,
    },
    /// The product of other sorts.
    Product(Vec<SortId>),
}

/// A sort.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sort {
    /// Its name (the declaration's identifier, or a made-up one for an inline product).
    pub name: CompactString,
    /// What it is made of.
    pub kind: SortKind,
    /// Number of colours.
    pub size: u32,
}

/// Why a sort cannot be declared.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SortError {
    /// Too many colours.
    #[error("sort '{name}' has {size} colours, more than the {MAX_SORT_SIZE} supported")]
    TooLarge {
        /// The sort.
        name: String,
        /// Its size.
        size: u128,
    },
    /// An empty enumeration or range.
    #[error("sort '{0}' has no colour")]
    Empty(String),
}

/// Every sort of a net.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sorts {
    sorts: Vec<Sort>,
}

impl Sorts {
    /// Declares a sort; its components (for a product) must be declared already.
    pub fn add(
        &mut self,
        name: impl Into<CompactString>,
        kind: SortKind,
    ) -> Result<SortId, SortError> {
        let name = name.into();
        let size: u128 = match &kind {
            SortKind::Dot => 1,
            SortKind::Enumeration { constants, .. } => constants.len() as u128,
            SortKind::IntRange { start, end } => {
                if end < start {
                    0
                } else {
                    (*end as i128 - *start as i128 + 1) as u128
                }
            }
            SortKind::Product(parts) => parts
                .iter()
                .map(|&s| self.get(s).size as u128)
                .try_fold(1u128, |a, b| a.checked_mul(b))
                .unwrap_or(u128::MAX),
        };
        if size == 0 {
            return Err(SortError::Empty(name.into()));
        }
        if size > MAX_SORT_SIZE as u128 {
            return Err(SortError::TooLarge {
                name: name.into(),
                size,
            });
        }
        self.sorts.push(Sort {
            name,
            kind,
            size: size as u32,
        });
        Ok((self.sorts.len() - 1) as SortId)
    }

    /// The sort `id`.
    pub fn get(&self, id: SortId) -> &Sort {
        &self.sorts[id as usize]
    }

    /// Number of sorts.
    pub fn len(&self) -> usize {
        self.sorts.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.sorts.is_empty()
    }

    /// Whether `a` and `b` have the same colours: the same declaration, two `dot`s, or
    /// products of the same sorts.
    pub fn same(&self, a: SortId, b: SortId) -> bool {
        if a == b {
            return true;
        }
        match (&self.get(a).kind, &self.get(b).kind) {
            (SortKind::Dot, SortKind::Dot) => true,
            (SortKind::Product(x), SortKind::Product(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(&p, &q)| self.same(p, q))
            }
            _ => false,
        }
    }

    /// Whether the colours of `id` are ordered (enumerations and ranges, for `lessthan`).
    pub fn is_ordered(&self, id: SortId) -> bool {
        !matches!(self.get(id).kind, SortKind::Product(_))
    }

    /// The components of a product sort (`None` for another sort).
    pub fn components(&self, id: SortId) -> Option<&[SortId]> {
        match &self.get(id).kind {
            SortKind::Product(parts) => Some(parts),
            _ => None,
        }
    }

    /// The components of colour `c` of product sort `id`, first component first.
    pub fn split(&self, id: SortId, mut c: Colour) -> Vec<Colour> {
        let parts = self.components(id).unwrap_or(&[]);
        let mut out = vec![0; parts.len()];
        for (slot, &p) in out.iter_mut().zip(parts).rev() {
            let size = self.get(p).size;
            *slot = c % size;
            c /= size;
        }
        out
    }

    /// A readable name of colour `c` of sort `id`: the constant's identifier, the integer, or
    /// the components joined by `_`.
    pub fn colour_name(&self, id: SortId, c: Colour, out: &mut String) {
        use std::fmt::Write;
        match &self.get(id).kind {
            SortKind::Dot => out.push_str("dot"),
            SortKind::Enumeration { constants, .. } => out.push_str(&constants[c as usize]),
            SortKind::IntRange { start, .. } => {
                let _ = write!(out, "{}", start + c as i64);
            }
            SortKind::Product(parts) => {
                // Component `i` is digit `i` of `c` in the mixed radix of the components'
                // sizes, the first most significant: `c / (sizes after i) % size i`, computed
                // without the vector of `split` (this names every unfolded place).
                for (i, &p) in parts.iter().enumerate() {
                    if i > 0 {
                        out.push('_');
                    }
                    let below: u64 = parts[i + 1..]
                        .iter()
                        .map(|&q| self.get(q).size as u64)
                        .product();
                    let v = (c as u64 / below) % self.get(p).size as u64;
                    self.colour_name(p, v as Colour, out);
                }
            }
        }
    }
}
