//! nqueens: counts the solutions of the N-Queens problem exactly, on every core.
//!
//! A count goes through the same steps whatever runs it, and the modules follow them:
//!
//! | step | module |
//! |---|---|
//! | a [`Board`] and a [`Symmetry`] give a [`Plan`] of numbered work units | [`engine::board`], [`engine::symmetry`], [`engine::border`], [`engine::plan`] |
//! | an executor counts the units with the bitmask search loops and sums their [`Count`]s | [`engine::exec`], [`engine::kernel`], [`engine::count`], or the GPU: [`gpu`] |
//! | the sum becomes a [`BoardResult`] in a [`Report`], which an exporter turns into bytes | [`report`], [`report::export`] |
//!
//! Runs of hours to months go through the same plan ([`runs`]): a [`runs::checkpoint`] records each finished
//! unit in a [`runs::journal`] and resumes from it, a [`runs::shard`] counts a deterministic share of the units,
//! and [`runs::merge`] adds the journals of a run into a total only once every unit is there exactly once, under
//! one plan [`runs::fingerprint`]. Listing, drawing, checking and constructing solutions is [`solutions`].
//!
//! `ARCHITECTURE.md` in the repository is the map: what each folder holds and what it may import.
//!
//! ```
//! use nqueens::{count, CountRequest, NoProgress, Symmetry};
//!
//! let request = CountRequest::new(8)?.symmetry(Symmetry::Full).threads(2);
//! let result = count(&request, &NoProgress)?;
//! assert_eq!(result.total, 92);
//! assert_eq!(result.unique, Some(12));
//! # Ok::<(), nqueens::Error>(())
//! ```

pub mod engine;
pub mod error;
pub mod gpu;
pub mod report;
pub mod runs;
pub mod solutions;

pub use engine::board::Board;
pub use engine::count::Count;
pub use engine::exec::{Backend, NoProgress, Progress};
pub use engine::plan::{Plan, Split, WorkUnit};
pub use engine::symmetry::Symmetry;
pub use error::Error;
pub use report::{BoardResult, Report};

use std::time::Instant;

impl CountRequest {
    /// The search loop that counts this board in this process: the preferred one, where it handles the board.
    pub fn kernel(&self) -> engine::kernel::Kernel {
        engine::kernel::Kernel::preferred().on(self.board.width(), self.board.lines())
    }
}

/// What to count and how: a validated request, ready to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountRequest {
    /// The board.
    pub board: Board,
    /// The symmetry reduction.
    pub symmetry: Symmetry,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// A fixed split depth, or `None` to choose one from the board and the threads.
    pub split_depth: Option<u32>,
    /// What counts the units.
    pub backend: engine::exec::Backend,
}

impl CountRequest {
    /// Counts a board of side `n` with the default symmetry on every available core.
    pub fn new(n: u32) -> Result<CountRequest, Error> {
        Ok(CountRequest::board(Board::new(n)?))
    }

    /// Counts `board` on every available core with the best symmetry it has: the full reduction for a
    /// square, the mirror one for a rectangle.
    pub fn board(board: Board) -> CountRequest {
        CountRequest {
            board,
            symmetry: if board.is_square() {
                Symmetry::Full
            } else {
                Symmetry::Mirror
            },
            threads: num_cpus::get(),
            split_depth: None,
            backend: engine::exec::Backend::Cpu,
        }
    }

    /// With this symmetry reduction.
    pub fn symmetry(self, symmetry: Symmetry) -> CountRequest {
        CountRequest { symmetry, ..self }
    }

    /// On this many worker threads.
    pub fn threads(self, threads: usize) -> CountRequest {
        CountRequest { threads, ..self }
    }

    /// With a fixed split depth.
    pub fn split_depth(self, depth: Option<u32>) -> CountRequest {
        CountRequest {
            split_depth: depth,
            ..self
        }
    }

    /// Counted by `backend`.
    pub fn backend(self, backend: engine::exec::Backend) -> CountRequest {
        CountRequest { backend, ..self }
    }

    /// The plan this request runs.
    pub fn plan(&self) -> Plan {
        let split = match self.split_depth {
            Some(depth) => Split::Depth(depth),
            None => Split::Auto {
                threads: self.threads,
            },
        };
        Plan::new(self.board, self.symmetry, split)
    }
}

/// Counts the solutions of `request`'s board on its worker threads, timing the whole of it.
pub fn count(
    request: &CountRequest,
    progress: &dyn engine::exec::Progress,
) -> Result<BoardResult, Error> {
    let started = Instant::now();
    let plan = request.plan();
    let (total, gpu) = match request.backend {
        engine::exec::Backend::Cpu => (
            engine::exec::run_parallel(&plan, request.threads, progress)?,
            None,
        ),
        engine::exec::Backend::Gpu => {
            let stop = std::sync::atomic::AtomicBool::new(false);
            let (total, run) = gpu::run(&plan, None, &stop, progress)?;
            (total, Some(run))
        }
    };
    let result = BoardResult::new(report::Measured {
        board: request.board,
        symmetry: plan.symmetry(),
        threads: request.threads,
        kernel: Some(request.kernel()),
        split_depth: plan.depth(),
        count: total,
        seconds: started.elapsed().as_secs_f64(),
    });
    Ok(match gpu {
        Some(run) => result.on_gpu(&run),
        None => result,
    })
}
