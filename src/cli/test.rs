//! `sense test`: run test blocks and report (docs/book/src/cli.md and modules.md § Tests).

use super::output::Output;
use super::sns_files::Search;
use std::path::Path;

/// The test files under a directory: `test_*.sns` and `*_test.sns`.
const TEST_FILES: Search = Search {
    wanted: |p| {
        p.file_name().and_then(|n| n.to_str()).is_some_and(|name| {
            (name.starts_with("test_") && name.ends_with(".sns")) || name.ends_with("_test.sns")
        })
    },
    follow_links: true,
    none_found: "no test files found under {} (looked for test_*.sns / *_test.sns)",
};

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Runs the tests under `path`; returns the exit status.
pub fn test(path: &Path) -> i32 {
    let mut files = match TEST_FILES.files(path) {
        Ok(files) => files,
        Err(status) => return status,
    };
    // Shown as the reference shows paths (`./d` lists `d/test_a.sns`).
    files.sort();
    files.dedup();
    let out = Output::stdout();
    let (mut total, mut passed, mut failed, mut errored) = (0, 0, 0, false);
    for file in &files {
        out.write(&format!("{}\n", file.display()));
        let mut rt = sense::Runtime::new();
        out.install(&mut rt);
        sense_providers::register_defaults(&mut rt);
        let result = rt.run_file(file);
        if let Err(e) = result {
            out.flush();
            eprintln!("  ERROR  {}", e.display_text());
            errored = true;
        }
        for r in rt.test_results() {
            total += 1;
            match &r.failure {
                None => {
                    passed += 1;
                    out.write(&format!("  PASS  {}\n", r.description));
                }
                Some(msg) => {
                    failed += 1;
                    out.write(&format!("  FAIL  {}\n        {}\n", r.description, msg));
                }
            }
        }
        out.write("\n");
    }
    out.write(&format!(
        "{}, {}: {passed} passed, {failed} failed\n",
        plural(files.len(), "file"),
        plural(total, "test")
    ));
    out.flush();
    if failed > 0 || errored { 1 } else { 0 }
}
