//! The command line: clap's view of the arguments, and their validation into library requests.
//!
//! Everything a user can get wrong is checked here, before any counting starts, and reported as a
//! [`UsageError`] (exit code 2) with a message that says what to do instead.

use clap::{Args, Parser, Subcommand};
use nqueens::export::Format;
use nqueens::{Board, CountRequest, Symmetry};
use std::path::PathBuf;

/// Counts the solutions of the N-Queens problem exactly, on every core.
#[derive(Debug, Parser)]
#[command(name = "nqueens", version = VERSION, long_version = LONG_VERSION.as_str(), about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count all solutions for one or more board sizes.
    ///
    /// Sizes are numbers or inclusive ranges: `nqueens count 8 10..14`. Each board's row is written as soon
    /// as it is counted.
    Count {
        /// Board sizes: N, or an inclusive range A..B.
        #[arg(required = true, value_name = "N", allow_negative_numbers = true)]
        sizes: Vec<String>,
        /// Compare each count with the published value; exit with code 3 on a mismatch.
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        options: CountOptions,
    },
    /// Count a range of sizes and check each against the published values (exit code 3 on a mismatch).
    Verify {
        /// Board sizes to verify: N or an inclusive range A..B.
        #[arg(
            default_value = "0..16",
            value_name = "RANGE",
            allow_negative_numbers = true
        )]
        range: String,
        #[command(flatten)]
        options: CountOptions,
    },
    /// Benchmark this CPU: the standard workload (n = 17, full symmetry) timed on 1, 2, 4, … threads and
    /// all threads, every count checked (exit code 3 on a mismatch). `--quick` takes a few seconds.
    Bench(crate::benchmark::BenchArgs),
    /// Draw SVG charts (time against n, thread scaling, machines side by side) from count and bench JSON.
    Plot(crate::plot::PlotArgs),
}

/// How to count and where to write the results.
#[derive(Debug, Args)]
pub struct CountOptions {
    /// Worker threads [default: all available cores].
    #[arg(short, long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// Rows placed before the work is split into units [default: chosen from n and the threads].
    #[arg(long, value_name = "K")]
    pub split_depth: Option<u32>,
    /// Symmetry reduction: `full` uses all 8 symmetries and counts unique solutions too; `mirror` halves the
    /// search; `none` searches everything, as a cross-check.
    #[arg(long, default_value = "full", value_parser = parse_symmetry)]
    pub symmetry: Symmetry,
    /// Output format.
    #[arg(short, long, default_value = "table", value_parser = parse_format)]
    pub format: Format,
    /// Write the results to FILE instead of standard output (`-` is standard output). The file appears only
    /// once the run has finished.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print nothing but the results.
    #[arg(short, long)]
    pub quiet: bool,
    /// Testing aid: add this to every total before it is checked and written, to exercise the mismatch path.
    #[arg(long, hide = true, default_value_t = 0)]
    pub debug_offset: u32,
}

fn parse_symmetry(s: &str) -> Result<Symmetry, String> {
    s.parse().map_err(|e| format!("{e}"))
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse().map_err(|e| format!("{e}"))
}

/// What `--version` says: what a benchmark report needs to know about the build.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (git ",
    env!("NQUEENS_GIT_REVISION"),
    ", ",
    env!("NQUEENS_RUSTC"),
    ", ",
    env!("NQUEENS_TARGET"),
    ")"
);

/// What `--version` says (`-V` says only [`VERSION`]): the build, then the CPU features compiled for and
/// those detected on this processor.
static LONG_VERSION: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| format!("{VERSION}\n{}", nqueens::machine::feature_lines()));

/// A mistake in the arguments: the message says what to do.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Parses `N`, `A..B` or `A..=B` (both inclusive) into the sizes it names, in increasing order.
pub fn parse_sizes(spec: &str) -> Result<Vec<u32>, UsageError> {
    let number = |s: &str| -> Result<u32, UsageError> {
        let s = s.trim();
        if s.starts_with('-') {
            return Err(UsageError(format!(
                "'{spec}': board sizes cannot be negative"
            )));
        }
        s.parse().map_err(|_| {
            UsageError(format!(
                "'{spec}' is not a board size: use a number such as 8, or a range such as 4..16"
            ))
        })
    };
    let (from, to) = match spec.split_once("..") {
        Some((a, b)) => (number(a)?, number(b.strip_prefix('=').unwrap_or(b))?),
        None => {
            let n = number(spec)?;
            (n, n)
        }
    };
    if from > to {
        return Err(UsageError(format!(
            "'{spec}' is a reversed range: write {to}..{from}"
        )));
    }
    if to > Board::MAX_SIDE {
        return Err(UsageError(format!(
            "n = {to} is too large: the bitmask kernel handles boards up to n = {}",
            Board::MAX_SIDE
        )));
    }
    Ok((from..=to).collect())
}

/// The requests for a list of size specifications, in the order given.
pub fn requests(specs: &[String], options: &CountOptions) -> Result<Vec<CountRequest>, UsageError> {
    let threads = options.threads.map_or_else(num_cpus::get, |t| t as usize);
    let mut requests = Vec::new();
    for spec in specs {
        for n in parse_sizes(spec)? {
            let request = CountRequest::new(n)
                .map_err(|e| UsageError(e.to_string()))?
                .symmetry(options.symmetry)
                .threads(threads)
                .split_depth(options.split_depth);
            requests.push(request);
        }
    }
    Ok(requests)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_inclusive_ranges() {
        assert_eq!(parse_sizes("8").unwrap(), vec![8]);
        assert_eq!(parse_sizes("4..7").unwrap(), vec![4, 5, 6, 7]);
        assert_eq!(parse_sizes("4..=5").unwrap(), vec![4, 5]);
    }

    #[test]
    fn bad_sizes_say_what_to_write() {
        let message = |s| parse_sizes(s).unwrap_err().to_string();
        assert!(message("eight").contains("not a board size"));
        assert!(message("-3").contains("negative"));
        assert!(message("9..4").contains("write 4..9"));
        assert!(message("65").contains("up to n = 64"));
    }
}
