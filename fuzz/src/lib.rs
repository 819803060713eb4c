//! Shared pieces of the Sense fuzz targets: a runtime with small limits and
//! no I/O, driving helpers, and snapshot-header repair.
//!
//! Every target must keep these properties for *any* input: no panic, no
//! hang (the step budget bounds Sense execution), no unbounded allocation
//! (the string and array caps bound what one step can build).

use sense_agents::{AgentStatus, Config, HostReturn, HostValue, Runtime};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// Safe points (calls and loop iterations) per run.
pub const MAX_STEPS: u64 = 5_000;
/// How many times an agent is resumed after a run.
pub const RESUMES: usize = 3;

/// Small limits: the fuzzer looks for crashes, not for big programs.
pub fn config() -> Config {
    Config {
        max_steps: Some(MAX_STEPS),
        max_depth: 64,
        max_string_len: 16 * 1024,
        max_array_len: 4 * 1024,
        memory_dir: Some(std::env::temp_dir().join("sense-fuzz-memory")),
        ..Config::default()
    }
}

/// What the host function `ext` does next (see [`register_ext`]).
#[derive(Clone, Default)]
pub struct ExtMode(pub Arc<AtomicU8>);

impl ExtMode {
    /// 0: return its first argument; 1: suspend the calling agent; 2: fail.
    pub fn set(&self, mode: u8) {
        self.0.store(mode % 3, Ordering::Relaxed);
    }
}

/// Registers `ext(…)`, a host function that returns, suspends or fails
/// depending on `mode`.
pub fn register_ext(rt: &mut Runtime, mode: &ExtMode) {
    let mode = mode.0.clone();
    rt.register_fn("ext", None, move |args| {
        match mode.load(Ordering::Relaxed) {
            0 => Ok(HostReturn::Value(
                args.first().cloned().unwrap_or(HostValue::Nil),
            )),
            1 => Ok(HostReturn::Suspend(HostValue::from("ext waits"))),
            _ => Err("ext failed".to_string()),
        }
    });
    rt.register_fn("ext_suspend", Some(1), |args| {
        Ok(HostReturn::Suspend(
            args.first().cloned().unwrap_or(HostValue::Nil),
        ))
    });
}

/// A runtime with `config`, persistent memories in memory (see
/// [`in_memory_store`]), output discarded and no input.
pub fn runtime(mode: &ExtMode) -> Runtime {
    let mut rt = Runtime::with_config(config());
    in_memory_store(&mut rt);
    rt.set_output(|_| {});
    rt.set_input(|| None);
    register_ext(&mut rt, mode);
    rt
}

/// Every persistent memory, declared by a program or restored from
/// (possibly mutated) snapshot bytes, is a fresh SQLite database in
/// memory: no input can make the fuzzer create files at a path it names.
pub fn in_memory_store(rt: &mut Runtime) {
    rt.set_memory_store(sense_agents::memory::open_sqlite_in_memory);
}

/// True when source text would touch the file system beyond reading
/// modules: `persistent memory` opens (and creates) SQLite files at paths
/// the program names. Those inputs are skipped.
pub fn touches_files(text: &str) -> bool {
    text.contains("persistent")
}

/// Resumes every paused agent up to `rounds` times (errors are fine).
pub fn resume_paused(rt: &mut Runtime, rounds: usize, value: impl Fn(usize) -> HostValue) {
    for round in 0..rounds {
        let paused: Vec<_> = rt
            .agents()
            .iter()
            .filter(|r| r.status == AgentStatus::Paused)
            .map(|r| rt.agent_id(r))
            .collect();
        if paused.is_empty() {
            return;
        }
        for id in paused {
            let _ = rt.resume(id, value(round));
        }
    }
}

/// Snapshot `rt`, restore into a fresh runtime and check the agents came
/// back as they were. Returns the restored runtime.
pub fn round_trip(rt: &Runtime, mode: &ExtMode) -> Option<Runtime> {
    round_trip_with(rt, mode, |_| {})
}

/// [`round_trip`], calling `setup` on the fresh runtime before restoring
/// (to register the host functions the snapshot needs).
pub fn round_trip_with(
    rt: &Runtime,
    mode: &ExtMode,
    setup: impl FnOnce(&mut Runtime),
) -> Option<Runtime> {
    let bytes = rt.snapshot().ok()?;
    let mut fresh = runtime(mode);
    setup(&mut fresh);
    if let Err(e) = fresh.restore_snapshot(&bytes) {
        panic!("a snapshot this runtime just took does not restore: {e}");
    }
    let before: Vec<_> = rt
        .agents()
        .into_iter()
        .map(|r| (r.name, r.status, r.pause_kind, r.mailbox))
        .collect();
    let after: Vec<_> = fresh
        .agents()
        .into_iter()
        .map(|r| (r.name, r.status, r.pause_kind, r.mailbox))
        .collect();
    assert_eq!(before, after, "agents differ after snapshot/restore");
    Some(fresh)
}

const SNAPSHOT_MAGIC: &[u8; 8] = b"SENSESNP";

/// Snapshot bytes are `SENSESNP`, a version, an FNV-1a checksum of the
/// payload, then the payload. A mutated payload would almost always fail
/// the checksum, so the snapshot target repairs it to reach the decoder
/// and the validator. Inputs not starting with the magic are left alone.
pub fn repair_checksum(bytes: &mut [u8]) {
    if bytes.len() < 20 || &bytes[..8] != SNAPSHOT_MAGIC {
        return;
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in &bytes[20..] {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    bytes[12..20].copy_from_slice(&h.to_le_bytes());
}
