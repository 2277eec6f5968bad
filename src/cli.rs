//! Command-line interface: clap commands and options, and the glue that runs a command and
//! prints its report. No algorithm lives here.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde_json::Value;

use crate::cli_guard::Guard;
use unfold::explore::limits::{Limits, StopReason, peak_rss_bytes};
use unfold::explore::reach::{NetReach, Witness, reach_net};
use unfold::formats::{self, Format};
use unfold::model::net::Net;
use unfold::report::progress::Progress;
use unfold::report::stats::{Stats, human_bytes};

/// Partial-order verification of concurrent systems: Petri nets (PNML, PEP) and programs.
#[derive(Parser, Debug)]
#[command(
    name = "unfold",
    version,
    about,
    arg_required_else_help = true,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Cli {
    /// What to do (without a subcommand: `run`, the unfolding DPOR, on FILE).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The default job: `unfold FILE [OPTIONS]` is `unfold run FILE [OPTIONS]`.
    #[command(flatten)]
    pub run: crate::cli_run::RunArgs,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// The stateless unfolding-based DPOR: explore every maximal configuration once.
    Run(crate::cli_run::RunArgs),
    /// Brute-force oracle: enumerate every maximal run, count traces and events.
    Check(crate::cli_run::CheckArgs),
    /// Event-DPOR on a `.tsys` program: one execution per happens-before class.
    Edpor(crate::cli_edpor::EdporArgs),
    /// Describe a net: sizes, arcs, weights, structural class.
    Info(InfoArgs),
    /// Explicit-state reachability: states, edges, deadlocks, token bounds, 1-safety.
    Reach(ReachArgs),
    /// Convert a net between PNML and PEP (`.ll_net`).
    Convert(ConvertArgs),
    /// Complete finite prefix of a safe net's unfolding (Esparza–Römer–Vogler).
    Prefix(PrefixArgs),
    /// Run modes (and other tools) over benchmark suites, one CSV row per run.
    Batch(crate::cli_batch::BatchArgs),
    /// Model Checking Contest entry point: answer $BK_EXAMINATION on ./model.pnml.
    Mcc(crate::cli_mcc::MccArgs),
}

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
    fn limits(&self, interrupt: Arc<AtomicBool>) -> Limits {
        Limits::new(self.timeout, self.mem_limit.or_else(default_mem_limit))
            .with_interrupt_flag(interrupt)
    }
}

/// `unfold info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The net (PNML or PEP; the format is sniffed from the content).
    pub file: PathBuf,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub limits: ReadLimitArgs,
}

/// `unfold reach`.
#[derive(Args, Debug)]
pub struct ReachArgs {
    /// The net (PNML or PEP).
    pub file: PathBuf,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Output formats of `convert`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ConvertTo {
    /// PNML 2009 P/T net.
    Pnml,
    /// PEP low-level net (`.ll_net`), readable by Cunf, Mole and Punf.
    Pep,
}

/// `unfold convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// The net to read.
    pub input: PathBuf,
    /// The file to write (`-` for standard output).
    pub output: PathBuf,
    /// Output format (default: from the output file's extension).
    #[arg(long)]
    pub to: Option<ConvertTo>,
    #[command(flatten)]
    pub limits: ReadLimitArgs,
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

/// Three quarters of physical memory (`MemTotal`), or no limit where unknown.
fn default_mem_limit() -> Option<u64> {
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
    pub(crate) fn limits(&self, interrupt: Arc<AtomicBool>) -> Limits {
        Limits::new(self.timeout, self.mem_limit.or_else(default_mem_limit))
            .with_interrupt_flag(interrupt)
    }
}

/// Runs the parsed command.
pub fn run(cli: Cli, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let Some(command) = cli.command else {
        return crate::cli_run::run(&cli.run, interrupt);
    };
    match command {
        Command::Run(args) => crate::cli_run::run(&args, interrupt),
        Command::Check(args) => crate::cli_run::check(&args, interrupt),
        Command::Edpor(args) => crate::cli_edpor::run(&args, interrupt),
        Command::Info(args) => info(&args, interrupt),
        Command::Reach(args) => reach(&args, interrupt),
        Command::Convert(args) => convert(&args, interrupt),
        Command::Prefix(args) => prefix(&args, interrupt),
        Command::Batch(args) => crate::cli_batch::run(&args, interrupt),
        Command::Mcc(args) => crate::cli_mcc::run(&args, interrupt),
    }
}

/// Reads a net, after weighing the file against the memory limit.
pub(crate) fn read_net(path: &Path, guard: &Guard) -> Result<(Net, Format)> {
    guard.weigh_input(path);
    guard.phase("reading the input");
    Ok(formats::read_net(path)?)
}

/// Prints `stats` as asked: the human block on standard output unless the JSON goes there.
/// Prints nothing when the guard printed the run's report already (it is ending the process).
pub(crate) fn emit(stats: &Stats, output: &OutputArgs, extra_human: &[String]) -> Result<()> {
    emit_to(stats, output, extra_human, false)
}

/// [`emit`], with the human block on standard error when `stdout_taken` (another output, such
/// as `--mci -`, is written to standard output).
pub(crate) fn emit_to(
    stats: &Stats,
    output: &OutputArgs,
    extra_human: &[String],
    stdout_taken: bool,
) -> Result<()> {
    let Some(_claim) = crate::cli_guard::claim_report() else {
        return Ok(());
    };
    write_report_to(stats, output, extra_human, stdout_taken)
}

/// Prints `stats` (see [`emit`]) without claiming the report.
pub(crate) fn write_report(
    stats: &Stats,
    output: &OutputArgs,
    extra_human: &[String],
) -> Result<()> {
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
        let text = serde_json::to_string_pretty(&stats.to_json())?;
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

pub(crate) fn common_head(stats: &mut Stats, file: &Path, mode: &str, complete: bool) {
    stats.add("input", "input", file.display().to_string());
    stats.add("mode", "mode", mode);
    stats.add("complete", "complete", complete);
}

pub(crate) fn common_tail(stats: &mut Stats, seconds: f64) {
    stats.add("time_s", "time (s)", seconds);
    let peak = peak_rss_bytes();
    stats.add_json("peak_bytes", peak);
    stats.add("peak_memory", "peak memory", human_bytes(peak));
}

fn info(args: &InfoArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let guard = Guard::start(
        args.limits.limits(interrupt),
        "info",
        &args.file,
        Some(&args.output),
    );
    let (net, format) = read_net(&args.file, &guard)?;
    guard.phase("describing the net");
    let limits = guard.limits();
    let s = net.structure();
    let mut stats = Stats::new();
    common_head(&mut stats, &args.file, "info", true);
    stats.add("format", "format", format.to_string());
    stats.add("name", "name", net.name.clone());
    stats.add("places", "places", net.places.len());
    stats.add("transitions", "transitions", net.transitions.len());
    stats.add("arcs", "arcs", net.arc_count());
    stats.add("read_arcs", "read arcs", net.read_arc_count());
    stats.add("max_weight", "largest arc weight", net.max_weight());
    stats.add("weighted", "weights above 1", net.max_weight() > 1);
    stats.add("initial_tokens", "initial tokens", net.initial_tokens());
    stats.add(
        "nupn_safe",
        "NUPN safe flag",
        net.nupn
            .as_ref()
            .and_then(|n| n.safe)
            .map_or(Value::Null, Value::Bool),
    );
    stats.add("ordinary", "ordinary", s.ordinary);
    stats.add("free_choice", "free-choice", s.free_choice);
    stats.add("state_machine", "state machine", s.state_machine);
    stats.add("marked_graph", "marked graph", s.marked_graph);
    common_tail(&mut stats, limits.elapsed().as_secs_f64());
    emit(&stats, &args.output, &[])?;
    Ok(Outcome::Clean)
}

pub(crate) fn witness_line(title: &str, w: &Witness) -> String {
    // A terminal shows the two ends of a long witness; `--json` keeps all of it.
    const ENDS: usize = 20;
    let n = w.run.len();
    let run = if n == 0 {
        "(the initial state)".to_string()
    } else if n <= 3 * ENDS {
        w.run.join(" ")
    } else {
        format!(
            "{} … ({} steps more) … {} ({n} steps; --json has them all)",
            w.run[..ENDS].join(" "),
            n - 2 * ENDS,
            w.run[n - ENDS..].join(" ")
        )
    };
    const STATE_CHARS: usize = 2000;
    let state = match w.state.char_indices().nth(STATE_CHARS) {
        Some((cut, _)) => format!("{} … (--json has all of it)", &w.state[..cut]),
        None => w.state.clone(),
    };
    format!("{title}: {run}\n  reaching: {state}")
}

fn reach(args: &ReachArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let guard = Guard::start(
        args.limits.limits(interrupt),
        "reach",
        &args.file,
        Some(&args.output),
    );
    let (net, _) = read_net(&args.file, &guard)?;
    guard.phase("exploring");
    let limits = guard.limits();
    let progress = Progress::spinner(args.output.quiet);
    let r: NetReach = reach_net(&net, &limits, &mut |p| {
        progress.set_message(|| {
            format!(
                "{} states, {} expanded, {}",
                p.states,
                p.expanded,
                human_bytes(p.bytes)
            )
        })
    })
    .map_err(|o| anyhow::anyhow!("{}: {o}", args.file.display()))?;
    progress.finish();
    guard.phase("writing the report");
    let complete = r.stopped.is_none();
    let mut stats = Stats::new();
    common_head(&mut stats, &args.file, "reach", complete);
    stats.add_json(
        "stopped",
        r.stopped.map_or(Value::Null, |s| {
            serde_json::to_value(s).unwrap_or(Value::Null)
        }),
    );
    stats.add("states", "reachable states", r.states);
    stats.add("edges", "edges", r.edges);
    stats.add("deadlocks", "deadlocks", r.deadlocks);
    stats.add("safe", "1-safe", r.safe);
    stats.add(
        "max_tokens_in_place",
        "max tokens in a place",
        r.max_tokens_in_place,
    );
    stats.add(
        "max_tokens_per_marking",
        "max tokens in a marking",
        r.max_tokens_per_marking,
    );
    stats.add_json("counter_bits", r.counter_bits);
    stats.add_json(
        "deadlock_witness",
        r.deadlock_witness.as_ref().map_or(
            Value::Null,
            |w| serde_json::json!({ "run": w.run, "state": w.state }),
        ),
    );
    stats.add_json(
        "unsafe_witness",
        r.unsafe_witness.as_ref().map_or(
            Value::Null,
            |(w, p)| serde_json::json!({ "run": w.run, "state": w.state, "place": p }),
        ),
    );
    stats.add("state_space_bytes", "state space", human_bytes(r.bytes));
    common_tail(&mut stats, limits.elapsed().as_secs_f64());
    // Witnesses read better as lines of their own than inside the aligned block.
    let mut extra = Vec::new();
    if let Some(w) = &r.deadlock_witness {
        extra.push(witness_line("deadlock witness", w));
    }
    if let Some((w, p)) = &r.unsafe_witness {
        extra.push(witness_line(
            &format!("not 1-safe: two tokens on {p}, witness"),
            w,
        ));
    }
    if let Some(reason) = r.stopped {
        extra.push(describe_stop(reason));
    }
    emit(&stats, &args.output, &extra)?;
    Ok(if r.deadlocks > 0 && !args.limits.no_fail {
        Outcome::Found
    } else if !complete {
        Outcome::Stopped
    } else {
        Outcome::Clean
    })
}

fn convert(args: &ConvertArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    // No statistics on standard output, where the converted net may go.
    let guard = Guard::start(args.limits.limits(interrupt), "convert", &args.input, None);
    let (net, _) = read_net(&args.input, &guard)?;
    guard.phase("writing the output");
    let to = match args.to {
        Some(ConvertTo::Pnml) => Format::Pnml,
        Some(ConvertTo::Pep) => Format::Pep,
        None => match args.output.extension().and_then(|e| e.to_str()) {
            Some("pnml" | "xml") => Format::Pnml,
            Some("ll_net" | "ll") => Format::Pep,
            _ => bail!(
                "cannot tell the output format of {}: use --to pnml|pep",
                args.output.display()
            ),
        },
    };
    if args.output == Path::new("-") {
        let mut out = BufWriter::new(io::stdout().lock());
        formats::write_net(&net, to, &mut out)?;
        out.flush()?;
    } else {
        let file = File::create(&args.output)
            .with_context(|| format!("cannot write {}", args.output.display()))?;
        let mut out = BufWriter::new(file);
        formats::write_net(&net, to, &mut out)?;
        out.flush()?;
    }
    Ok(Outcome::Clean)
}

/// Adequate orders of `prefix`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PrefixOrder {
    /// Mole's variant of Esparza–Römer–Vogler (Foata levels by size, then Parikh vector).
    Mole,
    /// Textbook Esparza–Römer–Vogler (Foata levels by Parikh vector).
    Erv,
    /// McMillan: size of the local configuration.
    Size,
}

/// `unfold prefix`.
#[derive(Args, Debug)]
pub struct PrefixArgs {
    /// The net (PNML or PEP; must be 1-safe).
    pub file: PathBuf,
    /// Adequate order (mole reproduces the prefix sizes of Mole and Cunf).
    #[arg(long, value_enum, default_value = "mole")]
    pub order: PrefixOrder,
    /// Decide deadlock freedom from the prefix (exit 1 and a witness when a deadlock exists).
    #[arg(long)]
    pub deadlock: bool,
    /// Write the occurrence net as DOT to OUT (`-` for standard output).
    #[arg(long, value_name = "OUT")]
    pub dot: Option<PathBuf>,
    /// Refuse DOT renderings with more nodes than this.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub dot_limit: usize,
    /// Write the prefix in Mole/Punf's binary .mci format to OUT (`-` for standard output; the
    /// human report then goes to standard error).
    #[arg(long, value_name = "OUT")]
    pub mci: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

fn prefix(args: &PrefixArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    use unfold::explore::prefix::{DeadlockAnswer, Order, PrefixOptions, unfold_prefix};
    // At most one output on standard output; a drawing or a prefix there sends the human
    // report to standard error, so that `--mci - > x.mci` is a clean file.
    let dash = |p: &Option<PathBuf>| p.as_deref() == Some(Path::new("-"));
    let on_stdout = [&args.dot, &args.mci, &args.output.json]
        .into_iter()
        .filter(|p| dash(p))
        .count();
    if on_stdout > 1 {
        bail!("only one of --dot -, --mci - and --json - can write to standard output");
    }
    let stdout_taken = dash(&args.dot) || dash(&args.mci);
    let guard = Guard::start(
        args.limits.limits(interrupt),
        "prefix",
        &args.file,
        Some(&args.output),
    );
    let (net, _) = read_net(&args.file, &guard)?;
    guard.phase("unfolding");
    let limits = guard.limits();
    let order = match args.order {
        PrefixOrder::Mole => Order::Mole,
        PrefixOrder::Erv => Order::Erv,
        PrefixOrder::Size => Order::Size,
    };
    let options = PrefixOptions {
        order,
        deadlock: args.deadlock,
    };
    let progress = Progress::spinner(args.output.quiet);
    let start = std::time::Instant::now();
    let r = unfold_prefix(&net, options, &limits, &mut |p| {
        progress.set_message(|| {
            format!(
                "{} events, {} conditions, {} queued, {}",
                p.events,
                p.conditions,
                p.queue,
                human_bytes(p.bytes)
            )
        })
    })
    .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    let unfold_seconds = start.elapsed().as_secs_f64();
    progress.finish();
    guard.phase("writing the report");
    let complete = r.complete();
    let events = r.prefix.events.len();
    let cutoffs = r.prefix.cutoffs();
    let mut stats = Stats::new();
    common_head(&mut stats, &args.file, "prefix", complete);
    stats.add_json(
        "stopped",
        r.stopped.map_or(Value::Null, |s| {
            serde_json::to_value(s).unwrap_or(Value::Null)
        }),
    );
    stats.add("order", "order", order.to_string());
    stats.add("conditions", "conditions", r.prefix.conditions.len());
    stats.add("events", "events", events);
    stats.add("cutoffs", "cutoffs", cutoffs);
    stats.add("noncutoff_events", "non-cutoff events", events - cutoffs);
    stats.add(
        "read_arcs_as_loops",
        "read arcs as self-loops",
        r.read_arcs_as_loops,
    );
    let mut extra = Vec::new();
    let mut found = false;
    if let Some(answer) = &r.deadlock {
        let value = match answer {
            DeadlockAnswer::Free => Value::Bool(false),
            DeadlockAnswer::Found(_) => Value::Bool(true),
            DeadlockAnswer::Unknown(_) => Value::Null,
        };
        stats.add("deadlock", "deadlock", value);
        if let DeadlockAnswer::Found(config) = answer {
            found = true;
            let run: Vec<String> = config
                .iter()
                .map(|&e| {
                    net.transitions[r.prefix.events[e as usize].transition as usize]
                        .label
                        .to_string()
                })
                .collect();
            let marking: Vec<String> = r
                .prefix
                .marking(config)
                .iter()
                .map(|&p| net.places[p as usize].label.to_string())
                .collect();
            let w = Witness {
                run,
                state: format!("{{{}}}", marking.join(", ")),
            };
            stats.add_json(
                "deadlock_witness",
                serde_json::json!({ "run": w.run, "state": w.state }),
            );
            extra.push(witness_line("deadlock witness", &w));
        }
        if let DeadlockAnswer::Unknown(reason) = answer {
            extra.push(format!("deadlock search stopped: {reason}"));
        }
    }
    stats.add("prefix_bytes", "prefix data", human_bytes(r.bytes));
    // The unfolding alone, without reading the net: what other unfolders' times compare with.
    stats.add("explore_time_s", "unfolding time (s)", unfold_seconds);
    common_tail(&mut stats, limits.elapsed().as_secs_f64());
    if r.read_arcs_as_loops > 0 {
        extra.push(format!(
            "note: {} read arcs were unfolded as self-loops (consume and produce the place)",
            r.read_arcs_as_loops
        ));
    }
    if let Some(reason) = r.stopped {
        extra.push(describe_stop(reason));
    }
    let stopped_deadlock = matches!(r.deadlock, Some(DeadlockAnswer::Unknown(_)));
    if let Some(path) = &args.dot {
        let mut buf = Vec::new();
        unfold::report::occurrence_dot::write_occurrence_net(
            &net,
            &r.prefix,
            args.dot_limit,
            &mut buf,
        )?;
        if path == Path::new("-") {
            io::stdout().lock().write_all(&buf)?;
        } else {
            std::fs::write(path, &buf)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    if let Some(path) = &args.mci {
        if dash(&args.mci) {
            unfold::report::mci::write_mci(&net, &r.prefix, &mut io::stdout().lock())
                .context("cannot write the .mci prefix to standard output")?;
        } else {
            let mut file = std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            unfold::report::mci::write_mci(&net, &r.prefix, &mut file)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    emit_to(&stats, &args.output, &extra, stdout_taken)?;
    Ok(if found && !args.limits.no_fail {
        Outcome::Found
    } else if !complete || stopped_deadlock {
        Outcome::Stopped
    } else {
        Outcome::Clean
    })
}

/// The line printed under the statistics of a run a limit stopped.
pub fn describe_stop(reason: StopReason) -> String {
    format!("stopped: {reason}; statistics so far are incomplete")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

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

    #[test]
    fn long_witnesses_show_their_ends() {
        let witness = |n: usize| Witness {
            run: (0..n).map(|i| format!("t{i}")).collect(),
            state: "p".repeat(3000),
        };
        let short = witness_line("deadlock witness", &witness(60));
        let run = short.lines().next().unwrap();
        assert!(run.contains("t0 t1") && run.ends_with("t58 t59") && !run.contains('…'));
        let long = witness_line("deadlock witness", &witness(30_000));
        assert!(long.starts_with("deadlock witness: t0 t1 "));
        assert!(long.contains("t19 … (29960 steps more) … t29980 "));
        assert!(long.contains("t29999 (30000 steps; --json has them all)"));
        assert!(!long.contains("t20 "));
        assert!(
            long.len() < 2500,
            "the state is cut too: {} bytes",
            long.len()
        );
        assert_eq!(
            witness_line("w", &witness(0)).lines().next(),
            Some("w: (the initial state)")
        );
    }
}
