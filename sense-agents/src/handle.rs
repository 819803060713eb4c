//! Handles a host keeps: agent ids and cross-thread pause handles.

use sense_eval::heap::ObjRef;
use sense_eval::task::PauseFlag;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

/// Identifies an agent of one [`Runtime`](crate::Runtime).
///
/// A handle does not keep its agent alive (unless [held](crate::Runtime::hold)):
/// once no Sense variable refers to the agent and it is collected, using
/// the handle is an error ("agent no longer exists"), never a crash. Ids
/// of other runtimes are refused the same way: serials are unique within
/// the process (a restored runtime keeps the snapshotted agents' serials).
///
/// ```
/// use sense_agents::{AgentStatus, Runtime};
///
/// let mut rt = Runtime::new();
/// rt.run_source("m.sns", "agent a:\n    pause(\"wait\")\n")?;
/// let a = rt.agent("a")?;
/// assert_eq!(rt.status(a)?, AgentStatus::Created);
/// rt.start(a)?;
/// assert_eq!(rt.status(a)?, AgentStatus::Paused);
/// assert_eq!(rt.agent("a")?, a); // the same agent, the same handle
/// # Ok::<(), sense_agents::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AgentId {
    pub(crate) obj: ObjRef,
    pub(crate) serial: u64,
}

impl AgentId {
    /// A number unique to this agent within its process.
    pub fn serial(&self) -> u64 {
        self.serial
    }
}

/// Asks an agent to pause from any thread (`Send + Sync`).
///
/// The request is honoured at the agent's next safe point (a call or a
/// loop iteration) while it runs; the agent then reads status `paused`
/// with pause kind [`PauseKind::HostRequest`](crate::PauseKind)
/// and continues exactly there when resumed. A request made while the
/// agent is not running takes effect the next time it runs.
///
/// ```
/// use sense_agents::{PauseKind, Runtime, State};
///
/// let mut rt = Runtime::new();
/// rt.run_source("m.sns", "agent counter:\n    n = 0\n    while n < 3:\n        n = n + 1\n")?;
/// let counter = rt.agent("counter")?;
/// let stop = rt.pause_handle(counter)?;
/// // From any thread; here before the agent runs, so it pauses at once.
/// std::thread::spawn(move || assert!(stop.request())).join().unwrap();
/// let State::Paused { kind, .. } = rt.start(counter)? else {
///     panic!("the request should pause it");
/// };
/// assert_eq!(kind, PauseKind::HostRequest);
/// assert_eq!(rt.resume(counter, ())?, State::Completed);
/// # Ok::<(), sense_agents::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct PauseHandle {
    pub(crate) flag: Arc<PauseFlag>,
    /// The runtime's count of pending requests; gone once the runtime is
    /// dropped (the handle does not keep it alive).
    pub(crate) pending: Weak<AtomicUsize>,
}

impl PauseHandle {
    /// Requests a pause. Returns false if a request was already pending,
    /// the agent has completed or failed (it will not run again, so the
    /// request is dropped), or its runtime has been dropped.
    pub fn request(&self) -> bool {
        let Some(pending) = self.pending.upgrade() else {
            return false;
        };
        if !self.flag.request() {
            return false;
        }
        pending.fetch_add(1, Ordering::AcqRel);
        true
    }

    /// False once the agent's runtime has been dropped (requests then do
    /// nothing).
    pub fn runtime_alive(&self) -> bool {
        self.pending.strong_count() > 0
    }

    /// True while a request is pending (not yet honoured).
    pub fn is_requested(&self) -> bool {
        self.flag.is_requested()
    }
}
