//! `nqueens check`: reads solutions in any of `list`'s formats, or as other solvers print them, and says of each
//! whether it is one.

use crate::cli::errors::{found_failure, UsageError, EXIT_ERROR};
use crate::cli::output::{Output, Writer};
use crate::cli::validate;
use nqueens::solutions::checker;
use nqueens::solutions::notation::{Notation, Reader};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

/// Checks every placement in `file` (standard input for `None` or `-`).
pub fn run(
    file: Option<&Path>,
    format: Option<Notation>,
    board: Option<&str>,
    quiet: bool,
    output: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let shape = board.map(validate::parse_shape).transpose()?;
    let from_stdin = file.is_none_or(|p| p.as_os_str() == "-");
    if from_stdin && !quiet && io::IsTerminal::is_terminal(&io::stdin()) {
        // `nqueens check` typed alone waits for the terminal, which looks like a hang to whoever meant to
        // name a file or a pipe.
        note!(
            "reading solutions from the terminal, one a line, up to Ctrl-D (or name a file: `nqueens check \
             FILE`, or pipe them: `nqueens list 8 | nqueens check`)"
        );
    }
    let input: Box<dyn BufRead> = match file {
        None => Box::new(io::stdin().lock()),
        Some(p) if p.as_os_str() == "-" => Box::new(io::stdin().lock()),
        Some(p) => {
            let cannot = |why: String| UsageError(format!("cannot read '{}': {why}", p.display()));
            if p.is_dir() {
                return Err(cannot("it is a directory; name a file of solutions".into()).into());
            }
            Box::new(BufReader::new(
                crate::cli::output::open_to_read(p).map_err(|e| cannot(e.to_string()))?,
            ))
        }
    };
    // The verdicts never replace the solutions they judge (`check s.txt -o s.txt`, or `-o s.txt < s.txt`).
    let input_file = match file {
        Some(p) if p.as_os_str() != "-" => (p, "the file being checked"),
        _ => (Path::new("/dev/stdin"), "the standard input being checked"),
    };
    let mut output = Output::open_keeping(output, &[input_file])?;
    let mut out = BufWriter::new(Writer(&mut output));
    let (mut valid, mut invalid, mut malformed) = (0u64, 0u64, 0u64);
    // A list says nothing of its board and is read as a square: one with a queen past the square's last row
    // may be a rectangle's, read without its `--board` (`list 8x6 | check`).
    let mut past_the_square = false;
    let name = file.map_or("standard input".to_string(), |p| {
        format!("'{}'", p.display())
    });
    for entry in Reader::new(input, format, shape) {
        let entry = entry.map_err(|e| anyhow::anyhow!("could not read {name}: {e}"))?;
        let verdict = match entry.placement {
            Err(why) => {
                malformed += 1;
                found_failure(EXIT_ERROR, "a line of the input is malformed");
                format!("malformed: {why}")
            }
            // Text that reads as queens is judged on the board given (`--board`): a drawing of another, a list
            // of another length, a queen off it are invalid, never malformed.
            Ok(p) => match checker::check_placement(&p, shape) {
                Ok(()) => {
                    valid += 1;
                    if quiet {
                        continue;
                    }
                    "valid".to_string()
                }
                Err(flaw) => {
                    invalid += 1;
                    past_the_square |= shape.is_none() && flaw.is_past_the_end();
                    found_failure(EXIT_ERROR, "a solution of the input is invalid");
                    format!("invalid: {flaw}")
                }
            },
        };
        writeln!(out, "line {}: {verdict}", entry.line)?;
    }
    out.flush()?;
    drop(out);
    output.finish()?;
    if valid + invalid + malformed == 0 {
        note!("error: no solutions to check in the input");
        return Ok(ExitCode::FAILURE);
    }
    if !quiet {
        note!("{valid} valid, {invalid} invalid, {malformed} malformed");
        if past_the_square {
            note!(
                "a list is read as a square board, as many rows as it has positions: a rectangle's lists \
                 need --board RxC (`nqueens list 8x6 | nqueens check --board 8x6`)"
            );
        }
    }
    Ok(if invalid + malformed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
