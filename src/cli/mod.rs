//! The binary's edge: the clap commands, one module per subcommand, each turning its options
//! into a call of the library and its report into output and an exit code. No algorithm
//! lives here, and nothing a test or another program would want to call.
//!
//! Arrows: this module → the subcommands → [`shared`] → [`process`]; [`process`] imports only
//! the library (`tests/layers.rs` checks it).

pub mod batch;
pub mod check;
pub mod convert;
pub mod docs;
pub mod edpor;
pub mod info;
pub mod mcc;
pub mod prefix;
pub mod process;
pub mod reach;
pub mod reduce;
pub mod run;
pub mod shared;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Result;
use clap::{Parser, Subcommand};

pub use shared::Outcome;

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
    pub run: run::RunArgs,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// The stateless unfolding-based DPOR: explore every maximal configuration once.
    Run(run::RunArgs),
    /// Brute-force oracle: enumerate every maximal run, count traces and events.
    Check(check::CheckArgs),
    /// Event-DPOR on a `.tsys` program: one execution per happens-before class.
    Edpor(edpor::EdporArgs),
    /// Describe a net: sizes, arcs, weights, structural class.
    Info(info::InfoArgs),
    /// Explicit-state reachability: states, edges, deadlocks, token bounds, 1-safety.
    Reach(reach::ReachArgs),
    /// Convert a net between PNML and PEP (`.ll_net`).
    Convert(convert::ConvertArgs),
    /// Reduce a net by structural reductions preserving deadlocks, reachability or LTL-X.
    Reduce(reduce::ReduceArgs),
    /// Complete finite prefix of a safe net's unfolding (Esparza–Römer–Vogler).
    Prefix(prefix::PrefixArgs),
    /// Run modes (and other tools) over benchmark suites, one CSV row per run.
    Batch(batch::BatchArgs),
    /// Model Checking Contest entry point: answer $BK_EXAMINATION on ./model.pnml.
    Mcc(mcc::MccArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(docs::CompletionsArgs),
    /// Print the manual page (`unfold man | man -l -`), or write all pages with `--out DIR`.
    Man(docs::ManArgs),
}

/// The subcommand the user probably meant when the first argument is no file and no
/// subcommand but a word close to one (`unfold prefx net.ll_net`): without this, clap takes the
/// word for the default job's file and reports the next argument instead.
pub fn misspelt_subcommand(args: &[std::ffi::OsString]) -> Option<(String, String)> {
    let first = args.get(1)?.to_str()?;
    if first.starts_with('-') || first.contains(['.', '/']) || std::path::Path::new(first).exists()
    {
        return None;
    }
    let command = <Cli as clap::CommandFactory>::command();
    let names: Vec<String> = command
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    if names.iter().any(|n| n == first) {
        return None;
    }
    names
        .into_iter()
        .map(|n| (strsim::damerau_levenshtein(first, &n), n))
        .filter(|(d, n)| *d <= 2 && *d < n.len())
        .min()
        .map(|(_, n)| (first.to_string(), n))
}

/// Runs the parsed command.
pub fn run(cli: Cli, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let Some(command) = cli.command else {
        return dpor(&cli.run, interrupt);
    };
    match command {
        Command::Run(args) => dpor(&args, interrupt),
        Command::Check(args) => check::run(&args, interrupt),
        Command::Edpor(args) => edpor::run(&args, interrupt),
        Command::Info(args) => info::run(&args, interrupt),
        Command::Reach(args) => reach::run(&args, interrupt),
        Command::Convert(args) => convert::run(&args, interrupt),
        Command::Reduce(args) => reduce::run(&args, interrupt),
        Command::Prefix(args) => prefix::run(&args, interrupt),
        Command::Batch(args) => batch::run(&args, interrupt),
        Command::Mcc(args) => mcc::run(&args, interrupt),
        Command::Completions(args) => {
            docs::completions(&args, <Cli as clap::CommandFactory>::command())
        }
        Command::Man(args) => docs::man(&args, <Cli as clap::CommandFactory>::command()),
    }
}

/// `unfold run`, or Event-DPOR with `--edpor` (same as `unfold edpor FILE`).
fn dpor(args: &run::RunArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    match (&args.file, args.edpor) {
        (Some(file), true) => {
            let edpor_args = edpor::EdporArgs {
                file: file.clone(),
                search_budget: 100_000,
                max_executions: None,
                output: args.output.clone(),
                limits: args.limits.clone(),
            };
            edpor::run(&edpor_args, interrupt)
        }
        _ => run::run(args, interrupt),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }
}
