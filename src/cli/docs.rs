//! `unfold completions SHELL` and `unfold man`: shell completions and manual pages generated
//! from the clap definitions, so that they never fall behind the options. The dispatcher hands
//! the definition in (`Cli::command()`), so this module does not import it.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use clap_complete::Shell;

use super::shared::Outcome;

/// Options of `unfold completions`.
#[derive(Args, Debug, Clone)]
pub struct CompletionsArgs {
    /// The shell to complete for (bash, zsh, fish, elvish, powershell).
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Options of `unfold man`.
#[derive(Args, Debug, Clone)]
pub struct ManArgs {
    /// Write `unfold.1` and one page per subcommand (`unfold-run.1`, …) into this folder,
    /// instead of `unfold.1` alone on standard output.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Prints the completion script for the shell on standard output.
pub fn completions(args: &CompletionsArgs, mut command: clap::Command) -> Result<Outcome> {
    let mut out = std::io::stdout().lock();
    clap_complete::generate(args.shell, &mut command, "unfold", &mut out);
    out.flush()?;
    Ok(Outcome::Clean)
}

/// Prints the manual page, or writes every page into a folder.
pub fn man(args: &ManArgs, command: clap::Command) -> Result<Outcome> {
    match &args.out {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("{}: cannot create the folder", dir.display()))?;
            clap_mangen::generate_to(command, dir)
                .with_context(|| format!("{}: cannot write the manual pages", dir.display()))?;
        }
        None => {
            let mut out = std::io::stdout().lock();
            clap_mangen::Man::new(command).render(&mut out)?;
            out.flush()?;
        }
    }
    Ok(Outcome::Clean)
}
