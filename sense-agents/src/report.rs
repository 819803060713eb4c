//! [`AgentReport`]: an agent as seen from outside, without running it
//! (`sense show`, the inspector, `sense serve`), built from the core's
//! report of each task.

use crate::{AgentStatus, PauseKind};
use sense_eval::HostValue;
use sense_eval::heap::ObjRef;
use sense_eval::vm::{FrameReport, TaskReport};

/// An agent as seen from outside.
///
/// # Examples
///
/// ```
/// use sense_agents::{AgentStatus, HostValue, PauseKind, Runtime};
///
/// let mut rt = Runtime::new();
/// let src = "agent idle:\n    n = 0\nagent w:\n    def step(n):\n        todo = n * 2\n        pause(\"check\")\n    step(21)\nstart(w)\n";
/// rt.run_source("m.sns", src)?;
/// let reports = rt.agents(); // oldest first
/// let names: Vec<&str> = reports.iter().map(|r| r.name.as_str()).collect();
/// assert_eq!(names, ["idle", "w"]);
/// assert_eq!(reports[0].status, AgentStatus::Created);
/// assert!(reports[0].frames.is_empty(), "no stack until it runs");
/// let w = &reports[1];
/// assert_eq!(w.status, AgentStatus::Paused);
/// assert_eq!(w.pause_kind, Some(PauseKind::SelfPause));
/// assert_eq!(w.pause_reason, HostValue::from("check"));
/// assert_eq!((w.mailbox, w.frames.len()), (0, 2), "step, inside the agent's body");
/// let inner = &w.frames[0]; // innermost first
/// assert_eq!((inner.function.as_str(), inner.line), ("step", 6));
/// let todo = inner.locals.iter().find(|(name, _)| name == "todo").map(|(_, v)| v);
/// assert_eq!(todo, Some(&HostValue::Int(42)));
/// # Ok::<(), sense_agents::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct AgentReport {
    /// The agent object.
    pub obj: ObjRef,
    /// Its unique number.
    pub serial: u64,
    /// Its name.
    pub name: String,
    /// Its status.
    pub status: AgentStatus,
    /// `async agent`.
    pub is_async: bool,
    /// Its last pause reason.
    pub pause_reason: HostValue,
    /// The kind of pause, while paused.
    pub pause_kind: Option<PauseKind>,
    /// Messages waiting in its mailbox.
    pub mailbox: usize,
    /// Call stack while paused, innermost frame first.
    pub frames: Vec<FrameReport>,
}

impl From<TaskReport> for AgentReport {
    fn from(t: TaskReport) -> Self {
        AgentReport {
            obj: t.obj,
            serial: t.serial,
            name: t.name,
            status: t.status.into(),
            is_async: t.is_async,
            pause_reason: t.pause_reason,
            pause_kind: t.pause_kind.map(PauseKind::from),
            mailbox: t.mailbox,
            frames: t.frames,
        }
    }
}
