//! `inference("openai")` and `inference("anthropic")` against loopback
//! servers that answer as the official Chat Completions and Messages APIs
//! document: text answers, tool-call turns, errors, 429 with Retry-After,
//! timeouts and malformed bodies; and what the client sends.

use sense_testkit::loopback::{
    ANTHROPIC_KEY, Loopback, OPENAI_KEY, Reply, anthropic_env, openai_env, outcome, program, text,
};
use serde_json::json;
use std::time::{Duration, Instant};

fn openai_text(content: &str) -> serde_json::Value {
    json!({
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        "object": "chat.completion",
        "created": 1741569952,
        "model": "gpt-4o-2024-08-06",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content, "refusal": null, "annotations": []},
            "logprobs": null,
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29},
        "service_tier": "default"
    })
}

fn openai_tool_call(id: &str, name: &str, arguments: &str) -> serde_json::Value {
    json!({
        "id": "chatcmpl-abc123",
        "object": "chat.completion",
        "created": 1699896916,
        "model": "gpt-4o-mini",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": null,
                "tool_calls": [{
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments}
                }]
            },
            "logprobs": null,
            "finish_reason": "tool_calls"
        }],
        "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99}
    })
}

fn anthropic_message(content: serde_json::Value, stop: &str) -> serde_json::Value {
    json!({
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "content": content,
        "model": "claude-sonnet-5",
        "stop_reason": stop,
        "stop_sequence": null,
        "usage": {"input_tokens": 12, "output_tokens": 6}
    })
}

fn run(file: &std::path::Path, env: &[(&str, String)]) -> (String, String, bool) {
    outcome(&sense(&["run", file.to_str().expect("utf-8 path")], env))
}

#[test]
fn openai_text_answer_and_request_shape() {
    let server = Loopback::start(vec![Reply::json(200, openai_text("Hello there!"))]);
    let file = program(
        "openai_text",
        r#"model m = inference("openai", "gpt-4o-mini", temperature: 0.2, max_tokens: 50)
set delegation = m
a = ask("Say hello")
print(a)
print(a.value)
print(a.confidence)
print(a.source)
print(audit_log())
"#,
    );
    let (out, err, ok) = run(&file, &openai_env(&server));
    assert!(ok, "stderr: {err}");
    assert_eq!(
        out,
        "answer<?>(Hello there!)\nHello there!\nnil\nm\n[[line 3] model 'm' -> called]\n"
    );
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    let r = &seen[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(
        r.header("authorization"),
        Some(format!("Bearer {OPENAI_KEY}").as_str())
    );
    assert!(
        r.header("content-type")
            .unwrap_or("")
            .starts_with("application/json")
    );
    assert_eq!(
        r.body,
        json!({
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "Say hello"}],
            "temperature": 0.2,
            "max_completion_tokens": 50
        })
    );
}

#[test]
fn openai_tool_call_turns() {
    let server = Loopback::start(vec![
        Reply::json(
            200,
            openai_tool_call("call_abc123", "add", "{\"a\": 2, \"b\": 3}"),
        ),
        Reply::json(200, openai_text("2 + 3 = 5")),
    ]);
    let file = program(
        "openai_tools",
        r#"tool add(a: Int, b: Int) returns Int "Adds two integers":
    return a + b
model gpt = inference("openai")
set delegation = gpt
print(ask_with_tools("What is 2 + 3?", [add]))
print(audit_log())
"#,
    );
    let (out, err, ok) = run(&file, &openai_env(&server));
    assert!(ok, "stderr: {err}");
    assert_eq!(
        out,
        "answer<?>(2 + 3 = 5)\n[[line 5] tool 'add' -> called, [line 5] model 'gpt' -> called]\n"
    );
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    let first = &seen[0].body;
    assert_eq!(first["model"], "gpt-4o");
    assert!(first.get("temperature").is_none());
    assert!(first.get("max_completion_tokens").is_none());
    assert_eq!(
        first["tools"],
        json!([{
            "type": "function",
            "function": {
                "name": "add",
                "description": "Adds two integers",
                "parameters": {
                    "type": "object",
                    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                    "required": ["a", "b"]
                }
            }
        }])
    );
    let second = &seen[1].body;
    let messages = second["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[0],
        json!({"role": "user", "content": "What is 2 + 3?"})
    );
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["tool_calls"][0]["id"], "call_abc123");
    assert_eq!(messages[1]["tool_calls"][0]["function"]["name"], "add");
    let args: serde_json::Value = serde_json::from_str(
        messages[1]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .expect("arguments are a JSON string"),
    )
    .expect("arguments parse");
    assert_eq!(args, json!({"a": 2, "b": 3}));
    assert_eq!(
        messages[2],
        json!({"role": "tool", "tool_call_id": "call_abc123", "content": "5"})
    );
}

#[test]
fn denied_tool_is_fed_back_as_error_text() {
    let server = Loopback::start(vec![
        Reply::json(200, openai_tool_call("call_1", "wipe", "{}")),
        Reply::json(200, openai_text("I could not wipe it.")),
    ]);
    let file = program(
        "openai_denied",
        r#"tool wipe() requires disk.write "Erases the disk":
    return "wiped"
policy: deny disk.write
model gpt = inference("openai")
set delegation = gpt
print(ask_with_tools("wipe it", [wipe]).value)
"#,
    );
    let (out, err, ok) = run(&file, &openai_env(&server));
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "I could not wipe it.\n");
    let seen = server.seen();
    assert_eq!(
        seen[1].body["messages"][2]["content"],
        "error: [line 6] tool 'wipe' requires capability 'disk.write', which is denied by policy"
    );
}

#[test]
fn openai_401_is_reported_without_the_key() {
    let server = Loopback::start(vec![Reply::json(
        401,
        json!({"error": {
            "message": format!("Incorrect API key provided: {OPENAI_KEY}."),
            "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}),
    )]);
    let file = program(
        "openai_401",
        "model m = inference(\"openai\")\nprint(m.ask(\"hi\"))\n",
    );
    let (out, err, ok) = run(&file, &openai_env(&server));
    assert!(!ok);
    assert_eq!(out, "");
    let first = err.lines().next().unwrap_or("");
    assert_eq!(
        first,
        "SenseRuntimeError: [line 2] model 'm' failed: AuthenticationError: Error code: 401 - \
         Incorrect API key provided: [redacted]. (invalid_request_error)"
    );
    assert!(!err.contains(OPENAI_KEY));
    assert_eq!(server.seen().len(), 1, "a 401 is not retried");
}

#[test]
fn openai_429_waits_for_retry_after() {
    let server = Loopback::start(vec![
        Reply::json(
            429,
            json!({"error": {"message": "Rate limit reached for gpt-4o", "type": "requests",
                             "param": null, "code": "rate_limit_exceeded"}}),
        )
        .header("Retry-After", "1"),
        Reply::json(200, openai_text("finally")),
    ]);
    let file = program(
        "openai_429",
        "model m = inference(\"openai\")\nprint(m.ask(\"hi\").value)\n",
    );
    let started = Instant::now();
    let (out, err, ok) = run(&file, &openai_env(&server));
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "finally\n");
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "Retry-After honoured"
    );
    assert_eq!(server.seen().len(), 2);
}

#[test]
fn server_errors_are_retried_then_reported() {
    let overloaded = || {
        Reply::json(
            529,
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        )
        .header("retry-after-ms", "10")
    };
    let server = Loopback::start(vec![overloaded(), overloaded(), overloaded()]);
    let file = program(
        "anthropic_529",
        "model m = inference(\"anthropic\")\nprint(m.ask(\"hi\").value)\n",
    );
    let mut env = anthropic_env(&server);
    env.push(("SENSE_HTTP_RETRIES", "2".to_string()));
    let (_, err, ok) = run(&file, &env);
    assert!(!ok);
    assert_eq!(
        err.lines().next().unwrap_or(""),
        "SenseRuntimeError: [line 2] model 'm' failed: InternalServerError: \
         Error code: 529 - Overloaded (overloaded_error)"
    );
    assert_eq!(server.seen().len(), 3, "first try and two retries");
}

#[test]
fn timeouts_are_configurable() {
    let server = Loopback::start(vec![
        Reply::json(200, openai_text("too late")).delayed(Duration::from_secs(6)),
    ]);
    let file = program(
        "openai_timeout",
        "model m = inference(\"openai\")\nprint(m.ask(\"hi\"))\n",
    );
    let mut env = openai_env(&server);
    env.push(("SENSE_HTTP_TIMEOUT", "0.5".to_string()));
    env.push(("SENSE_HTTP_RETRIES", "0".to_string()));
    let started = Instant::now();
    let (_, err, ok) = run(&file, &env);
    assert!(!ok);
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "the client gave up first"
    );
    assert_eq!(
        err.lines().next().unwrap_or(""),
        "SenseRuntimeError: [line 2] model 'm' failed: APITimeoutError: Request timed out."
    );
}

#[test]
fn malformed_answers_are_reported() {
    let file = program(
        "openai_malformed",
        "model m = inference(\"openai\")\nm.ask(\"a\")\n",
    );
    let html = Reply {
        status: 200,
        headers: Vec::new(),
        body: "<html>502 Bad Gateway</html>".into(),
        delay: Duration::ZERO,
    };
    let no_choices = Reply::json(
        200,
        json!({"id": "x", "object": "chat.completion", "choices": []}),
    );
    let bad_args = Reply::json(200, openai_tool_call("call_9", "add", "{not json"));
    let expected = [
        "APIResponseValidationError: the server's answer is not a JSON object: <html>502 Bad Gateway</html>",
        "APIResponseValidationError: the OpenAI answer has no choices[0].message: {\"choices\":[],\"id\":\"x\",\"object\":\"chat.completion\"}",
    ];
    for (reply, want) in [html, no_choices].into_iter().zip(expected) {
        let server = Loopback::start(vec![reply]);
        let (_, err, ok) = run(&file, &openai_env(&server));
        assert!(!ok);
        assert_eq!(
            err.lines().next().unwrap_or(""),
            format!("SenseRuntimeError: [line 2] model 'm' failed: {want}")
        );
    }
    let server = Loopback::start(vec![bad_args]);
    let tools = program(
        "openai_bad_args",
        "tool add(a: Int) \"adds\":\n    return a\nmodel m = inference(\"openai\")\nset delegation = m\nask_with_tools(\"x\", [add])\n",
    );
    let (_, err, ok) = run(&tools, &openai_env(&server));
    assert!(!ok);
    assert!(
        err.lines().next().unwrap_or("").starts_with(
            "SenseRuntimeError: [line 5] model 'm' failed: APIResponseValidationError: tool call 'add' has arguments that are not JSON"
        ),
        "{err}"
    );
}

#[test]
fn base_url_option_wins_over_the_variable() {
    let server = Loopback::start(vec![Reply::json(200, openai_text("local"))]);
    let file = program(
        "openai_base_url",
        &format!(
            "model llama = inference(\"openai\", \"llama3.2\", base_url: \"{}/v1/\", api_key_env: \"LOCAL_KEY\")\nprint(llama.ask(\"hi\").value)\n",
            server.url
        ),
    );
    let env = vec![
        ("LOCAL_KEY", "ollama".to_string()),
        ("OPENAI_BASE_URL", "http://127.0.0.1:9/nowhere".to_string()),
    ];
    let (out, err, ok) = run(&file, &env);
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "local\n");
    let seen = server.seen();
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(seen[0].header("authorization"), Some("Bearer ollama"));
    assert_eq!(seen[0].body["model"], "llama3.2");
}

#[test]
fn anthropic_text_and_tool_use_turns() {
    let server = Loopback::start(vec![
        Reply::json(
            200,
            anthropic_message(json!([{"type": "text", "text": "Hi!"}]), "end_turn"),
        ),
        Reply::json(
            200,
            anthropic_message(
                json!([
                    {"type": "text", "text": "Let me look that up."},
                    {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9",
                     "name": "lookup", "input": {"city": "Paris"}}
                ]),
                "tool_use",
            ),
        ),
        Reply::json(
            200,
            anthropic_message(
                json!([{"type": "text", "text": "It is sunny in Paris."}]),
                "end_turn",
            ),
        ),
    ]);
    let file = program(
        "anthropic_tools",
        r#"tool lookup(city: String) returns String "Weather for a city":
    return "sunny in " + city
model claude = inference("anthropic", temperature: 0)
set delegation = claude
print(ask("hello"))
print(ask_with_tools("Weather in Paris?", [lookup]).value)
"#,
    );
    let env = anthropic_env(&server);
    let (out, err, ok) = run(&file, &env);
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "answer<?>(Hi!)\nIt is sunny in Paris.\n");
    let seen = server.seen();
    assert_eq!(seen.len(), 3);
    for r in &seen {
        assert_eq!(r.path, "/v1/messages");
        assert_eq!(r.header("x-api-key"), Some(ANTHROPIC_KEY));
        assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
        assert!(r.header("authorization").is_none());
    }
    assert_eq!(
        seen[0].body,
        json!({"model": "claude-sonnet-5", "max_tokens": 1024, "temperature": 0.0,
               "messages": [{"role": "user", "content": "hello"}]})
    );
    assert_eq!(
        seen[1].body["tools"],
        json!([{"name": "lookup", "description": "Weather for a city",
                "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                                 "required": ["city"]}}])
    );
    let messages = seen[2].body["messages"]
        .as_array()
        .expect("messages")
        .clone();
    assert_eq!(messages.len(), 3);
    // The text the model wrote before its call stays in its turn.
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": [
               {"type": "text", "text": "Let me look that up."},
               {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "lookup",
                "input": {"city": "Paris"}}]})
    );
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": [{"type": "tool_result",
               "tool_use_id": "toolu_01A09q90qw90lq917835lq9", "content": "sunny in Paris"}]})
    );
}

#[test]
fn anthropic_401_and_missing_key() {
    let server = Loopback::start(vec![Reply::json(
        401,
        json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
    )]);
    let file = program(
        "anthropic_401",
        "model m = inference(\"anthropic\")\nm.ask(\"hi\")\n",
    );
    let env = anthropic_env(&server);
    let (_, err, ok) = run(&file, &env);
    assert!(!ok);
    assert_eq!(
        err.lines().next().unwrap_or(""),
        "SenseRuntimeError: [line 2] model 'm' failed: AuthenticationError: \
         Error code: 401 - invalid x-api-key (authentication_error)"
    );
    let (_, err, ok) = run(&file, &[]);
    assert!(!ok);
    assert_eq!(
        err.lines().next().unwrap_or(""),
        "SenseRuntimeError: inference() needs the 'ANTHROPIC_API_KEY' environment variable set to a real API key"
    );
}

/// The first line of a run's stderr.
fn first_line(err: &str) -> &str {
    err.lines().next().unwrap_or("")
}

/// A bare `Array` parameter is sent with `items` (OpenAI refuses an array
/// schema without it), `Map` as an object, and the same holds for an array
/// without `items` inside a schema (as an MCP server may send).
#[test]
fn array_and_map_parameters_have_complete_schemas() {
    let server = Loopback::start(vec![Reply::json(200, openai_text("ok"))]);
    let file = program(
        "openai_array_schema",
        r#"tool tally(xs: Array, groups: Array<Array>, counts: Map<String, Int>, m: Map) "Counts":
    return len(xs)
model gpt = inference("openai")
set delegation = gpt
print(ask_with_tools("count", [tally]).value)
"#,
    );
    let (out, err, ok) = run(&file, &openai_env(&server));
    assert!(ok, "stderr: {err}");
    assert_eq!(
        out,
        "ok
"
    );
    let params = &server.seen()[0].body["tools"][0]["function"]["parameters"];
    assert_eq!(
        params["properties"],
        json!({
            "xs": {"type": "array", "items": {}},
            "groups": {"type": "array", "items": {"type": "array", "items": {}}},
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            "m": {"type": "object"}
        })
    );
}

/// Text the model sends together with tool calls is part of its turn in
/// the next request (`content` beside `tool_calls`).
#[test]
fn openai_text_beside_tool_calls_stays_in_the_conversation() {
    let mut call = openai_tool_call("call_t1", "add", "{\"a\": 1, \"b\": 2}");
    call["choices"][0]["message"]["content"] = json!("I will add them first.");
    let server = Loopback::start(vec![
        Reply::json(200, call),
        Reply::json(200, openai_text("3")),
    ]);
    let file = program(
        "openai_text_and_calls",
        r#"tool add(a: Int, b: Int) returns Int "Adds two integers":
    return a + b
model gpt = inference("openai")
set delegation = gpt
print(ask_with_tools("1 + 2?", [add]).value)
"#,
    );
    let (out, err, ok) = run(&file, &openai_env(&server));
    assert!(ok, "stderr: {err}");
    assert_eq!(
        out,
        "3
"
    );
    let turn = &server.seen()[1].body["messages"][1];
    assert_eq!(turn["role"], "assistant");
    assert_eq!(turn["content"], "I will add them first.");
    assert_eq!(turn["tool_calls"][0]["id"], "call_t1");
}

/// `temperature` goes to Anthropic only when the program set it, and a
/// 400 that names it says which option of `inference()` was refused.
#[test]
fn anthropic_sampling_options_only_when_set_and_named_when_refused() {
    let server = Loopback::start(vec![
        Reply::json(
            200,
            anthropic_message(json!([{"type": "text", "text": "plain"}]), "end_turn"),
        ),
        Reply::json(
            400,
            json!({"type": "error", "error": {"type": "invalid_request_error",
                   "message": "temperature: Extra inputs are not permitted"}}),
        ),
    ]);
    let file = program(
        "anthropic_temperature",
        r#"model plain = inference("anthropic", "claude-opus-5")
print(plain.ask("hi").value)
model warm = inference("anthropic", "claude-opus-5", temperature: 0.7)
warm.ask("hi")
"#,
    );
    let (out, err, ok) = run(&file, &anthropic_env(&server));
    assert!(!ok);
    assert_eq!(
        out,
        "plain
"
    );
    assert_eq!(
        first_line(&err),
        "SenseRuntimeError: [line 4] model 'warm' failed: BadRequestError: Error code: 400 - \
         temperature: Extra inputs are not permitted (invalid_request_error) -- this model \
         refused inference()'s temperature: option (sent as 'temperature'); leave it out or \
         change it for this model"
    );
    let seen = server.seen();
    assert_eq!(
        seen[0].body,
        json!({"model": "claude-opus-5", "max_tokens": 1024,
               "messages": [{"role": "user", "content": "hi"}]})
    );
    assert_eq!(seen[1].body["temperature"], 0.7);
}

/// An OpenAI refusal (`content` null, `refusal` set) and an Anthropic
/// `stop_reason: "refusal"` are errors that say so, not empty answers.
#[test]
fn refusals_are_errors() {
    let mut refusal = openai_text("");
    refusal["choices"][0]["message"]["content"] = json!(null);
    refusal["choices"][0]["message"]["refusal"] = json!("I'm sorry, I can't help with that.");
    let server = Loopback::start(vec![Reply::json(200, refusal)]);
    let file = program(
        "openai_refusal",
        "model m = inference(\"openai\")\nprint(m.ask(\"hi\").value)\n",
    );
    let (out, err, ok) = run(&file, &openai_env(&server));
    assert!(!ok);
    assert_eq!(out, "");
    assert_eq!(
        first_line(&err),
        "SenseRuntimeError: [line 2] model 'm' failed: the model refused: I'm sorry, I can't help with that."
    );
    let server = Loopback::start(vec![Reply::json(
        200,
        anthropic_message(json!([]), "refusal"),
    )]);
    let file = program(
        "anthropic_refusal",
        "model m = inference(\"anthropic\")\nprint(m.ask(\"hi\").value)\n",
    );
    let (_, err, ok) = run(&file, &anthropic_env(&server));
    assert!(!ok);
    assert_eq!(
        first_line(&err),
        "SenseRuntimeError: [line 2] model 'm' failed: the model refused to answer (stop_reason: refusal)"
    );
}

/// A key read with its trailing newline is sent without it; a key with a
/// control character inside is refused as malformed, never shown.
#[test]
fn api_keys_are_trimmed_and_malformed_ones_refused() {
    let server = Loopback::start(vec![Reply::json(200, openai_text("ok"))]);
    let file = program(
        "openai_key_newline",
        "model m = inference(\"openai\")\nprint(m.ask(\"hi\").value)\n",
    );
    let mut env = openai_env(&server);
    env[0].1 = format!("  {OPENAI_KEY}\n");
    let (out, err, ok) = run(&file, &env);
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "ok\n");
    assert_eq!(
        server.seen()[0].header("authorization"),
        Some(format!("Bearer {OPENAI_KEY}").as_str())
    );
    env[0].1 = "sk-abc\u{7}def-0123456789".to_string();
    let (_, err, ok) = run(&file, &env);
    assert!(!ok);
    assert_eq!(
        first_line(&err),
        "SenseRuntimeError: the 'OPENAI_API_KEY' environment variable holds a malformed \
         API key: it contains spaces, control characters or non-ASCII characters"
    );
    assert!(!err.contains("sk-abc"), "{err}");
    assert_eq!(server.seen().len(), 1, "no request with a malformed key");
}

/// `SENSE_HTTP_TIMEOUT` / `SENSE_HTTP_RETRIES` set to something malformed
/// are refused when a model is made, naming the variable (without a line,
/// as every `inference()` refusal of the reference).
#[test]
fn malformed_http_settings_are_refused() {
    let server = Loopback::start(Vec::new());
    let file = program(
        "openai_bad_settings",
        "print(\"before\")\nmodel m = inference(\"openai\")\nm.ask(\"hi\")\n",
    );
    let cases = [
        (
            "SENSE_HTTP_TIMEOUT",
            "30s",
            "SENSE_HTTP_TIMEOUT is '30s', which is not a number of seconds (a number greater than 0, e.g. 30 or 0.5)",
        ),
        (
            "SENSE_HTTP_TIMEOUT",
            "-1",
            "SENSE_HTTP_TIMEOUT is '-1', which is not a number of seconds (a number greater than 0, e.g. 30 or 0.5)",
        ),
        (
            "SENSE_HTTP_RETRIES",
            "two",
            "SENSE_HTTP_RETRIES is 'two', which is not a number of retries (a whole number from 0 to 100)",
        ),
    ];
    for (var, value, want) in cases {
        let mut env = openai_env(&server);
        env.push((var, value.to_string()));
        let (out, err, ok) = run(&file, &env);
        assert!(!ok, "{var}={value} accepted");
        assert_eq!(out, "before\n");
        assert_eq!(first_line(&err), format!("SenseRuntimeError: {want}"));
    }
    assert!(server.seen().is_empty());
}

/// `x: Answer<Array<T>> = ask(…)` asks OpenAI for a JSON value with
/// Structured Outputs (wrapped in an object, as the API wants one at the
/// root) and the answer's value is an Array; Anthropic is asked in words
/// and its fenced JSON is read.
#[test]
fn structured_answers_ask_for_json() {
    let server = Loopback::start(vec![Reply::json(
        200,
        openai_text("{\"value\": [\"red\", \"green\"]}"),
    )]);
    let file = program(
        "openai_structured",
        r#"model m = inference("openai")
colours: Answer<Array<String>> = m.ask("Two colours")
print(colours.value, type_of(colours.value), len(colours.value))
"#,
    );
    let (out, err, ok) = run(&file, &openai_env(&server));
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "[red, green] Array 2\n");
    assert_eq!(
        server.seen()[0].body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "answer", "schema": {
            "type": "object", "required": ["value"],
            "properties": {"value": {"type": "array", "items": {"type": "string"}}}}}})
    );

    let server = Loopback::start(vec![
        Reply::json(
            200,
            anthropic_message(
                json!([{"type": "text", "text": "```json\n[[1, 2], [3]]\n```"}]),
                "end_turn",
            ),
        ),
        Reply::json(
            200,
            anthropic_message(json!([{"type": "text", "text": "still text"}]), "end_turn"),
        ),
        Reply::json(
            200,
            anthropic_message(
                json!([{"type": "text", "text": "no JSON here"}]),
                "end_turn",
            ),
        ),
    ]);
    let file = program(
        "anthropic_structured",
        r#"model m = inference("anthropic")
set delegation = m
pairs: Answer<Array<Array<Int>>> = ask("Group 1, 2, 3")
print(pairs.value)
plain = ask("Group them again")
print(plain.value)
bad: answer<Array> = ask("Again")
"#,
    );
    let (out, err, ok) = run(&file, &anthropic_env(&server));
    assert!(!ok);
    assert_eq!(out, "[[1, 2], [3]]\nstill text\n");
    assert_eq!(
        first_line(&err),
        "SenseRuntimeError: [line 7] model 'm' failed: the answer is not the JSON array asked \
         for by 'Answer<Array>' (expected ident at line 1 column 2): no JSON here"
    );
    let seen = server.seen();
    assert_eq!(
        seen[0].body["messages"][0]["content"],
        "Group 1, 2, 3\n\nAnswer with JSON only (no other text, no code fence): one value \
         matching this JSON schema: {\"items\":{\"items\":{\"type\":\"integer\"},\"type\":\"array\"},\"type\":\"array\"}"
    );
    assert_eq!(seen[1].body["messages"][0]["content"], "Group them again");
}

/// JSON objects from a model arrive as Maps: a tool-call argument for a
/// `Map` parameter (keys in the order the model wrote them), and an
/// `Answer<Map<String, T>>` asked for with a JSON schema of an object.
#[test]
fn json_objects_from_models_are_maps() {
    let server = Loopback::start(vec![
        Reply::json(
            200,
            openai_tool_call(
                "call_m1",
                "describe",
                "{\"stock\": {\"pears\": 2, \"apples\": 5}}",
            ),
        ),
        Reply::json(200, openai_text("done")),
        Reply::json(200, openai_text("{\"zeta\": 1, \"alpha\": 2}")),
    ]);
    let file = program(
        "openai_maps",
        r#"tool describe(stock: Map<String, Int>) returns String "Describes the stock":
    return str(stock) + " " + type_of(stock) + " " + str(len(stock))
model gpt = inference("openai")
set delegation = gpt
print(ask_with_tools("what is in stock?", [describe]).value)
counts: Answer<Map<String, Int>> = ask("count them")
print(counts.value, counts.value["zeta"] + counts.value["alpha"])
"#,
    );
    let (out, err, ok) = run(&file, &openai_env(&server));
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "done\n{zeta: 1, alpha: 2} 3\n");
    let seen = server.seen();
    assert_eq!(
        seen[0].body["tools"][0]["function"]["parameters"]["properties"]["stock"],
        json!({"type": "object", "additionalProperties": {"type": "integer"}})
    );
    assert_eq!(
        seen[1].body["messages"][2]["content"],
        "{pears: 2, apples: 5} Map 2"
    );
    assert_eq!(
        seen[2].body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "answer", "schema":
               {"type": "object", "additionalProperties": {"type": "integer"}}}})
    );
}

/// examples/research_agent.sns: a model call with a tool turn, a pause for
/// approval saved by `sense start`, and one more model call after `sense
/// resume` in a new process (providers re-registered by name; the key in
/// no state file or `sense show` output).
#[test]
fn research_agent_pauses_between_model_calls_across_processes() {
    let finding = "Our notes say agents pause mid-statement and resume later.";
    let first = Loopback::start(vec![
        Reply::json(
            200,
            openai_tool_call("call_n1", "search_notes", "{\"topic\": \"pausing\"}"),
        ),
        Reply::json(200, openai_text(finding)),
    ]);
    let state = std::env::temp_dir().join(format!("sense-research-{}.state", std::process::id()));
    let _ = std::fs::remove_file(&state);
    let s = state.to_str().expect("utf-8 path");
    let out = sense(
        &[
            "start",
            "examples/research_agent.sns",
            "researcher",
            "--state",
            s,
        ],
        &openai_env(&first),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!("paused: publish this? {finding}\n")
    );
    let seen = first.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].body["model"], "gpt-4o-mini");
    assert_eq!(seen[0].body["temperature"], 0.0);
    assert_eq!(
        seen[1].body["messages"][2]["content"],
        "[Sense agents pause mid-statement and resume later.]"
    );
    drop(first);

    let bytes = std::fs::read(&state).expect("state written");
    assert!(
        !bytes
            .windows(OPENAI_KEY.len())
            .any(|w| w == OPENAI_KEY.as_bytes()),
        "the API key is not in the state file"
    );
    let shown = sense::<&str>(&["show", s], &[]);
    assert!(shown.status.success());
    assert!(!text(&shown.stdout).contains(OPENAI_KEY));

    let second = Loopback::start(vec![Reply::json(
        200,
        openai_text("Agents Pause And Resume Later"),
    )]);
    let out = sense(&["resume", s, "\"yes\""], &openai_env(&second));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(
        stdout,
        format!(
            "published: {finding}\nheadline: Agents Pause And Resume Later\n\
             [[line 28] tool 'search_notes' -> called (via agent:researcher), \
             [line 28] model 'analyst' -> called (via agent:researcher), \
             [line 29] irreversible action 'publish' -> prepared (via agent:researcher), \
             [line 30] irreversible action 'publish' -> verified (via agent:researcher), \
             [line 35] model 'analyst' -> called (via agent:researcher), \
             irreversible action 'publish' -> committed (via agent:researcher)]\ncompleted\n"
        )
    );
    let seen = second.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].body["messages"],
        json!([{"role": "user", "content": format!("Write a five-word headline for: {finding}")}])
    );
    let _ = std::fs::remove_file(&state);
}

/// `sense ARGS…` (this crate's binary) from the repository root with `env`
/// set and the provider variables of the machine cleared.
fn sense<V: AsRef<std::ffi::OsStr>>(args: &[&str], env: &[(&str, V)]) -> std::process::Output {
    sense_testkit::run_sense!(args, env)
}
