//! Golden tests of the compiler: each `tests/disasm/NAME.sns` is compiled
//! (not run) and its listing (`sense_eval::disasm`, as the `disasm`
//! example of sense-eval prints it) compared with `NAME.disasm` beside it. A change to the code
//! the compiler makes shows up here as a readable diff.
//! `SENSE_BLESS=1 cargo test --test disasm` rewrites the listings.

use libtest_mimic::{Arguments, Failed, Trial};
use sense::syntax::SourceFile;
use std::path::{Path, PathBuf};

fn check(root: &Path, script: &Path) -> Result<(), Failed> {
    let rel = sense_testkit::relative(root, script);
    let text = std::fs::read_to_string(script).map_err(|e| format!("{rel}: {e}"))?;
    let listing = sense::eval::disasm::disassemble(&SourceFile::new(rel.clone(), text))
        .map_err(|e| format!("{rel}: {e}"))?;
    let expected = script.with_extension("disasm");
    if sense_testkit::bless() {
        std::fs::write(&expected, &listing).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let want = std::fs::read_to_string(&expected)
        .map_err(|_| format!("{rel}: missing .disasm (run with SENSE_BLESS=1)"))?;
    if listing == want {
        Ok(())
    } else {
        Err(format!("{rel}: listing differs\n--- expected\n{want}--- actual\n{listing}---").into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let scripts = sense_testkit::sense_scripts(&root.join("tests/disasm"));
    assert!(!scripts.is_empty(), "no programs under tests/disasm");
    let trials = scripts
        .into_iter()
        .map(|s| {
            let root = root.clone();
            let name = sense_testkit::relative(&root, &s);
            Trial::test(name, move || check(&root, &s))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
