//! Lexes and parses one file the way `sense run` would before running it.
//!
//! Usage: `cargo run -p sense-syntax --example parse -- [--ast | --tokens] FILE`
//!
//! Prints `ok` (or the tree / token dump) on success, or the reference's
//! one-line error text `SenseSyntaxError: [line N] message`, so the output
//! can be compared with `sense-syntax/tools/ref_oracle.py`.

use sense_syntax::{SourceFile, dump, lexer, parser};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, files) = match args.first().map(String::as_str) {
        Some("--ast") => ("ast", args.get(1..).unwrap_or_default()),
        Some("--tokens") => ("tokens", args.get(1..).unwrap_or_default()),
        _ => ("parse", args.as_slice()),
    };
    if files.is_empty() {
        eprintln!("usage: parse [--ast | --tokens] FILE...");
        return ExitCode::from(2);
    }
    for path in files {
        if files.len() > 1 {
            println!("== {path}");
        }
        let text = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::from(2);
            }
        };
        let file = SourceFile::new(path.as_str(), text);
        let result = lexer::tokenize(&file).and_then(|lexed| {
            if mode == "tokens" {
                return Ok(dump::dump_tokens(file.text(), &lexed));
            }
            let program = parser::parse(file.text(), &lexed.tokens)?;
            Ok(if mode == "ast" {
                dump::dump_program(&program)
            } else {
                "ok\n".to_string()
            })
        });
        match result {
            Ok(out) => print!("{out}"),
            Err(e) => println!("SenseSyntaxError: {e}"),
        }
    }
    ExitCode::SUCCESS
}
