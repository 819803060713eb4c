//! The standard library members that need the agent layer, replacing the
//! core's plain ones in its built-in modules (`sense_eval::stdlib`)
//! through `Vm::register_module_native`:
//!
//! - `os.getenv(name)` / `os.getenv(name, default)`: reading the process
//!   environment is the capability `env.read`, which a `policy` can deny
//!   (a `SensePolicyError`, as for tools and models).
//! - `time.sleep(seconds)`: inside an agent's body a durable timer — the
//!   agent pauses with pause kind `timer`, its pause reason the wake-up
//!   time (Unix seconds, a Float), so a snapshot carries it and a host or
//!   the service resumes it when due. A `resume` before then ends the
//!   sleep early (the call returns the resume value, nil by default).
//!   Outside an agent it blocks, as the core's does.

use crate::status::PauseKind;
use sense_eval::builtins::{Arity, NativeDef};
use sense_eval::stdlib::{sleep_duration, unix_now};
use sense_eval::{ErrorClass, EvalError, EvalResult, Value, Vm};

/// The capability `os.getenv` needs.
pub const ENV_READ: &str = "env.read";

/// Adds the members to the core's modules.
pub(crate) fn install(vm: &mut Vm) {
    vm.register_module_native(
        "os",
        "getenv",
        NativeDef::new("getenv", Arity::Variadic, getenv).with_line(),
    );
    vm.register_module_native(
        "time",
        "sleep",
        NativeDef::new("sleep", Arity::Exact(1), sleep).with_line(),
    );
}

/// The core's `os.getenv`, after the capability check.
fn getenv(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let env = vm.env();
    if !crate::policy::capability_allowed(vm, env, ENV_READ) {
        return Err(EvalError::new(
            ErrorClass::Policy,
            format!("os.getenv requires capability '{ENV_READ}', which is denied by policy"),
        ));
    }
    sense_eval::stdlib::getenv(vm, args)
}

fn sleep(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let d = sleep_duration(vm, args)?;
    if vm.lexical_task().is_some() {
        let agent = vm.running_lexical_task().ok_or_else(|| {
            EvalError::runtime("time.sleep() inside an agent's body needs that agent running")
        })?;
        let due = unix_now() + d.as_secs_f64();
        vm.suspend_call(agent, Value::Float(due), PauseKind::Timer.into());
        return Ok(Value::Nil);
    }
    std::thread::sleep(d);
    Ok(Value::Nil)
}

/// The wake-up time (Unix seconds) of agent `id` when it is paused on a
/// `time.sleep` timer.
pub fn timer_due(rt: &crate::Runtime, id: crate::AgentId) -> Option<f64> {
    match (rt.pause_kind(id).ok()??, rt.pause_reason(id).ok()?) {
        (PauseKind::Timer, crate::HostValue::Float(due)) => Some(due),
        _ => None,
    }
}

/// Unix seconds as UTC text (kept here, where hosts first found it).
pub use crate::utc::utc_text;
