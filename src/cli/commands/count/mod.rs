//! The `count` and `verify` commands: count boards, in one go or through a checkpoint journal, and compare
//! the totals with the published values.

pub mod checkpointed;

use crate::cli::args::{CountOptions, DurableOptions};
use crate::cli::errors::EXIT_MISMATCH;
use crate::cli::output::Output;
use crate::cli::{progress, validate};
use checkpointed::Durable;
use nqueens::report::export::Columns;
use nqueens::report::{Check, Report};
use std::process::ExitCode;

/// Runs `nqueens verify RANGE`: a count of every board in the range, checked against the published values.
pub fn verify(range: &str, options: &CountOptions) -> anyhow::Result<ExitCode> {
    crate::cli::validate::parse_verified(range)?;
    let code = run(
        &[range.to_string()],
        true,
        options,
        &DurableOptions::default(),
    )?;
    if code == ExitCode::SUCCESS && !options.quiet {
        note!("all counts match the published values");
    }
    Ok(code)
}

/// Asks the driver for the first GPU in use, as a missing one is found before anything is written, and names it
/// on standard error unless `quiet`.
fn name_gpu(quiet: bool, bar: &progress::Bar) -> anyhow::Result<()> {
    let asked = std::time::Instant::now();
    let gpu = nqueens::gpu::device()?;
    bar.suspend(|| {
        if nqueens::gpu::verbose() {
            // The driver's start (cuInit) is part of a small run's fixed cost: see results/gpu.md.
            note!(
                "gpu: the driver named the GPU in {:.3} s",
                asked.elapsed().as_secs_f64()
            );
        }
        if !quiet {
            note!(
                "GPU: {} ({} multiprocessors)",
                gpu.name,
                gpu.multiprocessors
            );
        }
    });
    Ok(())
}

/// Runs `nqueens count`: every board of `sizes`, checked against the published values where `check` says so.
pub fn run(
    sizes: &[String],
    check: bool,
    options: &CountOptions,
    durable: &DurableOptions,
) -> anyhow::Result<ExitCode> {
    let test_offset = crate::cli::args::test_offset()?;
    let requests = validate::requests(sizes, options)?;
    if check {
        validate::published(&requests)?;
    }
    let durable = checkpointed::resolve(durable, requests.len(), check, options)?;
    let on_gpu = options.backend == nqueens::engine::exec::Backend::Gpu;
    // A missing GPU is found before anything is written. A checkpointed run writes its journal before it
    // counts, so it finds its GPU and opens it first; any other run counts its first board while it asks
    // (below), since the driver's start is much of a small run's time.
    let bar = progress::Bar::per_count(options.quiet, options.progress_every);
    if on_gpu && durable.is_some() {
        name_gpu(options.quiet, &bar)?;
        if let Some(first) = requests.first() {
            // A GPU whose driver hangs in opening it is said, through the progress's notes.
            nqueens::gpu::open_ahead(first.board, Some(&bar))?;
        }
    }
    let journal = durable
        .as_ref()
        .map(|d| (d.path.as_path(), "the journal of this run"));
    let exports = options
        .exports
        .files(options.output.as_deref(), journal.as_slice())?;
    let mut out = Output::open_keeping(options.output.as_deref(), journal.as_slice())?;
    let columns = Columns {
        check,
        part: durable.as_ref().is_some_and(Durable::is_part),
    };
    let exporter = options.format.exporter_for(columns);
    let threads = requests.first().map_or(1, |r| r.threads);
    let mut report = Report::start(threads);
    // Each export file is rewritten whole as each board is counted: an interrupted sweep leaves every board
    // it counted, in a document whose status says it did not finish.
    let exporters: Vec<_> = exports
        .iter()
        .map(|export| (export.format.exporter_for(columns), export))
        .collect();
    let write_exports = |report: &Report, last: bool| -> anyhow::Result<()> {
        for (exporter, export) in &exporters {
            export.write(&exporter.document(report), last)?;
        }
        Ok(())
    };
    // A run on the GPU without a journal writes its header and exports once the driver has named the GPU,
    // while its first board is counted.
    let mut gpu_unnamed = on_gpu && durable.is_none();
    // A checkpointed run counts one board. Its journal is opened (or refused) before the exports are first
    // written: a refused journal leaves the exports of an earlier run as they were.
    let mut opened = match (&durable, requests.first()) {
        // Its notes (the journal, a torn line dropped) are written out of the bar's way.
        (Some(d), Some(request)) => {
            Some(bar.suspend(|| checkpointed::open(request, d, options.quiet))?)
        }
        _ => None,
    };
    // A run without a journal says, if a signal stops it, what it had counted and where that is (a journal's
    // run handles the signals itself: it saves the journal and says so).
    // Rows are where they go as soon as they are written where the output is a stream and the format writes
    // a row a board; one JSON document is written when the count ends.
    let rows = {
        let (name, streamed) = out.destination();
        (name, streamed && exporter.streams_rows())
    };
    let stopped = |done: usize| Stopped {
        boards: &requests,
        check,
        done,
        rows: &rows,
        document: !exporter.streams_rows(),
        exported: &exports,
    };
    if durable.is_none() {
        *crate::cli::output::last_words() = stopped(0).words();
        crate::cli::output::erase_before_last_words(bar.eraser());
        crate::cli::output::say_on_signal();
    }
    if !gpu_unnamed {
        bar.suspend(|| write_exports(&report, false))?;
        // A checkpointed run may stop before its one row: its header waits for the row, so an interrupted
        // run writes nothing that looks like a result.
        if durable.is_none() {
            // Out of the bar's way: on a terminal that shows both, the header went on the bar's line and
            // left it behind ("planning the work units") above the table.
            bar.suspend(|| out.write(&exporter.header(&report)))?;
        }
    }
    let mut mismatches = Vec::new();
    for request in &requests {
        bar.set_message(request.board.words());
        let mut result = match &durable {
            None if std::mem::take(&mut gpu_unnamed) => std::thread::scope(|scope| {
                let counting = scope.spawn(|| nqueens::count(request, &bar));
                let started = name_gpu(options.quiet, &bar).and_then(|()| {
                    bar.suspend(|| write_exports(&report, false))?;
                    bar.suspend(|| out.write(&exporter.header(&report)))?;
                    Ok(())
                });
                let counted = counting
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p));
                // No GPU: the count fails too, and the driver's own words come first.
                started?;
                anyhow::Ok(counted?)
            })?,
            None => nqueens::count(request, &bar)?,
            Some(d) => {
                let opened = opened
                    .take()
                    .expect("a checkpointed run counts one board, its journal opened above");
                match checkpointed::count(opened, request, d, &bar)? {
                    checkpointed::Counted::Done(result) => *result,
                    // The output file, if any, is dropped unwritten: an interrupted run leaves no result.
                    checkpointed::Counted::Stopped(code) => return Ok(ExitCode::from(code)),
                }
            }
        };
        result.total += u128::from(test_offset);
        if check {
            result.check();
            for (what, counted, check) in [
                ("total", Some(result.total), result.check),
                ("unique count", result.unique, result.check_unique),
            ] {
                if let (Some(counted), Some(Check::Mismatch { expected })) = (counted, check) {
                    crate::cli::errors::found_failure(
                        EXIT_MISMATCH,
                        "a count differs from the published value",
                    );
                    mismatches.push(format!(
                        "n = {}: counted {counted} as the {what}, but the published value is {expected}",
                        result.n
                    ));
                }
            }
        }
        // Held until the row and the exports are written: a signal then says what they hold.
        let mut words = crate::cli::output::last_words();
        if durable.is_some() {
            bar.suspend(|| out.write(&exporter.header(&report)))?;
        }
        bar.suspend(|| out.write(&exporter.row(&report, &result)))?;
        // Unless the row shows on the terminal's standard output as it is counted, stderr says the board's
        // total (a file, a device such as /dev/null, one JSON document).
        let row_shows = out.is_stdout() && rows.1;
        // Out of the bar's way, which is still drawn: it took the line ("ETA 0sn = 14: 365596 solutions").
        if !row_shows && !options.quiet {
            bar.suspend(|| {
                note!(
                    "{}: {} solutions in {:.3} s",
                    request.board.words(),
                    result.total,
                    result.seconds
                )
            });
        }
        // Where several GPUs counted, what each did: a slow or idle one shows (a checkpointed run has said it).
        if !options.quiet && durable.is_none() {
            for line in result.gpu.iter().flat_map(|g| g.share_lines()) {
                bar.suspend(|| note!("{line}"));
            }
        }
        report.results.push(result);
        bar.suspend(|| write_exports(&report, false))?;
        if durable.is_none() {
            *words = stopped(report.results.len()).words();
        }
    }
    bar.finish();
    report.finish();
    out.write(&exporter.footer(&report))?;
    let finished = {
        // Held until the output has its name: a signal says it was not written, or nothing (it is complete).
        let mut words = crate::cli::output::last_words();
        let finished = out.finish();
        words.clear();
        finished
    };
    // Every export gets its last document, and every failure is said, whatever became of the others: a
    // result kept beside its name still leaves the exports saying that the run finished.
    let mut failure = finished.err();
    let mut kept = Vec::new();
    for (exporter, export) in &exporters {
        match export.write(&exporter.document(&report), true) {
            Ok(()) => {
                if !options.quiet {
                    note!("wrote {}", export.written_to().display());
                }
                kept.extend(export.kept_aside());
            }
            Err(e) if failure.is_none() => failure = Some(e),
            Err(e) => note!("error: {e:#}"),
        }
    }
    for mismatch in &mismatches {
        note!("error: {mismatch}");
    }
    for words in &kept {
        note!("error: {words}");
    }
    // A count that differs from the published value is the answer, whatever became of its files.
    if !mismatches.is_empty() {
        if let Some(e) = failure {
            note!("error: {e:#}");
        }
        return Ok(ExitCode::from(EXIT_MISMATCH));
    }
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(if kept.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::cli::errors::EXIT_ERROR)
    })
}

/// Where a count without a journal stands, for the words a signal that stops it says: the boards it was asked
/// for, how many of them it has counted, and where their rows are.
struct Stopped<'a> {
    boards: &'a [nqueens::CountRequest],
    /// Whether the counts are checked (`verify`, `--check`): the command that keeps a board's work checks it too.
    check: bool,
    done: usize,
    /// The output's name, and whether its rows are there as they are written ([`Output::destination`], and a
    /// format that writes a row a board).
    rows: &'a (String, bool),
    /// Whether the output is one document (JSON) rather than a table.
    document: bool,
    exported: &'a [crate::cli::output::Export],
}

impl Stopped<'_> {
    /// `3 of the 4 boards were counted, n = 18 was not; standard output has their rows, and so has c.json
    /// (marked "running"); ...`
    fn words(&self) -> String {
        let asked = self.boards.len();
        let unfinished = self.boards.get(self.done).map(|r| r.board);
        let mut words = match (self.done, unfinished) {
            (_, None) => format!(
                "all {asked} board{} counted, and the count was writing its results",
                if asked == 1 { " was" } else { "s were" }
            ),
            (0, Some(board)) if asked == 1 => {
                format!("{} was not finished", board.words())
            }
            (0, Some(board)) => format!(
                "{}, the first of {asked} boards, was not finished",
                board.words()
            ),
            (done, Some(board)) => format!(
                "{done} of the {asked} boards {} counted, {} was not",
                if done == 1 { "was" } else { "were" },
                board.words()
            ),
        };
        // A stream too: a signal's stop sends it the document ([`crate::cli::output::write_stream_documents`]).
        let files: Vec<String> = self.exported.iter().map(|e| e.unfinished_words()).collect();
        if self.done > 0 {
            let rows = match self.rows {
                (name, true) => Some(name),
                (name, false) => {
                    words += &format!(
                        "; {name} was not written (its {} is written when the count ends)",
                        if self.document { "document" } else { "table" }
                    );
                    None
                }
            };
            let one = if self.done == 1 {
                "its row"
            } else {
                "their rows"
            };
            match (rows, files.is_empty()) {
                (Some(rows), true) => words += &format!("; {rows} has {one}"),
                (Some(rows), false) => {
                    words += &format!("; {rows} has {one}, and so has {}", files.join(", "))
                }
                (None, false) => {
                    let verb = if files.len() == 1 { "has" } else { "have" };
                    words += &format!("; {} {verb} {one}", files.join(", "));
                }
                (None, true) => {}
            }
        }
        if let Some(request) = self.boards.get(self.done) {
            words += &format!(
                "; `nqueens count {}{}{} --checkpoint FILE` keeps a board's work when stopped, and resumes it",
                request.board,
                if self.check { " --check" } else { "" },
                // Counted on the CPU, a GPU's board would take many times as long.
                if request.backend == nqueens::engine::exec::Backend::Gpu {
                    " --backend gpu"
                } else {
                    ""
                }
            );
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nqueens::engine::exec::Backend;
    use nqueens::CountRequest;

    #[test]
    fn a_stopped_count_suggests_a_journal_on_its_own_backend() {
        let cpu = CountRequest::new(22).unwrap();
        let gpu = CountRequest {
            backend: Backend::Gpu,
            ..cpu
        };
        let rows = ("standard output".to_string(), true);
        let words = |boards: &[CountRequest], check| {
            Stopped {
                boards,
                check,
                done: 0,
                rows: &rows,
                document: false,
                exported: &[],
            }
            .words()
        };
        assert_eq!(
            words(&[cpu], false),
            "n = 22 was not finished; `nqueens count 22 --checkpoint FILE` keeps a board's work when stopped, \
             and resumes it"
        );
        assert!(words(&[gpu], true).ends_with(
            "`nqueens count 22 --check --backend gpu --checkpoint FILE` keeps a board's work when stopped, and \
             resumes it"
        ));
    }

    #[test]
    fn a_stopped_count_whose_output_is_one_document_says_it_was_not_written() {
        // `count 4..8 20 -f json` stopped while it counts n = 20: the JSON document is written when the count
        // ends, so standard output has no row yet (stderr said each board's total as it was counted).
        let boards: Vec<CountRequest> = [4, 5, 6, 7, 8, 20]
            .map(|n| CountRequest::new(n).unwrap())
            .to_vec();
        let rows = ("standard output".to_string(), false);
        let words = Stopped {
            boards: &boards,
            check: false,
            done: 5,
            rows: &rows,
            document: true,
            exported: &[],
        }
        .words();
        assert!(
            words.starts_with(
                "5 of the 6 boards were counted, n = 20 was not; standard output was not written (its document \
                 is written when the count ends);"
            ),
            "{words}"
        );
        assert!(!words.contains("has their rows"), "{words}");
    }
}
