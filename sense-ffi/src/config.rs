//! [`sense_config`]: limits and switches for a new runtime.

use crate::bodies::new_into;
use crate::error::sense_error;
use crate::guard::{Body, Failure, drop_boxed};
use crate::status::sense_status;
use sense_agents::Config;

/// Limits and switches for `sense_runtime_new_with_config`: maximum call
/// depth, optional step budget, maximum string and array sizes, the heap
/// ceiling, dry run. Starts with the defaults of
/// `sense_runtime_new`.
///
/// Ownership: created by `sense_config_new`, freed by `sense_config_free`;
/// a runtime copies it, so it may be freed right after use.
///
/// Threads: plain data; not synchronised (use from one thread at a time).
pub struct sense_config {
    pub(crate) config: Config,
    /// `sense_config_set_dry_run` (runtime state, not a core limit).
    pub(crate) dry_run: bool,
}

/// A configuration with default limits in `*out` (free it with
/// `sense_config_free`).
#[unsafe(no_mangle)]
pub extern "C" fn sense_config_new(
    out: *mut *mut sense_config,
    error: *mut *mut sense_error,
) -> sense_status {
    new_into(out, error, || {
        Box::new(sense_config {
            config: Config::default(),
            dry_run: false,
        })
    })
}

/// Frees a configuration. NULL is allowed and does nothing.
#[unsafe(no_mangle)]
pub extern "C" fn sense_config_free(config: *mut sense_config) {
    ffi_guard!(() => {
        // SAFETY: NULL, or made by `Box::into_raw` in `sense_config_new`; the
        // caller gives it back exactly once.
        unsafe { drop_boxed(config) }
    })
}

/// The maximum number of active Sense frames (default 10000); deeper
/// recursion is a `SenseRuntimeError`, not a crash. 0 is
/// `SENSE_STATUS_INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_config_set_max_depth(
    config: *mut sense_config,
    max_depth: usize,
    error: *mut *mut sense_error,
) -> sense_status {
    let zero = fail!(InvalidArgument, "max_depth must be at least 1");
    set_count(config, max_depth, zero, error, |c, n| c.max_depth = n)
}

/// The step budget: safe points (calls and loop iterations) allowed per
/// run; 0 means unlimited (the default). An agent that runs out pauses
/// with `SENSE_PAUSE_KIND_BUDGET` (resume it to continue with a fresh
/// budget); top-level code that runs out fails with a `SenseRuntimeError`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_config_set_max_steps(
    config: *mut sense_config,
    max_steps: u64,
    error: *mut *mut sense_error,
) -> sense_status {
    configure(config, error, |c| {
        c.config.max_steps = (max_steps != 0).then_some(max_steps);
        Ok(())
    })
}

/// Dry run (`sense run --dry-run`): actions check everything but run no
/// bodies. Default false.
#[unsafe(no_mangle)]
pub extern "C" fn sense_config_set_dry_run(
    config: *mut sense_config,
    dry_run: bool,
    error: *mut *mut sense_error,
) -> sense_status {
    configure(config, error, |c| {
        c.dry_run = dry_run;
        Ok(())
    })
}

/// The largest string, in bytes, an operation may build (default 256 MiB;
/// `sense run --max-string`). A longer result is a `SenseRuntimeError`.
/// 0 is `SENSE_STATUS_INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_config_set_max_string_len(
    config: *mut sense_config,
    max_bytes: usize,
    error: *mut *mut sense_error,
) -> sense_status {
    set_bytes(config, max_bytes, error, |c, n| c.max_string_len = n)
}

/// The largest array, in elements, an operation may build (default 64 Mi
/// elements; `sense run --max-list`). A longer result is a
/// `SenseRuntimeError`. 0 is `SENSE_STATUS_INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_config_set_max_array_len(
    config: *mut sense_config,
    max_elements: usize,
    error: *mut *mut sense_error,
) -> sense_status {
    let zero = fail!(InvalidArgument, "max_elements must be at least 1");
    set_count(config, max_elements, zero, error, |c, n| {
        c.max_array_len = n
    })
}

/// The heap ceiling: estimated bytes the program's values may hold
/// (default 1 GiB; `sense run --max-heap`). A program that would go over
/// it fails with a `SenseRuntimeError` ("out of memory: …") instead of
/// growing until the process is killed; the runtime stays usable. 0 is
/// `SENSE_STATUS_INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_config_set_max_heap(
    config: *mut sense_config,
    max_bytes: usize,
    error: *mut *mut sense_error,
) -> sense_status {
    set_bytes(config, max_bytes, error, |c, n| c.max_heap = n)
}

/// The most source text, in bytes, a runtime compiles: the main program,
/// every module it imports and every source run on it, together, as long
/// as their code is held (default 64 MiB; `sense run --max-source`). A
/// source that would pass it is refused before it is parsed, with
/// `SENSE_STATUS_SYNTAX_ERROR` ("source file too large"). 0 is
/// `SENSE_STATUS_INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_config_set_max_source_len(
    config: *mut sense_config,
    max_bytes: usize,
    error: *mut *mut sense_error,
) -> sense_status {
    set_bytes(config, max_bytes, error, |c, n| c.max_source_len = n)
}

/// The body of every byte-size setter: `max_bytes` must be at least 1.
fn set_bytes(
    config: *mut sense_config,
    max_bytes: usize,
    error: *mut *mut sense_error,
    set: fn(&mut Config, usize),
) -> sense_status {
    let zero = fail!(InvalidArgument, "max_bytes must be at least 1");
    set_count(config, max_bytes, zero, error, set)
}

/// The body of the setters of a count that must be at least 1: `zero` is
/// the failure (naming the argument) when it is 0.
fn set_count(
    config: *mut sense_config,
    n: usize,
    zero: Failure,
    error: *mut *mut sense_error,
    set: fn(&mut Config, usize),
) -> sense_status {
    configure(config, error, |c| {
        if n == 0 {
            return Err(zero);
        }
        set(&mut c.config, n);
        Ok(())
    })
}

/// Checks `config`, then lets `f` change it: the body of every setter.
fn configure(
    config: *mut sense_config,
    error: *mut *mut sense_error,
    f: impl FnOnce(&mut sense_config) -> Body,
) -> sense_status {
    on_handle!(error, mut config => c, {
        f(c)
    })
}
