//! One child process under supervision: its own process group, a hard wall-clock limit, its
//! output kept (capped), and its wall time and peak memory measured.

use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Extra wall-clock time a child `unfold` gets past its own `--timeout` before it is killed.
pub const KILL_GRACE: Duration = Duration::from_secs(10);

/// How a supervised child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this code.
    Exited(i32),
    /// A signal it did not catch ended it.
    Signaled(i32),
    /// The hard wall-clock limit passed; the batch killed it.
    KilledAtLimit,
    /// The batch was interrupted; the child was killed.
    Interrupted,
}

/// A finished child process.
#[derive(Clone, Debug)]
pub struct ChildRun {
    /// How it ended.
    pub ended: Ended,
    /// Its standard output (the last 8 MiB at most).
    pub stdout: Vec<u8>,
    /// Its standard error (the last 8 MiB at most).
    pub stderr: Vec<u8>,
    /// Wall-clock time from start to end.
    pub wall: Duration,
    /// Peak resident memory in bytes (`ru_maxrss` of `wait4`), where known.
    pub peak_bytes: Option<u64>,
}

const KEEP_OUTPUT: usize = 8 << 20;

fn read_capped(mut pipe: impl Read) -> Vec<u8> {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        match pipe.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                if buf.len() > 2 * KEEP_OUTPUT {
                    buf.drain(..buf.len() - KEEP_OUTPUT);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    buf
}

fn kill_group(pid: libc::pid_t) {
    // SAFETY: plain system call; the child is not reaped yet, so its id (and group id) cannot
    // have been reused.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
        libc::kill(pid, libc::SIGKILL);
    }
}

/// Waits for `pid`; `block` waits, else returns `None` while it runs.
fn wait_pid(pid: libc::pid_t, block: bool) -> io::Result<Option<(i32, libc::rusage)>> {
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: rusage is plain old data; zero is a valid value.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let flags = if block { 0 } else { libc::WNOHANG };
        // SAFETY: valid pointers to local variables.
        let r = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
        if r == pid {
            return Ok(Some((status, usage)));
        }
        if r == 0 {
            return Ok(None);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Runs `cmd` to its end in a process group of its own (so that a terminal's Ctrl-C reaches the
/// batch only, and a kill reaches the whole tool), with standard input closed and its outputs
/// captured. It is killed when `hard_limit` passes (`Ended::KilledAtLimit`) or when `interrupt`
/// is set (`Ended::Interrupted`). Peak memory is `ru_maxrss` from `wait4`.
pub fn supervise(
    mut cmd: Command,
    hard_limit: Option<Duration>,
    interrupt: &AtomicBool,
) -> io::Result<ChildRun> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let pid = child.id() as libc::pid_t;
    let out = child
        .stdout
        .take()
        .map(|p| std::thread::spawn(|| read_capped(p)));
    let err = child
        .stderr
        .take()
        .map(|p| std::thread::spawn(|| read_capped(p)));
    let mut delay = Duration::from_millis(1);
    let mut forced = None;
    let (status, usage) = loop {
        if let Some(done) = wait_pid(pid, false)? {
            break done;
        }
        let why = if interrupt.load(Ordering::Relaxed) {
            Some(Ended::Interrupted)
        } else if hard_limit.is_some_and(|h| start.elapsed() >= h) {
            Some(Ended::KilledAtLimit)
        } else {
            None
        };
        if let Some(why) = why {
            kill_group(pid);
            forced = Some(why);
            if let Some(done) = wait_pid(pid, true)? {
                break done;
            }
        }
        std::thread::sleep(delay);
        delay = (delay * 2).min(Duration::from_millis(25));
    };
    let wall = start.elapsed();
    let ended = forced.unwrap_or(if libc::WIFEXITED(status) {
        Ended::Exited(libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        Ended::Signaled(libc::WTERMSIG(status))
    } else {
        Ended::Exited(-1)
    });
    // The child is reaped; std's handle must not wait for it again (dropping it does not).
    drop(child);
    let stdout = out.and_then(|t| t.join().ok()).unwrap_or_default();
    let stderr = err.and_then(|t| t.join().ok()).unwrap_or_default();
    // ru_maxrss is in KiB on Linux.
    let peak_bytes = u64::try_from(usage.ru_maxrss)
        .ok()
        .filter(|&k| k > 0)
        .map(|k| k * 1024);
    Ok(ChildRun {
        ended,
        stdout,
        stderr,
        wall,
        peak_bytes,
    })
}
