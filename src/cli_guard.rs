//! The guard over one run: `--timeout` and `--mem-limit` hold in every phase of every mode,
//! not only where an explorer checks them.
//!
//! A thread samples the resident memory and the clock every few milliseconds. Past the soft
//! memory threshold it trips the explorers' memory flag (they stop cleanly at their next check,
//! with their statistics). Where nothing checks (reading a huge input, building a system,
//! writing output), it stops the process itself: when the resident memory reaches the hard
//! threshold (still below `--mem-limit`), when the time limit passed [`GRACE`] ago, or when an
//! interruption (SIGINT, SIGTERM) was not answered within [`GRACE`]. It then prints what it
//! knows (input, mode, phase, time, peak memory) as incomplete statistics and exits with 3.
//!
//! Between two samples, the allocator itself ([`crate::cli_alloc`]) looks at the resident
//! memory after every mebibyte a thread requests, so a fast reader cannot outrun the guard.
//!
//! Inputs are also weighed before they are read: a file whose model cannot fit in the memory
//! limit is refused at once.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli::{OutputArgs, common_head, common_tail, describe_stop};
use unfold::explore::limits::{Limits, StopReason, rss_bytes};
use unfold::report::stats::{Stats, human_bytes};

/// How long an explorer has to answer a time limit or an interruption before the guard stops
/// the process itself.
pub const GRACE: Duration = Duration::from_millis(1000);

/// How long an explorer that was told to stop may take to wind down (freeing gigabytes takes
/// seconds) before the guard stops the process anyway.
const WIND_DOWN: Duration = Duration::from_secs(10);

/// Sampling period of the guard thread.
const TICK: Duration = Duration::from_millis(4);

/// Whether the run's report was printed (by the command or by the guard): whoever takes this
/// first prints, the other stays silent.
static REPORTED: Mutex<bool> = Mutex::new(false);

/// The first phase of every run.
const READING: &str = "reading the input";

/// The guard of the run in progress, for the allocator's checks ([`crate::cli_alloc`]).
static ACTIVE: Mutex<Option<Arc<Shared>>> = Mutex::new(None);

fn active() -> Option<Arc<Shared>> {
    ACTIVE.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// An allocation would take the process to the hard memory threshold: stop the run now.
pub(crate) fn memory_exhausted() {
    if let Some(shared) = active() {
        stop(&shared, StopReason::MemoryLimit, "");
    }
}

/// Whether the run is past reading its input (an explorer, which checks the limits itself, or
/// the report).
pub(crate) fn explorer_running() -> bool {
    active().is_some_and(|s| *s.phase.lock().unwrap_or_else(|e| e.into_inner()) != READING)
}

/// An allocation takes the process past the soft memory threshold: the explorers stop.
pub(crate) fn memory_low() {
    if let Some(shared) = active() {
        shared.limits.trip_memory();
    }
}

/// The right to print the run's report; `None` when it was printed already (the guard is then
/// ending the process).
pub(crate) fn claim_report() -> Option<MutexGuard<'static, bool>> {
    let mut done = REPORTED.lock().unwrap_or_else(|e| e.into_inner());
    if *done {
        return None;
    }
    *done = true;
    Some(done)
}

/// The memory thresholds derived from a limit of `limit` bytes: the explorers' budget (also
/// the soft threshold of the resident memory) and the hard threshold at which the guard stops
/// the process. Both leave room below the limit for the report and the sampling delay.
pub(crate) fn thresholds(limit: u64) -> (u64, u64) {
    let room = (limit / 8).min(256 << 20);
    (limit - room, limit - room / 2)
}

/// A low estimate of the bytes needed per byte of input while reading it (measured peaks on
/// generated nets: PNML 3 to 4, PEP 8 to 11): an input whose estimate does not fit is refused
/// before it is read; the guard catches the rest while they are read.
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
    /// Where the statistics go; `None`: only a line on standard error.
    output: Option<OutputArgs>,
    phase: Mutex<&'static str>,
    done: AtomicBool,
}

/// The guard of a run; stops its thread when dropped.
pub(crate) struct Guard {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Guard {
    /// Starts guarding a run of `mode` on `file` with `limits` (whose memory budget is the
    /// user's limit in bytes; the explorers get the lower budget of [`thresholds`]).
    pub(crate) fn start(
        limits: Limits,
        mode: &'static str,
        file: &Path,
        output: Option<&OutputArgs>,
    ) -> Guard {
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
            output: output.cloned(),
            phase: Mutex::new(READING),
            done: AtomicBool::new(false),
        });
        *ACTIVE.lock().unwrap_or_else(|e| e.into_inner()) = Some(shared.clone());
        if let (Some(s), Some(h)) = (soft, hard) {
            crate::cli_alloc::arm(s, h);
        }
        let watched = shared.clone();
        let thread = std::thread::Builder::new()
            .name("limits".into())
            .spawn(move || watch(&watched))
            .ok();
        Guard { shared, thread }
    }

    /// The limits the explorers get: the memory budget below the user's limit, with what the
    /// process holds now (the model) counted in.
    pub(crate) fn limits(&self) -> Limits {
        self.shared.limits.clone().with_baseline(rss_bytes())
    }

    /// Names the phase the run is in, for a report the guard has to print.
    pub(crate) fn phase(&self, phase: &'static str) {
        *self.shared.phase.lock().unwrap_or_else(|e| e.into_inner()) = phase;
    }

    /// Refuses (statistics printed, exit 3) an input whose model cannot fit in the memory
    /// limit, judged from its size before anything is read.
    pub(crate) fn weigh_input(&self, path: &Path) {
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

impl Drop for Guard {
    fn drop(&mut self) {
        self.shared.done.store(true, Ordering::Relaxed);
        crate::cli_alloc::disarm();
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

/// Prints the statistics the guard knows and ends the process with exit code 3 (unless the
/// command is printing its own report, which it then finishes).
fn stop(shared: &Shared, reason: StopReason, why: &str) {
    let Some(_report) = claim_report() else {
        return;
    };
    let phase = *shared.phase.lock().unwrap_or_else(|e| e.into_inner());
    let mut stats = Stats::new();
    common_head(&mut stats, &shared.file, shared.mode, false);
    stats.add_json(
        "stopped",
        serde_json::to_value(reason).unwrap_or(Value::Null),
    );
    stats.add("phase", "stopped while", phase);
    common_tail(&mut stats, shared.limits.elapsed().as_secs_f64());
    let mut extra = vec![describe_stop(reason)];
    if !why.is_empty() {
        extra.push(why.to_string());
    }
    // The report may fail to print (a closed pipe): the exit code still says what happened.
    match &shared.output {
        Some(output) => {
            let _ = crate::cli::write_report(&stats, output, &extra);
            let _ = std::io::stdout().flush();
        }
        None => eprintln!("{}: {phase}: {}", shared.file.display(), extra.join("; ")),
    }
    std::process::exit(3);
}

#[cfg(test)]
mod tests {
    use super::*;

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
