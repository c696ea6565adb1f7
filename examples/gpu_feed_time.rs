//! The host's time to feed a GPU a whole run, without a GPU: `cargo run --release --example gpu_feed_time [N]
//! [RUNS] [FIND_MS] [OPEN_MS]` (n = 19, three runs, 100 and 120 ms by default). Runs `gpu::dispatch` as `count
//! N --backend gpu` does, on a stand-in device that copies each batch's tasks on the thread that hands them
//! over (as the driver copies from memory it does not pin) and whose kernels take no time; the driver takes
//! FIND_MS to find it and OPEN_MS more to open it, as an H200's did (results/gpu.md), while the host cuts the
//! first batches. What it prints is the host's share of a run, its cut and its copies, with nothing
//! overlapping them but each other and the opening. The counts it gets are not the run's (the stand-in counts
//! nothing). `NQUEENS_GPU_VERBOSE=1` adds the run's timeline; `RAYON_NUM_THREADS` sets the cores the cut
//! takes.

mod common;

use nqueens::engine::kernel::Tally;
use nqueens::gpu::task::Task;
use nqueens::gpu::{self, Batch, Device};
use nqueens::{Error, NoProgress};
use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// A device whose copies are the host's and whose kernels take no time.
struct Copier {
    /// The device's memory: each batch's tasks are copied here, one thread, as from pageable memory.
    memory: Vec<Task>,
    in_flight: VecDeque<Batch>,
}

impl Device for Copier {
    fn name(&self) -> String {
        "a copier".into()
    }
    fn depth(&self) -> usize {
        4
    }
    fn submit(&mut self, mut batch: Batch) -> Result<(), Error> {
        self.memory.clear();
        self.memory.extend_from_slice(&batch.tasks);
        gpu::recycle(std::mem::take(&mut batch.tasks));
        self.in_flight.push_back(batch);
        Ok(())
    }
    fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error> {
        let batch = self.in_flight.pop_front().expect("a batch under way");
        let tallies = vec![Some(Tally::default()); batch.slots()];
        Ok((batch, tallies))
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u32 = args.next().map_or(19, |a| a.parse().expect("a board side"));
    let runs: usize = args
        .next()
        .map_or(3, |a| a.parse().expect("a number of runs"));
    let mut millis = |default| {
        Duration::from_millis(
            args.next()
                .map_or(default, |a| a.parse().expect("milliseconds")),
        )
    };
    let (find, open) = (millis(100), millis(120));
    let plan = common::gpu_plan(n);
    let units: Vec<usize> = (0..plan.units().len()).collect();
    for _ in 0..runs {
        let started = Instant::now();
        let (_, run) = gpu::dispatch(
            &plan,
            &units,
            &|| {
                std::thread::sleep(find);
                Ok(vec![0])
            },
            &|_| {
                std::thread::sleep(open);
                Ok(Copier {
                    memory: Vec::new(),
                    in_flight: VecDeque::new(),
                })
            },
            &AtomicBool::new(false),
            &NoProgress,
        )
        .expect("the copier takes every batch");
        println!(
            "n = {n}: {} tasks cut and copied in {:.3} s",
            run.tasks,
            started.elapsed().as_secs_f64()
        );
        gpu::drop_spares();
    }
}
