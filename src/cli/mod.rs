//! The `nqueens` command line: everything only the binary needs.
//!
//! [`args`] is clap's view of the arguments; [`validate`] turns them into library requests; [`commands`] holds
//! one module per command, which writes its results through [`output`] and shows its progress through
//! [`progress`]; [`errors`] holds the usage error and the exit codes every part may use. The library knows
//! nothing of this module: no clap, no indicatif, no terminal below `src/cli/`.

/// `eprintln!` that goes on when standard error is gone. Where `eprintln!` panics (a log's pipe closed, `2>&1 |
/// head`, a full disk), a count whose results go to standard output or a file would end with exit code 101 and
/// lose them; a diagnostic nobody can read is dropped instead.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub mod args;
pub mod commands;
pub mod errors;
pub mod output;
pub mod progress;
pub mod signals;
pub mod validate;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

/// The argument that clap's `error` calls an unknown option where it reads as a board of a negative size
/// (`-3`, `-3x2`, `-4..9`; clap names its first short option, `-3`), which no option of the command line is.
/// Another unknown option (`--bogus` beside a `-3`) is clap's to say.
fn negative_board(error: &clap::Error) -> Option<String> {
    if error.kind() != clap::error::ErrorKind::UnknownArgument {
        return None;
    }
    let Some(clap::error::ContextValue::String(unknown)) =
        error.get(clap::error::ContextKind::InvalidArg)
    else {
        return None;
    };
    std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .filter_map(|a| a.into_string().ok())
        .find(|a| {
            a.starts_with(unknown.as_str())
                && a.strip_prefix('-').is_some_and(|rest| {
                    rest.starts_with(|c: char| c.is_ascii_digit())
                        && rest
                            .chars()
                            .all(|c| c.is_ascii_digit() || "x.=,".contains(c))
                })
        })
}

/// Parses the arguments and runs the command they name.
pub fn run() -> anyhow::Result<ExitCode> {
    #[cfg(unix)]
    signals::write_errors_past_the_file_size_limit();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // `list -3x2`, `verify -3..5`, `check --board -4`: clap read them as short options (`-3`), and its
            // tip to write `-- -3` made them file names. They are boards of a negative size, as `count -3` is
            // told.
            if let Some(board) = negative_board(&e) {
                return Err(errors::UsageError(format!(
                    "'{board}': board sizes cannot be negative"
                ))
                .into());
            }
            // What clap prints itself is written here, as any output is: help and the version, which are the
            // results, go to standard output, and a write that fails there (a full disk) is an error, not exit
            // code 0 with the text lost. A usage error goes to standard error, where a failed write is dropped
            // as any diagnostic's is: the exit code still says what was wrong (2).
            let code = ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
            if e.use_stderr() {
                let _ = e.print();
                return Ok(code);
            }
            e.print()?;
            std::io::Write::flush(&mut std::io::stdout())?;
            return Ok(code);
        }
    };
    let kernel = match &cli.command {
        Command::Count { options, .. } | Command::Verify { options, .. } => options.kernel.kernel,
        Command::List { kernel, .. } => kernel.kernel,
        Command::Bench(args) => args.kernel.kernel,
        Command::Estimate { kernel, .. } => kernel.kernel,
        _ if cli.kernel.is_some() => {
            return Err(errors::UsageError(
                "--kernel chooses the search loop of count, verify, bench, list and estimate; this command runs none"
                    .into(),
            )
            .into())
        }
        _ => None,
    };
    if let (Some(after), Some(before)) = (kernel, cli.kernel) {
        // As clap refuses an option given twice after the command: one of the two would be dropped unsaid.
        return Err(errors::UsageError(format!(
            "--kernel is given twice, as {} before the command and {} after it: give it once",
            before.name(),
            after.name()
        ))
        .into());
    }
    args::KernelChoice::apply(kernel.or(cli.kernel))?;
    output::set_quiet(cli.command.quiet());
    match cli.command {
        Command::Count {
            sizes,
            check,
            mut options,
            durable,
        } => {
            // The form of version 0.2 (`nqueens --kernel scalar count 17`) is the count's own option: the
            // command that resumes a stopped count gives it so.
            options.kernel.kernel = options.kernel.kernel.or(cli.kernel);
            commands::count::run(&sizes, check, &options, &durable)
        }
        Command::List {
            board,
            limit,
            unique,
            threads,
            show,
            ..
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
            output,
        } => commands::check::run(
            file.as_deref(),
            format,
            board.as_deref(),
            quiet,
            output.as_deref(),
        ),
        Command::Verify { range, options } => commands::count::verify(&range, &options),
        Command::Units {
            n,
            symmetry,
            split_depth,
            shard,
            shard_count,
            summary,
            format,
            output,
            quiet,
        } => commands::units::run(
            &n,
            symmetry,
            split_depth,
            validate::shard(shard.as_deref(), shard_count, quiet)?,
            summary,
            format,
            output.as_deref(),
            quiet,
        ),
        Command::Merge {
            files,
            format,
            output,
            quiet,
        } => commands::merge::run(&files, format, output.as_deref(), quiet),
        Command::Estimate {
            sizes,
            threads,
            symmetry,
            split_depth,
            shard,
            shard_count,
            sample,
            backend,
            gpus,
            format,
            output,
            quiet,
            ..
        } => commands::estimate::run(
            &sizes,
            commands::estimate::Options {
                threads,
                symmetry,
                split_depth,
                shard: validate::shard(shard.as_deref(), shard_count, quiet)?,
                sample,
                backend,
                gpus: gpus.map(|g| g.0),
                quiet,
            },
            format,
            output.as_deref(),
        ),
        Command::Bench(args) => commands::bench::run(&args),
        Command::Plot(args) => commands::plot::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Completions { shell } => commands::docs::completions(shell),
        Command::Man { command } => commands::docs::man(command.as_deref()),
    }
}
