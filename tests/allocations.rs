//! How much memory the library asks for: a test binary of its own, since it counts the allocations through a
//! global allocator. Each thread counts its own, so that the harness's threads and the other tests, which run
//! beside it, are not counted with the check measured.

use nqueens::solutions::checker::{check_list, Flaw};
use nqueens::solutions::notation::Shape;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system's allocator, keeping each thread's bytes held, and the most held at once since the last reset.
struct Counting;

thread_local! {
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        held(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        held(layout.size() as isize);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        held(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        held(new_size as isize);
        held(-(layout.size() as isize));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Adds `bytes` to this thread's count. A thread being torn down has no count left: its frees are not counted.
fn held(bytes: isize) {
    let _ = HELD.try_with(|held| {
        held.set(held.get() + bytes);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(held.get())));
    });
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes `f` held at once on this thread beyond what it held before, and what `f` returned.
fn peak_of<T>(f: impl FnOnce() -> T) -> (isize, T) {
    let before = HELD.with(Cell::get);
    PEAK.with(|peak| peak.set(before));
    let value = f();
    (PEAK.with(Cell::get) - before, value)
}

#[test]
fn checking_a_solution_of_a_board_of_billions_of_rows_takes_memory_for_its_queens_only() {
    // Three queens, one a column, on a board of 4,000,000,000 rows: the entry of each column is its queen's row.
    let tall = Shape {
        rows: 4_000_000_000,
        cols: 3,
    };
    let (bytes, verdict) = peak_of(|| check_list(tall, &[0, 2, 4]));
    assert_eq!(verdict, Ok(()));
    assert!(bytes < 4096, "checking 3 queens held {bytes} bytes at once");

    // A flaw is found as cheaply: the last queen shares a diagonal with the first.
    let (bytes, verdict) =
        peak_of(|| check_list(tall, &[3_999_999_000, 3_999_999_002, 3_999_999_002 - 4]));
    assert!(matches!(verdict, Err(Flaw::Attack { .. })), "{verdict:?}");
    assert!(bytes < 4096, "checking 3 queens held {bytes} bytes at once");
}

#[test]
fn checking_a_square_board_takes_memory_in_proportion_to_its_queens() {
    // n = 1000 by the construction the library gives for any n, checked in a few words a queen.
    let n = 1000;
    let queens = nqueens::solutions::construct::rect(n, n).expect("every n ≥ 4 has a solution");
    let (bytes, verdict) = peak_of(|| check_list(Shape::square(n), &queens));
    assert_eq!(verdict, Ok(()));
    assert!(
        bytes <= 64 * n as isize,
        "checking {n} queens held {bytes} bytes at once"
    );
}
