//! `count --checkpoint` and `--shard`: validates the options into a checkpoint spec, runs it with SIGINT,
//! SIGTERM and SIGHUP (and on Unix SIGUSR1, SIGUSR2 and SIGXCPU, a batch system's warnings) saving the
//! journal, and says how to resume.
//!
//! On a signal the workers stop taking new units (the GPUs new batches), the journal is synced at once, the
//! work under way finishes and is recorded, the journal is synced again, and the command exits with 128 and
//! the signal's number (130 SIGINT, 143 SIGTERM, 129 SIGHUP: the terminal closed; on Linux 138 SIGUSR1, 140
//! SIGUSR2, 152 SIGXCPU) after printing how to resume.
//! Units of large boards can take minutes, and a GPU's batches in flight many seconds, so if the run has not
//! wound down within its grace (`--stop-grace`, else [`CPU_GRACE`] or [`GPU_GRACE`]), or a second signal
//! comes, the signal thread syncs the journal itself and exits: the work under way is abandoned, never half
//! recorded. While the run winds down, the journal is synced every [`WIND_DOWN_SYNC`], so that a kill that
//! ends the wait (a scheduler's, after its own grace) loses none of what finished.

use crate::cli::args::{CountOptions, DurableOptions};
use crate::cli::errors::UsageError;
use crate::cli::progress::Bar;
use crate::cli::signals::{self, Stops, SIGTERM};
use nqueens::engine::estimate::WorkEstimate;
use nqueens::engine::exec::{Backend, Progress};
use nqueens::report::{BoardResult, Measured};
use nqueens::runs::checkpoint::{Checkpoint, Outcome, RunError, Spec};
use nqueens::runs::journal::JournalError;
use nqueens::runs::ranges::Ranges;
use nqueens::runs::shard::Shard;
use nqueens::CountRequest;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// How long a signalled run on the CPU may take, by default, to finish the units in its lanes before the
/// journal is saved without them: a unit a worker, so a stop that waits no longer loses a unit's time a thread
/// at most.
pub const CPU_GRACE: Duration = Duration::from_secs(2);

/// The same on the GPU: each GPU has up to four batches in flight, each a few seconds of its work on large
/// boards (5.6 s at n = 22 on an H200, results/gpu.md), which a stop after [`CPU_GRACE`] threw away. Under the
/// 30 s that Slurm (`KillWait`) and Kubernetes (`terminationGracePeriodSeconds`) wait by default between their
/// SIGTERM and their kill, so that the run leaves on its own, with its shares said.
pub const GPU_GRACE: Duration = Duration::from_secs(25);

/// How often the journal is synced while a signalled run winds down (the writer alone syncs every 5 s).
pub const WIND_DOWN_SYNC: Duration = Duration::from_secs(1);

/// Within this of the first signal, the same signal again is taken for the first sent twice, not for a second
/// stop: a person who presses Ctrl-C twice to leave at once takes longer between the two.
const ECHO: Duration = Duration::from_millis(250);

/// How long a wind-down goes before it says that it waits, and for how long: most take milliseconds.
const WIND_DOWN_SAID: Duration = Duration::from_millis(500);

/// How long a signalled run of `backend` may take to finish the work under way, unless `--stop-grace` says.
pub fn default_grace(backend: Backend) -> Duration {
    match backend {
        Backend::Cpu => CPU_GRACE,
        Backend::Gpu => GPU_GRACE,
    }
}

/// A validated checkpointed run.
#[derive(Debug)]
pub struct Durable {
    /// The journal.
    pub path: PathBuf,
    /// The shard, if one was asked for.
    pub shard: Option<Shard>,
    /// Only these units, if asked for.
    pub only: Option<Ranges>,
    /// The split depth asked for.
    pub split_depth: Option<u32>,
    /// How long a signalled run may take to finish the work under way, if asked for.
    pub stop_grace: Option<Duration>,
    /// The options the user gave that shape the run or its outputs, as the words of a command line
    /// ([`given_words`]): the resume command carries them, so that running it is the run that was stopped.
    pub given: Vec<String>,
}

impl Durable {
    /// Whether the run counts only part of the board's units (a shard, or the units of `--units`), so that
    /// its result is the part's, for `nqueens merge` to add up.
    pub fn is_part(&self) -> bool {
        self.shard.is_some_and(|s| !s.is_whole()) || self.only.is_some()
    }
}

/// What a checkpointed count came to.
pub enum Counted {
    /// Every selected unit is in the journal; the result covers them (the whole board unless sharded).
    Done(Box<BoardResult>),
    /// A signal stopped the run; exit with this code.
    Stopped(u8),
}

/// Checks the long-run options: `None` when none is given.
pub fn resolve(
    d: &DurableOptions,
    sizes: usize,
    check: bool,
    options: &CountOptions,
) -> Result<Option<Durable>, UsageError> {
    let Some(path) = &d.checkpoint else {
        if d.shard.is_some() || d.units.is_some() {
            return Err(UsageError(
                "--shard and --units need --checkpoint FILE: the journal is the result that `nqueens merge` \
                 adds up"
                    .into(),
            ));
        }
        if d.shard_count.is_some() {
            return Err(UsageError("--shard-count goes with --shard auto".into()));
        }
        if d.stop_grace.is_some() {
            return Err(UsageError(
                "--stop-grace goes with --checkpoint FILE: a run without a journal keeps nothing of the work \
                 it finishes after a signal"
                    .into(),
            ));
        }
        return Ok(None);
    };
    if sizes != 1 {
        return Err(UsageError(
            "--checkpoint records one board: give a single N".into(),
        ));
    }
    let shard = crate::cli::validate::shard(d.shard.as_deref(), d.shard_count, options.quiet)?;
    let only = d
        .units
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e: nqueens::runs::ranges::BadRanges| UsageError(e.to_string()))?;
    let path = shard_name(path, shard.unwrap_or(Shard::WHOLE));
    let durable = Durable {
        path,
        shard,
        only,
        split_depth: options.split_depth,
        stop_grace: d.stop_grace,
        given: given_words(check, options, d.stop_grace),
    };
    if check && durable.is_part() {
        return Err(UsageError(
            "--check compares whole boards: check the total of `nqueens merge` instead".into(),
        ));
    }
    let path = &durable.path;
    if !path.is_dir() && crate::cli::output::names_a_folder(path) {
        return Err(UsageError(format!(
            "--checkpoint '{}': the name ends as a folder's does ('/', '.' or '..'); name a journal file",
            path.display()
        )));
    }
    if path.is_dir() {
        return Err(UsageError(format!(
            "--checkpoint '{}' is a directory: name a journal file, such as '{}'",
            path.display(),
            path.join("run.journal").display()
        )));
    }
    // A journal is a regular file. Opening a FIFO waits for a writer forever (SIGINT and SIGTERM are already
    // taken over by then, so only `kill -9` ends the wait); a device or a socket cannot hold one either.
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            return Err(UsageError(format!(
                "--checkpoint '{}' is not a regular file (a FIFO, a device or a socket): name a journal file",
                path.display()
            )));
        }
    } else if let Ok(target) = std::fs::read_link(path) {
        // A link to nothing: the journal cannot be made under the link's name without replacing the link.
        return Err(UsageError(format!(
            "--checkpoint '{}' is a symbolic link to '{}', which does not exist: name the journal file itself",
            path.display(),
            target.display()
        )));
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    // A file where the folder should be is not a folder to create.
    if folder.exists() && !folder.is_dir() {
        return Err(UsageError(format!(
            "--checkpoint '{}': '{}' is not a folder; name a journal in a folder",
            path.display(),
            folder.display()
        )));
    }
    if !folder.is_dir() {
        return Err(UsageError(format!(
            "--checkpoint '{}': the folder '{}' does not exist; create it first (mkdir -p '{}')",
            path.display(),
            folder.display(),
            folder.display()
        )));
    }
    Ok(Some(durable))
}

/// The journal's name with `{k}` and `{m}` replaced by the shard's number and count. The bytes of the name are
/// replaced, not its text: a name that is not UTF-8 keeps its other bytes as they are, where a lossy
/// conversion would have put the journal under another name than the one given (and resumed none).
fn shard_name(path: &std::path::Path, shard: Shard) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        let (k, m) = (shard.index.to_string(), shard.count.to_string());
        let mut rest = path.as_os_str().as_bytes();
        let mut name = Vec::with_capacity(rest.len());
        while let Some(&byte) = rest.first() {
            if let Some(after) = rest.strip_prefix(b"{k}") {
                name.extend_from_slice(k.as_bytes());
                rest = after;
            } else if let Some(after) = rest.strip_prefix(b"{m}") {
                name.extend_from_slice(m.as_bytes());
                rest = after;
            } else {
                name.push(byte);
                rest = &rest[1..];
            }
        }
        PathBuf::from(std::ffi::OsString::from_vec(name))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(
            path.to_string_lossy()
                .replace("{k}", &shard.index.to_string())
                .replace("{m}", &shard.count.to_string()),
        )
    }
}

/// A checkpointed run's journal, opened and held before anything else of the run is written: a journal that is
/// refused (another run's, in use, not a journal) leaves the run's other files (`-o`, the exports) as they were.
pub struct Opened {
    checkpoint: Checkpoint,
    spec: Spec,
    signals: Stops,
    _handled: crate::cli::output::SignalsHandled,
    started: Instant,
    quiet: bool,
}

/// The estimated share of the work of a resumed run's units (its shard's, for a shard) that its journal holds
/// already: a run resumed many times over weeks says how far the board has got, where its progress counts
/// only what is left. `None` where there is nothing to say (a new journal, nothing left, or units whose work
/// has no estimate).
fn share_recorded(checkpoint: &Checkpoint, spec: &Spec) -> Option<f64> {
    let units = checkpoint.plan.units().len();
    if !checkpoint.resumed
        || checkpoint.todo.is_empty()
        || checkpoint.todo.len() == checkpoint.selected
    {
        return None;
    }
    let estimate = WorkEstimate::of(&checkpoint.plan);
    let selected: Vec<usize> = (0..units).filter(|&u| spec.selects(u)).collect();
    let all = estimate.units(Some(&selected));
    let left = estimate.units(Some(&checkpoint.todo));
    (all > 0.0).then(|| (1.0 - left / all).clamp(0.0, 1.0))
}

/// Opens the journal of `durable` for `request`, creating it or taking it up where it was left, and says so
/// unless `quiet`.
pub fn open(request: &CountRequest, durable: &Durable, quiet: bool) -> anyhow::Result<Opened> {
    // A journal's temporary file that a run killed as it made the journal left here goes first.
    #[cfg(unix)]
    crate::cli::output::sweep_leftovers(match durable.path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => std::path::Path::new("."),
    });
    let started = Instant::now();
    let spec = Spec {
        board: request.board,
        symmetry: request.symmetry,
        split_depth: durable.split_depth,
        shard: durable.shard.unwrap_or(Shard::WHOLE),
        only: durable.only.clone(),
        program: format!("nqueens {}", crate::cli::args::VERSION),
    };
    // Caught from before the journal exists: a signal that comes while the plan is built waits for the run,
    // which then stops at once, instead of killing the process between the journal's creation and its use.
    // SIGHUP too: a run started from a terminal that closes saves what it counted, as for the others.
    let signals = Stops::new()?;
    let handled = crate::cli::output::SignalsHandled::take();
    let checkpoint = Checkpoint::open(&durable.path, &spec).map_err(|e| match e {
        // A journal of another run is a mistake in the arguments, not a failure: exit code 2.
        JournalError::Foreign { .. }
        | JournalError::NotAJournal { .. }
        | JournalError::Empty { .. }
        | JournalError::OtherFormat { .. }
        | JournalError::OutsidePlan { .. }
        | JournalError::InvalidShard { .. }
        | JournalError::NoneOfTheShard { .. }
        | JournalError::TooManyShards { .. }
        | JournalError::NoUnits { .. }
        | JournalError::Plan(_)
        | JournalError::ReadOnly { .. }
        | JournalError::ReadOnlyFileSystem { .. } => anyhow::Error::new(UsageError(e.to_string())),
        // So is a journal that cannot be made where it is asked for, as for any output that cannot be written.
        JournalError::Io {
            action: "create",
            ref reason,
            ..
        } => match folder_refuses(reason) {
            Some(why) => anyhow::Error::new(UsageError(format!(
                "cannot make the journal '{}': its folder {why}; name a journal in a folder you can write",
                durable.path.display(),
            ))),
            None => anyhow::Error::new(e),
        },
        other => anyhow::Error::new(other),
    })?;
    // A line of the journal dropped is said even when `quiet`: the journal the user keeps has changed (its
    // unit is counted again), and a journal torn again and again says something of the machine.
    if let Some(line) = checkpoint.torn {
        note!(
            "warning: '{}': dropped a torn last line (line {line}) left by an interrupted write; its unit is \
             counted again",
            durable.path.display()
        );
    }
    if !quiet {
        let done = checkpoint.selected - checkpoint.todo.len();
        note!(
            "{} '{}': {done} of {} recorded{}, {} to count (split depth {}, fingerprint {})",
            if checkpoint.resumed {
                "resuming"
            } else {
                "journal"
            },
            durable.path.display(),
            nqueens::engine::plan::unit_words(checkpoint.selected),
            share_recorded(&checkpoint, &spec)
                .map(|share| format!(
                    " (about {} of the work)",
                    crate::cli::progress::percent(share)
                ))
                .unwrap_or_default(),
            checkpoint.todo.len(),
            checkpoint.header.split_depth,
            checkpoint.header.fingerprint,
        );
    }
    Ok(Opened {
        checkpoint,
        spec,
        signals,
        _handled: handled,
        started,
        quiet,
    })
}

/// What a folder that refused a new journal did, in words, where that is the folder's doing rather than a
/// failure of the machine (a full disk is one).
fn folder_refuses(reason: &std::io::Error) -> Option<&'static str> {
    use std::io::ErrorKind;
    match reason.kind() {
        ErrorKind::PermissionDenied => Some("cannot be written here (permission denied)"),
        ErrorKind::ReadOnlyFilesystem => Some("is on a read-only file system"),
        // A folder that exists (checked before) and yet has no room for the name: `/proc`.
        ErrorKind::NotFound => Some("takes no new file"),
        _ => None,
    }
}

/// Counts `request` into the journal `opened` of `durable` ([`open`]).
pub fn count(
    opened: Opened,
    request: &CountRequest,
    durable: &Durable,
    progress: &Bar,
) -> anyhow::Result<Counted> {
    let Opened {
        checkpoint,
        spec,
        mut signals,
        _handled,
        started,
        quiet,
    } = opened;
    let handle = signals.closer();
    let stop = AtomicBool::new(false);
    let finished = AtomicBool::new(false);
    let signal = AtomicI32::new(0);
    let grace = durable
        .stop_grace
        .unwrap_or_else(|| default_grace(request.backend));
    let outcome = std::thread::scope(|scope| {
        scope.spawn(|| {
            let Some(sig) = signals.next() else {
                return;
            };
            signal.store(sig, Ordering::SeqCst);
            stop.store(true, Ordering::SeqCst);
            // Saved at once: a kill from here on loses nothing that finished before the signal.
            let _ = checkpoint.writer.sync();
            let began = Instant::now();
            // No deadline where the clock cannot add the grace (none that `--stop-grace` takes).
            let deadline = began.checked_add(grace);
            let (mut said, mut synced) = (false, began);
            let left = loop {
                if finished.load(Ordering::SeqCst) {
                    return;
                }
                let now = Instant::now();
                if let Some(second) = signals.caught() {
                    // The same signal again at once is the same stop sent twice: GNU `timeout` signals the
                    // process, then its process group, and a job's `kill` may reach it both ways. SIGXCPU
                    // comes again every second of processor time, asked by no one.
                    if second != sig || (now - began >= ECHO && !signals::repeats(sig)) {
                        break Left::Again(second);
                    }
                }
                if deadline.is_some_and(|deadline| now >= deadline) {
                    break Left::Grace(grace);
                }
                // Out of the bar's way, and not at all where the run is quiet.
                if !said && now - began >= WIND_DOWN_SAID {
                    said = true;
                    progress.note(&format!(
                        "stopping on {}: finishing the work under way, for {} at most (--stop-grace); a \
                         second signal leaves at once without it",
                        signals::name(sig),
                        humantime::format_duration(grace)
                    ));
                }
                if now - synced >= WIND_DOWN_SYNC {
                    let _ = checkpoint.writer.sync();
                    synced = now;
                }
                std::thread::sleep(Duration::from_millis(20));
            };
            // The work under way is still going (long units, a GPU's batches): save what is recorded and
            // leave it, the bar erased first: the words went on its line ("ETA 23sstopped by SIGINT").
            let saved = checkpoint.writer.sync();
            progress.finish();
            let path = settle(&checkpoint.writer);
            note!(
                "{}",
                stopped_message(
                    sig,
                    Some(left),
                    &path,
                    request,
                    &spec,
                    &durable.given,
                    saved.err()
                )
            );
            // Leaving this way skips destructors: the result's temporary file goes by hand. A stream export
            // gets the document so far, as when the work under way finishes.
            crate::cli::output::say_not_sent(&crate::cli::output::write_stream_documents());
            crate::cli::output::remove_temps();
            std::process::exit(exit_code(sig).into());
        });
        // The journal watched while the run goes on, so that one moved or removed under it is said when it
        // happens, not weeks later, and one removed is put back then: kept only in the file the run holds
        // until the run ends, its units went with a `kill -9` or a crash before then.
        scope.spawn(|| {
            use nqueens::runs::journal::Whereabouts;
            let mut seen = Whereabouts::Here;
            while !finished.load(Ordering::SeqCst) {
                let mut now = checkpoint.writer.whereabouts();
                if now != seen {
                    let words = if now == Whereabouts::Removed {
                        let restored = checkpoint.writer.restore();
                        // Back under its name, it is watched there again.
                        now = checkpoint.writer.whereabouts();
                        Some(removed_words(&durable.path, restored))
                    } else {
                        whereabouts_words(&durable.path, &now)
                    };
                    if let Some(words) = words {
                        progress.note(&words);
                    }
                    seen = now;
                }
                for _ in 0..JOURNAL_WATCH.as_millis() / 50 {
                    if finished.load(Ordering::SeqCst) {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        });
        let outcome = checkpoint.run(request.threads, request.backend, &stop, progress);
        finished.store(true, Ordering::SeqCst);
        handle.close();
        outcome
    });
    let outcome: Outcome = outcome.map_err(|e| match e {
        RunError::Engine(e) => anyhow::Error::new(e),
        RunError::Journal(
            e @ JournalError::Io {
                action: "write", ..
            },
        ) => {
            anyhow::anyhow!(unwritable_message(
                &e,
                &durable.path,
                request,
                &spec,
                &durable.given
            ))
        }
        RunError::Journal(e) => anyhow::Error::new(e),
    })?;
    // The run is over, stopped or not: what follows (how it stopped, the GPUs' shares, where the journal is)
    // is written where the bar was, not on its line.
    progress.finish();
    // Where several GPUs counted, what each did in this run, whether or not it was stopped.
    if let (Some(run), false) = (&outcome.gpu, quiet) {
        for line in nqueens::report::GpuRecord::from(run).share_lines() {
            note!("{line}");
        }
    }
    let sig = signal.load(Ordering::SeqCst);
    let path = settle(&checkpoint.writer);
    if !outcome.complete {
        // A stream export gets the document of the run so far (marked as not finished), as a run without a
        // journal that a signal stops sends it: its reader is not left with nothing.
        crate::cli::output::say_not_sent(&crate::cli::output::write_stream_documents());
        let sig = if sig == 0 { SIGTERM } else { sig };
        note!(
            "{}",
            stopped_message(sig, None, &path, request, &spec, &durable.given, None)
        );
        return Ok(Counted::Stopped(exit_code(sig)));
    }
    let part = spec.part();
    if let (Some(part), false) = (&part, quiet) {
        note!(
            "{part}: {} recorded in '{}'; add up the journals of the run with `nqueens merge`",
            nqueens::engine::plan::all_units(checkpoint.selected),
            path.display()
        );
    }
    let mut result = BoardResult::new(Measured {
        board: request.board,
        symmetry: request.symmetry,
        threads: request.threads,
        kernel: Some(request.kernel()),
        split_depth: checkpoint.plan.depth(),
        count: outcome.count,
        seconds: started.elapsed().as_secs_f64(),
    });
    result.part = part;
    if let Some(run) = &outcome.gpu {
        result = result.on_gpu(run);
    }
    // The journal's total includes the earlier runs' units, counted in time this run did not measure: the
    // rates are of this run's units alone, and zero (shown as none) when nothing was left to count.
    let this_run = |all: u128, before: u128| {
        let done = all.saturating_sub(before);
        if done == 0 || result.seconds <= 0.0 {
            0.0
        } else {
            done as f64 / result.seconds
        }
    };
    result.solutions_per_second = this_run(outcome.count.total, checkpoint.recorded.total);
    // This run's nodes are known where its own units counted them.
    result.nodes_per_second = (outcome.count.uncounted == checkpoint.recorded.uncounted)
        .then(|| this_run(outcome.count.nodes, checkpoint.recorded.nodes));
    Ok(Counted::Done(Box::new(result)))
}

/// How often a running count looks at whether its journal is still under its name.
const JOURNAL_WATCH: Duration = Duration::from_secs(5);

/// What a running count says when its journal at `path` is found `now` elsewhere; `None` where it is back.
fn whereabouts_words(
    path: &std::path::Path,
    now: &nqueens::runs::journal::Whereabouts,
) -> Option<String> {
    use nqueens::runs::journal::Whereabouts;
    let path = path.display();
    match now {
        Whereabouts::Here => None,
        Whereabouts::Moved(Some(to)) => Some(format!(
            "'{path}' was moved to '{}' while the run goes on: the units are recorded there",
            to.display()
        )),
        Whereabouts::Moved(None) => Some(format!(
            "'{path}' was moved while the run goes on: the units are recorded under its new name"
        )),
        // Put back as soon as it is seen ([`removed_words`]).
        Whereabouts::Removed => None,
    }
}

/// What a running count says when its journal at `path` was found removed and put back, or could not be
/// (`restored`).
fn removed_words(path: &std::path::Path, restored: Result<(), JournalError>) -> String {
    let path = path.display();
    match restored {
        Ok(()) => format!(
            "'{path}' was removed while the run goes on: put back under its name at once, with every unit \
             recorded so far; the run records its units there"
        ),
        Err(e) => format!(
            "'{path}' was removed while the run goes on, and could not be put back ({e}): the units are still \
             recorded, in the file this run holds, and put back under its name when the run ends if they can \
             be (a kill -9 or a crash before then loses them)"
        ),
    }
}

/// Where the journal of a run that has ended is, said on stderr (even when `quiet`, since it changes what the
/// user has) where it is no longer under the name the run was given: moved, the name it has now; removed (and
/// not put back while the run went on: the name was taken, or the removal came after the last look), put back
/// under its name with every unit recorded, read through the file the run still holds (where the system
/// allows). A run of weeks may see its journal moved or removed by someone tidying up; it said that it had saved
/// the units under a name that held nothing.
fn settle(writer: &nqueens::runs::journal::Writer) -> PathBuf {
    use nqueens::runs::journal::Whereabouts;
    let path = writer.path().to_path_buf();
    match writer.whereabouts() {
        Whereabouts::Here => path,
        Whereabouts::Moved(Some(now)) => {
            note!(
                "'{}' was moved to '{}' while the run went on: the journal is there",
                path.display(),
                now.display()
            );
            now
        }
        Whereabouts::Moved(None) => {
            note!(
                "'{}' was moved while the run went on: the journal is under its new name",
                path.display()
            );
            path
        }
        Whereabouts::Removed => {
            match writer.restore() {
                Ok(()) => note!(
                    "'{}' was removed while the run went on: put back under its name, with every unit recorded",
                    path.display()
                ),
                Err(e) => note!(
                    "'{}' was removed while the run went on, and could not be put back ({e}): the units it \
                     recorded are lost",
                    path.display()
                ),
            }
            path
        }
    }
}

/// The conventional exit code of a process ended by `sig`.
fn exit_code(sig: i32) -> u8 {
    (128 + sig).clamp(0, 255) as u8
}

/// Why a signalled run left the work under way.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Left {
    /// Its grace ran out (or was zero).
    Grace(Duration),
    /// A second signal came, this one.
    Again(i32),
}

/// The options of `options` (and `--check`, `--stop-grace`) that the user gave, as the words that give them
/// again, each quoted for a shell, in a fixed order: what the run counts with (threads, loop, GPUs, split,
/// grace), then where its results go and in what form, then what it says. The board, symmetry, journal,
/// backend, shard and units are the run's identity, which [`resume_command`] writes from the resolved
/// request and spec (a shard `auto` found as K/M). An option at its default is left out: the same run
/// without it.
fn given_words(check: bool, options: &CountOptions, stop_grace: Option<Duration>) -> Vec<String> {
    use nqueens::runs::shell_word;
    // A duration as its parser reads it back (`1h 30m`, `0`).
    let duration = |d: Duration| {
        if d.is_zero() {
            "0".to_string()
        } else {
            humantime::format_duration(d).to_string()
        }
    };
    let text = |t: &str| shell_word(std::path::Path::new(t));
    let mut words = Vec::new();
    let mut give = |option: &str, value: Option<String>| {
        words.push(option.to_string());
        words.extend(value);
    };
    if check {
        give("--check", None);
    }
    if let Some(gpus) = &options.gpus {
        let list: Vec<String> = gpus.0.iter().map(usize::to_string).collect();
        give("--gpus", Some(list.join(",")));
    }
    if options.uncounted_nodes {
        give("--uncounted-nodes", None);
    }
    if let Some(threads) = options.threads {
        give("--threads", Some(threads.to_string()));
    }
    if let Some(kernel) = options.kernel.kernel {
        give("--kernel", Some(kernel.name().into()));
    }
    if let Some(depth) = options.split_depth {
        give("--split-depth", Some(depth.to_string()));
    }
    if let Some(grace) = stop_grace {
        give("--stop-grace", Some(text(&duration(grace))));
    }
    if let Some(output) = &options.output {
        give("--output", Some(shell_word(output)));
    }
    if options.format != nqueens::report::export::Format::Table {
        give("--format", Some(options.format.name().into()));
    }
    let exports = &options.exports;
    for (option, file) in [
        ("--export-json", &exports.export_json),
        ("--export-csv", &exports.export_csv),
        ("--export-markdown", &exports.export_markdown),
    ] {
        if let Some(file) = file {
            give(option, Some(shell_word(file)));
        }
    }
    if let Some(every) = options.progress_every {
        give("--progress-every", Some(text(&duration(every))));
    }
    if options.quiet {
        give("--quiet", None);
    }
    words
}

/// The command that resumes the run of `request` and `spec` from its journal at `path`, with the options the
/// user gave (`given`, [`given_words`]): run as printed, it is the run that was stopped, writing the same
/// files in the same forms.
fn resume_command(
    path: &std::path::Path,
    request: &CountRequest,
    spec: &Spec,
    given: &[String],
) -> String {
    let mut command = format!(
        "nqueens count {} --symmetry {} --checkpoint {}",
        request.board,
        request.symmetry,
        nqueens::runs::shell_word(path)
    );
    // Resumed on the CPU, a GPU's run would go on at a fraction of its pace.
    if request.backend == Backend::Gpu {
        command += " --backend gpu";
    }
    if !spec.shard.is_whole() {
        command += &format!(" --shard {}", spec.shard);
    }
    if let Some(only) = &spec.only {
        command += &format!(" --units {only}");
    }
    for word in given {
        command += " ";
        command += word;
    }
    command
}

/// What a run whose journal could not be written (a full disk, a limit of a file's size) says: the error, that
/// the lines written before it are the journal's still (a line the failure cut short is dropped when it
/// resumes), and the command that resumes it once there is room.
fn unwritable_message(
    error: &JournalError,
    path: &std::path::Path,
    request: &CountRequest,
    spec: &Spec,
    given: &[String],
) -> String {
    format!(
        "{error}; the run stopped, and the units recorded before are kept in '{}': make room and resume \
         with:\n  {}",
        path.display(),
        resume_command(path, request, spec, given)
    )
}

/// What a stopped run says: `left` is why it left the work under way, `None` if it finished it.
fn stopped_message(
    sig: i32,
    left: Option<Left>,
    path: &std::path::Path,
    request: &CountRequest,
    spec: &Spec,
    given: &[String],
    error: Option<JournalError>,
) -> String {
    let name = signals::name(sig);
    let command = resume_command(path, request, spec, given);
    let left = match left {
        None => String::new(),
        Some(Left::Grace(Duration::ZERO)) => {
            " at once (--stop-grace 0): the work under way is left to count again;".into()
        }
        Some(Left::Grace(grace)) => format!(
            ": the work under way did not finish within {} (--stop-grace) and is left to count again;",
            humantime::format_duration(grace)
        ),
        Some(Left::Again(second)) => format!(
            ", then {}: the work under way is left to count again;",
            signals::name(second)
        ),
    };
    match error {
        None if left.is_empty() => format!(
            "stopped by {name}: the finished units are saved in '{}'; resume with:\n  {command}",
            path.display()
        ),
        None => format!(
            "stopped by {name}{left} the finished units are saved in '{}'; resume with:\n  {command}",
            path.display()
        ),
        Some(e) => format!("stopped by {name}, but the journal could not be saved: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nqueens::engine::board::Board;

    fn spec(request: &CountRequest, shard: Shard) -> Spec {
        Spec {
            board: request.board,
            symmetry: request.symmetry,
            split_depth: None,
            shard,
            only: None,
            program: "test".into(),
        }
    }

    #[test]
    fn a_gpu_run_waits_longer_for_its_batches_than_a_cpu_run_for_its_units_and_less_than_a_scheduler(
    ) {
        assert_eq!(default_grace(Backend::Cpu), Duration::from_secs(2));
        assert_eq!(default_grace(Backend::Gpu), Duration::from_secs(25));
        // Slurm's KillWait and Kubernetes' terminationGracePeriodSeconds: 30 s unless set.
        assert!(GPU_GRACE < Duration::from_secs(30));
        // The journal is synced several times while a run may wind down, and a scheduler's kill loses no
        // more than WIND_DOWN_SYNC of what finished.
        assert!(WIND_DOWN_SYNC * 2 <= CPU_GRACE);
        assert!(WIND_DOWN_SAID < CPU_GRACE);
    }

    #[test]
    fn a_stopped_run_says_why_it_left_the_work_under_way_and_resumes_on_its_backend() {
        let cpu = CountRequest::board(Board::new(24).unwrap());
        let path = std::path::Path::new("run.journal");
        let whole = spec(&cpu, Shard::WHOLE);
        let said = |left, request: &CountRequest, spec: &Spec| {
            stopped_message(SIGTERM, left, path, request, spec, &[], None)
        };
        assert_eq!(
            said(None, &cpu, &whole),
            "stopped by SIGTERM: the finished units are saved in 'run.journal'; resume with:\n  nqueens count \
             24 --symmetry full --checkpoint run.journal"
        );
        assert_eq!(
            said(Some(Left::Grace(Duration::from_secs(25))), &cpu, &whole),
            "stopped by SIGTERM: the work under way did not finish within 25s (--stop-grace) and is left to \
             count again; the finished units are saved in 'run.journal'; resume with:\n  nqueens count 24 \
             --symmetry full --checkpoint run.journal"
        );
        assert!(
            said(Some(Left::Grace(Duration::ZERO)), &cpu, &whole).starts_with(
                "stopped by SIGTERM at once (--stop-grace 0): the work under way is left"
            )
        );
        assert!(
            said(Some(Left::Again(signals::SIGINT)), &cpu, &whole).starts_with(
                "stopped by SIGTERM, then SIGINT: the work under way is left to count again;"
            )
        );
        // A GPU's run resumes on the GPU, its shard's as a shard.
        let gpu = CountRequest {
            backend: Backend::Gpu,
            ..cpu
        };
        let shard: Shard = "1/8".parse().unwrap();
        assert!(said(None, &gpu, &spec(&gpu, shard)).ends_with(
            "resume with:\n  nqueens count 24 --symmetry full --checkpoint run.journal --backend gpu --shard 1/8"
        ));
        assert!(!said(None, &cpu, &spec(&cpu, shard)).contains("--backend"));
        // A journal's name that a shell would read as more than one word is quoted, to paste as it is.
        let odd = std::path::Path::new("a b;touch x $(id).journal");
        assert!(
            stopped_message(SIGTERM, None, odd, &cpu, &whole, &[], None).ends_with(
                "resume with:\n  nqueens count 24 --symmetry full --checkpoint 'a b;touch x $(id).journal'"
            )
        );
    }

    /// The resume command a checkpointed `nqueens ARGS` prints when stopped (by SIGTERM, its work finished).
    fn resumed_by(args: &str) -> String {
        use crate::cli::args::{Cli, Command};
        use clap::Parser;
        let cli = Cli::try_parse_from(format!("nqueens {args}").split(' ')).unwrap();
        let Command::Count {
            sizes,
            check,
            options,
            durable,
        } = cli.command
        else {
            panic!("{args}: not a count");
        };
        let durable = resolve(&durable, sizes.len(), check, &options)
            .unwrap()
            .expect("a checkpointed run");
        let request = crate::cli::validate::requests(&sizes, &options).unwrap()[0];
        let spec = Spec {
            shard: durable.shard.unwrap_or(Shard::WHOLE),
            only: durable.only.clone(),
            split_depth: durable.split_depth,
            ..spec(&request, Shard::WHOLE)
        };
        let said = stopped_message(
            SIGTERM,
            None,
            &durable.path,
            &request,
            &spec,
            &durable.given,
            None,
        );
        said.split_once("resume with:\n  ").unwrap().1.to_string()
    }

    #[test]
    fn the_resume_command_gives_every_option_the_user_gave_in_a_fixed_order() {
        // Nothing but the run's identity where nothing else was given, as before.
        assert_eq!(
            resumed_by("count 18 --checkpoint j"),
            "nqueens count 18 --symmetry full --checkpoint j"
        );
        // The brief's run: its result file in its format, the check, the threads and the loop.
        assert_eq!(
            resumed_by("count 18 --checkpoint j -o r.json -f json --check -t 1 --kernel scalar"),
            "nqueens count 18 --symmetry full --checkpoint j --check --threads 1 --kernel scalar --output \
             r.json --format json"
        );
        // Every option, given in another order and short forms: the same order out, each word quoted.
        assert_eq!(
            resumed_by(
                "count 20 -q --progress-every 90m --export-markdown r.md --export-csv a;b.csv --export-json \
                 r.json -f csv -o - --stop-grace 0 --split-depth 4 --kernel auto -t 3 --symmetry mirror \
                 --units 0-9,12 --shard 1/4 --checkpoint j{k}of{m}"
            ),
            "nqueens count 20 --symmetry mirror --checkpoint j1of4 --shard 1/4 --units 0-9,12 --threads 3 \
             --kernel auto --split-depth 4 --stop-grace 0 --output - --format csv --export-json r.json \
             --export-csv 'a;b.csv' --export-markdown r.md --progress-every '1h 30m' --quiet"
        );
        // A format at its default is the same run without it.
        assert_eq!(
            resumed_by("count 8 --checkpoint j -f table --stop-grace 1h"),
            "nqueens count 8 --symmetry full --checkpoint j --stop-grace 1h"
        );
        // A GPU's options (counted only in a build with the GPU: their words alone here).
        use clap::Parser;
        let cli = crate::cli::args::Cli::try_parse_from(
            "nqueens count 22 --backend gpu --uncounted-nodes --gpus 1,0 --checkpoint j".split(' '),
        )
        .unwrap();
        let crate::cli::args::Command::Count { options, .. } = cli.command else {
            panic!("not a count");
        };
        assert_eq!(
            given_words(false, &options, None).join(" "),
            "--gpus 1,0 --uncounted-nodes"
        );
    }
}
