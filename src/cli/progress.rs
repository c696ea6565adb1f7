//! The progress bar: work units done and left, with an ETA, on standard error when it is a terminal.
//!
//! The library reports progress through [`nqueens::engine::exec::Progress`] and draws nothing; this is the binary's
//! drawing of it, with indicatif. When standard error is not a terminal (a pipe, a file, CI) or `--quiet` is
//! given, the bar does not exist at all: nothing is drawn and the workers' callbacks cost one branch.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nqueens::engine::count::Count;
use nqueens::engine::exec::Progress;
use nqueens::WorkUnit;
use std::io::IsTerminal;

/// A progress bar over work units, or nothing.
pub struct Bar {
    bar: Option<ProgressBar>,
    /// Whether each run restarts the bar (a sweep of counts) or adds to one bar sized in advance (a bench).
    restart_each_run: bool,
}

impl Bar {
    /// A bar that starts over with each count, for `count` and `verify`.
    pub fn per_count(quiet: bool) -> Bar {
        Bar {
            bar: visible(quiet).then(|| new_bar(0)),
            restart_each_run: true,
        }
    }

    /// One bar over `units` units in all, for a benchmark whose runs count the same plan again and again.
    pub fn total(quiet: bool, units: u64) -> Bar {
        Bar {
            bar: visible(quiet).then(|| new_bar(units)),
            restart_each_run: false,
        }
    }

    /// Sets the words before the bar ("n = 17", "2 threads, run 1 of 3").
    pub fn set_message(&self, message: String) {
        if let Some(bar) = &self.bar {
            bar.set_message(message);
        }
    }

    /// Runs `f` (which writes to the terminal) with the bar out of the way, so the two do not mix.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Animation only for a person watching: standard error is a terminal and nobody asked for quiet.
fn visible(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

fn new_bar(units: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(units), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:24} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} units, ETA {eta}",
        )
        .expect("the template is valid"),
    );
    bar
}

impl Progress for Bar {
    fn start(&self, units: usize) {
        if let (Some(bar), true) = (&self.bar, self.restart_each_run) {
            bar.set_length(units as u64);
            bar.set_position(0);
            bar.reset_eta();
        }
    }

    fn unit_done(&self, _unit: &WorkUnit, _count: &Count) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }
}
