//! The binary's global allocator: the system allocator, with the memory limit checked by the
//! allocating thread itself.
//!
//! The watchdog thread samples the resident memory every few milliseconds, but a reader that
//! builds a model at full speed (or a loaded machine that leaves the watchdog unscheduled) can
//! pass the limit between two samples. So every thread also looks at its own allocations: after
//! each mebibyte it has requested (less under small limits), and before any single request that
//! large, it reads the resident size. When that size plus the request would reach the hard threshold in a phase
//! that checks no limit (reading, building), the run is stopped before the memory is taken;
//! past the soft threshold the explorers are told to stop.
//! Without a memory limit the cost is one atomic load per allocation.
//!
//! Large blocks also have their new pages faulted in at once (see `populate`), and growing
//! ones move into mappings of their own, where they grow without being copied (`mapped`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

#[cfg(target_os = "linux")]
mod mapped;

/// The system allocator with the checks described in the module documentation.
pub struct Guarded;

#[global_allocator]
static ALLOCATOR: Guarded = Guarded;

/// Resident bytes at which the explorers are told to stop (`u64::MAX`: no limit).
static SOFT: AtomicU64 = AtomicU64::new(u64::MAX);
/// Resident bytes the process must not reach (`u64::MAX`: no limit).
static HARD: AtomicU64 = AtomicU64::new(u64::MAX);

/// How many bytes a thread may request between two looks at the resident size: a mebibyte, or
/// less when the soft and hard thresholds are closer (small limits).
static STEP: AtomicUsize = AtomicUsize::new(1 << 20);

thread_local! {
    /// Bytes requested by this thread since its last look at the resident size.
    static SINCE_CHECK: Cell<usize> = const { Cell::new(0) };
    /// Set while this thread is checking (the stop path allocates too).
    static CHECKING: Cell<bool> = const { Cell::new(false) };
}

/// What the allocator's checks call when a threshold is reached: installed by the watchdog
/// with [`arm`], so that the allocator needs nothing above it.
pub struct Hooks {
    /// The request would take the process to the hard threshold: stop the run now.
    pub memory_exhausted: fn(),
    /// The request takes the process past the soft threshold: the explorers are told to stop.
    pub memory_low: fn(),
    /// Whether an explorer (which checks the limits itself) is running.
    pub explorer_running: fn() -> bool,
}

fn nothing() {}

fn no_explorer() -> bool {
    false
}

/// The hooks of the armed run (none before the first [`arm`]).
static HOOKS: std::sync::RwLock<Hooks> = std::sync::RwLock::new(Hooks {
    memory_exhausted: nothing,
    memory_low: nothing,
    explorer_running: no_explorer,
});

/// Arms the checks with the watchdog's thresholds (resident bytes) and hooks.
pub fn arm(soft: u64, hard: u64, hooks: Hooks) {
    *HOOKS.write().unwrap_or_else(|e| e.into_inner()) = hooks;
    let gap = usize::try_from(hard.saturating_sub(soft) / 8).unwrap_or(usize::MAX);
    STEP.store(gap.clamp(16 << 10, 1 << 20), Ordering::Relaxed);
    SOFT.store(soft, Ordering::Relaxed);
    HARD.store(hard, Ordering::Relaxed);
}

/// Disarms the checks (the run is over).
pub fn disarm() {
    HARD.store(u64::MAX, Ordering::Relaxed);
    SOFT.store(u64::MAX, Ordering::Relaxed);
}

/// Called before `bytes` more are requested.
#[inline]
fn note(bytes: usize) {
    if HARD.load(Ordering::Relaxed) == u64::MAX {
        return;
    }
    let due = SINCE_CHECK
        .try_with(|since| {
            let n = since.get().saturating_add(bytes);
            if n >= STEP.load(Ordering::Relaxed) {
                since.set(0);
                true
            } else {
                since.set(n);
                false
            }
        })
        .unwrap_or(false);
    if due {
        check(bytes);
    }
}

#[cold]
fn check(bytes: usize) {
    // Not reentrant: the stop path allocates.
    if CHECKING.try_with(|c| c.replace(true)).unwrap_or(true) {
        return;
    }
    let now = resident_bytes();
    let after = now.saturating_add(bytes as u64);
    let hard = HARD.load(Ordering::Relaxed);
    // While an explorer runs, it stops cleanly (with its statistics) once told to, and a large
    // request is usually a table that fills slowly: it is told, and the process is stopped
    // only at the threshold itself. Phases that check nothing are stopped before the request.
    // The hooks are copied out: the stop path they lead to allocates, and may arm again.
    let (exhausted, low, explorer_running) = {
        let hooks = HOOKS.read().unwrap_or_else(|e| e.into_inner());
        (
            hooks.memory_exhausted,
            hooks.memory_low,
            hooks.explorer_running,
        )
    };
    if now >= hard || (after >= hard && !explorer_running()) {
        exhausted();
    } else if after >= SOFT.load(Ordering::Relaxed) {
        low();
    }
    let _ = CHECKING.try_with(|c| c.set(false));
}

/// The resident size from `/proc/self/statm`, read without allocating (0 when unreadable).
fn resident_bytes() -> u64 {
    let mut buf = [0u8; 128];
    // SAFETY: a NUL-terminated path; `buf` outlives the read; the descriptor is closed once.
    let n = unsafe {
        let fd = libc::open(
            c"/proc/self/statm".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return 0;
        }
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        libc::close(fd);
        n
    };
    let Ok(n) = usize::try_from(n) else {
        return 0;
    };
    // The second field is the resident size in pages.
    let pages = buf[..n]
        .split(|b| *b == b' ')
        .nth(1)
        .and_then(|f| std::str::from_utf8(f).ok())
        .and_then(|f| f.trim().parse::<u64>().ok())
        .unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages.saturating_mul(u64::try_from(page).unwrap_or(4096))
}

/// Blocks of at least this many bytes (allocated, or grown to that size) have their new pages
/// made resident at once.
const POPULATE_AT: usize = 1 << 20;

/// The most one call of [`populate`] makes resident.
#[cfg(target_os = "linux")]
const POPULATE_MAX: usize = 32 << 20;

/// The size of a transparent huge page on x86-64 and most other targets.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// Makes the pages wholly inside `[p + from, p + to)` resident and writable, in one call. The
/// explorers' tables grow by an eighth at a time, hash tables double, and both fill what they
/// got soon after; touching those pages one by one costs a page fault each, a large share of
/// the time of runs that keep millions of events (benches/HISTORY.md). The price is up to an
/// eighth of a growing table held before it is used. Best effort: kernels older than 5.14
/// refuse the call, and the pages are then faulted in as they are touched.
///
/// Blocks of 2 MiB or more are also offered transparent huge pages (where the kernel gives
/// them only to regions that ask): a fault per 2 MiB instead of per page, which takes much of
/// the system time of the long runs off. The whole block is marked, so that a
/// mapping grown by `mremap` stays one region.
///
/// At most [`POPULATE_MAX`] bytes are made resident per call: the kernel clears every page
/// inside the call, which no clock check can interrupt (about 6 ms per MiB on these machines),
/// so a table doubling to gigabytes would hold a run for seconds past its time limit. The rest
/// of a large block is faulted in as it is touched, 2 MiB at a time where it got huge pages.
#[cfg(target_os = "linux")]
#[cold]
fn populate(p: *mut u8, from: usize, to: usize) {
    let resident_to = to.min(from.saturating_add(POPULATE_MAX));
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
    let start = (p as usize + from).div_ceil(page) * page;
    let end = (p as usize + resident_to) / page * page;
    if end > start {
        let (block, block_end) = (
            p as usize / page * page,
            (p as usize + to).div_ceil(page) * page,
        );
        // SAFETY: the populated range lies inside the allocation just made; the marked one is
        // the allocation rounded out to whole pages, which belong to the allocator's mapping or
        // heap. Neither call changes any contents.
        unsafe {
            if block_end - block >= HUGE_PAGE {
                libc::madvise(
                    block as *mut libc::c_void,
                    block_end - block,
                    libc::MADV_HUGEPAGE,
                );
            }
            libc::madvise(
                start as *mut libc::c_void,
                end - start,
                libc::MADV_POPULATE_WRITE,
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn populate(_: *mut u8, _: usize, _: usize) {}

// SAFETY: every call is forwarded to the system allocator unchanged, except for growing
// blocks, which `mapped` keeps in mappings of its own and frees itself (it tells them apart
// by its table); the checks only read, and `populate` only faults in pages of the block just
// returned.
unsafe impl GlobalAlloc for Guarded {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract is passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() && layout.size() >= POPULATE_AT {
            populate(p, 0, layout.size());
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on.
        #[cfg(target_os = "linux")]
        if unsafe { mapped::dealloc(ptr, layout.size()) } {
            return;
        }
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size.saturating_sub(layout.size()));
        // SAFETY: the caller's contract is passed on.
        #[cfg(target_os = "linux")]
        if let Some(p) = unsafe { mapped::realloc(ptr, layout, new_size) } {
            return p;
        }
        // SAFETY: the caller's contract is passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() && new_size >= POPULATE_AT {
            populate(p, layout.size(), new_size);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_resident_size() {
        let r = resident_bytes();
        // A running test binary holds at least a few hundred KiB and far less than a TiB.
        assert!(r > 100 << 10 && r < 1 << 40, "{r}");
    }
}
