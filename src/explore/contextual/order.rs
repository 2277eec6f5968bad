//! The adequate order on histories that Cunf uses for contextual prefixes (and, through the
//! same code, for plain ones): size, then Parikh vector, then "Foata levels" by depth in the
//! graph of histories, each level compared as Mole does.
//!
//! A history's *depth* is 1 + the largest depth of the histories it was built from (those of
//! the generators and readers of its event's conditions), so a level holds the events that the
//! history's asymmetric-conflict order puts at the same distance from the initial event.
//!
//! One level of two histories is compared by the number of distinct transitions in it first
//! (more is greater); when those are equal, at the first transition (by index) that the two
//! levels hold a different number of times, the history holding fewer of it is greater when it
//! holds some later transition of the level, and smaller otherwise; and when the history holding
//! more of it holds no later transition that the other lacks, it is the greater one. This is
//! the rule of the figures in `ORACLES.tsv` (Cunf's "Mole ERV" order), not the textbook ERV.

use std::cmp::Ordering;

/// Compares one Foata level of two histories, given the sorted transitions of the level with
/// their numbers of occurrences in each (`(transition, in first, in second)`, at least one of
/// the two non-zero).
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
        // The first holds fewer of the lower transition: greater if it holds a later one.
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

/// Compares two sparse Parikh vectors (`(transition, count)` sorted by transition) of
/// histories of equal size: at the first difference, more occurrences of the lower-indexed
/// transition is smaller.
pub fn cmp_parikh(a: &[(u32, u32)], b: &[(u32, u32)]) -> Ordering {
    crate::explore::prefix::order::cmp_parikh(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_distinct_transitions_is_greater() {
        assert_eq!(cmp_level(&[(0, 1, 1), (1, 0, 1)]), Ordering::Less);
        assert_eq!(
            cmp_level(&[(0, 1, 0), (1, 1, 0), (2, 0, 3)]),
            Ordering::Greater
        );
    }

    #[test]
    fn equal_distinct_counts_compare_at_the_first_difference() {
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
    }
}
