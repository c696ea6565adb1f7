//! Long runs as a user meets them: the unit list, checkpoints killed and resumed, signals, shards, and merges
//! that refuse anything short of every unit exactly once.

mod common;

use common::{nqueens, published};
#[cfg(unix)]
use common::{signal, started, stopped_by_sigterm};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("nqueens")
}

fn run(args: &[&str]) -> Output {
    common::command(binary())
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn published_counts(n: u32) -> (u128, u128) {
    let row = published().into_iter().find(|p| p.n == n).unwrap();
    (row.total, row.unique.unwrap())
}

/// The total and unique count of a CSV result row.
fn csv_counts(out: &Output) -> (u128, Option<u128>) {
    let stdout = text(&out.stdout);
    let row = stdout
        .lines()
        .nth(1)
        .unwrap_or_else(|| panic!("no row in {stdout:?}"));
    let f: Vec<&str> = row.split(',').collect();
    (f[1].parse().unwrap(), f[2].parse().ok())
}

fn journal_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn units_lists_the_numbered_plan_and_its_fingerprint() {
    let out = nqueens()
        .args(["units", "10", "--format", "json"])
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let list = doc["list"].as_array().unwrap();
    assert_eq!(list.len() as u64, doc["units"].as_u64().unwrap());
    assert!(list
        .iter()
        .enumerate()
        .all(|(i, u)| u["unit"].as_u64() == Some(i as u64)));
    let fingerprint = doc["fingerprint"].as_str().unwrap().to_string();

    // The plan of a checkpointed run is the one listed, whatever the threads, and its journal says so.
    let dir = tempfile::tempdir().unwrap();
    for threads in ["1", "2"] {
        let j = dir.path().join(format!("j{threads}"));
        nqueens()
            .args(["count", "10", "-t", threads, "--checkpoint", path_str(&j)])
            .assert()
            .success();
        assert!(journal_lines(&j)[0].contains(&fingerprint));
    }
    // Another split is another fingerprint.
    let other = nqueens()
        .args(["units", "10", "--split-depth", "1", "--summary"])
        .assert()
        .success();
    assert!(!text(&other.get_output().stdout).contains(&fingerprint));
    // A shard's list is its share.
    let shard = nqueens()
        .args(["units", "10", "--shard", "1/4", "--format", "csv"])
        .assert()
        .success();
    let rows: Vec<String> = text(&shard.get_output().stdout)
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect();
    assert!(rows
        .iter()
        .all(|r| r.split(',').next().unwrap().parse::<usize>().unwrap() % 4 == 1));
    assert_eq!(rows.len(), (list.len() + 2) / 4);
}

/// Kills a checkpointed count of `board` (N or RxC) with SIGKILL after random delays until it completes, then
/// checks that the journal holds every unit exactly once and that the total is the count's without a journal,
/// and for a square the published one.
fn kill_and_resume(board: &str, symmetry: &str, rng: &mut fastrand::Rng) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("journal");
    let args = [
        "count",
        board,
        "--symmetry",
        symmetry,
        "--checkpoint",
        path_str(&journal),
        "--format",
        "csv",
        "-q",
    ];
    // How long the whole count takes here, uninterrupted: the kills fall within it.
    let started = Instant::now();
    let plain = run(&["count", board, "--symmetry", symmetry, "-f", "csv", "-q"]);
    assert!(plain.status.success());
    let full = started.elapsed();
    let mut kills = 0;
    // On a loaded machine the timed run may have been slow and this one quick: a run that ends before its first
    // kill is started again with half the delay, so a kill lands whatever the machine's load.
    let mut first_scale = 2u32;
    let out = loop {
        let mut child = common::command(binary())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The first kill comes in the first half of an uninterrupted run, so it lands whatever the machine.
        let longest = if kills == 0 { full / first_scale } else { full };
        let delay = Duration::from_micros(rng.u64(100..=longest.as_micros().max(101) as u64));
        let started = Instant::now();
        let finished = loop {
            if child.try_wait().unwrap().is_some() {
                break true;
            }
            if started.elapsed() >= delay || kills >= 12 {
                break false;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        if finished && kills == 0 && first_scale < 1 << 12 {
            first_scale *= 2;
            continue;
        }
        if finished || kills >= 12 {
            break child.wait_with_output().unwrap();
        }
        child.kill().unwrap();
        child.wait().unwrap();
        kills += 1;
    };
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (total, unique) = csv_counts(&out);
    assert_eq!(
        (total, unique),
        csv_counts(&plain),
        "{board} after {kills} kills"
    );
    if let Some(published) = published().into_iter().find(|p| p.n.to_string() == board) {
        assert_eq!(total, published.total, "n = {board} after {kills} kills");
        if symmetry == "full" {
            assert_eq!(unique, published.unique);
        }
    }
    // Nothing counted twice: one line per unit, after the header.
    let lines = journal_lines(&journal);
    let header: Value = serde_json::from_str(lines[0].rsplit_once('\t').unwrap().0).unwrap();
    assert_eq!(lines.len() - 1, header["units"].as_u64().unwrap() as usize);
    kills
}

#[test]
fn runs_killed_at_random_moments_resume_to_the_exact_count() {
    let seed = std::env::var("NQUEENS_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    eprintln!("seed {seed} (set NQUEENS_TEST_SEED to repeat)");
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut kills = 0;
    for (board, symmetry) in [
        ("13", "full"),
        ("14", "full"),
        ("15", "full"),
        ("14", "mirror"),
        ("13", "none"),
        // A rectangle's journal names its columns too.
        ("16x13", "mirror"),
    ] {
        let landed = kill_and_resume(board, symmetry, &mut rng);
        assert!(landed >= 1, "{board}, {symmetry}: no kill landed");
        kills += landed;
    }
    eprintln!("{kills} kills, every total exact");
}

#[test]
fn a_torn_last_line_is_dropped_and_the_count_stays_exact() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j");
    let j = path_str(&journal);
    nqueens()
        .args(["count", "11", "--checkpoint", j, "--shard", "0/2", "-q"])
        .assert()
        .success();
    // Keep the header and 10 units, then half of the next line: a write cut by a kill.
    let lines = journal_lines(&journal);
    let torn = &lines[11][..lines[11].len() / 2];
    std::fs::write(&journal, format!("{}\n{torn}", lines[..11].join("\n"))).unwrap();
    nqueens()
        .args(["count", "11", "--checkpoint", j, "--shard", "0/2"])
        .assert()
        .success()
        .stderr(predicates::str::contains("torn"));
    // The same units with the same counts, though not in the same order: each recorded once, none lost.
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    let rebuilt = sorted(journal_lines(&journal));
    assert!(
        rebuilt == sorted(lines.clone()),
        "the journal differs from the first run's"
    );
    // Torn again and resumed with `-q`, as a batch job does: the run still says that it dropped a line, the
    // one thing on stderr, since it changes what the journal holds; its unit is counted again all the same.
    std::fs::write(&journal, format!("{}\n{torn}", lines[..11].join("\n"))).unwrap();
    let out = run(&["count", "11", "--checkpoint", j, "--shard", "0/2", "-q"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stderr);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(
        said.starts_with(&format!(
            "warning: '{j}': dropped a torn last line (line 12) left by an interrupted write"
        )),
        "{said}"
    );
    assert_eq!(sorted(journal_lines(&journal)), sorted(lines));
}

#[test]
fn quiet_runs_say_nothing_of_the_shard_they_read_from_the_launcher() {
    // A batch job's tasks run with `-q` so that their logs hold only what went wrong: the shard `--shard auto`
    // found is said without it, and not with it, by `count`, `units` and `estimate` alike.
    let dir = tempfile::tempdir().unwrap();
    let task = |args: &[&str]| {
        common::command(binary())
            .current_dir(dir.path())
            .args(args)
            .env("SLURM_PROCID", "1")
            .env("SLURM_NTASKS", "2")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .output()
            .unwrap()
    };
    let said = task(&["units", "10", "--shard", "auto", "--summary"]);
    assert!(said.status.success(), "{}", text(&said.stderr));
    assert!(
        text(&said.stderr).contains("shard 1/2 from the Slurm environment"),
        "{}",
        text(&said.stderr)
    );
    for args in [
        &["count", "10", "--shard", "auto", "--checkpoint", "j", "-q"][..],
        &["units", "10", "--shard", "auto", "--summary", "-q"],
    ] {
        let out = task(args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stderr), "", "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
    // `estimate -q` still warns of a sampling slowed by other work, which a shared machine may see: only the
    // shard's note is looked for.
    let out = task(&[
        "estimate", "10", "--shard", "auto", "--sample", "10ms", "-q",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("environment"),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("10"), "{}", text(&out.stdout));
}

#[test]
fn a_resumed_run_says_what_share_of_the_work_its_journal_holds_already() {
    // A run resumed many times over weeks counts, and shows the progress of, only what is left: the resume's
    // line says how far the board has got, estimated before counting. Checked against the truth, the nodes
    // the journal's units recorded, with a whole journal cut back to a part of its units.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j");
    let j = path_str(&journal);
    // n = 17: a board of a second or more, whose work is estimated closely (a shorter one's roughly).
    for (shard, keep) in [("0/1", 5), ("1/3", 40)] {
        let fresh = run(&[
            "count",
            "17",
            "--checkpoint",
            j,
            "--shard",
            shard,
            "-t",
            "1",
        ]);
        assert!(fresh.status.success(), "{fresh:?}");
        assert!(
            !text(&fresh.stderr).contains("of the work)"),
            "a new journal has no share: {fresh:?}"
        );
        let lines = journal_lines(&journal);
        let nodes = |line: &String| -> f64 {
            let entry: Value = serde_json::from_str(line.split('\t').next().unwrap()).unwrap();
            entry["nodes"].as_u64().unwrap() as f64
        };
        let units = &lines[1..];
        let kept = units.len() * keep / 100;
        let truth: f64 =
            units[..kept].iter().map(nodes).sum::<f64>() / units.iter().map(nodes).sum::<f64>();
        std::fs::write(
            &journal,
            format!("{}\n{}\n", lines[0], units[..kept].join("\n")),
        )
        .unwrap();
        let resumed = run(&[
            "count",
            "17",
            "--checkpoint",
            j,
            "--shard",
            shard,
            "-t",
            "1",
            "-f",
            "csv",
        ]);
        assert!(resumed.status.success(), "{resumed:?}");
        let stderr = text(&resumed.stderr);
        let said: f64 = stderr
            .split_once("units recorded (about ")
            .and_then(|(_, rest)| rest.split_once("% of the work)"))
            .unwrap_or_else(|| panic!("no share in {stderr}"))
            .0
            .parse()
            .unwrap();
        assert!(
            (said - 100.0 * truth).abs() < 5.0,
            "shard {shard}: said {said}%, the journal's nodes {:.1}%",
            100.0 * truth
        );
        let finished = run(&["count", "17", "--checkpoint", j, "--shard", shard]);
        assert!(
            !text(&finished.stderr).contains("of the work)"),
            "{finished:?}"
        );
        if shard == "0/1" {
            assert_eq!(csv_counts(&resumed).0, published_counts(17).0);
        }
        std::fs::remove_file(&journal).unwrap();
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_journal_name_that_is_not_utf8_is_kept_byte_for_byte() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;
    let dir = tempfile::tempdir().unwrap();
    // Latin-1 "é" (0xe9), not UTF-8, beside the shard's {k} and {m}.
    let name = |k: &[u8], m: &[u8]| {
        let mut bytes = b"r\xe9sultat-".to_vec();
        bytes.extend_from_slice(k);
        bytes.extend_from_slice(b"-of-");
        bytes.extend_from_slice(m);
        bytes.extend_from_slice(b".journal");
        dir.path().join(OsString::from_vec(bytes))
    };
    for k in ["0", "1"] {
        nqueens()
            .args([
                "count",
                "10",
                "-q",
                "--shard",
                &format!("{k}/2"),
                "--checkpoint",
            ])
            .arg(name(b"{k}", b"{m}"))
            .assert()
            .success();
    }
    let journals = [name(b"0", b"2"), name(b"1", b"2")];
    for journal in &journals {
        assert!(journal.exists(), "{}", journal.display());
    }
    nqueens()
        .arg("merge")
        .args(&journals)
        .assert()
        .success()
        .stdout(predicates::str::contains("724"));
}

#[test]
fn two_runs_started_at_once_on_a_new_journal_share_it_as_a_resubmitted_job_does() {
    let dir = tempfile::tempdir().unwrap();
    for attempt in 0..5 {
        let journal = dir.path().join(format!("j{attempt}"));
        let args = ["count", "14", "-q", "--checkpoint", path_str(&journal)];
        // Both plan before either has made the journal: the one that makes it second finds it there.
        let children: Vec<_> = (0..2)
            .map(|_| {
                common::command(binary())
                    .args(args)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        for out in &outs {
            let stderr = text(&out.stderr);
            match out.status.code() {
                Some(0) => assert!(text(&out.stdout).contains("365596"), "{stderr}"),
                Some(1) => assert!(
                    stderr.contains("in use by another nqueens process"),
                    "{stderr}"
                ),
                code => panic!("exit code {code:?}: {stderr}"),
            }
        }
        assert!(outs.iter().any(|o| o.status.success()));
        nqueens().arg("merge").arg(&journal).assert().success();
    }
}

#[cfg(unix)]
#[test]
fn sigint_sigterm_and_sighup_save_the_journal_and_say_how_to_resume() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j");
    // The scalar loop, so that the run lasts seconds on any processor and the signals land while it runs.
    let args = [
        "count",
        "16",
        "-t",
        "1",
        "--kernel",
        "scalar",
        "--checkpoint",
        path_str(&journal),
        "--format",
        "csv",
    ];
    for (name, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        let child = started(
            dir.path(),
            &args,
            || journal.exists(),
            Duration::from_millis(300),
        );
        // A second process on the same journal (a job resubmitted while the first still runs) is refused.
        let second = run(&args);
        assert_eq!(second.status.code(), Some(1));
        assert!(text(&second.stderr).contains("in use by another nqueens process"));
        signal(&child, name);
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{stderr}");
        assert!(stderr.contains("resume with"), "{stderr}");
        assert!(
            out.stdout.is_empty(),
            "no result from a stopped run: {:?}",
            text(&out.stdout)
        );
    }
    let recorded = journal_lines(&journal).len() - 1;
    assert!(recorded > 0, "the finished units were saved");
    let out = run(&args);
    assert!(out.status.success());
    assert_eq!(csv_counts(&out), {
        let (t, u) = published_counts(16);
        (t, Some(u))
    });
}

/// Starts `nqueens ARGS` in `dir` through a shell that ignores the signals `ignored` (`HUP INT`) and execs it,
/// as `nohup` or a script's background job starts a run, and returns it 200 ms after `ready` holds (within
/// 60 s).
#[cfg(unix)]
fn started_ignoring(
    dir: &Path,
    ignored: &str,
    args: &[&str],
    ready: impl Fn() -> bool,
) -> std::process::Child {
    let child = common::command("sh")
        .current_dir(dir)
        .arg("-c")
        .arg(format!("trap '' {ignored}; exec \"$0\" \"$@\""))
        .arg(binary())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let began = Instant::now();
    while !ready() {
        assert!(began.elapsed() < Duration::from_secs(60), "not started");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(200));
    child
}

#[cfg(unix)]
#[test]
fn signals_ignored_when_the_run_starts_stay_ignored_as_under_nohup() {
    // `nohup` starts a run with SIGHUP ignored, and a shell script's background job has SIGINT and SIGQUIT
    // ignored: the run took them back, so that the terminal's closing stopped a run under nohup (and a count
    // without a journal lost its work), and the Ctrl-C of the job in front stopped the one behind.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j");
    for checkpoint in [true, false] {
        let _ = std::fs::remove_file(&journal);
        let mut args = vec![
            "count", "17", "-t", "1", "--kernel", "scalar", "--format", "csv",
        ];
        if checkpoint {
            args.extend(["--checkpoint", path_str(&journal)]);
        }
        let began = Instant::now();
        // Under way: its journal made, or (without one) its threads started.
        let mut child = started_ignoring(dir.path(), "HUP INT QUIT", &args, || {
            if checkpoint {
                journal.exists()
            } else {
                began.elapsed() > Duration::from_millis(300)
            }
        });
        // Still running, so that the signals reach the run and not an ended process (n = 17 on one thread of
        // the scalar loop takes seconds on any machine).
        assert!(
            child.try_wait().unwrap().is_none(),
            "ended before the signals"
        );
        for name in ["HUP", "INT", "QUIT"] {
            signal(&child, name);
        }
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert!(
            out.status.success(),
            "checkpoint {checkpoint}: {:?} {stderr}",
            out.status
        );
        assert!(!stderr.contains("stopped by"), "{stderr}");
        assert_eq!(csv_counts(&out), {
            let (t, u) = published_counts(17);
            (t, Some(u))
        });
    }
    // A signal not ignored at the start still stops it.
    let _ = std::fs::remove_file(&journal);
    let args = [
        "count",
        "16",
        "-t",
        "1",
        "--kernel",
        "scalar",
        "--checkpoint",
        path_str(&journal),
    ];
    let child = started_ignoring(dir.path(), "HUP", &args, || journal.exists());
    signal(&child, "TERM");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143), "{}", text(&out.stderr));
}

#[cfg(unix)]
#[test]
fn a_batch_systems_warnings_sigusr1_sigusr2_and_sigxcpu_stop_a_checkpointed_run_as_sigterm_does() {
    // Slurm's `--signal=USR1@120`, Grid Engine's soft limits (SIGUSR1 for time, SIGXCPU for processor time)
    // and `ulimit -t` warn a job before they kill it: the run finishes its work under way, saves the journal,
    // says how to resume and exits with 128 + the signal's number, as for SIGTERM.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j");
    let args = [
        "count",
        "16",
        "-t",
        "1",
        "--kernel",
        "scalar",
        "--checkpoint",
        path_str(&journal),
        "--format",
        "csv",
    ];
    for (name, number) in [
        ("USR1", libc::SIGUSR1),
        ("USR2", libc::SIGUSR2),
        ("XCPU", libc::SIGXCPU),
    ] {
        let before = if journal.exists() {
            journal_lines(&journal).len()
        } else {
            1
        };
        // Signalled once this run has finished a unit of its own, however slow a loaded machine makes it
        // (a fixed wait after the journal appeared has seen none finished): what it finished must outlive
        // the stop.
        let child = started(
            dir.path(),
            &args,
            || std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count()) > before,
            Duration::from_millis(100),
        );
        signal(&child, name);
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(128 + number), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "stopped by SIG{name}: the finished units are saved in '{}'; resume with:\n  nqueens count 16 \
                 --symmetry full --checkpoint {} --threads 1 --kernel scalar --format csv\n",
                path_str(&journal),
                nqueens::runs::shell_word(&journal)
            )),
            "{name}: {stderr}"
        );
        assert!(
            out.stdout.is_empty(),
            "{name}: no result from a stopped run"
        );
        assert!(
            journal_lines(&journal).len() > before,
            "{name}: the units it finished were saved"
        );
    }
    // No core of SIGXCPU's default.
    assert!(!dir.path().join("core").exists());
    let out = run(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(csv_counts(&out), {
        let (t, u) = published_counts(16);
        (t, Some(u))
    });
}

#[cfg(unix)]
#[test]
fn sigxcpu_again_while_the_run_winds_down_is_the_limit_repeating_not_a_second_stop() {
    // Past its soft limit of processor time, the kernel sends SIGXCPU every second of it a run uses: the run
    // still waits its grace for the work under way (n = 24 split two rows deep: a unit of many minutes), and
    // another signal leaves at once.
    let dir = tempfile::tempdir().unwrap();
    let mut child = under_way(&["24", "--split-depth", "2"], &dir.path().join("j"), "1h");
    signal(&child, "XCPU");
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(600));
        signal(&child, "XCPU");
    }
    std::thread::sleep(Duration::from_millis(600));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run waits for the unit under way"
    );
    signal(&child, "TERM");
    let out = ended_within(child, 10);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(128 + libc::SIGXCPU), "{stderr}");
    assert!(
        stderr.contains(
            "stopping on SIGXCPU: finishing the work under way, for 1h at most (--stop-grace)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "stopped by SIGXCPU, then SIGTERM: the work under way is left to count again;"
        ),
        "{stderr}"
    );
}

/// The resume command that a stopped run said on stderr (`resume with:` and the command on the next line).
#[cfg(unix)]
fn resume_command_in(stderr: &str) -> String {
    stderr
        .split_once("resume with:\n  ")
        .and_then(|(_, rest)| rest.lines().next())
        .unwrap_or_else(|| panic!("no resume command: {stderr}"))
        .to_string()
}

/// `command` run by a shell in `dir`, as a user pastes it, with this build's `nqueens` first on the path.
#[cfg(unix)]
fn in_a_shell(dir: &Path, command: &str) -> Output {
    let folder = binary().parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(folder).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    common::command("sh")
        .args(["-c", command])
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn the_printed_resume_command_run_as_printed_is_the_run_that_was_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j");
    // Its result into a file whose name a shell splits, in JSON, checked; on one thread of the scalar loop, so
    // that the run lasts seconds on any processor and the signal lands while it runs.
    let args = [
        "count",
        "16",
        "--checkpoint",
        "j",
        "-o",
        "r s.json",
        "-f",
        "json",
        "--check",
        "-t",
        "1",
        "--kernel",
        "scalar",
    ];
    let child = started(
        dir.path(),
        &args,
        || journal.exists(),
        Duration::from_millis(300),
    );
    signal(&child, "TERM");
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    let command = resume_command_in(&stderr);
    assert_eq!(
        command,
        "nqueens count 16 --symmetry full --checkpoint j --check --threads 1 --kernel scalar --output \
         'r s.json' --format json"
    );
    assert!(!dir.path().join("r s.json").exists(), "no result yet");
    assert!(
        journal_lines(&journal).len() > 1,
        "the finished units were saved"
    );

    // Pasted into a shell, it resumes the journal to the exact total, into the file the first command named,
    // in its format, checked.
    let out = in_a_shell(dir.path(), &command);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("resuming 'j'"), "{stderr}");
    assert!(out.stdout.is_empty(), "the result went to its file");
    let doc: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("r s.json")).unwrap()).unwrap();
    let result = &doc["results"][0];
    let (total, unique) = published_counts(16);
    assert_eq!(result["total"].as_u64(), Some(total as u64), "{doc}");
    assert_eq!(result["unique"].as_u64(), Some(unique as u64), "{doc}");
    assert_eq!(result["check"]["status"], "match", "{doc}");
    assert_eq!(result["threads"], 1, "{doc}");
    assert_eq!(result["kernel"], "scalar", "{doc}");
}

#[cfg(unix)]
#[test]
fn a_shard_found_by_its_launcher_resumes_as_the_shard_it_was_with_its_journal_named_for_it() {
    let dir = tempfile::tempdir().unwrap();
    // `srun` gives the shard (task 1 of 2); the printed command names it, and the journal by its name, so that
    // it resumes the same shard outside the launcher too.
    let journal = dir.path().join("n16-1-of-2.journal");
    let mut child = common::command(binary())
        .current_dir(dir.path())
        .args([
            "count",
            "16",
            "--shard",
            "auto",
            "--checkpoint",
            "n16-{k}-of-{m}.journal",
            "-t",
            "1",
            "--kernel",
            "scalar",
            "-q",
        ])
        .env("SLURM_PROCID", "1")
        .env("SLURM_NTASKS", "2")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !journal.exists() {
        assert!(Instant::now() < deadline, "no journal in 60 s");
        assert!(
            child.try_wait().unwrap().is_none(),
            "ended before it was stopped"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, "TERM");
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    let command = resume_command_in(&stderr);
    assert_eq!(
        command,
        "nqueens count 16 --symmetry full --checkpoint n16-1-of-2.journal --shard 1/2 --threads 1 --kernel \
         scalar --quiet"
    );
    let out = in_a_shell(dir.path(), &command);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The other shard, and the two add up to the board's total.
    let other = run(&[
        "count",
        "16",
        "--shard",
        "0/2",
        "--checkpoint",
        path_str(&dir.path().join("n16-0-of-2.journal")),
        "-q",
    ]);
    assert!(other.status.success(), "{}", text(&other.stderr));
    let merged = common::command(binary())
        .current_dir(dir.path())
        .args([
            "merge",
            "n16-0-of-2.journal",
            "n16-1-of-2.journal",
            "-f",
            "csv",
        ])
        .output()
        .unwrap();
    assert!(merged.status.success(), "{}", text(&merged.stderr));
    assert_eq!(csv_counts(&merged), {
        let (t, u) = published_counts(16);
        (t, Some(u))
    });
}

/// `child`'s output once it has ended, within `seconds` of now: a run that does not end by then is killed and
/// fails the test, rather than hangs it.
#[cfg(unix)]
fn ended_within(mut child: std::process::Child, seconds: u64) -> Output {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running {seconds} s after the signal: {}",
                text(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Starts a checkpointed count (`count` with `args`) on one thread with `grace` (`--stop-grace`) into
/// `journal`, and returns once its run is under way: the journal is written, and the plan built well before.
#[cfg(unix)]
fn under_way(args: &[&str], journal: &Path, grace: &str) -> std::process::Child {
    let journal_name = path_str(journal);
    let mut command = vec!["count"];
    command.extend_from_slice(args);
    command.extend_from_slice(&[
        "-t",
        "1",
        "--checkpoint",
        journal_name,
        "--stop-grace",
        grace,
    ]);
    let folder = journal.parent().expect("a journal in a folder");
    started(
        folder,
        &command,
        || journal.exists(),
        Duration::from_secs(1),
    )
}

#[cfg(unix)]
#[test]
fn a_stopped_run_waits_its_grace_for_the_work_under_way_and_a_second_signal_leaves_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // n = 24 split two rows deep: its first units, the largest, take many minutes each on any processor, so
    // the one under way never finishes here.
    let long = |name: &str, grace: &str| {
        under_way(&["24", "--split-depth", "2"], &dir.path().join(name), grace)
    };

    // With an hour's grace the run waits for its unit, well past the 2 s a CPU run waits by default, and says
    // so; a second signal, of any kind, leaves at once. The exit code is the first signal's.
    let mut child = long("hour", "1h");
    signal(&child, "INT");
    // The same signal again at once is the same stop sent twice (GNU `timeout` signals the process, then its
    // group), not a second one.
    signal(&child, "INT");
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run waits for the unit under way"
    );
    signal(&child, "TERM");
    let out = ended_within(child, 10);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains(
            "stopping on SIGINT: finishing the work under way, for 1h at most (--stop-grace); a second \
             signal leaves at once without it"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "stopped by SIGINT, then SIGTERM: the work under way is left to count again; the finished units \
             are saved in"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("resume with:\n  nqueens count 24 --symmetry full --checkpoint"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "no result from a stopped run");
    assert_eq!(
        journal_lines(&dir.path().join("hour")).len(),
        1,
        "the header alone"
    );

    // A grace that runs out: the run leaves on its own, with the journal saved. Quiet, it says so alone.
    let child = under_way(
        &["24", "--split-depth", "2", "-q"],
        &dir.path().join("second"),
        "1s",
    );
    signal(&child, "INT");
    let out = ended_within(child, 10);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains(
            "stopped by SIGINT: the work under way did not finish within 1s (--stop-grace) and is left to \
             count again"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("stopping on"), "{stderr}");

    // No grace: the run leaves at once, as SIGHUP says.
    let child = long("none", "0");
    signal(&child, "HUP");
    let out = ended_within(child, 10);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(129), "{stderr}");
    assert!(
        stderr.contains(
            "stopped by SIGHUP at once (--stop-grace 0): the work under way is left to count again"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("stopping on"), "{stderr}");

    // Short units: the work under way finishes long before an hour's grace, is recorded, and the count
    // resumes to the published total. (The scalar loop, so that the run lasts seconds on any processor.)
    let journal = dir.path().join("short");
    let child = under_way(&["16", "--kernel", "scalar"], &journal, "1h");
    signal(&child, "INT");
    let out = ended_within(child, 30);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("stopped by SIGINT: the finished units are saved in"),
        "{stderr}"
    );
    assert!(!stderr.contains("left to count again"), "{stderr}");
    assert!(
        journal_lines(&journal).len() > 1,
        "the finished units were saved"
    );
    let out = run(&[
        "count",
        "16",
        "--checkpoint",
        path_str(&journal),
        "-f",
        "csv",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(csv_counts(&out), {
        let (t, u) = published_counts(16);
        (t, Some(u))
    });

    // A grace that cannot help, or is a slip: a usage error before anything is written.
    for (args, message) in [
        (
            &["count", "12", "--stop-grace", "30s"][..],
            "--stop-grace goes with --checkpoint FILE: a run without a journal keeps nothing",
        ),
        (
            &["count", "12", "--checkpoint", "g", "--stop-grace", "30d"],
            "a grace of 30d is longer than any work under way takes: give 24h or less",
        ),
        (
            &["count", "12", "--checkpoint", "g", "--stop-grace", "soon"],
            "give a duration such as 30s or 2m, or 0 to leave at once",
        ),
    ] {
        nqueens()
            .current_dir(dir.path())
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::contains(message));
    }
    assert!(!dir.path().join("g").exists());
}

#[cfg(unix)]
#[test]
fn a_count_without_a_journal_stopped_by_a_signal_says_what_it_counted_and_where() {
    let dir = tempfile::tempdir().unwrap();
    // A sweep whose last board (n = 30) takes years: the signal lands while it is counted.
    let json = dir.path().join("c.json");
    let (stdout, said) = stopped_by_sigterm(
        dir.path(),
        &["count", "4..8", "30", "-t", "1", "--export-json", "c.json"],
        || {
            std::fs::read(&json)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
                .is_some_and(|doc| doc["results"].as_array().is_some_and(|r| r.len() == 5))
        },
    );
    assert_eq!(
        said,
        "stopped by SIGTERM: 5 of the 6 boards were counted, n = 30 was not; standard output has \
         their rows, and so has c.json (marked \"running\"); `nqueens count 30 --checkpoint FILE` keeps \
         a board's work when stopped, and resumes it"
    );
    // What it says the rows hold, they hold: the five boards, with the published totals.
    let rows: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(rows.len(), 5, "{stdout}");
    for (row, n) in rows.iter().zip(4..=8) {
        let fields: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(fields[0], n.to_string());
        assert_eq!(fields[1], published_counts(n).0.to_string());
    }

    // Into a file (-o), which appears only when the count ends, beside an export that has what was counted.
    let csv = dir.path().join("c.csv");
    let (stdout, said) = stopped_by_sigterm(
        dir.path(),
        &[
            "count",
            "8",
            "30",
            "-t",
            "1",
            "-o",
            "out.txt",
            "--export-csv",
            "c.csv",
            "--export-markdown",
            "c.md",
        ],
        || std::fs::read_to_string(&csv).is_ok_and(|t| t.lines().count() == 2),
    );
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(
        said,
        "stopped by SIGTERM: 1 of the 2 boards was counted, n = 30 was not; out.txt was not written \
         (its table is written when the count ends); c.csv, c.md (marked INCOMPLETE) have its row; \
         `nqueens count 30 --checkpoint FILE` keeps a board's work when stopped, and resumes it"
    );
    assert!(!dir.path().join("out.txt").exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".nqueens-partial-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // One board, nothing counted yet: it says so, and how to keep a long count's work.
    let started = dir.path().join("started");
    let (stdout, said) = stopped_by_sigterm(
        dir.path(),
        &["count", "30", "-t", "1", "--export-markdown", "started"],
        || started.exists(),
    );
    assert_eq!(stdout.lines().count(), 1, "the header alone: {stdout}");
    assert_eq!(
        said,
        "stopped by SIGTERM: n = 30 was not finished; `nqueens count 30 --checkpoint FILE` keeps a \
         board's work when stopped, and resumes it"
    );

    // A check (`verify`, `--check`): the command that keeps the board's work checks it too.
    let checked = dir.path().join("checked");
    let (_, said) = stopped_by_sigterm(
        dir.path(),
        &["verify", "27", "-t", "1", "--export-markdown", "checked"],
        || checked.exists(),
    );
    assert_eq!(
        said,
        "stopped by SIGTERM: n = 27 was not finished; `nqueens count 27 --check --checkpoint FILE` keeps \
         a board's work when stopped, and resumes it"
    );
}

#[cfg(unix)]
#[test]
fn a_count_without_a_journal_stopped_by_a_batch_systems_warning_says_what_it_counted_as_for_sigterm(
) {
    use std::os::unix::process::ExitStatusExt as _;
    let dir = tempfile::tempdir().unwrap();
    for (name, number) in [
        ("USR1", libc::SIGUSR1),
        ("USR2", libc::SIGUSR2),
        ("XCPU", libc::SIGXCPU),
    ] {
        let export = dir.path().join(format!("{name}.md"));
        let child = started(
            dir.path(),
            &[
                "count",
                "30",
                "-t",
                "1",
                "--export-markdown",
                path_str(&export),
            ],
            || export.exists(),
            Duration::from_millis(300),
        );
        signal(&child, name);
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert!(
            stderr.lines().any(|l| l
                == format!(
                    "stopped by SIG{name}: n = 30 was not finished; `nqueens count 30 --checkpoint FILE` \
                     keeps a board's work when stopped, and resumes it"
                )),
            "{name}: {stderr}"
        );
        // Ended as the signal ends a process, as SIGTERM's does; SIGXCPU, whose default leaves a core, with its
        // exit code and none.
        if number == libc::SIGXCPU {
            assert_eq!(out.status.code(), Some(128 + number), "{stderr}");
        } else {
            assert_eq!(out.status.signal(), Some(number), "{stderr}");
        }
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".md"))
        .collect();
    assert!(left.is_empty(), "no temporary file, no core: {left:?}");
}

/// Counts shard `k` of `m` of board `n` into `dir`, returning the journal.
fn shard(dir: &Path, board: impl std::fmt::Display, symmetry: &str, k: u32, m: u32) -> PathBuf {
    let journal = dir.join(format!("n{board}-{symmetry}-{k}-of-{m}.journal"));
    let out = run(&[
        "count",
        &board.to_string(),
        "--symmetry",
        symmetry,
        "--shard",
        &format!("{k}/{m}"),
        "--checkpoint",
        path_str(&journal),
        "-q",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    journal
}

fn merge(files: &[PathBuf]) -> Output {
    let mut args = vec!["merge".to_string(), "--format".into(), "csv".into()];
    args.extend(files.iter().map(|f| path_str(f).to_string()));
    common::command(binary()).args(&args).output().unwrap()
}

#[test]
fn shards_merged_equal_the_count() {
    let dir = tempfile::tempdir().unwrap();
    for m in 1..=4 {
        let files: Vec<PathBuf> = (0..m)
            .map(|k| shard(dir.path(), 12, "full", k, m))
            .collect();
        let out = merge(&files);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let (t, u) = published_counts(12);
        assert_eq!(csv_counts(&out), (t, Some(u)), "{m} shards");
    }
    // A merge ran no count of its own: its seconds, threads and rates are not shown as zeros.
    let files: Vec<PathBuf> = (0..2)
        .map(|k| shard(dir.path(), 12, "full", k, 2))
        .collect();
    let csv = text(&merge(&files).stdout);
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(
        (row[3], row[4], row[10], row[11]),
        ("", "", "", ""),
        "{csv}"
    );
    let mut args = vec!["merge".to_string()];
    args.extend(files.iter().map(|f| path_str(f).to_string()));
    let table = text(
        &common::command(binary())
            .args(&args)
            .output()
            .unwrap()
            .stdout,
    );
    let cells: Vec<&str> = table.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(cells[3..5], ["-", "-"], "{table}");
    assert!(!table.contains("0.000"), "{table}");
    // The mirror mode, and shards counted with other thread counts.
    let files: Vec<PathBuf> = (0..3)
        .map(|k| shard(dir.path(), 11, "mirror", k, 3))
        .collect();
    let out = merge(&files);
    assert!(out.status.success());
    assert_eq!(csv_counts(&out), (published_counts(11).0, None));
}

#[test]
fn a_rectangle_is_checkpointed_sharded_and_merged_to_the_count_without_a_journal() {
    let dir = tempfile::tempdir().unwrap();
    let plain = run(&["count", "11x9", "-f", "csv", "-q"]);
    assert!(plain.status.success(), "{}", text(&plain.stderr));
    let expected = csv_counts(&plain);
    assert!(expected.0 > 0);
    // One journal, then the same count resumed from it: nothing left to count, the same total.
    let journal = dir.path().join("whole.journal");
    let args = [
        "count",
        "11x9",
        "--checkpoint",
        path_str(&journal),
        "-f",
        "csv",
        "-q",
    ];
    for _ in 0..2 {
        let out = run(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(csv_counts(&out), expected);
    }
    // Its header names the board's rows and columns, and the plan `units` lists for the rectangle.
    let lines = journal_lines(&journal);
    let header: Value = serde_json::from_str(lines[0].rsplit_once('\t').unwrap().0).unwrap();
    assert_eq!(
        (&header["n"], &header["columns"], &header["symmetry"]),
        (&Value::from(11), &Value::from(9), &Value::from("mirror")),
        "{header}"
    );
    let units = run(&["units", "11x9", "--summary", "-f", "json"]);
    assert!(units.status.success(), "{}", text(&units.stderr));
    let plan: Value = serde_json::from_slice(&units.stdout).unwrap();
    assert_eq!(
        (&plan["fingerprint"], &plan["units"], &plan["cols"]),
        (&header["fingerprint"], &header["units"], &Value::from(9)),
        "{plan}"
    );
    assert_eq!(lines.len() - 1, header["units"].as_u64().unwrap() as usize);
    // Three shards merged give the same total, and the merge names the board as the command line does.
    let shards: Vec<PathBuf> = (0..3)
        .map(|k| shard(dir.path(), "11x9", "mirror", k, 3))
        .collect();
    let merged = merge(&shards);
    assert!(merged.status.success(), "{}", text(&merged.stderr));
    assert_eq!(csv_counts(&merged), expected);
    assert!(text(&merged.stdout)
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("11x9,"));
    assert!(text(&merged.stderr).contains("the board 11x9, symmetry mirror"));
    // A shard of another board of the same rows is another run's, though its n is the same.
    let square = shard(dir.path(), 11, "mirror", 1, 3);
    let mixed = merge(&[shards[0].clone(), square, shards[2].clone()]);
    assert_refused(
        &mixed,
        "is a journal of another plan (n = 11, symmetry mirror",
    );
    // And a rectangle's journal is not resumed as another rectangle's, nor as the square's.
    for other in ["11x8", "11"] {
        let out = run(&[
            "count",
            other,
            "--symmetry",
            "mirror",
            "--checkpoint",
            path_str(&journal),
            "-q",
        ]);
        assert_eq!(out.status.code(), Some(2), "{other}");
        assert!(
            text(&out.stderr)
                .contains("is the journal of the board 11x9, symmetry mirror, split depth"),
            "{other}: {}",
            text(&out.stderr)
        );
    }
    assert_eq!(
        journal_lines(&journal),
        lines,
        "a refused run changes nothing"
    );
}

#[test]
fn a_rectangles_journal_read_without_its_columns_is_refused_not_taken_for_the_square() {
    // A version of nqueens that knows nothing of the header's `columns` reads a rectangle's journal as the
    // square of its rows: the fingerprint, of the rectangle's plan, then refuses it. Here the field is removed
    // by hand (checksum made right), as that version would see the header.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("rect.journal");
    let out = run(&["count", "10x8", "--checkpoint", path_str(&journal), "-q"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let text_before = std::fs::read_to_string(&journal).unwrap();
    let (first, rest) = text_before.split_once('\n').unwrap();
    let payload = first.rsplit_once('\t').unwrap().0;
    assert!(payload.contains(",\"columns\":8,"), "{payload}");
    let forged = payload.replace(",\"columns\":8,", ",");
    let forged = format!(
        "{forged}\t{:08x}\n{rest}",
        crc32fast::hash(forged.as_bytes())
    );
    std::fs::write(&journal, &forged).unwrap();
    let resumed = run(&[
        "count",
        "10",
        "--symmetry",
        "mirror",
        "--checkpoint",
        path_str(&journal),
        "-q",
    ]);
    assert_eq!(resumed.status.code(), Some(2));
    assert!(
        text(&resumed.stderr).contains("its plan has another fingerprint"),
        "{}",
        text(&resumed.stderr)
    );
    assert_refused(
        &merge(std::slice::from_ref(&journal)),
        "has the fingerprint",
    );
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), forged);
    // A square's journal has no `columns`, as every journal written before rectangles had: they read alike.
    let square = dir.path().join("square.journal");
    assert!(
        run(&["count", "9", "--checkpoint", path_str(&square), "-q"])
            .status
            .success()
    );
    assert!(!journal_lines(&square)[0].contains("columns"));
}

#[test]
fn a_shard_names_its_part_in_every_format_and_its_total_is_the_parts() {
    let dir = tempfile::tempdir().unwrap();
    let journal = |name: &str| dir.path().join(name);
    let count = |journal: &Path, extra: &[&str], format: &str| -> String {
        let mut args = vec![
            "count",
            "12",
            "--checkpoint",
            path_str(journal),
            "-q",
            "-f",
            format,
        ];
        args.extend_from_slice(extra);
        let out = run(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    // Three shards: each JSON result names its shard, and their totals add up to the board's.
    let mut sum = 0;
    for k in 0..3 {
        let shard = format!("{k}/3");
        let json: Value = serde_json::from_str(&count(
            &journal(&format!("s{k}")),
            &["--shard", &shard],
            "json",
        ))
        .unwrap();
        let result = &json["results"][0];
        assert_eq!(result["part"], format!("shard {shard}"), "{json}");
        let total = result["total"].as_u64().unwrap();
        assert!(
            total < published_counts(12).0 as u64,
            "a shard's total is not the board's"
        );
        sum += u128::from(total);
    }
    assert_eq!(sum, published_counts(12).0);
    // The same journal read again (nothing left to count) in the other formats: a `part` column.
    let table = count(&journal("s1"), &["--shard", "1/3"], "table");
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].ends_with("  part"), "{table}");
    assert!(lines[1].ends_with("  shard 1/3"), "{table}");
    let csv = count(&journal("s1"), &["--shard", "1/3"], "csv");
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let part = rows.headers().unwrap().iter().position(|h| h == "part");
    let row = rows.records().next().unwrap().unwrap();
    assert_eq!(row.get(part.unwrap()), Some("shard 1/3"), "{csv}");
    let markdown = count(&journal("s1"), &["--shard", "1/3"], "markdown");
    assert!(
        markdown.lines().next().unwrap().ends_with("| part |"),
        "{markdown}"
    );
    assert!(
        markdown.lines().nth(2).unwrap().ends_with("| shard 1/3 |"),
        "{markdown}"
    );
    // Units asked for by number are a part too, with or without a shard.
    let json: Value =
        serde_json::from_str(&count(&journal("u"), &["--units", "0-9"], "json")).unwrap();
    assert_eq!(json["results"][0]["part"], "units 0-9");
    assert_eq!(json["results"][0]["units"], 10);
    let json: Value = serde_json::from_str(&count(
        &journal("su"),
        &["--shard", "0/2", "--units", "0-9"],
        "json",
    ))
    .unwrap();
    assert_eq!(json["results"][0]["part"], "shard 0/2, units 0-9");
    assert_eq!(json["results"][0]["units"], 5);
    // A whole board, checkpointed or not, has no part: no key, no table column, an empty CSV field.
    for extra in [&["--checkpoint", path_str(&journal("whole"))][..], &[]] {
        let mut args = vec!["count", "12", "-q", "-f", "json"];
        args.extend_from_slice(extra);
        let json: Value = serde_json::from_slice(&run(&args).stdout).unwrap();
        assert!(json["results"][0].get("part").is_none(), "{json}");
        assert_eq!(json["results"][0]["total"], published_counts(12).0 as u64);
        args[4] = "table";
        let table = text(&run(&args).stdout);
        assert!(!table.contains("part"), "{table}");
        args[4] = "csv";
        let csv = text(&run(&args).stdout);
        let mut rows = csv::Reader::from_reader(csv.as_bytes());
        let part = rows.headers().unwrap().iter().position(|h| h == "part");
        assert_eq!(
            rows.records().next().unwrap().unwrap().get(part.unwrap()),
            Some("")
        );
    }
}

#[test]
fn a_shards_time_is_not_plotted_as_the_boards() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("shard.json");
    let out = run(&[
        "count",
        "12",
        "--shard",
        "0/2",
        "--checkpoint",
        path_str(&dir.path().join("s")),
        "-q",
        "-f",
        "json",
        "-o",
        path_str(&report),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(&[
        "plot",
        path_str(&report),
        "-o",
        path_str(&dir.path().join("plots")),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let said = text(&out.stderr);
    assert!(
        said.contains("left out of time-vs-n.svg: the part of n = 12")
            && said.contains("no timed counts of whole square boards"),
        "{said}"
    );
}

#[test]
fn the_shard_can_come_from_the_launcher() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = dir.path().join("s-{k}-of-{m}");
    let mut files = Vec::new();
    for k in 0..2 {
        nqueens()
            .args([
                "count",
                "10",
                "--shard",
                "auto",
                "--checkpoint",
                path_str(&pattern),
                "-q",
            ])
            .env("OMPI_COMM_WORLD_RANK", k.to_string())
            .env("OMPI_COMM_WORLD_SIZE", "2")
            .env_remove("SLURM_PROCID")
            .assert()
            .success();
        files.push(dir.path().join(format!("s-{k}-of-2")));
    }
    assert!(merge(&files).status.success());
    // Nothing to read: a clear usage error, not a silent whole count.
    nqueens()
        .args(["count", "10", "--shard", "auto", "--checkpoint", "x"])
        .env_remove("SLURM_PROCID")
        .env_remove("OMPI_COMM_WORLD_RANK")
        .env_remove("PMI_RANK")
        .env_remove("JOB_COMPLETION_INDEX")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("found no shard"));
    nqueens()
        .args(["count", "10", "--shard", "1/2"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("need --checkpoint"));
}

#[test]
fn a_launchers_task_lists_the_units_it_counts() {
    // `nqueens units N --shard auto` in each task of an mpirun (or srun, or a Kubernetes indexed Job) lists the
    // units `count N --shard auto --checkpoint FILE` counts in that task, read from the same variables.
    let dir = tempfile::tempdir().unwrap();
    let listed = |env: &[(&str, &str)], extra: &[&str]| -> Vec<u64> {
        let mut cmd = nqueens();
        cmd.args(["units", "10", "--shard", "auto", "-f", "json"])
            .args(extra);
        for name in LAUNCHER_VARIABLES {
            cmd.env_remove(name);
        }
        let out = cmd.envs(env.iter().copied()).assert().success();
        let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        doc["list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["unit"].as_u64().unwrap())
            .collect()
    };
    for k in ["0", "2"] {
        let env = [("OMPI_COMM_WORLD_RANK", k), ("OMPI_COMM_WORLD_SIZE", "3")];
        let journal = dir.path().join(format!("s{k}.journal"));
        let mut cmd = nqueens();
        cmd.args(["count", "10", "--shard", "auto", "-q", "--checkpoint"])
            .arg(&journal);
        for name in LAUNCHER_VARIABLES {
            cmd.env_remove(name);
        }
        cmd.envs(env).assert().success();
        // The journal has the units in the order they were counted.
        let mut counted: Vec<u64> = journal_lines(&journal)[1..]
            .iter()
            .map(|line| {
                let json = line.split('\t').next().unwrap();
                serde_json::from_str::<Value>(json).unwrap()["unit"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        counted.sort_unstable();
        let units = listed(&env, &[]);
        assert!(!units.is_empty());
        assert_eq!(units, counted, "task {k} of 3");
    }
    // Kubernetes says the index alone: `--shard-count` gives the count, as for `count`.
    assert_eq!(
        listed(&[("JOB_COMPLETION_INDEX", "1")], &["--shard-count", "4"]),
        listed(
            &[("OMPI_COMM_WORLD_RANK", "1"), ("OMPI_COMM_WORLD_SIZE", "4")],
            &[]
        ),
    );
    // And refused as `count` refuses it: no launcher, a rank past the size, a count without `auto`.
    for (env, extra, message) in [
        (
            &[][..],
            &[][..],
            "--shard auto found no shard in the environment",
        ),
        (
            &[("SLURM_PROCID", "4"), ("SLURM_NTASKS", "4")][..],
            &[][..],
            "SLURM_PROCID=4 is not below SLURM_NTASKS=4",
        ),
        (
            &[("JOB_COMPLETION_INDEX", "x")][..],
            &["--shard-count", "4"][..],
            "the environment variable JOB_COMPLETION_INDEX='x' is not a shard number",
        ),
        // Shards 3 and 4 of 5 would never run under Slurm's 3 tasks.
        (
            &[("SLURM_PROCID", "1"), ("SLURM_NTASKS", "3")][..],
            &["--shard-count", "5"][..],
            "--shard-count 5 disagrees with SLURM_NTASKS=3, the Slurm launcher's number of tasks",
        ),
    ] {
        for command in [
            &["units", "10"][..],
            &["count", "10", "--checkpoint", "never"],
        ] {
            let mut cmd = nqueens();
            cmd.args(command).args(["--shard", "auto"]).args(extra);
            for name in LAUNCHER_VARIABLES {
                cmd.env_remove(name);
            }
            cmd.envs(env.iter().copied())
                .current_dir(dir.path())
                .assert()
                .code(2)
                .stdout("")
                .stderr(predicates::str::contains(message));
        }
    }
    for command in [
        &["units", "10"][..],
        &["count", "10", "--checkpoint", "never"],
    ] {
        nqueens()
            .args(command)
            .args(["--shard", "1/2", "--shard-count", "2"])
            .current_dir(dir.path())
            .assert()
            .code(2)
            .stderr(
                "error: --shard-count goes with --shard auto; write the count in --shard K/M\n",
            );
    }
    assert!(!dir.path().join("never").exists());
}

/// The variables `--shard auto` reads, removed so that a test run inside a launcher's job reads only its own.
const LAUNCHER_VARIABLES: [&str; 8] = [
    "SLURM_PROCID",
    "SLURM_NTASKS",
    "SLURM_ARRAY_TASK_ID",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "PMI_RANK",
    "PMI_SIZE",
    "JOB_COMPLETION_INDEX",
];

#[test]
fn a_run_of_more_shards_than_the_plan_has_units_is_refused_before_its_journal() {
    // n = 10 has 2,726 units: shard 0/4294967295 was counted, and its merge went through four billion shards.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("x.journal");
    nqueens()
        .args(["count", "10", "--shard", "0/4294967295", "--checkpoint"])
        .arg(&journal)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "shard 0/4294967295: the plan of n = 10, symmetry full, split depth 5 has 2726 units, so \
             4294964569 of the 4294967295 shards would have nothing to count; split the run into 2726 shards or \
             fewer",
        ));
    assert!(!journal.exists());
    // From the launcher alike: every task of an srun of 4096 tasks is refused, not only those past the units.
    for rank in ["0", "4095"] {
        nqueens()
            .args(["count", "10", "--shard", "auto", "--checkpoint"])
            .arg(&journal)
            .env("SLURM_PROCID", rank)
            .env("SLURM_NTASKS", "4096")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .assert()
            .code(2)
            .stderr(predicates::str::contains("2726 shards or fewer"));
    }
    assert!(!journal.exists());
    // As many shards as units: each holds one.
    let last = shard(dir.path(), 10, "full", 2725, 2726);
    assert_eq!(journal_lines(&last).len(), 2);
    // The plan's units of a shard are refused alike (they listed nothing), and listed up to as many shards as
    // units.
    nqueens()
        .args(["units", "10", "--shard", "0/2727"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains(
            "shard 0/2727: the plan of n = 10, symmetry full, split depth 5 has 2726 units, so 1 of the 2727 \
             shards would have nothing to count",
        ));
    nqueens()
        .args(["units", "10", "--shard", "2725/2726", "--summary"])
        .assert()
        .success()
        .stdout(predicates::str::contains("shard 2725/2726: 1 unit\n"));
}

#[test]
fn a_run_of_one_unit_says_so_in_the_singular() {
    // The plan of n = 4 has one unit, and so has the last shard of n = 10's: "0 of 1 units recorded" read
    // wrongly.
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("n4.journal");
    let out = nqueens()
        .args(["count", "4", "-t", "1", "--checkpoint"])
        .arg(&whole)
        .assert()
        .success();
    let said = text(&out.get_output().stderr);
    assert!(
        said.contains("n4.journal': 0 of 1 unit recorded, 1 to count (split depth 2"),
        "{said}"
    );
    nqueens()
        .arg("merge")
        .arg(&whole)
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "merged 1 journal: the 1 unit of n = 4, symmetry full, split depth 2",
        ));
    let part = dir.path().join("n10-last.journal");
    let out = nqueens()
        .args([
            "count",
            "10",
            "-t",
            "1",
            "--shard",
            "2725/2726",
            "--checkpoint",
        ])
        .arg(&part)
        .assert()
        .success();
    let said = text(&out.get_output().stderr);
    assert!(
        said.contains(": 0 of 1 unit recorded, 1 to count")
            && said.contains("shard 2725/2726: the 1 unit recorded in '"),
        "{said}"
    );
}

#[test]
fn a_merge_of_a_run_of_many_shards_says_what_is_missing_at_once_and_in_a_few_lines() {
    let dir = tempfile::tempdir().unwrap();
    // Shard 0 of 2726 at n = 10 (one unit each): a command for the first shards that lack units, their number
    // and the others' numbers, where a command came for each of the 2,725.
    let zero = shard(dir.path(), 10, "full", 0, 2726);
    let out = merge(std::slice::from_ref(&zero));
    assert_refused(&out, "2725 of 2726 units are missing: 1-2725\n");
    let said = text(&out.stderr);
    assert_eq!(said.lines().count(), 13, "{said}");
    assert!(
        said.contains("count shard 10/2726, whose journal is not here: ")
            && !said.contains("shard 11/2726")
            && said.contains("and 2715 more shards of 2726 lack units, to resume or count in the same way: 11-2725")
            && said.contains("--units 1-2725 --checkpoint missing.journal"),
        "{said}"
    );
    // The journal of shard 0/4294967295, as `count` wrote it before it refused so many shards: the merge
    // suggests no shard (`count` would refuse it) and ends at once, where it took seconds.
    let lines = journal_lines(&zero);
    let header = lines[0]
        .rsplit_once('\t')
        .unwrap()
        .0
        .replace("\"shard\":\"0/2726\"", "\"shard\":\"0/4294967295\"");
    assert!(header.contains("4294967295"), "{header}");
    let header = format!("{header}\t{:08x}", crc32fast::hash(header.as_bytes()));
    let old = dir.path().join("x.journal");
    std::fs::write(&old, format!("{header}\n{}\n", lines[1])).unwrap();
    let started = Instant::now();
    let out = nqueens()
        .args(["merge"])
        .arg(&old)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert_refused(&out, "2725 of 2726 units are missing: 1-2725\n");
    let said = text(&out.stderr);
    assert_eq!(said.lines().count(), 3, "{said}");
    assert!(
        said.contains("the run has 4294967295 shards for 2726 units, more than `count` starts")
            && said.contains("--units 1-2725 --checkpoint missing.journal"),
        "{said}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

/// Asserts that a merge failed with exit code 1, printed no total, and said `needle`.
fn assert_refused(out: &Output, needle: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty(), "no total: {:?}", text(&out.stdout));
    assert!(stderr.contains(needle), "expected '{needle}' in: {stderr}");
}

#[test]
fn the_command_merge_gives_for_a_shard_never_names_a_journal_of_some_of_its_units() {
    // Some units of shard 2/3 counted under the name the shard's own journal would have: the command that
    // counts the rest of the shard names another file, which the same glob takes, since `count` refuses that
    // journal as another run's.
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> = (0..2)
        .map(|k| shard(dir.path(), 10, "full", k, 3))
        .collect();
    let some = dir.path().join("n10-full-2-of-3.journal");
    let counted = run(&[
        "count",
        "10",
        "--shard",
        "2/3",
        "--units",
        "2,5",
        "--checkpoint",
        path_str(&some),
        "-q",
    ]);
    assert!(counted.status.success(), "{}", text(&counted.stderr));
    files.push(some.clone());
    let out = merge(&files);
    assert_refused(&out, "missing");
    let said = text(&out.stderr);
    let (what, command) = said
        .lines()
        .find(|l| l.starts_with("count shard 2/3, "))
        .and_then(|l| l.split_once(": nqueens "))
        .unwrap_or_else(|| panic!("no command for shard 2/3 in: {said}"));
    assert_eq!(
        what,
        format!(
            "count shard 2/3, of which only a journal of some units is here ({})",
            path_str(&some)
        )
    );
    let whole = dir.path().join("n10-full-2-whole-of-3.journal");
    assert!(
        command.ends_with(&format!("--shard 2/3 --checkpoint {}", path_str(&whole))),
        "{command}"
    );
    let counted = common::command(binary())
        .args(command.split_whitespace())
        .arg("-q")
        .output()
        .unwrap();
    assert!(counted.status.success(), "{}", text(&counted.stderr));
    files.push(whole);
    let out = merge(&files);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (t, u) = published_counts(10);
    assert_eq!(csv_counts(&out), (t, Some(u)));
}

#[test]
fn merges_refuse_missing_conflicting_truncated_and_foreign_journals() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = (0..3)
        .map(|k| shard(dir.path(), 10, "full", k, 3))
        .collect();

    // Unreadable: the file is named, and the system's reason given once; a mistake in the arguments (exit
    // code 2), as a file `check` or `plot` cannot read is.
    let gone = dir.path().join("gone.journal");
    let out = merge(&[files[0].clone(), gone.clone()]);
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(out.stdout.is_empty());
    assert!(
        said.contains(&format!("could not read '{}'", path_str(&gone))),
        "{said}"
    );
    assert_eq!(said.matches("No such file").count(), 1, "{said}");

    // A device is no journal, and not a file to remove: `merge /dev/null` said to remove it.
    #[cfg(unix)]
    {
        let out = merge(&[files[0].clone(), PathBuf::from("/dev/null")]);
        assert_refused(
            &out,
            "'/dev/null' is empty, so it is no nqueens journal (a journal always has its header): it is no \
             regular file but a device or a pipe, which gave nothing; name a journal file",
        );
        assert!(!text(&out.stderr).contains("remove"));
    }

    // Missing: a shard left out is named, with the command that counts it.
    let out = merge(&files[..2]);
    assert_refused(&out, "missing");
    assert!(text(&out.stderr).contains("--shard 2/3 --checkpoint"));
    assert!(text(&out.stderr).contains("shard 2/3, whose journal is not here"));

    // A journal of some units of that shard is named for what it is, not as the shard's journal.
    let some = dir.path().join("some-of-shard-2.journal");
    let counted = run(&[
        "count",
        "10",
        "--symmetry",
        "full",
        "--shard",
        "2/3",
        "--units",
        "2,5",
        "--checkpoint",
        path_str(&some),
        "-q",
    ]);
    assert!(counted.status.success(), "{}", text(&counted.stderr));
    let out = merge(&[files[0].clone(), files[1].clone(), some.clone()]);
    assert_refused(&out, "missing");
    let said = text(&out.stderr);
    assert!(
        said.contains(&format!(
            "shard 2/3, of which only a journal of some units is here ({})",
            path_str(&some)
        )),
        "{said}"
    );

    // Duplicate: an identical copy confirms.
    let copy = dir.path().join("copy-of-shard-1.journal");
    std::fs::copy(&files[1], &copy).unwrap();
    let mut twice = files.clone();
    twice.push(copy);
    let out = merge(&twice);
    assert!(out.status.success());
    let said = text(&out.stderr);
    assert!(said.contains("merged 4 journals"), "{said}");
    assert!(
        !said.contains(", 0 confirmed by copies that agree"),
        "{said}"
    );
    // The same file named twice is no copy: it is read once, and confirms nothing.
    let mut again = files.clone();
    again.push(files[1].clone());
    let out = merge(&again);
    assert!(out.status.success());
    let said = text(&out.stderr);
    assert!(said.contains("named again: read once"), "{said}");
    assert!(said.contains("merged 3 journals"), "{said}");
    assert!(
        said.contains(", 0 confirmed by copies that agree"),
        "{said}"
    );
    // With `-q` that note is not said either: nothing but the result, which is the same.
    let mut args = vec!["merge", "--format", "csv", "-q"];
    args.extend(again.iter().map(|f| path_str(f)));
    let quiet = run(&args);
    assert!(quiet.status.success(), "{}", text(&quiet.stderr));
    assert_eq!(text(&quiet.stderr), "", "-q prints nothing on stderr");
    // The same but for the last column, the time of the merge, which may be the next second's.
    let untimed = |csv: &[u8]| -> Vec<String> {
        text(csv)
            .lines()
            .map(|l| l.rsplit_once(',').unwrap().0.to_string())
            .collect()
    };
    assert!(text(&out.stdout)
        .lines()
        .next()
        .unwrap()
        .ends_with(",timestamp"));
    assert_eq!(untimed(&quiet.stdout), untimed(&out.stdout));

    // Conflicting: a unit recorded with another count (checksum and residues made to fit) is named.
    let lines = journal_lines(&files[0]);
    let payload = lines[5].rsplit_once('\t').unwrap().0;
    let mut entry: Value = serde_json::from_str(payload).unwrap();
    let unit = entry["unit"].as_u64().unwrap();
    let total = entry["total"].as_u64().unwrap() + 8;
    entry["total"] = total.into();
    entry["mod"] =
        serde_json::to_value(nqueens::runs::journal::residues(u128::from(total))).unwrap();
    let forged = entry.to_string();
    let forged = format!("{forged}\t{:08x}", crc32fast::hash(forged.as_bytes()));
    let other = dir.path().join("forged");
    std::fs::write(&other, format!("{}\n{forged}\n", lines[0])).unwrap();
    let mut conflicting = files.clone();
    conflicting.push(other);
    assert_refused(
        &merge(&conflicting),
        &format!("unit {unit} has different counts"),
    );

    // Truncated: a journal cut anywhere loses units, which are then missing.
    let bytes = std::fs::read(&files[2]).unwrap();
    let cut = dir.path().join("cut");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let out = merge(&[files[0].clone(), files[1].clone(), cut.clone()]);
    assert_refused(&out, "missing");
    assert!(text(&out.stderr).contains(&format!("--checkpoint {}", path_str(&cut))));

    // Changed inside: the checksum catches it.
    let changed = dir.path().join("changed");
    let mut lines2 = journal_lines(&files[2]);
    lines2[3] = lines2[3].replacen("\"nodes\":", "\"nodes\":1", 1);
    std::fs::write(&changed, lines2.join("\n") + "\n").unwrap();
    assert_refused(
        &merge(&[files[0].clone(), files[1].clone(), changed]),
        "checksum",
    );

    // Foreign: a journal of another board, another mode, or no journal at all.
    let eleven = shard(dir.path(), 11, "full", 2, 3);
    assert_refused(
        &merge(&[files[0].clone(), files[1].clone(), eleven]),
        "another plan",
    );
    let mirror = shard(dir.path(), 10, "mirror", 2, 3);
    assert_refused(
        &merge(&[files[0].clone(), files[1].clone(), mirror]),
        "another plan",
    );
    let csv = dir.path().join("result.csv");
    std::fs::write(&csv, "n,total\n10,724\n").unwrap();
    assert_refused(&merge(&[csv]), "not an nqueens journal");
}

#[test]
fn a_merge_while_a_shard_is_still_counted_says_so_rather_than_asking_to_resume_it() {
    // Shard 1/3's journal, part written and held by its running count (the lock `count` takes, taken here by the
    // test): resuming it would be refused as in use, and its units counted again elsewhere would be counted
    // twice. Shard 2/3's journal lacks its last three units.
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = (0..3)
        .map(|k| shard(dir.path(), 10, "full", k, 3))
        .collect();
    let lines = journal_lines(&files[1]);
    std::fs::write(&files[1], lines[..lines.len() / 2].join("\n") + "\n").unwrap();
    let lines = journal_lines(&files[2]);
    std::fs::write(&files[2], lines[..lines.len() - 3].join("\n") + "\n").unwrap();
    let held = std::fs::File::open(&files[1]).unwrap();
    held.lock().unwrap();
    let out = merge(&files);
    assert_refused(&out, "missing");
    let said = text(&out.stderr);
    assert!(
        said.contains(&format!(
            "shard 1/3 is still being counted: '{}' is in use by a running nqueens; merge again once it has \
             finished",
            path_str(&files[1])
        )),
        "{said}"
    );
    assert!(!said.contains("resume shard 1/3"), "{said}");
    assert!(said.contains("resume shard 2/3: "), "{said}");
    // Only shard 2/3's three units are left to count elsewhere.
    let exactly = said
        .lines()
        .find(|l| l.starts_with("or count exactly the missing units that no running count holds: "))
        .unwrap_or_else(|| panic!("{said}"));
    let list = exactly
        .split("--units ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    let units: Vec<usize> = list.split(',').map(|u| u.parse().unwrap()).collect();
    assert!(
        units.len() == 3 && units.iter().all(|u| u % 3 == 2),
        "{exactly}"
    );
    // Once its run has ended, the same merge asks for the journal to be resumed.
    drop(held);
    let said = text(&merge(&files).stderr);
    assert!(
        said.contains("resume shard 1/3: nqueens count 10 --symmetry full --split-depth"),
        "{said}"
    );
}

#[cfg(unix)]
#[test]
fn a_journal_that_reaches_the_limit_of_a_files_size_stops_the_run_saying_how_to_resume_it() {
    // A batch job's `ulimit -f`: a write past it ended the process with SIGXFSZ (exit code 153), saying nothing
    // of the journal. Now it fails as on a full disk: the run stops with exit code 1, says that what was recorded
    // is kept and how to resume, and the resumed run counts the board exactly.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("n15.journal");
    let out = common::command("sh")
        .arg("-c")
        .arg("ulimit -f 600 && exec \"$0\" count 15 -t 1 --checkpoint \"$1\"")
        .arg(binary())
        .arg(&journal)
        .output()
        .unwrap();
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert!(
        said.contains(&format!("could not write '{}'", path_str(&journal))),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "the run stopped, and the units recorded before are kept in '{}': make room and resume with:\n  \
             nqueens count 15 --symmetry full --checkpoint {} --threads 1\n",
            path_str(&journal),
            path_str(&journal)
        )),
        "{said}"
    );
    let kept = journal_lines(&journal).len();
    assert!(kept > 100, "{kept} lines");
    let out = run(&[
        "count",
        "15",
        "--checkpoint",
        path_str(&journal),
        "--format",
        "csv",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(csv_counts(&out).0, published_counts(15).0);
}

#[cfg(target_os = "linux")]
#[test]
fn a_journal_moved_while_its_run_goes_on_is_followed() {
    // Someone tidying up moves the journal of a run of weeks. The run said, when stopped, that it had saved its
    // units under the name it was given, which held nothing: the resume it printed started again from the first
    // unit. (A journal removed: the test after this one.)
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("n18.journal");
    // The scalar loop on one thread: a run of a minute or more, longer than the 6 s waited below on any
    // machine (the vector loops count n = 18 in some 12 s).
    let args = [
        "count",
        "18",
        "-t",
        "1",
        "--kernel",
        "scalar",
        "--checkpoint",
        "n18.journal",
    ];
    let has_lines = || journal.exists() && journal_lines(&journal).len() > 100;

    // Moved: said as it is seen, and the stop names where the journal is now, for the resume too.
    let moved = dir.path().join("kept").join("n18.journal");
    std::fs::create_dir(moved.parent().unwrap()).unwrap();
    let child = started(dir.path(), &args, has_lines, Duration::from_millis(100));
    std::fs::rename(&journal, &moved).unwrap();
    std::thread::sleep(Duration::from_secs(6));
    signal(&child, "INT");
    let out = child.wait_with_output().unwrap();
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{said}");
    let now = path_str(&moved);
    assert!(
        said.contains(&format!(
            "'n18.journal' was moved to '{now}' while the run goes on: the units are recorded there"
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "the finished units are saved in '{now}'; resume with:\n  nqueens count 18 --symmetry full \
             --checkpoint {now} --threads 1 --kernel scalar\n"
        )),
        "{said}"
    );
    assert!(!journal.exists());
}

#[cfg(target_os = "linux")]
#[test]
fn a_journal_removed_while_its_run_goes_on_is_put_back_at_once_and_outlives_a_kill_9() {
    // Put back only when the run ended, a removed journal's units went with a `kill -9` before then: weeks of
    // them, for a run of weeks. Now it is back under its name within the 5 s between looks, with the units
    // recorded so far, while the run goes on; later units land in it; and a kill -9 then loses no more than
    // it would have without the removal, the resumed run giving the published total.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("n18.journal");
    // The scalar loop on one thread: a run of a minute or more, which the looks of 5 s and the units after
    // them fit in on any machine (the vector loops count n = 18 in some 12 s); a unit's count is the same
    // whatever loop counts it, so the resume below counts the rest with the fastest.
    let args = [
        "count",
        "18",
        "-t",
        "1",
        "--kernel",
        "scalar",
        "--checkpoint",
        "n18.journal",
    ];
    let has_lines = || journal.exists() && journal_lines(&journal).len() > 100;
    let mut child = started(dir.path(), &args, has_lines, Duration::from_millis(100));
    std::fs::remove_file(&journal).unwrap();
    // Generous deadlines for a busy machine: the look is every 5 s.
    let back = |what: &str, done: &dyn Fn() -> bool, child: &mut std::process::Child| {
        let deadline = Instant::now() + Duration::from_secs(90);
        while !done() {
            assert!(
                child.try_wait().unwrap().is_none(),
                "the run ended before {what}"
            );
            assert!(Instant::now() < deadline, "not {what} within 90 s");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    back("the journal was put back", &|| journal.exists(), &mut child);
    // Never a partial file: the journal appears whole under its name, every line sealed.
    let restored = journal_lines(&journal).len();
    assert!(restored > 100, "{restored} lines");
    // The run records its units in the journal put back.
    back(
        "a unit was recorded in the journal put back",
        &|| journal_lines(&journal).len() > restored + 10,
        &mut child,
    );
    assert!(child.try_wait().unwrap().is_none(), "the run still goes on");
    signal(&child, "KILL");
    let out = child.wait_with_output().unwrap();
    let said = text(&out.stderr);
    assert!(
        said.contains(
            "'n18.journal' was removed while the run goes on: put back under its name at once, with every \
             unit recorded so far; the run records its units there"
        ),
        "{said}"
    );
    let kept = journal_lines(&journal).len();
    assert!(kept > restored, "{kept} lines, {restored} when put back");
    // Resumed from what the journal put back holds, to the exact total.
    let out = common::command(binary())
        .current_dir(dir.path())
        .args(["count", "18", "--checkpoint", "n18.journal", "-f", "csv"])
        .output()
        .unwrap();
    let said = text(&out.stderr);
    assert!(out.status.success(), "{said}");
    let recorded: usize = said
        .split("resuming 'n18.journal': ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    // Every line but the header, and a last one that the kill may have torn.
    assert!((kept - 2..kept).contains(&recorded), "{kept} lines: {said}");
    assert_eq!(csv_counts(&out), {
        let (total, unique) = published_counts(18);
        (total, Some(unique))
    });
}

#[test]
fn devices_that_never_end_are_refused_at_their_first_line() {
    for device in ["/dev/zero", "/dev/urandom"] {
        let out = nqueens()
            .args(["merge", device])
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        assert_refused(&out, "not an nqueens journal");
    }
}

#[test]
fn a_journal_of_another_run_is_refused_before_counting() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j");
    let j = path_str(&journal);
    nqueens()
        .args(["count", "9", "--checkpoint", j, "-q"])
        .assert()
        .success();
    let before = std::fs::read(&journal).unwrap();
    for args in [
        vec!["count", "10", "--checkpoint", j],
        vec!["count", "9", "--symmetry", "mirror", "--checkpoint", j],
        vec!["count", "9", "--shard", "0/2", "--checkpoint", j],
        vec!["count", "9", "--split-depth", "1", "--checkpoint", j],
    ] {
        nqueens()
            .args(&args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::contains("is the journal of n = 9"));
    }
    assert_eq!(std::fs::read(&journal).unwrap(), before, "left untouched");
    // The same run on other threads resumes: the split is the journal's.
    nqueens()
        .args(["count", "9", "-t", "1", "--checkpoint", j, "--check"])
        .assert()
        .success();
}

#[test]
fn the_units_merge_names_can_be_counted_alone() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    nqueens()
        .args(["count", "9", "--checkpoint", path_str(&whole), "-q"])
        .assert()
        .success();
    // Drop some units from the journal, as a lost batch would.
    let lines = journal_lines(&whole);
    let kept: Vec<&String> = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| !(20..=40).contains(i))
        .map(|(_, l)| l)
        .collect();
    let partial = dir.path().join("partial");
    std::fs::write(
        &partial,
        kept.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let out = merge(std::slice::from_ref(&partial));
    assert_refused(&out, "21 of");
    let stderr = text(&out.stderr);
    let command = stderr
        .lines()
        .find_map(|l| l.split_once("count exactly the missing units: nqueens "))
        .map(|(_, c)| c.to_string())
        .unwrap_or_else(|| panic!("{stderr}"));
    let rest = dir.path().join("rest");
    let args: Vec<String> = command
        .split_whitespace()
        .map(|a| {
            if a == "missing.journal" {
                path_str(&rest).to_string()
            } else {
                a.to_string()
            }
        })
        .collect();
    let out = common::command(binary()).args(&args).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = merge(&[partial, rest]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (t, u) = published_counts(9);
    assert_eq!(csv_counts(&out), (t, Some(u)));
}

#[test]
fn units_of_which_the_shard_has_none_are_refused_before_a_journal() {
    // Shard 2/4 holds the units numbered 2 modulo 4: units 0-1 and 4,7,9 hold none of them, and a run of them
    // would record nothing and say that all its units were recorded.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("x.journal");
    for units in ["0-1", "4,7,9"] {
        nqueens()
            .args(["count", "10", "--shard", "2/4", "--units", units, "--checkpoint"])
            .arg(&journal)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::contains(format!(
                "units {units} hold none of the units of shard 2/4 (those numbered 2 modulo 4): give units of \
                 the shard, or leave out --shard to count these as they are"
            )));
        assert!(!journal.exists());
    }
    // One of them is enough: unit 6 is counted, and only it.
    nqueens()
        .args([
            "count",
            "10",
            "--shard",
            "2/4",
            "--units",
            "4-7",
            "--checkpoint",
        ])
        .arg(&journal)
        .arg("-q")
        .assert()
        .success();
    let lines = journal_lines(&journal);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[1].starts_with("{\"unit\":6,"), "{lines:?}");
}

#[cfg(unix)]
#[test]
fn a_finished_journal_made_read_only_still_gives_its_total() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    // One with units left must be written to: refused with exit code 2, as a journal of another run is, and left
    // as it was, even by root (whom the mode does not stop).
    let full = dir.path().join("n10-full.journal");
    assert!(run(&["count", "10", "--checkpoint", path_str(&full), "-q"])
        .status
        .success());
    let before = std::fs::read(&full).unwrap();
    let unfinished = dir.path().join("n10-unfinished.journal");
    let lines: Vec<&[u8]> = before.split_inclusive(|&b| b == b'\n').take(10).collect();
    std::fs::write(&unfinished, lines.concat()).unwrap();
    std::fs::set_permissions(&unfinished, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = run(&["count", "10", "--checkpoint", path_str(&unfinished)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr)
            .contains("is read-only, and its run is not finished (2717 units to count)"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&unfinished).unwrap(), lines.concat());
    // Root writes whatever the mode says, so only another account can tell a journal opened for writing from
    // one opened for reading.
    if std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0) {
        eprintln!("the rest skipped: running as root, for whom a read-only file is writable");
        return;
    }
    let journal = dir.path().join("n10.journal");
    let args = [
        "count",
        "10",
        "--checkpoint",
        path_str(&journal),
        "--format",
        "csv",
    ];
    assert!(run(&args).status.success());
    let before = std::fs::read(&journal).unwrap();
    std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = run(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(csv_counts(&out), {
        let (t, u) = published_counts(10);
        (t, Some(u))
    });
    assert_eq!(std::fs::read(&journal).unwrap(), before);
}

/// Journals on a file system mounted read-only (an archive's volume, a share exported so): a finished one gives
/// its total, and an unfinished one is refused as a read-only file is, with exit code 2 and what to do, rather
/// than with the system's "Read-only file system" and exit code 1 of a failure.
#[cfg(target_os = "linux")]
#[test]
fn a_journal_on_a_read_only_file_system_gives_its_total_or_is_refused_untouched() {
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = common::command("umount").arg(&self.0).status();
        }
    }
    let mount = |args: &[&str]| {
        common::command("mount")
            .args(args)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let dir = tempfile::tempdir().unwrap();
    let volume = dir.path().join("volume");
    std::fs::create_dir(&volume).unwrap();
    if !mount(&["-t", "tmpfs", "-o", "size=4m", "tmpfs", path_str(&volume)]) {
        eprintln!("skipped: mounting a file system needs root");
        return;
    }
    let _unmount = Unmount(volume.clone());
    let finished = volume.join("n10.journal");
    let run_on = |journal: &Path| {
        run(&[
            "count",
            "10",
            "--checkpoint",
            path_str(journal),
            "--format",
            "csv",
        ])
    };
    assert!(run_on(&finished).status.success());
    let bytes = std::fs::read(&finished).unwrap();
    let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').take(10).collect();
    let unfinished = volume.join("n10-unfinished.journal");
    std::fs::write(&unfinished, lines.concat()).unwrap();
    let mut torn = lines.concat();
    torn.extend_from_slice(b"{\"unit\":5");
    let torn_path = volume.join("n10-torn.journal");
    std::fs::write(&torn_path, &torn).unwrap();
    assert!(mount(&["-o", "remount,ro", path_str(&volume)]));

    let out = run_on(&finished);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(csv_counts(&out), {
        let (t, u) = published_counts(10);
        (t, Some(u))
    });
    for (journal, left) in [
        (&unfinished, "2717 units to count"),
        (&torn_path, "2717 units to count"),
    ] {
        let out = run_on(journal);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains(&format!(
                "is on a read-only file system, and its run is not finished ({left}): resume it where it can \
                 be written, or resume a copy of it in a folder you can write"
            )),
            "{}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    }
    assert_eq!(std::fs::read(&unfinished).unwrap(), lines.concat());
    assert_eq!(std::fs::read(&torn_path).unwrap(), torn);
}
