//! `nqueens estimate`: how long counting a board would take on this machine, from seconds of samples of its
//! search ([`nqueens::engine::forecast`]), one row a board as each is sampled.
//!
//! The plan sampled is the one the count would make: a plain count's, whose split follows the threads, or with
//! `--shard` a checkpointed run's ([`nqueens::runs::checkpoint::plan`]), of which only the shard's units are
//! sampled, so that a shard's estimate is of its own nodes.

use crate::cli::errors::UsageError;
use crate::cli::output::Output;
use crate::cli::validate::{parse_boards, symmetry_for};
use nqueens::engine::exec::Backend;
use nqueens::engine::forecast::Forecast;
use nqueens::gpu::GpuSample;
use nqueens::report::export::{
    csv_record, four_figures, provenance, si, Format, PROVENANCE_COLUMNS,
};
use nqueens::report::machine::{Machine, Program};
use nqueens::runs::shard::Shard;
use nqueens::{Board, CountRequest, Symmetry};
use serde_json::json;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// What `estimate` is asked, beside the boards and where the estimates go.
pub struct Options {
    /// Threads that would count, and that sample the nodes [default: all cores].
    pub threads: Option<u32>,
    /// The symmetry reduction [default: the board's best].
    pub symmetry: Option<Symmetry>,
    /// The split depth asked for [default: count's choice].
    pub split_depth: Option<u32>,
    /// The shard of a checkpointed run's plan to estimate; `None` for a plain count's plan.
    pub shard: Option<Shard>,
    /// How long to sample each board (with `--backend gpu`: the nodes, then each GPU, for as long).
    pub sample: Duration,
    /// What would count.
    pub backend: Backend,
    /// The GPUs named with `--gpus`.
    pub gpus: Option<Vec<usize>>,
    /// `--quiet`: nothing on standard error but errors and the warning of a busy machine.
    pub quiet: bool,
}

/// Estimates each board of `sizes` as `options` say: its nodes sampled on the threads, and its rate measured on
/// them or, with `--backend gpu`, on the GPUs.
pub fn run(
    sizes: &[String],
    options: Options,
    format: Format,
    output: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let threads = options.threads.map_or_else(num_cpus::get, |t| t as usize);
    let gpu = options.backend == Backend::Gpu;
    crate::cli::validate::gpus(options.backend, options.gpus.as_deref())?;
    crate::cli::validate::backend(options.backend)?;
    if gpu {
        nqueens::gpu::use_gpus(options.gpus.clone());
        // A rate is of nodes: a kernel asked (for measuring) to leave them uncounted has none.
        if nqueens::gpu::nodes_uncounted() {
            return Err(UsageError(
                "cannot estimate: NQUEENS_GPU_DEFINES asks for NQ_UNCOUNTED, a kernel that leaves the nodes \
                 uncounted, and an estimate measures the GPUs' nodes a second; leave it out"
                    .into(),
            )
            .into());
        }
    }
    // Every board is checked before any is sampled: a bad one later in the list wastes no sampling.
    let mut boards = Vec::new();
    for spec in sizes {
        for board in parse_boards(spec)? {
            if gpu {
                crate::cli::validate::gpu_board(board)?;
            }
            let symmetry = symmetry_for(board, options.symmetry)?;
            if let Some(depth) = options.split_depth {
                crate::cli::validate::split_depth(board, symmetry, depth)?;
            }
            // A shard's plan is made here, to be refused as count refuses it (more shards than units) before
            // anything is sampled; it is the plan the shard's journal will have, on any machine.
            let sharded = match options.shard {
                None => None,
                Some(shard) => {
                    let plan =
                        nqueens::runs::checkpoint::plan(board, symmetry, options.split_depth);
                    shard.within(&plan).map_err(|e| UsageError(e.to_string()))?;
                    Some((shard, plan))
                }
            };
            boards.push((board, symmetry, sharded));
        }
    }
    // No GPU (or no driver) is the machine's, not the command line's: exit code 1, said before anything is
    // written or sampled.
    if gpu {
        nqueens::gpu::device().map_err(|e| anyhow::anyhow!("cannot estimate on the GPU: {e}"))?;
    }
    let mut out = Output::open(output)?;
    // When the estimate began, as count's reports say when the run began.
    let timestamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    // CSV rows end with where and with what they were estimated, as count's do; Markdown says it below.
    let provenance = provenance(&Program::current(), &Machine::detect(), &timestamp);
    let csv_ends = |line: String, end: &[String]| match format {
        Format::Csv => {
            let end = String::from_utf8(csv_record(end)).expect("CSV of text is text");
            format!("{},{end}", line.trim_end_matches('\n'))
        }
        _ => line,
    };
    let shown = Shown {
        gpu,
        shard: options.shard.is_some(),
    };
    out.write(csv_ends(header(format, shown), &PROVENANCE_COLUMNS.map(String::from)).as_bytes())?;
    let mut rows = Vec::new();
    for (board, symmetry, sharded) in boards {
        // The plan `count` would make: for these threads and this backend, or a checkpointed run's. Its units
        // are the ones sampled, or the shard's of them.
        let (shard, plan) = match sharded {
            Some((shard, plan)) => (Some(shard), plan),
            None => (
                None,
                CountRequest::board(board)
                    .symmetry(symmetry)
                    .threads(threads)
                    .split_depth(options.split_depth)
                    .backend(options.backend)
                    .plan(),
            ),
        };
        // The shard's units, as `count --shard` selects them; the whole plan (0/1) is drawn from as it is
        // without a shard.
        let selected: Option<Vec<usize>> = shard.filter(|s| !s.is_whole()).map(|shard| {
            (0..plan.units().len())
                .filter(|&u| shard.contains(u))
                .collect()
        });
        let sampling = threads.min(num_cpus::get());
        let cpu_before = nqueens::report::bench::process_cpu_seconds();
        // The shard's own units: none past the plan.
        let mut forecast =
            Forecast::sample_units(&plan, selected.as_deref(), sampling, options.sample)?;
        // The cores the sampling really had: below its threads, other work took the rest, and the rate is that
        // of a machine as busy as it was then.
        let cores = match (cpu_before, nqueens::report::bench::process_cpu_seconds()) {
            (Some(before), Some(after)) if forecast.sampled_seconds > 0.0 => {
                Some((after - before) / forecast.sampled_seconds)
            }
            _ => None,
        };
        // The lone unit's rate is over them only where they say what the sampling had, as the warning below
        // is: a sampling under `MIN_TIMED_SAMPLING` measures mostly its threads' start (the row shows them
        // all the same).
        forecast.sampled_cores = cores.filter(|_| forecast.sampled_seconds >= MIN_TIMED_SAMPLING);
        // Said even when quiet: the row's rate and time to count are then wrong for this machine at rest,
        // and nothing in the table says so (as count's mismatches are said, whatever `--quiet` says).
        // Not where there is no rate to speak of: a board with nothing to sample, or one sampled whole in
        // less time than the threads take to start, whose processor seconds are mostly that start.
        let timed = forecast.seconds().is_some() && forecast.sampled_seconds >= MIN_TIMED_SAMPLING;
        if let Some(cores) = cores.filter(|&c| timed && c < BUSY * sampling as f64) {
            let _ = writeln!(
                std::io::stderr(),
                "{board}: the sampling had {cores:.2} of the {sampling} core{} it asked for, the rest going to other \
                 work on this machine: the rate and the time to count are for a machine as busy as it was (sample \
                 again when it is quieter, or with fewer --threads)",
                if sampling == 1 { "" } else { "s" }
            );
        }
        if !gpu && !options.quiet && forecast.bound_by_largest_unit() {
            let searches = forecast.threads * forecast.searches;
            let largest = forecast.largest_unit_nodes.unwrap_or(0.0);
            // Too few units for the searches, or one unit too large for its share of them.
            let why = if forecast.units < searches {
                format!(
                    "its {} unit{} keep{} only {} of the {searches} searches busy ({} a thread, a unit counted by one)",
                    forecast.units,
                    if forecast.units == 1 { "" } else { "s" },
                    if forecast.units == 1 { "s" } else { "" },
                    forecast.units,
                    forecast.searches,
                )
            } else {
                format!(
                    "its largest unit holds {:.1}% of its nodes, more than one of its {searches} searches ({} a \
                     thread) counts while the others share the rest",
                    100.0 * largest / forecast.nodes,
                    forecast.searches,
                )
            };
            let _ = writeln!(
                std::io::stderr(),
                "{board}: {why}: the time to count is at least that unit's, about {} nodes, on one search \
                 ({:.3} s); a deeper --split-depth{} would spread it",
                scientific(largest),
                forecast.largest_unit_seconds().unwrap_or(0.0),
                if shard.is_some_and(|s| !s.is_whole()) { ", or fewer shards," } else { "" }
            );
        }
        let gpus = if gpu {
            let sample = nqueens::gpu::sample_rate(
                &plan,
                selected.as_deref(),
                options.sample,
                &Notes {
                    board,
                    quiet: options.quiet,
                },
            )
            .map_err(|e| anyhow::anyhow!("cannot estimate {board} on the GPU: {e}"))?;
            for measured in sample.gpus.iter().filter(|_| !options.quiet) {
                let _ = writeln!(
                    std::io::stderr(),
                    "{board}: GPU {} ({}) counted {} nodes of {} tasks in {:.2} s with the {} loop: {}nodes/s",
                    measured.ordinal,
                    measured.device,
                    scientific(measured.nodes as f64),
                    measured.tasks,
                    measured.seconds,
                    measured.loop_name,
                    si(measured.rate())
                );
            }
            if !sample.failed.is_empty() && !options.quiet {
                let _ = writeln!(
                    std::io::stderr(),
                    "{board}: the forecast is of the GPUs that did not fail ({}), as a count would go on \
                     without the others: {}",
                    sample.gpus.len(),
                    sample.failed
                );
            }
            Some(sample)
        } else {
            None
        };
        let row = Row {
            board,
            symmetry,
            split_depth: plan.depth(),
            threads,
            forecast,
            cores,
            gpus,
            shard,
            plan_units: plan.units().len(),
        };
        out.write(csv_ends(row.line(format, shown), &provenance).as_bytes())?;
        rows.push(row);
    }
    if format == Format::Markdown {
        out.write(
            format!(
                "\nbuild: {}; machine: {}; started: {timestamp}\n",
                Program::current().summary(),
                Machine::detect().summary()
            )
            .as_bytes(),
        )?;
    }
    if format == Format::Json {
        let doc = json!({
            "schema_version": nqueens::report::SCHEMA_VERSION,
            "kind": "estimate",
            "backend": options.backend.name(),
            "program": Program::current(),
            // On the GPU, the GPUs that forecast too.
            "machine": if gpu {
                Machine::detect().with_gpus_in_use()
            } else {
                Machine::detect()
            },
            "timestamp": timestamp,
            "sample_seconds": options.sample.as_secs_f64(),
            "results": rows.iter().map(Row::json).collect::<Vec<_>>(),
        });
        out.write(format!("{}\n", serde_json::to_string_pretty(&doc)?).as_bytes())?;
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// What the GPUs' watchdog says of a board's sample (a GPU that does not open, or keeps its batch, and its
/// return), on standard error with the board, as the estimate's other lines; nothing when `quiet`, as a
/// quiet count says none of them.
struct Notes {
    board: Board,
    quiet: bool,
}

impl nqueens::engine::exec::Progress for Notes {
    fn note(&self, line: &str) {
        if !self.quiet {
            let _ = writeln!(std::io::stderr(), "{}: {line}", self.board);
        }
    }
}

/// The share of the cores its threads asked for below which a sampling is said to have been slowed by other
/// work: a tenth lost is within what a busy moment of the system takes.
const BUSY: f64 = 0.9;

/// Seconds of sampling below which the cores it had are not told: its threads' start is most of them (n = 8,
/// sampled whole in a millisecond, "had 0.99 of the 2 cores" on every run).
const MIN_TIMED_SAMPLING: f64 = 0.05;

/// One board's estimate.
struct Row {
    board: Board,
    symmetry: Symmetry,
    /// The rows of the plan's split: its units are the nodes that deep, as `count`'s reports give it.
    split_depth: u32,
    /// The threads the count would have (the sampling took no more than the cores).
    threads: usize,
    /// The nodes, sampled on the threads, and the threads' rate.
    forecast: Forecast,
    /// Processor seconds a second while the threads sampled, where the system says: the cores they really had
    /// (the forecast's `sampled_cores` too where the sampling was long enough to tell them).
    cores: Option<f64>,
    /// With `--backend gpu`: the GPUs' rate, measured on samples of the run's tasks.
    gpus: Option<GpuSample>,
    /// With `--shard`: the shard of the checkpointed run's plan whose units were sampled.
    shard: Option<Shard>,
    /// Units in the whole plan (the forecast's are the shard's).
    plan_units: usize,
}

/// What the columns of an estimate show beside a board's figures on the threads.
#[derive(Clone, Copy)]
struct Shown {
    /// `--backend gpu`: the GPUs in place of the threads, and in CSV their samples' figures.
    gpu: bool,
    /// `--shard`: a column of the shard in the table and Markdown (CSV and JSON always have it).
    shard: bool,
}

/// The columns of the table and of Markdown, with the table's widths; the sixth is "GPUs" with `--backend gpu`,
/// and with `--shard` [`SHARD_COLUMN`] follows the last.
const COLUMNS: [(&str, usize); 8] = [
    ("n", 6),
    ("symmetry", 8),
    ("units", 10),
    ("nodes", 12),
    ("± error", 7),
    ("threads", 7),
    ("nodes/s", 9),
    ("time to count", 14),
];

/// The table's and Markdown's column of the shard, last: the units and nodes before it are the shard's.
const SHARD_COLUMN: (&str, usize) = ("shard", 9);

/// `cells` as a line of the table, or of Markdown: [`COLUMNS`], then the shard's where it is shown.
fn line(format: Format, cells: &[String]) -> String {
    if format == Format::Markdown {
        return format!("| {} |\n", cells.join(" | "));
    }
    let padded: Vec<String> = (cells.iter().zip(COLUMNS.iter().chain([&SHARD_COLUMN])))
        .map(|(cell, (_, width))| format!("{cell:>width$}"))
        .collect();
    format!("{}\n", padded.join("  "))
}

/// The estimate CSV's columns of a board's figures (with `--backend gpu`, `gpus` in place of `threads`).
const CSV_COLUMNS: [&str; 12] = [
    "n",
    "symmetry",
    "units",
    "nodes",
    "nodes_error",
    "threads",
    "nodes_per_second",
    "seconds",
    "samples",
    "sampled_nodes",
    "sampled_seconds",
    "split_depth",
];

/// With `--backend gpu`, after [`CSV_COLUMNS`]: what the GPUs' samples held.
const GPU_CSV_COLUMNS: [&str; 3] = ["gpu_tasks", "gpu_nodes", "gpu_seconds"];

/// The last of the estimate's own columns, on every row (empty without `--shard`), so that the columns before
/// them are where they were for a reader by position: the shard, and the units of its whole plan (the `units`
/// column's are the shard's).
const SHARD_CSV_COLUMNS: [&str; 2] = ["shard", "plan_units"];

/// After [`SHARD_CSV_COLUMNS`], the last of the estimate's own: the search loop that sampled (`--kernel`, or
/// the loop a count of the board would take), as count's rows name theirs; `gpu` on the GPU.
const KERNEL_CSV_COLUMN: &str = "kernel";

fn header(format: Format, shown: Shown) -> String {
    let mut names: Vec<String> = COLUMNS.iter().map(|(name, _)| name.to_string()).collect();
    if shown.gpu {
        names[5] = "GPUs".into();
    }
    if shown.shard {
        names.push(SHARD_COLUMN.0.into());
    }
    match format {
        Format::Table => line(format, &names),
        Format::Markdown => {
            let rule = if shown.shard { "---|" } else { "" };
            line(format, &names) + "|--:|---|--:|--:|--:|--:|--:|--:|" + rule + "\n"
        }
        Format::Csv => {
            let mut names: Vec<String> = CSV_COLUMNS.map(String::from).into();
            if shown.gpu {
                names[5] = "gpus".into();
                names.extend(GPU_CSV_COLUMNS.map(String::from));
            }
            names.extend(SHARD_CSV_COLUMNS.map(String::from));
            names.push(KERNEL_CSV_COLUMN.into());
            String::from_utf8(csv_record(&names)).expect("CSV of text is text")
        }
        Format::Json => String::new(),
    }
}

impl Row {
    /// The rate the time to count is of (the GPUs' with `--backend gpu`), and that time.
    fn rate_and_seconds(&self) -> (f64, Option<f64>) {
        match &self.gpus {
            Some(sample) => (sample.rate(), sample.seconds(self.forecast.nodes)),
            None => (self.forecast.rate(), self.forecast.seconds()),
        }
    }

    /// What counts, for its column: the threads, or the GPUs.
    fn counting(&self) -> usize {
        self.gpus.as_ref().map_or(self.threads, |s| s.gpus.len())
    }

    /// The search loop that sampled the nodes, or `gpu` where the GPUs measured the rate.
    fn kernel(&self) -> &'static str {
        match self.gpus {
            Some(_) => "gpu",
            None => self.forecast.kernel.name(),
        }
    }

    /// The shard, as `--shard` takes it; empty without one.
    fn shard(&self) -> String {
        self.shard.map(|s| s.to_string()).unwrap_or_default()
    }

    fn line(&self, format: Format, shown: Shown) -> String {
        let f = &self.forecast;
        let (rate, seconds) = self.rate_and_seconds();
        match format {
            Format::Table | Format::Markdown => {
                let mut cells = vec![
                    self.board.to_string(),
                    self.symmetry.to_string(),
                    f.units.to_string(),
                    scientific(f.nodes),
                    relative_error(f),
                    self.counting().to_string(),
                    si(rate),
                    seconds.map_or("-".to_string(), span),
                ];
                if shown.shard {
                    cells.push(self.shard());
                }
                line(format, &cells)
            }
            Format::Csv => {
                let mut line = format!(
                    "{},{},{},{:.0},{},{},{:.0},{},{},{},{:.6},{}",
                    self.board,
                    self.symmetry,
                    f.units,
                    f.nodes,
                    four_figures(f.nodes_error),
                    self.counting(),
                    rate,
                    seconds.map_or(String::new(), |s| format!("{s:.6}")),
                    f.samples,
                    f.sampled_nodes,
                    f.sampled_seconds,
                    self.split_depth
                );
                if let Some(sample) = &self.gpus {
                    let g = &sample.gpus;
                    line += &format!(
                        ",{},{},{:.6}",
                        g.iter().map(|m| m.tasks).sum::<u64>(),
                        g.iter().map(|m| m.nodes).sum::<u64>(),
                        g.iter().map(|m| m.seconds).sum::<f64>()
                    );
                }
                line + &format!(",{},{},{}\n", self.shard(), self.plan_units, self.kernel())
            }
            Format::Json => String::new(),
        }
    }

    fn json(&self) -> serde_json::Value {
        let f = &self.forecast;
        let (rate, seconds) = self.rate_and_seconds();
        // As count's reports write a board: `n` its rows, and `cols` for a rectangle.
        let mut row = json!({
            "n": self.board.rows(),
            "symmetry": self.symmetry.to_string(),
            "kernel": self.kernel(),
            "split_depth": self.split_depth,
            "units": f.units,
            "nodes": f.nodes,
            "nodes_error": f.nodes_error,
            "threads": self.threads,
            "nodes_per_second": rate,
            "seconds": seconds,
            "cut_depth": f.cut_depth,
            "samples": f.samples,
            "sampled_nodes": f.sampled_nodes,
            "sampled_seconds": f.sampled_seconds,
            "sampled_cores": self.cores,
            // Where `units` and `nodes` are a shard's: which, and the units of the whole plan.
            "shard": self.shard.map(|s| s.to_string()),
            "plan_units": self.plan_units,
        });
        if !self.board.is_square() {
            row["cols"] = json!(self.board.cols());
        }
        if self.gpus.is_none() {
            // The CPU's time is the largest unit's where the units are too few to keep its searches busy.
            row["searches_per_thread"] = json!(f.searches);
            row["largest_unit_nodes"] = json!(f.largest_unit_nodes);
            row["bound_by_largest_unit"] = json!(f.bound_by_largest_unit());
        }
        if let Some(sample) = &self.gpus {
            row["task_rows"] = json!(sample.cut.extra_rows);
            row["tasks"] = json!(sample.cut.tasks);
            row["drawn"] = json!({
                "units": sample.drawing.units,
                "branch_rows": sample.drawing.branch_rows,
                "keep": sample.drawing.keep,
            });
            row["gpus"] = sample
                .gpus
                .iter()
                .map(|m| {
                    json!({
                        "gpu": m.ordinal,
                        "device": m.device,
                        "loop": m.loop_name,
                        "trial": m.trial.as_ref().map(|t| t.describe()),
                        "batches": m.batches,
                        "tasks": m.tasks,
                        "nodes": m.nodes,
                        "seconds": m.seconds,
                        "nodes_per_second": m.rate(),
                    })
                })
                .collect();
            if !sample.failed.is_empty() {
                row["failed_gpus"] = json!(sample.failed);
            }
        }
        row
    }
}

/// The standard error as a share of the estimate: `0.8%`; `-` where there is none to give.
fn relative_error(f: &Forecast) -> String {
    if f.nodes > 0.0 {
        format!("{:.1}%", 100.0 * f.nodes_error / f.nodes)
    } else {
        "-".into()
    }
}

/// `1.21e13`, or the number itself under a million.
fn scientific(x: f64) -> String {
    if x < 1e6 {
        format!("{x:.0}")
    } else {
        format!("{x:.2e}")
    }
}

/// A time for a person, as far as an estimate deserves: seconds under a minute, then the first two units
/// (`3h 6m`, `1month 27days`), and from a year on, years to three figures (`162 years`, `2.49e5 years`).
fn span(seconds: f64) -> String {
    const YEAR: f64 = 365.25 * 86400.0;
    if seconds < 60.0 {
        format!("{seconds:.1}s")
    } else if seconds < YEAR {
        let whole = humantime::format_duration(Duration::from_secs(seconds as u64)).to_string();
        whole.split(' ').take(2).collect::<Vec<_>>().join(" ")
    } else {
        let years = seconds / YEAR;
        match years {
            y if y < 10.0 => format!("{y:.2} years"),
            y if y < 100.0 => format!("{y:.1} years"),
            y if y < 10_000.0 => format!("{y:.0} years"),
            y => format!("{y:.2e} years"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPU: Shown = Shown {
        gpu: false,
        shard: false,
    };
    const GPU: Shown = Shown {
        gpu: true,
        shard: false,
    };

    #[test]
    fn a_gpu_estimate_gives_the_gpus_rate_and_time_and_each_gpus_figures() {
        use nqueens::gpu::{Cut, Drawing, GpuRate};
        let forecast = Forecast {
            units: 632_022,
            nodes: 7.4e18,
            nodes_error: 4.4e16,
            cut_depth: 9,
            samples: 1000,
            sampled_nodes: 1 << 30,
            threads: 16,
            sampled_seconds: 8.0,
            searches: 32,
            largest_unit_nodes: None,
            sampled_cores: None,
            kernel: nqueens::engine::kernel::Kernel::Scalar,
        };
        let gpu = |ordinal: usize, device: &str, nodes: u64| GpuRate {
            ordinal,
            device: device.into(),
            loop_name: "look-ahead".into(),
            trial: None,
            batches: 3,
            tasks: 6_000_000,
            nodes,
            seconds: 8.0,
        };
        let cut = Cut {
            extra_rows: 7,
            tasks: 9.65e12,
            ..Cut::default()
        };
        let mut row = Row {
            board: Board::new(27).unwrap(),
            symmetry: Symmetry::Full,
            split_depth: 9,
            threads: 16,
            forecast,
            shard: None,
            plan_units: 632_022,
            cores: Some(16.0),
            gpus: Some(GpuSample {
                cut,
                drawing: Drawing::new(cut, 632_022, 1 << 21),
                gpus: vec![
                    gpu(0, "H200", 8_000_000_000_000),
                    gpu(2, "H100", 6_400_000_000_000),
                ],
                failed: String::new(),
            }),
        };
        // 1.8e12 nodes a second together: 7.4e18 nodes in 4.1e6 s, 47.6 days.
        let (rate, seconds) = row.rate_and_seconds();
        assert!((rate - 1.8e12).abs() < 1.0 && (seconds.unwrap() - 7.4e18 / 1.8e12).abs() < 1e-3);
        let table = row.line(Format::Table, GPU);
        assert!(
            table.contains("  2  ") && table.contains("1.800 T") && table.contains("1month 17days"),
            "{table}"
        );
        assert!(
            header(Format::Table, GPU).contains("GPUs")
                && header(Format::Table, CPU).contains("threads")
        );
        let csv = row.line(Format::Csv, GPU);
        let header = header(Format::Csv, GPU);
        assert_eq!(
            csv.trim_end().split(',').count(),
            header.trim_end().split(',').count(),
            "{header}{csv}"
        );
        assert!(
            csv.trim_end()
                .ends_with(",12000000,14400000000000,16.000000,,632022,gpu"),
            "{csv}"
        );
        let mut json = row.json();
        assert_eq!(json["gpus"][1]["device"], "H100");
        assert_eq!(json["gpus"][1]["gpu"], 2);
        assert!(json.get("failed_gpus").is_none());
        assert_eq!(json["gpus"][0]["nodes_per_second"], 1e12);
        assert_eq!(
            (json["task_rows"].as_u64(), json["threads"].as_u64()),
            (Some(7), Some(16))
        );
        assert_eq!(json["drawn"]["units"], 256);
        // A GPU that failed is named, with its error: the rate is the others'.
        if let Some(sample) = row.gpus.as_mut() {
            sample.failed = "GPU 1: GPU backend: lost".into();
        }
        let rate = json["nodes_per_second"].clone();
        json = row.json();
        assert_eq!(json["failed_gpus"], "GPU 1: GPU backend: lost");
        assert_eq!(json["nodes_per_second"], rate);
    }

    #[test]
    fn a_csv_row_gives_the_time_to_count_as_json_does_to_the_microsecond() {
        // 194 nodes at a million a second: 0.000194 s, which JSON gives whole; CSV gave it as 0.000, as if no
        // time at all, where count's CSV gives its seconds to the microsecond.
        let row = Row {
            board: Board::new(8).unwrap(),
            symmetry: Symmetry::Full,
            split_depth: 4,
            threads: 1,
            forecast: Forecast {
                units: 134,
                nodes: 194.0,
                nodes_error: 1.5,
                cut_depth: 0,
                samples: 512,
                sampled_nodes: 1_000_000,
                threads: 1,
                sampled_seconds: 1.0,
                searches: 32,
                largest_unit_nodes: None,
                sampled_cores: None,
                kernel: nqueens::engine::kernel::Kernel::Scalar,
            },
            cores: None,
            gpus: None,
            shard: None,
            plan_units: 134,
        };
        let header = header(Format::Csv, CPU);
        let names: Vec<&str> = header.trim_end().split(',').collect();
        let csv = row.line(Format::Csv, CPU);
        let fields: Vec<&str> = csv.trim_end().split(',').collect();
        let seconds = names.iter().position(|&n| n == "seconds").unwrap();
        assert_eq!(fields[seconds], "0.000194", "{header}{csv}");
        assert_eq!(row.json()["seconds"], 0.000194);
    }

    #[test]
    fn a_shards_estimate_names_its_shard_in_every_format_after_the_columns_there_were() {
        let row = Row {
            board: Board::new(20).unwrap(),
            symmetry: Symmetry::Full,
            split_depth: 3,
            threads: 2,
            forecast: Forecast {
                units: 12_000,
                nodes: 4.1e10,
                nodes_error: 2e8,
                cut_depth: 4,
                samples: 4000,
                sampled_nodes: 1 << 30,
                threads: 2,
                sampled_seconds: 2.0,
                searches: 32,
                largest_unit_nodes: None,
                sampled_cores: None,
                kernel: nqueens::engine::kernel::Kernel::Scalar,
            },
            cores: None,
            gpus: None,
            shard: Some(Shard::new(1, 4).unwrap()),
            plan_units: 48_000,
        };
        let sharded = Shown {
            gpu: false,
            shard: true,
        };
        // The table and Markdown: a last column, shown where a shard was asked for.
        let (head, line) = (
            header(Format::Table, sharded),
            row.line(Format::Table, sharded),
        );
        assert!(
            head.trim_end().ends_with("time to count      shard"),
            "{head}"
        );
        assert!(line.trim_end().ends_with("  1/4"), "{line}");
        assert_eq!(head.chars().count(), line.chars().count(), "{head}{line}");
        assert!(!header(Format::Table, CPU).contains("shard"));
        let md = header(Format::Markdown, sharded) + &row.line(Format::Markdown, sharded);
        let widths: Vec<usize> = md.lines().map(|l| l.matches('|').count()).collect();
        assert_eq!(widths, [10, 10, 10], "{md}");
        assert!(md.ends_with("| 1/4 |\n"), "{md}");
        // CSV: the shard and the plan's units after the columns there were, on every row, with or without one,
        // then the loop that sampled.
        for shown in [sharded, CPU] {
            let header = header(Format::Csv, shown);
            let names: Vec<&str> = header.trim_end().split(',').collect();
            assert_eq!(names[..12], CSV_COLUMNS, "{header}");
            assert_eq!(names[12..14], SHARD_CSV_COLUMNS, "{header}");
            assert_eq!(names[14..], [KERNEL_CSV_COLUMN], "{header}");
        }
        assert!(
            row.line(Format::Csv, sharded)
                .ends_with(",3,1/4,48000,scalar\n"),
            "{}",
            row.line(Format::Csv, sharded)
        );
        let json = row.json();
        assert_eq!(
            (&json["shard"], &json["plan_units"]),
            (&serde_json::json!("1/4"), &serde_json::json!(48_000))
        );
        assert_eq!(json["units"], 12_000);
        let whole = Row { shard: None, ..row };
        assert!(whole.json()["shard"].is_null());
        assert!(whole.line(Format::Csv, CPU).ends_with(",3,,48000,scalar\n"));
    }

    #[test]
    fn figures_are_written_as_an_estimate_deserves() {
        assert_eq!(scientific(12345.0), "12345");
        assert_eq!(scientific(1.2149e13), "1.21e13");
        assert_eq!(span(12.34), "12.3s");
        assert_eq!(span(3.0 * 3600.0 + 6.0 * 60.0 + 7.0), "3h 6m");
        assert_eq!(span(57.0 * 86400.0), "1month 26days");
        assert_eq!(span(1.42 * 365.25 * 86400.0), "1.42 years");
        assert_eq!(span(41.23 * 365.25 * 86400.0), "41.2 years");
        assert_eq!(span(162.1 * 365.25 * 86400.0), "162 years");
        assert_eq!(span(2.4947e5 * 365.25 * 86400.0), "2.49e5 years");
    }
}
