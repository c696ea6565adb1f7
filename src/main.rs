//! The `nqueens` command: runs the command line ([`cli`]) and maps how it ended to an exit code.

mod cli;

use cli::errors::{UsageError, EXIT_ERROR, EXIT_USAGE};
use std::io::{self, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            // Written as `eprintln!` would, without its panic where standard error is closed.
            let _ = writeln!(io::stderr(), "error: {err:#}");
            if err.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::from(EXIT_ERROR)
            }
        }
    }
}

/// A reader that closed the pipe early (`nqueens count 4..20 | head -3`) wanted no more: not an error.
/// serde_json's and csv's errors hold the `io::Error` of a failed write without giving it as their source.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        let kind = if let Some(e) = cause.downcast_ref::<io::Error>() {
            Some(e.kind())
        } else if let Some(e) = cause.downcast_ref::<serde_json::Error>() {
            e.io_error_kind()
        } else if let Some(e) = cause.downcast_ref::<csv::Error>() {
            match e.kind() {
                csv::ErrorKind::Io(e) => Some(e.kind()),
                _ => None,
            }
        } else {
            None
        };
        kind == Some(io::ErrorKind::BrokenPipe)
    })
}
