//! How much memory the library asks for: a test binary of its own, since it counts every allocation the process
//! makes through a global allocator, and runs its checks one at a time so that none sees another's.

use nqueens::solutions::checker::{check_list, Flaw};
use nqueens::solutions::notation::Shape;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The system's allocator, keeping the most bytes held at once since the last reset.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        held_more(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        held_more(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Ordering::SeqCst);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        held_more(new_size);
        HELD.fetch_sub(layout.size(), Ordering::SeqCst);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

fn held_more(bytes: usize) {
    let held = HELD.fetch_add(bytes, Ordering::SeqCst) + bytes;
    PEAK.fetch_max(held, Ordering::SeqCst);
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes `f` held at once beyond what was held before it, and what it returned.
fn peak_of<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let before = HELD.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let value = f();
    (PEAK.load(Ordering::SeqCst) - before, value)
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
        bytes <= 64 * n as usize,
        "checking {n} queens held {bytes} bytes at once"
    );
}
