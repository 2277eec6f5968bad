//! TEMPORARY stub (replaced by the readers' branch).
use std::path::Path;

use super::Query;

/// Stub.
#[derive(Debug, thiserror::Error)]
#[error("stub")]
pub struct LoadError;

/// Stub.
pub fn load(_path: &Path) -> Result<Vec<Query>, LoadError> {
    Err(LoadError)
}

/// Stub.
#[derive(Debug, thiserror::Error)]
#[error("stub")]
pub struct ReadError;

/// Stub.
pub fn parse_cli_formula(_text: &str, _index: usize) -> Result<Query, ReadError> {
    Err(ReadError)
}
