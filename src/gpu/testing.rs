//! What the tests of several files share: a batch's tallies counted on the host, as the kernel would count them,
//! which the host devices of `dispatch.rs`'s tests give back and `batch.rs`'s tests hold a merged batch's
//! counts to.

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
