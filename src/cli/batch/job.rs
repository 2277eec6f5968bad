//! One (net, mode) pair to its row, and many on a pool of threads: the built-in modes run
//! `unfold` itself, whose flags, exit codes and JSON keys this module knows (the examination
//! modes are [`super::examination`]'s).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

use super::discover::NetFile;
use super::examination::examination_run;
use super::external::external_row;
use super::formula::{Answers, FormulaRow};
use super::row::{Figures, Mode, Row, Status};
use super::supervise::{ChildRun, Ended, KILL_GRACE, supervise};

/// Settings shared by every run of a batch.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The `unfold` binary run for the built-in modes (usually `std::env::current_exe()`).
    pub exe: PathBuf,
    /// Passed as `--timeout` to `unfold`; external tools are killed when it passes, `unfold`
    /// children [`KILL_GRACE`] later.
    pub timeout: Option<Duration>,
    /// Passed as `--mem-limit` (bytes) to `unfold`.
    pub mem_limit: Option<u64>,
    /// A folder for converted nets (`{pep}` of a PNML net, `{pnml}` of a PEP net).
    pub work_dir: PathBuf,
    /// The contest's known answers (`--answers`): the examination modes take the formula ids
    /// of an instance from it when its formula file does not load.
    pub answers: Option<Arc<Answers>>,
}

/// A finished run: its row and, for an examination mode, one row per formula.
#[derive(Clone, Debug)]
pub struct Finished {
    /// The run's row.
    pub row: Row,
    /// The formula rows (empty for the other modes).
    pub formulas: Vec<FormulaRow>,
}

/// One run to do.
#[derive(Clone, Debug)]
pub struct Job {
    /// The net.
    pub net: NetFile,
    /// The mode.
    pub mode: Mode,
}

pub(super) fn first_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let line = line.strip_prefix("error: ").unwrap_or(line);
    line.chars().take(500).collect()
}

/// The panic line of a Rust child's standard error, else its first line.
pub(super) fn failure_line(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    text.lines()
        .find(|l| l.contains("panicked"))
        .map(|l| l.trim().chars().take(500).collect())
        .unwrap_or_else(|| first_line(stderr))
}

fn json_of(stdout: &[u8]) -> Option<Value> {
    if let Ok(v) = serde_json::from_slice::<Value>(stdout) {
        return Some(v);
    }
    // Tolerate text before the object.
    let start = stdout.iter().position(|&b| b == b'{')?;
    serde_json::from_slice(&stdout[start..]).ok()
}

/// The figures of unfold's `--json` statistics.
pub fn figures_of_json(j: &Value) -> Figures {
    let n = |k: &str| j.get(k).and_then(Value::as_u64);
    Figures {
        states: n("states"),
        edges: n("edges"),
        deadlocks: n("deadlocks"),
        assertion_failures: n("assertion_failures"),
        events: n("events"),
        cutoffs: n("cutoffs"),
        conditions: n("conditions"),
        histories: n("histories"),
        maximal_configurations: n("maximal_configurations"),
        executions: n("executions"),
    }
}

pub(super) fn secs_arg(d: Duration) -> String {
    format!("{}", d.as_secs_f64())
}

fn builtin_command(mode: &Mode, file: &Path, opts: &RunOptions) -> Command {
    let mut cmd = Command::new(&opts.exe);
    match mode {
        Mode::Dpor => cmd.arg("run").arg(file).arg("--cutoffs"),
        // The prefix's own answer, so that its row agrees with the dpor and reach rows.
        Mode::Prefix => cmd.arg("prefix").arg(file).arg("--deadlock"),
        Mode::Edpor => cmd.arg("edpor").arg(file),
        _ => cmd.arg("reach").arg(file),
    };
    cmd.args(["--json", "-", "-q", "--no-fail"]);
    if let Some(t) = opts.timeout {
        cmd.arg("--timeout").arg(secs_arg(t));
    }
    if let Some(m) = opts.mem_limit {
        cmd.arg("--mem-limit").arg(m.to_string());
    }
    cmd
}

/// The row of a built-in mode from its child's end.
fn builtin_row(mut row: Row, run: &ChildRun) -> Row {
    let json = json_of(&run.stdout);
    if let Some(j) = &json {
        row.figures = figures_of_json(j);
        row.complete = j.get("complete").and_then(Value::as_bool);
    }
    match run.ended {
        Ended::Exited(code) => {
            row.exit_code = Some(code);
            row.status = match code {
                0 | 1 => {
                    let found = code == 1
                        || row.figures.deadlocks.is_some_and(|d| d > 0)
                        || json
                            .as_ref()
                            .and_then(|j| j.get("deadlock"))
                            .and_then(Value::as_bool)
                            == Some(true);
                    let failed = row.figures.assertion_failures.is_some_and(|n| n > 0);
                    if json.is_none() {
                        row.message = "no JSON statistics on standard output".into();
                        Status::Error
                    } else if failed {
                        Status::Assertion
                    } else if found {
                        Status::Deadlock
                    } else {
                        Status::Ok
                    }
                }
                2 => {
                    row.message = first_line(&run.stderr);
                    Status::Refused
                }
                // A failed assertion found is one whether or not the run finished.
                3 if row.figures.assertion_failures.is_some_and(|n| n > 0) => Status::Assertion,
                3 => {
                    let stopped = json
                        .as_ref()
                        .and_then(|j| j.get("stopped"))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    match stopped {
                        "timeout" => Status::Timeout,
                        "memory_limit" => Status::Memory,
                        other => {
                            row.message = if other.is_empty() {
                                "stopped incomplete (depth limit)".into()
                            } else {
                                format!("stopped: {other}")
                            };
                            Status::Error
                        }
                    }
                }
                101 => {
                    row.message = failure_line(&run.stderr);
                    Status::Crash
                }
                _ => {
                    row.message = failure_line(&run.stderr);
                    Status::Error
                }
            };
        }
        Ended::Signaled(sig) => {
            row.status = Status::Crash;
            row.message = format!("killed by signal {sig}");
        }
        Ended::KilledAtLimit => {
            row.status = Status::Timeout;
            row.message = "killed at the batch's hard time limit".into();
        }
        Ended::Interrupted => {}
    }
    row
}

/// Runs one job to its rows; `None` when the batch was interrupted meanwhile (the run is then
/// simply absent from the results).
pub fn run_job(job: &Job, opts: &RunOptions, interrupt: &AtomicBool) -> Option<Finished> {
    if interrupt.load(Ordering::Relaxed) {
        return None;
    }
    let row = Row {
        net: job.net.name.clone(),
        mode: job.mode.name().to_string(),
        file: job.net.path.display().to_string(),
        ..Row::default()
    };
    let row = match &job.mode {
        Mode::External { template, .. } => external_row(row, template, job, opts, interrupt),
        Mode::Examination(exam) => return examination_run(row, *exam, job, opts, interrupt),
        _ => builtin_run(row, job, opts, interrupt),
    }?;
    Some(Finished {
        row,
        formulas: Vec::new(),
    })
}

/// Runs a built-in mode to its row; `None` when the batch was interrupted meanwhile.
fn builtin_run(row: Row, job: &Job, opts: &RunOptions, interrupt: &AtomicBool) -> Option<Row> {
    let cmd = builtin_command(&job.mode, &job.net.path, opts);
    let hard = opts.timeout.map(|t| t.saturating_add(KILL_GRACE));
    match supervise(cmd, hard, interrupt) {
        Ok(run) if run.ended == Ended::Interrupted => None,
        Ok(run) => {
            let mut row = builtin_row(row, &run);
            row.wall_s = run.wall.as_secs_f64();
            row.peak_mb = run.peak_bytes.map(|b| b as f64 / (1u64 << 20) as f64);
            Some(row)
        }
        Err(e) => Some(Row {
            status: Status::Error,
            message: format!("cannot start {}: {e}", opts.exe.display()),
            ..row
        }),
    }
}

/// Runs `jobs` on `workers` threads; `on_row` sees each run as soon as it is finished, on the
/// calling thread. Returns whether every job ran (false when `interrupt` stopped the batch).
pub fn run_jobs(
    jobs: &[Job],
    opts: &RunOptions,
    workers: usize,
    interrupt: &AtomicBool,
    mut on_row: impl FnMut(Finished),
) -> bool {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        // No more threads than jobs: `--jobs` may be any number.
        for _ in 0..workers.clamp(1, jobs.len().max(1)) {
            let tx = tx.clone();
            let (next, done) = (&next, &done);
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(i) else { break };
                    match run_job(job, opts, interrupt) {
                        Some(row) => {
                            done.fetch_add(1, Ordering::SeqCst);
                            if tx.send(row).is_err() {
                                break;
                            }
                        }
                        None => break,
                    }
                }
            });
        }
        drop(tx);
        for row in rx {
            on_row(row);
        }
    });
    done.load(Ordering::SeqCst) == jobs.len()
}
