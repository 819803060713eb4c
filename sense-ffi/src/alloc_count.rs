//! For unit tests only: the test binary's global allocator, `System` with
//! a per-thread count of allocations, so a test can prove that an
//! exported function allocates nothing (other test threads do not disturb
//! the count), and of the bytes held in small blocks, so a test can bound
//! what a paused agent costs (`tests/paused_agent_memory.rs`).
//!
//! `tests/no_alloc.rs` includes this same file (`#[path]`): this crate
//! builds only a `cdylib` and a `staticlib` (no rlib), so its integration
//! tests cannot reach a module of it, and a global allocator needs
//! `unsafe`, which sense-testkit forbids.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// `System`, counting allocations and reallocations per thread, and the
/// bytes the thread holds in small blocks.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static SMALL_BYTES: Cell<i64> = const { Cell::new(0) };
}

/// Blocks from this size up are not tallied by [`small_bytes`]: the
/// large, growing tables (a heap arena, an array of a million values),
/// whose capacity not yet written to costs no memory.
pub(crate) const LARGE: usize = 64 * 1024;

/// What glibc's malloc takes for a block of `size` bytes on a 64-bit
/// machine: the size plus its 8-byte header, rounded up to 16, at least 32.
fn chunk(size: usize) -> i64 {
    if size >= LARGE {
        return 0;
    }
    ((size + 8 + 15) & !15).max(32) as i64
}

fn bump() {
    // `try_with`: a thread's last allocations may come after its
    // thread-locals are gone.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

fn tally(delta: i64) {
    let _ = SMALL_BYTES.try_with(|n| n.set(n.get() + delta));
}

// SAFETY: every call is forwarded to `System` unchanged; only a
// thread-local counter is touched besides.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        tally(chunk(layout.size()));
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        tally(chunk(layout.size()));
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        tally(chunk(new_size) - chunk(layout.size()));
        // SAFETY: forwarded; `ptr` came from this allocator, i.e. `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        tally(-chunk(layout.size()));
        // SAFETY: forwarded; `ptr` came from this allocator, i.e. `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made on this thread while `f` runs.
#[allow(
    dead_code,
    reason = "tests/paused_agent_memory.rs does not count allocations"
)]
pub(crate) fn allocations_in(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// Bytes this thread holds in blocks smaller than [`LARGE`], as glibc
/// rounds them (blocks freed by another thread are not subtracted).
#[allow(dead_code, reason = "only tests/paused_agent_memory.rs reads it")]
pub(crate) fn small_bytes() -> i64 {
    SMALL_BYTES.with(Cell::get)
}
