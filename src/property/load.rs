//! Reading property files: the error both readers give ([`ReadError`], a line, a column and a
//! message), the conversion of byte offsets to lines and columns they share, and the choice
//! of reader for a file ([`load`]: the contest's XML or the text syntax of [`super::text`]).

use std::path::{Path, PathBuf};

use super::syntax::Query;
use super::{text, xml};

/// Why a property text could not be read: where (1-based line and column, the column counted
/// in characters) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ReadError {
    /// Line of the offending token (1-based).
    pub line: u32,
    /// Column of the offending token in its line (1-based, in characters).
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

/// Why a property file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{}: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file's content is not a valid property file.
    #[error("{}:{error}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// Where and what.
        #[source]
        error: ReadError,
    },
}

/// Reads the properties of the file at `path`: the contest's XML ([`xml::parse_xml`]) when its
/// first non-blank character is `<`, else the text syntax, one property per line
/// ([`text::parse_file`]). A UTF-8 byte-order mark at the start is skipped.
pub fn load(path: &Path) -> Result<Vec<Query>, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        file: path.to_path_buf(),
        source,
    })?;
    let in_file = |error| LoadError::Read {
        file: path.to_path_buf(),
        error,
    };
    let content = std::str::from_utf8(&bytes).map_err(|e| {
        let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
        in_file(Lines::new(valid).error(
            valid,
            valid.len(),
            "invalid UTF-8: a property file must be UTF-8 text",
        ))
    })?;
    // A byte-order mark is no character of the text (editors do not show it in columns).
    let content = content.strip_prefix('\u{feff}').unwrap_or(content);
    let is_xml = content.trim_start().starts_with('<');
    if is_xml {
        xml::parse_xml(content)
    } else {
        text::parse_file(content)
    }
    .map_err(in_file)
}

/// Reads one property given on the command line (`--formula`): the text syntax of
/// [`text::parse_formula`]; a property written without an id gets the id `f{index}`.
pub fn parse_cli_formula(text: &str, index: usize) -> Result<Query, ReadError> {
    let mut query = text::parse_formula(text)?;
    if query.id.is_empty() {
        query.id = format!("f{index}");
    }
    Ok(query)
}

/// The starts of the lines of a text, to turn byte offsets into lines and columns.
pub(super) struct Lines {
    /// Byte offset of the first character of each line.
    starts: Vec<usize>,
}

impl Lines {
    /// The lines of `text`.
    pub(super) fn new(text: &str) -> Lines {
        let breaks = text.match_indices('\n').map(|(i, _)| i + 1);
        Lines {
            starts: std::iter::once(0).chain(breaks).collect(),
        }
    }

    /// The 1-based line and column (in characters) of byte `offset` of `text`, the text these
    /// lines were made from. An offset past the end is the end; one inside a character is
    /// that character.
    pub(super) fn position(&self, text: &str, offset: usize) -> (u32, u32) {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset).max(1) - 1;
        let start = self.starts[line];
        let column = text[start..offset].chars().count() + 1;
        (saturate(line + 1), saturate(column))
    }

    /// The error `message` at byte `offset` of `text`.
    pub(super) fn error(&self, text: &str, offset: usize, message: impl Into<String>) -> ReadError {
        let (line, column) = self.position(text, offset);
        ReadError {
            line,
            column,
            message: message.into(),
        }
    }
}

/// `n` as a line or column number (files of more than 4 billion lines keep the largest).
pub(super) fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::property::syntax::{Ask, Form};

    #[test]
    fn positions_count_lines_and_characters() {
        let text = "ab\nçd\n\nxy";
        let lines = Lines::new(text);
        assert_eq!(lines.position(text, 0), (1, 1));
        assert_eq!(lines.position(text, 2), (1, 3));
        assert_eq!(lines.position(text, 3), (2, 1));
        // 'ç' takes two bytes and one column.
        assert_eq!(lines.position(text, 5), (2, 2));
        assert_eq!(lines.position(text, 4), (2, 1));
        assert_eq!(lines.position(text, 7), (3, 1));
        assert_eq!(lines.position(text, 8), (4, 1));
        assert_eq!(lines.position(text, 9), (4, 2));
        assert_eq!(lines.position(text, 100), (4, 3));
        assert_eq!(
            lines.error(text, 8, "bad").to_string(),
            "4:1: bad".to_string()
        );
    }

    #[test]
    fn command_line_formulas_get_an_id_when_they_have_none() {
        let q = parse_cli_formula("EF deadlock", 3).unwrap();
        assert_eq!(q.id, "f3");
        let q = parse_cli_formula("mine: AG true", 3).unwrap();
        assert_eq!(q.id, "mine");
        assert_eq!(
            q.ask,
            Ask::Holds(Form::All(Box::new(Form::Globally(Box::new(Form::Bool(
                true
            ))))))
        );
        let e = parse_cli_formula("EF (deadlock", 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1:13: expected ')', found the end of the formula"
        );
    }

    fn write(dir: &tempfile::TempDir, name: &str, content: &[u8]) -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        path
    }

    #[test]
    fn files_are_read_as_xml_or_text_by_their_first_character() {
        let dir = tempfile::tempdir().unwrap();
        let text = write(&dir, "f.txt", b"# two\na: EF deadlock\n\nb: bound(p)\n");
        let qs = load(&text).unwrap();
        assert_eq!(qs.len(), 2);
        assert_eq!(qs[1].ask, Ask::Bound(vec![crate::property::Name::new("p")]));
        let xml = write(
            &dir,
            "f.xml",
            b"\n  <property-set><property><id>x</id><formula><deadlock/></formula></property>\
              </property-set>",
        );
        let qs = load(&xml).unwrap();
        assert_eq!(qs.len(), 1);
        assert_eq!(qs[0].ask, Ask::Holds(Form::Deadlock));
        let marked = write(&dir, "bom.xml", b"\xef\xbb\xbf<property-set/>");
        assert_eq!(load(&marked).unwrap(), vec![]);
        let marked = write(&dir, "bom.txt", b"\xef\xbb\xbfa: (true");
        let e = load(&marked).unwrap_err().to_string();
        assert!(
            e.ends_with(":1:9: expected ')', found the end of the formula"),
            "{e}"
        );
    }

    #[test]
    fn load_errors_name_the_file_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let bad = write(&dir, "bad.txt", b"a: EF deadlock\nb: EF (true\n");
        let e = load(&bad).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}:2:12: expected ')', found the end of the formula",
                bad.display()
            )
        );
        let xml = write(&dir, "bad.xml", b"<property-set>\n  <property></nope>");
        let e = load(&xml).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:2:", xml.display())), "{e}");
        let binary = write(&dir, "bin", b"a: EF\n \xff deadlock");
        let e = load(&binary).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}:2:2: invalid UTF-8: a property file must be UTF-8 text",
                binary.display()
            )
        );
        let missing = dir.path().join("missing.xml");
        let e = load(&missing).unwrap_err();
        assert!(matches!(e, LoadError::Io { .. }));
        assert!(
            e.to_string()
                .starts_with(&format!("{}: ", missing.display())),
            "{e}"
        );
    }
}
