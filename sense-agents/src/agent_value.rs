//! Agents inside host values: turning a [`HostValue::Task`] (found in a
//! call result, a pause reason, a host function's argument or an array
//! element) into an [`AgentId`] the host can drive, and an id back into a
//! value Sense receives as the same agent.

use crate::handle::AgentId;
use sense_eval::{HostTask, HostValue};

impl AgentId {
    /// The agent a value holds, if it is one (`None` for any other
    /// value). The id is checked when it is used: an agent that was
    /// collected, or one of another runtime, gives "agent no longer
    /// exists".
    ///
    /// ```
    /// use sense_agents::{AgentId, HostValue, Runtime, State};
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source(
    ///     "m.sns",
    ///     "agent w:\n    pause(\"w waits\")\nagent boss:\n    pause([w, 1])\n",
    /// )?;
    /// let boss = rt.agent("boss")?;
    /// let State::Paused { reason, .. } = rt.start(boss)? else { panic!() };
    /// let HostValue::List(items) = reason else { panic!() };
    /// let w = AgentId::of_value(&items[0]).expect("an agent");
    /// assert_eq!(rt.agent_name(w)?, "w");
    /// rt.start(w)?; // drive it like any other handle
    /// assert_eq!(AgentId::of_value(&items[1]), None);
    /// # Ok::<(), sense_agents::Error>(())
    /// ```
    pub fn of_value(value: &HostValue) -> Option<AgentId> {
        value.as_task().map(AgentId::from)
    }
}

impl From<&HostTask> for AgentId {
    fn from(a: &HostTask) -> AgentId {
        AgentId {
            obj: a.obj(),
            serial: a.serial(),
        }
    }
}

impl From<AgentId> for HostTask {
    fn from(id: AgentId) -> HostTask {
        HostTask::new(
            id.obj,
            id.serial,
            "Agent",
            format!("<agent #{}>", id.serial),
        )
    }
}

/// An id as a value: passed into the runtime it belongs to, Sense sees
/// the agent itself (`agent.status`, `resume(agent, …)`, `==` with the
/// same agent all work); passed into another runtime, or after the agent
/// was collected, the call fails with a runtime error.
///
/// ```
/// use sense_agents::{HostValue, Runtime};
/// let mut rt = Runtime::new();
/// rt.set_output(|_| {});
/// rt.run_source("m.sns", "agent w:\n    n = 1\ndef who(a):\n    return a.name\n")?;
/// let w = rt.agent("w")?;
/// assert_eq!(rt.call("who", &[w.into()])?, HostValue::from("w"));
/// # Ok::<(), sense_agents::Error>(())
/// ```
impl From<AgentId> for HostValue {
    fn from(id: AgentId) -> HostValue {
        HostValue::Task(id.into())
    }
}
