//! The `plot` command: SVG charts from count and bench JSON files, drawn with plotters.
//!
//! Five charts, each drawn when its data is there: `time-vs-n.svg` (seconds against n on a log scale, one
//! line per count sweep), `scaling.svg` (speedup against threads, one line per benchmark, with the ideal
//! line), `machines.svg` (the single-thread and multi-thread scores of each benchmark side by side),
//! `gpus.svg` (each GPU benchmark's rate over its whole runs and over the GPUs' own time) and
//! `gpu-scaling.svg` (speedup against GPUs, for GPU benchmarks on several).
//! Files from several machines go on the same charts, each named by its machine.
//!
//! plotters is built with its SVG backend only: text becomes SVG `<text>` elements that the viewer renders
//! with its own fonts, and layout uses plotters' built-in estimate of text widths, so no font files and no
//! system libraries are needed.

use crate::cli::args::PlotArgs;
use crate::cli::errors::UsageError;
use crate::cli::output;
use nqueens::report::bench::BenchReport;
use nqueens::report::export::four_figures;
use nqueens::report::machine::Machine;
use nqueens::{BoardResult, Report};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// A file's contents, by kind.
enum Input {
    Count(Box<Report>),
    Bench(Box<BenchReport>),
}

const SIZE: (u32, u32) = (800, 500);

/// Runs `nqueens plot`: reads every file first, then writes the charts.
pub fn run(args: &PlotArgs) -> anyhow::Result<()> {
    let inputs = args
        .files
        .iter()
        .map(|path| read(path))
        .collect::<Result<Vec<_>, _>>()?;
    let counts: Vec<&Report> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Count(r) => Some(r.as_ref()),
            Input::Bench(_) => None,
        })
        .collect();
    let benches: Vec<&BenchReport> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Bench(r) => Some(r.as_ref()),
            Input::Count(_) => None,
        })
        .collect();
    let mut charts: Vec<(&str, String)> = Vec::new();
    if counts.iter().any(|r| r.results.iter().any(timed_board)) {
        charts.push(("time-vs-n.svg", svg(|area| time_vs_n(area, &counts))?));
    }
    // A sweep of threads, or of GPUs: a line needs a row beside its baseline.
    let swept = |gpus: bool| -> Vec<&BenchReport> {
        benches
            .iter()
            .copied()
            .filter(|r| {
                let rows = r
                    .scaling
                    .iter()
                    .filter(|s| s.gpus.is_some() == gpus && s.speedup.is_finite());
                // Its baseline (one thread, one GPU) and one more at least.
                rows.count() > 1
            })
            .collect()
    };
    let scaled = swept(false);
    if !scaled.is_empty() {
        charts.push((
            "scaling.svg",
            svg(|area| scaling(area, &scaled, Swept::Threads))?,
        ));
    }
    let scored: Vec<&BenchReport> = benches
        .iter()
        .copied()
        .filter(|r| r.scores.is_some())
        .collect();
    if !scored.is_empty() {
        charts.push(("machines.svg", svg(|area| machines(area, &scored))?));
    }
    let on_gpus: Vec<&BenchReport> = benches
        .iter()
        .copied()
        .filter(|r| r.gpu_score_of_runs().is_some() && !r.scaling.is_empty())
        .collect();
    if !on_gpus.is_empty() {
        charts.push(("gpus.svg", svg(|area| gpus(area, &on_gpus))?));
    }
    let gpu_scaled = swept(true);
    if !gpu_scaled.is_empty() {
        charts.push((
            "gpu-scaling.svg",
            svg(|area| scaling(area, &gpu_scaled, Swept::Gpus))?,
        ));
    }
    if charts.is_empty() {
        return Err(UsageError(
            "nothing to plot: the files hold no timed counts of whole boards, no benchmark runs on one thread \
             and no GPU benchmark's timed runs"
                .to_string(),
        )
        .into());
    }
    // The folder is made, and every chart's file opened, only once there is something to write and before
    // any of it is written.
    let dir = &args.output_dir;
    let cannot = |why: String| UsageError(format!("cannot write into '{}': {why}", dir.display()));
    if dir.exists() && !dir.is_dir() {
        return Err(
            cannot("it is not a folder; name a folder (made if missing) with -o".into()).into(),
        );
    }
    // `-o chart.svg` asks for a file, as `-o` does on the other commands: a folder of that name is not what
    // was meant.
    let names_a_chart = dir
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    if !dir.exists() && names_a_chart {
        let charts: Vec<&str> = charts.iter().map(|(name, _)| *name).collect();
        return Err(cannot(format!(
            "-o names the folder the charts go to ({}), and this name looks like a chart file's: name a \
             folder",
            charts.join(", ")
        ))
        .into());
    }
    // `-` is standard output to every other command: it cannot take several charts, and a folder of that
    // name is not what was meant.
    if !dir.exists() && dir.as_os_str() == "-" {
        return Err(cannot(
            "plot writes its charts as files into a folder, not to standard output: name a folder with -o"
                .into(),
        )
        .into());
    }
    std::fs::create_dir_all(dir).map_err(|e| cannot(format!("could not make the folder: {e}")))?;
    // A chart may not replace a file being plotted, however either is spelled (a link, `..`).
    let keep: Vec<(&Path, &str)> = args
        .files
        .iter()
        .map(|f| (f.as_path(), "a file being plotted"))
        .collect();
    let mut files = Vec::new();
    for (name, text) in charts {
        let path = dir.join(name);
        files.push((
            output::Output::open_keeping(Some(&path), &keep)?,
            path,
            text,
        ));
    }
    // Every chart is written before any is moved into place: one that cannot be written (a full disk) leaves
    // all of them as they were.
    for (out, _, text) in &mut files {
        // Both name the file in their errors.
        out.write(text.as_bytes())?;
        out.sync()?;
    }
    for (out, path, _) in files {
        out.finish()?;
        if !args.quiet {
            note!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// Reads a count report or a bench report; anything else is refused with the reason.
fn read(path: &Path) -> Result<Input, UsageError> {
    let cannot = |why: String| UsageError(format!("cannot plot '{}': {why}", path.display()));
    // Parsed as it is read, so that a file that is not JSON, or a device that never ends (`/dev/zero`), is
    // refused at its first wrong byte rather than read whole into memory.
    let file = crate::cli::output::open_to_read(path).map_err(|e| cannot(e.to_string()))?;
    let value: serde_json::Value =
        serde_json::from_reader(std::io::BufReader::new(file)).map_err(|e| match e.classify() {
            serde_json::error::Category::Io => cannot(e.to_string()),
            _ => cannot(format!("not JSON ({e})")),
        })?;
    let input = if value.get("kind").and_then(|k| k.as_str()) == Some("bench") {
        serde_json::from_value(value).map(|r| Input::Bench(Box::new(r)))
    } else {
        serde_json::from_value(value).map(|r| Input::Count(Box::new(r)))
    };
    let input = input.map_err(|e| {
        cannot(format!(
            "not a report of `nqueens count --format json` or `nqueens bench --export-json` ({e})"
        ))
    })?;
    plottable(&input).map_err(cannot)?;
    Ok(input)
}

/// The most seconds a count may report (about 3,000 years), threads a run may have, and a rate or a speedup
/// may reach: values beyond are not measurements, and would make the charts' axes and labels endless.
const MAX_SECONDS: f64 = 1e11;
const MAX_THREADS: usize = 1 << 16;
/// The most GPUs a benchmark's row may have.
const MAX_GPUS: usize = 1 << 12;
const MAX_RATE: f64 = 1e18;

/// Refuses a report of another schema version, or with values no run can have (infinite, negative, absurd).
fn plottable(input: &Input) -> Result<(), String> {
    use nqueens::report::{bench::BENCH_SCHEMA_VERSION, SCHEMA_VERSION};
    let (version, expected) = match input {
        Input::Count(r) => (r.schema_version, SCHEMA_VERSION),
        Input::Bench(r) => (r.schema_version, BENCH_SCHEMA_VERSION),
    };
    if version != expected {
        return Err(format!(
            "its schema_version is {version}, but this nqueens reads version {expected}: plot it with the \
             version of nqueens that wrote it"
        ));
    }
    let within = |what: String, x: f64, max: f64| {
        if x.is_finite() && (0.0..=max).contains(&x) {
            Ok(())
        } else {
            Err(format!(
                "{what} is {x}, not a value a run can have (0 to {max:e})"
            ))
        }
    };
    let threads = |what: String, t: usize| {
        if t <= MAX_THREADS {
            Ok(())
        } else {
            Err(format!("{what} is {t}, more threads than a machine has"))
        }
    };
    match input {
        Input::Count(r) => {
            threads("threads".into(), r.threads)?;
            for (i, b) in r.results.iter().enumerate() {
                within(format!("results[{i}].seconds"), b.seconds, MAX_SECONDS)?;
                if b.n > nqueens::Board::MAX_SIDE {
                    return Err(format!(
                        "results[{i}].n is {}, beyond the largest board, {}",
                        b.n,
                        nqueens::Board::MAX_SIDE
                    ));
                }
            }
        }
        Input::Bench(r) => {
            for (i, s) in r.scaling.iter().enumerate() {
                threads(format!("scaling[{i}].threads"), s.threads)?;
                if let Some(gpus) = s.gpus.filter(|&g| g > MAX_GPUS) {
                    return Err(format!(
                        "scaling[{i}].gpus is {gpus}, more GPUs than a machine has"
                    ));
                }
                // NaN (`null`): a GPU benchmark written before the sweep, with no run on one GPU.
                if !s.speedup.is_nan() {
                    within(format!("scaling[{i}].speedup"), s.speedup, MAX_RATE)?;
                }
            }
            for (i, run) in r.runs.iter().enumerate() {
                if let Some(seconds) = run.gpu_seconds {
                    within(format!("runs[{i}].gpu_seconds"), seconds, MAX_SECONDS)?;
                }
            }
            // The GPUs' rate is worked out here from the runs' counts and kernel times: a kernel time too
            // short for any run (1e-300 s) makes it endless, and an endless axis never gets its labels.
            if let Some(gpu) = r.gpu_score_of_runs() {
                within(
                    "the GPUs' solutions per second over the runs' gpu_seconds".into(),
                    gpu.solutions_per_second,
                    MAX_RATE,
                )?;
            }
            for (i, s) in r.scaling.iter().enumerate() {
                within(
                    format!("scaling[{i}].solutions_per_second"),
                    s.solutions_per_second,
                    MAX_RATE,
                )?;
            }
            if let Some(scores) = &r.scores {
                for (what, score) in [
                    ("single_thread", &scores.single_thread),
                    ("multi_thread", &scores.multi_thread),
                ] {
                    within(
                        format!("scores.{what}.solutions_per_second"),
                        score.solutions_per_second,
                        MAX_RATE,
                    )?;
                    threads(format!("scores.{what}.threads"), score.threads)?;
                }
            }
        }
    }
    Ok(())
}

/// Draws into a fresh SVG document and returns its text.
fn svg(
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> anyhow::Result<()>,
) -> anyhow::Result<String> {
    let mut text = String::new();
    {
        let area = SVGBackend::with_string(&mut text, SIZE).into_drawing_area();
        area.fill(&WHITE)?;
        draw(&area)?;
        area.present()?;
    }
    Ok(text)
}

/// A short name for a machine: its CPU model without the usual noise, and its cores.
fn machine_label(m: &Machine) -> String {
    let model = ["(R)", "(TM)", "(tm)", "CPU", "Processor"]
        .iter()
        .fold(m.cpu_model.clone(), |s, noise| s.replace(noise, ""));
    let model = model.split_whitespace().collect::<Vec<_>>().join(" ");
    let plural = if m.logical_cores == 1 { "" } else { "s" };
    format!("{model}, {} core{plural}", m.logical_cores)
}

/// The `i`th series' colour: ten that read apart (matplotlib's), then again.
fn color(i: usize) -> RGBColor {
    const COLORS: [RGBColor; 10] = [
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(255, 127, 14),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
    ];
    COLORS[i % COLORS.len()]
}

fn legend(color: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
}

/// A result that belongs on the chart of time against n: a whole square board's count, timed. A shard's or a
/// list of units' time is not the board's, and a rectangle has no place on an axis of n.
fn timed_board(b: &BoardResult) -> bool {
    b.seconds > 0.0 && b.part.is_none() && b.cols.is_none_or(|c| c == b.n)
}

/// One line of the chart of time against n: a count report's boards of one symmetry, in the order of n.
struct Sweep<'a> {
    report: &'a Report,
    symmetry: &'a str,
    /// Whether the results were counted on a GPU.
    gpu: Option<&'a str>,
    points: Vec<(u32, f64)>,
}

impl Sweep<'_> {
    /// The sweeps of `reports`: for each report, its timed boards of each symmetry, sorted by n (a sweep given
    /// as `count 13 10 12` is drawn 10, 12, 13, not back and forth).
    fn of<'a>(reports: &[&'a Report]) -> Vec<Sweep<'a>> {
        let mut sweeps: Vec<Sweep<'a>> = Vec::new();
        for &report in reports {
            let first = sweeps.len();
            for b in report.results.iter().filter(|b| timed_board(b)) {
                let gpu = b.gpu.as_ref().map(|g| g.device.as_str());
                let point = (b.n, b.seconds);
                match sweeps[first..]
                    .iter_mut()
                    .find(|s| s.symmetry == b.symmetry && s.gpu == gpu)
                {
                    Some(sweep) => sweep.points.push(point),
                    None => sweeps.push(Sweep {
                        report,
                        symmetry: &b.symmetry,
                        gpu,
                        points: vec![point],
                    }),
                }
            }
        }
        for sweep in &mut sweeps {
            sweep.points.sort_by_key(|p| p.0);
        }
        sweeps
    }

    /// Its legend: the machine and its threads (a GPU's sweep by its GPU: the CPU's threads only cut its
    /// tasks) and the symmetry.
    fn label(&self) -> String {
        let counted_on = match self.gpu {
            Some(gpu) => format!("{gpu} (GPU)"),
            None => format!(
                "{}, {} thread{}",
                machine_label(&self.report.machine),
                self.report.threads,
                if self.report.threads == 1 { "" } else { "s" }
            ),
        };
        format!("{counted_on}, {} symmetry", self.symmetry)
    }
}

/// Seconds against n, log scale, one line per count report and symmetry.
fn time_vs_n(area: &DrawingArea<SVGBackend, Shift>, reports: &[&Report]) -> anyhow::Result<()> {
    let sweeps = Sweep::of(reports);
    let all = sweeps.iter().flat_map(|s| s.points.iter());
    // A board either side of the boards, so that no point sits on an axis.
    let n_min = all
        .clone()
        .map(|p| p.0)
        .min()
        .unwrap_or(1)
        .saturating_sub(1);
    let n_max = all.clone().map(|p| p.0).max().unwrap_or(1) + 1;
    // Whole decades, with room: the log scale's labels are at powers of ten, so a range within one decade
    // (a single board) would have none.
    let t_min = all.clone().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let t_max = all.map(|p| p.1).fold(0.0, f64::max);
    let low = 10f64.powf((t_min / 1.5).log10().floor());
    let high = 10f64.powf((t_max * 1.5).log10().ceil());
    let mut chart = ChartBuilder::on(area)
        .caption("Time to count all solutions", ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(n_min..n_max, (low..high).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("n (board side)")
        .y_desc("seconds (log scale)")
        .x_labels((n_max - n_min + 1) as usize)
        .y_label_formatter(&|&s| four_figures(s))
        .draw()?;
    let labels: Vec<String> = sweeps.iter().map(Sweep::label).collect();
    for (i, (sweep, label)) in sweeps.iter().zip(&labels).enumerate() {
        let c = color(i);
        // Two sweeps of one machine alike (several runs of it) are told apart by when each was made.
        let label = if labels.iter().filter(|l| *l == label).count() > 1 {
            format!(
                "{label}, {}",
                sweep
                    .report
                    .timestamp
                    .replace('T', " ")
                    .trim_end_matches('Z')
            )
        } else {
            label.clone()
        };
        chart
            .draw_series(LineSeries::new(
                sweep.points.iter().copied(),
                c.stroke_width(2),
            ))?
            .label(label)
            .legend(legend(c));
        chart.draw_series(sweep.points.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// What a scaling chart sweeps.
#[derive(Clone, Copy, PartialEq)]
enum Swept {
    Threads,
    Gpus,
}

impl Swept {
    /// "threads" or "GPUs".
    fn plural(self) -> &'static str {
        match self {
            Swept::Threads => "threads",
            Swept::Gpus => "GPUs",
        }
    }
}

/// Speedup against threads (or GPUs), one line per benchmark, and the ideal line.
fn scaling(
    area: &DrawingArea<SVGBackend, Shift>,
    reports: &[&BenchReport],
    swept: Swept,
) -> anyhow::Result<()> {
    let rows = |r: &'_ BenchReport| -> Vec<(f64, f64)> {
        r.scaling
            .iter()
            .filter(|s| s.gpus.is_some() == (swept == Swept::Gpus) && s.speedup.is_finite())
            .map(|s| (s.step().workers() as f64, s.speedup))
            .collect()
    };
    let max_workers = reports
        .iter()
        .flat_map(|r| rows(r))
        .map(|(x, _)| x)
        .fold(1.0, f64::max);
    let max_speedup = reports
        .iter()
        .flat_map(|r| rows(r))
        .map(|(_, s)| s)
        .fold(max_workers, f64::max);
    let (what, one) = match swept {
        Swept::Threads => ("Thread", "1 thread"),
        Swept::Gpus => ("GPU", "1 GPU"),
    };
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("{what} scaling (median of the timed runs)"),
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..max_workers * 1.05, 0.0..max_speedup * 1.1)?;
    chart
        .configure_mesh()
        .x_desc(swept.plural())
        .x_labels(max_workers as usize + 2)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc(format!("speedup over {one}"))
        .draw()?;
    chart
        .draw_series(DashedLineSeries::new(
            [(0.0, 0.0), (max_workers, max_workers)],
            6,
            4,
            BLACK.mix(0.6).stroke_width(1),
        ))?
        .label(format!("ideal (speedup = {})", swept.plural()))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.6)));
    for (i, report) in reports.iter().enumerate() {
        let c = color(i);
        let points = rows(report);
        // The start time tells apart several benchmarks of one machine; a GPU benchmark is named by its GPUs.
        let label = format!(
            "{}, n = {}, {}",
            match (swept, &report.workload.gpu) {
                (Swept::Gpus, Some(gpus)) => gpus.clone(),
                _ => machine_label(&report.machine),
            },
            report.workload.n,
            report.timestamp.replace('T', " ").trim_end_matches('Z')
        );
        chart
            .draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(2)))?
            .label(label)
            .legend(legend(c));
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// Each benchmark's single-thread and multi-thread scores as a pair of bars.
fn machines(area: &DrawingArea<SVGBackend, Shift>, reports: &[&BenchReport]) -> anyhow::Result<()> {
    let plural = |threads: usize| if threads == 1 { "" } else { "s" };
    let pairs: Vec<Pair> = reports
        .iter()
        .filter_map(|r| {
            let s = r.scores.as_ref()?;
            let threads = s.multi_thread.threads;
            Some(Pair {
                label: format!("{} (n = {})", machine_label(&r.machine), r.workload.n),
                left: s.single_thread.solutions_per_second / 1e6,
                right: s.multi_thread.solutions_per_second / 1e6,
                right_note: format!(" ({threads} thread{})", plural(threads)),
            })
        })
        .collect();
    paired_bars(
        area,
        &pairs,
        "Scores: million solutions per second",
        "million solutions/s",
        ("1 thread", "all threads"),
    )
}

/// Each GPU benchmark's rate as a pair of bars: over the whole runs' time (the host's plan, cut and copies
/// included), and over the GPUs' own (their kernels).
fn gpus(area: &DrawingArea<SVGBackend, Shift>, reports: &[&BenchReport]) -> anyhow::Result<()> {
    let pairs: Vec<Pair> = reports
        .iter()
        .filter_map(|r| {
            let gpu = r.gpu_score_of_runs()?;
            let whole = r.scaling.last()?;
            Some(Pair {
                label: format!("{} (n = {})", gpu.gpus, r.workload.n),
                left: whole.solutions_per_second / 1e9,
                right: gpu.solutions_per_second / 1e9,
                right_note: String::new(),
            })
        })
        .collect();
    paired_bars(
        area,
        &pairs,
        "GPUs: billion solutions per second",
        "billion solutions/s",
        ("the whole run", "the GPUs' own time"),
    )
}

/// Two bars for each of some benchmarks, named below them.
struct Pair {
    label: String,
    left: f64,
    right: f64,
    /// Written after the right bar's value.
    right_note: String,
}

/// A chart of a pair of bars for each of `pairs`, the two kinds named by `legends`.
fn paired_bars(
    area: &DrawingArea<SVGBackend, Shift>,
    pairs: &[Pair],
    caption: &str,
    y_desc: &str,
    legends: (&str, &str),
) -> anyhow::Result<()> {
    let top = pairs
        .iter()
        .map(|p| p.left.max(p.right))
        .fold(0.0, f64::max)
        * 1.2;
    // Benchmark i takes the x interval [2i, 2i + 2]: its left bar on its left half, its right bar on its
    // right, and its name under the middle.
    let width = 2 * pairs.len() as i32;
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0..width, 0.0..top.max(f64::MIN_POSITIVE))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(width as usize + 1)
        .y_desc(y_desc)
        .x_label_formatter(&|&x| {
            let pair = (x % 2 == 1).then(|| pairs.get((x / 2) as usize)).flatten();
            pair.map_or_else(String::new, |p| p.label.clone())
        })
        .draw()?;
    let half = chart.plotting_area().dim_in_pixel().0 as i32 / width;
    let gap = (half / 6) as u32;
    let bar = |x: i32, value: f64, c: RGBColor| {
        let (left, right) = if x % 2 == 0 {
            (gap, gap / 4)
        } else {
            (gap / 4, gap)
        };
        let mut rect = Rectangle::new([(x, 0.0), (x + 1, value)], c.filled());
        rect.set_margin(0, 0, left, right);
        rect
    };
    let value = move |x: i32, v: f64, text: String| {
        EmptyElement::at((x, v))
            + Text::new(
                text,
                (half / 2, -4),
                ("sans-serif", 14)
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Center, VPos::Bottom)),
            )
    };
    let (one, two) = (color(0), color(1));
    chart
        .draw_series(
            (0..)
                .step_by(2)
                .zip(pairs)
                .map(|(x, p)| bar(x, p.left, one)),
        )?
        .label(legends.0)
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 15, y + 5)], one.filled()));
    chart
        .draw_series(
            (1..)
                .step_by(2)
                .zip(pairs)
                .map(|(x, p)| bar(x, p.right, two)),
        )?
        .label(legends.1)
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 15, y + 5)], two.filled()));
    chart.draw_series((0..).step_by(2).zip(pairs).flat_map(|(x, p)| {
        [
            value(x, p.left, format!("{:.2}", p.left)),
            value(x + 1, p.right, format!("{:.2}{}", p.right, p.right_note)),
        ]
    }))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}
