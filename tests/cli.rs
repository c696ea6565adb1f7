//! The command line as a user meets it: every command, format and bad input.

mod common;

use common::nqueens;
use predicates::prelude::*;
use predicates::str::contains;
use std::io::{BufRead, BufReader};
use std::process::Stdio;

#[test]
fn count_prints_a_table_row_per_board() {
    let out = nqueens().args(["count", "8", "10"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "header and two rows:\n{text}");
    assert!(
        lines[0].split_whitespace().eq([
            "n",
            "total",
            "unique",
            "seconds",
            "threads",
            "units",
            "solutions/s",
            "nodes/s",
        ]),
        "no check column where no check was asked for:\n{text}"
    );
    let row: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        &row[..3],
        ["8", "92", "12"],
        "full symmetry by default: unique next to total"
    );
    assert!(lines[2].split_whitespace().take(3).eq(["10", "724", "92"]));
}

#[test]
fn ranges_are_inclusive_and_mix_with_single_sizes() {
    nqueens()
        .args(["count", "4..6", "8", "--format", "csv"])
        .assert()
        .success()
        .stdout(predicate::function(|out: &str| {
            let ns: Vec<&str> = out
                .lines()
                .skip(1)
                .map(|l| l.split(',').next().unwrap())
                .collect();
            ns == ["4", "5", "6", "8"]
        }));
}

#[test]
fn csv_has_a_header_and_exact_totals() {
    let out = nqueens()
        .args(["count", "9", "--format", "csv", "--threads", "1"])
        .assert()
        .success();
    let mut reader = csv::Reader::from_reader(&out.get_output().stdout[..]);
    let headers = reader.headers().unwrap().clone();
    assert_eq!(&headers[0], "n");
    assert_eq!(&headers[1], "total");
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1);
    assert_eq!(&rows[0][1], "352");
    assert_eq!(&rows[0][2], "46", "unique");
    assert_eq!(&rows[0][4], "1", "threads");
}

#[test]
fn csv_and_markdown_name_the_build_the_machine_and_the_start_after_the_columns_they_had() {
    use nqueens::report::export::{CSV_HEADER, PROVENANCE_COLUMNS};
    let stdout = |args: &[&str]| -> String {
        let out = nqueens().args(args).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&["count", "8", "-t", "1", "-f", "json"])).unwrap();
    let (program, machine) = (&json["program"], &json["machine"]);
    // What the JSON says, in the columns' order.
    let expected = |timestamp: &str| -> Vec<String> {
        vec![
            program["version"].as_str().unwrap().to_string(),
            program["git_revision"].as_str().unwrap().to_string(),
            nqueens::report::machine::compiled_features().join(" "),
            machine["cpu_model"].as_str().unwrap().to_string(),
            machine["logical_cores"].to_string(),
            timestamp.to_string(),
        ]
    };
    let csv = stdout(&["count", "8", "9", "-t", "1", "-f", "csv"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(headers, CSV_HEADER);
    // The board's columns first, where they were before the build's were added.
    assert_eq!(
        headers[..14],
        [
            "n",
            "total",
            "unique",
            "seconds",
            "threads",
            "symmetry",
            "kernel",
            "split_depth",
            "units",
            "nodes",
            "solutions_per_second",
            "nodes_per_second",
            "check",
            "part"
        ]
    );
    assert_eq!(headers[14..], PROVENANCE_COLUMNS);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2);
    let timestamp = rows[0][19].to_string();
    assert!(humantime::parse_rfc3339(&timestamp).is_ok(), "{csv}");
    for row in &rows {
        assert_eq!(
            row.iter().skip(14).collect::<Vec<_>>(),
            expected(&timestamp),
            "{csv}"
        );
    }
    assert_eq!(&rows[1][1], "352");
    // Markdown says it below the table, whose first line stays its header.
    let md = stdout(&["count", "8", "-t", "1", "-f", "markdown"]);
    assert!(md.starts_with("| n | total |"), "{md}");
    let last = md.lines().last().unwrap();
    assert!(
        last.starts_with(&format!(
            "build: nqueens {} (git {}), ",
            program["version"].as_str().unwrap(),
            program["git_revision"].as_str().unwrap()
        )) && last.contains(&format!(
            "; machine: {}, ",
            machine["cpu_model"].as_str().unwrap()
        )) && last.contains("; started: 20"),
        "{md}"
    );
    // An estimate's CSV rows end the same way.
    let csv = stdout(&[
        "estimate", "8", "8x6", "--sample", "10ms", "-t", "1", "-f", "csv",
    ]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    // The shard's columns last of the estimate's own (empty without --shard) but for the loop that sampled,
    // the provenance's after them.
    assert_eq!(
        headers[..15][11..],
        ["split_depth", "shard", "plan_units", "kernel"],
        "{csv}"
    );
    assert_eq!(headers[15..], PROVENANCE_COLUMNS, "{csv}");
    for row in reader.records().map(Result::unwrap) {
        let timestamp = row[20].to_string();
        assert_eq!(&row[12], "", "{csv}");
        assert!(["scalar", "avx2", "avx512"].contains(&&row[14]), "{csv}");
        assert_eq!(
            row.iter().skip(15).collect::<Vec<_>>(),
            expected(&timestamp),
            "{csv}"
        );
    }
    // The loop that sampled is the one asked for, as a count's rows name theirs.
    let json: serde_json::Value = serde_json::from_str(&stdout(&[
        "estimate", "10", "--sample", "10ms", "--kernel", "scalar", "-f", "json",
    ]))
    .unwrap();
    assert_eq!(json["results"][0]["kernel"], "scalar", "{json}");
    let md = stdout(&["estimate", "8", "--sample", "10ms", "-f", "markdown"]);
    assert!(
        md.lines().last().unwrap().starts_with("build: nqueens "),
        "{md}"
    );
    // The plan's JSON names the build that made it.
    let units: serde_json::Value =
        serde_json::from_str(&stdout(&["units", "8", "--summary", "-f", "json"])).unwrap();
    assert_eq!(units["program"], *program);
}

#[test]
fn thousands_of_threads_count_exactly_on_the_plan_of_the_processors() {
    // Each board's total, split depth and units.
    let units_and_totals = |threads: usize| -> Vec<(String, String, String)> {
        let out = nqueens()
            .args(["count", "4..14", "-f", "csv", "--threads"])
            .arg(threads.to_string())
            .assert()
            .success();
        csv::Reader::from_reader(&out.get_output().stdout[..])
            .records()
            .map(|r| {
                let r = r.unwrap();
                assert_eq!(&r[4], threads.to_string(), "threads asked");
                (r[1].to_owned(), r[7].to_owned(), r[8].to_owned())
            })
            .collect()
    };
    let many = units_and_totals(4096);
    let totals: Vec<&str> = many.iter().map(|(total, _, _)| total.as_str()).collect();
    assert_eq!(
        totals,
        ["2", "10", "4", "40", "92", "352", "724", "2680", "14200", "73712", "365596"]
    );
    // Threads beyond the processors take turns on them: the plan is the one made for the processors.
    assert_eq!(many, units_and_totals(num_cpus::get()));
}

#[test]
fn json_describes_the_program_the_machine_and_each_board() {
    let out = nqueens()
        .args([
            "count",
            "6..8",
            "--format",
            "json",
            "--threads",
            "2",
            "--symmetry",
            "none",
        ])
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(doc["program"]["name"], "nqueens");
    assert_eq!(doc["program"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(doc["machine"]["cpu_model"].is_string());
    assert!(doc["machine"]["logical_cores"].as_u64().unwrap() >= 1);
    assert!(doc["timestamp"].as_str().unwrap().ends_with('Z'));
    let results = doc["results"].as_array().unwrap();
    let totals: Vec<u64> = results
        .iter()
        .map(|r| r["total"].as_u64().unwrap())
        .collect();
    assert_eq!(totals, [4, 40, 92]);
    for r in results {
        assert_eq!(r["threads"], 2);
        assert_eq!(r["symmetry"], "none");
        assert!(r["seconds"].as_f64().unwrap() >= 0.0);
        assert!(r["units"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn json_round_trips_into_the_report_type() {
    let out = nqueens()
        .args(["count", "7", "--format", "json"])
        .assert()
        .success();
    let report: nqueens::Report = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(report.results[0].total, 40);
}

#[test]
fn full_symmetry_reports_unique_solutions_and_other_modes_do_not() {
    let json = |symmetry: &str| -> serde_json::Value {
        let out = nqueens()
            .args(["count", "9", "--format", "json", "--symmetry", symmetry])
            .assert()
            .success();
        serde_json::from_slice(&out.get_output().stdout).unwrap()
    };
    assert_eq!(json("full")["results"][0]["unique"], 46);
    assert_eq!(json("full")["results"][0]["total"], 352);
    assert!(json("mirror")["results"][0].get("unique").is_none());
    assert_eq!(json("none")["results"][0]["total"], 352);
}

#[test]
fn check_covers_unique_counts() {
    nqueens()
        .args(["count", "10", "--check", "--format", "csv"])
        .assert()
        .success()
        .stdout(contains("10,724,92,").and(contains(",ok")));
}

#[test]
fn markdown_is_a_table() {
    nqueens()
        .args(["count", "8", "--format", "markdown"])
        .assert()
        .success()
        .stdout(contains("| n | total | unique |").and(contains("| 8 | 92 | 12 |")));
}

#[test]
fn split_depth_and_symmetry_are_honoured_and_reported() {
    let out = nqueens()
        .args([
            "count",
            "10",
            "--split-depth",
            "3",
            "--symmetry",
            "mirror",
            "--format",
            "json",
        ])
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["results"][0]["split_depth"], 3);
    assert_eq!(doc["results"][0]["symmetry"], "mirror");
    assert_eq!(doc["results"][0]["total"], 724);
}

#[test]
fn check_marks_published_counts_ok() {
    nqueens()
        .args(["count", "8", "--check"])
        .assert()
        .success()
        .stdout(contains("check").and(contains("ok")));
}

#[test]
fn check_fails_with_its_own_exit_code_on_a_mismatch() {
    nqueens()
        .env("NQUEENS_TEST_OFFSET", "1")
        .args(["count", "8", "--check"])
        .assert()
        .code(3)
        .stdout(contains("MISMATCH"))
        .stderr(contains(
            "counted 93 as the total, but the published value is 92",
        ));
}

#[test]
fn verify_checks_a_range() {
    nqueens()
        .args(["verify", "4..11"])
        .assert()
        .success()
        .stdout(contains("2680"))
        .stderr(contains("all counts match"));
}

#[test]
fn rectangles_have_no_published_count_to_verify_or_check() {
    for args in [&["verify", "8x6"][..], &["count", "8", "8x6", "--check"]] {
        nqueens()
            .args(args)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(
                contains("the rectangle 8x6 has no published count")
                    .and(contains("all counts match").not()),
            );
    }
    nqueens()
        .args(["count", "8x6"])
        .assert()
        .success()
        .stdout(contains("550"));
}

#[test]
fn a_rectangle_is_named_rows_x_columns_in_every_format() {
    let count = |format: &str| {
        let out = nqueens()
            .args(["count", "8x6", "--format", format])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(count("table")
        .lines()
        .nth(1)
        .unwrap()
        .trim_start()
        .starts_with("8x6 "));
    assert!(count("csv").lines().nth(1).unwrap().starts_with("8x6,550,"));
    assert!(count("markdown").contains("| 8x6 | 550 |"));
    let json: serde_json::Value = serde_json::from_str(&count("json")).unwrap();
    let result = &json["results"][0];
    assert_eq!((&result["n"], &result["cols"]), (&8.into(), &6.into()));
    // A square has no columns field: `n` says it all.
    let square = nqueens()
        .args(["count", "8", "--format", "json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&square.stdout).unwrap();
    assert!(json["results"][0].get("cols").is_none());
}

#[test]
fn verify_has_a_default_range() {
    nqueens()
        .args(["verify", "--quiet", "--format", "csv"])
        .assert()
        .success()
        .stdout(predicate::function(|out: &str| out.lines().count() == 18));
}

#[test]
fn output_file_gets_the_results_and_stdout_stays_empty() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("counts.json");
    // Standard error says what was counted, each board as the user named it.
    nqueens()
        .args(["count", "8", "8x6", "--format", "json", "--output"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::is_empty())
        .stderr(contains("n = 8: 92 solutions in "))
        .stderr(contains("the board 8x6: 550 solutions in "));
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(doc["results"][0]["total"], 92);
    let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(leftovers, 1, "no temporary file is left behind");
}

#[test]
fn dash_is_standard_output() {
    nqueens()
        .args(["count", "8", "--output", "-"])
        .assert()
        .success()
        .stdout(contains("92"));
}

#[test]
fn bad_sizes_are_usage_errors() {
    for (arg, message) in [
        ("eight", "not a board size"),
        ("-3", "cannot be negative"),
        ("65", "up to n = 64"),
        ("9..4", "reversed range: write 4..9"),
        (
            "99999999999",
            "n = 99999999999 is too large: the bitmask kernel handles boards up to n = 64",
        ),
        (
            "200x3",
            "'200x3' is too large: the bitmask kernel handles boards of up to 64 rows and 64 columns \
             (`nqueens solve 200x3` finds one solution",
        ),
    ] {
        nqueens()
            .args(["count", arg])
            .assert()
            .code(2)
            .stderr(contains(message))
            .stdout(predicate::str::is_empty());
    }
}

#[test]
fn bad_options_are_usage_errors() {
    for args in [
        &["count", "8", "--threads", "0"][..],
        &["count", "8", "--format", "xml"],
        &["count", "8", "--symmetry", "rotations"],
        &["count"],
    ] {
        nqueens().args(args).assert().code(2);
    }
    nqueens()
        .args(["count", "8", "--format", "xml"])
        .assert()
        .stderr(contains("use one of table, json, csv, markdown"));
    nqueens()
        .args(["count", "8", "--symmetry", "rotations"])
        .assert()
        .stderr(contains("use one of none, mirror, full"));
}

/// The commands that take a board size, each with arguments that make it run quickly on `6`, and what its
/// message offers to write instead of a size it cannot read: only what the command takes.
const BOARD_COMMANDS: [(&str, &[&str], &str); 7] = [
    ("count", &["count"], MANY_BOARDS),
    ("estimate", &["estimate", "--sample", "1ms"], MANY_BOARDS),
    (
        "verify",
        &["verify"],
        "a number such as 8, or a range such as 4..16",
    ),
    (
        "units",
        &["units"],
        "a number such as 8, or rows x columns such as 8x6",
    ),
    (
        "bench",
        &["bench", "--runs", "1", "--warmup", "0", "--n"],
        "a number such as 8",
    ),
    (
        "list",
        &["list"],
        "a number such as 8, or rows x columns such as 8x6",
    ),
    (
        "solve",
        &["solve"],
        "a number such as 8, or rows x columns such as 8x6",
    ),
];

const MANY_BOARDS: &str =
    "a number such as 8, a range such as 4..16, or rows x columns such as 8x6";

#[test]
fn every_command_reads_a_board_size_alike() {
    let takes_ranges = |name: &str| ["count", "estimate", "verify"].contains(&name);
    for (name, command, examples) in BOARD_COMMANDS {
        let one_board = match name {
            "list" | "solve" | "units" => "name one board (N or RxC), not a range",
            _ => "name one board (a single N), not a range",
        };
        let refusals = [
            ("-1", "'-1': board sizes cannot be negative".to_string()),
            // Read by clap as the short options `-3` and `-x`, with a tip to make them file names.
            ("-3x2", "'-3x2': board sizes cannot be negative".to_string()),
            ("-3..5", "'-3..5': board sizes cannot be negative".to_string()),
            ("", format!("'' is not a board size: use {examples}")),
            ("1e3", format!("'1e3' is not a board size: use {examples}")),
            ("eight", format!("'eight' is not a board size: use {examples}")),
            // A number, but not a count of rows: the message names what to take away.
            (
                "8.0",
                format!(
                    "'8.0' is not a board size: sizes are whole numbers, without a decimal point; use {examples}"
                ),
            ),
            (
                "4..",
                if takes_ranges(name) {
                    "'4..' is a range without a last end: write both, such as 4..16".into()
                } else {
                    format!("'4..': {one_board}")
                },
            ),
            (
                "..8",
                if takes_ranges(name) {
                    "'..8' is a range without a first end: write both, such as 4..16".into()
                } else {
                    format!("'..8': {one_board}")
                },
            ),
            (
                "8..4",
                if takes_ranges(name) {
                    "'8..4' is a reversed range: write 4..8".into()
                } else {
                    format!("'8..4': {one_board}")
                },
            ),
            (
                "99999999999",
                if name == "solve" {
                    "'99999999999' is too large: boards go up to 100000000 rows and columns".into()
                } else {
                    "n = 99999999999 is too large: the bitmask kernel handles boards up to n = 64".into()
                },
            ),
        ];
        for (size, message) in refusals {
            nqueens()
                .args(command)
                .arg(size)
                .assert()
                .code(2)
                .stdout("")
                .stderr(format!("error: {message}\n"));
        }
        // Spaces around a number, a sign and leading zeros are the number, in every command.
        for size in [" 6", "6 ", "+6", "06"] {
            nqueens().args(command).arg(size).assert().success();
        }
    }
    // Where the output is the board's alone, it is the same.
    for command in [&["units"][..], &["list"], &["solve"]] {
        let out = |size: &str| nqueens().args(command).arg(size).output().unwrap().stdout;
        assert_eq!(out("+06"), out("6"), "{command:?}");
    }
}

#[test]
fn every_command_reads_a_shared_option_alike() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("never.journal");
    let journal = journal.to_str().unwrap();
    let base = |name: &str| -> Vec<&str> {
        match name {
            "count" => vec!["count", "6"],
            "count --checkpoint" => vec!["count", "6", "--checkpoint", journal],
            "verify" => vec!["verify", "6"],
            "estimate" => vec!["estimate", "6", "--sample", "1ms"],
            "units" => vec!["units", "6"],
            "bench" => vec!["bench", "--runs", "1", "--warmup", "0", "--n", "6"],
            "list" => vec!["list", "6"],
            "solve" => vec!["solve", "6"],
            _ => unreachable!("{name}"),
        }
    };
    let threads = &["count", "verify", "estimate", "list", "bench"][..];
    let depth = &["count", "verify", "estimate", "units"][..];
    let symmetry = &["count", "verify", "estimate", "units", "bench"][..];
    let format = &["count", "verify", "estimate", "units"][..];
    let kernel = &["count", "verify", "estimate", "list", "bench"][..];
    let shard = &["count --checkpoint", "estimate", "units"][..];
    for (commands, option, message) in [
        (
            threads,
            &["--threads", "0"][..],
            "invalid value '0' for '--threads <THREADS>': 0 threads would do no work: give a whole number from 1 \
             to 4096",
        ),
        (
            threads,
            &["--threads", "99999"],
            "99999 is more threads than a run may have: give a whole number from 1 to 4096",
        ),
        (
            threads,
            &["--threads", "99999999999"],
            "99999999999 is more threads than a run may have: give a whole number from 1 to 4096",
        ),
        // A negative number is the option's value, refused as such, not taken for an option of its own.
        (
            threads,
            &["--threads", "-1"],
            "give the number of worker threads: a whole number from 1 to 4096, such as 2",
        ),
        (
            threads,
            &["--threads", "8.0"],
            "give the number of worker threads: a whole number from 1 to 4096, such as 2",
        ),
        (threads, &["-t", "2", "-t", "3"], "cannot be used multiple times"),
        (
            depth,
            &["--split-depth", "-1"],
            "give the number of rows placed before the work is split: a whole number from 0, such as 3",
        ),
        (
            depth,
            &["--split-depth", "99999999999"],
            "no board has 99999999999 rows to place before the split (the kernel's have up to 64)",
        ),
        (
            depth,
            &["--split-depth", "7"],
            "error: --split-depth 7 is deeper than n = 6 has rows (6): use a depth from 0 to",
        ),
        (symmetry, &["--symmetry", "FULL"], "unknown symmetry 'FULL': use one of none, mirror, full"),
        (format, &["--format", "xml"], "error: unknown format 'xml': use one of table, json, csv, markdown"),
        (kernel, &["--kernel", "sse"], "unknown kernel `sse` (auto, scalar, avx2 or avx512)"),
        (
            shard,
            &["--shard", "4/4"],
            "error: '4/4' is not a shard: write K/M with 0 <= K < M, such as 3/16",
        ),
        (
            shard,
            &["--shard", "0/11"],
            "shard 0/11: the plan of n = 6, symmetry full, split depth 3 has 10 units",
        ),
        (
            shard,
            &["--shard-count", "2"],
            "error: --shard-count goes with --shard auto: without --shard the run counts the whole board",
        ),
    ] {
        for name in commands {
            nqueens()
                .args(base(name))
                .args(option)
                .assert()
                .code(2)
                .stdout("")
                .stderr(contains(message));
        }
    }
    assert!(!std::path::Path::new(journal).exists());
}

#[test]
fn an_unwritable_output_is_refused_before_counting_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing-folder").join("out.json");
    nqueens()
        .args(["count", "8", "--output"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(contains("cannot write"));
    assert!(!path.exists());
    nqueens()
        .args(["count", "8", "--output"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(contains("it is a directory"));
}

/// Runs nqueens with `args`, reads the first line of its standard output (or, with `diagnostics`, of its standard
/// error), then closes that pipe with more to come; returns that line and how the process ended.
fn first_line_then_closed(args: &[&str], diagnostics: bool) -> (String, std::process::Output) {
    first_line_then_closed_in(args, &[], diagnostics)
}

/// [`first_line_then_closed_pipe`] with the variables `env` set.
fn first_line_then_closed_with(
    args: &[&str],
    env: &[(&str, &str)],
) -> (String, std::process::Output) {
    first_line_then_closed_in(args, env, false)
}

/// [`first_line_then_closed`] with the variables `env` set.
fn first_line_then_closed_in(
    args: &[&str],
    env: &[(&str, &str)],
    diagnostics: bool,
) -> (String, std::process::Output) {
    let mut child = common::command(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pipe: Box<dyn std::io::Read> = if diagnostics {
        Box::new(child.stderr.take().unwrap())
    } else {
        Box::new(child.stdout.take().unwrap())
    };
    let mut first = String::new();
    BufReader::new(pipe).read_line(&mut first).unwrap();
    // The reader is dropped here: the pipe is closed with lines still to come.
    (first, child.wait_with_output().unwrap())
}

/// The first line of the results, then the results' pipe closed.
fn first_line_then_closed_pipe(args: &[&str]) -> (String, std::process::Output) {
    first_line_then_closed(args, false)
}

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let (first, output) = first_line_then_closed_pipe(&["count", "1..14"]);
    assert!(first.contains("total"));
    assert!(output.status.success(), "{output:?}");
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn each_boards_total_is_said_on_stderr_unless_its_row_shows_on_stdout_as_it_is_counted() {
    // A table's rows on standard output show as they come; one JSON document comes at the end, and a file or
    // a device (/dev/null) shows nothing: there stderr says each board's total as it is counted.
    let said = |args: &[&str]| {
        let out = nqueens().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stderr).unwrap()
    };
    assert!(!said(&["count", "8"]).contains("n = 8: 92 solutions"));
    assert!(said(&["count", "8", "-f", "json"]).contains("n = 8: 92 solutions"));
    #[cfg(unix)]
    assert!(said(&["count", "8", "-o", "/dev/null"]).contains("n = 8: 92 solutions"));
    assert!(!said(&["count", "8", "-f", "json", "-q"]).contains("solutions"));
}

#[test]
fn a_closed_pipe_keeps_a_failure_found_before_it() {
    // `check bad.txt | head -1`, `verify 4..14 | head -1`: the answer was found before the reader left, and
    // the exit code is the answer (1: invalid; 3: a count that differs from the published value), not 0.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "1 2 3 4\n".repeat(20_000)).unwrap();
    let (first, output) = first_line_then_closed_pipe(&["check", bad.to_str().unwrap()]);
    assert!(first.starts_with("line 1: invalid"), "{first}");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("invalid"));
    let (first, output) =
        first_line_then_closed_with(&["verify", "4..14"], &[("NQUEENS_TEST_OFFSET", "1")]);
    assert!(first.contains("total"), "{first}");
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    // Valid solutions, the pipe closed as early: quietly, 0.
    let good = dir.path().join("good.txt");
    std::fs::write(&good, "2 4 1 3\n".repeat(20_000)).unwrap();
    let (_, output) = first_line_then_closed_pipe(&["check", good.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
}

#[test]
fn a_closed_standard_error_stops_no_count() {
    // A line every millisecond: dozens more come after the pipe is closed. Each is dropped; the count goes on
    // and its result reaches standard output (where `eprintln!` had panicked: exit code 101).
    // As a log's pipe that goes away (`2>&1 | head -1` of a long run).
    let (first, output) = first_line_then_closed(
        &["count", "16", "--progress-every", "1ms", "-f", "csv"],
        true,
    );
    assert!(first.starts_with("n = 16: "), "{first}");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains(",14772512,"), "{stdout}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_standard_output_that_cannot_take_the_results_is_named_in_the_error() {
    // `> /dev/full`: the message says that the results were lost on their way to standard output, not only
    // "No space left on device", which reads as if a file of the program's had filled the disk.
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: /dev/full cannot be opened here");
        return;
    };
    for args in [
        &["count", "8"][..],
        &["count", "8", "-f", "json", "-q"],
        &["list", "8"],
        &["solve", "1000"],
        &["verify", "4..6"],
        &["units", "8"],
    ] {
        let output = common::command(assert_cmd::cargo::cargo_bin("nqueens"))
            .args(args)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("could not write to standard output: No space left on device"),
            "{args:?}: {stderr}"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_usage_error_that_standard_error_cannot_take_still_ends_with_its_code() {
    // Standard error on a full device: the message is dropped as any diagnostic is, and the exit code is the
    // usage error's 2, whether clap found it (`-t 0`, an unknown option or command) or the program did.
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: /dev/full cannot be opened here");
        return;
    };
    for args in [
        &["count", "8", "-t", "0"][..],
        &["count", "--bogus"],
        &["bogus"],
        &["count", "99"],
    ] {
        let status = common::command(assert_cmd::cargo::cargo_bin("nqueens"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(full.try_clone().unwrap())
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}");
    }
    // Help is a result: standard output that cannot take it fails the command.
    let status = common::command(assert_cmd::cargo::cargo_bin("nqueens"))
        .arg("--help")
        .stdout(full)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
}

#[test]
fn a_closed_pipe_ends_units_quietly_in_json_and_csv() {
    // serde_json and csv wrap the write's error in their own, which must still read as a closed pipe (103,487
    // units still to come).
    for format in ["json", "csv"] {
        let (first, output) = first_line_then_closed_pipe(&["units", "16", "--format", format]);
        assert!(!first.is_empty(), "{format}: no first line");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{format}: {output:?}");
        assert!(!stderr.contains("error"), "{format}: {stderr}");
    }
}

#[test]
fn a_log_gets_a_plain_line_of_progress_at_the_interval_asked_for() {
    // Standard error is a pipe here, as in a batch job's log file: lines, never a bar.
    let out = nqueens()
        .args([
            "count",
            "16",
            "-t",
            "1",
            "--progress-every",
            "20ms",
            "-f",
            "csv",
        ])
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    let units: u64 = csv::Reader::from_reader(stdout.as_bytes())
        .records()
        .next()
        .unwrap()
        .unwrap()[8]
        .parse()
        .unwrap();
    assert!(!stderr.contains(['\r', '\x1b']), "{stderr:?}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        !lines.is_empty(),
        "a count of some 0.3 s or more, a line every 20 ms"
    );
    let (mut last, mut last_work) = (0, 0.0);
    for line in &lines {
        // n = 16: 37360 of 103487 units counted (36.1%, about 41% of the work) in 0.2s, about 0.3s left
        let rest = line
            .strip_prefix("n = 16: ")
            .unwrap_or_else(|| panic!("{line}"));
        let words: Vec<&str> = rest.split_whitespace().collect();
        let done: u64 = words[0].parse().unwrap();
        assert_eq!(words[1..4], ["of", &units.to_string(), "units"], "{line}");
        // Lines come by the clock, not as units end: two may show the same units.
        assert!(last <= done && done <= units, "{line}");
        // The share of the work, estimated, grows with the units.
        assert_eq!(words[8..11], ["of", "the", "work)"], "{line}");
        let work: f64 = words[7].trim_end_matches('%').parse().unwrap();
        assert!(last_work <= work && work <= 100.0, "{line}");
        (last, last_work) = (done, work);
    }
    // By default a short run writes no line (the first comes after 10 minutes); `0` and `--quiet` none at all.
    for args in [
        &["count", "14"][..],
        &["count", "14", "--progress-every", "0"],
        &["count", "14", "-q"],
        &["count", "14", "--progress-every", "0", "-q"],
        // `00` is 0 too: it was refused as "time unit needed, for example 0sec".
        &["count", "14", "--progress-every", "00"],
    ] {
        nqueens().args(args).assert().success().stderr("");
    }
    nqueens()
        .args(["count", "8", "--progress-every", "soon"])
        .assert()
        .code(2)
        .stderr(contains("give a duration such as 30s"));
}

#[test]
fn quiet_with_an_interval_asked_for_writes_the_lines_and_nothing_else() {
    // `-q --progress-every 30m`, as a batch job's log wants it: the lines asked for by name win over `-q`,
    // which silenced them without a word; the rest stays quiet. Without `-q`, a count to a file also says its
    // total on stderr.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("n16.csv");
    let run = |quiet: bool| {
        let mut command = nqueens();
        command.args([
            "count",
            "16",
            "-t",
            "1",
            "--progress-every",
            "20ms",
            "-f",
            "csv",
            "-o",
        ]);
        command.arg(&file);
        if quiet {
            command.arg("-q");
        }
        let out = command.assert().success().stdout("");
        String::from_utf8(out.get_output().stderr.clone()).unwrap()
    };
    let loud = run(false);
    assert!(loud.contains("n = 16: 14772512 solutions in "), "{loud}");
    let quiet = run(true);
    assert!(
        !quiet.is_empty(),
        "a count of some 0.3 s or more, a line every 20 ms"
    );
    for line in quiet.lines() {
        assert!(
            line.starts_with("n = 16: ") && line.contains(" units counted ("),
            "{line}"
        );
    }
    let help = String::from_utf8(
        nqueens()
            .args(["count", "--help"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone(),
    )
    .unwrap();
    assert!(
        help.contains("Given with `--quiet`, these lines are written all the same"),
        "{help}"
    );
}

#[test]
fn estimate_and_units_take_quiet_and_print_the_results_alone() {
    // `units -f csv` says the plan it lists on stderr, beside the CSV; `-q` leaves the CSV, the same, alone.
    let loud = nqueens()
        .args(["units", "8", "-f", "csv"])
        .assert()
        .success();
    let loud = loud.get_output();
    assert!(
        String::from_utf8_lossy(&loud.stderr).contains("n = 8, symmetry full, split depth"),
        "{loud:?}"
    );
    for quiet in ["-q", "--quiet"] {
        nqueens()
            .args(["units", "8", "-f", "csv", quiet])
            .assert()
            .success()
            .stderr("")
            .stdout(String::from_utf8(loud.stdout.clone()).unwrap());
    }
    // `estimate -q`: the same table, and nothing on stderr but the warning of a machine too busy for its
    // figures to hold, which a test on a shared machine may see (`estimate_says_when_...` makes it).
    let table = |args: &[&str]| {
        let out = nqueens().args(args).assert().success();
        let out = out.get_output();
        let stdout = String::from_utf8(out.stdout.clone()).unwrap();
        let stderr = String::from_utf8(out.stderr.clone()).unwrap();
        (stdout, stderr)
    };
    let (loud, _) = table(&["estimate", "10", "-t", "1", "--sample", "20ms"]);
    let (quiet, said) = table(&["estimate", "10", "-t", "1", "--sample", "20ms", "-q"]);
    for line in said.lines() {
        assert!(
            line.contains("the rest going to other work on this machine"),
            "{said}"
        );
    }
    let columns = |table: &str| -> Vec<String> {
        table
            .lines()
            .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .collect()
    };
    assert_eq!(columns(&quiet), columns(&loud), "{quiet}\n{loud}");
    assert_eq!(quiet.lines().count(), 2, "{quiet}");
    let help = String::from_utf8(
        nqueens()
            .args(["estimate", "--help"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone(),
    )
    .unwrap();
    assert!(help.contains("-q, --quiet"), "{help}");
}

#[test]
fn a_progress_interval_under_a_millisecond_is_refused() {
    // `count 12 -t 1 --progress-every 1ns` printed its result and never ended. A line every nanosecond is a
    // slip for another unit, not a log anyone reads: refused as bad usage, for `count` and `verify` alike.
    for args in [
        &["count", "12", "-t", "1", "--progress-every", "1ns"][..],
        &["count", "12", "--progress-every", "30ns"],
        &["count", "12", "--progress-every", "999us"],
        &["verify", "4..6", "-t", "1", "--progress-every", "1ns"],
    ] {
        nqueens()
            .args(args)
            .timeout(std::time::Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(contains("is too often: give 1ms or more"))
            .stdout("");
    }
    // A zero in any unit writes no lines, as `0` does; a millisecond is the shortest interval, and ends.
    nqueens()
        .args(["count", "12", "--progress-every", "0s"])
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .success()
        .stderr("");
    nqueens()
        .args(["count", "12", "-t", "1", "--progress-every", "1ms"])
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .success()
        .stdout(contains("14200"));
}

#[test]
fn a_negative_duration_or_number_is_refused_saying_what_is_wrong() {
    // `--progress-every -5s` was taken by clap for an option of its own: "unexpected argument '-5' found ...
    // use '-- -5'", which says nothing of durations and suggests what would not work. Each option that takes
    // a duration, a shard or a count says what is wrong with the value, with the usage error's code.
    let dir = tempfile::tempdir().unwrap();
    let duration = "a duration cannot be negative: give a duration such as";
    for (args, message) in [
        (&["count", "10", "--progress-every", "-5s"][..], duration),
        (&["verify", "4..6", "--progress-every", "-1m"], duration),
        (
            &["count", "10", "--checkpoint", "g", "--stop-grace", "-1s"],
            duration,
        ),
        (&["estimate", "10", "--sample", "-2s"], duration),
        (&["estimate", "10", "--sample=-2s"], duration),
        // An option where the value should be: said so, and named, rather than taken for a duration.
        (
            &["count", "10", "--progress-every", "--quiet"],
            "'--quiet' is an option, not a value",
        ),
        (
            &["count", "10", "--checkpoint", "g", "--shard", "-1/4"],
            "a shard cannot be negative: write K/M with 0 <= K < M, such as 3/16",
        ),
        (
            &["units", "10", "--shard", "-1/4"],
            "a shard cannot be negative",
        ),
        (
            &["estimate", "10", "--shard", "-1/4"],
            "a shard cannot be negative",
        ),
        (&["bench", "--runs", "-1"], "-1 is not in 1..=1000"),
        (&["bench", "--warmup", "-1"], "-1 is not in 0..=100"),
        (
            &["count", "10", "--gpus", "-1,2"],
            "a GPU's number cannot be negative",
        ),
        (
            &["estimate", "10", "--shard", "auto", "--shard-count", "-2"],
            "-2 is not in 1..=4294967295",
        ),
        (
            &["bench", "--gpus", "-1"],
            "a GPU's number cannot be negative: give them as 0,1,2",
        ),
    ] {
        nqueens()
            .current_dir(dir.path())
            .args(args)
            .timeout(std::time::Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(contains(message).and(contains("unexpected argument").not()))
            .stdout("");
    }
    assert!(!dir.path().join("g").exists(), "refused before any journal");
}

#[test]
fn a_large_board_writes_its_lines_on_time_while_its_units_are_long() {
    // n = 26 on one thread: each unit takes minutes. The lines come at the interval all the same, so a log
    // shows the run alive and how long it has run.
    let mut child = common::command(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["count", "26", "-t", "1", "--progress-every", "100ms"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok).take(2) {
            let _ = send.send(line);
        }
    });
    let first = lines.recv_timeout(std::time::Duration::from_secs(60));
    let second = lines.recv_timeout(std::time::Duration::from_secs(10));
    child.kill().unwrap();
    child.wait().unwrap();
    for line in [first, second] {
        let line = line.expect("a line of progress within seconds");
        assert!(line.starts_with("n = 26: "), "{line}");
        assert!(
            line.contains(" units counted (") && line.contains(" of the work) in "),
            "{line}"
        );
    }
}

#[test]
fn version_names_the_build() {
    nqueens()
        .arg("--version")
        .assert()
        .success()
        .stdout(contains(env!("CARGO_PKG_VERSION")).and(contains("rustc")));
}

#[test]
fn every_kernel_the_processor_runs_gives_the_same_counts_and_says_which_ran() {
    for kernel in nqueens::engine::kernel::Kernel::ALL {
        let out = nqueens()
            .args([
                "count", "12", "13", "--format", "json", "--check", "--kernel",
            ])
            .arg(kernel.name())
            .output()
            .unwrap();
        if !kernel.available() {
            assert_eq!(out.status.code(), Some(2), "{kernel} is refused here");
            assert!(String::from_utf8_lossy(&out.stderr).contains("cannot run the"));
            continue;
        }
        assert!(
            out.status.success(),
            "{kernel}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let results = json["results"].as_array().unwrap();
        assert_eq!(results[0]["total"], 14200);
        assert_eq!(results[1]["total"], 73712);
        assert_eq!(results[1]["unique"], 9233);
        assert_eq!(results[0]["kernel"], kernel.name());
    }
}

#[test]
fn rectangles_name_the_loop_that_counted_them() {
    // The fastest loop of this processor, as for squares, unless another is asked for.
    let best = nqueens::engine::kernel::Kernel::best().name();
    nqueens()
        .args(["count", "8x6", "--format", "csv"])
        .assert()
        .success()
        .stdout(contains(format!(",mirror,{best},")));
    nqueens()
        .args(["--kernel", "scalar", "count", "8x6", "--format", "csv"])
        .assert()
        .success()
        .stdout(contains(",mirror,scalar,"));
}

#[test]
fn an_unknown_kernel_is_refused() {
    nqueens()
        .args(["count", "8", "--kernel", "sse9"])
        .assert()
        .code(2)
        .stderr(contains("unknown kernel `sse9`"));
}

#[test]
fn the_gpu_backend_says_what_is_missing_before_writing_anything() {
    // Without the `cuda` feature (the default build) the arguments ask for what the build cannot do: exit 2.
    // With it but without a GPU: exit 1. Either way a message and nothing on stdout.
    if nqueens::gpu::device().is_ok() {
        eprintln!("skipped: this machine has a GPU, so the backend does not fail");
        return;
    }
    let code = if cfg!(feature = "cuda") { 1 } else { 2 };
    // The first board is counted while the driver is asked for the GPU: still nothing may be written.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("n10.json");
    let out = nqueens()
        .args(["count", "10", "--backend", "gpu", "--export-json"])
        .arg(&json)
        .assert()
        .failure()
        .code(code);
    let output = out.get_output();
    assert!(
        output.stdout.is_empty(),
        "nothing written before the GPU is found"
    );
    assert!(
        !json.exists(),
        "no export is left for a run that could not start"
    );
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("--features cuda")
            || err.contains("CUDA")
            || err.contains("NVRTC")
            || err.contains("GPU"),
        "{err}"
    );
    let journal = dir.path().join("n12.journal");
    nqueens()
        .args(["count", "12", "--backend", "gpu", "--checkpoint"])
        .arg(&journal)
        .assert()
        .failure()
        .code(code)
        .stdout("");
    assert!(
        !journal.exists(),
        "no journal is left for a run that could not start"
    );
}

#[test]
fn a_kernel_switch_that_is_no_choice_is_refused_before_anything_runs() {
    // `NQUEENS_GPU_DEFINES` picks the kernel's variants for measuring: 3 turns between tests for a task's end
    // is no choice, the sentinels' squares are the program's to fit to the board, a variant measured slower
    // and removed is no switch any more, and the loop without the look-ahead does not take the name of the
    // look-ahead's form. Refused as bad input (exit 2), with or without the GPU backend in the build.
    for (defines, n) in [
        ("NQ_PLAIN NQ_UNROLL=3u", "8"),
        ("NQ_SENTINEL_SQUARES=8u", "26"),
        ("NQ_AHEAD_XOR NQ_SOA", "20"),
        ("NQ_AHEAD_KEPT_FIRST", "12"),
        ("NQ_PLAIN NQ_AHEAD_XOR", "12"),
    ] {
        nqueens()
            .env("NQUEENS_GPU_DEFINES", defines)
            .args(["count", n, "--backend", "gpu"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(contains(defines.split_whitespace().last().unwrap()));
    }
    // The GPU's benchmark too, before it looks for a GPU (with the backend, the switch is named).
    let refused = nqueens()
        .env("NQUEENS_GPU_DEFINES", "garbage")
        .args(["bench", "--quick", "--backend", "gpu"])
        .assert()
        .code(2)
        .stdout("");
    if cfg!(feature = "cuda") {
        refused.stderr(contains("garbage: not a switch of the kernel"));
    }
}

#[test]
fn the_gpu_benchmark_without_a_gpu_exits_as_count_does() {
    // Exit 2 without the `cuda` feature, 1 with it but without a GPU: the same codes as `count`.
    if nqueens::gpu::device().is_ok() {
        eprintln!("skipped: this machine has a GPU, so the backend does not fail");
        return;
    }
    let code = if cfg!(feature = "cuda") { 1 } else { 2 };
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    nqueens()
        .args(["bench", "--quick", "--backend", "gpu", "--export-json"])
        .arg(&json)
        .assert()
        .code(code)
        .stdout("")
        .stderr(contains("GPU"));
    assert!(!json.exists(), "nothing written before the GPU is found");
}

#[test]
fn a_gpu_estimate_without_a_gpu_exits_as_count_does_and_writes_nothing() {
    // `estimate --backend gpu` measures the GPUs on samples of the run's tasks: exit 2 without the `cuda`
    // feature, 1 with it but without a GPU, before any board is sampled or any file written.
    if nqueens::gpu::device().is_ok() {
        eprintln!("skipped: this machine has a GPU, so the backend does not fail");
        return;
    }
    let code = if cfg!(feature = "cuda") { 1 } else { 2 };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("e.json");
    nqueens()
        .args(["estimate", "14", "--backend", "gpu", "-f", "json", "-o"])
        .arg(&file)
        .assert()
        .code(code)
        .stdout("")
        .stderr(contains("GPU"));
    assert!(!file.exists(), "nothing written before the GPU is found");
    // Bad input, found before the GPU is looked for: a board too wide for the kernel, GPUs named for the
    // threads, an unknown backend.
    for (args, message) in [
        (
            &["estimate", "12", "29", "--backend", "gpu"][..],
            if cfg!(feature = "cuda") {
                "up to 28 columns wide"
            } else {
                "without the GPU backend"
            },
        ),
        (&["estimate", "12", "--gpus", "0"], "add --backend gpu"),
        (&["estimate", "12", "--backend", "tpu"], "cpu or gpu"),
    ] {
        nqueens()
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(contains(message));
    }
}

#[test]
fn the_gpu_backend_refuses_boards_beyond_its_masks_and_unknown_backends() {
    nqueens()
        .args(["count", "29", "--backend", "gpu"])
        .assert()
        .code(2)
        .stderr(contains("up to 28 columns wide"));
    nqueens()
        .args(["count", "10", "--backend", "gpu", "--gpus", "0,x"])
        .assert()
        .code(2)
        .stderr(contains("'x' is not a GPU number"));
    nqueens()
        .args(["count", "10", "--backend", "tpu"])
        .assert()
        .code(2)
        .stderr(contains("cpu or gpu"));
    nqueens()
        .args(["bench", "--quick", "--backend", "tpu"])
        .assert()
        .code(2);
}

#[test]
fn gpus_are_named_for_the_gpu_backend_alone() {
    // GPUs named while the CPU counts would be ignored: refused as bad input, before anything runs or is written.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("n10.journal");
    nqueens()
        .args(["count", "10", "--gpus", "0,1", "--checkpoint"])
        .arg(&journal)
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains(
            "--gpus 0,1 names the GPUs that --backend gpu counts on",
        ));
    assert!(!journal.exists());
    nqueens()
        .args(["verify", "8", "--backend", "cpu", "--gpus", "0"])
        .assert()
        .code(2)
        .stderr(contains("add --backend gpu"));
    nqueens()
        .args(["bench", "--quick", "--gpus", "0"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains("--gpus 0 names the GPUs"));
}

#[test]
fn nodes_are_left_uncounted_on_the_gpu_alone() {
    // The CPU counts its nodes at no cost: asking it not to is refused as bad input, before anything runs or is
    // written.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("n10.journal");
    nqueens()
        .args(["count", "10", "--uncounted-nodes", "--checkpoint"])
        .arg(&journal)
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains("--uncounted-nodes changes the GPUs' kernel alone"));
    assert!(!journal.exists());
    nqueens()
        .args(["verify", "8", "--uncounted-nodes"])
        .assert()
        .code(2)
        .stderr(contains("add --backend gpu"));
    // A benchmark's rate is of nodes: the kernel without them is refused (as is the GPU backend itself, in a
    // build without it).
    let expected = if cfg!(feature = "cuda") {
        "NQ_UNCOUNTED"
    } else {
        "without the GPU backend"
    };
    nqueens()
        .env("NQUEENS_GPU_DEFINES", "NQ_UNCOUNTED")
        .args(["bench", "--quick", "--backend", "gpu"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains(expected));
}

/// The commands `nqueens --help` lists, as clap knows them (clap's own `help` aside).
fn commands_from_help() -> Vec<String> {
    let out = nqueens().arg("--help").assert().success();
    let help = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let names: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|name| name != "help")
        .collect();
    assert!(names.len() >= 10, "the help lists the commands:\n{help}");
    names
}

#[test]
fn every_shell_gets_a_completion_script_naming_the_commands() {
    let commands = commands_from_help();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = nqueens().args(["completions", shell]).assert().success();
        let script = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert!(!script.trim().is_empty(), "{shell}: an empty script");
        for command in &commands {
            assert!(
                script.contains(command.as_str()),
                "{shell}: no '{command}' in the script"
            );
        }
    }
    nqueens()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(contains("bash"));
}

#[test]
fn every_shell_offers_the_names_of_man_and_completions_and_none_offers_a_hidden_option() {
    // fish's, elvish's and PowerShell's generators offer options' values only: `nqueens man <TAB>` offered
    // the folder's files. And every generator offered the `--kernel` before the command that `--help`
    // hides, with the text of its doc comment.
    let pages = commands_from_help();
    let shells = ["bash", "zsh", "fish", "elvish", "powershell"];
    for shell in shells {
        let out = nqueens().args(["completions", shell]).assert().success();
        let script = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        let offered = |command: &str, name: &str| match shell {
            "fish" => script.contains(&format!(
                "-n \"__fish_nqueens_using_subcommand {command}\" -f -a \"{name}\""
            )),
            "elvish" => script
                .split_once(&format!("&'nqueens;{command}'= {{"))
                .and_then(|(_, block)| block.split_once('}'))
                .is_some_and(|(block, _)| block.contains(&format!("cand {name} "))),
            "powershell" => script
                .split_once(&format!("'nqueens;{command}' {{"))
                .and_then(|(_, block)| block.split_once("break"))
                .is_some_and(|(block, _)| block.contains(&format!("::new('{name}', '{name}'"))),
            // bash and zsh list an operand's names as its options' (the test of the options' names).
            _ => script.contains(name),
        };
        for page in &pages {
            assert!(offered("man", page), "{shell}: man {page} is not offered");
        }
        for name in shells {
            assert!(
                offered("completions", name),
                "{shell}: completions {name} is not offered"
            );
        }
        assert!(
            !script.contains("the form of version 0.2"),
            "{shell} offers the hidden --kernel"
        );
    }
    let fish = nqueens().args(["completions", "fish"]).assert().success();
    let fish = String::from_utf8(fish.get_output().stdout.clone()).unwrap();
    assert!(
        fish.contains("string join \\n h/help V/version\n"),
        "{fish}"
    );
    // The hidden form still works, given once.
    nqueens()
        .args(["--kernel", "scalar", "count", "8", "-q"])
        .assert()
        .success()
        .stdout(contains("92"));
}

#[test]
fn a_kernel_given_before_the_command_and_after_it_is_refused() {
    // The one after the command was used, the one before dropped unsaid; clap refuses an option given twice
    // after the command as well.
    nqueens()
        .args(["--kernel", "scalar", "count", "8", "--kernel", "auto"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            "error: --kernel is given twice, as scalar before the command and auto after it: give it once\n",
        );
}

#[test]
fn the_man_pages_are_ascii_and_their_footer_names_the_version_alone() {
    // The long version (commit, compiler, target) in the footer's middle was printed over by the page's
    // title; and `…` as it was, an invalid input character to groff without preconv.
    let source = format!("\"nqueens {}\"", env!("CARGO_PKG_VERSION"));
    for page in std::iter::once(None).chain(commands_from_help().into_iter().map(Some)) {
        let out = nqueens()
            .arg("man")
            .args(page.as_deref())
            .assert()
            .success();
        let roff = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        let title = roff.lines().find(|l| l.starts_with(".TH ")).unwrap();
        assert!(title.trim_end().ends_with(&source), "{page:?}: {title}");
        assert!(roff.is_ascii(), "{page:?}: characters beyond ASCII");
        // The long version is still the page's.
        assert!(roff.contains("rustc"), "{page:?}: no long version");
    }
    let bench = nqueens().args(["man", "bench"]).assert().success();
    let bench = String::from_utf8(bench.get_output().stdout.clone()).unwrap();
    assert!(bench.contains("1, 2, 4, \\[u2026]"), "{bench}");
}

#[test]
fn the_man_page_names_every_command_and_each_has_its_own_page() {
    let out = nqueens().arg("man").assert().success();
    let page = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        page.starts_with(".ie") || page.contains(".TH nqueens"),
        "roff:\n{page}"
    );
    for command in commands_from_help() {
        assert!(
            page.contains(&format!("nqueens\\-{command}")),
            "no '{command}' in the man page"
        );
        let out = nqueens().args(["man", &command]).assert().success();
        let sub = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert!(
            sub.contains(&format!(".TH nqueens-{command} 1")),
            "the page of {command}:\n{sub}"
        );
    }
    nqueens()
        .args(["man", "nosuch"])
        .assert()
        .code(2)
        .stderr(contains("count"));
    // Every page the top page names is one `nqueens man COMMAND` gives: none for clap's own `help` command,
    // which has no page of its own (`nqueens help count` is `nqueens count --help`).
    assert!(!page.contains("nqueens\\-help"), "{page}");
    nqueens()
        .args(["man", "help"])
        .assert()
        .code(2)
        .stderr(contains("no command 'help'"));
    nqueens().args(["help", "count"]).assert().success();
}

#[test]
fn count_and_verify_write_export_files_beside_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let (json, csv, md) = (
        dir.path().join("c.json"),
        dir.path().join("c.csv"),
        dir.path().join("c.md"),
    );
    for command in [&["count", "4..9"][..], &["verify", "4..9"][..]] {
        let out = nqueens()
            .args(command)
            .arg("--export-json")
            .arg(&json)
            .arg("--export-csv")
            .arg(&csv)
            .arg("--export-markdown")
            .arg(&md)
            .assert()
            .success()
            .stderr(contains("wrote").and(contains("c.md")));
        let table = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert_eq!(
            table.lines().count(),
            7,
            "the table on the terminal:\n{table}"
        );
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert_eq!(report["schema_version"], 1, "the schema of `--format json`");
        assert_eq!(report["status"], "complete");
        let totals: Vec<u64> = report["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["total"].as_u64().unwrap())
            .collect();
        assert_eq!(totals, [2, 10, 4, 40, 92, 352]);
        let mut reader = csv::Reader::from_path(&csv).unwrap();
        assert_eq!(reader.records().count(), 6);
        let markdown = std::fs::read_to_string(&md).unwrap();
        assert_eq!(markdown.lines().filter(|l| l.starts_with("| ")).count(), 7);
        assert!(!markdown.contains("INCOMPLETE"));
        // The verdicts are in the files where a check was asked for.
        assert_eq!(
            report["results"][0].get("check").is_some(),
            command[0] == "verify"
        );
    }
}

#[test]
fn an_interrupted_sweep_leaves_export_files_with_what_it_counted() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("c.json");
    let md = dir.path().join("c.md");
    let mut child = common::command(assert_cmd::cargo::cargo_bin("nqueens"))
        .args([
            "count",
            "4..32",
            "--threads",
            "1",
            "--quiet",
            "--kernel",
            "scalar",
        ])
        .arg("--export-json")
        .arg(&json)
        .arg("--export-markdown")
        .arg(&md)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let boards_so_far = |path: &std::path::Path| -> Option<usize> {
        let report: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        let boards = report["results"].as_array()?.len();
        (boards >= 3).then_some(boards)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while boards_so_far(&json).is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "no boards written in 120 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["status"], "running", "marked as not finished");
    assert_eq!(report["results"][0]["total"], 2);
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.contains("INCOMPLETE"), "{markdown}");
}

#[test]
fn export_files_are_refused_when_they_clash() {
    let dir = tempfile::tempdir().unwrap();
    let same = dir.path().join("same");
    for (args, message) in [
        (vec!["--export-json", "-"], "needs a file name"),
        (
            vec!["--export-csv", "x", "--export-markdown", "x"],
            "named by two exports",
        ),
        (vec!["--export-json", "x", "-o", "x"], "and by --output"),
    ] {
        nqueens()
            .current_dir(dir.path())
            .args(["count", "8"])
            .args(&args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(contains(message));
        assert!(!same.exists());
    }
    assert!(!dir.path().join("x").exists(), "nothing written");
}

#[test]
fn kernel_is_an_option_of_the_commands_that_search_and_nowhere_else() {
    let help = |command: &str| -> String {
        let out = nqueens().args([command, "--help"]).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    for command in ["count", "verify", "bench", "list"] {
        let text = help(command);
        assert!(text.contains("--kernel"), "{command} offers --kernel");
        assert!(
            text.contains("32 searches") && text.contains("24"),
            "{command}:\n{text}"
        );
    }
    for command in ["merge", "plot", "check", "units", "solve"] {
        assert!(
            !help(command).contains("--kernel"),
            "{command} has no --kernel"
        );
    }
    // The form before the command still works where a search runs, and is refused where none does.
    nqueens()
        .args(["--kernel", "scalar", "list", "6", "--quiet"])
        .assert()
        .success();
    nqueens()
        .args(["--kernel", "scalar", "units", "8", "--summary"])
        .assert()
        .code(2)
        .stderr(contains("count, verify, bench, list and estimate"));
}

#[test]
fn format_help_lists_its_values() {
    for command in ["count", "verify", "units", "merge"] {
        let out = nqueens().args([command, "--help"]).assert().success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert!(
            text.contains("table, json, csv, markdown"),
            "{command}:\n{text}"
        );
    }
}

#[test]
fn the_help_and_the_completions_offer_the_names_an_option_takes() {
    // Each option that takes a name from a list, in one of the commands that take it, with the names as
    // `--help` lists them; the shell completions offer the same names, space-separated.
    let pages = commands_from_help().join(", ");
    let cases: [(&str, &str, &str); 8] = [
        ("count", "--symmetry", "none, mirror, full"),
        ("estimate", "--format", "table, json, csv, markdown"),
        ("count", "--backend", "cpu, gpu"),
        ("bench", "--kernel", "auto, scalar, avx2, avx512"),
        ("list", "--format", "rows, zero, board, matrix, json, csv"),
        ("check", "--format", "rows, zero, board, matrix, json, csv"),
        ("solve", "--method", "auto, backtrack, construct"),
        ("man", "COMMAND", &pages),
    ];
    let bash = {
        let out = nqueens().args(["completions", "bash"]).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    for (command, option, names) in cases {
        let out = nqueens().args([command, "--help"]).assert().success();
        let help = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        // The first list of names after the option's heading is its own: an option without one would show
        // the next option's, which is another.
        let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
        let heading = match option {
            "COMMAND" => "[COMMAND]".to_string(),
            _ => format!("{option} <"),
        };
        let listed = flat
            .find(&heading)
            .and_then(|at| flat[at..].split_once("[possible values: "))
            .and_then(|(_, rest)| rest.split_once(']'))
            .map(|(list, _)| list);
        assert_eq!(listed, Some(names), "{command} {option}:\n{help}");
        let words = names.replace(", ", " ");
        assert!(
            bash.contains(&words),
            "{command} {option}: '{words}' not offered"
        );
    }
    // A name outside the list is still refused with the command's own message and exit code 2.
    nqueens()
        .args(["solve", "8", "--method", "guess"])
        .assert()
        .code(2)
        .stdout("")
        .stderr("error: unknown method 'guess': use one of auto, backtrack, construct\n");
}

#[test]
fn units_and_check_write_to_a_file_with_o() {
    let dir = tempfile::tempdir().unwrap();
    let units = dir.path().join("units.csv");
    nqueens()
        .args(["units", "8", "--format", "csv", "-o"])
        .arg(&units)
        .assert()
        .success()
        .stdout("");
    let text = std::fs::read_to_string(&units).unwrap();
    assert!(text.starts_with("unit,border,queens,weight\n"), "{text}");
    assert_eq!(text.lines().count(), 135, "134 units and a header");
    let verdicts = dir.path().join("verdicts");
    nqueens()
        .args(["check", "-o"])
        .arg(&verdicts)
        .write_stdin("[2,4,1,3]\n[1,2,3,4]\n")
        .assert()
        .code(1)
        .stdout("");
    let text = std::fs::read_to_string(&verdicts).unwrap();
    assert!(text.starts_with("line 1: valid\nline 2: invalid"), "{text}");
}

#[test]
fn units_give_a_unique_weight_only_where_unique_solutions_are_counted() {
    // Only the full symmetry counts unique solutions: the others' units have none to weigh.
    let weights = |args: &[&str]| -> Vec<String> {
        let out = nqueens().args(args).args(["-f", "csv"]).assert().success();
        String::from_utf8(out.get_output().stdout.clone())
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.rsplit(',').next().unwrap().to_string())
            .collect()
    };
    for args in [
        &["units", "8", "--symmetry", "mirror"][..],
        &["units", "8", "--symmetry", "none"],
        &["units", "8x6"],
    ] {
        let listed = weights(args);
        assert!(!listed.is_empty());
        assert!(
            listed.iter().all(|w| !w.contains("unique")),
            "{args:?}: {listed:?}"
        );
    }
    assert!(weights(&["units", "8"])
        .iter()
        .any(|w| w.contains("(unique x1)")));
}

#[test]
fn units_list_a_rectangles_plan_in_its_mirror_symmetry() {
    nqueens()
        .args(["units", "8x6", "--summary"])
        .assert()
        .success()
        .stdout(contains("# the board 8x6, symmetry mirror, split depth"));
    // The full symmetry needs a square, as in a count.
    nqueens()
        .args(["units", "8x6", "--symmetry", "full"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains("--symmetry full needs a square board"));
}

#[test]
fn a_resumed_journal_with_nothing_left_reports_no_rate() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j");
    let run = || {
        nqueens()
            .args(["count", "10", "--format", "json", "--checkpoint"])
            .arg(&journal)
            .assert()
            .success()
    };
    let first: serde_json::Value = serde_json::from_slice(&run().get_output().stdout).unwrap();
    assert!(
        first["results"][0]["solutions_per_second"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    let again: serde_json::Value = serde_json::from_slice(&run().get_output().stdout).unwrap();
    assert_eq!(again["results"][0]["total"], 724);
    assert_eq!(
        again["results"][0]["solutions_per_second"], 0.0,
        "no work, no rate"
    );
    let out = nqueens()
        .args(["count", "10", "--checkpoint"])
        .arg(&journal)
        .assert()
        .success();
    let table = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let row: Vec<&str> = table.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(row[row.len() - 2..], ["-", "-"], "{table}");
}

#[test]
fn boards_whose_search_places_no_queen_show_no_node_rate() {
    let out = nqueens().args(["count", "4", "8"]).assert().success();
    let table = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0].last(), Some(&"-"), "{table}");
    assert_ne!(rows[1].last(), Some(&"-"), "{table}");
}

#[test]
fn merging_one_journal_says_journal() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j");
    nqueens()
        .args(["count", "9", "-q", "--checkpoint"])
        .arg(&journal)
        .assert()
        .success();
    nqueens()
        .arg("merge")
        .arg(&journal)
        .assert()
        .success()
        .stderr(contains("merged 1 journal:"));
}

/// The command lines of the README's "Examples" block, without their comments.
fn readme_examples() -> Vec<Vec<String>> {
    let readme = include_str!("../README.md");
    let block = readme
        .split("## Examples")
        .nth(1)
        .and_then(|rest| rest.split("```sh").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("the README has an Examples block");
    block
        .lines()
        .filter_map(|line| line.split('#').next()?.trim().strip_prefix("nqueens "))
        .map(|args| args.split_whitespace().map(str::to_owned).collect())
        .collect()
}

#[test]
fn every_readme_example_is_accepted() {
    let examples = readme_examples();
    assert!(examples.len() >= 15, "{examples:?}");
    let dir = tempfile::tempdir().unwrap();
    for args in examples {
        // The GPU's example needs a build with the GPU backend (without it: exit code 2, as documented).
        if args.iter().any(|a| a == "gpu") {
            continue;
        }
        // A shell expands a pattern (`n20-*.journal`) into the files that match it, here those an earlier
        // example made; one that matches none is left out, as the example would then merge nothing.
        let mut expanded = Vec::new();
        for arg in &args {
            match arg.split_once('*') {
                Some((start, end)) => {
                    let mut matching: Vec<String> = std::fs::read_dir(dir.path())
                        .unwrap()
                        .filter_map(|e| e.ok()?.file_name().into_string().ok())
                        .filter(|name| {
                            name.len() >= start.len() + end.len()
                                && name.starts_with(start)
                                && name.ends_with(end)
                        })
                        .collect();
                    matching.sort();
                    expanded.extend(matching);
                }
                None => expanded.push(arg.clone()),
            }
        }
        if expanded.len() < args.len() && args.iter().any(|a| a.contains('*')) {
            eprintln!(
                "skipped, its pattern matches no file here: nqueens {}",
                args.join(" ")
            );
            continue;
        }
        let args = expanded;
        // Arguments are checked before any counting starts: a long count still running after two seconds
        // took its arguments. Refused ones exit with code 2, and a panic with 101.
        let out = nqueens()
            .args(&args)
            .current_dir(dir.path())
            .timeout(std::time::Duration::from_secs(2))
            .output()
            .unwrap();
        let code = out.status.code();
        assert!(
            code.is_none() || !matches!(code, Some(2) | Some(101)),
            "nqueens {}: exit code {code:?}\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn an_estimate_sampled_on_a_busy_machine_says_how_many_cores_it_had() {
    // The rate is measured on the threads as the machine lets them run: one core shared with a busy loop gives
    // the sampling about half of it, and its time to count is that of a machine so busy. The estimate says so,
    // rather than giving the figure as the machine's. `taskset` pins both to one processor.
    if common::command("taskset").arg("-V").output().is_err() {
        eprintln!("skipped: no taskset");
        return;
    }
    let binary = assert_cmd::cargo::cargo_bin("nqueens");
    // Said with `--quiet` too: the row's rate and time to count are wrong for the machine at rest, and the table
    // does not say so.
    for quiet in ["", " --quiet"] {
        let out = common::command("taskset")
            .args(["-c", "0", "sh", "-c"])
            .arg(format!(
                "yes > /dev/null & busy=$!; \"$0\" estimate 16 -t 1 --sample 1s -f json{quiet}; code=$?; kill $busy; \
                 exit $code"
            ))
            .arg(&binary)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{said}");
        let estimate: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let cores = estimate["results"][0]["sampled_cores"].as_f64().unwrap();
        assert!(cores > 0.0 && cores < 0.8, "{cores} cores, {said}");
        assert!(
            said.contains("16: the sampling had 0.") && said.contains(
                " of the 1 core it asked for, the rest going to other work on this machine: the rate and the \
                 time to count are for a machine as busy as it was"
            ),
            "{quiet}: {said}"
        );
    }
    // Alone on its core (as far as the other work on this machine allows), it had at most that core.
    let out = common::command("taskset")
        .args(["-c", "0"])
        .arg(&binary)
        .args(["estimate", "16", "-t", "1", "--sample", "1s", "-f", "json"])
        .output()
        .unwrap();
    let estimate: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cores = estimate["results"][0]["sampled_cores"].as_f64().unwrap();
    assert!(cores > 0.0 && cores < 1.1, "{cores} cores");
}

#[test]
fn an_estimate_of_fewer_units_than_searches_is_its_largest_units_time_on_one_search() {
    // A shard of one unit was forecast at the rate of every search busy: 0.02 s for a count of 1.1 s (n = 16,
    // two threads of 32 searches). A unit is counted by one search.
    let out = nqueens()
        .args(["estimate", "14", "--symmetry", "none", "--split-depth", "1"])
        .args([
            "--shard", "0/14", "-t", "2", "--sample", "200ms", "-f", "json",
        ])
        .assert()
        .success();
    let said = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let estimate: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let row = &estimate["results"][0];
    assert_eq!(row["units"], 1);
    assert_eq!(row["bound_by_largest_unit"], true, "{row}");
    let searches = row["searches_per_thread"].as_f64().unwrap();
    let largest = row["largest_unit_nodes"].as_f64().unwrap();
    // At the rate of a thread with a core: the sampling's rate over the cores it had, 1 to its 2 threads
    // (on a shared machine its two threads may have had one core between them), where the sampling took
    // long enough (0.05 s) for its cores to be told; else over its threads.
    let told = row["sampled_seconds"].as_f64().unwrap() >= 0.05;
    let busy = row["sampled_cores"]
        .as_f64()
        .filter(|_| told)
        .map_or(2.0, |c| c.clamp(1.0, 2.0));
    let per_search = row["nodes_per_second"].as_f64().unwrap() / (busy * searches);
    let seconds = row["seconds"].as_f64().unwrap();
    assert!(
        (seconds - largest / per_search).abs() <= 1e-9 * seconds,
        "{row}"
    );
    assert!(
        said.contains("14: its 1 unit keeps only 1 of the ")
            && said.contains("the time to count is at least that unit's")
            && said.contains("a deeper --split-depth, or fewer shards, would spread it"),
        "{said}"
    );
    // The plan `count 14` makes has thousands of units: the rate's time, and nothing said.
    let out = nqueens()
        .args([
            "estimate", "14", "-t", "2", "--sample", "200ms", "-f", "json",
        ])
        .assert()
        .success();
    let estimate: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(estimate["results"][0]["bound_by_largest_unit"], false);
    assert!(!String::from_utf8_lossy(&out.get_output().stderr).contains("that unit's"));
    // Boards sampled whole in a moment, or with nothing to sample, say nothing of the cores they had.
    for _ in 0..3 {
        nqueens()
            .args(["estimate", "4", "6x8", "8"])
            .assert()
            .success()
            .stderr("");
    }
}

#[test]
fn estimate_forecasts_the_nodes_and_time_of_the_count_it_would_make() {
    use serde_json::json;
    // `nqueens estimate 13 -t 2`: the plan `count 13 -t 2` would make, sampled for a tenth of a second.
    let json = |args: &[&str]| -> serde_json::Value {
        let out = nqueens().args(args).assert().success();
        serde_json::from_slice(&out.get_output().stdout).unwrap()
    };
    let estimate = json(&[
        "estimate", "13", "-t", "2", "--sample", "100ms", "-f", "json",
    ]);
    assert_eq!(estimate["kind"], "estimate");
    let row = &estimate["results"][0];
    assert_eq!(
        (&row["n"], &row["symmetry"], &row["threads"]),
        (&json!(13), &json!("full"), &json!(2))
    );
    let counted = json(&["count", "13", "-t", "2", "-f", "json"]);
    let counted = &counted["results"][0];
    assert_eq!(
        (&row["units"], &row["split_depth"]),
        (&counted["units"], &counted["split_depth"])
    );
    // When it was made, as count's reports say.
    let when = estimate["timestamp"].as_str().unwrap();
    assert!(humantime::parse_rfc3339(when).is_ok(), "{when}");
    let nodes = counted["nodes"].as_f64().unwrap();
    let (forecast, error) = (
        row["nodes"].as_f64().unwrap(),
        row["nodes_error"].as_f64().unwrap(),
    );
    assert!(
        (forecast - nodes).abs() <= (5.0 * error).max(0.01 * nodes) && error < 0.05 * nodes,
        "forecast {forecast} ± {error}, counted {nodes}"
    );
    let rate = row["nodes_per_second"].as_f64().unwrap();
    assert!(rate > 0.0);
    assert!((row["seconds"].as_f64().unwrap() - forecast / rate).abs() < 1e-6 * forecast / rate);
    // Boards with no search have no time; the table says so.
    let none = nqueens()
        .args(["estimate", "1..3", "--sample", "10ms"])
        .assert()
        .success();
    let table = String::from_utf8(none.get_output().stdout.clone()).unwrap();
    assert_eq!(table.lines().count(), 4, "{table}");
    assert!(
        table.lines().nth(1).unwrap().trim_end().ends_with('-'),
        "{table}"
    );
    // CSV and Markdown, a row a board.
    for (format, head) in [
        ("csv", "n,symmetry,units,nodes,"),
        ("markdown", "| n | symmetry |"),
    ] {
        nqueens()
            .args(["estimate", "8", "8x6", "--sample", "10ms", "-f", format])
            .assert()
            .success()
            .stdout(predicate::str::starts_with(head).and(contains("8x6").and(contains("mirror"))));
    }
    // Every CSV row has the header's fields, the split's rows last of the estimate's own (the build's and
    // machine's follow).
    let csv = nqueens()
        .args(["estimate", "13", "-t", "2", "--sample", "10ms", "-f", "csv"])
        .assert()
        .success();
    let csv = String::from_utf8(csv.get_output().stdout.clone()).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let split = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "split_depth");
    assert_eq!(split, Some(11), "{csv}");
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!(row.len(), reader.headers().unwrap().len(), "{csv}");
    assert_eq!(
        row.get(11),
        Some(counted["split_depth"].to_string().as_str()),
        "as count splits it: {csv}"
    );
    // Bad input: a usage error (exit 2), before any board is sampled.
    for (args, message) in [
        (
            &["estimate", "12", "--sample", "0"][..],
            "sample from 1ms to 24h",
        ),
        (
            &["estimate", "12", "--sample", "1ns"],
            "sample from 1ms to 24h",
        ),
        (
            &["estimate", "12", "--sample", "0.5ms"],
            "sample from 1ms to 24h",
        ),
        (
            &["estimate", "12", "--sample", "25h"],
            "sample from 1ms to 24h",
        ),
        (
            &["estimate", "12", "--sample", "soon"],
            "give a duration such as 2s",
        ),
        (&["estimate", "12", "13x14", "--symmetry", "full"], "13x14"),
        (&["estimate", "99"], "up to n = 64"),
    ] {
        nqueens()
            .args(args)
            .assert()
            .code(2)
            .stderr(contains(message))
            .stdout("");
    }
}

#[test]
fn estimate_of_a_shard_samples_its_own_units_of_the_checkpointed_plan() {
    use serde_json::json;
    // `nqueens estimate 14 --shard K/4`: how long `count 14 --shard K/4 --checkpoint FILE` takes here, from
    // samples of that shard's units of the checkpointed plan (which does not follow the threads).
    let dir = tempfile::tempdir().unwrap();
    let json = |args: &[&str]| -> serde_json::Value {
        let out = nqueens().args(args).assert().success();
        serde_json::from_slice(&out.get_output().stdout).unwrap()
    };
    let estimate = |shard: &str| {
        let doc = json(&[
            "estimate", "14", "-t", "2", "--sample", "300ms", "--shard", shard, "-f", "json",
        ]);
        doc["results"][0].clone()
    };
    let whole = estimate("0/1");
    let journal = dir.path().join("whole.journal");
    let counted = json(&[
        "count",
        "14",
        "-t",
        "1",
        "--checkpoint",
        journal.to_str().unwrap(),
        "-f",
        "json",
        "-q",
    ]);
    let counted = &counted["results"][0];
    // `--shard 0/1` is the checkpointed plan whole, as its journal has it.
    assert_eq!(
        (&whole["units"], &whole["split_depth"], &whole["shard"]),
        (&counted["units"], &counted["split_depth"], &json!("0/1"))
    );
    assert_eq!(whole["plan_units"], whole["units"]);
    let near = |row: &serde_json::Value, nodes: f64, what: &str| {
        let (forecast, error) = (
            row["nodes"].as_f64().unwrap(),
            row["nodes_error"].as_f64().unwrap(),
        );
        // Generous, for a busy machine's few samples: several standard errors, and the error itself small.
        assert!(
            (forecast - nodes).abs() <= (6.0 * error).max(0.02 * nodes) && error < 0.05 * nodes,
            "{what}: forecast {forecast} ± {error}, counted {nodes}"
        );
    };
    near(&whole, counted["nodes"].as_f64().unwrap(), "the whole plan");
    let (mut sum, mut variance) = (0.0, whole["nodes_error"].as_f64().unwrap().powi(2));
    for k in 0..4 {
        let shard = format!("{k}/4");
        let row = estimate(&shard);
        let journal = dir.path().join(format!("{k}.journal"));
        let counted = json(&[
            "count",
            "14",
            "--shard",
            &shard,
            "--checkpoint",
            journal.to_str().unwrap(),
            "-f",
            "json",
            "-q",
        ]);
        let counted = &counted["results"][0];
        assert_eq!(
            (&row["units"], &row["split_depth"], &row["shard"]),
            (&counted["units"], &counted["split_depth"], &json!(shard))
        );
        assert_eq!(row["plan_units"], whole["units"]);
        // Its own nodes, a quarter of the board's: not the board's, nor the board's share by units.
        near(&row, counted["nodes"].as_f64().unwrap(), &shard);
        sum += row["nodes"].as_f64().unwrap();
        variance += row["nodes_error"].as_f64().unwrap().powi(2);
    }
    let all = whole["nodes"].as_f64().unwrap();
    assert!(
        (sum - all).abs() <= 6.0 * variance.sqrt(),
        "the shards' estimates add up to {sum}, the whole plan's is {all} (variance {variance})"
    );
    // The shard in every format, after the columns there were.
    let sharded = |format: &str| {
        let out = nqueens()
            .args([
                "estimate", "12", "--sample", "10ms", "--shard", "2/5", "-f", format,
            ])
            .assert()
            .success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let table = sharded("table");
    assert!(
        table
            .lines()
            .next()
            .unwrap()
            .ends_with("time to count      shard")
            && table.lines().nth(1).unwrap().ends_with(" 2/5"),
        "{table}"
    );
    let md = sharded("markdown");
    assert!(
        md.starts_with("| n | symmetry |") && md.lines().nth(2).unwrap().ends_with("| 2/5 |"),
        "{md}"
    );
    let csv = sharded("csv");
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        headers[11..15],
        ["split_depth", "shard", "plan_units", "kernel"],
        "{csv}"
    );
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!(&row[12], "2/5", "{csv}");
    // Bad shards: count's words and exit code, before anything is sampled or written.
    for bad in ["4/4", "5/4", "x", "1/0", "999/1000"] {
        let journal = dir.path().join("bad.journal");
        let count = nqueens()
            .args(["count", "8", "--shard", bad, "--checkpoint"])
            .arg(&journal)
            .output()
            .unwrap();
        let estimate = nqueens()
            .args(["estimate", "8", "--sample", "10ms", "--shard", bad])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&estimate.stderr);
        assert_eq!(
            (estimate.status.code(), count.status.code()),
            (Some(2), Some(2)),
            "{bad}: {said}"
        );
        assert_eq!(said, String::from_utf8_lossy(&count.stderr), "{bad}");
        assert!(
            said.starts_with("error: ") && estimate.stdout.is_empty(),
            "{bad}: {said}"
        );
        assert!(!journal.exists(), "{bad}");
    }
    // A rectangle's shard is refused as count refuses it: more shards than its plan has units.
    nqueens()
        .args(["estimate", "4x3", "--shard", "0/500"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains(
            "shard 0/500: the plan of the board 4x3, symmetry mirror",
        ));
}

#[test]
fn a_quick_exit_loses_no_output_and_keeps_the_exit_codes() {
    // NQUEENS_QUICK_EXIT=1 (for measuring a GPU run's teardown) ends a successful run without the C library's
    // exit handlers: what it printed and wrote is all there.
    let plain = nqueens().args(["list", "9"]).assert().success();
    let quick = nqueens()
        .env("NQUEENS_QUICK_EXIT", "1")
        .args(["list", "9"])
        .assert()
        .success();
    let listed = &quick.get_output().stdout;
    assert_eq!(listed, &plain.get_output().stdout);
    assert_eq!(String::from_utf8_lossy(listed).lines().count(), 352);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("n9.json");
    nqueens()
        .env("NQUEENS_QUICK_EXIT", "1")
        .args(["count", "9", "-f", "json", "-o"])
        .arg(&file)
        .assert()
        .success();
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert!(written.to_string().contains("352"), "{written}");
    // A failure keeps its code.
    nqueens()
        .env("NQUEENS_QUICK_EXIT", "1")
        .args(["count", "4..x"])
        .assert()
        .code(2);
}

#[test]
fn units_summary_in_csv_is_one_record_of_the_plan_on_stdout() {
    // It wrote nothing on stdout (the summary went to stderr alone), and an empty file with -o.
    let out = nqueens()
        .args(["units", "12", "--summary", "-f", "csv"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "fingerprint,n,symmetry,split_depth,units,shard,shard_units"
    );
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[1].ends_with(",12,full,6,62437,0/1,62437"), "{text}");
}

#[test]
fn units_summary_in_json_gives_a_shards_units_as_the_csv_does() {
    // `units 12 --summary --shard 1/3`: the table says "shard 1/3: 20812 units"; so do the JSON and the CSV.
    let json = nqueens()
        .args(["units", "12", "--summary", "--shard", "1/3", "-f", "json"])
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    let listed = nqueens()
        .args(["units", "12", "--shard", "1/3", "-f", "csv"])
        .assert()
        .success();
    // The CSV list of the shard's units, less its header.
    let listed = String::from_utf8_lossy(&listed.get_output().stdout)
        .lines()
        .count()
        - 1;
    assert_eq!(
        (&doc["shard"], &doc["units"], &doc["shard_units"]),
        (
            &serde_json::json!("1/3"),
            &serde_json::json!(62437),
            &serde_json::json!(listed)
        )
    );
    let csv = nqueens()
        .args(["units", "12", "--summary", "--shard", "1/3", "-f", "csv"])
        .assert()
        .success();
    let csv = String::from_utf8_lossy(&csv.get_output().stdout).into_owned();
    assert!(csv.ends_with(&format!(",1/3,{listed}\n")), "{csv}");
}

#[test]
fn list_limit_is_a_count_of_solutions_and_says_so_when_it_is_not() {
    for bad in ["-1", "2.5", "ten"] {
        nqueens()
            .args(["list", "8", "--limit", bad])
            .assert()
            .code(2)
            .stdout("")
            .stderr(contains(
                "give the number of solutions to list: a whole number from 0, such as 10",
            ));
    }
    nqueens()
        .args(["list", "8", "--limit", "99999999999999999999999"])
        .assert()
        .code(2)
        .stderr(contains("leave --limit out to list all"));
    nqueens()
        .args(["list", "6", "--limit", "1"])
        .assert()
        .success()
        .stdout("[2,4,6,1,3,5]\n");
}

#[test]
fn a_unit_range_that_runs_backwards_is_refused_with_the_range_the_right_way_round() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("n10.journal");
    nqueens()
        .args(["count", "10", "--units", "0-9,15-12", "--checkpoint"])
        .arg(&journal)
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains(
            "'0-9,15-12' has the range 15-12, which runs backwards: write its first unit first, 12-15",
        ));
    assert!(!journal.exists(), "nothing is written for a refused list");
}

#[test]
fn merge_of_a_pattern_that_matched_nothing_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = dir.path().join("n20-*-of-16.journal");
    nqueens()
        .arg("merge")
        .arg(&pattern)
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains("No such file").and(contains(
            "no file matches this pattern (the shell passed it on unexpanded",
        )));
    // A plain missing name is only missing.
    nqueens()
        .arg("merge")
        .arg(dir.path().join("n20-3-of-16.journal"))
        .assert()
        .code(2)
        .stderr(contains("No such file").and(contains("pattern").not()));
}

#[cfg(target_os = "linux")]
#[test]
fn a_count_stopped_at_a_terminal_erases_its_bar_before_its_words() {
    // Without a journal, the signal's words were written below the bar, which stayed on the screen above them
    // ("n = 18 [00:00:01] ███░░░ 1/2,874 units, ETA 3m"), and its clock could draw it again after them.
    let dir = tempfile::tempdir().unwrap();
    let args = ["count", "18", "--threads", "1"];
    let Some(screen) = common::on_a_terminal(dir.path(), &args, 200, |child| {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        common::signal(child, "INT");
    }) else {
        eprintln!("skipped: no pseudo-terminal can be opened here");
        return;
    };
    assert!(
        !screen
            .iter()
            .any(|l| l.contains("planning") || l.contains("ETA")),
        "a bar is left on the screen:\n{}",
        screen.join("\n")
    );
    let words = screen
        .iter()
        .position(|l| l.starts_with("stopped by SIGINT: n = 18 was not finished"))
        .unwrap_or_else(|| panic!("no words of the stop:\n{}", screen.join("\n")));
    // Above the words, the table's header alone (and the line the terminal's echo of ^C would take).
    assert!(
        screen[..words]
            .iter()
            .all(|l| l.is_empty() || l.starts_with("    n ")),
        "{screen:?}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_count_at_a_terminal_leaves_its_table_and_its_words_and_no_bar() {
    // The table's header went on the bar's line and left "planning the work units" above it; a note went on
    // the bar's line ("ETA 0sn = 14: 365596 solutions in 0.1 s"), and so did a stopped run's words.
    let dir = tempfile::tempdir().unwrap();
    let no_bar = |screen: &[String]| {
        assert!(
            !screen
                .iter()
                .any(|l| l.contains("planning") || l.contains("units, ETA") || l.contains("0/0")),
            "a bar is left on the screen:\n{}",
            screen.join("\n")
        );
    };
    let Some(screen) = common::on_a_terminal(dir.path(), &["count", "15"], 200, |_| {}) else {
        eprintln!("skipped: no pseudo-terminal can be opened here");
        return;
    };
    no_bar(&screen);
    assert_eq!(screen.len(), 2, "{screen:?}");
    assert!(
        screen[0].starts_with("    n                 total"),
        "{screen:?}"
    );
    assert!(
        screen[1].starts_with("   15               2279184"),
        "{screen:?}"
    );

    let screen = common::on_a_terminal(
        dir.path(),
        &["count", "14", "15", "-o", "out.txt"],
        200,
        |_| {},
    )
    .unwrap();
    no_bar(&screen);
    assert_eq!(screen.len(), 2, "{screen:?}");
    assert!(
        screen[0].starts_with("n = 14: 365596 solutions in "),
        "{screen:?}"
    );
    assert!(
        screen[1].starts_with("n = 15: 2279184 solutions in "),
        "{screen:?}"
    );

    let journal = dir.path().join("J");
    let args = ["count", "17", "--threads", "1", "--checkpoint", "J"];
    let screen = common::on_a_terminal(dir.path(), &args, 200, |child| {
        while !journal.exists() {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        std::thread::sleep(std::time::Duration::from_millis(1500));
        common::signal(child, "INT");
    })
    .unwrap();
    no_bar(&screen);
    assert!(screen[0].starts_with("journal 'J': 0 of "), "{screen:?}");
    assert!(
        screen[1]
            .starts_with("stopped by SIGINT: the finished units are saved in 'J'; resume with:"),
        "{screen:?}"
    );
    assert!(screen[2].starts_with("  nqueens count 17 "), "{screen:?}");
}

#[test]
fn a_negative_board_given_to_an_option_is_said_to_be_one() {
    // `check --board -4` was an unknown option `-4`, with clap's tip to write `-- -4`, which made it the file.
    for board in ["-4", "-4x3"] {
        nqueens()
            .args(["check", "--board", board])
            .write_stdin("2 4 1 3\n")
            .assert()
            .code(2)
            .stderr(format!(
                "error: '{board}': board sizes cannot be negative\n"
            ));
    }
    // An option that is none is still clap's to tell, beside a negative board too.
    for args in [&["count", "8", "-x"][..], &["count", "8", "--bogus", "-3"]] {
        let unknown = args[2];
        nqueens()
            .args(args)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(format!(
                "unexpected argument '{unknown}' found"
            )));
    }
}
