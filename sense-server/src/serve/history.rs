//! The history of an instance and forks of it: every committed version's
//! state is kept (see `sense_store::Steps`; `sense serve --keep-versions`
//! bounds how many), can be listed and shown, and a new instance can
//! start from any of them — the same agent paused at the same point,
//! mid-statement if it paused there, ready for a different answer.

use super::engine::{ApiError, Engine, agents_json, check_id, new_id};
use super::json;
use super::program::Captured;
use sense_store::{Event, NewInstance, StoreError, VersionInfo};
use serde_json::{Value as Json, json};

fn version_json(v: &VersionInfo) -> Json {
    json!({
        "version": v.version,
        "status": v.status.as_str(),
        "pause_reason": json::stored(v.pause_reason.as_deref()),
        "pause_kind": v.pause_kind,
        "error": v.error,
        "created_at": v.created_at,
        "snapshot_bytes": v.snapshot_bytes,
    })
}

impl Engine {
    /// `GET /api/instances/{id}/versions`: the versions the history
    /// holds, oldest first, without their output and snapshots.
    pub fn versions(&self, id: &str) -> Result<Json, ApiError> {
        let versions = self.store.history(id)?;
        if versions.is_empty() {
            return Err(ApiError::new(
                404,
                "NotFound",
                format!("no instance with id {id}"),
            ));
        }
        Ok(json!({
            "id": id,
            "versions": versions.iter().map(version_json).collect::<Vec<_>>(),
        }))
    }

    /// `GET /api/instances/{id}/versions/{n}`: one version with its output
    /// and every agent of its runtime, as `GET /api/instances/{id}` shows
    /// the current one.
    pub fn version(&self, id: &str, n: i64) -> Result<Json, ApiError> {
        let (info, snapshot) = self.kept_version(id, n)?;
        let mut body = version_json(&info);
        body["id"] = json!(id);
        body["output"] = json!(info.output);
        let out = Captured::default();
        match self.restore_into(self.program.runtime(&out), &snapshot) {
            Ok(rt) => body["agents"] = agents_json(&rt),
            Err(e) => body["snapshot_error"] = json!(e.message),
        }
        Ok(body)
    }

    /// `POST /api/instances/{id}/fork`: a new instance (under `new_id`, or
    /// a fresh random id) whose first state is version `n` of `id` (the
    /// current version when `None`). Nothing runs: the fork waits where
    /// that version waited, and the original is not changed.
    pub fn fork(
        &self,
        id: &str,
        n: Option<i64>,
        new_id_given: Option<&str>,
    ) -> Result<Json, ApiError> {
        if let Some(new) = new_id_given {
            check_id(new)?;
        }
        let source = self
            .store
            .summary(id)?
            .ok_or_else(|| ApiError::new(404, "NotFound", format!("no instance with id {id}")))?;
        let n = n.unwrap_or(source.version);
        let (info, snapshot) = self.kept_version(id, n)?;
        let new = match new_id_given {
            Some(new) => new.to_string(),
            None => new_id()?,
        };
        // A fork of a version asleep on a timer (or waiting on a question
        // with a deadline) wakes when that version would have.
        let out = Captured::default();
        let wake_at = self
            .restore_into(self.program.runtime(&out), &snapshot)
            .ok()
            .and_then(|rt| super::timers::wake_at_ms(&rt));
        let record = info.record(snapshot, wake_at);
        let instance = NewInstance::new(
            &new,
            &source.agent,
            &source.program_name,
            &source.program_hash,
            record,
        );
        let mut detail = json!({"agent": source.agent, "forked_from": id, "version": n});
        detail["process"] = json!(self.process);
        match self
            .store
            .create(&instance, &Event::new("created", &detail.to_string()))
        {
            Err(StoreError::Duplicate(_)) => {
                let mut e = ApiError::new(
                    409,
                    "Duplicate",
                    format!("an instance with id {new} exists"),
                );
                e.current = self.describe(&new).ok();
                return Err(e);
            }
            other => other?,
        }
        self.waiters.changed(&new);
        let mut body = self.describe(&new)?;
        body["forked_from"] = json!({"id": id, "version": n});
        Ok(body)
    }

    fn kept_version(&self, id: &str, n: i64) -> Result<(VersionInfo, Vec<u8>), ApiError> {
        if let Some(found) = self.store.load_version(id, n)? {
            return Ok(found);
        }
        let message = match self.store.summary(id)? {
            None => format!("no instance with id {id}"),
            Some(s) if n >= 1 && n <= s.version => format!(
                "version {n} of instance {id} is no longer kept (see --keep-versions); \
                 GET /api/instances/{id}/versions lists the versions kept"
            ),
            Some(s) => format!("instance {id} has versions 1 to {}, not {n}", s.version),
        };
        Err(ApiError::new(404, "NotFound", message))
    }
}
