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
    let mut command = without_hidden_options(Cli::command());
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "nqueens", &mut script);
    let script = with_operand_names(shell, String::from_utf8(script)?, &command);
    write_out(script.as_bytes())
}

/// `command` without the options that `--help` hides, which clap's generators offer all the same: the
/// `--kernel` before the command, kept for scripts written for version 0.2, is no option to suggest.
fn without_hidden_options(command: clap::Command) -> clap::Command {
    let visible: Vec<clap::Arg> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .cloned()
        .collect();
    let subcommands: Vec<clap::Command> = command.get_subcommands().cloned().collect();
    let mut bare = clap::Command::new(command.get_name().to_string())
        .args(visible)
        .subcommands(subcommands)
        .subcommand_required(command.is_subcommand_required_set());
    if let Some(version) = command.get_version() {
        bare = bare.version(version.to_string());
    }
    if let Some(about) = command.get_about() {
        bare = bare.about(about.clone());
    }
    bare
}

/// `script` with the names that each command's operands take (`man COMMAND`, `completions SHELL`) offered
/// where that shell's generator offers only options' values: fish, elvish and PowerShell. bash's and zsh's
/// offer them already.
fn with_operand_names(shell: Shell, mut script: String, command: &clap::Command) -> String {
    for sub in command.get_subcommands() {
        let name = sub.get_name();
        let values: Vec<clap::builder::PossibleValue> = sub
            .get_positionals()
            .filter(|a| !a.is_hide_set())
            .flat_map(|a| a.get_possible_values())
            .filter(|v| !v.is_hide_set())
            .collect();
        if values.is_empty() {
            continue;
        }
        let help = |v: &clap::builder::PossibleValue| v.get_help().map(|h| h.to_string());
        match shell {
            Shell::Fish => {
                for v in &values {
                    script.push_str(&format!(
                        "complete -c nqueens -n \"__fish_nqueens_using_subcommand {name}\" -f -a \"{}\"{}\n",
                        v.get_name(),
                        help(v)
                            .map(|h| format!(" -d '{}'", h.replace('\\', "\\\\").replace('\'', "\\'")))
                            .unwrap_or_default()
                    ));
                }
            }
            Shell::Elvish => {
                let lines: String = values
                    .iter()
                    .map(|v| {
                        format!(
                            "            cand {} '{}'\n",
                            v.get_name(),
                            help(v).unwrap_or_default().replace('\'', "''")
                        )
                    })
                    .collect();
                insert_after(&mut script, &format!("&'nqueens;{name}'= {{\n"), &lines);
            }
            Shell::PowerShell => {
                let lines: String = values
                    .iter()
                    .map(|v| {
                        let name = v.get_name();
                        format!(
                            "            [CompletionResult]::new('{name}', '{name}', \
                             [CompletionResultType]::ParameterValue, '{}')\n",
                            help(v)
                                .unwrap_or_else(|| name.to_string())
                                .replace('\'', "''")
                        )
                    })
                    .collect();
                insert_after(&mut script, &format!("'nqueens;{name}' {{\n"), &lines);
            }
            _ => {}
        }
    }
    script
}

/// `text` with `lines` put after the first `marker`, where the generator opens a command's block; as it is
/// where no such block is (a generator that changed its form), which the tests of the scripts then find.
fn insert_after(text: &mut String, marker: &str, lines: &str) {
    if let Some(at) = text.find(marker) {
        text.insert_str(at + marker.len(), lines);
    }
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
    // The footer's source is the program and its version: clap's default is the page's name and the long
    // version (its commit, compiler and target), too long for the footer's middle, where groff printed the
    // title over it. The long version is still the page's VERSION section.
    clap_mangen::Man::new(page)
        .source(format!("nqueens {}", env!("CARGO_PKG_VERSION")))
        .render(&mut roff)?;
    write_out(ascii_roff(&String::from_utf8(roff)?).as_bytes())
}

/// `roff` with each character beyond ASCII written as groff's escape of its code point (`…` as `\[u2026]`),
/// which groff, mandoc and man's preconv all read: the help's `…` and `−`, as they are, were "invalid input
/// characters" to a groff given the page without preconv, and printed as bytes of another code page.
fn ascii_roff(roff: &str) -> String {
    let mut out = String::with_capacity(roff.len());
    for c in roff.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", u32::from(c)));
        }
    }
    out
}

fn write_out(bytes: &[u8]) -> anyhow::Result<ExitCode> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
