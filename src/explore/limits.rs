//! Resource limits every explorer honours: a time budget, a memory budget and an interruption
//! flag (set by SIGINT/SIGTERM handlers at the binary edge).
//!
//! Memory is guarded twice: explorers compare their own accounting of their data (plus the
//! `baseline`, what the process held before they started) with the budget *before* a large
//! structure grows, and a watch outside the explorer (the binary's guard thread) samples the
//! resident memory and trips a flag that [`Limits::check_time`] reports, for what the
//! accounting does not see.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Why an exploration stopped before it was complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// `--timeout` elapsed.
    Timeout,
    /// Going on would pass `--mem-limit`.
    MemoryLimit,
    /// The user interrupted the run.
    Interrupted,
    /// A depth bound (`--max-depth`) cut the exploration.
    DepthLimit,
    /// The exploration created as many events as `--max-events` allows.
    EventLimit,
    /// The exploration ran as many executions as `--max-executions` allows.
    ExecutionLimit,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopReason::Timeout => "time limit reached",
            StopReason::MemoryLimit => "memory limit reached",
            StopReason::Interrupted => "interrupted",
            StopReason::DepthLimit => "depth limit reached",
            StopReason::EventLimit => "event limit reached",
            StopReason::ExecutionLimit => "execution limit reached",
        })
    }
}

/// The limits of one run, with its start time.
#[derive(Clone, Debug)]
pub struct Limits {
    start: Instant,
    timeout: Option<Duration>,
    mem_limit: Option<u64>,
    interrupted: Arc<AtomicBool>,
    /// Tripped by a resident-memory watch on another thread (shared by clones).
    memory_tripped: Arc<AtomicBool>,
    /// Set when a check told an explorer to stop (shared by clones): it is winding down.
    stop_reported: Arc<AtomicBool>,
    /// Bytes held before the exploration (the model, the binary), outside its own accounting.
    baseline: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits::new(None, None)
    }
}

impl Limits {
    /// Limits starting now.
    pub fn new(timeout: Option<Duration>, mem_limit: Option<u64>) -> Self {
        Limits {
            start: Instant::now(),
            timeout,
            mem_limit,
            interrupted: Arc::new(AtomicBool::new(false)),
            memory_tripped: Arc::new(AtomicBool::new(false)),
            stop_reported: Arc::new(AtomicBool::new(false)),
            baseline: 0,
        }
    }

    /// Uses `flag` as the interruption flag (shared with a signal handler).
    pub fn with_interrupt_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.interrupted = flag;
        self
    }

    /// The same limits with another memory budget.
    pub fn with_mem_limit(mut self, bytes: Option<u64>) -> Self {
        self.mem_limit = bytes;
        self
    }

    /// Counts `bytes` (what the process already holds: the model, the system) against the
    /// memory budget on top of every explorer's own accounting.
    pub fn with_baseline(mut self, bytes: u64) -> Self {
        self.baseline = bytes;
        self
    }

    /// Reports the memory budget as exhausted from now on (for a resident-memory watch; clones
    /// share the flag).
    pub fn trip_memory(&self) {
        self.memory_tripped.store(true, Ordering::Relaxed);
    }

    /// Whether the memory watch tripped (the process passed the budget), without reporting a
    /// stop: an explorer then measures its memory at once instead of at its next turn.
    pub fn memory_tripped(&self) -> bool {
        self.memory_tripped.load(Ordering::Relaxed)
    }

    /// The memory budget in bytes, if any.
    pub fn mem_limit(&self) -> Option<u64> {
        self.mem_limit
    }

    /// The time budget, if any.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Whether the run was interrupted (SIGINT, SIGTERM).
    pub fn interrupted(&self) -> bool {
        self.interrupted.load(Ordering::Relaxed)
    }

    /// Whether a check has told the explorer to stop: it is winding down (freeing a large
    /// structure can take seconds) and will report.
    pub fn stop_reported(&self) -> bool {
        self.stop_reported.load(Ordering::Relaxed)
    }

    fn report(&self, reason: StopReason) -> Result<(), StopReason> {
        self.stop_reported.store(true, Ordering::Relaxed);
        Err(reason)
    }

    /// Time left before the timeout (`None`: no timeout).
    pub fn remaining(&self) -> Option<Duration> {
        self.timeout.map(|t| t.saturating_sub(self.start.elapsed()))
    }

    /// Limits for one phase of this run: starting now, ending after `budget` or at this run's
    /// timeout, whichever comes first, with the same memory budget, interruption flag and
    /// memory watch. A phase that runs out of time stops only itself: the run goes on.
    pub fn phase(&self, budget: Option<Duration>) -> Limits {
        let timeout = match (budget, self.remaining()) {
            (Some(b), Some(r)) => Some(b.min(r)),
            (b, r) => b.or(r),
        };
        Limits {
            start: Instant::now(),
            timeout,
            stop_reported: Arc::new(AtomicBool::new(false)),
            ..self.clone()
        }
    }

    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether time is up, the run was interrupted, or the memory watch tripped. Cheap (two
    /// atomic loads and a clock read): explorers call it often.
    pub fn check_time(&self) -> Result<(), StopReason> {
        if self.interrupted.load(Ordering::Relaxed) {
            return self.report(StopReason::Interrupted);
        }
        if self.memory_tripped.load(Ordering::Relaxed) {
            return self.report(StopReason::MemoryLimit);
        }
        match self.timeout {
            Some(t) if self.start.elapsed() >= t => self.report(StopReason::Timeout),
            _ => Ok(()),
        }
    }

    /// Whether holding `bytes` (the explorer's own accounting of its data structures) on top
    /// of the baseline is allowed.
    pub fn check_memory(&self, bytes: u64) -> Result<(), StopReason> {
        match self.mem_limit {
            Some(limit) if bytes.saturating_add(self.baseline) > limit => {
                self.report(StopReason::MemoryLimit)
            }
            _ => Ok(()),
        }
    }
}

/// Peak resident memory of this process in bytes (`VmHWM`), or 0 where unknown.
pub fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// Current resident memory of this process in bytes, or 0 where unknown. Reads
/// `/proc/self/statm` (a few numbers), opened once and read again from its start: one system
/// call of about a microsecond, where opening it each time took four (the explorers sample it
/// every 256 steps).
pub fn rss_bytes() -> u64 {
    use std::os::unix::fs::FileExt;
    static STATM: std::sync::OnceLock<Option<std::fs::File>> = std::sync::OnceLock::new();
    let Some(file) = STATM
        .get_or_init(|| std::fs::File::open("/proc/self/statm").ok())
        .as_ref()
    else {
        return 0;
    };
    let mut buf = [0u8; 128];
    let Ok(len) = file.read_at(&mut buf, 0) else {
        return 0;
    };
    let pages: u64 = std::str::from_utf8(&buf[..len])
        .ok()
        .and_then(|text| text.split_ascii_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages.saturating_mul(u64::try_from(page).unwrap_or(4096))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_trip() {
        let l = Limits::new(Some(Duration::ZERO), Some(100));
        assert_eq!(l.check_time(), Err(StopReason::Timeout));
        assert_eq!(l.check_memory(101), Err(StopReason::MemoryLimit));
        assert_eq!(l.check_memory(100), Ok(()));
        let flag = Arc::new(AtomicBool::new(true));
        let l = Limits::new(None, None).with_interrupt_flag(flag);
        assert_eq!(l.check_time(), Err(StopReason::Interrupted));
        assert!(peak_rss_bytes() > 0);
        assert!(rss_bytes() > 0 && rss_bytes() <= peak_rss_bytes());
    }

    #[test]
    fn resident_memory_is_read_afresh() {
        // The file stays open: each read must see the memory of now, not of the first read.
        let before = rss_bytes();
        let block = std::hint::black_box(vec![1u8; 256 << 20]);
        let during = rss_bytes();
        assert!(block.iter().step_by(4096).all(|&b| b == 1));
        assert!(
            during >= before + (128 << 20),
            "{before} then {during} bytes resident"
        );
    }

    #[test]
    fn baseline_and_memory_watch() {
        let l = Limits::new(None, Some(100)).with_baseline(60);
        assert_eq!(l.check_memory(40), Ok(()));
        assert_eq!(l.check_memory(41), Err(StopReason::MemoryLimit));
        assert_eq!(l.check_memory(u64::MAX), Err(StopReason::MemoryLimit));
        assert!(l.stop_reported());
        let l = Limits::new(None, Some(100));
        let watched = l.clone();
        assert_eq!(watched.check_time(), Ok(()));
        assert!(!l.stop_reported());
        l.trip_memory();
        assert_eq!(watched.check_time(), Err(StopReason::MemoryLimit));
        assert!(l.stop_reported());
    }

    #[test]
    fn a_phase_ends_at_its_budget_or_the_run_s_timeout() {
        let flag = Arc::new(AtomicBool::new(false));
        let run = Limits::new(Some(Duration::from_secs(3600)), Some(100))
            .with_interrupt_flag(flag.clone());
        let phase = run.phase(Some(Duration::ZERO));
        assert_eq!(phase.check_time(), Err(StopReason::Timeout));
        // The phase's stop is its own; the run goes on.
        assert!(!run.stop_reported() && run.check_time().is_ok());
        let long = run.phase(Some(Duration::from_secs(7200)));
        assert!(long.timeout().unwrap() <= Duration::from_secs(3600));
        assert_eq!(long.mem_limit(), Some(100));
        assert_eq!(Limits::new(None, None).phase(None).timeout(), None);
        flag.store(true, Ordering::Relaxed);
        assert_eq!(long.check_time(), Err(StopReason::Interrupted));
    }
}
