//! Agents: the natives of the agent protocol (the book: agents.md) —
//! `start`, `pause`, `resume`, `ask_human`, `send`, `receive` and `await`.
//!
//! The core supplies the mechanism they drive (fibers that enter and
//! leave, a native call that suspends its fiber, blocking on a mailbox,
//! the scheduler of async tasks); what each word means for an agent —
//! which statuses allow it, what it says when refused, which pause kind
//! it records — is decided here.

use crate::{AgentStatus, PauseKind};
use sense_eval::builtins::{Arity, NativeDef, arg};
use sense_eval::heap::ObjRef;
use sense_eval::kind::{Refusal, Render, TaskKind};
use sense_eval::symbol::Symbol;
use sense_eval::task::Task;
use sense_eval::{EvalError, EvalResult, Value, Vm};

/// What agents are to the language: the core's tasks, named, printed and
/// read as agents.
pub struct AgentKind;

/// The registered instance.
pub static AGENT: AgentKind = AgentKind;

/// The agent `r`, if it is one.
fn agent(vm: &Vm, r: ObjRef) -> Option<&Task> {
    vm.task(Value::Obj(r))
}

/// The agent's name as text.
fn name_of(vm: &Vm, r: ObjRef) -> String {
    agent(vm, r)
        .map(|a| vm.interner().name(a.name).to_string())
        .unwrap_or_default()
}

impl TaskKind for AgentKind {
    fn type_name(&self) -> &'static str {
        "Agent"
    }

    fn host_class(&self) -> &'static str {
        "SenseAgent"
    }

    fn members(&self) -> &'static [&'static str] {
        &["status", "name", "pause_reason", "doc", "usage"]
    }

    fn render(&self, vm: &Vm, task: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        let Some(a) = agent(vm, task) else {
            return Ok(());
        };
        let status = AgentStatus::from(a.status);
        out.push_str("<agent ");
        out.push_str(vm.interner().name(a.name));
        out.push_str(" status=");
        out.push_str(status.as_str());
        // The reference's host repr of an agent (inside a list, in an
        // error message) leaves the reason out; `print` shows it.
        if !out.python() && status == AgentStatus::Paused && vm.host_truthy(a.pause_reason) {
            out.push_str(" (");
            // Depth carries on: an agent can pause with itself as the
            // reason (issue 8: `pause(a)` then `print(a)`).
            out.str_value(vm, a.pause_reason)?;
            out.push_str(")");
        }
        out.push_str(">");
        Ok(())
    }

    /// `a.status`, `a.name`, `a.pause_reason`, `a.doc` (the book: agents.md;
    /// the core reads the agent's variables itself) and `a.usage` (what
    /// its model calls spent, unless it sees a variable of that name: the
    /// reference reads the variable).
    fn member(&self, vm: &mut Vm, task: ObjRef, sym: Symbol) -> EvalResult<Value> {
        let Some(a) = agent(vm, task) else {
            return Err(EvalError::runtime("not an agent"));
        };
        let (status, reason, scope, agent_name) = (a.status, a.pause_reason, a.scope, a.name);
        match vm.interner().name(sym) {
            "status" => return vm.new_str(AgentStatus::from(status).as_str()),
            "name" => {
                let name = vm.interner().name(agent_name).to_string();
                return vm.new_str(name);
            }
            "pause_reason" => return Ok(reason),
            "doc" => {
                let doc = agent(vm, task)
                    .and_then(|a| vm.task_doc(a))
                    .map(str::to_string);
                return match doc {
                    Some(d) => vm.new_str(d),
                    None => Ok(Value::Nil),
                };
            }
            "usage" => {
                if let Some(v) = vm.lookup_global_chain(scope, sym) {
                    return Ok(v);
                }
                return super::budget::usage_value(vm, task);
            }
            _ => {}
        }
        vm.lookup_global_chain(scope, sym).ok_or_else(|| {
            EvalError::runtime(format!(
                "agent '{}' has no member '{}'",
                vm.interner().name(agent_name),
                vm.interner().name(sym)
            ))
        })
    }

    #[cold]
    fn refusal(&self, vm: &Vm, task: Option<ObjRef>, why: Refusal<'_>) -> EvalError {
        let name = || task.map(|r| name_of(vm, r)).unwrap_or_default();
        let status = || {
            task.and_then(|r| agent(vm, r))
                .map_or("", |a| AgentStatus::from(a.status).as_str())
        };
        EvalError::runtime(match why {
            Refusal::AlreadyStarted => format!(
                "agent '{}' has already been started (status: {}) \u{2014} an agent can only be started once in this version",
                name(),
                status()
            ),
            Refusal::NotPaused => format!(
                "cannot resume agent '{}' \u{2014} status is '{}', not 'paused'",
                name(),
                status()
            ),
            Refusal::Deadlock => format!(
                "deadlock: agent '{}' is waiting for a message and no other agent can run",
                name()
            ),
            Refusal::SuspendOutside { function } => format!(
                "{function}() asked to pause, but it was not called from inside a running agent"
            ),
            Refusal::SwitchInNestedRun => {
                "a tool run by ask_with_tools() cannot pause, wait, or start and resume agents"
                    .to_string()
            }
            Refusal::NoMember { name: member } => match task.and_then(|r| agent(vm, r)) {
                Some(_) => format!("agent '{}' has no member '{member}'", name()),
                None => "not an agent".to_string(),
            },
            Refusal::ForeignHandle { serial } => format!(
                "agent #{serial} passed from the host is not an agent of this runtime \
                 (it was collected, or it belongs to another runtime)"
            ),
        })
    }
}

/// The error for a value that is not an agent where one is needed.
fn expected_agent(vm: &Vm, what: &str, v: Value) -> EvalError {
    EvalError::runtime(format!("{what}, got {}", vm.type_name(v)))
}

/// The lexically enclosing agent, which must be the one running now.
/// Small enough to inline: it is on the path of every `pause()` of a
/// hand-off, and its error is built out of line.
#[inline]
fn running_lexical_agent(vm: &Vm, what: &str) -> EvalResult<ObjRef> {
    match vm.running_lexical_task() {
        Some(agent) => Ok(agent),
        None => Err(outside_agent(what)),
    }
}

/// The error for an agent-only native called outside a running agent.
#[cold]
fn outside_agent(what: &str) -> EvalError {
    EvalError::runtime(format!(
        "{what} can only be called inside a running agent's body"
    ))
}

/// The natives of the agent protocol, in the order they are installed.
pub fn natives() -> Vec<NativeDef> {
    use Arity::*;
    vec![
        NativeDef::new("start", Exact(1), start),
        NativeDef::new("pause", Variadic, pause).with_line(),
        NativeDef::new("resume", Variadic, resume),
        NativeDef::new("ask_human", Variadic, ask_human)
            .with_line()
            .with_labels(),
        NativeDef::new("send", Exact(2), send),
        NativeDef::new("receive", Variadic, receive).with_line(),
        NativeDef::new("await", Exact(1), await_).with_line(),
    ]
}

fn start(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let v = arg(args, 0);
    // The core checks the type first; only its error is worded here, so
    // the hand-off pays for no second look at the object (and its result
    // is returned as it is, not rebuilt).
    if let (Value::Obj(child), Some(parent)) = (v, vm.running_lexical_task())
        && vm.task(v).is_some()
    {
        // What the child spends counts for the agent that started it.
        super::budget::started_by(vm, child, parent);
    }
    let r = vm.start_from_code(v);
    if r.is_err() && vm.task(v).is_none() {
        return Err(expected_agent(vm, "start() expects an Agent", v));
    }
    r
}

fn resume(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    if args.is_empty() || args.len() > 2 {
        return Err(EvalError::runtime(
            "resume() expects 1 or 2 arguments (agent, value?)",
        ));
    }
    let v = arg(args, 0);
    let mut value = args.get(1).copied().unwrap_or(Value::Nil);
    if let Value::Obj(r) = v
        && vm.task(v).is_some()
    {
        // A budget pause takes the value as its new budget.
        match super::budget::before_resume(vm, r, value, super::model::make_pending)? {
            super::budget::Resumed::With(x) => value = x,
            super::budget::Resumed::StillPaused => return Ok(v),
        }
    }
    let r = vm.resume_from_code(v, value);
    if r.is_err() && vm.task(v).is_none() {
        return Err(expected_agent(vm, "resume() expects an Agent", v));
    }
    r
}

fn pause(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    if args.len() > 1 {
        return Err(EvalError::runtime(
            "pause() expects 0 or 1 arguments (an optional reason)",
        ));
    }
    let agent = running_lexical_agent(vm, "pause()")?;
    let reason = args.first().copied().unwrap_or(Value::Nil);
    vm.suspend_call(agent, reason, PauseKind::SelfPause.into());
    Ok(Value::Nil)
}

/// `ask_human(question)`, and inside an agent `ask_human(question,
/// seconds)`: a question with a deadline (see [`crate::deadline`]).
fn ask_human(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    // Without a numeric timeout, the reference's fixed arity of 1 and its
    // words.
    let mut timeout = match args {
        [_] => None,
        [_, t @ (Value::Int(_) | Value::Float(_))] => Some(*t),
        _ => {
            return Err(EvalError::runtime(format!(
                "'ask_human' expects 1 argument(s), got {}",
                args.len()
            )));
        }
    };
    // `ask_human(question, timeout: seconds)` says the same by name.
    for (label, v) in vm.labeled_args() {
        match (label.as_str(), v) {
            ("timeout", _) if timeout.is_some() => {
                return Err(EvalError::runtime(
                    "ask_human() got its timeout twice (as an argument and as timeout:)",
                ));
            }
            ("timeout", t @ (Value::Int(_) | Value::Float(_))) => timeout = Some(t),
            ("timeout", other) => {
                return Err(EvalError::runtime(format!(
                    "ask_human()'s timeout: must be a number of seconds, got {}",
                    vm.type_name(other)
                )));
            }
            (other, _) => {
                return Err(EvalError::runtime(format!(
                    "ask_human() takes no option '{other}:' (only timeout:)"
                )));
            }
        }
    }
    let q = arg(args, 0);
    if !matches!(q, Value::Str(_)) {
        return Err(EvalError::runtime(format!(
            "ask_human() expects a String question, got {}",
            vm.type_name(q)
        )));
    }
    if vm.lexical_task().is_some() {
        let agent = running_lexical_agent(vm, "ask_human()")?;
        let timeout = crate::deadline::timeout_secs(timeout)?;
        let due = timeout.map(|secs| sense_eval::stdlib::unix_now() + secs);
        crate::deadline::set(vm, agent, due);
        vm.suspend_call(agent, q, PauseKind::AskHuman.into());
        return Ok(Value::Nil);
    }
    // Outside any agent: ask on the host's terminal (a timeout is
    // checked, but a terminal read has no deadline).
    crate::deadline::timeout_secs(timeout)?;
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
        return Err(expected_agent(vm, WANTED, target));
    };
    if vm.task(target).is_none() {
        return Err(expected_agent(vm, WANTED, target));
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
        _ => running_lexical_agent(vm, "receive()")?,
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
    if let Some(msg) = vm.task_mut(agent).and_then(|a| a.pop_message()) {
        return Ok(msg);
    }
    if in_future || (vm.is_async(agent) && vm.running_as_task()) {
        vm.block_for_message(agent, !matches!(timeout, Value::Nil));
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
