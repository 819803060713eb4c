//! Deadlines of questions: `ask_human(question, seconds)` inside an
//! agent's body pauses the agent (kind `ask_human`, its pause reason the
//! question, as without a timeout) and records when the question
//! expires. The deadline is saved state, so a snapshot carries it; a host
//! (the CLI, `sense serve`) that finds it passed resumes the agent with
//! `nil`, which is what the call then returns.
//!
//! Every `ask_human` call inside an agent sets or clears its agent's
//! entry, and an entry counts only while its agent is paused in
//! `ask_human`: an entry left behind by an answered question is never
//! read, and the next question replaces it.

use crate::status::PauseKind;
use crate::{AgentId, Runtime};
use sense_eval::heap::ObjRef;
use sense_eval::vm::SavedState;
use sense_eval::{EvalError, EvalResult, Value, Vm};
use std::collections::BTreeMap;

/// The deadline (Unix seconds) of each agent's current question, by the
/// agent's heap slot.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Deadlines(BTreeMap<u32, f64>);

impl SavedState for Deadlines {
    const NAME: &'static str = "ask_deadlines";

    fn encode(&self) -> Result<Vec<u8>, String> {
        sense_eval::kind::to_bytes(self)
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        let d: Deadlines = sense_eval::kind::from_bytes(bytes)?;
        if d.0.values().any(|due| !due.is_finite()) {
            return Err("a question's deadline is not a finite time".into());
        }
        Ok(d)
    }

    fn is_unused(&self) -> bool {
        self.0.is_empty()
    }
}

/// Makes deadlines part of every snapshot.
pub(crate) fn install(vm: &mut Vm) {
    vm.set_ext_state(Deadlines::default());
    vm.register_saved_state::<Deadlines>();
}

/// Checks `ask_human`'s optional timeout (an Int or a Float: the
/// caller passes nothing else): seconds, non-negative and finite.
pub(crate) fn timeout_secs(v: Option<Value>) -> EvalResult<Option<f64>> {
    let secs = match v {
        Some(Value::Int(n)) => n as f64,
        Some(Value::Float(f)) => f,
        _ => return Ok(None),
    };
    // Far beyond any real deadline, and still exact as Unix milliseconds.
    const MAX_SECS: f64 = 1e12;
    if !(0.0..=MAX_SECS).contains(&secs) {
        return Err(EvalError::runtime(
            "ask_human()'s timeout must be a number of seconds from 0 to 1e12",
        ));
    }
    Ok(Some(secs))
}

/// Records (or, with `None`, clears) the deadline of `agent`'s question.
pub(crate) fn set(vm: &mut Vm, agent: ObjRef, due: Option<f64>) {
    if vm.ext_state_ref::<Deadlines>().is_none() {
        vm.set_ext_state(Deadlines::default());
    }
    if let Some(d) = vm.ext_state_mut::<Deadlines>() {
        match due {
            Some(due) => d.0.insert(agent.0, due),
            None => d.0.remove(&agent.0),
        };
    }
}

/// The deadline (Unix seconds) of the question agent `id` is paused on,
/// if it was asked with a timeout.
pub fn ask_deadline(rt: &Runtime, id: AgentId) -> Option<f64> {
    if rt.pause_kind(id).ok()?? != PauseKind::AskHuman {
        return None;
    }
    rt.vm_ref()
        .ext_state_ref::<Deadlines>()?
        .0
        .get(&id.obj.0)
        .copied()
}

/// When agent `id` is to be resumed without anyone asking (Unix seconds):
/// the wake-up time of its `time.sleep` timer or the deadline of its
/// question; `None` when it waits for nobody's clock.
pub fn wake_at(rt: &Runtime, id: AgentId) -> Option<f64> {
    crate::stdlib::timer_due(rt, id).or_else(|| ask_deadline(rt, id))
}

#[cfg(test)]
mod tests {
    use super::{ask_deadline, wake_at};
    use crate::{HostValue, Runtime, State};

    const PROGRAM: &str =
        "agent a:\n    x = ask_human(\"q\", 60)\n    y = ask_human(\"again\")\n    print(x, y)\n";

    #[test]
    fn a_deadline_survives_a_snapshot_and_ends_with_its_question() {
        let mut rt = Runtime::new();
        rt.run_source("d.sns", PROGRAM).unwrap();
        let a = rt.agent("a").unwrap();
        rt.set_subject(Some(a));
        let before = sense_eval::stdlib::unix_now();
        assert!(matches!(rt.start(a), Ok(State::Paused { .. })));
        let due = ask_deadline(&rt, a).unwrap();
        assert!((due - before - 60.0).abs() < 5.0, "{due} vs {before}");
        assert_eq!(wake_at(&rt, a), Some(due));

        let bytes = rt.snapshot().unwrap();
        let mut back = Runtime::new();
        back.restore_snapshot(&bytes).unwrap();
        let a = back.subject().unwrap();
        assert_eq!(ask_deadline(&back, a), Some(due));
        // The next question has no deadline: the old one is gone.
        let next = back.resume(a, HostValue::Nil).unwrap();
        assert!(matches!(next, State::Paused { .. }));
        assert_eq!(ask_deadline(&back, a), None);
        assert_eq!(wake_at(&back, a), None);
    }
}
