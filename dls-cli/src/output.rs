//! Errors of the commands and writing to standard output.

use std::fmt;
use std::io::{self, Write};

/// An error of a command: a message for the user, or a failed write to standard output.
#[derive(Debug)]
pub(crate) enum CliError {
    /// Bad settings or a failed simulation: printed as `error: <message>`.
    Message(String),
    /// Standard output failed (a closed pipe ends the program quietly).
    Io(io::Error),
}

impl CliError {
    /// True when standard output was closed by the reader (e.g. `dls chunks ... | head`).
    pub(crate) fn is_broken_pipe(&self) -> bool {
        matches!(self, CliError::Io(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Message(m) => f.write_str(m),
            CliError::Io(e) => write!(f, "cannot write the output: {e}"),
        }
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> Self {
        CliError::Io(e)
    }
}

impl From<dls_model::sim::SimError> for CliError {
    fn from(e: dls_model::sim::SimError) -> Self {
        CliError::Message(e.to_string())
    }
}

impl From<dls::TechniqueError> for CliError {
    fn from(e: dls::TechniqueError) -> Self {
        CliError::Message(e.to_string())
    }
}

/// Writes `text` to standard output in one go.
pub(crate) fn print(text: &str) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
