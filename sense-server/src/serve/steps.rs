//! One runner per step. Before a run that may reach the world (a resume,
//! a delivered message, the first run of an instance created under a
//! client's id) the engine claims the step — the instance at the version
//! the run starts from — in the store ([`sense_store::Steps::claim`]). A
//! request that loses the claim answers 409 before restoring or running
//! anything. The lease is renewed while the run lasts and expires if its
//! process dies, so a killed runner's step is taken over after at most
//! the lease's length.
//!
//! The step id, `INSTANCE:VERSION`, is the run's idempotency key: every
//! run of the step, in any process, has the same one. The program sees it
//! as the global `sense_step`, and HTTP model calls send it as an
//! `Idempotency-Key` header (`INSTANCE:VERSION#N` for the run's N-th call).

use super::engine::{ApiError, Engine};
use super::program::Captured;
use sense_agents::Runtime;
use sense_store::{Claim, Store, Summary};
use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How long a lease lasts unless renewed, by default.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);

/// The global through which a program sees its step id.
pub const STEP_GLOBAL: &str = "sense_step";

/// The leases this process holds, renewed by one thread.
pub struct Leases {
    store: Arc<dyn Store>,
    ttl: Duration,
    /// Holder → (instance, version).
    held: Mutex<HashMap<String, (String, i64)>>,
    next: AtomicU64,
    process: String,
}

impl Leases {
    /// Leases of length `ttl` on `store` for `process`, renewed every
    /// third of their length while held.
    pub fn start(store: Arc<dyn Store>, ttl: Duration, process: &str) -> Arc<Leases> {
        let leases = Arc::new(Leases {
            store,
            ttl,
            held: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            process: process.to_string(),
        });
        let weak = Arc::downgrade(&leases);
        let every = (ttl / 3).max(Duration::from_millis(50));
        std::thread::Builder::new()
            .name("sense-serve-leases".into())
            .spawn(move || {
                while let Some(leases) = weak.upgrade() {
                    leases.renew();
                    drop(leases);
                    std::thread::sleep(every);
                }
            })
            .ok();
        leases
    }

    fn ttl_ms(&self) -> i64 {
        i64::try_from(self.ttl.as_millis()).unwrap_or(i64::MAX)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (String, i64)>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn renew(&self) {
        let held: Vec<(String, (String, i64))> = self
            .lock()
            .iter()
            .map(|(h, s)| (h.clone(), s.clone()))
            .collect();
        for (holder, (id, version)) in held {
            // A failed renewal is retried on the next round; a lost lease
            // only means another runner may take the step over, and the
            // conditional commit still applies one of them.
            let _ = self.store.claim(&id, version, &holder, self.ttl_ms());
        }
    }
}

/// A claimed step: renewed while alive, released when dropped unless the
/// run committed (the version then moved on and the lease names the past).
pub struct Step<'a> {
    leases: &'a Leases,
    holder: String,
    id: String,
    version: i64,
    committed: bool,
}

impl Step<'_> {
    /// The step id: `INSTANCE:VERSION`.
    pub fn key(&self) -> String {
        format!("{}:{}", self.id, self.version)
    }

    /// The run committed: nothing to release.
    pub fn committed(mut self) {
        self.committed = true;
    }
}

impl Drop for Step<'_> {
    fn drop(&mut self) {
        self.leases.lock().remove(&self.holder);
        if !self.committed {
            // If this fails the lease simply runs out.
            let _ = self
                .leases
                .store
                .release(&self.id, self.version, &self.holder);
        }
    }
}

impl Engine {
    /// Claims the step from `version` of `id` (0: creating it), or
    /// answers 409 without running anything.
    pub(super) fn claim_step(&self, id: &str, version: i64) -> Result<Step<'_>, ApiError> {
        let holder = self.next_holder();
        let claim = self
            .store
            .claim(id, version, &holder, self.leases.ttl_ms())?;
        self.step_from(id, version, holder, claim)
    }

    /// [`Engine::claim_step`] for a step from a version the request
    /// names, reading the instance's summary with the claim (one statement
    /// on PostgreSQL).
    pub(super) fn claim_step_loading(
        &self,
        id: &str,
        version: i64,
    ) -> Result<(Step<'_>, Summary), ApiError> {
        let holder = self.next_holder();
        let (claim, found) =
            self.store
                .claim_loading(id, version, &holder, self.leases.ttl_ms())?;
        let step = self.step_from(id, version, holder, claim)?;
        match found {
            Some(s) if s.version == version => Ok((step, s)),
            // Claimed, so the instance was at `version`: not reached.
            _ => Err(ApiError::new(
                404,
                "NotFound",
                format!("no instance with id {id}"),
            )),
        }
    }

    fn next_holder(&self) -> String {
        let n = self.leases.next.fetch_add(1, Ordering::Relaxed);
        format!("{}#{n}", self.leases.process)
    }

    /// The step `holder` claimed, or the 409/404 the claim's outcome means.
    fn step_from(
        &self,
        id: &str,
        version: i64,
        holder: String,
        claim: Claim,
    ) -> Result<Step<'_>, ApiError> {
        let leases = &*self.leases;
        match claim {
            Claim::Claimed { .. } => {
                leases
                    .lock()
                    .insert(holder.clone(), (id.to_string(), version));
                Ok(Step {
                    leases,
                    holder,
                    id: id.to_string(),
                    version,
                    committed: false,
                })
            }
            Claim::Held { holder, expires_at } => {
                let mut e = ApiError::new(
                    409,
                    "StepInProgress",
                    format!(
                        "step {id}:{version} is being run by {holder}; nothing was run or \
                         applied here — wait for its result (GET …/wait) and try again"
                    ),
                );
                e.current = self.describe(id).ok().or_else(|| {
                    Some(json!({"id": id, "status": "creating", "lease_expires_at": expires_at}))
                });
                Err(e)
            }
            Claim::Stale { current: None } => Err(ApiError::new(
                404,
                "NotFound",
                format!("no instance with id {id}"),
            )),
            Claim::Stale { current: Some(v) } => {
                let mut e = ApiError::new(
                    409,
                    "VersionConflict",
                    format!("instance {id} is at version {v}, not {version}; nothing was applied"),
                );
                e.current = self.describe(id).ok();
                Err(e)
            }
        }
    }

    /// A fresh runtime for running `step`: output to `out`, the step id
    /// bound to [`STEP_GLOBAL`] and sent with model calls.
    pub(super) fn step_runtime(&self, out: &Captured, step: &Step<'_>) -> Runtime {
        self.runtime_for_key(out, &step.key())
    }

    /// [`Engine::step_runtime`] for the first run of an instance under a
    /// fresh random id, which needs no claim (no other request knows it).
    pub(super) fn unclaimed_step_runtime(&self, out: &Captured, id: &str) -> Runtime {
        self.runtime_for_key(out, &format!("{id}:0"))
    }

    fn runtime_for_key(&self, out: &Captured, key: &str) -> Runtime {
        let mut rt = self.program.runtime_for_step(out, Some(key));
        // Bound before a restore, so it replaces the snapshot's value.
        let _ = rt.set_global(STEP_GLOBAL, key);
        rt
    }

    /// Points a runtime kept from an earlier step of its instance (see
    /// `hot`) at `out` and at `step`, as [`Engine::step_runtime`] makes a
    /// fresh one.
    pub(super) fn bind_step(&self, rt: &mut Runtime, out: &Captured, step: &Step<'_>) {
        let key = step.key();
        super::program::Program::bind(rt, out, Some(&key));
        let _ = rt.set_global(STEP_GLOBAL, key.as_str());
    }
}
