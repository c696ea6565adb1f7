//! Nothing a user types destroys a file or runs away (issue 17): `-o` writes through devices, FIFOs and links,
//! keeps modes, refuses read-only files and journals; interrupted writes leave no debris; work that cannot help
//! is refused; broken inputs get a message naming the file and the documented exit code.

mod common;

use common::nqueens;
use predicates::prelude::*;
use predicates::str::contains;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_nqueens"))
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn partials(dir: &Path) -> Vec<String> {
    names(dir)
        .into_iter()
        .filter(|n| n.starts_with(".nqueens-partial-"))
        .collect()
}

/// Makes a FIFO at `path`; false where `mkfifo` cannot (the test then skips that part).
#[cfg(unix)]
fn made_fifo(path: &Path) -> bool {
    common::command("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
#[cfg(unix)]
fn output_to_dev_null_writes_into_the_device() {
    use std::os::unix::fs::FileTypeExt;
    // As root, a stand-in of the same device (common::special_file): a broken program could replace the
    // machine's own.
    let devices = tempfile::tempdir().unwrap();
    let Some(null) = common::special_file(devices.path(), "null") else {
        eprintln!("skipped: running as root, and no stand-in for /dev/null can be made here");
        return;
    };
    nqueens()
        .args(["count", "8", "-q", "-o"])
        .arg(&null)
        .assert()
        .success()
        .stdout("");
    let kind = fs::metadata(&null).unwrap().file_type();
    assert!(
        kind.is_char_device(),
        "{} is still a device",
        null.display()
    );
    // A device that refuses the bytes: the error names it, and the device stays one.
    if let Some(full) = Path::new("/dev/full")
        .exists()
        .then(|| common::special_file(devices.path(), "full"))
        .flatten()
    {
        nqueens()
            .args(["count", "8", "-q", "-o"])
            .arg(&full)
            .assert()
            .code(1)
            .stderr(contains(format!("could not write '{}'", full.display())));
        assert!(fs::metadata(&full).unwrap().file_type().is_char_device());
    }
}

#[test]
#[cfg(unix)]
fn output_to_a_fifo_writes_into_the_pipe() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    if !made_fifo(&fifo) {
        eprintln!("skipped: no mkfifo");
        return;
    }
    // The reader waits for a writer; if the program never opens the pipe (a file renamed over it, say), it
    // would wait for ever: the test then fails after a minute rather than hang.
    let (sent, read) = std::sync::mpsc::channel();
    {
        let fifo = fifo.clone();
        std::thread::spawn(move || sent.send(fs::read_to_string(fifo).unwrap()));
    }
    nqueens()
        .args(["count", "8", "-q", "--format", "csv", "-o"])
        .arg(&fifo)
        .timeout(Duration::from_secs(60))
        .assert()
        .success();
    let read = read
        .recv_timeout(Duration::from_secs(60))
        .expect("the count was written into the pipe");
    assert!(read.contains("\n8,92,12,"), "{read}");
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(partials(dir.path()).is_empty());
}

#[test]
#[cfg(unix)]
fn quiet_says_nothing_of_the_fifos_it_waits_for() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in-pipe");
    let output = dir.path().join("out-pipe");
    if !made_fifo(&input) || !made_fifo(&output) {
        eprintln!("skipped: no mkfifo");
        return;
    }
    // Reading a FIFO with no writer, then writing one with no reader: each waits longer than the second after
    // which the note would come.
    let child = common::command("timeout")
        .arg("60")
        .arg(binary())
        .args(["check", "-q", "-o"])
        .arg(&output)
        .arg(&input)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The input is opened first, then the output: its reader comes a second and a half after the writer.
    let reader = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(3000));
        let mut verdicts = String::new();
        fs::File::open(&output)
            .unwrap()
            .read_to_string(&mut verdicts)
            .unwrap();
        verdicts
    });
    std::thread::sleep(Duration::from_millis(1500));
    fs::OpenOptions::new()
        .write(true)
        .open(&input)
        .unwrap()
        .write_all(b"2 4 1 3\n[1,2]\n")
        .unwrap();
    let verdicts = reader.join().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "one invalid solution");
    assert!(verdicts.contains("line 2: invalid"), "{verdicts}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
#[cfg(unix)]
fn reading_a_fifo_with_no_writer_says_it_waits_for_one() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("n8.journal");
    nqueens()
        .args(["count", "8", "-q", "--checkpoint"])
        .arg(&journal)
        .assert()
        .success();
    let solutions = b"2 4 1 3\n".to_vec();
    for (command, input, says) in [
        ("check", solutions, "1 valid, 0 invalid, 0 malformed"),
        (
            "merge",
            fs::read(&journal).unwrap(),
            "merged 1 journal: all 134 units of n = 8",
        ),
    ] {
        let fifo = dir.path().join(format!("{command}-pipe"));
        if !made_fifo(&fifo) {
            eprintln!("skipped: no mkfifo");
            return;
        }
        // Under a minute's limit: a run that never says it waits would otherwise hang the test.
        let mut child = common::command("timeout")
            .arg("60")
            .arg(binary())
            .arg(command)
            .arg(&fifo)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // It says, before anything is written, what it waits for; then it reads what comes.
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        assert_eq!(
            line,
            format!(
                "'{}' is a FIFO with no writer yet: waiting for one\n",
                fifo.display()
            ),
            "{command}"
        );
        fs::OpenOptions::new()
            .write(true)
            .open(&fifo)
            .unwrap()
            .write_all(&input)
            .unwrap();
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
        assert!(child.wait().unwrap().success(), "{command}: {rest}");
        assert!(rest.contains(says), "{command}: {rest}");
    }
}

#[test]
#[cfg(unix)]
fn output_through_a_symlink_replaces_its_target_and_keeps_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target.csv");
    let link = dir.path().join("link.csv");
    fs::write(&target, "old\n").unwrap();
    std::os::unix::fs::symlink("target.csv", &link).unwrap();
    nqueens()
        .args(["count", "8", "-q", "--format", "csv", "-o"])
        .arg(&link)
        .assert()
        .success();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::read_to_string(&target).unwrap().contains("\n8,92,12,"));
    // A dangling link gets its target created.
    let dangling = dir.path().join("dangling.csv");
    std::os::unix::fs::symlink("new.csv", &dangling).unwrap();
    nqueens()
        .args(["count", "8", "-q", "--format", "csv", "-o"])
        .arg(&dangling)
        .assert()
        .success();
    assert!(fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::read_to_string(dir.path().join("new.csv"))
        .unwrap()
        .contains("\n8,92,12,"));
}

#[test]
#[cfg(target_os = "linux")]
fn output_to_dev_stdout_writes_into_the_stream_the_shell_opened() {
    let dir = tempfile::tempdir().unwrap();
    // As root, links in a folder of their own to the same descriptors (common::special_file).
    let devices = tempfile::tempdir().unwrap();
    let dev = |name| common::special_file(devices.path(), name).unwrap();
    let log = dir.path().join("log.txt");
    fs::write(&log, "an earlier line\n").unwrap();
    let appending = || fs::OpenOptions::new().append(true).open(&log).unwrap();
    // `nqueens count 8 -o /dev/stdout >> log.txt`: the table goes after what the file held, as with `>>`;
    // the file is not replaced (its earlier line lost), nor a "log.txt (deleted)" made beside it.
    let status = common::command(binary())
        .args(["count", "8", "-q", "--format", "csv", "-o"])
        .arg(dev("stdout"))
        .stdout(appending())
        .status()
        .unwrap();
    assert!(status.success());
    // The same for /dev/stderr.
    let status = common::command(binary())
        .args(["count", "9", "-q", "--format", "csv", "-o"])
        .arg(dev("stderr"))
        .stdout(Stdio::null())
        .stderr(appending())
        .status()
        .unwrap();
    assert!(status.success());
    let text = fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("an earlier line\nn,total,"), "{text}");
    assert!(text.contains("\n8,92,12,"), "{text}");
    assert!(text.contains("\n9,352,46,"), "{text}");
    assert_eq!(names(dir.path()), ["log.txt"]);
    // Into a pipe, which no file can replace.
    nqueens()
        .args(["count", "8", "-q", "--format", "csv", "-o"])
        .arg(dev("stdout"))
        .assert()
        .success()
        .stdout(contains("8,92,12,"));
    // An export there would interleave with the table, as `-` would; a descriptor open for reading only, or
    // not open at all, cannot take a result.
    nqueens()
        .args(["count", "8", "--export-json"])
        .arg(dev("stdout"))
        .assert()
        .code(2)
        .stderr(contains("the table already goes to standard output"));
    nqueens()
        .args(["count", "8", "-o"])
        .arg(dev("stdin"))
        .pipe_stdin(&log)
        .unwrap()
        .assert()
        .code(2)
        .stderr(contains("open for reading only"));
    nqueens()
        .args(["count", "8", "-o"])
        .arg(dev("fd/9"))
        .assert()
        .code(2)
        .stderr(contains("descriptor 9 is not open"));
    assert!(fs::read_to_string(&log)
        .unwrap()
        .starts_with("an earlier line\n"));
    assert_eq!(names(dir.path()), ["log.txt"]);
}

#[test]
#[cfg(unix)]
fn output_keeps_the_mode_of_the_file_it_replaces_and_refuses_read_only_ones() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared.csv");
    fs::write(&shared, "old\n").unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o660)).unwrap();
    nqueens()
        .args(["count", "8", "-q", "--format", "csv", "-o"])
        .arg(&shared)
        .assert()
        .success();
    assert_eq!(mode(&shared), 0o660);
    assert!(fs::read_to_string(&shared).unwrap().contains("8,92"));

    let kept = dir.path().join("kept.csv");
    fs::write(&kept, "precious\n").unwrap();
    fs::set_permissions(&kept, fs::Permissions::from_mode(0o444)).unwrap();
    nqueens()
        .args(["count", "8", "-q", "-o"])
        .arg(&kept)
        .assert()
        .code(2)
        .stderr(contains("kept.csv").and(contains("read-only (mode 0444)")));
    assert_eq!(fs::read_to_string(&kept).unwrap(), "precious\n");
    nqueens().args(["count", "8", "-o", ""]).assert().code(2);
    assert_eq!(mode(&kept), 0o444);
    assert!(partials(dir.path()).is_empty());
}

#[test]
fn output_onto_the_journal_of_the_run_is_refused_however_it_is_spelled() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("n10.journal");
    nqueens()
        .args(["count", "10", "-q", "--checkpoint"])
        .arg(&journal)
        .assert()
        .success();
    let before = fs::read(&journal).unwrap();
    let mut spellings = vec![
        journal.clone(),
        dir.path().join(".").join("n10.journal"),
        dir.path().join("sub").join("..").join("n10.journal"),
    ];
    fs::create_dir(dir.path().join("sub")).unwrap();
    #[cfg(unix)]
    {
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&journal, &link).unwrap();
        spellings.push(link);
    }
    for spelled in &spellings {
        nqueens()
            .args(["count", "10", "-q", "--checkpoint"])
            .arg(&journal)
            .arg("-o")
            .arg(spelled)
            .assert()
            .code(2)
            .stderr(contains("the journal of this run"));
        assert_eq!(fs::read(&journal).unwrap(), before, "{}", spelled.display());
    }
    // Nor the journal of another run: a journal may hold weeks of counting.
    nqueens()
        .args(["count", "8", "-q", "-o"])
        .arg(&journal)
        .assert()
        .code(2)
        .stderr(contains("it is an nqueens journal"));
    assert_eq!(fs::read(&journal).unwrap(), before);
    // Nor one whose header was damaged (a byte of it changed): its units' lines say what it was.
    let damaged = dir.path().join("damaged.journal");
    let text = String::from_utf8(before.clone()).unwrap();
    fs::write(&damaged, text.replacen("nqueens", "nqueenz", 1)).unwrap();
    let kept = fs::read(&damaged).unwrap();
    nqueens()
        .args(["count", "8", "-q", "-o"])
        .arg(&damaged)
        .assert()
        .code(2)
        .stderr(contains("it is an nqueens journal"));
    assert_eq!(fs::read(&damaged).unwrap(), kept);
    fs::remove_file(&damaged).unwrap();
    // A new journal too: the result would have replaced it at the end.
    let fresh = dir.path().join("n9.journal");
    nqueens()
        .args(["count", "9", "--checkpoint"])
        .arg(&fresh)
        .arg("-o")
        .arg(dir.path().join("sub/../n9.journal"))
        .assert()
        .code(2);
    assert!(!fresh.exists());
}

#[test]
fn check_refuses_to_write_its_verdicts_over_the_solutions_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let solutions = dir.path().join("six.txt");
    fs::write(&solutions, "[2,4,6,1,3,5]\n[3,6,2,5,1,4]\n").unwrap();
    let before = fs::read(&solutions).unwrap();
    let mut spellings = vec![solutions.clone(), dir.path().join(".").join("six.txt")];
    #[cfg(unix)]
    {
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&solutions, &link).unwrap();
        spellings.push(link);
    }
    for spelled in &spellings {
        nqueens()
            .arg("check")
            .arg(&solutions)
            .arg("-o")
            .arg(spelled)
            .assert()
            .code(2)
            .stderr(contains("the file being checked"));
        assert_eq!(
            fs::read(&solutions).unwrap(),
            before,
            "{}",
            spelled.display()
        );
    }
    // `nqueens check -o six.txt < six.txt`: the same file, as standard input.
    #[cfg(target_os = "linux")]
    {
        let out = common::command(binary())
            .arg("check")
            .arg("-o")
            .arg(&solutions)
            .stdin(fs::File::open(&solutions).unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("the standard input being checked"),
            "{stderr}"
        );
        assert_eq!(fs::read(&solutions).unwrap(), before);
    }
    let verdicts = dir.path().join("verdicts.txt");
    nqueens()
        .arg("check")
        .arg(&solutions)
        .arg("-o")
        .arg(&verdicts)
        .assert()
        .success();
    assert_eq!(
        fs::read_to_string(&verdicts).unwrap(),
        "line 1: valid\nline 2: valid\n"
    );
}

#[test]
fn merge_refuses_to_write_over_one_of_its_journals() {
    let dir = tempfile::tempdir().unwrap();
    let shards: Vec<PathBuf> = (0..2)
        .map(|k| {
            let path = dir.path().join(format!("m{k}.journal"));
            nqueens()
                .args([
                    "count",
                    "10",
                    "-q",
                    "--shard",
                    &format!("{k}/2"),
                    "--checkpoint",
                ])
                .arg(&path)
                .assert()
                .success();
            path
        })
        .collect();
    let before = fs::read(&shards[0]).unwrap();
    nqueens()
        .arg("merge")
        .args(&shards)
        .arg("-o")
        .arg(&shards[0])
        .assert()
        .code(2)
        .stderr(contains("one of the journals merged"));
    assert_eq!(fs::read(&shards[0]).unwrap(), before);
    nqueens()
        .arg("merge")
        .args(&shards)
        .assert()
        .success()
        .stdout(contains("724"));
}

/// Starts `args` with `-o` into `dir`, waits for its temporary file, sends `signal`, and checks that nothing
/// is left: neither the temporary file nor a result.
#[cfg(unix)]
fn interrupted_leaves_no_debris(args: &[&str], signal: i32) {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("result");
    let mut child = common::command(binary())
        .args(args)
        .arg("-o")
        .arg(&out)
        .arg("-q")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while partials(dir.path()).is_empty() && Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    // SAFETY: kill only sends a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, signal) };
    let status = child.wait().unwrap();
    if status.success() {
        // The run finished before the signal came: nothing to clean, but nothing partial either.
        eprintln!("{args:?}: finished before the signal");
        assert!(partials(dir.path()).is_empty());
        return;
    }
    assert_eq!(status.signal(), Some(signal), "{args:?}: {status:?}");
    assert_eq!(names(dir.path()), Vec::<String>::new(), "{args:?}");
}

#[test]
#[cfg(unix)]
fn sigint_and_sigterm_remove_the_temporary_file() {
    interrupted_leaves_no_debris(&["list", "16"], libc::SIGTERM);
    interrupted_leaves_no_debris(&["list", "16"], libc::SIGINT);
    interrupted_leaves_no_debris(&["count", "4..17"], libc::SIGTERM);
    interrupted_leaves_no_debris(&["count", "4..17"], libc::SIGHUP);
    interrupted_leaves_no_debris(&["solve", "10000000"], libc::SIGINT);
    // A batch system's warning to stop, as SIGTERM.
    interrupted_leaves_no_debris(&["list", "16"], libc::SIGUSR1);
    interrupted_leaves_no_debris(&["count", "4..17"], libc::SIGUSR2);
    // The other signals that end a process (those that leave no core here).
    interrupted_leaves_no_debris(&["list", "16"], libc::SIGPROF);
    interrupted_leaves_no_debris(&["count", "4..17"], libc::SIGALRM);
}

/// Sets the modification time of `path` to `ago` before now.
#[cfg(unix)]
fn age(path: &Path, ago: Duration) {
    let file = fs::OpenOptions::new().append(true).open(path).unwrap();
    file.set_modified(std::time::SystemTime::now() - ago)
        .unwrap();
}

#[test]
#[cfg(unix)]
fn a_partial_file_left_by_kill_9_is_removed_by_the_next_run_in_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let start = |args: &[&str]| {
        common::command(binary())
            .current_dir(dir.path())
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let wait_for_partials = |count: usize| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while partials(dir.path()).len() < count {
            assert!(Instant::now() < deadline, "no temporary file in 60 s");
            std::thread::sleep(Duration::from_millis(5));
        }
        partials(dir.path())
    };
    // A run into its own file, still counting (n = 30 takes years): its temporary file is locked, however old
    // it looks.
    let mut running = start(&["count", "30", "-t", "1", "-q", "-o", "running.txt"]);
    let live = wait_for_partials(1);
    age(&dir.path().join(&live[0]), Duration::from_secs(3600));
    // Another, killed with SIGKILL: nothing can clean up after it.
    let mut killed = start(&["count", "30", "-t", "1", "-q", "-o", "killed.txt"]);
    let both = wait_for_partials(2);
    killed.kill().unwrap();
    killed.wait().unwrap();
    assert_eq!(
        partials(dir.path()),
        both,
        "kill -9 leaves its temporary file"
    );
    let left: Vec<String> = both.into_iter().filter(|p| *p != live[0]).collect();
    age(&dir.path().join(&left[0]), Duration::from_secs(180));
    // Files that only look like leftovers: one of this machine too young to judge (its lock may not be taken
    // yet), one of another machine (whose lock may not be seen here), one named as versions before the lock
    // named theirs, a folder.
    let this_machine = format!("{}-", live[0].rsplit_once('-').unwrap().0);
    let young = format!("{this_machine}young1.tmp");
    let folder = format!("{this_machine}folder1.tmp");
    let others = [
        (young.as_str(), 0),
        (".nqueens-partial-elsewhere-abc123.tmp", 3600),
        (".nqueens-partial-older", 3600),
    ];
    for (name, ago) in others {
        fs::write(dir.path().join(name), "kept").unwrap();
        age(&dir.path().join(name), Duration::from_secs(ago));
    }
    fs::create_dir(dir.path().join(&folder)).unwrap();

    nqueens()
        .current_dir(dir.path())
        .args(["count", "8", "-q", "-o", "eight.txt"])
        .assert()
        .success()
        .stderr(
            // Its age as the clock says when the run looks (3m, 3m 1s on a slow machine).
            contains(format!("removed '{}': a partial file left 3m", left[0])).and(contains(
                " ago by an nqueens run on this machine that did not finish (killed, or the machine \
                 stopped)\n",
            )),
        );
    let mut expected: Vec<String> = others.iter().map(|(name, _)| name.to_string()).collect();
    expected.extend([folder, live[0].clone(), "eight.txt".to_string()]);
    expected.sort();
    assert_eq!(names(dir.path()), expected);
    // The run that was counting all along still has its file; stopped now, it removes it itself.
    // SAFETY: kill only sends a signal to the child this test started.
    unsafe { libc::kill(running.id() as i32, libc::SIGTERM) };
    running.wait().unwrap();
    assert!(!dir.path().join(&live[0]).exists());
}

#[test]
#[cfg(unix)]
fn a_journals_header_left_by_kill_9_is_removed_by_the_next_checkpointed_run_in_its_folder() {
    // A run killed as it made its journal leaves the header under a temporary name, which names no machine:
    // one an hour old with a free lock is a leftover wherever it was made; a younger one, another name or a
    // locked one (a run making its journal now) is kept.
    let dir = tempfile::tempdir().unwrap();
    let kept = [
        (".nqueens-journal-young1", 1800),
        (".nqueens-journal-toolong1", 7200),
        (".nqueens-journal-", 7200),
    ];
    for (name, ago) in kept.iter().chain(&[(".nqueens-journal-AbC123", 7200)]) {
        fs::write(dir.path().join(name), "{\"journal\":\"nqueens\"").unwrap();
        age(&dir.path().join(name), Duration::from_secs(*ago));
    }
    let locked = dir.path().join(".nqueens-journal-locked");
    let held = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&locked)
        .unwrap();
    held.lock().unwrap();
    age(&locked, Duration::from_secs(7200));
    nqueens()
        .current_dir(dir.path())
        .args(["count", "8", "-q", "--checkpoint", "n8.journal"])
        .assert()
        .success()
        .stderr(contains(
            "removed '.nqueens-journal-AbC123': a journal's unfinished header left 2h",
        ));
    let mut expected: Vec<String> = kept.iter().map(|(name, _)| name.to_string()).collect();
    expected.extend([".nqueens-journal-locked".into(), "n8.journal".into()]);
    expected.sort();
    assert_eq!(names(dir.path()), expected);
    drop(held);
}

#[test]
#[cfg(unix)]
fn a_checkpointed_run_stopped_by_a_signal_leaves_its_journal_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("n17.journal");
    let mut child = common::command(binary())
        .args(["count", "17", "-q", "--checkpoint"])
        .arg(&journal)
        .arg("-o")
        .arg(dir.path().join("n17.csv"))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !journal.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: kill only sends a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    if status.success() {
        eprintln!("finished before the signal");
        return;
    }
    assert_eq!(status.code(), Some(143));
    assert_eq!(names(dir.path()), vec!["n17.journal".to_string()]);
}

#[test]
fn split_depths_that_cannot_help_are_refused_with_the_useful_range() {
    let started = Instant::now();
    nqueens()
        .args(["count", "16", "--split-depth", "10"])
        .assert()
        .code(2)
        .stderr(contains("more than 4194304 work units").and(contains("from 0 to 5")));
    nqueens()
        .args(["units", "64", "--split-depth", "64", "--symmetry", "none"])
        .assert()
        .code(2)
        .stderr(contains("from 0 to 3"));
    nqueens()
        .args(["count", "8", "--split-depth", "9"])
        .assert()
        .code(2)
        .stderr(contains("deeper than n = 8 has rows").and(contains("from 0 to 8")));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "refused at once"
    );
    // A depth within the range still counts.
    nqueens()
        .args(["count", "8", "--split-depth", "8", "--format", "csv"])
        .assert()
        .success()
        .stdout(contains("\n8,92,12,"));
}

#[test]
fn searches_that_cannot_succeed_are_answered_at_once() {
    nqueens()
        .args(["solve", "20x21"])
        .timeout(Duration::from_secs(10))
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("no solution").and(contains("more columns than rows")));
    for args in [
        vec!["verify", "28"],
        vec!["count", "28", "--check"],
        vec!["verify", "20..28"],
    ] {
        nqueens()
            .args(&args)
            .timeout(Duration::from_secs(10))
            .assert()
            .code(2)
            .stdout("")
            .stderr(contains("no published count").and(contains("up to n = 27")));
    }
}

#[test]
fn units_outside_the_plan_are_refused_and_no_journal_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("u.journal");
    nqueens()
        .args(["count", "12", "--units", "9999999", "--checkpoint"])
        .arg(&journal)
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains("numbered 0 to").and(contains("units 12 --summary")));
    assert!(!journal.exists());
}

/// The journal at `path` with its header's `n` changed and its checksum made right again.
fn forge_header(path: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
    let (payload, _) = header.rsplit_once('\t').unwrap();
    let forged = payload.replace(from, to);
    assert_ne!(forged, payload);
    let line = format!("{forged}\t{:08x}", crc32fast::hash(forged.as_bytes()));
    fs::write(path, format!("{line}\n{rest}")).unwrap();
}

#[test]
fn merge_refuses_a_journal_whose_header_was_edited_as_foreign() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("n10.journal");
    nqueens()
        .args(["count", "10", "-q", "--checkpoint"])
        .arg(&journal)
        .assert()
        .success();
    forge_header(&journal, "\"n\":10,", "\"n\":11,");
    nqueens()
        .arg("merge")
        .arg(&journal)
        .assert()
        .code(1)
        .stdout("")
        .stderr(
            contains("n10.journal").and(contains("not the journal of the plan its header names")),
        );
    // A header that claims a split no plan could have is refused the same way, at once.
    let deep = dir.path().join("deep.journal");
    nqueens()
        .args(["count", "10", "-q", "--checkpoint"])
        .arg(&deep)
        .assert()
        .success();
    forge_header(&deep, "\"split_depth\":", "\"split_depth\":6");
    nqueens()
        .arg("merge")
        .arg(&deep)
        .timeout(Duration::from_secs(20))
        .assert()
        .code(1)
        .stderr(contains("not the journal of the plan"));
}

#[test]
#[cfg(target_os = "linux")]
fn journals_and_outputs_are_made_in_their_own_folder_not_the_working_one() {
    // A job started from a folder it cannot write (`/proc` takes no new file, even from root) still writes
    // its journal and its result where they are asked for: each is made under a temporary name beside
    // itself, then renamed.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("n8.journal");
    let result = dir.path().join("n8.csv");
    nqueens()
        .current_dir("/proc")
        .args(["count", "8", "-q", "--format", "csv", "--checkpoint"])
        .arg(&journal)
        .arg("-o")
        .arg(&result)
        .assert()
        .success()
        .stdout("");
    assert!(fs::read_to_string(&result).unwrap().contains("\n8,92,12,"));
    assert_eq!(names(dir.path()), ["n8.csv", "n8.journal"]);
    // A bare name is made in the working folder.
    nqueens()
        .current_dir(dir.path())
        .args(["count", "6", "-q", "--checkpoint", "n6.journal"])
        .assert()
        .success();
    assert_eq!(names(dir.path()), ["n6.journal", "n8.csv", "n8.journal"]);
}

#[test]
fn a_result_that_cannot_be_made_where_asked_is_refused_before_the_count_saying_why() {
    // `counts.txt/n8.csv`, one folder too many: the file is left as it was, nothing is made, and the message
    // names the file that is in the way rather than say that a folder does not exist.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("counts.txt");
    fs::write(&file, "mine\n").unwrap();
    for asked in ["n8.csv", "deeper/n8.csv"] {
        for option in ["-o", "--export-json", "--export-markdown"] {
            nqueens()
                .args(["count", "8", option])
                .arg(file.join(asked))
                .assert()
                .code(2)
                .stdout("")
                .stderr(contains(format!(
                    "'{}' is a file, not a folder",
                    file.display()
                )));
        }
    }
    assert_eq!(fs::read_to_string(&file).unwrap(), "mine\n");
    assert_eq!(names(dir.path()), ["counts.txt"]);
    // A folder that does not exist is said so.
    nqueens()
        .args(["count", "8", "-o"])
        .arg(dir.path().join("missing/n8.csv"))
        .assert()
        .code(2)
        .stderr(contains("does not exist"));
    // A name that ends as a folder's does (`out/`) cannot be a file's: refused before the count, not when the
    // result is renamed to it after, and a journal's too.
    for asked in ["out/", "out/."] {
        for option in ["-o", "--export-json", "--checkpoint"] {
            nqueens()
                .args(["count", "8", option])
                .arg(dir.path().join(asked))
                .assert()
                .code(2)
                .stdout("")
                .stderr(contains("the name ends as a folder's does"));
        }
    }
    // A name longer than the file system takes is refused before the count, not when the result is renamed
    // to it after.
    nqueens()
        .args(["count", "8", "-o"])
        .arg(dir.path().join("n".repeat(300)))
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains("name too long"));
    assert_eq!(names(dir.path()), ["counts.txt"]);
}

#[test]
fn a_split_as_deep_as_the_board_merges_and_a_header_claiming_one_deeper_is_refused() {
    // Split at depth 8, n = 8 is the list of its placements: a plan like any other. No plan splits deeper
    // than its rows, so a header edited to depth 9 (checksum made right) names the same units and the same
    // fingerprint, but no run could have written it.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("n8.journal");
    nqueens()
        .args(["count", "8", "-q", "--split-depth", "8", "--checkpoint"])
        .arg(&journal)
        .assert()
        .success();
    nqueens()
        .arg("merge")
        .arg(&journal)
        .args(["--format", "csv"])
        .assert()
        .success()
        .stdout(contains("\n8,92,12,"));
    forge_header(&journal, "\"split_depth\":8,", "\"split_depth\":9,");
    nqueens()
        .arg("merge")
        .arg(&journal)
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("n8.journal").and(contains("not the journal of the plan")));
}

#[test]
fn a_deep_split_whose_shallower_plans_are_larger_still_resumes_and_merges() {
    // n = 8 in the full mode has 78 units at depth 0 and 20 at depth 6: the header's plan is checked at its
    // own depth only.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("n8.journal");
    for _ in 0..2 {
        nqueens()
            .args([
                "count",
                "8",
                "-q",
                "--split-depth",
                "6",
                "--format",
                "csv",
                "--checkpoint",
            ])
            .arg(&journal)
            .assert()
            .success()
            .stdout(contains("\n8,92,12,"));
    }
    nqueens()
        .arg("merge")
        .arg(&journal)
        .args(["--format", "csv"])
        .assert()
        .success()
        .stdout(contains("\n8,92,12,"));
}

#[test]
fn plot_refuses_absurd_values_and_unknown_schema_versions() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("count.json");
    nqueens()
        .args(["count", "8..10", "-q", "--format", "json", "-o"])
        .arg(&good)
        .assert()
        .success();
    let text = fs::read_to_string(&good).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["results"][0]["seconds"] = serde_json::json!(1e308);
    let huge = dir.path().join("huge.json");
    fs::write(&huge, value.to_string()).unwrap();
    nqueens()
        .arg("plot")
        .arg(&huge)
        .arg("-o")
        .arg(dir.path().join("plots"))
        .timeout(Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(contains("huge.json").and(contains("results[0].seconds")));
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["schema_version"] = serde_json::json!(99);
    let future = dir.path().join("future.json");
    fs::write(&future, value.to_string()).unwrap();
    nqueens()
        .arg("plot")
        .arg(&future)
        .arg("-o")
        .arg(dir.path().join("plots"))
        .assert()
        .code(2)
        .stderr(contains("future.json").and(contains("schema_version is 99")));
}

#[test]
fn check_quotes_a_bounded_excerpt_reads_past_bad_bytes_and_accepts_a_byte_order_mark() {
    let long = format!("[{}]\n", "x".repeat(1 << 20));
    let out = nqueens().arg("check").write_stdin(long).assert().code(1);
    let stdout = out.get_output().stdout.clone();
    assert!(stdout.len() < 400, "{} bytes echoed", stdout.len());
    assert!(String::from_utf8_lossy(&stdout).contains("malformed"));

    let mut input = b"\xEF\xBB\xBF[1,5,8,6,3,7,2,4]\n".to_vec();
    input.extend_from_slice(b"[1,5,\xFF8]\n[2,4,1,3]\n");
    nqueens()
        .arg("check")
        .write_stdin(input)
        .assert()
        .code(1)
        .stdout(
            "line 1: valid\n\
             line 2: malformed: not UTF-8 text (byte 6 of the line is not): not a solution in any format\n\
             line 3: valid\n",
        );
}

#[test]
fn check_quotes_control_characters_escaped_so_that_each_verdict_is_one_line_of_text() {
    // A carriage return quoted as it is overwrote the verdict on a terminal and split its line in two for a
    // reader of lines; an escape sequence was the terminal's to run.
    nqueens()
        .arg("check")
        .write_stdin("x\ry\n[2,\x1b[2J,1,3]\n2 4 1 3\n")
        .assert()
        .code(1)
        .stdout(
            "line 1: malformed: 'x\\ry' has a carriage return (\\r) inside it: lines ended by \\r alone (old Mac \
             text) read as one; end each with \\n (`tr '\\r' '\\n' < FILE`)\n\
             line 2: malformed: entry 2, '\\u{1b}[2J', is not a whole number\n\
             line 3: valid\n",
        );
}

#[cfg(target_os = "linux")]
#[test]
fn check_reads_a_drawing_of_millions_of_rows_in_little_memory() {
    // Eight million rows of one square: 16 MB of input. Each row was kept as a string and as a vector of its
    // own, some 120 bytes a row, so that a drawing within the limit of 128 MiB took gigabytes (about 1 GB
    // here); only the queens are kept now: a few MiB.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("column.txt");
    fs::write(&file, ".\n".repeat(8 << 20)).unwrap();
    let (status, stdout, stderr, peak) =
        common::with_peak_memory(&["check", file.to_str().unwrap()]);
    assert_eq!(
        stdout, "line 1: invalid: 0 queens on the 8388608x1 board, but a solution has 1\n",
        "{stderr}"
    );
    assert_eq!(status.code(), Some(1));
    assert!(peak < 64.0, "check held {peak:.0} MiB at once");
}

/// Takes the attributes `chattr` set off `path` when dropped, so that a failed test leaves a folder that can
/// be removed.
#[cfg(target_os = "linux")]
struct Attributes<'a>(&'a Path);

#[cfg(target_os = "linux")]
impl Drop for Attributes<'_> {
    fn drop(&mut self) {
        let _ = common::command("chattr").arg("-ai").arg(self.0).status();
    }
}

#[cfg(target_os = "linux")]
#[test]
fn an_append_only_or_immutable_file_is_refused_before_the_count_and_kept() {
    // Opening one to append proves nothing of an append-only file: no one may rename over it, so the result
    // would be lost once counted. Setting the attributes takes root and a file system that keeps them: where
    // `chattr` cannot, the test says so and skips.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("kept.txt");
    for (flag, words) in [
        ("+a", "append-only (chattr +a)"),
        ("+i", "immutable (chattr +i)"),
    ] {
        fs::write(&file, "mine\n").unwrap_or_else(|_| {
            let _ = common::command("chattr").arg("-ai").arg(&file).status();
            fs::write(&file, "mine\n").unwrap()
        });
        let set = common::command("chattr")
            .arg(flag)
            .arg(&file)
            .stderr(Stdio::null())
            .status();
        if !set.is_ok_and(|s| s.success()) {
            eprintln!("skipped: chattr {flag} does not work here");
            return;
        }
        let _undo = Attributes(&file);
        for args in [
            &["count", "8", "-o"][..],
            &["list", "6", "-o"],
            &["count", "8", "--export-json"],
        ] {
            nqueens()
                .args(args)
                .arg(&file)
                .assert()
                .code(2)
                .stdout("")
                .stderr(contains(format!("it is {words}")));
        }
        drop(_undo);
        assert_eq!(fs::read_to_string(&file).unwrap(), "mine\n");
        assert_eq!(names(dir.path()), ["kept.txt"]);
    }
}

#[test]
fn wrong_places_for_files_are_usage_errors_that_name_them() {
    let dir = tempfile::tempdir().unwrap();
    nqueens()
        .arg("check")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(contains(dir.path().to_str().unwrap()).and(contains("directory")));
    nqueens()
        .arg("merge")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(contains(dir.path().to_str().unwrap()).and(contains("is a directory")));
    // A file to read that is not there is a mistake in the arguments for every command that reads one.
    let missing = dir.path().join("missing.journal");
    for command in ["check", "merge", "plot"] {
        nqueens()
            .arg(command)
            .arg(&missing)
            .assert()
            .code(2)
            .stderr(contains("missing.journal").and(contains("No such file")));
    }
    nqueens()
        .args(["count", "8", "--checkpoint"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(contains("is a directory"));
    nqueens()
        .args(["count", "8", "--checkpoint"])
        .arg(dir.path().join("no/such/folder/n8.journal"))
        .assert()
        .code(2)
        .stderr(contains("does not exist"));
    // A file where the folder should be: said so, not that the folder is missing (mkdir -p would fail).
    let file = dir.path().join("notes.txt");
    fs::write(&file, "notes\n").unwrap();
    nqueens()
        .args(["count", "8", "--checkpoint"])
        .arg(file.join("n8.journal"))
        .assert()
        .code(2)
        .stderr(contains("is not a folder").and(contains("does not exist").not()));
    fs::remove_file(&file).unwrap();
    // A journal is a regular file: a FIFO would be waited on forever, deaf to Ctrl-C; a dangling link cannot
    // be made a journal under its own name.
    #[cfg(unix)]
    {
        let fifo = dir.path().join("pipe");
        if made_fifo(&fifo) {
            nqueens()
                .args(["count", "8", "--checkpoint"])
                .arg(&fifo)
                .timeout(Duration::from_secs(20))
                .assert()
                .code(2)
                .stderr(contains("is not a regular file"));
            fs::remove_file(&fifo).unwrap();
        }
        let dangling = dir.path().join("dangling.journal");
        std::os::unix::fs::symlink("nowhere.journal", &dangling).unwrap();
        nqueens()
            .args(["count", "8", "--checkpoint"])
            .arg(&dangling)
            .assert()
            .code(2)
            .stderr(contains(
                "a symbolic link to 'nowhere.journal', which does not exist",
            ));
        fs::remove_file(&dangling).unwrap();
    }
    let json = dir.path().join("b.json");
    nqueens()
        .args(["bench", "--quick", "--export-json"])
        .arg(&json)
        .arg("--export-csv")
        .arg(dir.path().join(".").join("b.json"))
        .assert()
        .code(2)
        .stderr(contains("named by two exports"));
    assert_eq!(names(dir.path()), Vec::<String>::new());
}

#[test]
fn a_refused_journal_leaves_the_exports_of_an_earlier_run_as_they_were() {
    // `count 12 --checkpoint notes.txt --export-json sweep.json`: the journal is refused (exit code 2), and
    // the exports of the earlier run keep their boards; before, they were rewritten as empty "running" files
    // before the journal was looked at.
    let dir = tempfile::tempdir().unwrap();
    let (json, csv) = (dir.path().join("sweep.json"), dir.path().join("sweep.csv"));
    let exporting = |args: &[&str]| {
        let mut cmd = nqueens();
        cmd.args(args)
            .arg("--export-json")
            .arg(&json)
            .arg("--export-csv")
            .arg(&csv);
        cmd
    };
    exporting(&["count", "10", "-q"]).assert().success();
    let before = (fs::read(&json).unwrap(), fs::read(&csv).unwrap());
    assert!(String::from_utf8_lossy(&before.1).contains("\n10,724,92,"));
    let notes = dir.path().join("notes.txt");
    fs::write(&notes, "not a journal\n").unwrap();
    let other = dir.path().join("n11.journal");
    nqueens()
        .args(["count", "11", "-q", "--checkpoint"])
        .arg(&other)
        .assert()
        .success();
    for (journal, why) in [
        (&notes, "is not an nqueens journal"),
        (&other, "is the journal of n = 11"),
    ] {
        exporting(&["count", "12", "--checkpoint", journal.to_str().unwrap()])
            .assert()
            .code(2)
            .stderr(contains(why));
        assert_eq!(
            (fs::read(&json).unwrap(), fs::read(&csv).unwrap()),
            before,
            "the exports after {why}"
        );
    }
    assert_eq!(fs::read_to_string(&notes).unwrap(), "not a journal\n");
    assert!(partials(dir.path()).is_empty());
}

#[test]
#[cfg(unix)]
fn an_export_to_a_stream_gets_one_whole_document_when_the_run_ends() {
    // A file is rewritten whole as each board is counted; a FIFO or a descriptor cannot be rewritten, and each
    // rewrite used to add another document to what the reader got (four for two boards).
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    if !made_fifo(&fifo) {
        eprintln!("skipped: no mkfifo");
        return;
    }
    let (sent, read) = std::sync::mpsc::channel();
    {
        let fifo = fifo.clone();
        std::thread::spawn(move || sent.send(fs::read_to_string(fifo).unwrap()));
    }
    nqueens()
        .args(["count", "8", "9", "-q", "--export-json"])
        .arg(&fifo)
        .timeout(Duration::from_secs(60))
        .assert()
        .success();
    let document = read
        .recv_timeout(Duration::from_secs(60))
        .expect("the document was written into the pipe");
    assert_eq!(
        document.matches("\"schema_version\"").count(),
        1,
        "{document}"
    );
    let parsed: serde_json::Value = serde_json::from_str(&document).unwrap();
    assert_eq!(parsed["status"], "complete");
    assert_eq!(parsed["results"].as_array().unwrap().len(), 2);
    // The same through a descriptor of the process (as root, a link of its own to it).
    let devices = tempfile::tempdir().unwrap();
    let stderr = common::special_file(devices.path(), "stderr").unwrap();
    let output = common::command(binary())
        .args(["count", "8", "9", "-q", "--export-csv"])
        .arg(&stderr)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stderr).unwrap();
    assert_eq!(text.matches("n,total,").count(), 1, "{text}");
    assert!(
        text.contains("\n8,92,12,") && text.contains("\n9,352,46,"),
        "{text}"
    );
    assert_eq!(names(dir.path()), ["pipe"]);
}

#[test]
fn plot_never_writes_over_a_file_it_plots_and_a_chart_that_fails_leaves_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let counts = dir.path().join("counts.json");
    nqueens()
        .args(["count", "8..11", "-q", "--format", "json", "-o"])
        .arg(&counts)
        .assert()
        .success();
    let input = fs::read(&counts).unwrap();
    // The input is named as a chart's file: in the charts' folder, or through a link there.
    let charts = dir.path().join("charts");
    fs::create_dir(&charts).unwrap();
    let chart = charts.join("time-vs-n.svg");
    fs::copy(&counts, &chart).unwrap();
    nqueens()
        .arg("plot")
        .arg(&chart)
        .arg("-o")
        .arg(&charts)
        .assert()
        .code(2)
        .stderr(contains("a file being plotted"));
    fs::remove_file(&chart).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&counts, &chart).unwrap();
        nqueens()
            .arg("plot")
            .arg(&counts)
            .arg("-o")
            .arg(&charts)
            .assert()
            .code(2)
            .stderr(contains("a file being plotted"));
        fs::remove_file(&chart).unwrap();
    }
    assert_eq!(fs::read(&counts).unwrap(), input);
    // `-o -`, standard output to every other command, takes no charts, and makes no folder of that name.
    nqueens()
        .current_dir(dir.path())
        .args(["plot", "counts.json", "-o", "-"])
        .assert()
        .code(2)
        .stderr(contains("not to standard output"));
    assert!(!dir.path().join("-").exists());
    // A full device as the second chart: the first, written already, is not moved into place.
    #[cfg(unix)]
    {
        let devices = tempfile::tempdir().unwrap();
        let Some(full) = Path::new("/dev/full")
            .exists()
            .then(|| common::special_file(devices.path(), "full"))
            .flatten()
        else {
            eprintln!("skipped the full device: no stand-in for /dev/full can be made here");
            return;
        };
        let bench = dir.path().join("bench.json");
        nqueens()
            .args(["bench", "--quick", "-q", "--export-json"])
            .arg(&bench)
            .assert()
            .success();
        fs::write(&chart, "an earlier chart\n").unwrap();
        std::os::unix::fs::symlink(&full, charts.join("scaling.svg")).unwrap();
        nqueens()
            .arg("plot")
            .arg(&counts)
            .arg(&bench)
            .arg("-o")
            .arg(&charts)
            .assert()
            .code(1)
            .stderr(contains("scaling.svg"));
        assert_eq!(fs::read_to_string(&chart).unwrap(), "an earlier chart\n");
        assert!(partials(&charts).is_empty());
    }
}

#[test]
#[cfg(target_os = "linux")]
fn a_journal_its_folder_will_not_take_is_refused_as_any_unwritable_output_is() {
    // `/proc` takes no new file, even from root; exit code 2 and a message that names the journal, as `-o`
    // there gets, rather than 1 and the name of a temporary file.
    nqueens()
        .args(["count", "8", "--checkpoint", "/proc/n8.journal"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains(
            "cannot make the journal '/proc/n8.journal': its folder takes no new file",
        ))
        .stderr(contains(".nqueens-journal-").not());
}

/// A run started in `dir` with its standard output and error in files of a folder of their own, to be stopped
/// (SIGSTOP) at a moment of its run, its files changed meanwhile, and let go on.
#[cfg(unix)]
struct Paused {
    child: std::process::Child,
    logs: tempfile::TempDir,
}

#[cfg(unix)]
impl Paused {
    fn start(dir: &Path, args: &[&str]) -> Paused {
        Paused::start_with(dir, args, &[])
    }

    fn start_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Paused {
        let logs = tempfile::tempdir().unwrap();
        let child = common::command(binary())
            .current_dir(dir)
            .args(args)
            .envs(env.iter().copied())
            .stdout(fs::File::create(logs.path().join("stdout")).unwrap())
            .stderr(fs::File::create(logs.path().join("stderr")).unwrap())
            .spawn()
            .unwrap();
        Paused { child, logs }
    }

    /// Stops the run once `path` holds `text`: the run is then between its rewrites of that file.
    fn stop_when(&mut self, path: &Path, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !fs::read_to_string(path).is_ok_and(|t| t.contains(text)) {
            assert!(
                self.child.try_wait().unwrap().is_none(),
                "the run ended before '{}' held {text:?}: {}",
                path.display(),
                self.stderr()
            );
            assert!(
                Instant::now() < deadline,
                "'{}' never held {text:?}",
                path.display()
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        // SAFETY: kill only sends a signal to the child this test started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGSTOP) };
    }

    /// Lets the run go on, and gives its exit code once it ends (within a minute: a run that hangs is killed).
    fn finish(&mut self) -> Option<i32> {
        // SAFETY: as above.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGCONT) };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("the run hung: {}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn stdout(&self) -> String {
        fs::read_to_string(self.logs.path().join("stdout")).unwrap()
    }

    fn stderr(&self) -> String {
        fs::read_to_string(self.logs.path().join("stderr")).unwrap()
    }
}

#[test]
#[cfg(unix)]
fn an_export_that_became_a_link_a_fifo_or_read_only_during_the_sweep_is_left_as_it_is() {
    // Each export is rewritten as each board is counted: a rewrite after the name became something not the
    // run's to replace leaves it, and keeps the document beside it, as `-o` does at the end (and not in a new
    // name at each board); the sweep goes on, its -o result is written, and the exit code is 1.
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    fs::write(path("theirs.json"), "theirs\n").unwrap();
    let mut run = Paused::start(
        dir.path(),
        &[
            "count",
            "8",
            "12",
            "16",
            "-t",
            "1",
            "-q",
            "-f",
            "json",
            "-o",
            "out.json",
            "--export-json",
            "e.json",
            "--export-csv",
            "e.csv",
            "--export-markdown",
            "e.md",
        ],
    );
    run.stop_when(&path("e.csv"), "\n8,92,");
    fs::remove_file(path("e.json")).unwrap();
    std::os::unix::fs::symlink("theirs.json", path("e.json")).unwrap();
    let csv_then = fs::read_to_string(path("e.csv")).unwrap();
    let mut mode = fs::metadata(path("e.csv")).unwrap().permissions();
    mode.set_readonly(true);
    fs::set_permissions(path("e.csv"), mode).unwrap();
    let fifo = made_fifo(&path("e.md.fifo"));
    if fifo {
        fs::remove_file(path("e.md")).unwrap();
        fs::rename(path("e.md.fifo"), path("e.md")).unwrap();
    }
    let code = run.finish();
    let stderr = run.stderr();
    assert_eq!(
        fs::read_to_string(path("theirs.json")).unwrap(),
        "theirs\n",
        "the link's target is not the run's: {stderr}"
    );
    assert_eq!(
        fs::read_link(path("e.json")).unwrap(),
        Path::new("theirs.json")
    );
    assert_eq!(fs::read_to_string(path("e.csv")).unwrap(), csv_then);
    assert_eq!(code, Some(1), "{stderr}");
    for name in ["e.json", "e.csv"] {
        assert!(stderr.contains(&format!("'{name}'")), "{stderr}");
        assert!(stderr.contains(&format!("'{name}.new'")), "{stderr}");
    }
    // Every document whole, and marked finished: the sweep went on to its end.
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(path("e.json.new")).unwrap()).unwrap();
    assert_eq!(json["status"], "complete");
    assert_eq!(json["results"].as_array().unwrap().len(), 3);
    let csv = fs::read_to_string(path("e.csv.new")).unwrap();
    assert!(csv.contains("\n16,14772512,"), "{csv}");
    let out: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(path("out.json")).unwrap()).unwrap();
    assert_eq!(out["results"].as_array().unwrap().len(), 3);
    if fifo {
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::symlink_metadata(path("e.md"))
            .unwrap()
            .file_type()
            .is_fifo());
        let markdown = fs::read_to_string(path("e.md.new")).unwrap();
        assert!(markdown.contains("| 16 | 14772512 |"), "{markdown}");
        assert!(!markdown.contains("INCOMPLETE"), "{markdown}");
    }
    let mut expected = vec![
        "e.csv",
        "e.csv.new",
        "e.json",
        "e.json.new",
        "e.md",
        "out.json",
        "theirs.json",
    ];
    if fifo {
        expected.push("e.md.new");
        expected.sort_unstable();
    }
    assert_eq!(
        names(dir.path()),
        expected,
        "one kept file an export, no partial file"
    );
}

#[test]
#[cfg(unix)]
fn an_output_kept_beside_its_name_leaves_the_exports_finished_and_the_mismatch_said() {
    // The -o file is renamed at the end, before the exports' last rewrite: a result that must be kept beside
    // its name still lets the exports say the sweep finished, and a count that differs from the published
    // value is still said, with its exit code.
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    fs::write(path("theirs.json"), "theirs\n").unwrap();
    let mut run = Paused::start_with(
        dir.path(),
        &[
            "count",
            "8",
            "16",
            "-t",
            "1",
            "--check",
            "-f",
            "csv",
            "-o",
            "out.csv",
            "--export-json",
            "e.json",
            "--export-markdown",
            "e.md",
        ],
        &[("NQUEENS_TEST_OFFSET", "1")],
    );
    run.stop_when(&path("e.md"), "| 8 | 93 |");
    std::os::unix::fs::symlink("theirs.json", path("out.csv")).unwrap();
    let code = run.finish();
    let stderr = run.stderr();
    assert_eq!(fs::read_to_string(path("theirs.json")).unwrap(), "theirs\n");
    assert!(stderr.contains("'out.csv.new'"), "{stderr}");
    assert!(
        stderr.contains("counted 93 as the total, but the published value is 92"),
        "{stderr}"
    );
    assert_eq!(code, Some(3), "{stderr}");
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(path("e.json")).unwrap()).unwrap();
    assert_eq!(json["status"], "complete", "{stderr}");
    assert!(!fs::read_to_string(path("e.md"))
        .unwrap()
        .contains("INCOMPLETE"));
    assert!(fs::read_to_string(path("out.csv.new"))
        .unwrap()
        .contains("\n16,14772513,"));
    assert!(partials(dir.path()).is_empty());
}

#[test]
#[cfg(unix)]
fn a_bench_export_that_became_a_link_leaves_the_links_target_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    fs::write(path("theirs.json"), "theirs\n").unwrap();
    let mut run = Paused::start(
        dir.path(),
        &[
            "bench",
            "--n",
            "16",
            "--threads",
            "1",
            "--runs",
            "1",
            "-q",
            "--export-json",
            "b.json",
        ],
    );
    run.stop_when(&path("b.json"), "\"warmup\": true");
    fs::remove_file(path("b.json")).unwrap();
    std::os::unix::fs::symlink("theirs.json", path("b.json")).unwrap();
    let code = run.finish();
    let stderr = run.stderr();
    assert_eq!(
        fs::read_to_string(path("theirs.json")).unwrap(),
        "theirs\n",
        "{stderr}"
    );
    assert_eq!(code, Some(1), "{stderr}");
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(path("b.json.new")).unwrap()).unwrap();
    assert_eq!(json["status"], "complete");
    assert!(stderr.contains("'b.json.new'"), "{stderr}");
    assert!(run.stdout().contains("score"));
    assert_eq!(names(dir.path()), ["b.json", "b.json.new", "theirs.json"]);
}

/// Keeps the folder `dir` from taking or losing names, as `chmod a-w` does for its owner and `chattr +i` for
/// root too; false where neither can be done here.
#[cfg(unix)]
fn freeze(dir: &Path, frozen: bool) -> bool {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        return common::command("chattr")
            .arg(if frozen { "+i" } else { "-i" })
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    }
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(
        dir,
        fs::Permissions::from_mode(if frozen { 0o555 } else { 0o755 }),
    )
    .is_ok()
}

#[test]
#[cfg(unix)]
fn a_result_whose_folder_went_away_or_took_no_name_is_said_where_it_is_or_that_it_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let args = [
        "count",
        "8",
        "16",
        "-t",
        "1",
        "-q",
        "-f",
        "json",
        "-o",
        "sub/out.json",
        "--export-csv",
        "e.csv",
    ];
    // The folder moved: the result is kept in it, where it is now, beside the name it would have had.
    fs::create_dir(path("sub")).unwrap();
    let mut run = Paused::start(dir.path(), &args);
    run.stop_when(&path("e.csv"), "\n8,92,");
    fs::rename(path("sub"), path("moved")).unwrap();
    assert_eq!(run.finish(), Some(1));
    let stderr = run.stderr();
    assert!(stderr.contains("moved/out.json.new"), "{stderr}");
    let kept: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(path("moved/out.json.new")).unwrap()).unwrap();
    assert_eq!(kept["results"].as_array().unwrap().len(), 2);
    assert_eq!(names(&path("moved")), ["out.json.new"], "{stderr}");
    // The folder removed, and the result in it: said so, in those words.
    fs::remove_file(path("e.csv")).unwrap();
    fs::create_dir(path("sub")).unwrap();
    let mut run = Paused::start(dir.path(), &args);
    run.stop_when(&path("e.csv"), "\n8,92,");
    fs::remove_dir_all(path("sub")).unwrap();
    assert_eq!(run.finish(), Some(1));
    let stderr = run.stderr();
    assert!(stderr.contains("the folder 'sub' is gone"), "{stderr}");
    assert!(stderr.contains("the result is lost"), "{stderr}");
    // The folder takes no new name: the result stays under its temporary name, read-only, said, and is not
    // taken for a leftover by a later run in that folder.
    fs::remove_file(path("e.csv")).unwrap();
    fs::create_dir(path("sub")).unwrap();
    let mut run = Paused::start(dir.path(), &args);
    run.stop_when(&path("e.csv"), "\n8,92,");
    if !freeze(&path("sub"), true) {
        let _ = run.finish();
        eprintln!("skipped the folder that takes no name: it cannot be made so here");
        return;
    }
    let code = run.finish();
    assert!(freeze(&path("sub"), false));
    let stderr = run.stderr();
    assert_eq!(code, Some(1), "{stderr}");
    let left = partials(&path("sub"));
    assert_eq!(left.len(), 1, "{stderr}");
    let left = path("sub").join(&left[0]);
    assert!(
        stderr.contains(&format!(
            "/sub/{}', read-only",
            left.file_name().unwrap().to_string_lossy()
        )),
        "{stderr}"
    );
    assert!(fs::metadata(&left).unwrap().permissions().readonly());
    let kept: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&left).unwrap()).unwrap();
    assert_eq!(kept["results"].as_array().unwrap().len(), 2);
    // Aged as a leftover of ten minutes would be (read-only: opened for reading, its owner may set its time).
    fs::File::open(&left)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - Duration::from_secs(600))
        .unwrap();
    nqueens()
        .current_dir(dir.path())
        .args(["count", "8", "-q", "-o", "sub/n8.txt"])
        .assert()
        .success()
        .stderr("");
    assert!(left.exists(), "a kept result is no leftover");
}

#[test]
#[cfg(unix)]
fn a_result_that_cannot_be_written_names_the_file_asked_for_never_its_temporary_one() {
    // Every command's `-o` goes through one temporary file beside the name asked for. Past the limit of a
    // file's size (a batch job's `ulimit -f`, which fails as a full disk does) the error named that temporary
    // file (`... at path "/dir/.nqueens-partial-host-AbC123.tmp"`), a name the user never gave.
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("solutions.txt"), stdout_of(&["list", "10"])).unwrap();
    fs::write(dir.path().join("out.txt"), "mine\n").unwrap();
    let commands: [&[&str]; 5] = [
        &["list", "10"],
        &["solve", "3000"],
        &["count", "4..12", "-f", "csv"],
        &["units", "12", "-f", "json"],
        &["check", "solutions.txt"],
    ];
    for args in commands {
        let out = common::command("sh")
            .current_dir(dir.path())
            .arg("-c")
            .arg("ulimit -f 1 && exec \"$0\" \"$@\" -o out.txt")
            .arg(binary())
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(
                "error: could not write 'out.txt': File too large (os error 27); 'out.txt' is left as it \
                 was, and the partial file written beside it is removed"
            ),
            "{args:?}: {stderr}"
        );
        assert!(
            !stderr.contains(".nqueens-partial") && !stderr.contains("at path"),
            "{args:?}: {stderr}"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("out.txt")).unwrap(),
            "mine\n"
        );
        assert_eq!(names(dir.path()), ["out.txt", "solutions.txt"], "{args:?}");
    }
    // A folder that takes no new file: the message is of the folder and the name asked for.
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    if !freeze(&sub, true) {
        eprintln!("skipped the folder that takes no file: it cannot be made so here");
        return;
    }
    let out = nqueens()
        .current_dir(dir.path())
        .args(["list", "4", "-o", "sub/out.txt"])
        .output()
        .unwrap();
    assert!(freeze(&sub, false));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot write 'sub/out.txt': cannot create a file in the folder 'sub': "),
        "{stderr}"
    );
    assert!(
        !stderr.contains(".nqueens-partial") && !stderr.contains("at path"),
        "{stderr}"
    );
    assert_eq!(names(&sub), Vec::<String>::new());
}

#[test]
#[cfg(unix)]
fn a_journal_that_cannot_be_made_names_itself_never_its_temporary_file() {
    // A journal is written under a temporary name and renamed. Under a file-size limit of nothing the error
    // named that temporary file (`could not create 'j.journal': File too large (os error 27) at path
    // "/dir/./.nqueens-journal-AbC123"`), a name the user never gave; and nothing of it may be left behind.
    let dir = tempfile::tempdir().unwrap();
    let out = common::command("sh")
        .current_dir(dir.path())
        .arg("-c")
        .arg("ulimit -f 0 && exec \"$0\" count 12 --checkpoint j.journal")
        .arg(binary())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("could not create 'j.journal': File too large (os error 27)"),
        "{stderr}"
    );
    assert!(
        !stderr.contains(".nqueens-journal") && !stderr.contains("at path"),
        "{stderr}"
    );
    assert_eq!(names(dir.path()), Vec::<String>::new());
}

/// What `nqueens ARGS` writes on standard output, which it must exit 0 to give.
fn stdout_of(args: &[&str]) -> String {
    let out = nqueens().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
#[cfg(unix)]
fn a_link_that_cannot_be_written_through_is_named_with_where_it_leads() {
    // `-o out.txt` where out.txt is a link: a message of the file it leads to alone ("the folder 'gone' does
    // not exist") spoke of names the user never typed.
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    fs::create_dir(path("folder")).unwrap();
    std::os::unix::fs::symlink("gone/x.txt", path("dangling.txt")).unwrap();
    std::os::unix::fs::symlink("folder", path("to-folder")).unwrap();
    for (link, said) in [
        (
            "dangling.txt",
            "error: cannot write 'dangling.txt' (a symbolic link to 'gone/x.txt'): the folder 'gone' does \
             not exist\n",
        ),
        (
            "to-folder",
            "error: cannot write 'to-folder' (a symbolic link to 'folder'): it is a directory; name a file\n",
        ),
    ] {
        nqueens()
            .current_dir(dir.path())
            .args(["list", "4", "-o", link])
            .assert()
            .code(2)
            .stdout("")
            .stderr(said);
    }
    assert_eq!(names(dir.path()), ["dangling.txt", "folder", "to-folder"]);
    assert_eq!(names(&path("folder")), Vec::<String>::new());
    // A name that is no link is named alone, as before.
    nqueens()
        .current_dir(dir.path())
        .args(["list", "4", "-o", "folder"])
        .assert()
        .code(2)
        .stderr("error: cannot write 'folder': it is a directory; name a file\n");
}

#[cfg(unix)]
#[test]
fn standard_output_sent_onto_a_file_the_command_reads_or_keeps_is_refused() {
    // `check s.txt >> s.txt` read the verdicts it appended as more lines to judge: 14,200 solutions grew
    // into 42,600 lines, and the summary and exit code were of those. `-o /dev/stdout` was refused already;
    // every other spelling of standard output is now, as is a journal or a merged journal given as `>>`.
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let solutions = nqueens().args(["list", "8", "-q"]).assert().success();
    let solutions = solutions.get_output().stdout.clone();
    fs::write(path("s.txt"), &solutions).unwrap();
    let appended = |name: &str| {
        fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path(name))
            .unwrap()
    };
    for args in [
        vec!["check", "s.txt"],
        vec!["check", "s.txt", "-o", "-"],
        vec!["check", "-"],
        vec!["check"],
    ] {
        let out = common::command(binary())
            .current_dir(dir.path())
            .args(&args)
            .stdin(fs::File::open(path("s.txt")).unwrap())
            .stdout(appended("s.txt"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains("cannot write the standard output: it is the ")
                && said
                    .contains(", which the result would be written into; send it to another file"),
            "{args:?}: {said}"
        );
        assert_eq!(fs::read(path("s.txt")).unwrap(), solutions, "{args:?}");
    }
    // Standard output onto another file, or onto a device that is also the input, is as before.
    let out = common::command(binary())
        .current_dir(dir.path())
        .args(["check", "s.txt"])
        .stdout(appended("verdicts.txt"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        fs::read_to_string(path("verdicts.txt"))
            .unwrap()
            .lines()
            .count(),
        92
    );
    let out = common::command(binary())
        .args(["check", "/dev/null"])
        .stdout(
            fs::OpenOptions::new()
                .write(true)
                .open("/dev/null")
                .unwrap(),
        )
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no solutions to check"),
        "{out:?}"
    );
    // A journal: of the run, and of a merge.
    nqueens()
        .current_dir(dir.path())
        .args(["count", "9", "--checkpoint", "j", "-q"])
        .assert()
        .success();
    let journal = fs::read(path("j")).unwrap();
    let mut cases = vec![
        (
            vec!["count", "9", "--checkpoint", "j"],
            "it is the journal of this run",
        ),
        (vec!["merge", "j"], "it is one of the journals merged"),
    ];
    // Any journal, another run's too, as `-o` refuses one: `count 8 >> j` appended its table to the journal,
    // whose next resume found a line that is none of its own. Linux alone can read what standard output is.
    if cfg!(target_os = "linux") {
        let any = "it is an nqueens journal, which the result would be written into; send it to another file";
        cases.extend([(vec!["count", "8", "-q"], any), (vec!["list", "6"], any)]);
    }
    for (args, said) in cases {
        let out = common::command(binary())
            .current_dir(dir.path())
            .args(&args)
            .stdout(appended("j"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains(&format!("cannot write the standard output: {said}")),
            "{args:?}: {out:?}"
        );
        assert_eq!(fs::read(path("j")).unwrap(), journal, "{args:?}");
    }
}

#[cfg(unix)]
#[test]
fn standard_output_sent_onto_an_export_file_is_refused() {
    // `bench --export-markdown bench.md >> bench.md` appended the table to the old file, which the export's
    // rename then replaced: the run ended with exit 0 and its table gone.
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let cases: [(&[&str], &str, &str); 4] = [
        (
            &["count", "8", "--export-json", "s.json"],
            "s.json",
            "--export-json",
        ),
        (
            &["count", "8", "-o", "-", "--export-csv", "s.csv"],
            "s.csv",
            "--export-csv",
        ),
        (
            &[
                "bench",
                "--n",
                "8",
                "--runs",
                "1",
                "--warmup",
                "0",
                "--export-markdown",
                "b.md",
            ],
            "b.md",
            "--export-markdown",
        ),
        (
            &[
                "bench",
                "--n",
                "8",
                "--runs",
                "1",
                "--warmup",
                "0",
                "--export-json",
                "b.json",
            ],
            "b.json",
            "--export-json",
        ),
    ];
    for (args, file, flag) in cases {
        fs::write(path(file), "kept\n").unwrap();
        let out = common::command(binary())
            .current_dir(dir.path())
            .args(args)
            .stdout(
                fs::OpenOptions::new()
                    .append(true)
                    .open(path(file))
                    .unwrap(),
            )
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains(&format!(
                "cannot write the standard output: it is '{file}', which {flag} replaces with its own document"
            )),
            "{args:?}: {said}"
        );
        assert_eq!(
            fs::read_to_string(path(file)).unwrap(),
            "kept\n",
            "{args:?}"
        );
    }
    // The table sent to another file, with the export beside it, is as before.
    let out = common::command(binary())
        .current_dir(dir.path())
        .args(["count", "8", "--export-json", "s.json"])
        .stdout(fs::File::create(path("table.txt")).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(fs::read_to_string(path("table.txt"))
        .unwrap()
        .contains("92"));
    assert!(fs::read_to_string(path("s.json"))
        .unwrap()
        .contains("\"total\": 92"));
}

#[cfg(unix)]
#[test]
fn a_stream_export_of_a_run_a_signal_stops_gets_the_document_of_the_run_so_far() {
    // A stream gets one document, when the run ends; a run stopped by a signal ended without one, and
    // `--export-json >(jq .results)` gave jq an empty input after three boards were counted.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("ff");
    if !made_fifo(&fifo) {
        return;
    }
    for journal in [None, Some("j")] {
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(&fifo).unwrap())
        };
        let csv = dir.path().join("c.csv");
        let _ = fs::remove_file(&csv);
        let mut args = vec!["count", "--export-json", "ff", "--export-csv", "c.csv"];
        let boards: &[&str] = match journal {
            // Stopped once two boards are in the file export.
            None => &["12", "13", "14", "15", "16", "17", "18", "19", "20"],
            Some(_) => &["19"],
        };
        args.extend(boards);
        if let Some(j) = journal {
            args.extend(["--checkpoint", j]);
        }
        let rows = |at_least: usize| {
            fs::read_to_string(&csv).is_ok_and(|text| text.lines().count() > at_least)
        };
        let said = match journal {
            None => common::stopped_by_sigterm(dir.path(), &args, || rows(2)).1,
            // A checkpointed run saves its journal and ends with exit code 143 itself.
            Some(_) => {
                args.extend(["--stop-grace", "0"]);
                let child = common::started(
                    dir.path(),
                    &args,
                    || csv.exists(),
                    std::time::Duration::from_millis(300),
                );
                common::signal(&child, "TERM");
                let out = child.wait_with_output().unwrap();
                assert_eq!(out.status.code(), Some(143), "{out:?}");
                String::from_utf8_lossy(&out.stderr).into_owned()
            }
        };
        // A reader still waiting for a writer is let go (an empty document), rather than hanging the test.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !reader.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        if !reader.is_finished() {
            drop(fs::OpenOptions::new().write(true).open(&fifo));
        }
        let got = reader.join().unwrap();
        assert!(
            !got.is_empty(),
            "{journal:?}: the stream got nothing: {said}"
        );
        let document: serde_json::Value = serde_json::from_slice(&got).unwrap();
        assert_eq!(document["status"], "running", "{journal:?}: {document}");
        let results = document["results"].as_array().unwrap();
        match journal {
            None => {
                assert!(results.len() >= 2, "{document}");
                assert!(
                    said.contains(", and so has ff (marked \"running\"), c.csv;"),
                    "{said}"
                );
            }
            Some(_) => assert!(results.is_empty(), "{document}"),
        }
    }
}
