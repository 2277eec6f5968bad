//! What the readers share: failures at a byte offset of the input, turned into positioned
//! [`ReadError`]s in one place, and the name a model takes from its file.
//!
//! The hand-written readers (PEP, `.tsys`) fail with a [`Fail`] deep inside their recursion,
//! where the file is not at hand; their entry point maps it with [`Fail::in_file`].

use std::path::Path;

use super::{Position, ReadError};

/// A failure at a byte offset of the input.
#[derive(Debug)]
pub(super) struct Fail {
    /// Where, from the start of the input.
    pub(super) offset: usize,
    /// What is wrong.
    pub(super) message: String,
}

/// The result of a reader's step.
pub(super) type Res<T> = Result<T, Fail>;

/// Fails at `offset` with `message`.
pub(super) fn fail<T>(offset: usize, message: impl Into<String>) -> Res<T> {
    Err(Fail {
        offset,
        message: message.into(),
    })
}

impl Fail {
    /// The failure as the error of reading `file`, whose content is `bytes`: the offset
    /// becomes a line and a column.
    pub(super) fn in_file(self, bytes: &[u8], file: &Path) -> ReadError {
        ReadError::parse(
            file,
            Some(Position::of_offset(bytes, self.offset)),
            self.message,
        )
    }
}

/// The name of the model read from `file`: the file's stem (empty when it has none).
pub(super) fn model_name(file: &Path) -> String {
    file.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_names_the_file_line_and_column() {
        let e: Res<()> = fail(4, "bad");
        let e = e
            .unwrap_err()
            .in_file(b"ab\ncdef", Path::new("dir/x.ll_net"));
        assert_eq!(e.to_string(), "dir/x.ll_net:2:2: bad");
    }

    #[test]
    fn models_are_named_after_the_file_stem() {
        assert_eq!(model_name(Path::new("dir/net.model.pnml")), "net.model");
        assert_eq!(model_name(Path::new("prog.tsys")), "prog");
        assert_eq!(model_name(Path::new("")), "");
    }
}
