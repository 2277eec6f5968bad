//! Growing blocks in mappings of their own, grown by `mremap`.
//!
//! The explorers' tables grow by an eighth at a time (`unfolding::grow`), and arrays of
//! children by doubling. glibc serves blocks below its mmap threshold, which it raises up to
//! 32 MiB as large blocks are freed, from its heap, where growing a block usually means a new
//! one and a copy: runs that keep millions of events copied gigabytes that way
//! (benches/HISTORY.md). A block that
//! grows past [`MAP_AT`] is moved once into a mapping of its own; from then on it grows (or
//! shrinks) by `mremap`, which moves page tables instead of bytes. Blocks allocated at their
//! full size (temporaries, tables sized once) stay with glibc, which reuses their memory when
//! they are freed.
//!
//! The blocks moved here are listed in a small table under a spin lock; the allocator looks
//! there only for blocks of at least [`MAP_AT`] bytes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Blocks growing to at least this many bytes move into mappings of their own.
const MAP_AT: usize = 1 << 18;

/// Blocks of at least this many bytes are left to glibc, which serves them by mmap and grows
/// them by mremap already (its threshold never rises above 32 MiB).
const GLIBC_MAPS_AT: usize = 32 << 20;

/// The most blocks held here at once; past that, blocks stay with glibc.
const CAPACITY: usize = 1024;

/// Addresses and mapping lengths of the blocks held here, `0..COUNT` in use.
static ADDRESSES: [AtomicUsize; CAPACITY] = [const { AtomicUsize::new(0) }; CAPACITY];
static LENGTHS: [AtomicUsize; CAPACITY] = [const { AtomicUsize::new(0) }; CAPACITY];
static COUNT: AtomicUsize = AtomicUsize::new(0);
static LOCK: AtomicBool = AtomicBool::new(false);

/// The table, locked (a spin lock: it is held for a few loads and stores, and around one
/// `mremap`).
struct Table;

impl Table {
    fn lock() -> Table {
        while LOCK
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            std::hint::spin_loop();
        }
        Table
    }

    fn find(&self, p: *mut u8) -> Option<usize> {
        (0..COUNT.load(Ordering::Relaxed))
            .find(|&i| ADDRESSES[i].load(Ordering::Relaxed) == p as usize)
    }

    fn length(&self, i: usize) -> usize {
        LENGTHS[i].load(Ordering::Relaxed)
    }

    fn set(&self, i: usize, p: *mut u8, len: usize) {
        ADDRESSES[i].store(p as usize, Ordering::Relaxed);
        LENGTHS[i].store(len, Ordering::Relaxed);
    }

    /// Removes entry `i` (the last one fills the hole).
    fn remove(&self, i: usize) {
        let last = COUNT.load(Ordering::Relaxed) - 1;
        self.set(
            i,
            ADDRESSES[last].load(Ordering::Relaxed) as *mut u8,
            LENGTHS[last].load(Ordering::Relaxed),
        );
        COUNT.store(last, Ordering::Relaxed);
    }

    /// Adds an entry; false when the table is full.
    fn push(&self, p: *mut u8, len: usize) -> bool {
        let n = COUNT.load(Ordering::Relaxed);
        if n == CAPACITY {
            return false;
        }
        self.set(n, p, len);
        COUNT.store(n + 1, Ordering::Relaxed);
        true
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        LOCK.store(false, Ordering::Release);
    }
}

fn page() -> usize {
    // SAFETY: sysconf has no preconditions.
    usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096)
}

fn mapping_length(bytes: usize) -> usize {
    bytes.div_ceil(page()) * page()
}

/// Frees the block at `p` if it is held here; false if it is glibc's.
///
/// # Safety
/// `p` must be a live block of `size` bytes given by the global allocator, freed by this call
/// when it returns true.
pub(super) unsafe fn dealloc(p: *mut u8, size: usize) -> bool {
    if size < MAP_AT || COUNT.load(Ordering::Relaxed) == 0 {
        return false;
    }
    let len = {
        let table = Table::lock();
        let Some(i) = table.find(p) else {
            return false;
        };
        let len = table.length(i);
        table.remove(i);
        len
    };
    // SAFETY: `[p, p + len)` is the mapping made here for this block, which is being freed.
    unsafe { libc::munmap(p.cast(), len) };
    true
}

/// Resizes the block at `p` (of `layout`) to `new_size` bytes when that is done here: a block
/// held here, or one of glibc's growing past [`MAP_AT`]. `None` leaves the call to glibc;
/// `Some(null)` is a failure, the block unchanged.
///
/// # Safety
/// As [`GlobalAlloc::realloc`].
pub(super) unsafe fn realloc(p: *mut u8, layout: Layout, new_size: usize) -> Option<*mut u8> {
    let old = layout.size();
    if layout.align() > page() {
        return None;
    }
    if old >= MAP_AT && COUNT.load(Ordering::Relaxed) > 0 {
        let table = Table::lock();
        if let Some(i) = table.find(p) {
            let len = table.length(i);
            if new_size < MAP_AT {
                // Shrunk below: back to glibc, so that the blocks held here are all large.
                // SAFETY: the caller's alignment with a smaller, nonzero size.
                let q = unsafe {
                    System.alloc(Layout::from_size_align_unchecked(new_size, layout.align()))
                };
                if q.is_null() {
                    return Some(q);
                }
                table.remove(i);
                drop(table);
                // SAFETY: both blocks are live and hold at least `new_size` bytes; the mapping
                // is this block's, freed once copied.
                unsafe {
                    std::ptr::copy_nonoverlapping(p, q, new_size);
                    libc::munmap(p.cast(), len);
                }
                return Some(q);
            }
            let new_len = mapping_length(new_size);
            let q = if new_len == len {
                p
            } else {
                // SAFETY: `[p, p + len)` is this block's mapping; MAYMOVE lets the kernel move
                // it whole, contents included.
                let q = unsafe { libc::mremap(p.cast(), len, new_len, libc::MREMAP_MAYMOVE) };
                if q == libc::MAP_FAILED {
                    return Some(std::ptr::null_mut());
                }
                q.cast::<u8>()
            };
            table.set(i, q, new_len);
            drop(table);
            if new_size > old {
                super::populate(q, old, new_size);
            }
            return Some(q);
        }
    }
    if new_size < MAP_AT || new_size <= old || old >= GLIBC_MAPS_AT {
        return None;
    }
    // A block of glibc's growing past the threshold: moved into a mapping, once.
    let len = mapping_length(new_size);
    // SAFETY: an anonymous private mapping, no address asked for.
    let q = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if q == libc::MAP_FAILED {
        return None;
    }
    let q = q.cast::<u8>();
    if !Table::lock().push(q, len) {
        // SAFETY: the mapping was just made and is not used.
        unsafe { libc::munmap(q.cast(), len) };
        return None;
    }
    super::populate(q, 0, new_size);
    // SAFETY: the new block holds `new_size > old` bytes, the old one `old`; the old block is
    // glibc's, freed once copied.
    unsafe {
        std::ptr::copy_nonoverlapping(p, q, old);
        System.dealloc(p, layout);
    }
    Some(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(p: *const u32) -> bool {
        Table::lock().find(p.cast_mut().cast()).is_some()
    }

    /// Vectors grown element by element past the threshold (from several threads at once)
    /// move into mappings, keep their contents as they grow, shrink back to glibc, and are
    /// freed from wherever they are.
    #[test]
    fn growing_blocks_move_into_mappings_and_keep_their_contents() {
        std::thread::scope(|scope| {
            for k in 0..4u32 {
                scope.spawn(move || {
                    let mut kept = Vec::new();
                    for round in 0..5 {
                        let n = (MAP_AT / 4) << round;
                        let mut v: Vec<u32> = Vec::new();
                        for i in 0..n as u32 {
                            v.push(i ^ k);
                        }
                        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32 ^ k));
                        assert!(held(v.as_ptr()), "{n} words grown one by one");
                        v.truncate(n / 2);
                        v.shrink_to_fit();
                        assert_eq!(held(v.as_ptr()), n / 2 * 4 >= MAP_AT);
                        v.truncate(1000);
                        v.shrink_to_fit();
                        assert!(!held(v.as_ptr()));
                        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32 ^ k));
                        kept.push(v);
                    }
                    // Allocated at its full size: left to glibc.
                    let whole = vec![k; 2 * MAP_AT];
                    assert!(!held(whole.as_ptr()));
                });
            }
        });
    }
}
