//! `sense disasm FILE` (hidden): prints the bytecode the compiler makes of
//! FILE, one instruction per line, without running it (see
//! `sense_eval::disasm`).

use sense::syntax::SourceFile;
use std::path::Path;

/// Prints FILE's bytecode; exit 1 when it cannot be read or parsed.
pub fn disasm(path: &Path) -> i32 {
    let name = path.display().to_string();
    let text = match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(_) => {
                eprintln!("SenseError: {name} is not valid UTF-8");
                return 1;
            }
        },
        Err(e) => {
            eprintln!("SenseError: cannot read {name}: {e}");
            return 1;
        }
    };
    match sense::eval::disasm::disassemble(&SourceFile::new(name, text)) {
        Ok(listing) => {
            print!("{listing}");
            0
        }
        Err(e) => {
            eprintln!("SenseSyntaxError: {e}");
            1
        }
    }
}
