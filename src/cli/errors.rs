//! How a run of the command ends badly: the usage error every command may raise, and the exit codes.
//!
//! A module of its own so that every part of the command line can use them without importing each other.

/// Anything went wrong that is not one of the codes below.
pub const EXIT_ERROR: u8 = 1;
/// Bad arguments (clap uses the same code for its own errors).
pub const EXIT_USAGE: u8 = 2;
/// A count differs from the published value.
pub const EXIT_MISMATCH: u8 = 3;

/// A failure a command has found (an invalid solution, a count that differs from the published value) before
/// it is done writing: kept so that a reader that closes the pipe early (`nqueens check s.txt | head -1`),
/// which otherwise ends the run quietly with 0, does not turn the answer into a success. The first failure
/// found is kept, with its exit code and what it is.
static FOUND: std::sync::Mutex<Option<(u8, &'static str)>> = std::sync::Mutex::new(None);

/// Keeps the failure `what`, whose exit code is `code`, unless one was kept already.
pub fn found_failure(code: u8, what: &'static str) {
    let mut found = FOUND.lock().unwrap_or_else(|e| e.into_inner());
    found.get_or_insert((code, what));
}

/// The failure found so far, if any: its exit code and what it is.
pub fn failure_found() -> Option<(u8, &'static str)> {
    *FOUND.lock().unwrap_or_else(|e| e.into_inner())
}

/// A mistake in the arguments: the message says what to do.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);
