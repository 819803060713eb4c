//! What the service does to instances, independent of HTTP: start one,
//! resume it, deliver a message, ask it to pause, delete it, describe it.
//!
//! Every change follows one rule: load the instance (snapshot and
//! version), claim the step from that version (see [`super::steps`]: a
//! request that loses the claim answers 409 before running anything), run
//! it to its next pause — in a runtime restored from the snapshot, or in
//! the one this process kept from committing that very version (see
//! [`super::hot`]) — and commit the new snapshot
//! only if the stored version is still the one loaded — the check and the
//! write are one transaction ([`Store::commit`]). Of two concurrent
//! resumes one runs and commits and the other answers 409 without any
//! effect; a process killed mid-run has committed nothing, so the
//! instance stays at its last committed state and the step runs again,
//! from that state, once its lease has expired.

use super::hot::{Hot, HotRuntime};
use super::json;
use super::program::{Captured, Program, append_output};
use super::running::Running;
use super::steps::{Leases, Step};
use super::timing::{Phase, Timings};
use super::waiters::Waiters;
use sense_agents::{AgentStatus, HostValue, Runtime, State};
use sense_store::{
    Commit, Event, Instance, NewInstance, Record, Status, Store, StoreError, Summary,
};
use serde_json::{Value as Json, json};
use std::sync::Arc;

/// How many times a message is retried when another change to the same
/// instance commits first (a message must not be dropped for that).
const MESSAGE_ATTEMPTS: usize = 50;

/// How long a message waits, at most, for a run of its instance by
/// another request to end, checking every [`MESSAGE_BACKOFF`].
const MESSAGE_WAIT: std::time::Duration = std::time::Duration::from_secs(30);
const MESSAGE_BACKOFF: std::time::Duration = std::time::Duration::from_millis(25);

/// An answer that is not a success: an HTTP status, a class and message,
/// and (for conflicts) the instance as it is now.
#[derive(Debug)]
pub struct ApiError {
    /// HTTP status.
    pub status: u16,
    /// A short class name (`NotFound`, `VersionConflict`, …).
    pub class: &'static str,
    /// What went wrong, for people.
    pub message: String,
    /// The instance now, when useful (conflicts).
    pub current: Option<Json>,
}

impl ApiError {
    /// An error without a current state.
    pub fn new(status: u16, class: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            class,
            message: message.into(),
            current: None,
        }
    }

    fn not_found(id: &str) -> ApiError {
        ApiError::new(404, "NotFound", format!("no instance with id {id}"))
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        ApiError::new(503, "StoreError", e.to_string())
    }
}

/// The service's state shared by every worker thread.
pub struct Engine {
    /// Where instances live.
    pub store: Arc<dyn Store>,
    /// The program new instances start from.
    pub program: Program,
    /// Who this process is, in audit events (`host:pid`).
    pub process: String,
    /// Runs in progress here.
    pub running: Arc<Running>,
    /// Clients waiting for changes.
    pub waiters: Arc<Waiters>,
    /// The steps this process has claimed.
    pub leases: Arc<Leases>,
    /// Streamed answers of the runs in progress, for events streams.
    pub texts: Arc<super::texts::Texts>,
    /// Runtimes of the instances this process committed last.
    pub hot: Hot,
    /// Where answers' time goes, when measured.
    pub timings: Timings,
}

/// An instance loaded for a step: its runtime kept in memory from this
/// process's commit of the version the store still holds, or the stored
/// snapshot to restore.
pub(super) enum Loaded {
    /// Kept in memory (see `hot`).
    Hot(Box<HotRuntime>),
    /// To be restored.
    Snapshot(Vec<u8>),
}

/// A fresh instance id: 128 random bits in hex.
pub(super) fn new_id() -> Result<String, ApiError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApiError::new(500, "InternalError", format!("no randomness: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The state to store after a run that ended with `result`; an error
/// (422, nothing stored) when the run did not happen because the agent
/// was not resumable — the agent is then where it was.
pub(super) fn record_of(
    rt: &Runtime,
    result: Result<State, sense_agents::Error>,
    earlier_output: &str,
    out: &Captured,
) -> Result<Record, ApiError> {
    let agent_failed = rt
        .subject()
        .and_then(|id| rt.status(id).ok())
        .is_some_and(|s| s == AgentStatus::Failed);
    let error = match &result {
        Err(e) if !agent_failed => {
            return Err(ApiError::new(422, "SenseError", e.rendered()));
        }
        Err(e) => Some(e.rendered().to_string()),
        Ok(_) => None,
    };
    let snapshot = rt
        .snapshot()
        .map_err(|e| ApiError::new(500, "SnapshotError", e.rendered()))?;
    let mut record = match result {
        Ok(State::Paused { reason, kind }) => Record::paused(
            snapshot,
            &json::from_host(&reason).to_string(),
            kind.as_str(),
        ),
        Ok(State::Completed) => Record::finished(Status::Completed, snapshot),
        Err(_) => Record::finished(Status::Failed, snapshot),
    };
    record.error = error;
    record.output = append_output(earlier_output, &out.take());
    record.wake_at = super::timers::wake_at_ms(rt);
    Ok(record)
}

impl Engine {
    pub(super) fn event(&self, kind: &str, detail: Json) -> Event {
        let mut detail = detail;
        detail["process"] = json!(self.process);
        Event::new(kind, &detail.to_string())
    }

    /// The instance's summary as the API shows it.
    pub fn describe(&self, id: &str) -> Result<Json, ApiError> {
        let s = self
            .store
            .summary(id)?
            .ok_or_else(|| ApiError::not_found(id))?;
        Ok(json::summary(&s, &self.program.hash))
    }

    /// `POST /api/instances`: runs the top level in a fresh runtime,
    /// starts `agent` and stores it under `id` (chosen by the client, so
    /// that a create whose answer was lost can be retried without making
    /// a second instance) or a fresh random id.
    pub fn create(&self, agent: &str, id: Option<&str>) -> Result<Json, ApiError> {
        if let Some(id) = id {
            check_id(id)?;
            if self.store.summary(id)?.is_some() {
                return Err(self.duplicate(id));
            }
        }
        // A client's id may be sent by racing retries: one of them runs.
        // A fresh random id needs no claim: no other request knows it.
        let (id, step) = match id {
            Some(id) => match self.claim_step(id, 0) {
                Err(e) if e.class == "VersionConflict" => return Err(self.duplicate(id)),
                other => (id.to_string(), Some(other?)),
            },
            None => (new_id()?, None),
        };
        let out = Captured::default();
        let mut rt = match &step {
            Some(step) => self.step_runtime(&out, step),
            None => self.unclaimed_step_runtime(&out, &id),
        };
        if let Err(e) = self.program.run_top_level(&mut rt) {
            return Err(ApiError::new(422, "SenseError", e.rendered()));
        }
        let agent_id = rt
            .agent(agent)
            .map_err(|e| ApiError::new(404, "NoSuchAgent", e.display_text()))?;
        rt.set_subject(Some(agent_id));

        let handle = rt.pause_handle(agent_id).map_err(sense_err)?;
        // Registered until the instance is stored, so that a pause request
        // made meanwhile reaches it (see `pause`).
        rt.on_model_text(self.texts.sink(&id));
        let run = self.running.enter(&id, handle.clone());
        let result = rt.start(agent_id);
        let record = record_of(&rt, result, "", &out)?;
        let bytes = record.snapshot.len();
        let new = NewInstance::new(&id, agent, &self.program.name, &self.program.hash, record);
        match self
            .store
            .create(&new, &self.event("created", json!({"agent": agent})))
        {
            Err(StoreError::Duplicate(_)) => return Err(self.duplicate(&id)),
            other => other?,
        }
        if let Some(step) = step {
            step.committed();
        }
        drop(run);
        if handle.is_requested() && self.store.summary(&id)?.is_some_and(|s| !s.pause_requested) {
            // Asked to pause after its first run had stopped: the request
            // is kept with the instance for its next run (unless `pause`
            // found the instance stored and kept it already).
            self.store.request_pause(
                &id,
                &self.event("pause_requested", json!({"while": "created"})),
            )?;
        }
        self.waiters.changed(&id);
        let s = self
            .store
            .summary(&id)?
            .ok_or_else(|| ApiError::not_found(&id))?;
        // Its first answer may well come to this process: keep the
        // runtime as stored, as a commit of an answer does (used only
        // while the store still holds this row at this version).
        if s.version == 1 {
            self.hot
                .put(&id, s.seq, s.version, bytes, HotRuntime { rt, out });
        }
        Ok(json::summary(&s, &self.program.hash))
    }

    fn duplicate(&self, id: &str) -> ApiError {
        let mut e = ApiError::new(409, "Duplicate", format!("an instance with id {id} exists"));
        e.current = self.describe(id).ok();
        e
    }

    fn load(&self, id: &str) -> Result<Instance, ApiError> {
        self.store.load(id)?.ok_or_else(|| ApiError::not_found(id))
    }

    fn conflict(&self, id: &str, message: String) -> ApiError {
        let mut e = ApiError::new(409, "VersionConflict", message);
        e.current = self.describe(id).ok();
        e
    }

    pub(super) fn restore(&self, inst: &Instance, out: &Captured) -> Result<Runtime, ApiError> {
        self.restore_into(self.program.runtime(out), &inst.snapshot)
    }

    /// Restores `snapshot` into `rt` (a fresh runtime).
    pub(super) fn restore_into(
        &self,
        mut rt: Runtime,
        snapshot: &[u8],
    ) -> Result<Runtime, ApiError> {
        rt.restore_snapshot(snapshot)
            .map_err(|e| ApiError::new(500, "SnapshotError", e.rendered()))?;
        Ok(rt)
    }

    /// Commits `record` over version `expected`, or answers 409.
    pub(super) fn commit(
        &self,
        id: &str,
        expected: i64,
        record: &Record,
        event: &Event,
    ) -> Result<Json, ApiError> {
        let now = self.commit_only(id, expected, record, event)?;
        self.reply(id, now)
    }

    /// The answer after a commit: the summary read with it, or read now.
    fn reply(&self, id: &str, now: Option<Summary>) -> Result<Json, ApiError> {
        match now {
            Some(now) => Ok(json::summary(&now, &self.program.hash)),
            None => self.describe(id),
        }
    }

    /// [`Engine::commit`], answering the instance's summary as committed
    /// when the store read it with the commit.
    pub(super) fn commit_only(
        &self,
        id: &str,
        expected: i64,
        record: &Record,
        event: &Event,
    ) -> Result<Option<Summary>, ApiError> {
        match self.store.commit_summary(id, expected, record, event)? {
            (Commit::Committed { .. }, now) => {
                self.waiters.changed(id);
                Ok(now)
            }
            (Commit::Conflict { current: None }, _) => Err(ApiError::not_found(id)),
            (Commit::Conflict { current: Some(v) }, _) => Err(self.conflict(
                id,
                format!(
                    "instance {id} changed while this request ran (version {expected} → {v}); \
                     nothing was applied — reload it and try again"
                ),
            )),
        }
    }

    /// `POST /api/instances/{id}/resume`: applies `value` exactly once.
    pub fn resume(
        &self,
        id: &str,
        value: HostValue,
        version: Option<i64>,
    ) -> Result<Json, ApiError> {
        let mut clock = self.timings.start();
        let (summary, loaded, claimed) = match version {
            // A hot instance answered at a named version: the claim reads
            // the summary, so nothing is read before it.
            Some(v) if self.hot.holds(id) => {
                let (step, s) = self.claim_step_loading(id, v)?;
                let loaded = match self.hot.take(id, s.seq, s.version) {
                    Some(hot) => Loaded::Hot(Box::new(hot)),
                    None => {
                        let inst = self.load(id)?;
                        if inst.summary.version != v {
                            return Err(self.conflict(
                                id,
                                format!("instance {id} changed; nothing was applied"),
                            ));
                        }
                        Loaded::Snapshot(inst.snapshot)
                    }
                };
                (s, loaded, Some(step))
            }
            _ => {
                let (s, loaded) = self.load_for_step(id)?;
                (s, loaded, None)
            }
        };
        self.timings.lap(&mut clock, Phase::Load);
        let s = &summary;
        if let Some(v) = version
            && v != s.version
        {
            return Err(self.conflict(
                id,
                format!(
                    "instance {id} is at version {}, not {v}; nothing was applied",
                    s.version
                ),
            ));
        }
        if s.status != Status::Paused {
            return Err(self.conflict(
                id,
                format!("instance {id} is {}, not paused", s.status.as_str()),
            ));
        }
        super::timers::refuse_late_answer(s)?;
        let step = match claimed {
            Some(step) => step,
            None => self.claim_step(id, s.version)?,
        };
        self.timings.lap(&mut clock, Phase::Claim);
        let was_hot = matches!(loaded, Loaded::Hot(_));
        let (mut rt, out) = self.runtime_for(loaded, &step)?;
        self.timings.lap(&mut clock, Phase::Restore);
        let agent = rt
            .subject()
            .ok_or_else(|| ApiError::new(500, "SnapshotError", "the snapshot names no agent"))?;
        let handle = rt.pause_handle(agent).map_err(sense_err)?;
        if s.pause_requested {
            handle.request();
        }
        let detail = json!({"value": json::from_host(&value), "from_version": s.version});
        let result = {
            rt.on_model_text(self.texts.sink(id));
            let _run = self.running.enter(id, handle);
            rt.resume(agent, value)
        };
        self.timings.lap(&mut clock, Phase::Run);
        let record = record_of(&rt, result, &s.output, &out)?;
        self.timings.lap(&mut clock, Phase::Snapshot);
        let now = self.commit_only(id, s.version, &record, &self.event("resumed", detail))?;
        step.committed();
        let bytes = record.snapshot.len();
        self.hot
            .put(id, s.seq, s.version + 1, bytes, HotRuntime { rt, out });
        self.timings.lap(&mut clock, Phase::Commit);
        let done = self.reply(id, now);
        self.timings.lap(&mut clock, Phase::Reply);
        self.timings.answered(&clock, was_hot);
        done
    }

    /// The instance `id` as stored now, for a step: its summary, and its
    /// runtime if this process holds it at the stored version (then only
    /// the summary is read), or else its snapshot.
    pub(super) fn load_for_step(&self, id: &str) -> Result<(Summary, Loaded), ApiError> {
        if self.hot.holds(id) {
            let Some(s) = self.store.summary(id)? else {
                self.hot.forget(id);
                return Err(ApiError::not_found(id));
            };
            if let Some(hot) = self.hot.take(id, s.seq, s.version) {
                return Ok((s, Loaded::Hot(Box::new(hot))));
            }
        }
        let inst = self.load(id)?;
        Ok((inst.summary, Loaded::Snapshot(inst.snapshot)))
    }

    /// The runtime to run `step` in: the kept one, pointed at the step, or
    /// the snapshot restored into a fresh one.
    pub(super) fn runtime_for(
        &self,
        loaded: Loaded,
        step: &Step<'_>,
    ) -> Result<(Runtime, Captured), ApiError> {
        match loaded {
            Loaded::Hot(hot) => {
                let HotRuntime { mut rt, out } = *hot;
                out.take();
                self.bind_step(&mut rt, &out, step);
                Ok((rt, out))
            }
            Loaded::Snapshot(snapshot) => {
                let out = Captured::default();
                let rt = self.restore_into(self.step_runtime(&out, step), &snapshot)?;
                Ok((rt, out))
            }
        }
    }

    /// `POST /api/instances/{id}/messages`: puts `value` in the agent's
    /// mailbox; an agent waiting in `receive()` takes it and runs on. A
    /// concurrent change makes it retry, so the message is delivered once.
    pub fn message(&self, id: &str, value: HostValue) -> Result<Json, ApiError> {
        let mut attempts = 0;
        let deadline = std::time::Instant::now() + MESSAGE_WAIT;
        while attempts < MESSAGE_ATTEMPTS {
            attempts += 1;
            let (summary, loaded) = self.load_for_step(id)?;
            let s = &summary;
            if s.status != Status::Paused {
                return Err(self.conflict(
                    id,
                    format!(
                        "instance {id} is {}; it takes no more messages",
                        s.status.as_str()
                    ),
                ));
            }
            let step = match self.claim_step(id, s.version) {
                Err(e) if e.class == "VersionConflict" => continue,
                Err(e) if e.class == "StepInProgress" && std::time::Instant::now() < deadline => {
                    // Another request is running the instance: the message
                    // goes in after its commit.
                    attempts -= 1;
                    std::thread::sleep(MESSAGE_BACKOFF);
                    continue;
                }
                other => other?,
            };
            let (mut rt, out) = self.runtime_for(loaded, &step)?;
            let agent = rt.subject().ok_or_else(|| {
                ApiError::new(500, "SnapshotError", "the snapshot names no agent")
            })?;
            rt.send(agent, value.clone())
                .map_err(|e| ApiError::new(400, "BadValue", e.rendered()))?;
            let waiting = s.pause_kind.as_deref() == Some("message");
            let result = if waiting {
                let handle = rt.pause_handle(agent).map_err(sense_err)?;
                if s.pause_requested {
                    handle.request();
                }
                rt.on_model_text(self.texts.sink(id));
                let _run = self.running.enter(id, handle);
                rt.resume(agent, HostValue::Nil)
            } else {
                Ok(State::Paused {
                    reason: rt.pause_reason(agent).map_err(sense_err)?,
                    kind: rt
                        .pause_kind(agent)
                        .map_err(sense_err)?
                        .unwrap_or(sense_agents::PauseKind::SelfPause),
                })
            };
            let mut record = record_of(&rt, result, &s.output, &out)?;
            if !waiting {
                // Only the mailbox changed: the pause stays as it was.
                record.pause_reason.clone_from(&s.pause_reason);
                record.pause_kind.clone_from(&s.pause_kind);
                record.clears_pause_request = false;
            }
            let detail = json!({"value": json::from_host(&value), "delivered": waiting});
            match self.commit_only(id, s.version, &record, &self.event("message", detail)) {
                Err(e) if e.status == 409 => continue,
                Ok(now) => {
                    step.committed();
                    let bytes = record.snapshot.len();
                    self.hot
                        .put(id, s.seq, s.version + 1, bytes, HotRuntime { rt, out });
                    return self.reply(id, now);
                }
                Err(e) => return Err(e),
            }
        }
        Err(self.conflict(
            id,
            format!("instance {id} kept changing; the message was not stored, send it again"),
        ))
    }

    /// `POST /api/instances/{id}/pause`: the agent pauses (kind `host`)
    /// at its next safe point — now, if it is running somewhere in the
    /// fleet; otherwise as soon as it runs again. 200 with the instance;
    /// 202 (`"status": "creating"`) when it is being created by this
    /// process and not stored yet.
    pub fn pause(&self, id: &str) -> Result<(u16, Json), ApiError> {
        let Some(s) = self.store.summary(id)? else {
            // Not stored yet: it may be being created by this process, its
            // first run in progress. The request reaches that run (or, if
            // the run has stopped already, is stored with the instance).
            if self.running.request_pause(id) {
                let body = json!({
                    "id": id,
                    "status": "creating",
                    "pause_requested": true,
                    "running_here": true,
                });
                return Ok((202, body));
            }
            return Err(ApiError::not_found(id));
        };
        if s.status != Status::Paused {
            return Err(self.conflict(id, format!("instance {id} is {}", s.status.as_str())));
        }
        let here = self.running.request_pause(id);
        if !self
            .store
            .request_pause(id, &self.event("pause_requested", json!({})))?
        {
            return Err(ApiError::not_found(id));
        }
        let mut body = self.describe(id)?;
        body["pause_requested"] = json!(true);
        body["running_here"] = json!(here);
        Ok((200, body))
    }

    /// `DELETE /api/instances/{id}`.
    pub fn delete(&self, id: &str, version: Option<i64>) -> Result<Json, ApiError> {
        match self
            .store
            .delete(id, version, &self.event("deleted", json!({})))?
        {
            Commit::Committed { .. } => {
                self.hot.forget(id);
                self.waiters.changed(id);
                Ok(json!({"id": id, "deleted": true}))
            }
            Commit::Conflict { current: None } => Err(ApiError::not_found(id)),
            Commit::Conflict { current: Some(v) } => Err(self.conflict(
                id,
                format!("instance {id} is at version {v}; nothing was deleted"),
            )),
        }
    }

    /// `GET /api/instances/{id}`: the summary plus every agent of the
    /// instance's runtime with its call stack and locals.
    pub fn detail(&self, id: &str) -> Result<Json, ApiError> {
        let inst = self.load(id)?;
        let out = Captured::default();
        let mut body = json::summary(&inst.summary, &self.program.hash);
        match self.restore(&inst, &out) {
            Ok(rt) => body["agents"] = agents_json(&rt),
            Err(e) => body["snapshot_error"] = json!(e.message),
        }
        Ok(body)
    }

    /// `GET /api/instances/{id}/audit`.
    pub fn audit(&self, id: &str, after: i64, limit: u32) -> Result<Json, ApiError> {
        let events = self.store.audit(id, after, limit)?;
        if events.is_empty() && after == 0 && self.store.summary(id)?.is_none() {
            return Err(ApiError::not_found(id));
        }
        let next = events.last().map(|e| e.seq);
        Ok(json!({
            "id": id,
            "events": events.iter().map(json::audit).collect::<Vec<_>>(),
            "next": next,
        }))
    }
}

/// Every agent of a restored runtime with its call stack and locals,
/// the instance's own agent marked `subject`.
pub(super) fn agents_json(rt: &Runtime) -> Json {
    let subject = rt.subject();
    let agents: Vec<Json> = rt
        .agents()
        .iter()
        .map(|a| {
            let mut j = json::agent(a);
            let id = rt.agent_id(a);
            j["subject"] = json!(subject == Some(id));
            json::add_spending(&mut j, rt, id);
            j
        })
        .collect();
    Json::Array(agents)
}

/// Client-chosen ids: 1 to 64 letters, digits, `-` and `_`.
pub(super) fn check_id(id: &str) -> Result<(), ApiError> {
    let ok = (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(ApiError::new(
            400,
            "BadRequest",
            "an id is 1 to 64 letters, digits, '-' or '_'",
        ))
    }
}

fn sense_err(e: sense_agents::Error) -> ApiError {
    ApiError::new(500, "InternalError", e.rendered())
}
