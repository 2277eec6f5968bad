//! What the commands share: the options every command takes, parsing durations and sizes,
//! reading a net under the watchdog, and printing a report (human block, JSON, or both).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};

use super::process::watchdog::{StopReport, Stopped, Watchdog, claim_report};
use unfold::explore::limits::Limits;
use unfold::formats::{self, Format};
use unfold::model::net::Net;
use unfold::model::program::Program;
use unfold::modes::{self, Report, Verdict};
use unfold::report::stats::Stats;
use unfold::unfolding::order::Order;

/// Options shared by the commands that print statistics.
#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Write the statistics as one JSON object to OUT (`-` for standard output).
    #[arg(long, value_name = "OUT")]
    pub json: Option<PathBuf>,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Options bounding a run.
#[derive(Args, Debug, Clone)]
pub struct LimitArgs {
    /// Stop after this long (`30s`, `5m`, `1h`, `250ms`; a bare number is seconds).
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// Stop before the explorer's data passes this size (`512M`, `4G`; a bare number is bytes).
    /// Default: three quarters of physical memory.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub mem_limit: Option<u64>,
    /// Exit 0 even when a deadlock is found (for users who only want statistics).
    #[arg(long)]
    pub no_fail: bool,
}

/// Limits of the commands that only read a model (`info`, `convert`).
#[derive(Args, Debug, Clone)]
pub struct ReadLimitArgs {
    /// Stop after this long (`30s`, `5m`, `1h`, `250ms`; a bare number is seconds).
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// Stop before the process's memory passes this size (`512M`, `4G`; a bare number is
    /// bytes). Default: three quarters of physical memory.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub mem_limit: Option<u64>,
}

impl ReadLimitArgs {
    pub fn limits(&self, interrupt: Arc<AtomicBool>) -> Limits {
        Limits::new(self.timeout, self.mem_limit.or_else(default_mem_limit))
            .with_interrupt_flag(interrupt)
    }
}

/// How a command ended, mapped to the exit code by `main`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Explored; nothing bad found (exit 0).
    Clean,
    /// A deadlock or assertion failure found, witness printed (exit 1).
    Found,
    /// Stopped by a limit, statistics so far printed (exit 3).
    Stopped,
    /// `batch` only: every run recorded, but some crashed or failed (exit 4).
    Failed,
}

/// Parses `30s`, `5m`, `1h`, `250ms`, `1.5s`, or a bare number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a duration (try 30s, 5m, 1h)"))?;
    let secs = match unit.trim() {
        "" | "s" | "sec" => value,
        "ms" => value / 1000.0,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => return Err(format!("unknown duration unit '{other}' (use ms, s, m, h)")),
    };
    if !secs.is_finite() || secs < 0.0 {
        return Err(format!("'{s}' is not a valid duration"));
    }
    Duration::try_from_secs_f64(secs).map_err(|_| format!("'{s}' is too long a duration"))
}

/// Parses `512M`, `4G`, `100K`, `1T` (powers of 1024, optional `B`/`iB`), or bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a size (try 512M, 4G)"))?;
    let unit = unit.trim().to_ascii_uppercase();
    let unit = unit.trim_end_matches("IB").trim_end_matches('B');
    let mult: u64 = match unit {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        other => return Err(format!("unknown size unit '{other}' (use K, M, G, T)")),
    };
    let bytes = value * mult as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes > u64::MAX as f64 {
        return Err(format!("'{s}' is not a valid size"));
    }
    Ok(bytes as u64)
}

/// Checks, before a run starts, that every output file named (`(flag, path)`, `-` being
/// standard output) can be written, so that a long run does not end in a report it cannot
/// write. A file that did not exist is created to see, then removed.
pub fn check_output_paths<'a>(
    outputs: impl IntoIterator<Item = (&'a str, Option<&'a Path>)>,
) -> Result<()> {
    for (flag, path) in outputs {
        let Some(path) = path.filter(|p| *p != Path::new("-")) else {
            continue;
        };
        let existed = path.exists();
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .with_context(|| format!("cannot write {} ({flag})", path.display()))?;
        if !existed {
            // (Only a check: the run writes the file at its end.)
            let _ = std::fs::remove_file(path);
        }
    }
    Ok(())
}

/// Three quarters of physical memory (`MemTotal`), or no limit where unknown.
pub fn default_mem_limit() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: u64 = info
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024 / 4 * 3)
}

impl LimitArgs {
    pub fn limits(&self, interrupt: Arc<AtomicBool>) -> Limits {
        Limits::new(self.timeout, self.mem_limit.or_else(default_mem_limit))
            .with_interrupt_flag(interrupt)
    }
}

/// Reads a net, after weighing the file against the memory limit.
pub fn read_net(path: &Path, watchdog: &Watchdog) -> Result<(Net, Format)> {
    watchdog.weigh_input(path);
    watchdog.phase("reading the input");
    formats::read_net(path).map_err(|e| {
        let hint = matches!(formats::detect_file(path), Some(Format::Tsys))
            .then_some(" (programs run in `unfold FILE` and `unfold edpor FILE`)")
            .unwrap_or_default();
        anyhow::anyhow!("{e}{hint}")
    })
}

/// Reads a `.tsys` program, after weighing the file against the memory limit.
pub fn read_program(path: &Path, watchdog: &Watchdog) -> Result<Program> {
    watchdog.weigh_input(path);
    watchdog.phase("reading the input");
    let bytes = formats::load(path)?;
    Ok(formats::tsys::parse(&bytes, path)?)
}

/// Prints `stats` as asked: the human block on standard output unless the JSON goes there.
/// Prints nothing when the watchdog printed the run's report already (it is ending the process).
pub fn emit(stats: &Stats, output: &OutputArgs, extra_human: &[String]) -> Result<()> {
    emit_to(stats, output, extra_human, false)
}

/// [`emit`], with the human block on standard error when `stdout_taken` (another output, such
/// as `--mci -`, is written to standard output).
pub fn emit_to(
    stats: &Stats,
    output: &OutputArgs,
    extra_human: &[String],
    stdout_taken: bool,
) -> Result<()> {
    let Some(_claim) = claim_report() else {
        return Ok(());
    };
    write_report_to(stats, output, extra_human, stdout_taken)
}

/// Prints `stats` (see [`emit`]) without claiming the report.
fn write_report(stats: &Stats, output: &OutputArgs, extra_human: &[String]) -> Result<()> {
    write_report_to(stats, output, extra_human, false)
}

fn write_report_to(
    stats: &Stats,
    output: &OutputArgs,
    extra_human: &[String],
    stdout_taken: bool,
) -> Result<()> {
    let stdout = io::stdout();
    let json_to_stdout = output.json.as_deref() == Some(Path::new("-"));
    if stdout_taken {
        let mut err = io::stderr().lock();
        stats.write_human(&mut err)?;
        for line in extra_human {
            writeln!(err, "{line}")?;
        }
    } else if !json_to_stdout {
        let mut out = stdout.lock();
        stats.write_human(&mut out)?;
        for line in extra_human {
            writeln!(out, "{line}")?;
        }
    }
    if let Some(path) = &output.json {
        let text = serde_json::to_string_pretty(&with_provenance(stats.to_json()))?;
        if json_to_stdout {
            writeln!(stdout.lock(), "{text}")?;
        } else {
            let mut f = BufWriter::new(
                File::create(path).with_context(|| format!("cannot write {}", path.display()))?,
            );
            writeln!(f, "{text}")?;
            f.flush()?;
        }
    }
    Ok(())
}

/// `json` (an object) with what made it: the crate's version and the command line, so that a
/// report read later says which build and which options produced it.
fn with_provenance(mut json: serde_json::Value) -> serde_json::Value {
    if let serde_json::Value::Object(map) = &mut json {
        map.insert("version".into(), env!("CARGO_PKG_VERSION").into());
        let args: Vec<serde_json::Value> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned().into())
            .collect();
        map.insert("command_line".into(), args.into());
    }
    json
}

impl Outcome {
    /// The outcome of a run whose report is `report`; with `no_fail`, a find exits 0.
    pub fn of(report: &Report, no_fail: bool) -> Outcome {
        match report.verdict(no_fail) {
            Verdict::Clean => Outcome::Clean,
            Verdict::Found => Outcome::Found,
            Verdict::Stopped => Outcome::Stopped,
        }
    }
}

/// Starts the watchdog over a run of `mode` on `file`; if it has to stop the run, it prints
/// what it knows as incomplete statistics where `output` sends them (only a line on standard
/// error without `output`).
pub fn watch(
    limits: Limits,
    mode: &'static str,
    file: &Path,
    output: Option<&OutputArgs>,
) -> Watchdog {
    let report: Option<StopReport> = output.cloned().map(|output| {
        Box::new(move |stopped: &Stopped<'_>| stop_report(stopped, &output)) as StopReport
    });
    Watchdog::start(limits, mode, file, report)
}

/// The report of a run the watchdog stops: input, mode, phase and time, marked incomplete.
fn stop_report(stopped: &Stopped<'_>, output: &OutputArgs) {
    let mut stats = Stats::new();
    modes::head(&mut stats, stopped.file, stopped.mode, false);
    stats.add_json("stopped", modes::stopped_json(Some(stopped.reason)));
    stats.add("phase", "stopped while", stopped.phase);
    // What the explorer had counted when it was stopped (incomplete, as the report says).
    for &(key, label, value) in &stopped.counters {
        stats.add(key, label, value);
    }
    modes::tail(&mut stats, stopped.elapsed);
    let mut notes = vec![modes::describe_stop(stopped.reason)];
    if !stopped.why.is_empty() {
        notes.push(stopped.why.to_string());
    }
    // The report may fail to print (a closed pipe): the exit code still says what happened.
    let _ = write_report(&stats, output, &notes);
    let _ = io::stdout().flush();
}

/// Prints a mode's report (see [`emit`]) and maps it to the outcome.
pub fn emit_report(report: &Report, output: &OutputArgs, no_fail: bool) -> Result<Outcome> {
    emit(&report.stats, output, &report.notes)?;
    Ok(Outcome::of(report, no_fail))
}

/// The adequate orders (`--order` of `run` and `prefix`; one definition, `unfolding::order`).
/// How `prefix` and the prefix engine of `check` unfold read arcs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReadArcs {
    /// As read arcs: the contextual unfolding, with histories (as Cunf computes it).
    Contextual,
    /// As self-loops: consume and produce the place (a plain prefix).
    SelfLoops,
}

impl From<ReadArcs> for unfold::check::prefix_sat::ReadArcs {
    fn from(r: ReadArcs) -> Self {
        match r {
            ReadArcs::Contextual => Self::Contextual,
            ReadArcs::SelfLoops => Self::SelfLoops,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum OrderArg {
    /// Mole's variant of Esparza–Römer–Vogler: size, Parikh vector, Foata levels each by its
    /// number of distinct transitions first (Cunf's and Mole's order; total).
    Mole,
    /// Textbook Esparza–Römer–Vogler: size, Parikh vector, Foata levels each by its Parikh
    /// vector (total).
    Erv,
    /// McMillan: the size of the local configuration (not total).
    Size,
}

impl From<OrderArg> for Order {
    fn from(arg: OrderArg) -> Order {
        match arg {
            OrderArg::Mole => Order::Mole,
            OrderArg::Erv => Order::Erv,
            OrderArg::Size => Order::Size,
        }
    }
}

/// The net formats `convert` and `reduce` write (`--to`).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum NetFormat {
    /// PNML 2009 P/T net.
    Pnml,
    /// PEP low-level net (`.ll_net`), readable by Cunf, Mole and Punf.
    Pep,
}

/// The format to write `output` in: `to`, or the file's extension.
pub fn output_format(to: Option<NetFormat>, output: &Path) -> Result<Format> {
    Ok(match to {
        Some(NetFormat::Pnml) => Format::Pnml,
        Some(NetFormat::Pep) => Format::Pep,
        None => match output.extension().and_then(|e| e.to_str()) {
            Some("pnml" | "xml") => Format::Pnml,
            Some("ll_net" | "ll") => Format::Pep,
            _ => bail!(
                "cannot tell the output format of {}: use --to pnml|pep",
                output.display()
            ),
        },
    })
}

/// Writes `bytes` (a drawing, a report) to `path` (`-`: standard output).
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    if path == Path::new("-") {
        io::stdout()
            .lock()
            .write_all(bytes)
            .context("cannot write to standard output")
    } else {
        std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
    }
}

/// Writes `net` in `format` to `output` (`-`: standard output).
pub fn write_net_file(net: &Net, format: Format, output: &Path) -> Result<()> {
    if output == Path::new("-") {
        let mut out = BufWriter::new(io::stdout().lock());
        formats::write_net(net, format, &mut out)?;
        out.flush()?;
    } else {
        let file =
            File::create(output).with_context(|| format!("cannot write {}", output.display()))?;
        let mut out = BufWriter::new(file);
        formats::write_net(net, format, &mut out)?;
        out.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_sizes() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("1.5m"), Ok(Duration::from_secs(90)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3 weeks").is_err());
        assert!(parse_duration("99999999999999999999999").is_err());
        assert!(parse_duration("1e3").is_err());
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4GiB"), Ok(4 << 30));
        assert_eq!(parse_size("100"), Ok(100));
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
    }
}
