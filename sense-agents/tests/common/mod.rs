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
