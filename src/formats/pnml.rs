//! pnml reader and writer (stub: to be written).

use std::path::Path;

use super::ReadError;
use crate::model::net::Net;

/// Parses a net.
pub fn parse(_bytes: &[u8], file: &Path) -> Result<Net, ReadError> {
    Err(ReadError::parse(file, None, "not implemented"))
}

/// Writes a net.
pub fn write(_net: &Net, _out: &mut dyn std::io::Write) -> std::io::Result<()> {
    Ok(())
}
