//! A binary min-heap of `u32` keys ordered by an external comparison (the adequate order needs
//! the prefix and the possible extensions to compare two entries, so the entries cannot carry an
//! `Ord` of their own).

use std::cmp::Ordering;

/// Min-heap of ids; the comparison is passed to every operation.
#[derive(Default, Debug)]
pub struct Heap {
    items: Vec<u32>,
}

impl Heap {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the heap is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Allocated bytes.
    pub fn bytes(&self) -> u64 {
        (self.items.capacity() * 4) as u64
    }

    /// Inserts `id`.
    pub fn push(&mut self, id: u32, cmp: &mut impl FnMut(u32, u32) -> Ordering) {
        self.items.push(id);
        let mut i = self.items.len() - 1;
        while i > 0 {
            let parent = (i - 1) / 2;
            if cmp(self.items[i], self.items[parent]) == Ordering::Less {
                self.items.swap(i, parent);
                i = parent;
            } else {
                break;
            }
        }
    }

    /// Removes and returns the least id.
    pub fn pop(&mut self, cmp: &mut impl FnMut(u32, u32) -> Ordering) -> Option<u32> {
        let last = self.items.pop()?;
        if self.items.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut self.items[0], last);
        let n = self.items.len();
        let mut i = 0;
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let child = if r < n && cmp(self.items[r], self.items[l]) == Ordering::Less {
                r
            } else {
                l
            };
            if cmp(self.items[child], self.items[i]) == Ordering::Less {
                self.items.swap(child, i);
                i = child;
            } else {
                break;
            }
        }
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts() {
        let keys = [5u32, 3, 9, 1, 7, 3, 0, 8];
        let mut h = Heap::default();
        let mut cmp = |a: u32, b: u32| keys[a as usize].cmp(&keys[b as usize]);
        for i in 0..keys.len() as u32 {
            h.push(i, &mut cmp);
        }
        let mut out = Vec::new();
        while let Some(i) = h.pop(&mut cmp) {
            out.push(keys[i as usize]);
        }
        assert_eq!(out, vec![0, 1, 3, 3, 5, 7, 8, 9]);
    }
}
