//! `unfold convert`: a net from PNML to PEP or back.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};

use super::shared::{Outcome, ReadLimitArgs, read_net, watch};
use unfold::formats::{self, Format};

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

/// Runs `unfold convert`.
pub fn run(args: &ConvertArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    // No statistics on standard output, where the converted net may go.
    let watchdog = watch(args.limits.limits(interrupt), "convert", &args.input, None);
    let (net, _) = read_net(&args.input, &watchdog)?;
    watchdog.phase("writing the output");
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
