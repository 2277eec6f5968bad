//! The layers of ARCHITECTURE.md, checked on the source: every `crate::…` path in the library
//! and every `unfold::…` or `crate::…` path in the binary must point to a module its layer may
//! use. Test modules (from the first `#[cfg(test)]` of a file on) may use anything, and so may
//! comments (doc links). A new top-level module must be given a layer here and in
//! ARCHITECTURE.md, or this test fails.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The library's top-level modules and which others each may use. The binary (`src/main.rs`,
/// `src/cli/`) may use every library module; inside it, see [`CLI_RULES`].
const LIBRARY: &[(&str, &[&str])] = &[
    ("rows", &[]),
    ("system", &["rows"]),
    ("model", &["system", "rows"]),
    ("formats", &["model", "system", "rows"]),
    ("unfolding", &["system", "rows"]),
    ("explore", &["unfolding", "model", "system", "rows"]),
    ("property", &["model", "system", "rows"]),
    ("structural", &["model", "system", "rows"]),
    (
        "check",
        &[
            "property",
            "structural",
            "explore",
            "unfolding",
            "model",
            "system",
            "rows",
        ],
    ),
    (
        "report",
        &["explore", "unfolding", "model", "system", "rows"],
    ),
    (
        "modes",
        &[
            "check",
            "property",
            "structural",
            "explore",
            "report",
            "formats",
            "unfolding",
            "model",
            "system",
            "rows",
        ],
    ),
    (
        "mcc",
        &[
            "check",
            "property",
            "structural",
            "modes",
            "explore",
            "report",
            "formats",
            "unfolding",
            "model",
            "system",
            "rows",
        ],
    ),
];

/// Inside the binary: which of its modules each may use (`main` is `src/main.rs`; `cli` is
/// `src/cli/mod.rs`, the dispatcher; `cli::x` is `src/cli/x.rs` or `src/cli/x/`).
const CLI_RULES: &[(&str, &[&str])] = &[
    ("main", &["cli", "cli::process"]),
    ("cli", &["*"]),
    ("cli::process", &[]),
    ("cli::shared", &["cli::process"]),
    // Every subcommand: the shared module and the process machinery, never another subcommand.
    ("cli::*", &["cli::shared", "cli::process"]),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file: `cli/process/watchdog.rs` is `cli::process::watchdog`,
/// `cli/mod.rs` is `cli`, `main.rs` is `main`.
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The module a path belongs to, for the rules: a library top-level module (`explore`), or in
/// the binary `main`, `cli`, or `cli::x`.
fn owner(path: &[String]) -> String {
    match path {
        [first, second, ..] if first == "cli" => format!("cli::{second}"),
        [first, ..] => first.clone(),
        [] => "lib".to_string(),
    }
}

/// The paths a line names from `prefix` (`crate`, `unfold` or `super`), as their segments,
/// also inside `use prefix::{a, b::c}` groups.
fn targets(line: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let pat = format!("{prefix}::");
    let mut rest = line;
    while let Some(i) = rest.find(&pat) {
        let before = rest[..i].chars().last();
        rest = &rest[i + pat.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut names = Vec::new();
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                names.push(item.trim().to_string());
            }
        } else {
            names.push(rest.to_string());
        }
        for name in names {
            let segs: Vec<String> = name
                .split("::")
                .map(|s| {
                    s.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect::<String>()
                })
                .take_while(|s| !s.is_empty())
                .collect();
            if segs.first().is_some_and(|s| s != "self") {
                found.push(segs);
            }
        }
    }
    found
}

/// The modules a line of the file at `module` names: `crate::` paths (and in the binary
/// `unfold::` paths), and `super::` paths resolved against `module`.
fn named(code: &str, module: &[String], in_binary: bool) -> Vec<String> {
    let mut out: Vec<String> = targets(code, "crate").iter().map(|p| owner(p)).collect();
    if in_binary {
        out.extend(targets(code, "unfold").iter().map(|p| owner(p)));
    }
    for path in targets(code, "super") {
        // `super::x` in `a::b::c` is `a::b::x`; a chain `super::super::x` climbs further.
        let mut base: Vec<String> = module[..module.len().saturating_sub(1)].to_vec();
        let mut rest = path.as_slice();
        while rest.first().is_some_and(|s| s == "super") {
            base.pop();
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        out.push(owner(&base));
    }
    out
}

/// Whether `from` may name `to`.
fn allowed(from: &str, to: &str, library: &BTreeSet<&str>) -> bool {
    if from == to {
        return true;
    }
    let in_binary = from == "main" || from == "cli" || from.starts_with("cli::");
    if !in_binary {
        return LIBRARY
            .iter()
            .find(|(m, _)| *m == from)
            .is_some_and(|(_, deps)| deps.contains(&to));
    }
    if library.contains(to) {
        return true;
    }
    // `cli::process::x` counts as `cli::process`.
    let rule = CLI_RULES
        .iter()
        .find(|(m, _)| *m == from)
        .or_else(|| CLI_RULES.iter().find(|(m, _)| *m == "cli::*"))
        .expect("a rule for every binary module");
    rule.1.contains(&"*") || rule.1.contains(&to)
}

/// Every import of `src/` that runs against the layers, as `file:line: from -> to`.
fn violations(root: &Path) -> Vec<String> {
    let library: BTreeSet<&str> = LIBRARY.iter().map(|(m, _)| *m).collect();
    let mut files = Vec::new();
    rust_files(root, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for file in files {
        let rel = file.strip_prefix(root).unwrap();
        let module = module_path(rel);
        let from = owner(&module);
        let in_binary = from == "main" || from == "cli" || from.starts_with("cli::");
        if !in_binary && from != "lib" && !library.contains(from.as_str()) {
            bad.push(format!("{}: module `{from}` has no layer", rel.display()));
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("#[cfg(test)]") {
                break;
            }
            if code.starts_with("//") || from == "lib" {
                continue;
            }
            for to in named(code, &module, in_binary) {
                if !allowed(&from, &to, &library) {
                    bad.push(format!("{}:{}: {from} -> {to}", rel.display(), n + 1));
                }
            }
        }
    }
    bad
}

#[test]
fn imports_follow_the_documented_layers() {
    let bad = violations(&src());
    assert!(
        bad.is_empty(),
        "imports against ARCHITECTURE.md:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_library_module_has_a_layer() {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let declared: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect();
    let known: BTreeSet<String> = LIBRARY.iter().map(|(m, _)| m.to_string()).collect();
    assert!(!declared.is_empty());
    assert_eq!(
        declared, known,
        "src/lib.rs's modules and the layers of this test differ"
    );
}

#[test]
fn the_check_sees_a_violation() {
    // A model file that imports an explorer, a format that imports a report, subcommands that
    // import another (by `crate::` and by `super::`), and the process machinery importing the
    // commands' shared module: each must be reported.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("model")).unwrap();
    fs::create_dir_all(root.join("formats")).unwrap();
    fs::create_dir_all(root.join("cli")).unwrap();
    fs::write(root.join("model/net.rs"), "use crate::explore::reach;\n").unwrap();
    fs::write(
        root.join("formats/pep.rs"),
        "// crate::report in a comment is fine\nuse crate::{model::net::Net, report::dot};\n",
    )
    .unwrap();
    fs::write(
        root.join("cli/run.rs"),
        "use crate::cli::mcc::answer;\nuse unfold::explore;\n",
    )
    .unwrap();
    fs::write(
        root.join("cli/prefix.rs"),
        "use super::shared::emit;\nuse super::reach::run;\n#[cfg(test)]\nmod tests { use crate::cli::run; }\n",
    )
    .unwrap();
    fs::create_dir_all(root.join("cli/process")).unwrap();
    fs::write(
        root.join("cli/process/watchdog.rs"),
        "use super::alloc;\nuse super::super::shared::Outcome;\n",
    )
    .unwrap();
    let bad = violations(root);
    assert_eq!(
        bad,
        vec![
            "cli/prefix.rs:2: cli::prefix -> cli::reach".to_string(),
            "cli/process/watchdog.rs:2: cli::process -> cli::shared".to_string(),
            "cli/run.rs:1: cli::run -> cli::mcc".to_string(),
            "formats/pep.rs:2: formats -> report".to_string(),
            "model/net.rs:1: model -> explore".to_string(),
        ]
    );
}
