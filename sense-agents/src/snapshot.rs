//! Saving a runtime to bytes and restoring it — in another process, on
//! another machine, days later — with every paused agent resumable exactly
//! where it stopped (the book: embedding.md).

use crate::AgentReport;
use crate::error::Error;
use crate::handle::AgentId;
use crate::runtime::Runtime;
use sense_eval::heap::{ObjRef, ScopeRef};

/// The runtime's own bookkeeping, stored in the snapshot's host blob:
/// the main scope and the agent the host is driving (if any).
fn encode(main_env: Option<ScopeRef>, subject: Option<AgentId>) -> Vec<u8> {
    let mut out = Vec::with_capacity(17);
    match main_env {
        Some(s) => {
            out.push(1);
            out.extend_from_slice(&s.0.to_le_bytes());
        }
        None => out.push(0),
    }
    match subject {
        Some(a) => {
            out.push(1);
            out.extend_from_slice(&a.obj.0.to_le_bytes());
            out.extend_from_slice(&a.serial.to_le_bytes());
        }
        None => out.push(0),
    }
    out
}

fn decode(blob: &[u8]) -> Option<(Option<ScopeRef>, Option<AgentId>)> {
    let mut at = 0;
    let mut take = |n: usize| {
        let s = blob.get(at..at + n)?;
        at += n;
        Some(s)
    };
    let main_env = match take(1)?.first()? {
        0 => None,
        1 => Some(ScopeRef(u32::from_le_bytes(take(4)?.try_into().ok()?))),
        _ => return None,
    };
    let subject = match take(1)?.first()? {
        0 => None,
        1 => {
            let obj = ObjRef(u32::from_le_bytes(take(4)?.try_into().ok()?));
            let serial = u64::from_le_bytes(take(8)?.try_into().ok()?);
            Some(AgentId { obj, serial })
        }
        _ => return None,
    };
    Some((main_env, subject))
}

impl Runtime {
    /// Saves the whole runtime — every agent in any status, globals,
    /// closures, shared and cyclic arrays, mailboxes, action instances,
    /// the audit log and memory handles — as bytes.
    ///
    /// ```
    /// use sense_agents::{Runtime, State};
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source("m.sns", "agent a:\n    n = pause(\"n?\")\n    print(n * 2)\n").unwrap();
    /// let a = rt.agent("a").unwrap();
    /// rt.start(a).unwrap();
    /// let bytes = rt.snapshot().unwrap();
    ///
    /// let mut later = Runtime::restore(&bytes).unwrap();     // e.g. in another process
    /// let a = later.agent("a").unwrap();
    /// assert_eq!(later.resume(a, 21).unwrap(), State::Completed);
    /// ```
    pub fn snapshot(&self) -> Result<Vec<u8>, Error> {
        let blob = encode(self.main_env, self.subject);
        self.vm_ref().snapshot(&blob).map_err(|e| self.error(&e))
    }

    /// A new runtime from snapshot bytes (default configuration, output to
    /// stdout). A snapshot whose code calls host functions, or uses host
    /// model providers, must be restored with [`Runtime::restore_snapshot`] into a runtime
    /// that registered them first.
    pub fn restore(bytes: &[u8]) -> Result<Runtime, Error> {
        let mut rt = Runtime::new();
        rt.restore_snapshot(bytes)?;
        Ok(rt)
    }

    /// Restores snapshot bytes into this runtime, which must not have run
    /// anything yet. Register host functions, model providers and the
    /// output/input hooks first: a snapshot whose code calls a host
    /// function, or whose models use a provider, that this runtime lacks is
    /// refused here, with its name. Host functions registered when the
    /// snapshot was taken but never named by its code need not be: calling
    /// one before registering it raises a `SenseRuntimeError`. Globals set
    /// with [`Runtime::set_global`] before the restore are kept: they are
    /// bound again afterwards, replacing the snapshot's value of the name.
    /// Values held with [`Runtime::hold_value`] are released.
    pub fn restore_snapshot(&mut self, bytes: &[u8]) -> Result<(), Error> {
        // Held values live in the heap the restore replaces: released.
        for (_, cell) in std::mem::take(&mut self.held) {
            self.vm().unhold(cell);
        }
        let blob = self.vm().restore(bytes).map_err(|e| {
            Error::from_eval(
                &e,
                format!("{}: {}", e.class().name(), e.display()),
                e.line(),
                None,
            )
        })?;
        let Some((main_env, subject)) = decode(&blob) else {
            return Err(Error::host(
                "cannot restore snapshot: the runtime record is damaged",
            ));
        };
        if let Some(env) = main_env
            && !self.vm_ref().is_pinned(env)
        {
            return Err(Error::host(
                "cannot restore snapshot: the runtime record is damaged",
            ));
        }
        let missing: Vec<String> = crate::kinds::model::providers_needed(self.vm_ref())
            .into_iter()
            .filter(|p| !crate::kinds::model::has_provider(self.vm_ref(), p))
            .collect();
        if let Some(p) = missing.first() {
            return Err(Error::host(format!(
                "cannot restore snapshot: it uses the model provider '{p}', which is not registered \
                 (register it before restoring)"
            )));
        }
        crate::audit::charge_restored(self.vm());
        // What was restored must fit this runtime's heap ceiling.
        self.vm()
            .enforce_heap_ceiling()
            .map_err(|e| Error::host(format!("cannot restore snapshot: {}", e.display())))?;
        self.main_env = main_env;
        self.subject = subject.filter(|a| self.status(*a).is_ok());
        for (name, value) in std::mem::take(&mut self.preset_globals) {
            self.set_global(&name, value)?;
        }
        Ok(())
    }

    /// The agent a host is driving (saved in snapshots; `sense start` and
    /// `sense resume` use it).
    pub fn subject(&self) -> Option<AgentId> {
        self.subject
    }

    /// Sets the agent a host is driving.
    pub fn set_subject(&mut self, agent: Option<AgentId>) {
        self.subject = agent;
    }

    /// Every live agent, oldest first: status, pause reason and kind, and
    /// for paused agents the call stack with each frame's locals.
    pub fn agents(&self) -> Vec<AgentReport> {
        self.vm_ref()
            .task_reports()
            .into_iter()
            .map(AgentReport::from)
            .collect()
    }

    /// The handle of an agent from a report.
    pub fn agent_id(&self, report: &AgentReport) -> AgentId {
        AgentId {
            obj: report.obj,
            serial: report.serial,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_round_trips_and_rejects_junk() {
        let id = AgentId {
            obj: ObjRef(7),
            serial: 99,
        };
        let blob = encode(Some(ScopeRef(3)), Some(id));
        assert_eq!(decode(&blob), Some((Some(ScopeRef(3)), Some(id))));
        assert_eq!(decode(&encode(None, None)), Some((None, None)));
        for n in 0..blob.len() {
            assert_eq!(decode(&blob[..n]), None);
        }
        assert_eq!(decode(&[2]), None);
    }
}
