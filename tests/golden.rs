//! The golden suite: one named test per `tests/golden/**/*.sns` (and per
//! example and benchmark workload), each run through the real `sense`
//! binary and compared byte for byte with the expected files beside it.
//! The rules (expected files, `# args:`, fixtures, `SENSE_BLESS=1`) are
//! documented in `sense_testkit::golden`.

use std::path::Path;

fn main() {
    sense_testkit::golden::run_suite(
        Path::new(env!("CARGO_BIN_EXE_sense")),
        Path::new(env!("CARGO_MANIFEST_DIR")),
        false,
    );
}
