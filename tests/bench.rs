//! The benchmark: its report's exact text (with a fake clock), its files, and its refusals.

mod common;

use common::nqueens;
use nqueens::engine::exec::NoProgress;
use nqueens::report::bench::{self, BenchReport, BenchRequest, FakeClock, Status};
use nqueens::report::export::bench::{exporter, CSV_HEADER};
use nqueens::report::export::Format;
use nqueens::report::machine::{Machine, Program};
use nqueens::report::Check;
use nqueens::Symmetry;
use predicates::prelude::*;
use predicates::str::contains;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A small benchmark on the fake clock: n = 12, up to 4 threads, 3 runs after 1 warm-up.
fn fake_report() -> BenchReport {
    let request = BenchRequest {
        n: 12,
        symmetry: Symmetry::Full,
        runs: 3,
        warmup: 1,
        max_threads: 4,
        backend: nqueens::engine::exec::Backend::Cpu,
        pin: false,
    };
    let workload = request.workload().unwrap();
    // The loop this processor would use is the one fact of the workload that depends on the machine.
    let mut spec = workload.spec.clone();
    spec.kernel = "scalar".to_string();
    let report = BenchReport::new(
        spec,
        Machine::placeholder(),
        Program::placeholder(),
        FakeClock::TIMESTAMP.to_string(),
    );
    bench::run::<nqueens::Error>(
        &workload,
        report,
        &FakeClock::default(),
        &NoProgress,
        &mut |_, _| Ok(()),
    )
    .unwrap()
}

fn text(format: Format, report: &BenchReport) -> String {
    String::from_utf8(exporter(format).document(report)).unwrap()
}

#[test]
fn the_terminal_report_reads_exactly_so() {
    insta::assert_snapshot!(text(Format::Table, &fake_report()));
}

#[test]
fn the_markdown_report_reads_exactly_so() {
    insta::assert_snapshot!(text(Format::Markdown, &fake_report()));
}

#[test]
fn csv_has_one_row_per_run_with_the_documented_columns() {
    let mut report = fake_report();
    // A run of under a millisecond's processor time keeps its figure (0.00 when it was written to 1/100 s).
    for (i, run) in report.runs.iter_mut().enumerate() {
        run.cpu_seconds = Some(0.000987 + i as f64 * 1e-6);
    }
    let csv = text(Format::Csv, &report);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(headers, CSV_HEADER);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), report.runs.len());
    assert_eq!(
        rows.len(),
        1 + 3 * 3,
        "a warm-up and 3 rounds over 1, 2, 4 threads"
    );
    let column = |name: &str| CSV_HEADER.iter().position(|h| *h == name).unwrap();
    for (row, run) in rows.iter().zip(&report.runs) {
        assert_eq!(&row[column("n")], "12");
        assert_eq!(&row[column("total")], "14200");
        assert_eq!(&row[column("unique")], "1787");
        assert_eq!(
            row[column("threads")].parse::<usize>().unwrap(),
            run.threads
        );
        assert_eq!(row[column("warmup")].parse::<bool>().unwrap(), run.warmup);
        let seconds: f64 = row[column("seconds")].parse().unwrap();
        assert!((seconds - run.seconds).abs() < 1e-6);
        let cpu: f64 = row[column("cpu_seconds")].parse().unwrap();
        assert!((cpu - run.cpu_seconds.unwrap()).abs() < 1e-6, "{cpu}");
        assert_eq!(&row[column("check")], "ok");
    }
}

#[test]
fn json_round_trips_and_keeps_every_run() {
    let report = fake_report();
    let json = text(Format::Json, &report);
    let back: BenchReport = serde_json::from_str(&json).unwrap();
    assert_eq!(back, report);
    // The layout other tools read: these keys are the schema.
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["schema_version"], bench::BENCH_SCHEMA_VERSION);
    assert_eq!(doc["kind"], "bench");
    assert_eq!(doc["status"], "complete");
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(
        keys(&doc),
        [
            "kind",
            "machine",
            "program",
            "runs",
            "scaling",
            "schema_version",
            "scores",
            "status",
            "timestamp",
            "warnings",
            "workload"
        ]
    );
    assert_eq!(
        keys(&doc["runs"][0]),
        [
            "check",
            "cpu_seconds",
            "nodes",
            "nodes_per_second",
            "run",
            "seconds",
            "solutions_per_second",
            "threads",
            "total",
            "unique",
            "units",
            "warmup"
        ]
    );
    assert_eq!(doc["runs"].as_array().unwrap().len(), 10);
    assert_eq!(doc["workload"]["expected_total"], 14200);
    assert_eq!(
        doc["workload"]["thread_counts"],
        serde_json::json!([1, 2, 4])
    );
    assert_eq!(doc["scores"]["multi_thread"]["threads"], 4);
}

#[test]
fn the_command_prints_the_same_report_with_the_fake_clock() {
    let out = nqueens()
        .args(["bench", "--n", "12", "--runs", "3", "--threads", "2"])
        .env("NQUEENS_TEST_FAKE_CLOCK", "1")
        .args(["--quiet", "--kernel", "scalar"])
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
    insta::assert_snapshot!(String::from_utf8(out.get_output().stdout.clone()).unwrap());
}

#[test]
fn exports_go_to_several_files_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    nqueens()
        .args([
            "bench",
            "--n",
            "9",
            "--runs",
            "2",
            "--threads",
            "2",
            "--warmup",
            "0",
        ])
        .arg("--export-json")
        .arg(path("b.json"))
        .arg("--export-csv")
        .arg(path("b.csv"))
        .arg("--export-markdown")
        .arg(path("b.md"))
        .assert()
        .success()
        .stdout(contains("score, single-thread (1 thread):"))
        .stderr(contains("wrote"));
    let report: BenchReport =
        serde_json::from_slice(&std::fs::read(path("b.json")).unwrap()).unwrap();
    assert_eq!(report.status, Status::Complete);
    assert_eq!(report.runs.len(), 4);
    assert!(report
        .runs
        .iter()
        .all(|r| r.total == 352 && r.check == Check::Match));
    assert_eq!(
        report.machine,
        Machine::detect(),
        "the real machine is described"
    );
    let csv = std::fs::read_to_string(path("b.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 4);
    let md = std::fs::read_to_string(path("b.md")).unwrap();
    assert!(md.starts_with("# nqueens bench: n = 9, full symmetry"));
    assert!(md.contains("## Thread scaling") && md.contains("## Runs"));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 3, "no temporary files left: {names:?}");
}

#[test]
fn an_interrupted_benchmark_keeps_what_it_measured() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    let mut child = common::command(assert_cmd::cargo::cargo_bin("nqueens"))
        .args([
            "bench",
            "--n",
            "12",
            "--runs",
            "1000",
            "--threads",
            "1",
            "--quiet",
        ])
        .arg("--export-json")
        .arg(&json)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let runs_so_far = |path: &Path| -> Option<BenchReport> {
        let report: BenchReport = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        (report.runs.len() >= 3).then_some(report)
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let report = loop {
        if let Some(report) = runs_so_far(&json) {
            break report;
        }
        assert!(Instant::now() < deadline, "no runs written in 60 s");
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    // Whatever moment the kill came, the file is a whole document: the last one renamed into place.
    let after: BenchReport = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(after.status, Status::Running, "marked as not finished");
    assert!(after.runs.len() >= report.runs.len());
    assert!(after.runs.iter().all(|r| r.check == Check::Match));
}

#[cfg(unix)]
#[test]
fn a_benchmark_stopped_by_a_signal_says_how_far_it_got_and_where_its_runs_are() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    let (_, said) = common::stopped_by_sigterm(
        dir.path(),
        &[
            "bench",
            "--n",
            "12",
            "--runs",
            "1000",
            "--threads",
            "1",
            "--export-json",
            "b.json",
        ],
        || {
            std::fs::read(&json)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<BenchReport>(&bytes).ok())
                .is_some_and(|report| report.runs.len() >= 3)
        },
    );
    assert!(
        said.starts_with("stopped by SIGTERM: the benchmark ended after ")
            && said.contains(
                " of its 1000 timed runs; the table above has the runs measured, and so has "
            )
            && said.ends_with("b.json (marked \"running\")"),
        "{said}"
    );
    // What it says it measured is what the table holds: a row a timed run, after the warm-up's.
    let done: usize = said["stopped by SIGTERM: the benchmark ended after ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let report: BenchReport = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report.runs.iter().filter(|r| !r.warmup).count(), done);
}

#[cfg(unix)]
#[test]
fn a_benchmark_stopped_before_its_first_timed_run_says_its_file_has_none_and_the_file_has_every_key(
) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    let (_, said) = common::stopped_by_sigterm(
        dir.path(),
        &[
            "bench",
            "--n",
            "20",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--threads",
            "1",
            "--export-json",
            "b.json",
        ],
        || json.exists(),
    );
    assert_eq!(
        said,
        "stopped by SIGTERM: the benchmark ended after 0 of its 1 timed runs; no timed run had ended, so \
         b.json (marked \"running\") has none",
    );
    // A script reading the scores or the warnings finds them, null and empty, as in a report with runs.
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(doc["status"], "running");
    assert_eq!(doc.get("scores"), Some(&serde_json::Value::Null), "{doc}");
    assert!(
        doc.get("warnings").is_some_and(serde_json::Value::is_array),
        "{doc}"
    );
}

#[test]
fn a_wrong_count_fails_the_benchmark_with_exit_code_3() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    nqueens()
        .env("NQUEENS_TEST_OFFSET", "1")
        .args(["bench", "--n", "8", "--threads", "2"])
        .arg("--export-json")
        .arg(&json)
        .assert()
        .code(3)
        .stdout(contains("MISMATCH").and(contains("FAILED: the run on 2 threads counted 93")))
        .stderr(contains("a count differs from the published value"));
    let report: BenchReport = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report.status, Status::Failed);
    assert_eq!(report.runs.len(), 1, "it stops at the first wrong count");
}

#[test]
fn bad_arguments_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing").join("b.json");
    let same = dir.path().join("b.out");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--n".into(), "28".into()], "no published count"),
        // `--quick` is a board too: with `--n`, one of the two was dropped unsaid.
        (
            vec!["--quick".into(), "--n".into(), "12".into()],
            "the argument '--quick' cannot be used with '--n <N>'",
        ),
        // Read as every command reads a board size (`count 65`, `units eight`).
        (
            vec!["--n".into(), "65".into()],
            "n = 65 is too large: the bitmask kernel handles boards up to n = 64",
        ),
        (
            vec!["--n".into(), "eight".into()],
            "'eight' is not a board size: use a number such as 8",
        ),
        (vec!["--runs".into(), "0".into()], "0 is not in 1..=1000"),
        (
            vec!["--threads".into(), "0".into()],
            "0 threads would do no work: give a whole number from 1 to 4096",
        ),
        (vec!["--symmetry".into(), "rotations".into()], "use one of"),
        (
            vec!["--export-json".into(), "-".into()],
            "needs a file name",
        ),
        (
            vec![
                "--export-json".into(),
                same.display().to_string(),
                "--export-csv".into(),
                same.display().to_string(),
            ],
            "named by two exports",
        ),
        (
            vec!["--export-json".into(), missing.display().to_string()],
            "cannot write",
        ),
        (vec!["--fast".into()], "unexpected argument '--fast'"),
    ];
    for (args, message) in cases {
        nqueens()
            .arg("bench")
            .args(&args)
            .assert()
            .code(2)
            .stderr(contains(message))
            .stdout(predicate::str::is_empty());
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no files made"
    );
}

/// Output meant for a terminal: a carriage return or an escape sequence.
fn animated(stderr: &[u8]) -> bool {
    stderr.iter().any(|&b| b == b'\r' || b == 0x1b)
}

#[test]
fn nothing_is_animated_when_stderr_is_not_a_terminal() {
    for args in [
        &["bench", "--n", "10", "--runs", "1", "--threads", "2"][..],
        &["count", "10..12", "--format", "csv", "-o", "-"],
        &["verify", "8..11"],
    ] {
        let out = nqueens().args(args).assert().success();
        let stderr = &out.get_output().stderr;
        assert!(
            !animated(stderr),
            "{args:?}: {}",
            String::from_utf8_lossy(stderr)
        );
    }
}

#[test]
fn quiet_leaves_only_the_results() {
    let dir = tempfile::tempdir().unwrap();
    nqueens()
        .args([
            "bench",
            "--n",
            "8",
            "--runs",
            "1",
            "--quiet",
            "--export-csv",
        ])
        .arg(dir.path().join("b.csv"))
        .assert()
        .success()
        .stdout(contains("score"))
        .stderr(predicate::str::is_empty());
    nqueens()
        .args(["verify", "4..9", "--quiet"])
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
}

#[test]
fn the_build_options_are_in_the_version_and_the_report() {
    // The test's build is the binary's: its optimisation is the one both must name.
    let version = nqueens().arg("--version").assert().success();
    let version = String::from_utf8(version.get_output().stdout.clone()).unwrap();
    let build = version
        .lines()
        .find_map(|l| l.strip_prefix("build: opt-level "))
        .unwrap_or_else(|| panic!("no build line in {version}"));
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    nqueens()
        .args(["bench", "--n", "8", "--runs", "1", "--warmup", "0"])
        .args(["--threads", "1", "--quiet", "--export-json"])
        .arg(&json)
        .assert()
        .success()
        .stdout(contains(format!(", opt-level {build}\n")));
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let program = &doc["program"];
    assert_eq!(
        program["opt_level"].as_str().unwrap(),
        build.split(',').next().unwrap()
    );
    assert_eq!(program["debug_assertions"], cfg!(debug_assertions));
    assert!(program["rustflags"].is_string());
}

#[test]
fn a_benchmark_too_short_to_time_says_so_with_its_figures() {
    // n = 8 counts in well under a millisecond on any machine: its times are the timer's.
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    nqueens()
        .args(["bench", "--n", "8", "--runs", "1", "--warmup", "0"])
        .args(["--threads", "2", "--quiet", "--export-json"])
        .arg(path("b.json"))
        .arg("--export-markdown")
        .arg(path("b.md"))
        .assert()
        .success()
        .stdout(contains(
            "warning: one timed run per thread count: a step's min and max are that run",
        ))
        .stdout(contains("warning: 1 thread: the runs took 0.0").and(contains(
            "too short to time: their figures are mostly start-up and the timer's noise; benchmark a \
             larger board (--n)",
        )))
        .stdout(contains("warning: 2 threads: the runs took 0.0"));
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path("b.json")).unwrap()).unwrap();
    let warnings = doc["warnings"].as_array().unwrap();
    let kinds: Vec<(&str, Option<u64>)> = warnings
        .iter()
        .map(|w| (w["kind"].as_str().unwrap(), w["threads"].as_u64()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("single_run", None),
            ("short_runs", Some(1)),
            ("short_runs", Some(2))
        ]
    );
    let md = std::fs::read_to_string(path("b.md")).unwrap();
    assert!(
        md.contains("\n## Warnings\n\n- one timed run per thread count"),
        "{md}"
    );
}

#[test]
fn the_machine_line_gives_the_clock_the_system_gives() {
    // /proc/cpuinfo's first `cpu MHz` (x86 Linux), rounded; nothing where there is none.
    let mhz = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .filter_map(|l| l.split_once(':'))
                .find(|(k, _)| k.trim() == "cpu MHz")
                .and_then(|(_, v)| v.trim().parse::<f64>().ok())
        });
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    let out = nqueens()
        .args([
            "bench", "--n", "6", "--runs", "1", "--warmup", "0", "-t", "1", "-q",
        ])
        .arg("--export-json")
        .arg(&json)
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let machine_line = stdout.lines().find(|l| l.starts_with("machine: ")).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    match mhz {
        Some(mhz) => {
            let mhz = mhz.round() as u64;
            assert_eq!(doc["machine"]["cpu_mhz"], mhz);
            assert!(
                machine_line.contains(&format!(" logical cores, {mhz} MHz")),
                "{machine_line}"
            );
        }
        None => assert!(doc["machine"].get("cpu_mhz").is_none()),
    }
}

#[test]
fn a_report_names_the_standard_workload_and_its_version() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    // --quick's work, on one thread, once: some tenths of a second.
    nqueens()
        .args([
            "bench", "--quick", "--runs", "1", "--warmup", "0", "-t", "1", "-q",
        ])
        .arg("--export-json")
        .arg(&json)
        .assert()
        .success()
        .stdout(predicate::str::starts_with(format!(
            "nqueens bench: the quick workload (version {}): n = 16, full symmetry, ",
            bench::WORKLOAD_VERSION
        )));
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(doc["workload"]["standard"], "quick");
    assert_eq!(doc["workload"]["workload_version"], bench::WORKLOAD_VERSION);
    // The CSV's rows say it too, and the build's optimisation, in their last columns.
    let csv = dir.path().join("b.csv");
    nqueens()
        .args([
            "bench", "--quick", "--runs", "1", "--warmup", "0", "-t", "1", "-q",
        ])
        .arg("--export-csv")
        .arg(&csv)
        .assert()
        .success();
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(headers, CSV_HEADER);
    assert_eq!(headers[26..], ["opt_level", "workload_version"]);
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!(&row[26], doc["program"]["opt_level"].as_str().unwrap());
    assert_eq!(&row[27], bench::WORKLOAD_VERSION.to_string());
    // The standard workload's board is it whatever the options; another board or mode is neither.
    let request = |n: u32, symmetry: Symmetry| BenchRequest {
        n,
        symmetry,
        ..BenchRequest::standard()
    };
    assert_eq!(
        request(18, Symmetry::Full).standard_name(),
        Some("standard")
    );
    assert_eq!(request(16, Symmetry::Full).standard_name(), Some("quick"));
    assert_eq!(request(17, Symmetry::Full).standard_name(), None);
    assert_eq!(request(18, Symmetry::Mirror).standard_name(), None);
    let gpu = BenchRequest::standard_on(nqueens::engine::exec::Backend::Gpu);
    assert_eq!(gpu.standard_name(), Some("standard"));
    assert_eq!(BenchRequest { n: 18, ..gpu }.standard_name(), None);
    // A report of another board says nothing of it, and neither did those written before.
    let report = fake_report();
    assert_eq!(
        (&report.workload.standard, report.workload.workload_version),
        (&None, None)
    );
    let mut old = serde_json::to_value(&report).unwrap();
    old["workload"].as_object_mut().unwrap().remove("standard");
    assert_eq!(serde_json::from_value::<BenchReport>(old).unwrap(), report);
}

#[test]
fn version_names_the_cpu_features() {
    nqueens()
        .arg("--version")
        .assert()
        .success()
        .stdout(contains("compiled for:").and(contains("detected:")));
}

#[test]
fn the_help_names_the_workloads_that_run() {
    // The help's defaults are written by hand; they must be the library's.
    nqueens()
        .args(["bench", "--help"])
        .assert()
        .success()
        .stdout(contains(format!(
            "default: {}, the standard workload; {} with --quick",
            bench::STANDARD_N,
            bench::QUICK_N
        )))
        .stdout(contains(format!(
            "on the GPU (--backend gpu) {}, and {} with --quick",
            bench::STANDARD_GPU_N,
            bench::QUICK_GPU_N
        )))
        .stdout(contains(format!(
            "the standard measurement on n = {} (n = {} on the GPU)",
            bench::QUICK_N,
            bench::QUICK_GPU_N
        )));
}

#[test]
fn each_backend_has_its_own_standard_workload() {
    // The GPU's standard board is larger than the CPU's: on the CPU's board a GPU's run is mostly the host's.
    use nqueens::engine::exec::Backend;
    for (backend, standard, quick) in [
        (Backend::Cpu, bench::STANDARD_N, bench::QUICK_N),
        (Backend::Gpu, bench::STANDARD_GPU_N, bench::QUICK_GPU_N),
    ] {
        let request = BenchRequest::standard_on(backend);
        assert_eq!((request.n, request.backend), (standard, backend));
        let request = BenchRequest::quick_on(backend);
        assert_eq!((request.n, request.backend), (quick, backend));
        assert_eq!(request.symmetry, Symmetry::Full);
    }
    assert_eq!(
        BenchRequest::standard(),
        BenchRequest::standard_on(Backend::Cpu)
    );
    assert_eq!(BenchRequest::quick(), BenchRequest::quick_on(Backend::Cpu));
}

#[test]
fn a_gpu_benchmark_names_its_gpus_and_gives_their_own_rate() {
    // The fake report, as if its runs had been made on two GPUs: the terminal report names them and gives
    // the rate of the median kernel time.
    let mut report = fake_report();
    assert!(!text(Format::Table, &report).contains("kernel time"));
    report.workload.gpu = Some("Fake GPU, Fake GPU".to_string());
    // Runs on all of the host's threads alone, as a GPU benchmark's before the sweep of its GPUs.
    report.workload.thread_counts = vec![4];
    report.runs.retain(|r| r.threads == 4);
    for (i, run) in report.runs.iter_mut().enumerate() {
        run.gpu_seconds = Some(if run.warmup { 100.0 } else { i as f64 });
    }
    let timed: Vec<_> = report.runs.iter().filter(|r| !r.warmup).collect();
    let median = timed[timed.len() / 2];
    let table = text(Format::Table, &report);
    let line = table
        .lines()
        .find(|l| l.starts_with("GPU (Fake GPU, Fake GPU), median kernel time"))
        .unwrap_or_else(|| panic!("{table}"));
    let seconds = median.gpu_seconds.unwrap();
    assert!(line.contains(&format!("{seconds:.3} s")), "{line}");
    assert!(line.ends_with("nodes/s"), "{line}");
    // The Markdown report has them in a table of their own; the CSV names the GPUs and each run's kernel time.
    let markdown = text(Format::Markdown, &report);
    assert!(
        markdown.contains(&format!(
            "## GPUs\n\n| GPUs | median kernel time (s) | solutions/s | nodes/s |\n|---|--:|--:|--:|\n\
             | Fake GPU, Fake GPU | {seconds:.3} |"
        )),
        "{markdown}"
    );
    let csv = text(Format::Csv, &report);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let column = |name: &str| CSV_HEADER.iter().position(|h| *h == name).unwrap();
    for (row, run) in reader.records().map(Result::unwrap).zip(&report.runs) {
        assert_eq!(&row[column("gpus")], "Fake GPU, Fake GPU");
        let kernel: f64 = row[column("gpu_seconds")].parse().unwrap();
        assert_eq!(kernel, run.gpu_seconds.unwrap());
    }
    // Two GPUs' shares in every run: each one's medians below the line, and in a table of their own. GPU 1
    // takes 3 tasks of 4 in 1 s, with 3 G nodes; GPU 0 the other one in 0.5 s, its nodes uncounted.
    assert!(!markdown.contains("Each GPU"));
    for run in &mut report.runs {
        run.gpus = vec![
            nqueens::report::GpuShareRecord {
                gpu: 1,
                device: "Fake GPU".into(),
                tasks: 3,
                nodes: Some(3_000_000_000),
                kernel_seconds: 1.0,
            },
            nqueens::report::GpuShareRecord {
                gpu: 0,
                device: "Fake GPU".into(),
                tasks: 1,
                nodes: None,
                kernel_seconds: 0.5,
            },
        ];
    }
    let table = text(Format::Table, &report);
    assert!(
        table.contains(
            "nodes/s\n  gpu 1 (Fake GPU): 75.0% of the tasks, 3.000 G nodes/s over 1.000 s of kernels\n  \
             gpu 0 (Fake GPU): 25.0% of the tasks, - nodes/s over 0.500 s of kernels\n"
        ),
        "{table}"
    );
    let markdown = text(Format::Markdown, &report);
    assert!(
        markdown.contains(
            "| GPU | device | share of the tasks | kernel time (s) | nodes/s |\n|--:|---|--:|--:|--:|\n\
             | 1 | Fake GPU | 75.0% | 1.000 | 3.000 G |\n| 0 | Fake GPU | 25.0% | 0.500 | - |\n"
        ),
        "{markdown}"
    );
    // The GPUs described (GPU 1 once, however often named), after the machine's line and row.
    report.machine.gpus = [1, 0, 1]
        .map(|gpu| nqueens::report::machine::GpuDescription {
            gpu,
            name: "Fake GPU".into(),
            compute_capability: "9.0".into(),
            multiprocessors: 132,
            memory_bytes: 80 << 30,
            pci_bus_id: format!("0000:{:02X}:00.0", 0x18 + gpu),
        })
        .to_vec();
    report.machine.cuda_driver = Some("13.0".into());
    let table = text(Format::Table, &report);
    assert!(
        table.contains(
            "x86_64\ngpu 1: Fake GPU, compute 9.0, 132 multiprocessors, 80.0 GiB, PCI 0000:19:00.0\n\
             gpu 0: Fake GPU, compute 9.0, 132 multiprocessors, 80.0 GiB, PCI 0000:18:00.0\n\
             cuda driver: 13.0\ncpu features: "
        ),
        "{table}"
    );
    let markdown = text(Format::Markdown, &report);
    assert!(
        markdown.contains(
            "x86_64 |\n| gpu 1 | Fake GPU, compute 9.0, 132 multiprocessors, 80.0 GiB, PCI 0000:19:00.0 |\n\
             | gpu 0 | Fake GPU, compute 9.0, 132 multiprocessors, 80.0 GiB, PCI 0000:18:00.0 |\n\
             | cuda driver | 13.0 |\n| cpu features |"
        ),
        "{markdown}"
    );
    // A CPU benchmark has neither.
    let cpu = fake_report();
    assert!(!text(Format::Markdown, &cpu).contains("## GPUs"));
    let csv = text(Format::Csv, &cpu);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    for row in reader.records().map(Result::unwrap) {
        assert_eq!(
            (&row[column("gpus")], &row[column("gpu_seconds")]),
            ("", "")
        );
    }
}

#[test]
fn one_thread_runs_are_pinned_to_a_processor_and_the_report_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    for (extra, pinned) in [(None, cfg!(target_os = "linux")), (Some("--no-pin"), false)] {
        nqueens()
            .args([
                "bench",
                "--n",
                "10",
                "--runs",
                "2",
                "--threads",
                "2",
                "--quiet",
            ])
            .args(extra)
            .arg("--export-json")
            .arg(&json)
            .assert()
            .success()
            .stdout(predicate::function(|out: &str| {
                out.contains("one-thread runs pinned to one processor") == extra.is_none()
            }));
        let report: BenchReport = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert_eq!(report.workload.pin_single_thread, extra.is_none());
        for run in &report.runs {
            assert_eq!(
                run.pinned_cpu.is_some(),
                pinned && run.threads == 1,
                "{} threads",
                run.threads
            );
        }
    }
}
