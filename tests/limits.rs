//! `--timeout`, `--mem-limit`, SIGINT and SIGTERM in every mode, through the binary: the run
//! stops soon after its time limit on an input that would run far longer, below its memory
//! limit as measured from outside (`/usr/bin/time`'s peak resident set), prints its statistics
//! marked incomplete, and exits with 3.
//!
//! Peaks are measured by `/usr/bin/time` rather than by our own `wait4`: a child spawned from
//! this large, multi-threaded test process carries the test process's peak in its
//! `ru_maxrss` across `exec`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;

/// How long after its time limit a run may take to stop and report.
const SLACK: Duration = Duration::from_secs(2);

/// A binary choice tree of depth `n` as a PEP net: one token walks s0 → … → sn, each step by
/// `a_i` (marking x_i) or `b_i` (marking y_i), so that the 2^n runs reach 2^n distinct markings
/// and nothing is cut off: states, events and runs are all exponential in `n`. With `idle`,
/// sn has a self-loop and nothing deadlocks.
fn tree(n: usize, idle: bool) -> String {
    let s = |i: usize| i + 1;
    let x = |i: usize| n + 2 + i;
    let y = |i: usize| 2 * n + 2 + i;
    let mut out = String::from("PEP\nPTNet\nFORMAT_N2\nPL\n");
    for i in 0..=n {
        out += &format!("{}\"s{i}\"{}\n", s(i), if i == 0 { "M1" } else { "" });
    }
    for i in 0..n {
        out += &format!("{}\"x{i}\"\n", x(i));
    }
    for i in 0..n {
        out += &format!("{}\"y{i}\"\n", y(i));
    }
    out += "TR\n";
    for i in 0..n {
        out += &format!("{}\"a{i}\"\n{}\"b{i}\"\n", 2 * i + 1, 2 * i + 2);
    }
    if idle {
        out += &format!("{}\"idle\"\n", 2 * n + 1);
    }
    out += "TP\n";
    for i in 0..n {
        let (a, b) = (2 * i + 1, 2 * i + 2);
        out += &format!(
            "{a}<{}\n{a}<{}\n{b}<{}\n{b}<{}\n",
            s(i + 1),
            x(i),
            s(i + 1),
            y(i)
        );
    }
    if idle {
        out += &format!("{}<{}\n", 2 * n + 1, s(n));
    }
    out += "PT\n";
    for i in 0..n {
        out += &format!("{}>{}\n{}>{}\n", s(i), 2 * i + 1, s(i), 2 * i + 2);
    }
    if idle {
        out += &format!("{}>{}\n", s(n), 2 * n + 1);
    }
    out
}

/// A chain of `n` transitions in PNML (about 400 bytes per step): a large input.
fn big_pnml(n: usize) -> String {
    let mut out = String::with_capacity(n * 420);
    out += "<?xml version=\"1.0\"?>\n<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n\
            <net id=\"chain\" type=\"http://www.pnml.org/version-2009/grammar/ptnet\"><page id=\"g\">\n";
    for i in 0..=n {
        out += &format!(
            "<place id=\"p{i}\"><name><text>place number {i}</text></name>{}</place>\n",
            if i == 0 {
                "<initialMarking><text>1</text></initialMarking>"
            } else {
                ""
            }
        );
    }
    for i in 0..n {
        out += &format!(
            "<transition id=\"t{i}\"><name><text>transition number {i}</text></name></transition>\n\
             <arc id=\"i{i}\" source=\"p{i}\" target=\"t{i}\"/>\n\
             <arc id=\"o{i}\" source=\"t{i}\" target=\"p{}\"/>\n",
            i + 1
        );
    }
    out += "</page></net></pnml>\n";
    out
}

/// A chain of `n` transitions as a PEP net (about 40 bytes per step, 8 times as much model).
fn big_pep(n: usize) -> String {
    let mut out = String::with_capacity(n * 48);
    out += "PEP\nPTNet\nFORMAT_N2\nPL\n";
    for i in 0..=n {
        out += &format!("{}\"p{i}\"{}\n", i + 1, if i == 0 { "M1" } else { "" });
    }
    out += "TR\n";
    for i in 0..n {
        out += &format!("{}\"t{i}\"\n", i + 1);
    }
    out += "TP\n";
    for i in 0..n {
        out += &format!("{}<{}\n", i + 1, i + 2);
    }
    out += "PT\n";
    for i in 0..n {
        out += &format!("{}>{}\n", i + 1, i + 1);
    }
    out
}

fn write(dir: &Path, name: &str, content: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

/// How a child run ended, seen from outside.
struct Ended {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// From the start (or from the signal, when one was sent) to the end.
    wall: Duration,
    /// Peak resident set of the child (and of the children it waited for), when measured.
    peak_bytes: Option<u64>,
}

impl Ended {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "no JSON statistics ({e}); exit {:?}\nstdout: {}\nstderr: {}",
                self.code, self.stdout, self.stderr
            )
        })
    }

    /// Exit 3 and JSON statistics marked incomplete, stopped for `reason`.
    fn assert_stopped(&self, reason: &str) -> Value {
        assert_eq!(
            self.code,
            Some(3),
            "exit code; stdout: {}\nstderr: {}",
            self.stdout,
            self.stderr
        );
        let j = self.json();
        assert_eq!(j["complete"], Value::Bool(false), "{j}");
        assert_eq!(j["stopped"], reason, "{j}");
        j
    }
}

/// Runs `unfold ARGS FILE`, sending a signal after a while when asked, and times it. With
/// `peak`, the run goes through `/usr/bin/time`, which measures its peak memory.
fn run_with(
    args: &[&str],
    file: &Path,
    signal: Option<(libc::c_int, Duration)>,
    peak: bool,
) -> Ended {
    let bin = assert_cmd::cargo::cargo_bin("unfold");
    let measure = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = if peak {
        assert!(
            Path::new("/usr/bin/time").is_file(),
            "/usr/bin/time is missing (apt-get install time)"
        );
        let mut c = Command::new("/usr/bin/time");
        c.args(["-f", "%M", "-o"]).arg(measure.path()).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    cmd.args(args)
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut start = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let pid = child.id() as libc::pid_t;
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        out.read_to_string(&mut s).unwrap();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        err.read_to_string(&mut s).unwrap();
        s
    });
    if let Some((sig, after)) = signal {
        std::thread::sleep(after);
        start = Instant::now();
        // SAFETY: a plain system call on our own child, not reaped yet.
        unsafe {
            libc::kill(pid, sig);
        }
    }
    let status = child.wait().unwrap();
    let wall = start.elapsed();
    // `time` writes "Command exited with non-zero status N" first, the figure (KiB) last.
    let peak_bytes = peak.then(|| {
        let text = std::fs::read_to_string(measure.path()).unwrap();
        let kib: u64 = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or_else(|| panic!("no peak from /usr/bin/time: {text}"));
        kib * 1024
    });
    Ended {
        code: status.code(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        wall,
        peak_bytes,
    }
}

fn run(args: &[&str], file: &Path) -> Ended {
    run_with(args, file, None, false)
}

/// `unfold MODE… --timeout 1` stops within [`SLACK`] of the second, incomplete, exit 3.
fn stops_at_timeout(mode: &[&str], file: &Path) -> Value {
    let mut args = mode.to_vec();
    args.extend(["--timeout", "1", "--json", "-", "-q"]);
    let e = run(&args, file);
    let j = e.assert_stopped("timeout");
    assert!(
        e.wall < Duration::from_secs(1) + SLACK,
        "{mode:?} stopped {:?} after its start, time limit 1 s",
        e.wall
    );
    j
}

/// `unfold MODE… --mem-limit LIMIT` stops below the limit, incomplete, exit 3.
fn stops_below_memory(mode: &[&str], file: &Path, limit_mib: u64) -> (Ended, Value) {
    let limit = format!("{limit_mib}M");
    let mut args = mode.to_vec();
    args.extend([
        "--mem-limit",
        &limit,
        "--timeout",
        "60",
        "--json",
        "-",
        "-q",
    ]);
    let e = run_with(&args, file, None, true);
    let j = e.assert_stopped("memory_limit");
    let peak = e.peak_bytes.unwrap();
    assert!(
        peak < limit_mib << 20,
        "{mode:?} peaked at {} KiB, over its limit of {limit_mib} MiB",
        peak >> 10
    );
    (e, j)
}

/// The peak resident set of `unfold MODE… FILE` on `file`, a tiny input: the binary's own
/// footprint in that mode (its code paged in, the allocator's arenas, the report), about
/// 6 MiB for a release binary and 12 to 17 MiB for a debug one.
fn footprint(mode: &[&str], file: &Path) -> u64 {
    let mut args = mode.to_vec();
    args.extend(["--json", "-", "-q"]);
    run_with(&args, file, None, true).peak_bytes.unwrap()
}

/// The footprint up to which a binary is taken for a release one.
const RELEASE_FOOTPRINT: u64 = 10 << 20;

/// The memory limit (MiB) of a test written for a release binary, `release_mib`, for the
/// binary under test in `mode`: the same for a release binary; for a larger one (debug) its
/// footprint on a tiny input plus `headroom_mib`, what its explorers must fill to reach the
/// limit (a debug explorer is about ten times slower: a release limit would leave it running
/// into the time limit).
fn limit_for(mode: &[&str], release_mib: u64, headroom_mib: u64) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let tiny = write(dir.path(), "tiny.ll_net", &tree(2, true));
    let own = footprint(mode, &tiny);
    if own <= RELEASE_FOOTPRINT {
        release_mib
    } else {
        own.div_ceil(1 << 20) + headroom_mib
    }
}

fn tree_file(dir: &Path, idle: bool) -> PathBuf {
    write(
        dir,
        if idle {
            "tree-idle.ll_net"
        } else {
            "tree.ll_net"
        },
        &tree(40, idle),
    )
}

/// A `.tsys` program with far too many executions to finish: `n` threads each posting to one
/// handler a message that writes `x` and `y`, and writing `x` themselves.
fn busy_program(n: usize) -> String {
    let mut out = String::from("var x, y;\nhandler h;\n");
    for i in 0..n {
        out += &format!("thread t{i} {{ post h {{ x = {i}; y = {i}; }} x = {i}; }}\n");
    }
    out
}

/// A `.tsys` program whose one execution is four million steps long (three nested loops:
/// a loop bound is at most `unfold::formats::tsys::MAX_BOUND`).
fn long_program() -> String {
    "var x;\n\
     thread s { h = 0; while (h < 4) bound 4 { i = 0; while (i < 1000) bound 1000 { j = 0; \
     while (j < 1000) bound 1000 { x = j; j = j + 1; } i = i + 1; } h = h + 1; } }\n\
     thread t { a = x; }\n"
        .to_string()
}

#[test]
fn the_tree_family_is_what_it_claims() {
    // Depth 3: 2^3 maximal runs, 2 + 4 + 8 events, 1 + 2 + 4 + 8 markings (oracle: counted by
    // hand from the definition).
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "t3.ll_net", &tree(3, false));
    let j = run(&["check", "--brute", "--json", "-", "-q", "--no-fail"], &f).json();
    assert_eq!(
        (j["maximal_configurations"].as_u64(), j["events"].as_u64()),
        (Some(8), Some(14))
    );
    let f = write(dir.path(), "t3i.ll_net", &tree(3, true));
    let j = run(&["reach", "--json", "-", "-q"], &f).json();
    assert_eq!(
        (j["states"].as_u64(), j["deadlocks"].as_u64()),
        (Some(15), Some(0))
    );
}

// --- --timeout, per mode -------------------------------------------------------------------

#[test]
fn timeout_run() {
    let dir = tempfile::tempdir().unwrap();
    let j = stops_at_timeout(&["run", "--cutoffs"], &tree_file(dir.path(), true));
    assert!(
        j["events"].as_u64().unwrap() > 0,
        "no statistics so far: {j}"
    );
}

#[test]
fn timeout_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let j = stops_at_timeout(&["prefix"], &tree_file(dir.path(), true));
    assert!(
        j["events"].as_u64().unwrap() > 0,
        "no statistics so far: {j}"
    );
}

#[test]
fn timeout_reach() {
    let dir = tempfile::tempdir().unwrap();
    let j = stops_at_timeout(&["reach"], &tree_file(dir.path(), true));
    assert!(
        j["states"].as_u64().unwrap() > 1,
        "no statistics so far: {j}"
    );
}

#[test]
fn timeout_check() {
    let dir = tempfile::tempdir().unwrap();
    let j = stops_at_timeout(&["check", "--brute"], &tree_file(dir.path(), false));
    assert!(
        j["events"].as_u64().unwrap() > 0,
        "no statistics so far: {j}"
    );
}

#[test]
fn timeout_check_count() {
    // Far too many states for the count to finish: it stops at the limit, incomplete.
    let dir = tempfile::tempdir().unwrap();
    stops_at_timeout(&["check", "--count"], &tree_file(dir.path(), false));
}

#[test]
fn timeout_edpor() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "busy.tsys", &busy_program(8));
    let j = stops_at_timeout(&["edpor"], &f);
    assert!(
        j["executions"].as_u64().unwrap() > 0,
        "no statistics so far: {j}"
    );
    // One execution of four million steps, more than a second's worth: the clock is read along
    // the execution too.
    let f = write(dir.path(), "long.tsys", &long_program());
    let j = stops_at_timeout(&["edpor"], &f);
    assert!(
        j["longest_execution"].as_u64().is_some_and(|n| n > 1000),
        "{j}"
    );
}

#[test]
fn timeout_while_reading() {
    // A FIFO nobody writes to: reading never ends, and no explorer is there to look at the
    // clock. The guard stops the run, names the phase, exits 3.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("never.pnml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for mode in ["info", "reach"] {
        let j = stops_at_timeout(&[mode], &fifo);
        assert_eq!(j["phase"], "reading the input", "{j}");
    }
    // `convert` keeps standard output for the net: one line on standard error instead.
    let start = Instant::now();
    let out = Command::new(assert_cmd::cargo::cargo_bin("unfold"))
        .arg("convert")
        .arg(&fifo)
        .args(["-", "--to", "pep", "--timeout", "1"])
        .output()
        .unwrap();
    assert!(start.elapsed() < Duration::from_secs(1) + SLACK);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("reading the input: stopped: time limit reached"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn timeout_batch() {
    // Each run of the batch stops at its own time limit and is recorded as incomplete with
    // its figures so far; the batch itself finishes (exit 0: every run has its row).
    let dir = tempfile::tempdir().unwrap();
    let nets = dir.path().join("nets");
    std::fs::create_dir(&nets).unwrap();
    tree_file(&nets, true);
    let csv = dir.path().join("out.csv");
    let start = Instant::now();
    let out = Command::new(assert_cmd::cargo::cargo_bin("unfold"))
        .args([
            "batch",
            "--modes",
            "dpor,prefix,reach",
            "--timeout",
            "1",
            "-q",
            "--csv",
        ])
        .arg(&csv)
        .arg(&nets)
        .output()
        .unwrap();
    let wall = start.elapsed();
    // Every run recorded, some stopped by a limit: exit 3.
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows = common::csv_records(&text);
    let header = &rows[0];
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(rows.len(), 4, "{text}");
    for r in &rows[1..] {
        assert_eq!(r[col("status")], "timeout", "{text}");
        assert_eq!(r[col("complete")], "false", "{text}");
        assert_eq!(r[col("exit_code")], "3", "{text}");
        let wall: f64 = r[col("wall_s")].parse().unwrap();
        assert!(wall < 1.0 + SLACK.as_secs_f64(), "{text}");
    }
    assert!(wall < 3 * (Duration::from_secs(1) + SLACK), "{wall:?}");
}

// --- --mem-limit, per mode -----------------------------------------------------------------

#[test]
fn mem_limit_run() {
    let dir = tempfile::tempdir().unwrap();
    let mode = ["run", "--cutoffs"];
    let limit = limit_for(&mode, 32, 8);
    let (_, j) = stops_below_memory(&mode, &tree_file(dir.path(), true), limit);
    assert!(j["events"].as_u64().unwrap() > 1000, "{j}");
}

#[test]
fn mem_limit_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let (_, j) = stops_below_memory(&["prefix"], &tree_file(dir.path(), true), 48);
    assert!(j["events"].as_u64().unwrap() > 1000, "{j}");
}

#[test]
fn mem_limit_reach() {
    let dir = tempfile::tempdir().unwrap();
    let (_, j) = stops_below_memory(&["reach"], &tree_file(dir.path(), true), 48);
    assert!(j["states"].as_u64().unwrap() > 1000, "{j}");
}

#[test]
fn mem_limit_check() {
    let dir = tempfile::tempdir().unwrap();
    let (_, j) = stops_below_memory(&["check", "--brute"], &tree_file(dir.path(), false), 32);
    assert!(j["events"].as_u64().unwrap() > 1000, "{j}");
}

#[test]
fn mem_limit_check_count() {
    let dir = tempfile::tempdir().unwrap();
    stops_below_memory(&["check", "--count"], &tree_file(dir.path(), false), 32);
}

#[test]
fn mem_limit_edpor() {
    // A four-million-step execution: its frames pass the limit long before it ends.
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "long.tsys", &long_program());
    let (_, j) = stops_below_memory(&["edpor"], &f, 32);
    assert!(
        j["longest_execution"].as_u64().is_some_and(|n| n > 1000),
        "{j}"
    );
}

#[test]
fn mem_limit_refuses_an_input_too_large_to_read() {
    // A 24 MB PNML file under a 16 MiB limit: refused before it is read, in every mode.
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "big.pnml", &big_pnml(90_000));
    assert!(std::fs::metadata(&f).unwrap().len() > 20 << 20);
    for mode in [
        &["info"][..],
        &["reach"],
        &["prefix"],
        &["run"],
        &["check", "--brute"],
        &["edpor"],
    ] {
        let (e, j) = stops_below_memory(mode, &f, 16);
        assert_eq!(j["phase"], "reading the input", "{j}");
        assert!(
            e.wall < Duration::from_secs(1),
            "{mode:?} took {:?}",
            e.wall
        );
        // Half the file, or the binary's footprint in the mode and 4 MiB when that is more
        // (a debug binary holds 12 to 17 MiB by itself).
        let tiny = write(dir.path(), "tiny.ll_net", &tree(2, true));
        let bound = (12 << 20).max(footprint(mode, &tiny) + (4 << 20));
        let peak = e.peak_bytes.unwrap();
        assert!(peak < bound, "{mode:?} read the file: {} KiB", peak >> 10);
    }
}

#[test]
fn mem_limit_while_reading() {
    // An 8 MB PEP file passes the weighing for a 64 MiB limit (estimate: 4 bytes of model per
    // byte), but reading it takes about 11 per byte: the guard stops the reader below the limit.
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "chain.ll_net", &big_pep(140_000));
    let (_, j) = stops_below_memory(&["reach"], &f, 64);
    assert_eq!(j["phase"], "reading the input", "{j}");
}

#[test]
fn mem_limit_batch() {
    let dir = tempfile::tempdir().unwrap();
    let nets = dir.path().join("nets");
    std::fs::create_dir(&nets).unwrap();
    tree_file(&nets, true);
    let csv = dir.path().join("out.csv");
    let e = run_with(
        &[
            "batch",
            "--modes",
            "prefix,reach",
            "--mem-limit",
            "48M",
            "--timeout",
            "60",
            "-q",
            "--csv",
            csv.to_str().unwrap(),
        ],
        &nets,
        None,
        true,
    );
    // Every run recorded, some stopped by a limit: exit 3.
    assert_eq!(e.code, Some(3), "{}", e.stderr);
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows = common::csv_records(&text);
    let header = &rows[0];
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(rows.len(), 3, "{text}");
    for r in &rows[1..] {
        assert_eq!(r[col("status")], "memory", "{text}");
        assert_eq!(r[col("complete")], "false", "{text}");
        let peak: f64 = r[col("peak_mb")].parse().unwrap();
        assert!(peak < 48.0, "{text}");
    }
    // The batch's own peak covers the runs it waited for.
    let peak = e.peak_bytes.unwrap();
    assert!(peak < 48 << 20, "{} KiB", peak >> 10);
}

// --- SIGINT and SIGTERM ----------------------------------------------------------------------

/// Sends `sig` after half a second of `MODE… FILE`: the run stops within [`SLACK`], incomplete,
/// exit 3, with its statistics so far.
fn stops_on_signal(mode: &[&str], file: &Path, sig: libc::c_int) -> Value {
    let mut args = mode.to_vec();
    args.extend(["--json", "-", "-q"]);
    let e = run_with(&args, file, Some((sig, Duration::from_millis(500))), false);
    let j = e.assert_stopped("interrupted");
    assert!(
        e.wall < SLACK,
        "{mode:?} took {:?} to stop after signal {sig}",
        e.wall
    );
    j
}

#[test]
fn sigint_reach() {
    let dir = tempfile::tempdir().unwrap();
    let j = stops_on_signal(&["reach"], &tree_file(dir.path(), true), libc::SIGINT);
    assert!(j["states"].as_u64().unwrap() > 1, "{j}");
}

#[test]
fn sigterm_run() {
    let dir = tempfile::tempdir().unwrap();
    let j = stops_on_signal(
        &["run", "--cutoffs"],
        &tree_file(dir.path(), true),
        libc::SIGTERM,
    );
    assert!(j["events"].as_u64().unwrap() > 0, "{j}");
}

#[test]
fn sigterm_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let j = stops_on_signal(&["prefix"], &tree_file(dir.path(), true), libc::SIGTERM);
    assert!(j["events"].as_u64().unwrap() > 0, "{j}");
}

#[test]
fn sigint_check() {
    let dir = tempfile::tempdir().unwrap();
    let j = stops_on_signal(
        &["check", "--brute"],
        &tree_file(dir.path(), false),
        libc::SIGINT,
    );
    assert!(j["events"].as_u64().unwrap() > 0, "{j}");
}

#[test]
fn sigint_edpor() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "busy.tsys", &busy_program(8));
    let j = stops_on_signal(&["edpor"], &f, libc::SIGINT);
    assert!(j["executions"].as_u64().unwrap() > 0, "{j}");
}

#[test]
fn sigint_while_reading() {
    // Reading a FIFO nobody writes to: the guard answers the signal after its grace period.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("never.ll_net");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let j = stops_on_signal(&["info"], &fifo, libc::SIGINT);
    assert_eq!(j["phase"], "reading the input", "{j}");
}

#[test]
fn check_follows_runs_longer_than_the_call_stack() {
    // One transition looping on one place, and a depth bound of a million: the brute-force
    // search once recursed per step and overflowed the call stack (SIGABRT); it now runs on
    // the heap, to the depth bound, within the memory limit.
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "loop.ll_net",
        "PEP\nPTNet\nFORMAT_N2\nPL\n1\"p\"M1\nTR\n1\"t\"\nTP\n1<1\nPT\n1>1\n",
    );
    let args = [
        "check",
        "--brute",
        "--max-depth",
        "1000000",
        "--mem-limit",
        "256M",
    ];
    let e = run_with(
        &[&args[..], &["--json", "-", "-q"]].concat(),
        &f,
        None,
        true,
    );
    let j = e.assert_stopped("depth_limit");
    assert_eq!(j["runs"], 0, "{j}");
    assert!(e.peak_bytes.unwrap() < 256 << 20);
}
