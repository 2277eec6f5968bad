//! The adequate orders on local configurations used to sort possible extensions and to decide
//! cutoffs.
//!
//! * McMillan (`size`): `|[e]|` only. Not total: a cutoff needs a strictly smaller
//!   correspondent.
//! * Textbook Esparza–Römer–Vogler (`erv`): size, then Parikh vectors, then Foata normal forms
//!   compared level by level, each level by its Parikh vector.
//! * Mole's variant (`mole`, the default): as `erv`, but each Foata level is compared first by
//!   its number of events and only then by its Parikh vector.
//!
//! Parikh vectors are compared lexicographically with transitions indexed in file order, and
//! *more* occurrences of the lower-indexed transition make a configuration *smaller* (this is
//! the convention of Mole and Cunf, whose prefix sizes we reproduce). Fewer events in a Foata
//! level make a configuration smaller (as fewer events overall do).

use std::cmp::Ordering;

/// Which adequate order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Mole's variant of ERV (the default; the order of the published prefix sizes).
    #[default]
    Mole,
    /// Textbook ERV: Foata levels compared by Parikh vector alone.
    Erv,
    /// McMillan: size only.
    Size,
}

impl Order {
    /// Whether the order is total on configurations (then a marking seen before always makes a
    /// cutoff, since extensions leave the queue in increasing order).
    pub fn is_total(self) -> bool {
        !matches!(self, Order::Size)
    }
}

impl std::fmt::Display for Order {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Order::Mole => "mole",
            Order::Erv => "erv",
            Order::Size => "size",
        })
    }
}

/// Compares two sparse Parikh vectors (`(transition, count)` sorted by transition): at the first
/// difference, more occurrences of the lower-indexed transition is smaller.
pub fn cmp_parikh(a: &[(u32, u32)], b: &[(u32, u32)]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        if x.0 != y.0 {
            // The one holding the lower transition has more of it (the other has none).
            return x.0.cmp(&y.0);
        }
        if x.1 != y.1 {
            return y.1.cmp(&x.1);
        }
    }
    // The longer one has occurrences of a transition the other lacks at this point.
    b.len().cmp(&a.len())
}

/// Run-length encodes a sorted list of transitions into a sparse Parikh vector.
pub fn parikh_of_sorted(ts: &[u32], out: &mut Vec<(u32, u32)>) {
    out.clear();
    for &t in ts {
        match out.last_mut() {
            Some((last, n)) if *last == t => *n += 1,
            _ => out.push((t, 1)),
        }
    }
}

/// Compares two Foata normal forms given as `(depth, transition)` lists sorted by depth then
/// transition (the depth of an event is 1 + the largest depth of its causes; level `k` of the
/// normal form is the events of depth `k`).
pub fn cmp_foata(a: &[(u32, u32)], b: &[(u32, u32)], count_first: bool) -> Ordering {
    let (mut i, mut j) = (0, 0);
    let (mut pa, mut pb) = (Vec::new(), Vec::new());
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    loop {
        match (i < a.len(), j < b.len()) {
            (false, false) => return Ordering::Equal,
            (false, true) => return Ordering::Less,
            (true, false) => return Ordering::Greater,
            _ => {}
        }
        let (da, db) = (a[i].0, b[j].0);
        ta.clear();
        tb.clear();
        while i < a.len() && a[i].0 == da {
            ta.push(a[i].1);
            i += 1;
        }
        while j < b.len() && b[j].0 == db {
            tb.push(b[j].1);
            j += 1;
        }
        if count_first && ta.len() != tb.len() {
            return ta.len().cmp(&tb.len());
        }
        parikh_of_sorted(&ta, &mut pa);
        parikh_of_sorted(&tb, &mut pb);
        let c = cmp_parikh(&pa, &pb);
        if c != Ordering::Equal {
            return c;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parikh_more_of_lower_is_smaller() {
        assert_eq!(cmp_parikh(&[(0, 2)], &[(0, 1), (1, 1)]), Ordering::Less);
        assert_eq!(cmp_parikh(&[(0, 1), (2, 1)], &[(1, 2)]), Ordering::Less);
        assert_eq!(cmp_parikh(&[(1, 1)], &[(1, 1)]), Ordering::Equal);
    }

    #[test]
    fn foata_levels() {
        // Level 1: {t0} vs {t0, t1}: Mole says fewer events is smaller.
        let a = [(1, 0), (2, 1), (2, 2)];
        let b = [(1, 0), (1, 1), (2, 2)];
        assert_eq!(cmp_foata(&a, &b, true), Ordering::Less);
        // Textbook: Parikh of level 1 alone: {t0, t1} has t1, {t0} has none: b smaller.
        assert_eq!(cmp_foata(&a, &b, false), Ordering::Greater);
    }
}
