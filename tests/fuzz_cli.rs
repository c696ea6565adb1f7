//! Random and adversarial command lines and inputs thrown at the binary (issue 17): argument lists drawn from
//! pools of good, bad and hostile values; random bytes, flipped bytes and forged headers for `check`, `plot`
//! and `merge`; `-o` and `--checkpoint` aimed at symbolic links, a FIFO, read-only files, directories,
//! missing folders and journals. Every run must end without a panic, with a documented exit code, with a
//! message on stderr when it fails, without leaving a temporary file, and without changing anything outside
//! its working folder: a folder beside it holds a read-only canary and a journal, both reachable through
//! links from the working folder.
//!
//! The cases come from a fixed seed (`NQUEENS_FUZZ_SEED` picks another, `NQUEENS_FUZZ_CASES` another number
//! of cases), so a failure is reproduced by running the test again; the boards are small, so that the test
//! takes seconds, and it stops drawing cases after [`BUDGET`] whatever the number asked.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The documented exit codes (README, "Exit codes").
const EXIT_CODES: [i32; 6] = [0, 1, 2, 3, 130, 143];

/// Time for drawing cases; the test stops early past it.
const BUDGET: Duration = Duration::from_secs(30);

/// The longest a single case may take: anything longer is a hang.
const CASE_LIMIT: Duration = Duration::from_secs(20);

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_nqueens"))
}

/// The state of every file in `dir`: contents, mode, and where a link points.
fn snapshot(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32, Option<PathBuf>)> {
    use std::os::unix::fs::PermissionsExt;
    fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let link = fs::read_link(&path).ok();
            let bytes = if meta.is_file() {
                fs::read(&path).unwrap()
            } else {
                Vec::new()
            };
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                (bytes, meta.permissions().mode(), link),
            )
        })
        .collect()
}

fn debris(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with(".nqueens-partial-") || name.starts_with(".nqueens-journal-") {
            found.push(path);
        }
    }
    found
}

fn pick<'a>(rng: &mut fastrand::Rng, pool: &[&'a str]) -> &'a str {
    pool[rng.usize(..pool.len())]
}

fn random_bytes(rng: &mut fastrand::Rng, max: usize) -> Vec<u8> {
    let len = rng.usize(..=max);
    (0..len).map(|_| rng.u8(..)).collect()
}

/// `bytes` with a few bytes changed at random.
fn flipped(rng: &mut fastrand::Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if out.is_empty() {
        return out;
    }
    for _ in 0..rng.usize(1..4) {
        let i = rng.usize(..out.len());
        out[i] ^= 1 << rng.u8(..8);
    }
    out
}

/// A journal line with its header's `from` replaced by `to` and the checksum made right again.
fn forged(journal: &[u8], from: &str, to: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(journal);
    let (header, rest) = text.split_once('\n').unwrap();
    let (payload, _) = header.rsplit_once('\t').unwrap();
    let payload = payload.replace(from, to);
    let line = format!("{payload}\t{:08x}", crc32fast::hash(payload.as_bytes()));
    format!("{line}\n{rest}").into_bytes()
}

fn run_setup(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new(binary())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "setup {args:?}: {out:?}");
    out.stdout
}

/// Keeps a FIFO open for reading and drains it, so that a run writing into it never waits for a reader.
fn drain_fifo(path: &Path) {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut reader = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .unwrap();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match reader.read(&mut buf) {
                Ok(n) if n > 0 => {}
                _ => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    });
}

#[test]
#[cfg(unix)]
fn random_and_hostile_command_lines_never_panic_hang_or_touch_other_files() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let seed: u64 = std::env::var("NQUEENS_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(17);
    let cases: usize = std::env::var("NQUEENS_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let mut rng = fastrand::Rng::with_seed(seed);

    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    let outside = root.path().join("outside");
    fs::create_dir(&work).unwrap();
    fs::create_dir(&outside).unwrap();

    // Outside: a read-only canary and a complete journal, reachable from the working folder through links.
    let canary = outside.join("canary.txt");
    fs::write(&canary, "precious\n").unwrap();
    fs::set_permissions(&canary, fs::Permissions::from_mode(0o444)).unwrap();
    run_setup(
        &outside,
        &["count", "9", "-q", "--checkpoint", "n9.journal"],
    );
    symlink(&canary, work.join("ro-link")).unwrap();
    symlink(outside.join("n9.journal"), work.join("journal-link")).unwrap();

    // Inside: inputs good and bad, and hostile places to write.
    run_setup(&work, &["count", "10", "-q", "--checkpoint", "n10.journal"]);
    run_setup(
        &work,
        &[
            "count",
            "10",
            "-q",
            "--shard",
            "0/2",
            "--checkpoint",
            "s0.journal",
        ],
    );
    run_setup(
        &work,
        &[
            "count",
            "10",
            "-q",
            "--shard",
            "1/2",
            "--checkpoint",
            "s1.journal",
        ],
    );
    let journal = fs::read(work.join("n10.journal")).unwrap();
    fs::write(work.join("flipped.journal"), flipped(&mut rng, &journal)).unwrap();
    fs::write(
        work.join("forged-n.journal"),
        forged(&journal, "\"n\":10,", "\"n\":12,"),
    )
    .unwrap();
    fs::write(
        work.join("forged-depth.journal"),
        forged(&journal, "\"split_depth\":", "\"split_depth\":9"),
    )
    .unwrap();
    fs::write(
        work.join("forged-units.journal"),
        forged(&journal, "\"units\":", "\"units\":99999999999"),
    )
    .unwrap();
    fs::write(
        work.join("truncated.journal"),
        &journal[..journal.len() / 2],
    )
    .unwrap();
    let count_json = run_setup(&work, &["count", "4..9", "-q", "--format", "json"]);
    fs::write(work.join("count.json"), &count_json).unwrap();
    let text = String::from_utf8(count_json.clone()).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["results"][1]["seconds"] = serde_json::json!(1e308);
    fs::write(work.join("huge.json"), value.to_string()).unwrap();
    value["results"][1]["seconds"] = serde_json::json!(-3.5);
    fs::write(work.join("negative.json"), value.to_string()).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["schema_version"] = serde_json::json!(7);
    fs::write(work.join("future.json"), value.to_string()).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["results"][0]["n"] = serde_json::json!(4_000_000_000u32);
    fs::write(work.join("wide.json"), value.to_string()).unwrap();
    fs::write(
        work.join("bench.json"),
        r#"{"kind":"bench","schema_version":1,"scaling":[{"threads":1e300}]}"#,
    )
    .unwrap();
    fs::write(work.join("flipped.json"), flipped(&mut rng, &count_json)).unwrap();
    fs::write(work.join("random.bin"), random_bytes(&mut rng, 4096)).unwrap();
    let solutions = run_setup(&work, &["list", "8"]);
    fs::write(work.join("solutions.txt"), &solutions).unwrap();
    fs::write(work.join("flipped.txt"), flipped(&mut rng, &solutions)).unwrap();
    fs::write(work.join("ro.txt"), "read-only\n").unwrap();
    fs::set_permissions(work.join("ro.txt"), fs::Permissions::from_mode(0o444)).unwrap();
    fs::write(work.join("out.txt"), "").unwrap();
    symlink("out.txt", work.join("out-link")).unwrap();
    symlink("loop-b", work.join("loop-a")).unwrap();
    symlink("loop-a", work.join("loop-b")).unwrap();
    fs::create_dir(work.join("dir")).unwrap();
    let fifo = work.join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    drain_fifo(&fifo);
    let ro_before = fs::read(work.join("ro.txt")).unwrap();
    let outside_before = snapshot(&outside);

    // /dev/null itself where the tests do not run as root; a stand-in where they do (common::special_file).
    let null = common::special_file(&work, "null");
    let null_name = null
        .as_ref()
        .map_or("missing/null".into(), |p| p.display().to_string());
    let outputs = [
        "-",
        null_name.as_str(),
        "out.txt",
        "./out.txt",
        "out-link",
        "ro.txt",
        "ro-link",
        "fifo",
        "dir",
        "missing/out.txt",
        "journal-link",
        "n10.journal",
        "./n10.journal",
        "s0.journal",
        "loop-a",
        "",
        "new.csv",
    ];
    let journals = [
        "n10.journal",
        "./n10.journal",
        "journal-link",
        "s0.journal",
        "new.journal",
        "n{k}-of-{m}.journal",
        "dir",
        "missing/j.journal",
        "ro.txt",
        "ro-link",
        "random.bin",
        "flipped.journal",
        "forged-n.journal",
        "forged-depth.journal",
        "truncated.journal",
        "loop-a",
    ];
    let merge_inputs = [
        "n10.journal",
        "s0.journal",
        "s1.journal",
        "journal-link",
        "flipped.journal",
        "forged-n.journal",
        "forged-depth.journal",
        "forged-units.journal",
        "truncated.journal",
        "random.bin",
        "count.json",
        "dir",
        "missing.journal",
        "ro-link",
        "loop-a",
        "",
    ];
    let plot_inputs = [
        "count.json",
        "huge.json",
        "negative.json",
        "future.json",
        "wide.json",
        "bench.json",
        "flipped.json",
        "random.bin",
        "n10.journal",
        "dir",
        "missing.json",
        "ro-link",
    ];
    let check_inputs = [
        "solutions.txt",
        "flipped.txt",
        "random.bin",
        "count.json",
        "n10.journal",
        "dir",
        "missing.txt",
        "ro-link",
        "-",
    ];
    let small_sizes = [
        "0",
        "1",
        "2",
        "3",
        "4",
        "6",
        "8",
        "9",
        "10",
        "11",
        "4..8",
        "8..4",
        "6x4",
        "4x6",
        "8X3",
        "12x",
        "x8",
        "-1",
        "65",
        "64x65",
        "99999999999",
        "abc",
        "",
        " 8",
        "5..=7",
        "7..7",
        "1e3",
        "८",
    ];

    let started = Instant::now();
    let mut ran = 0;
    for case in 0..cases {
        if started.elapsed() > BUDGET {
            break;
        }
        let mut args: Vec<String> = Vec::new();
        let mut stdin: Vec<u8> = Vec::new();
        let mut add = |a: &str| args.push(a.to_string());
        let command = pick(
            &mut rng,
            &[
                "count", "count", "count", "list", "solve", "check", "check", "verify", "units",
                "merge", "merge", "plot", "bench", "tokens", "tokens",
            ],
        );
        add(command);
        match command {
            "count" => {
                let check = rng.bool();
                let size = if check && rng.u8(..4) == 0 {
                    "28"
                } else {
                    pick(&mut rng, &small_sizes)
                };
                add(size);
                if rng.u8(..4) == 0 {
                    add(pick(&mut rng, &small_sizes));
                }
                if check {
                    add("--check");
                }
                for _ in 0..rng.usize(..5) {
                    match rng.u8(..10) {
                        0 => {
                            add("--threads");
                            add(pick(&mut rng, &["0", "1", "2", "-1", "x", ""]));
                        }
                        1 => {
                            add("--symmetry");
                            add(pick(&mut rng, &["none", "mirror", "full", "half", ""]));
                        }
                        2 => {
                            add("--split-depth");
                            add(pick(
                                &mut rng,
                                &[
                                    "0",
                                    "1",
                                    "3",
                                    "6",
                                    "8",
                                    "9",
                                    "11",
                                    "12",
                                    "13",
                                    "64",
                                    "4294967295",
                                    "-1",
                                ],
                            ));
                        }
                        3 => {
                            add("--format");
                            add(pick(&mut rng, &["table", "json", "csv", "markdown", "xml"]));
                        }
                        4 | 5 => {
                            add("-o");
                            add(pick(&mut rng, &outputs));
                        }
                        6 => {
                            add("--checkpoint");
                            add(pick(&mut rng, &journals));
                        }
                        7 => {
                            add("--shard");
                            add(pick(
                                &mut rng,
                                &["0/2", "1/2", "2/2", "3/0", "auto", "0/1", "x"],
                            ));
                        }
                        8 => {
                            add("--units");
                            add(pick(
                                &mut rng,
                                &["0", "0-5", "9999999", "5-1", "x", "1,1", ""],
                            ));
                        }
                        _ => add(pick(
                            &mut rng,
                            &["-q", "--kernel=scalar", "--kernel=bogus", "--backend=gpu"],
                        )),
                    }
                }
            }
            "list" => {
                add(pick(&mut rng, &small_sizes));
                for _ in 0..rng.usize(..4) {
                    match rng.u8(..5) {
                        0 => {
                            add("--format");
                            add(pick(
                                &mut rng,
                                &["rows", "zero", "board", "matrix", "json", "csv", "xml"],
                            ));
                        }
                        1 => {
                            add("--limit");
                            add(pick(&mut rng, &["0", "1", "5", "-1", "x"]));
                        }
                        2 => {
                            add("-o");
                            add(pick(&mut rng, &outputs));
                        }
                        3 => {
                            add("-t");
                            add(pick(&mut rng, &["1", "2", "0"]));
                        }
                        _ => add(pick(&mut rng, &["--unique", "--ascii", "-q"])),
                    }
                }
            }
            "solve" => {
                add(pick(
                    &mut rng,
                    &[
                        "8",
                        "12",
                        "30",
                        "1000",
                        "20x21",
                        "2",
                        "3",
                        "100000",
                        "0",
                        "-5",
                        "101x3",
                        "5x4",
                        "4x5",
                        "100000001",
                        "x",
                    ],
                ));
                for _ in 0..rng.usize(..4) {
                    match rng.u8(..3) {
                        0 => {
                            add("--method");
                            add(pick(&mut rng, &["auto", "backtrack", "construct", "guess"]));
                        }
                        1 => {
                            add("--format");
                            add(pick(&mut rng, &["rows", "board", "matrix", "csv", "json"]));
                        }
                        _ => {
                            add("-o");
                            add(pick(&mut rng, &outputs));
                        }
                    }
                }
            }
            "check" => {
                let input = pick(&mut rng, &check_inputs);
                if input == "-" || rng.u8(..3) == 0 {
                    stdin = match rng.u8(..3) {
                        0 => random_bytes(&mut rng, 4096),
                        1 => flipped(&mut rng, &solutions),
                        _ => {
                            let mut text = b"\xEF\xBB\xBF".to_vec();
                            text.extend_from_slice(&solutions[..solutions.len().min(200)]);
                            text
                        }
                    };
                } else {
                    add(input);
                }
                for _ in 0..rng.usize(..3) {
                    match rng.u8(..3) {
                        0 => {
                            add("--format");
                            add(pick(&mut rng, &["rows", "zero", "board", "csv", "xml"]));
                        }
                        1 => {
                            add("--board");
                            add(pick(&mut rng, &["8", "8x6", "8y6", "0"]));
                        }
                        _ => add("-q"),
                    }
                }
            }
            "verify" => {
                add(pick(
                    &mut rng,
                    &[
                        "4..10", "28", "20..28", "12", "8..4", "", "abc", "65", "0..3",
                    ],
                ));
                if rng.bool() {
                    add("--split-depth");
                    add(pick(&mut rng, &["2", "30", "x"]));
                }
            }
            "units" => {
                add(pick(
                    &mut rng,
                    &["8", "12", "16", "65", "x", "4..6", "0", "3"],
                ));
                for _ in 0..rng.usize(..4) {
                    match rng.u8(..5) {
                        0 => {
                            add("--split-depth");
                            add(pick(&mut rng, &["0", "2", "9", "16", "17", "64"]));
                        }
                        1 => {
                            add("--symmetry");
                            add(pick(&mut rng, &["none", "mirror", "full", "x"]));
                        }
                        2 => {
                            add("--shard");
                            add(pick(&mut rng, &["0/2", "5/3", "x"]));
                        }
                        3 => {
                            add("--format");
                            add(pick(&mut rng, &["json", "csv", "table", "markdown"]));
                        }
                        _ => add("--summary"),
                    }
                }
            }
            "merge" => {
                for _ in 0..rng.usize(..4) {
                    add(pick(&mut rng, &merge_inputs));
                }
                if rng.bool() {
                    add("-o");
                    add(pick(&mut rng, &outputs));
                }
                if rng.bool() {
                    add("--format");
                    add(pick(&mut rng, &["json", "csv", "xml"]));
                }
            }
            "plot" => {
                for _ in 0..rng.usize(..3) {
                    add(pick(&mut rng, &plot_inputs));
                }
                add("-o");
                add(pick(
                    &mut rng,
                    &["plots", "ro-link", "out.txt", "dir", "missing/plots"],
                ));
                add("-q");
            }
            "bench" => match rng.u8(..4) {
                0 => {
                    add("--n");
                    add(pick(&mut rng, &["28", "65", "x"]));
                }
                1 => {
                    let file = pick(&mut rng, &["b.json", "ro.txt", "ro-link", "dir"]);
                    add("--quick");
                    add("--export-json");
                    add(file);
                    add("--export-csv");
                    add(&format!("./{file}"));
                }
                2 => {
                    add("--runs");
                    add(pick(&mut rng, &["x", "-1"]));
                }
                _ => {
                    add("--quick");
                    add("--export-markdown");
                    add(pick(&mut rng, &["-", "dir", "missing/b.md", "ro-link"]));
                }
            },
            // Any tokens in any order (but no benchmark, and no board whose count takes long).
            _ => {
                let commands = [
                    "count", "list", "solve", "check", "verify", "units", "merge", "plot", "",
                ];
                let flags = [
                    "-o",
                    "--output",
                    "--checkpoint",
                    "--shard",
                    "--units",
                    "--split-depth",
                    "--threads",
                    "-t",
                    "--symmetry",
                    "--format",
                    "-f",
                    "--check",
                    "-q",
                    "--limit",
                    "--board",
                    "--method",
                    "--",
                    "--unique",
                    "--summary",
                    "--kernel",
                    "--backend",
                    "--shard-count",
                    "-",
                    "--help-me",
                ];
                args.clear();
                for _ in 0..rng.usize(..8) {
                    let token = match rng.u8(..6) {
                        0 => pick(&mut rng, &commands),
                        1 | 2 => pick(&mut rng, &flags),
                        3 => pick(&mut rng, &small_sizes),
                        4 => pick(&mut rng, &outputs),
                        _ => pick(&mut rng, &merge_inputs),
                    };
                    args.push(token.to_string());
                }
            }
        }

        let mut child = Command::new(binary())
            .args(&args)
            .current_dir(&work)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(&stdin);
        });
        // Read both streams as they come, so that a run that writes much never waits on a full pipe.
        let drain = |stream: Option<Box<dyn std::io::Read + Send>>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                if let Some(mut s) = stream {
                    let _ = s.read_to_end(&mut bytes);
                }
                bytes
            })
        };
        let out_reader = drain(child.stdout.take().map(|s| Box::new(s) as _));
        let err_reader = drain(child.stderr.take().map(|s| Box::new(s) as _));
        let deadline = Instant::now() + CASE_LIMIT;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("seed {seed}, case {case}: nqueens {args:?} ran past {CASE_LIMIT:?}");
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let _ = writer.join();
        let (out, err) = (out_reader.join().unwrap(), err_reader.join().unwrap());
        let stderr = String::from_utf8_lossy(&err);
        let stdout = String::from_utf8_lossy(&out);
        let context = format!("seed {seed}, case {case}: nqueens {args:?}\nstderr: {stderr}");
        let code = status.code();
        assert!(!stderr.contains("panicked"), "{context}");
        assert!(
            code.is_some_and(|c| EXIT_CODES.contains(&c)),
            "exit {status:?} is not documented; {context}"
        );
        if code != Some(0) {
            // `check -q` says what failed on stdout, its results; everything else says it on stderr.
            let explained = !stderr.trim().is_empty()
                || (command == "check"
                    && (stdout.contains("invalid") || stdout.contains("malformed")));
            assert!(explained, "a failure without a message; {context}");
        }
        assert!(
            debris(&work).is_empty(),
            "debris left: {:?}; {context}",
            debris(&work)
        );
        assert_eq!(
            snapshot(&outside),
            outside_before,
            "a file outside changed; {context}"
        );
        assert_eq!(
            fs::read(work.join("ro.txt")).unwrap(),
            ro_before,
            "{context}"
        );
        {
            use std::os::unix::fs::FileTypeExt;
            if let Some(null) = &null {
                let kind = fs::metadata(null).unwrap().file_type();
                assert!(
                    kind.is_char_device(),
                    "{} replaced; {context}",
                    null.display()
                );
            }
            assert!(
                fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(),
                "the FIFO replaced; {context}"
            );
        }
        ran += 1;
    }
    eprintln!(
        "seed {seed}: {ran} command lines in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(ran >= 50, "only {ran} cases ran within the budget");
}
