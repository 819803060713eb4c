//! Token usage and budgets that pause (issue 25) through the host API: a
//! provider that reports usage, a budget pause that survives a snapshot
//! and resumes exactly at the held-back call, budgets set by the host.
// Test code may unwrap and index (the workspace lints forbid it in library code).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use sense_agents::provider::{ModelProvider, ModelResponse};
use sense_agents::usage::Usage;
use sense_agents::{HostValue, PauseKind, Runtime, State};
use std::sync::{Arc, Mutex};

/// Answers with the prompt upper-cased and reports 100 input tokens
/// (40 of them cached) and 10 output tokens per call.
struct Metered {
    calls: Arc<Mutex<Vec<String>>>,
    last: Option<Usage>,
}

impl ModelProvider for Metered {
    fn complete(&mut self, _model: &str, prompt: &str) -> Result<ModelResponse, String> {
        self.calls.lock().unwrap().push(prompt.to_string());
        self.last = Some(Usage {
            input: 100,
            output: 10,
            cached: 40,
            cache_write: 0,
        });
        Ok(ModelResponse {
            text: prompt.to_uppercase(),
            confidence: None,
        })
    }

    fn take_usage(&mut self) -> Option<Usage> {
        self.last.take()
    }
}

const PROGRAM: &str = r#"
model m = inference("metered", price_in: 10.0, price_out: 100.0, price_cached: 1.0)
set delegation = m
agent writer:
    a = ask("one")
    b = ask("two")
    c = ask("three")
    return [a.value, b.value, c.value]
set_budget(writer, tokens: 200)
"#;

fn runtime(calls: &Arc<Mutex<Vec<String>>>) -> (Runtime, Arc<Mutex<String>>) {
    let mut rt = Runtime::new();
    let out = Arc::new(Mutex::new(String::new()));
    let sink = out.clone();
    rt.set_output(move |s| sink.lock().unwrap().push_str(s));
    rt.register_provider(
        "metered",
        Some("model.metered"),
        "meter-1",
        Metered {
            calls: calls.clone(),
            last: None,
        },
    );
    (rt, out)
}

/// The value of a Sense expression in `rt`'s globals.
fn eval(rt: &mut Runtime, expr: &str) -> HostValue {
    rt.run_source("eval.sns", &format!("seen = {expr}\n"))
        .unwrap();
    rt.global("seen").unwrap()
}

#[test]
fn a_budget_pause_survives_a_snapshot_and_resumes_at_the_call() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let (mut rt, _) = runtime(&calls);
    rt.run_source("budget.sns", PROGRAM).unwrap();
    let a = rt.agent("writer").unwrap();
    let State::Paused { reason, kind } = rt.start(a).unwrap() else {
        panic!("the third call waits for a budget");
    };
    assert_eq!(kind, PauseKind::Budget);
    assert_eq!(
        reason.as_str(),
        Some(
            "token budget reached: 220 of 200 tokens spent \
             (2 calls, 220 tokens (200 in, 20 out, 80 cached), cost 0.00328)"
        )
    );
    assert_eq!(*calls.lock().unwrap(), ["one", "two"]);
    let spent = rt.agent_usage(a).unwrap();
    assert_eq!(
        (spent.calls, spent.tokens.total(), spent.tokens.cached),
        (2, 220, 80)
    );
    let bytes = rt.snapshot().unwrap();
    drop(rt);

    let calls = Arc::new(Mutex::new(Vec::new()));
    let (mut rt, _) = runtime(&calls);
    rt.restore_snapshot(&bytes).unwrap();
    let a = rt.agent("writer").unwrap();
    assert_eq!(rt.pause_kind(a).unwrap(), Some(PauseKind::Budget));
    assert_eq!(rt.agent_budget(a).unwrap(), (Some(200), None));
    // A value that is no budget is refused; the agent stays paused.
    assert!(rt.resume(a, "more please").is_err());
    assert_eq!(rt.pause_kind(a).unwrap(), Some(PauseKind::Budget));
    // Nil keeps the budget: still over it, still paused, no call made.
    let still = rt.resume(a, HostValue::Nil).unwrap();
    assert!(matches!(
        still,
        State::Paused {
            kind: PauseKind::Budget,
            ..
        }
    ));
    assert!(calls.lock().unwrap().is_empty());
    // The host raises the budget, then resumes: the held-back call is made.
    rt.set_agent_budget(a, Some(1000), None).unwrap();
    assert_eq!(rt.resume(a, HostValue::Nil).unwrap(), State::Completed);
    assert_eq!(*calls.lock().unwrap(), ["three"]);
    assert_eq!(
        eval(&mut rt, "writer.usage[\"total_tokens\"]"),
        HostValue::Int(330)
    );
    assert_eq!(eval(&mut rt, "m.usage[\"calls\"]"), HostValue::Int(3));
}

#[test]
fn resume_with_a_new_cost_budget_and_set_budget_errors() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let (mut rt, _) = runtime(&calls);
    rt.run_source(
        "cost.sns",
        r#"
model m = inference("metered", price_in: 10.0, price_out: 100.0)
set delegation = m
agent w:
    ask("one")
    ask("two")
    return "done"
set_budget(w, cost: 0.001)
"#,
    )
    .unwrap();
    let a = rt.agent("w").unwrap();
    let State::Paused { reason, .. } = rt.start(a).unwrap() else {
        panic!("paused on its cost budget");
    };
    assert!(
        reason
            .as_str()
            .unwrap()
            .starts_with("cost budget reached: 0.002 of 0.001 spent"),
        "{reason:?}"
    );
    assert_eq!(rt.resume(a, 0.01).unwrap(), State::Completed);
    assert_eq!(rt.agent_budget(a).unwrap(), (None, Some(0.01)));
    for (src, msg) in [
        (
            "set_budget(w)",
            "set_budget() expects (agent, tokens: Int, cost: Float)",
        ),
        (
            "set_budget(3, tokens: 1)",
            "set_budget() expects an Agent, got Int",
        ),
        (
            "set_budget(w, tokens: -1)",
            "a tokens budget must be a number of at least 0",
        ),
        (
            "set_budget(w, pennies: 1)",
            "set_budget(): unknown option pennies",
        ),
    ] {
        let err = rt.run_source("bad.sns", src).unwrap_err().to_string();
        assert!(err.contains(msg), "{src}: {err}");
    }
}
