//! `sense memory-path [FILE]`: where `persistent memory` databases go,
//! without running anything (the file is only parsed; the declarations
//! are found by `sense_syntax::walk::persistent_memories`).

use std::path::{Path, PathBuf};

/// Runs the command; returns the exit status.
pub fn memory_path(path: Option<&Path>, memory_dir: Option<&Path>) -> i32 {
    let env_dir = std::env::var_os("SENSE_MEMORY_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from);
    let dir = memory_dir.map(Path::to_path_buf).or(env_dir);
    let Some(path) = path else {
        match &dir {
            Some(d) => {
                println!("The memory directory is set: {}", d.display());
                println!("Every persistent memory declared with no explicit path resolves");
                println!(
                    "flat under this directory: {}",
                    d.join("<name>.sense_memory.db").display()
                );
            }
            None => {
                println!("SENSE_MEMORY_DIR is not set.");
                println!("A persistent memory declared with no explicit path resolves to a");
                println!("'.sense_memory/' folder next to whichever .sns file declares it:");
                println!("  <that file's own directory>/.sense_memory/<name>.sense_memory.db");
            }
        }
        println!();
        println!("Pass a file to see the exact resolved path(s) for what it declares:");
        println!("  sense memory-path <file.sns>");
        println!();
        println!("To change the default, set SENSE_MEMORY_DIR or pass --memory-dir:");
        println!("  export SENSE_MEMORY_DIR=/path/to/wherever");
        return 0;
    };
    let text = match sense::agents::read_source(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}", e.rendered());
            return 1;
        }
    };
    let file = sense::syntax::SourceFile::new(path.display().to_string(), text);
    let program = match sense::syntax::parse_file(&file) {
        Ok(p) => p,
        Err(e) => {
            let span = Some(e.span);
            eprintln!(
                "{}",
                sense::syntax::render_diagnostic(
                    "SenseSyntaxError",
                    &e.to_string(),
                    Some(&file),
                    span
                )
            );
            return 1;
        }
    };
    let found = sense::syntax::walk::persistent_memories(&program.stmts);
    if found.is_empty() {
        println!("{} declares no 'persistent memory'.", path.display());
        return 0;
    }
    let file_dir = std::env::current_dir()
        .map(|cwd| cwd.join(path))
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    for sense::syntax::walk::PersistentMemory {
        name,
        path: explicit,
    } in found
    {
        match explicit {
            Some(p) => println!("{name}: {p}  (explicit path)"),
            None => {
                let resolved =
                    sense::agents::memory::default_path(&name, memory_dir, file_dir.as_deref());
                let note = if dir.is_some() {
                    "default -- via the memory directory"
                } else {
                    "default -- next to this file"
                };
                println!("{name}: {}  ({note})", resolved.display());
            }
        }
    }
    0
}
