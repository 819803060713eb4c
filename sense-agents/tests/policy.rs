//! A denied capability never runs a tool body or commits an action, on
//! every path into it: a direct call, inside a tool, inside an action,
//! inside an agent, after a resume, and from a model's tool request.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use common::runtime;
use sense_agents::{
    ChatMessage, HostValue, ModelProvider, ModelResponse, ModelTurn, State, ToolCall, ToolSpec,
};
use std::sync::{Arc, Mutex};

const TOOLS: &str = r#"
tool secret() requires vault.read "reads the vault":
    print("BODY RAN")
    return "s3cret"
irreversible action wipe() requires vault.write:
    print("COMMIT RAN")
"#;

fn assert_denied(program: &str) {
    let (mut rt, out) = runtime();
    let err = rt
        .run_source("p.sns", &format!("{TOOLS}{program}"))
        .unwrap_err();
    assert_eq!(err.class_name(), "SensePolicyError", "{err}");
    assert!(
        !out.lock().unwrap().contains("RAN"),
        "a denied body ran: {}",
        out.lock().unwrap()
    );
}

#[test]
fn direct_call() {
    assert_denied("policy: deny vault.read\nsecret()\n");
}

#[test]
fn inside_a_tool_declared_under_the_deny() {
    assert_denied(
        "policy: deny vault.read\ntool outer() \"wraps\":\n    return secret()\nouter()\n",
    );
}

#[test]
fn inside_an_action_body() {
    assert_denied(
        "policy: deny vault.read\nirreversible action use():\n    secret()\nu = use()\nu.verify()\nu.commit()\n",
    );
}

#[test]
fn commit_of_a_denied_action() {
    assert_denied("w = wipe()\nw.verify()\npolicy: deny vault.write\nw.commit()\n");
}

#[test]
fn inside_an_agent() {
    assert_denied("agent a:\n    policy: deny vault.read\n    secret()\nstart(a)\n");
}

#[test]
fn after_a_resume() {
    let (mut rt, out) = runtime();
    rt.run_source(
        "p.sns",
        &format!("{TOOLS}agent a:\n    x = pause(\"before\")\n    policy: deny vault.read\n    secret()\n"),
    )
    .unwrap();
    let a = rt.agent("a").unwrap();
    assert!(matches!(rt.start(a).unwrap(), State::Paused { .. }));
    let err = rt.resume(a, HostValue::Nil).unwrap_err();
    assert_eq!(err.class_name(), "SensePolicyError");
    assert!(!out.lock().unwrap().contains("RAN"));
    let log = rt.audit_log();
    assert!(
        log.iter().any(|l| l.contains("tool 'secret' -> denied")),
        "{log:?}"
    );
}

/// A model that asks for `secret` once, then answers with what it saw.
struct Greedy {
    seen: Arc<Mutex<Vec<String>>>,
}

impl ModelProvider for Greedy {
    fn complete(&mut self, _: &str, prompt: &str) -> Result<ModelResponse, String> {
        Ok(ModelResponse {
            text: format!("echo {prompt}"),
            confidence: None,
        })
    }

    fn complete_with_tools(
        &mut self,
        _: &str,
        messages: &[ChatMessage],
        tools: &[ToolSpec],
    ) -> Result<ModelTurn, String> {
        assert_eq!(tools[0].name, "secret");
        assert_eq!(tools[0].description, "reads the vault");
        match messages.last() {
            Some(ChatMessage::ToolResults(results)) => {
                self.seen
                    .lock()
                    .unwrap()
                    .extend(results.iter().map(|(_, t)| t.clone()));
                Ok(ModelTurn::Answer("done".into()))
            }
            _ => Ok(ModelTurn::ToolCalls {
                text: String::new(),
                calls: vec![ToolCall {
                    id: "1".into(),
                    name: "secret".into(),
                    arguments: vec![],
                }],
            }),
        }
    }
}

#[test]
fn from_a_models_tool_request() {
    let (mut rt, out) = runtime();
    let seen = Arc::new(Mutex::new(Vec::new()));
    rt.register_provider(
        "greedy",
        Some("model.greedy"),
        "g-1",
        Greedy { seen: seen.clone() },
    );
    rt.run_source(
        "p.sns",
        &format!(
            "{TOOLS}model m = inference(\"greedy\")\nset delegation = m\npolicy: deny vault.read\nanswer = ask_with_tools(\"get it\", [secret])\nprint(answer)\n"
        ),
    )
    .unwrap();
    assert_eq!(*out.lock().unwrap(), "answer<?>(done)\n");
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.as_slice(),
        [
            "error: [line 10] tool 'secret' requires capability 'vault.read', which is denied by policy"
        ]
    );
    let log = rt.audit_log();
    assert!(
        log.iter().any(|l| l.contains("tool 'secret' -> denied")),
        "{log:?}"
    );
    assert!(
        log.iter().any(|l| l == "[line 10] model 'm' -> called"),
        "{log:?}"
    );
}

#[test]
fn allowed_model_tool_request_runs_the_body() {
    let (mut rt, out) = runtime();
    let seen = Arc::new(Mutex::new(Vec::new()));
    rt.register_provider("greedy", None, "g-1", Greedy { seen: seen.clone() });
    rt.run_source(
        "p.sns",
        &format!("{TOOLS}model m = inference(\"greedy\")\nset delegation = m\nprint(ask_with_tools(\"get it\", [secret]).value)\nprint(ask(\"hi\"))\n"),
    )
    .unwrap();
    assert_eq!(*out.lock().unwrap(), "BODY RAN\ndone\nanswer<?>(echo hi)\n");
    assert_eq!(seen.lock().unwrap().as_slice(), ["s3cret"]);
}

#[test]
fn a_model_denied_by_policy_is_never_asked() {
    let (mut rt, _) = runtime();
    let seen = Arc::new(Mutex::new(Vec::new()));
    rt.register_provider("greedy", Some("model.greedy"), "g-1", Greedy { seen });
    let err = rt
        .run_source(
            "p.sns",
            "model m = inference(\"greedy\")\npolicy: deny model.greedy\nm.ask(\"x\")\n",
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "SensePolicyError: [line 3] model 'm' requires capability 'model.greedy', which is denied by policy"
    );
}
