//! The default job (`unfold FILE`, `unfold run FILE`): the unfolding DPOR, and `unfold check
//! --brute`, its brute-force oracle.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, ValueEnum};
use serde_json::Value;

use crate::cli::{
    LimitArgs, Outcome, OutputArgs, common_head, common_tail, describe_stop, emit, read_net,
    witness_line,
};
use crate::cli_guard::Guard;
use unfold::explore::reach::Witness;
use unfold::explore::udpor::{self, Cache, Pick, UdporOptions};
use unfold::explore::{brute, traces};
use unfold::model::net_system::NetSystem;
use unfold::model::program_system::ProgramSystem;
use unfold::report::dot::{
    ConditionNode, EventGraph, EventNode, net_conditions, write_event_graph,
};
use unfold::report::progress::Progress;
use unfold::report::stats::Stats;
use unfold::system::{System, Transition};
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

/// Adequate orders for cutoffs.
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
pub enum OrderArg {
    /// McMillan: smaller local configurations first (not total).
    Size,
    /// Esparza–Römer–Vogler: size, Parikh vector, Foata normal form (total).
    #[default]
    Erv,
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

/// `unfold check`.
#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// The system.
    pub file: PathBuf,
    /// Enumerate every maximal run: traces, events and deadlocks (exponential: small systems
    /// only).
    #[arg(long, required_unless_present = "count", conflicts_with = "count")]
    pub brute: bool,
    /// Count maximal runs and maximal traces without enumerating them, by dynamic
    /// programming over the states (acyclic systems only; no events or deadlocks).
    #[arg(long)]
    pub count: bool,
    /// Longest run enumerated (`--brute`).
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub max_depth: usize,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

fn names<S: System + ?Sized>(sys: &S, run: &[Transition]) -> Vec<String> {
    run.iter()
        .map(|&t| sys.transition_name(t).to_string())
        .collect()
}

/// A witness as JSON, `{"run": [names...], "state": text}`, its strings moved, not copied.
fn witness_json(w: Witness) -> Value {
    let mut object = serde_json::Map::new();
    let run = w.run.into_iter().map(Value::String).collect();
    object.insert("run".into(), Value::Array(run));
    object.insert("state".into(), Value::String(w.state));
    Value::Object(object)
}

/// Runs the unfolding DPOR.
pub fn run(args: &RunArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let Some(file) = &args.file else {
        bail!("no input file: unfold FILE, or unfold --help");
    };
    if args.edpor {
        let edpor_args = crate::cli_edpor::EdporArgs {
            file: file.clone(),
            search_budget: 100_000,
            output: args.output.clone(),
            limits: args.limits.clone(),
        };
        return crate::cli_edpor::run(&edpor_args, interrupt);
    }
    // `--dot -` draws on standard output and sends the human report to standard error.
    let dot_on_stdout = args.dot.as_deref() == Some(std::path::Path::new("-"));
    if dot_on_stdout && args.output.json.as_deref() == Some(std::path::Path::new("-")) {
        bail!("only one of --dot - and --json - can write to standard output");
    }
    let guard = Guard::start(
        args.limits.limits(interrupt),
        "udpor",
        file,
        Some(&args.output),
    );
    let opts = UdporOptions {
        max_depth: args.max_depth,
        max_events: args.max_events,
        alt_k: args.alt,
        pick: match args.pick {
            PickArg::First => Pick::First,
            PickArg::Last => Pick::Last,
            PickArg::Random => Pick::Random(args.seed),
        },
        cutoffs: args.cutoffs.then_some(match args.order {
            OrderArg::Size => Order::Size,
            OrderArg::Erv => Order::Erv,
        }),
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
    };
    // A picture larger than --dot-limit is refused: its conflicts are not worth finding.
    let dot_events = args.dot.is_some().then_some(args.dot_limit);
    let progress = Progress::spinner(args.output.quiet);
    let mut on_progress = |p: udpor::UdporProgress| {
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
        guard.weigh_input(file);
        let bytes = unfold::formats::load(file)?;
        let program = unfold::formats::tsys::parse(&bytes, file)?;
        drop(bytes);
        guard.phase("building the system");
        let sys = ProgramSystem::new(&program).map_err(|e| anyhow!("{}: {e}", file.display()))?;
        guard.phase("exploring");
        let limits = guard.limits();
        let outcome =
            udpor::explore_with_events(&sys, &opts, &limits, &mut on_progress, dot_events)
                .map_err(|o| anyhow!("{}: {o}", file.display()))?;
        progress.finish();
        guard.phase("writing the report");
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
    let (net, _) = read_net(file, &guard)?;
    guard.phase("building the system");
    // Counters start narrow and are widened when a count does not fit, as in `reach`.
    let packed = args.markings == MarkingsArg::Packed && matches!(args.slots, SlotsArg::TokenSets);
    let mut sys = if packed {
        NetSystem::new_packed(&net)
    } else {
        NetSystem::new(&net)
    };
    guard.phase("exploring");
    let limits = guard.limits();
    let start = std::time::Instant::now();
    let mut outcome = loop {
        let r = udpor::explore_with_events(&sys, &opts, &limits, &mut on_progress, dot_events);
        match r {
            Ok(outcome) => break outcome,
            Err(overflow) => match sys.widened() {
                Some(wider) => sys = wider,
                None => bail!("{}: {overflow}", file.display()),
            },
        }
    };
    // Runs restarted with wider counters count too.
    outcome.stats.explore_seconds = start.elapsed().as_secs_f64();
    progress.finish();
    guard.phase("writing the report");
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

/// Leaves `data` to the process's exit, which follows the report: freeing a large model and
/// what was explored piece by piece only costs time (see `UdporOptions::release_memory`).
fn leave_to_exit<T>(data: T) {
    std::mem::forget(data);
}

/// Whether `file` holds a `.tsys` program rather than a net (by extension, or by content that
/// is neither XML nor PEP).
fn is_program(file: &std::path::Path) -> bool {
    if file.extension().is_some_and(|e| e == "tsys") {
        return true;
    }
    // The head of the file is enough, and reading all of a huge net here would pass the
    // memory limit before the input is weighed.
    let mut head = Vec::new();
    let read = std::fs::File::open(file)
        .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 1 << 20), &mut head));
    if read.is_err() {
        return false;
    }
    let text = match std::str::from_utf8(&head) {
        Ok(t) => t,
        // A character cut at the end of the head is fine; invalid UTF-8 before it is not text.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).expect("valid up to there")
        }
        Err(_) => return false,
    };
    unfold::formats::sniff(&head, file).is_none() && text.contains("thread")
}

/// Prints the statistics of a DPOR run on `sys` (and its DOT picture), and maps the outcome.
fn report<S: System + ?Sized>(
    sys: &S,
    name: &str,
    outcome: &udpor::UdporOutcome,
    conditions: Vec<ConditionNode>,
    args: &RunArgs,
    file: &std::path::Path,
    limits: &unfold::explore::limits::Limits,
) -> Result<Outcome> {
    let stats = &outcome.stats;
    let complete = stats.complete();
    let mut out = Stats::new();
    common_head(&mut out, file, "udpor", complete);
    out.add(
        "order",
        "cutoffs",
        if args.cutoffs {
            match args.order {
                OrderArg::Size => "size order",
                OrderArg::Erv => "ERV order",
            }
        } else {
            "off"
        },
    );
    out.add(
        "alternatives",
        "alternatives",
        match args.alt {
            Some(k) => format!("{k}-partial"),
            None => "exact".to_string(),
        },
    );
    out.add(
        "maximal_configurations",
        "maximal configurations",
        stats.maximal_configurations,
    );
    out.add("events", "events", stats.events);
    out.add("cutoffs", "cutoff events", stats.cutoffs);
    out.add(
        "maximal_ended_by_cutoff",
        "ended by a cutoff",
        stats.ended_by_cutoff,
    );
    out.add("blocked", "blocked", stats.blocked);
    out.add("deadlocks", "deadlocks", stats.deadlocks);
    out.add("peak_u", "peak |U|", stats.peak_u);
    out.add("peak_g", "peak |G|", stats.peak_g);
    out.add("event_creations", "event creations", stats.event_creations);
    out.add("cache_hits", "cache hits", stats.cache_hits);
    out.add("cache_misses", "cache misses", stats.cache_misses);
    out.add("cache_evictions", "cache evictions", stats.cache_evictions);
    out.add_json("explorer_bytes", stats.peak_bytes);
    out.add(
        "max_configuration_size",
        "largest configuration",
        stats.max_configuration_size,
    );
    out.add_json("depth_cut", stats.depth_cut);
    out.add_json("alternatives_found", stats.alternatives_found);
    out.add_json("store_bytes", stats.store_bytes);
    out.add_json("cones", if stats.flat_cones { "flat" } else { "tree" });
    out.add_json("slots", stats.slots);
    out.add_json("token_slots", stats.token_slots);
    out.add_json("state_words", sys.state_words());
    out.add_json(
        "history_states",
        if stats.assembled_histories {
            "assembled"
        } else {
            "fired"
        },
    );
    let witness = stats.deadlock_witness.as_ref().map(|run| {
        let mut state = vec![0u64; sys.state_words()];
        sys.initial_state(&mut state);
        for &t in run {
            // The run was fired once already: it cannot overflow now. (In place: a run of n
            // events over states of n words would cost n² copied whole.)
            let fired = sys.fire_in_place(&mut state, t);
            debug_assert!(fired.is_ok());
        }
        Witness {
            run: names(sys, run),
            state: sys.describe_state(&state),
        }
    });
    // The line first, then the witness moves into the JSON value (copied name by name, the
    // witness of a chain of 100 000 steps cost 4 % of the whole run).
    let witness_text = witness
        .as_ref()
        .map(|w| witness_line("deadlock witness", w));
    out.add_json(
        "deadlock_witness",
        witness.map_or(Value::Null, witness_json),
    );
    out.add_json(
        "stopped",
        stats.stopped.map_or(Value::Null, |s| {
            serde_json::to_value(s).unwrap_or(Value::Null)
        }),
    );
    out.add(
        "explore_time_s",
        "exploration time (s)",
        stats.explore_seconds,
    );
    common_tail(&mut out, limits.elapsed().as_secs_f64());
    let mut extra = Vec::new();
    extra.extend(witness_text);
    if let Some(reason) = stats.stopped {
        extra.push(describe_stop(reason));
    } else if stats.depth_cut > 0 {
        extra.push(format!(
            "stopped: {} configurations reached --max-depth {} (runs this long suggest a cyclic \
             system); statistics are incomplete",
            stats.depth_cut, args.max_depth
        ));
    }
    // A drawing that cannot be made (too large, unwritable) is reported after the statistics,
    // which are never lost to it.
    let drawn = |path: &std::path::Path| -> Result<()> {
        let graph = EventGraph {
            caption: format!(
                "{}: {} maximal configurations, {} events, {} cutoffs, {} deadlocks{}",
                name,
                stats.maximal_configurations,
                stats.events,
                stats.cutoffs,
                stats.deadlocks,
                if complete { "" } else { " (incomplete)" }
            ),
            nodes: outcome
                .events
                .iter()
                .map(|e| EventNode {
                    transition: sys.transition_name(e.label).to_string(),
                    preds: e.preds.clone(),
                    cutoff: e.cutoff,
                    corresponding: e.corresponding,
                    in_deadlock: e.in_deadlock,
                })
                .collect(),
            conflicts: outcome.conflicts.clone(),
            conditions,
        };
        let mut text = Vec::new();
        write_event_graph(&graph, args.dot_limit, &mut text)
            .with_context(|| format!("cannot draw {}", path.display()))?;
        if path == std::path::Path::new("-") {
            use std::io::Write;
            std::io::stdout()
                .lock()
                .write_all(&text)
                .context("cannot write the drawing to standard output")?;
        } else {
            std::fs::write(path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    };
    let drawn = args.dot.as_deref().map_or(Ok(()), drawn);
    let dot_on_stdout = args.dot.as_deref() == Some(std::path::Path::new("-"));
    crate::cli::emit_to(&out, &args.output, &extra, dot_on_stdout)?;
    drawn?;
    Ok(if stats.deadlocks > 0 && !args.limits.no_fail {
        Outcome::Found
    } else if !complete {
        Outcome::Stopped
    } else {
        Outcome::Clean
    })
}

/// A count too large for a JSON integer is written as a string of digits.
fn big_count(n: u128) -> Value {
    u64::try_from(n).map_or_else(|_| Value::String(n.to_string()), Value::from)
}

/// Counts maximal runs and traces (`check --count`), widening counters that overflow.
fn count(args: &CheckArgs, guard: &Guard, mut sys: NetSystem) -> Result<Outcome> {
    guard.phase("counting runs and traces");
    let limits = guard.limits();
    let result = loop {
        match traces::count(&sys, &limits) {
            Err(traces::CountError::Overflow(overflow)) => match sys.widened() {
                Some(wider) => sys = wider,
                None => bail!("{}: {overflow}", args.file.display()),
            },
            other => break other,
        }
    };
    guard.phase("writing the report");
    let c = match &result {
        Ok(c) => Some(c.clone()),
        Err(traces::CountError::Stopped(_)) => None,
        Err(e) => bail!("{}: {e}", args.file.display()),
    };
    let mut out = Stats::new();
    common_head(&mut out, &args.file, "count", c.is_some());
    if let Some(c) = &c {
        out.add("runs", "maximal runs", big_count(c.runs));
        out.add(
            "maximal_configurations",
            "maximal traces",
            big_count(c.traces),
        );
        out.add("states", "reachable states", c.states);
    }
    let stopped = match &result {
        Err(traces::CountError::Stopped(s)) => Some(*s),
        _ => None,
    };
    out.add_json(
        "stopped",
        stopped.map_or(Value::Null, |s| {
            serde_json::to_value(s).unwrap_or(Value::Null)
        }),
    );
    common_tail(&mut out, limits.elapsed().as_secs_f64());
    let extra: Vec<String> = stopped.map(describe_stop).into_iter().collect();
    emit(&out, &args.output, &extra)?;
    Ok(if c.is_some() {
        Outcome::Clean
    } else {
        Outcome::Stopped
    })
}

/// Runs the brute-force oracle.
pub fn check(args: &CheckArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let guard = Guard::start(
        args.limits.limits(interrupt),
        "brute",
        &args.file,
        Some(&args.output),
    );
    let (net, _) = read_net(&args.file, &guard)?;
    let mut sys = NetSystem::new(&net);
    if args.count {
        return count(args, &guard, sys);
    }
    guard.phase("enumerating runs");
    let limits = guard.limits();
    let b = loop {
        match brute::enumerate(&sys, args.max_depth, &limits) {
            Ok(b) => break b,
            Err(overflow) => match sys.widened() {
                Some(wider) => sys = wider,
                None => bail!("{}: {overflow}", args.file.display()),
            },
        }
    };
    guard.phase("writing the report");
    let complete = b.stopped.is_none();
    let mut out = Stats::new();
    common_head(&mut out, &args.file, "brute", complete);
    out.add("runs", "maximal runs", b.runs);
    out.add("maximal_configurations", "distinct traces", b.traces);
    out.add("events", "distinct events", b.events);
    out.add("deadlocks", "deadlocks", b.deadlocks);
    out.add_json(
        "stopped",
        b.stopped.map_or(Value::Null, |s| {
            serde_json::to_value(s).unwrap_or(Value::Null)
        }),
    );
    common_tail(&mut out, limits.elapsed().as_secs_f64());
    let extra: Vec<String> = b.stopped.map(describe_stop).into_iter().collect();
    emit(&out, &args.output, &extra)?;
    Ok(if !complete {
        Outcome::Stopped
    } else if b.deadlocks > 0 && !args.limits.no_fail {
        Outcome::Found
    } else {
        Outcome::Clean
    })
}
