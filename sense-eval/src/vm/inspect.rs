//! Looking inside a VM without running it: every agent with its status
//! and, for paused ones, the call stack with each frame's local variables
//! (`sense show`, the inspector console).

use super::{Fiber, Vm};
use crate::agent::{AgentStatus, PauseKind};
use crate::heap::ObjRef;
use crate::host::HostValue;
use crate::object::Obj;

/// One frame of a paused agent's call stack.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameReport {
    /// The function (or agent body, tool, action) running in it.
    pub function: String,
    /// Its source file.
    pub file: String,
    /// The line it is stopped at.
    pub line: u32,
    /// Its local variables, by name.
    pub locals: Vec<(String, HostValue)>,
}

/// An agent as seen from outside.
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

impl Vm {
    /// Every live agent, oldest first.
    pub fn agent_reports(&self) -> Vec<AgentReport> {
        let (objs, ..) = self.heap.parts();
        let mut out: Vec<AgentReport> = objs
            .iter()
            .enumerate()
            .filter_map(|(i, o)| match o {
                Obj::Agent(a) => Some(AgentReport {
                    obj: ObjRef(i as u32),
                    serial: a.serial,
                    name: self.interner.name(a.name).to_string(),
                    status: a.status,
                    is_async: a.is_async,
                    pause_reason: self.to_host(a.pause_reason),
                    pause_kind: (a.status == AgentStatus::Paused).then_some(a.pause_kind),
                    mailbox: a.mailbox.len(),
                    frames: a
                        .fiber
                        .as_deref()
                        .map(|f| self.frame_reports(f))
                        .unwrap_or_default(),
                }),
                _ => None,
            })
            .collect();
        out.sort_by_key(|a| a.serial);
        out
    }

    /// The frames of a fiber, innermost first.
    pub fn frame_reports(&self, fiber: &Fiber) -> Vec<FrameReport> {
        fiber
            .frames
            .iter()
            .rev()
            .map(|f| {
                let proto = &self.protos[f.proto.0 as usize];
                let span = proto
                    .spans
                    .get((f.ip as usize).saturating_sub(1))
                    .copied()
                    .unwrap_or_default();
                let file = self
                    .files
                    .get(proto.file.0 as usize)
                    .map(|e| e.source.name().to_string())
                    .unwrap_or_default();
                let mut locals: Vec<(String, HostValue)> = Vec::new();
                let mut s = Some(f.env);
                while let Some(cur) = s {
                    if cur == f.outer {
                        break;
                    }
                    let scope = self.heap.scope(cur);
                    for (sym, v) in scope.vars.iter() {
                        let name = self.interner.name(sym);
                        if !locals.iter().any(|(n, _)| n == name) {
                            locals.push((name.to_string(), self.to_host(v)));
                        }
                    }
                    s = scope.parent;
                }
                locals.sort_by(|a, b| a.0.cmp(&b.0));
                FrameReport {
                    function: proto.name.clone(),
                    file,
                    line: span.line,
                    locals,
                }
            })
            .collect()
    }
}
