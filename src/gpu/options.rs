//! What the user chose for the GPU backend: the GPUs a run uses, whether its kernel counts the nodes, and the
//! environment's knobs for measuring.
//!
//! The command line sets the first two before a run ([`use_gpus`], [`leave_nodes_uncounted`]); the knobs are
//! read from the environment as a run needs them, so that a measurement needs no rebuild: the numbers the other
//! files read through [`knob`], and the kernel's switches and turns between tests that `NQUEENS_GPU_DEFINES`
//! asks for ([`turns`]), checked here so that a name the kernel does not take, or a set of them it does not
//! build ([`switches_agree`]), is refused before any GPU opens.

use super::task::Turns;
use crate::engine::board::Board;
use crate::error::Error;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

// Named in the docs alone.
#[cfg(doc)]
use crate::engine::count::Count;

/// A knob for measuring: environment variable `name` read as a `T`, if it is one that `valid` takes (else the
/// program's own value is used, as if it were not set).
pub(super) fn knob<T: std::str::FromStr>(name: &str, valid: impl Fn(&T) -> bool) -> Option<T> {
    knob_value(std::env::var(name).ok().as_deref(), valid)
}

/// [`knob`] of the variable's value, `None` where it is not set.
fn knob_value<T: std::str::FromStr>(value: Option<&str>, valid: impl Fn(&T) -> bool) -> Option<T> {
    value.and_then(|v| v.trim().parse().ok()).filter(valid)
}

/// Whether `NQUEENS_GPU_VERBOSE` asks for what a run did, phase by phase, on standard error: a measuring aid
/// (results/gpu.md), like the launch's figures the driver part prints.
pub fn verbose() -> bool {
    std::env::var_os("NQUEENS_GPU_VERBOSE").is_some()
}

/// The GPUs a run uses, by the driver's numbers; `None` for all visible.
static SELECTED: Mutex<Option<Vec<usize>>> = Mutex::new(None);

/// Uses the GPUs `ordinals` (the driver's numbers; one named twice gets two host threads and two
/// queues of batches) in the runs that follow, or all visible ones for `None`, the default.
pub fn use_gpus(ordinals: Option<Vec<usize>>) {
    *SELECTED.lock().unwrap_or_else(|e| e.into_inner()) = ordinals;
}

/// The GPUs set by [`use_gpus`], or `None` for all visible.
pub fn selected_gpus() -> Option<Vec<usize>> {
    SELECTED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Whether the kernel leaves the search's nodes uncounted ([`leave_nodes_uncounted`]).
static NODES_UNCOUNTED: AtomicBool = AtomicBool::new(false);

/// Has the GPUs' kernel leave the search's nodes uncounted in the runs that follow (`true`), for a faster
/// count: its units' counts then say so ([`Count::uncounted`]), and so do the reports, journals and merges
/// made of them. A unit the host counts (whole, or again where the GPU could not vouch for it) still counts
/// its nodes. The default counts them.
pub fn leave_nodes_uncounted(uncounted: bool) {
    NODES_UNCOUNTED.store(uncounted, Ordering::Relaxed);
}

/// Whether the GPUs' kernel leaves the nodes uncounted: [`leave_nodes_uncounted`] asked for it, or the
/// environment's switches name the kernel's `NQ_UNCOUNTED` (`NQUEENS_GPU_DEFINES`, for measuring).
pub fn nodes_uncounted() -> bool {
    NODES_UNCOUNTED.load(Ordering::Relaxed)
        || std::env::var("NQUEENS_GPU_DEFINES")
            .unwrap_or_default()
            .split_whitespace()
            .any(|d| d == "NQ_UNCOUNTED")
}

/// Reads a list of GPUs as `--gpus` takes it: the driver's numbers, separated by commas (`0,1`, `0,0`).
pub fn parse_gpus(s: &str) -> Result<Vec<usize>, String> {
    let gpus: Vec<usize> = s
        .split(',')
        .map(|g| {
            g.trim()
                .parse()
                .map_err(|_| format!("'{g}' is not a GPU number: give them as 0,1,2"))
        })
        .collect::<Result<_, _>>()?;
    if gpus.is_empty() || gpus.len() > 64 {
        return Err("give between 1 and 64 GPU numbers, as 0,1,2".into());
    }
    Ok(gpus)
}

/// The switches of the kernel (`count.cu`) that `NQUEENS_GPU_DEFINES` may name, for measuring variants side by
/// side, besides `NQ_UNROLL=`: the loop without the look-ahead, the turn's shared accesses in C, the nodes not
/// counted, and the look-ahead's row taken with its frame, which waits for a GPU to time it (results/gpu.md).
/// Each changes the kernel; [`DEFAULT_NAMES`] are taken too.
pub const KERNEL_SWITCHES: [&str; 4] = ["NQ_PLAIN", "NQ_TURN_C", "NQ_UNCOUNTED", "NQ_AHEAD_FRAME"];

/// Names `NQUEENS_GPU_DEFINES` may give that change nothing: switches that asked for what is the kernel's default
/// now (the look-ahead and its form: the row ahead one column over, the nodes counted as children, the last
/// row closed without a turn, the push's step last; and the turn's shared accesses in PTX), still taken so that
/// older commands run. With the loop they contradict (`NQ_PLAIN`, `NQ_TURN_C`) they are refused
/// ([`switches_agree`]).
pub const DEFAULT_NAMES: [&str; 6] = [
    "NQ_AHEAD",
    "NQ_TURN_PTX",
    "NQ_AHEAD_XOR",
    "NQ_AHEAD_CHILDREN",
    "NQ_AHEAD_LAST",
    "NQ_PUSH_LAST",
];

/// How the kernel's loop is built for `board`: [`Turns::for_width`], unless `NQUEENS_GPU_DEFINES` asks for
/// `NQ_UNROLL=` 1, 2, 4, 8 or 16 turns between tests for a task's end, for measuring. The sentinels' squares are
/// the program's to choose by the board: asking for them is refused, and so is any name that is not one of
/// [`KERNEL_SWITCHES`] or [`DEFAULT_NAMES`] (a variant that was measured slower and removed, or a misspelt one,
/// would otherwise build the default under another name), or a set of them that the kernel does not build
/// ([`switches_agree`]), with `NQ_UNCOUNTED` among them where the run leaves the nodes uncounted
/// ([`leave_nodes_uncounted`]). The look-ahead's loop, which closes the last row without a turn, gets its stack
/// sized without that row on a square board ([`Turns::unpushed_last`]); that is the program's to choose too.
pub fn turns(board: Board) -> Result<Turns, Error> {
    turns_asked(&asked_switches(), board)
}

/// The loops of the kernel a run on `board` may count with, the program's first ([`turns`]): also the
/// look-ahead's row taken with its frame (`NQ_AHEAD_FRAME`), unless `NQUEENS_GPU_DEFINES` asks for a build of its
/// own. A run that asks for it (`NQUEENS_GPU_TRIAL`) times them on each GPU and counts with the faster
/// (`trial.rs`); the others count with the program's.
pub fn loops(board: Board) -> Result<Vec<Turns>, Error> {
    Ok(loops_asked(
        turns(board)?,
        &std::env::var("NQUEENS_GPU_DEFINES").unwrap_or_default(),
    ))
}

/// [`loops`] of the program's `turns`, with `NQUEENS_GPU_DEFINES` reading `asked`.
fn loops_asked(turns: Turns, asked: &str) -> Vec<Turns> {
    if asked.trim().is_empty() {
        vec![turns, turns.with_ahead_frame(true)]
    } else {
        vec![turns]
    }
}

/// A loop of the kernel by name, for reports: the look-ahead, with its row's frame or not, or the build
/// `NQUEENS_GPU_DEFINES` asked for.
pub fn loop_name(turns: Turns) -> String {
    loop_name_asked(
        turns,
        &std::env::var("NQUEENS_GPU_DEFINES").unwrap_or_default(),
    )
}

/// [`loop_name`] with `NQUEENS_GPU_DEFINES` reading `asked`.
fn loop_name_asked(turns: Turns, asked: &str) -> String {
    if !asked.trim().is_empty() {
        format!("the build of {}", asked.trim())
    } else if turns.ahead_frame {
        "look-ahead with the next row's frame".to_string()
    } else {
        "look-ahead".to_string()
    }
}

/// The kernel's switches a run asks for: `NQUEENS_GPU_DEFINES`, and `NQ_UNCOUNTED` where the run leaves the
/// nodes uncounted ([`leave_nodes_uncounted`]). [`turns`] checks them; `cuda.rs` compiles the kernel with them.
pub(super) fn asked_switches() -> String {
    let mut asked = std::env::var("NQUEENS_GPU_DEFINES").unwrap_or_default();
    if nodes_uncounted() && !asked.split_whitespace().any(|d| d == "NQ_UNCOUNTED") {
        asked.push_str(" NQ_UNCOUNTED");
    }
    asked
}

/// Whether the kernel builds with the switches `asked` (names of [`KERNEL_SWITCHES`] and [`DEFAULT_NAMES`], as
/// `NQUEENS_GPU_DEFINES` gives them): its `#error`s, said here so that a run that names a set it refuses stops
/// before anything runs, with the reason, rather than when NVRTC compiles it on the GPU's machine. `tests/gpu_kernel.rs` holds these
/// rules to the kernel's for every set of its switches.
pub fn switches_agree(asked: &str) -> Result<(), Error> {
    let named = |switch: &str| asked.split_whitespace().any(|d| d == switch);
    let refused = |why: String| Err(Error::Gpu(why));
    if named("NQ_PLAIN") {
        for part in [
            "NQ_AHEAD",
            "NQ_AHEAD_XOR",
            "NQ_AHEAD_CHILDREN",
            "NQ_AHEAD_LAST",
            "NQ_AHEAD_FRAME",
            "NQ_UNCOUNTED",
        ] {
            if named(part) {
                return refused(format!(
                    "{part} asks for the look-ahead, and NQ_PLAIN is the loop without it{}",
                    if part == "NQ_UNCOUNTED" {
                        " (NQ_UNCOUNTED is what --uncounted-nodes builds)"
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    if named("NQ_PUSH_LAST") && named("NQ_TURN_C") {
        return refused(
            "NQ_PUSH_LAST is a form of the turn's accesses written in PTX, which NQ_TURN_C writes in C".into(),
        );
    }
    Ok(())
}

/// [`turns`] with `NQUEENS_GPU_DEFINES` reading `asked`.
fn turns_asked(asked: &str, board: Board) -> Result<Turns, Error> {
    let width = board.width();
    if let Some(d) = asked
        .split_whitespace()
        .find(|d| d.starts_with("NQ_SENTINEL_SQUARES"))
    {
        return Err(Error::Gpu(format!(
            "{d}: the program gives the sentinels the squares the board leaves room for; ask for the turns \
             (NQ_UNROLL) alone"
        )));
    }
    let named = |switch: &str| asked.split_whitespace().any(|d| d == switch);
    if named("NQ_LAST_UNPUSHED") {
        return Err(Error::Gpu(
            "NQ_LAST_UNPUSHED: the program sizes the stack without the last row where the board takes it \
             (the look-ahead's loop on a square board)"
                .into(),
        ));
    }
    if let Some(d) = asked.split_whitespace().find(|d| {
        !d.starts_with("NQ_UNROLL=") && !KERNEL_SWITCHES.contains(d) && !DEFAULT_NAMES.contains(d)
    }) {
        return Err(Error::Gpu(format!(
            "{d}: not a switch of the kernel; NQUEENS_GPU_DEFINES takes NQ_UNROLL=1u, 2u, 4u, 8u or 16u and {} \
             (variants measured slower were removed: results/gpu.md)",
            KERNEL_SWITCHES.join(", ")
        )));
    }
    switches_agree(asked)?;
    // A rectangle's tasks end with free columns left, and their last row may be pushed.
    let unpushed_last = !named("NQ_PLAIN") && board.is_square();
    Ok(turns_between_tests(asked, width)?
        .with_unpushed_last(unpushed_last)
        .with_ahead_frame(named("NQ_AHEAD_FRAME")))
}

/// The turns `asked` names for boards `width` wide (see [`turns`]).
fn turns_between_tests(asked: &str, width: u32) -> Result<Turns, Error> {
    let Some(turns) = asked
        .split_whitespace()
        .find_map(|d| d.strip_prefix("NQ_UNROLL="))
    else {
        return Ok(Turns::for_width(width));
    };
    let between = match turns.trim_end_matches('u') {
        "1" => 1,
        "2" => 2,
        "4" => 4,
        "8" => 8,
        "16" => 16,
        _ => {
            return Err(Error::Gpu(format!(
                "NQ_UNROLL={turns}: the kernel tests for a task's end every 1, 2, 4, 8 or 16 turns"
            )))
        }
    };
    Ok(Turns::asked(between, width))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::task;
    use crate::gpu::BATCH_TASKS;

    #[test]
    fn gpus_are_read_as_the_command_line_gives_them() {
        assert_eq!(parse_gpus("0"), Ok(vec![0]));
        assert_eq!(parse_gpus("0,0"), Ok(vec![0, 0]));
        assert_eq!(parse_gpus("1, 3"), Ok(vec![1, 3]));
        assert!(parse_gpus("").is_err());
        assert!(parse_gpus("0,x").unwrap_err().contains("'x'"));
        assert!(parse_gpus("-1").is_err());
    }

    #[test]
    fn a_knob_takes_a_valid_value_and_ignores_anything_else() {
        let tasks = |t: &usize| (1..=BATCH_TASKS).contains(t);
        assert_eq!(knob_value(Some("524288"), tasks), Some(524_288));
        assert_eq!(knob_value(Some(" 64 "), tasks), Some(64));
        // Out of range, not a number, or not set: the program's own value.
        assert_eq!(knob_value(Some("0"), tasks), None);
        assert_eq!(
            knob_value(Some(&(BATCH_TASKS + 1).to_string()), tasks),
            None
        );
        assert_eq!(knob_value(Some("2^19"), tasks), None);
        assert_eq!(knob_value(None, tasks), None);
        let balance = |b: &f64| b.is_finite() && *b > 0.0;
        assert_eq!(knob_value(Some("450"), balance), Some(450.0));
        assert_eq!(knob_value(Some("inf"), balance), None);
        assert_eq!(knob_value(Some("-1"), balance), None);
    }

    #[test]
    fn the_turns_between_tests_are_the_programs_unless_asked() {
        // On a square board, the stack without a level for the last row (see below).
        assert_eq!(
            turns_asked("", Board::new(19).unwrap()).unwrap(),
            Turns::for_width(19).with_unpushed_last(true)
        );
        // Sixteen turns on boards 19 to 28 wide, eight on narrower ones, unless asked for: eight to measure against.
        assert_eq!(
            turns_asked("", Board::new(21).unwrap())
                .unwrap()
                .between_tests,
            16
        );
        assert_eq!(
            turns_asked("", Board::new(18).unwrap())
                .unwrap()
                .between_tests,
            8
        );
        assert_eq!(
            turns_asked("NQ_UNROLL=8u", Board::new(21).unwrap()).unwrap(),
            Turns::asked(8, 21).with_unpushed_last(true)
        );
        // Other switches leave the turns as they are.
        assert_eq!(
            turns_asked("NQ_PLAIN", Board::new(27).unwrap()).unwrap(),
            Turns::for_width(27)
        );
        let two = turns_asked("NQ_PLAIN NQ_UNROLL=2u", Board::new(28).unwrap()).unwrap();
        assert_eq!(
            (two.between_tests, two.sentinel_squares, two.narrow),
            (2, 32, false)
        );
        let rect = Board::rect(12, 28).unwrap();
        assert_eq!(
            turns_asked("NQ_UNROLL=4u", rect).unwrap(),
            Turns::asked(4, rect.width())
        );
        assert_eq!(
            turns_asked("NQ_UNROLL=1u NQ_TURN_C", Board::new(28).unwrap())
                .unwrap()
                .between_tests,
            1
        );
        // Any turns on one sentinel of the whole word, on every board; narrow to 24 wide.
        for width in [16, 17, 24, 25, 28] {
            for between in ["1u", "8u", "16u"] {
                let asked = format!("NQ_UNROLL={between}");
                let turns = turns_asked(&asked, Board::new(width).unwrap()).unwrap();
                assert_eq!(
                    (turns.sentinel_squares, turns.sentinels(), turns.narrow),
                    (32, 1, width <= 24),
                    "{width} wide, {asked}"
                );
            }
        }
        let odd = turns_asked("NQ_UNROLL=3u", Board::new(12).unwrap())
            .unwrap_err()
            .to_string();
        assert!(odd.contains("1, 2, 4, 8 or 16"), "{odd}");
        let chosen = turns_asked("NQ_SENTINEL_SQUARES=8u", Board::new(12).unwrap())
            .unwrap_err()
            .to_string();
        assert!(chosen.contains("NQ_UNROLL"), "{chosen}");
    }

    #[test]
    fn a_run_may_count_with_the_frames_loop_too_unless_a_build_is_asked_for() {
        let program = turns_asked("", Board::new(22).unwrap()).unwrap();
        assert!(program.unpushed_last && !program.ahead_frame);
        let loops = loops_asked(program, " ");
        assert_eq!(loops, [program, program.with_ahead_frame(true)]);
        assert_eq!(
            loops
                .iter()
                .map(|&t| loop_name_asked(t, ""))
                .collect::<Vec<_>>(),
            ["look-ahead", "look-ahead with the next row's frame"]
        );
        // A build asked for is the only loop, and goes by its switches.
        let asked = turns_asked("NQ_AHEAD_FRAME", Board::new(22).unwrap()).unwrap();
        assert_eq!(loops_asked(asked, "NQ_AHEAD_FRAME"), [asked]);
        assert_eq!(
            loop_name_asked(asked, " NQ_AHEAD_FRAME NQ_UNROLL=8u "),
            "the build of NQ_AHEAD_FRAME NQ_UNROLL=8u"
        );
    }

    #[test]
    fn a_switch_the_kernel_does_not_have_is_refused() {
        // Every switch takes the board, and so does every name of what is the default now; the layouts,
        // probes and forms of the look-ahead measured slower and removed (the twenty-seventh and
        // thirty-second sessions), and a misspelt name, are refused with the list of those it takes.
        for switch in KERNEL_SWITCHES.into_iter().chain(DEFAULT_NAMES) {
            assert!(
                turns_asked(switch, Board::new(20).unwrap()).is_ok(),
                "{switch}"
            );
        }
        for gone in [
            "NQ_SOA",
            "NQ_PACKED",
            "NQ_AHEAD_BOTTOM",
            "NQ_PROBE_ALU",
            "NQ_AHEAD_KEPT_FIRST",
            "NQ_AHEAD_XR",
        ] {
            let message = turns_asked(&format!("NQ_AHEAD_XOR {gone}"), Board::new(20).unwrap())
                .unwrap_err()
                .to_string();
            assert!(
                message.contains(&format!("{gone}: not a switch")),
                "{message}"
            );
            assert!(message.contains("NQ_UNCOUNTED"), "{message}");
        }
    }

    #[test]
    fn a_set_of_switches_the_kernel_does_not_build_is_refused_with_the_reason() {
        // tests/gpu_kernel.rs holds the rules to the kernel's for every set; here, what the messages say.
        let refused = |asked: &str| {
            turns_asked(asked, Board::new(20).unwrap())
                .unwrap_err()
                .to_string()
        };
        let plain = refused("NQ_PLAIN NQ_UNCOUNTED");
        assert!(plain.contains("--uncounted-nodes"), "{plain}");
        let form = refused("NQ_PLAIN NQ_AHEAD_XOR");
        assert!(
            form.contains("NQ_AHEAD_XOR asks for the look-ahead"),
            "{form}"
        );
        let turn = refused("NQ_TURN_C NQ_PUSH_LAST");
        assert!(turn.contains("NQ_PUSH_LAST"), "{turn}");
        // The program's own sets build, and so do the names of the default's form.
        for asked in [
            "",
            "NQ_PLAIN",
            "NQ_UNCOUNTED",
            "NQ_PLAIN NQ_TURN_C",
            "NQ_AHEAD_XOR NQ_AHEAD_CHILDREN NQ_AHEAD_LAST NQ_PUSH_LAST",
        ] {
            assert!(switches_agree(asked).is_ok(), "{asked}");
        }
    }

    #[test]
    fn the_last_row_gets_no_stack_where_the_loop_never_pushes_it() {
        let square = turns_asked("", Board::new(20).unwrap()).unwrap();
        assert!(square.unpushed_last);
        assert!(square.defines().iter().any(|d| d == "-DNQ_LAST_UNPUSHED"));
        // n = 20's tasks of 14 levels: a sixth block of 128 threads on an H100 or H200 multiprocessor.
        let full = Turns::for_width(20);
        assert_eq!(full.shared_per_thread(14), 300);
        assert_eq!(square.shared_per_thread(14), 276);
        assert_eq!(task::hopper_blocks(full, 128, 14), 5);
        assert_eq!(task::hopper_blocks(square, 128, 14), 6);
        // The look-ahead's row with its frame keeps the end's row of table: 4 bytes more, six blocks still.
        let framed = turns_asked("NQ_AHEAD_FRAME", Board::new(20).unwrap()).unwrap();
        assert!(framed.unpushed_last && framed.ahead_frame);
        assert!(framed.defines().iter().any(|d| d == "-DNQ_AHEAD_FRAME"));
        assert_eq!(framed.shared_per_thread(14), 280);
        assert_eq!(task::hopper_blocks(framed, 128, 14), 6);
        // So does the loop that counts no node, and the loop's older names.
        for asked in ["NQ_UNCOUNTED", "NQ_AHEAD_XOR NQ_AHEAD_LAST", "NQ_UNROLL=8u"] {
            assert!(
                turns_asked(asked, Board::new(20).unwrap())
                    .unwrap()
                    .unpushed_last,
                "{asked}"
            );
        }
        // A rectangle's last row may be pushed, and so may that of the loop without the look-ahead.
        let rect = Board::rect(20, 12).unwrap();
        assert!(!turns_asked("", rect).unwrap().unpushed_last);
        assert!(
            !turns_asked("NQ_PLAIN", Board::new(20).unwrap())
                .unwrap()
                .unpushed_last
        );
        // The program's to choose, not the environment's.
        let asked = turns_asked("NQ_AHEAD_LAST NQ_LAST_UNPUSHED", rect)
            .unwrap_err()
            .to_string();
        assert!(asked.contains("program sizes the stack"), "{asked}");
    }
}
