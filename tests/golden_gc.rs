//! The golden suite again, with the collector running at every safe point
//! (`SENSE_GC_STRESS=1`): a value or scope that is reachable but not rooted,
//! or a scope recycled while still in use, changes some program's output.

#[path = "golden.rs"]
#[allow(dead_code)]
mod golden;

fn main() {
    golden::run_suite(true);
}
