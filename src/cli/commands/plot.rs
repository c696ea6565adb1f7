//! The `plot` command: SVG charts from count and bench JSON files, drawn with plotters.
//!
//! Five charts, each drawn when its data is there: `time-vs-n.svg` (seconds against n on a log scale, one
//! line per count sweep), `scaling.svg` (speedup against threads, one line per benchmark, with the ideal
//! line), `machines.svg` (the single-thread and multi-thread scores of each benchmark, a pair of horizontal
//! bars in a row named at its left), `gpus.svg` (each GPU benchmark's rate over its whole runs and over the
//! GPUs' own time, drawn the same way) and `gpu-scaling.svg` (speedup against GPUs, for GPU benchmarks on
//! several).
//! Files from several machines go on the same charts, each named by its machine, and every name distinct
//! (see [`dated`]). However many there are, no name is written over another or over the data: the bar charts
//! grow a row a benchmark ([`paired_bars`]), the line charts' legends go under them, a row a series
//! ([`with_legend_below`]).
//!
//! plotters is built with its SVG backend only: text becomes SVG `<text>` elements that the viewer renders
//! with its own fonts, and layout uses plotters' built-in estimate of text widths (and, for the room this
//! module gives names and values, its own: [`text_width`]), so no font files and no system libraries are
//! needed.

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
use std::path::{Path, PathBuf};

/// A file's contents, by kind.
enum Input {
    Count(Box<Report>),
    Bench(Box<BenchReport>),
}

/// The width of every chart at least, and the height of a chart of lines above its legend.
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
    // A benchmark whose figures are noise, or of a build without optimisation, is plotted beside the others
    // as any is: said here, so that its bars are not taken for the machine's. A report written before the
    // warnings were has them found again from its runs.
    if !args.quiet {
        for (path, input) in args.files.iter().zip(&inputs) {
            if let Some(why) = unfinished(input) {
                note!("warning: {}: {why}", path.display());
            }
            match input {
                Input::Bench(report) => {
                    for warning in report.warnings_now() {
                        note!("warning: {}: {}", path.display(), warning.message);
                    }
                }
                Input::Count(report) => {
                    if let Some(what) = left_out(report) {
                        note!(
                            "note: {}: left out of time-vs-n.svg: {what}",
                            path.display()
                        );
                    }
                }
            }
        }
    }
    let mut charts: Vec<(&str, String)> = Vec::new();
    if counts.iter().any(|r| r.results.iter().any(timed_board)) {
        charts.push(("time-vs-n.svg", time_vs_n(&counts)?));
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
        charts.push(("scaling.svg", scaling(&scaled, Swept::Threads)?));
    }
    let scored: Vec<&BenchReport> = benches
        .iter()
        .copied()
        .filter(|r| r.scores.is_some())
        .collect();
    if !scored.is_empty() {
        charts.push(("machines.svg", machines(&scored)?));
    }
    let on_gpus: Vec<&BenchReport> = benches
        .iter()
        .copied()
        .filter(|r| r.gpu_score_of_runs().is_some() && !r.scaling.is_empty())
        .collect();
    if !on_gpus.is_empty() {
        charts.push(("gpus.svg", gpus(&on_gpus)?));
    }
    let gpu_scaled = swept(true);
    if !gpu_scaled.is_empty() {
        charts.push(("gpu-scaling.svg", scaling(&gpu_scaled, Swept::Gpus)?));
    }
    if charts.is_empty() {
        return Err(UsageError(
            "nothing to plot: the files hold no timed counts of whole square boards (rectangles, shards, \
             lists of units and merges are left out), no benchmark runs on one thread and no GPU benchmark's \
             timed runs"
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
    finish_all(
        files
            .into_iter()
            .map(|(out, path, _)| (out, path))
            .collect(),
        args.quiet,
    )
}

/// Gives each chart written its name, whatever became of the one before: a chart whose name became something
/// not the plot's to replace meanwhile is kept beside it (an error that says where), and the others are not
/// thrown away for it.
fn finish_all(files: Vec<(output::Output, PathBuf)>, quiet: bool) -> anyhow::Result<()> {
    let mut failures = Vec::new();
    for (out, path) in files {
        match out.finish() {
            Ok(()) if !quiet => note!("wrote {}", path.display()),
            Ok(()) => {}
            Err(e) => failures.push(format!("{e:#}")),
        }
    }
    if failures.is_empty() {
        return Ok(());
    }
    Err(anyhow::anyhow!("{}", failures.join("\nerror: ")))
}

/// Reads a count report or a bench report; anything else is refused with the reason.
fn read(path: &Path) -> Result<Input, UsageError> {
    let cannot = |why: String| UsageError(format!("cannot plot '{}': {why}", path.display()));
    // Parsed as it is read, so that a file that is not JSON, or a device that never ends (`/dev/zero`), is
    // refused at its first wrong byte rather than read whole into memory.
    // The bytes are kept as they are read: a report is then read from them as its own types, since a
    // `serde_json::Value` holds no integer past 64 bits (a count of n = 29 and more, the nodes of n = 28) but as a
    // float, which no count is.
    let file = crate::cli::output::open_to_read(path).map_err(|e| cannot(e.to_string()))?;
    let mut kept = Kept {
        inner: file,
        bytes: Vec::new(),
    };
    let value: serde_json::Value = serde_json::from_reader(std::io::BufReader::new(&mut kept))
        .map_err(|e| match e.classify() {
            serde_json::error::Category::Io => cannot(e.to_string()),
            // `nqueens count 18 -f json > r.json` that failed still left the file the shell made.
            serde_json::error::Category::Eof if kept.bytes.iter().all(u8::is_ascii_whitespace) => {
                cannot(
                    "it is empty (the command that was to write it failed, or has not written yet)"
                        .into(),
                )
            }
            _ => cannot(format!("not JSON ({e})")),
        })?;
    let other = other_json(&value);
    let input = if value.get("kind").and_then(|k| k.as_str()) == Some("bench") {
        serde_json::from_slice(&kept.bytes).map(|r| Input::Bench(Box::new(r)))
    } else {
        serde_json::from_slice(&kept.bytes).map(|r| Input::Count(Box::new(r)))
    };
    let input = input.map_err(|e| {
        let not = "not a report of `nqueens count --format json` or `nqueens bench --export-json`";
        cannot(match &other {
            Some(what) => format!("{not}: {what}"),
            None => format!("{not} ({e})"),
        })
    })?;
    plottable(&input).map_err(cannot)?;
    Ok(input)
}

/// A reader that keeps every byte it gives.
struct Kept<R> {
    inner: R,
    bytes: Vec<u8>,
}

impl<R: std::io::Read> std::io::Read for Kept<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

/// What a JSON document that is no report is, where that says more than the first field serde found amiss in
/// it: nqueens writes other JSON too (`estimate`'s forecasts, `units`' plans, `list`'s and `solve`'s solutions), and "invalid
/// type: floating point, expected u128" did not say that an estimate was given for a count.
fn other_json(value: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    let what = match value {
        Value::Object(fields) => {
            return match fields.get("kind").and_then(Value::as_str) {
                None if fields.contains_key("fingerprint") && fields.contains_key("shard_units") => Some(
                    "it is a plan of `nqueens units` (its units and their fingerprint), which times no count"
                        .to_string(),
                ),
                None | Some("bench") => None,
                Some("estimate") => Some(
                    "it is a forecast of `nqueens estimate` (\"kind\": \"estimate\"), which times no count: \
                     count the boards (`nqueens count ... --format json`) to plot their times"
                        .to_string(),
                ),
                Some(kind) => Some(format!(
                    "its \"kind\" is \"{}\", where a count report has none and a bench report's is \"bench\"",
                    kind.escape_debug()
                )),
            }
        }
        Value::Array(_) => "an array (as `list` and `solve` write a solution with --format json)",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
    };
    Some(format!("it is {what}, where a report is an object"))
}

/// Why a report's figures are not those of a finished run, if they are not: its file is plotted all the same
/// (an interrupted benchmark's runs are measurements), but its bars and lines are not taken for a whole run's.
fn unfinished(input: &Input) -> Option<&'static str> {
    use nqueens::report::bench::Status;
    match input {
        Input::Count(r) if r.status == Status::Running => Some(
            "the sweep did not finish (\"status\": \"running\": it was interrupted, or is still going): the chart \
             has the boards it had counted",
        ),
        Input::Bench(r) if r.status == Status::Running => Some(
            "the benchmark did not finish (\"status\": \"running\": it was interrupted, or is still going): its \
             figures are of the runs it had measured",
        ),
        Input::Bench(r) if r.status == Status::Failed => Some(
            "the benchmark failed (\"status\": \"failed\"): a count differed from the published value, so its \
             figures are of a build or a machine that counts wrong",
        ),
        _ => None,
    }
}

/// The most seconds a count may report (about 3,000 years), threads a run may have, and a rate or a speedup
/// may reach: values beyond are not measurements, and would make the charts' axes and labels endless.
const MAX_SECONDS: f64 = 1e11;
/// The least seconds a timed count may report: a nanosecond, the clock's own step (the quickest count, of the
/// empty board, takes some 30 microseconds). The chart of time against n spans the decades from the least
/// time to the most, and a time of 1e-300 beside one of 1e9 made that span more than a double holds: plotters
/// then looked for the axis's labels without end.
const MIN_SECONDS: f64 = 1e-9;
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
                "{what} is {}, not a value a run can have (0 to {max:e})",
                number(x)
            ))
        }
    };
    // A time that a run took: every timed run took some, so no 0 here.
    let took = |what: String, x: f64| {
        if x.is_finite() && (MIN_SECONDS..=MAX_SECONDS).contains(&x) {
            Ok(())
        } else {
            Err(format!(
                "{what} is {}, not a time a run can take ({MIN_SECONDS:e} to {MAX_SECONDS:e})",
                number(x)
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
                // 0 is a board not timed, which the chart leaves out.
                if b.seconds > 0.0 && b.seconds < MIN_SECONDS {
                    return Err(format!(
                        "results[{i}].seconds is {}, not a time a count can take (0 for none, or \
                         {MIN_SECONDS:e} to {MAX_SECONDS:e})",
                        number(b.seconds)
                    ));
                }
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
            for (i, s) in r.scaling.iter().enumerate() {
                took(format!("scaling[{i}].median_seconds"), s.median_seconds)?;
                took(format!("scaling[{i}].min_seconds"), s.min_seconds)?;
                took(format!("scaling[{i}].max_seconds"), s.max_seconds)?;
            }
            for (i, run) in r.runs.iter().enumerate() {
                took(format!("runs[{i}].seconds"), run.seconds)?;
                if let Some(seconds) = run.cpu_seconds {
                    within(
                        format!("runs[{i}].cpu_seconds"),
                        seconds,
                        MAX_SECONDS * MAX_THREADS as f64,
                    )?;
                }
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

/// `x` as a message gives it: plainly where that is short (`-3`, `0.25`), in scientific notation where it is
/// not (`1e308` rather than 309 digits, `1e-12` rather than twelve zeros).
fn number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e6).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Draws into a fresh SVG document of `size` and returns its text.
fn svg(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> anyhow::Result<()>,
) -> anyhow::Result<String> {
    let mut text = String::new();
    {
        let area = SVGBackend::with_string(&mut text, size).into_drawing_area();
        area.fill(&WHITE)?;
        draw(&area)?;
        area.present()?;
    }
    Ok(text)
}

/// Around every chart, in pixels.
const MARGIN: u32 = 15;

/// The font size of legends, of the benchmarks' names beside their bars and of the bars' values.
const FONT: f64 = 14.0;

/// About how wide `text` is in pixels, drawn in a font of `size` as plotters is given it (it writes 1/1.24 of
/// that as the SVG's font-size). 0.6 em a character: a little over the usual sans-serif fonts' average
/// (DejaVu Sans' digits are 0.64 em, its lower case about 0.55), so that a name given this room fits in
/// whatever font the viewer has. plotters' own estimate, 0.56 em a byte, can fall short of that.
fn text_width(text: &str, size: f64) -> u32 {
    (text.chars().count() as f64 * 0.6 * size / 1.24).ceil() as u32
}

/// `n` pixels, as plotters' coordinates take them: a count of rows no command line reaches saturates rather
/// than wraps.
fn px(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// The most characters of a name that a file gives (a CPU's or a GPU's model, a timestamp, a symmetry) that
/// the charts write: one longer than any machine reports is cut short, so that a file cannot make a chart's
/// legend or its column of names endlessly wide.
const MAX_NAME: usize = 64;

/// A name that a file gives, as the charts write it: its characters that XML does not allow in a document
/// (control characters, U+FFFE and U+FFFF) written escaped (`\u{1}`), since one of them as it is made the
/// chart no SVG that a viewer opens; then cut short to [`MAX_NAME`] characters.
fn shorten(name: &str) -> String {
    let mut written = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_control() || matches!(c, '\u{fffe}' | '\u{ffff}') {
            written.extend(c.escape_default());
        } else {
            written.push(c);
        }
    }
    if written.chars().count() <= MAX_NAME {
        return written;
    }
    let mut short: String = written.chars().take(MAX_NAME - 1).collect();
    short.push('…');
    short
}

/// When a report was made, as the charts write it: `2026-11-22 13:29:27`.
fn when(timestamp: &str) -> String {
    shorten(timestamp.replace('T', " ").trim_end_matches('Z'))
}

/// A short name for a machine: its CPU model without the usual noise, and its cores.
fn machine_label(m: &Machine) -> String {
    let model = ["(R)", "(TM)", "(tm)", "CPU", "Processor"]
        .iter()
        .fold(m.cpu_model.clone(), |s, noise| s.replace(noise, ""));
    let model = model.split_whitespace().collect::<Vec<_>>().join(" ");
    let plural = if m.logical_cores == 1 { "" } else { "s" };
    format!("{}, {} core{plural}", shorten(&model), m.logical_cores)
}

/// Whether each of `labels` is alike to another.
fn alike(labels: &[String]) -> Vec<bool> {
    let mut counts = std::collections::HashMap::new();
    for label in labels {
        *counts.entry(label.as_str()).or_insert(0usize) += 1;
    }
    labels.iter().map(|l| counts[l.as_str()] > 1).collect()
}

/// `labels`, those alike to another told apart by when each one's report was made (`when`, one for each), as
/// several runs of one machine are; any still alike (one file named twice) are then numbered.
fn dated(mut labels: Vec<String>, when: &[String]) -> Vec<String> {
    let same = alike(&labels);
    for ((label, same), when) in labels.iter_mut().zip(same).zip(when) {
        if same {
            *label = format!("{label}, {when}");
        }
    }
    numbered(labels)
}

/// `labels`, those alike to another numbered `#1`, `#2` in the order of the files, so that every series and
/// every benchmark has a name of its own.
fn numbered(mut labels: Vec<String>) -> Vec<String> {
    // A number tells them apart unless a file's own name reads as one of the numbered (`A #1` beside two
    // `A`): another round numbers those too, each round lengthening only the names still alike.
    for _ in 0..labels.len() {
        let same = alike(&labels);
        if !same.contains(&true) {
            break;
        }
        let mut seen = std::collections::HashMap::new();
        for (label, same) in labels.iter_mut().zip(same) {
            if same {
                let k = seen.entry(label.clone()).or_insert(0usize);
                *k += 1;
                *label = format!("{label} #{k}");
            }
        }
    }
    labels
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

/// How a legend shows a series: a line of its colour, the dashed ideal's grey, a bar's colour.
#[derive(Clone, Copy)]
enum Key {
    Line(RGBColor),
    Ideal,
    Bar(RGBColor),
}

/// A legend's row, in pixels.
const LEGEND_ROW: u32 = 20;

/// How tall a legend of `entries` is, the margin under it included.
fn legend_height(entries: usize) -> u32 {
    LEGEND_ROW
        .saturating_mul(u32::try_from(entries).unwrap_or(u32::MAX))
        .saturating_add(MARGIN)
}

/// How wide a legend of `entries` is: its keys and its longest name.
fn legend_width(entries: &[(String, Key)]) -> u32 {
    let widest = entries.iter().map(|(name, _)| text_width(name, FONT));
    widest.max().unwrap_or(0).saturating_add(28)
}

/// Draws a legend at the top of `area`, one series a row, its keys at `left` (lined up with the plotting
/// area's left edge). Legends go under their charts, never on them: a legend inside a chart covers its lines
/// (and, with enough series, runs past the chart's foot), while under it the chart grows a row a series.
fn draw_legend(
    area: &DrawingArea<SVGBackend, Shift>,
    left: i32,
    entries: &[(String, Key)],
) -> anyhow::Result<()> {
    let style = ("sans-serif", FONT)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let mut y = px(LEGEND_ROW / 2);
    for (name, key) in entries {
        // The keys' shapes are those plotters drew in its own legends: a line 20 wide, a bar's square.
        match *key {
            Key::Line(c) => area.draw(&PathElement::new(
                vec![(left, y), (left + 20, y)],
                c.stroke_width(2),
            ))?,
            Key::Ideal => area.draw(&PathElement::new(
                vec![(left, y), (left + 20, y)],
                BLACK.mix(0.6),
            ))?,
            Key::Bar(c) => area.draw(&Rectangle::new(
                [(left + 2, y - 5), (left + 17, y + 5)],
                c.filled(),
            ))?,
        }
        area.draw(&Text::new(name.as_str(), (left + 28, y), style.clone()))?;
        y = y.saturating_add(px(LEGEND_ROW));
    }
    Ok(())
}

/// A chart of lines: `SIZE`, drawn by `draw`, over a legend of `entries` that lines up with the plotting area
/// (whose labels of y are `y_labels` wide). The chart grows in height with the legend, and in width with a
/// legend wider than it.
fn with_legend_below(
    y_labels: u32,
    entries: &[(String, Key)],
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> anyhow::Result<()>,
) -> anyhow::Result<String> {
    let left = MARGIN + y_labels;
    let width = SIZE
        .0
        .max((left + MARGIN).saturating_add(legend_width(entries)));
    let height = SIZE.1.saturating_add(legend_height(entries.len()));
    svg((width, height), |area| {
        let (chart, legend) = area.split_vertically(SIZE.1);
        draw(&chart)?;
        draw_legend(&legend, px(left), entries)
    })
}

/// The width of a chart's labels of y, in pixels: `least`, or more where the widest of `widest` (the labels at
/// the axis's ends, as they are written) needs it, beside its ticks and the axis's name turned upright. A
/// speedup of 1e11 (a report's odd figures) had labels of 14 digits in 50 pixels: cut off at the chart's edge,
/// and over the axis's name.
fn y_label_room(least: u32, widest: &[String]) -> u32 {
    // plotters' labels are of size 12; 28 pixels for the ticks, the gaps and the axis's name.
    let widest = widest
        .iter()
        .map(|l| text_width(l, 12.0))
        .max()
        .unwrap_or(0);
    least.max(widest.saturating_add(28))
}

/// The most labels on an axis of n, threads or GPUs: 24 of up to 5 digits leave room between them on the
/// plot's 700 pixels. With more (a sweep of n from 4 to 64, a machine of 256 threads), plotters labels every
/// 2nd, 5th or 10th instead of writing one over the next.
const MAX_TICKS: usize = 24;

/// What of a count report the chart of time against n leaves out ([`timed_board`]), said as a list of its
/// kinds, each with its boards: `None` where it leaves out nothing.
fn left_out(report: &Report) -> Option<String> {
    let mut rectangles = Vec::new();
    let mut parts = Vec::new();
    let mut untimed = Vec::new();
    for b in report.results.iter().filter(|b| !timed_board(b)) {
        match b.cols.filter(|&c| c != b.n) {
            Some(cols) => rectangles.push(format!("{}x{cols}", b.n)),
            None if b.part.is_some() => parts.push(format!("n = {}", b.n)),
            None => untimed.push(format!("n = {}", b.n)),
        }
    }
    let kinds: Vec<String> = [
        (
            rectangles,
            ["the rectangle", "the rectangles"],
            "(no place on an axis of n)",
        ),
        (
            parts,
            ["the part of", "the parts of"],
            "(a shard's or a list of units' time is not the board's)",
        ),
        (
            untimed,
            ["the untimed count of", "the untimed counts of"],
            "(merged from journals)",
        ),
    ]
    .into_iter()
    .filter(|(boards, _, _)| !boards.is_empty())
    .map(|(boards, [one, many], why)| {
        let what = if boards.len() == 1 { one } else { many };
        format!("{what} {} {why}", boards.join(", "))
    })
    .collect();
    (!kinds.is_empty()).then(|| kinds.join("; "))
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
            Some(gpu) => format!("{} (GPU)", shorten(gpu)),
            None => format!(
                "{}, {} thread{}",
                machine_label(&self.report.machine),
                self.report.threads,
                if self.report.threads == 1 { "" } else { "s" }
            ),
        };
        format!("{counted_on}, {} symmetry", shorten(self.symmetry))
    }
}

/// Seconds against n, log scale, one line per count report and symmetry.
fn time_vs_n(reports: &[&Report]) -> anyhow::Result<String> {
    let sweeps = Sweep::of(reports);
    // Two sweeps of one machine alike (several runs of it) are told apart by when each was made.
    let times: Vec<String> = sweeps.iter().map(|s| when(&s.report.timestamp)).collect();
    let labels = dated(sweeps.iter().map(Sweep::label).collect(), &times);
    let entries: Vec<(String, Key)> = labels
        .into_iter()
        .enumerate()
        .map(|(i, label)| (label, Key::Line(color(i))))
        .collect();
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
    // The labels are of whole decades, the widest at one end or the other (`0.000000001`, `1000000000000`).
    let y_labels = y_label_room(70, &[four_figures(low), four_figures(high)]);
    with_legend_below(y_labels, &entries, |area| {
        let mut chart = ChartBuilder::on(area)
            .caption("Time to count all solutions", ("sans-serif", 22))
            .margin(MARGIN)
            .x_label_area_size(40)
            .y_label_area_size(y_labels)
            .build_cartesian_2d(n_min..n_max, (low..high).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("n (board side)")
            .y_desc("seconds (log scale)")
            .x_labels(((n_max - n_min + 1) as usize).min(MAX_TICKS))
            .y_label_formatter(&|&s| four_figures(s))
            .draw()?;
        for (i, sweep) in sweeps.iter().enumerate() {
            let c = color(i);
            chart.draw_series(LineSeries::new(
                sweep.points.iter().copied(),
                c.stroke_width(2),
            ))?;
            chart.draw_series(sweep.points.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
        }
        Ok(())
    })
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
fn scaling(reports: &[&BenchReport], swept: Swept) -> anyhow::Result<String> {
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
    // The start time tells apart several benchmarks of one machine; a GPU benchmark is named by its GPUs.
    let labels = reports.iter().map(|report| {
        format!(
            "{}, n = {}, {}",
            match (swept, &report.workload.gpu) {
                (Swept::Gpus, Some(gpus)) => shorten(gpus),
                _ => machine_label(&report.machine),
            },
            report.workload.n,
            when(&report.timestamp)
        )
    });
    let ideal = format!("ideal (speedup = {})", swept.plural());
    let entries: Vec<(String, Key)> = std::iter::once((ideal, Key::Ideal))
        .chain(
            numbered(labels.collect())
                .into_iter()
                .enumerate()
                .map(|(i, label)| (label, Key::Line(color(i)))),
        )
        .collect();
    // plotters writes the labels of a range above 1 with one decimal, the widest at the top.
    let y_top = max_speedup * 1.1;
    let y_labels = y_label_room(50, &[format!("{y_top:.1}")]);
    with_legend_below(y_labels, &entries, |area| {
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!("{what} scaling (median of the timed runs)"),
                ("sans-serif", 22),
            )
            .margin(MARGIN)
            .x_label_area_size(40)
            .y_label_area_size(y_labels)
            .build_cartesian_2d(0.0..max_workers * 1.05, 0.0..y_top)?;
        chart
            .configure_mesh()
            .x_desc(swept.plural())
            .x_labels((max_workers as usize + 2).min(MAX_TICKS))
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_desc(format!("speedup over {one}"))
            .draw()?;
        chart.draw_series(DashedLineSeries::new(
            [(0.0, 0.0), (max_workers, max_workers)],
            6,
            4,
            BLACK.mix(0.6).stroke_width(1),
        ))?;
        for (i, report) in reports.iter().enumerate() {
            let c = color(i);
            let points = rows(report);
            chart.draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(2)))?;
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
        }
        Ok(())
    })
}

/// Each benchmark's single-thread and multi-thread scores as a pair of bars.
fn machines(reports: &[&BenchReport]) -> anyhow::Result<String> {
    let plural = |threads: usize| if threads == 1 { "" } else { "s" };
    let pairs: Vec<Pair> = reports
        .iter()
        .filter_map(|r| {
            let s = r.scores.as_ref()?;
            let threads = s.multi_thread.threads;
            Some(Pair {
                label: format!("{} (n = {})", machine_label(&r.machine), r.workload.n),
                when: when(&r.timestamp),
                left: s.single_thread.solutions_per_second / 1e6,
                right: s.multi_thread.solutions_per_second / 1e6,
                right_note: format!(" ({threads} thread{})", plural(threads)),
            })
        })
        .collect();
    paired_bars(
        &pairs,
        "Scores: million solutions per second",
        "million solutions/s",
        ("1 thread", "all threads"),
    )
}

/// Each GPU benchmark's rate as a pair of bars: over the whole runs' time (the host's plan, cut and copies
/// included), and over the GPUs' own (their kernels).
fn gpus(reports: &[&BenchReport]) -> anyhow::Result<String> {
    let pairs: Vec<Pair> = reports
        .iter()
        .filter_map(|r| {
            let gpu = r.gpu_score_of_runs()?;
            let whole = r.scaling.last()?;
            Some(Pair {
                label: format!("{} (n = {})", shorten(&gpu.gpus), r.workload.n),
                when: when(&r.timestamp),
                left: whole.solutions_per_second / 1e9,
                right: gpu.solutions_per_second / 1e9,
                right_note: String::new(),
            })
        })
        .collect();
    paired_bars(
        &pairs,
        "GPUs: billion solutions per second",
        "billion solutions/s",
        ("the whole run", "the GPUs' own time"),
    )
}

/// Two bars for each of some benchmarks, named beside them.
struct Pair {
    label: String,
    /// When its report was made: it tells apart two benchmarks of one label.
    when: String,
    left: f64,
    right: f64,
    /// Written after the right bar's value.
    right_note: String,
}

/// The height of a benchmark's pair of bars in a chart of bars, with the space to the next, in pixels.
const PAIR_HEIGHT: u32 = 48;

/// A chart of a pair of bars for each of `pairs`, the two kinds named by `legends`.
///
/// The bars lie along the x axis, a benchmark a row, named at the left of its row. Under upright bars a name
/// has only its pair's width, which shrinks with each benchmark added: results/' nine names of some 30
/// characters, 200 pixels each, ran into one another under pairs 80 pixels wide. Turned names would read
/// sideways, and wrapped ones would only put off the overlap. At the left of its row a name reads as it is,
/// in the width it needs, and the chart grows a row for each benchmark, so that any number of them read,
/// each value written in full after its bar.
fn paired_bars(
    pairs: &[Pair],
    caption: &str,
    x_desc: &str,
    legends: (&str, &str),
) -> anyhow::Result<String> {
    let whens: Vec<String> = pairs.iter().map(|p| p.when.clone()).collect();
    let names = dated(pairs.iter().map(|p| p.label.clone()).collect(), &whens);
    let values: Vec<[(f64, String); 2]> = pairs
        .iter()
        .map(|p| {
            [
                (p.left, format!("{:.2}", p.left)),
                (p.right, format!("{:.2}{}", p.right, p.right_note)),
            ]
        })
        .collect();
    // The names' column, right-aligned against the axis, and a plot at least 500 wide (800 in all when the
    // names are short).
    const GAP: u32 = 8;
    let names_width = names.iter().map(|n| text_width(n, FONT)).max().unwrap_or(0) + 2 * GAP;
    let plot_width = SIZE.0.saturating_sub(names_width + 2 * MARGIN).max(500);
    // The axis reaches far enough that every value, written after its bar, ends within it: a bar of v takes
    // v / top of the plot's width, and its text the room after it.
    let plot = f64::from(plot_width);
    let top = values
        .iter()
        .flatten()
        .map(|(v, text)| {
            let room = plot - f64::from(text_width(text, FONT) + 2 * GAP);
            v * plot / room.max(plot / 4.0)
        })
        .fold(0.0, f64::max);
    // All zero: an axis all the same. (`read` refuses values beyond `MAX_RATE`, so `top` is finite.)
    let top = if top > 0.0 && top.is_finite() {
        top
    } else {
        1.0
    };
    // The labels of the axis are centred on their ticks, the last at the axis's end: half the widest of them
    // goes past it, which the margin at the right takes (`40000000000` ran off the chart in a margin of 15).
    let axis_label = text_width(&four_figures(top), 12.0);
    let right = MARGIN.max(axis_label / 2 + 2);
    let width = MARGIN
        .saturating_add(names_width)
        .saturating_add(plot_width)
        .saturating_add(right);
    const CAPTION: u32 = 35;
    const X_AXIS: u32 = 45;
    let rows = u32::try_from(pairs.len()).unwrap_or(u32::MAX);
    let chart_height =
        (MARGIN + CAPTION + X_AXIS + MARGIN).saturating_add(PAIR_HEIGHT.saturating_mul(rows));
    let (one, two) = (color(0), color(1));
    let entries = [
        (legends.0.to_string(), Key::Bar(one)),
        (legends.1.to_string(), Key::Bar(two)),
    ];
    let height = chart_height.saturating_add(legend_height(entries.len()));
    svg((width, height), |area| {
        let (upper, lower) = area.split_vertically(chart_height);
        let mut chart = ChartBuilder::on(&upper)
            .caption(caption, ("sans-serif", 22))
            .margin(MARGIN)
            .margin_right(right)
            .x_label_area_size(X_AXIS)
            .y_label_area_size(names_width)
            .build_cartesian_2d(0.0..top, 0.0..pairs.len() as f64)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            // The rows are named below, each at its middle: the axis of y has no values.
            .y_labels(0)
            // As many labels of the axis as have room for the longest of them (13 digits at most, for
            // `MAX_RATE` in millions) and 30 pixels between.
            .x_labels((plot_width / (axis_label + 30)).max(2) as usize)
            .x_label_formatter(&|&x| four_figures(x))
            // plotters sizes its labels by the plotting area, 12% of its height up to 12: a chart of one
            // benchmark, 48 pixels high, had them at 7 (5.6 in the SVG), too small to read.
            .label_style(("sans-serif", 12))
            .x_desc(x_desc)
            .draw()?;
        // Benchmark i's row is y in [r, r + 1], r counted from the foot, so that the first file is on top;
        // its left bar is above its right one, as the legend has them.
        let row = |i: usize| (pairs.len() - 1 - i) as f64;
        let bar = |i: usize, (low, high): (f64, f64), v: f64, c: RGBColor| {
            Rectangle::new([(0.0, row(i) + low), (v, row(i) + high)], c.filled())
        };
        const LEFT: (f64, f64) = (0.52, 0.9);
        const RIGHT: (f64, f64) = (0.1, 0.48);
        chart.draw_series(
            pairs
                .iter()
                .enumerate()
                .map(|(i, p)| bar(i, LEFT, p.left, one)),
        )?;
        chart.draw_series(
            pairs
                .iter()
                .enumerate()
                .map(|(i, p)| bar(i, RIGHT, p.right, two)),
        )?;
        let after = ("sans-serif", FONT)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        chart.draw_series(values.iter().enumerate().flat_map(|(i, [l, r])| {
            [(l, LEFT), (r, RIGHT)].map(|((v, text), (low, high))| {
                EmptyElement::at((*v, row(i) + (low + high) / 2.0))
                    + Text::new(text.clone(), (px(GAP), 0), after.clone())
            })
        }))?;
        let before = ("sans-serif", FONT)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        for (i, name) in names.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(0.0, row(i) + 0.5));
            upper.draw(&Text::new(name.as_str(), (x - px(GAP), y), before.clone()))?;
        }
        let left = chart.plotting_area().get_pixel_range().0.start;
        draw_legend(&lower, left, &entries)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(labels: &[&str]) -> Vec<String> {
        labels.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn labels_alike_are_dated_then_numbered_until_each_is_its_own() {
        let when = strings(&["t1", "t2", "t2", "t3"]);
        assert_eq!(
            dated(strings(&["A", "A", "A", "B"]), &when),
            ["A, t1", "A, t2 #1", "A, t2 #2", "B"]
        );
        // A file whose own name reads as a numbered one: numbered in its turn.
        assert_eq!(
            numbered(strings(&["A", "A", "A #1"])),
            ["A #1 #1", "A #2", "A #1 #2"]
        );
        assert_eq!(numbered(strings(&["A", "B"])), ["A", "B"]);
        assert!(numbered(Vec::new()).is_empty());
    }

    #[test]
    fn a_name_longer_than_any_machine_reports_is_cut_short() {
        assert_eq!(shorten("Intel Xeon"), "Intel Xeon");
        let long = "é".repeat(1000);
        let short = shorten(&long);
        assert_eq!(short.chars().count(), MAX_NAME);
        assert!(short.ends_with('…'));
        assert_eq!(when("2026-11-22T13:29:27Z"), "2026-11-22 13:29:27");
    }

    #[test]
    fn a_name_is_written_without_the_characters_that_xml_does_not_allow() {
        assert_eq!(shorten("full\0\u{1}\u{ffff}"), "full\\u{0}\\u{1}\\u{ffff}");
        assert_eq!(shorten("a\tb\nc"), "a\\tb\\nc");
        // Escaped, then cut short: within the limit still.
        assert_eq!(shorten(&"\u{1}".repeat(100)).chars().count(), MAX_NAME);
    }
}

#[cfg(test)]
mod chart_files {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_chart_whose_name_became_a_link_is_kept_beside_it_and_the_others_still_take_theirs() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        std::fs::write(path("theirs.svg"), "theirs").unwrap();
        let mut files = Vec::new();
        for name in ["a.svg", "b.svg", "c.svg"] {
            let mut out = output::Output::open(Some(&path(name))).unwrap();
            out.write(name.as_bytes()).unwrap();
            files.push((out, path(name)));
        }
        // Between the charts' opening and their renames, the first one's name became a link.
        std::os::unix::fs::symlink("theirs.svg", path("a.svg")).unwrap();
        let error = finish_all(files, true).unwrap_err().to_string();
        assert!(error.contains("a.svg.new"), "{error}");
        assert_eq!(
            std::fs::read_to_string(path("theirs.svg")).unwrap(),
            "theirs"
        );
        assert_eq!(std::fs::read_to_string(path("a.svg.new")).unwrap(), "a.svg");
        for name in ["b.svg", "c.svg"] {
            assert_eq!(
                std::fs::read_to_string(path(name)).unwrap(),
                name,
                "{error}"
            );
        }
    }
}
