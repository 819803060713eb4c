//! [`sense_agent`]: agent ids, and driving agents (start, resume, status,
//! pause reason and kind, messages).

use crate::bodies::{read_into, read_named_into, settle, with_runtime};
use crate::error::{self, sense_error};
use crate::guard::Failure;
use crate::runtime::sense_runtime;
use crate::status::sense_status;
use crate::value::{as_host, host_or_nil, into_raw, sense_value};
use sense_agents::{AgentId, AgentStatus, HostValue, PauseKind, Runtime, State, ValueRef};
use std::os::raw::c_char;

/// Identifies an agent of one runtime. Plain data: copy it freely; it needs
/// no freeing and does not keep the agent alive (`sense_agent_retain`
/// does).
///
/// Once no Sense variable refers to the agent and it is collected, using
/// the id gives `SENSE_STATUS_NOT_FOUND`, never another agent. Using it
/// with a different runtime, or forging one, gives `SENSE_STATUS_NOT_FOUND`
/// too: serials are unique within the process. The one exception is by
/// design: a runtime restored from a snapshot keeps the snapshotted agents'
/// ids, so an id taken before the snapshot names the same agent in every
/// runtime restored from it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct sense_agent {
    /// A number unique to the agent within its process (restored agents
    /// keep theirs; see above).
    pub serial: u64,
    /// Where the runtime keeps it.
    pub index: u32,
}

impl sense_agent {
    pub(crate) fn id(self) -> AgentId {
        AgentId::from_raw_parts(self.index, self.serial)
    }

    pub(crate) fn of(id: AgentId) -> sense_agent {
        let (index, serial) = id.to_raw_parts();
        sense_agent { serial, index }
    }
}

/// An agent's status, as `agent.status` reads in Sense.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum sense_agent_status {
    /// Declared, not started.
    Created = 0,
    /// Its body is executing (seen only from inside callbacks' Sense code).
    Running = 1,
    /// Suspended: `sense_agent_resume` continues it.
    Paused = 2,
    /// Its body finished.
    Completed = 3,
    /// Its body raised an error.
    Failed = 4,
}

impl From<AgentStatus> for sense_agent_status {
    fn from(s: AgentStatus) -> Self {
        match s {
            AgentStatus::Created => sense_agent_status::Created,
            AgentStatus::Running => sense_agent_status::Running,
            AgentStatus::Paused => sense_agent_status::Paused,
            AgentStatus::Completed => sense_agent_status::Completed,
            AgentStatus::Failed => sense_agent_status::Failed,
        }
    }
}

/// Why a paused agent is paused.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum sense_pause_kind {
    /// The agent is not paused.
    None = 0,
    /// `pause()` / `pause(reason)` in its body.
    SelfPause = 1,
    /// `ask_human(question)` in its body; the reason is the question.
    AskHuman = 2,
    /// `receive()` found its mailbox empty: send a message, then resume.
    WaitingMessage = 3,
    /// The host asked it to pause (`sense_pause_handle_request`); the
    /// resume value is ignored.
    HostRequest = 4,
    /// Its step budget ran out (`sense_config_set_max_steps`; the resume
    /// value is ignored), or a model call waits for a bigger token or cost
    /// budget (`set_budget` in Sense): resume it with the new budget, an
    /// Int of tokens or a Float of cost (nil keeps it), and the held-back
    /// call is made.
    Budget = 5,
    /// A host function suspended it (`sense_call_suspend`); the resume
    /// value becomes that call's result.
    HostFunction = 6,
    /// `time.sleep(seconds)` in its body: a durable timer. The reason is
    /// the wake-up time (Unix seconds, a float); resume it when due (a
    /// resume before then ends the sleep early).
    Timer = 7,
}

impl From<PauseKind> for sense_pause_kind {
    fn from(k: PauseKind) -> Self {
        match k {
            PauseKind::SelfPause => sense_pause_kind::SelfPause,
            PauseKind::AskHuman => sense_pause_kind::AskHuman,
            PauseKind::WaitingMessage => sense_pause_kind::WaitingMessage,
            PauseKind::HostRequest => sense_pause_kind::HostRequest,
            PauseKind::Budget => sense_pause_kind::Budget,
            PauseKind::HostFunction => sense_pause_kind::HostFunction,
            PauseKind::Timer => sense_pause_kind::Timer,
        }
    }
}

/// The agent's status, or `SENSE_STATUS_NOT_FOUND` for a stale id.
#[inline]
pub(crate) fn status_of(r: &Runtime, agent: sense_agent) -> Result<AgentStatus, Failure> {
    r.status(agent.id())
        .map_err(|e| error::with_status(&e, sense_status::NotFound))
}

/// Start or resume, then report the settled status. `expected` is the
/// status the operation needs; an agent in any other status fails with
/// `SENSE_STATUS_WRONG_STATE` and the runtime's own message.
fn drive(
    r: &mut Runtime,
    agent: sense_agent,
    expected: AgentStatus,
    op: impl FnOnce(&mut Runtime, AgentId) -> Result<State, sense_agents::Error>,
) -> Result<sense_agent_status, Failure> {
    let before = status_of(r, agent)?;
    match op(r, agent.id()) {
        Ok(State::Completed) => Ok(sense_agent_status::Completed),
        Ok(State::Paused { .. }) => Ok(sense_agent_status::Paused),
        Err(e) if before != expected => Err(error::with_status(&e, sense_status::WrongState)),
        Err(e) => Err(error::from_sense(&e, sense_status::RuntimeError)),
    }
}

/// Looks up the agent bound to `name` in the main program's top level into
/// `*out`. `SENSE_STATUS_NOT_FOUND` when no agent is bound to that name.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_lookup(
    runtime: *const sense_runtime,
    name: *const c_char,
    name_len: usize,
    out: *mut sense_agent,
    error: *mut *mut sense_error,
) -> sense_status {
    read_named_into(runtime, name, name_len, out, error, |rt, name| {
        rt.find(|r| r.agent(name)).map(sense_agent::of)
    })
}

/// Starts a `created` agent and runs its body until it pauses, completes or
/// fails. On success `*status_out` (may be NULL) receives
/// `SENSE_AGENT_STATUS_PAUSED` or `SENSE_AGENT_STATUS_COMPLETED`; read why
/// it paused with `sense_agent_pause_reason` / `sense_agent_pause_kind`.
///
/// Errors: `SENSE_STATUS_RUNTIME_ERROR` when the body raised (the agent is
/// now `failed`), `SENSE_STATUS_WRONG_STATE` when the agent is not
/// `created` (agents start once), `SENSE_STATUS_NOT_FOUND` for a stale id.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_start(
    runtime: *mut sense_runtime,
    agent: sense_agent,
    status_out: *mut sense_agent_status,
    error: *mut *mut sense_error,
) -> sense_status {
    settle(runtime, status_out, error, |rt| {
        rt.enter(|r| drive(r, agent, AgentStatus::Created, |r, id| r.start(id)))
    })
}

/// Resumes a `paused` agent exactly where it stopped; `value` (NULL means
/// nil; copied, the caller keeps it) becomes the result of the `pause()`,
/// `ask_human()` or host-function call it is paused in (it is ignored after
/// a host request or budget pause). An agent waiting in `receive()` gets a
/// non-nil `value` as a message (put at the end of its mailbox, as
/// `sense_agent_send` does — never dropped), then takes its oldest message,
/// and stays paused if it has none. Runs until
/// the agent pauses again, completes or fails; `*status_out` (may be NULL)
/// as for `sense_agent_start`.
///
/// Errors: `SENSE_STATUS_RUNTIME_ERROR` (the body raised, or `value` is an
/// opaque value, which cannot enter Sense), `SENSE_STATUS_WRONG_STATE` (the
/// agent is not paused), `SENSE_STATUS_NOT_FOUND` (stale id).
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_resume(
    runtime: *mut sense_runtime,
    agent: sense_agent,
    value: *const sense_value,
    status_out: *mut sense_agent_status,
    error: *mut *mut sense_error,
) -> sense_status {
    settle(runtime, status_out, error, |rt| {
        rt.enter(|r| match as_host(value) {
            // Scalars and strings go in as views and the pause reason is
            // not copied out: no host-side allocation for scalars.
            None => resume_ref(r, agent, ValueRef::Nil),
            Some(v) => match value_ref(v) {
                Some(v) => resume_ref(r, agent, v),
                None => drive(r, agent, AgentStatus::Paused, |r, id| {
                    r.resume(id, v.clone())
                }),
            },
        })
    })
}

/// A scalar or string host value as a view; `None` for lists, agents and
/// opaque values.
fn value_ref(v: &HostValue) -> Option<ValueRef<'_>> {
    Some(match v {
        HostValue::Nil => ValueRef::Nil,
        HostValue::Bool(b) => ValueRef::Bool(*b),
        HostValue::Int(i) => ValueRef::Int(*i),
        HostValue::Float(f) => ValueRef::Float(*f),
        HostValue::Str(s) => ValueRef::Str(s),
        _ => return None,
    })
}

/// Resumes a paused agent with a view of the value (see
/// `Runtime::resume_ref`), reporting failures as `drive` does.
#[inline(always)]
pub(crate) fn resume_ref(
    r: &mut Runtime,
    agent: sense_agent,
    value: ValueRef<'_>,
) -> Result<sense_agent_status, Failure> {
    // The agent's status is read only when the resume fails: it decides
    // the failure's status as `drive` does.
    match r.resume_ref_from(agent.id(), value) {
        Ok(settled) => Ok(settled.into()),
        Err((e, None)) => Err(error::with_status(&e, sense_status::NotFound)),
        Err((e, Some(AgentStatus::Paused))) => {
            Err(error::from_sense(&e, sense_status::RuntimeError))
        }
        Err((e, Some(_))) => Err(error::with_status(&e, sense_status::WrongState)),
    }
}

/// The agent's current status into `*out`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_get_status(
    runtime: *const sense_runtime,
    agent: sense_agent,
    out: *mut sense_agent_status,
    error: *mut *mut sense_error,
) -> sense_status {
    read_into(runtime, out, error, |rt| {
        rt.enter(|r| status_of(r, agent)).map(Into::into)
    })
}

/// Why the agent is paused into `*out`: `SENSE_PAUSE_KIND_NONE` when it is
/// not paused.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_pause_kind(
    runtime: *const sense_runtime,
    agent: sense_agent,
    out: *mut sense_pause_kind,
    error: *mut *mut sense_error,
) -> sense_status {
    read_into(runtime, out, error, |rt| {
        let kind = rt.find(|r| r.pause_kind(agent.id()))?;
        Ok(kind.map_or(sense_pause_kind::None, Into::into))
    })
}

/// A copy of the agent's last pause reason (the argument of `pause`, the
/// question of `ask_human`, the reason a host function suspended with; nil
/// for host requests and before any pause) into `*out`; free it with
/// `sense_value_free`. Kept after the agent moves on, as in Sense.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_pause_reason(
    runtime: *const sense_runtime,
    agent: sense_agent,
    out: *mut *mut sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    read_into(runtime, out, error, |rt| {
        rt.find(|r| r.pause_reason(agent.id())).map(into_raw)
    })
}

/// Puts a copy of `message` (NULL means nil, as for `sense_agent_resume`)
/// in the agent's mailbox (any status; `receive()` in its body takes
/// messages oldest first). A paused agent waiting in `receive()` gets it
/// when next resumed.
///
/// Errors: `SENSE_STATUS_RUNTIME_ERROR` when `message` is an opaque value,
/// `SENSE_STATUS_NOT_FOUND` (stale id).
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_send(
    runtime: *mut sense_runtime,
    agent: sense_agent,
    message: *const sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    with_runtime(runtime, error, |rt| {
        let message = host_or_nil(message);
        rt.enter(|r| {
            status_of(r, agent)?;
            r.send(agent.id(), message)
                .map_err(|e| error::from_sense(&e, sense_status::RuntimeError))
        })
    })
}
