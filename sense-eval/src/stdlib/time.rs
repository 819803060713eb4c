//! `time`: the wall clock, a monotonic clock, and a blocking `sleep`.
//!
//! The agent layer replaces `time.sleep` with one that, inside an agent,
//! pauses the agent on a durable timer instead of blocking the thread.

use super::args::{error, number};
use crate::builtins::{Arity, NativeDef};
use crate::error::EvalResult;
use crate::value::Value;
use crate::vm::Vm;
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const M: &str = "time";

pub(super) fn install(vm: &mut Vm) {
    let natives: [(&'static str, Arity, crate::builtins::NativeFn); 3] = [
        ("now", Arity::Exact(0), now),
        ("monotonic", Arity::Exact(0), monotonic),
        ("sleep", Arity::Exact(1), sleep),
    ];
    for (name, arity, f) in natives {
        vm.register_module_native(M, name, NativeDef::new(name, arity, f).with_line());
    }
}

/// Seconds since the Unix epoch, as a Float.
pub fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

fn now(_: &mut Vm, _: &[Value]) -> EvalResult<Value> {
    Ok(Value::Float(unix_now()))
}

/// Seconds since an arbitrary moment fixed for the process: only
/// differences between two readings mean anything.
fn monotonic(_: &mut Vm, _: &[Value]) -> EvalResult<Value> {
    static START: OnceLock<Instant> = OnceLock::new();
    let start = START.get_or_init(Instant::now);
    Ok(Value::Float(start.elapsed().as_secs_f64() + 1.0))
}

/// `time.sleep(seconds)`'s argument, checked: a finite, non-negative
/// number of seconds.
pub fn sleep_duration(vm: &Vm, args: &[Value]) -> EvalResult<Duration> {
    let secs = number(vm, args, 0, "time.sleep")?;
    if secs.is_nan() || secs < 0.0 {
        return Err(error(
            "time.sleep",
            "the number of seconds must be a non-negative number",
        ));
    }
    Duration::try_from_secs_f64(secs)
        .map_err(|_| error("time.sleep", "the number of seconds is too large"))
}

/// Blocks the thread for the given seconds.
fn sleep(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let d = sleep_duration(vm, args)?;
    std::thread::sleep(d);
    Ok(Value::Nil)
}
