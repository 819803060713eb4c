//! What the store keeps: instances, their state records and audit events.

use crate::StoreError;

/// Where an instance stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Waiting: for an answer, a message, or to be continued.
    Paused,
    /// The agent's body finished.
    Completed,
    /// The agent's body (or the program's top level) raised an error.
    Failed,
}

impl Status {
    /// The lower-case name stored in the database and shown by the API.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Paused => "paused",
            Status::Completed => "completed",
            Status::Failed => "failed",
        }
    }

    /// Parses [`Status::as_str`]'s names.
    pub fn parse(s: &str) -> Option<Status> {
        match s {
            "paused" => Some(Status::Paused),
            "completed" => Some(Status::Completed),
            "failed" => Some(Status::Failed),
            _ => None,
        }
    }

    pub(crate) fn from_column(s: &str) -> Result<Status, StoreError> {
        Status::parse(s).ok_or_else(|| StoreError::Corrupt(format!("unknown status {s:?}")))
    }
}

/// The state an instance is in after a start or a resume: what
/// [`crate::Store::commit`] writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Paused, completed or failed.
    pub status: Status,
    /// The pause reason as JSON text (while paused; the last one after).
    pub pause_reason: Option<String>,
    /// The pause kind (`ask_human`, `self`, `message`, `host`, `budget`, …).
    pub pause_kind: Option<String>,
    /// The error message, when failed.
    pub error: Option<String>,
    /// Everything the instance has printed so far (callers bound it).
    pub output: String,
    /// The runtime snapshot.
    pub snapshot: Vec<u8>,
    /// True when this state honours a pause request (so the request is
    /// cleared); also true for completed and failed states.
    pub clears_pause_request: bool,
    /// When the instance is to be resumed without anyone asking (Unix
    /// milliseconds): a `time.sleep` timer or a question's deadline.
    pub wake_at: Option<i64>,
}

impl Record {
    /// A paused state.
    pub fn paused(snapshot: Vec<u8>, reason_json: &str, kind: &str) -> Record {
        Record {
            status: Status::Paused,
            pause_reason: Some(reason_json.to_string()),
            pause_kind: Some(kind.to_string()),
            error: None,
            output: String::new(),
            snapshot,
            clears_pause_request: kind == "host",
            wake_at: None,
        }
    }

    /// A completed or failed state.
    pub fn finished(status: Status, snapshot: Vec<u8>) -> Record {
        Record {
            status,
            pause_reason: None,
            pause_kind: None,
            error: None,
            output: String::new(),
            snapshot,
            clears_pause_request: true,
            wake_at: None,
        }
    }
}

/// A new instance for [`crate::Store::create`].
#[derive(Clone, Debug)]
pub struct NewInstance {
    /// Its id (unique in the store; chosen by the caller).
    pub id: String,
    /// The agent's name in the program.
    pub agent: String,
    /// The program it runs (a file name, for people).
    pub program_name: String,
    /// A hash of the program's source, to tell versions apart.
    pub program_hash: String,
    /// Its first state.
    pub record: Record,
}

impl NewInstance {
    /// Bundles the fields.
    pub fn new(
        id: &str,
        agent: &str,
        program_name: &str,
        program_hash: &str,
        record: Record,
    ) -> NewInstance {
        NewInstance {
            id: id.to_string(),
            agent: agent.to_string(),
            program_name: program_name.to_string(),
            program_hash: program_hash.to_string(),
            record,
        }
    }
}

/// An instance without its snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Creation order within the store (for paging).
    pub seq: i64,
    /// Its id.
    pub id: String,
    /// The agent's name.
    pub agent: String,
    /// The program it was started from.
    pub program_name: String,
    /// The hash of the program source it was started with.
    pub program_hash: String,
    /// Paused, completed or failed.
    pub status: Status,
    /// Pause reason as JSON text.
    pub pause_reason: Option<String>,
    /// Pause kind.
    pub pause_kind: Option<String>,
    /// Error message, when failed.
    pub error: Option<String>,
    /// What it has printed.
    pub output: String,
    /// Goes up by one with every committed change; starts at 1.
    pub version: i64,
    /// A pause was requested and not yet honoured.
    pub pause_requested: bool,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Milliseconds since the Unix epoch.
    pub updated_at: i64,
    /// Size of the stored snapshot.
    pub snapshot_bytes: i64,
    /// When it is to be resumed without anyone asking (Unix milliseconds).
    pub wake_at: Option<i64>,
}

/// An instance with its snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// Everything but the snapshot.
    pub summary: Summary,
    /// The runtime snapshot.
    pub snapshot: Vec<u8>,
}

/// The outcome of a conditional write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Commit {
    /// Written; the instance is now at this version (0 after a delete).
    Committed {
        /// The new version.
        version: i64,
    },
    /// Not written: the instance is at another version, or gone (`None`).
    Conflict {
        /// Its version now, if it exists.
        current: Option<i64>,
    },
}

impl Commit {
    /// True when the write happened.
    pub fn is_committed(&self) -> bool {
        matches!(self, Commit::Committed { .. })
    }
}

/// What happened, for the audit trail.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// A short name: `created`, `resumed`, `message`, `pause_requested`, `deleted`, …
    pub kind: String,
    /// Details as JSON text.
    pub detail: String,
}

impl Event {
    /// An event of `kind` with `detail` (JSON text).
    pub fn new(kind: &str, detail: &str) -> Event {
        Event {
            kind: kind.to_string(),
            detail: detail.to_string(),
        }
    }
}

/// One entry of an instance's audit trail.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditEvent {
    /// Order within the store.
    pub seq: i64,
    /// The instance's version after the event.
    pub version: i64,
    /// Milliseconds since the Unix epoch.
    pub at: i64,
    /// The event's kind.
    pub kind: String,
    /// Its details, JSON text.
    pub detail: String,
}

/// Which instances [`crate::Store::list`] returns.
#[derive(Clone, Debug, Default)]
pub struct ListQuery {
    /// Only this status.
    pub status: Option<Status>,
    /// Only instances created after this `seq` (for the next page).
    pub after: i64,
    /// At most this many (capped at 1000).
    pub limit: u32,
}

impl ListQuery {
    /// The limit actually used: 1 to 1000, 100 when unset.
    pub(crate) fn effective_limit(&self) -> i64 {
        match self.limit {
            0 => 100,
            n => i64::from(n.min(1000)),
        }
    }
}

/// A wake-up claimed by [`crate::Store::claim_due`]: the instance, at
/// the version it had when claimed, and the time that came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Due {
    /// The instance's id.
    pub id: String,
    /// Its version when claimed (resume it only from this version).
    pub version: i64,
    /// Its wake-up time (Unix milliseconds).
    pub wake_at: i64,
}

/// Changes announced by the database (PostgreSQL's LISTEN/NOTIFY), for
/// waking long polls without polling.
pub trait ChangeFeed: Send {
    /// The ids of instances that changed (committed a new version, or
    /// were created or deleted) since the last call, waiting up to
    /// `timeout` for the first. Empty when none came in time. An error
    /// means the feed is broken (open a new one; changes meanwhile were
    /// missed).
    fn next(&mut self, timeout: std::time::Duration) -> Result<Vec<String>, StoreError>;
}
