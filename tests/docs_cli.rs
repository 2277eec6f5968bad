//! `unfold completions` and `unfold man`: generated from the clap definitions, they name every
//! subcommand `unfold --help` lists, the bash script parses, and groff renders the pages
//! without a warning.

use std::process::Command;

use crate::common;

fn stdout_of(args: &[&str]) -> String {
    let out = common::unfold().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands `unfold --help` lists (without clap's `help`).
fn subcommands() -> Vec<String> {
    let help = stdout_of(&["--help"]);
    let commands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A wrapped description continues further in; a command starts at column 2.
        .filter(|l| !l[2..].starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| *w != "help")
        .map(str::to_string)
        .collect();
    assert!(commands.len() >= 10, "{help}");
    commands
}

#[test]
fn completions_name_every_subcommand_and_parse() {
    let commands = subcommands();
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout_of(&["completions", shell]);
        for command in &commands {
            assert!(script.contains(command.as_str()), "{shell}: no {command}");
        }
        assert!(script.contains("--cutoffs"), "{shell}: no --cutoffs");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("unfold.bash");
    std::fs::write(&path, stdout_of(&["completions", "bash"])).unwrap();
    let check = Command::new("bash").arg("-n").arg(&path).output().unwrap();
    assert!(check.status.success(), "{check:?}");
}

#[test]
fn man_pages_cover_every_subcommand_and_render() {
    let page = stdout_of(&["man"]);
    assert!(page.contains(".TH unfold 1"), "{page}");
    let dir = tempfile::tempdir().unwrap();
    stdout_of(&["man", "--out", dir.path().to_str().unwrap()]);
    let mut pages = vec![dir.path().join("unfold.1")];
    for command in subcommands() {
        assert!(page.contains(&command), "unfold.1 does not list {command}");
        pages.push(dir.path().join(format!("unfold-{command}.1")));
    }
    for path in pages {
        // -k: preconv, as `man` runs it, for the UTF-8 of the help texts.
        let out = Command::new("groff")
            .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
            .arg(&path)
            .output()
            .unwrap_or_else(|e| panic!("groff (apt package groff-base): {e}"));
        assert!(out.status.success(), "{}: {out:?}", path.display());
        let warnings = String::from_utf8_lossy(&out.stderr);
        assert!(warnings.trim().is_empty(), "{}: {warnings}", path.display());
    }
}
