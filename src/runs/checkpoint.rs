//! Checkpointed runs: a count that records each finished unit in a journal, resumes from it, and may be one
//! shard of a larger run.
//!
//! Opening a checkpoint either creates a journal for the run asked for or reads the existing one, refuses it
//! if it belongs to another run, and works out the units still to count. The plan of a journal is fixed when
//! the journal is created: its split depth is recorded and reused on every resume, whatever the threads, and
//! without `--split-depth` it is [`Split::durable`], which depends on the symmetry mode alone, so shards
//! started on different machines agree. The fingerprint in the header then proves that the plan rebuilt on
//! resume is the one the journal was written for.

use crate::engine::board::Board;
use crate::engine::count::Count;
use crate::engine::exec::{self, Progress, Tee};
use crate::engine::plan::{Plan, Split};
use crate::engine::symmetry::Symmetry;
use crate::error::Error;
use crate::runs::fingerprint::Fingerprint;
use crate::runs::journal::{Contents, Header, JournalError, Lock, Writer, FORMAT};
use crate::runs::ranges::Ranges;
use crate::runs::shard::Shard;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The run a checkpoint is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The board.
    pub board: Board,
    /// The symmetry mode.
    pub symmetry: Symmetry,
    /// A split depth asked for; `None` takes the journal's, or [`Split::durable`] for a new journal.
    pub split_depth: Option<u32>,
    /// The share of the units to count.
    pub shard: Shard,
    /// Only these units, if given.
    pub only: Option<Ranges>,
    /// The program, as recorded in a new journal's header.
    pub program: String,
}

impl Spec {
    /// Which part of the board's units this run counts, as the command line names it (`shard 0/3`,
    /// `units 0-99`, `shard 1/4, units 5-9`), or `None` when it counts them all. The total of a part is
    /// that part's sum, not the board's: `nqueens merge` adds the parts' journals into the board's.
    pub fn part(&self) -> Option<String> {
        let shard = (!self.shard.is_whole()).then(|| format!("shard {}", self.shard));
        let units = self.only.as_ref().map(|only| format!("units {only}"));
        match (shard, units) {
            (Some(shard), Some(units)) => Some(format!("{shard}, {units}")),
            (shard, units) => shard.or(units),
        }
    }

    /// Whether this run counts unit `unit`.
    pub fn selects(&self, unit: usize) -> bool {
        self.shard.contains(unit) && self.only.as_ref().is_none_or(|r| r.contains(unit))
    }

    /// Refuses an empty list of units, units asked for beyond the end of `plan`, units of which the shard has none, and more shards than
    /// it has units ([`Shard::within`]), before a journal is written. Journals already written are resumed as
    /// they are.
    fn within(&self, plan: &Plan) -> Result<(), JournalError> {
        let units = plan.units().len();
        self.shard.within(plan)?;
        if self.only.as_ref().is_some_and(Ranges::is_empty) {
            return Err(JournalError::NoUnitsAsked);
        }
        if let Some(only) = &self.only {
            if only.last().is_some_and(|last| last < units) && !(0..units).any(|u| self.selects(u))
            {
                return Err(JournalError::NoneOfTheShard {
                    asked: only.to_string(),
                    shard: self.shard.to_string(),
                    index: self.shard.index,
                    count: self.shard.count,
                });
            }
        }
        match self.only.as_ref().and_then(Ranges::last) {
            Some(last) if last >= units => Err(JournalError::OutsidePlan {
                asked: self
                    .only
                    .as_ref()
                    .map(|r| r.to_string())
                    .unwrap_or_default(),
                board: self.board,
                units,
                last: units
                    .checked_sub(1)
                    .map_or("(none)".into(), |l| l.to_string()),
            }),
            _ => Ok(()),
        }
    }

    fn describe(&self, split_depth: Option<u32>) -> String {
        describe(
            &self.board.words(),
            self.symmetry.name(),
            split_depth,
            &self.shard.to_string(),
            self.only.as_ref().map(|r| r.to_string()).as_deref(),
        )
    }
}

fn describe(
    board: &str,
    symmetry: &str,
    depth: Option<u32>,
    shard: &str,
    only: Option<&str>,
) -> String {
    let mut s = format!("{board}, symmetry {symmetry}");
    if let Some(d) = depth {
        s += &format!(", split depth {d}");
    }
    if shard != "0/1" {
        s += &format!(", shard {shard}");
    }
    if let Some(only) = only {
        s += &format!(", units {only}");
    }
    s
}

/// The plan of a new journal of `board` (and so of every shard of its run): `split_depth` rows deep where one is
/// asked for, else [`Split::durable`]. It depends on the board, the symmetry and that depth alone, never on the
/// machine, which is what lets `nqueens estimate --shard` sample the very units a shard will count.
pub fn plan(board: Board, symmetry: Symmetry, split_depth: Option<u32>) -> Plan {
    let split = split_depth.map_or(Split::durable(symmetry), Split::Depth);
    Plan::new(board, symmetry, split)
}

/// An open checkpoint: the plan, what the journal already holds, and the units left.
pub struct Checkpoint {
    /// The plan the journal is for.
    pub plan: Plan,
    /// The journal's header.
    pub header: Header,
    /// The sum of the units the journal already held.
    pub recorded: Count,
    /// The units still to count, in plan order.
    pub todo: Vec<usize>,
    /// Units this run selects in all.
    pub selected: usize,
    /// Whether the journal existed before.
    pub resumed: bool,
    /// The line number of a torn last line that was dropped.
    pub torn: Option<usize>,
    /// The journal, open for appending.
    pub writer: Writer,
    /// This process's hold on the journal.
    _lock: Lock,
    /// What the runs of this checkpoint counted so far, and which units: a run stopped and run again goes
    /// on where it stopped, as a resumed one does ([`Checkpoint::run`]).
    counted: std::sync::Mutex<(Count, std::collections::HashSet<usize>)>,
}

/// What a checkpoint is: its plan, journal and units, without the lock or the counts of its runs so far.
impl std::fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoint")
            .field("plan", &self.plan)
            .field("header", &self.header)
            .field("recorded", &self.recorded)
            .field("todo", &self.todo.len())
            .field("selected", &self.selected)
            .field("resumed", &self.resumed)
            .field("torn", &self.torn)
            .field("writer", &self.writer)
            .finish_non_exhaustive()
    }
}

impl Checkpoint {
    /// Opens the journal at `path` for `spec`: creates it, or resumes it if it is a journal of the same run.
    pub fn open(path: &Path, spec: &Spec) -> Result<Checkpoint, JournalError> {
        if !path.exists() {
            let created = Checkpoint::create(path, spec);
            // Another process made the journal while this one planned (two runs started at once): it is opened
            // below as any existing journal is, so this run says the other holds it (or resumes it), rather than
            // failing on "File exists".
            let raced = matches!(&created, Err(JournalError::Io { reason, .. })
                if reason.kind() == std::io::ErrorKind::AlreadyExists);
            if !raced {
                return created;
            }
        }
        let lock = Lock::take(path)?;
        let contents = Contents::read(path)?;
        let h = &contents.header;
        let foreign = |hint: &str| JournalError::Foreign {
            path: path.to_path_buf(),
            theirs: describe(
                &h.board_words(),
                &h.symmetry,
                Some(h.split_depth),
                &h.shard,
                h.only.as_deref(),
            ),
            ours: spec.describe(spec.split_depth),
            hint: hint.to_string(),
        };
        let only = spec.only.as_ref().map(|r| r.to_string());
        // The symmetry a plan uses, on either side: a rectangle's journal asked for `full` is a `mirror` plan.
        let used = |symmetry: Symmetry| symmetry.on(spec.board);
        if h.board() != Ok(spec.board)
            || h.symmetry.parse::<Symmetry>().map(used) != Ok(used(spec.symmetry))
            || h.shard != spec.shard.to_string()
            || h.only != only
            || spec.split_depth.is_some_and(|d| d != h.split_depth)
        {
            return Err(foreign(
                "resume with the same board, symmetry, shard and units (the split depth may be left out), \
                 or give another file",
            ));
        }
        let Ok(plan) = h.plan() else {
            return Err(foreign(&format!(
                "its plan has another fingerprint ({}, written by {}): this version of nqueens numbers the \
                 units differently; finish it with that version",
                h.fingerprint, h.program
            )));
        };
        let mut seen: Vec<Option<crate::runs::journal::Entry>> = vec![None; plan.units().len()];
        let mut recorded = Count::default();
        for &(line, entry) in &contents.entries {
            let corrupt = |why: String| JournalError::Corrupt {
                path: path.to_path_buf(),
                line,
                why,
            };
            if entry.unit >= plan.units().len() || !spec.selects(entry.unit) {
                return Err(corrupt(format!(
                    "unit {} is not one this journal's run counts",
                    entry.unit
                )));
            }
            match seen[entry.unit] {
                None => {
                    seen[entry.unit] = Some(entry);
                    recorded += entry.count();
                }
                // Counted twice the same way (the nodes may be uncounted in one copy): the first copy holds.
                Some(earlier) if earlier.agrees_with(&entry) => {}
                Some(_) => {
                    return Err(corrupt(format!(
                        "unit {} is recorded twice with different counts",
                        entry.unit
                    )))
                }
            }
        }
        let todo: Vec<usize> = (0..plan.units().len())
            .filter(|&u| spec.selects(u) && seen[u].is_none())
            .collect();
        let selected = (0..plan.units().len()).filter(|&u| spec.selects(u)).count();
        let writer = if todo.is_empty() && contents.torn.is_none() {
            Writer::finished(path)?
        } else {
            let left = || match todo.len() {
                0 => "a torn last line to drop".to_string(),
                1 => "1 unit to count".into(),
                k => format!("{k} units to count"),
            };
            let read_only = std::fs::metadata(path)
                .map_err(|e| JournalError::io("open", path, e))?
                .permissions()
                .readonly();
            if read_only {
                return Err(JournalError::ReadOnly {
                    path: path.to_path_buf(),
                    todo: left(),
                });
            }
            match Writer::append(path, contents.valid_len) {
                // Its mode allows writing, its mount does not: as much the user's choice as a read-only file.
                Err(JournalError::Io { reason, .. })
                    if reason.kind() == std::io::ErrorKind::ReadOnlyFilesystem =>
                {
                    return Err(JournalError::ReadOnlyFileSystem {
                        path: path.to_path_buf(),
                        todo: left(),
                    })
                }
                opened => opened?,
            }
        };
        Ok(Checkpoint {
            plan,
            header: contents.header,
            recorded,
            todo,
            selected,
            resumed: true,
            torn: contents.torn,
            writer,
            _lock: lock,
            counted: Default::default(),
        })
    }

    fn create(path: &Path, spec: &Spec) -> Result<Checkpoint, JournalError> {
        // A library caller's depth is checked as the command line's is, before the plan is built.
        if let Some(depth) = spec.split_depth {
            Plan::check_depth(spec.board, spec.symmetry, depth).map_err(JournalError::Plan)?;
        }
        let plan = plan(spec.board, spec.symmetry, spec.split_depth);
        spec.within(&plan)?;
        let header = Header {
            journal: "nqueens".into(),
            format: FORMAT,
            fingerprint: Fingerprint::of(&plan),
            n: spec.board.n(),
            columns: (!spec.board.is_square()).then(|| spec.board.cols()),
            // The one the plan uses, as the command line names a rectangle's: two journals of one plan merge.
            symmetry: plan.symmetry().name().into(),
            split_depth: plan.depth(),
            units: plan.units().len(),
            shard: spec.shard.to_string(),
            only: spec.only.as_ref().map(|r| r.to_string()),
            program: spec.program.clone(),
            created: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        };
        let writer = Writer::create(path, &header)?;
        let lock = Lock::take(path)?;
        let todo: Vec<usize> = (0..plan.units().len())
            .filter(|&u| spec.selects(u))
            .collect();
        Ok(Checkpoint {
            plan,
            header,
            recorded: Count::default(),
            selected: todo.len(),
            todo,
            resumed: false,
            torn: None,
            writer,
            _lock: lock,
            counted: Default::default(),
        })
    }

    /// Counts the units left on `threads` worker threads, recording each in the journal, until they are done
    /// or `stop` is set (or a journal write fails). Returns everything the journal now holds, summed; the
    /// journal is synced before this returns. A checkpoint run again after a stop (or a failure) counts only
    /// what is still left ([`Checkpoint::todo`] and [`Checkpoint::recorded`] stay what the journal held when
    /// it was opened). Runs of one checkpoint are one after another: two at once would count the same units.
    pub fn run(
        &self,
        threads: usize,
        backend: crate::engine::exec::Backend,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Outcome, RunError> {
        let left: Vec<usize> = {
            let counted = self.counted.lock().unwrap_or_else(|e| e.into_inner());
            self.todo
                .iter()
                .copied()
                .filter(|u| !counted.1.contains(u))
                .collect()
        };
        let watcher = Tee(&self.writer, progress);
        let stopper = StopOnFailure {
            writer: &self.writer,
            stop,
        };
        let units_counted = UnitsCounted(&self.counted);
        let recording = Tee(&watcher, &units_counted);
        let watchers = Tee(&recording, &stopper);
        let mut gpu = None;
        match backend {
            crate::engine::exec::Backend::Cpu => {
                exec::run_selected(&self.plan, &left, threads, stop, &watchers)?;
            }
            crate::engine::exec::Backend::Gpu => {
                let (_, run) = crate::gpu::run(&self.plan, Some(&left), stop, &watchers)?;
                gpu = Some(run);
            }
        }
        self.writer.sync()?;
        // Every unit counted by every run of this checkpoint, each as it was reported (and recorded): a run
        // that failed after some still leaves them counted.
        let count = self.recorded + self.counted.lock().unwrap_or_else(|e| e.into_inner()).0;
        Ok(Outcome {
            count,
            complete: count.units as usize == self.selected,
            stopped: stop.load(Ordering::Relaxed),
            gpu,
        })
    }
}

/// Notes the number of each unit a run counts, so that a run of the checkpoint again leaves it out.
struct UnitsCounted<'a>(&'a std::sync::Mutex<(Count, std::collections::HashSet<usize>)>);

impl Progress for UnitsCounted<'_> {
    fn unit_done(&self, unit: &crate::engine::plan::WorkUnit, count: &Count) {
        let mut counted = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // Counted once: a unit reported twice (it is not) would not be summed twice.
        if counted.1.insert(unit.index) {
            counted.0 += *count;
        }
    }
}

/// Raises the stop flag as soon as the journal cannot be written, so a full disk does not let the run count
/// units it cannot record.
struct StopOnFailure<'a> {
    writer: &'a Writer,
    stop: &'a AtomicBool,
}

impl Progress for StopOnFailure<'_> {
    fn unit_done(&self, _unit: &crate::engine::plan::WorkUnit, _count: &Count) {
        if self.writer.failed() {
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

/// What a checkpointed run reached.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The journal's units, summed: this run's and the earlier runs'.
    pub count: Count,
    /// Whether every selected unit is now recorded.
    pub complete: bool,
    /// Whether the run was asked to stop.
    pub stopped: bool,
    /// What the GPUs did in this run, for one on the GPU.
    pub gpu: Option<crate::gpu::GpuRun>,
}

/// A checkpointed run that failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The engine could not start.
    #[error(transparent)]
    Engine(#[from] Error),
    /// The journal could not be written.
    #[error(transparent)]
    Journal(#[from] JournalError),
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::runs::journal::tests::count;

    /// The spec of a full-symmetry run of board `n` split at depth 2: the tests' journals.
    pub(crate) fn spec(n: u32, shard: Shard) -> Spec {
        Spec {
            board: Board::new(n).unwrap(),
            symmetry: Symmetry::Full,
            split_depth: Some(2),
            shard,
            only: None,
            program: "test".into(),
        }
    }

    /// Opens the checkpoint of `spec` at `path`, records `lines` (a unit and its count each) in its journal as
    /// a run would, and closes it: a journal with exactly these lines after its header.
    fn journal_with(path: &Path, spec: &Spec, lines: &[(usize, Count)]) {
        let c = Checkpoint::open(path, spec).unwrap();
        for (unit, count) in lines {
            c.writer.record(*unit, count);
        }
        c.writer.sync().unwrap();
    }

    #[test]
    fn a_journal_split_too_deep_to_plan_is_refused_before_it_is_made() {
        // A library caller's depth, unchecked by any command line: n = 14 unreduced at depth 9 is 4,391,988
        // units, just over the most a plan holds (deeper boards, billions).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let deep = Spec {
            symmetry: Symmetry::None,
            split_depth: Some(9),
            ..spec(14, Shard::WHOLE)
        };
        match Checkpoint::open(&path, &deep) {
            Err(JournalError::Plan(Error::TooManyUnits { depth: 9, .. })) => {}
            other => panic!("not refused as too many units: {:?}", other.err()),
        }
        assert!(!path.exists(), "no journal is left of a run refused");
    }

    #[test]
    fn a_rectangles_journal_names_its_columns_and_resumes_as_that_rectangle_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let rect = Spec {
            board: Board::rect(9, 7).unwrap(),
            symmetry: Symmetry::Mirror,
            ..spec(9, Shard::WHOLE)
        };
        let first = Checkpoint::open(&path, &rect).unwrap();
        assert_eq!((first.header.n, first.header.columns), (9, Some(7)));
        assert_eq!(first.header.plan().unwrap().board(), rect.board);
        drop(first);
        let out = Checkpoint::open(&path, &rect)
            .unwrap()
            .run(
                2,
                exec::Backend::Cpu,
                &AtomicBool::new(false),
                &exec::NoProgress,
            )
            .unwrap();
        assert!(out.complete);
        // As the rectangle counted whole, unreduced and unsplit.
        let plain = exec::run_serial(
            &Plan::new(rect.board, Symmetry::None, Split::Depth(0)),
            &exec::NoProgress,
        );
        assert!(plain.total > 0);
        assert_eq!(out.count.total, plain.total);
        // The square of its rows, and another rectangle of them, are other runs.
        for board in [Board::new(9).unwrap(), Board::rect(9, 8).unwrap()] {
            let other = Spec {
                board,
                ..rect.clone()
            };
            match Checkpoint::open(&path, &other) {
                Err(JournalError::Foreign { theirs, .. }) => {
                    assert!(
                        theirs.starts_with("the board 9x7, symmetry mirror"),
                        "{theirs}"
                    )
                }
                other => panic!("{board} resumed a 9x7 journal: {:?}", other.err()),
            }
        }
    }

    #[test]
    fn a_stopped_run_resumes_to_the_exact_count() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let s = spec(10, Shard::WHOLE);
        let first = Checkpoint::open(&path, &s).unwrap();
        // Stopped before it starts: nothing is counted and nothing recorded.
        let stop = AtomicBool::new(true);
        let out = first
            .run(2, exec::Backend::Cpu, &stop, &exec::NoProgress)
            .unwrap();
        assert!(out.stopped && !out.complete);
        assert_eq!(out.count, Count::default());
        drop(first);

        let again = Checkpoint::open(&path, &s.clone()).unwrap();
        assert!(again.resumed);
        let out = again
            .run(
                1,
                exec::Backend::Cpu,
                &AtomicBool::new(false),
                &exec::NoProgress,
            )
            .unwrap();
        assert!(out.complete);
        assert_eq!((out.count.total, out.count.unique), (724, 92));
        drop(again);

        // A third open finds nothing left to do and the same total.
        let done = Checkpoint::open(&path, &s).unwrap();
        assert!(done.todo.is_empty());
        assert_eq!(done.recorded.total, 724);
    }

    #[test]
    fn a_plan_without_a_unit_is_counted_whole_and_refused_in_shards() {
        // n = 2 in the mirror mode split two rows deep: no queen of the second row is free of the first's,
        // so the plan has no unit. Counted whole, its journal is complete at once with 0 solutions; in
        // shards, refused saying why rather than asking for "0 shards or fewer".
        let dir = tempfile::tempdir().unwrap();
        let of = |shard| Spec {
            symmetry: Symmetry::Mirror,
            ..spec(2, shard)
        };
        let whole = Checkpoint::open(&dir.path().join("whole"), &of(Shard::WHOLE)).unwrap();
        assert_eq!((whole.plan.units().len(), whole.todo.len()), (0, 0));
        let out = whole
            .run(
                1,
                exec::Backend::Cpu,
                &AtomicBool::new(false),
                &exec::NoProgress,
            )
            .unwrap();
        assert!(out.complete);
        assert_eq!(out.count.total, 0);
        let path = dir.path().join("shard");
        match Checkpoint::open(&path, &of(Shard::new(1, 2).unwrap())) {
            Err(e @ JournalError::NoUnits { .. }) => assert!(
                e.to_string().ends_with(
                    "has no unit (no queens can be placed that many rows deep): count it whole, or split \
                     it less deep"
                ),
                "{e}"
            ),
            Err(e) => panic!("another error: {e}"),
            Ok(_) => panic!("shards of a plan without a unit"),
        }
        assert!(!path.exists());
        // A board of more columns than rows has no unit at any depth: no deeper or shallower split helps.
        let wide = Spec {
            board: Board::rect(6, 8).unwrap(),
            symmetry: Symmetry::Mirror,
            split_depth: None,
            ..spec(2, Shard::new(1, 2).unwrap())
        };
        let refused = Checkpoint::open(&dir.path().join("wide"), &wide)
            .err()
            .unwrap();
        assert!(
            refused.to_string().ends_with(
                "has no unit (a board of more columns than rows has no solution): count it whole"
            ),
            "{refused}"
        );
    }

    #[test]
    fn an_empty_list_of_units_is_refused_before_a_journal_is_written() {
        // It made a journal complete at once, of no unit, whose header no run could give again.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let none = Spec {
            only: Some(Ranges::default()),
            ..spec(8, Shard::WHOLE)
        };
        assert!(matches!(
            Checkpoint::open(&path, &none),
            Err(JournalError::NoUnitsAsked)
        ));
        assert!(!path.exists());
    }

    #[test]
    fn a_rectangle_asked_for_in_the_full_mode_is_journaled_as_the_mirror_plan_it_is() {
        // A rectangle's full reduction is its mirror one, with one plan and fingerprint; the journal said
        // `full`, and a merge refused it beside a shard asked for in the mirror mode as of another plan.
        let dir = tempfile::tempdir().unwrap();
        let of = |symmetry, index| Spec {
            board: Board::rect(10, 7).unwrap(),
            symmetry,
            split_depth: None,
            ..spec(2, Shard::new(index, 2).unwrap())
        };
        let mut merged = Vec::new();
        for (symmetry, index) in [(Symmetry::Full, 0), (Symmetry::Mirror, 1)] {
            let path = dir.path().join(format!("{index}"));
            let c = Checkpoint::open(&path, &of(symmetry, index)).unwrap();
            assert_eq!(c.header.symmetry, "mirror");
            c.run(
                1,
                exec::Backend::Cpu,
                &AtomicBool::new(false),
                &exec::NoProgress,
            )
            .unwrap();
            drop(c);
            // Resumed in either spelling, it is the same journal.
            for again in [Symmetry::Full, Symmetry::Mirror] {
                let c = Checkpoint::open(&path, &of(again, index)).unwrap();
                assert!(c.todo.is_empty());
            }
            merged.push(crate::runs::merge::Source {
                path: path.clone(),
                contents: Contents::read(&path).unwrap(),
                in_use: false,
            });
        }
        let merged = crate::runs::merge::merge(&merged).unwrap();
        assert_eq!(merged.count.total, 9632);
    }

    #[test]
    fn an_unfinished_journal_made_read_only_is_refused_and_left_as_it_is() {
        // Its owner made it read-only to keep it; root could write it all the same, so the mode decides.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let s = spec(8, Shard::WHOLE);
        drop(Checkpoint::open(&path, &s).unwrap());
        let mut torn = std::fs::read(&path).unwrap();
        torn.extend_from_slice(b"{\"unit\":5");
        std::fs::write(&path, &torn).unwrap();
        let mut read_only = std::fs::metadata(&path).unwrap().permissions();
        read_only.set_readonly(true);
        std::fs::set_permissions(&path, read_only).unwrap();
        match Checkpoint::open(&path, &s) {
            Err(e @ JournalError::ReadOnly { .. }) => assert!(
                e.to_string()
                    .contains("is read-only, and its run is not finished (")
                    && e.to_string().contains(" units to count)"),
                "{e}"
            ),
            Err(e) => panic!("another error: {e}"),
            Ok(_) => panic!("a read-only journal was opened to be written"),
        }
        assert_eq!(std::fs::read(&path).unwrap(), torn, "the journal changed");
    }

    #[test]
    fn shards_add_up_and_a_journal_of_another_run_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut sum = Count::default();
        for k in 0..3 {
            let path = dir.path().join(format!("s{k}"));
            let c = Checkpoint::open(&path, &spec(9, Shard::new(k, 3).unwrap())).unwrap();
            sum += c
                .run(
                    1,
                    exec::Backend::Cpu,
                    &AtomicBool::new(false),
                    &exec::NoProgress,
                )
                .unwrap()
                .count;
        }
        assert_eq!((sum.total, sum.unique), (352, 46));
        let path = dir.path().join("s0");
        for other in [
            spec(9, Shard::new(1, 3).unwrap()),
            spec(10, Shard::new(0, 3).unwrap()),
            Spec {
                split_depth: Some(1),
                ..spec(9, Shard::new(0, 3).unwrap())
            },
            Spec {
                symmetry: Symmetry::Mirror,
                ..spec(9, Shard::new(0, 3).unwrap())
            },
        ] {
            let err = Checkpoint::open(&path, &other).err().unwrap();
            assert!(matches!(err, JournalError::Foreign { .. }), "{err}");
        }
    }

    #[test]
    fn a_journal_holding_a_unit_its_run_does_not_count_is_refused_as_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let shard = spec(9, Shard::new(0, 3).unwrap());
        let units = Plan::new(shard.board, shard.symmetry, Split::Depth(2))
            .units()
            .len();
        let count = count(4);
        // Unit 1 belongs to shard 1/3; the last is beyond the plan.
        for (stray, journal) in [(1, "other-shard"), (units + 2, "beyond-the-plan")] {
            let path = dir.path().join(journal);
            journal_with(&path, &shard, &[(0, count), (stray, count)]);
            let err = Checkpoint::open(&path, &shard).err().unwrap();
            assert!(
                matches!(err, JournalError::Corrupt { line: 3, .. }),
                "{err}"
            );
            assert!(
                err.to_string().contains(&format!(
                    "unit {stray} is not one this journal's run counts"
                )),
                "{err}"
            );
        }
        // So is a unit outside `--units` in a journal of some units.
        let some = Spec {
            only: Some("3-5".parse().unwrap()),
            ..spec(9, Shard::WHOLE)
        };
        let path = dir.path().join("some-units");
        journal_with(&path, &some, &[(6, count)]);
        let err = Checkpoint::open(&path, &some).err().unwrap();
        assert!(err.to_string().contains("unit 6 is not one"), "{err}");
    }

    #[test]
    fn a_unit_recorded_twice_counts_once_and_twice_with_different_counts_is_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let s = spec(9, Shard::WHOLE);
        let path = dir.path().join("twice");
        journal_with(&path, &s, &[(2, count(8)), (2, count(8))]);
        let again = Checkpoint::open(&path, &s).unwrap();
        assert_eq!((again.recorded.total, again.recorded.units), (8, 1));
        let units = again.plan.units().len();
        assert_eq!(again.todo.len(), units - 1);
        drop(again);
        journal_with(&path, &s, &[(2, count(4))]);
        let err = Checkpoint::open(&path, &s).err().unwrap();
        assert!(
            matches!(err, JournalError::Corrupt { line: 4, .. }),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("unit 2 is recorded twice with different counts"),
            "{err}"
        );
    }

    #[test]
    fn a_unit_recorded_again_without_its_nodes_is_the_same_count_and_a_resumed_run_knows_what_it_lacks(
    ) {
        // A GPU run with --uncounted-nodes records a unit's nodes as not counted; the same unit recorded twice,
        // once so and once with its nodes, is one count, the first copy's.
        let dir = tempfile::tempdir().unwrap();
        let s = spec(9, Shard::WHOLE);
        let path = dir.path().join("uncounted");
        journal_with(
            &path,
            &s,
            &[(2, count(8).without_nodes()), (2, count(8)), (3, count(4))],
        );
        let again = Checkpoint::open(&path, &s).unwrap();
        let recorded = again.recorded;
        assert_eq!((recorded.total, recorded.units), (12, 2));
        assert_eq!((recorded.uncounted, recorded.nodes()), (1, None));
        assert_eq!(recorded.nodes, count(4).nodes);
        drop(again);
        journal_with(&path, &s, &[(2, count(4).without_nodes())]);
        let err = Checkpoint::open(&path, &s).err().unwrap();
        assert!(
            err.to_string()
                .contains("unit 2 is recorded twice with different counts"),
            "{err}"
        );
    }

    #[test]
    fn a_checkpoint_stopped_and_run_again_counts_only_what_is_left() {
        // Run again, it counted every unit it had counted before once more, and wrote each in the journal
        // twice (1031 of 2726 at n = 10).
        struct StopAfter<'a>(&'a AtomicBool, std::sync::atomic::AtomicUsize);
        impl Progress for StopAfter<'_> {
            fn unit_done(&self, _unit: &crate::engine::plan::WorkUnit, _count: &Count) {
                if self.1.fetch_add(1, Ordering::Relaxed) + 1 >= 5 {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let c = Checkpoint::open(&path, &spec(10, Shard::WHOLE)).unwrap();
        let stop = AtomicBool::new(false);
        let first = c
            .run(
                1,
                exec::Backend::Cpu,
                &stop,
                &StopAfter(&stop, Default::default()),
            )
            .unwrap();
        assert!(first.stopped && !first.complete, "{first:?}");
        assert!(first.count.units >= 5 && (first.count.units as usize) < c.selected);
        stop.store(false, Ordering::Relaxed);
        let second = c
            .run(2, exec::Backend::Cpu, &stop, &exec::NoProgress)
            .unwrap();
        assert!(second.complete && !second.stopped, "{second:?}");
        assert_eq!(
            (second.count.total, second.count.units as usize),
            (724, c.selected)
        );
        // Each unit once in the journal: its header and a line a unit.
        drop(c);
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert_eq!(
            lines,
            1 + Checkpoint::open(&path, &spec(10, Shard::WHOLE))
                .unwrap()
                .selected
        );
    }

    #[test]
    fn a_journal_that_cannot_be_written_stops_the_run() {
        // `/dev/full` refuses every write as a full disk does.
        let full = Path::new("/dev/full");
        if !full.exists() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let mut c = Checkpoint::open(&dir.path().join("j"), &spec(10, Shard::WHOLE)).unwrap();
        assert!(c.todo.len() > 1);
        c.writer = Writer::append(full, 0).unwrap();
        c.writer.record(0, &Count::default());
        assert!(c.writer.sync().is_err() && c.writer.failed());
        let stop = AtomicBool::new(false);
        let err = c
            .run(1, exec::Backend::Cpu, &stop, &exec::NoProgress)
            .err()
            .unwrap();
        assert!(err.to_string().contains("/dev/full"), "{err}");
        assert!(
            stop.load(Ordering::Relaxed),
            "the first unit counted raised the stop flag"
        );
    }

    #[test]
    fn a_journal_of_another_run_is_refused_with_both_runs_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let only = Spec {
            only: Some("3-5".parse().unwrap()),
            ..spec(9, Shard::new(1, 3).unwrap())
        };
        drop(Checkpoint::open(&path, &only).unwrap());
        // The whole board says no shard; a split depth left out says none.
        let whole = Spec {
            split_depth: None,
            ..spec(9, Shard::WHOLE)
        };
        let err = Checkpoint::open(&path, &whole).err().unwrap().to_string();
        let expected = format!(
            "'{}' is the journal of n = 9, symmetry full, split depth 2, shard 1/3, units 3-5, but this run is \
             n = 9, symmetry full: resume with the same board",
            path.display()
        );
        assert!(err.starts_with(&expected), "{err}");
        // Another depth is named as asked.
        let deeper = Spec {
            split_depth: Some(3),
            ..only.clone()
        };
        let err = Checkpoint::open(&path, &deeper).err().unwrap().to_string();
        assert!(
            err.contains(
                "but this run is n = 9, symmetry full, split depth 3, shard 1/3, units 3-5: resume"
            ),
            "{err}"
        );
    }
}
