//! Source text → lex → parse → compile → run under a step budget, with
//! small depth/string/array caps; then every paused agent is resumed a few
//! times, and the runtime is snapshotted, restored and driven again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sense_agents::HostValue;
use sense_fuzz::{ExtMode, RESUMES, resume_paused, round_trip, runtime, touches_files};

fuzz_target!(|data: &[u8]| {
    if data.len() > 16 * 1024 {
        return;
    }
    let text = String::from_utf8_lossy(data);
    if touches_files(&text) {
        return;
    }
    let mode = ExtMode::default();
    mode.set(data.len() as u8);
    let mut rt = runtime(&mode);
    let _ = rt.run_source("fuzz.sns", &text);
    resume_paused(&mut rt, RESUMES, |round| match round {
        0 => HostValue::Int(1),
        1 => HostValue::from("yes"),
        _ => HostValue::Nil,
    });
    if let Some(mut back) = round_trip(&rt, &mode) {
        resume_paused(&mut back, 1, |_| HostValue::Int(2));
        let _ = back.snapshot();
        // The restored runtime still runs programs.
        let _ = back.run_source("more.sns", "print(1)");
    }
});
