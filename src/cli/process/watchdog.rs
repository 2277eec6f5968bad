//! The watchdog over one run: `--timeout` and `--mem-limit` hold in every phase of every mode,
//! not only where an explorer checks them.
//!
//! A thread samples the resident memory and the clock every few milliseconds. Past the soft
//! memory threshold it trips the explorers' memory flag (they stop cleanly at their next check,
//! with their statistics). Where nothing checks (reading a huge input, building a system,
//! writing output), it stops the process itself: when the resident memory reaches the hard
//! threshold (still below `--mem-limit`), when the time limit passed [`GRACE`] ago, or when an
//! interruption (SIGINT, SIGTERM) was not answered within [`GRACE`]. It then hands what it
//! knows (input, mode, phase, reason, time) to the caller's [`StopReport`], which prints it as
//! incomplete statistics, and exits with 3.
//!
//! Between two samples, the allocator itself ([`super::alloc`]) looks at the resident memory
//! after every mebibyte a thread requests, so a fast reader cannot outrun the watchdog.
//!
//! Inputs are also weighed before they are read: a file whose model cannot fit in the memory
//! limit is refused at once.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::alloc;
use unfold::explore::limits::{Limits, StopReason, rss_bytes};
use unfold::modes::describe_stop;
use unfold::report::stats::human_bytes;

/// How long an explorer has to answer a time limit or an interruption before the watchdog stops
/// the process itself.
pub const GRACE: Duration = Duration::from_millis(1000);

/// How long an explorer that was told to stop may take to wind down (freeing gigabytes takes
/// seconds) before the watchdog stops the process anyway.
const WIND_DOWN: Duration = Duration::from_secs(10);

/// Sampling period of the watchdog thread.
const TICK: Duration = Duration::from_millis(4);

/// Whether the run's report was printed (by the command or by the watchdog): whoever takes this
/// first prints, the other stays silent.
static REPORTED: Mutex<bool> = Mutex::new(false);

/// The first phase of every run.
const READING: &str = "reading the input";

/// The watchdog of the run in progress, for the allocator's checks ([`super::alloc`]).
static ACTIVE: Mutex<Option<Arc<Shared>>> = Mutex::new(None);

fn active() -> Option<Arc<Shared>> {
    ACTIVE.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// An allocation would take the process to the hard memory threshold: stop the run now.
fn memory_exhausted() {
    if let Some(shared) = active() {
        stop(&shared, StopReason::MemoryLimit, "");
    }
}

/// Whether the run is past reading its input (an explorer, which checks the limits itself, or
/// the report).
fn explorer_running() -> bool {
    active().is_some_and(|s| *s.phase.lock().unwrap_or_else(|e| e.into_inner()) != READING)
}

/// An allocation takes the process past the soft memory threshold: the explorers stop.
fn memory_low() {
    if let Some(shared) = active() {
        shared.limits.trip_memory();
    }
}

/// The right to print the run's report; `None` when it was printed already (the watchdog is
/// then ending the process).
pub fn claim_report() -> Option<MutexGuard<'static, bool>> {
    let mut done = REPORTED.lock().unwrap_or_else(|e| e.into_inner());
    if *done {
        return None;
    }
    *done = true;
    Some(done)
}

/// The memory thresholds derived from a limit of `limit` bytes: the explorers' budget (also
/// the soft threshold of the resident memory) and the hard threshold at which the watchdog
/// stops the process. Both leave room below the limit for the report and the sampling delay.
pub fn thresholds(limit: u64) -> (u64, u64) {
    let room = (limit / 8).min(256 << 20);
    (limit - room, limit - room / 2)
}

/// A low estimate of the bytes needed per byte of input while reading it (measured peaks on
/// generated nets: PNML 3 to 4, PEP 8 to 11): an input whose estimate does not fit is refused
/// before it is read; the watchdog catches the rest while they are read.
fn input_factor(path: &Path) -> u64 {
    let head = std::fs::File::open(path)
        .and_then(|mut f| {
            let mut buf = [0u8; 256];
            let n = std::io::Read::read(&mut f, &mut buf)?;
            Ok(buf[..n].to_vec())
        })
        .unwrap_or_default();
    match unfold::formats::sniff(&head, path) {
        Some(unfold::formats::Format::Pnml) => 2,
        Some(unfold::formats::Format::Pep) => 4,
        Some(unfold::formats::Format::Tsys) | None => 2,
    }
}

struct Shared {
    limits: Limits,
    soft: Option<u64>,
    hard: Option<u64>,
    timeout: Option<Duration>,
    file: PathBuf,
    mode: &'static str,
    /// Prints the statistics; `None`: only a line on standard error.
    report: Option<StopReport>,
    phase: Mutex<&'static str>,
    /// The explorer's counters, published as it goes (see [`Watchdog::counters`]).
    counters: Mutex<Option<Arc<Counters>>>,
    done: AtomicBool,
}

/// Statistics an explorer publishes while it runs, so that a stop by the watchdog still prints
/// them: fixed fields of atomic values, written without locking or allocating (the writer may
/// be the thread whose allocation makes the watchdog stop the run).
pub struct Counters {
    fields: &'static [(&'static str, &'static str)],
    values: Vec<AtomicU64>,
}

impl Counters {
    /// Sets field `i` (an index into the fields given to [`Watchdog::counters`]).
    pub fn set(&self, i: usize, value: u64) {
        if let Some(v) = self.values.get(i) {
            v.store(value, Ordering::Relaxed);
        }
    }

    /// `(JSON key, label, value)` of every field, as last set.
    pub fn read(&self) -> Vec<(&'static str, &'static str, u64)> {
        self.fields
            .iter()
            .zip(&self.values)
            .map(|(&(key, label), v)| (key, label, v.load(Ordering::Relaxed)))
            .collect()
    }
}

/// What the watchdog knows of a run it stops.
pub struct Stopped<'a> {
    /// The input.
    pub file: &'a Path,
    /// The mode's name.
    pub mode: &'static str,
    /// The phase the run was in.
    pub phase: &'static str,
    /// Why it stops.
    pub reason: StopReason,
    /// A sentence more on why, or empty.
    pub why: &'a str,
    /// Time since the run started.
    pub elapsed: Duration,
    /// The explorer's statistics as last published (`(JSON key, label, value)`; empty when
    /// it published none).
    pub counters: Vec<(&'static str, &'static str, u64)>,
}

/// Prints the report of a run the watchdog stops (the command's statistics, marked
/// incomplete); it runs on the watchdog's thread or an allocating one, just before the exit.
pub type StopReport = Box<dyn Fn(&Stopped<'_>) + Send + Sync>;

/// The watchdog of a run; stops its thread when dropped.
pub struct Watchdog {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts watching a run of `mode` on `file` with `limits` (whose memory budget is the
    /// user's limit in bytes; the explorers get the lower budget of [`thresholds`]); `report`
    /// prints the statistics if the watchdog has to stop the run.
    pub fn start(
        limits: Limits,
        mode: &'static str,
        file: &Path,
        report: Option<StopReport>,
    ) -> Watchdog {
        let (soft, hard) = match limits.mem_limit() {
            Some(l) => {
                let (s, h) = thresholds(l);
                (Some(s), Some(h))
            }
            None => (None, None),
        };
        let explorer_limits = limits.clone().with_mem_limit(soft);
        let shared = Arc::new(Shared {
            limits: explorer_limits,
            soft,
            hard,
            timeout: limits.timeout(),
            file: file.to_path_buf(),
            mode,
            report,
            phase: Mutex::new(READING),
            counters: Mutex::new(None),
            done: AtomicBool::new(false),
        });
        *ACTIVE.lock().unwrap_or_else(|e| e.into_inner()) = Some(shared.clone());
        if let (Some(s), Some(h)) = (soft, hard) {
            alloc::arm(
                s,
                h,
                alloc::Hooks {
                    memory_exhausted,
                    memory_low,
                    explorer_running,
                },
            );
        }
        let watched = shared.clone();
        let thread = std::thread::Builder::new()
            .name("limits".into())
            .spawn(move || watch(&watched))
            .ok();
        Watchdog { shared, thread }
    }

    /// The limits the explorers get: the memory budget below the user's limit, with what the
    /// process holds now (the model) counted in.
    pub fn limits(&self) -> Limits {
        self.shared.limits.clone().with_baseline(rss_bytes())
    }

    /// Counters with `fields` (`(JSON key, label)`, all 0) that the explorer sets as it goes;
    /// a report the watchdog has to print shows their last values.
    pub fn counters(&self, fields: &'static [(&'static str, &'static str)]) -> Arc<Counters> {
        let counters = Arc::new(Counters {
            fields,
            values: fields.iter().map(|_| AtomicU64::new(0)).collect(),
        });
        *self
            .shared
            .counters
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(counters.clone());
        counters
    }

    /// Names the phase the run is in, for a report the watchdog has to print.
    pub fn phase(&self, phase: &'static str) {
        *self.shared.phase.lock().unwrap_or_else(|e| e.into_inner()) = phase;
    }

    /// Refuses (statistics printed, exit 3) an input whose model cannot fit in the memory
    /// limit, judged from its size before anything is read.
    pub fn weigh_input(&self, path: &Path) {
        let Some(soft) = self.shared.soft else {
            return;
        };
        let Ok(meta) = std::fs::metadata(path) else {
            return; // the reader reports the error
        };
        let need = meta
            .len()
            .saturating_mul(input_factor(path))
            .saturating_add(rss_bytes());
        if need > soft {
            stop(
                &self.shared,
                StopReason::MemoryLimit,
                &format!(
                    "the input ({}) needs about {} to read, more than the memory limit allows",
                    human_bytes(meta.len()),
                    human_bytes(need)
                ),
            );
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.done.store(true, Ordering::Relaxed);
        alloc::disarm();
        *ACTIVE.lock().unwrap_or_else(|e| e.into_inner()) = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn watch(shared: &Shared) {
    let mut interrupted_at: Option<Instant> = None;
    while !shared.done.load(Ordering::Relaxed) {
        std::thread::sleep(TICK);
        if shared.soft.is_some() {
            let rss = rss_bytes();
            if shared.hard.is_some_and(|h| rss >= h) {
                stop(shared, StopReason::MemoryLimit, "");
            }
            if shared.soft.is_some_and(|s| rss >= s) {
                shared.limits.trip_memory();
            }
        }
        // An explorer that was told to stop is winding down: it gets longer.
        let grace = if shared.limits.stop_reported() {
            GRACE + WIND_DOWN
        } else {
            GRACE
        };
        if shared
            .timeout
            .is_some_and(|t| shared.limits.elapsed() >= t.saturating_add(grace))
        {
            stop(shared, StopReason::Timeout, "");
        }
        if shared.limits.interrupted() {
            let at = *interrupted_at.get_or_insert_with(Instant::now);
            if at.elapsed() >= grace {
                stop(shared, StopReason::Interrupted, "");
            }
        }
    }
}

/// Hands what the watchdog knows to the run's [`StopReport`] (or prints one line) and ends
/// the process with exit code 3, unless the command is printing its own report, which it then
/// finishes.
fn stop(shared: &Shared, reason: StopReason, why: &str) {
    let Some(_report) = claim_report() else {
        return;
    };
    let stopped = Stopped {
        file: &shared.file,
        mode: shared.mode,
        phase: *shared.phase.lock().unwrap_or_else(|e| e.into_inner()),
        reason,
        why,
        elapsed: shared.limits.elapsed(),
        // Not waiting on the lock: the thread holding it may be the one stopping here.
        counters: shared
            .counters
            .try_lock()
            .ok()
            .and_then(|c| c.as_ref().map(|c| c.read()))
            .unwrap_or_default(),
    };
    match &shared.report {
        Some(report) => report(&stopped),
        None => {
            let mut line = describe_stop(reason);
            if !why.is_empty() {
                line = format!("{line}; {why}");
            }
            eprintln!("{}: {}: {line}", shared.file.display(), stopped.phase);
        }
    }
    std::process::exit(3);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counters read back what was set last, in the order of their fields; an index past
    /// them is ignored (no panic in an explorer's callback).
    #[test]
    fn counters_read_what_was_set() {
        let c = Counters {
            fields: &[("events", "events"), ("depth", "depth")],
            values: vec![AtomicU64::new(0), AtomicU64::new(0)],
        };
        c.set(1, 7);
        c.set(0, 3);
        c.set(0, 5);
        c.set(2, 9);
        assert_eq!(
            c.read(),
            vec![("events", "events", 5), ("depth", "depth", 7)]
        );
    }

    #[test]
    fn thresholds_leave_room_below_the_limit() {
        let mib = 1u64 << 20;
        assert_eq!(thresholds(32 * mib), (28 * mib, 30 * mib));
        assert_eq!(thresholds(1024 * mib), (896 * mib, 960 * mib));
        // The room is capped: large limits are used almost whole.
        assert_eq!(
            thresholds(64 << 30),
            ((64 << 30) - 256 * mib, (64 << 30) - 128 * mib)
        );
        assert_eq!(thresholds(1), (1, 1));
    }
}
