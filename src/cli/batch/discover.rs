//! Finding the nets and programs under files and folders, and the names rows give them.

use std::collections::BTreeMap;
use std::io::{self};
use std::path::{Path, PathBuf};

use unfold::formats::Format;

/// One net found by [`discover`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct NetFile {
    /// The name used in rows: the path relative to the searched folder without extension, or
    /// the folder name for the MCC layout `MODEL/model.pnml`.
    pub name: String,
    /// The file.
    pub path: PathBuf,
}

fn is_net_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".pnml") || name.ends_with(".ll_net")
}

/// Whether `path` names a `.tsys` program (run by `dpor` and `edpor`, not by the net modes).
pub fn is_program_file(path: &Path) -> bool {
    Format::of_extension(path) == Some(Format::Tsys)
}

pub(super) fn strip_net_ext(s: &str) -> &str {
    s.strip_suffix(".pnml")
        .or_else(|| s.strip_suffix(".ll_net"))
        .unwrap_or(s)
}

/// The row name of `path`, relative to `root` (a searched folder) when given.
fn net_name(path: &Path, root: Option<&Path>) -> String {
    let rel = root
        .and_then(|r| path.strip_prefix(r).ok())
        .filter(|r| !r.as_os_str().is_empty())
        .unwrap_or(path);
    // The MCC layout: MODEL/model.pnml is named MODEL (its path below the root, if any).
    if rel.file_name().and_then(|n| n.to_str()) == Some("model.pnml") {
        let folder = if root.is_some() {
            rel.parent().filter(|p| !p.as_os_str().is_empty())
        } else {
            None
        }
        .or_else(|| path.parent().and_then(|p| p.file_name()).map(Path::new));
        if let Some(folder) = folder {
            return folder.to_string_lossy().into_owned();
        }
    }
    let rel = if root.is_some() {
        rel
    } else {
        Path::new(rel.file_name().unwrap_or(rel.as_os_str()))
    };
    strip_net_ext(&rel.to_string_lossy()).to_string()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<io::Result<_>>()?;
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            walk(&path, out)?;
        } else if is_net_file(&path) || is_program_file(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// Finds the nets named by `paths`: files are taken as they are, folders are searched
/// recursively for `*.pnml`, `*.ll_net` and `*.tsys` programs (hidden entries skipped). The result is sorted by
/// name (then path) and has unique names: where two nets would share a name, both are named by
/// their full path.
pub fn discover(paths: &[PathBuf]) -> io::Result<Vec<NetFile>> {
    let mut nets = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?;
        if meta.is_dir() {
            let mut files = Vec::new();
            walk(p, &mut files)?;
            for f in files {
                let name = net_name(&f, Some(p));
                nets.push(NetFile { name, path: f });
            }
        } else {
            nets.push(NetFile {
                name: net_name(p, None),
                path: p.clone(),
            });
        }
    }
    nets.sort();
    nets.dedup_by(|a, b| a.path == b.path);
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for n in &nets {
        *count.entry(n.name.clone()).or_default() += 1;
    }
    for n in &mut nets {
        if count[&n.name] > 1 {
            n.name = n.path.display().to_string();
        }
    }
    nets.sort();
    Ok(nets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_nets() {
        let root = Path::new("/b");
        assert_eq!(net_name(Path::new("/b/x/y.ll_net"), Some(root)), "x/y");
        assert_eq!(
            net_name(Path::new("/b/Kanban/model.pnml"), Some(root)),
            "Kanban"
        );
        assert_eq!(net_name(Path::new("/b/Kanban/model.pnml"), None), "Kanban");
        assert_eq!(net_name(Path::new("/b/q.pnml"), None), "q");
    }
}
