//! Counting completions in bulk (issue 19): ways to count the last rows of a search many at a time instead of
//! leaf by leaf, measured against the full mode's own search on the same plan, unit by unit.
//! `cargo run --release --example bulk_counting -- N... [--methods LIST] [--cap MB] [--sample M]` (default
//! N = 14; `--methods "plain,memo 5 gaps,join 6"`; `--sample M` counts one block of 256 units in `M`).
//!
//! Every method counts the same units: those of the full mode's plan for one thread (the border units, split as
//! `nqueens count N -t 1` splits them), each from its start (rows placed, masks, frame). The reference is the
//! engine's own loop (`count_stream`, the vector loop this processor has) run over the same units; every
//! method's count of every unit is checked against it, and the whole board's total and unique count (the
//! Burnside units added by the engine) against `data/known-counts.tsv`. The methods:
//!
//! - `plain`: a plain recursive search over the frame, the nodes of the backtracker (queens placed, the last
//!   row's included, as the engine counts them; checked equal to the engine's nodes).
//! - `memo k`: the plain search down to the row where `k` rows are left, then the completions of those rows
//!   looked up by their key: the open squares of each of the `k` rows (free columns less the attacked squares,
//!   the frame's included), so every attack that can no longer matter is masked away. The key is shifted to
//!   column 0 (completions depend on the columns' differences only) and the smaller of it and its left-right
//!   mirror image is kept. A miss is counted by a plain search and stored.
//! - `memo k gaps`, `memo k gaps flip`: the key also forgets the width of every run of empty columns wider
//!   than the `k` rows can span (two queens at most `k - 1` rows apart cannot attack across it), and with `flip`
//!   which way up the rows are (the smaller of the key and the key of the rows reversed).
//! - `memo j..k`: the same, and the searches of a miss looked up again at every depth from `k` rows down to `j`
//!   (caching at several depths: a dynamic programme over the remaining sub-board).
//! - `join k`: meet in the middle. For each set of free columns (shifted to column 0) the placements of the last
//!   `k` rows on exactly those columns are enumerated once, and for each row and column the set of placements
//!   with a queen there is kept as a bitset. A search that reaches the cut gets its count from these, without a
//!   search: the AND over the rows of the OR of the bitsets of the row's open squares, then a population count.
//!   Its cost is counted in 64-bit word operations. `join half` cuts at half the rows the search fills.
//! - `units`: the full mode's units grouped by their key at their start (the open squares of every row left):
//!   the units whose sub-board coincides with an earlier unit's are the nodes a weighted count would save.
//!
//! Nodes and lookups are exact and do not depend on the machine; the seconds are those of these plain
//! recursive searches on one thread (the engine's vector loop does a node in some 1 ns here, this recursion in
//! some 6 to 9): compare methods by nodes and lookups first, by time within the same style of loop. A method's
//! caches hold at most `--cap` MB (default 512, shared by a memo's depths) and are emptied when full: the
//! clears are reported. The figures are in `results/bulk-counting.md`.

use nqueens::engine::kernel::{self, Start, Tally};
use nqueens::engine::plan::Weight;
use nqueens::{Board, Count, Plan, Split, Symmetry};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

/// A multiply-and-rotate hasher for keys that are already well mixed bit patterns (std's SipHash costs more
/// than the searches it would save).
#[derive(Default)]
struct Fx(u64);

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// The most rows a packed key holds, and the widest row: 3 rows of 21 bits a word.
const KEY_ROWS: usize = 12;
const KEY_BITS: u32 = 21;

/// The open squares of the rows left, shifted to column 0, packed.
type Key = [u64; KEY_ROWS / 3];

/// What a method did.
#[derive(Clone, Copy, Default)]
struct Stats {
    /// Queens placed by searches (the last row's included).
    nodes: u64,
    /// Cache lookups, and those answered from the cache.
    lookups: u64,
    hits: u64,
    /// 64-bit word operations of the joins (and words built into their tables).
    words: u64,
    /// Entries stored at the end, the most at any time, and times a cache was emptied.
    entries: u64,
    peak_bytes: u64,
    clears: u64,
}

/// The open squares of rows `row..end` of a start's frame under `masks`, as `u32`s.
fn open_rows(start: &Start, row: u32, masks: kernel::Masks, out: &mut Vec<u32>) {
    out.clear();
    for (j, r) in (row..start.frame.end).enumerate() {
        let shifted = kernel::Masks {
            cols: masks.cols,
            ld: masks.ld.checked_shl(j as u32).unwrap_or(0),
            rd: masks.rd.checked_shr(j as u32).unwrap_or(0),
        };
        out.push(start.frame.free(r, shifted) as u32);
    }
}

/// How much of the sub-board's symmetry a key forgets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Canon {
    /// Shifted to column 0, and the smaller of the key and its left-right mirror image.
    Mirror,
    /// Also wide gaps narrowed.
    Gaps,
    /// Also the rows upside down: two queens' rows are as far apart either way, so completions are the same.
    Flip,
}

/// `rows` shifted to column 0, and the smaller of it and its mirror image. With `gaps`, every run of empty
/// columns wider than the rows can span is narrowed first: two queens `k` rows apart or less attack each other
/// on a diagonal only if their columns are less than `k` apart, so a gap of `k` columns or more keeps every
/// pair across it safe whatever its width.
fn canonical(rows: &[u32], canon: Canon, out: &mut Vec<u32>) {
    if canon == Canon::Flip {
        let mut flipped = Vec::with_capacity(rows.len());
        canonical(rows, Canon::Gaps, out);
        let reversed: Vec<u32> = rows.iter().rev().copied().collect();
        canonical(&reversed, Canon::Gaps, &mut flipped);
        if flipped < *out {
            *out = flipped;
        }
        return;
    }
    let gaps = canon == Canon::Gaps;
    let mut union = rows.iter().fold(0, |a, &r| a | r);
    out.clear();
    if union == 0 {
        out.extend_from_slice(rows);
        return;
    }
    let mut narrowed = [0u32; 64];
    let k = rows.len() as u32;
    let rows = if gaps && union.count_ones() > 1 {
        let (mut at, mut last) = (0u32, union.trailing_zeros());
        let mut cols = union;
        while cols != 0 {
            let c = cols.trailing_zeros();
            cols &= cols - 1;
            at += (c - last).min(k);
            last = c;
            for (n, &r) in narrowed.iter_mut().zip(rows) {
                *n |= (r >> c & 1) << at;
            }
        }
        union = narrowed[..rows.len()].iter().fold(0, |a, &r| a | r);
        &narrowed[..rows.len()]
    } else {
        rows
    };
    let low = union.trailing_zeros();
    let span = 32 - (union >> low).leading_zeros();
    out.extend(rows.iter().map(|&r| r >> low));
    let mirrored = rows
        .iter()
        .map(|&r| (r >> low).reverse_bits() >> (32 - span));
    if mirrored.clone().lt(out.iter().copied()) {
        out.clear();
        out.extend(mirrored);
    }
}

fn pack(rows: &[u32]) -> Key {
    let mut key = [0u64; KEY_ROWS / 3];
    for (i, &r) in rows.iter().enumerate() {
        key[i / 3] |= u64::from(r) << (KEY_BITS * (i as u32 % 3));
    }
    key
}

/// The completions of `rows` (the open squares of each row left) by a plain search.
fn search_rows(rows: &[u32], stats: &mut Stats) -> u64 {
    let (&first, rest) = rows.split_first().expect("at least one row");
    if rest.is_empty() {
        stats.nodes += u64::from(first.count_ones());
        return u64::from(first.count_ones());
    }
    let mut free = first;
    let mut total = 0;
    let mut child = [0u32; 64];
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        stats.nodes += 1;
        for (j, (&r, c)) in rest.iter().zip(child.iter_mut()).enumerate() {
            let d = j as u32 + 1;
            *c = r & !(bit | bit << d | bit >> d);
        }
        total += search_rows(&child[..rest.len()], stats);
    }
    total
}

/// A bounded cache of completions per number of rows left.
struct Memo {
    /// Rows left at which states are looked up: `lo..=hi`.
    lo: usize,
    canon: Canon,
    /// Entries each table holds at most.
    cap: usize,
    tables: Vec<FxMap<Key, u64>>,
    scratch: Vec<Vec<u32>>,
}

impl Memo {
    fn new(lo: usize, hi: usize, canon: Canon, bytes: usize) -> Memo {
        assert!(2 <= lo && lo <= hi && hi <= KEY_ROWS);
        let entry = std::mem::size_of::<(Key, u64)>() + 1;
        Memo {
            lo,
            canon,
            // A table holding n entries has room for 8n/7 (rounded up to a power of two).
            cap: bytes / entry / (hi - lo + 1) * 7 / 16,
            tables: (0..=hi).map(|_| FxMap::default()).collect(),
            scratch: vec![Vec::new(); hi + 1],
        }
    }

    fn bytes(&self) -> u64 {
        let entry = std::mem::size_of::<(Key, u64)>() as u64 + 1;
        self.tables
            .iter()
            .map(|t| t.capacity() as u64 * entry)
            .sum()
    }

    /// The completions of `rows`, looked up where their number is in `lo..=hi`.
    fn solve(&mut self, rows: &[u32], stats: &mut Stats) -> u64 {
        let k = rows.len();
        if k < self.lo {
            return search_rows(rows, stats);
        }
        if rows.contains(&0) {
            return 0;
        }
        let mut key_rows = std::mem::take(&mut self.scratch[k]);
        canonical(rows, self.canon, &mut key_rows);
        let key = pack(&key_rows);
        self.scratch[k] = key_rows;
        stats.lookups += 1;
        if let Some(&c) = self.tables[k].get(&key) {
            stats.hits += 1;
            return c;
        }
        let (&first, rest) = rows.split_first().expect("k >= 2");
        let mut free = first;
        let mut total = 0;
        let mut child = [0u32; KEY_ROWS];
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            stats.nodes += 1;
            for (j, (&r, c)) in rest.iter().zip(child.iter_mut()).enumerate() {
                let d = j as u32 + 1;
                *c = r & !(bit | bit << d | bit >> d);
            }
            total += self.solve(&child[..rest.len()], stats);
        }
        if self.tables[k].len() >= self.cap {
            stats.peak_bytes = stats.peak_bytes.max(self.bytes());
            self.tables[k].clear();
            stats.clears += 1;
        }
        self.tables[k].insert(key, total);
        total
    }
}

/// The placements of the last `k` rows on one set of free columns, as bitsets per row and column.
struct Join {
    placements: usize,
    words: usize,
    /// `bits[(j * k + i) * words ..][..words]`: the placements with their row-`j` queen on the `i`-th column.
    bits: Vec<u64>,
}

impl Join {
    fn new(k: usize, cols: u32, stats: &mut Stats) -> Join {
        let columns: Vec<u32> = (0..32).filter(|c| cols >> c & 1 == 1).collect();
        let mut placements: Vec<Vec<u8>> = Vec::new();
        fn extend(k: usize, columns: &[u32], q: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
            let row = q.len() as u32;
            if q.len() == k {
                out.push(q.clone());
                return;
            }
            for (i, &c) in columns.iter().enumerate() {
                let free = q.iter().enumerate().all(|(r, &p)| {
                    let pc = columns[p as usize];
                    pc != c && pc.abs_diff(c) != row - r as u32
                });
                if free {
                    q.push(i as u8);
                    extend(k, columns, q, out);
                    q.pop();
                }
            }
        }
        extend(k, &columns, &mut Vec::new(), &mut placements);
        let words = placements.len().div_ceil(64).max(1);
        let mut bits = vec![0u64; k * k * words];
        for (b, p) in placements.iter().enumerate() {
            for (j, &i) in p.iter().enumerate() {
                bits[(j * k + i as usize) * words + b / 64] |= 1 << (b % 64);
            }
        }
        stats.words += bits.len() as u64;
        Join {
            placements: placements.len(),
            words,
            bits,
        }
    }

    /// The placements whose row-`j` queen stands on an open square of `rows[j]` (bits within the columns), for
    /// every row: `acc` is scratch space.
    fn count(&self, cols: u32, rows: &[u32], acc: &mut Vec<u64>, stats: &mut Stats) -> u64 {
        let k = rows.len();
        let w = self.words;
        acc.clear();
        acc.resize(w, u64::MAX);
        let mut row_bits = vec![0u64; w];
        for (j, &open) in rows.iter().enumerate() {
            // A placement has one queen in the row: on an open square or else on a closed one, so the fewer
            // of the two are ORed.
            let closed = cols & !open;
            let (mut squares, invert) = if open.count_ones() <= closed.count_ones() {
                (open, false)
            } else {
                (closed, true)
            };
            row_bits.iter_mut().for_each(|x| *x = 0);
            while squares != 0 {
                let c = squares.trailing_zeros();
                squares &= squares - 1;
                // The rank of the square among the free columns.
                let i = (cols & ((1u32 << c) - 1)).count_ones() as usize;
                let set = &self.bits[(j * k + i) * w..][..w];
                row_bits.iter_mut().zip(set).for_each(|(x, s)| *x |= s);
                stats.words += w as u64;
            }
            let mut any = 0;
            for (a, r) in acc.iter_mut().zip(&row_bits) {
                *a &= if invert { !r } else { *r };
                any |= *a;
            }
            stats.words += w as u64;
            if any == 0 {
                return 0;
            }
        }
        // Bits past the last placement: no row's set has them, but an inverted row sets them.
        let tail = self.placements % 64;
        if tail != 0 {
            acc[w - 1] &= (1u64 << tail) - 1;
        }
        acc.iter().map(|a| u64::from(a.count_ones())).sum()
    }
}

/// A method's way of counting a unit.
#[derive(Clone, Copy, Debug)]
enum Method {
    Plain,
    /// Rows left looked up (from, to), and the key's symmetry.
    Memo(usize, usize, Canon),
    Join(usize),
    /// Meet in the middle: the join at half the rows the search fills.
    JoinHalf,
}

impl Method {
    fn name(self) -> String {
        match self {
            Method::Plain => "plain".into(),
            Method::Memo(lo, hi, canon) => {
                let rows = if lo == hi {
                    format!("{hi}")
                } else {
                    format!("{lo}..{hi}")
                };
                let key = match canon {
                    Canon::Mirror => "",
                    Canon::Gaps => " gaps",
                    Canon::Flip => " gaps flip",
                };
                format!("memo {rows}{key}")
            }
            Method::Join(k) => format!("join {k}"),
            Method::JoinHalf => "join half".into(),
        }
    }

    fn parse(s: &str) -> Method {
        let bad = || -> ! {
            panic!(
                "unknown method '{s}': plain, memo K [gaps [flip]], memo J..K [gaps [flip]], join K, join half"
            )
        };
        let mut words = s.split_whitespace();
        match (words.next(), words.next()) {
            (Some("plain"), None) => Method::Plain,
            (Some("memo"), Some(k)) => {
                let canon = match (words.next(), words.next()) {
                    (None, _) => Canon::Mirror,
                    (Some("gaps"), None) => Canon::Gaps,
                    (Some("gaps"), Some("flip")) => Canon::Flip,
                    _ => bad(),
                };
                let (lo, hi) = k.split_once("..").unwrap_or((k, k));
                Method::Memo(
                    lo.parse().unwrap_or_else(|_| bad()),
                    hi.parse().unwrap_or_else(|_| bad()),
                    canon,
                )
            }
            (Some("join"), Some("half")) => Method::JoinHalf,
            (Some("join"), Some(k)) => Method::Join(k.parse().unwrap_or_else(|_| bad())),
            _ => bad(),
        }
    }
}

/// The state one method keeps across the units of a board.
struct Runner {
    method: Method,
    memo: Option<Memo>,
    joins: FxMap<u32, Join>,
    join_words: usize,
    cap: usize,
    stats: Stats,
    rows: Vec<u32>,
    acc: Vec<u64>,
}

impl Runner {
    fn new(method: Method, cap: usize) -> Runner {
        Runner {
            method,
            memo: match method {
                Method::Memo(lo, hi, canon) => Some(Memo::new(lo, hi, canon, cap)),
                _ => None,
            },
            joins: FxMap::default(),
            join_words: 0,
            cap,
            stats: Stats::default(),
            rows: Vec::new(),
            acc: Vec::new(),
        }
    }

    /// Rows left at which the method stops searching.
    fn cut(&self, start: &Start) -> u32 {
        match self.method {
            Method::JoinHalf => (start.frame.end - 1) / 2,
            Method::Plain => 0,
            Method::Memo(_, hi, _) => hi as u32,
            Method::Join(k) => k as u32,
        }
    }

    fn count(&mut self, start: &Start) -> u64 {
        self.below(start, start.row, start.masks)
    }

    fn below(&mut self, start: &Start, row: u32, masks: kernel::Masks) -> u64 {
        let left = start.frame.end - row;
        if left == 0 {
            return 1;
        }
        if left <= self.cut(start) {
            let mut rows = std::mem::take(&mut self.rows);
            open_rows(start, row, masks, &mut rows);
            let found = self.bulk(start, masks, &rows);
            self.rows = rows;
            return found;
        }
        let mut free = start.frame.free(row, masks);
        if left == 1 {
            self.stats.nodes += u64::from(free.count_ones());
            return u64::from(free.count_ones());
        }
        let mut total = 0;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            self.stats.nodes += 1;
            total += self.below(start, row + 1, masks.place(bit));
        }
        total
    }

    fn bulk(&mut self, start: &Start, masks: kernel::Masks, rows: &[u32]) -> u64 {
        match self.method {
            Method::Plain => unreachable!("the plain search has no cut"),
            Method::Memo(..) => {
                let memo = self.memo.as_mut().expect("memo methods have a memo");
                memo.solve(rows, &mut self.stats)
            }
            Method::Join(_) | Method::JoinHalf => {
                if rows.contains(&0) {
                    return 0;
                }
                let n = start.frame.end + 1;
                let free = (full(n) & !masks.cols) as u32;
                let low = free.trailing_zeros();
                let cols = free >> low;
                let shifted: Vec<u32> = rows.iter().map(|&r| r >> low).collect();
                self.stats.lookups += 1;
                if !self.joins.contains_key(&cols) {
                    if self.join_words * 8 >= self.cap {
                        self.stats.peak_bytes =
                            self.stats.peak_bytes.max(self.join_words as u64 * 8);
                        self.joins.clear();
                        self.join_words = 0;
                        self.stats.clears += 1;
                    }
                    let join = Join::new(rows.len(), cols, &mut self.stats);
                    self.join_words += join.bits.len();
                    self.joins.insert(cols, join);
                } else {
                    self.stats.hits += 1;
                }
                let join = &self.joins[&cols];
                join.count(cols, &shifted, &mut self.acc, &mut self.stats)
            }
        }
    }

    fn finish(&mut self) -> Stats {
        let mut stats = self.stats;
        match &self.memo {
            Some(memo) => {
                stats.entries = memo.tables.iter().map(|t| t.len() as u64).sum();
                stats.peak_bytes = stats.peak_bytes.max(memo.bytes());
            }
            None => {
                stats.entries = self.joins.len() as u64;
                stats.peak_bytes = stats.peak_bytes.max(self.join_words as u64 * 8);
            }
        }
        stats
    }
}

fn full(n: u32) -> u64 {
    u64::MAX >> (64 - n)
}

/// One board's plain units with their starts and the engine's tallies, and the count of the whole board.
struct Board_ {
    n: u32,
    /// The plan's plain units (the methods may count a sample of them).
    units: usize,
    starts: Vec<Start>,
    tallies: Vec<Tally>,
    engine_seconds: f64,
    total: Count,
}

/// Units are sampled in blocks of this many consecutive units, so that a cache sees neighbouring units together.
const SAMPLE_BLOCK: usize = 256;

fn prepare(n: u32, sample: usize) -> Board_ {
    let plan = Plan::new(
        Board::new(n).expect("a board the engine takes"),
        Symmetry::Full,
        Split::Auto { threads: 1 },
    );
    let plain: Vec<_> = plan
        .units()
        .iter()
        .filter(|u| matches!(u.weight, Weight::Plain { .. }))
        .collect();
    let starts: Vec<Start> = plain
        .iter()
        .map(|u| plan.start(u).expect("plain units have starts"))
        .collect();
    let mut tallies = vec![Tally::default(); starts.len()];
    let clock = Instant::now();
    let units = starts.len();
    let mut next = starts.iter().cloned().enumerate();
    kernel::count_stream(n, || next.next(), |i, t| tallies[i] = t);
    let engine_seconds = clock.elapsed().as_secs_f64();
    let mut total: Count = plain
        .iter()
        .zip(&tallies)
        .map(|(u, &t)| plan.weigh(u, t))
        .sum();
    // The methods count one block of units in `sample` (all of them for 1).
    let keep = |i: &usize| (i / SAMPLE_BLOCK).is_multiple_of(sample);
    let starts: Vec<Start> = starts
        .into_iter()
        .enumerate()
        .filter(|(i, _)| keep(i))
        .map(|(_, s)| s)
        .collect();
    let tallies: Vec<Tally> = tallies
        .into_iter()
        .enumerate()
        .filter(|(i, _)| keep(i))
        .map(|(_, t)| t)
        .collect();
    total += plan
        .units()
        .iter()
        .filter(|u| matches!(u.weight, Weight::Burnside(_)))
        .map(|u| plan.count_unit(u))
        .sum();
    Board_ {
        n,
        units,
        starts,
        tallies,
        engine_seconds,
        total,
    }
}

/// Units grouped by their sub-board: distinct keys, and the nodes of the units whose key came earlier.
fn group_units(b: &Board_) -> (usize, u64) {
    let mut seen: FxMap<Vec<u32>, ()> = FxMap::default();
    let (mut rows, mut key) = (Vec::new(), Vec::new());
    let mut saved = 0;
    for (s, t) in b.starts.iter().zip(&b.tallies) {
        open_rows(s, s.row, s.masks, &mut rows);
        canonical(&rows, Canon::Flip, &mut key);
        if seen.insert(key.clone(), ()).is_some() {
            saved += t.nodes;
        }
    }
    (seen.len(), saved)
}

/// The published total and unique count of board `n`, from `data/known-counts.tsv`.
fn known(n: u32) -> Option<(u128, u128)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/known-counts.tsv");
    let text = std::fs::read_to_string(path).ok()?;
    text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        let mut f = l.split('\t');
        (f.next()?.parse::<u32>().ok()? == n)
            .then(|| Some((f.next()?.parse().ok()?, f.next()?.parse().ok()?)))?
    })
}

fn main() {
    let mut boards = Vec::new();
    let mut methods = vec![
        Method::Plain,
        Method::Memo(4, 4, Canon::Mirror),
        Method::Memo(5, 5, Canon::Mirror),
        Method::Memo(6, 6, Canon::Mirror),
        Method::Memo(8, 8, Canon::Mirror),
        Method::Memo(5, 5, Canon::Gaps),
        Method::Memo(6, 6, Canon::Gaps),
        Method::Memo(8, 8, Canon::Gaps),
        Method::Memo(5, 5, Canon::Flip),
        Method::Memo(3, 8, Canon::Gaps),
        Method::Memo(3, 12, Canon::Gaps),
        Method::Join(4),
        Method::Join(6),
        Method::Join(8),
        Method::JoinHalf,
    ];
    let mut cap = 512 << 20;
    let mut sample = 1;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--methods" => {
                let list = args.next().expect("--methods takes a list");
                methods = list.split(',').map(Method::parse).collect();
            }
            "--cap" => {
                let mb: usize = args.next().and_then(|c| c.parse().ok()).expect("--cap MB");
                cap = mb << 20;
            }
            "--sample" => {
                sample = args
                    .next()
                    .and_then(|c| c.parse().ok())
                    .expect("--sample M")
            }
            n => boards.push(n.parse::<u32>().expect("N is a board side")),
        }
    }
    if boards.is_empty() {
        boards.push(14);
    }
    println!(
        "| n | method | nodes | lookups | hit ratio | word ops | entries | peak memory | clears | seconds |"
    );
    println!("|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|");
    for &n in &boards {
        assert!((4..=KEY_BITS).contains(&n), "n from 4 to {KEY_BITS}");
        let b = prepare(n, sample);
        let published = known(n).expect("the board's published counts");
        assert_eq!(
            (b.total.total, b.total.unique),
            published,
            "the engine's count of n = {n} is the published one"
        );
        let nodes: u64 = b.tallies.iter().map(|t| t.nodes).sum();
        println!(
            "| {n} | engine ({}, all {} units; total {}, unique {}) | {} | | | | | | | {:.3} |",
            kernel::Kernel::preferred(),
            b.units,
            b.total.total,
            b.total.unique,
            b.total.nodes,
            b.engine_seconds
        );
        if sample > 1 {
            println!(
                "| {n} | engine, the sample: {} units in blocks of {SAMPLE_BLOCK}, 1 block in {sample} | {nodes} | | | | | | | |",
                b.starts.len(),
            );
        }
        let (distinct, saved) = group_units(&b);
        println!(
            "| {n} | units grouped by sub-board: {distinct} distinct of {}, nodes saved {:.4} | {} | | | | | | | |",
            b.starts.len(),
            saved as f64 / nodes as f64,
            nodes - saved
        );
        for &method in &methods {
            let mut runner = Runner::new(method, cap);
            let clock = Instant::now();
            for (i, s) in b.starts.iter().enumerate() {
                let found = runner.count(s);
                assert_eq!(
                    found,
                    b.tallies[i].solutions,
                    "{} differs from the engine on unit {i} of n = {}",
                    method.name(),
                    b.n
                );
            }
            let seconds = clock.elapsed().as_secs_f64();
            let st = runner.finish();
            if let Method::Plain = method {
                assert_eq!(st.nodes, nodes, "the plain search's nodes are the engine's");
            }
            let ratio = if st.lookups == 0 {
                String::new()
            } else {
                format!("{:.3}", st.hits as f64 / st.lookups as f64)
            };
            println!(
                "| {n} | {} | {} | {} | {ratio} | {} | {} | {:.1} MB | {} | {seconds:.3} |",
                method.name(),
                st.nodes,
                st.lookups,
                st.words,
                st.entries,
                st.peak_bytes as f64 / 1e6,
                st.clears
            );
        }
    }
}
