//! `ask(prompt, on_text: f)`: streamed answers. Against loopback servers
//! that send the documented event streams of both APIs (OpenAI
//! `chat.completion.chunk` deltas ending in `[DONE]`; Anthropic's
//! `message_start` … `content_block_delta` / `text_delta` …
//! `message_stop`), the pieces reach `f` in order and the Answer is their
//! whole; refusals, errors sent mid-stream and streams cut short are
//! errors. A pause requested while an answer streams takes effect after
//! it.

use sense::agents::provider::{ModelOptions, ModelProvider, ModelResponse};
use sense::agents::{HostValue, PauseHandle, PauseKind, Runtime, State};
use sense_testkit::loopback::{Loopback, Reply, program, text};
use serde_json::{Value as Json, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const KEY: &str = "sk-test-stream-0123456789";

/// An event stream as a loopback reply.
fn sse(events: &[(Option<&str>, Json)]) -> Reply {
    let mut body = String::new();
    for (name, data) in events {
        if let Some(n) = name {
            body.push_str(&format!("event: {n}\n"));
        }
        body.push_str(&format!("data: {data}\n\n"));
    }
    Reply {
        status: 200,
        headers: vec![("Cache-Control", "no-cache".into())],
        body,
        delay: Duration::ZERO,
    }
}

/// One OpenAI chunk with `delta` and `finish_reason`.
fn chunk(delta: Json, finish: Option<&str>) -> (Option<&'static str>, Json) {
    (
        None,
        json!({"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1,
               "model": "gpt-4o", "system_fingerprint": "fp_1",
               "choices": [{"index": 0, "delta": delta, "logprobs": null,
                            "finish_reason": finish}]}),
    )
}

/// OpenAI's stream of `pieces`, as its API sends it when asked with
/// `stream_options.include_usage`: every chunk's `usage` is null but the
/// last one's, which has no choices.
fn openai_stream(pieces: &[&str]) -> Reply {
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    for p in pieces {
        events.push(chunk(json!({"content": p}), None));
    }
    events.push(chunk(json!({}), Some("stop")));
    for (_, e) in &mut events {
        e["usage"] = Json::Null;
    }
    events.push((
        None,
        json!({"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1,
               "model": "gpt-4o", "system_fingerprint": "fp_1", "choices": [],
               "usage": {"prompt_tokens": 900, "completion_tokens": 7, "total_tokens": 907,
                         "prompt_tokens_details": {"cached_tokens": 512}}}),
    ));
    let mut reply = sse(&events);
    reply.body.push_str("data: [DONE]\n\n");
    reply
}

/// Anthropic's stream of `pieces`, as its API sends it.
fn anthropic_stream(pieces: &[&str], stop_reason: &str) -> Reply {
    let mut events = vec![
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                   "role": "assistant", "model": "claude-sonnet-5", "content": [],
                   "stop_reason": null, "stop_sequence": null,
                   "usage": {"input_tokens": 10, "output_tokens": 1,
                             "cache_read_input_tokens": 300,
                             "cache_creation_input_tokens": 40}}}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0,
                   "content_block": {"type": "text", "text": ""}}),
        ),
        (Some("ping"), json!({"type": "ping"})),
    ];
    for p in pieces {
        events.push((
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "text_delta", "text": p}}),
        ));
    }
    events.extend([
        (
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            Some("message_delta"),
            json!({"type": "message_delta",
                   "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                   "usage": {"output_tokens": 12}}),
        ),
        (Some("message_stop"), json!({"type": "message_stop"})),
    ]);
    sse(&events)
}

fn sense(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    sense_testkit::run_sense!(args, env)
}

/// `sense run` of `body` after a model of `provider` on `server`.
fn run(provider: &str, server: &Loopback, body: &str) -> (String, String, bool) {
    let source = format!(
        "model m = inference({provider:?}, base_url: {url:?}, api_key_env: \"TEST_KEY\")\n\
         set delegation = m\n{body}",
        url = if provider == "openai" {
            format!("{}/v1", server.url)
        } else {
            server.url.clone()
        }
    );
    // One file per run: the tests run at once.
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = program(&format!("stream_{provider}_{n}"), &source);
    let out = sense(
        &["run", file.to_str().expect("utf-8 path")],
        &[("TEST_KEY", KEY)],
    );
    (text(&out.stdout), text(&out.stderr), out.status.success())
}

const SHOW: &str = "pieces = []\ndef show(t):\n    pieces.push(t)\n    print(\"[\" + t + \"]\")\n";

#[test]
fn openai_deltas_reach_on_text_in_order() {
    let server = Loopback::start(vec![openai_stream(&["Hel", "lo, ", "world"])]);
    let body =
        format!("{SHOW}a = ask(\"Say hello\", on_text: show)\nprint(a.value, len(pieces))\n");
    let (out, err, ok) = run("openai", &server, &body);
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "[Hel]\n[lo, ]\n[world]\nHello, world 3\n");
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(seen[0].body["stream"], true);
    assert_eq!(
        seen[0].body["messages"],
        json!([{"role": "user", "content": "Say hello"}])
    );
    assert_eq!(seen[0].header("accept"), Some("text/event-stream"));
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}

#[test]
fn anthropic_text_deltas_reach_on_text_in_order() {
    let server = Loopback::start(vec![anthropic_stream(&["Bon", "jour"], "end_turn")]);
    let body = format!("{SHOW}a = ask(\"Say hello\", on_text: show)\nprint(a.value)\n");
    let (out, err, ok) = run("anthropic", &server, &body);
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "[Bon]\n[jour]\nBonjour\n");
    let seen = server.seen();
    assert_eq!(seen[0].path, "/v1/messages");
    assert_eq!(seen[0].body["stream"], true);
    assert_eq!(seen[0].body["max_tokens"], 1024);
    assert_eq!(seen[0].header("x-api-key"), Some(KEY));
}

const USAGE: &str = "u = m.usage\nprint(u[\"calls\"], u[\"input_tokens\"], u[\"output_tokens\"], u[\"cached_tokens\"])\n";

#[test]
fn streamed_answers_report_their_usage() {
    let server = Loopback::start(vec![openai_stream(&["a", "b"])]);
    let body = format!("ask(\"q\", on_text: print)\n{USAGE}");
    let (out, err, ok) = run("openai", &server, &body);
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "a\nb\n1 900 7 512\n");
    assert_eq!(
        server.seen()[0].body["stream_options"],
        json!({"include_usage": true})
    );
    // Input and cache counts from `message_start`, the output count from
    // `message_delta`.
    let server = Loopback::start(vec![anthropic_stream(&["c"], "end_turn")]);
    let (out, err, ok) = run("anthropic", &server, &body);
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "c\n1 350 12 300\n");
    assert_eq!(server.seen()[0].body.get("stream_options"), None);
}

#[test]
fn refusals_errors_and_cut_streams_are_errors() {
    let mut refusal = sse(&[
        chunk(
            json!({"role": "assistant", "content": null, "refusal": ""}),
            None,
        ),
        chunk(json!({"refusal": "I can't help "}), None),
        chunk(json!({"refusal": "with that."}), None),
        chunk(json!({}), Some("stop")),
    ]);
    refusal.body.push_str("data: [DONE]\n\n");
    let cut = sse(&[chunk(json!({"content": "Half"}), None)]);
    let overloaded = sse(&[
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {"id": "m", "content": []}}),
        ),
        (
            Some("error"),
            json!({"type": "error",
                   "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
    ]);
    let cases = [
        (
            "openai",
            refusal,
            "the model refused: I can't help with that.",
        ),
        (
            "openai",
            cut,
            "APIConnectionError: the stream ended before the answer did",
        ),
        (
            "anthropic",
            overloaded,
            "APIError: Overloaded (overloaded_error)",
        ),
        (
            "anthropic",
            anthropic_stream(&[], "refusal"),
            "the model refused to answer (stop_reason: refusal)",
        ),
    ];
    for (provider, reply, want) in cases {
        let server = Loopback::start(vec![reply]);
        let (out, err, ok) = run(provider, &server, "ask(\"q\", on_text: print)\n");
        assert!(!ok, "{provider} {want}: {out}");
        assert_eq!(
            err.lines().next().unwrap_or(""),
            format!("SenseRuntimeError: [line 3] model 'm' failed: {want}")
        );
    }
}

#[test]
fn an_error_in_on_text_stops_the_answer() {
    let server = Loopback::start(vec![openai_stream(&["one ", "two"])]);
    let body = "def boom(t):\n    raise \"no thanks: \" + t\n\
                try:\n    ask(\"q\", on_text: boom)\nexcept SenseError as e:\n    print(\"caught\", e)\n";
    let (out, err, ok) = run("openai", &server, body);
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "caught SenseRuntimeError: [line 4] no thanks: one \n");
}

/// A runtime whose printed output collects in the returned string.
fn capturing_runtime() -> (Runtime, Arc<Mutex<String>>) {
    let mut rt = Runtime::new();
    let out = Arc::new(Mutex::new(String::new()));
    let sink = out.clone();
    rt.set_output(move |s| sink.lock().expect("output").push_str(s));
    (rt, out)
}

#[test]
fn mock_streams_word_by_word_and_options_are_checked() {
    let (mut rt, out) = capturing_runtime();
    rt.run_source(
        "mock.sns",
        "model m = inference(\"mock\")\nset delegation = m\n\
         seen = []\ndef count(t):\n    seen.push(t)\n\
         a = ask(\"two words\", on_text: count)\nprint(a.value, len(seen), seen[2])\n",
    )
    .expect("runs");
    assert_eq!(
        *out.lock().expect("output"),
        "(mock reasoning about: two words) 5 about: \n"
    );
    let err = rt
        .run_source("bad.sns", "ask(\"q\", colour: 1)\n")
        .expect_err("an unknown option");
    assert!(
        err.to_string()
            .contains("'ask' does not accept labeled arguments (colour)"),
        "{err}"
    );
    let err = rt
        .run_source(
            "structured.sns",
            "x: Answer<Map> = ask(\"q\", on_text: print)\n",
        )
        .expect_err("structured and streamed");
    assert!(
        err.to_string()
            .contains("on_text: streams text, not a structured answer"),
        "{err}"
    );
}

/// A provider that streams three pieces and asks for the agent's pause
/// after the first, as a host does from another thread while an answer
/// arrives.
struct PausingProvider {
    handle: Arc<Mutex<Option<PauseHandle>>>,
}

impl ModelProvider for PausingProvider {
    fn complete(&mut self, _model: &str, prompt: &str) -> Result<ModelResponse, String> {
        Ok(ModelResponse {
            text: prompt.to_string(),
            confidence: None,
        })
    }

    fn complete_streamed(
        &mut self,
        _model: &str,
        _options: &ModelOptions,
        _prompt: &str,
        on_text: &mut dyn FnMut(&str) -> Result<(), String>,
    ) -> Result<ModelResponse, String> {
        for (i, piece) in ["a", "b", "c"].into_iter().enumerate() {
            on_text(piece)?;
            if i == 0 {
                let h = self.handle.lock().map_err(|e| e.to_string())?;
                assert!(h.as_ref().is_some_and(PauseHandle::request));
            }
        }
        Ok(ModelResponse {
            text: "abc".into(),
            confidence: None,
        })
    }
}

#[test]
fn a_pause_requested_during_a_streamed_answer_takes_effect_after_it() {
    let (mut rt, out) = capturing_runtime();
    let handle = Arc::new(Mutex::new(None));
    rt.register_provider(
        "pausing",
        None,
        "p1",
        PausingProvider {
            handle: handle.clone(),
        },
    );
    rt.run_source(
        "agent.sns",
        "agent writer:\n    model m = inference(\"pausing\")\n    set delegation = m\n    \
         def show(t):\n        print(\"piece \" + t)\n    \
         a = ask(\"q\", on_text: show)\n    print(\"answer \" + a.value)\n",
    )
    .expect("declares");
    let writer = rt.agent("writer").expect("the agent");
    *handle.lock().expect("handle") = Some(rt.pause_handle(writer).expect("a handle"));
    let state = rt.start(writer).expect("starts");
    assert_eq!(
        state,
        State::Paused {
            reason: HostValue::Nil,
            kind: PauseKind::HostRequest
        }
    );
    // Every piece arrived before the pause, and the answer is kept.
    assert_eq!(*out.lock().expect("output"), "piece a\npiece b\npiece c\n");
    assert_eq!(
        rt.resume(writer, "go on").expect("resumes"),
        State::Completed
    );
    assert_eq!(
        *out.lock().expect("output"),
        "piece a\npiece b\npiece c\nanswer abc\n"
    );
}
