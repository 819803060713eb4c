//! Runs every case in `tests/cases/*.cases` through this crate and compares
//! with the expected output recorded from the reference implementation by
//! `tools/bless_cases.py` (see that file for the format).
// Test code may unwrap and index (the workspace lints forbid it in library code).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use sense_syntax::{SourceFile, dump, lexer, parser};
use std::path::Path;

struct Case {
    name: String,
    source: String,
    expected: String,
}

fn read_cases(text: &str) -> (String, Vec<Case>) {
    let mut mode = String::new();
    let mut cases: Vec<Case> = Vec::new();
    let mut src: Vec<&str> = Vec::new();
    let mut exp: Vec<&str> = Vec::new();
    let mut head: Option<&str> = None;
    let mut in_exp = false;
    let mut flush = |head: Option<&str>, src: &mut Vec<&str>, exp: &mut Vec<&str>| {
        if let Some(h) = head {
            let nonl = h.ends_with("[nonl]");
            let name = h[4..].split(' ').next().unwrap_or("").to_string();
            let mut source = src.join("\n");
            if !nonl {
                source.push('\n');
            }
            let expected = exp.join("\n").trim_end().to_string();
            cases.push(Case {
                name,
                source,
                expected,
            });
        }
        src.clear();
        exp.clear();
    };
    for line in text.split('\n') {
        if let Some(m) = line.strip_prefix("# mode:") {
            if head.is_none() {
                mode = m.trim().to_string();
                continue;
            }
        }
        if line.starts_with("### ") {
            flush(head, &mut src, &mut exp);
            head = Some(line);
            in_exp = false;
        } else if head.is_none() {
        } else if line == ">>>" && !in_exp {
            in_exp = true;
        } else if in_exp {
            exp.push(line);
        } else {
            src.push(line);
        }
    }
    flush(head, &mut src, &mut exp);
    (mode, cases)
}

fn run(mode: &str, source: &str) -> String {
    let file = SourceFile::new("case.sns", source);
    let result = lexer::tokenize(&file).and_then(|lexed| {
        if mode == "tokens" {
            return Ok(dump::dump_tokens(file.text(), &lexed));
        }
        let program = parser::parse(file.text(), &lexed.tokens)?;
        Ok(match mode {
            "ast" => dump::dump_program(&program),
            _ => "ok".to_string(),
        })
    });
    match result {
        Ok(out) => out.trim_end().to_string(),
        Err(e) => format!("SenseSyntaxError: {e}"),
    }
}

#[test]
fn cases_match_the_reference() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/cases exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cases"))
        .collect();
    entries.sort();
    let mut failures = Vec::new();
    let mut count = 0;
    for path in entries {
        let text = std::fs::read_to_string(&path).expect("readable case file");
        let (mode, cases) = read_cases(&text);
        assert!(!mode.is_empty(), "{} has no '# mode:' line", path.display());
        for case in cases {
            count += 1;
            let got = run(&mode, &case.source);
            if got != case.expected {
                failures.push(format!(
                    "{}::{}\n  expected: {}\n  got:      {}",
                    path.file_name().unwrap_or_default().to_string_lossy(),
                    case.name,
                    case.expected.replace('\n', "\n            "),
                    got.replace('\n', "\n            ")
                ));
            }
        }
    }
    assert!(count > 100, "only {count} cases found");
    assert!(
        failures.is_empty(),
        "{} of {count} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
