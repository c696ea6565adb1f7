//! Exporters for benchmark reports: the terminal table, JSON, CSV and Markdown.
//!
//! The terminal table and CSV are written piece by piece (a header, a line per run as it finishes, a
//! summary at the end), like the count exporters. Files are rewritten whole after every run from
//! [`BenchExporter::document`], so a file always holds a complete document of what has been measured so
//! far, with the report's status saying whether the benchmark finished.

use super::{csv_record, si, Format};
use crate::report::bench::{BenchReport, Run, Status};
use crate::report::Check;

/// Turns a benchmark report into bytes.
pub trait BenchExporter {
    /// Written before the first run.
    fn header(&self, _report: &BenchReport) -> Vec<u8> {
        Vec::new()
    }
    /// Written as soon as a run is done.
    fn run(&self, _report: &BenchReport, _run: &Run) -> Vec<u8> {
        Vec::new()
    }
    /// Written once the benchmark ends.
    fn footer(&self, _report: &BenchReport) -> Vec<u8> {
        Vec::new()
    }
    /// The whole document for the report as it stands.
    fn document(&self, report: &BenchReport) -> Vec<u8> {
        let mut bytes = self.header(report);
        for run in &report.runs {
            bytes.extend(self.run(report, run));
        }
        bytes.extend(self.footer(report));
        bytes
    }
}

/// The exporter of a format for benchmark reports.
pub fn exporter(format: Format) -> Box<dyn BenchExporter> {
    match format {
        Format::Table => Box::new(Table),
        Format::Json => Box::new(Json),
        Format::Csv => Box::new(Csv),
        Format::Markdown => Box::new(Markdown),
    }
}

/// "n = 17, full symmetry, avx2 kernel, split depth 5 (181005 units), 3 timed runs per thread count after 1
/// warm-up"; on the GPU, "… 3 timed runs per GPU count after 1 warm-up, on GPUs 0, 1 and the host's 16
/// threads".
fn workload_line(report: &BenchReport) -> String {
    let w = &report.workload;
    let kernel = match (&w.gpu, w.kernel.is_empty()) {
        (Some(gpu), _) => format!("on the GPU ({gpu}), "),
        (None, true) => String::new(),
        (None, false) => format!("{} kernel, ", w.kernel),
    };
    let on = if w.gpu_counts.is_empty() {
        String::new()
    } else {
        let threads = w.thread_counts.last().copied().unwrap_or(1);
        let numbers: Vec<String> = w.gpu_numbers.iter().map(|g| g.to_string()).collect();
        format!(
            ", on GPU{} {} and the host's {threads} thread{}",
            plural(numbers.len()),
            numbers.join(", "),
            plural(threads)
        )
    };
    let standard = match (&w.standard, w.workload_version) {
        (Some(name), Some(version)) => format!("the {name} workload (version {version}): "),
        (Some(name), None) => format!("the {name} workload: "),
        _ => String::new(),
    };
    format!(
        "{standard}n = {}, {}, {kernel}split depth {} ({} unit{}), {} timed run{} per {} count after {} warm-up{}{on}{}",
        w.n,
        super::symmetry_words(&w.symmetry),
        w.split_depth,
        w.units,
        if w.units == 1 { "" } else { "s" },
        w.runs,
        plural(w.runs),
        swept(report),
        w.warmup,
        plural(w.warmup),
        if w.pin_single_thread {
            pinned_cpus(report)
        } else {
            String::new()
        }
    )
}

/// What the benchmark sweeps: "GPU" for a benchmark of the GPU backend (one written before its sweep timed
/// its threads alone), else "thread".
fn swept(report: &BenchReport) -> &'static str {
    if report
        .workload
        .steps()
        .first()
        .is_some_and(|s| s.gpus.is_some())
    {
        "GPU"
    } else {
        "thread"
    }
}

/// The heading of the sweep's column: "gpus" or "threads".
fn swept_column(report: &BenchReport) -> String {
    format!("{}s", swept(report).to_lowercase())
}

/// ", one-thread runs pinned to one processor (cpu 3)": which processors the baseline ran on.
fn pinned_cpus(report: &BenchReport) -> String {
    let mut cpus: Vec<usize> = report.runs.iter().filter_map(|r| r.pinned_cpu).collect();
    cpus.sort_unstable();
    cpus.dedup();
    let list: Vec<String> = cpus.iter().map(|c| c.to_string()).collect();
    match cpus.len() {
        0 => ", one-thread runs pinned to one processor".to_string(),
        1 => format!(
            ", one-thread runs pinned to one processor (cpu {})",
            list[0]
        ),
        _ => format!(
            ", one-thread runs pinned to one processor each (cpus {})",
            list.join(", ")
        ),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The CPU features detected at run time and compiled for.
fn features_line(report: &BenchReport) -> String {
    let list = |f: &[String]| {
        if f.is_empty() {
            "none".to_string()
        } else {
            f.join(" ")
        }
    };
    format!(
        "{} (compiled for: {})",
        list(&report.machine.cpu_features),
        list(&report.program.loop_features())
    )
}

/// What went wrong or how far it got, in one sentence; `None` for a complete benchmark.
fn status_line(report: &BenchReport) -> Option<String> {
    match report.status {
        Status::Complete => None,
        Status::Running => {
            let (done, planned) = report.timed_progress();
            Some(format!(
                "INCOMPLETE: {done} of {planned} timed runs measured (interrupted or still running)"
            ))
        }
        Status::Failed => {
            let run = report.runs.iter().find(|r| r.check != Check::Match)?;
            Some(format!(
                "FAILED: the run on {} counted {} solutions ({} unique); the published values are {} ({})",
                run.step().describe(),
                run.total,
                run.unique.map_or("-".to_string(), |u| u.to_string()),
                report.workload.expected_total,
                report
                    .workload
                    .expected_unique
                    .map_or("-".to_string(), |u| u.to_string()),
            ))
        }
    }
}

fn run_label(run: &Run) -> String {
    if run.warmup {
        format!("w{}", run.run)
    } else {
        run.run.to_string()
    }
}

/// Cores used, or a dash where the system did not say.
fn cores(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), |c| format!("{c:.2}"))
}

fn percent(x: f64) -> String {
    if x.is_nan() {
        return "-".to_string();
    }
    format!("{:.1}%", x * 100.0)
}

/// A speedup, or `-` where there is no run on one thread (or GPU) to compare with.
fn ratio(x: f64) -> String {
    if x.is_nan() {
        return "-".to_string();
    }
    format!("{x:.2}")
}

/// Aligned columns for the terminal.
#[derive(Debug)]
pub struct Table;

impl Table {
    fn lines(report: &BenchReport) -> String {
        let gpus: String = report
            .machine
            .gpu_lines()
            .iter()
            .map(|(key, value)| format!("{key}: {value}\n"))
            .collect();
        format!(
            "nqueens bench: {}\nmachine: {}\n{gpus}cpu features: {}\nbuild: {}\nstarted: {}\n",
            workload_line(report),
            report.machine.summary(),
            features_line(report),
            report.program.summary(),
            report.timestamp
        )
    }
}

impl BenchExporter for Table {
    fn header(&self, report: &BenchReport) -> Vec<u8> {
        format!(
            "{}\n{:>7}  {:>3}  {:>10}  {:>5}  {:>11}  {:>11}  {}\n",
            Table::lines(report),
            swept_column(report),
            "run",
            "seconds",
            "cores",
            "solutions/s",
            "nodes/s",
            "check"
        )
        .into_bytes()
    }

    fn run(&self, _report: &BenchReport, run: &Run) -> Vec<u8> {
        // The column of the sweep, as the header names it.
        format!(
            "{:>7}  {:>3}  {:>10.3}  {:>5}  {:>11}  {:>11}  {}\n",
            run.step().workers(),
            run_label(run),
            run.seconds,
            cores(run.cores_used()),
            si(run.solutions_per_second),
            si(run.nodes_per_second),
            run.check.word()
        )
        .into_bytes()
    }

    fn footer(&self, report: &BenchReport) -> Vec<u8> {
        let mut text = String::new();
        if !report.scaling.is_empty() {
            text += &format!(
                "\n{:>7}  {:>4}  {:>10}  {:>10}  {:>10}  {:>11}  {:>11}  {:>7}  {:>10}  {:>5}\n",
                swept_column(report),
                "runs",
                "median s",
                "min s",
                "max s",
                "solutions/s",
                "nodes/s",
                "speedup",
                "efficiency",
                "cores"
            );
            for s in &report.scaling {
                text += &format!(
                    "{:>7}  {:>4}  {:>10.3}  {:>10.3}  {:>10.3}  {:>11}  {:>11}  {:>7}  {:>10}  {:>5}\n",
                    s.step().workers(),
                    s.runs,
                    s.median_seconds,
                    s.min_seconds,
                    s.max_seconds,
                    si(s.solutions_per_second),
                    si(s.nodes_per_second),
                    ratio(s.speedup),
                    percent(s.efficiency),
                    cores(s.cores_used)
                );
            }
        }
        if let Some(scores) = &report.scores {
            text += "\n";
            for (what, score) in [
                ("single-thread", &scores.single_thread),
                ("multi-thread", &scores.multi_thread),
            ] {
                text += &format!(
                    "score, {what} ({} thread{}): {} solutions/s, {} nodes/s\n",
                    score.threads,
                    plural(score.threads),
                    si(score.solutions_per_second),
                    si(score.nodes_per_second)
                );
            }
        }
        if let Some(line) = gpu_line(report) {
            text += &format!("\n{line}\n");
        }
        if !report.warnings.is_empty() {
            text += "\n";
            for warning in &report.warnings {
                text += &format!("warning: {}\n", warning.message);
            }
        }
        if let Some(line) = status_line(report) {
            text += &format!("\n{line}\n");
        }
        text.into_bytes()
    }
}

/// For a GPU benchmark: the GPUs' own time and rate ([`BenchReport::gpu_score_of_runs`]), or `None` where no
/// timed run has a kernel time.
fn gpu_line(report: &BenchReport) -> Option<String> {
    let score = report.gpu_score_of_runs()?;
    let mut line = format!(
        "GPU ({}), median kernel time {:.3} s: {} solutions/s, {} nodes/s",
        score.gpus,
        score.kernel_seconds,
        si(score.solutions_per_second),
        si(score.nodes_per_second)
    );
    // Where several counted, each one's medians, so that a slow one shows.
    for each in &score.each {
        line += &format!(
            "\n  gpu {} ({}): {:.1}% of the tasks, {} nodes/s over {:.3} s of kernels",
            each.gpu,
            each.device,
            100.0 * each.task_share,
            each.nodes_per_second.map_or("-".to_string(), si),
            each.kernel_seconds
        );
    }
    Some(line)
}

/// One JSON document: the whole report, every run included.
#[derive(Debug)]
pub struct Json;

impl BenchExporter for Json {
    fn footer(&self, report: &BenchReport) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(report).expect("reports serialize");
        bytes.push(b'\n');
        bytes
    }
}

/// Comma-separated values: one row per run, each naming its machine, build and workload so that files
/// from several machines can be concatenated.
#[derive(Debug)]
pub struct Csv;

/// The CSV columns, in order (a GPU benchmark's: its GPUs, each run's kernel seconds and how many of the
/// GPUs counted it; then, added later and so last, the build's optimisation level and the standard
/// workload's version, empty for another board).
pub const CSV_HEADER: [&str; 28] = [
    "timestamp",
    "cpu_model",
    "logical_cores",
    "version",
    "git_revision",
    "n",
    "symmetry",
    "kernel",
    "split_depth",
    "units",
    "threads",
    "run",
    "warmup",
    "seconds",
    "cpu_seconds",
    "total",
    "unique",
    "nodes",
    "solutions_per_second",
    "nodes_per_second",
    "check",
    "pinned_cpu",
    "compiled_for",
    "gpus",
    "gpu_seconds",
    "gpu_count",
    "opt_level",
    "workload_version",
];

impl BenchExporter for Csv {
    fn header(&self, _report: &BenchReport) -> Vec<u8> {
        csv_record(&CSV_HEADER.map(str::to_string))
    }

    fn run(&self, report: &BenchReport, run: &Run) -> Vec<u8> {
        let w = &report.workload;
        csv_record(&[
            report.timestamp.clone(),
            report.machine.cpu_model.clone(),
            report.machine.logical_cores.to_string(),
            report.program.version.clone(),
            report.program.git_revision.clone(),
            w.n.to_string(),
            w.symmetry.clone(),
            w.kernel.clone(),
            w.split_depth.to_string(),
            w.units.to_string(),
            run.threads.to_string(),
            run.run.to_string(),
            run.warmup.to_string(),
            format!("{:.6}", run.seconds),
            run.cpu_seconds
                .map_or_else(String::new, |c| format!("{c:.6}")),
            run.total.to_string(),
            run.unique.map_or_else(String::new, |u| u.to_string()),
            run.nodes.to_string(),
            format!("{:.0}", run.solutions_per_second),
            format!("{:.0}", run.nodes_per_second),
            run.check.word().to_string(),
            run.pinned_cpu.map_or_else(String::new, |c| c.to_string()),
            // Two builds of one revision differ by what they were compiled for (`RUSTFLAGS`).
            report.program.loop_features().join(" "),
            w.gpu.clone().unwrap_or_default(),
            run.gpu_seconds
                .map_or_else(String::new, |s| format!("{s:.6}")),
            run.gpu_count.map_or_else(String::new, |g| g.to_string()),
            // A debug build's rows among a release's, once files are put together, are told by this one.
            report.program.opt_level.clone(),
            w.workload_version
                .map_or_else(String::new, |v| v.to_string()),
        ])
    }
}

/// A Markdown report: the machine and workload, the scores, the scaling table, then every run.
#[derive(Debug)]
pub struct Markdown;

impl BenchExporter for Markdown {
    fn document(&self, report: &BenchReport) -> Vec<u8> {
        let w = &report.workload;
        let mut md = format!(
            "# nqueens bench: n = {}, {}\n\n| | |\n|---|---|\n",
            w.n,
            super::symmetry_words(&w.symmetry)
        );
        let rows = [("machine".to_string(), report.machine.summary())]
            .into_iter()
            .chain(report.machine.gpu_lines())
            .chain([
                ("cpu features".to_string(), features_line(report)),
                ("build".to_string(), report.program.summary()),
                ("started".to_string(), report.timestamp.clone()),
                ("workload".to_string(), workload_line(report)),
                (
                    "status".to_string(),
                    status_line(report).unwrap_or_else(|| "complete, every count checked".into()),
                ),
            ]);
        for (key, value) in rows {
            md += &format!("| {key} | {} |\n", value.replace('|', "\\|"));
        }
        if !report.warnings.is_empty() {
            md += "\n## Warnings\n\n";
            for warning in &report.warnings {
                md += &format!("- {}\n", warning.message);
            }
        }
        if let Some(scores) = &report.scores {
            md += "\n## Scores\n\n| | threads | solutions/s | nodes/s |\n|---|--:|--:|--:|\n";
            for (what, score) in [
                ("single-thread", &scores.single_thread),
                ("multi-thread", &scores.multi_thread),
            ] {
                md += &format!(
                    "| {what} | {} | {} | {} |\n",
                    score.threads,
                    si(score.solutions_per_second),
                    si(score.nodes_per_second)
                );
            }
        }
        if let Some(gpu) = report.gpu_score_of_runs() {
            md += &format!(
                "\n## GPUs\n\n| GPUs | median kernel time (s) | solutions/s | nodes/s |\n|---|--:|--:|--:|\n\
                 | {} | {:.3} | {} | {} |\n",
                gpu.gpus.replace('|', "\\|"),
                gpu.kernel_seconds,
                si(gpu.solutions_per_second),
                si(gpu.nodes_per_second)
            );
            if !gpu.each.is_empty() {
                md += "\nEach GPU, the medians of the timed runs:\n\n\
                       | GPU | device | share of the tasks | kernel time (s) | nodes/s |\n|--:|---|--:|--:|--:|\n";
                for each in &gpu.each {
                    md += &format!(
                        "| {} | {} | {:.1}% | {:.3} | {} |\n",
                        each.gpu,
                        each.device.replace('|', "\\|"),
                        100.0 * each.task_share,
                        each.kernel_seconds,
                        each.nodes_per_second.map_or("-".to_string(), si)
                    );
                }
            }
        }
        if !report.scaling.is_empty() {
            md += &format!(
                "\n## {} scaling\n\n\
                 | {} | runs | median (s) | min (s) | max (s) | solutions/s | nodes/s | speedup | efficiency | cores used |\n\
                 |--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
                match swept(report) {
                    "GPU" => "GPU",
                    _ => "Thread",
                },
                swept_column(report)
            );
            for s in &report.scaling {
                md += &format!(
                    "| {} | {} | {:.3} | {:.3} | {:.3} | {} | {} | {} | {} | {} |\n",
                    s.step().workers(),
                    s.runs,
                    s.median_seconds,
                    s.min_seconds,
                    s.max_seconds,
                    si(s.solutions_per_second),
                    si(s.nodes_per_second),
                    ratio(s.speedup),
                    percent(s.efficiency),
                    cores(s.cores_used)
                );
            }
        }
        md += &format!(
            "\n## Runs\n\n\
             Warm-up runs are marked w and left out of the statistics. Cores: processor seconds per second, \
             the cores the run really had (fewer than its threads when something else was running).\n\n\
             | {} | run | seconds | cores | solutions/s | nodes/s | check |\n|--:|--:|--:|--:|--:|--:|:--|\n",
            swept_column(report)
        );
        for run in &report.runs {
            md += &format!(
                "| {} | {} | {:.3} | {} | {} | {} | {} |\n",
                run.step().workers(),
                run_label(run),
                run.seconds,
                cores(run.cores_used()),
                si(run.solutions_per_second),
                si(run.nodes_per_second),
                run.check.word()
            );
        }
        md.into_bytes()
    }
}
