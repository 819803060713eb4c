//! `sense serve` and budgets that pause (issue 25): an instance over its
//! token budget is stored paused (kind `budget`) with its usage in the
//! instance's detail, and resuming it through the API with a new budget
//! makes the held-back model call exactly there.

use sense_testkit::serve::{Service, TempDir, create, id_of, resume};
use serde_json::json;

const PROGRAM: &str = r#"
model m = inference("mock", response_template: "ok: {prompt}", price_in: 1.0, price_out: 2.0)
set delegation = m
agent worker:
    a = ask("first question")
    b = ask("second question")
    print(b.value)
set_budget(worker, tokens: 5)
"#;

#[test]
fn a_budget_pause_is_stored_shown_and_resumed_with_a_new_budget() {
    let dir = TempDir::new("serve-budget");
    let program = dir.write("budget.sns", PROGRAM);
    let url = format!("sqlite:{}", dir.0.join("b.db").display());
    let svc = Service::start(env!("CARGO_BIN_EXE_sense"), &program, &url, &[]);
    let created = create(&svc, "worker");
    let id = id_of(&created);
    assert_eq!(created["status"], "paused", "{created}");
    assert_eq!(created["pause_kind"], "budget", "{created}");
    assert_eq!(
        created["pause_reason"],
        "token budget reached: 9 of 5 tokens spent (1 call, 9 tokens (4 in, 5 out), cost 0.000014)"
    );
    let (status, detail) = svc.call("GET", &format!("/api/instances/{id}"), None);
    assert_eq!(status, 200, "{detail}");
    let me = detail["agents"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["subject"] == true))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        me["usage"],
        json!({"calls": 1, "input_tokens": 4, "output_tokens": 5, "cached_tokens": 0,
               "cache_write_tokens": 0, "total_tokens": 9, "cost": 0.000014})
    );
    assert_eq!(me["budget"], json!({"tokens": 5, "cost": null}));

    // A value that is no budget is refused; the instance stays as it was.
    let (status, body) = resume(&svc, &id, json!("more"), Some(1));
    assert_ne!(status, 200, "{body}");
    let (status, body) = resume(&svc, &id, json!(100), Some(1));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "completed", "{body}");
    assert_eq!(body["output"], "ok: second question\n", "{body}");
}
