//! No file of the repository points at the working notes kept beside it
//! or at an absolute path of one machine (a checkout directory, a home
//! directory): the repository must make sense on its own. The patterns
//! are in `patterns()`.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Text files of the repository: everything but build output, VCS data,
/// installed packages, fuzzing seeds and state, and the built book.
fn repo_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in rd.flatten() {
        let p = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        if name == ".git" {
            continue; // a directory, or in a worktree a file naming one
        }
        if p.is_dir() {
            let rel = p
                .strip_prefix(root())
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            let skip = matches!(name.as_str(), "target" | "node_modules" | ".sense_memory")
                || ["fuzz/corpus", "fuzz/artifacts", "fuzz/found", "fuzz/target"]
                    .iter()
                    .any(|d| rel.starts_with(d));
            if !skip {
                repo_files(&p, out);
            }
        } else if !(name.ends_with(".log") && p.parent().is_some_and(|d| d.ends_with("fuzz/logs")))
        {
            // A fuzz run's full log (git-ignored: fuzz/.gitignore) quotes
            // the machine's paths; only its summary, runs.txt, is kept.
            out.push(p);
        }
    }
}

/// Whether `pattern` occurs in `line` where a path starts, not as the tail
/// of a longer one (a relative path whose tail matches is no machine path).
fn starts_a_path(line: &str, pattern: &str) -> bool {
    line.match_indices(pattern).any(|(at, _)| {
        !line[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || "_.-~$".contains(c))
    })
}

/// Spelled in pieces so that this file does not match itself.
fn patterns() -> Vec<String> {
    [
        ["/wo", "rk/"],
        ["/ho", "me/"],
        ["/Us", "ers/"],
        ["/ro", "ot/"],
        ["shar", "ed/spec"],
        ["shar", "ed/tools"],
        ["shar", "ed/DESIGN"],
        ["shar", "ed/HOUSE_STYLE"],
    ]
    .iter()
    .map(|p| p.concat())
    .collect()
}

#[test]
fn the_rule_tells_paths_from_tails() {
    let work = &patterns()[0];
    assert!(starts_a_path(&format!("see {work}x"), work));
    assert!(starts_a_path(&format!("`{work}x`"), work));
    assert!(!starts_a_path(&format!("fuzz{work}x"), work));
}

#[test]
fn no_file_points_outside_the_repository() {
    let patterns = patterns();
    let mut files = Vec::new();
    repo_files(&root(), &mut files);
    files.sort();
    assert!(
        files.len() > 100,
        "walked the repository ({} files)",
        files.len()
    );
    let mut hits = Vec::new();
    for f in files {
        let Ok(body) = std::fs::read_to_string(&f) else {
            continue; // not text
        };
        for (n, line) in body.lines().enumerate() {
            if let Some(p) = patterns.iter().find(|p| starts_a_path(line, p)) {
                let rel = f.strip_prefix(root()).unwrap_or(&f).display().to_string();
                hits.push(format!("{rel}:{}: `{p}` in: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "references outside the repository:\n{}",
        hits.join("\n")
    );
}
