//! `sense test`: run test blocks and report (docs/book/src/cli.md and modules.md § Tests).

use super::output::Output;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if let Some(name) = p.file_name().and_then(|n| n.to_str())
            && ((name.starts_with("test_") && name.ends_with(".sns"))
                || name.ends_with("_test.sns"))
        {
            out.push(p);
        }
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Runs the tests under `path`; returns the exit status.
pub fn test(path: &Path) -> i32 {
    if !path.exists() {
        eprintln!("SenseError: no such file or directory: {}", path.display());
        return 1;
    }
    let files = if path.is_dir() {
        let mut v = Vec::new();
        collect(path, &mut v);
        // Shown as the reference shows paths (`./d` lists `d/test_a.sns`).
        let mut v: Vec<PathBuf> = v.iter().map(|p| super::fmt::tidy(p)).collect();
        v.sort();
        v.dedup();
        if v.is_empty() {
            println!(
                "no test files found under {} (looked for test_*.sns / *_test.sns)",
                path.display()
            );
            return 0;
        }
        v
    } else {
        vec![super::fmt::tidy(path)]
    };
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
