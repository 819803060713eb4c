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
