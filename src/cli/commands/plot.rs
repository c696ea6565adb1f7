//! The `plot` command: SVG charts from count and bench JSON files, drawn with plotters.
//!
//! Five charts, each drawn when its data is there: `time-vs-n.svg` (seconds against n on a log scale, one
//! line per count sweep), `scaling.svg` (speedup against threads, one line per benchmark, with the ideal
//! line), `machines.svg` (the single-thread and multi-thread scores of each benchmark, a pair of horizontal
//! bars in a row named at its left), `gpus.svg` (each GPU benchmark's rate over its whole runs and over the
//! GPUs' own time, drawn the same way) and `gpu-scaling.svg` (speedup against GPUs, for GPU benchmarks on
//! several).
//! Files from several machines go on the same charts, each named by its machine and by what else it differs in
//! from the chart's others ([`with_differences`]), and every name distinct (see [`dated`]). However many there
//! are, no name is written over another or over the data: the bar charts grow a row a benchmark
//! ([`paired_bars`]), the line charts' legends go under them, a row a series ([`with_legend_below`]), and no two
//! lines look alike ([`look`]).
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
use plotters::element::DashedPathElement;
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
    // Each report with the file it came from, which names it where nothing else tells two apart.
    let counts: Vec<(&Path, &Report)> = args
        .files
        .iter()
        .zip(&inputs)
        .filter_map(|(path, i)| match i {
            Input::Count(r) => Some((path.as_path(), r.as_ref())),
            Input::Bench(_) => None,
        })
        .collect();
    let benches: Vec<(&Path, &BenchReport)> = args
        .files
        .iter()
        .zip(&inputs)
        .filter_map(|(path, i)| match i {
            Input::Bench(r) => Some((path.as_path(), r.as_ref())),
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
                    if let Some(why) = not_scaled(report) {
                        note!("note: {}: left out of scaling.svg: {why}", path.display());
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
    if counts
        .iter()
        .any(|(_, r)| r.results.iter().any(timed_board))
    {
        charts.push(("time-vs-n.svg", time_vs_n(&counts)?));
    }
    let swept = |swept: Swept| -> Vec<(&Path, &BenchReport)> {
        benches
            .iter()
            .copied()
            .filter(|(_, r)| scaling_rows(r, swept).len() > 1)
            .collect()
    };
    let scaled = swept(Swept::Threads);
    if !scaled.is_empty() {
        charts.push(("scaling.svg", scaling(&scaled, Swept::Threads)?));
    }
    let scored: Vec<(&Path, &BenchReport)> = benches
        .iter()
        .copied()
        .filter(|(_, r)| r.scores.is_some())
        .collect();
    if !scored.is_empty() {
        charts.push(("machines.svg", machines(&scored)?));
    }
    let on_gpus: Vec<(&Path, &BenchReport)> = benches
        .iter()
        .copied()
        .filter(|(_, r)| r.gpu_score_of_runs().is_some() && !r.scaling.is_empty())
        .collect();
    if !on_gpus.is_empty() {
        charts.push(("gpus.svg", gpus(&on_gpus)?));
    }
    let gpu_scaled = swept(Swept::Gpus);
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
    let not_json = |e: serde_json::Error| match e.classify() {
        serde_json::error::Category::Io => cannot(e.to_string()),
        _ => cannot(format!("not JSON ({e})")),
    };
    // Read as a stream of JSON values, of which a report is one: `list --format json` writes a solution a line,
    // each an array of its own, and "trailing characters at line 2 column 1" did not say that a list was given
    // for a count. The first value and whether another follows are all that is read of such a stream, so that
    // a list that never ends (a FIFO) is refused as soon as its second line.
    let mut values = serde_json::Deserializer::from_reader(std::io::BufReader::new(&mut kept))
        .into_iter::<serde_json::Value>();
    let value = match values.next() {
        Some(Ok(value)) => value,
        Some(Err(e)) => return Err(not_json(e)),
        // `nqueens count 18 -f json > r.json` that failed still left the file the shell made.
        None => {
            return Err(cannot(
                "it is empty (the command that was to write it failed, or has not written yet)"
                    .into(),
            ))
        }
    };
    let next = values.next();
    drop(values);
    let not = "not a report of `nqueens count --format json` or `nqueens bench --export-json`";
    match next {
        None => {}
        Some(Ok(serde_json::Value::Array(_))) if value.is_array() => {
            return Err(cannot(format!(
                "{not}: it is arrays, one a line (as `list` writes its solutions with --format json), where a \
                 report is one object"
            )))
        }
        Some(Err(e)) if e.classify() == serde_json::error::Category::Io => return Err(not_json(e)),
        // Anything else after a value is what a JSON document may not have: said as serde says it of the
        // document, at the first character past its value.
        Some(_) => {
            return Err(match serde_json::from_slice::<serde_json::Value>(&kept.bytes) {
                Err(e) => not_json(e),
                Ok(_) => cannot("not JSON (trailing characters after its value)".into()),
            })
        }
    }
    let other = other_json(&value);
    let input = if value.get("kind").and_then(|k| k.as_str()) == Some("bench") {
        serde_json::from_slice(&kept.bytes).map(|r| Input::Bench(Box::new(r)))
    } else {
        serde_json::from_slice(&kept.bytes).map(|r| Input::Count(Box::new(r)))
    };
    let input = input.map_err(|e| {
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
                // 0 is a merge of journals', which ran no threads and is left out of the chart (said so): a
                // count that ran took a time, and one of 0 was dropped from the chart without a word.
                if b.seconds == 0.0 && b.threads > 0 {
                    return Err(format!(
                        "results[{i}].seconds is 0, not a time a count on {} thread{} can take ({MIN_SECONDS:e} \
                         to {MAX_SECONDS:e}; 0 is for a merge of journals, whose threads are 0)",
                        b.threads,
                        if b.threads == 1 { "" } else { "s" }
                    ));
                }
                if b.seconds > 0.0 && b.seconds < MIN_SECONDS {
                    return Err(format!(
                        "results[{i}].seconds is {}, not a time a count can take ({MIN_SECONDS:e} to \
                         {MAX_SECONDS:e}, or 0 for a merge of journals)",
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
            if r.workload.n > nqueens::Board::MAX_SIDE {
                return Err(format!(
                    "workload.n is {}, beyond the largest board, {}",
                    r.workload.n,
                    nqueens::Board::MAX_SIDE
                ));
            }
            for (i, s) in r.scaling.iter().enumerate() {
                threads(format!("scaling[{i}].threads"), s.threads)?;
                // A row of 0 threads was drawn at the axis's origin, as if a benchmark had run on none.
                if s.threads == 0 {
                    return Err(format!(
                        "scaling[{i}].threads is 0, where every run has 1 thread at least"
                    ));
                }
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
            speedups_of_their_times(&r.scaling)?;
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
                    if score.threads == 0 {
                        return Err(format!(
                            "scores.{what}.threads is 0, where every run has 1 thread at least"
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// How far a row's speedup may be from the one its times make, as a part of it: bench works it out from the
/// same medians it writes, so only an edit, or a rounding by hand, makes them differ.
const SPEEDUP_TOLERANCE: f64 = 1e-3;

/// Refuses a speedup that is not the baseline's median time over its row's, as bench works it out (the baseline
/// is the row on one thread, or on one GPU): a speedup edited on its own was drawn as measured.
fn speedups_of_their_times(rows: &[nqueens::report::bench::Scaling]) -> Result<(), String> {
    let baseline = rows.iter().find(|s| s.step().workers() == 1);
    for (i, s) in rows.iter().enumerate() {
        if s.speedup.is_nan() {
            continue;
        }
        let over = nqueens::report::bench::Step {
            threads: 1,
            gpus: s.gpus.map(|_| 1),
        }
        .describe();
        let Some(baseline) = baseline else {
            return Err(format!(
                "scaling[{i}].speedup is {}, but no row of the benchmark is on {over}, which a speedup is over",
                number(s.speedup)
            ));
        };
        let made = baseline.median_seconds / s.median_seconds;
        if (s.speedup - made).abs() > SPEEDUP_TOLERANCE * made {
            return Err(format!(
                "scaling[{i}].speedup is {}, where the row's times make it {} (the median_seconds on {over}, {}, \
                 over the row's, {})",
                number(s.speedup),
                number(made),
                number(baseline.median_seconds),
                number(s.median_seconds)
            ));
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
    let written = escaped(name);
    if written.chars().count() <= MAX_NAME {
        return written;
    }
    let mut short: String = written.chars().take(MAX_NAME - 1).collect();
    short.push('…');
    short
}

/// `name` with the characters that XML does not allow in a document written escaped (`\u{1}`).
fn escaped(name: &str) -> String {
    let mut written = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_control() || matches!(c, '\u{fffe}' | '\u{ffff}') {
            written.extend(c.escape_default());
        } else {
            written.push(c);
        }
    }
    written
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
/// several runs of one machine are; any still alike then by their files ([`by_file`], `files` one for each).
fn dated(mut labels: Vec<String>, when: &[String], files: &[&Path]) -> Vec<String> {
    let same = alike(&labels);
    for ((label, same), when) in labels.iter_mut().zip(same).zip(when) {
        if same {
            *label = format!("{label}, {when}");
        }
    }
    by_file(labels, files)
}

/// `labels`, those alike to another told apart by the name of the file each came from (`files`, one for each):
/// `bench-2.json` says more than `#2` of two reports alike but for their files. Where their files' names are
/// alike too (`a/bench.json` beside `b/bench.json`), by the paths as given; and any still alike (one file named
/// twice) are numbered.
fn by_file(mut labels: Vec<String>, files: &[&Path]) -> Vec<String> {
    let same = alike(&labels);
    let named: Vec<String> = labels
        .iter()
        .zip(files)
        .map(|(label, file)| {
            let name = file.file_name().map_or_else(
                || file.display().to_string(),
                |name| name.to_string_lossy().into_owned(),
            );
            format!("{label}, {}", tail(&name))
        })
        .collect();
    let same_name = alike(&named);
    for (i, label) in labels.iter_mut().enumerate() {
        if !same[i] {
            continue;
        }
        *label = if same_name[i] {
            format!("{label}, {}", tail(&files[i].display().to_string()))
        } else {
            named[i].clone()
        };
    }
    numbered(labels)
}

/// A file's name or path as the charts write it: as [`shorten`] writes a name, but cut at its start, since
/// the end of a path (`…/xeon/bench-n18.json`) is what tells it from another.
fn tail(name: &str) -> String {
    let written: Vec<char> = escaped(name).chars().collect();
    if written.len() <= MAX_NAME {
        return written.into_iter().collect();
    }
    std::iter::once('…')
        .chain(written[written.len() - (MAX_NAME - 1)..].iter().copied())
        .collect()
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

/// What a series was made with besides its machine, each as its name says it: the kernel (`scalar kernel`),
/// the symmetry (`no symmetry`), the program's version (`nqueens 0.2.0`) and the benchmark's workload version
/// (`workload version 3`). `None` where a series has nothing to say of one (a sweep's symmetry, which its name
/// always has; a count's workload).
type Made = [Option<String>; 4];

/// What `report` was made with ([`Made`]).
fn made_of_bench(report: &BenchReport) -> Made {
    let w = &report.workload;
    [
        Some(kernel_words(std::iter::once(w.kernel.as_str()))),
        Some(nqueens::report::export::symmetry_words(&shorten(
            &w.symmetry,
        ))),
        Some(format!("nqueens {}", shorten(&report.program.version))),
        Some(match w.workload_version {
            Some(v) => format!("workload version {v}"),
            None => "no workload version".to_string(),
        }),
    ]
}

/// A kernel, or the kernels of a sweep whose boards had several, as a name says them: `avx512 kernel`, `scalar
/// and avx2 kernels`; `kernel not recorded` for a report written before it was.
fn kernel_words<'a>(kernels: impl Iterator<Item = &'a str>) -> String {
    let mut names: Vec<String> = Vec::new();
    for kernel in kernels {
        let name = if kernel.is_empty() {
            "not recorded".to_string()
        } else {
            shorten(kernel)
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    match names.as_slice() {
        [one] if one == "not recorded" => "kernel not recorded".to_string(),
        [one] => format!("{one} kernel"),
        _ => format!("{} kernels", names.join(" and ")),
    }
}

/// `labels`, each followed by the words of its series' [`Made`] (`made`, one for each) of the kinds that differ
/// among the chart's series: two benchmarks of one machine with other kernels, symmetries or builds read apart,
/// and the common case, all made alike, keeps its names short.
fn with_differences(labels: Vec<String>, made: &[Made]) -> Vec<String> {
    let differs: Vec<bool> = (0..4)
        .map(|k| {
            let mut said = made.iter().filter_map(|m| m[k].as_ref());
            said.next().is_some_and(|first| said.any(|w| w != first))
        })
        .collect();
    labels
        .into_iter()
        .zip(made)
        .map(|(mut label, made)| {
            for (words, _) in made.iter().zip(&differs).filter(|(_, d)| **d) {
                if let Some(words) = words {
                    label.push_str(", ");
                    label.push_str(words);
                }
            }
            label
        })
        .collect()
}

/// The ten colours of the charts (matplotlib's), which read apart.
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

/// The `i`th of the colours, then again: for the two kinds of bar.
fn color(i: usize) -> RGBColor {
    COLORS[i % COLORS.len()]
}

/// How a series' line is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dash {
    Solid,
    Dashed,
    Dotted,
    Long,
}

impl Dash {
    const ALL: [Dash; 4] = [Dash::Solid, Dash::Dashed, Dash::Dotted, Dash::Long];

    /// Its dashes and the gaps between them, in pixels: `None` for a whole line.
    fn pattern(self) -> Option<(i32, i32)> {
        match self {
            Dash::Solid => None,
            Dash::Dashed => Some((8, 5)),
            Dash::Dotted => Some((2, 4)),
            Dash::Long => Some((18, 6)),
        }
    }
}

/// The shape of a series' points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Circle,
    Square,
    Triangle,
    Diamond,
}

/// How a series of a chart of lines is drawn, and its legend's key with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Look {
    color: RGBColor,
    dash: Dash,
    shape: Shape,
    /// Whether its points are filled, or white within their outline.
    filled: bool,
}

/// The `i`th series' look. Ten colours do not tell apart more than ten lines: the 11th had the 1st's, and
/// nothing else told them apart. So the first ten are whole lines with round points, and each further ten, a
/// round, take the colours again with another dash and another marker: round `r` has dash `r mod 4` and
/// marker `(5 ⌊r/4⌋ + r) mod 8` (four shapes, filled then hollow), a pair of its own for each of 32 rounds.
/// No two of 320 series look alike (a legend of them would be 6,400 pixels high); past that the looks come
/// round again, their names still each their own.
fn look(i: usize) -> Look {
    let round = i / COLORS.len();
    let marker = (5 * (round / 4) + round % 4) % 8;
    const SHAPES: [Shape; 4] = [
        Shape::Circle,
        Shape::Square,
        Shape::Triangle,
        Shape::Diamond,
    ];
    Look {
        color: color(i),
        dash: Dash::ALL[round % Dash::ALL.len()],
        shape: SHAPES[marker % 4],
        filled: marker < 4,
    }
}

/// Draws a line through `points`, pixels of `area`, as `look` has it. In pixels rather than a chart's
/// coordinates, so that a line's dashes are as long on a log scale as on another, and its legend's key draws
/// the same.
fn draw_line(
    area: &DrawingArea<SVGBackend, Shift>,
    points: &[(i32, i32)],
    look: Look,
) -> anyhow::Result<()> {
    let style = look.color.stroke_width(2);
    match look.dash.pattern() {
        None => area.draw(&PathElement::new(points.to_vec(), style))?,
        Some((on, off)) => area.draw(&DashedPathElement::new(
            points.iter().copied(),
            on,
            off,
            style,
        ))?,
    }
    Ok(())
}

/// Draws a point of a series at `at`, a pixel of `area`, `radius` pixels across from its middle.
fn draw_marker(
    area: &DrawingArea<SVGBackend, Shift>,
    (x, y): (i32, i32),
    radius: i32,
    look: Look,
) -> anyhow::Result<()> {
    // A hollow marker is a size larger, so that its white shows within its outline.
    let r = if look.filled { radius } else { radius + 1 };
    let fill = if look.filled {
        look.color.filled()
    } else {
        WHITE.filled()
    };
    let outline = look.color.stroke_width(2);
    // A triangle and a diamond reach further than a circle of the same radius to look as large.
    let corners = match look.shape {
        Shape::Triangle => vec![(x, y - r - 1), (x + r + 1, y + r), (x - r - 1, y + r)],
        Shape::Diamond => vec![
            (x, y - r - 1),
            (x + r + 1, y),
            (x, y + r + 1),
            (x - r - 1, y),
        ],
        Shape::Circle | Shape::Square => Vec::new(),
    };
    match look.shape {
        Shape::Circle => {
            area.draw(&Circle::new((x, y), r, fill))?;
            if !look.filled {
                area.draw(&Circle::new((x, y), r, outline))?;
            }
        }
        Shape::Square => {
            let corners = [(x - r, y - r), (x + r, y + r)];
            area.draw(&Rectangle::new(corners, fill))?;
            if !look.filled {
                area.draw(&Rectangle::new(corners, outline))?;
            }
        }
        Shape::Triangle | Shape::Diamond => {
            area.draw(&Polygon::new(corners.clone(), fill))?;
            if !look.filled {
                let mut closed = corners.clone();
                closed.push(corners[0]);
                area.draw(&PathElement::new(closed, outline))?;
            }
        }
    }
    Ok(())
}

/// Draws a series: its line through `points`, pixels of `area`, and a marker on each.
fn draw_series(
    area: &DrawingArea<SVGBackend, Shift>,
    points: &[(i32, i32)],
    radius: i32,
    look: Look,
) -> anyhow::Result<()> {
    draw_line(area, points, look)?;
    for &point in points {
        draw_marker(area, point, radius, look)?;
    }
    Ok(())
}

/// How a legend shows a series: a line as the series' [`Look`] draws it, the dashed ideal's grey, a bar's colour.
#[derive(Clone, Copy)]
enum Key {
    Line(Look),
    Ideal,
    Bar(RGBColor),
}

/// A legend's row, in pixels.
const LEGEND_ROW: u32 = 20;

/// The length of a legend's line, in pixels: room for its dashes to show (the long ones, 18 pixels, once
/// whole) and a marker in its middle. Its name starts 10 pixels after it.
const KEY_LINE: i32 = 30;

/// The dashes of the ideal line and the gaps between them, in pixels: thinner and grey, so that no series'
/// dashes are taken for it.
const IDEAL_DASH: (i32, i32) = (6, 4);

/// How tall a legend of `entries` is, the margin under it included.
fn legend_height(entries: usize) -> u32 {
    LEGEND_ROW
        .saturating_mul(u32::try_from(entries).unwrap_or(u32::MAX))
        .saturating_add(MARGIN)
}

/// How wide a legend of `entries` is: its keys and its longest name.
fn legend_width(entries: &[(String, Key)]) -> u32 {
    let widest = entries.iter().map(|(name, _)| text_width(name, FONT));
    widest
        .max()
        .unwrap_or(0)
        .saturating_add(KEY_LINE as u32 + 10)
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
        // A line's key is drawn as its series is, a marker on a piece of its line; a bar's is its square.
        match *key {
            Key::Line(look) => {
                draw_line(area, &[(left, y), (left + KEY_LINE, y)], look)?;
                draw_marker(area, (left + KEY_LINE / 2, y), 3, look)?;
            }
            Key::Ideal => area.draw(&DashedPathElement::new(
                [(left, y), (left + KEY_LINE, y)],
                IDEAL_DASH.0,
                IDEAL_DASH.1,
                BLACK.mix(0.6),
            ))?,
            Key::Bar(c) => area.draw(&Rectangle::new(
                [(left + 2, y - 5), (left + 17, y + 5)],
                c.filled(),
            ))?,
        }
        area.draw(&Text::new(
            name.as_str(),
            (left + KEY_LINE + 10, y),
            style.clone(),
        ))?;
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
    /// The file it came from.
    file: &'a Path,
    symmetry: &'a str,
    /// Whether the results were counted on a GPU.
    gpu: Option<&'a str>,
    /// The kernels of its boards, in the order counted.
    kernels: Vec<&'a str>,
    points: Vec<(u32, f64)>,
}

impl Sweep<'_> {
    /// The sweeps of `reports`: for each report, its timed boards of each symmetry, sorted by n (a sweep given
    /// as `count 13 10 12` is drawn 10, 12, 13, not back and forth).
    fn of<'a>(reports: &[(&'a Path, &'a Report)]) -> Vec<Sweep<'a>> {
        let mut sweeps: Vec<Sweep<'a>> = Vec::new();
        for &(file, report) in reports {
            let first = sweeps.len();
            for b in report.results.iter().filter(|b| timed_board(b)) {
                let gpu = b.gpu.as_ref().map(|g| g.device.as_str());
                let point = (b.n, b.seconds);
                match sweeps[first..]
                    .iter_mut()
                    .find(|s| s.symmetry == b.symmetry && s.gpu == gpu)
                {
                    Some(sweep) => {
                        sweep.points.push(point);
                        sweep.kernels.push(&b.kernel);
                    }
                    None => sweeps.push(Sweep {
                        report,
                        file,
                        symmetry: &b.symmetry,
                        gpu,
                        kernels: vec![&b.kernel],
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
        format!(
            "{counted_on}, {}",
            nqueens::report::export::symmetry_words(&shorten(self.symmetry))
        )
    }

    /// What it was made with ([`Made`]): its symmetry is in its name already, a count has no workload, and a
    /// sweep on a GPU is named by its GPU, whose kernel is the GPU's.
    fn made(&self) -> Made {
        [
            self.gpu
                .is_none()
                .then(|| kernel_words(self.kernels.iter().copied())),
            None,
            Some(format!("nqueens {}", shorten(&self.report.program.version))),
            None,
        ]
    }
}

/// Seconds against n, log scale, one line per count report and symmetry.
fn time_vs_n(reports: &[(&Path, &Report)]) -> anyhow::Result<String> {
    let sweeps = Sweep::of(reports);
    let made: Vec<Made> = sweeps.iter().map(Sweep::made).collect();
    let labels = with_differences(sweeps.iter().map(Sweep::label).collect(), &made);
    // Two sweeps of one machine alike (several runs of it) are told apart by when each was made.
    let times: Vec<String> = sweeps.iter().map(|s| when(&s.report.timestamp)).collect();
    let files: Vec<&Path> = sweeps.iter().map(|s| s.file).collect();
    let labels = dated(labels, &times, &files);
    let entries: Vec<(String, Key)> = labels
        .into_iter()
        .enumerate()
        .map(|(i, label)| (label, Key::Line(look(i))))
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
            let points: Vec<(i32, i32)> = sweep
                .points
                .iter()
                .map(|p| chart.backend_coord(p))
                .collect();
            draw_series(area, &points, 3, look(i))?;
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

/// The points of `report`'s line on the chart of `swept`: each row's threads (or GPUs) and speedup, where it
/// has one (not a GPU benchmark's written before the sweep, with no run on one GPU).
fn scaling_rows(report: &BenchReport, swept: Swept) -> Vec<(f64, f64)> {
    report
        .scaling
        .iter()
        .filter(|s| s.gpus.is_some() == (swept == Swept::Gpus) && s.speedup.is_finite())
        .map(|s| (s.step().workers() as f64, s.speedup))
        .collect()
}

/// Why a benchmark of the processor has no line on `scaling.svg`, if it has none: a line needs a row beside
/// its baseline. (A GPU benchmark's charts are `gpus.svg`, and `gpu-scaling.svg` where it ran on several.)
fn not_scaled(report: &BenchReport) -> Option<String> {
    if report.workload.gpu.is_some() || scaling_rows(report, Swept::Threads).len() > 1 {
        return None;
    }
    let rows: Vec<usize> = report
        .scaling
        .iter()
        .filter(|s| s.gpus.is_none())
        .map(|s| s.threads)
        .collect();
    Some(match rows.as_slice() {
        [] => "it has no timed runs".to_string(),
        [1] => "its timed runs are all on 1 thread (as `bench --threads 1` has them), so it has no speedup to \
                draw"
            .to_string(),
        _ => "it has no timed runs on 1 thread, which a speedup is over".to_string(),
    })
}

/// How far above the largest measured speedup a scaling chart reaches, as a part of it.
const HEADROOM: f64 = 0.1;

/// A speedup as the axis writes it: whole numbers without decimals (`500`, not `500.0`), others with the two
/// at most that plotters' steps of 1, 2 and 5 need (`1.5`, `0.25`).
fn speedup_label(x: f64) -> String {
    let text = format!("{x:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Speedup against threads (or GPUs), one line per benchmark, and the ideal line.
///
/// The axis of speedups reaches the largest measured one, with room, not the ideal's end: beside a benchmark
/// of `--threads 4096` it reached 4096, and every speedup measured was drawn in the bottom pixels. The ideal
/// line stops where it leaves the chart.
fn scaling(reports: &[(&Path, &BenchReport)], swept: Swept) -> anyhow::Result<String> {
    let rows = |r: &BenchReport| scaling_rows(r, swept);
    let max_workers = reports
        .iter()
        .flat_map(|(_, r)| rows(r))
        .map(|(x, _)| x)
        .fold(1.0, f64::max);
    let max_speedup = reports
        .iter()
        .flat_map(|(_, r)| rows(r))
        .map(|(_, s)| s)
        .fold(1.0, f64::max);
    let (what, one) = match swept {
        Swept::Threads => ("Thread", "1 thread"),
        Swept::Gpus => ("GPU", "1 GPU"),
    };
    // The start time tells apart several benchmarks of one machine; a GPU benchmark is named by its GPUs.
    let labels: Vec<String> = reports
        .iter()
        .map(|(_, report)| {
            format!(
                "{}, n = {}",
                match (swept, &report.workload.gpu) {
                    (Swept::Gpus, Some(gpus)) => shorten(gpus),
                    _ => machine_label(&report.machine),
                },
                report.workload.n,
            )
        })
        .collect();
    let made: Vec<Made> = reports.iter().map(|(_, r)| made_of_bench(r)).collect();
    let labels = with_differences(labels, &made)
        .into_iter()
        .zip(reports)
        .map(|(label, (_, report))| format!("{label}, {}", when(&report.timestamp)))
        .collect();
    let files: Vec<&Path> = reports.iter().map(|(file, _)| *file).collect();
    let ideal = format!("ideal (speedup = {})", swept.plural());
    let entries: Vec<(String, Key)> = std::iter::once((ideal, Key::Ideal))
        .chain(
            by_file(labels, &files)
                .into_iter()
                .enumerate()
                .map(|(i, label)| (label, Key::Line(look(i)))),
        )
        .collect();
    let y_top = max_speedup * (1.0 + HEADROOM);
    // The widest label is the top's, with two decimals at most.
    let y_labels = y_label_room(50, &[format!("{y_top:.2}")]);
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
            .y_label_formatter(&|&y| speedup_label(y))
            .y_desc(format!("speedup over {one}"))
            .draw()?;
        let end = max_workers.min(y_top);
        chart.draw_series(DashedLineSeries::new(
            [(0.0, 0.0), (end, end)],
            IDEAL_DASH.0,
            IDEAL_DASH.1,
            BLACK.mix(0.6).stroke_width(1),
        ))?;
        for (i, (_, report)) in reports.iter().enumerate() {
            let points: Vec<(i32, i32)> = rows(report)
                .iter()
                .map(|p| chart.backend_coord(p))
                .collect();
            draw_series(area, &points, 4, look(i))?;
        }
        Ok(())
    })
}

/// Each benchmark's single-thread and multi-thread scores as a pair of bars.
fn machines(reports: &[(&Path, &BenchReport)]) -> anyhow::Result<String> {
    let plural = |threads: usize| if threads == 1 { "" } else { "s" };
    let scored: Vec<(&Path, &BenchReport, &nqueens::report::bench::Scores)> = reports
        .iter()
        .filter_map(|&(file, r)| Some((file, r, r.scores.as_ref()?)))
        .collect();
    let labels = scored
        .iter()
        .map(|(_, r, _)| format!("{} (n = {})", machine_label(&r.machine), r.workload.n))
        .collect();
    let made: Vec<Made> = scored.iter().map(|(_, r, _)| made_of_bench(r)).collect();
    let pairs: Vec<Pair> = with_differences(labels, &made)
        .into_iter()
        .zip(&scored)
        .map(|(label, &(file, r, s))| {
            let threads = s.multi_thread.threads;
            Pair {
                label,
                when: when(&r.timestamp),
                file,
                left: s.single_thread.solutions_per_second,
                right: s.multi_thread.solutions_per_second,
                right_note: format!(" ({threads} thread{})", plural(threads)),
            }
        })
        .collect();
    paired_bars(&pairs, "Scores", ("1 thread", "all threads"))
}

/// Each GPU benchmark's rate as a pair of bars: over the whole runs' time (the host's plan, cut and copies
/// included), and over the GPUs' own (their kernels).
fn gpus(reports: &[(&Path, &BenchReport)]) -> anyhow::Result<String> {
    let rated: Vec<(&Path, &BenchReport, GpuRates)> = reports
        .iter()
        .filter_map(|&(file, r)| {
            let gpu = r.gpu_score_of_runs()?;
            let whole = r.scaling.last()?;
            Some((
                file,
                r,
                GpuRates {
                    gpus: gpu.gpus,
                    whole: whole.solutions_per_second,
                    own: gpu.solutions_per_second,
                },
            ))
        })
        .collect();
    let labels = rated
        .iter()
        .map(|(_, r, rates)| format!("{} (n = {})", shorten(&rates.gpus), r.workload.n))
        .collect();
    let made: Vec<Made> = rated.iter().map(|(_, r, _)| made_of_bench(r)).collect();
    let pairs: Vec<Pair> = with_differences(labels, &made)
        .into_iter()
        .zip(&rated)
        .map(|(label, (file, r, rates))| Pair {
            label,
            when: when(&r.timestamp),
            file,
            left: rates.whole,
            right: rates.own,
            right_note: String::new(),
        })
        .collect();
    paired_bars(&pairs, "GPUs", ("the whole run", "the GPUs' own time"))
}

/// A GPU benchmark's GPUs and its rates, in solutions per second: over its whole runs, and over its kernels.
struct GpuRates {
    gpus: String,
    whole: f64,
    own: f64,
}

/// Two bars for each of some benchmarks, named beside them.
struct Pair<'a> {
    label: String,
    /// When its report was made: it tells apart two benchmarks of one label.
    when: String,
    /// The file it came from: it tells apart two benchmarks of one label and time.
    file: &'a Path,
    /// Solutions per second.
    left: f64,
    right: f64,
    /// Written after the right bar's value.
    right_note: String,
}

/// The unit of a chart of rates, chosen from its largest: the scale and its name (`million `), so that its
/// values read with two decimals whatever the boards were. Millions for all wrote a small board's `0.00`.
fn rate_unit(largest: f64) -> (f64, &'static str) {
    const UNITS: [(f64, &str); 4] = [
        (1e12, "trillion "),
        (1e9, "billion "),
        (1e6, "million "),
        (1e3, "thousand "),
    ];
    UNITS
        .into_iter()
        .find(|&(scale, _)| largest >= scale)
        .unwrap_or((1.0, ""))
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
fn paired_bars(pairs: &[Pair], what: &str, legends: (&str, &str)) -> anyhow::Result<String> {
    let whens: Vec<String> = pairs.iter().map(|p| p.when.clone()).collect();
    let files: Vec<&Path> = pairs.iter().map(|p| p.file).collect();
    let names = dated(
        pairs.iter().map(|p| p.label.clone()).collect(),
        &whens,
        &files,
    );
    let largest = pairs
        .iter()
        .map(|p| p.left.max(p.right))
        .fold(0.0, f64::max);
    let (scale, unit) = rate_unit(largest);
    let caption = format!("{what}: {unit}solutions per second");
    let x_desc = format!("{unit}solutions/s");
    let values: Vec<[(f64, String); 2]> = pairs
        .iter()
        .map(|p| {
            let (left, right) = (p.left / scale, p.right / scale);
            [
                (left, format!("{left:.2}")),
                (right, format!("{right:.2}{}", p.right_note)),
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
            values
                .iter()
                .enumerate()
                .map(|(i, [(left, _), _])| bar(i, LEFT, *left, one)),
        )?;
        chart.draw_series(
            values
                .iter()
                .enumerate()
                .map(|(i, [_, (right, _)])| bar(i, RIGHT, *right, two)),
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
    fn labels_alike_are_dated_then_named_by_their_files_then_numbered_until_each_is_its_own() {
        let when = strings(&["t1", "t2", "t2", "t2", "t2", "t2", "t3"]);
        let files = [
            "a/x.json", "a/y.json", "a/z.json", "b/z.json", "b/w.json", "b/w.json", "c.json",
        ]
        .map(Path::new);
        assert_eq!(
            dated(strings(&["A", "A", "A", "A", "A", "A", "B"]), &when, &files),
            [
                "A, t1",
                "A, t2, y.json",
                "A, t2, a/z.json",
                "A, t2, b/z.json",
                "A, t2, b/w.json #1",
                "A, t2, b/w.json #2",
                "B"
            ]
        );
        // A path too long to write whole keeps its end, which tells it from another.
        let long = format!("{}/bench.json", "d".repeat(100));
        let kept = tail(&long);
        assert_eq!(kept.chars().count(), MAX_NAME);
        assert!(
            kept.starts_with('…') && kept.ends_with("d/bench.json"),
            "{kept}"
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
    fn only_what_differs_among_a_charts_series_is_added_to_their_names() {
        let made = |kernel: &str, version: &str| -> Made {
            [
                Some(format!("{kernel} kernel")),
                Some("full symmetry".to_string()),
                Some(format!("nqueens {version}")),
                None,
            ]
        };
        let labels = strings(&["A", "A", "B"]);
        assert_eq!(
            with_differences(
                labels.clone(),
                &[
                    made("scalar", "0.3.1"),
                    made("avx2", "0.3.1"),
                    made("avx2", "0.3.1")
                ]
            ),
            ["A, scalar kernel", "A, avx2 kernel", "B, avx2 kernel"]
        );
        // All made alike: the names stay as short as they were.
        assert_eq!(
            with_differences(
                labels,
                &[
                    made("avx2", "0.3.1"),
                    made("avx2", "0.3.1"),
                    made("avx2", "0.3.1")
                ]
            ),
            ["A", "A", "B"]
        );
        assert_eq!(
            kernel_words(["avx2", "scalar", "avx2"].into_iter()),
            "avx2 and scalar kernels"
        );
        assert_eq!(kernel_words(std::iter::once("")), "kernel not recorded");
    }

    #[test]
    fn no_two_of_320_series_look_alike() {
        let looks: Vec<Look> = (0..320).map(look).collect();
        for (i, a) in looks.iter().enumerate() {
            assert!(!looks[i + 1..].contains(a), "series {i}: {a:?}");
        }
        // The 11th takes the 1st's colour, with another dash and another marker.
        assert_eq!(look(10).color, look(0).color);
        assert_ne!(look(10).dash, look(0).dash);
        assert_ne!(look(10).shape, look(0).shape);
    }

    #[test]
    fn rates_are_written_in_the_unit_of_their_largest() {
        assert_eq!(rate_unit(140_931.0), (1e3, "thousand "));
        assert_eq!(rate_unit(8.78e7), (1e6, "million "));
        assert_eq!(rate_unit(1.2e9), (1e9, "billion "));
        assert_eq!(rate_unit(3.2e16), (1e12, "trillion "));
        assert_eq!(rate_unit(12.0), (1.0, ""));
        assert_eq!(speedup_label(500.0), "500");
        assert_eq!(speedup_label(1.5), "1.5");
        assert_eq!(speedup_label(0.25), "0.25");
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
