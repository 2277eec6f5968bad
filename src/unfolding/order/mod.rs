//! Adequate orders on local configurations: one definition for every explorer (the complete
//! prefix, the contextual prefix and the unfolding DPOR's cutoffs).
//!
//! * McMillan ([`Order::Size`]): `|[e]|` only. Not total: a cutoff needs a strictly smaller
//!   correspondent.
//! * Textbook Esparza–Römer–Vogler ([`Order::Erv`]): size, then Parikh vectors, then Foata
//!   normal forms compared level by level, each level by its Parikh vector. Total on the
//!   configurations of the unfoldings of safe nets.
//! * Mole's variant ([`Order::Mole`], the default; Cunf's "Mole ERV" order, the order of the
//!   published prefix sizes): as `Erv`, but each Foata level is compared by [`cmp_level`], by
//!   its number of distinct transitions first.
//!
//! One Parikh convention everywhere ([`cmp_parikh`]): vectors are compared lexicographically
//! with transitions indexed in file order, and *more* occurrences of the lower-indexed
//! transition make a configuration *smaller* (the convention of Mole and Cunf, whose prefix
//! sizes we reproduce).
//!
//! [`logged`] compares two local configurations of the DPOR's event log by what they do not
//! share, to the same definition.

pub mod logged;

pub use logged::{DiffRoom, cmp_logged_equal_size};

use std::cmp::Ordering;

/// The adequate order used to sort possible extensions and to decide cutoffs.
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
/// normal form is the events of depth `k`), each level by [`cmp_level`] (`mole`) or by its
/// Parikh vector.
pub fn cmp_foata(a: &[(u32, u32)], b: &[(u32, u32)], mole: bool) -> Ordering {
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
        parikh_of_sorted(&ta, &mut pa);
        parikh_of_sorted(&tb, &mut pb);
        let c = if mole {
            cmp_level(&level_counts(&pa, &pb))
        } else {
            cmp_parikh(&pa, &pb)
        };
        if c != Ordering::Equal {
            return c;
        }
    }
}

/// The transitions of a level of two configurations with their numbers of occurrences in each
/// (`(transition, in a, in b)`, sorted), from the two levels' sparse Parikh vectors.
fn level_counts(a: &[(u32, u32)], b: &[(u32, u32)]) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                out.push((x.0, x.1, y.1));
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                out.push((x.0, x.1, 0));
                i += 1;
            }
            (Some(x), None) => {
                out.push((x.0, x.1, 0));
                i += 1;
            }
            (_, Some(y)) => {
                out.push((y.0, 0, y.1));
                j += 1;
            }
            (None, None) => unreachable!("loop condition"),
        }
    }
    out
}

/// Compares one Foata level of two configurations (or histories) by its Parikh vectors, as
/// [`cmp_parikh`] does, given the sorted transitions of the level with their numbers of
/// occurrences in each (`(transition, in first, in second)`): at the first transition held a
/// different number of times, the one holding more of it is smaller.
pub fn cmp_level_parikh(level: &[(u32, u32, u32)]) -> Ordering {
    level
        .iter()
        .find(|x| x.1 != x.2)
        .map_or(Ordering::Equal, |x| x.2.cmp(&x.1))
}

/// Compares one Foata level of two configurations (or histories) as Cunf's "Mole ERV" order
/// does, given the sorted transitions of the level with their numbers of occurrences in each
/// (`(transition, in first, in second)`, at least one of the two non-zero): more distinct
/// transitions is greater; when those are equal, at the first transition the two hold a
/// different number of times, the one holding fewer of it is greater when it holds some later
/// transition of the level and smaller otherwise, and the one holding more of it is smaller
/// when the other holds a later transition and greater otherwise.
pub fn cmp_level(level: &[(u32, u32, u32)]) -> Ordering {
    let distinct = |f: fn(&(u32, u32, u32)) -> u32| level.iter().filter(|x| f(x) > 0).count();
    let (d1, d2) = (distinct(|x| x.1), distinct(|x| x.2));
    if d1 != d2 {
        return d1.cmp(&d2);
    }
    let Some(first) = level.iter().position(|x| x.1 != x.2) else {
        return Ordering::Equal;
    };
    let (_, n1, n2) = level[first];
    let rest = &level[first + 1..];
    if n1 < n2 {
        if rest.iter().any(|x| x.1 > 0) {
            Ordering::Greater
        } else {
            Ordering::Less
        }
    } else if rest.iter().any(|x| x.2 > 0) {
        Ordering::Less
    } else {
        Ordering::Greater
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

    /// The level comparison by Parikh vectors is `cmp_parikh` on the level's two vectors, on
    /// every level over three transitions with up to two occurrences each.
    #[test]
    fn level_by_parikh_is_cmp_parikh() {
        for code in 0..729u32 {
            let digit = |i: u32| (code / 3u32.pow(i)) % 3;
            let level: Vec<(u32, u32, u32)> = (0..3)
                .map(|t| (t, digit(2 * t), digit(2 * t + 1)))
                .filter(|x| x.1 + x.2 > 0)
                .collect();
            let side = |f: fn(&(u32, u32, u32)) -> u32| -> Vec<(u32, u32)> {
                level
                    .iter()
                    .filter(|x| f(x) > 0)
                    .map(|x| (x.0, f(x)))
                    .collect()
            };
            let (a, b) = (side(|x| x.1), side(|x| x.2));
            assert_eq!(cmp_level_parikh(&level), cmp_parikh(&a, &b), "{level:?}");
        }
    }

    #[test]
    fn foata_levels() {
        // Level 1: {t0} vs {t0, t1}: Mole says fewer distinct transitions is smaller.
        let a = [(1, 0), (2, 1), (2, 2)];
        let b = [(1, 0), (1, 1), (2, 2)];
        assert_eq!(cmp_foata(&a, &b, true), Ordering::Less);
        // Textbook: Parikh of level 1 alone: {t0, t1} has t1, {t0} has none: b smaller.
        assert_eq!(cmp_foata(&a, &b, false), Ordering::Greater);
    }

    #[test]
    fn mole_levels_count_distinct_transitions_first() {
        assert_eq!(cmp_level(&[(0, 1, 1), (1, 0, 1)]), Ordering::Less);
        assert_eq!(
            cmp_level(&[(0, 1, 0), (1, 1, 0), (2, 0, 3)]),
            Ordering::Greater
        );
        // {t0, t1} against {t0, t1, t1}: fewer of t1 and nothing later: smaller.
        assert_eq!(cmp_level(&[(0, 1, 1), (1, 1, 2)]), Ordering::Less);
        // {t0, t0, t1} against {t0, t1}: more of t0, the other holds t1 later: smaller.
        assert_eq!(cmp_level(&[(0, 2, 1), (1, 1, 1)]), Ordering::Less);
        // {t0, t2} against {t0, t0, t1}: fewer of t0 and holds t2 later: greater.
        assert_eq!(
            cmp_level(&[(0, 1, 2), (1, 0, 1), (2, 1, 0)]),
            Ordering::Greater
        );
        assert_eq!(cmp_level(&[(0, 1, 1)]), Ordering::Equal);
        assert_eq!(
            level_counts(&[(0, 2), (3, 1)], &[(1, 1), (3, 2)]),
            vec![(0, 2, 0), (1, 0, 1), (3, 1, 2)]
        );
    }
}
