//! `sense fmt` end to end, through the real binary.
//!
//! Behaviour: the golden corpus (`tests/golden`) and the examples are
//! copied to a temporary directory with the same layout, the copy is
//! formatted in place with `sense fmt --write`, and every case that runs
//! with the default `run` command and has no `.in` file is run twice,
//! original and formatted, each from its own root with the same relative
//! path (so relative imports find the formatted fixtures). Stdout and the
//! exit status must be identical; so must the first stderr line, once the
//! `[line N]` parts (which formatting may shift) are removed. The copy
//! must then be stable: `sense fmt --check` on it changes nothing.
//!
//! CLI: printing one file or a directory, `--write`, `--check`, syntax
//! errors and missing paths.

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sense(cwd: &Path, args: &[&str], memory_dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sense"))
        .args(args)
        .current_dir(cwd)
        .env("SENSE_MEMORY_DIR", memory_dir)
        .env("NO_COLOR", "1")
        .env_remove("SENSE_GC_STRESS")
        .stdin(Stdio::null())
        .output()
        .expect("cannot run sense")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).replace("\r\n", "\n")
}

/// Copies `from` into `to` recursively.
fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let target = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &target)?;
        } else {
            std::fs::copy(e.path(), &target)?;
        }
    }
    Ok(())
}

/// Cases under `dir` (relative to `base`) that run with the default
/// command and read no stdin.
fn run_cases(base: &Path, dir: &Path, out: &mut Vec<String>) {
    for p in sense_testkit::sense_scripts(&base.join(dir)) {
        let Ok(rel) = p.strip_prefix(base) else {
            continue;
        };
        let source = std::fs::read_to_string(&p).unwrap_or_default();
        let stdin = if dir.starts_with("examples") {
            base.join("tests/examples")
                .join(p.file_stem().unwrap_or_default())
                .with_extension("in")
        } else {
            p.with_extension("in")
        };
        if source.starts_with("# args:") || stdin.exists() {
            continue;
        }
        out.push(rel.to_string_lossy().replace('\\', "/"));
    }
}

/// Removes every `[line N] ` from `s`.
fn without_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("[line ") {
        out.push_str(&rest[..i]);
        let after = &rest[i + "[line ".len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(']') {
            rest = after[digits + 1..]
                .strip_prefix(' ')
                .unwrap_or(&after[digits + 1..]);
        } else {
            out.push_str("[line ");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Runs one case from the original tree and from the formatted copy.
fn same_behaviour(copy: &Path, rel: &str) -> Result<(), Failed> {
    let mem = copy.join(".mem").join(rel.replace('/', "_"));
    let (mem_a, mem_b) = (mem.join("a"), mem.join("b"));
    for d in [&mem_a, &mem_b] {
        std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
    }
    let a = sense(&root(), &["run", rel], &mem_a);
    let b = sense(copy, &["run", rel], &mem_b);
    let _ = std::fs::remove_dir_all(&mem);
    let mut problems = Vec::new();
    let (out_a, out_b) = (text(&a.stdout), text(&b.stdout));
    if out_a != out_b {
        problems.push(format!(
            "stdout differs\n--- original\n{out_a}--- formatted\n{out_b}---"
        ));
    }
    if a.status.code() != b.status.code() {
        problems.push(format!(
            "exit status {:?} vs {:?}",
            a.status.code(),
            b.status.code()
        ));
    }
    let first = |o: &Output| without_lines(text(&o.stderr).lines().next().unwrap_or(""));
    if first(&a) != first(&b) {
        problems.push(format!(
            "stderr differs\n--- original\n{}\n--- formatted\n{}",
            text(&a.stderr),
            text(&b.stderr)
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        let formatted = std::fs::read_to_string(copy.join(rel)).unwrap_or_default();
        Err(format!(
            "{rel}:\n{}\n--- formatted source\n{formatted}",
            problems.join("\n")
        )
        .into())
    }
}

/// Copies the corpus and formats the copy; returns the copy's root.
fn prepare(copy: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(copy);
    for dir in ["tests/golden", "tests/examples", "examples"] {
        copy_dir(&root().join(dir), &copy.join(dir)).map_err(|e| format!("{dir}: {e}"))?;
    }
    let mem = copy.join(".mem");
    for dir in ["tests/golden", "examples"] {
        let out = sense(copy, &["fmt", "--write", dir], &mem);
        // Exit status 1 is expected: the corpus holds syntax errors.
        let stderr = text(&out.stderr);
        if let Some(bad) = stderr
            .lines()
            .find(|l| !l.contains(": SenseSyntaxError: [line "))
        {
            return Err(format!("sense fmt --write {dir}: {bad}"));
        }
        if text(&out.stdout).lines().count() < 10 && dir == "tests/golden" {
            return Err("sense fmt --write rewrote almost nothing".into());
        }
    }
    Ok(())
}

// ---- CLI behaviour ------------------------------------------------------------

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sense-fmt-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("sub")).expect("scratch dir");
    d
}

fn expect(cond: bool, what: &str, o: &Output) -> Result<(), Failed> {
    if cond {
        Ok(())
    } else {
        Err(format!(
            "{what}\n--- status {:?}\n--- stdout\n{}--- stderr\n{}",
            o.status.code(),
            text(&o.stdout),
            text(&o.stderr)
        )
        .into())
    }
}

const MESSY: &str = "x=1\nif x: print( (x) )\n";
const TIDY: &str = "x = 1\nif x:\n    print(x)\n";

fn cli_directory() -> Result<(), Failed> {
    let d = scratch("dir");
    std::fs::write(d.join("b.sns"), MESSY).map_err(|e| e.to_string())?;
    std::fs::write(d.join("sub/a.sns"), TIDY).map_err(|e| e.to_string())?;
    std::fs::write(d.join("notes.txt"), "x=1\n").map_err(|e| e.to_string())?;
    let o = sense(&d, &["fmt", "."], &d);
    let want = format!("# ----- b.sns -----\n{TIDY}# ----- sub/a.sns -----\n{TIDY}");
    expect(
        o.status.success() && text(&o.stdout) == want && o.stderr.is_empty(),
        "print a directory",
        &o,
    )?;
    let o = sense(&d, &["fmt", "--check", "."], &d);
    expect(
        o.status.code() == Some(1) && text(&o.stdout) == "b.sns\n",
        "--check lists the file that would change",
        &o,
    )?;
    let o = sense(&d, &["fmt", "-w", "."], &d);
    let b = std::fs::read_to_string(d.join("b.sns")).map_err(|e| e.to_string())?;
    expect(
        o.status.success() && text(&o.stdout) == "b.sns\n" && b == TIDY,
        "-w rewrites only the changed file",
        &o,
    )?;
    let o = sense(&d, &["fmt", "--check", "."], &d);
    expect(
        o.status.success() && o.stdout.is_empty(),
        "--check after --write",
        &o,
    )?;
    let o = sense(&d, &["fmt", "--write", "sub/a.sns"], &d);
    expect(
        o.status.success() && o.stdout.is_empty(),
        "--write on a formatted file",
        &o,
    )?;
    let _ = std::fs::remove_dir_all(&d);
    Ok(())
}

fn cli_errors() -> Result<(), Failed> {
    let d = scratch("err");
    std::fs::write(d.join("bad.sns"), "x = (1\n").map_err(|e| e.to_string())?;
    std::fs::write(d.join("good.sns"), MESSY).map_err(|e| e.to_string())?;
    let o = sense(&d, &["fmt", "."], &d);
    expect(
        o.status.code() == Some(1)
            && text(&o.stderr)
                == "bad.sns: SenseSyntaxError: [line 2] expected ')' after the expression (got \
                    NEWLINE '')\n"
            && text(&o.stdout) == format!("# ----- good.sns -----\n{TIDY}"),
        "a syntax error is reported and the other files are still formatted",
        &o,
    )?;
    let o = sense(&d, &["fmt", "--write", "bad.sns"], &d);
    let bad = std::fs::read_to_string(d.join("bad.sns")).map_err(|e| e.to_string())?;
    expect(
        o.status.code() == Some(1) && bad == "x = (1\n",
        "--write leaves a file with a syntax error alone",
        &o,
    )?;
    let o = sense(&d, &["fmt", "nope.sns"], &d);
    expect(
        o.status.code() == Some(1)
            && text(&o.stderr) == "SenseError: no such file or directory: nope.sns\n",
        "missing path",
        &o,
    )?;
    let o = sense(&d, &["fmt", "sub"], &d);
    expect(
        o.status.success() && text(&o.stdout) == "no .sns files found under sub\n",
        "directory without .sns files",
        &o,
    )?;
    std::fs::write(d.join("crlf.sns"), "x = 1\r\n").map_err(|e| e.to_string())?;
    let o = sense(&d, &["fmt", "--check", "crlf.sns"], &d);
    expect(
        o.status.code() == Some(1) && text(&o.stdout) == "crlf.sns\n",
        "CRLF line ends count as a change",
        &o,
    )?;
    let _ = std::fs::remove_dir_all(&d);
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let copy = std::env::temp_dir().join(format!("sense-fmt-corpus-{}", std::process::id()));
    let mut trials = vec![
        Trial::test("cli/directory_print_write_check", cli_directory),
        Trial::test("cli/errors_and_missing_paths", cli_errors),
    ];
    match prepare(&copy) {
        Err(e) => trials.push(Trial::test("corpus/prepare", move || Err(e.into()))),
        Ok(()) => {
            let c = copy.clone();
            trials.push(Trial::test("corpus/formatted_copy_is_stable", move || {
                let o = sense(&c, &["fmt", "--check", "tests/golden"], &c.join(".mem"));
                expect(
                    o.stdout.is_empty(),
                    "formatting the formatted corpus again changes files",
                    &o,
                )
            }));
            let mut cases = Vec::new();
            run_cases(&root(), Path::new("tests/golden"), &mut cases);
            run_cases(&root(), Path::new("examples"), &mut cases);
            for rel in cases {
                let c = copy.clone();
                let name = format!("run/{}", rel.trim_start_matches("tests/golden/"));
                trials.push(Trial::test(name, move || same_behaviour(&c, &rel)));
            }
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    let _ = std::fs::remove_dir_all(&copy);
    conclusion.exit();
}
