//! Wakeup trees (Optimal-DPOR): ordered trees of steps still to explore after a prefix.
//!
//! Every leaf put in by race reversal is a whole maximal execution (its completion was chosen
//! and checked when it was inserted), except a *parked* leaf, whose completion could not be
//! decided within the search budget: the exploration reaches its end and goes on freely.

use super::processes::Step;

/// A node of a wakeup tree: a step and what follows it.
#[derive(Clone, Debug)]
pub struct WNode {
    /// The step.
    pub step: Step,
    /// The subtrees, in the order they are to be explored.
    pub children: Vec<WNode>,
    /// A parked leaf: explore freely after it.
    pub parked: bool,
}

impl WNode {
    /// A chain of nodes for `steps` (non-empty), its last node parked if asked.
    pub fn chain(steps: &[Step], parked: bool) -> WNode {
        let mut node = WNode {
            step: *steps.last().expect("a non-empty chain"),
            children: Vec::new(),
            parked,
        };
        for s in steps[..steps.len() - 1].iter().rev() {
            node = WNode {
                step: *s,
                children: vec![node],
                parked: false,
            };
        }
        node
    }

    /// Number of nodes of the tree.
    pub fn size(&self) -> u64 {
        1 + self.children.iter().map(WNode::size).sum::<u64>()
    }
}
