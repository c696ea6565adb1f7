//! Journals: the append-only record of finished work units that makes a run resumable and is a shard's result.
//!
//! A journal is a text file of lines, each a JSON object followed by a tab and the CRC-32 of the object, so a
//! line that was cut short or changed is recognised on its own. The first line is the [`Header`]: the plan's
//! fingerprint, the board, the mode, the split depth, the number of units, the shard and the program. Every
//! further line is one finished unit ([`Entry`]): its number, its counts, and its total modulo three primes
//! near 2^32, so that a total changed after it was counted, or a sum that wrapped, shows up in a merge.
//!
//! The file is only ever appended to. A new journal is written under a temporary name with its header and
//! renamed into place, so a journal always has a complete header. Lines are buffered and the file is synced in
//! batches ([`SYNC_UNITS`] units or [`SYNC_INTERVAL`], whichever comes first): a crash loses at most the units
//! since the last sync, and those are counted again, never twice, because a unit is recorded only once
//! counted whole. A kill in the middle of a write leaves a torn last line; reading drops it, and appending
//! first cuts it away.

use crate::engine::board::Board;
use crate::engine::count::Count;
use crate::engine::exec::Progress;
use crate::engine::plan::{unit_words, Plan, Split, WorkUnit};
use crate::engine::symmetry::Symmetry;
use crate::runs::fingerprint::Fingerprint;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// The layout version of journal lines; raised whenever a field changes meaning.
pub const FORMAT: u32 = 1;

/// The primes whose residues each unit line carries: the largest three below 2^32, so their product (about
/// 2^96) is far above any unit's count and a changed digit cannot keep all three residues.
pub const RESIDUE_PRIMES: [u64; 3] = [4_294_967_291, 4_294_967_279, 4_294_967_231];

/// Units recorded between two syncs at most.
pub const SYNC_UNITS: u64 = 1 << 16;

/// Time between two syncs at most.
pub const SYNC_INTERVAL: Duration = Duration::from_secs(5);

/// What a journal is for: the first line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// Always `nqueens`: tells a journal from any other file.
    pub journal: String,
    /// [`FORMAT`] when written.
    pub format: u32,
    /// The plan's fingerprint.
    pub fingerprint: Fingerprint,
    /// Board side; for a rectangle, its rows.
    pub n: u32,
    /// A rectangle's columns; absent for a square board, so that a square's journal reads as it always did.
    /// A version that knows nothing of rectangles reads a rectangle's journal as the square `n` and refuses
    /// it: that square's plan has another fingerprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<u32>,
    /// Symmetry mode.
    pub symmetry: String,
    /// The plan's split depth.
    pub split_depth: u32,
    /// Units in the whole plan.
    pub units: usize,
    /// The shard counted, as `K/M`.
    pub shard: String,
    /// Only these units (ranges such as `0-99,150`), when a run was asked for some units only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<String>,
    /// The program that wrote the journal (`--version`).
    pub program: String,
    /// When the journal was created, RFC 3339 in UTC.
    pub created: String,
}

/// The most units a journal's plan may have: far beyond any split that was ever useful (a split asked for
/// stops at [`crate::engine::plan::MAX_UNITS`]), so a header that claims more is not trusted with the
/// memory its plan would take.
pub const MAX_JOURNAL_UNITS: usize = 1 << 27;

impl Header {
    /// Rebuilds the plan the header describes and checks that it is the plan its fingerprint names, so that a
    /// header edited by hand (n changed, checksum recomputed) or written by a version that numbers the units
    /// differently is found before a line is trusted. The work is bounded by the units the header claims.
    /// `Err` says what does not hold.
    pub fn plan(&self) -> Result<Plan, String> {
        let symmetry: Symmetry = self.symmetry.parse().map_err(|e| format!("{e}"))?;
        let board = self.board()?;
        let depth = self.split_depth;
        let units = Plan::units_at(board, symmetry, depth, self.units.min(MAX_JOURNAL_UNITS));
        if depth > board.lines() || units != Some(self.units) {
            return Err(format!(
                "{}, symmetry {symmetry}, split depth {depth} does not give the {} its header says",
                board.words(),
                unit_words(self.units)
            ));
        }
        let plan = Plan::new(board, symmetry, Split::Depth(depth));
        let fingerprint = Fingerprint::of(&plan);
        if fingerprint != self.fingerprint {
            return Err(format!(
                "the plan of {}, symmetry {symmetry}, split depth {depth} has the fingerprint {fingerprint}, \
                 not the header's {}",
                board.words(),
                self.fingerprint
            ));
        }
        Ok(plan)
    }

    /// The board the header names: the square `n`, or `n` rows by `columns`. `Err` says why there is none
    /// (a side beyond the largest board).
    pub fn board(&self) -> Result<Board, String> {
        match self.columns {
            None => Board::new(self.n),
            Some(columns) => Board::rect(self.n, columns),
        }
        .map_err(|e| e.to_string())
    }

    /// The board as the command line names it: `16`, or `8x6` for a rectangle (also where it is too large
    /// to be one, so that a message can still say what the header claims).
    pub fn board_arg(&self) -> String {
        match self.columns {
            Some(columns) if columns != self.n => format!("{}x{columns}", self.n),
            _ => self.n.to_string(),
        }
    }

    /// The board in words, as [`Board::words`] names it.
    pub fn board_words(&self) -> String {
        match self.board() {
            Ok(board) => board.words(),
            Err(_) if self.columns.is_some() => format!("the board {}", self.board_arg()),
            Err(_) => format!("n = {}", self.n),
        }
    }
}

/// One finished unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The unit's number in the plan.
    pub unit: usize,
    /// Its solutions, weighted.
    pub total: u128,
    /// Its unique solutions (0 outside the full mode).
    pub unique: u128,
    /// Queens it placed; `None` (`null` in the line) where the kernel that counted it left them uncounted.
    pub nodes: Option<u128>,
    /// `total` modulo each of [`RESIDUE_PRIMES`].
    #[serde(rename = "mod")]
    pub residues: [u64; 3],
}

impl Entry {
    /// The entry for unit `unit` counted as `count`.
    pub fn new(unit: usize, count: &Count) -> Entry {
        Entry {
            unit,
            total: count.total,
            unique: count.unique,
            nodes: count.nodes(),
            residues: residues(count.total),
        }
    }

    /// The unit's count.
    pub fn count(&self) -> Count {
        Count {
            total: self.total,
            unique: self.unique,
            nodes: self.nodes.unwrap_or(0),
            units: 1,
            uncounted: u64::from(self.nodes.is_none()),
        }
    }

    /// Whether `other` records the same count of the same unit: the same solutions, and the same nodes where
    /// both counted them (a unit counted again by a kernel that leaves its nodes uncounted is the same count).
    pub fn agrees_with(&self, other: &Entry) -> bool {
        (self.unit, self.total, self.unique, self.residues)
            == (other.unit, other.total, other.unique, other.residues)
            && match (self.nodes, other.nodes) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }

    /// Whether the residues belong to the total.
    pub fn residues_agree(&self) -> bool {
        self.residues == residues(self.total)
    }

    /// The line's JSON, written by hand: this runs once per unit under the journal's lock.
    fn payload(&self, out: &mut String) {
        let [a, b, c] = self.residues;
        let _ = write!(
            out,
            "{{\"unit\":{},\"total\":{},\"unique\":{},\"nodes\":",
            self.unit, self.total, self.unique
        );
        let _ = match self.nodes {
            Some(nodes) => write!(out, "{nodes}"),
            None => write!(out, "null"),
        };
        let _ = write!(out, ",\"mod\":[{a},{b},{c}]}}");
    }
}

/// `x` modulo each of [`RESIDUE_PRIMES`].
pub fn residues(x: u128) -> [u64; 3] {
    RESIDUE_PRIMES.map(|p| (x % u128::from(p)) as u64)
}

/// Appends `payload` as a sealed line: the payload, a tab, its CRC-32 in hex, a newline.
fn seal(payload: &str, out: &mut String) {
    let crc = crc32fast::hash(payload.as_bytes());
    let _ = writeln!(out, "{payload}\t{crc:08x}");
}

/// The payload of a sealed line (without its newline), or `None` when the checksum does not match.
fn unseal(line: &[u8]) -> Option<&str> {
    let line = std::str::from_utf8(line).ok()?;
    let (payload, crc) = line.rsplit_once('\t')?;
    if crc.len() != 8 {
        return None;
    }
    let crc = u32::from_str_radix(crc, 16).ok()?;
    (crc32fast::hash(payload.as_bytes()) == crc).then_some(payload)
}

/// Everything wrong with a journal file.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The file could not be read or written.
    // The system's words are part of this message and deliberately not its `source`: `main` prints the chain of
    // sources after the message, which said them twice.
    #[error("could not {action} '{path}': {reason}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// What the system said.
        reason: io::Error,
    },
    /// The file is empty: no journal, which is made with its header and renamed into place whole. Made by
    /// hand or by a shell's redirection (`count 18 --checkpoint j >> j`), it holds nothing to lose. A device or
    /// a pipe that gave nothing (`merge /dev/null`) is not one to remove.
    #[error(
        "'{path}' is empty, so it is no nqueens journal (a journal always has its header): {}",
        if *regular {
            "remove it, which loses nothing, or name another file"
        } else {
            "it is no regular file but a device or a pipe, which gave nothing; name a journal file"
        }
    )]
    Empty {
        /// The file.
        path: PathBuf,
        /// Whether it is a regular file (one to remove), rather than a device or a pipe.
        regular: bool,
    },
    /// The file does not start with a journal header.
    #[error("'{path}' is not an nqueens journal: its first line is not a journal header")]
    NotAJournal {
        /// The file.
        path: PathBuf,
    },
    /// A line inside the file is damaged: it was changed after it was written.
    #[error("'{path}', line {line}: {why}; the journal was changed after it was written and cannot be trusted")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// A journal whose lines are laid out in another format than [`FORMAT`]: another version's.
    #[error(
        "'{path}' is a journal of format {format}, written by {program}; this program reads format {FORMAT}: \
         resume or merge it with a version that reads it"
    )]
    OtherFormat {
        /// The file.
        path: PathBuf,
        /// The format its header names.
        format: String,
        /// The program its header names.
        program: String,
    },
    /// The journal's run is not finished, but the file is read-only: resuming would write into a file its owner
    /// asked to keep as it is (root may write it all the same, so the mode is what decides).
    #[error(
        "'{path}' is read-only, and its run is not finished ({todo}): make it writable (chmod u+w) to resume \
         it, or resume a copy of it"
    )]
    ReadOnly {
        /// The file.
        path: PathBuf,
        /// What is left, in words ("12 units to count", "a torn last line to drop").
        todo: String,
    },
    /// The journal's run is not finished, but its file system is mounted read-only (an archive's volume, a
    /// share exported read-only): nothing can be written there, whatever the file's mode says.
    #[error(
        "'{path}' is on a read-only file system, and its run is not finished ({todo}): resume it where it can \
         be written, or resume a copy of it in a folder you can write"
    )]
    ReadOnlyFileSystem {
        /// The file.
        path: PathBuf,
        /// What is left, in words ("12 units to count", "a torn last line to drop").
        todo: String,
    },
    /// Another process is counting into the journal.
    #[error(
        "'{path}' is in use by another nqueens process: let it finish, or stop it (SIGINT or SIGTERM save the \
         journal) and run again"
    )]
    Busy {
        /// The file.
        path: PathBuf,
    },
    /// A shard built by hand (its fields are public) that [`crate::runs::shard::Shard::new`] would refuse:
    /// one of no shards, or past their number, would count nothing and call its run complete.
    #[error("{shard} is no shard: a shard is K/M with 0 <= K < M")]
    InvalidShard {
        /// The shard, as K/M.
        shard: String,
    },
    /// The units asked for (`--units`) are not all in the plan.
    #[error(
        "{} in the plan of {}, which has {}, numbered 0 to {last}: pick units \
         from `nqueens units {board} --summary`",
        if asked.contains([',', '-']) {
            format!("units {asked} are not all")
        } else {
            format!("unit {asked} is not")
        },
        board.words(),
        unit_words(*units)
    )]
    OutsidePlan {
        /// The units asked for.
        asked: String,
        /// The board.
        board: Board,
        /// Units in the plan.
        units: usize,
        /// The last unit's number.
        last: String,
    },
    /// Units asked for (`--units`) of which the shard (`--shard`) has none: the run would count nothing, and its
    /// journal would stand for no unit of the shard.
    #[error(
        "units {asked} hold none of the units of shard {shard} (those numbered {index} modulo {count}): give \
         units of the shard, or leave out --shard to count these as they are"
    )]
    NoneOfTheShard {
        /// The units asked for.
        asked: String,
        /// The shard.
        shard: String,
        /// The shard's number.
        index: u32,
        /// How many shards there are.
        count: u32,
    },
    /// A list of units to count that names none: its run would count nothing and its journal stand for no
    /// unit, complete at once (`--units` cannot give one: an empty list does not parse).
    #[error("the units to count name none: name at least one, or leave them out to count the whole plan")]
    NoUnitsAsked,
    /// A plan that cannot be made, such as a split depth of more units than a plan holds.
    #[error("{0}")]
    Plan(crate::Error),
    /// Shards of a plan without a unit: a split deeper than any placement of the board.
    #[error(
        "the plan of {}, symmetry {symmetry}, split depth {split_depth} has no unit ({}): count it whole{}",
        board.words(),
        if board.cols() > board.rows() {
            "a board of more columns than rows has no solution"
        } else {
            "no queens can be placed that many rows deep"
        },
        if *split_depth > 0 && board.cols() <= board.rows() { ", or split it less deep" } else { "" }
    )]
    NoUnits {
        /// The board.
        board: Board,
        /// The symmetry mode.
        symmetry: String,
        /// The plan's split depth.
        split_depth: u32,
    },
    /// More shards than the plan has units: every shard beyond the plan's units would have nothing to count.
    #[error(
        "shard {shard}: the plan of {}, symmetry {symmetry}, split depth {split_depth} has {}, so {idle} \
         of the {shards} shards would have nothing to count; split the run into {units} shard{} or fewer, or \
         into more units with a deeper --split-depth (`nqueens units {board} --symmetry {symmetry} \
         --split-depth {split_depth} --summary` gives a plan's units)",
        board.words(),
        unit_words(*units),
        if *units == 1 { "" } else { "s" }
    )]
    TooManyShards {
        /// The shard asked for, `K/M`.
        shard: String,
        /// The board.
        board: Board,
        /// The symmetry mode.
        symmetry: String,
        /// The plan's split depth.
        split_depth: u32,
        /// Units in the plan.
        units: usize,
        /// Shards asked for.
        shards: u32,
        /// Shards that would hold no unit.
        idle: u64,
    },
    /// The journal belongs to another run.
    #[error("'{path}' is the journal of {theirs}, but this run is {ours}: {hint}")]
    Foreign {
        /// The file.
        path: PathBuf,
        /// The run the journal records.
        theirs: String,
        /// The run asked for.
        ours: String,
        /// What to do.
        hint: String,
    },
}

/// An exclusive hold on a journal file (an advisory `flock` on Unix, `LockFileEx` on Windows: the standard
/// library's `File::try_lock`), so that two processes never count into one journal at once: a resubmitted job
/// whose first run is still going fails at once instead of repeating its work. The hold ends with the process,
/// however it ends.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

impl Lock {
    /// Takes the hold on `path`, or says that another process has it.
    pub fn take(path: &Path) -> Result<Lock, JournalError> {
        let file = File::open(path).map_err(|e| JournalError::io("open", path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(JournalError::Busy {
                    path: path.to_path_buf(),
                })
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(JournalError::io("lock", path, e)),
        }
        Ok(Lock { _file: file })
    }
}

impl JournalError {
    /// An I/O error on `path`.
    pub fn io(action: &'static str, path: &Path, reason: io::Error) -> JournalError {
        JournalError::Io {
            action,
            path: path.to_path_buf(),
            reason,
        }
    }
}

/// The longest first line read while looking for a journal's header (a header is some 300 bytes).
const MAX_HEADER_BYTES: u64 = 1 << 16;

/// The bytes of the journal at `path`, read whole only once its first line is a sealed line: a file that is
/// not a journal, or a device that never ends (`/dev/zero`, `/dev/urandom`), is refused after at most
/// [`MAX_HEADER_BYTES`] instead of being read into memory until there is none left.
fn read_journal_bytes(file: File, path: &Path) -> Result<Vec<u8>, JournalError> {
    let read_error = |e| JournalError::io("read", path, e);
    let regular = file.metadata().is_ok_and(|m| m.is_file());
    let mut reader = io::BufReader::new(file);
    let mut bytes = Vec::new();
    (&mut reader)
        .take(MAX_HEADER_BYTES)
        .read_until(b'\n', &mut bytes)
        .map_err(read_error)?;
    if bytes.is_empty() {
        return Err(JournalError::Empty {
            path: path.to_path_buf(),
            regular,
        });
    }
    let sealed = bytes
        .strip_suffix(b"\n")
        .is_some_and(|line| unseal(line).is_some());
    if !sealed {
        return Err(JournalError::NotAJournal {
            path: path.to_path_buf(),
        });
    }
    reader.read_to_end(&mut bytes).map_err(read_error)?;
    Ok(bytes)
}

/// A journal as read from disk.
#[derive(Clone, Debug)]
pub struct Contents {
    /// The first line.
    pub header: Header,
    /// The unit lines, with their line numbers (from 1), in file order.
    pub entries: Vec<(usize, Entry)>,
    /// Bytes of complete, intact lines: where appending continues.
    pub valid_len: u64,
    /// The line number of a torn last line that was dropped, if there was one.
    pub torn: Option<usize>,
}

impl Contents {
    /// Reads and checks the journal at `path`. A damaged last line is taken for a write that a kill
    /// interrupted and dropped; a damaged line anywhere else is an error.
    pub fn read(path: &Path) -> Result<Contents, JournalError> {
        let file = File::open(path).map_err(|e| JournalError::io("read", path, e))?;
        Contents::read_from(file, path)
    }

    /// [`Contents::read`] from `file`, opened already (by a caller that says why an open waits), as `path`.
    pub fn read_from(file: File, path: &Path) -> Result<Contents, JournalError> {
        let bytes = read_journal_bytes(file, path)?;
        let corrupt = |line: usize, why: String| JournalError::Corrupt {
            path: path.to_path_buf(),
            line,
            why,
        };
        let mut header = None;
        let mut entries = Vec::new();
        let mut valid_len = 0u64;
        let mut torn = None;
        let mut rest = &bytes[..];
        let mut number = 0;
        while !rest.is_empty() {
            number += 1;
            let (line, complete) = match rest.iter().position(|&b| b == b'\n') {
                Some(end) => (&rest[..end], true),
                None => (rest, false),
            };
            let consumed = line.len() + usize::from(complete);
            let is_last = consumed == rest.len();
            rest = &rest[consumed..];
            let payload = if complete { unseal(line) } else { None };
            let Some(payload) = payload else {
                if number == 1 {
                    return Err(JournalError::NotAJournal {
                        path: path.to_path_buf(),
                    });
                }
                if is_last {
                    torn = Some(number);
                    break;
                }
                return Err(corrupt(number, "its checksum does not match".into()));
            };
            if number == 1 {
                let not_a_journal = || JournalError::NotAJournal {
                    path: path.to_path_buf(),
                };
                // Read as JSON first: a header of another format may have other fields, and is then another
                // version's journal, not something else than a journal.
                let value: serde_json::Value =
                    serde_json::from_str(payload).map_err(|_| not_a_journal())?;
                if value["journal"] != "nqueens" {
                    return Err(not_a_journal());
                }
                if value["format"] != FORMAT {
                    return Err(JournalError::OtherFormat {
                        path: path.to_path_buf(),
                        format: value["format"].to_string(),
                        program: value["program"]
                            .as_str()
                            .unwrap_or("another version of nqueens")
                            .to_string(),
                    });
                }
                let h: Header = serde_json::from_value(value).map_err(|_| not_a_journal())?;
                header = Some(h);
            } else {
                let entry: Entry = serde_json::from_str(payload)
                    .map_err(|e| corrupt(number, format!("not a unit record ({e})")))?;
                if !entry.residues_agree() {
                    return Err(corrupt(
                        number,
                        format!(
                            "the total of unit {} disagrees with its residues",
                            entry.unit
                        ),
                    ));
                }
                entries.push((number, entry));
            }
            valid_len += consumed as u64;
        }
        let header = header.ok_or_else(|| JournalError::NotAJournal {
            path: path.to_path_buf(),
        })?;
        Ok(Contents {
            header,
            entries,
            valid_len,
            torn,
        })
    }
}

/// Appends unit lines to a journal from any worker thread. It is a [`Progress`], so an executor feeds it
/// directly. Workers only format a line and copy it into a buffer under a lock; a background thread of the
/// writer flushes the buffer and syncs the file in batches, so no worker ever waits for the disk. (Syncing on
/// the worker that filled a batch cost about 2% of an n = 17 run on the 2-core machine: one of two kernel
/// streams stood still during each sync.)
pub struct Writer {
    path: PathBuf,
    shared: Arc<Shared>,
    syncer: Option<std::thread::JoinHandle<()>>,
}

/// The journal it writes, and whether a write failed.
impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("path", &self.path)
            .field("failed", &self.shared.failed.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

struct Shared {
    inner: Mutex<Inner>,
    /// A second handle on the file, synced outside the lock: replaced, under the lock of `inner`, by one on the
    /// journal put back where it was removed ([`Writer::restore`]).
    file: Mutex<Arc<File>>,
    /// Set when writing failed, so that the run stops instead of counting units it cannot record.
    failed: AtomicBool,
}

struct Inner {
    out: BufWriter<File>,
    payload: String,
    line: String,
    since_sync: u64,
    /// Wakes the syncer early when a batch of [`SYNC_UNITS`] is full; `None` once the writer is closing.
    kick: Option<mpsc::Sender<()>>,
    error: Option<io::Error>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A worker that panicked while holding the lock left at worst a partial line in the buffer, which
        // the reader drops as torn; the journal stays usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn fail(&self, inner: &mut Inner, e: io::Error) {
        inner.error.get_or_insert(e);
        self.failed.store(true, Ordering::Relaxed);
    }

    /// The file written now.
    fn file(&self) -> Arc<File> {
        Arc::clone(&self.file.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Hands the buffered lines to the system under the lock, then syncs the file outside it.
    fn flush_and_sync(&self) {
        let file = {
            let mut inner = self.lock();
            if inner.error.is_some() {
                return;
            }
            inner.since_sync = 0;
            if let Err(e) = inner.out.flush() {
                self.fail(&mut inner, e);
                return;
            }
            // Taken under the lock: the file the lines just went to, not one put back since.
            self.file()
        };
        if let Err(e) = file.sync_data() {
            let mut inner = self.lock();
            self.fail(&mut inner, e);
        }
    }
}

/// Where a journal being written is, as against the name it was opened by ([`Writer::whereabouts`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Whereabouts {
    /// Still under its name.
    Here,
    /// Under another name, where the system says which (Linux).
    Moved(Option<PathBuf>),
    /// Removed: no name holds it, and it goes when the run ends unless it is put back ([`Writer::restore`]).
    Removed,
}

/// The start of the name of a journal being created, before it is renamed to its own: `tempfile` adds six
/// letters and digits.
pub const JOURNAL_TEMP_PREFIX: &str = ".nqueens-journal-";

impl Writer {
    /// Creates a journal at `path` holding only `header`. It is written under a temporary name and renamed, so
    /// a journal never exists without its header; an existing file is never replaced.
    pub fn create(path: &Path, header: &Header) -> Result<Writer, JournalError> {
        let io = |e| JournalError::io("create", path, e);
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let mut temp = tempfile::Builder::new()
            .prefix(JOURNAL_TEMP_PREFIX)
            .make_in(dir, |path| super::new_file(path, false))
            .map_err(io)?;
        // Held until the rename: a free lock on one left by a run that was killed here says it is a leftover
        // (the command line removes such files).
        let _ = temp.as_file().try_lock();
        let mut text = String::new();
        seal(
            &serde_json::to_string(header).expect("headers serialize"),
            &mut text,
        );
        temp.as_file_mut().write_all(text.as_bytes()).map_err(io)?;
        temp.as_file().sync_all().map_err(io)?;
        temp.persist_noclobber(path).map_err(|e| io(e.error))?;
        // The rename is durable once the folder is synced; not every file system allows opening one.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Writer::append(path, text.len() as u64)
    }

    /// Opens the journal at `path` for appending after its first `valid_len` bytes, cutting away anything
    /// after them (a torn last line).
    pub fn append(path: &Path, valid_len: u64) -> Result<Writer, JournalError> {
        let io = |e| JournalError::io("write", path, e);
        let file = OpenOptions::new().write(true).open(path).map_err(io)?;
        if file.metadata().map_err(io)?.len() != valid_len {
            file.set_len(valid_len).map_err(io)?;
            file.sync_all().map_err(io)?;
        }
        drop(file);
        let file = OpenOptions::new().append(true).open(path).map_err(io)?;
        Writer::over(path, file)
    }

    /// The writer of a journal that has nothing left to record (every unit of its run is in it, and no line is
    /// torn), opened for reading alone: a finished journal made read-only, to keep it, still gives its total.
    /// Syncing it changes nothing; recording a unit in it fails.
    pub fn finished(path: &Path) -> Result<Writer, JournalError> {
        let file = File::open(path).map_err(|e| JournalError::io("open", path, e))?;
        Writer::over(path, file)
    }

    /// The writer of the journal at `path`, open as `file`.
    fn over(path: &Path, file: File) -> Result<Writer, JournalError> {
        let io = |e| JournalError::io("write", path, e);
        let sync_handle = file.try_clone().map_err(io)?;
        let (kick, wake) = mpsc::channel();
        let shared = Arc::new(Shared {
            inner: Mutex::new(Inner {
                out: BufWriter::with_capacity(1 << 16, file),
                payload: String::with_capacity(256),
                line: String::with_capacity(256),
                since_sync: 0,
                kick: Some(kick),
                error: None,
            }),
            file: Mutex::new(Arc::new(sync_handle)),
            failed: AtomicBool::new(false),
        });
        let syncer = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("nqueens-journal".into())
                .spawn(move || {
                    // A kick or a timeout: sync; a closed channel: the writer is gone.
                    while let Ok(()) | Err(RecvTimeoutError::Timeout) =
                        wake.recv_timeout(SYNC_INTERVAL)
                    {
                        shared.flush_and_sync();
                    }
                })
                .map_err(io)?
        };
        Ok(Writer {
            path: path.to_path_buf(),
            shared,
            syncer: Some(syncer),
        })
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the journal this writer writes is now, as against the name it was opened by: a run of weeks may see
    /// its journal moved or removed under it, and must not say that it saved its units under a name that holds
    /// them no more.
    pub fn whereabouts(&self) -> Whereabouts {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let file = self.shared.file();
            let Ok(ours) = file.metadata() else {
                return Whereabouts::Here;
            };
            if std::fs::metadata(&self.path)
                .is_ok_and(|m| (m.dev(), m.ino()) == (ours.dev(), ours.ino()))
            {
                return Whereabouts::Here;
            }
            if ours.nlink() == 0 {
                return Whereabouts::Removed;
            }
            #[cfg(target_os = "linux")]
            {
                use std::os::unix::io::AsRawFd;
                let now = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()));
                if let Ok(now) = now {
                    return Whereabouts::Moved(Some(now));
                }
            }
            Whereabouts::Moved(None)
        }
        #[cfg(not(unix))]
        {
            Whereabouts::Here
        }
    }

    /// Puts the journal, removed while this writer writes it, back under its name, and writes there from then on:
    /// everything recorded so far is read back through the file still open here (Linux's `/proc/self/fd`) and
    /// written as a new journal is, to a temporary file in its folder that is renamed to the name only where
    /// nothing has taken it meanwhile. That file is then the one this writer appends to, and this process holds
    /// its lock, as it held the removed one's, so that no other run takes it up while this one goes on. Done
    /// under the writer's lock, so no unit is recorded between the copy and the change of file.
    ///
    /// For the moment the removal is seen, not the end of the run: a `kill -9` or a crash in between would lose
    /// every unit with the removed file. A journal found under its name already (put back by an earlier call)
    /// is left as it is. On an error the writer goes on writing the removed file.
    pub fn restore(&self) -> Result<(), JournalError> {
        let io = |e| JournalError::io("restore", &self.path, e);
        let mut inner = self.shared.lock();
        if let Err(e) = inner.out.flush() {
            self.shared
                .fail(&mut inner, io::Error::new(e.kind(), e.to_string()));
            return Err(io(e));
        }
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::fs::MetadataExt;
            use std::os::unix::io::AsRawFd;
            let file = self.shared.file();
            let ours = file.metadata().map_err(io)?;
            if std::fs::metadata(&self.path)
                .is_ok_and(|m| (m.dev(), m.ino()) == (ours.dev(), ours.ino()))
            {
                return Ok(());
            }
            let bytes = std::fs::read(format!("/proc/self/fd/{}", file.as_raw_fd())).map_err(io)?;
            let dir = match self.path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            // Appended to, as `Writer::append` opens a journal, once it is under the name.
            let mut temp = tempfile::Builder::new()
                .prefix(JOURNAL_TEMP_PREFIX)
                .make_in(dir, |path| super::new_file(path, true))
                .map_err(io)?;
            // The run's hold on the journal from now on: taken before the name is, so that a run started on it
            // at once finds it held. (Left free by a run killed before the rename, it marks a leftover.)
            temp.as_file().try_lock().map_err(|e| {
                io(match e {
                    std::fs::TryLockError::Error(e) => e,
                    std::fs::TryLockError::WouldBlock => io::ErrorKind::WouldBlock.into(),
                })
            })?;
            temp.as_file_mut().write_all(&bytes).map_err(io)?;
            temp.as_file().sync_all().map_err(io)?;
            // Never over a file that took the name meanwhile; the temporary file goes with the error.
            let restored = temp
                .persist_noclobber(&self.path)
                .map_err(|e| io(e.error))?;
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
            let sync_handle = restored.try_clone().map_err(io)?;
            inner.out = BufWriter::with_capacity(1 << 16, restored);
            *self.shared.file.lock().unwrap_or_else(|e| e.into_inner()) = Arc::new(sync_handle);
            Ok(())
        }
        #[cfg(not(target_os = "linux"))]
        {
            Err(io(io::Error::new(
                io::ErrorKind::Unsupported,
                "a removed file is read back only on Linux",
            )))
        }
    }

    /// Whether a write has failed; the run should stop.
    pub fn failed(&self) -> bool {
        self.shared.failed.load(Ordering::Relaxed)
    }

    /// Records unit `unit` counted as `count`.
    pub fn record(&self, unit: usize, count: &Count) {
        let mut guard = self.shared.lock();
        let inner = &mut *guard;
        if inner.error.is_some() {
            return;
        }
        inner.payload.clear();
        Entry::new(unit, count).payload(&mut inner.payload);
        inner.line.clear();
        seal(&inner.payload, &mut inner.line);
        if let Err(e) = inner.out.write_all(inner.line.as_bytes()) {
            self.shared.fail(inner, e);
            return;
        }
        inner.since_sync += 1;
        if inner.since_sync == SYNC_UNITS {
            if let Some(kick) = &inner.kick {
                let _ = kick.send(());
            }
        }
    }

    /// Writes out every recorded line and syncs the file; the first write error of the run, if any, is
    /// returned here.
    pub fn sync(&self) -> Result<(), JournalError> {
        self.shared.flush_and_sync();
        let inner = self.shared.lock();
        match &inner.error {
            None => Ok(()),
            Some(e) => Err(JournalError::io(
                "write",
                &self.path,
                io::Error::new(e.kind(), e.to_string()),
            )),
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // Closing the channel ends the syncer; what is still buffered is flushed by the BufWriter's own drop,
        // and a run that ends normally has synced already.
        self.shared.lock().kick = None;
        if let Some(syncer) = self.syncer.take() {
            let _ = syncer.join();
        }
    }
}

impl Progress for Writer {
    fn unit_done(&self, unit: &WorkUnit, count: &Count) {
        self.record(unit.index, count);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            journal: "nqueens".into(),
            format: FORMAT,
            fingerprint: serde_json::from_str("\"00ff\"").unwrap(),
            n: 8,
            columns: None,
            symmetry: "full".into(),
            split_depth: 1,
            units: 10,
            shard: "0/1".into(),
            only: None,
            program: "test".into(),
            created: "2026-11-22T00:00:00Z".into(),
        }
    }

    /// The count of one unit whose total is `total`: the tests' journal lines.
    pub(crate) fn count(total: u128) -> Count {
        Count {
            total,
            unique: total / 8,
            nodes: 1000 + total,
            units: 1,
            uncounted: 0,
        }
    }

    #[test]
    fn lines_written_are_read_back_with_a_torn_tail_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let w = Writer::create(&path, &header()).unwrap();
        let big = u128::from(u64::MAX) * 1000;
        w.record(3, &count(16));
        w.record(7, &count(big));
        w.sync().unwrap();
        drop(w);
        let c = Contents::read(&path).unwrap();
        assert_eq!(c.header, header());
        assert_eq!(c.entries.len(), 2);
        assert_eq!(
            c.entries[1].1.total, big,
            "u128 totals survive the round trip"
        );
        assert_eq!(c.torn, None);
        let intact = c.valid_len;

        // A kill in the middle of a write: half a line at the end.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"unit\":9,\"tot").unwrap();
        let c = Contents::read(&path).unwrap();
        assert_eq!((c.entries.len(), c.torn, c.valid_len), (2, Some(4), intact));

        // Appending cuts the torn line away first.
        let w = Writer::append(&path, c.valid_len).unwrap();
        w.record(9, &count(4));
        w.sync().unwrap();
        let c = Contents::read(&path).unwrap();
        assert_eq!(c.entries.len(), 3);
        assert_eq!(c.torn, None);
    }

    #[test]
    fn a_unit_whose_nodes_were_not_counted_says_so_in_its_line_and_reads_back_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let w = Writer::create(&path, &header()).unwrap();
        w.record(1, &count(92));
        w.record(2, &count(40).without_nodes());
        w.sync().unwrap();
        drop(w);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("\"total\":92,\"unique\":11,\"nodes\":1092,"),
            "{text}"
        );
        assert!(
            text.contains("\"total\":40,\"unique\":5,\"nodes\":null,"),
            "{text}"
        );
        let c = Contents::read(&path).unwrap();
        let (counted, uncounted) = (c.entries[0].1, c.entries[1].1);
        assert_eq!((counted.nodes, uncounted.nodes), (Some(1092), None));
        assert_eq!(uncounted.count(), count(40).without_nodes());
        assert_eq!((counted.count() + uncounted.count()).nodes(), None);
        // The same unit counted again with its nodes: the same count, but for what is known of the nodes.
        let again = Entry::new(2, &count(40));
        assert!(again.agrees_with(&uncounted) && uncounted.agrees_with(&again));
        assert!(!Entry::new(2, &count(41)).agrees_with(&uncounted));
        assert!(!Entry::new(1, &count(92).without_nodes()).agrees_with(&Entry::new(2, &count(92))));
        let other_nodes = Count {
            nodes: 7,
            ..count(92)
        };
        assert!(!Entry::new(1, &other_nodes).agrees_with(&counted));
    }

    #[test]
    fn a_changed_line_or_a_foreign_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let w = Writer::create(&path, &header()).unwrap();
        w.record(1, &count(92));
        w.record(2, &count(40));
        w.sync().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        // One digit changed in a middle line: the checksum catches it.
        std::fs::write(&path, text.replacen("\"total\":92", "\"total\":93", 1)).unwrap();
        let err = Contents::read(&path).unwrap_err();
        assert!(
            matches!(err, JournalError::Corrupt { line: 2, .. }),
            "{err}"
        );

        // The checksum recomputed by whoever changed it: the residues still catch it.
        let lines: Vec<&str> = text.lines().collect();
        let changed = lines[1]
            .rsplit_once('\t')
            .unwrap()
            .0
            .replace("\"total\":92", "\"total\":93");
        let mut resealed = String::new();
        seal(&changed, &mut resealed);
        std::fs::write(&path, format!("{}\n{resealed}{}\n", lines[0], lines[2])).unwrap();
        let err = Contents::read(&path).unwrap_err();
        assert!(err.to_string().contains("residues"), "{err}");

        std::fs::write(&path, "n,total\n8,92\n").unwrap();
        assert!(matches!(
            Contents::read(&path),
            Err(JournalError::NotAJournal { .. })
        ));
        // An empty file (`touch j`, or a shell's `>> j`) is said to be empty: no journal is ever one.
        std::fs::write(&path, "").unwrap();
        let err = Contents::read(&path).unwrap_err();
        assert!(matches!(err, JournalError::Empty { .. }), "{err}");
        assert!(err.to_string().ends_with(
            "is empty, so it is no nqueens journal (a journal always has its header): remove it, which \
             loses nothing, or name another file"
        ));
    }

    #[test]
    fn a_journal_of_another_format_is_another_versions_not_a_changed_one() {
        // A later version's journal, its header's fields laid out anew: named for what it is, where it was
        // said to have been changed after it was written (or, its fields differing, to be no journal at all).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let mut text = String::new();
        seal(
            r#"{"journal":"nqueens","format":2,"plan":{"n":8},"program":"nqueens 0.9.0"}"#,
            &mut text,
        );
        std::fs::write(&path, &text).unwrap();
        let err = Contents::read(&path).unwrap_err();
        assert!(matches!(err, JournalError::OtherFormat { .. }), "{err}");
        assert_eq!(
            err.to_string(),
            format!(
                "'{}' is a journal of format 2, written by nqueens 0.9.0; this program reads format 1: resume \
                 or merge it with a version that reads it",
                path.display()
            )
        );
    }

    #[test]
    fn a_writer_dropped_without_a_sync_still_leaves_its_lines() {
        // A run that ends on an error path drops its writer unsynced: the lines it recorded are still the
        // journal's, so that a resume does not count them again.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let w = Writer::create(&path, &header()).unwrap();
        w.record(5, &count(10));
        drop(w);
        let c = Contents::read(&path).unwrap();
        assert_eq!(c.entries.len(), 1);
        assert_eq!(c.entries[0].1.unit, 5);
    }

    #[test]
    fn a_write_that_fails_stops_the_run_and_is_reported_at_the_sync() {
        // `/dev/full` takes the open and refuses every write as a full disk does.
        let full = Path::new("/dev/full");
        if !full.exists() {
            return;
        }
        let w = Writer::append(full, 0).unwrap();
        w.record(1, &count(92));
        assert!(!w.failed(), "the line is still in the buffer");
        let err = w.sync().unwrap_err();
        assert!(err.to_string().contains("/dev/full"), "{err}");
        assert!(w.failed(), "the run is told to stop");
        // Later units are not recorded, and the first error stays the one reported.
        w.record(2, &count(40));
        assert!(w.sync().is_err());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_journal_moved_is_found_where_it_went_and_one_removed_is_put_back_whole_and_written_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let w = Writer::create(&path, &header()).unwrap();
        let lock = Lock::take(&path).unwrap();
        w.record(3, &count(16));
        w.sync().unwrap();
        assert_eq!(w.whereabouts(), Whereabouts::Here);
        let moved = dir.path().join("moved");
        std::fs::rename(&path, &moved).unwrap();
        assert_eq!(w.whereabouts(), Whereabouts::Moved(Some(moved.clone())));
        let before = std::fs::read(&moved).unwrap();
        std::fs::remove_file(&moved).unwrap();
        assert_eq!(w.whereabouts(), Whereabouts::Removed);
        // What was recorded since is put back too, even what is still in the buffer.
        w.record(7, &count(4));
        w.restore().unwrap();
        let c = Contents::read(&path).unwrap();
        assert_eq!(c.entries.len(), 2);
        assert!(std::fs::read(&path).unwrap().starts_with(&before));
        // The file under the name is the one written from now on, and held as the run's.
        assert_eq!(w.whereabouts(), Whereabouts::Here);
        w.record(9, &count(8));
        w.sync().unwrap();
        let c = Contents::read(&path).unwrap();
        let units: Vec<usize> = c.entries.iter().map(|(_, e)| e.unit).collect();
        assert_eq!(units, [3, 7, 9]);
        assert!(
            matches!(Lock::take(&path), Err(JournalError::Busy { .. })),
            "another run would take up the journal this one writes"
        );
        drop(lock);
        // Put back already: left as it is.
        let now = std::fs::read(&path).unwrap();
        w.restore().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), now);
        // A name taken meanwhile is never replaced, and no temporary file is left beside it.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, "another's").unwrap();
        w.record(11, &count(2));
        assert!(w.restore().is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "another's");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["j"]);
        // The removed file is still written, and put back once the name is free.
        w.record(13, &count(2));
        std::fs::remove_file(&path).unwrap();
        w.restore().unwrap();
        let c = Contents::read(&path).unwrap();
        let units: Vec<usize> = c.entries.iter().map(|(_, e)| e.unit).collect();
        assert_eq!(units, [3, 7, 9, 11, 13]);
    }

    #[test]
    fn an_existing_file_is_never_replaced_by_a_new_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        std::fs::write(&path, "precious").unwrap();
        assert!(Writer::create(&path, &header()).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious");
    }
}
