//! Batch runner: runs unfold's modes (and other tools) over whole benchmark suites, each run a
//! supervised child process, one CSV row per run.
//!
//! The pieces, each usable alone: [`discover`] finds the nets under files and folders,
//! [`supervise`] runs one child process with a hard wall-clock limit and measures its wall time
//! and peak memory, [`run_job`] turns one (net, mode) pair into a [`Row`], [`run_jobs`] runs many
//! on a pool of threads, and the CSV helpers ([`csv_line`], [`parse_csv`]) write and read rows so
//! that an interrupted batch can be resumed. [`parse_tool_output`] recognises the statistics lines
//! of Cunf, Mole and Punf-like tools.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

/// Extra wall-clock time a child `unfold` gets past its own `--timeout` before it is killed.
pub const KILL_GRACE: Duration = Duration::from_secs(10);

/// One net found by [`discover`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct NetFile {
    /// The name used in rows: the path relative to the searched folder without extension, or
    /// the folder name for the MCC layout `MODEL/model.pnml`.
    pub name: String,
    /// The file.
    pub path: PathBuf,
}

fn is_net_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".pnml") || name.ends_with(".ll_net")
}

/// Whether `path` names a `.tsys` program (run by `dpor` and `edpor`, not by the net modes).
pub fn is_program_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "tsys")
}

fn strip_net_ext(s: &str) -> &str {
    s.strip_suffix(".pnml")
        .or_else(|| s.strip_suffix(".ll_net"))
        .unwrap_or(s)
}

/// The row name of `path`, relative to `root` (a searched folder) when given.
fn net_name(path: &Path, root: Option<&Path>) -> String {
    let rel = root
        .and_then(|r| path.strip_prefix(r).ok())
        .filter(|r| !r.as_os_str().is_empty())
        .unwrap_or(path);
    // The MCC layout: MODEL/model.pnml is named MODEL (its path below the root, if any).
    if rel.file_name().and_then(|n| n.to_str()) == Some("model.pnml") {
        let folder = if root.is_some() {
            rel.parent().filter(|p| !p.as_os_str().is_empty())
        } else {
            None
        }
        .or_else(|| path.parent().and_then(|p| p.file_name()).map(Path::new));
        if let Some(folder) = folder {
            return folder.to_string_lossy().into_owned();
        }
    }
    let rel = if root.is_some() {
        rel
    } else {
        Path::new(rel.file_name().unwrap_or(rel.as_os_str()))
    };
    strip_net_ext(&rel.to_string_lossy()).to_string()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<io::Result<_>>()?;
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            walk(&path, out)?;
        } else if is_net_file(&path) || is_program_file(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// Finds the nets named by `paths`: files are taken as they are, folders are searched
/// recursively for `*.pnml`, `*.ll_net` and `*.tsys` programs (hidden entries skipped). The result is sorted by
/// name (then path) and has unique names: where two nets would share a name, both are named by
/// their full path.
pub fn discover(paths: &[PathBuf]) -> io::Result<Vec<NetFile>> {
    let mut nets = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?;
        if meta.is_dir() {
            let mut files = Vec::new();
            walk(p, &mut files)?;
            for f in files {
                let name = net_name(&f, Some(p));
                nets.push(NetFile { name, path: f });
            }
        } else {
            nets.push(NetFile {
                name: net_name(p, None),
                path: p.clone(),
            });
        }
    }
    nets.sort();
    nets.dedup_by(|a, b| a.path == b.path);
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for n in &nets {
        *count.entry(n.name.clone()).or_default() += 1;
    }
    for n in &mut nets {
        if count[&n.name] > 1 {
            n.name = n.path.display().to_string();
        }
    }
    nets.sort();
    Ok(nets)
}

/// What one run does with a net.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `unfold run FILE --cutoffs`: the unfolding DPOR with cutoffs.
    Dpor,
    /// `unfold prefix FILE`: the complete finite prefix.
    Prefix,
    /// `unfold reach FILE`: explicit-state reachability.
    Reach,
    /// `unfold edpor FILE`: Event-DPOR (`.tsys` programs only).
    Edpor,
    /// Another tool: `sh -c TEMPLATE` with `{pnml}`, `{pep}` and `{file}` substituted, and
    /// `{mci}` by a fresh path whose `.mci` prefix, when the tool writes one, gives the sizes.
    External {
        /// The mode's name in rows.
        name: String,
        /// The command template.
        template: String,
    },
}

impl Mode {
    /// The mode's name in rows.
    pub fn name(&self) -> &str {
        match self {
            Mode::Dpor => "dpor",
            Mode::Prefix => "prefix",
            Mode::Reach => "reach",
            Mode::Edpor => "edpor",
            Mode::External { name, .. } => name,
        }
    }

    /// Parses a built-in mode name.
    pub fn builtin(name: &str) -> Option<Mode> {
        match name.trim() {
            "dpor" | "run" | "udpor" => Some(Mode::Dpor),
            "prefix" => Some(Mode::Prefix),
            "reach" => Some(Mode::Reach),
            "edpor" => Some(Mode::Edpor),
            _ => None,
        }
    }

    /// Whether the mode runs on `path`: `edpor` on programs only, `dpor` on both, the others
    /// (prefix, reach, external tools) on nets only.
    pub fn applies_to(&self, path: &Path) -> bool {
        match self {
            Mode::Dpor => true,
            Mode::Edpor => is_program_file(path),
            _ => !is_program_file(path),
        }
    }

    /// Parses `NAME=COMMAND` (an `--external` argument).
    pub fn external(spec: &str) -> Result<Mode, String> {
        let (name, template) = spec
            .split_once('=')
            .ok_or_else(|| format!("'{spec}' is not NAME='COMMAND {{pep}}'"))?;
        let name = name.trim();
        if name.is_empty() || name.contains([',', '"', '\n']) {
            return Err(format!("'{name}' is not a usable tool name"));
        }
        if Mode::builtin(name).is_some() {
            return Err(format!("'{name}' is the name of a built-in mode"));
        }
        if !["{pnml}", "{pep}", "{file}"]
            .iter()
            .any(|k| template.contains(k))
        {
            return Err(format!(
                "the command of '{name}' names no net: use {{pnml}}, {{pep}} or {{file}}"
            ));
        }
        Ok(Mode::External {
            name: name.to_string(),
            template: template.to_string(),
        })
    }
}

/// How a run ended, as written in the `status` column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Finished, no deadlock found.
    #[default]
    Ok,
    /// Finished, a deadlock found.
    Deadlock,
    /// Stopped by the time limit (its own or the batch's hard kill).
    Timeout,
    /// Stopped by the memory limit.
    Memory,
    /// Failed otherwise (unexpected exit code, unreadable output, cannot start).
    Error,
    /// Killed by a signal or panicked.
    Crash,
    /// Refused the input (exit 2: coloured net, non-safe net for `prefix`, parse error).
    Refused,
}

impl Status {
    /// All statuses.
    pub const ALL: [Status; 7] = [
        Status::Ok,
        Status::Deadlock,
        Status::Timeout,
        Status::Memory,
        Status::Error,
        Status::Crash,
        Status::Refused,
    ];

    /// The name in the CSV.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Deadlock => "deadlock",
            Status::Timeout => "timeout",
            Status::Memory => "memory",
            Status::Error => "error",
            Status::Crash => "crash",
            Status::Refused => "refused",
        }
    }

    /// Parses a CSV name.
    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|st| st.as_str() == s.trim())
    }

    /// Whether the run answered (finished with or without a deadlock).
    pub fn solved(self) -> bool {
        matches!(self, Status::Ok | Status::Deadlock)
    }
}

/// The figures a run reports; `None` where the mode has no such figure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Figures {
    /// Reachable states.
    pub states: Option<u64>,
    /// Reachability-graph edges.
    pub edges: Option<u64>,
    /// Deadlocks found.
    pub deadlocks: Option<u64>,
    /// Events (cutoffs included).
    pub events: Option<u64>,
    /// Cutoff events.
    pub cutoffs: Option<u64>,
    /// Conditions of a prefix.
    pub conditions: Option<u64>,
    /// Histories (contextual unfoldings, Cunf).
    pub histories: Option<u64>,
    /// Maximal configurations explored (DPOR).
    pub maximal_configurations: Option<u64>,
    /// Executions explored (Event-DPOR).
    pub executions: Option<u64>,
}

/// One run: a CSV row.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Row {
    /// The net's name (see [`NetFile::name`]).
    pub net: String,
    /// The mode's name.
    pub mode: String,
    /// How the run ended.
    pub status: Status,
    /// The child's exit code; `None` when killed by a signal or never started.
    pub exit_code: Option<i32>,
    /// Wall-clock seconds.
    pub wall_s: f64,
    /// Peak resident memory of the child (and its waited-for descendants) in MiB.
    pub peak_mb: Option<f64>,
    /// The run's figures.
    #[serde(flatten)]
    pub figures: Figures,
    /// Whether the run covered everything (`complete` of unfold's JSON).
    pub complete: Option<bool>,
    /// The net's file.
    pub file: String,
    /// For failures: the first line of the child's standard error (or why it failed).
    pub message: String,
}

/// The CSV columns, in order.
pub const COLUMNS: [&str; 18] = [
    "net",
    "mode",
    "status",
    "exit_code",
    "wall_s",
    "peak_mb",
    "states",
    "edges",
    "deadlocks",
    "events",
    "cutoffs",
    "conditions",
    "histories",
    "maximal_configurations",
    "executions",
    "complete",
    "file",
    "message",
];

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

impl Row {
    /// The row's fields in [`COLUMNS`] order.
    pub fn record(&self) -> Vec<String> {
        let f = &self.figures;
        vec![
            self.net.clone(),
            self.mode.clone(),
            self.status.as_str().to_string(),
            opt(self.exit_code),
            format!("{:.3}", self.wall_s),
            opt(self.peak_mb.map(|m| format!("{m:.1}"))),
            opt(f.states),
            opt(f.edges),
            opt(f.deadlocks),
            opt(f.events),
            opt(f.cutoffs),
            opt(f.conditions),
            opt(f.histories),
            opt(f.maximal_configurations),
            opt(f.executions),
            opt(self.complete),
            self.file.clone(),
            self.message.clone(),
        ]
    }

    /// Reads a row back from CSV fields named by `header`; `None` when `net`, `mode` or
    /// `status` is missing or unreadable.
    pub fn from_record(header: &[String], fields: &[String]) -> Option<Row> {
        let get = |name: &str| -> &str {
            header
                .iter()
                .position(|h| h == name)
                .and_then(|i| fields.get(i))
                .map_or("", |s| s.as_str())
        };
        let num = |name: &str| get(name).parse::<u64>().ok();
        let row = Row {
            net: get("net").to_string(),
            mode: get("mode").to_string(),
            status: Status::parse(get("status"))?,
            exit_code: get("exit_code").parse().ok(),
            wall_s: get("wall_s").parse().unwrap_or(0.0),
            peak_mb: get("peak_mb").parse().ok(),
            figures: Figures {
                states: num("states"),
                edges: num("edges"),
                deadlocks: num("deadlocks"),
                events: num("events"),
                cutoffs: num("cutoffs"),
                conditions: num("conditions"),
                histories: num("histories"),
                maximal_configurations: num("maximal_configurations"),
                executions: num("executions"),
            },
            complete: get("complete").parse().ok(),
            file: get("file").to_string(),
            message: get("message").to_string(),
        };
        (!row.net.is_empty() && !row.mode.is_empty()).then_some(row)
    }
}

/// One CSV line (with its `\n`): fields quoted where they hold a comma, quote or line break.
pub fn csv_line<S: AsRef<str>>(fields: &[S]) -> String {
    let mut line = String::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        let f = f.as_ref();
        if f.contains([',', '"', '\n', '\r']) {
            line.push('"');
            line.push_str(&f.replace('"', "\"\""));
            line.push('"');
        } else {
            line.push_str(f);
        }
    }
    line.push('\n');
    line
}

/// Parses CSV text (RFC 4180: quoted fields, doubled quotes, CRLF or LF). An unterminated last
/// line (no final line break) is left out: it is a row whose writing was cut short.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    field.push('"');
                } else {
                    quoted = false;
                }
            } else {
                field.push(c);
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            ',' => record.push(std::mem::take(&mut field)),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            c => field.push(c),
        }
    }
    records
}

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
}

/// One run to do.
#[derive(Clone, Debug)]
pub struct Job {
    /// The net.
    pub net: NetFile,
    /// The mode.
    pub mode: Mode,
}

fn first_line(bytes: &[u8]) -> String {
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
fn failure_line(stderr: &[u8]) -> String {
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
        events: n("events"),
        cutoffs: n("cutoffs"),
        conditions: n("conditions"),
        histories: n("histories"),
        maximal_configurations: n("maximal_configurations"),
        executions: n("executions"),
    }
}

fn secs_arg(d: Duration) -> String {
    format!("{}", d.as_secs_f64())
}

fn builtin_command(mode: &Mode, file: &Path, opts: &RunOptions) -> Command {
    let mut cmd = Command::new(&opts.exe);
    match mode {
        Mode::Dpor => cmd.arg("run").arg(file).arg("--cutoffs"),
        Mode::Prefix => cmd.arg("prefix").arg(file),
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
                    if json.is_none() {
                        row.message = "no JSON statistics on standard output".into();
                        Status::Error
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

/// Quotes `s` for `sh`.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn is_pep(path: &Path) -> bool {
    path.to_string_lossy().ends_with(".ll_net")
}

/// Converts `net` with `unfold convert` into `dir`; the error is the row's message.
fn convert(
    net: &Path,
    to_pep: bool,
    dir: &Path,
    tag: usize,
    opts: &RunOptions,
    interrupt: &AtomicBool,
) -> Result<PathBuf, (Status, String)> {
    let stem = net
        .file_name()
        .map(|n| strip_net_ext(&n.to_string_lossy()).to_string())
        .unwrap_or_else(|| "net".into());
    let out = dir.join(format!(
        "{tag}-{stem}.{}",
        if to_pep { "ll_net" } else { "pnml" }
    ));
    let mut cmd = Command::new(&opts.exe);
    cmd.arg("convert").arg(net).arg(&out);
    let run = supervise(cmd, opts.timeout, interrupt)
        .map_err(|e| (Status::Error, format!("cannot run unfold convert: {e}")))?;
    match run.ended {
        Ended::Exited(0) => Ok(out),
        Ended::Exited(2) => Err((
            Status::Refused,
            format!("convert: {}", first_line(&run.stderr)),
        )),
        other => Err((Status::Error, format!("convert ended: {other:?}"))),
    }
}

static JOB_TAG: AtomicUsize = AtomicUsize::new(0);

/// Fills the placeholders `{key}` of `template` in one pass (a value is never searched for
/// further placeholders); unknown `{...}` are left as they are.
pub fn fill_template(template: &str, values: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    'scan: while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        for (key, value) in values {
            if let Some(after) = rest.strip_prefix(key) {
                out.push_str(value);
                rest = after;
                continue 'scan;
            }
        }
        out.push('{');
        rest = &rest[1..];
    }
    out.push_str(rest);
    out
}

fn external_row(
    mut row: Row,
    template: &str,
    job: &Job,
    opts: &RunOptions,
    interrupt: &AtomicBool,
) -> Option<Row> {
    let tag = JOB_TAG.fetch_add(1, Ordering::Relaxed);
    let file = job.net.path.as_path();
    let mut temps = Vec::new();
    let mut values = vec![("{file}", shell_quote(&file.to_string_lossy()))];
    for (key, want_pep) in [("{pep}", true), ("{pnml}", false)] {
        if !template.contains(key) {
            continue;
        }
        let path = if is_pep(file) == want_pep {
            file.to_path_buf()
        } else {
            let _ = std::fs::create_dir_all(&opts.work_dir);
            match convert(file, want_pep, &opts.work_dir, tag, opts, interrupt) {
                Ok(p) => {
                    temps.push(p.clone());
                    p
                }
                Err((status, message)) => {
                    if interrupt.load(Ordering::Relaxed) {
                        return None;
                    }
                    row.status = status;
                    row.message = message;
                    return Some(row);
                }
            }
        };
        values.push((key, shell_quote(&path.to_string_lossy())));
    }
    // `{mci}`: a fresh path for the prefix the tool writes; its sizes are read after the run.
    let mci = template.contains("{mci}").then(|| {
        let _ = std::fs::create_dir_all(&opts.work_dir);
        let path = opts.work_dir.join(format!("{tag}.mci"));
        let _ = std::fs::remove_file(&path);
        path
    });
    if let Some(path) = &mci {
        values.push(("{mci}", shell_quote(&path.to_string_lossy())));
        temps.push(path.clone());
    }
    let command = fill_template(template, &values);
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(&command);
    let result = supervise(cmd, opts.timeout, interrupt);
    let prefix_sizes = match (&result, &mci) {
        (Ok(run), Some(path)) if run.ended == Ended::Exited(0) => Some(mci_sizes(path)),
        _ => None,
    };
    for t in temps {
        let _ = std::fs::remove_file(t);
    }
    let run = match result {
        Ok(run) => run,
        Err(e) => {
            row.status = Status::Error;
            row.message = format!("cannot start sh: {e}");
            return Some(row);
        }
    };
    if run.ended == Ended::Interrupted {
        return None;
    }
    row.wall_s = run.wall.as_secs_f64();
    row.peak_mb = run.peak_bytes.map(|b| b as f64 / (1u64 << 20) as f64);
    let mut text = String::from_utf8_lossy(&run.stdout).into_owned();
    text.push('\n');
    text.push_str(&String::from_utf8_lossy(&run.stderr));
    row.figures = parse_tool_output(&text);
    match run.ended {
        Ended::Exited(code) => {
            row.exit_code = Some(code);
            if code == 0 {
                row.status = Status::Ok;
            } else if (129..=159).contains(&code) {
                // The shell's report of a command killed by signal `code - 128`.
                row.status = Status::Crash;
                row.message = format!("killed by signal {}", code - 128);
            } else {
                row.status = Status::Error;
                let line = first_line(&run.stderr);
                row.message = if line.is_empty() {
                    format!("exit code {code}")
                } else {
                    line
                };
            }
        }
        Ended::Signaled(sig) => {
            row.status = Status::Crash;
            row.message = format!("killed by signal {sig}");
        }
        Ended::KilledAtLimit => {
            row.status = Status::Timeout;
            row.message = "killed at the time limit".into();
        }
        Ended::Interrupted => return None,
    }
    match prefix_sizes {
        Some(Ok((events, conditions, cutoffs))) => {
            row.figures.events = Some(events);
            row.figures.conditions = Some(conditions);
            row.figures.cutoffs = Some(cutoffs);
        }
        Some(Err(message)) => {
            row.status = Status::Error;
            row.message = message;
        }
        None => {}
    }
    Some(row)
}

/// Events (cutoffs included), conditions and cutoffs of the `.mci` file a tool wrote at `path`;
/// the error is the row's message.
fn mci_sizes(path: &Path) -> Result<(u64, u64, u64), String> {
    if !path.exists() {
        return Err("the tool exited 0 but wrote no .mci file at {mci}".into());
    }
    let m = crate::formats::mci::read_mci(path).map_err(|e| e.to_string())?;
    Ok((
        m.event_count() as u64,
        m.condition_count() as u64,
        m.cutoff_count() as u64,
    ))
}

/// Runs one job to its row; `None` when the batch was interrupted meanwhile (the run is then
/// simply absent from the results).
pub fn run_job(job: &Job, opts: &RunOptions, interrupt: &AtomicBool) -> Option<Row> {
    if interrupt.load(Ordering::Relaxed) {
        return None;
    }
    let row = Row {
        net: job.net.name.clone(),
        mode: job.mode.name().to_string(),
        file: job.net.path.display().to_string(),
        ..Row::default()
    };
    if let Mode::External { template, .. } = &job.mode {
        return external_row(row, template, job, opts, interrupt);
    }
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

/// Runs `jobs` on `workers` threads; `on_row` sees each row as soon as it is finished, on the
/// calling thread. Returns whether every job ran (false when `interrupt` stopped the batch).
pub fn run_jobs(
    jobs: &[Job],
    opts: &RunOptions,
    workers: usize,
    interrupt: &AtomicBool,
    mut on_row: impl FnMut(Row),
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

#[derive(Debug, PartialEq)]
enum Tok {
    Word(String),
    Num(u64),
    Open,
    Close,
    Sep,
}

fn tokens(line: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_alphabetic() {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '-')
            {
                i += 1;
            }
            let w: String = chars[start..i].iter().collect();
            out.push(Tok::Word(w.to_ascii_lowercase()));
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            // A decimal fraction (a time, a ratio) is no count.
            if i + 1 < chars.len() && chars[i] == '.' && chars[i + 1].is_ascii_digit() {
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                    i += 1;
                }
                out.push(Tok::Sep);
                continue;
            }
            match digits.parse() {
                Ok(n) => out.push(Tok::Num(n)),
                Err(_) => out.push(Tok::Sep),
            }
            continue;
        }
        match c {
            '(' | '[' => out.push(Tok::Open),
            ')' | ']' => out.push(Tok::Close),
            // Separators inside "key: value", "key = value", "|E|=11", "#events 11".
            ' ' | '\t' | ':' | '=' | '|' | '#' => {}
            _ => out.push(Tok::Sep),
        }
        i += 1;
    }
    out
}

fn key_of(words: &[&str]) -> Option<&'static str> {
    let mut phrase: String = words.concat();
    phrase.retain(|c| c != '-' && c != '_');
    for prefix in ["numberof", "noof", "nrof", "total", "all"] {
        if let Some(rest) = phrase.strip_prefix(prefix)
            && !rest.is_empty()
        {
            phrase = rest.to_string();
        }
    }
    Some(match phrase.as_str() {
        "events" | "event" | "e" | "ev" => "events",
        "conditions" | "condition" | "cond" | "conds" | "b" => "conditions",
        "cutoffs" | "cutoff" | "cutoffevents" | "cutoffevent" | "ecut" | "cutoffhistories"
        | "cut" => "cutoffs",
        "histories" | "history" | "hist" => "histories",
        "states" | "markings" | "reachablestates" | "reachablemarkings" => "states",
        _ => return None,
    })
}

/// Whether `word` in front of a count's name makes it another count: Cunf's "white events",
/// "generating cond.", our "non-cutoff events", "queued events" of progress lines.
fn qualifies(word: &str) -> bool {
    matches!(
        word,
        "non"
            | "noncutoff"
            | "non-cutoff"
            | "white"
            | "gray"
            | "grey"
            | "black"
            | "generating"
            | "reading"
            | "compound"
            | "queued"
            | "pending"
            | "possible"
            | "max"
            | "avg"
            | "mean"
            | "average"
    )
}

/// Words right before token `i` (skipping one parenthesised group), nearest last.
fn words_before(toks: &[Tok], i: usize) -> Vec<&str> {
    let mut j = i;
    if j > 0 && toks[j - 1] == Tok::Close {
        while j > 0 && toks[j - 1] != Tok::Open {
            j -= 1;
        }
        j = j.saturating_sub(1);
    }
    let mut words = Vec::new();
    while j > 0 && words.len() < 3 {
        match &toks[j - 1] {
            Tok::Word(w) => words.push(w.as_str()),
            _ => break,
        }
        j -= 1;
    }
    words.reverse();
    words
}

fn words_after(toks: &[Tok], i: usize) -> Vec<&str> {
    toks[i + 1..]
        .iter()
        .map_while(|t| match t {
            Tok::Word(w) => Some(w.as_str()),
            _ => None,
        })
        .take(3)
        .collect()
}

/// Recognises the statistics lines of unfolding tools in their output and returns the counts
/// found: Cunf's tab-separated `events 11` / `cond 20` / `cutoffs 3` / `hist 11`, Punf-like
/// `|E|=11, |E_cut|=3, |B|=20`, and prose like `11 events, 3 cut-off events, 20 conditions` or
/// `Number of events: 11`. Tolerant: unknown lines are skipped, fractions (times, ratios) are
/// never counts, and the last figure of a kind wins.
pub fn parse_tool_output(text: &str) -> Figures {
    let mut found: BTreeMap<&'static str, u64> = BTreeMap::new();
    for line in text.lines() {
        let toks = tokens(line);
        // Words already taken as the name of the number before them ("11 events 3 cutoffs").
        let mut taken_upto = 0;
        for (i, t) in toks.iter().enumerate() {
            let Tok::Num(n) = t else { continue };
            let before = if i > taken_upto {
                words_before(&toks, i)
            } else {
                Vec::new()
            };
            // The longest phrase ending right before the number, then the one right after. A
            // phrase with a qualifier in front ("white events", "non-cutoff events") counts
            // something else.
            let mut key = (0..before.len())
                .find_map(|s| key_of(&before[s..]).filter(|_| s == 0 || !qualifies(before[s - 1])));
            if key.is_none() {
                let after = words_after(&toks, i);
                if let Some(l) = (1..=after.len())
                    .rev()
                    .find(|&l| key_of(&after[..l]).is_some())
                {
                    key = key_of(&after[..l]);
                    taken_upto = i + l + 1;
                }
            }
            if let Some(k) = key {
                found.insert(k, *n);
            }
        }
    }
    Figures {
        states: found.get("states").copied(),
        events: found.get("events").copied(),
        cutoffs: found.get("cutoffs").copied(),
        conditions: found.get("conditions").copied(),
        histories: found.get("histories").copied(),
        ..Figures::default()
    }
}

/// The key figures of a row for the side-by-side table: states, events, conditions,
/// executions (or the status when the run did not answer).
pub fn key_figures(row: &Row) -> String {
    let f = &row.figures;
    let mut parts = Vec::new();
    if let Some(s) = f.states {
        parts.push(format!("{s} st"));
    }
    if let Some(e) = f.events {
        parts.push(format!("{e} ev"));
    }
    if let Some(c) = f.conditions {
        parts.push(format!("{c} cd"));
    }
    if let Some(x) = f.executions {
        parts.push(format!("{x} ex"));
    }
    let text = parts.join(" / ");
    if row.status.solved() && !text.is_empty() {
        if row.status == Status::Deadlock {
            format!("{text} (dl)")
        } else {
            text
        }
    } else if row.status.solved() || text.is_empty() {
        row.status.as_str().to_string()
    } else {
        format!("{} ({text})", row.status.as_str())
    }
}

/// The end-of-batch summary: per mode the runs, the runs solved and the total wall time, then
/// per net the key figures of every mode side by side. Modes appear in `modes` order.
pub fn summary(rows: &[Row], modes: &[String]) -> String {
    let mut out = String::new();
    let mut mode_order: Vec<String> = modes.to_vec();
    for r in rows {
        if !mode_order.contains(&r.mode) {
            mode_order.push(r.mode.clone());
        }
    }
    let _ = writeln!(
        out,
        "{:<12} {:>6} {:>7} {:>12}",
        "mode", "runs", "solved", "total time"
    );
    for m in &mode_order {
        let of_mode: Vec<&Row> = rows.iter().filter(|r| &r.mode == m).collect();
        if of_mode.is_empty() {
            continue;
        }
        let solved = of_mode.iter().filter(|r| r.status.solved()).count();
        let time: f64 = of_mode.iter().map(|r| r.wall_s).sum();
        let _ = writeln!(
            out,
            "{:<12} {:>6} {:>7} {:>11.2}s",
            m,
            of_mode.len(),
            solved,
            time
        );
    }
    let mut by_net: BTreeMap<&str, BTreeMap<&str, String>> = BTreeMap::new();
    for r in rows {
        by_net
            .entry(r.net.as_str())
            .or_default()
            .insert(r.mode.as_str(), key_figures(r));
    }
    let present: Vec<&String> = mode_order
        .iter()
        .filter(|m| rows.iter().any(|r| &r.mode == *m))
        .collect();
    let net_w = by_net.keys().map(|n| n.len()).max().unwrap_or(3).max(3);
    let widths: Vec<usize> = present
        .iter()
        .map(|m| {
            by_net
                .values()
                .filter_map(|v| v.get(m.as_str()).map(String::len))
                .max()
                .unwrap_or(0)
                .max(m.len())
        })
        .collect();
    out.push('\n');
    let _ = write!(out, "{:<net_w$}", "net");
    for (m, w) in present.iter().zip(&widths) {
        let _ = write!(out, "  {m:>w$}");
    }
    out.push('\n');
    for (net, cells) in &by_net {
        let _ = write!(out, "{net:<net_w$}");
        for (m, w) in present.iter().zip(&widths) {
            let cell = cells.get(m.as_str()).map_or("-", String::as_str);
            let _ = write!(out, "  {cell:>w$}");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trip() {
        let fields = ["a", "b,c", "say \"hi\"", "", "line\nbreak"];
        let line = csv_line(&fields);
        let parsed = parse_csv(&line);
        assert_eq!(parsed, vec![fields.map(String::from).to_vec()]);
        // A cut-short last line is dropped.
        let text = format!("{line}x,y");
        assert_eq!(parse_csv(&text).len(), 1);
    }

    #[test]
    fn row_round_trip() {
        let row = Row {
            net: "n".into(),
            mode: "reach".into(),
            status: Status::Deadlock,
            exit_code: Some(0),
            wall_s: 1.5,
            peak_mb: Some(12.5),
            figures: Figures {
                states: Some(10),
                deadlocks: Some(1),
                ..Figures::default()
            },
            complete: Some(true),
            file: "x, y.pnml".into(),
            message: String::new(),
        };
        let header: Vec<String> = COLUMNS.iter().map(|s| s.to_string()).collect();
        let parsed = parse_csv(&csv_line(&row.record()));
        assert_eq!(Row::from_record(&header, &parsed[0]), Some(row));
    }

    #[test]
    fn cunf_statistics() {
        let text = "time\t0.010\nmem\t1\nhist\t11\nevents\t11\ncond\t20\ngen\t11\n\
                    r(h)\t1.00\npre(e)\t1.73\ncutoffs\t3\newhite\t0\nnet\tdo_od.ll_net\n";
        let f = parse_tool_output(text);
        assert_eq!(f.events, Some(11));
        assert_eq!(f.conditions, Some(20));
        assert_eq!(f.cutoffs, Some(3));
        assert_eq!(f.histories, Some(11));
    }

    /// Cunf 1.6.1's `-i` statistics, as it printed them for pep/do_od.ll_net (11 events, 20
    /// conditions, 1 cutoff in ORACLES.tsv).
    #[test]
    fn cunf_1_6_statistics() {
        let text = "cpu time             : 0.001\nmax memory (rss)     : 5\n\
                    histories            : 11\nevents               : 11\n\
                    conditions           : 20\ngenerating cond.     : 18\n\
                    reading cond.        : 0\ncompound cond.       : 0\n\
                    vector r(h) [avg]    : 0.00\nvector co(r) [avg]   : 1.11\n\
                    pre-set(e) [avg]     : 0.00\ncutoffs              : 1\n\
                    white events         : 0\ngray events          : 0\n\
                    black events         : 0\nnet                  : do_od.ll_net\n";
        let f = parse_tool_output(text);
        assert_eq!(
            (f.events, f.conditions, f.cutoffs, f.histories),
            (Some(11), Some(20), Some(1), Some(11))
        );
        // Our own human report: "non-cutoff events" is not the events.
        let f = parse_tool_output("events  11\ncutoffs  1\nnon-cutoff events  10\n");
        assert_eq!((f.events, f.cutoffs), (Some(11), Some(1)));
    }

    #[test]
    fn templates_are_filled_once() {
        let values = [
            ("{pep}", "'a{mci}.ll_net'".to_string()),
            ("{mci}", "'o.mci'".into()),
        ];
        assert_eq!(
            fill_template("mole {pep} -m {mci} {x} {", &values),
            "mole 'a{mci}.ll_net' -m 'o.mci' {x} {"
        );
    }

    #[test]
    fn punf_and_mole_statistics() {
        let f = parse_tool_output("Prefix: |B|=20, |E|=11, |E_cut|=3\n");
        assert_eq!(
            (f.events, f.conditions, f.cutoffs),
            (Some(11), Some(20), Some(3))
        );
        let f = parse_tool_output(
            "mole 060323: dpd_7.ll_net\n1234 events, 56 cut-off events, 3000 conditions\n\
             Time: 0.52 s\n",
        );
        assert_eq!(
            (f.events, f.conditions, f.cutoffs),
            (Some(1234), Some(3000), Some(56))
        );
        let f = parse_tool_output("Number of events: 7 (2 cutoffs)\nConditions = 9\n");
        assert_eq!(
            (f.events, f.conditions, f.cutoffs),
            (Some(7), Some(9), Some(2))
        );
        let f = parse_tool_output("11 events 3 cutoffs 20 conditions\n");
        assert_eq!(
            (f.events, f.conditions, f.cutoffs),
            (Some(11), Some(20), Some(3))
        );
        let f = parse_tool_output("nothing to see: version 1.6, 2.5 s\n");
        assert_eq!(f, Figures::default());
    }

    #[test]
    fn names_of_nets() {
        let root = Path::new("/b");
        assert_eq!(net_name(Path::new("/b/x/y.ll_net"), Some(root)), "x/y");
        assert_eq!(
            net_name(Path::new("/b/Kanban/model.pnml"), Some(root)),
            "Kanban"
        );
        assert_eq!(net_name(Path::new("/b/Kanban/model.pnml"), None), "Kanban");
        assert_eq!(net_name(Path::new("/b/q.pnml"), None), "q");
    }

    #[test]
    fn external_specs() {
        assert!(Mode::external("cunf=cunf {pep}").is_ok());
        assert!(Mode::external("cunf").is_err());
        assert!(Mode::external("reach=x {pep}").is_err());
        assert!(Mode::external("t=echo hi").is_err());
    }
}
