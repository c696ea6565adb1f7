//! The `bench` command: its options, their validation, and the glue between the library's benchmark, the
//! terminal, the progress bar and the export files.
//!
//! The table goes to standard output as the runs finish. Each export file is rewritten whole, atomically,
//! after every run, so an interrupted benchmark leaves files that hold every run measured, marked as
//! incomplete.

use crate::cli::UsageError;
use crate::output::{self, Output};
use crate::progress::Bar;
use crate::EXIT_MISMATCH;
use clap::builder::TypedValueParser;
use clap::Args;
use nqueens::engine::count::Count;
use nqueens::report::bench::{
    self, BenchReport, BenchRequest, Clock, Event, FakeClock, SystemClock, Timing,
};
use nqueens::report::export::bench::{exporter, BenchExporter, Table};
use nqueens::report::export::Format;
use nqueens::report::machine::{Machine, Program};
use nqueens::{Error, Symmetry};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `nqueens bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Board side [default: 18, the standard workload; 16 with --quick].
    #[arg(long, value_name = "N")]
    pub n: Option<u32>,
    /// A run of a few seconds: the standard measurement on n = 16.
    #[arg(long)]
    pub quick: bool,
    /// Timed runs per thread count; the median, min and max are reported.
    #[arg(long, default_value_t = bench::STANDARD_RUNS, value_parser = clap::value_parser!(u32).range(1..=1000).map(|r| r as usize))]
    pub runs: usize,
    /// Untimed warm-up runs on all threads before the timed ones.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=100).map(|r| r as usize))]
    pub warmup: usize,
    /// All threads: the multi-thread score uses this many, and the scaling table goes 1, 2, 4, … up to it
    /// [default: all available cores].
    #[arg(short, long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// What counts: `cpu`, or `gpu` (the first NVIDIA GPU, in a build with the `cuda` feature), timed on all
    /// threads only, which cut its tasks; the report names the GPU and gives its kernel time.
    #[arg(long, default_value = "cpu", value_parser = crate::cli::parse_backend)]
    pub backend: nqueens::engine::exec::Backend,
    /// Symmetry reduction; the standard workload is `full`.
    #[arg(long, default_value = "full", value_parser = parse_symmetry)]
    pub symmetry: Symmetry,
    /// Write the report as JSON (every run, the summaries, the machine) to FILE, rewritten after each run.
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Write one CSV row per run to FILE, rewritten after each run.
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Write a Markdown report to FILE, rewritten after each run.
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Print nothing but the results: no progress bar, no messages.
    #[arg(short, long)]
    pub quiet: bool,
    /// Testing aid: time runs with a made-up clock and describe a made-up machine and build, so the output
    /// is the same everywhere. The counting is real.
    #[arg(long, hide = true)]
    pub debug_fake_clock: bool,
    /// Testing aid: add this to every total before it is checked, to exercise the mismatch path.
    #[arg(long, hide = true, default_value_t = 0)]
    pub debug_offset: u32,
}

fn parse_symmetry(s: &str) -> Result<Symmetry, String> {
    s.parse().map_err(|e| format!("{e}"))
}

impl BenchArgs {
    /// The library request these options ask for.
    fn request(&self) -> BenchRequest {
        let base = if self.quick {
            BenchRequest::quick()
        } else {
            BenchRequest::standard()
        };
        BenchRequest {
            n: self.n.unwrap_or(base.n),
            symmetry: self.symmetry,
            runs: self.runs,
            warmup: self.warmup,
            max_threads: self.threads.map_or(base.max_threads, |t| t as usize),
            backend: self.backend,
        }
    }

    /// The export files asked for, each checked writable before anything runs.
    fn exports(&self) -> Result<Vec<(Format, PathBuf)>, UsageError> {
        let asked = [
            (Format::Json, "--export-json", &self.export_json),
            (Format::Csv, "--export-csv", &self.export_csv),
            (Format::Markdown, "--export-markdown", &self.export_markdown),
        ];
        let mut exports: Vec<(Format, PathBuf)> = Vec::new();
        for (format, flag, path) in asked {
            let Some(path) = path else { continue };
            if path.as_os_str() == "-" {
                return Err(UsageError(format!(
                    "{flag} needs a file name: the table already goes to standard output"
                )));
            }
            if exports.iter().any(|(_, p)| p == path) {
                return Err(UsageError(format!(
                    "'{}' is named by two exports: give each its own file",
                    path.display()
                )));
            }
            // Opening makes (and drops) a temporary file beside the destination: proof it can be written.
            Output::open(Some(path))?;
            exports.push((format, path.clone()));
        }
        Ok(exports)
    }
}

/// A clock that adds to every total: the `--debug-offset` testing aid.
struct Offset<'a> {
    clock: &'a dyn Clock,
    offset: u32,
}

impl Clock for Offset<'_> {
    fn time(
        &self,
        threads: usize,
        run: &mut dyn FnMut() -> Result<Count, Error>,
    ) -> Result<(Count, Timing), Error> {
        let (mut count, timing) = self.clock.time(threads, run)?;
        count.total += u128::from(self.offset);
        Ok((count, timing))
    }

    fn timestamp(&self) -> String {
        self.clock.timestamp()
    }
}

/// Runs `nqueens bench`.
pub fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    let request = args.request();
    let workload = request
        .workload()
        .map_err(|e| UsageError(format!("cannot benchmark: {e}")))?;
    let exports = args.exports()?;
    let (clock, machine, program): (&dyn Clock, _, _) = if args.debug_fake_clock {
        (
            &FakeClock::default(),
            Machine::placeholder(),
            Program::placeholder(),
        )
    } else {
        (&SystemClock, Machine::detect(), Program::current())
    };
    let clock = Offset {
        clock,
        offset: args.debug_offset,
    };
    let spec = &workload.spec;
    let runs_in_all = spec.warmup + spec.runs * spec.thread_counts.len();
    let bar = Bar::total(args.quiet, spec.units * runs_in_all as u64);
    let report = BenchReport::new(spec.clone(), machine, program, clock.timestamp());
    let exporters: Vec<(Box<dyn BenchExporter>, &PathBuf)> = exports
        .iter()
        .map(|(format, path)| (exporter(*format), path))
        .collect();
    let mut stdout = io::stdout();
    let report = bench::run(
        &workload,
        report,
        &clock,
        &bar,
        &mut |report: &BenchReport, event| -> anyhow::Result<()> {
            let text = match event {
                Event::Started => Table.header(report),
                Event::RunDone => Table.run(report, report.runs.last().expect("a run is done")),
                Event::Finished => Table.footer(report),
            };
            bar.suspend(|| -> io::Result<()> {
                stdout.write_all(&text)?;
                stdout.flush()
            })?;
            for (exporter, path) in &exporters {
                output::write_atomic(path, &exporter.document(report))?;
            }
            if event != Event::Finished {
                bar.set_message(next_run(report));
            }
            Ok(())
        },
    );
    bar.finish();
    let report = report?;
    if !args.quiet {
        for (_, path) in &exports {
            eprintln!("wrote {}", path.display());
        }
    }
    if report.status == bench::Status::Failed {
        eprintln!(
            "error: a count differs from the published value; the benchmark stopped (see the table above)"
        );
        return Ok(ExitCode::from(EXIT_MISMATCH));
    }
    Ok(ExitCode::SUCCESS)
}

/// The progress bar's words for the run that comes next.
fn next_run(report: &BenchReport) -> String {
    let w = &report.workload;
    let warmups = report.runs.iter().filter(|r| r.warmup).count();
    if warmups < w.warmup {
        return format!("warm-up {} of {}", warmups + 1, w.warmup);
    }
    let (done, _) = report.timed_progress();
    let threads = w.thread_counts[done % w.thread_counts.len()];
    format!(
        "{threads} thread{}, run {} of {}",
        if threads == 1 { "" } else { "s" },
        done / w.thread_counts.len() + 1,
        w.runs
    )
}
