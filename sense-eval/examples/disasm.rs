//! Prints the bytecode the compiler makes of each FILE, one instruction
//! per line, without running it (see `sense_eval::disasm`).
//!
//! Usage: `cargo run -p sense-eval --example disasm -- FILE...`
//!
//! An example rather than a `sense` subcommand: every subcommand costs
//! each start of the `sense` process a few thousand instructions of
//! argument parsing (measured with callgrind), and this is a tool for
//! people working on the compiler.

use sense_syntax::SourceFile;
use std::process::ExitCode;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: disasm FILE...");
        return ExitCode::from(2);
    }
    let mut status = ExitCode::SUCCESS;
    for name in files {
        let text = match std::fs::read_to_string(&name) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("SenseError: cannot read {name}: {e}");
                status = ExitCode::FAILURE;
                continue;
            }
        };
        match sense_eval::disasm::disassemble(&SourceFile::new(name, text)) {
            Ok(listing) => print!("{listing}"),
            Err(e) => {
                eprintln!("SenseSyntaxError: {e}");
                status = ExitCode::FAILURE;
            }
        }
    }
    status
}
