//! Setup shared by this crate's integration tests (each test file that
//! needs it says `mod common;`; not every file uses every helper).
#![allow(dead_code)]

use sense_agents::{Config, Runtime};
use std::sync::{Arc, Mutex, PoisonError};

/// A runtime with default limits whose output is captured in the
/// returned string.
pub fn runtime() -> (Runtime, Arc<Mutex<String>>) {
    capturing(Config::default())
}

/// A runtime with `config` whose output is captured in the returned
/// string.
pub fn capturing(config: Config) -> (Runtime, Arc<Mutex<String>>) {
    let mut rt = Runtime::with_config(config);
    let out = Arc::new(Mutex::new(String::new()));
    let sink = out.clone();
    rt.set_output(move |s| {
        sink.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_str(s)
    });
    (rt, out)
}

/// [`runtime`] after running `src` (as `m.sns`), which must succeed.
pub fn loaded(src: &str) -> (Runtime, Arc<Mutex<String>>) {
    let (mut rt, out) = runtime();
    run_main(&mut rt, src);
    (rt, out)
}

/// A runtime with default limits whose output goes nowhere.
pub fn quiet() -> Runtime {
    quiet_with(Config::default())
}

/// A runtime with `config` whose output goes nowhere.
pub fn quiet_with(config: Config) -> Runtime {
    let mut rt = Runtime::with_config(config);
    rt.set_output(|_| {});
    rt
}

/// [`quiet`] after running `src` (as `m.sns`), which must succeed.
pub fn quiet_loaded(src: &str) -> Runtime {
    let mut rt = quiet();
    run_main(&mut rt, src);
    rt
}

/// Runs `src` as `m.sns`; its error, rendered, fails the test.
pub fn run_main(rt: &mut Runtime, src: &str) {
    if let Err(e) = rt.run_source("m.sns", src) {
        panic!("the program failed: {}", e.rendered());
    }
}

/// The default configuration, changed by `edit`.
pub fn config(edit: impl FnOnce(&mut Config)) -> Config {
    let mut c = Config::default();
    edit(&mut c);
    c
}

/// Runs `src` as `file`, which must fail with an error whose text (the
/// message with its line, without the class) contains `want`; returns
/// that error for further checks.
pub fn fails_with(rt: &mut Runtime, file: &str, src: &str, want: &str) -> sense_agents::Error {
    let Err(err) = rt.run_source(file, src) else {
        panic!("{file} ran, but should fail with: {want}");
    };
    assert_mentions(err.display_text(), want);
    err
}

/// `text` (an error's, a listing's) contains `want`; else the test fails
/// showing all of `text`.
pub fn assert_mentions(text: &str, want: &str) {
    assert!(text.contains(want), "{text}");
}

/// Runs `n` small files (`junk.sns`, each redefining and calling `g`):
/// compiled code that is garbage once the next one replaces `g`, for
/// code release to find.
pub fn run_junk(rt: &mut Runtime, n: usize) {
    for i in 0..n {
        let src = format!("def g(x):\n    return x + {i}\nz = g(1)\n");
        if let Err(e) = rt.run_source("junk.sns", &src) {
            panic!("junk.sns failed: {}", e.rendered());
        }
    }
}
