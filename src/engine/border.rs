//! Border pre-placement: the full symmetry reduction with the board's 8 symmetries.
//!
//! Every solution has exactly one queen on each of the four border lines: the top row, the bottom row, the
//! left column and the right column (a corner queen stands on two of them). Those queens form the solution's
//! [`Border`]. A symmetry of the board maps border lines to border lines, so it maps a solution with border
//! `B` to a solution with border `g(B)`, and the solutions with border `B` and with border `g(B)` are equal in
//! number. So only one border per class is searched, the *canonical* one (the smallest of its images), and:
//!
//! - when no symmetry but the identity fixes `B` (almost always), each solution with border `B` lies in a class
//!   of 8 solutions with 8 different borders, exactly one of them `B`: the count is worth 8 solutions and 1
//!   unique solution;
//! - when a subgroup `H` of symmetries fixes `B` (rare: a border symmetric under a rotation or a reflection),
//!   `B` stands for `8 / |H|` borders, and the unique solutions among those with border `B` are the classes of
//!   `H` acting on them, counted by Burnside's lemma: `(1 / |H|) * sum over h in H of the solutions fixed by h`.
//!   Those units are enumerated solution by solution rather than counted by the kernel.
//!
//! The search of a border fills rows 1 to n - 2: the top and bottom queens are placed, the side queens force
//! their rows, the side columns are closed to every other row, and the diagonals of the queens placed below the
//! search (the bottom queen and the side queens) are blocked in the rows above them through the kernel's
//! [`Frame`].

use crate::engine::kernel::{full_mask, Frame, Masks, Shape};
use rayon::prelude::*;
use std::cmp::Ordering;
use std::fmt;

/// The queens on the border lines of a solution, as the columns of the top and bottom rows' queens and the rows
/// of the left and right columns' queens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Border {
    /// Column of the queen in row 0.
    pub top: u8,
    /// Column of the queen in row n - 1.
    pub bottom: u8,
    /// Row of the queen in column 0.
    pub left: u8,
    /// Row of the queen in column n - 1.
    pub right: u8,
}

/// A symmetry of the square board, as a map of `(row, column)`; index 0 is the identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transform(pub u8);

impl Transform {
    /// The 8 symmetries: identity, three rotations, four reflections.
    pub const ALL: [Transform; 8] = [
        Transform(0),
        Transform(1),
        Transform(2),
        Transform(3),
        Transform(4),
        Transform(5),
        Transform(6),
        Transform(7),
    ];

    /// Where the square `(r, c)` of a board of side `n` goes.
    pub fn apply(self, n: u32, (r, c): (u32, u32)) -> (u32, u32) {
        let m = n - 1;
        match self.0 {
            0 => (r, c),
            1 => (c, m - r),     // a quarter turn clockwise
            2 => (m - r, m - c), // a half turn
            3 => (m - c, r),     // a quarter turn anticlockwise
            4 => (r, m - c),     // left-right reflection
            5 => (m - r, c),     // top-bottom reflection
            6 => (c, r),         // the main diagonal
            _ => (m - c, m - r), // the other diagonal
        }
    }
}

/// A set of the square's 8 symmetries, as a bit for each [`Transform`] index: a stabiliser, held inline (a
/// work unit carries one) and listed in the order of the indices.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Group(u8);

impl Group {
    /// The group of all 8 symmetries.
    pub const ALL: Group = Group(u8::MAX);

    /// Whether `g` is in the set.
    pub fn contains(self, g: Transform) -> bool {
        self.0 & (1 << g.0) != 0
    }

    /// The number of symmetries in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty (a stabiliser never is: it holds the identity).
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The symmetries in the set, by increasing index.
    pub fn iter(self) -> Members {
        Members(self.0)
    }
}

impl FromIterator<Transform> for Group {
    fn from_iter<I: IntoIterator<Item = Transform>>(transforms: I) -> Group {
        Group(transforms.into_iter().fold(0, |bits, g| bits | (1 << g.0)))
    }
}

impl IntoIterator for Group {
    type Item = Transform;
    type IntoIter = Members;
    fn into_iter(self) -> Members {
        self.iter()
    }
}

impl IntoIterator for &Group {
    type Item = Transform;
    type IntoIter = Members;
    fn into_iter(self) -> Members {
        self.iter()
    }
}

/// The symmetries of a [`Group`], by increasing index.
#[derive(Clone, Debug)]
pub struct Members(u8);

impl Iterator for Members {
    type Item = Transform;
    fn next(&mut self) -> Option<Transform> {
        let index = self.0.trailing_zeros();
        (self.0 != 0).then(|| {
            self.0 &= self.0 - 1;
            Transform(index as u8)
        })
    }
}

impl fmt::Debug for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(|g| g.0)).finish()
    }
}

impl Border {
    /// The distinct border queens, as `(row, column)`.
    pub fn queens(self, n: u32) -> Vec<(u32, u32)> {
        let (queens, len) = self.distinct_queens(n);
        queens[..len].to_vec()
    }

    /// The distinct border queens in order, as the first `len` of an array: planning asks for them a few times
    /// for each of the n^4 candidate borders, so they are not allocated.
    fn distinct_queens(self, n: u32) -> ([(u32, u32); 4], usize) {
        let m = n - 1;
        let mut queens = [
            (0, u32::from(self.top)),
            (m, u32::from(self.bottom)),
            (u32::from(self.left), 0),
            (u32::from(self.right), m),
        ];
        queens.sort_unstable();
        let mut len = 1;
        for i in 1..queens.len() {
            if queens[i] != queens[len - 1] {
                queens[len] = queens[i];
                len += 1;
            }
        }
        (queens, len)
    }

    /// The border made of `queens`, if they hold exactly one queen on each border line.
    fn from_queens(n: u32, queens: &[(u32, u32)]) -> Option<Border> {
        fn one(mut hits: impl Iterator<Item = u32>) -> Option<u8> {
            match (hits.next(), hits.next()) {
                (Some(x), None) => Some(x as u8),
                _ => None,
            }
        }
        let m = n - 1;
        Some(Border {
            top: one(queens.iter().filter(|q| q.0 == 0).map(|q| q.1))?,
            bottom: one(queens.iter().filter(|q| q.0 == m).map(|q| q.1))?,
            left: one(queens.iter().filter(|q| q.1 == 0).map(|q| q.0))?,
            right: one(queens.iter().filter(|q| q.1 == m).map(|q| q.0))?,
        })
    }

    /// The border of the image of a solution with this border under `g`.
    pub fn image(self, n: u32, g: Transform) -> Border {
        let (mut queens, len) = self.distinct_queens(n);
        for q in &mut queens[..len] {
            *q = g.apply(n, *q);
        }
        Border::from_queens(n, &queens[..len]).expect("symmetries map border lines to border lines")
    }

    /// Whether some solution can have this border: the named queens are consistent (a corner queen is named by
    /// both its lines) and no two of them attack each other.
    pub fn is_possible(self, n: u32) -> bool {
        let (queens, len) = self.distinct_queens(n);
        let queens = &queens[..len];
        if Border::from_queens(n, queens) != Some(self) {
            return false;
        }
        queens.iter().enumerate().all(|(i, &(r1, c1))| {
            queens[i + 1..]
                .iter()
                .all(|&(r2, c2)| r1 != r2 && c1 != c2 && r1.abs_diff(r2) != c1.abs_diff(c2))
        })
    }

    /// The symmetries that map this border to itself (always including the identity).
    pub fn stabiliser(self, n: u32) -> Group {
        Transform::ALL
            .into_iter()
            .filter(|&g| self.image(n, g) == self)
            .collect()
    }

    /// The order in which a class's borders compete to be searched: the one whose side queens stand highest
    /// wins, since the search runs top-down and a forced row high up prunes the search early.
    fn key(self) -> (u8, u8, u8, u8) {
        (
            self.left.max(self.right),
            self.left.min(self.right),
            self.top,
            self.bottom,
        )
    }

    /// Whether this border is the first of its images, the one searched for its class. The order puts first
    /// the border whose side queens stand highest (ties broken by the border itself).
    pub fn is_canonical(self, n: u32) -> bool {
        Transform::ALL.into_iter().all(|g| {
            let other = self.image(n, g);
            (other.key(), other).cmp(&(self.key(), self)) != Ordering::Less
        })
    }

    /// Every canonical possible border of a board of side `n` (n >= 2), in increasing order.
    pub fn canonical(n: u32) -> Vec<Border> {
        let side = n as u8;
        // One top column per task, collected in order.
        (0..side)
            .into_par_iter()
            .flat_map_iter(|top| Border::canonical_with_top(n, top))
            .collect()
    }

    /// The canonical possible borders of a board of side `n` whose top queen is in column `top`, in order.
    fn canonical_with_top(n: u32, top: u8) -> Vec<Border> {
        let mut borders = Vec::new();
        let side = n as u8;
        {
            for bottom in 0..side {
                for left in 0..side {
                    for right in 0..side {
                        let b = Border {
                            top,
                            bottom,
                            left,
                            right,
                        };
                        if b.is_possible(n) && b.is_canonical(n) {
                            borders.push(b);
                        }
                    }
                }
            }
        }
        borders
    }

    /// The kernel's constraints for the search of rows 1 to n - 2 under this border, and the masks that the
    /// top queen and the bottom queen's column leave for row 1.
    pub fn frame(self, n: u32) -> (Frame, Masks) {
        let m = n - 1;
        let full = full_mask(n);
        let sides = 1 | (1u64 << m);
        let mut frame = Frame::open(n);
        frame.end = m;
        for r in 1..m {
            // Every shift below is by less than n <= 64 rows; bits pushed off the board fall to `& full`.
            let mut block = sides;
            // The bottom queen's diagonals, seen from row r.
            let up = m - r;
            block |= (1u64 << self.bottom) << up;
            block |= (1u64 << self.bottom) >> up;
            let (left, right) = (u32::from(self.left), u32::from(self.right));
            if r < left && left < m {
                block |= 1u64 << (left - r);
            }
            if r < right && right < m {
                block |= (1u64 << m) >> (right - r);
            }
            let mut allow = full;
            if r == left {
                allow = 1;
                block &= !1;
            }
            if r == right {
                allow = 1 << m;
                block &= !(1u64 << m);
            }
            frame.allow[r as usize] = allow;
            frame.block[r as usize] = block & full;
        }
        let side_row = |r: u32| if (1..m).contains(&r) { r } else { 0 };
        frame.shape = (n <= 32).then(|| Shape {
            base: (full & !sides) as u32,
            bottom: 1 << self.bottom,
            last: m,
            left: side_row(u32::from(self.left)),
            right: side_row(u32::from(self.right)),
        });
        let top = 1u64 << self.top;
        let masks = Masks {
            cols: top | (1u64 << self.bottom),
            ld: top << 1,
            rd: top >> 1,
        };
        (frame, masks)
    }

    /// Visits every solution with this border, as the column of each row's queen.
    pub fn solutions(self, n: u32, mut visit: impl FnMut(&[u8])) {
        let (frame, masks) = self.frame(n);
        let mut queens = vec![self.top];
        extend(&frame, masks, &mut queens, Some(self.bottom), &mut visit);
    }
}

/// Visits every solution of the open board of side `n`, as the column of each row's queen.
pub fn open_solutions(n: u32, mut visit: impl FnMut(&[u8])) {
    let mut queens = Vec::new();
    extend(
        &Frame::open(n),
        Masks::default(),
        &mut queens,
        None,
        &mut visit,
    );
}

/// Plain depth-first enumeration below `queens` under `frame`, appending `last` (a pre-placed final row) to
/// each solution. Only the rare units that need each solution, not just their number, go this way.
fn extend(
    frame: &Frame,
    masks: Masks,
    queens: &mut Vec<u8>,
    last: Option<u8>,
    visit: &mut dyn FnMut(&[u8]),
) {
    let row = queens.len() as u32;
    if row == frame.end {
        queens.extend(last);
        visit(queens);
        queens.truncate(row as usize);
        return;
    }
    let mut free = frame.free(row, masks);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        queens.push(bit.trailing_zeros() as u8);
        extend(frame, masks.place(bit), queens, last, visit);
        queens.pop();
    }
}

impl Border {
    /// The solutions with this border that `g` maps to themselves, where `g` fixes the border (it is in the
    /// [`Border::stabiliser`]).
    ///
    /// Such a solution holds, with each queen, the queen's images under `g`, so the search places a queen and its
    /// images together, row by row, and skips the rows an image has filled: it visits a half (a half turn) or a
    /// quarter (a quarter turn) of the rows a plain search would. For a reflection it ends at once: no solution
    /// of a board of side 2 or more is its own mirror image, since a queen and its image would share a line.
    ///
    /// # Panics
    /// If `g` does not fix the border.
    pub fn count_fixed(self, n: u32, g: Transform) -> u64 {
        assert!(self.image(n, g) == self, "{g:?} does not fix {self:?}");
        let mut board = Symmetric::new(n, g);
        for (r, c) in self.queens(n) {
            if !board.place(r, c) {
                return 0;
            }
        }
        board.count(0)
    }
}

/// A board being filled with queens closed under a symmetry: each queen is placed with its images.
#[derive(Clone, Copy)]
struct Symmetric {
    n: u32,
    g: Transform,
    /// The column of each row's queen, or `EMPTY`.
    rows: [u8; 64],
    /// Occupied columns, diagonals `r + c` and anti-diagonals `r - c + n - 1`.
    cols: u64,
    diagonals: u128,
    anti: u128,
}

const EMPTY: u8 = u8::MAX;

impl Symmetric {
    fn new(n: u32, g: Transform) -> Symmetric {
        Symmetric {
            n,
            g,
            rows: [EMPTY; 64],
            cols: 0,
            diagonals: 0,
            anti: 0,
        }
    }

    /// Places a queen on `(r, c)` and on its images; false if one of them attacks another queen.
    fn place(&mut self, r: u32, c: u32) -> bool {
        let (mut r, mut c) = (r, c);
        // The orbit of a square under a symmetry of the square has at most 4 squares.
        for _ in 0..4 {
            match self.rows[r as usize] {
                EMPTY => {
                    let (d, a) = (1u128 << (r + c), 1u128 << (r + self.n - 1 - c));
                    if self.cols & (1 << c) != 0 || self.diagonals & d != 0 || self.anti & a != 0 {
                        return false;
                    }
                    self.rows[r as usize] = c as u8;
                    self.cols |= 1 << c;
                    self.diagonals |= d;
                    self.anti |= a;
                }
                placed if u32::from(placed) == c => {}
                _ => return false,
            }
            (r, c) = self.g.apply(self.n, (r, c));
        }
        true
    }

    /// The ways to fill the rows from `row` on.
    fn count(&self, row: u32) -> u64 {
        let Some(r) = (row..self.n).find(|&r| self.rows[r as usize] == EMPTY) else {
            return 1;
        };
        (0..self.n)
            .filter(|&c| self.cols & (1 << c) == 0)
            .map(|c| {
                let mut next = *self;
                if next.place(r, c) {
                    next.count(r + 1)
                } else {
                    0
                }
            })
            .sum()
    }
}

/// Whether the solution `queens` (the column of each row's queen) is mapped to itself by `g`.
pub fn is_fixed(n: u32, queens: &[u8], g: Transform) -> bool {
    queens.iter().enumerate().all(|(r, &c)| {
        let (r2, c2) = g.apply(n, (r as u32, u32::from(c)));
        u32::from(queens[r2 as usize]) == c2
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_form_the_group_of_the_square() {
        let n = 7;
        for g in Transform::ALL {
            let images: std::collections::BTreeSet<_> = (0..n)
                .flat_map(|r| (0..n).map(move |c| g.apply(n, (r, c))))
                .collect();
            assert_eq!(images.len(), (n * n) as usize, "{g:?} is a bijection");
        }
        assert_eq!(Transform(1).apply(8, (0, 0)), (0, 7));
    }

    #[test]
    fn the_eight_symmetries_are_distinct_maps_closed_under_composition() {
        // As tables of every square, on an odd and an even board: no two symmetries are the same map, and
        // following one by another gives one of the eight.
        for n in [5, 6] {
            let squares: Vec<(u32, u32)> =
                (0..n).flat_map(|r| (0..n).map(move |c| (r, c))).collect();
            let table = |map: &dyn Fn((u32, u32)) -> (u32, u32)| -> Vec<(u32, u32)> {
                squares.iter().map(|&sq| map(sq)).collect()
            };
            let tables: Vec<_> = Transform::ALL
                .iter()
                .map(|&g| table(&|sq| g.apply(n, sq)))
                .collect();
            for (i, a) in tables.iter().enumerate() {
                for (j, b) in tables.iter().enumerate().skip(i + 1) {
                    assert_ne!(a, b, "n = {n}: transforms {i} and {j} are the same map");
                }
            }
            for g in Transform::ALL {
                for h in Transform::ALL {
                    let composed = table(&|sq| h.apply(n, g.apply(n, sq)));
                    assert!(tables.contains(&composed), "n = {n}: {g:?} then {h:?}");
                }
            }
        }
    }

    #[test]
    fn a_group_is_the_set_of_the_transforms_collected_into_it() {
        let group: Group = [Transform(2), Transform(0), Transform(2)]
            .into_iter()
            .collect();
        for g in Transform::ALL {
            assert_eq!(group.contains(g), g.0 == 0 || g.0 == 2, "{g:?}");
        }
        assert_eq!(group.len(), 2, "a transform named twice is in the set once");
        assert!(!group.is_empty());
        assert_eq!(
            group.iter().collect::<Vec<_>>(),
            [Transform(0), Transform(2)]
        );
        assert_eq!(format!("{group:?}"), "{0, 2}");

        let empty = Group::default();
        assert!(empty.is_empty());
        assert_eq!(empty.len(), 0);
        assert!(Transform::ALL.into_iter().all(|g| !empty.contains(g)));
        assert!(Transform::ALL.into_iter().all(|g| Group::ALL.contains(g)));
        assert_eq!(Group::ALL.len(), 8);
    }

    #[test]
    fn a_stabiliser_holds_exactly_the_symmetries_that_fix_the_border() {
        for n in [7, 8] {
            for b in Border::canonical(n) {
                let stabiliser = b.stabiliser(n);
                assert!(!stabiliser.is_empty());
                for g in Transform::ALL {
                    assert_eq!(
                        stabiliser.contains(g),
                        b.image(n, g) == b,
                        "n = {n}, {b:?}, {g:?}"
                    );
                }
            }
        }
    }

    /// Every possible border of a board of side `n`, found by trying every placement of the border queens.
    fn possible_borders(n: u32) -> Vec<Border> {
        let side = n as u8;
        let mut borders = Vec::new();
        for top in 0..side {
            for bottom in 0..side {
                for left in 0..side {
                    for right in 0..side {
                        let b = Border {
                            top,
                            bottom,
                            left,
                            right,
                        };
                        if b.is_possible(n) {
                            borders.push(b);
                        }
                    }
                }
            }
        }
        borders
    }

    #[test]
    fn each_class_of_borders_has_one_canonical_border_with_the_highest_side_queens() {
        for n in 4..=8 {
            let possible = possible_borders(n);
            for &b in &possible {
                let class: std::collections::BTreeSet<Border> =
                    Transform::ALL.into_iter().map(|g| b.image(n, g)).collect();
                let canonical: Vec<Border> = class
                    .iter()
                    .copied()
                    .filter(|c| c.is_canonical(n))
                    .collect();
                assert_eq!(
                    canonical.len(),
                    1,
                    "n = {n}: the class of {b:?} has {canonical:?}"
                );
                let sides = |c: Border| (c.left.max(c.right), c.left.min(c.right));
                let highest = class.iter().map(|&c| sides(c)).min();
                assert_eq!(
                    Some(sides(canonical[0])),
                    highest,
                    "n = {n}: the class of {b:?}"
                );
            }
            let mut expected: Vec<Border> =
                possible.into_iter().filter(|b| b.is_canonical(n)).collect();
            expected.sort();
            assert_eq!(Border::canonical(n), expected, "n = {n}");
        }
    }

    #[test]
    fn the_canonical_borders_give_the_published_counts() {
        // Each canonical border stands for its 8 / |H| images; its unique solutions are the classes of its
        // solutions under its stabiliser H, by Burnside's lemma. The solutions are enumerated one by one.
        for n in 4..=11 {
            let (mut total, mut unique) = (0u128, 0u128);
            for b in Border::canonical(n) {
                let stabiliser = b.stabiliser(n);
                let order = stabiliser.len() as u128;
                let (mut solutions, mut fixed) = (0u128, 0u128);
                b.solutions(n, |queens| {
                    solutions += 1;
                    fixed += stabiliser
                        .iter()
                        .filter(|&g| is_fixed(n, queens, g))
                        .count() as u128;
                });
                assert_eq!(fixed % order, 0, "n = {n}, {b:?}");
                total += solutions * (8 / order);
                unique += fixed / order;
            }
            assert_eq!(
                (total, Some(unique)),
                crate::engine::published(n),
                "n = {n}"
            );
        }
    }

    #[test]
    fn a_corner_queen_names_two_lines() {
        let n = 6;
        let corner = Border {
            top: 0,
            bottom: 3,
            left: 0,
            right: 4,
        };
        assert_eq!(corner.queens(n).len(), 3);
        assert!(
            !Border { left: 2, ..corner }.is_possible(n),
            "the corner must be named by both lines"
        );
    }

    #[test]
    fn the_search_for_symmetric_solutions_finds_what_enumeration_finds() {
        // Every border fixed by a symmetry, every symmetry that fixes it: the solutions it fixes, counted by the
        // symmetric search and by checking each of the border's solutions.
        let mut seen = 0;
        for n in 4..=12 {
            for b in Border::canonical(n) {
                for g in b.stabiliser(n) {
                    let mut fixed = 0;
                    b.solutions(n, |q| fixed += u64::from(is_fixed(n, q, g)));
                    assert_eq!(b.count_fixed(n, g), fixed, "n = {n}, {b:?}, {g:?}");
                    seen += u64::from(g.0 != 0 && fixed > 0);
                }
            }
        }
        assert!(
            seen > 0,
            "some borders have solutions fixed by a symmetry other than the identity"
        );
    }

    #[test]
    fn a_frame_leaves_each_row_exactly_the_squares_no_border_queen_below_it_rules_out() {
        // Written square by square: the queens above a row reach it through the search's masks (the top
        // queen's, given with the frame), the columns of the top and bottom queens too; the frame holds what the
        // queens below it attack and keeps the side columns for the side queens' own rows. A frame that blocks
        // less still counts right but searches more: only this test would see it. Every border of the small
        // boards; a sample of the canonical borders of wide ones, where a shift gone wrong lands on the board.
        let small = (4..=12).map(|n| (n, possible_borders(n)));
        let wide =
            [33, 47, 64].map(|n| (n, Border::canonical(n).into_iter().step_by(251).collect()));
        for (n, borders) in small.chain(wide) {
            let m = n - 1;
            for b in borders {
                let (frame, masks) = b.frame(n);
                assert_eq!(frame.end, m, "n = {n}, {b:?}");
                let (left, right) = (u32::from(b.left), u32::from(b.right));
                for r in 1..m {
                    let open = |c: u32| {
                        let side_ok = if r == left {
                            c == 0
                        } else if r == right {
                            c == m
                        } else {
                            c != 0 && c != m
                        };
                        let diagonal = |row: u32, col: u32| row - r == c.abs_diff(col);
                        let below = |row: u32| r < row && row < m;
                        let attacked = diagonal(m, u32::from(b.bottom))
                            || (below(left) && diagonal(left, 0))
                            || (below(right) && diagonal(right, m));
                        side_ok && !attacked
                    };
                    let expected = (0..n).filter(|&c| open(c)).fold(0u64, |s, c| s | 1 << c);
                    let r_ = r as usize;
                    assert_eq!(
                        frame.allow[r_] & !frame.block[r_] & full_mask(n),
                        expected,
                        "n = {n}, {b:?}, row {r}"
                    );
                }
                let top = 1u64 << b.top;
                assert_eq!(masks.cols, top | 1 << b.bottom, "n = {n}, {b:?}");
                assert_eq!((masks.ld, masks.rd), (top << 1, top >> 1), "n = {n}, {b:?}");
            }
        }
    }

    #[test]
    fn every_border_frame_has_the_shape_the_vector_loops_compute() {
        // A frame without its shape would still count right, on the scalar loop: this keeps the full mode on
        // the vector loops.
        for n in 4..=17 {
            for b in Border::canonical(n) {
                let (frame, _) = b.frame(n);
                assert!(frame.shape_of(1..n - 1).is_some(), "n = {n}, {b:?}");
            }
        }
    }

    #[test]
    fn the_images_of_a_border_are_consistent() {
        let n = 8;
        for b in Border::canonical(n) {
            for g in Transform::ALL {
                assert!(b.image(n, g).is_possible(n));
            }
            let stab = b.stabiliser(n);
            assert_eq!(8 % stab.len(), 0);
        }
    }
}
