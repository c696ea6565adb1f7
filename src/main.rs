//! The `nqueens` command: parses the arguments, runs the library, writes results and maps errors to exit codes.

mod benchmark;
mod cli;
mod commands;
mod durable;
mod merge_cmd;
mod output;
mod plot;
mod progress;
mod units_cmd;

use clap::Parser;
use cli::{Cli, Command, CountOptions, DurableOptions, UsageError};
use nqueens::report::{Check, Report};
use output::Output;
use std::io;
use std::process::ExitCode;

/// A count differs from the published value.
pub const EXIT_MISMATCH: u8 = 3;
/// Bad arguments (clap uses the same code for its own errors).
const EXIT_USAGE: u8 = 2;
/// Anything else went wrong.
const EXIT_ERROR: u8 = 1;

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            if err.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::from(EXIT_ERROR)
            }
        }
    }
}

/// A reader that closed the pipe early (`nqueens count 4..20 | head -3`) wanted no more: not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    cli::KernelChoice::apply(cli.kernel)?;
    match cli.command {
        Command::Count {
            sizes,
            check,
            options,
            durable,
        } => count(&sizes, check, &options, &durable),
        Command::List {
            board,
            limit,
            unique,
            threads,
            show,
        } => commands::list::run(&board, limit, unique, threads, &show),
        Command::Solve {
            board,
            method,
            show,
        } => commands::solve::run(&board, method, &show),
        Command::Check {
            file,
            format,
            board,
            quiet,
        } => commands::check::run(file.as_deref(), format, board.as_deref(), quiet),
        Command::Verify { range, options } => {
            let code = count(
                std::slice::from_ref(&range),
                true,
                &options,
                &DurableOptions::default(),
            )?;
            if code == ExitCode::SUCCESS && !options.quiet {
                eprintln!("all counts match the published values");
            }
            Ok(code)
        }
        Command::Units {
            n,
            symmetry,
            split_depth,
            shard,
            summary,
            format,
        } => units_cmd::run(&n, symmetry, split_depth, shard.as_deref(), summary, format),
        Command::Merge {
            files,
            format,
            output,
            quiet,
        } => merge_cmd::run(&files, format, output.as_deref(), quiet),
        Command::Bench(args) => benchmark::run(&args),
        Command::Plot(args) => plot::run(&args).map(|()| ExitCode::SUCCESS),
    }
}

fn count(
    sizes: &[String],
    check: bool,
    options: &CountOptions,
    durable: &DurableOptions,
) -> anyhow::Result<ExitCode> {
    let requests = cli::requests(sizes, options)?;
    // A missing GPU is found before anything is written.
    if options.backend == nqueens::engine::exec::Backend::Gpu {
        let gpu = nqueens::gpu::device()?;
        if !options.quiet {
            eprintln!(
                "GPU: {} ({} multiprocessors)",
                gpu.name, gpu.multiprocessors
            );
        }
    }
    let durable = durable::resolve(durable, requests.len(), check, options.split_depth)?;
    let mut out = Output::open(options.output.as_deref())?;
    let exporter = options.format.exporter();
    let threads = requests.first().map_or(1, |r| r.threads);
    let mut report = Report::start(threads);
    // A checkpointed run may stop before its one row: its header waits for the row, so an interrupted run
    // writes nothing that looks like a result.
    if durable.is_none() {
        out.write(&exporter.header(&report))?;
    }
    let mut mismatches = Vec::new();
    let bar = progress::Bar::per_count(options.quiet);
    for request in &requests {
        bar.set_message(format!("n = {}", request.board));
        let mut result = match &durable {
            None => nqueens::count(request, &bar)?,
            Some(d) => match durable::count(request, d, options.quiet, &bar)? {
                durable::Counted::Done(result) => *result,
                // The output file, if any, is dropped unwritten: an interrupted run leaves no result.
                durable::Counted::Stopped(code) => return Ok(ExitCode::from(code)),
            },
        };
        result.total += u128::from(options.debug_offset);
        if check {
            result.check();
            for (what, counted, check) in [
                ("total", Some(result.total), result.check),
                ("unique count", result.unique, result.check_unique),
            ] {
                if let (Some(counted), Some(Check::Mismatch { expected })) = (counted, check) {
                    mismatches.push(format!(
                        "n = {}: counted {counted} as the {what}, but the published value is {expected}",
                        result.n
                    ));
                }
            }
        }
        if durable.is_some() {
            out.write(&exporter.header(&report))?;
        }
        bar.suspend(|| out.write(&exporter.row(&result)))?;
        if !out.is_stdout() && !options.quiet {
            eprintln!(
                "n = {}: {} solutions in {:.3} s",
                result.n, result.total, result.seconds
            );
        }
        report.results.push(result);
    }
    bar.finish();
    out.write(&exporter.footer(&report))?;
    out.finish()?;
    for mismatch in &mismatches {
        eprintln!("error: {mismatch}");
    }
    Ok(if mismatches.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_MISMATCH)
    })
}
