//! `unfold mcc`: the Model Checking Contest's BenchKit entry point.
//!
//! In an instance folder (`model.pnml`, `iscolored`) it answers the examination named by
//! `BK_EXAMINATION` (or `--examination`) within `BK_TIME_CONFINEMENT` seconds and
//! `BK_MEMORY_CONFINEMENT` MiB, printing the contest's answer lines on standard output and
//! nothing else there; how the answer was found goes to standard error. Every contest string
//! comes from [`unfold::report::mcc`].
//!
//! Exit codes: 0 answered (or `DO_NOT_COMPETE`), 3 `CANNOT_COMPUTE` because a limit stopped
//! the run, 2 bad input or usage (`CANNOT_COMPUTE` is printed too).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Result, anyhow, bail};
use clap::{Args, ValueEnum};

use crate::cli::{LimitArgs, Outcome, parse_duration, parse_size, read_net};
use unfold::explore::global::{self, GlobalRun, Property};
use unfold::explore::limits::{Limits, StopReason};
use unfold::explore::prefix::{self, DeadlockAnswer, PrefixOptions};
use unfold::explore::reach::reach_net;
use unfold::explore::udpor::{self, UdporOptions};
use unfold::model::net::Net;
use unfold::model::net_system::NetSystem;
use unfold::report::mcc::{
    CANNOT_COMPUTE, COLORED_TRUE, DO_NOT_COMPETE, ENV_EXAMINATION, ENV_MEMORY, ENV_TIME,
    Examination, ISCOLORED_FILE, MODEL_FILE, StateSpaceAnswer, Technique, formula_line,
    state_space_lines,
};
use unfold::unfolding::order::Order;

/// How ReachabilityDeadlock is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DeadlockMethod {
    /// The complete prefix on nets that look 1-safe (half the time budget), else or then the
    /// explicit state space.
    Auto,
    /// Explicit state space (stops at the first deadlock).
    Reach,
    /// The complete finite prefix (1-safe nets; others fall back to `reach`).
    Prefix,
    /// The unfolding DPOR with cutoffs (ERV order).
    Dpor,
}

/// `unfold mcc`.
#[derive(Args, Debug)]
pub struct MccArgs {
    /// The instance folder, holding `model.pnml` and `iscolored`.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// The examination (default: `$BK_EXAMINATION`).
    #[arg(long, value_name = "NAME")]
    pub examination: Option<String>,
    /// How ReachabilityDeadlock is decided.
    #[arg(long, value_enum, default_value_t = DeadlockMethod::Auto)]
    pub deadlock_method: DeadlockMethod,
    /// Time budget (default: `$BK_TIME_CONFINEMENT` seconds, less 5 % for answering).
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// Memory budget of the explorers' data (default: three quarters of
    /// `$BK_MEMORY_CONFINEMENT` MiB, the rest being the net, the allocator and the process).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub mem_limit: Option<u64>,
}

/// Reads a numeric BenchKit variable, if set.
fn env_number(name: &str) -> Result<Option<f64>> {
    match std::env::var(name) {
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => match v.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && x > 0.0 => Ok(Some(x)),
            _ => bail!("{name}={v} is not a positive number"),
        },
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(e) => bail!("{name}: {e}"),
    }
}

/// The limits of the run (flags first, then the BenchKit variables), and its time budget.
fn limits(args: &MccArgs, interrupt: Arc<AtomicBool>) -> Result<(Limits, Option<Duration>)> {
    let timeout = match args.timeout {
        Some(t) => Some(t),
        None => env_number(ENV_TIME)?.map(|s| Duration::from_secs_f64(s * 0.95)),
    };
    let mem_limit = match args.mem_limit {
        Some(m) => Some(m),
        None => env_number(ENV_MEMORY)?.map(|mib| (mib * 1024.0 * 1024.0 * 0.75) as u64),
    };
    let limits = LimitArgs {
        timeout,
        mem_limit,
        no_fail: false,
    }
    .limits(interrupt);
    Ok((limits, timeout))
}

/// Whether the folder declares a coloured net.
fn is_colored(dir: &Path) -> Result<bool> {
    let path = dir.join(ISCOLORED_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(text.trim() == COLORED_TRUE),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(anyhow!("cannot read {}: {e}", path.display())),
    }
}

/// Prints one line of the answer.
fn answer(line: &str) {
    println!("{line}");
}

/// Logs how the answer was found (standard error: standard output is the contest's).
fn note(exam: Examination, text: &str) {
    eprintln!("unfold mcc: {exam}: {text}");
}

/// Runs `unfold mcc`.
pub fn run(args: &MccArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let name = match &args.examination {
        Some(n) => n.clone(),
        None => std::env::var(ENV_EXAMINATION)
            .map_err(|_| anyhow!("no examination: set {ENV_EXAMINATION} or give --examination"))?,
    };
    let result = run_examination(args, &name, interrupt);
    if result.is_err() {
        // The contest reads standard output only: say that no answer is coming.
        answer(CANNOT_COMPUTE);
    }
    result
}

fn run_examination(args: &MccArgs, name: &str, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    if is_colored(&args.dir)? {
        eprintln!("unfold mcc: coloured nets are not supported");
        answer(DO_NOT_COMPETE);
        return Ok(Outcome::Clean);
    }
    let Some(exam) = Examination::from_name(name) else {
        eprintln!("unfold mcc: examination {name} is not supported");
        answer(DO_NOT_COMPETE);
        return Ok(Outcome::Clean);
    };
    let (limits, budget) = limits(args, interrupt.clone())?;
    let model = args.dir.join(MODEL_FILE);
    // The guard holds the time limit while the model is read; memory is left to the checks
    // below, which answer CANNOT_COMPUTE (the guard would end the process without an answer
    // line, and the contest reads answer lines only).
    let guard =
        crate::cli_guard::Guard::start(limits.clone().with_mem_limit(None), "mcc", &model, None);
    let net = match read_net(&model, &guard) {
        Ok((net, _)) => net,
        // A coloured net in a folder without `iscolored`: the reader refuses it by name.
        Err(e) if format!("{e:#}").contains("coloured nets are not supported") => {
            eprintln!("unfold mcc: {e:#}");
            answer(DO_NOT_COMPETE);
            return Ok(Outcome::Clean);
        }
        Err(e) => return Err(e),
    };
    let stopped = match exam {
        Examination::StateSpace => state_space(&net, &limits)?,
        Examination::ReachabilityDeadlock => {
            deadlock(&net, args.deadlock_method, &limits, budget, &interrupt)?
        }
        Examination::OneSafe => {
            global_property(exam, &net, Property::OneSafe, &limits, &interrupt)?
        }
        Examination::QuasiLiveness => {
            global_property(exam, &net, Property::QuasiLiveness, &limits, &interrupt)?
        }
        Examination::StableMarking => {
            global_property(exam, &net, Property::StableMarking, &limits, &interrupt)?
        }
        Examination::Liveness => {
            global_property(exam, &net, Property::Liveness, &limits, &interrupt)?
        }
    };
    note(exam, &format!("{:.3} s", limits.elapsed().as_secs_f64()));
    Ok(match stopped {
        Some(reason) => {
            note(exam, &format!("stopped: {reason}"));
            Outcome::Stopped
        }
        None => Outcome::Clean,
    })
}

const EXPLICIT: &[Technique] = &[Technique::Explicit, Technique::SequentialProcessing];
const UNFOLDING: &[Technique] = &[Technique::NetUnfolding, Technique::SequentialProcessing];

/// StateSpace: the four figures of `unfold reach`, or `CANNOT_COMPUTE`.
fn state_space(net: &Net, limits: &Limits) -> Result<Option<StopReason>> {
    let r = reach_net(net, limits, &mut |_| {}).map_err(|o| anyhow!("{MODEL_FILE}: {o}"))?;
    if let Some(reason) = r.stopped {
        note(
            Examination::StateSpace,
            &format!("{} markings found before the limit", r.states),
        );
        answer(CANNOT_COMPUTE);
        return Ok(Some(reason));
    }
    let figures = StateSpaceAnswer {
        states: r.states,
        transitions: r.edges,
        max_token_in_place: r.max_tokens_in_place,
        max_token_per_marking: r.max_tokens_per_marking,
    };
    for line in state_space_lines(&figures, EXPLICIT) {
        answer(&line);
    }
    Ok(None)
}

/// Prints the verdict of a global-property run; returns what stopped it without one.
fn report_global(exam: Examination, run: &GlobalRun, by: &[Technique]) -> Option<StopReason> {
    if let Some(why) = &run.evidence {
        note(exam, why);
    }
    note(
        exam,
        &format!(
            "{} markings{}",
            run.states,
            if run.early { " (decided early)" } else { "" }
        ),
    );
    answer(&formula_line(exam, run.verdict, by));
    if run.verdict.is_none() {
        run.stopped.or(Some(StopReason::Interrupted))
    } else {
        None
    }
}

/// An examination decided on the explicit reachability graph.
fn global_property(
    exam: Examination,
    net: &Net,
    property: Property,
    limits: &Limits,
    interrupt: &AtomicBool,
) -> Result<Option<StopReason>> {
    let run = global::decide(net, property, limits, Some(interrupt), &mut |_| {})
        .map_err(|o| anyhow!("{MODEL_FILE}: {o}"))?;
    Ok(report_global(exam, &run, EXPLICIT))
}

/// ReachabilityDeadlock, by the chosen method.
fn deadlock(
    net: &Net,
    method: DeadlockMethod,
    limits: &Limits,
    budget: Option<Duration>,
    interrupt: &Arc<AtomicBool>,
) -> Result<Option<StopReason>> {
    let exam = Examination::ReachabilityDeadlock;
    let explicit =
        |limits: &Limits| global_property(exam, net, Property::Deadlock, limits, interrupt);
    match method {
        DeadlockMethod::Reach => explicit(limits),
        DeadlockMethod::Dpor => deadlock_dpor(net, limits),
        DeadlockMethod::Prefix => match deadlock_prefix(net, limits)? {
            PrefixVerdict::Decided(stopped) => Ok(stopped),
            PrefixVerdict::NotSafe(why) => {
                note(
                    exam,
                    &format!("{why}; deciding on the explicit state space"),
                );
                explicit(limits)
            }
            PrefixVerdict::Stopped(reason) => {
                answer(&formula_line(exam, None, UNFOLDING));
                Ok(Some(reason))
            }
        },
        DeadlockMethod::Auto => {
            if !looks_safe(net) {
                return explicit(limits);
            }
            // Half the remaining time for the prefix, then whatever is left for the state space.
            let first = budget.map(|t| t.saturating_sub(limits.elapsed()) / 2);
            let prefix_limits =
                Limits::new(first, limits.mem_limit()).with_interrupt_flag(interrupt.clone());
            match deadlock_prefix(net, &prefix_limits)? {
                PrefixVerdict::Decided(stopped) => Ok(stopped),
                PrefixVerdict::NotSafe(why) => {
                    note(
                        exam,
                        &format!("{why}; deciding on the explicit state space"),
                    );
                    explicit(limits)
                }
                PrefixVerdict::Stopped(StopReason::Interrupted) => {
                    answer(&formula_line(exam, None, UNFOLDING));
                    Ok(Some(StopReason::Interrupted))
                }
                PrefixVerdict::Stopped(reason) => {
                    note(
                        exam,
                        &format!("prefix stopped ({reason}); trying the state space"),
                    );
                    explicit(limits)
                }
            }
        }
    }
}

/// Nets whose initial marking and arc weights are at most 1 (the prefix's domain, unless a
/// run puts two tokens on a place, which the prefix detects).
fn looks_safe(net: &Net) -> bool {
    net.certified_safe() || (net.places.iter().all(|p| p.initial <= 1) && net.max_weight() <= 1)
}

/// What the prefix said about deadlocks.
enum PrefixVerdict {
    /// Answered (the line is printed).
    Decided(Option<StopReason>),
    /// The net is not 1-safe (the reason).
    NotSafe(String),
    /// A limit stopped it (nothing printed).
    Stopped(StopReason),
}

fn deadlock_prefix(net: &Net, limits: &Limits) -> Result<PrefixVerdict> {
    let exam = Examination::ReachabilityDeadlock;
    let options = PrefixOptions {
        order: prefix::Order::Erv,
        deadlock: true,
    };
    let r = match prefix::unfold_prefix(net, options, limits, &mut |_| {}) {
        Ok(r) => r,
        Err(not_safe) => return Ok(PrefixVerdict::NotSafe(not_safe.to_string())),
    };
    let verdict = match r.deadlock {
        Some(DeadlockAnswer::Free) => false,
        Some(DeadlockAnswer::Found(config)) => {
            note(
                exam,
                &format!(
                    "a configuration of {} events ends in a deadlock",
                    config.len()
                ),
            );
            true
        }
        Some(DeadlockAnswer::Unknown(reason)) => return Ok(PrefixVerdict::Stopped(reason)),
        None => unreachable!("the deadlock answer was asked for"),
    };
    note(
        exam,
        &format!(
            "complete prefix: {} events, {} cutoffs",
            r.prefix.events.len(),
            r.prefix.cutoffs()
        ),
    );
    answer(&formula_line(exam, Some(verdict), UNFOLDING));
    Ok(PrefixVerdict::Decided(None))
}

fn deadlock_dpor(net: &Net, limits: &Limits) -> Result<Option<StopReason>> {
    let exam = Examination::ReachabilityDeadlock;
    let opts = UdporOptions {
        // Cutoffs make every run finite on a bounded net; the limits stop the others.
        max_depth: usize::MAX,
        cutoffs: Some(Order::Erv),
        ..UdporOptions::default()
    };
    let mut sys = NetSystem::new(net);
    let stats = loop {
        match udpor::explore(&sys, &opts, limits, &mut |_| {}) {
            Ok(s) => break s,
            Err(overflow) => match sys.widened() {
                Some(wider) => sys = wider,
                None => bail!("{MODEL_FILE}: {overflow}"),
            },
        }
    };
    note(
        exam,
        &format!(
            "unfolding DPOR: {} maximal configurations, {} events, {} cutoffs",
            stats.maximal_configurations, stats.events, stats.cutoffs
        ),
    );
    // A deadlock found is one, whether or not the exploration finished.
    let verdict = if stats.deadlocks > 0 {
        Some(true)
    } else if stats.complete() {
        Some(false)
    } else {
        None
    };
    answer(&formula_line(exam, verdict, UNFOLDING));
    Ok(match verdict {
        Some(_) => None,
        None => Some(stats.stopped.unwrap_or(StopReason::DepthLimit)),
    })
}
