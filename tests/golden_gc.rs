//! The golden suite again, with the collector running at every safe point
//! (`SENSE_GC_STRESS=1`): a value or scope that is reachable but not rooted,
//! or a scope recycled while still in use, changes some program's output.

use std::path::Path;

fn main() {
    sense_testkit::golden::run_suite(
        Path::new(env!("CARGO_BIN_EXE_sense")),
        Path::new(env!("CARGO_MANIFEST_DIR")),
        true,
    );
}
