//! Durable timers and deadlines in `sense serve`. An instance paused in
//! `time.sleep(seconds)`, or in `ask_human(question, seconds)`, is stored
//! with its wake-up time (`wake_at`, indexed). Every process runs one
//! waker thread that claims due instances ([`Store::claim_due`]: an
//! atomic update, `FOR UPDATE SKIP LOCKED` on PostgreSQL, so across a
//! fleet each wake-up is taken by one process) and resumes each with
//! `nil` — what `time.sleep` and an expired `ask_human` return. The
//! resume commits like any other (only over the version claimed), so an
//! answer that got in first wins and the wake-up does nothing.
//!
//! A claim is held for [`CLAIM_HOLD_MS`]; a process killed after claiming
//! leaves the wake-up to be claimed again by another when that passes.

use super::engine::{ApiError, Engine, record_of};
use super::program::Captured;
use sense_agents::{HostValue, Runtime, deadline};
use sense_store::{Due, Status, Summary};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// How long a claimed wake-up is held by its claimer.
pub const CLAIM_HOLD_MS: i64 = 10_000;
/// Wake-ups claimed at once (and left to others' takeover if this
/// process dies before running them all).
const BATCH: u32 = 16;
/// How often the store is asked for due instances when none was due:
/// the bound on the wake-up latency (plus the run itself).
const SCAN_EVERY: Duration = Duration::from_millis(100);
/// The pause after the store failed, before trying again.
const AFTER_FAILURE: Duration = Duration::from_secs(1);

/// When the runtime's subject is to be woken (Unix milliseconds): its
/// timer, or the deadline of its question.
pub fn wake_at_ms(rt: &Runtime) -> Option<i64> {
    let due = deadline::wake_at(rt, rt.subject()?)?;
    Some((due * 1000.0).ceil().clamp(0.0, 1e15) as i64)
}

/// Unix milliseconds now.
fn now_ms() -> i64 {
    (sense_eval::stdlib::unix_now() * 1000.0) as i64
}

/// An answer to a question whose deadline has passed is refused: the
/// question's answer is `nil`, given by the waker (or already given).
pub fn refuse_late_answer(s: &Summary) -> Result<(), ApiError> {
    match s.wake_at {
        Some(due) if s.pause_kind.as_deref() == Some("ask_human") && due <= now_ms() => {
            Err(ApiError::new(
                409,
                "DeadlinePassed",
                format!(
                    "the question's deadline passed {} ms ago: the agent resumes with nil; \
                     nothing was applied",
                    now_ms() - due
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// Starts the waker thread.
pub fn serve(engine: Arc<Engine>) {
    std::thread::Builder::new()
        .name("sense-serve-timers".into())
        .spawn(move || run(&engine))
        .ok();
}

fn run(engine: &Engine) {
    loop {
        // A read first: claiming is a write (on SQLite it takes the
        // file's write lock), and nothing is due most of the time.
        match engine.store.next_wake() {
            Ok(Some(due)) if due <= now_ms() => {}
            Ok(_) => {
                std::thread::sleep(SCAN_EVERY);
                continue;
            }
            Err(_) => {
                std::thread::sleep(AFTER_FAILURE);
                continue;
            }
        }
        match engine.store.claim_due(now_ms(), CLAIM_HOLD_MS, BATCH) {
            Ok(due) => {
                let full = due.len() as u32 == BATCH;
                for d in &due {
                    // A failure leaves the instance as it was; its claim
                    // runs out and the wake-up is tried again.
                    let _ = wake(engine, d);
                }
                if !full {
                    std::thread::sleep(SCAN_EVERY);
                }
            }
            Err(_) => std::thread::sleep(AFTER_FAILURE),
        }
    }
}

/// Resumes a claimed instance with `nil`, if it is still as claimed.
fn wake(engine: &Engine, d: &Due) -> Result<(), ApiError> {
    let Some(inst) = engine.store.load(&d.id)? else {
        return Ok(());
    };
    let s = &inst.summary;
    if s.version != d.version || s.status != Status::Paused || s.wake_at != Some(d.wake_at) {
        return Ok(());
    }
    // One runner per step: a wake-up claims the step like an answer, so
    // an answer racing the timer and the wake-up never both run.
    let step = engine.claim_step(&d.id, s.version)?;
    let out = Captured::default();
    let mut rt = engine.restore_into(engine.step_runtime(&out, &step), &inst.snapshot)?;
    let Some(agent) = rt.subject() else {
        return Ok(());
    };
    let handle = rt
        .pause_handle(agent)
        .map_err(|e| ApiError::new(500, "InternalError", e.rendered()))?;
    if s.pause_requested {
        handle.request();
    }
    let by = if s.pause_kind.as_deref() == Some("timer") {
        "timer"
    } else {
        "deadline"
    };
    let result = {
        let _run = engine.running.enter(&d.id, handle);
        rt.resume(agent, HostValue::Nil)
    };
    let record = record_of(&rt, result, &s.output, &out)?;
    let detail = json!({
        "by": by,
        "due": d.wake_at,
        "late_ms": now_ms() - d.wake_at,
        "from_version": s.version,
    });
    engine.commit(&d.id, s.version, &record, &engine.event("woken", detail))?;
    step.committed();
    Ok(())
}
