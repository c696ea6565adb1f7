//! Shared by the integration tests: an independent reference solver, the published table, and the binary.
#![allow(dead_code)]

use std::path::PathBuf;

/// The textbook N-Queens counter, written without bitmasks or any of the library's code: an array of queen
/// columns, one per row, and a pairwise check of every new queen against all earlier ones. Counts the
/// solutions whose first rows are `prefix` (0-based columns); an invalid prefix has none.
pub fn reference_count(n: usize, prefix: &[usize]) -> u64 {
    fn safe(queens: &[usize], col: usize) -> bool {
        let row = queens.len();
        queens
            .iter()
            .enumerate()
            .all(|(r, &c)| c != col && row - r != c.abs_diff(col))
    }
    fn extend(n: usize, queens: &mut Vec<usize>) -> u64 {
        if queens.len() == n {
            return 1;
        }
        let mut count = 0;
        for col in 0..n {
            if safe(queens, col) {
                queens.push(col);
                count += extend(n, queens);
                queens.pop();
            }
        }
        count
    }
    let mut queens = Vec::new();
    for &col in prefix {
        if col >= n || !safe(&queens, col) {
            return 0;
        }
        queens.push(col);
    }
    extend(n, &mut queens)
}

/// A published row: n, total, unique (absent for n = 0).
#[derive(Clone, Copy, Debug)]
pub struct Published {
    pub n: u32,
    pub total: u128,
    pub unique: Option<u128>,
}

/// The published counts, read from the repository's copy of the table.
pub fn published() -> Vec<Published> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/known-counts.tsv");
    let text = std::fs::read_to_string(&path).expect("data/known-counts.tsv is in the repository");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Published {
                n: f[0].trim().parse().unwrap(),
                total: f[1].trim().parse().unwrap(),
                unique: f.get(2).and_then(|u| u.trim().parse().ok()),
            }
        })
        .collect()
}

/// The `nqueens` binary built for these tests.
pub fn nqueens() -> assert_cmd::Command {
    assert_cmd::Command::from_std(command(assert_cmd::cargo::cargo_bin("nqueens")))
}

/// A command of `program` whose child starts with the signals that end a process at their defaults: nqueens
/// leaves a signal ignored that was ignored when it started (as under `nohup`), and tests run as a shell
/// script's background job (`cargo test &`) have SIGINT and SIGQUIT ignored, which every child would inherit,
/// so that a run a test stops with SIGINT would count on to its end. Only the child's are set: the tests' own
/// process keeps what it was given.
pub fn command(program: impl AsRef<std::ffi::OsStr>) -> std::process::Command {
    #[allow(unused_mut)]
    let mut command = std::process::Command::new(program);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec the closure only calls signal(2), which is async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                for signal in [
                    libc::SIGINT,
                    libc::SIGQUIT,
                    libc::SIGHUP,
                    libc::SIGTERM,
                    libc::SIGUSR1,
                    libc::SIGUSR2,
                    libc::SIGXCPU,
                    libc::SIGALRM,
                    libc::SIGVTALRM,
                    libc::SIGPROF,
                ] {
                    libc::signal(signal, libc::SIG_DFL);
                }
                Ok(())
            });
        }
    }
    command
}

/// Every solution of the board of side `n`, by the textbook solver, as the column of each row's queen.
pub fn reference_solutions(n: usize) -> Vec<Vec<usize>> {
    fn extend(n: usize, queens: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if queens.len() == n {
            out.push(queens.clone());
            return;
        }
        let row = queens.len();
        for col in 0..n {
            let safe = queens
                .iter()
                .enumerate()
                .all(|(r, &c)| c != col && row - r != c.abs_diff(col));
            if safe {
                queens.push(col);
                extend(n, queens, out);
                queens.pop();
            }
        }
    }
    let mut out = Vec::new();
    extend(n, &mut Vec::new(), &mut out);
    out
}

/// The 8 images of a solution under the symmetries of the square, computed on the list of queens.
pub fn images(solution: &[usize]) -> Vec<Vec<usize>> {
    let n = solution.len();
    let rotate = |s: &[usize]| -> Vec<usize> {
        // A quarter turn: the queen at (r, c) goes to (c, n - 1 - r).
        let mut out = vec![0; n];
        for (r, &c) in s.iter().enumerate() {
            out[c] = n - 1 - r;
        }
        out
    };
    let mut all = Vec::new();
    let mut s = solution.to_vec();
    for _ in 0..4 {
        all.push(s.clone());
        all.push(s.iter().map(|&c| n - 1 - c).collect());
        s = rotate(&s);
    }
    all
}

/// Every solution of the rectangle of `rows` rows and `cols` columns (a queen in each column), by the textbook
/// solver: for each column in turn, the row of its queen, checked pairwise against the earlier columns.
pub fn reference_rect_solutions(rows: usize, cols: usize) -> Vec<Vec<usize>> {
    fn extend(rows: usize, cols: usize, queens: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if queens.len() == cols {
            out.push(queens.clone());
            return;
        }
        let col = queens.len();
        for row in 0..rows {
            let safe = queens
                .iter()
                .enumerate()
                .all(|(c, &r)| r != row && col - c != r.abs_diff(row));
            if safe {
                queens.push(row);
                extend(rows, cols, queens, out);
                queens.pop();
            }
        }
    }
    let mut out = Vec::new();
    extend(rows, cols, &mut Vec::new(), &mut out);
    out
}

/// The system's special file `/dev/NAME` (`null`, `full`, `stdout`, `stderr`, `stdin`, `fd/9`) for a test
/// that writes to it; or, where the tests run as root, a stand-in in `dir` that behaves the same: a device
/// node of the same device, or a link to the same descriptor of `/proc/self/fd`. A program broken in the
/// way these tests look for would replace what it writes to with a file: as root it could, and a run of
/// mutation tests once left a machine without its `/dev/null`. `None` where no stand-in can be made
/// (`mknod` refused): the test then skips that part rather than put the machine's device at risk.
#[cfg(unix)]
pub fn special_file(dir: &std::path::Path, name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let system = PathBuf::from("/dev").join(name);
    // The owner of /proc/self is the process's effective user (Linux); elsewhere, take the system's file.
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    if !root {
        return Some(system);
    }
    let stand_in = dir.join(format!("dev-{}", name.replace('/', "-")));
    if std::fs::symlink_metadata(&stand_in).is_ok() {
        return Some(stand_in);
    }
    let descriptor = match name {
        "stdin" => Some("0"),
        "stdout" => Some("1"),
        "stderr" => Some("2"),
        _ => name.strip_prefix("fd/"),
    };
    if let Some(fd) = descriptor {
        std::os::unix::fs::symlink(format!("/proc/self/fd/{fd}"), &stand_in).ok()?;
        return Some(stand_in);
    }
    let rdev = std::fs::metadata(&system).ok()?.rdev();
    let (major, minor) = (
        (rdev >> 8) & 0xfff | (rdev >> 32) & !0xfff,
        rdev & 0xff | (rdev >> 12) & !0xff,
    );
    let made = std::process::Command::new("mknod")
        .args(["-m", "666"])
        .arg(&stand_in)
        .args(["c", &major.to_string(), &minor.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    // A folder on a file system mounted `nodev` takes the node but not its use.
    (made
        && std::fs::OpenOptions::new()
            .write(true)
            .open(&stand_in)
            .is_ok())
    .then_some(stand_in)
}

/// Starts `nqueens ARGS` in `dir` and returns `settle` after `ready` holds (within 60 s, or the test fails):
/// its standard output and error are piped.
#[cfg(unix)]
pub fn started(
    dir: &std::path::Path,
    args: &[&str],
    ready: impl Fn() -> bool,
    settle: std::time::Duration,
) -> std::process::Child {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let child = command(assert_cmd::cargo::cargo_bin("nqueens"))
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready() {
        assert!(Instant::now() < deadline, "{args:?}: not ready in 60 s");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(settle);
    child
}

/// Sends `signal` (`INT`, `TERM`, `HUP`) to `child`.
#[cfg(unix)]
pub fn signal(child: &std::process::Child, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Starts `nqueens ARGS` in `dir`, waits until `ready` holds, stops it with SIGTERM, and gives back its
/// standard output and the line its signal said on standard error.
#[cfg(unix)]
pub fn stopped_by_sigterm(
    dir: &std::path::Path,
    args: &[&str],
    ready: impl Fn() -> bool,
) -> (String, String) {
    let child = started(dir, args, ready, std::time::Duration::from_millis(300));
    signal(&child, "TERM");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // Ended as the signal ends a process (a shell says 143).
    use std::os::unix::process::ExitStatusExt as _;
    assert_eq!(out.status.signal(), Some(15), "{args:?}: {stderr}");
    let said = stderr
        .lines()
        .find(|l| l.starts_with("stopped by SIGTERM: "))
        .unwrap_or_else(|| panic!("{args:?}: no word of the signal: {stderr}"))
        .to_string();
    (String::from_utf8_lossy(&out.stdout).into_owned(), said)
}

/// `nqueens ARGS`, with its exit status, stdout, stderr and the most memory it held at once in MiB: its own
/// `VmHWM` (`NQUEENS_TEST_PEAK_MEMORY`), not the peak `wait4` gives, which folds in this test process's memory
/// (the child's before its `exec`: 101 MiB once where the command held 48), nor a limit of address space,
/// which counts what threads and the allocator reserve without using.
#[cfg(target_os = "linux")]
pub fn with_peak_memory(args: &[&str]) -> (std::process::ExitStatus, String, String, f64) {
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(args)
        .env("NQUEENS_TEST_PEAK_MEMORY", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let kib: f64 = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("peak memory: "))
        .and_then(|v| v.trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak memory said: {stderr}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status, stdout, stderr, kib / 1024.0)
}

/// Runs `nqueens ARGS` in `dir` with its standard output and error on one pseudo-terminal `columns` wide, as
/// a person at a terminal sees it; `during` is called once it runs (to signal it, say). Gives back what the
/// screen shows once it has ended, line by line (the carriage returns, line erasures and cursor moves of a
/// progress bar played out), or `None` where no pseudo-terminal can be opened.
#[cfg(target_os = "linux")]
pub fn on_a_terminal(
    dir: &std::path::Path,
    args: &[&str],
    columns: u16,
    during: impl FnOnce(&std::process::Child),
) -> Option<Vec<String>> {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    use std::process::Stdio;
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: 50,
        ws_col: columns,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty opens two descriptors and writes their numbers where it is told; the size is read only.
    let made = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    if made != 0 {
        return None;
    }
    // SAFETY: both descriptors were just opened, and nothing else owns them.
    let (mut master, slave) = unsafe {
        (
            std::fs::File::from_raw_fd(master),
            std::fs::File::from_raw_fd(slave),
        )
    };
    let mut child = command(assert_cmd::cargo::cargo_bin("nqueens"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave))
        .spawn()
        .unwrap();
    // Read as it is written: a full terminal would hold the child up.
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut buffer = [0; 4096];
        // The end of the child's output reads as an error (EIO) once it has closed the terminal.
        while let Ok(read @ 1..) = master.read(&mut buffer) {
            bytes.extend_from_slice(&buffer[..read]);
        }
        bytes
    });
    during(&child);
    child.wait().unwrap();
    let bytes = reader.join().unwrap();
    Some(screen(&String::from_utf8_lossy(&bytes)))
}

/// The lines a terminal shows after `output`: text, `\r`, `\n`, and the escape sequences indicatif draws with
/// (erase the line, `ESC[2K`; the cursor up, `ESC[nA`; erase below, `ESC[J`); others are left out. Lines
/// do not wrap (the terminal is taken as wide as its longest line), and trailing blanks and empty last lines
/// are dropped.
pub fn screen(output: &str) -> Vec<String> {
    let mut lines: Vec<Vec<char>> = vec![Vec::new()];
    let (mut row, mut col) = (0, 0);
    let mut chars = output.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => col = 0,
            '\n' => {
                row += 1;
                col = 0;
                if row == lines.len() {
                    lines.push(Vec::new());
                }
            }
            '\x1b' if chars.peek() == Some(&'[') => {
                chars.next();
                let mut parameters = String::new();
                let command = loop {
                    match chars.next() {
                        Some(p) if p.is_ascii_digit() || p == ';' || p == '?' => parameters.push(p),
                        other => break other,
                    }
                };
                let n = parameters.parse::<usize>().unwrap_or(1);
                match command {
                    Some('K') if parameters == "2" => lines[row].clear(),
                    Some('A') => row = row.saturating_sub(n),
                    Some('J') => {
                        lines[row].truncate(col);
                        lines.truncate(row + 1);
                    }
                    _ => {}
                }
            }
            c => {
                let line = &mut lines[row];
                if line.len() <= col {
                    line.resize(col + 1, ' ');
                }
                line[col] = c;
                col += 1;
            }
        }
    }
    let mut shown: Vec<String> = lines
        .into_iter()
        .map(|l| l.into_iter().collect::<String>().trim_end().to_string())
        .collect();
    while shown.last().is_some_and(String::is_empty) {
        shown.pop();
    }
    shown
}
