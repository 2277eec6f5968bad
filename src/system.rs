//! The generic transition system `M = <S, T, s0>` every input becomes, with footprints and the
//! unconditional independence relation derived from them (DESIGN §1).
//!
//! States are packed into a fixed number of `u64` words so that explorers can store millions of
//! them in flat arenas and hash them without knowing what they mean.

use std::fmt;

/// Index of a transition of a [`System`], dense from 0.
pub type Transition = u32;

/// Index of a resource (a place, a variable, a lock, a thread's program order) touched by
/// transitions, dense from 0.
pub type Resource = u32;

/// How a transition touches a resource: a set of the three access modes of DESIGN §1.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Access(u8);

impl Access {
    /// No access.
    pub const NONE: Access = Access(0);
    /// `R`: the result (or enabledness) depends on the resource.
    pub const READ: Access = Access(1);
    /// `W`: the resource is overwritten.
    pub const WRITE: Access = Access(2);
    /// `A`: a commutative update (adding to a counter, tokens to a place).
    pub const ADD: Access = Access(4);

    /// Union of two access sets.
    pub const fn union(self, other: Access) -> Access {
        Access(self.0 | other.0)
    }

    /// Whether every mode of `other` is in `self`.
    pub const fn contains(self, other: Access) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether no mode is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether two accesses to one resource fail to commute: the pair of modes is one of
    /// R–W, R–A, W–W, W–A (in either order). R–R and A–A commute.
    pub const fn conflicts_with(self, other: Access) -> bool {
        const R: u8 = 1;
        const W: u8 = 2;
        const A: u8 = 4;
        let (a, b) = (self.0, other.0);
        (a & R != 0 && b & (W | A) != 0)
            || (b & R != 0 && a & (W | A) != 0)
            || (a & W != 0 && b & (W | A) != 0)
            || (b & W != 0 && a & A != 0)
    }
}

impl fmt::Debug for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (bit, c) in [(1, 'R'), (2, 'W'), (4, 'A')] {
            if self.0 & bit != 0 {
                write!(f, "{c}")?;
            }
        }
        if self.0 == 0 {
            write!(f, "-")?;
        }
        Ok(())
    }
}

/// One entry of a footprint: a resource and how it is touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Touch {
    /// The resource.
    pub resource: Resource,
    /// The modes of access.
    pub access: Access,
}

/// A footprint: the resources a transition touches, sorted by resource, each at most once.
pub type Footprint = [Touch];

/// Whether two footprints share a resource whose accesses do not commute.
///
/// Both footprints must be sorted by resource (a linear merge).
pub fn footprints_conflict(a: &Footprint, b: &Footprint) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].resource.cmp(&b[j].resource) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                if a[i].access.conflicts_with(b[j].access) {
                    return true;
                }
                i += 1;
                j += 1;
            }
        }
    }
    false
}

/// A transition could not fire because a counter of the state would leave its range.
///
/// Explorers stop on it (integer overflow is an error, never a wrap); a system whose states use
/// narrow counters may be rebuilt with wider ones and the exploration restarted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "counter overflow: firing transition {transition} puts {value} tokens on {resource_name}, more than {capacity}"
)]
pub struct Overflow {
    /// The transition that was fired.
    pub transition: Transition,
    /// The resource whose counter overflowed.
    pub resource: Resource,
    /// Its display name.
    pub resource_name: String,
    /// The value it would have taken (saturated at `u64::MAX`).
    pub value: u64,
    /// The largest value the state encoding holds.
    pub capacity: u64,
}

/// A guard that tests one field of a packed state: its value `v = (state[word] >> shift) &
/// mask` must lie in `need ..= need + span` (see [`System::guard_field`]): `span` is
/// `mask - need` for "at least `need`", 0 for "exactly `need`".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuardField {
    /// The word holding the field.
    pub word: u32,
    /// Where the field starts in the word.
    pub shift: u32,
    /// The field's bits, once shifted down.
    pub mask: u64,
    /// The least value that passes.
    pub need: u64,
    /// How far above `need` a value still passes.
    pub span: u64,
}

impl GuardField {
    /// Whether the guard holds when its word is `value`.
    #[inline]
    pub fn holds_on(&self, value: u64) -> bool {
        // (Below `need`, the difference wraps past any span.)
        ((value >> self.shift) & self.mask).wrapping_sub(self.need) <= self.span
    }

    /// Whether the guard holds at `state`.
    #[inline]
    pub fn holds(&self, state: &[u64]) -> bool {
        self.holds_on(state[self.word as usize])
    }
}

/// A finite transition system with packed states and footprints.
///
/// Independence is unconditional and derived from footprints: `t ◇ t'` iff no resource is
/// touched by both with a non-commuting pair of modes ([`Access::conflicts_with`]). Every
/// instance must make this sound: if two transitions are independent, then at every reachable
/// state neither enables nor disables the other, and firing them in either order gives the same
/// state (the diamond property).
pub trait System {
    /// Number of `u64` words of a packed state.
    fn state_words(&self) -> usize;

    /// Writes the initial state into `out` (`state_words()` long).
    fn initial_state(&self, out: &mut [u64]);

    /// Number of transitions.
    fn transition_count(&self) -> usize;

    /// Display name of a transition.
    fn transition_name(&self, t: Transition) -> &str;

    /// Number of resources footprints refer to.
    fn resource_count(&self) -> usize;

    /// Display name of a resource.
    fn resource_name(&self, r: Resource) -> &str;

    /// Whether `t` is enabled at `state`.
    fn is_enabled(&self, state: &[u64], t: Transition) -> bool;

    /// A necessary condition for `t` to be enabled at `state` that looks only at resource
    /// `r`'s part of the state: `is_enabled(state, t)` implies `enabled_on(state, t, r)` for
    /// every `r`. Instances that override it promise that its answer for `r` is changed only
    /// by transitions whose footprint touches `r` with `W` or `A` (as `r`'s part of the state
    /// is, unless a token set shares it, see [`resource_bits`](Self::resource_bits)): the
    /// unfolding then prunes candidate histories of `t` as soon as the events that last
    /// changed `r` are chosen, instead of testing enabledness only once the whole history is
    /// known. The default (always true) prunes nothing.
    fn enabled_on(&self, _state: &[u64], _t: Transition, _r: Resource) -> bool {
        true
    }

    /// The words of a state that hold resource `r`'s part, which is all
    /// [`enabled_on`](Self::enabled_on) reads for `r`: the unfolding, which stores states in
    /// shared blocks, reads only these to test a guard. The default is the whole state.
    fn resource_words(&self, _r: Resource) -> std::ops::Range<usize> {
        0..self.state_words()
    }

    /// The bits of a state that hold resource `r`'s part, pushed onto `out` as `(word, mask)`
    /// pairs; false (the default) when the instance does not say.
    ///
    /// Instances that answer promise, for every resource: `r`'s part is changed only by
    /// transitions whose footprint touches `r` with `W` or `A` (as for
    /// [`enabled_on`](Self::enabled_on)), the parts of distinct resources are disjoint, and a
    /// bit outside every part never changes. The unfolding then reads `r`'s part of the state
    /// of a history from the state of the last event in it that changed `r`, instead of
    /// firing the events of the history one by one.
    fn resource_bits(&self, _r: Resource, _out: &mut Vec<(usize, u64)>) -> bool {
        false
    }

    /// A class of `t`'s guard on resource `r`, for instances that override
    /// [`enabled_on`](Self::enabled_on): transitions with equal `Some` classes on `r` get equal
    /// answers from `enabled_on(state, ·, r)` at every state. The unfolding then tests one
    /// transition of a class for all of them (`n` transitions taking a token from one place make
    /// one class, disabled together by the event that took it). The default (`None`) promises
    /// nothing, and each transition is tested alone.
    fn guard_class(&self, _t: Transition, _r: Resource) -> Option<u64> {
        None
    }

    /// `t`'s guard on `r` as a test of one field of the state, for instances that override
    /// [`enabled_on`](Self::enabled_on): `Some(g)` promises that `enabled_on(state, t, r)` is
    /// [`g.holds(state)`](GuardField::holds) at every state. The unfolding, which tests guards
    /// for every dependent of every event it adds, then reads one word instead of asking. The
    /// default (`None`) promises nothing.
    fn guard_field(&self, _t: Transition, _r: Resource) -> Option<GuardField> {
        None
    }

    /// Whether firing `u` always leaves `t`'s guard on `r` false: `enabled_on(s, t, r)` fails
    /// at every state `s` that firing `u` reaches (a 1-safe place that `u` empties, and that
    /// `t` needs). The unfolding then never looks for extensions by `t` whose history ends
    /// with an event of `u` on the slot that decides `r`. The default (false) promises
    /// nothing.
    fn disables(&self, _u: Transition, _t: Transition, _r: Resource) -> bool {
        false
    }

    /// Sets of resources that pass one token between them (in nets, the places of a
    /// state-machine component holding one token: a process's control locations). Instances
    /// that name a set promise, for every reachable state: at most one resource of the set is
    /// *marked* (so their parts of the state may be one, see
    /// [`resource_bits`](Self::resource_bits)); a guard on a resource of the set
    /// (`enabled_on(s, t, r)` of a `t` that tests `r`) fails where `r` is unmarked; and every
    /// transition that changes a resource of the set (a *mover*) needs one of them marked and
    /// leaves marked one that it changes. Two movers of a set are then never enabled together
    /// unless they are dependent, so no two of their events are ever concurrent: the
    /// unfolding puts them on one slot, which costs each event one cone entry instead of one
    /// per place, and after an event of a mover it looks only at the guards on the resources
    /// that mover changed. Sets are disjoint and sorted. The default names none.
    fn token_sets(&self) -> Vec<Vec<Resource>> {
        Vec::new()
    }

    /// Fires `t` (which must be enabled) at `state`, writing the successor into `out`.
    fn fire(&self, state: &[u64], t: Transition, out: &mut [u64]) -> Result<(), Overflow>;

    /// Fires `t` (which must be enabled) at `state`, in place; after an error `state` is
    /// unspecified. Instances that answer [`resource_bits`](Self::resource_bits) promise that
    /// this, like [`is_enabled`](Self::is_enabled), reads and writes only the bits of the
    /// resources of `t`'s footprint: the unfolding then fires on a state of which only those
    /// words are loaded. The default fires into a copy.
    fn fire_in_place(&self, state: &mut [u64], t: Transition) -> Result<(), Overflow> {
        let before = state.to_vec();
        self.fire(&before, t, state)
    }

    /// The footprint of `t`, sorted by resource.
    fn footprint(&self, t: Transition) -> &Footprint;

    /// Whether `a` and `b` are dependent (not independent). A transition is dependent with
    /// itself.
    fn dependent(&self, a: Transition, b: Transition) -> bool {
        a == b || footprints_conflict(self.footprint(a), self.footprint(b))
    }

    /// Pushes every transition enabled at `state` onto `out` (in increasing order).
    fn enabled(&self, state: &[u64], out: &mut Vec<Transition>) {
        for t in 0..self.transition_count() as Transition {
            if self.is_enabled(state, t) {
                out.push(t);
            }
        }
    }

    /// Whether `state` is a normal end of the system (every thread finished), as opposed to a
    /// deadlock. A state enabling no transition that is not terminal is a deadlock. Nets have
    /// no notion of termination: every dead marking is a deadlock.
    fn is_terminal(&self, _state: &[u64]) -> bool {
        false
    }

    /// Whether `state` enables no transition and is not a normal end.
    fn is_deadlock(&self, state: &[u64]) -> bool {
        !(0..self.transition_count() as Transition).any(|t| self.is_enabled(state, t))
            && !self.is_terminal(state)
    }

    /// What failed at `state`, if the system can fail and did: a failed assertion (in
    /// programs: a failing `assert`, a division by zero, an `unlock` of a lock not held), as
    /// a short text naming where. The default (nets) never fails.
    ///
    /// Instances that fail promise that a failure is permanent: every state reached from a
    /// failing state fails too. Explorers rely on it to look only at the ends of maximal
    /// runs (every run to a failing state extends to a maximal one, still failing), and to
    /// count the maximal runs, traces or configurations that end failed.
    fn failed_assertion(&self, _state: &[u64]) -> Option<String> {
        None
    }

    /// A readable rendering of a state, for witnesses and debugging.
    fn describe_state(&self, state: &[u64]) -> String;

    /// The state as a marking, for JSON reports: (place identifier, tokens) of every marked
    /// place in place order; `None` (the default) for systems whose states are not markings.
    fn marking_of(&self, _state: &[u64]) -> Option<Vec<(String, u64)>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_conflict_table() {
        let (r, w, a) = (Access::READ, Access::WRITE, Access::ADD);
        assert!(!r.conflicts_with(r));
        assert!(!a.conflicts_with(a));
        for (x, y) in [(r, w), (r, a), (w, w), (w, a)] {
            assert!(x.conflicts_with(y), "{x:?} {y:?}");
            assert!(y.conflicts_with(x), "{y:?} {x:?}");
        }
        assert!(r.union(a).conflicts_with(r.union(a)));
        assert!(!Access::NONE.conflicts_with(w));
    }

    #[test]
    fn footprint_merge() {
        let t = |resource, access| Touch { resource, access };
        let a = [t(1, Access::READ), t(4, Access::ADD)];
        let b = [t(2, Access::WRITE), t(4, Access::ADD)];
        let c = [t(4, Access::READ)];
        assert!(!footprints_conflict(&a, &b));
        assert!(footprints_conflict(&a, &c));
        assert!(footprints_conflict(&b, &c));
    }
}
