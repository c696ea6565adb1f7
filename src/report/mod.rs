//! Result records: what was counted, how long it took, where. Plain data that exporters turn into bytes.

pub mod bench;
pub mod export;
pub mod known;
pub mod machine;
pub mod pin;

use crate::engine::symmetry::Symmetry;
use crate::report::machine::{Machine, Program};
use serde::{Deserialize, Serialize};

/// The version of the JSON layout; raised whenever a field changes meaning or disappears.
pub const SCHEMA_VERSION: u32 = 1;

/// How a count compares with the published value.
///
/// In JSON: `{"status": "match"}`, `{"status": "mismatch", "expected": 92}` or `{"status": "unpublished"}`.
/// It goes through a plain struct because serde cannot read a `u128` inside an internally tagged enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "CheckRecord", into = "CheckRecord")]
pub enum Check {
    /// The count equals the published value.
    Match,
    /// The count differs from the published value.
    Mismatch {
        /// The published value.
        expected: u128,
    },
    /// Nobody has published a count for this n.
    Unpublished,
}

/// The JSON form of a [`Check`]: a plain struct, which serde reads with `u128` fields.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct CheckRecord {
    status: CheckStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expected: Option<u128>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum CheckStatus {
    Match,
    Mismatch,
    Unpublished,
}

impl From<Check> for CheckRecord {
    fn from(check: Check) -> CheckRecord {
        let (status, expected) = match check {
            Check::Match => (CheckStatus::Match, None),
            Check::Mismatch { expected } => (CheckStatus::Mismatch, Some(expected)),
            Check::Unpublished => (CheckStatus::Unpublished, None),
        };
        CheckRecord { status, expected }
    }
}

impl From<CheckRecord> for Check {
    fn from(record: CheckRecord) -> Check {
        match (record.status, record.expected) {
            (CheckStatus::Match, _) => Check::Match,
            (CheckStatus::Unpublished, _) => Check::Unpublished,
            // A mismatch written without its expected value still reads as a mismatch; 0 marks "not given".
            (CheckStatus::Mismatch, expected) => Check::Mismatch {
                expected: expected.unwrap_or(0),
            },
        }
    }
}

impl Check {
    /// Compares `total` for side `n` with the published table (A000170).
    pub fn total(n: u32, total: u128) -> Check {
        match known::lookup(n) {
            None => Check::Unpublished,
            Some(k) if k.total == total => Check::Match,
            Some(k) => Check::Mismatch { expected: k.total },
        }
    }

    /// Compares `unique` for side `n` with the published table (A002562).
    pub fn unique(n: u32, unique: u128) -> Check {
        match known::lookup(n).and_then(|k| k.unique) {
            None => Check::Unpublished,
            Some(expected) if expected == unique => Check::Match,
            Some(expected) => Check::Mismatch { expected },
        }
    }

    /// The worse of two checks: a mismatch over a match, a match over an unpublished value.
    pub fn worst(self, other: Option<Check>) -> Check {
        match (self, other) {
            (Check::Mismatch { .. }, _) | (_, None) => self,
            (_, Some(other @ Check::Mismatch { .. })) => other,
            (Check::Match, Some(_)) => Check::Match,
            (Check::Unpublished, Some(other)) => other,
        }
    }

    /// A short word for tables.
    pub fn word(self) -> &'static str {
        match self {
            Check::Match => "ok",
            Check::Mismatch { .. } => "MISMATCH",
            Check::Unpublished => "unknown",
        }
    }
}

/// One board's count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoardResult {
    /// Board side; for a rectangle, its rows.
    pub n: u32,
    /// Columns of a rectangular board (absent for a square).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cols: Option<u32>,
    /// For a run that counted only part of the board's units (`count --shard` or `--units`): which part, as
    /// [`crate::runs::checkpoint::Spec::part`] names it. Its total, unique count, units and nodes are then
    /// that part's, not the board's. Absent for a whole board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// All solutions.
    pub total: u128,
    /// Solutions unique under rotation and reflection; counted by the full symmetry mode only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique: Option<u128>,
    /// Wall-clock seconds, planning included. 0 for a merge of journals, with its threads and rates: its
    /// units were counted elsewhere, at other times (the table, Markdown and CSV then show `-` or nothing).
    pub seconds: f64,
    /// Worker threads; 0 for a merge of journals, which ran none.
    pub threads: usize,
    /// Symmetry reduction used.
    pub symmetry: String,
    /// The search loop that counted ([`crate::engine::kernel::Kernel`]); absent where it is not known (a merge of
    /// journals, a report written before it was recorded).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kernel: String,
    /// Rows placed by the plan before the kernel takes over.
    pub split_depth: u32,
    /// Work units counted.
    pub units: u64,
    /// Queens placed by the search loops below the split depth, in the units as counted (not weighted by
    /// symmetry). The rows the plan places are not counted, so the same board reports fewer nodes at a
    /// deeper split, and none when every unit is already a whole placement (n = 4 and 6 at their default
    /// depths). Comparable between runs of the same board, symmetry and split depth only. `None` (`null`)
    /// where some units' nodes were not counted (`count --uncounted-nodes` on the GPU): the table says "not
    /// counted", CSV leaves the field empty.
    pub nodes: Option<u128>,
    /// `total / seconds`; for a resumed checkpoint, the solutions of the units this run counted over its
    /// own time, and 0 when it had nothing left to count.
    pub solutions_per_second: f64,
    /// `nodes / seconds`, counted the same way; `None` where the nodes were not counted.
    pub nodes_per_second: Option<f64>,
    /// The comparison of the total with the published value, when one was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Check>,
    /// The comparison of the unique count with the published value, when both exist and one was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_unique: Option<Check>,
    /// What the GPU did, for a count made on one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<GpuRecord>,
}

/// The GPU's part of a count made on one ([`crate::gpu::GpuRun`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuRecord {
    /// The GPU's name.
    pub device: String,
    /// Seconds from the first kernel's start to the last one's end, on the GPU's clock.
    pub kernel_seconds: f64,
    /// Tasks the kernel counted.
    pub tasks: u64,
    /// Rows the host placed below each unit to cut it into tasks.
    pub extra_rows: u32,
    /// The kernel's loop that counted, one for each GPU (after a trial of the loops, where the run had one).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kernel_loop: String,
    /// What the trial of the loops measured on each GPU: each loop's seconds for the same sample of tasks.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub loop_trial: String,
    /// The GPUs that failed during the count, each with its error, joined by "; ": the others counted what
    /// they left. Absent where none did.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub failed_gpus: String,
    /// Each GPU's share, where several counted: in the order they were named. Absent for one GPU.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<GpuShareRecord>,
}

/// One GPU's share of a count made on several ([`crate::gpu::GpuShare`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuShareRecord {
    /// The GPU, by the driver's number.
    pub gpu: usize,
    /// Its name.
    pub device: String,
    /// Tasks its kernel counted.
    pub tasks: u64,
    /// Nodes of the tasks it counted; `null` where its kernel left them uncounted.
    pub nodes: Option<u64>,
    /// Seconds from its first kernel's start to its last one's end, on its clock.
    pub kernel_seconds: f64,
}

impl GpuShareRecord {
    /// Nodes a second of its kernels' time, where its nodes were counted and its kernels timed.
    pub fn nodes_per_second(&self) -> Option<f64> {
        self.nodes
            .filter(|_| self.kernel_seconds > 0.0)
            .map(|n| n as f64 / self.kernel_seconds)
    }
}

impl From<&crate::gpu::GpuRun> for GpuRecord {
    fn from(run: &crate::gpu::GpuRun) -> GpuRecord {
        GpuRecord {
            device: run.device.clone(),
            kernel_seconds: run.kernel_seconds,
            tasks: run.tasks,
            extra_rows: run.extra_rows,
            kernel_loop: run.kernel_loop.clone(),
            loop_trial: run.loop_trial.clone(),
            failed_gpus: run.failed.clone(),
            gpus: if run.gpus.len() > 1 {
                run.gpus
                    .iter()
                    .map(|share| GpuShareRecord {
                        gpu: share.ordinal,
                        device: share.device.clone(),
                        tasks: share.tasks,
                        nodes: share.nodes,
                        kernel_seconds: share.kernel_seconds,
                    })
                    .collect()
            } else {
                Vec::new()
            },
        }
    }
}

impl GpuRecord {
    /// A line for each GPU's share, where several counted, so that a slow one shows: `gpu 1 (NVIDIA H100 80GB
    /// HBM3): 2048000 tasks (49.8%), 1.150 Tnodes/s over 60.12 s of kernels`.
    pub fn share_lines(&self) -> Vec<String> {
        let tasks: u64 = self.gpus.iter().map(|g| g.tasks).sum();
        self.gpus
            .iter()
            .map(|g| {
                let time = format!("{:.2} s of kernels", g.kernel_seconds);
                let rate = match (g.nodes_per_second(), g.nodes) {
                    (Some(rate), _) => format!("{}nodes/s over {time}", export::si(rate)),
                    (None, Some(_)) => time,
                    (None, None) => format!("nodes uncounted, {time}"),
                };
                let share = if tasks > 0 {
                    100.0 * g.tasks as f64 / tasks as f64
                } else {
                    0.0
                };
                format!(
                    "gpu {} ({}): {} tasks ({share:.1}%), {rate}",
                    g.gpu, g.device, g.tasks
                )
            })
            .collect()
    }
}

/// The pieces of a [`BoardResult`] that are measured rather than derived.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// The board.
    pub board: crate::Board,
    /// Symmetry reduction used.
    pub symmetry: Symmetry,
    /// Worker threads.
    pub threads: usize,
    /// The search loop that counted, where known.
    pub kernel: Option<crate::engine::kernel::Kernel>,
    /// Split depth of the plan.
    pub split_depth: u32,
    /// The summed count.
    pub count: crate::engine::count::Count,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl BoardResult {
    /// The record for a measured count, with its rates.
    pub fn new(m: Measured) -> BoardResult {
        let rate = |x: u128| {
            if m.seconds > 0.0 {
                x as f64 / m.seconds
            } else {
                0.0
            }
        };
        BoardResult {
            n: m.board.n(),
            cols: (!m.board.is_square()).then_some(m.board.cols()),
            part: None,
            total: m.count.total,
            unique: (m.symmetry == Symmetry::Full).then_some(m.count.unique),
            seconds: m.seconds,
            threads: m.threads,
            symmetry: m.symmetry.name().to_string(),
            kernel: m.kernel.map(|k| k.name().to_string()).unwrap_or_default(),
            split_depth: m.split_depth,
            units: m.count.units,
            nodes: m.count.nodes(),
            solutions_per_second: rate(m.count.total),
            nodes_per_second: m.count.nodes().map(rate),
            check: None,
            check_unique: None,
            gpu: None,
        }
    }

    /// This record, made on the GPU: its kernel is `gpu`, and what the GPU did is kept.
    pub fn on_gpu(self, run: &crate::gpu::GpuRun) -> BoardResult {
        BoardResult {
            kernel: crate::engine::exec::Backend::Gpu.name().to_string(),
            gpu: Some(run.into()),
            ..self
        }
    }
}

impl BoardResult {
    /// Checks the total and, where counted, the unique solutions against the published values (which exist
    /// for square boards only).
    pub fn check(&mut self) {
        if self.cols.is_some() {
            self.check = Some(Check::Unpublished);
            self.check_unique = None;
            return;
        }
        self.check = Some(Check::total(self.n, self.total));
        self.check_unique = self.unique.map(|u| Check::unique(self.n, u));
    }

    /// The board as the command line names it: `8`, or `8x6` for a rectangle.
    pub fn board(&self) -> String {
        match self.cols {
            Some(cols) => format!("{}x{}", self.n, cols),
            None => self.n.to_string(),
        }
    }

    /// The overall verdict of [`BoardResult::check`], if it ran.
    pub fn verdict(&self) -> Option<Check> {
        self.check.map(|c| c.worst(self.check_unique))
    }
}

/// A whole run: the program, the machine, and each board's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`] when written.
    pub schema_version: u32,
    /// The build that measured.
    pub program: Program,
    /// The machine measured on.
    pub machine: Machine,
    /// When the run started, RFC 3339 in UTC.
    pub timestamp: String,
    /// How far the run got: `running` while it counts (and in an export file an interrupted run left),
    /// `complete` once every board is counted. Reports written before this field read as complete.
    #[serde(default = "complete")]
    pub status: bench::Status,
    /// Worker threads used.
    pub threads: usize,
    /// One record per board, in the order counted.
    pub results: Vec<BoardResult>,
}

fn complete() -> bench::Status {
    bench::Status::Complete
}

impl Report {
    /// An empty report for a run starting now on this machine with this build.
    pub fn start(threads: usize) -> Report {
        Report {
            schema_version: SCHEMA_VERSION,
            program: Program::current(),
            machine: Machine::detect(),
            timestamp: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            status: bench::Status::Running,
            threads,
            results: Vec::new(),
        }
    }

    /// Marks the run as done: every board asked for is counted.
    pub fn finish(&mut self) {
        self.status = bench::Status::Complete;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_record_names_the_gpus_that_failed_and_only_where_some_did() {
        let mut run = crate::gpu::GpuRun {
            device: "GPU A".into(),
            ..Default::default()
        };
        assert!(!serde_json::to_string(&GpuRecord::from(&run))
            .unwrap()
            .contains("failed_gpus"));
        run.failed = "GPU 1: GPU backend: lost".into();
        let json = serde_json::to_value(GpuRecord::from(&run)).unwrap();
        assert_eq!(json["failed_gpus"], "GPU 1: GPU backend: lost");
        let back: GpuRecord = serde_json::from_value(json).unwrap();
        assert_eq!(back.failed_gpus, run.failed);
    }

    #[test]
    fn a_gpu_record_gives_each_gpus_share_where_several_counted() {
        let share = |ordinal: usize, tasks: u64, nodes: Option<u64>| crate::gpu::GpuShare {
            ordinal,
            device: format!("GPU {ordinal}"),
            tasks,
            nodes,
            kernel_seconds: 2.0,
        };
        let mut run = crate::gpu::GpuRun {
            device: "GPU 0".into(),
            gpus: vec![share(0, 300, Some(4_000_000_000))],
            ..Default::default()
        };
        let record = GpuRecord::from(&run);
        assert!(record.share_lines().is_empty());
        assert!(!serde_json::to_string(&record).unwrap().contains("\"gpus\""));
        run.gpus.push(share(0, 100, Some(1_000_000_000)));
        run.gpus.push(share(3, 0, None));
        let json = serde_json::to_value(GpuRecord::from(&run)).unwrap();
        assert_eq!(json["gpus"][1]["gpu"], 0);
        assert_eq!(json["gpus"][1]["tasks"], 100);
        assert_eq!(json["gpus"][2]["gpu"], 3);
        assert!(json["gpus"][2]["nodes"].is_null());
        let back: GpuRecord = serde_json::from_value(json).unwrap();
        assert_eq!(back, GpuRecord::from(&run));
        assert_eq!(
            back.share_lines(),
            [
                "gpu 0 (GPU 0): 300 tasks (75.0%), 2.000 Gnodes/s over 2.00 s of kernels",
                "gpu 0 (GPU 0): 100 tasks (25.0%), 500.000 Mnodes/s over 2.00 s of kernels",
                "gpu 3 (GPU 3): 0 tasks (0.0%), nodes uncounted, 2.00 s of kernels",
            ]
        );
    }

    #[test]
    fn checks_keep_their_json_form_and_read_back() {
        for (check, json) in [
            (Check::Match, r#"{"status":"match"}"#),
            (
                Check::Mismatch {
                    expected: u128::from(u64::MAX) + 1,
                },
                r#"{"status":"mismatch","expected":18446744073709551616}"#,
            ),
            (Check::Unpublished, r#"{"status":"unpublished"}"#),
        ] {
            assert_eq!(serde_json::to_string(&check).unwrap(), json);
            assert_eq!(serde_json::from_str::<Check>(json).unwrap(), check);
        }
    }
}
