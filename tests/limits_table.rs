//! The book's limits table (docs/book/src/cli.md) against the CLI's
//! `--help`, `sense::Config::default()`, the `Config` fields and the C
//! header (issue 27): every `--max-…` flag has one row, with the default
//! `--help` states (the one `Config` has), an existing field and an
//! existing `sense_config_set_…` function.

use std::collections::BTreeMap;
use std::process::Command;

/// `flag -> default` from `sense run --help`.
fn help_defaults() -> BTreeMap<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_sense"))
        .args(["run", "--help"])
        .output()
        .expect("sense runs");
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut flags = BTreeMap::new();
    for line in help.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("--max-") else {
            continue;
        };
        let flag = format!("--max-{}", rest.split_whitespace().next().unwrap());
        let default = if let Some((_, d)) = line.split_once("[default: ") {
            d.trim_end_matches(']').to_string()
        } else if let Some((_, d)) = line.split_once("default ") {
            d.split([')', ';']).next().unwrap().to_string()
        } else if line.contains("unlimited by default") {
            "unlimited".to_string()
        } else {
            panic!("--help states no default for {flag}: {line}")
        };
        flags.insert(flag, default);
    }
    flags
}

/// One row of the book's table: (default, Config field, C function) by flag.
fn book_rows() -> BTreeMap<String, (String, String, String)> {
    let book = std::fs::read_to_string("docs/book/src/cli.md").unwrap();
    let table = book
        .split("<!-- limits table:")
        .nth(1)
        .expect("the limits table marker");
    let mut rows = BTreeMap::new();
    for line in table.lines().skip(3) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let [_, _, default, flag, field, cfn, _] = cells[..] else {
            panic!("a row of five cells: {line}");
        };
        let Some(flag) = flag
            .strip_prefix('`')
            .and_then(|f| f.split_whitespace().next())
        else {
            continue;
        };
        let unquote = |s: &str| s.trim_matches('`').to_string();
        rows.insert(
            flag.to_string(),
            (default.to_string(), unquote(field), unquote(cfn)),
        );
    }
    rows
}

fn bytes(text: &str) -> Option<usize> {
    let (digits, shift) = match text.chars().last()? {
        'K' => (&text[..text.len() - 1], 10),
        'M' => (&text[..text.len() - 1], 20),
        'G' => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    digits.parse::<usize>().ok().map(|n| n << shift)
}

#[test]
fn the_limits_table_agrees_with_help_config_and_the_c_header() {
    let help = help_defaults();
    let rows = book_rows();
    assert_eq!(
        help.keys().collect::<Vec<_>>(),
        rows.keys().collect::<Vec<_>>(),
        "flags in --help and in the book's table"
    );
    let header = std::fs::read_to_string("include/sense.h").unwrap();
    let config = std::fs::read_to_string("sense-eval/src/vm.rs").unwrap();
    let defaults = sense::Config::default();
    for (flag, (default, field, cfn)) in &rows {
        let stated = &help[flag];
        assert!(
            default.starts_with(stated.as_str()),
            "{flag}: the book says {default:?}, --help {stated:?}"
        );
        assert!(
            config.contains(&format!("pub {field}: ")),
            "{flag}: no Config field {field}"
        );
        assert!(
            header.contains(&format!("{cfn}(")),
            "{flag}: no C function {cfn}"
        );
        let actual = match field.as_str() {
            "max_depth" => Some(defaults.max_depth),
            "max_steps" => defaults.max_steps.map(|n| n as usize),
            "max_string_len" => Some(defaults.max_string_len),
            "max_array_len" => Some(defaults.max_array_len),
            "max_heap" => Some(defaults.max_heap),
            "max_source_len" => Some(defaults.max_source_len),
            other => panic!("{flag}: a field this test does not know: {other}"),
        };
        assert_eq!(bytes(stated), actual, "{flag}: --help's default vs Config");
    }
}

/// `sense serve` bounds every request's run (a runaway agent must not hold
/// a worker): its `--help`, the book's row and the service's constant
/// state the same number.
#[test]
fn serve_states_its_own_step_budget_in_help_and_the_book() {
    let out = Command::new(env!("CARGO_BIN_EXE_sense"))
        .args(["serve", "--help"])
        .output()
        .expect("sense runs");
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = help
        .lines()
        .find(|l| l.trim_start().starts_with("--max-steps"))
        .expect("serve --help lists --max-steps");
    let budget = sense_server::serve::DEFAULT_RUN_STEPS;
    assert!(
        line.contains(&format!("[default: {budget}]")) && line.contains("budget"),
        "serve --help: {line}"
    );
    assert!(!line.contains("unlimited"), "serve --help: {line}");
    let book = std::fs::read_to_string("docs/book/src/cli.md").unwrap();
    let row = book
        .lines()
        .find(|l| l.contains("`--max-steps N`"))
        .expect("the book's --max-steps row");
    let grouped = budget
        .to_string()
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join(",");
    assert!(row.contains(&format!("`serve`: {grouped}")), "book: {row}");
}
