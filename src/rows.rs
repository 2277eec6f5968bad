//! Lists of lists kept in one array: the per-transition tables of a net system and the
//! per-slot and per-transition tables the unfolding builds once per system. A system with `n`
//! transitions would otherwise make `n` small allocations per table, which on large nets (a
//! chain of 100 000 places) cost more than building the contents.

/// A list of rows, each a slice of one array.
#[derive(Clone, Debug)]
pub struct Rows<T> {
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for Rows<T> {
    fn default() -> Self {
        Rows {
            starts: vec![0],
            items: Vec::new(),
        }
    }
}

impl<T> Rows<T> {
    /// No rows.
    pub fn new() -> Self {
        Self::default()
    }

    /// No rows, with room for `rows` rows of `items` items in all: tables built row by row
    /// whose sizes are known (or bounded) are then filled without growing, and hold no more
    /// than they need.
    pub fn with_capacity(rows: usize, items: usize) -> Self {
        let mut starts = Vec::with_capacity(rows + 1);
        starts.push(0);
        Rows {
            starts,
            items: Vec::with_capacity(items),
        }
    }

    /// Adds a row at the end.
    pub fn push_row(&mut self, row: impl IntoIterator<Item = T>) {
        self.items.extend(row);
        self.starts.push(self.items.len() as u32);
    }

    /// Adds an item to the row being filled (the one after the last row ended).
    #[inline]
    pub fn push(&mut self, item: T) {
        self.items.push(item);
    }

    /// The items of the row being filled.
    pub fn filling(&self) -> &[T] {
        &self.items[*self.starts.last().expect("starts at 0") as usize..]
    }

    /// Ends the row being filled.
    pub fn end_row(&mut self) {
        let end = u32::try_from(self.items.len()).expect("fewer than 2^32 items");
        self.starts.push(end);
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> &[T] {
        &self.items[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Where row `i` lies among all the rows' items (see [`items`](Self::items)).
    #[inline]
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.starts[i] as usize..self.starts[i + 1] as usize
    }

    /// The items of all rows, row after row.
    #[inline]
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// Bytes held (allocated capacity).
    pub fn bytes(&self) -> usize {
        self.starts.capacity() * 4 + self.items.capacity() * std::mem::size_of::<T>()
    }
}

impl<T: Copy + Default> Rows<T> {
    /// `n` rows from `(row, item)` pairs, by counting: each row keeps its items in the order
    /// the pairs give them. `pairs` is walked twice.
    pub fn group<I: Iterator<Item = (usize, T)>>(n: usize, pairs: impl Fn() -> I) -> Self {
        // Row r's count goes two places to its right: after the prefix sums `starts[r + 1]` is
        // where row r starts, the cursor of the second pass, which leaves it where row r ends,
        // that is where row r + 1 starts (no second array of cursors).
        // (Internal iteration: the pairs mostly come from nested loops, `flat_map`s, which
        // a `for` loop steps through at several times the cost.)
        let mut starts = vec![0u32; n + 2];
        pairs().for_each(|(r, _)| starts[r + 2] += 1);
        for r in 2..n + 2 {
            starts[r] += starts[r - 1];
        }
        let mut items = vec![T::default(); starts[n + 1] as usize];
        pairs().for_each(|(r, x)| {
            let at = &mut starts[r + 1];
            items[*at as usize] = x;
            *at += 1;
        });
        starts.truncate(n + 1);
        Rows { starts, items }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouped_rows_keep_their_order() {
        let pairs = [(2, 'a'), (0, 'b'), (2, 'c'), (3, 'd'), (0, 'e')];
        let rows = Rows::group(4, || pairs.iter().copied());
        assert_eq!(rows.len(), 4);
        assert_eq!(rows.row(0), ['b', 'e']);
        assert_eq!(rows.row(1), [] as [char; 0]);
        assert_eq!(rows.row(2), ['a', 'c']);
        assert_eq!(rows.row(3), ['d']);
        let mut pushed = Rows::new();
        pushed.push_row([1, 2]);
        pushed.push_row([]);
        pushed.push_row([3]);
        assert_eq!(
            (pushed.row(0), pushed.row(1), pushed.row(2)),
            (&[1, 2][..], &[][..], &[3][..])
        );
        pushed.push(4);
        pushed.push(5);
        assert_eq!(pushed.filling(), [4, 5]);
        pushed.end_row();
        pushed.end_row();
        assert_eq!(pushed.len(), 5);
        assert_eq!((pushed.row(3), pushed.row(4)), (&[4, 5][..], &[][..]));
        assert!(pushed.filling().is_empty());
    }
}
