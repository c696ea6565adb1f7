//! The library's front door: a validated [`CountRequest`] and [`count`], which plans it, runs it on the CPU
//! or the GPU, and times it.

use crate::engine::exec;
use crate::engine::kernel;
use crate::{gpu, report, Board, BoardResult, Error, Plan, Split, Symmetry};
use std::io::Write as _;
use std::time::Instant;

impl CountRequest {
    /// The search loop that counts this board in this process: the preferred one, where it handles the board.
    pub fn kernel(&self) -> kernel::Kernel {
        kernel::Kernel::preferred().on(self.board.width(), self.board.lines())
    }
}

/// What to count and how: a validated request, ready to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountRequest {
    /// The board.
    pub board: Board,
    /// The symmetry reduction. [`Symmetry::Full`] needs a square: on a rectangle the count uses
    /// [`Symmetry::Mirror`], and its result says so.
    pub symmetry: Symmetry,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// A fixed split depth, or `None` to choose one from the board and the threads. [`count`] refuses one whose
    /// plan would have more than [`MAX_UNITS`](crate::engine::plan::MAX_UNITS) units ([`CountRequest::check_split`]).
    pub split_depth: Option<u32>,
    /// What counts the units.
    pub backend: exec::Backend,
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
            backend: exec::Backend::Cpu,
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
    pub fn backend(self, backend: exec::Backend) -> CountRequest {
        CountRequest { backend, ..self }
    }

    /// Refuses a fixed split depth whose plan would hold more than
    /// [`MAX_UNITS`](crate::engine::plan::MAX_UNITS) units, naming the depths that can be used
    /// ([`Plan::check_depth`]): [`count`] asks this before it plans.
    pub fn check_split(&self) -> Result<(), Error> {
        match self.split_depth {
            Some(depth) => Plan::check_depth(self.board, self.symmetry, depth),
            None => Ok(()),
        }
    }

    /// The plan this request runs. A fixed split depth is taken as given: see [`CountRequest::check_split`]
    /// for one too deep to plan.
    pub fn plan(&self) -> Plan {
        let split = match self.split_depth {
            Some(depth) => Split::Depth(depth),
            // Threads beyond the processors this process may use take turns on them: a plan for more would
            // cost planning time and memory and leave the processors no less idle at the end.
            None => {
                let threads = self.threads.min(num_cpus::get());
                match self.backend {
                    exec::Backend::Cpu => Split::Auto { threads },
                    exec::Backend::Gpu => gpu::split_for(threads),
                }
            }
        };
        Plan::new(self.board, self.symmetry, split)
    }
}

/// Counts the solutions of `request`'s board on its worker threads, timing the whole of it.
pub fn count(request: &CountRequest, progress: &dyn exec::Progress) -> Result<BoardResult, Error> {
    let started = Instant::now();
    request.check_split()?;
    let (plan, total, gpu) = match request.backend {
        exec::Backend::Cpu => {
            let plan = request.plan();
            let total = exec::run_parallel(&plan, request.threads, progress)?;
            (plan, total, None)
        }
        // The GPUs' contexts and kernel are made while the plan is built and the first batches cut.
        exec::Backend::Gpu => std::thread::scope(|scope| {
            let opening = scope.spawn(|| {
                // Unwatched: the run's own opening of the same GPUs waits for this one, and is watched.
                let opened = gpu::open_ahead(request.board, None);
                if gpu::verbose() {
                    let _ = writeln!(
                        std::io::stderr(),
                        "gpu: the GPUs opened by {:.3} s",
                        started.elapsed().as_secs_f64()
                    );
                }
                opened
            });
            let plan = request.plan();
            if gpu::verbose() {
                let _ = writeln!(
                    std::io::stderr(),
                    "gpu: plan of {} units built in {:.3} s",
                    plan.units().len(),
                    started.elapsed().as_secs_f64()
                );
            }
            let stop = std::sync::atomic::AtomicBool::new(false);
            let counted = gpu::run(&plan, None, &stop, progress);
            // Where a GPU named is not there, or none could be opened, the opening says why first: the run's
            // own error only repeats it. (A run counts on the GPUs that could be opened.)
            opening
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p))?;
            let (total, run) = counted?;
            Ok::<_, Error>((plan, total, Some(run)))
        })?,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_request_is_a_plain_error_that_says_what_to_do() {
        // Kept and copied by a caller that collects the boards it could not count, say.
        let refused = CountRequest::new(65).unwrap_err();
        assert_eq!(refused.clone(), Error::BoardTooLarge { n: 65, max: 64 });
        assert_eq!(
            refused.to_string(),
            "n = 65 is too large: the bitmask kernel handles boards up to n = 64"
        );
        let no_threads = count(&CountRequest::new(8).unwrap().threads(0), &exec::NoProgress);
        assert_eq!(no_threads.unwrap_err().clone(), Error::NoThreads);
    }

    #[test]
    fn a_gpu_run_splits_no_deeper_than_its_own_depth_and_a_cpu_run_as_deep_as_its_threads_need() {
        // n = 13 on two threads (or one, on a machine of one processor): 14,265 units at depth 2 are too few for
        // the CPU's split, which takes depth 3.
        let request = CountRequest::new(13).unwrap().threads(2);
        assert_eq!(request.plan().depth(), 3);
        let gpu = request.backend(exec::Backend::Gpu);
        assert_eq!(gpu.plan().depth(), gpu::SPLIT_DEPTH);
        // A split asked for is taken as it is, on either backend.
        assert_eq!(gpu.split_depth(Some(3)).plan().depth(), 3);
    }
}
