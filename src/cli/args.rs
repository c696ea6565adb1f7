//! clap's view of the arguments: every command, option and value parser of `nqueens`, and `--version`.
//!
//! The values parsed here are checked further, into library requests, by [`crate::cli::validate`] and by each
//! command; a mistake found there is a [`UsageError`] (exit code 2).

use crate::cli::errors::UsageError;
use clap::builder::TypedValueParser;
use clap::{Args, Parser, Subcommand};
use nqueens::engine::exec::Backend;
use nqueens::engine::kernel::Kernel;
use nqueens::report::bench;
use nqueens::report::export::Format;
use nqueens::solutions::notation::Notation;
use nqueens::Symmetry;
use std::path::PathBuf;

/// Counts the solutions of the N-Queens problem exactly, on every core.
#[derive(Debug, Parser)]
#[command(name = "nqueens", version = VERSION, long_version = LONG_VERSION.as_str(), about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// `--kernel` given before the command (`nqueens --kernel scalar count 17`), the form of version 0.2; it
    /// applies to the commands that search ([`KernelOption`]) and is refused before the others.
    #[arg(long, hide = true, value_name = "KERNEL", value_parser = kernels())]
    pub kernel: Option<KernelChoice>,
}

/// `--kernel`, on the commands whose searches it chooses: count, verify, bench, list and estimate.
#[derive(Debug, Args, Default)]
pub struct KernelOption {
    /// The search loop: `avx512` runs 32 searches at once (two AVX-512 registers of 16 32-bit lanes, taking
    /// turns), `avx2` 24 (three AVX2 registers of 8 lanes), on boards up to 30 squares wide; `scalar` runs 16
    /// interleaved searches in plain 64-bit instructions, on any processor and board. All give the same
    /// counts [default: auto, the fastest this processor runs].
    #[arg(long, value_name = "KERNEL", value_parser = kernels())]
    pub kernel: Option<KernelChoice>,
}

/// `--kernel`: one loop, or the best available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelChoice {
    Auto,
    Only(Kernel),
}

impl KernelChoice {
    /// The name `--kernel` takes for it.
    pub fn name(self) -> &'static str {
        match self {
            KernelChoice::Auto => "auto",
            KernelChoice::Only(k) => k.name(),
        }
    }

    /// Makes the choice the loop of every count of this run; an error when this processor lacks it.
    pub fn apply(choice: Option<KernelChoice>) -> Result<(), UsageError> {
        let kernel = match choice {
            None | Some(KernelChoice::Auto) => None,
            Some(KernelChoice::Only(k)) => Some(k),
        };
        Kernel::prefer(kernel).map_err(|k| {
            UsageError(format!(
                "this processor cannot run the {k} kernel (it lacks the instructions); use --kernel auto"
            ))
        })
    }
}

fn parse_kernel(s: &str) -> Result<KernelChoice, String> {
    if s == "auto" {
        return Ok(KernelChoice::Auto);
    }
    s.parse::<Kernel>()
        .map(KernelChoice::Only)
        .map_err(|_| format!("unknown kernel `{s}` (auto, scalar, avx2 or avx512)"))
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count all solutions for one or more board sizes.
    ///
    /// Sizes are numbers or inclusive ranges: `nqueens count 8 10..14`. Each board's row is written as soon
    /// as it is counted.
    Count {
        /// Board sizes: N, an inclusive range A..B, or a rectangle RxC (R rows, C columns, a queen in each
        /// column).
        #[arg(required = true, value_name = "N", allow_negative_numbers = true)]
        sizes: Vec<String>,
        /// Compare each count with the published value; exit with code 3 on a mismatch.
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        options: CountOptions,
        #[command(flatten)]
        durable: DurableOptions,
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
    /// List every solution in lexicographic order, streamed as it is found.
    ///
    /// `nqueens list 8` writes the 92 solutions of the 8x8 board, `[1,5,8,6,3,7,2,4]` first. A rectangle RxC
    /// lists, for each of its C columns, the row of its queen.
    List {
        /// The board: N, or a rectangle RxC (R rows, C columns, a queen in each column).
        #[arg(value_name = "BOARD", allow_negative_numbers = true)]
        board: String,
        /// Stop after K solutions.
        #[arg(long, value_name = "K", value_parser = parse_limit, allow_negative_numbers = true)]
        limit: Option<u64>,
        /// One solution per symmetry class (rotations and reflections): the lexicographically smallest of its
        /// images.
        #[arg(long)]
        unique: bool,
        /// Threads that search and render (the order stays lexicographic) [default: all available cores].
        #[arg(short, long, value_parser = parse_threads, allow_negative_numbers = true)]
        threads: Option<u32>,
        #[command(flatten)]
        kernel: KernelOption,
        #[command(flatten)]
        show: ShowOptions,
    },
    /// Print one solution: the lexicographically first by backtracking, or one constructed in O(n) for any n.
    ///
    /// Boards 2 and 3 have no solution: that is said on stderr, with exit code 1.
    Solve {
        /// The board: N (up to 100,000,000 with the construction), or a rectangle RxC.
        #[arg(value_name = "BOARD", allow_negative_numbers = true)]
        board: String,
        /// `backtrack` finds the lexicographically first solution; `construct` writes one down in O(n); `auto`
        /// backtracks where that is quick (boards up to 32) and constructs beyond.
        #[arg(long, default_value = "auto", value_parser = methods())]
        method: Method,
        #[command(flatten)]
        show: ShowOptions,
    },
    /// Check solutions written in any of `list`'s formats, or as other solvers print them (`2 4 1 3`); exit code
    /// 1 if any is invalid or malformed.
    ///
    /// Reads FILE, or standard input when FILE is `-` or absent, and reports each solution as valid; invalid
    /// with the reason when it reads as queens but is no solution of the board (a wrong number of queens, a
    /// queen off the board, two queens that attack each other, a drawing of another board); or malformed,
    /// with what and where, when its text cannot be read as queens on a board.
    Check {
        /// The file to read.
        #[arg(value_name = "FILE")]
        file: Option<PathBuf>,
        /// The format of the input, one of `list`'s: `rows`, `zero` (0-based), `board`, `matrix`, `json` or `csv`
        /// [default: recognised from each solution's text].
        #[arg(short, long, value_parser = notations())]
        format: Option<Notation>,
        /// The board the lists are for: needed for a rectangle RxC [default: square, as long as each list].
        #[arg(long, value_name = "BOARD")]
        board: Option<String>,
        /// Report only the invalid and malformed solutions, and no summary.
        #[arg(short, long)]
        quiet: bool,
        /// Write the verdicts to FILE instead of standard output (`-` is standard output). The file appears
        /// only once it is complete.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// List the numbered work units of a board, with the plan's fingerprint.
    ///
    /// Without `--split-depth` the plan is the one `count --checkpoint` and `--shard` use, which depends on the
    /// board and the symmetry only.
    Units {
        /// The board: N, or RxC for a rectangle of R rows and C columns.
        #[arg(value_name = "BOARD", allow_negative_numbers = true)]
        n: String,
        /// Symmetry reduction (as for count) [default: full for square boards, mirror for rectangles].
        #[arg(long, value_parser = symmetries())]
        symmetry: Option<Symmetry>,
        /// Rows placed before the work is split into units [default: chosen from n and the symmetry].
        #[arg(long, value_name = "K", value_parser = parse_depth, allow_negative_numbers = true)]
        split_depth: Option<u32>,
        /// List only the units of shard K of M, as count's `--shard` takes it (`auto`: from srun, mpirun or a
        /// Kubernetes indexed Job), so that each task of a launcher can list the units it counts.
        #[arg(long, value_name = "K/M|auto", value_parser = parse_shard, allow_hyphen_values = true)]
        shard: Option<String>,
        /// With `--shard auto`: the number of shards, where the launcher does not say it (Kubernetes).
        #[arg(long, value_name = "M", value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
        shard_count: Option<u32>,
        /// Print only the summary: board, symmetry, split depth, number of units and fingerprint.
        #[arg(long)]
        summary: bool,
        /// Output format.
        #[arg(short, long, default_value = "table", value_parser = formats())]
        format: Format,
        /// Write the list to FILE instead of standard output (`-` is standard output). The file appears only
        /// once it is complete.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Print nothing but the results.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Estimate how long counting a board would take here, from seconds of samples of its search.
    ///
    /// Random descents from the plan's units, each carried to a subtree that the search loop counts whole, on
    /// the threads that would count the board: an unbiased estimate of its nodes with its standard error, and
    /// this machine's rate on them. For deciding whether a board is worth its months, and on how many machines.
    ///
    /// The plan sampled is the one the count would make: without `--shard`, that of a plain `count` on these
    /// threads (its split follows them); with `--shard K/M`, that of `count --checkpoint` and `--shard`, which
    /// depends on the board and the symmetry alone (and `--split-depth`), and only the shard's units are
    /// sampled: `--shard 3/16` is how long shard 3 of 16 takes here, `--shard 0/1` the whole board counted
    /// with a journal.
    Estimate {
        /// Board sizes: N, an inclusive range A..B, or a rectangle RxC.
        #[arg(required = true, value_name = "N", allow_negative_numbers = true)]
        sizes: Vec<String>,
        /// Threads that would count, and that sample side by side, 1 to 4096 [default: all available cores].
        #[arg(short, long, value_parser = parse_threads, allow_negative_numbers = true)]
        threads: Option<u32>,
        /// Symmetry reduction (as for count) [default: full for square boards, mirror for rectangles].
        #[arg(long, value_parser = symmetries())]
        symmetry: Option<Symmetry>,
        /// Rows placed before the work is split into units, as count's `--split-depth` [default: as count
        /// chooses them: from n and the threads, or with `--shard` from n and the symmetry].
        #[arg(long, value_name = "K", value_parser = parse_depth, allow_negative_numbers = true)]
        split_depth: Option<u32>,
        /// Estimate only shard K of M (the units numbered K modulo M) of the plan `count --checkpoint` and
        /// `--shard` use, as count's `--shard` takes it (`auto`: from srun, mpirun or a Kubernetes indexed
        /// Job); `0/1` is that plan whole.
        #[arg(long, value_name = "K/M|auto", value_parser = parse_shard, allow_hyphen_values = true)]
        shard: Option<String>,
        /// With `--shard auto`: the number of shards, where the launcher does not say it (Kubernetes).
        #[arg(long, value_name = "M", value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
        shard_count: Option<u32>,
        /// How long to sample each board, from 1ms to 24h, such as `2s` or `1m`: longer narrows the error.
        #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = parse_sampling, allow_hyphen_values = true)]
        sample: std::time::Duration,
        /// What would count: `cpu` (the worker threads) or `gpu` (the NVIDIA GPUs of `--gpus`, in a build with
        /// the `cuda` feature: each GPU counts samples of the run's own tasks for the time of `--sample`, two of
        /// the run's batches at least, after the threads sample the nodes for as long).
        #[arg(long, default_value = "cpu", value_parser = backends())]
        backend: Backend,
        /// The GPUs `--backend gpu` would count on, by the driver's numbers: `0,1` [default: all visible].
        #[arg(long, value_name = "LIST", value_parser = parse_gpus, allow_hyphen_values = true)]
        gpus: Option<GpuList>,
        /// Output format.
        #[arg(short, long, default_value = "table", value_parser = formats())]
        format: Format,
        /// Write the estimates to FILE instead of standard output (`-` is standard output). The file appears
        /// only once it is complete.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Print nothing but the results, and the warning of a sampling slowed by other work (the rate and the
        /// time to count are then a busy machine's).
        #[arg(short, long)]
        quiet: bool,
        #[command(flatten)]
        kernel: KernelOption,
    },
    /// Merge the journals of a checkpointed or sharded run into the board's exact total.
    ///
    /// Every unit of the plan must be in the journals exactly once (identical copies confirm each other);
    /// otherwise the merge fails, names what is missing or in conflict, and prints no total.
    Merge {
        /// Journals written by `count --checkpoint`.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(short, long, default_value = "table", value_parser = formats())]
        format: Format,
        /// Write the result to FILE instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Print nothing but the result, errors, and the warning of a journal that ends in a torn line (its unit
        /// is missing); not the note of a journal named twice.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Benchmark this CPU: the standard workload (n = 18, full symmetry) timed on 1, 2, 4, … threads and
    /// all threads, every count checked (exit code 3 on a mismatch). `--quick` takes a few seconds.
    /// `--backend gpu` benchmarks the GPUs on a workload of their own (n = 21), on 1, 2, 4, … and all of them.
    Bench(BenchArgs),
    /// Draw SVG charts (time against n, thread scaling, machines side by side) from count and bench JSON.
    Plot(PlotArgs),
    /// Print the completion script of a shell, made from these very options.
    ///
    /// bash: `nqueens completions bash > ~/.local/share/bash-completion/completions/nqueens`; zsh: into a
    /// folder of `$fpath` as `_nqueens`; fish: `~/.config/fish/completions/nqueens.fish`.
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Print a manual page (roff): `nqueens man > ~/.local/share/man/man1/nqueens.1`, then `man nqueens`.
    ///
    /// Without COMMAND, the page of `nqueens` itself, which lists every command; with it, the page of that
    /// command and its options, `nqueens-COMMAND(1)`.
    Man {
        /// The command whose page to print.
        #[arg(value_name = "COMMAND", value_parser = pages())]
        command: Option<String>,
    },
}

impl Command {
    /// Whether the command was asked to say nothing but its results (`-q`).
    pub fn quiet(&self) -> bool {
        match self {
            Command::Count { options, .. } | Command::Verify { options, .. } => options.quiet,
            Command::List { show, .. } | Command::Solve { show, .. } => show.quiet,
            Command::Check { quiet, .. }
            | Command::Units { quiet, .. }
            | Command::Estimate { quiet, .. }
            | Command::Merge { quiet, .. } => *quiet,
            Command::Bench(args) => args.quiet,
            Command::Plot(args) => args.quiet,
            Command::Completions { .. } | Command::Man { .. } => false,
        }
    }
}

/// How solutions are shown and where they go.
#[derive(Debug, Args)]
pub struct ShowOptions {
    /// Solution format: `rows` (row by row, the column of its queen, 1-based: `[2,4,1,3]` has row 1's queen in
    /// column 2; a rectangle's column by column, the row of its queen), `zero` (the same, 0-based), `board`
    /// (drawn), `matrix` (0 and 1), `json` (one array per line) or `csv`.
    #[arg(short, long, default_value = "rows", value_parser = notations())]
    pub format: Notation,
    /// Draw boards with `Q` and `.` instead of box-drawing characters.
    #[arg(long)]
    pub ascii: bool,
    /// Write to FILE instead of standard output (`-` is standard output). The file appears only once it is
    /// complete.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print nothing but the solutions.
    #[arg(short, long)]
    pub quiet: bool,
}

/// How `solve` finds its solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Backtracking where it is quick, the construction beyond.
    Auto,
    /// The lexicographically first solution, by backtracking.
    Backtrack,
    /// The explicit O(n) construction.
    Construct,
}

impl Method {
    /// Every method, in the order the command line lists them.
    pub const ALL: [Method; 3] = [Method::Auto, Method::Backtrack, Method::Construct];

    /// The method's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Method::Auto => "auto",
            Method::Backtrack => "backtrack",
            Method::Construct => "construct",
        }
    }
}

fn parse_method(s: &str) -> Result<Method, String> {
    Method::ALL
        .into_iter()
        .find(|m| m.name() == s)
        .ok_or_else(|| {
            let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
            format!("unknown method '{s}': use one of {}", names.join(", "))
        })
}

/// Long runs: a journal to resume from, and a share of the units.
#[derive(Debug, Args, Default)]
pub struct DurableOptions {
    /// Record each finished unit in FILE; run the same command again to resume from it. `{k}` and `{m}` in
    /// the name become the shard's number and count.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Count only shard K of M (the units numbered K modulo M), with M at most the plan's units (`nqueens
    /// units N --summary`); `auto` reads it from srun, mpirun or a Kubernetes indexed Job. Needs --checkpoint,
    /// whose journal is the shard's result for `nqueens merge`.
    #[arg(long, value_name = "K/M|auto", value_parser = parse_shard, allow_hyphen_values = true)]
    pub shard: Option<String>,
    /// With `--shard auto`: the number of shards, where the launcher does not say it (Kubernetes).
    #[arg(long, value_name = "M", value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    pub shard_count: Option<u32>,
    /// Count only these units (such as 0-99,150), as `nqueens merge` suggests for missing ones. Needs
    /// --checkpoint.
    #[arg(long, value_name = "LIST")]
    pub units: Option<String>,
    /// With --checkpoint: how long a run stopped by a signal (SIGINT, SIGTERM, SIGHUP, or a batch system's
    /// warning: SIGUSR1, SIGUSR2, SIGXCPU) may take to finish the work under way (a unit in each worker's
    /// lane; on the GPU, each GPU's batches in flight) before it saves the journal without it, such as `30s`
    /// or `2m`; `0` leaves at once. A second signal leaves at once
    /// [default: 2s on the CPU; 25s on the GPU, whose batches take seconds each on large boards, and which
    /// is under the 30 s that Slurm and Kubernetes wait before they kill].
    #[arg(long, value_name = "DURATION", value_parser = parse_grace, allow_hyphen_values = true)]
    pub stop_grace: Option<std::time::Duration>,
}

/// `--stop-grace`'s parser: a duration up to a day, or `0`.
fn parse_grace(s: &str) -> Result<std::time::Duration, String> {
    if s.trim() == "0" {
        return Ok(std::time::Duration::ZERO);
    }
    let grace = duration(
        s,
        "give a duration such as 30s or 2m, or 0 to leave at once",
    )?;
    // No batch takes a day: a longer wait is a slip (`30d` for `30s`), told here rather than obeyed.
    if grace > std::time::Duration::from_secs(24 * 3600) {
        return Err(format!(
            "a grace of {s} is longer than any work under way takes: give 24h or less, such as 30s or 2m"
        ));
    }
    Ok(grace)
}

/// How to count and where to write the results.
#[derive(Debug, Args)]
pub struct CountOptions {
    /// Worker threads, 1 to 4096; more than the cores take turns on them [default: all available cores].
    #[arg(short, long, value_parser = parse_threads, allow_negative_numbers = true)]
    pub threads: Option<u32>,
    /// Rows placed before the work is split into units [default: chosen from n and the threads, counting no
    /// more threads than cores].
    #[arg(long, value_name = "K", value_parser = parse_depth, allow_negative_numbers = true)]
    pub split_depth: Option<u32>,
    /// Symmetry reduction: `full` uses all 8 symmetries and counts unique solutions too; `mirror` halves the
    /// search; `none` searches everything, as a cross-check [default: full for square boards, mirror for
    /// rectangles].
    #[arg(long, value_parser = symmetries())]
    pub symmetry: Option<Symmetry>,
    /// Output format.
    #[arg(short, long, default_value = "table", value_parser = formats())]
    pub format: Format,
    /// Write the results to FILE instead of standard output (`-` is standard output). The file appears only
    /// once the run has finished.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print nothing but the results, errors, the lines of progress that `--progress-every` asks for, and, for
    /// a count resumed from its journal (`count --checkpoint`), the warning of a torn last line dropped from it
    /// (its unit is counted again).
    #[arg(short, long)]
    pub quiet: bool,
    /// Write a line of progress (units counted, time taken and left) to standard error at this interval, such
    /// as `30s` or `1h` (1ms at least), in place of the bar; `0` writes none [default: a line every 10m when
    /// standard error is not a terminal (a log file, a batch job), the bar on a terminal]. Given with
    /// `--quiet`, these lines are written all the same, and nothing else but the results.
    #[arg(long, value_name = "DURATION", value_parser = parse_interval, allow_hyphen_values = true)]
    pub progress_every: Option<std::time::Duration>,
    /// What counts: `cpu` (the worker threads) or `gpu` (the NVIDIA GPUs of `--gpus`, in a build with the
    /// `cuda` feature; the threads then cut their tasks).
    #[arg(long, default_value = "cpu", value_parser = backends())]
    pub backend: Backend,
    /// The GPUs `--backend gpu` counts on, by the driver's numbers: `0,1` [default: all visible].
    #[arg(long, value_name = "LIST", value_parser = parse_gpus, allow_hyphen_values = true)]
    pub gpus: Option<GpuList>,
    /// With `--backend gpu`: the GPUs' kernel leaves the search's nodes uncounted, for a faster count (the
    /// solutions are counted as ever). The reports then say the nodes are not counted, and so do the
    /// journals and merges made of them.
    #[arg(long)]
    pub uncounted_nodes: bool,
    #[command(flatten)]
    pub kernel: KernelOption,
    #[command(flatten)]
    pub exports: ExportOptions,
}

/// GPUs named on the command line (`--gpus 0,1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuList(pub Vec<usize>);

/// `--gpus`' parser: a negative number reaches it (`allow_hyphen_values`), as `-1,2` would not with clap's
/// `allow_negative_numbers`, and is said so.
fn parse_gpus(s: &str) -> Result<GpuList, String> {
    not_an_option(s, "a GPU's number cannot be negative: give them as 0,1,2")?;
    nqueens::gpu::parse_gpus(s).map(GpuList)
}

/// `--progress-every`'s parser: `0`, or a duration in words (`90s`, `10m`, `1h 30m`) of at least
/// [`MIN_INTERVAL`](crate::cli::progress::MIN_INTERVAL).
fn parse_interval(s: &str) -> Result<std::time::Duration, String> {
    use crate::cli::progress::MIN_INTERVAL;
    if s.trim() == "0" {
        return Ok(std::time::Duration::ZERO);
    }
    let every = duration(
        s,
        "give a duration such as 30s, 10m or 1h, or 0 for no progress lines",
    )?;
    // A line every microsecond is a log nobody can read, and faster than the lines are written: a slip for
    // `1s` or `1ms`, told here rather than obeyed.
    if !every.is_zero() && every < MIN_INTERVAL {
        return Err(format!(
            "a line of progress every {s} is too often: give {} or more, such as 30s or 10m, or 0 for no \
             progress lines",
            humantime::format_duration(MIN_INTERVAL)
        ));
    }
    Ok(every)
}

/// `--sample`'s parser: a duration from 1ms to 24h.
fn parse_sampling(s: &str) -> Result<std::time::Duration, String> {
    let sampling = duration(s, "give a duration such as 2s or 1m")?;
    if sampling < std::time::Duration::from_millis(1)
        || sampling > std::time::Duration::from_secs(24 * 3600)
    {
        return Err("sample from 1ms to 24h".into());
    }
    Ok(sampling)
}

/// A duration in words (`90s`, `10m`, `1h 30m`), the one reading of `--progress-every`, `--stop-grace` and
/// `--sample`; `hint` says what to give instead of a value that is none. A negative one is said so: those
/// options take values that start with `-` (`allow_hyphen_values`), since clap otherwise takes `-5s` for an
/// option of its own and answers "unexpected argument '-5' found", which says nothing of durations.
fn duration(s: &str, hint: &str) -> Result<std::time::Duration, String> {
    not_an_option(s, &format!("a duration cannot be negative: {hint}"))?;
    // `0` needs no unit, and neither does `00`, which the parser asked one of ("time unit needed").
    let zeros = s.trim();
    if !zeros.is_empty() && zeros.bytes().all(|b| b == b'0') {
        return Ok(std::time::Duration::ZERO);
    }
    humantime::parse_duration(s).map_err(|e| format!("{e}: {hint}"))
}

/// Refuses a value of an option that takes values starting with `-` (`allow_hyphen_values`, so that a negative
/// reaches its parser): `negative` where it is a negative number (`-5s`, `-1/4`); where it is an option
/// (`--progress-every --quiet`, the value forgotten), that, since the option would otherwise be lost unsaid.
fn not_an_option(s: &str, negative: &str) -> Result<(), String> {
    match s.trim_start().strip_prefix('-') {
        None => Ok(()),
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit() || c == '.') => {
            Err(negative.to_string())
        }
        Some(_) => Err(format!(
            "'{s}' is an option, not a value: give the value before the next option"
        )),
    }
}

/// `--shard`'s parser, the same in every command: the text, read as a shard once `auto` has been told from
/// `K/M` ([`crate::cli::validate::shard`]); a negative one is said so here, where clap would take `-1/4` for
/// an option.
fn parse_shard(s: &str) -> Result<String, String> {
    not_an_option(
        s,
        "a shard cannot be negative: write K/M with 0 <= K < M, such as 3/16",
    )?;
    Ok(s.to_string())
}

/// `--split-depth`'s parser, the same in every command: a number of rows, said so where clap would say the
/// range of a `u32` (`-1 is not in 0..=4294967295`). A depth too deep for the board is refused once the board
/// is known, with the depths it can use.
fn parse_depth(s: &str) -> Result<u32, String> {
    use std::num::IntErrorKind;
    s.parse().map_err(|e: std::num::ParseIntError| match e.kind() {
        IntErrorKind::PosOverflow => format!(
            "no board has {s} rows to place before the split (the kernel's have up to {}): give a smaller \
             depth, such as 3",
            nqueens::Board::MAX_SIDE
        ),
        _ => "give the number of rows placed before the work is split: a whole number from 0, such as 3"
            .into(),
    })
}

/// `--threads`' parser, the same in every command: 1 to [`MAX_THREADS`], with what was wrong said in words where
/// clap would say "invalid digit found in string" (`8.0`, `two`) or give the range as Rust writes it.
fn parse_threads(s: &str) -> Result<u32, String> {
    use std::num::IntErrorKind;
    let range = format!("a whole number from 1 to {MAX_THREADS}");
    match s.trim().parse::<u32>() {
        Ok(0) => Err(format!("0 threads would do no work: give {range}")),
        Ok(t) if t <= MAX_THREADS => Ok(t),
        Ok(_) => Err(format!(
            "{s} is more threads than a run may have: give {range} (more than the cores take turns on them)"
        )),
        Err(e) if *e.kind() == IntErrorKind::PosOverflow => Err(format!(
            "{s} is more threads than a run may have: give {range} (more than the cores take turns on them)"
        )),
        Err(_) => Err(format!("give the number of worker threads: {range}, such as 2")),
    }
}

/// The most worker threads a run may have: far more than any machine's cores, few enough that a mistyped
/// number does not start a million threads.
const MAX_THREADS: u32 = 4096;

/// `list --limit`'s parser: a number of solutions, said so for a negative or a fraction, where clap would say
/// "unexpected argument '-1'" or "invalid digit found in string".
fn parse_limit(s: &str) -> Result<u64, String> {
    s.trim().parse().map_err(|e: std::num::ParseIntError| match e.kind() {
        std::num::IntErrorKind::PosOverflow => {
            format!("{s} is more solutions than any board has that can be listed: leave --limit out to list all")
        }
        _ => "give the number of solutions to list: a whole number from 0, such as 10".into(),
    })
}

/// A parser of a value named from a list (a format, a symmetry, a kernel, ...): it parses as `parse` does,
/// with its messages, and lists the `names` in `--help`, the manual and the shell completions, so that a
/// user sees what an option takes before typing it.
#[derive(Clone, Copy)]
struct OneOf<T> {
    names: fn() -> Vec<String>,
    parse: fn(&str) -> Result<T, String>,
}

fn one_of<T>(names: fn() -> Vec<String>, parse: fn(&str) -> Result<T, String>) -> OneOf<T> {
    OneOf { names, parse }
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for OneOf<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        (self.parse)(&value.to_string_lossy()).map_err(|e| {
            clap::Error::raw(clap::error::ErrorKind::InvalidValue, format!("{e}\n")).with_cmd(cmd)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            (self.names)()
                .into_iter()
                .map(clap::builder::PossibleValue::new),
        ))
    }
}

/// [`OneOf`] a type that parses its own names (`FromStr`), with its message.
fn by_name<T: std::str::FromStr<Err: std::fmt::Display>>(names: fn() -> Vec<String>) -> OneOf<T> {
    one_of(names, |s| s.parse().map_err(|e: T::Err| e.to_string()))
}

fn formats() -> OneOf<Format> {
    by_name(|| Format::ALL.iter().map(|f| f.name().to_string()).collect())
}

fn symmetries() -> OneOf<Symmetry> {
    by_name(|| Symmetry::ALL.iter().map(|s| s.name().to_string()).collect())
}

fn notations() -> OneOf<Notation> {
    by_name(|| Notation::ALL.iter().map(|n| n.name().to_string()).collect())
}

fn backends() -> OneOf<Backend> {
    by_name(|| Backend::ALL.iter().map(|b| b.name().to_string()).collect())
}

fn kernels() -> OneOf<KernelChoice> {
    one_of(
        || {
            std::iter::once("auto")
                .chain(Kernel::ALL.iter().map(|k| k.name()))
                .map(str::to_string)
                .collect()
        },
        parse_kernel,
    )
}

fn methods() -> OneOf<Method> {
    one_of(
        || Method::ALL.iter().map(|m| m.name().to_string()).collect(),
        parse_method,
    )
}

/// `man`'s COMMAND: the commands that have a page (the hidden ones have none), for the completions to offer;
/// an unknown name is refused by `man` itself, naming them.
fn pages() -> OneOf<String> {
    one_of(
        || {
            <Command as Subcommand>::augment_subcommands(clap::Command::new("nqueens"))
                .get_subcommands()
                .filter(|c| !c.is_hide_set())
                .map(|c| c.get_name().to_string())
                .collect()
        },
        |s| Ok(s.to_string()),
    )
}

/// What `--version` says: what a benchmark report needs to know about the build.
pub const VERSION: &str = concat!(
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
static LONG_VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("{VERSION}\n{}", nqueens::report::machine::feature_lines())
});

/// Options of `nqueens bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Board side [default: 18, the standard workload; 16 with --quick; on the GPU (--backend gpu) 21,
    /// and 19 with --quick].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub n: Option<String>,
    /// A run of a few seconds: the standard measurement on n = 16 (n = 19 on the GPU). It is a board, so not
    /// with --n, which would drop it unsaid.
    #[arg(long, conflicts_with = "n")]
    pub quick: bool,
    /// Timed runs per thread count (GPU count); the median, min and max are reported.
    #[arg(long, default_value_t = bench::STANDARD_RUNS, value_parser = clap::value_parser!(u32).range(1..=1000).map(|r| r as usize), allow_negative_numbers = true)]
    pub runs: usize,
    /// Untimed warm-up runs on all threads (all GPUs) before the timed ones.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=100).map(|r| r as usize), allow_negative_numbers = true)]
    pub warmup: usize,
    /// All threads: the multi-thread score uses this many, and the scaling table goes 1, 2, 4, … up to it
    /// [default: all available cores].
    #[arg(short, long, value_parser = parse_threads, allow_negative_numbers = true)]
    pub threads: Option<u32>,
    /// What counts: `cpu`, or `gpu` (the GPUs of `--gpus`, in a build with the `cuda` feature), timed on 1, 2,
    /// 4, … and all of them, the host's threads cutting their tasks; the report names the GPUs, gives their
    /// scaling, and their kernel time and nodes/s on all of them.
    #[arg(long, default_value = "cpu", value_parser = backends())]
    pub backend: nqueens::engine::exec::Backend,
    /// The GPUs `--backend gpu` counts on, by the driver's numbers: `0,1` [default: all visible]. A run on `k`
    /// of them counts on the first `k` named.
    #[arg(long, value_name = "LIST", value_parser = parse_gpus, allow_hyphen_values = true)]
    pub gpus: Option<GpuList>,
    /// Leave the runs on one thread to the scheduler instead of pinning each to one processor: to see what a
    /// thread that moves between cores costs.
    #[arg(long)]
    pub no_pin: bool,
    /// Symmetry reduction; the standard workload is `full`.
    #[arg(long, default_value = "full", value_parser = symmetries())]
    pub symmetry: Symmetry,
    #[command(flatten)]
    pub kernel: KernelOption,
    #[command(flatten)]
    pub exports: ExportOptions,
    /// Print nothing but the results: no progress bar, no messages.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Testing aid (`NQUEENS_TEST_OFFSET=N`): added to every total of `count`, `verify` and `bench` before it is
/// checked and written, to exercise the mismatch path. An environment variable rather than a hidden option,
/// which completions and clap's suggestions for a mistyped option would offer to every user.
pub fn test_offset() -> Result<u32, UsageError> {
    const NAME: &str = "NQUEENS_TEST_OFFSET";
    match std::env::var_os(NAME) {
        None => Ok(0),
        Some(value) => value.to_str().and_then(|v| v.parse().ok()).ok_or_else(|| {
            UsageError(format!(
                "{NAME}='{}' is not a number (a testing aid: unset it)",
                value.to_string_lossy()
            ))
        }),
    }
}

/// Testing aid (`NQUEENS_TEST_FAKE_CLOCK=1`): `bench` times its runs with a made-up clock and describes a
/// made-up machine and build, so that its output is the same everywhere. The counting is real.
pub fn test_fake_clock() -> bool {
    std::env::var_os("NQUEENS_TEST_FAKE_CLOCK").is_some_and(|v| v == "1")
}

/// Files written beside the table on the terminal: `count`, `verify` and `bench`.
#[derive(Debug, Args, Default)]
pub struct ExportOptions {
    /// Also write the report as JSON (the machine, the build and every result so far) to FILE, rewritten
    /// whole as each board or run finishes; its `status` is `running` until the end.
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Also write one CSV row per board or run to FILE, rewritten whole as each finishes.
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Also write a Markdown report to FILE, rewritten whole as each board or run finishes, marked incomplete
    /// until the end.
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
}

/// Options of `nqueens plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// JSON files written by `nqueens count --format json` or `nqueens bench --export-json`.
    #[arg(required = true, value_name = "FILE.json")]
    pub files: Vec<PathBuf>,
    /// The folder the SVG files are written to (made if missing).
    #[arg(short, long, value_name = "DIR", default_value = ".")]
    pub output_dir: PathBuf,
    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,
}
