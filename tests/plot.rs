//! `nqueens plot`: real SVG files from real count and bench JSON, and refusals of files it cannot plot.

mod common;

use common::nqueens;
use predicates::prelude::*;
use predicates::str::contains;
use std::path::{Path, PathBuf};

/// The texts of an SVG document, after checking that it parses as XML with an `<svg>` root.
fn svg_texts(path: &Path) -> (Vec<String>, roxmltree::Document<'static>) {
    let text: &'static str = Box::leak(std::fs::read_to_string(path).unwrap().into_boxed_str());
    let doc = roxmltree::Document::parse(text)
        .unwrap_or_else(|e| panic!("{} is not XML: {e}", path.display()));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect();
    (texts, doc)
}

/// A count report of `sizes` and a bench report of board `bench_n` on 2 threads (its clock faked), written in
/// `dir` as `count.json` and `bench.json`.
fn count_and_bench_reports(dir: &Path, sizes: &str, bench_n: &str) -> (PathBuf, PathBuf) {
    let count = dir.join("count.json");
    let bench = dir.join("bench.json");
    nqueens()
        .args(["count", sizes, "--format", "json", "-o"])
        .arg(&count)
        .assert()
        .success();
    nqueens()
        .args(["bench", "--n", bench_n, "--runs", "1", "--threads", "2"])
        .env("NQUEENS_TEST_FAKE_CLOCK", "1")
        .args(["--export-json"])
        .arg(&bench)
        .assert()
        .success();
    (count, bench)
}

#[test]
fn plot_draws_time_scaling_and_machines_from_count_and_bench_files() {
    let dir = tempfile::tempdir().unwrap();
    let (count, bench) = count_and_bench_reports(dir.path(), "6..11", "10");
    let out = dir.path().join("plots");
    nqueens()
        .arg("plot")
        .arg(&count)
        .arg(&bench)
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::is_empty())
        .stderr(contains("time-vs-n.svg"));

    let (texts, doc) = svg_texts(&out.join("time-vs-n.svg"));
    assert!(texts.iter().any(|t| t == "Time to count all solutions"));
    assert!(
        texts.iter().any(|t| t.contains("full symmetry")),
        "{texts:?}"
    );
    for n in 6..=11 {
        assert!(
            texts.contains(&n.to_string()),
            "n = {n} on the axis: {texts:?}"
        );
    }
    let lines = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .count();
    assert!(lines >= 1, "the series is drawn");
    let dots = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count();
    assert_eq!(dots, 7, "one point per board, and one on the legend's key");

    let (texts, _) = svg_texts(&out.join("scaling.svg"));
    assert!(texts.iter().any(|t| t.starts_with("ideal")));
    assert!(texts
        .iter()
        .any(|t| t.contains("Example @ 3.00GHz, 4 cores") && t.contains("n = 10")));

    let (texts, _) = svg_texts(&out.join("machines.svg"));
    assert!(texts.iter().any(|t| t == "1 thread") && texts.iter().any(|t| t == "all threads"));
    assert!(texts.iter().any(|t| t.contains("(2 threads)")));
}

/// The points of the time chart's lines, as SVG writes them: each `polyline`'s `points`, its (x, y) pairs.
fn lines(doc: &roxmltree::Document) -> Vec<Vec<(f64, f64)>> {
    doc.descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke-width") == Some("2"))
        .filter_map(|n| n.attribute("points"))
        .map(|points| {
            points
                .split_whitespace()
                .map(|pair| {
                    let (x, y) = pair.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect::<Vec<(f64, f64)>>()
        })
        // The legend's sample of each line, two points 30 wide, is not a sweep.
        .filter(|points| !(points.len() == 2 && (points[1].0 - points[0].0 - 30.0).abs() < 0.5))
        .collect()
}

#[test]
fn a_sweep_is_drawn_in_the_order_of_n_without_its_rectangles_and_one_board_has_its_seconds() {
    // `count 13 10 12 10 8x6`: one line, n = 10, 10, 12, 13 from left to right (not back and forth), and no
    // point for the rectangle, which has no place on an axis of n.
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("count.json");
    nqueens()
        .args([
            "count", "13", "10", "12", "10", "8x6", "--format", "json", "-q", "-o",
        ])
        .arg(&report)
        .assert()
        .success();
    let out = dir.path().join("charts");
    plot(std::slice::from_ref(&report), &out);
    let (texts, doc) = svg_texts(&out.join("time-vs-n.svg"));
    let drawn = lines(&doc);
    assert_eq!(drawn.len(), 1, "{drawn:?}");
    let xs: Vec<f64> = drawn[0].iter().map(|p| p.0).collect();
    assert_eq!(xs.len(), 4, "{xs:?}");
    assert!(xs.windows(2).all(|w| w[0] <= w[1]), "{xs:?}");
    assert!(
        texts.iter().any(|t| t.ends_with("full symmetry")),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|t| t.contains("mirror")), "{texts:?}");
    // One board: its seconds' axis has a label all the same (a decade either side), and n = 10 is not on
    // the chart's edge.
    let one = dir.path().join("one.json");
    nqueens()
        .args(["count", "10", "--format", "json", "-q", "-o"])
        .arg(&one)
        .assert()
        .success();
    let out = dir.path().join("one");
    plot(std::slice::from_ref(&one), &out);
    let (texts, _) = svg_texts(&out.join("time-vs-n.svg"));
    let seconds: Vec<&String> = texts
        .iter()
        .filter(|t| t.parse::<f64>().is_ok_and(|v| v < 1.0 || t.contains('.')))
        .collect();
    assert!(!seconds.is_empty(), "no label of seconds: {texts:?}");
    for n in ["9", "10", "11"] {
        assert!(texts.iter().any(|t| t == n), "{n}: {texts:?}");
    }
}

#[test]
fn a_benchmark_of_one_thread_draws_no_scaling() {
    // Its one row is its own baseline: no line to draw (a dot with a legend of its own, before).
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench.json");
    nqueens()
        .args([
            "bench",
            "--n",
            "8",
            "--runs",
            "1",
            "--threads",
            "1",
            "--export-json",
        ])
        .arg(&bench)
        .env("NQUEENS_TEST_FAKE_CLOCK", "1")
        .assert()
        .success();
    let out = dir.path().join("charts");
    // Left out of scaling.svg, and said so, as a count's boards left out of time-vs-n.svg are.
    nqueens()
        .arg("plot")
        .arg(&bench)
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stderr(contains(format!(
            "note: {}: left out of scaling.svg: its timed runs are all on 1 thread (as `bench --threads 1` \
             has them), so it has no speedup to draw\n",
            bench.display()
        )));
    assert!(!out.join("scaling.svg").exists());
    assert!(out.join("machines.svg").exists());
    nqueens()
        .arg("plot")
        .arg(&bench)
        .arg("-o")
        .arg(&out)
        .arg("--quiet")
        .assert()
        .success()
        .stderr("");
}

#[test]
fn several_machines_go_on_the_same_chart() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, threads) in ["1", "2"].iter().enumerate() {
        let path = dir.path().join(format!("sweep-{i}.json"));
        nqueens()
            .args(["count", "8..10", "--format", "json", "-t", threads, "-o"])
            .arg(&path)
            .assert()
            .success();
        files.push(path);
    }
    nqueens()
        .arg("plot")
        .args(&files)
        .arg("-o")
        .arg(dir.path())
        .arg("--quiet")
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
    let (texts, _) = svg_texts(&dir.path().join("time-vs-n.svg"));
    assert!(texts.iter().any(|t| t.contains("1 thread,")));
    assert!(texts.iter().any(|t| t.contains("2 threads,")));
    assert!(
        !dir.path().join("scaling.svg").exists(),
        "no bench file, no scaling chart"
    );
}

#[test]
fn files_that_cannot_be_plotted_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let not_json = dir.path().join("notes.txt");
    std::fs::write(&not_json, "hello").unwrap();
    let other_json = dir.path().join("other.json");
    std::fs::write(&other_json, r#"{"name": "something else"}"#).unwrap();
    // What a shell's `> r.json` leaves of a command that failed.
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "\n").unwrap();
    // Two reports one after the other (`cat a.json b.json`): not one document.
    let two = dir.path().join("two.json");
    std::fs::write(&two, "{\"a\": 1}\n{\"b\": 2}\n").unwrap();
    for (file, message) in [
        (two, "not JSON (trailing characters at line 2 column 1)"),
        (dir.path().join("missing.json"), "cannot plot"),
        (not_json, "not JSON"),
        (
            empty,
            "it is empty (the command that was to write it failed, or has not written yet)",
        ),
        (other_json, "not a report of `nqueens count"),
        // Devices that never end: refused at their first byte, not read until memory runs out.
        (PathBuf::from("/dev/zero"), "not JSON"),
        (PathBuf::from("/dev/urandom"), "not JSON"),
    ] {
        nqueens()
            .arg("plot")
            .arg(&file)
            .arg("-o")
            .arg(dir.path().join("out"))
            .timeout(std::time::Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(contains(message));
    }
    assert!(!dir.path().join("out").exists(), "nothing written");
    nqueens()
        .arg("plot")
        .assert()
        .code(2)
        .stderr(contains("FILE.json"));
}

#[test]
fn a_folder_that_cannot_take_the_charts_is_refused_before_any_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (count, bench) = count_and_bench_reports(dir.path(), "6..9", "8");
    // `-o` names a file, not a folder: a usage error (exit 2), and the file is left as it was.
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "notes\n").unwrap();
    for not_a_folder in [file.as_path(), Path::new("/dev/null")] {
        nqueens()
            .arg("plot")
            .arg(&count)
            .arg("-o")
            .arg(not_a_folder)
            .assert()
            .code(2)
            .stderr(contains("it is not a folder"));
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "notes\n");
    // `-o chart.svg`, as `-o` names a file elsewhere: refused, rather than made a folder of that name.
    let chart = dir.path().join("chart.svg");
    plot_refused(&count, &chart).stderr(contains(
        "-o names the folder the charts go to (time-vs-n.svg)",
    ));
    assert!(!chart.exists());
    // One chart's file cannot be written (a folder has its name): none is written, not the first ones.
    let out = dir.path().join("plots");
    std::fs::create_dir_all(out.join("scaling.svg")).unwrap();
    nqueens()
        .arg("plot")
        .arg(&count)
        .arg(&bench)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(contains("scaling.svg").and(contains("wrote").not()));
    let names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["scaling.svg"]);
    // Nothing to plot: the folder is not made either.
    let mut report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&count).unwrap()).unwrap();
    report["results"] = serde_json::json!([]);
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, report.to_string()).unwrap();
    plot_refused(&empty, &dir.path().join("new")).stderr(contains("nothing to plot"));
    assert!(!dir.path().join("new").exists());
}

#[test]
fn the_readme_plot_of_every_results_file_draws_the_charts() {
    // `nqueens plot results/*/*.json -o plots`, as the README has it: results/h100 holds a GPU benchmark,
    // whose speedup (no one-thread run to compare with) its JSON writes as null.
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&results)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.iter().any(|p| p.ends_with("h100/bench-gpu-n19.json")));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("plots");
    nqueens()
        .arg("plot")
        .args(&files)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    // Each of them with every name where it can be read: results/ holds nine benchmarks, four of one machine
    // and n.
    for chart in ["time-vs-n.svg", "scaling.svg", "machines.svg", "gpus.svg"] {
        assert_readable(&out.join(chart));
    }
    // Every sweep has a legend of its own: several runs of one machine alike are told apart by what they were
    // made with, and by when each was made.
    let (texts, _) = svg_texts(&out.join("time-vs-n.svg"));
    let legends: Vec<&String> = texts.iter().filter(|t| t.contains(" symmetry")).collect();
    assert!(legends.len() >= 6, "{texts:?}");
    for legend in &legends {
        assert_eq!(
            legends.iter().filter(|l| l == &legend).count(),
            1,
            "{legend}: {legends:?}"
        );
    }
    assert!(!texts.iter().any(|t| t.contains(" 1 cores")), "{texts:?}");
    // The GPU benchmark alone draws the GPUs' chart, and only that: its rate over the whole runs and over the
    // GPU's own time (the timed runs' median: 1.197 G solutions/s over the whole run, 1.52 G over 3.26 s
    // of kernels).
    let alone = dir.path().join("gpu");
    nqueens()
        .arg("plot")
        .arg(results.join("h100/bench-gpu-n19.json"))
        .arg("-o")
        .arg(&alone)
        .assert()
        .success()
        .stderr(contains("gpus.svg"));
    let names: Vec<_> = std::fs::read_dir(&alone)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["gpus.svg"]);
    let (texts, _) = svg_texts(&alone.join("gpus.svg"));
    for text in [
        "GPUs: billion solutions per second",
        "NVIDIA H100 80GB HBM3 (n = 19)",
        "the whole run",
        "the GPUs' own time",
        "1.20",
        "1.52",
    ] {
        assert!(texts.iter().any(|t| t == text), "{text}: {texts:?}");
    }
}

#[test]
fn a_gpu_sweep_is_named_by_its_gpu_and_a_gpu_benchmark_with_impossible_times_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (count, _) = count_and_bench_reports(dir.path(), "8..10", "8");
    // The same sweep, as if counted on a GPU: named by the GPU, not by the CPU's threads that cut its tasks.
    let mut report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&count).unwrap()).unwrap();
    for result in report["results"].as_array_mut().unwrap() {
        result["gpu"] = serde_json::json!({
            "device": "Example GPU", "kernel_seconds": 0.001, "tasks": 10, "extra_rows": 2
        });
    }
    let on_gpu = dir.path().join("on-gpu.json");
    std::fs::write(&on_gpu, report.to_string()).unwrap();
    let out = dir.path().join("plots");
    plot(std::slice::from_ref(&on_gpu), &out);
    let (texts, _) = svg_texts(&out.join("time-vs-n.svg"));
    assert!(
        texts.contains(&"Example GPU (GPU), full symmetry".to_string()),
        "{texts:?}"
    );
    // A GPU benchmark whose kernels took no time that a run can take: refused, with the field named.
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let mut bench: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(results.join("h100/bench-gpu-n19.json")).unwrap(),
    )
    .unwrap();
    bench["runs"][2]["gpu_seconds"] = serde_json::json!(-1.0);
    let wrong = dir.path().join("wrong.json");
    std::fs::write(&wrong, bench.to_string()).unwrap();
    plot_refused(&wrong, &dir.path().join("none")).stderr(contains("runs[2].gpu_seconds is -1"));
    assert!(!dir.path().join("none").exists());
    // Kernels of 1e-300 s: a time, but the GPUs' rate it makes is endless, and an axis that reaches it never
    // gets its labels (plot ran on, drawing nothing). Refused as such.
    for run in bench["runs"].as_array_mut().unwrap() {
        run["gpu_seconds"] = serde_json::json!(1e-300);
    }
    std::fs::write(&wrong, bench.to_string()).unwrap();
    plot_refused(&wrong, &dir.path().join("none")).stderr(contains(
        "the GPUs' solutions per second over the runs' gpu_seconds is inf",
    ));
    assert!(!dir.path().join("none").exists());
}

#[test]
fn a_gpu_benchmark_on_several_gpus_draws_their_scaling_and_not_the_threads() {
    // The H100's benchmark, as if it had timed 1 GPU and 2 (its one GPU named twice): 1.9 times as fast.
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let mut bench: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(results.join("h100/bench-gpu-n19.json")).unwrap(),
    )
    .unwrap();
    bench["workload"]["gpu_numbers"] = serde_json::json!([0, 0]);
    bench["workload"]["gpu_counts"] = serde_json::json!([1, 2]);
    let row = bench["scaling"][0].clone();
    let mut one = row.clone();
    one["gpus"] = serde_json::json!(1);
    one["speedup"] = serde_json::json!(1.0);
    one["efficiency"] = serde_json::json!(1.0);
    let mut two = row;
    two["gpus"] = serde_json::json!(2);
    two["speedup"] = serde_json::json!(1.9);
    two["efficiency"] = serde_json::json!(0.95);
    for time in ["median_seconds", "min_seconds", "max_seconds"] {
        two[time] = serde_json::json!(one[time].as_f64().unwrap() / 1.9);
    }
    bench["scaling"] = serde_json::json!([one, two]);
    // Its runs as those on both.
    for run in bench["runs"].as_array_mut().unwrap() {
        run["gpu_count"] = serde_json::json!(2);
    }
    let dir = tempfile::tempdir().unwrap();
    let swept = dir.path().join("swept.json");
    std::fs::write(&swept, bench.to_string()).unwrap();
    let out = dir.path().join("plots");
    plot(std::slice::from_ref(&swept), &out);
    let mut names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["gpu-scaling.svg", "gpus.svg"]);
    let (texts, _) = svg_texts(&out.join("gpu-scaling.svg"));
    for text in [
        "GPU scaling (median of the timed runs)",
        "GPUs",
        "speedup over 1 GPU",
        "ideal (speedup = GPUs)",
    ] {
        assert!(texts.iter().any(|t| t == text), "{text}: {texts:?}");
    }
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("NVIDIA H100 80GB HBM3, n = 19, ")),
        "{texts:?}"
    );
    // A row of more GPUs than a machine has is refused, the field named.
    bench["scaling"][1]["gpus"] = serde_json::json!(1_000_000);
    std::fs::write(&swept, bench.to_string()).unwrap();
    plot_refused(&swept, &dir.path().join("none")).stderr(contains("scaling[1].gpus is 1000000"));
}

/// Where a text of an SVG lies, about: its left, top, right and bottom, in pixels.
type Bounds = (f64, f64, f64, f64);

/// The SVG's width and height, and each of its texts with its box, as a viewer draws it: 0.6 em a character
/// (a little over a sans-serif font's average), one em high, placed by its anchor and `dy` as plotters
/// writes them, and turned by its `rotate(a, x, y)`.
fn text_boxes(doc: &roxmltree::Document) -> ((f64, f64), Vec<(String, Bounds)>) {
    let root = doc.root_element();
    let size = |name| root.attribute(name).unwrap().parse::<f64>().unwrap();
    let canvas = (size("width"), size("height"));
    let boxes = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            let text = n.text().unwrap_or("").trim().to_string();
            let number = |name| n.attribute(name).unwrap().parse::<f64>().unwrap();
            let (x, y, em) = (number("x"), number("y"), number("font-size"));
            let width = text.chars().count() as f64 * 0.6 * em;
            let (left, right) = match n.attribute("text-anchor") {
                Some("end") => (-width, 0.0),
                Some("middle") => (-width / 2.0, width / 2.0),
                _ => (0.0, width),
            };
            let (top, bottom) = match n.attribute("dy") {
                Some("0.76em") => (0.0, em),
                Some("0.5ex") => (-em / 2.0, em / 2.0),
                Some("-0.5ex") => (-em, 0.0),
                _ => (-0.76 * em, 0.24 * em),
            };
            let angle = n
                .attribute("transform")
                .and_then(|t| t.strip_prefix("rotate("))
                .and_then(|t| t.split(',').next())
                .map_or(0.0, |a| a.trim().parse::<f64>().unwrap().to_radians());
            let (sin, cos) = angle.sin_cos();
            let corners = [(left, top), (right, top), (left, bottom), (right, bottom)]
                .map(|(dx, dy)| (x + dx * cos - dy * sin, y + dx * sin + dy * cos));
            let xs = corners.map(|c| c.0);
            let ys = corners.map(|c| c.1);
            let min = |v: [f64; 4]| v.into_iter().fold(f64::INFINITY, f64::min);
            let max = |v: [f64; 4]| v.into_iter().fold(f64::NEG_INFINITY, f64::max);
            (text, (min(xs), min(ys), max(xs), max(ys)))
        })
        .collect();
    (canvas, boxes)
}

/// Checks that every text of the chart at `path` lies on it whole, that no two texts overlap (by more than
/// a pixel, as plotters rounds) and that no data point (a circle) lies under a text; returns the texts and
/// the chart's size.
fn assert_readable(path: &Path) -> (Vec<String>, (f64, f64)) {
    let (texts, doc) = svg_texts(path);
    let (canvas, boxes) = text_boxes(&doc);
    let chart = path.file_name().unwrap().to_string_lossy();
    for (text, b) in &boxes {
        assert!(
            b.0 >= -1.0 && b.1 >= -1.0 && b.2 <= canvas.0 + 1.0 && b.3 <= canvas.1 + 1.0,
            "{chart}: '{text}' at {b:?} runs off the chart of {canvas:?}"
        );
    }
    for (i, (a, p)) in boxes.iter().enumerate() {
        for (b, q) in &boxes[i + 1..] {
            let wide = p.2.min(q.2) - p.0.max(q.0);
            let high = p.3.min(q.3) - p.1.max(q.1);
            assert!(
                wide <= 1.0 || high <= 1.0,
                "{chart}: '{a}' at {p:?} overlaps '{b}' at {q:?}"
            );
        }
    }
    for circle in doc.descendants().filter(|n| n.has_tag_name("circle")) {
        let at = |name| circle.attribute(name).unwrap().parse::<f64>().unwrap();
        let (x, y) = (at("cx"), at("cy"));
        for (text, b) in &boxes {
            assert!(
                !(b.0 < x && x < b.2 && b.1 < y && y < b.3),
                "{chart}: the point at ({x}, {y}) is under '{text}' at {b:?}"
            );
        }
    }
    (texts, canvas)
}

/// Writes in `dir` many reports, as results/ gathers them, and returns the bench files and the count files,
/// and the bench files' scores as the chart of machines writes them.
///
/// 24 benchmarks of 8 machines, three of each: the second and third of a machine alike to the first but
/// for when they were made, and the third a copy of the second (one file named twice); each has scores of
/// its own, 1.1, 2.2 ... times the Xeon's. Then 12 GPU benchmarks of one GPU, made a second apart. And 24
/// sweeps of one machine, on 1 thread and on 2, made a minute apart.
fn many_reports(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>, Vec<String>) {
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let read = |file: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(results.join(file)).unwrap()).unwrap()
    };
    let write = |name: String, report: &serde_json::Value| {
        let path = dir.join(name);
        std::fs::write(&path, report.to_string()).unwrap();
        path
    };
    let base = read("xeon-2core/bench-n17.json");
    let mut benches = Vec::new();
    let mut values = Vec::new();
    for i in 0..24 {
        let mut bench = base.clone();
        bench["machine"]["cpu_model"] =
            format!("Intel(R) Xeon(R) Gold 61{}8 CPU @ 2.20GHz", i / 3).into();
        bench["timestamp"] = format!("2026-11-22T13:29:3{}Z", (i % 3).min(1)).into();
        let scale = 1.1 * (i + 1) as f64;
        for (score, threads) in [("single_thread", ""), ("multi_thread", " (2 threads)")] {
            let rate = &mut bench["scores"][score]["solutions_per_second"];
            let scaled = rate.as_f64().unwrap() * scale;
            *rate = scaled.into();
            values.push(format!("{:.2}{threads}", scaled / 1e6));
        }
        benches.push(write(format!("bench-{i}.json"), &bench));
    }
    let gpu = read("h100/bench-gpu-n19.json");
    for i in 0..12 {
        let mut bench = gpu.clone();
        bench["timestamp"] = format!("2026-11-26T10:00:{i:02}Z").into();
        benches.push(write(format!("gpu-{i}.json"), &bench));
    }
    let count = dir.join("count.json");
    nqueens()
        .args(["count", "4..9", "--format", "json", "-q", "-o"])
        .arg(&count)
        .assert()
        .success();
    let sweep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&count).unwrap()).unwrap();
    let mut counts = Vec::new();
    for i in 0..24 {
        let mut report = sweep.clone();
        report["threads"] = (1 + i % 2).into();
        report["timestamp"] = format!("2026-11-22T12:{i:02}:00Z").into();
        counts.push(write(format!("count-{i}.json"), &report));
    }
    (benches, counts, values)
}

/// `nqueens plot FILES -o DIR`, which must succeed.
fn plot(files: &[PathBuf], dir: &Path) {
    nqueens()
        .arg("plot")
        .args(files)
        .arg("-o")
        .arg(dir)
        .assert()
        .success();
}

/// `nqueens plot FILE -o DIR`, which must be refused (exit code 2) within 20 s: some refused files made it run
/// on for ever.
fn plot_refused(file: &Path, dir: &Path) -> assert_cmd::assert::Assert {
    nqueens()
        .arg("plot")
        .arg(file)
        .arg("-o")
        .arg(dir)
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(2)
}

#[test]
fn many_benchmarks_are_each_named_once_beside_their_bars_and_the_chart_grows_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let (benches, _, values) = many_reports(dir.path());
    let out = dir.path().join("plots");
    plot(&benches, &out);
    // Every benchmark named once, each name its own, and every score written, exactly.
    let (texts, (_, tall)) = assert_readable(&out.join("machines.svg"));
    let names: Vec<&String> = texts.iter().filter(|t| t.contains("(n = 17)")).collect();
    assert_eq!(names.len(), 24, "{names:?}");
    for name in &names {
        assert_eq!(names.iter().filter(|n| n == &name).count(), 1, "{name}");
    }
    // Two alike but for their files (the third a copy of the second): named by them.
    let copy =
        "Intel Xeon Gold 6108 @ 2.20GHz, 2 cores (n = 17), 2026-11-22 13:29:31, bench-2.json";
    assert!(names.iter().any(|n| *n == copy), "{names:?}");
    for value in &values {
        assert!(texts.contains(value), "{value}: {texts:?}");
    }
    // The chart grows with its benchmarks: 24 of them take more room than 3.
    let few = dir.path().join("few");
    plot(&benches[..3], &few);
    let (texts, (_, short)) = assert_readable(&few.join("machines.svg"));
    assert!(
        tall >= short + 21.0 * 30.0,
        "24 benchmarks {tall} pixels high, 3 of them {short}"
    );
    // Three of one machine alike but for when they were made: dated, as the charts of lines date them.
    let first = "Intel Xeon Gold 6108 @ 2.20GHz, 2 cores (n = 17), 2026-11-22 13:29:30";
    assert!(texts.iter().any(|t| t == first), "{texts:?}");
    // The GPUs' chart is drawn the same way.
    let (texts, _) = assert_readable(&out.join("gpus.svg"));
    let names: Vec<&String> = texts.iter().filter(|t| t.contains("(n = 19)")).collect();
    assert_eq!(names.len(), 12, "{names:?}");
    let last = "NVIDIA H100 80GB HBM3 (n = 19), 2026-11-26 10:00:11";
    assert!(names.iter().any(|n| *n == last), "{names:?}");
}

#[test]
fn many_sweeps_and_benchmarks_each_have_a_legend_of_their_own_under_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (benches, counts, _) = many_reports(dir.path());
    let out = dir.path().join("plots");
    plot(&[&benches[..], &counts[..]].concat(), &out);
    for chart in ["scaling.svg", "time-vs-n.svg"] {
        let (texts, (_, high)) = assert_readable(&out.join(chart));
        let legends: Vec<&String> = texts.iter().filter(|t| t.contains(", 2026-11-2")).collect();
        assert_eq!(legends.len(), 24, "{chart}: {legends:?}");
        for legend in &legends {
            let alike = legends.iter().filter(|l| l == &legend).count();
            assert_eq!(alike, 1, "{chart}: {legend}");
        }
        // A legend's rows below the chart, which keeps its own height above them.
        assert!(high >= 500.0 + 24.0 * 15.0, "{chart}: {high} pixels high");
    }
}

#[test]
fn names_with_characters_that_xml_does_not_allow_still_make_charts_that_are_svg() {
    // A control character in a CPU's model, a timestamp or a symmetry went into the chart as it was: no XML,
    // so that no viewer opened the chart. It is written escaped.
    let dir = tempfile::tempdir().unwrap();
    let (count, bench) = count_and_bench_reports(dir.path(), "6..9", "10");
    for (file, fields) in [
        (&count, &["/machine/cpu_model", "/timestamp"][..]),
        (&bench, &["/machine/cpu_model", "/timestamp"][..]),
    ] {
        let mut report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        for field in fields {
            let value = report.pointer_mut(field).unwrap();
            *value = format!("{}\u{1}\u{0}", value.as_str().unwrap()).into();
        }
        if let Some(results) = report["results"].as_array_mut() {
            for result in results {
                result["symmetry"] = "full\u{7}".into();
            }
        }
        std::fs::write(file, report.to_string()).unwrap();
    }
    let out = dir.path().join("plots");
    nqueens()
        .arg("plot")
        .arg(&count)
        .arg(&bench)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    for chart in ["time-vs-n.svg", "scaling.svg", "machines.svg"] {
        let (texts, _) = svg_texts(&out.join(chart));
        assert!(
            texts.iter().any(|t| t.contains("\\u{1}\\u{0}")),
            "{chart}: {texts:?}"
        );
    }
    let (texts, _) = svg_texts(&out.join("time-vs-n.svg"));
    assert!(
        texts.iter().any(|t| t.contains("full\\u{7} symmetry")),
        "{texts:?}"
    );
}

#[test]
fn a_time_below_a_nanosecond_is_refused_rather_than_drawn_on_an_axis_without_end() {
    // 1e-300 s beside 1e9 s: the chart's decades spanned more than a double holds, and plotters looked for the
    // labels of its axis for ever.
    let dir = tempfile::tempdir().unwrap();
    let (count, _) = count_and_bench_reports(dir.path(), "6..9", "10");
    let mut report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&count).unwrap()).unwrap();
    report["results"][1]["seconds"] = 1e-300.into();
    report["results"][3]["seconds"] = 1e9.into();
    std::fs::write(&count, report.to_string()).unwrap();
    plot_refused(&count, &dir.path().join("plots")).stderr(contains(
        "results[1].seconds is 1e-300, not a time a count can take (1e-9 to 1e11, or 0 for a merge of \
         journals)",
    ));
    // A time of 0 is below a nanosecond too, where the count ran on threads: it was accepted, and the board
    // left out of the chart without a word.
    report["results"][1]["seconds"] = 0.0.into();
    std::fs::write(&count, report.to_string()).unwrap();
    let threads = report["results"][1]["threads"].as_u64().unwrap();
    plot_refused(&count, &dir.path().join("plots")).stderr(contains(format!(
        "results[1].seconds is 0, not a time a count on {threads} thread{} can take (1e-9 to 1e11; 0 is for \
         a merge of journals, whose threads are 0)",
        if threads == 1 { "" } else { "s" }
    )));
    assert!(!dir.path().join("plots").exists());
    // A merge's board, of 0 threads and 0 seconds: left out of the chart, and said so.
    report["results"][1]["threads"] = 0.into();
    std::fs::write(&count, report.to_string()).unwrap();
    nqueens()
        .arg("plot")
        .arg(&count)
        .arg("-o")
        .arg(dir.path().join("plots"))
        .assert()
        .success()
        .stderr(contains(
            "left out of time-vs-n.svg: the untimed count of n = 7 (merged from journals)",
        ));
}

#[test]
fn a_benchmark_edited_past_what_a_run_has_is_refused_naming_the_field() {
    // A board beyond the largest, a row of no threads and a speedup that its times do not make were drawn as
    // measured, where a count's board beyond 64 is refused.
    let dir = tempfile::tempdir().unwrap();
    let (_, bench) = count_and_bench_reports(dir.path(), "6..9", "10");
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&bench).unwrap()).unwrap();
    let times = |row: usize| original["scaling"][row]["median_seconds"].as_f64().unwrap();
    let made = times(0) / times(1);
    let edits: [(&str, serde_json::Value, String); 5] = [
        (
            "/workload/n",
            70.into(),
            "workload.n is 70, beyond the largest board, 64".into(),
        ),
        (
            "/scaling/0/threads",
            0.into(),
            "scaling[0].threads is 0, where every run has 1 thread at least".into(),
        ),
        (
            "/scores/multi_thread/threads",
            0.into(),
            "scores.multi_thread.threads is 0, where every run has 1 thread at least".into(),
        ),
        (
            "/scaling/1/speedup",
            (made * 3.0).into(),
            format!(
                "scaling[1].speedup is {}, where the row's times make it {made} (the median_seconds on 1 \
                 thread, {}, over the row's, {})",
                made * 3.0,
                times(0),
                times(1)
            ),
        ),
        (
            "/scaling/0/speedup",
            1.5.into(),
            "scaling[0].speedup is 1.5, where the row's times make it 1".into(),
        ),
    ];
    for (field, value, said) in edits {
        let mut report = original.clone();
        *report.pointer_mut(field).unwrap() = value;
        std::fs::write(&bench, report.to_string()).unwrap();
        let out = dir.path().join("plots");
        plot_refused(&bench, &out).stderr(contains(format!(
            "cannot plot '{}': {said}",
            bench.display()
        )));
        assert!(!out.exists(), "{field}: charts were written");
    }
    // A speedup without the row on 1 thread that it is over.
    let mut report = original.clone();
    report["scaling"].as_array_mut().unwrap().remove(0);
    std::fs::write(&bench, report.to_string()).unwrap();
    plot_refused(&bench, &dir.path().join("plots")).stderr(contains("scaling[0].speedup is ").and(
        contains("but no row of the benchmark is on 1 thread, which a speedup is over"),
    ));
    // The file as bench wrote it is plotted.
    std::fs::write(&bench, original.to_string()).unwrap();
    plot(&[bench], &dir.path().join("plots"));
}

#[test]
fn a_benchmark_whose_runs_took_no_time_or_less_is_refused_naming_the_field() {
    // README: values no run has (negative seconds, a time below a nanosecond) are refused with the field
    // named. A benchmark's times were not looked at: -3 s drew its charts, with a warning that -3 s was too
    // short to time.
    let dir = tempfile::tempdir().unwrap();
    let (_, bench) = count_and_bench_reports(dir.path(), "6..9", "10");
    let original = std::fs::read_to_string(&bench).unwrap();
    for (field, value, said) in [
        (
            "/scaling/1/median_seconds",
            -3.0,
            "scaling[1].median_seconds is -3, not a time a run can take (1e-9 to 1e11)",
        ),
        (
            "/scaling/0/min_seconds",
            0.0,
            "scaling[0].min_seconds is 0, not a time a run can take (1e-9 to 1e11)",
        ),
        (
            "/scaling/0/max_seconds",
            1e-12,
            "scaling[0].max_seconds is 1e-12, not a time a run can take (1e-9 to 1e11)",
        ),
        (
            "/runs/1/seconds",
            1e308,
            "runs[1].seconds is 1e308, not a time a run can take (1e-9 to 1e11)",
        ),
        (
            "/runs/0/cpu_seconds",
            -0.5,
            "runs[0].cpu_seconds is -0.5, not a value a run can have (0 to ",
        ),
    ] {
        let mut report: serde_json::Value = serde_json::from_str(&original).unwrap();
        // The field, made where the report has none (a run's processor seconds, where not measured).
        let mut at = &mut report;
        for key in field.trim_start_matches('/').split('/') {
            at = match key.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[key],
            };
        }
        *at = value.into();
        std::fs::write(&bench, report.to_string()).unwrap();
        let out = dir.path().join("plots");
        plot_refused(&bench, &out).stderr(contains(said));
        assert!(!out.exists(), "{field}: charts were written");
    }
    // The file as bench wrote it is plotted.
    std::fs::write(&bench, &original).unwrap();
    plot(&[bench], &dir.path().join("plots"));
}

#[test]
fn what_the_chart_of_time_against_n_leaves_out_is_said() {
    // Rectangles, a shard's count and a merge's were left out of the chart without a word; a file of
    // rectangles alone was "no timed counts of whole boards".
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    nqueens()
        .args(["count", "8", "9", "10x8", "11x9", "--format", "json", "-o"])
        .arg(path("mixed.json"))
        .assert()
        .success();
    for shard in ["0/2", "1/2"] {
        nqueens()
            .args(["count", "10", "--shard", shard, "--format", "json", "-q"])
            .arg("--checkpoint")
            .arg(path(&format!("shard{}.journal", &shard[..1])))
            .arg("-o")
            .arg(path(&format!("shard{}.json", &shard[..1])))
            .assert()
            .success();
    }
    nqueens()
        .arg("merge")
        .arg(path("shard0.journal"))
        .arg(path("shard1.journal"))
        .args(["--format", "json", "-o"])
        .arg(path("merged.json"))
        .assert()
        .success();
    let files = [path("mixed.json"), path("shard1.json"), path("merged.json")];
    let out = nqueens()
        .arg("plot")
        .args(&files)
        .arg("-o")
        .arg(path("plots"))
        .assert()
        .success();
    let said = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    for (file, what) in [
        (
            &files[0],
            "the rectangles 10x8, 11x9 (no place on an axis of n)",
        ),
        (
            &files[1],
            "the part of n = 10 (a shard's or a list of units' time is not the board's)",
        ),
        (
            &files[2],
            "the untimed count of n = 10 (merged from journals)",
        ),
    ] {
        let line = format!(
            "note: {}: left out of time-vs-n.svg: {what}\n",
            file.display()
        );
        assert!(said.contains(&line), "no {line:?} in:\n{said}");
    }
    // Not with --quiet; and a file of rectangles alone has nothing to plot, which says why.
    nqueens()
        .arg("plot")
        .args(&files)
        .arg("-o")
        .arg(path("plots"))
        .arg("--quiet")
        .assert()
        .success()
        .stderr("");
    nqueens()
        .args(["count", "10x8", "--format", "json", "-o"])
        .arg(path("rectangle.json"))
        .assert()
        .success();
    plot_refused(&path("rectangle.json"), &path("none")).stderr(contains(
        "nothing to plot: the files hold no timed counts of whole square boards (rectangles, shards, lists \
         of units and merges are left out)",
    ));
}

#[test]
fn the_labels_of_y_have_the_room_their_widest_needs() {
    // A speedup of 1e11 had labels of 14 digits in 50 pixels, cut off at the chart's left edge and over the
    // axis's name; times from a nanosecond to 1e11 seconds, labels of 13 in 70.
    let dir = tempfile::tempdir().unwrap();
    let (count, bench) = count_and_bench_reports(dir.path(), "6..9", "10");
    let edit = |file: &Path, change: &dyn Fn(&mut serde_json::Value)| {
        let mut report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        change(&mut report);
        std::fs::write(file, report.to_string()).unwrap();
    };
    // A speedup of 1e11, its times made to agree: 100 s on 1 thread, a nanosecond on 2.
    edit(&bench, &|r| {
        for (row, seconds) in [(0, 100.0), (1, 1e-9)] {
            for time in ["median_seconds", "min_seconds", "max_seconds"] {
                r["scaling"][row][time] = seconds.into();
            }
        }
        r["scaling"][1]["speedup"] = 1e11.into();
    });
    edit(&count, &|r| {
        r["results"][0]["seconds"] = 1e-9.into();
        r["results"][3]["seconds"] = 1e11.into();
    });
    let out = dir.path().join("plots");
    plot(&[count, bench], &out);
    let (texts, _) = assert_readable(&out.join("scaling.svg"));
    assert!(
        texts
            .iter()
            .any(|t| t.len() == 12 && t.chars().all(|c| c.is_ascii_digit())),
        "{texts:?}"
    );
    let (texts, _) = assert_readable(&out.join("time-vs-n.svg"));
    assert!(texts.iter().any(|t| t == "1000000000000"), "{texts:?}");
    assert!(texts.iter().any(|t| t == "0.0000000001"), "{texts:?}");
}

#[test]
fn the_axis_of_a_chart_of_one_benchmark_is_written_as_large_as_any_and_within_the_chart() {
    // plotters sized the labels of the axis by the plotting area: one benchmark's pair of bars, 48 pixels
    // high, had them at a font-size of 5.6. And the last label, centred on the axis's end, ran off the chart
    // where it was long (a rate of 3e16 solutions/s, within what plot accepts).
    let dir = tempfile::tempdir().unwrap();
    let (_, bench) = count_and_bench_reports(dir.path(), "6..9", "10");
    let out = dir.path().join("plots");
    plot(std::slice::from_ref(&bench), &out);
    let font_sizes = |chart: &Path| -> Vec<(String, f64)> {
        let (_, doc) = svg_texts(chart);
        doc.descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| {
                let size = n.attribute("font-size").unwrap().parse::<f64>().unwrap();
                (n.text().unwrap_or("").trim().to_string(), size)
            })
            .collect()
    };
    for (text, size) in font_sizes(&out.join("machines.svg")) {
        assert!(size >= 9.0, "'{text}' at a font-size of {size}");
    }
    assert_readable(&out.join("machines.svg"));
    let mut report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&bench).unwrap()).unwrap();
    report["scores"]["single_thread"]["solutions_per_second"] = 3.2e16.into();
    std::fs::write(&bench, report.to_string()).unwrap();
    let out = dir.path().join("large");
    plot(&[bench], &out);
    let (texts, _) = assert_readable(&out.join("machines.svg"));
    assert!(texts.iter().any(|t| t == "32000.00"), "{texts:?}");
    assert!(
        texts
            .iter()
            .any(|t| t == "Scores: trillion solutions per second"),
        "{texts:?}"
    );
}

#[test]
fn a_benchmark_whose_figures_are_noise_is_plotted_with_a_warning() {
    // n = 8 once on each thread count: its runs take microseconds, the timer's noise.
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("short.json");
    nqueens()
        .args([
            "bench", "--n", "8", "--runs", "1", "--warmup", "0", "-t", "2", "-q",
        ])
        .arg("--export-json")
        .arg(&bench)
        .assert()
        .success();
    // As a report written before the warnings were: they are found again from its runs.
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&bench).unwrap()).unwrap();
    assert!(doc.as_object_mut().unwrap().remove("warnings").is_some());
    std::fs::write(&bench, serde_json::to_vec(&doc).unwrap()).unwrap();
    let out = dir.path().join("plots");
    let name = bench.display().to_string();
    nqueens()
        .arg("plot")
        .arg(&bench)
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stderr(
            contains(format!("warning: {name}: one timed run per thread count"))
                .and(contains(format!(
                    "warning: {name}: 1 thread: the runs took 0.0"
                )))
                .and(contains(format!(
                    "warning: {name}: 2 threads: the runs took 0.0"
                )))
                .and(contains("wrote")),
        );
    assert!(out.join("machines.svg").exists());
    // --quiet leaves only the charts.
    nqueens()
        .arg("plot")
        .arg(&bench)
        .arg("-o")
        .arg(&out)
        .arg("-q")
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
}

#[test]
fn json_that_nqueens_writes_but_is_no_report_is_named_for_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let estimate = dir.path().join("estimate.json");
    nqueens()
        .args([
            "estimate", "10", "--sample", "10ms", "-t", "1", "-f", "json", "-o",
        ])
        .arg(&estimate)
        .assert()
        .success();
    let solution = dir.path().join("solution.json");
    nqueens()
        .args(["solve", "8", "-f", "json", "-o"])
        .arg(&solution)
        .assert()
        .success();
    let units = dir.path().join("units.json");
    nqueens()
        .args(["units", "8", "-f", "json", "-o"])
        .arg(&units)
        .assert()
        .success();
    // A solution a line, each an array: "trailing characters at line 2 column 1".
    let list = dir.path().join("list.json");
    nqueens()
        .args(["list", "5", "-f", "json", "-q", "-o"])
        .arg(&list)
        .assert()
        .success();
    let other_kind = dir.path().join("other-kind.json");
    std::fs::write(&other_kind, r#"{"kind": "sweep", "results": []}"#).unwrap();
    for (file, message) in [
        (
            &estimate,
            "it is a forecast of `nqueens estimate` (\"kind\": \"estimate\"), which times no count",
        ),
        (
            &solution,
            "it is an array (as `list` and `solve` write a solution with --format json), where a report is \
             an object",
        ),
        (
            &list,
            "it is arrays, one a line (as `list` writes its solutions with --format json), where a report is \
             one object",
        ),
        (
            &units,
            "it is a plan of `nqueens units` (its units and their fingerprint), which times no count",
        ),
        (
            &other_kind,
            "its \"kind\" is \"sweep\", where a count report has none and a bench report's is \"bench\"",
        ),
    ] {
        plot_refused(file, &dir.path().join("out")).stderr(contains(format!(
            "cannot plot '{}': not a report of `nqueens count --format json` or `nqueens bench \
             --export-json`: {message}",
            file.display()
        )));
    }
    assert!(!dir.path().join("out").exists());
}

#[test]
fn an_unfinished_or_failed_report_is_plotted_with_a_warning_that_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (count, bench) = count_and_bench_reports(dir.path(), "6..11", "10");
    let out = dir.path().join("plots");
    // Finished reports: no word of it.
    nqueens()
        .arg("plot")
        .arg(&count)
        .arg(&bench)
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stderr(
            contains("did not finish")
                .not()
                .and(contains("failed").not()),
        );
    // As an interrupted sweep's export and an interrupted or failed benchmark's leave them.
    let with_status = |file: &Path, status: &str| {
        let mut doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        doc["status"] = status.into();
        let changed = dir.path().join(format!(
            "{status}-{}",
            file.file_name().unwrap().to_str().unwrap()
        ));
        std::fs::write(&changed, serde_json::to_vec(&doc).unwrap()).unwrap();
        changed
    };
    let count = with_status(&count, "running");
    let running = with_status(&bench, "running");
    let failed = with_status(&bench, "failed");
    nqueens()
        .arg("plot")
        .args([&count, &running, &failed])
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stderr(
            contains(format!(
                "warning: {}: the sweep did not finish (\"status\": \"running\": it was interrupted, or is \
                 still going): the chart has the boards it had counted",
                count.display()
            ))
            .and(contains(format!(
                "warning: {}: the benchmark did not finish (\"status\": \"running\": it was interrupted, or is \
                 still going): its figures are of the runs it had measured",
                running.display()
            )))
            .and(contains(format!(
                "warning: {}: the benchmark failed (\"status\": \"failed\"): a count differed from the \
                 published value, so its figures are of a build or a machine that counts wrong",
                failed.display()
            ))),
        );
    assert!(out.join("time-vs-n.svg").exists() && out.join("machines.svg").exists());
    // --quiet leaves only the charts.
    nqueens()
        .arg("plot")
        .args([&count, &running, &failed])
        .arg("-o")
        .arg(&out)
        .arg("-q")
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
}

#[test]
fn a_report_whose_counts_pass_64_bits_is_plotted() {
    // A count of n = 29 or more passes 2^64 solutions, and n = 28's nodes do: the report's integers are exact
    // (u128), and plot reads them so, where a float would refuse them as no count.
    let dir = tempfile::tempdir().unwrap();
    let count = dir.path().join("count.json");
    nqueens()
        .args(["count", "6..9", "--format", "json", "-o"])
        .arg(&count)
        .assert()
        .success();
    let text = std::fs::read_to_string(&count).unwrap();
    let past = (1u128 << 65).to_string();
    let big = text.replacen("\"nodes\": ", &format!("\"nodes\": {past}"), 1);
    assert_ne!(big, text, "the report has its nodes");
    std::fs::write(&count, &big).unwrap();
    nqueens()
        .arg("plot")
        .arg(&count)
        .arg("-o")
        .arg(dir.path().join("plots"))
        .assert()
        .success()
        .stderr(contains("time-vs-n.svg"));
}

/// Each row of the legend under a chart of lines (below `top`, the chart's foot): its name, and what its key
/// draws, as SVG writes it with the row's height taken out, so that two keys drawn alike read alike.
fn legend_keys(doc: &roxmltree::Document, top: f64) -> Vec<(String, Vec<String>)> {
    let number =
        |n: roxmltree::Node, name: &str| n.attribute(name).and_then(|v| v.parse::<f64>().ok());
    let rows: Vec<(String, f64, f64)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| {
            let (x, y) = (number(n, "x")?, number(n, "y")?);
            (y > top).then(|| (n.text().unwrap_or("").trim().to_string(), x, y))
        })
        .collect();
    let ys = |n: roxmltree::Node| -> Vec<f64> {
        match n.attribute("points") {
            Some(points) => points
                .split_whitespace()
                .map(|p| p.split_once(',').unwrap().1.parse().unwrap())
                .collect(),
            None => ["y", "cy"].iter().filter_map(|a| number(n, a)).collect(),
        }
    };
    rows.iter()
        .map(|(name, x, y)| {
            let mut key: Vec<String> = doc
                .descendants()
                .filter(|n| n.is_element() && !n.has_tag_name("text") && !n.has_tag_name("svg"))
                .filter(|n| number(*n, "x").is_none_or(|left| left < *x))
                .filter(|n| {
                    let ys = ys(*n);
                    !ys.is_empty() && ys.iter().all(|v| (v - y).abs() <= 9.0)
                })
                .map(|n| {
                    let attributes: Vec<String> = n
                        .attributes()
                        .map(|a| {
                            let value = match a.name() {
                                "y" | "cy" => format!("{}", a.value().parse::<f64>().unwrap() - y),
                                "points" => a
                                    .value()
                                    .split_whitespace()
                                    .map(|p| {
                                        let (px, py) = p.split_once(',').unwrap();
                                        format!("{px},{}", py.parse::<f64>().unwrap() - y)
                                    })
                                    .collect::<Vec<_>>()
                                    .join(" "),
                                _ => a.value().to_string(),
                            };
                            format!("{}={value}", a.name())
                        })
                        .collect();
                    format!("{} {}", n.tag_name().name(), attributes.join(" "))
                })
                .collect();
            key.sort();
            (name.clone(), key)
        })
        .collect()
}

/// Copies of `report` in `dir`, named `{stem}-{i}.json`, each made a minute after the one before.
fn copies(dir: &Path, report: &Path, stem: &str, count: usize) -> Vec<PathBuf> {
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    (0..count)
        .map(|i| {
            let mut copy = original.clone();
            copy["timestamp"] = format!("2026-11-22T12:{i:02}:00Z").into();
            let path = dir.join(format!("{stem}-{i}.json"));
            std::fs::write(&path, copy.to_string()).unwrap();
            path
        })
        .collect()
}

#[test]
fn no_two_series_of_a_chart_look_alike_however_many_there_are() {
    // Ten colours, then again, every line whole and every point round: the 11th series was drawn as the 1st.
    let dir = tempfile::tempdir().unwrap();
    let (count, bench) = count_and_bench_reports(dir.path(), "6..9", "8");
    let mut files = copies(dir.path(), &count, "count", 12);
    files.extend(copies(dir.path(), &bench, "bench", 12));
    let out = dir.path().join("plots");
    plot(&files, &out);
    for (chart, series) in [("time-vs-n.svg", 12), ("scaling.svg", 13)] {
        let (_, doc) = svg_texts(&out.join(chart));
        let keys = legend_keys(&doc, 500.0);
        assert_eq!(keys.len(), series, "{chart}: {keys:?}");
        for (i, (name, key)) in keys.iter().enumerate() {
            assert!(!key.is_empty(), "{chart}: '{name}' has no key");
            for (other, theirs) in &keys[i + 1..] {
                assert_ne!(key, theirs, "{chart}: '{name}' and '{other}' look alike");
            }
        }
        assert_readable(&out.join(chart));
        // On the chart as in its legend: the 1st colour's points are round for the 1st series and square for
        // the 11th.
        let first = |shape: &str| {
            doc.descendants().any(|n| {
                n.has_tag_name(shape)
                    && n.attribute("fill") == Some("#1F77B4")
                    && n.attribute("cy")
                        .or(n.attribute("y"))
                        .is_some_and(|y| y.parse::<f64>().unwrap() < 500.0)
            })
        };
        assert!(first("circle") && first("rect"), "{chart}");
    }
}

#[test]
fn names_say_what_their_benchmarks_differ_in_and_files_tell_apart_those_alike() {
    // Benchmarks of one machine that differ in their kernel, their symmetry or their build were named alike,
    // told apart by `#1` and `#2`.
    let dir = tempfile::tempdir().unwrap();
    let (count, bench) = count_and_bench_reports(dir.path(), "6..9", "8");
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&bench).unwrap()).unwrap();
    let mut files = Vec::new();
    for (name, field, value) in [
        ("base.json", "/workload/kernel", "avx512"),
        ("scalar.json", "/workload/kernel", "scalar"),
        ("no-symmetry.json", "/workload/symmetry", "none"),
        ("older.json", "/program/version", "0.2.0"),
        ("copy.json", "/workload/kernel", "avx512"),
    ] {
        let mut report = original.clone();
        report["workload"]["kernel"] = "avx512".into();
        *report.pointer_mut(field).unwrap() = value.into();
        let path = dir.path().join(name);
        std::fs::write(&path, report.to_string()).unwrap();
        files.push(path);
    }
    let out = dir.path().join("plots");
    plot(&files, &out);
    let machine = "Example @ 3.00GHz, 4 cores (n = 8)";
    let (texts, _) = assert_readable(&out.join("machines.svg"));
    for name in [
        format!("{machine}, avx512 kernel, full symmetry, nqueens 0.0.0, 2026-01-01 00:00:00, base.json"),
        format!("{machine}, scalar kernel, full symmetry, nqueens 0.0.0"),
        format!("{machine}, avx512 kernel, no symmetry, nqueens 0.0.0"),
        format!("{machine}, avx512 kernel, full symmetry, nqueens 0.2.0"),
        format!("{machine}, avx512 kernel, full symmetry, nqueens 0.0.0, 2026-01-01 00:00:00, copy.json"),
    ] {
        assert!(texts.contains(&name), "{name}: {texts:?}");
    }
    assert!(
        !texts
            .iter()
            .any(|t| t.contains('#') || t.contains("workload")),
        "{texts:?}"
    );
    let (texts, _) = assert_readable(&out.join("scaling.svg"));
    assert!(
        texts.contains(
            &"Example @ 3.00GHz, 4 cores, n = 8, scalar kernel, full symmetry, nqueens 0.0.0, \
                         2026-01-01 00:00:00"
                .to_string()
        ),
        "{texts:?}"
    );
    // What all have alike is left out: two that differ in their kernel alone say that alone.
    let two = dir.path().join("two");
    plot(&files[..2], &two);
    let (texts, _) = svg_texts(&two.join("machines.svg"));
    assert!(
        texts.contains(&format!("{machine}, scalar kernel")),
        "{texts:?}"
    );
    // So do sweeps.
    let mut sweep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&count).unwrap()).unwrap();
    let scalar = dir.path().join("scalar-count.json");
    for result in sweep["results"].as_array_mut().unwrap() {
        result["kernel"] = "scalar".into();
    }
    std::fs::write(&scalar, sweep.to_string()).unwrap();
    let sweeps = dir.path().join("sweeps");
    plot(&[count, scalar], &sweeps);
    let (texts, _) = svg_texts(&sweeps.join("time-vs-n.svg"));
    assert!(
        texts
            .iter()
            .any(|t| t.ends_with("full symmetry, scalar kernel")),
        "{texts:?}"
    );
}

#[test]
fn the_scaling_chart_reaches_the_measured_speedups_not_the_ideal_of_the_most_threads() {
    // Beside a benchmark of 4096 threads the axis reached 4096 (labels `500.0`, `1000.0`), and the speedups
    // measured, about 2, lay in its bottom pixels.
    let dir = tempfile::tempdir().unwrap();
    let (_, bench) = count_and_bench_reports(dir.path(), "6..9", "8");
    let mut wide: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&bench).unwrap()).unwrap();
    let measured = wide["scaling"][1]["speedup"].as_f64().unwrap();
    wide["scaling"][1]["threads"] = 4096.into();
    wide["workload"]["thread_counts"] = serde_json::json!([1, 4096]);
    let many = dir.path().join("4096.json");
    std::fs::write(&many, wide.to_string()).unwrap();
    let out = dir.path().join("plots");
    plot(&[bench, many], &out);
    let (_, doc) = svg_texts(&out.join("scaling.svg"));
    let speedups: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text") && n.attribute("text-anchor") == Some("end"))
        .filter_map(|n| n.text().map(str::trim))
        .filter(|t| t.parse::<f64>().is_ok())
        .collect();
    assert!(speedups.len() >= 3, "{speedups:?}");
    for label in &speedups {
        let value: f64 = label.parse().unwrap();
        assert!(
            value <= measured * 1.2,
            "{label} beyond {measured}: {speedups:?}"
        );
        assert!(!label.ends_with(".0"), "{label}: {speedups:?}");
    }
    // The ideal line stops at the chart's top, rather than running off it.
    for line in doc.descendants().filter(|n| n.has_tag_name("polyline")) {
        for point in line.attribute("points").unwrap().split_whitespace() {
            let y: f64 = point.split_once(',').unwrap().1.parse().unwrap();
            assert!(y >= 0.0, "{point}");
        }
    }
    assert_readable(&out.join("scaling.svg"));
}

#[test]
fn the_bars_of_rates_are_written_in_the_unit_of_their_largest() {
    // Millions for all: a small board's scores read `0.00`.
    let dir = tempfile::tempdir().unwrap();
    let (_, bench) = count_and_bench_reports(dir.path(), "6..9", "8");
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&bench).unwrap()).unwrap();
    for (single, multi, unit, values) in [
        (2000.0, 3500.0, "thousand", ["2.00", "3.50 (2 threads)"]),
        (2e9, 3.5e9, "billion", ["2.00", "3.50 (2 threads)"]),
        (800.0, 950.0, "", ["800.00", "950.00 (2 threads)"]),
    ] {
        let mut report = original.clone();
        report["scores"]["single_thread"]["solutions_per_second"] = single.into();
        report["scores"]["multi_thread"]["solutions_per_second"] = multi.into();
        std::fs::write(&bench, report.to_string()).unwrap();
        let out = dir.path().join(format!("plots-{unit}"));
        plot(std::slice::from_ref(&bench), &out);
        let (texts, _) = assert_readable(&out.join("machines.svg"));
        let unit = if unit.is_empty() {
            String::new()
        } else {
            format!("{unit} ")
        };
        for text in [
            format!("Scores: {unit}solutions per second"),
            format!("{unit}solutions/s"),
            values[0].to_string(),
            values[1].to_string(),
        ] {
            assert!(texts.contains(&text), "{text}: {texts:?}");
        }
    }
}
