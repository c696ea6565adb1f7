//! Whether a batch's end waits for its slowest tasks, by a model of a GPU's blocks, without a GPU:
//! `cargo run --release --example gpu_blocks [N] [MULTIPROCESSORS]` (n = 19, an H100's or H200's 132 by default;
//! `NQUEENS_GPU_BATCHES` sets the batches, as for the program; `GPU_BLOCKS_ORDER=nodes` puts each batch's tasks
//! in the order of their nodes, largest first, where the program can only guess: what a perfect guess would
//! buy).
//!
//! Cuts the run as the program does for one GPU (its batches, the last cut a row deeper), counts every task's
//! nodes on the host as the kernel would (`gpu::task::count_task`),
//! then plays the kernel's launches out for blocks of 128, 64 and 32 threads:
//! - each batch is a kernel of as many blocks as the multiprocessors hold (their shared memory, as the
//!   program sizes it, 1 KiB of it kept for each block), started when the batch four before it is done;
//! - a block takes a free place as soon as one is free, the earliest kernel's first;
//! - its threads take the batch's tasks in order, each the next when it is done;
//! - its place is free again only once all its threads are done (its shared memory is the block's).
//!
//! Every node costs the same time, and a multiprocessor counts the same nodes a second whatever threads it
//! holds (the kernel is bound by its shared memory's bandwidth), so a thread is as much slower as its
//! multiprocessor holds more threads. A block takes its share of a multiprocessor from the room of the whole
//! GPU (a simplification: it may start wherever the GPU has that room). Printed: how much later than a
//! perfect share of the nodes the last task ends. Counting the nodes is the slow part: about 45 M nodes a
//! second on two cores (n = 17: a minute; n = 18: several).

mod common;

use nqueens::gpu::{self, task, Turns};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The most threads a multiprocessor holds (an H100's or H200's).
const MOST_THREADS: u32 = 2048;

/// Batches in flight, as the program keeps them.
const IN_FLIGHT: usize = 4;

/// A batch as the model sees it: its tasks' nodes in order, and the levels its tasks need.
struct Batch {
    nodes: Vec<u64>,
    levels: u32,
}

/// The blocks of `block` threads a multiprocessor holds for tasks of `levels` levels.
fn blocks_per_multiprocessor(turns: Turns, block: u32, levels: u32) -> u32 {
    task::hopper_blocks(turns, block, levels)
}

/// A batch's kernel as the model plays it.
struct Kernel {
    /// Its next task, and its blocks not yet done.
    next: usize,
    blocks_left: usize,
    /// Its blocks a multiprocessor.
    per_multiprocessor: u32,
}

/// The model's GPU: its kernels, the room its multiprocessors have (in threads, all of them together: a block
/// takes its share of one), the blocks waiting for room, and the threads at work.
struct Gpu<'a> {
    batches: &'a [Batch],
    kernels: Vec<Kernel>,
    block: u32,
    /// Threads of a full multiprocessor of the reference, for each thread's speed.
    reference: u32,
    room: u64,
    waiting: VecDeque<usize>,
    /// (when its task ends, its kernel, its block).
    working: BinaryHeap<Reverse<(u64, usize, usize)>>,
    /// Each block's threads at work, and the room it takes.
    blocks: Vec<(u32, u64)>,
    now: u64,
}

/// Time units a node takes a thread of a multiprocessor holding the reference's threads.
const TICKS: f64 = 1024.0;

impl Gpu<'_> {
    fn place_of(&self, k: usize) -> u64 {
        u64::from(MOST_THREADS / self.kernels[k].per_multiprocessor)
    }

    /// Gives one of kernel `k`'s threads in block `id` its next task, if there is one.
    fn take(&mut self, k: usize, id: usize) -> bool {
        let kernel = &mut self.kernels[k];
        let Some(&nodes) = self.batches[k].nodes.get(kernel.next) else {
            return false;
        };
        kernel.next += 1;
        // A multiprocessor counts as many nodes a second whatever threads it holds.
        let threads = f64::from(kernel.per_multiprocessor * self.block);
        let ticks = (nodes as f64 * TICKS * threads / f64::from(self.reference)) as u64;
        self.working.push(Reverse((self.now + ticks.max(1), k, id)));
        true
    }

    /// Starts the waiting blocks that have room.
    fn start(&mut self) {
        while let Some(&k) = self.waiting.front() {
            let place = self.place_of(k);
            if self.room < place {
                return;
            }
            self.waiting.pop_front();
            self.room -= place;
            let id = self.blocks.len();
            self.blocks.push((0, place));
            for _ in 0..self.block {
                if self.take(k, id) {
                    self.blocks[id].0 += 1;
                }
            }
            if self.blocks[id].0 == 0 {
                self.done(k, id);
            }
        }
    }

    /// Block `id` of kernel `k` is done: its room is free.
    fn done(&mut self, k: usize, id: usize) {
        self.room += self.blocks[id].1;
        self.kernels[k].blocks_left -= 1;
    }

    /// Kernel `k`'s blocks wait for room.
    fn launch(&mut self, k: usize) {
        let blocks = self.kernels[k].blocks_left;
        self.waiting.extend(std::iter::repeat_n(k, blocks));
    }

    /// Plays the run out: the time the last task ends, in nodes of a thread of the reference.
    fn play(mut self, multiprocessors: u32) -> f64 {
        self.room = u64::from(multiprocessors) * u64::from(MOST_THREADS);
        let mut launched = IN_FLIGHT.min(self.kernels.len());
        for k in 0..launched {
            self.launch(k);
        }
        loop {
            self.start();
            // A batch done lets the one four after it start.
            while launched < self.kernels.len()
                && self.kernels[launched - IN_FLIGHT].blocks_left == 0
            {
                self.launch(launched);
                launched += 1;
                self.start();
            }
            let Some(Reverse((time, k, id))) = self.working.pop() else {
                break;
            };
            self.now = time;
            if !self.take(k, id) {
                self.blocks[id].0 -= 1;
                if self.blocks[id].0 == 0 {
                    self.done(k, id);
                }
            }
        }
        self.now as f64 / TICKS
    }
}

/// The model's run of `batches` with `block` threads a block.
fn play(batches: &[Batch], turns: Turns, block: u32, multiprocessors: u32, reference: u32) -> f64 {
    let kernels = batches
        .iter()
        .map(|b| {
            let per = blocks_per_multiprocessor(turns, block, b.levels).max(1);
            Kernel {
                next: 0,
                blocks_left: (per * multiprocessors) as usize,
                per_multiprocessor: per,
            }
        })
        .collect();
    Gpu {
        batches,
        kernels,
        block,
        reference,
        room: 0,
        waiting: VecDeque::new(),
        working: BinaryHeap::new(),
        blocks: Vec::new(),
        now: 0,
    }
    .play(multiprocessors)
}

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: N, multiprocessors"))
        .collect();
    let n = args.first().copied().unwrap_or(19);
    let multiprocessors = args.get(1).copied().unwrap_or(132);
    let by_nodes = std::env::var("GPU_BLOCKS_ORDER").is_ok_and(|o| o == "nodes");
    let plan = common::gpu_plan(n);
    let units: Vec<usize> = (0..plan.units().len()).collect();
    let cut = gpu::cut(&plan, &units);
    let batches: Vec<Batch> = gpu::run_batches(&plan, &units, cut, 1)
        .map(|batch| {
            let mut nodes: Vec<u64> = batch
                .tasks
                .par_iter()
                .map(|t| task::count_task(t, &batch.tables[t.slot() as usize]).nodes)
                .collect();
            if by_nodes {
                nodes.sort_unstable_by_key(|&n| Reverse(n));
            }
            let levels = batch.levels;
            gpu::recycle(batch.tasks);
            Batch { nodes, levels }
        })
        .collect();
    let total: u64 = batches.iter().flat_map(|b| &b.nodes).sum();
    let tasks: usize = batches.iter().map(|b| b.nodes.len()).sum();
    let largest = batches
        .iter()
        .flat_map(|b| &b.nodes)
        .max()
        .copied()
        .unwrap_or(0);
    println!(
        "n = {n}: {} batches, {tasks} tasks, {total} nodes (mean {:.0} a task, largest {largest})",
        batches.len(),
        total as f64 / tasks.max(1) as f64
    );
    let turns = Turns::for_width(n);
    // The reference: 128 threads a block, the multiprocessor as full as the first batch leaves it.
    let reference =
        blocks_per_multiprocessor(turns, 128, batches.first().map_or(1, |b| b.levels)) * 128;
    let share = total as f64 / f64::from(reference * multiprocessors);
    for block in [128, 64, 32] {
        let end = play(&batches, turns, block, multiprocessors, reference);
        let per = blocks_per_multiprocessor(turns, block, batches.first().map_or(1, |b| b.levels));
        println!(
            "{block:>4} threads a block ({per} blocks, {} threads a multiprocessor): the last task ends {:.1}% \
             after a perfect share",
            per * block,
            (end / share - 1.0) * 100.0
        );
    }
}
