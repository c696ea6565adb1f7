//! The `nqueens` command: runs the command line ([`cli`]) and maps how it ended to an exit code.

mod cli;

use cli::errors::{UsageError, EXIT_ERROR, EXIT_USAGE};
use std::io::{self, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    // Before any handler is set: a signal ignored when the process started stays ignored.
    #[cfg(unix)]
    cli::signals::ignored_at_start();
    fewer_gpu_queues();
    let timeline = std::env::var_os("NQUEENS_GPU_VERBOSE").is_some_and(|v| v == "1");
    if timeline {
        stamp("began");
    }
    let code = match cli::run() {
        Ok(code) => code,
        // A reader that closed the pipe early wanted no more, unless the command had already found its
        // answer to be a failure: then that is the exit code, and stderr says why.
        Err(err) if is_broken_pipe(&err) => match cli::errors::failure_found() {
            None => ExitCode::SUCCESS,
            Some((code, what)) => {
                let _ = writeln!(
                    io::stderr(),
                    "error: {what} (the output's reader closed it before the rest was written)"
                );
                ExitCode::from(code)
            }
        },
        Err(err) => {
            // Written as `eprintln!` would, without its panic where standard error is closed.
            let _ = writeln!(io::stderr(), "error: {err:#}");
            if err.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::from(EXIT_ERROR)
            }
        }
    };
    if timeline {
        stamp("ends");
    }
    if std::env::var_os("NQUEENS_TEST_PEAK_MEMORY").is_some_and(|v| v == "1") {
        peak_memory();
    }
    if code == ExitCode::SUCCESS && std::env::var_os("NQUEENS_QUICK_EXIT").is_some_and(|v| v == "1")
    {
        quick_exit();
    }
    code
}

/// Testing aid (`NQUEENS_TEST_PEAK_MEMORY=1`): says on stderr the most memory the process held at once
/// (`VmHWM`, Linux), for the tests that bound a command's memory. Its own figure: the peak that `wait4` gives a
/// parent folds in the parent's, whose memory the child had before its `exec`, and a limit of address space
/// counts what threads and the allocator reserve without using.
fn peak_memory() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
        let kib = line.trim_start_matches("VmHWM:").trim();
        let _ = writeln!(io::stderr(), "peak memory: {kib}");
    }
}

/// Asks the CUDA driver for two hardware queues a GPU rather than its eight (`CUDA_DEVICE_MAX_CONNECTIONS`),
/// unless the user set the number. A context opens and closes a queue for each, and a small run pays for that:
/// on an H200, n = 17 took 0.32 to 0.35 s with two where it took 0.40 to 0.42 with eight, and n = 19 0.53 to
/// 0.54 s rather than 0.59 to 0.61 (one queue made n = 19 slower again: its copies waited behind its kernels;
/// results/gpu.md, the twenty-second session). The GPU backend's four streams a GPU share the two, so that a
/// batch still runs beside the next. The driver reads the variable when it opens a context, so it is set here,
/// before the command starts any thread that could read the environment at the same time.
fn fewer_gpu_queues() {
    const QUEUES: &str = "CUDA_DEVICE_MAX_CONNECTIONS";
    if cfg!(feature = "cuda") && std::env::var_os(QUEUES).is_none() {
        std::env::set_var(QUEUES, "2");
    }
}

/// Writes on standard error when `main` reached `what`, as seconds since the epoch: with `date +%s.%N` before
/// and after the command, it places a small GPU run's time outside `main` (`NQUEENS_GPU_VERBOSE=1`).
fn stamp(what: &str) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let _ = writeln!(
        io::stderr(),
        "process: main {what} at {:.3}",
        now.as_secs_f64()
    );
}

/// Ends a successful run at once, without the C library's exit handlers: for measuring whether the CUDA
/// driver's teardown of its contexts at exit is what a small GPU run spends after its count (n = 17 on an
/// H100: 0.13 s of a 0.47 s command outside the count's clock; results/gpu.md). Asked for with
/// `NQUEENS_QUICK_EXIT=1`.
fn quick_exit() -> ! {
    let _ = io::stdout().flush();
    let _ = io::stderr().flush();
    // SAFETY: `_exit` ends the process. The command is done: its results are written and flushed, its files
    // closed (each was dropped before `cli::run` returned), and no thread of it is left at work.
    unsafe { libc::_exit(0) }
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
