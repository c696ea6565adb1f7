//! The `bench` command: its options' validation, and the glue between the library's benchmark, the
//! terminal, the progress bar and the export files.
//!
//! The table goes to standard output as the runs finish. Each export file is rewritten whole, atomically,
//! after every run, so an interrupted benchmark leaves files that hold every run measured, marked as
//! incomplete.

use crate::cli::args::BenchArgs;
use crate::cli::errors::{UsageError, EXIT_MISMATCH};
use crate::cli::output::Export;
use crate::cli::progress::Bar;
use nqueens::engine::count::Count;
use nqueens::report::bench::{
    self, BenchError, BenchReport, BenchRequest, Clock, Event, FakeClock, SystemClock, Timing,
};
use nqueens::report::export::bench::{exporter, BenchExporter, Table};
use nqueens::report::machine::{Machine, Program};
use nqueens::Error;
use std::io::{self, Write};
use std::process::ExitCode;

impl BenchArgs {
    /// The library request these options ask for, on the board side `n` (`--n`, read).
    fn request(&self, n: Option<u32>) -> BenchRequest {
        let base = if self.quick {
            BenchRequest::quick_on(self.backend)
        } else {
            BenchRequest::standard_on(self.backend)
        };
        BenchRequest {
            n: n.unwrap_or(base.n),
            symmetry: self.symmetry,
            runs: self.runs,
            warmup: self.warmup,
            max_threads: self.threads.map_or(base.max_threads, |t| t as usize),
            backend: self.backend,
            // The made-up clock times nothing, and its reports must not depend on this machine's processors.
            pin: !self.no_pin && !crate::cli::args::test_fake_clock(),
        }
    }
}

/// A clock that adds to every total: the `NQUEENS_TEST_OFFSET` testing aid.
struct Offset<'a> {
    clock: &'a dyn Clock,
    offset: u32,
}

impl Clock for Offset<'_> {
    fn time(
        &self,
        workers: usize,
        run: &mut dyn FnMut() -> Result<Count, Error>,
    ) -> Result<(Count, Timing), Error> {
        let (mut count, timing) = self.clock.time(workers, run)?;
        count.total += u128::from(self.offset);
        Ok((count, timing))
    }

    fn timestamp(&self) -> String {
        self.clock.timestamp()
    }
}

/// Runs `nqueens bench`.
pub fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    // Read as every command reads a board size, with the same messages.
    let n = args
        .n
        .as_deref()
        .map(crate::cli::validate::parse_square)
        .transpose()?;
    let request = args.request(n);
    crate::cli::validate::gpus(request.backend, args.gpus.as_ref().map(|g| g.0.as_slice()))?;
    crate::cli::validate::backend(request.backend)?;
    nqueens::gpu::use_gpus(args.gpus.clone().map(|g| g.0));
    // A benchmark's rate is of nodes: a kernel asked (for measuring) to leave them uncounted has none.
    if request.backend == nqueens::engine::exec::Backend::Gpu && nqueens::gpu::nodes_uncounted() {
        return Err(UsageError(
            "cannot benchmark: NQUEENS_GPU_DEFINES asks for NQ_UNCOUNTED, a kernel that leaves the nodes \
             uncounted, and a benchmark reports nodes/s; leave it out"
                .into(),
        )
        .into());
    }
    // A kernel switch asked for in the environment that is no choice for the board is bad usage, said before
    // the GPU is looked for, as `count` says it.
    if request.backend == nqueens::engine::exec::Backend::Gpu {
        if let Ok(board) = nqueens::Board::new(request.n) {
            crate::cli::validate::gpu_board(board)?;
        }
    }
    let workload = request.workload().map_err(|e| match e {
        // No GPU (or a GPU that fails) is the machine's, not the command line's: exit code 1, as for count.
        BenchError::Count(Error::Gpu(_)) => anyhow::anyhow!("cannot benchmark: {e}"),
        e => UsageError(format!("cannot benchmark: {e}")).into(),
    })?;
    let exports = args.exports.files(None, &[])?;
    let (clock, machine, program): (&dyn Clock, _, _) = if crate::cli::args::test_fake_clock() {
        (
            &FakeClock::default(),
            Machine::placeholder(),
            Program::placeholder(),
        )
    } else {
        (
            &SystemClock,
            workload.describe_gpus(Machine::detect()),
            Program::current(),
        )
    };
    let clock = Offset {
        clock,
        offset: crate::cli::args::test_offset()?,
    };
    let spec = &workload.spec;
    let runs_in_all = spec.warmup + spec.runs * spec.steps().len();
    let bar = Bar::total(args.quiet, spec.units * runs_in_all as u64);
    let report = BenchReport::new(spec.clone(), machine, program, clock.timestamp());
    // Said before the runs too, which a debug build makes long: the report says it again at the end.
    if !args.quiet {
        for warning in &report.warnings {
            note!("warning: {}", warning.message);
        }
    }
    let exporters: Vec<(Box<dyn BenchExporter>, &Export)> = exports
        .iter()
        .map(|export| (exporter(export.format), export))
        .collect();
    let mut stdout = io::stdout();
    // The export files, as a signal's words name them (a file kept beside its name, by that name).
    let exported = || -> Vec<String> {
        // A stream too: a signal's stop sends it the document ([`crate::cli::output::write_stream_documents`]).
        exports.iter().map(|e| e.unfinished_words()).collect()
    };
    *crate::cli::output::last_words() = stopped(&report, &exported());
    crate::cli::output::erase_before_last_words(bar.eraser());
    crate::cli::output::say_on_signal();
    let report = bench::run(
        &workload,
        report,
        &clock,
        &bar,
        &mut |report: &BenchReport, event| -> anyhow::Result<()> {
            // Held until the run's row and files are written: a signal then says what they hold.
            let mut words = crate::cli::output::last_words();
            if report.status == bench::Status::Failed {
                crate::cli::errors::found_failure(
                    EXIT_MISMATCH,
                    "a count of the benchmark differs from the published value",
                );
            }
            let text = match event {
                Event::Started => Table.header(report),
                Event::RunDone => Table.run(report, report.runs.last().expect("a run is done")),
                Event::Finished => Table.footer(report),
            };
            bar.suspend(|| -> io::Result<()> {
                stdout.write_all(&text)?;
                stdout.flush()
            })?;
            // Every export is written, whatever became of the one before.
            let mut failure = None;
            for (exporter, export) in &exporters {
                let written = bar
                    .suspend(|| export.write(&exporter.document(report), event == Event::Finished));
                match written {
                    Ok(()) => {}
                    Err(e) if failure.is_none() => failure = Some(e),
                    Err(e) => note!("error: {e:#}"),
                }
            }
            if event == Event::Finished {
                words.clear();
            } else {
                bar.set_message(next_run(report));
                *words = stopped(report, &exported());
            }
            if let Some(e) = failure {
                return Err(e);
            }
            Ok(())
        },
    );
    bar.finish();
    let report = report?;
    if !args.quiet {
        for export in &exports {
            note!("wrote {}", export.written_to().display());
        }
    }
    // An export whose name became something the benchmark may not replace was kept beside it.
    let kept: Vec<String> = exports.iter().filter_map(|e| e.kept_aside()).collect();
    for words in &kept {
        note!("error: {words}");
    }
    if report.status == bench::Status::Failed {
        note!(
            "error: a count differs from the published value; the benchmark stopped (see the table above)"
        );
        return Ok(ExitCode::from(EXIT_MISMATCH));
    }
    Ok(if kept.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::cli::errors::EXIT_ERROR)
    })
}

/// What the benchmark says if a signal stops it now: how far it got, and where its runs are (the table on
/// standard output, and the export files, `exported`, with their marks of a run not finished; an export to a stream is written at the
/// end alone, so it has nothing).
fn stopped(report: &BenchReport, exported: &[String]) -> String {
    let (done, planned) = report.timed_progress();
    let kept = if done == 0 && exported.is_empty() {
        "no timed run had ended".to_string()
    } else if done == 0 {
        format!(
            "no timed run had ended, so {} {} none",
            exported.join(", "),
            if exported.len() == 1 { "has" } else { "have" }
        )
    } else if exported.is_empty() {
        "the table above has the runs measured".to_string()
    } else {
        format!(
            "the table above has the runs measured, and so has {}",
            exported.join(", ")
        )
    };
    format!("the benchmark ended after {done} of its {planned} timed runs; {kept}")
}

/// The progress bar's words for the run that comes next.
fn next_run(report: &BenchReport) -> String {
    let w = &report.workload;
    let warmups = report.runs.iter().filter(|r| r.warmup).count();
    if warmups < w.warmup {
        return format!("warm-up {} of {}", warmups + 1, w.warmup);
    }
    let (done, _) = report.timed_progress();
    let steps = w.steps();
    // After the last run, the bar stays on what it measured last rather than name a run past the end.
    if done >= w.runs * steps.len() {
        return "all runs done".into();
    }
    format!(
        "{}, run {} of {}",
        steps[done % steps.len()].describe(),
        done / steps.len() + 1,
        w.runs
    )
}
