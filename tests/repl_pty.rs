//! `sense repl` on a real terminal (a pseudo-terminal driven by `rexpect`):
//! the value of an expression statement is shown, nil and assignments
//! show nothing, Tab completes builtins and the session's own names, and a
//! misspelled name gets a "did you mean" hint. Piped sessions, which show
//! no values, are covered by the golden `repl/` cases.
#![cfg(unix)]

use rexpect::session::PtySession;
use std::process::Command;

/// Each expectation waits at most this long (no hangs).
const TIMEOUT_MS: u64 = 20_000;

fn start() -> (PtySession, std::path::PathBuf) {
    let home = std::env::temp_dir().join(format!("sense-repl-pty-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sense"));
    cmd.arg("repl")
        // A private history file, and a terminal that supports line editing.
        .env("HOME", &home)
        .env("TERM", "xterm")
        .env_remove("NO_COLOR");
    let mut p = rexpect::session::spawn_command(cmd, Some(TIMEOUT_MS)).expect("spawn on a pty");
    p.exp_string("interactive REPL").unwrap();
    p.exp_string("sense> ").unwrap();
    (p, home)
}

/// Sends `line` and returns everything printed before the next prompt.
fn eval(p: &mut PtySession, line: &str) -> String {
    p.send_line(line).unwrap();
    p.exp_string("sense> ").unwrap()
}

/// Types `typed` then Tab, and waits for `shown`.
fn complete(p: &mut PtySession, typed: &str, shown: &str) {
    p.send(typed).unwrap();
    p.send("\t").unwrap();
    p.flush().unwrap();
    p.exp_string(shown).unwrap();
}

/// Types `text` without Enter, then Ctrl-C: the prompt comes back.
fn cancel_typed(p: &mut PtySession, text: &str) {
    p.send(text).unwrap();
    p.flush().unwrap();
    p.send_control('c').unwrap();
    p.exp_string("sense> ").unwrap();
}

#[test]
fn shows_values_and_completes_names() {
    let (mut p, home) = start();

    let out = eval(&mut p, "1 + 2");
    assert!(out.contains("3\r\n"), "{out:?}");

    // An assignment shows nothing; reading the name shows its value.
    let out = eval(&mut p, "total = 40");
    assert!(!out.contains("40\r\n"), "{out:?}");
    let out = eval(&mut p, "total + 2");
    assert!(out.contains("42\r\n"), "{out:?}");

    // nil shows nothing, like Python's None; strings show quoted.
    let out = eval(&mut p, "nil");
    assert!(!out.contains("nil\r\n"), "{out:?}");
    let out = eval(&mut p, "\"hi\"");
    assert!(out.contains("\"hi\"\r\n"), "{out:?}");

    // An agent's member, the example newcomers try first.
    for line in ["agent a:", "    pause(\"wait\")"] {
        p.send_line(line).unwrap();
        p.exp_string("...    ").unwrap();
    }
    let out = eval(&mut p, "");
    assert!(!out.contains("Error"), "{out:?}");
    let out = eval(&mut p, "a.status");
    assert!(out.contains("\"created\"\r\n"), "{out:?}");

    // print still prints once (its nil result is not shown).
    let out = eval(&mut p, "print(7)");
    assert_eq!(out.matches("7\r\n").count(), 1, "{out:?}");

    // Tab completes a builtin…
    complete(&mut p, "pri", "print");
    let out = eval(&mut p, "(\"done\")");
    assert!(out.contains("done\r\n"), "{out:?}");

    // …and a name the session defined.
    eval(&mut p, "counter_total = 5");
    complete(&mut p, "counter_t", "counter_total");
    let out = eval(&mut p, " * 2");
    assert!(out.contains("10\r\n"), "{out:?}");

    // Several matches: Tab completes their common prefix, a second Tab
    // lists them.
    complete(&mut p, "ask_w", "ask_with_");
    p.send("\t").unwrap();
    p.flush().unwrap();
    let listed = p.exp_string("ask_with_tools").unwrap();
    assert!(listed.contains("ask_with_memory"), "{listed:?}");
    // The prompt comes back with the line; drop it (Ctrl-U), then go on.
    p.exp_string("sense> ").unwrap();
    p.send_control('u').unwrap();
    let out = eval(&mut p, "len([1, 2])");
    assert!(out.contains("2\r\n"), "{out:?}");

    // A misspelled builtin: the reference's message, then the hint.
    let out = eval(&mut p, "prnt(1)");
    assert!(
        out.contains("SenseNameError: [line 1] undefined variable 'prnt'"),
        "{out:?}"
    );
    assert!(out.contains("= help: did you mean `print`?"), "{out:?}");

    p.send_line("exit").unwrap();
    p.exp_eof().unwrap();
    let _ = std::fs::remove_dir_all(&home);
}

/// Ctrl-C keeps the session, as in Python's, Lua's and node's REPLs: on a
/// half-typed line it drops the line, inside an open block the block, and
/// while a statement runs (an endless loop) it stops the statement.
#[test]
fn ctrl_c_cancels_a_line_and_interrupts_a_running_statement() {
    let (mut p, home) = start();
    eval(&mut p, "kept = 41");

    // A half-typed line: dropped, the prompt comes back.
    cancel_typed(&mut p, "this is not finished(");
    let out = eval(&mut p, "kept + 1");
    assert!(out.contains("42\r\n"), "{out:?}");

    // An open block: dropped whole.
    p.send_line("if true:").unwrap();
    p.exp_string("...    ").unwrap();
    cancel_typed(&mut p, "    kept = 0");
    let out = eval(&mut p, "kept");
    assert!(out.contains("41\r\n"), "{out:?}");

    // An endless loop: interrupted, and the session's names survive.
    p.send_line("while true:").unwrap();
    p.exp_string("...    ").unwrap();
    p.send_line("    kept = kept").unwrap();
    p.exp_string("...    ").unwrap();
    p.send_line("").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send_control('c').unwrap();
    let out = p.exp_string("sense> ").unwrap();
    assert!(out.contains("SenseRuntimeError"), "{out:?}");
    assert!(out.contains("interrupted"), "{out:?}");
    let out = eval(&mut p, "kept * 2");
    assert!(out.contains("82\r\n"), "{out:?}");

    p.send_line("exit").unwrap();
    p.exp_eof().unwrap();
    let _ = std::fs::remove_dir_all(&home);
}
