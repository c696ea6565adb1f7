//! `nqueens completions` and `nqueens man`: the shell completion scripts and the manual pages, generated from
//! clap's definitions in [`crate::cli::args`], so they never disagree with `--help`.

use crate::cli::args::Cli;
use crate::cli::errors::UsageError;
use clap::CommandFactory;
use clap_complete::Shell;
use std::io::{self, Write};
use std::process::ExitCode;

/// Writes the completion script of `shell` to standard output.
pub fn completions(shell: Shell) -> anyhow::Result<ExitCode> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "nqueens", &mut script);
    write_out(&script)
}

/// Writes a manual page, in roff, to standard output: `nqueens(1)`, which lists every command, or with
/// `command` the page `nqueens-COMMAND(1)` of that command and its options.
pub fn man(command: Option<&str>) -> anyhow::Result<ExitCode> {
    // Without clap's own `help` command: its page would only send the reader to the others' pages, under
    // names no page has (`nqueens-help-count(1)`), and the top page would name `nqueens-help(1)`, which the
    // pages installed as README says do not include.
    let mut top = Cli::command().disable_help_subcommand(true);
    top.build();
    let page = match command {
        None => top,
        Some(name) => {
            let sub = top
                .get_subcommands()
                .find(|s| s.get_name() == name && !s.is_hide_set())
                .ok_or_else(|| {
                    let names: Vec<&str> = top
                        .get_subcommands()
                        .filter(|s| !s.is_hide_set())
                        .map(|s| s.get_name())
                        .collect();
                    UsageError(format!(
                        "no command '{name}': the manual has a page for {}",
                        names.join(", ")
                    ))
                })?;
            sub.clone()
                .name(format!("nqueens-{name}"))
                .bin_name(format!("nqueens {name}"))
                .version(crate::cli::args::VERSION)
        }
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page).render(&mut roff)?;
    write_out(&roff)
}

fn write_out(bytes: &[u8]) -> anyhow::Result<ExitCode> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
