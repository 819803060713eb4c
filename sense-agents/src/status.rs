//! The words a host reads an agent by: its [`AgentStatus`] and, while it
//! is paused, its [`PauseKind`]. The core keeps the same facts under
//! generic names (`TaskStatus`, `SuspendCause`); these types name them
//! for the agent layer and its hosts (C ABI, `sense show`, `sense serve`).

use sense_eval::task::{SuspendCause, TaskStatus};

/// The five statuses of an agent: `created` → `running` ⇄ `paused`, then
/// `completed` or `failed`.
///
/// ```
/// use sense_agents::AgentStatus;
///
/// // `agent.status` in Sense reads these strings.
/// assert_eq!(AgentStatus::Paused.as_str(), "paused");
/// assert_eq!(AgentStatus::Completed.as_str(), "completed");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AgentStatus {
    /// Declared, not started.
    Created,
    /// Its body is executing (or, for a nested start, waiting on another agent).
    Running,
    /// Suspended; `resume` continues it.
    Paused,
    /// The body finished.
    Completed,
    /// The body raised an error.
    Failed,
}

impl AgentStatus {
    /// The status string Sense code sees.
    pub fn as_str(self) -> &'static str {
        TaskStatus::from(self).as_str()
    }
}

impl From<TaskStatus> for AgentStatus {
    #[inline]
    fn from(s: TaskStatus) -> Self {
        match s {
            TaskStatus::Created => AgentStatus::Created,
            TaskStatus::Running => AgentStatus::Running,
            TaskStatus::Paused => AgentStatus::Paused,
            TaskStatus::Completed => AgentStatus::Completed,
            TaskStatus::Failed => AgentStatus::Failed,
        }
    }
}

impl From<AgentStatus> for TaskStatus {
    #[inline]
    fn from(s: AgentStatus) -> Self {
        match s {
            AgentStatus::Created => TaskStatus::Created,
            AgentStatus::Running => TaskStatus::Running,
            AgentStatus::Paused => TaskStatus::Paused,
            AgentStatus::Completed => TaskStatus::Completed,
            AgentStatus::Failed => TaskStatus::Failed,
        }
    }
}

/// Why a paused agent is paused: hosts can tell a pause of its own from
/// `ask_human`, an empty mailbox, a host request, a host function that
/// suspended it and a spent step budget.
///
/// ```
/// use sense_agents::PauseKind;
///
/// // The stable names the C ABI and `sense show` use.
/// assert_eq!(PauseKind::AskHuman.as_str(), "ask_human");
/// assert_eq!(PauseKind::WaitingMessage.as_str(), "message");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PauseKind {
    /// `pause()` / `pause(reason)` in the body.
    SelfPause,
    /// `ask_human(question)` in the body.
    AskHuman,
    /// `receive()` on an empty mailbox.
    WaitingMessage,
    /// The host asked it to pause (pause handle).
    HostRequest,
    /// Its instruction budget ran out, or a model call waits for a
    /// bigger token or cost budget (`set_budget`).
    Budget,
    /// A host function suspended it.
    HostFunction,
    /// `time.sleep(seconds)` in the body: a durable timer; the pause
    /// reason is the wake-up time (Unix seconds, a Float).
    Timer,
}

/// The core's tag for `ask_human`: a native's own suspend cause (the core
/// names only the causes it produces itself).
const ASK_HUMAN: SuspendCause = SuspendCause(1);
/// The core's tag for `time.sleep`'s durable timer (the next free byte
/// after the core's own causes; stored in snapshots, never changes).
const TIMER: SuspendCause = SuspendCause(6);

impl PauseKind {
    /// A stable lower-case name (`self`, `ask_human`, `message`, `host`,
    /// `budget`, `host_function`, `timer`).
    pub fn as_str(self) -> &'static str {
        match self {
            PauseKind::SelfPause => "self",
            PauseKind::AskHuman => "ask_human",
            PauseKind::WaitingMessage => "message",
            PauseKind::HostRequest => "host",
            PauseKind::Budget => "budget",
            PauseKind::HostFunction => "host_function",
            PauseKind::Timer => "timer",
        }
    }
}

/// Writes both directions between [`PauseKind`] and the core's
/// [`SuspendCause`] from one list of pairs, so a new kind is added in one
/// place. The read-only causes map to a kind but are never written back.
macro_rules! pause_causes {
    ($($kind:ident <=> $cause:path),+; read only: $($extra:path => $ekind:ident),* $(,)?) => {
        impl From<SuspendCause> for PauseKind {
            /// A cause no native of this crate records (only a damaged
            /// snapshot could hold one; restore refuses those) reads as a
            /// pause of its own.
            #[inline]
            fn from(c: SuspendCause) -> Self {
                match c {
                    $($cause => PauseKind::$kind,)*
                    $($extra => PauseKind::$ekind,)*
                    _ => PauseKind::SelfPause,
                }
            }
        }

        #[cfg(test)]
        impl PauseKind {
            /// Every kind, in the order of the list (the order of their tags).
            const ALL: &'static [PauseKind] = &[$(PauseKind::$kind),+];
        }

        impl From<PauseKind> for SuspendCause {
            #[inline]
            fn from(k: PauseKind) -> Self {
                match k {
                    $(PauseKind::$kind => $cause,)*
                }
            }
        }
    };
}

pause_causes! {
    SelfPause <=> SuspendCause::CALL,
    AskHuman <=> ASK_HUMAN,
    WaitingMessage <=> SuspendCause::MESSAGE,
    HostRequest <=> SuspendCause::HOST,
    Budget <=> SuspendCause::BUDGET,
    HostFunction <=> SuspendCause::HOST_FUNCTION,
    Timer <=> TIMER;
    read only:
    // A model call held back by a token or cost budget.
    crate::kinds::budget::SPEND => Budget,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pause_kind_survives_the_core_tag_and_back() {
        // ALL comes from the one list `pause_causes!` writes both
        // directions from, and that list must name every kind (the
        // `From<PauseKind>` match is exhaustive).
        let all = PauseKind::ALL;
        let tags: Vec<u8> = all.iter().map(|k| SuspendCause::from(*k).0).collect();
        // The tags are the byte a snapshot stores: they never change.
        assert_eq!(tags, [0, 1, 2, 3, 4, 5, 6]);
        for &k in all {
            assert_eq!(PauseKind::from(SuspendCause::from(k)), k);
        }
        assert_eq!(PauseKind::from(SuspendCause(200)), PauseKind::SelfPause);
    }

    #[test]
    fn every_status_survives_the_core_status_and_back() {
        use AgentStatus::*;
        for s in [Created, Running, Paused, Completed, Failed] {
            assert_eq!(AgentStatus::from(TaskStatus::from(s)), s);
        }
        assert_eq!(Failed.as_str(), "failed");
    }
}
