//! Keeps the book honest: its samples, its shell transcripts and its Rust
//! host run here, with their output checked.
//!
//! - `sample/NAME`: `docs/book/src/samples/NAME.sns` run by the real `sense`
//!   binary from that directory, compared byte for byte with `NAME.out`,
//!   `NAME.err` (present iff stderr is not empty) and `NAME.status` (only
//!   when the exit status is not 1-with-`.err`/0-without). A first line
//!   `# args: COMMAND [FLAGS]` replaces `run`; `NAME.in` is stdin.
//!   `SENSE_BLESS=1` rewrites the expected files (review the diff).
//! - `console/NAME`: `NAME.console` is a transcript: lines `$ sense ARGS`
//!   followed by what the command prints (stdout, then stderr, then
//!   `[exit N]` when N is not 0); `…` stands for a run of characters
//!   without a space (times). It runs in a fresh directory holding a
//!   copy of the samples.
//! - `http/NAME`: `NAME.http` is a `sense serve` session driven with
//!   `curl`, checked the same way (see `book_support/http_transcript.rs`).
//! - `book/includes`: every ```sense block of a page is an `{{#include}}`
//!   of a sample (so no Sense text in the book escapes the samples), every
//!   include points at a file that exists (a line range still covers one
//!   whole definition), and every sample is included.
//! - `embedding/rust`: builds and runs `examples/embedding.rs` (the
//!   Rust-host chapter) and compares its output with `embedding.out`.

#[path = "book_support/http_transcript.rs"]
mod http_transcript;

use libtest_mimic::{Arguments, Failed, Trial};
use sense_testkit::golden::{differs, expected_code};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn book_src() -> PathBuf {
    root().join("docs/book/src")
}

fn samples_dir() -> PathBuf {
    book_src().join("samples")
}

fn read(p: &Path) -> Result<String, Failed> {
    std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()).into())
}

/// Files of `dir` (not below it) whose names end with `suffix`, sorted.
fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| p.is_file() && p.to_string_lossy().ends_with(suffix));
    out.sort();
    out
}

/// Runs the `sense` binary in `dir` with `args` and `stdin`.
fn sense(dir: &Path, args: &[String], stdin: &[u8], memory: &Path) -> Result<Output, Failed> {
    let bin = Path::new(env!("CARGO_BIN_EXE_sense"));
    let mut child = http_transcript::spawn_sense(bin, dir, args, |c| {
        c.env("SENSE_MEMORY_DIR", memory)
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
    })?;
    if let Some(mut pipe) = child.stdin.take() {
        use std::io::Write;
        let _ = pipe.write_all(stdin);
    }
    Ok(child.wait_with_output().map_err(|e| e.to_string())?)
}

/// A fresh, empty scratch directory for one trial.
fn scratch(tag: &str) -> Result<PathBuf, Failed> {
    let dir = std::env::temp_dir().join(format!("sense-book-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).replace("\r\n", "\n")
}

/// One book sample against its expected files.
fn sample(script: &Path) -> Result<(), Failed> {
    let name = script.file_name().unwrap().to_string_lossy().to_string();
    let source = read(script)?;
    let mut args: Vec<String> = match source
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# args:"))
    {
        Some(a) => a.split_whitespace().map(String::from).collect(),
        None => vec!["run".to_string()],
    };
    args.push(name.clone());
    let stdin = std::fs::read(script.with_extension("in")).unwrap_or_default();
    let memory = scratch(&name)?;
    let out = sense(&samples_dir(), &args, &stdin, &memory)?;
    let _ = std::fs::remove_dir_all(&memory);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    let code = out.status.code().unwrap_or(-1);
    let default = if stderr.is_empty() { 0 } else { 1 };
    let (out_file, err_file, status_file) = (
        script.with_extension("out"),
        script.with_extension("err"),
        script.with_extension("status"),
    );
    if sense_testkit::bless() {
        let write = |p: &Path, s: &str| std::fs::write(p, s).map_err(|e| e.to_string());
        write(&out_file, &stdout)?;
        if stderr.is_empty() {
            let _ = std::fs::remove_file(&err_file);
        } else {
            write(&err_file, &stderr)?;
        }
        if code == default {
            let _ = std::fs::remove_file(&status_file);
        } else {
            write(&status_file, &format!("{code}\n"))?;
        }
        return Ok(());
    }
    let mut problems = Vec::new();
    let want_out = read(&out_file)?;
    problems.extend(differs("stdout", &want_out, &stdout));
    let want_err = std::fs::read_to_string(&err_file).unwrap_or_default();
    problems.extend(differs("stderr", &want_err, &stderr));
    let want_code = expected_code(&status_file, &want_err)?;
    if code != want_code {
        problems.push(format!("expected exit status {want_code}, got {code}"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

/// Splits a transcript command line into words; `'…'` quotes one word.
fn words(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c == ' ' {
            chars.next();
            continue;
        }
        let mut word = String::new();
        while let Some(&c) = chars.peek() {
            match c {
                ' ' => break,
                '\'' => {
                    chars.next();
                    loop {
                        match chars.next() {
                            Some('\'') => break,
                            Some(c) => word.push(c),
                            None => return Err(format!("unclosed quote in `{line}`")),
                        }
                    }
                }
                _ => {
                    word.push(c);
                    chars.next();
                }
            }
        }
        out.push(word);
    }
    Ok(out)
}

/// Copies every file of the samples directory (and its subdirectories).
fn copy_samples(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)?.flatten() {
        let p = entry.path();
        let dest = to.join(entry.file_name());
        if p.is_dir() {
            copy_samples(&p, &dest)?;
        } else {
            std::fs::copy(&p, &dest)?;
        }
    }
    Ok(())
}

/// A transcript's name, a fresh scratch copy of the samples to replay it
/// in, and its text.
fn transcript_scratch(transcript: &Path) -> Result<(String, PathBuf, String), Failed> {
    let tag = transcript
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let dir = scratch(&tag)?;
    copy_samples(&samples_dir(), &dir).map_err(|e| format!("copying the samples: {e}"))?;
    Ok((tag, dir, read(transcript)?))
}

/// One shell transcript, command by command.
fn console(transcript: &Path) -> Result<(), Failed> {
    let (tag, dir, script) = transcript_scratch(transcript)?;
    let memory = dir.join(".memory");
    let steps = http_transcript::steps(&script).map_err(|e| format!("{tag}: {e}"))?;
    if steps.is_empty() {
        return Err(format!("{tag}: no `$ sense …` command").into());
    }
    for (cmd, expected) in steps {
        let argv = words(&cmd)?;
        if argv.first().map(String::as_str) != Some("sense") {
            return Err(format!("{tag}: only `sense` commands run here: `{cmd}`").into());
        }
        let out = sense(&dir, &argv[1..], b"", &memory)?;
        let mut got = text(&out.stdout) + &text(&out.stderr);
        match out.status.code() {
            Some(0) => {}
            Some(n) => got.push_str(&format!("[exit {n}]\n")),
            None => got.push_str("[killed by a signal]\n"),
        }
        // `…` stands for a run of characters without a space (times).
        if !http_transcript::matches(&expected, &got) {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(format!(
                "{tag}: `{cmd}` printed\n{got}--- but the transcript says\n{expected}---"
            )
            .into());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// One `sense serve` transcript, request by request.
fn http(transcript: &Path) -> Result<(), Failed> {
    let (tag, dir, script) = transcript_scratch(transcript)?;
    let result = http_transcript::run(Path::new(env!("CARGO_BIN_EXE_sense")), &dir, &script, words);
    let _ = std::fs::remove_dir_all(&dir);
    result.map_err(|e| format!("{tag}: {e}").into())
}

/// What an include takes of its file: a line range or a named anchor.
enum Part {
    Lines(usize, usize),
    Anchor(String),
}

/// The `{{#include PATH[:range|:anchor]}}` targets of a page, resolved.
fn includes(page: &Path, body: &str) -> Vec<(PathBuf, Option<Part>)> {
    let dir = page.parent().unwrap();
    body.match_indices("{{#include ")
        .filter_map(|(at, _)| {
            let rest = &body[at + "{{#include ".len()..];
            let end = rest.find("}}")?;
            let target = rest[..end].trim();
            let mut parts = target.split(':');
            let path = parts.next()?;
            let part = match (parts.next(), parts.next()) {
                (Some(a), Some(b)) => a
                    .parse()
                    .ok()
                    .zip(b.parse().ok())
                    .map(|(a, b)| Part::Lines(a, b)),
                (Some(name), None) if !name.is_empty() && name.parse::<usize>().is_err() => {
                    Some(Part::Anchor(name.to_string()))
                }
                _ => None,
            };
            Some((dir.join(path), part))
        })
        .collect()
}

/// A line range of an include (`FILE:FROM:TO`) must still be one whole
/// top-level definition — from an unindented line to a closing `}` — so
/// an edit that shifts the file's lines is caught here, not by a reader.
/// A named anchor (`FILE:NAME`, with `ANCHOR: NAME` / `ANCHOR_END: NAME`
/// comments in the file) must exist, opened and closed.
fn part_problem(file: &Path, part: &Part) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    match part {
        Part::Anchor(name) => {
            let has = |marker: &str| {
                lines.iter().any(|l| {
                    l.trim_start().trim_start_matches(['/', '#', ' '])
                        == format!("{marker}: {name}")
                })
            };
            if has("ANCHOR") && has("ANCHOR_END") {
                None
            } else {
                Some(format!(
                    "anchor {name:?} is not opened and closed in the file"
                ))
            }
        }
        &Part::Lines(from, to) => {
            if from == 0 || from > to || to > lines.len() {
                return Some(format!("lines {from}:{to} are not in the file"));
            }
            let (first, last) = (lines[from - 1], lines[to - 1]);
            if first.is_empty() || first.starts_with([' ', '\t', '}']) || last != "}" {
                return Some(format!(
                    "lines {from}:{to} are no longer one whole definition (they run from {first:?} to {last:?})"
                ));
            }
            None
        }
    }
}

/// Every ```sense block is an include of a sample; includes resolve;
/// every sample is shown.
fn book_includes() -> Result<(), Failed> {
    let all = sense_testkit::files_ending(&book_src(), ".md");
    let mut problems = Vec::new();
    let mut included = Vec::new();
    for page in &all {
        let body = read(page)?;
        let rel = page
            .strip_prefix(root())
            .unwrap_or(page)
            .display()
            .to_string();
        for (target, range) in includes(page, &body) {
            if let Some(problem) = range.as_ref().and_then(|r| part_problem(&target, r)) {
                problems.push(format!("{rel}: include of {}: {problem}", target.display()));
            }
            match target.canonicalize() {
                Ok(t) => included.push(t),
                Err(_) => problems.push(format!(
                    "{rel}: include of a missing file {}",
                    target.display()
                )),
            }
        }
        let mut in_sense = false;
        for (n, line) in body.lines().enumerate() {
            let trimmed = line.trim_start();
            if in_sense {
                if trimmed.starts_with("```") {
                    in_sense = false;
                } else if !trimmed.is_empty() && !trimmed.starts_with("{{#include samples/") {
                    problems.push(format!(
                        "{rel}:{}: Sense text written into the page (put it in a sample and include it)",
                        n + 1
                    ));
                }
            } else if trimmed.starts_with("```sense") {
                in_sense = true;
            }
        }
    }
    for s in files_ending(&samples_dir(), ".sns")
        .into_iter()
        .chain(files_ending(&samples_dir(), ".console"))
        .chain(files_ending(&samples_dir(), ".http"))
    {
        let c = s.canonicalize().map_err(|e| e.to_string())?;
        if !included.contains(&c) {
            problems.push(format!("sample {} is included by no page", s.display()));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

/// Builds and runs the Rust host of the embedding chapter.
fn embedding_rust() -> Result<(), Failed> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    // This test binary lives in target/<profile>/deps.
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("no profile directory")?
        .to_path_buf();
    let mut build = Command::new(cargo);
    build.args(["build", "-q", "-p", "sense", "--example", "embedding"]);
    if profile_dir.file_name().is_some_and(|n| n == "release") {
        build.arg("--release");
    }
    let built = build
        .current_dir(root())
        .output()
        .map_err(|e| format!("cargo: {e}"))?;
    if !built.status.success() {
        return Err(format!(
            "cargo build --example embedding failed:\n{}",
            text(&built.stderr)
        )
        .into());
    }
    let out = Command::new(profile_dir.join("examples/embedding"))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running the example: {e}"))?;
    let got = text(&out.stdout);
    let expected_file = samples_dir().join("embedding.out");
    if sense_testkit::bless() {
        std::fs::write(&expected_file, &got).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let want = read(&expected_file)?;
    if !out.status.success() || got != want || !out.stderr.is_empty() {
        return Err(format!(
            "the example printed\n{got}--- stderr\n{}--- expected\n{want}---",
            text(&out.stderr)
        )
        .into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for s in files_ending(&samples_dir(), ".sns") {
        let name = format!("sample/{}", s.file_stem().unwrap().to_string_lossy());
        trials.push(Trial::test(name, move || sample(&s)));
    }
    for c in files_ending(&samples_dir(), ".console") {
        let name = format!("console/{}", c.file_stem().unwrap().to_string_lossy());
        trials.push(Trial::test(name, move || console(&c)));
    }
    for h in files_ending(&samples_dir(), ".http") {
        let name = format!("http/{}", h.file_stem().unwrap().to_string_lossy());
        trials.push(Trial::test(name, move || http(&h)));
    }
    trials.push(Trial::test("book/includes", book_includes));
    trials.push(Trial::test("embedding/rust", embedding_rust));
    libtest_mimic::run(&args, trials).exit();
}
