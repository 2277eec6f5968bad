//! Input and output formats: text in, model out (and back).
//!
//! Readers take the whole file as bytes (memory-mapped for large files) and produce a model;
//! every error names the file and a position in it.

pub mod mci;
pub mod pep;
pub mod pnml;
mod text;
pub mod tsys;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::model::net::Net;

/// A position in an input file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// 1-based line and column (columns count bytes).
    LineCol {
        /// Line, from 1.
        line: u32,
        /// Column, from 1.
        col: u32,
    },
    /// 0-based byte offset.
    Byte(u64),
}

impl Position {
    /// The line and column of byte `offset` in `text`.
    pub fn of_offset(text: &[u8], offset: usize) -> Position {
        let offset = offset.min(text.len());
        let before = &text[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        Position::LineCol {
            line,
            col: (offset - line_start) as u32 + 1,
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::LineCol { line, col } => write!(f, "{line}:{col}"),
            Position::Byte(b) => write!(f, "byte {b}"),
        }
    }
}

/// Why a file could not be read into a model.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{}: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The content is not a valid model.
    #[error("{}{}: {message}", file.display(), pos.map_or(String::new(), |p| format!(":{p}")))]
    Parse {
        /// The file.
        file: PathBuf,
        /// Where the problem is, when it has a place.
        pos: Option<Position>,
        /// What is wrong.
        message: String,
    },
}

impl ReadError {
    /// A parse error at `pos` in `file`.
    pub fn parse(file: &Path, pos: Option<Position>, message: impl Into<String>) -> ReadError {
        ReadError::Parse {
            file: file.to_path_buf(),
            pos,
            message: message.into(),
        }
    }
}

/// The input formats `unfold` reads: two of nets, one of programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// PNML (P/T nets as the Model Checking Contest publishes them).
    Pnml,
    /// PEP low-level nets (`.ll_net`).
    Pep,
    /// Programs with threads, locks and handlers (`.tsys`, see [`tsys`]), run by the DPOR
    /// modes; not a net.
    Tsys,
}

impl Format {
    /// The format the extension of `path` names: `.pnml` and `.xml` PNML, `.ll_net` and `.ll`
    /// PEP, `.tsys` a program.
    pub fn of_extension(path: &Path) -> Option<Format> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("pnml" | "xml") => Some(Format::Pnml),
            Some("ll_net" | "ll") => Some(Format::Pep),
            Some("tsys") => Some(Format::Tsys),
            _ => None,
        }
    }

    /// Whether the format holds a net (PNML, PEP) rather than a program.
    pub fn is_net(self) -> bool {
        self != Format::Tsys
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Pnml => "PNML",
            Format::Pep => "PEP",
            Format::Tsys => "tsys",
        })
    }
}

/// The format of the file `path` whose first bytes are `head` (a prefix of any length; a
/// megabyte is plenty): the one definition of "a program or a net" for every caller.
///
/// A `.tsys` extension decides first. Otherwise a net is recognised as [`sniff`] does (by
/// content, then by a net extension), and a program by its opening: after white space and
/// `//` comments, a top-level declaration (`var`, `lock`, `handler`, `bound`, `message` or
/// `thread`), the only way a `.tsys` file can begin. `None` when it is neither.
pub fn detect(head: &[u8], path: &Path) -> Option<Format> {
    if Format::of_extension(path) == Some(Format::Tsys) {
        return Some(Format::Tsys);
    }
    sniff(head, path).or_else(|| tsys::opens_as_program(head).then_some(Format::Tsys))
}

/// [`detect`] on the file `path`, from its first megabyte (reading all of a huge net here would
/// pass the memory limit before the input is weighed); `None` when it cannot be read either.
pub fn detect_file(path: &Path) -> Option<Format> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(1 << 20).read_to_end(&mut head))
        .ok()?;
    detect(&head, path)
}

/// Guesses the format of a net from the content (leading white space and a byte-order mark
/// skipped), falling back to the file extension; never [`Format::Tsys`] (see [`detect`]).
pub fn sniff(bytes: &[u8], path: &Path) -> Option<Format> {
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(text.len());
    let text = &text[start..];
    if text.starts_with(b"<") {
        return Some(Format::Pnml);
    }
    if text.starts_with(b"PEP") {
        return Some(Format::Pep);
    }
    Format::of_extension(path).filter(|f| f.is_net())
}

/// Files at least this large are memory-mapped instead of read.
const MMAP_THRESHOLD: u64 = 1 << 20;

/// The bytes of a file, memory-mapped when large.
pub enum FileBytes {
    /// Read into memory.
    Owned(Vec<u8>),
    /// Memory-mapped.
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Owned(v) => v,
            FileBytes::Mapped(m) => m,
        }
    }
}

/// Loads a file's bytes.
pub fn load(path: &Path) -> Result<FileBytes, ReadError> {
    let io = |source| ReadError::Io {
        file: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len >= MMAP_THRESHOLD {
        // SAFETY: the map is read-only; a file truncated under us can fault, as with any mmap
        // reader, which is the accepted trade-off for reading multi-gigabyte MCC inputs.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        Ok(FileBytes::Mapped(map))
    } else {
        std::fs::read(path).map(FileBytes::Owned).map_err(io)
    }
}

/// Reads a net from a file, sniffing its format.
pub fn read_net(path: &Path) -> Result<(Net, Format), ReadError> {
    let bytes = load(path)?;
    let format = sniff(&bytes, path).ok_or_else(|| {
        let message = if detect(&bytes, path) == Some(Format::Tsys) {
            "this is a .tsys program, and a net (PNML or PEP) is expected here"
        } else {
            "unrecognised input: expected PNML (XML) or a PEP net (starting with 'PEP')"
        };
        ReadError::parse(path, Some(Position::Byte(0)), message)
    })?;
    let net = match format {
        Format::Pnml => pnml::parse(&bytes, path)?,
        Format::Pep => pep::parse(&bytes, path)?,
        // (`sniff` names nets only.)
        Format::Tsys => unreachable!("sniffed a program"),
    };
    Ok((net, format))
}

/// Writes `net` in `format`, which must be a net format.
pub fn write_net(net: &Net, format: Format, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    match format {
        Format::Pnml => pnml::write(net, out),
        Format::Pep => pep::write(net, out),
        Format::Tsys => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "a net cannot be written as a .tsys program",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &[u8] = b"// a comment\n\n  var x;\nthread t { x = 1; }\n";

    #[test]
    fn extensions_name_formats() {
        for (file, want) in [
            ("a/b.pnml", Some(Format::Pnml)),
            ("b.xml", Some(Format::Pnml)),
            ("b.ll_net", Some(Format::Pep)),
            ("b.ll", Some(Format::Pep)),
            ("b.tsys", Some(Format::Tsys)),
            ("b.txt", None),
            ("tsys", None),
        ] {
            assert_eq!(Format::of_extension(Path::new(file)), want, "{file}");
        }
        assert!(Format::Pnml.is_net() && Format::Pep.is_net() && !Format::Tsys.is_net());
    }

    #[test]
    fn a_tsys_extension_decides_first() {
        let path = Path::new("p.tsys");
        assert_eq!(detect(b"<?xml?><pnml/>", path), Some(Format::Tsys));
        assert_eq!(detect(b"PEP\nPTNet\n", path), Some(Format::Tsys));
        assert_eq!(detect(b"", path), Some(Format::Tsys));
    }

    #[test]
    fn nets_are_detected_as_sniff_does() {
        for (head, file) in [
            (&b"\xEF\xBB\xBF  <pnml>"[..], "n"),
            (b"PEP\nPTNet", "n.pnml"),
            (b"<pnml>", "n.ll_net"),
            (b"", "n.ll_net"),
            (b"thread t { }", "n.pnml"),
        ] {
            let path = Path::new(file);
            assert_eq!(detect(head, path), sniff(head, path), "{file}");
            assert!(detect(head, path).is_some_and(Format::is_net), "{file}");
        }
    }

    #[test]
    fn programs_are_detected_by_their_first_declaration() {
        let path = Path::new("prog");
        assert_eq!(detect(PROGRAM, path), Some(Format::Tsys));
        for opening in ["var", "lock", "handler", "bound", "message", "thread"] {
            let head = format!("{opening} x;");
            assert_eq!(detect(head.as_bytes(), path), Some(Format::Tsys), "{head}");
        }
        // Cut anywhere, even inside a character, after the first word.
        assert_eq!(detect(b"thread t { x = \xC3", path), Some(Format::Tsys));
        // A word that only starts like a keyword, a comment that mentions one, a statement
        // before any declaration, and empty or binary input are not programs.
        for head in [
            &b"threads t { }"[..],
            b"// thread t { }",
            b"x = 1; thread t { }",
            b"",
            b"\xFF\xFEthread",
        ] {
            assert_eq!(detect(head, path), None, "{}", head.escape_ascii());
        }
    }

    /// The example files, their extensions taken away: each is found by its content alone.
    #[test]
    fn the_examples_are_detected_without_their_extensions() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("nets");
        let mut seen = 0;
        for dir in [root.clone(), root.join("programs")] {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let Some(want) = Format::of_extension(&path) else {
                    continue;
                };
                let bytes = std::fs::read(&path).unwrap();
                let bare = Path::new("input");
                assert_eq!(detect(&bytes, bare), Some(want), "{}", path.display());
                assert_eq!(detect(&bytes, &path), Some(want), "{}", path.display());
                seen += 1;
            }
        }
        assert!(seen >= 10, "only {seen} examples");
    }
}
