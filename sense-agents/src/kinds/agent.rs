//! Agents: the natives of the agent protocol (AGENTS.md §2.5–§2.13) —
//! `start`, `pause`, `resume`, `ask_human`, `send`, `receive` and `await`.
//!
//! The core supplies the mechanism they drive (fibers that enter and
//! leave, a native call that suspends its fiber, blocking on a mailbox,
//! the scheduler of async tasks); what each word means for an agent —
//! which statuses allow it, what it says when refused, which pause kind
//! it records — is decided here.

use crate::PauseKind;
use sense_eval::builtins::{Arity, NativeDef, arg};
use sense_eval::{EvalError, EvalResult, Value, Vm};

/// The natives of the agent protocol, in the order they are installed.
pub fn natives() -> Vec<NativeDef> {
    use Arity::*;
    vec![
        NativeDef::new("start", Exact(1), start),
        NativeDef::new("pause", Variadic, pause).with_line(),
        NativeDef::new("resume", Variadic, resume),
        NativeDef::new("ask_human", Exact(1), ask_human).with_line(),
        NativeDef::new("send", Exact(2), send),
        NativeDef::new("receive", Variadic, receive).with_line(),
        NativeDef::new("await", Exact(1), await_).with_line(),
    ]
}

fn start(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    vm.start_from_code(arg(args, 0))
}

fn resume(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    if args.is_empty() || args.len() > 2 {
        return Err(EvalError::runtime(
            "resume() expects 1 or 2 arguments (agent, value?)",
        ));
    }
    vm.resume_from_code(arg(args, 0), args.get(1).copied().unwrap_or(Value::Nil))
}

fn pause(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    if args.len() > 1 {
        return Err(EvalError::runtime(
            "pause() expects 0 or 1 arguments (an optional reason)",
        ));
    }
    let agent = vm.running_lexical_task("pause()")?;
    let reason = args.first().copied().unwrap_or(Value::Nil);
    vm.suspend_call(agent, reason, PauseKind::SelfPause.into());
    Ok(Value::Nil)
}

fn ask_human(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let q = arg(args, 0);
    if !matches!(q, Value::Str(_)) {
        return Err(EvalError::runtime(format!(
            "ask_human() expects a String question, got {}",
            vm.type_name(q)
        )));
    }
    if vm.lexical_task().is_some() {
        let agent = vm.running_lexical_task("ask_human()")?;
        vm.suspend_call(agent, q, PauseKind::AskHuman.into());
        return Ok(Value::Nil);
    }
    // Outside any agent: ask on the host's terminal.
    let question = vm.str_of(q).unwrap_or("").to_string();
    vm.write_out(&question);
    vm.write_out("\n> ");
    match vm.read_input() {
        Some(mut line) => {
            // Like Python's input(): only the '\n' goes ('\r' stays).
            if line.ends_with('\n') {
                line.pop();
            }
            vm.new_str(line)
        }
        None => Err(EvalError::runtime("ask_human(): no input (end of file)").lineless()),
    }
}

fn send(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    const WANTED: &str = "send() expects an Agent as its first argument";
    let target = arg(args, 0);
    let Value::Obj(r) = target else {
        return Err(vm.expected_agent(WANTED, target));
    };
    if vm.task(target).is_none() {
        return Err(vm.expected_agent(WANTED, target));
    }
    vm.send_message(r, arg(args, 1))?;
    Ok(Value::Nil)
}

fn receive(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    if args.len() > 1 {
        return Err(EvalError::runtime(
            "receive() expects 0 or 1 arguments (an optional timeout in seconds)",
        ));
    }
    // An async tool declared in an agent's body reads that agent's mailbox.
    let in_future = vm.in_future_task();
    let agent = match vm.lexical_task() {
        Some(a) if in_future => a,
        _ => vm.running_lexical_task("receive()")?,
    };
    let timeout = args.first().copied().unwrap_or(Value::Nil);
    if !matches!(
        timeout,
        Value::Nil | Value::Int(_) | Value::Float(_) | Value::Bool(_)
    ) {
        return Err(EvalError::runtime(format!(
            "receive()'s timeout must be a number, got {}",
            vm.type_name(timeout)
        )));
    }
    if let Some(msg) = vm.task_mut(agent).and_then(|a| a.mailbox.pop_front()) {
        return Ok(msg);
    }
    if in_future || (vm.is_async(agent) && vm.running_as_task()) {
        vm.block_on_receive(agent, !matches!(timeout, Value::Nil));
        return Ok(Value::Nil);
    }
    if !matches!(timeout, Value::Nil) {
        // Nothing can be sent while this agent holds the only line of
        // execution, so waiting out the timeout would change nothing.
        return Ok(Value::Nil);
    }
    let reason = vm.new_str("waiting for a message")?;
    vm.suspend_call(agent, reason, PauseKind::WaitingMessage.into());
    Ok(Value::Nil)
}

fn await_(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let v = arg(args, 0);
    if let Some(r) = vm.future_ref(v) {
        if vm.is_settled(r) {
            return vm.collect_task(r);
        }
        vm.request_await(r);
        return Ok(Value::Nil);
    }
    let Some(a) = vm.task(v) else {
        return Err(EvalError::runtime(format!(
            "await() expects an Agent or a Future, got {}",
            vm.type_name(v)
        )));
    };
    let status = crate::AgentStatus::from(a.status);
    if status == crate::AgentStatus::Created {
        return Err(EvalError::runtime(format!(
            "cannot await agent '{}' \u{2014} it hasn't been started yet",
            vm.interner().name(a.name)
        )));
    }
    if a.is_async && status == crate::AgentStatus::Running {
        if let Value::Obj(r) = v {
            vm.request_await(r);
        }
        return Ok(Value::Nil);
    }
    vm.collect_started_task(v)
}
