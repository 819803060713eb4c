//! The Rust host of the book's "Embedding Sense" chapter: register a host
//! function and a model provider, run a program, drive its agent through
//! `ask_human`, save the paused runtime to bytes and finish it in a fresh
//! runtime. `tests/book.rs` builds it, runs it and checks its output.
//!
//! Run it: `cargo run --example embedding`.

use sense::agents::{HostReturn, HostValue, ModelProvider, ModelResponse, Runtime, State};

const PROGRAM: &str = r#"
model reviewer = inference("shouty")

agent release:
    version = "v" + str(next_version(1))
    verdict = reviewer.ask("is " + version + " ready?")
    print("reviewer:", verdict.value)
    answer = ask_human("ship " + version + "?")
    print("human said:", answer)
"#;

/// A provider of our own: answers every prompt in capitals.
struct Shouty;

impl ModelProvider for Shouty {
    fn complete(&mut self, _model: &str, prompt: &str) -> Result<ModelResponse, String> {
        Ok(ModelResponse {
            text: prompt.to_uppercase(),
            confidence: None,
        })
    }
}

/// A runtime with everything the program needs registered.
fn runtime() -> Runtime {
    let mut rt = Runtime::new();
    rt.register_fn("next_version", Some(1), |args| match &args[0] {
        HostValue::Int(n) => Ok(HostReturn::Value(HostValue::Int(n + 1))),
        other => Err(format!(
            "next_version() expects an Int, got {}",
            other.type_name()
        )),
    });
    rt.register_provider("shouty", None, "loud-1", Shouty);
    rt
}

fn main() -> Result<(), sense::Error> {
    let mut rt = runtime();
    rt.run_source("release.sns", PROGRAM)?;
    let release = rt.agent("release")?;
    if let State::Paused { reason, kind } = rt.start(release)? {
        println!("paused ({kind:?}): {reason}");
    }

    // A paused agent is plain data: save it, and finish it elsewhere.
    let bytes = rt.snapshot()?;
    let mut later = runtime();
    later.restore_snapshot(&bytes)?;
    let release = later.agent("release")?;
    assert_eq!(later.resume(release, "yes")?, State::Completed);
    println!("status: {:?}", later.status(release)?);
    Ok(())
}
