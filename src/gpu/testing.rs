//! What the tests of several files share: a batch's tallies counted on the host, as the kernel would count them,
//! which the host devices of `dispatch.rs`'s tests give back and `batch.rs`'s tests hold a merged batch's
//! counts to; a GPU made of the host; a device that keeps a batch back for a while, as a hung GPU would; and an
//! opening that does not end for a while, as a hung driver's would.

use super::task;
use super::Batch;
use crate::engine::kernel::Tally;

/// Each slot's tally of `batch`, counted on the host as the kernel would.
pub(super) fn tallies_of(batch: &Batch) -> Vec<Tally> {
    let mut tallies = vec![Tally::default(); batch.slots()];
    for t in &batch.tasks {
        let slot = t.slot() as usize;
        tallies[slot] += task::count_task(t, &batch.tables[slot]);
    }
    tallies
}

/// A GPU made of the host, for the tests of what drives GPUs from outside this module: it counts each batch
/// as the kernel would ([`tallies_of`]), and says its kernels took a microsecond a task.
pub(crate) struct HostGpu {
    ordinal: usize,
    queue: std::collections::VecDeque<Batch>,
    seconds: f64,
}

impl super::Device for HostGpu {
    fn name(&self) -> String {
        format!("host GPU {}", self.ordinal)
    }
    fn depth(&self) -> usize {
        2
    }
    fn submit(&mut self, batch: Batch) -> Result<(), crate::Error> {
        self.seconds += batch.tasks.len() as f64 * 1e-6;
        self.queue.push_back(batch);
        Ok(())
    }
    fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), crate::Error> {
        let batch = self.queue.pop_front().expect("a batch under way");
        let tallies = tallies_of(&batch).into_iter().map(Some).collect();
        Ok((batch, tallies))
    }
    fn kernel_seconds(&mut self) -> Result<f64, crate::Error> {
        Ok(self.seconds)
    }
}

/// Counts all of `plan`'s units on host GPUs numbered `gpus`, as [`super::run_on`] does on real ones.
pub(crate) fn count_on_host(
    plan: &crate::engine::plan::Plan,
    gpus: &[usize],
    progress: &dyn crate::engine::exec::Progress,
) -> Result<(crate::engine::count::Count, super::GpuRun), crate::Error> {
    let all: Vec<usize> = (0..plan.units().len()).collect();
    super::dispatch(
        plan,
        &all,
        &|| Ok(gpus.to_vec()),
        &|ordinal| {
            Ok(HostGpu {
                ordinal,
                queue: Default::default(),
                seconds: 0.0,
            })
        },
        &std::sync::atomic::AtomicBool::new(false),
        progress,
    )
}

/// A device that takes `pace` to give each batch back, and keeps back the `stalls_at`-th batch it is asked
/// for (from 0), if one is named, until `release` says so, told the batches the run's devices have given back
/// since (twenty seconds at most): a GPU that hangs for a while, for the tests of the watchdog (`watchdog.rs`).
/// The stall ends on what the test waits to see (the run's warning), not after a time of its own, so that no
/// load of the machine makes it end before the watchdog's bound; and a run without the watchdog fails after
/// the twenty seconds rather than hangs.
pub(crate) struct Stalling<'r, D> {
    pub device: D,
    pub pace: std::time::Duration,
    pub stalls_at: Option<usize>,
    pub release: &'r (dyn Fn(usize) -> bool + Sync),
    /// The batches the run's devices have given back, all of them together.
    pub given_back: &'r std::sync::atomic::AtomicUsize,
    /// The batches this one has.
    pub collected: usize,
}

/// The longest a [`Stalling`] device keeps its batch.
const LONGEST_STALL: std::time::Duration = std::time::Duration::from_secs(20);

impl<D: super::Device> super::Device for Stalling<'_, D> {
    fn name(&self) -> String {
        self.device.name()
    }
    fn depth(&self) -> usize {
        self.device.depth()
    }
    fn submit(&mut self, batch: Batch) -> Result<(), crate::Error> {
        self.device.submit(batch)
    }
    fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), crate::Error> {
        use std::sync::atomic::Ordering;
        if self.stalls_at == Some(self.collected) {
            let (began, before) = (
                std::time::Instant::now(),
                self.given_back.load(Ordering::SeqCst),
            );
            while !(self.release)(self.given_back.load(Ordering::SeqCst) - before)
                && began.elapsed() < LONGEST_STALL
            {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
        self.collected += 1;
        std::thread::sleep(self.pace);
        let back = self.device.collect();
        self.given_back.fetch_add(1, Ordering::SeqCst);
        back
    }
}

/// Holds up a device's opening, as a driver that hangs in making a GPU's context or loading its kernel would,
/// until `release` says so (twenty seconds at most), for the tests of the watchdog's opening (`watchdog.rs`).
/// Like [`Stalling`]'s, the hang ends on what the test waits to see, and a run without the watch fails after
/// the twenty seconds rather than hangs.
pub(crate) fn open_stalling(release: &dyn Fn() -> bool) {
    let began = std::time::Instant::now();
    while !release() && began.elapsed() < LONGEST_STALL {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}
