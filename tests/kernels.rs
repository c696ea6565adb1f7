//! Every search loop this processor can run gives the same counts: the published ones for whole boards, and
//! the scalar loop's exact tallies (solutions and nodes) for every unit and for random starts and frames.
//!
//! The loops are chosen explicitly here, never through the process-wide preference, so these tests do not
//! depend on one another or on the machine's best loop; a loop the processor lacks is reported and skipped.

mod common;

use common::{published, reference_count};
use nqueens::engine::border::Border;
use nqueens::engine::kernel::{
    count_start_with, count_stream_with, Frame, Kernel, Masks, Shape, Start, Tally,
};
use nqueens::{Board, Count, Plan, Split, Symmetry};
use proptest::prelude::*;
use std::cell::RefCell;

/// The loops to test on this processor.
fn kernels() -> Vec<Kernel> {
    let (yes, no): (Vec<Kernel>, Vec<Kernel>) =
        Kernel::ALL.into_iter().partition(|k| k.available());
    for k in no {
        eprintln!("skipping the {k} kernel: this processor lacks its instructions");
    }
    yes
}

/// Every unit of `plan` counted by `kernel`, each unit's tally by its number (`None` for units the plan
/// counts by enumeration).
fn unit_tallies(kernel: Kernel, plan: &Plan) -> Vec<Option<Tally>> {
    let board = plan.board();
    let tallies = RefCell::new(vec![None; plan.units().len()]);
    let mut units = plan.units().iter().enumerate();
    count_stream_with(
        kernel,
        board.width(),
        board.lines(),
        || units.find_map(|(i, u)| plan.start(u).map(|s| (i, s))),
        |i, tally| {
            let mut tallies = tallies.borrow_mut();
            assert!(tallies[i].is_none(), "unit {i} was reported twice");
            tallies[i] = Some(tally);
        },
    );
    tallies.into_inner()
}

/// The whole board counted by `kernel`.
fn count_with(kernel: Kernel, n: u32, symmetry: Symmetry) -> Count {
    let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::Units(300));
    let tallies = unit_tallies(kernel, &plan);
    plan.units()
        .iter()
        .zip(tallies)
        .map(|(unit, tally)| match tally {
            Some(tally) => plan.weigh(unit, tally),
            None => plan.count_unit(unit),
        })
        .sum()
}

#[test]
fn every_kernel_counts_the_published_totals_and_unique_counts() {
    for kernel in kernels() {
        for row in published().iter().filter(|r| r.n <= 14) {
            for symmetry in [Symmetry::Full, Symmetry::Mirror, Symmetry::None] {
                let count = count_with(kernel, row.n, symmetry);
                assert_eq!(
                    count.total, row.total,
                    "{kernel}, n = {}, {symmetry:?}",
                    row.n
                );
                if symmetry == Symmetry::Full {
                    if let Some(unique) = row.unique {
                        assert_eq!(count.unique, unique, "{kernel}, n = {}", row.n);
                    }
                }
            }
        }
    }
}

#[test]
fn every_kernel_gives_each_unit_the_scalar_tally() {
    for n in [8, 11, 13] {
        for symmetry in [Symmetry::Full, Symmetry::Mirror, Symmetry::None] {
            let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::Units(500));
            let scalar = unit_tallies(Kernel::Scalar, &plan);
            for kernel in kernels() {
                assert_eq!(
                    unit_tallies(kernel, &plan),
                    scalar,
                    "{kernel}, n = {n}, {symmetry:?}"
                );
            }
        }
    }
}

#[test]
fn boards_beyond_the_vector_limit_and_rectangles_still_count() {
    // Boards wider than 30 go to the scalar loop whatever was asked for; rectangles up to 30 rows are the vector
    // loops' too, and a rectangle's last line may close several solutions at once.
    let wide = Kernel::ALL
        .into_iter()
        .filter(|k| !k.handles(31, 31))
        .count();
    assert_eq!(wide, 2, "the vector loops stop at 30 columns");
    for kernel in kernels() {
        for (rows, cols) in [(9, 7), (12, 5), (14, 9), (11, 11), (30, 5), (31, 4)] {
            let board = Board::rect(rows, cols).unwrap();
            let plan = Plan::new(board, Symmetry::Mirror, Split::Units(50));
            assert_eq!(
                unit_tallies(kernel, &plan),
                unit_tallies(Kernel::Scalar, &plan),
                "{kernel}, {rows}x{cols}"
            );
        }
        let open = Start {
            row: 29,
            masks: Masks::default(),
            frame: Frame::open(31),
        };
        // The last two rows of a board of 31, nothing attacked: a start no vector loop takes.
        let expected = count_start_with(Kernel::Scalar, 31, open.clone());
        assert_eq!(count_start_with(kernel, 31, open), expected);
    }
}

#[test]
fn starts_attacked_from_beyond_the_lanes_are_counted_exactly() {
    // A start whose `rd` has bits beyond column 31: they come onto a board of 12 after 20 or more rows, which
    // never happens here, but the 32-bit lanes must not be trusted with them; the scalar loop counts it.
    for kernel in kernels() {
        for bits in [1u64 << 32, 1 << 40, 0xF << 33] {
            let start = Start {
                row: 2,
                masks: Masks {
                    cols: 0b11,
                    ld: 0b1000,
                    rd: bits,
                },
                frame: Frame::open(12),
            };
            let expected = count_start_with(Kernel::Scalar, 12, start.clone());
            assert_eq!(count_start_with(kernel, 12, start), expected, "{kernel}");
        }
    }
}

#[test]
fn every_listing_loop_lists_the_solutions_under_full_mode_borders() {
    // The listing loops compute each row from the lane's shape when a lane has one that closes squares; the
    // plans list open boards only, so the borders of the full mode are what exercises that path here.
    for kernel in kernels()
        .into_iter()
        .filter(|&k| nqueens::engine::kernel::lists(k, 13, 13))
    {
        for n in [12, 13] {
            let borders = Border::canonical(n);
            let mut listed = vec![Vec::new(); borders.len()];
            let mut next = borders.iter().enumerate();
            nqueens::engine::kernel::list_stream(
                kernel,
                n,
                || {
                    next.next().map(|(i, b)| {
                        let (frame, masks) = b.frame(n);
                        (
                            i,
                            Start {
                                row: 1,
                                masks,
                                frame,
                            },
                        )
                    })
                },
                |&i, queens| listed[i].push(queens.to_vec()),
                |_| {},
            );
            for (i, b) in borders.iter().enumerate() {
                let mut expected = Vec::new();
                // The search fills rows 1 to n - 2; the bottom row is the border's.
                b.solutions(n, |queens| {
                    expected.push(queens[1..n as usize - 1].to_vec())
                });
                assert_eq!(listed[i], expected, "{kernel}, n = {n}, {b:?}");
            }
        }
    }
}

/// A start on a board of side `n` after the queens of `prefix`, with random squares ruled out by `frame`.
fn framed_start(n: u32, prefix: &[u8], allow: &[u64], block: &[u64], end: u32) -> Option<Start> {
    let masks = Board::new(n).unwrap().masks_after(prefix)?;
    let mut frame = Frame::open(n);
    frame.end = end.max(prefix.len() as u32).min(n);
    for r in 0..n as usize {
        frame.allow[r] &= allow[r % allow.len()] | (1 << (r % n as usize));
        frame.block[r] = block[r % block.len()] & !(1 << ((r * 7) % n as usize));
    }
    Some(Start {
        row: prefix.len() as u32,
        masks,
        frame,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_kernel_equals_the_reference_for_random_prefixes(
        n in 1u32..=12,
        prefix in proptest::collection::vec(0u8..12, 0..5),
    ) {
        let prefix: Vec<u8> = prefix.into_iter().filter(|&c| u32::from(c) < n).collect();
        let wide: Vec<usize> = prefix.iter().map(|&c| c as usize).collect();
        let expected = reference_count(n as usize, &wide);
        for kernel in kernels() {
            let counted = Board::new(n).unwrap().masks_after(&prefix).map_or(0, |masks| {
                let start = Start { row: prefix.len() as u32, masks, frame: Frame::open(n) };
                count_start_with(kernel, n, start).solutions
            });
            prop_assert_eq!(counted, expected, "{}", kernel);
        }
    }

    #[test]
    fn every_kernel_equals_the_scalar_loop_on_large_boards(
        n in 18u32..=30,
        left in 8u32..=12,
        image in 0u8..8,
    ) {
        // The first rows of a real solution (the construction's, under one of the board's 8 symmetries), so the
        // search of the last `left` rows has solutions, and the masks use the lanes' top bits (the look-ahead's
        // board mask among them).
        let m = n - 1;
        let built = nqueens::solutions::construct::square(n).unwrap();
        let at = |r: u32| built[r as usize];
        let row_of = |c: u32| (0..n).find(|&r| at(r) == c).unwrap();
        let queens: Vec<u32> = (0..n)
            .map(|r| match image {
                0 => at(r),
                1 => m - at(r),
                2 => at(m - r),
                3 => m - at(m - r),
                4 => row_of(r),
                5 => m - row_of(r),
                6 => row_of(m - r),
                _ => m - row_of(m - r),
            })
            .collect();
        let masks = queens[..(n - left) as usize]
            .iter()
            .fold(Masks::default(), |masks, &c| masks.place(1 << c));
        let start = Start { row: n - left, masks, frame: Frame::open(n) };
        let expected = count_start_with(Kernel::Scalar, n, start.clone());
        prop_assert!(expected.solutions >= 1);
        for kernel in kernels() {
            prop_assert_eq!(count_start_with(kernel, n, start.clone()), expected, "{}", kernel);
        }
    }

    #[test]
    fn every_kernel_equals_the_scalar_loop_on_random_shapes(
        n in 4u32..=14,
        sides in any::<bool>(),
        bottom in proptest::option::of(0u32..14),
        left in 0u32..14,
        right in 0u32..14,
        prefix in proptest::collection::vec(0u8..14, 0..4),
        end in 0u32..=14,
    ) {
        // The vector loops compute these frames' rows instead of reading them: any shape, consistent with a
        // border or not, must give the scalar loop's tally.
        let m = n - 1;
        let board = nqueens::engine::kernel::full_mask(n) as u32;
        let shape = Shape {
            base: if sides { board & !(1 | 1 << m) } else { board },
            bottom: bottom.filter(|&b| b < n).map_or(0, |b| 1 << b),
            last: m,
            left: left % n,
            right: right % n,
        };
        let prefix: Vec<u8> = prefix.into_iter().filter(|&c| u32::from(c) < n).collect();
        if let Some(masks) = Board::new(n).unwrap().masks_after(&prefix) {
            let end = end.clamp(prefix.len() as u32, n);
            let start = Start { row: prefix.len() as u32, masks, frame: Frame::shaped(shape, end) };
            let expected = count_start_with(Kernel::Scalar, n, start.clone());
            for kernel in kernels() {
                prop_assert_eq!(count_start_with(kernel, n, start.clone()), expected, "{}", kernel);
            }
        }
    }

    #[test]
    fn every_kernel_equals_the_scalar_loop_on_large_borders(
        n in 18u32..=30,
        image in 0u8..8,
        left in 8u32..=12,
    ) {
        // A real solution's border (under one of the board's symmetries), its first rows placed, the rest
        // searched: the full mode's frames on boards that use the lanes' top bits.
        let m = n - 1;
        let built = nqueens::solutions::construct::square(n).unwrap();
        let image = nqueens::engine::border::Transform(image);
        let mut queens = vec![0u32; n as usize];
        for (r, &c) in built.iter().enumerate() {
            let (r, c) = image.apply(n, (r as u32, c));
            queens[r as usize] = c;
        }
        let row_of = |c: u32| (0..n).find(|&r| queens[r as usize] == c).unwrap();
        let border = Border {
            top: queens[0] as u8,
            bottom: queens[m as usize] as u8,
            left: row_of(0) as u8,
            right: row_of(m) as u8,
        };
        let (frame, masks) = border.frame(n);
        prop_assert!(frame.shape_of(1..m).is_some(), "{:?}", border);
        // Rows 1.. placed as the solution has them (a side row takes its side queen), the last `left` searched.
        let placed = n - 1 - left;
        let masks = (1..=placed).fold(masks, |masks, r| masks.place(1 << queens[r as usize]));
        let start = Start { row: placed + 1, masks, frame };
        let expected = count_start_with(Kernel::Scalar, n, start.clone());
        prop_assert!(expected.solutions >= 1);
        for kernel in kernels() {
            prop_assert_eq!(count_start_with(kernel, n, start.clone()), expected, "{}", kernel);
        }
    }

    #[test]
    fn every_kernel_equals_the_scalar_loop_on_random_frames(
        n in 2u32..=14,
        prefix in proptest::collection::vec(0u8..14, 0..4),
        allow in proptest::collection::vec(any::<u64>(), 1..5),
        block in proptest::collection::vec(any::<u64>(), 1..5),
        end in 0u32..=14,
    ) {
        let prefix: Vec<u8> = prefix.into_iter().filter(|&c| u32::from(c) < n).collect();
        if let Some(start) = framed_start(n, &prefix, &allow, &block, end) {
            let expected = count_start_with(Kernel::Scalar, n, start.clone());
            for kernel in kernels() {
                prop_assert_eq!(count_start_with(kernel, n, start.clone()), expected, "{}", kernel);
            }
        }
    }
}
