//! `unfold convert`: a net from PNML to PEP or back, optionally with its self-loops turned
//! into read arcs.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Result;
use clap::Args;

use super::shared::{
    NetFormat, Outcome, ReadLimitArgs, output_format, read_net, watch, write_net_file,
};

/// `unfold convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// The net to read.
    pub input: PathBuf,
    /// The file to write (`-` for standard output).
    pub output: PathBuf,
    /// Output format (default: from the output file's extension).
    #[arg(long)]
    pub to: Option<NetFormat>,
    /// Turn every pair of arcs t→p, p→t of equal weight into a read arc (as Cunf's
    /// plain2cont does), making the contextual version of the net.
    #[arg(long)]
    pub read_arcs: bool,
    #[command(flatten)]
    pub limits: ReadLimitArgs,
}

/// Runs `unfold convert`.
pub fn run(args: &ConvertArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    // No statistics on standard output, where the converted net may go.
    let watchdog = watch(args.limits.limits(interrupt), "convert", &args.input, None);
    let (mut net, _) = read_net(&args.input, &watchdog)?;
    if args.read_arcs {
        net = unfold::model::read_arcs::loops_to_read_arcs(&net).0;
    }
    watchdog.phase("writing the output");
    let to = output_format(args.to, &args.output)?;
    write_net_file(&net, to, &args.output)?;
    Ok(Outcome::Clean)
}
