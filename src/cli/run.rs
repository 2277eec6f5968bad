//! The default job (`unfold FILE`, `unfold run FILE`): the unfolding DPOR on a net or a
//! program, with its report and its picture.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, ValueEnum};

use super::shared::{
    LimitArgs, OrderArg, Outcome, OutputArgs, check_output_paths, emit_to, read_net, read_program,
    watch,
};
use unfold::explore::udpor::{self, Cache, Pick, UdporOptions, UdporOutcome};
use unfold::model::net_system::NetSystem;
use unfold::model::program_system::ProgramSystem;
use unfold::modes::dpor::{self, Settings};
use unfold::report::dot::{
    ConditionNode, net_conditions, refusal, refusal_ahead, write_event_graph,
};
use unfold::report::progress::Progress;
use unfold::system::System;
use unfold::unfolding::cone::ConeLayout;
use unfold::unfolding::event::HistoryStates;
use unfold::unfolding::order::Order;
use unfold::unfolding::slots::SlotCover;

/// Event selection orders of `Explore`.
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
pub enum PickArg {
    /// The first enabled event found.
    #[default]
    First,
    /// The last enabled event found.
    Last,
    /// A pseudo-random one (see `--seed`).
    Random,
}

/// What becomes of the events `Remove` takes out of `U`.
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
pub enum CacheArg {
    /// Keep them as a cache while `--mem-limit` allows (least recently used evicted first).
    #[default]
    On,
    /// Drop them at every Remove (smallest memory; events are rebuilt when needed again).
    Off,
}

/// Which cliques of dependent transitions the events' slots are.
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
pub enum SlotsArg {
    /// One slot per clique of a place's accessors, and one for all the transitions that
    /// move the token of a one-token state-machine component (a process's control
    /// locations), found by a quick analysis of the net and checked.
    #[default]
    TokenSets,
    /// One slot per clique of a place's accessors only.
    Resources,
}

/// How a net's markings are encoded in the states the explorer stores.
#[derive(Clone, Copy, Debug, ValueEnum, Default, PartialEq, Eq)]
pub enum MarkingsArg {
    /// The places of each one-token component (the ones `--slots token-sets` finds) share one
    /// field naming the marked place: a process's control locations, or a chain of a million
    /// places, take a few bits. Nets that need counters wider than one bit, or whose states
    /// packing would not shorten, are plain.
    #[default]
    Packed,
    /// One counter per place.
    Plain,
}

/// How the events' cones (their last event on every slot) are stored.
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
pub enum ConesArg {
    /// Trees sharing their common blocks, made flat arrays after 8192 events if that costs at
    /// most a tenth more memory.
    #[default]
    Auto,
    /// Trees throughout.
    Tree,
    /// Flat arrays from the start on systems with at most 128 slots (faster there, and often
    /// larger), trees on the others.
    Flat,
}

/// How the state of a new event's history is computed.
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
pub enum HistoryStatesArg {
    /// Assembled from the states of the history's last events on its slots where the system
    /// allows it (nets with 1-bit counters), fired otherwise.
    #[default]
    Auto,
    /// Fired: the events of the history outside its largest predecessor's local
    /// configuration, one by one.
    Fire,
}

/// `unfold run` (and `unfold FILE`).
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// The system (PNML or PEP net; the format is sniffed from the content).
    #[arg(required = true)]
    pub file: Option<PathBuf>,
    /// Do not extend configurations past N events (systems with infinite runs).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_depth: usize,
    /// Stop once N distinct events were created (the statistics are then incomplete): a bound
    /// on the work that gives the same run on every machine, unlike `--timeout`.
    #[arg(long, value_name = "N")]
    pub max_events: Option<u64>,
    /// k-partial alternatives: search the comb over the last K unjustified events only
    /// (polynomial; some runs may end blocked). Default: exact alternatives.
    #[arg(long, value_name = "K")]
    pub alt: Option<usize>,
    /// How to pick the next event among the enabled ones.
    #[arg(long, value_enum, default_value_t = PickArg::First)]
    pub pick: PickArg,
    /// Seed of `--pick random`.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Cutoff events: stop extending a configuration where an earlier event reached the same
    /// state with a smaller local configuration (terminates on every finite-state system).
    #[arg(long)]
    pub cutoffs: bool,
    /// The adequate order deciding cutoffs.
    #[arg(long, value_enum, default_value_t = OrderArg::Erv)]
    pub order: OrderArg,
    /// The cache of events taken out of `U` (the garbage set G), bounded by `--mem-limit`.
    #[arg(long, value_enum, default_value_t = CacheArg::On)]
    pub cache: CacheArg,
    /// The layout of the events' cones: a speed and memory trade-off; the results do not
    /// depend on it.
    #[arg(long, value_enum, default_value_t = ConesArg::Auto)]
    pub cones: ConesArg,
    /// How the states of new events' histories are computed: a speed trade-off; the results
    /// do not depend on it.
    #[arg(long, value_enum, default_value_t = HistoryStatesArg::Auto)]
    pub history_states: HistoryStatesArg,
    /// Which cliques of dependent transitions the events' slots are: a speed and memory
    /// trade-off. Without cutoffs the results do not depend on it; with cutoffs the order of
    /// exploration does, and with it how many events and configurations are explored (not
    /// the deadlocks and states found).
    #[arg(long, value_enum, default_value_t = SlotsArg::TokenSets)]
    pub slots: SlotsArg,
    /// How markings are encoded: a speed and memory trade-off. Packed fields may need a slot
    /// of their own, so as with `--slots`, with cutoffs the order of exploration may change
    /// (not the deadlocks and states found). `--slots resources` makes no such slots: plain.
    #[arg(long, value_enum, default_value_t = MarkingsArg::Packed)]
    pub markings: MarkingsArg,
    /// Write the explored events as a GraphViz DOT graph to OUT.
    #[arg(long, value_name = "OUT")]
    pub dot: Option<PathBuf>,
    /// Draw the occurrence-net view in `--dot`: conditions as circles between the events, as
    /// Cunf and Mole draw prefixes (safe nets only).
    #[arg(long, requires = "dot")]
    pub dot_conditions: bool,
    /// Refuse DOT renderings with more nodes than this.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub dot_limit: usize,
    /// Run Event-DPOR instead (a `.tsys` program; same as `unfold edpor FILE`).
    #[arg(long)]
    pub edpor: bool,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs the unfolding DPOR.
pub fn run(args: &RunArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let Some(file) = &args.file else {
        bail!("no input file: unfold FILE, or unfold --help");
    };
    // `--dot -` draws on standard output and sends the human report to standard error.
    let dot_on_stdout = args.dot.as_deref() == Some(Path::new("-"));
    if dot_on_stdout && args.output.json.as_deref() == Some(Path::new("-")) {
        bail!("only one of --dot - and --json - can write to standard output");
    }
    check_output_paths([
        ("--dot", args.dot.as_deref()),
        ("--json", args.output.json.as_deref()),
    ])?;
    let watchdog = watch(
        args.limits.limits(interrupt),
        "udpor",
        file,
        Some(&args.output),
    );
    let opts = options(args);
    // A picture larger than --dot-limit is refused: its conflicts are not worth finding.
    let dot_events = args.dot.is_some().then_some(args.dot_limit);
    let progress = Progress::spinner(args.output.quiet);
    // A drawing too large is said at once, as the events pass the limit; the run goes on.
    let mut said = false;
    let counters = watchdog.counters(&[
        ("maximal_configurations", "maximal configurations"),
        ("events", "events"),
        ("depth", "current configuration size"),
    ]);
    let mut on_progress = |p: udpor::UdporProgress| {
        counters.set(0, p.maximal_configurations);
        counters.set(1, p.events);
        counters.set(2, p.depth as u64);
        if let Some(limit) = dot_events
            && !said
            && p.events as usize > limit
        {
            said = true;
            progress.suspend(|| {
                eprintln!(
                    "warning: {}",
                    refusal_ahead("the explored unfolding", limit)
                );
            });
        }
        progress.set_message(|| {
            format!(
                "{} maximal configurations, {} events, depth {}",
                p.maximal_configurations, p.events, p.depth
            )
        })
    };
    if is_program(file) {
        if args.dot_conditions {
            bail!(
                "{}: --dot-conditions draws nets only (a program has no conditions)",
                file.display()
            );
        }
        let program = read_program(file, &watchdog)?;
        watchdog.phase("building the system");
        let sys = ProgramSystem::new(&program).map_err(|e| anyhow!("{}: {e}", file.display()))?;
        watchdog.phase("exploring");
        let limits = watchdog.limits();
        let outcome =
            udpor::explore_with_events(&sys, &opts, &limits, &mut on_progress, dot_events)
                .map_err(|o| anyhow!("{}: {o}", file.display()))?;
        progress.finish();
        watchdog.phase("writing the report");
        let result = report(
            &sys,
            &program.name,
            &outcome,
            Vec::new(),
            args,
            file,
            &limits,
        );
        leave_to_exit((sys, outcome));
        leave_to_exit(program);
        return result;
    }
    let (net, _) = read_net(file, &watchdog)?;
    watchdog.phase("building the system");
    // Counters start narrow and are widened when a count does not fit, as in `reach`.
    let packed = args.markings == MarkingsArg::Packed && matches!(args.slots, SlotsArg::TokenSets);
    let sys = if packed {
        NetSystem::new_packed(&net)
    } else {
        NetSystem::new(&net)
    };
    watchdog.phase("exploring");
    let limits = watchdog.limits();
    let (outcome, sys) = dpor::explore_net(sys, &opts, &limits, &mut on_progress, dot_events)
        .map_err(|overflow| anyhow!("{}: {overflow}", file.display()))?;
    progress.finish();
    watchdog.phase("writing the report");
    let conditions = if args.dot_conditions {
        net_conditions(&net, &outcome.events).map_err(|e| anyhow!("{}: {e}", file.display()))?
    } else {
        Vec::new()
    };
    let result = report(&sys, &net.name, &outcome, conditions, args, file, &limits);
    leave_to_exit((sys, outcome));
    leave_to_exit(net);
    result
}

/// The explorer's options from the command line.
fn options(args: &RunArgs) -> UdporOptions {
    UdporOptions {
        max_depth: args.max_depth,
        max_events: args.max_events,
        alt_k: args.alt,
        pick: match args.pick {
            PickArg::First => Pick::First,
            PickArg::Last => Pick::Last,
            PickArg::Random => Pick::Random(args.seed),
        },
        cutoffs: cutoff_order(args),
        record_states: false,
        cache: match args.cache {
            CacheArg::On => Cache::Bounded,
            CacheArg::Off => Cache::Off,
        },
        cones: match args.cones {
            ConesArg::Auto => ConeLayout::Auto,
            ConesArg::Tree => ConeLayout::Tree,
            ConesArg::Flat => ConeLayout::Flat,
        },
        history_states: match args.history_states {
            HistoryStatesArg::Auto => HistoryStates::Auto,
            HistoryStatesArg::Fire => HistoryStates::Fire,
        },
        slots: match args.slots {
            SlotsArg::TokenSets => SlotCover::TokenSets,
            SlotsArg::Resources => SlotCover::Resources,
        },
        // The process ends after this one run: its memory goes back to the system at exit.
        release_memory: false,
        ..UdporOptions::default()
    }
}

/// The adequate order of the cutoffs, if they are on.
fn cutoff_order(args: &RunArgs) -> Option<Order> {
    args.cutoffs.then_some(args.order.into())
}

/// Leaves `data` to the process's exit, which follows the report: freeing a large model and
/// what was explored piece by piece only costs time (see `UdporOptions::release_memory`).
fn leave_to_exit<T>(data: T) {
    std::mem::forget(data);
}

/// Whether `file` holds a `.tsys` program rather than a net.
fn is_program(file: &Path) -> bool {
    unfold::formats::detect_file(file) == Some(unfold::formats::Format::Tsys)
}

/// Prints the report of a DPOR run on `sys` (and its DOT picture), and maps the outcome.
fn report<S: System + ?Sized>(
    sys: &S,
    name: &str,
    outcome: &UdporOutcome,
    conditions: Vec<ConditionNode>,
    args: &RunArgs,
    file: &Path,
    limits: &unfold::explore::limits::Limits,
) -> Result<Outcome> {
    let settings = Settings {
        cutoffs: cutoff_order(args),
        alt: args.alt,
        max_depth: args.max_depth,
    };
    let report = dpor::report(sys, outcome, &settings, file, limits.elapsed());
    // A drawing that cannot be made is reported after the statistics, which are never lost to
    // it; one too large keeps the run's answer and exit code.
    let nodes = outcome.events.len() + conditions.len();
    let refused = args.dot.is_some() && nodes > args.dot_limit;
    let drawn = |path: &Path| -> Result<()> {
        let graph = dpor::event_graph(sys, name, outcome, conditions);
        let mut text = Vec::new();
        write_event_graph(&graph, args.dot_limit, &mut text)
            .with_context(|| format!("cannot draw {}", path.display()))?;
        super::shared::write_output(path, &text)
    };
    let drawn = args
        .dot
        .as_deref()
        .filter(|_| !refused)
        .map_or(Ok(()), drawn);
    let dot_on_stdout = args.dot.as_deref() == Some(Path::new("-"));
    emit_to(&report.stats, &args.output, &report.notes, dot_on_stdout)?;
    drawn?;
    if refused {
        eprintln!(
            "warning: {}",
            refusal("the explored unfolding", nodes, args.dot_limit)
        );
    }
    Ok(Outcome::of(&report, args.limits.no_fail))
}
