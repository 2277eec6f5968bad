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

/// The input formats `unfold` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// PNML (P/T nets as the Model Checking Contest publishes them).
    Pnml,
    /// PEP low-level nets (`.ll_net`).
    Pep,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Pnml => "PNML",
            Format::Pep => "PEP",
        })
    }
}

/// Guesses the format from the content (leading white space and a byte-order mark skipped),
/// falling back to the file extension.
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
    match path.extension().and_then(|e| e.to_str()) {
        Some("pnml" | "xml") => Some(Format::Pnml),
        Some("ll_net" | "ll") => Some(Format::Pep),
        _ => None,
    }
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
        ReadError::parse(
            path,
            Some(Position::Byte(0)),
            "unrecognised input: expected PNML (XML) or a PEP net (starting with 'PEP')",
        )
    })?;
    let net = match format {
        Format::Pnml => pnml::parse(&bytes, path)?,
        Format::Pep => pep::parse(&bytes, path)?,
    };
    Ok((net, format))
}

/// Writes `net` in `format`.
pub fn write_net(net: &Net, format: Format, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    match format {
        Format::Pnml => pnml::write(net, out),
        Format::Pep => pep::write(net, out),
    }
}
