//! Resource limits every explorer honours: a time budget, a memory budget and an interruption
//! flag (set by SIGINT/SIGTERM handlers at the binary edge).

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
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopReason::Timeout => "time limit reached",
            StopReason::MemoryLimit => "memory limit reached",
            StopReason::Interrupted => "interrupted",
            StopReason::DepthLimit => "depth limit reached",
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
        }
    }

    /// Uses `flag` as the interruption flag (shared with a signal handler).
    pub fn with_interrupt_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.interrupted = flag;
        self
    }

    /// The memory budget in bytes, if any.
    pub fn mem_limit(&self) -> Option<u64> {
        self.mem_limit
    }

    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether time is up or the run was interrupted.
    pub fn check_time(&self) -> Result<(), StopReason> {
        if self.interrupted.load(Ordering::Relaxed) {
            return Err(StopReason::Interrupted);
        }
        match self.timeout {
            Some(t) if self.start.elapsed() >= t => Err(StopReason::Timeout),
            _ => Ok(()),
        }
    }

    /// Whether holding `bytes` (the explorer's own accounting of its data structures) is
    /// allowed.
    pub fn check_memory(&self, bytes: u64) -> Result<(), StopReason> {
        match self.mem_limit {
            Some(limit) if bytes > limit => Err(StopReason::MemoryLimit),
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

/// Current resident memory of this process in bytes (`VmRSS`), or 0 where unknown.
pub fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
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
    }
}
