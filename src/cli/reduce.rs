//! `unfold reduce`: a net reduced by the structural reductions that preserve a chosen class of
//! properties, written as PNML or PEP, with a summary of the rules applied.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Result, bail};
use clap::Args;

use super::shared::{
    NetFormat, Outcome, OutputArgs, ReadLimitArgs, emit_to, output_format, parse_duration,
    read_net, watch, write_net_file,
};
use unfold::model::net::{Net, PlaceIdx, TransIdx};
use unfold::report::stats::Stats;
use unfold::structural::Budget;
use unfold::structural::reduce::{Preserve, reduce};

/// `unfold reduce`.
#[derive(Args, Debug)]
pub struct ReduceArgs {
    /// The net to read.
    pub input: PathBuf,
    /// The file to write (`-` for standard output; the summary then goes to standard error).
    pub output: PathBuf,
    /// What the reduction must preserve: `deadlock`; `places:p1,t2,…` (the reachable
    /// markings of the named places and the fireability of the named transitions);
    /// `ltl-x:p1,t2,…` (LTL without next on them, and deadlocks); `liveness` (whether every
    /// transition is live). Names are identifiers or labels.
    #[arg(long, value_name = "CLASS")]
    pub preserve: String,
    /// Output format (default: from the output file's extension).
    #[arg(long)]
    pub to: Option<NetFormat>,
    /// Time for the structural facts and the rules (e.g. `2s`).
    #[arg(long, value_name = "TIME", default_value = "2s", value_parser = parse_duration)]
    pub budget: Duration,
    #[command(flatten)]
    pub report: OutputArgs,
    #[command(flatten)]
    pub limits: ReadLimitArgs,
}

/// The class of `--preserve`, names resolved against `net`.
fn preserve_of(text: &str, net: &Net) -> Result<Preserve> {
    let (class, names) = match text.split_once(':') {
        Some((c, n)) => (c, n),
        None => (text, ""),
    };
    let mut places = Vec::new();
    let mut transitions = Vec::new();
    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let place = net
            .places
            .iter()
            .position(|p| p.id == name || p.label == name);
        let transition = net
            .transitions
            .iter()
            .position(|t| t.id == name || t.label == name);
        match (place, transition) {
            (Some(p), _) => places.push(p as PlaceIdx),
            (None, Some(t)) => transitions.push(t as TransIdx),
            (None, None) => bail!("no place or transition named '{name}' in the net"),
        }
    }
    Ok(match class {
        "deadlock" if names.is_empty() => Preserve::Deadlock,
        "liveness" if names.is_empty() => Preserve::Liveness,
        "places" => Preserve::Reachability {
            places,
            transitions,
        },
        "ltl-x" => Preserve::LtlX {
            places,
            transitions,
        },
        _ => bail!(
            "--preserve takes deadlock, liveness, places:NAME,… or ltl-x:NAME,…, not '{text}'"
        ),
    })
}

/// Runs `unfold reduce`.
pub fn run(args: &ReduceArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let to_stdout = args.output == Path::new("-");
    let watchdog = watch(
        args.limits.limits(interrupt),
        "reduce",
        &args.input,
        Some(&args.report),
    );
    let format = output_format(args.to, &args.output)?;
    let (net, _) = read_net(&args.input, &watchdog)?;
    let preserve = preserve_of(&args.preserve, &net)?;
    watchdog.phase("reducing the net");
    let start = std::time::Instant::now();
    let budget = Budget {
        time: args.budget,
        ..Budget::default()
    };
    let reduction = reduce(&net, &preserve, &budget);
    let elapsed = start.elapsed();
    watchdog.phase("writing the output");
    write_net_file(&reduction.net, format, &args.output)?;
    let (b, a) = (reduction.before, reduction.after);
    let mut stats = Stats::new();
    stats.add("places_before", "places before", b.places as u64);
    stats.add("places_after", "places after", a.places as u64);
    stats.add(
        "transitions_before",
        "transitions before",
        b.transitions as u64,
    );
    stats.add(
        "transitions_after",
        "transitions after",
        a.transitions as u64,
    );
    stats.add("arcs_before", "arcs before", b.arcs as u64);
    stats.add("arcs_after", "arcs after", a.arcs as u64);
    stats.add("fixpoint", "fixpoint reached", reduction.complete);
    stats.add("time_s", "time (s)", elapsed.as_secs_f64());
    let rules: serde_json::Map<String, serde_json::Value> = reduction
        .rules
        .iter()
        .map(|&(name, n)| (name.to_string(), serde_json::Value::from(n as u64)))
        .collect();
    stats.add_json("rules", serde_json::Value::Object(rules));
    let lines: Vec<String> = reduction
        .rules
        .iter()
        .map(|(name, n)| format!("rule {name}: {n}"))
        .collect();
    emit_to(&stats, &args.report, &lines, to_stdout)?;
    Ok(Outcome::Clean)
}
