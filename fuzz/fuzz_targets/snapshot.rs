//! Snapshot bytes → `Runtime::restore` → resume paused agents under a
//! step budget → snapshot again. The checksum is repaired first so that
//! mutations reach the decoder and the validator.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sense_agents::HostValue;
use sense_fuzz::{ExtMode, RESUMES, repair_checksum, resume_paused, runtime};

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.to_vec();
    repair_checksum(&mut bytes);
    let mode = ExtMode::default();
    let mut rt = runtime(&mode);
    if rt.restore_snapshot(&bytes).is_err() {
        return;
    }
    let _ = rt.agents();
    if let Some(id) = rt.subject() {
        let _ = rt.status(id);
        let _ = rt.pause_reason(id);
    }
    resume_paused(&mut rt, RESUMES, |round| match round {
        0 => HostValue::from("yes"),
        1 => HostValue::Int(7),
        _ => HostValue::List(vec![HostValue::Nil]),
    });
    if let Ok(again) = rt.snapshot() {
        let mut back = runtime(&mode);
        if let Err(e) = back.restore_snapshot(&again) {
            panic!("a snapshot of a restored runtime does not restore: {e}");
        }
    }
    let _ = rt.run_source("more.sns", "x = [1, 2]\nprint(x)");
});
