//! The hand-off through the C ABI: one resume→pause round trip of an agent
//! driven with `sense_agent_resume`, and `sense_agent_start` up to the
//! first pause, calling libsense's exported `extern "C"` functions exactly
//! as a C host does. A Rust-API round trip of the same agent runs in the
//! same group, so criterion reports the boundary's cost from one run.
//!
//! sense-ffi builds only a cdylib and a staticlib (an rlib would collide
//! with the `sense` facade crate), so this bench loads the shared library
//! at run time with libloading. It first runs
//! `cargo build -p sense-ffi --lib` for its own profile (`--release` under
//! `cargo bench`), because cargo does not rebuild a crate's cdylib for the
//! crate's own benches and a stale library would be measured silently; that
//! build is a no-op when the library is fresh. `SENSE_NO_BUILD=1` skips it.
//! The library is then taken from the bench's profile directory
//! (`target/release` under `cargo bench`), else `target/release`, else
//! `target/debug`.
//!
//! Run: `cargo bench -p sense-ffi --bench c_abi`.
//!
//! The group `handoff_vs_lua` puts the C-ABI round trip that sends an Int
//! and reads the pause value back beside Lua 5.4's C-API round trip
//! (`lua_resume` of a coroutine whose C function yields; see `lua.rs`),
//! so one run gives the ratio. Without a Lua 5.4 shared library that part
//! is skipped with a loud line (and fails under `SENSE_TEST_ALL=1`).
#![warn(clippy::undocumented_unsafe_blocks)]

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion, criterion_group, criterion_main};
use libloading::Library;
use sense_agents::{AgentId, HostValue, Runtime, State, ValueRef};
use std::ffi::{c_char, c_int};
use std::hint::black_box;
use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr;

// The Lua peer (a directory of its own: cargo would take a benches/*.rs
// file for a bench target).
#[path = "c_abi/lua.rs"]
mod lua;

// The declarations of include/sense.h this bench uses, as a C compiler
// sees them: opaque handles, `sense_agent` by value, C enums as `int`.

/// `sense_runtime` (opaque).
#[repr(C)]
struct SenseRuntime {
    _private: [u8; 0],
}

/// `sense_value` (opaque).
#[repr(C)]
struct SenseValue {
    _private: [u8; 0],
}

/// `sense_error` (opaque).
#[repr(C)]
struct SenseError {
    _private: [u8; 0],
}

/// `sense_agent`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct SenseAgent {
    serial: u64,
    index: u32,
}

/// `sense_str`.
#[repr(C)]
#[derive(Clone, Copy)]
struct SenseStr {
    ptr: *const c_char,
    len: usize,
}

/// `enum sense_status`.
type Status = c_int;
const SENSE_STATUS_OK: Status = 0;
/// `enum sense_agent_status`.
type AgentStatus = c_int;
const SENSE_AGENT_STATUS_PAUSED: AgentStatus = 2;

type Err = *mut *mut SenseError;

/// The functions used, resolved once from the loaded library.
struct Api {
    runtime_new: unsafe extern "C" fn(*mut *mut SenseRuntime, Err) -> Status,
    runtime_free: unsafe extern "C" fn(*mut SenseRuntime),
    run_source: unsafe extern "C" fn(
        *mut SenseRuntime,
        *const c_char,
        usize,
        *const c_char,
        usize,
        Err,
    ) -> Status,
    agent_lookup: unsafe extern "C" fn(
        *const SenseRuntime,
        *const c_char,
        usize,
        *mut SenseAgent,
        Err,
    ) -> Status,
    agent_start:
        unsafe extern "C" fn(*mut SenseRuntime, SenseAgent, *mut AgentStatus, Err) -> Status,
    agent_resume: unsafe extern "C" fn(
        *mut SenseRuntime,
        SenseAgent,
        *const SenseValue,
        *mut AgentStatus,
        Err,
    ) -> Status,
    agent_pause_reason:
        unsafe extern "C" fn(*const SenseRuntime, SenseAgent, *mut *mut SenseValue, Err) -> Status,
    agent_resume_int:
        unsafe extern "C" fn(*mut SenseRuntime, SenseAgent, i64, *mut AgentStatus, Err) -> Status,
    agent_pause_reason_int:
        unsafe extern "C" fn(*const SenseRuntime, SenseAgent, *mut i64, Err) -> Status,
    value_new_int: unsafe extern "C" fn(i64) -> *mut SenseValue,
    value_as_int: unsafe extern "C" fn(*const SenseValue, *mut i64, Err) -> Status,
    value_free: unsafe extern "C" fn(*mut SenseValue),
    error_rendered: unsafe extern "C" fn(*const SenseError) -> SenseStr,
    error_free: unsafe extern "C" fn(*mut SenseError),
    /// Keeps the code behind the pointers above mapped. Never unloaded:
    /// thread-local destructors libsense registered may still point into it.
    _lib: ManuallyDrop<Library>,
}

/// Resolves `name` (NUL-terminated) to a function pointer of type `T`.
macro_rules! sym {
    ($lib:expr, $name:literal) => {{
        // SAFETY: the symbol is a function exported by libsense with the
        // signature declared for it in `Api` (mirroring include/sense.h);
        // the pointer is copied out and used only while `Api::_lib` keeps
        // the library loaded.
        let f = unsafe { $lib.get(concat!($name, "\0").as_bytes()) }
            .unwrap_or_else(|e| panic!("libsense does not export {}: {e}", $name));
        *f
    }};
}

impl Api {
    fn load(path: &Path) -> Api {
        // SAFETY: loading libsense runs only the Rust standard library's
        // initialisers (it has no constructors of its own), which are sound
        // to run in this process; it is never unloaded (see `_lib`).
        let lib = unsafe { Library::new(path) }
            .unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()));
        Api {
            runtime_new: sym!(lib, "sense_runtime_new"),
            runtime_free: sym!(lib, "sense_runtime_free"),
            run_source: sym!(lib, "sense_runtime_run_source"),
            agent_lookup: sym!(lib, "sense_agent_lookup"),
            agent_start: sym!(lib, "sense_agent_start"),
            agent_resume: sym!(lib, "sense_agent_resume"),
            agent_pause_reason: sym!(lib, "sense_agent_pause_reason"),
            agent_resume_int: sym!(lib, "sense_agent_resume_int"),
            agent_pause_reason_int: sym!(lib, "sense_agent_pause_reason_int"),
            value_new_int: sym!(lib, "sense_value_new_int"),
            value_as_int: sym!(lib, "sense_value_as_int"),
            value_free: sym!(lib, "sense_value_free"),
            error_rendered: sym!(lib, "sense_error_rendered"),
            error_free: sym!(lib, "sense_error_free"),
            _lib: ManuallyDrop::new(lib),
        }
    }

    /// Panics with the rendered error unless `status` is OK (setup only).
    fn check(&self, what: &str, status: Status, err: *mut SenseError) {
        if status == SENSE_STATUS_OK {
            return;
        }
        // SAFETY: on failure `err` is NULL or an error libsense stored
        // for us; `sense_error_rendered` accepts NULL, and its view is
        // NUL-terminated and valid until `sense_error_free`.
        let text = unsafe {
            let s = (self.error_rendered)(err);
            let text = if s.ptr.is_null() {
                String::new()
            } else {
                let bytes = std::slice::from_raw_parts(s.ptr.cast::<u8>(), s.len);
                String::from_utf8_lossy(bytes).into_owned()
            };
            (self.error_free)(err);
            text
        };
        panic!("{what} failed with status {status}: {text}");
    }

    /// [`host`](Self::host) for the agent `worker` of `src`, started and
    /// paused at its first pause.
    fn started(&self, src: &str) -> Host<'_> {
        let host = self.host(src, "worker");
        let mut status: AgentStatus = 0;
        // SAFETY: live runtime, agent of it, writable status, NULL error.
        let st = unsafe { (self.agent_start)(host.rt, host.agent, &mut status, ptr::null_mut()) };
        assert!(st == SENSE_STATUS_OK && status == SENSE_AGENT_STATUS_PAUSED);
        host
    }

    /// A new runtime that ran `src` and an id for the agent `name`, both
    /// in a [`Host`] that frees the runtime when dropped.
    fn host(&self, src: &str, name: &str) -> Host<'_> {
        let mut rt = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: out-parameters point to locals; `err` is only read after
        // a failure (inside `check`).
        let st = unsafe { (self.runtime_new)(&mut rt, &mut err) };
        self.check("sense_runtime_new", st, err);
        // Owned from here on, so a failed setup still frees the runtime.
        let mut host = Host {
            api: self,
            rt,
            agent: SenseAgent {
                serial: 0,
                index: 0,
            },
        };
        let file = "bench.sns";
        // SAFETY: `rt` is a live runtime; the strings are valid UTF-8 of
        // the given lengths for the call.
        let st = unsafe {
            (self.run_source)(
                rt,
                file.as_ptr().cast(),
                file.len(),
                src.as_ptr().cast(),
                src.len(),
                &mut err,
            )
        };
        self.check("sense_runtime_run_source", st, err);
        // SAFETY: as above; `host.agent` is a writable `sense_agent`.
        let st = unsafe {
            (self.agent_lookup)(
                rt,
                name.as_ptr().cast(),
                name.len(),
                &mut host.agent,
                &mut err,
            )
        };
        self.check("sense_agent_lookup", st, err);
        host
    }
}

/// A runtime owned by the bench and one agent of it.
struct Host<'a> {
    api: &'a Api,
    rt: *mut SenseRuntime,
    agent: SenseAgent,
}

impl Drop for Host<'_> {
    fn drop(&mut self) {
        // SAFETY: `rt` came from `sense_runtime_new`; each `Host` owns its
        // runtime and frees it once, here.
        unsafe { (self.api.runtime_free)(self.rt) }
    }
}

/// The Rust API's twin of [`Api::started`]: a runtime that ran `src`, and
/// its agent `worker`, started and paused.
fn rust_started(src: &str) -> (Runtime, AgentId) {
    let mut rt = Runtime::new();
    rt.run_source("bench.sns", src).expect("bench program");
    let a = rt.agent("worker").expect("worker");
    rt.start(a).expect("start");
    (rt, a)
}

const LOOPER: &str = "agent worker:\n    while true:\n        x = pause()\n";

/// `target/<profile>`, where this bench binary's `deps/` directory is.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>")
        .to_path_buf()
}

/// Builds libsense for this bench's profile (see the module docs).
fn build_libsense(profile: &Path) {
    if std::env::var("SENSE_NO_BUILD").is_ok_and(|v| v == "1") {
        return;
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "-p", "sense-ffi", "--lib"]);
    if profile.file_name().is_some_and(|n| n == "release") {
        cmd.arg("--release");
    }
    // CARGO_TARGET_DIR, if set, is inherited, so this is our target dir.
    let status = cmd
        // From this crate's directory cargo finds the workspace it is in.
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cannot run cargo to build libsense");
    assert!(status.success(), "`{cmd:?}` failed ({status})");
}

/// The shared library to load.
fn find_libsense() -> PathBuf {
    let profile = profile_dir();
    build_libsense(&profile);
    let name = libloading::library_filename("sense");
    let target = profile.parent().expect("target dir").to_path_buf();
    let candidates = [
        profile.join(&name),
        target.join("release").join(&name),
        target.join("debug").join(&name),
    ];
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .unwrap_or_else(|| {
            panic!(
                "{} not found in {candidates:?}: run `cargo build --release -p sense-ffi --lib`",
                name.to_string_lossy()
            )
        })
}

fn c_abi(c: &mut Criterion) {
    let path = find_libsense();
    eprintln!("c_abi: loading {}", path.display());
    let api = Api::load(&path);
    let mut group = c.benchmark_group("c_abi");

    // resume→pause: one `sense_agent_resume` call per iteration, with the
    // resume value, the status slot and the agent id made once (no error
    // out-parameter: libsense writes one only on failure).
    {
        let host = api.started(LOOPER);
        let mut status: AgentStatus = 0;
        // SAFETY: `sense_value_new_int` has no preconditions.
        let value = unsafe { (api.value_new_int)(1) };
        assert!(!value.is_null());
        group.bench_function("C ABI: sense_agent_resume round trip", |b| {
            b.iter(|| {
                // SAFETY: the runtime and value outlive the benchmark; the
                // value is only read (copied) by the call; `status` is a
                // writable local.
                let st = unsafe {
                    (api.agent_resume)(host.rt, host.agent, value, &mut status, ptr::null_mut())
                };
                assert!(st == SENSE_STATUS_OK && status == SENSE_AGENT_STATUS_PAUSED);
                black_box(status);
            })
        });
        // SAFETY: `value` is owned here and freed once.
        unsafe { (api.value_free)(value) };
    }

    // The same round trip through the Rust API, for the boundary's cost.
    {
        let (mut rt, a) = rust_started(LOOPER);
        group.bench_function("Rust API: Runtime::resume round trip", |b| {
            b.iter(|| {
                let s = rt.resume(a, HostValue::Int(1)).expect("resume");
                black_box(matches!(s, State::Paused { .. }));
            })
        });
    }

    // start→first pause: each iteration starts a `created` agent of a
    // runtime set up (and afterwards freed) outside the timing.
    group.bench_function("C ABI: sense_agent_start to first pause", |b| {
        b.iter_batched(
            || api.host(LOOPER, "worker"),
            |host| {
                let mut status: AgentStatus = 0;
                // SAFETY: live runtime, its agent, writable status.
                let st =
                    unsafe { (api.agent_start)(host.rt, host.agent, &mut status, ptr::null_mut()) };
                assert!(st == SENSE_STATUS_OK && status == SENSE_AGENT_STATUS_PAUSED);
                host
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// The agent twin of the Lua coroutine in `lua.rs`: pauses with the value
/// it was resumed with, plus one.
const ECHO_PLUS_ONE: &str = "agent worker:\n    x = 0\n    while true:\n        x = pause(x + 1)\n";

/// Send an Int, read the Int pause value back: through libsense's C ABI,
/// through the Rust API, and through Lua 5.4's C API, in one group.
fn handoff_vs_lua(c: &mut Criterion) {
    let path = find_libsense();
    let api = Api::load(&path);
    let mut group = c.benchmark_group("handoff_vs_lua");

    // C ABI: a new Int `sense_value` per round trip (as a host sending
    // fresh data does), `sense_agent_resume`, then the pause value as an
    // Int via `sense_agent_pause_reason` + `sense_value_as_int`; both
    // values freed inside the timing.
    {
        let host = api.started(ECHO_PLUS_ONE);
        let mut status: AgentStatus = 0;
        bench_echo(&mut group, "C ABI: send Int, read Int pause value", |i| {
            // SAFETY: the runtime outlives the benchmark; every value made
            // here is freed once, here; out-parameters are locals.
            unsafe {
                let v = (api.value_new_int)(i);
                let st = (api.agent_resume)(host.rt, host.agent, v, &mut status, ptr::null_mut());
                (api.value_free)(v);
                assert!(st == SENSE_STATUS_OK && status == SENSE_AGENT_STATUS_PAUSED);
                let mut reason = ptr::null_mut();
                let st =
                    (api.agent_pause_reason)(host.rt, host.agent, &mut reason, ptr::null_mut());
                assert_eq!(st, SENSE_STATUS_OK);
                let mut got = 0;
                let st = (api.value_as_int)(reason, &mut got, ptr::null_mut());
                (api.value_free)(reason);
                assert_eq!(st, SENSE_STATUS_OK);
                got
            }
        });
    }

    // C ABI without allocation: the Int passed directly
    // (`sense_agent_resume_int`), the pause value read in place
    // (`sense_agent_pause_reason_int`); nothing made or freed.
    {
        let host = api.started(ECHO_PLUS_ONE);
        let mut status: AgentStatus = 0;
        bench_echo(
            &mut group,
            "C ABI, no allocation: sense_agent_resume_int, sense_agent_pause_reason_int",
            |i| {
                let mut got = 0;
                // SAFETY: the runtime outlives the benchmark; out-parameters
                // are locals; NULL error pointers.
                let (st1, st2) = unsafe {
                    (
                        (api.agent_resume_int)(
                            host.rt,
                            host.agent,
                            i,
                            &mut status,
                            ptr::null_mut(),
                        ),
                        (api.agent_pause_reason_int)(
                            host.rt,
                            host.agent,
                            &mut got,
                            ptr::null_mut(),
                        ),
                    )
                };
                assert!(st1 == SENSE_STATUS_OK && st2 == SENSE_STATUS_OK);
                assert_eq!(status, SENSE_AGENT_STATUS_PAUSED);
                got
            },
        );
    }

    // Rust API without copying: `Runtime::resume_ref` + `pause_reason_ref`.
    {
        let (mut rt, a) = rust_started(ECHO_PLUS_ONE);
        bench_echo(
            &mut group,
            "Rust API, no allocation: resume_ref, pause_reason_ref",
            |i| {
                let st = rt.resume_ref(a, ValueRef::Int(i)).expect("resume");
                assert_eq!(st, sense_agents::AgentStatus::Paused);
                match rt.pause_reason_ref(a).expect("reason") {
                    ValueRef::Int(n) => n,
                    other => panic!("unexpected pause value {other:?}"),
                }
            },
        );
    }

    // Rust API: `Runtime::resume` returns the pause value in the state.
    {
        let (mut rt, a) = rust_started(ECHO_PLUS_ONE);
        bench_echo(
            &mut group,
            "Rust API: send Int, read Int pause value",
            |i| match rt.resume(a, HostValue::Int(i)).expect("resume") {
                State::Paused {
                    reason: HostValue::Int(n),
                    ..
                } => n,
                other => panic!("unexpected state {other:?}"),
            },
        );
    }

    // Lua C API: `lua_pushinteger` + `lua_resume` + `lua_tointegerx` +
    // pop, against a coroutine whose C function yields its argument + 1.
    match lua::load() {
        Ok(l) => {
            let mut co = lua::Coroutine::new(l);
            bench_echo(
                &mut group,
                "Lua 5.4 C API: lua_resume with Int, read yielded Int",
                |i| co.round_trip(i),
            );
        }
        Err(why) => {
            eprintln!(
                "SKIPPED Lua 5.4 C-API round trip: {why}; install the Debian package lua5.4 \
                 (or set SENSE_LUA_LIB to the library file)"
            );
            assert!(
                std::env::var("SENSE_TEST_ALL").as_deref() != Ok("1"),
                "SENSE_TEST_ALL=1: the Lua peer of the hand-off bench is required"
            );
        }
    }
    group.finish();
}

/// Benches one hand-off of the group: `round_trip(i)` sends `i` = 1, 2, …
/// to an echo-plus-one peer and must return its answer, `i + 1`.
fn bench_echo(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    mut round_trip: impl FnMut(i64) -> i64,
) {
    let mut i: i64 = 0;
    group.bench_function(name, |b| {
        b.iter(|| {
            i += 1;
            let got = round_trip(i);
            assert_eq!(got, i + 1);
            black_box(got)
        })
    });
}

criterion_group!(benches, c_abi, handoff_vs_lua);
criterion_main!(benches);
