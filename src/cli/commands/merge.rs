//! `nqueens merge`: reads the journals of a run, merges them into the exact total, checks it against the
//! published value, and writes it in any result format.

use crate::cli::errors::UsageError;
use crate::cli::output::Output;
use nqueens::report::export::{Columns, Format};
use nqueens::report::{BoardResult, Check, Measured, Report};
use nqueens::runs::journal::{Contents, JournalError};
use nqueens::runs::merge::{merge, Source};
use nqueens::Symmetry;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Merges `files` and writes the total.
pub fn run(
    files: &[PathBuf],
    format: Format,
    output: Option<&Path>,
    quiet: bool,
) -> anyhow::Result<ExitCode> {
    let inputs: Vec<(&Path, &str)> = files
        .iter()
        .map(|f| (f.as_path(), "one of the journals merged"))
        .collect();
    let mut out = Output::open_keeping(output, &inputs)?;
    let mut sources: Vec<Source> = Vec::new();
    for path in files {
        // The same journal named twice (a glob and its own name, a link) is read once: its second reading would
        // count as a copy confirming the first, which it is not. Said unless `quiet`: it changes nothing of the
        // total.
        if let Some(earlier) = sources
            .iter()
            .find(|s| crate::cli::output::same_file(&s.path, path))
        {
            if !quiet {
                note!(
                    "'{}' is '{}' named again: read once",
                    path.display(),
                    earlier.path.display()
                );
            }
            continue;
        }
        // A folder is a mistake in the arguments (exit code 2), not a journal that fails to merge.
        if path.is_dir() {
            return Err(UsageError(format!(
                "cannot read '{}': it is a directory; name the journal files, such as '{}'",
                path.display(),
                path.join("*.journal").display()
            ))
            .into());
        }
        // A file that cannot be opened (missing, not ours to read) is a mistake in the arguments, as for
        // `check` and `plot`: exit code 2.
        let file = crate::cli::output::open_to_read(path).map_err(|e| {
            let missing = e.kind() == std::io::ErrorKind::NotFound;
            let mut message = JournalError::io("read", path, e).to_string();
            // A shell passes a pattern that matches no file on as it is (bash without `nullglob`, sh, dash), so
            // `merge 'n20-*.journal'` quoted, or a pattern of journals not yet come back, arrives as one missing
            // file named with a `*`: say that, as "no such file" alone reads as if the journals were lost.
            if missing && is_pattern(path) {
                message += "; no file matches this pattern (the shell passed it on unexpanded, as it does when \
                            nothing matches, or when it is quoted): check the folder and the journals' names";
            }
            UsageError(message)
        })?;
        // A journal whose run still counts into it holds that run's lock: a merge meanwhile says so rather than
        // asking for the units it lacks to be counted again. The lock is only looked at, never kept, so that a
        // run starting now is not refused for this merge.
        let in_use = match file.try_lock_shared() {
            Ok(()) => {
                let _ = file.unlock();
                false
            }
            Err(std::fs::TryLockError::WouldBlock) => true,
            Err(std::fs::TryLockError::Error(_)) => false,
        };
        let contents = Contents::read_from(file, path)?;
        // Said even when `quiet`: a line of the journal is dropped.
        if let Some(line) = contents.torn {
            note!(
                "warning: '{}' ends in a torn line (line {line}), left by an interrupted write; its unit counts \
                 as missing",
                path.display()
            );
        }
        sources.push(Source {
            path: path.clone(),
            contents,
            in_use,
        });
    }
    let merged = merge(&sources)?;
    let h = &merged.header;
    let symmetry: Symmetry = h
        .symmetry
        .parse()
        .map_err(|e| anyhow::anyhow!("'{}': {e}", files[0].display()))?;
    if !quiet {
        note!(
            "merged {} journal{}: {} of {}, symmetry {}, split depth {} (fingerprint {}), {} \
             confirmed by copies that agree{}",
            sources.len(),
            if sources.len() == 1 { "" } else { "s" },
            nqueens::engine::plan::all_units(h.units),
            h.board_words(),
            h.symmetry,
            h.split_depth,
            h.fingerprint,
            merged.confirmed,
            uncounted_words(merged.count.uncounted)
        );
    }
    // A merge has no run time of its own: the journals were counted elsewhere, at other times.
    let mut result = BoardResult::new(Measured {
        board: h
            .board()
            .map_err(|e| anyhow::anyhow!("'{}': {e}", files[0].display()))?,
        symmetry,
        threads: 0,
        kernel: None,
        split_depth: h.split_depth,
        count: merged.count,
        seconds: 0.0,
    });
    result.check();
    if [result.check, result.check_unique]
        .iter()
        .any(|c| matches!(c, Some(Check::Mismatch { .. })))
    {
        crate::cli::errors::found_failure(
            crate::cli::errors::EXIT_MISMATCH,
            "the merged count differs from the published value",
        );
    }
    let exporter = format.exporter_for(Columns {
        check: true,
        part: false,
    });
    let mut report = Report::start(0);
    out.write(&exporter.header(&report))?;
    out.write(&exporter.row(&report, &result))?;
    report.results.push(result.clone());
    report.finish();
    out.write(&exporter.footer(&report))?;
    out.finish()?;
    let mut code = ExitCode::SUCCESS;
    for (what, counted, check) in [
        ("total", Some(result.total), result.check),
        ("unique count", result.unique, result.check_unique),
    ] {
        if let (Some(counted), Some(Check::Mismatch { expected })) = (counted, check) {
            note!(
                "error: n = {}: the merged {what} is {counted}, but the published value is {expected}",
                result.n
            );
            code = ExitCode::from(crate::cli::errors::EXIT_MISMATCH);
        }
    }
    Ok(code)
}

/// What a merge says of units whose nodes were not counted (`count --uncounted-nodes`): nothing where every
/// unit counted them.
fn uncounted_words(units: u64) -> String {
    if units == 0 {
        return String::new();
    }
    let plural = if units == 1 { "" } else { "s" };
    format!("; the nodes of {units} unit{plural} not counted (--uncounted-nodes), so the run's nodes are not known")
}

/// Whether `path` reads as a shell's pattern: a `*`, `?` or `[` in its name, which a journal's name never has
/// unless the user made it so.
fn is_pattern(path: &Path) -> bool {
    path.to_string_lossy().contains(['*', '?', '['])
}
