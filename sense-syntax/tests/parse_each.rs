//! `parse_file_each` (statement by statement, for huge sources) hands over
//! exactly the statements `parse_file` returns, in order, on either side of
//! `ONE_PASS_MAX`, and on a syntax error hands over nothing and returns the
//! same error.
// Test code may unwrap and index (the workspace lints forbid it in library code).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use sense_syntax::ast::Stmt;
use sense_syntax::{ONE_PASS_MAX, SourceFile, parse_file, parse_file_each};

/// A program of at least `size` bytes mixing blocks, `else`, strings with
/// escapes, numbers of other scripts and declarations, then `tail`.
fn program(size: usize, tail: &str) -> String {
    let mut s = String::new();
    let mut i = 0u64;
    while s.len() < size {
        s.push_str(&format!(
            "x{i} = [{i}, 1.5, \"a\\n{i}\", \u{663}]\nif x{i}:\n    y = f(x{i}, k: 2)\nelse:\n    pass_{i} = nil\ndef g{i}(a: Int) -> Int:\n    return a * {i}\n"
        ));
        i += 1;
    }
    s.push_str(tail);
    s
}

fn each(file: &SourceFile) -> (Vec<Stmt>, Result<(), sense_syntax::SyntaxError>) {
    let mut got = Vec::new();
    let result = parse_file_each(file, |s| got.push(s));
    (got, result)
}

#[test]
fn same_statements_as_parse_file() {
    for size in [1_000, ONE_PASS_MAX + 1] {
        let file = SourceFile::new("t.sns", program(size, "print(1)\n"));
        assert_eq!(file.text().len() > ONE_PASS_MAX, size > ONE_PASS_MAX);
        let whole = parse_file(&file).expect("parses");
        let (got, result) = each(&file);
        assert_eq!(result, Ok(()));
        assert_eq!(got, whole.stmts, "size {size}");
    }
}

#[test]
fn an_error_hands_over_nothing() {
    for size in [1_000, ONE_PASS_MAX + 1] {
        let file = SourceFile::new("t.sns", program(size, "print(1 +)\n"));
        let want = parse_file(&file).expect_err("does not parse");
        let (got, result) = each(&file);
        assert_eq!(result, Err(want), "size {size}");
        assert!(got.is_empty(), "{} statements handed over", got.len());
    }
}
