//! What the MCP test harnesses (tests/mcp_servers.rs, tests/mcp_remote.rs)
//! share: the OpenAI answers their loopback model gives, running the
//! `sense` binary, and the echo round trip both transports make.

use serde_json::{Value as Json, json};

/// A chat completion asking for one tool call.
pub fn tool_call(id: &str, name: &str, arguments: Json) -> Json {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null,
            "message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": id, "type": "function",
                 "function": {"name": name, "arguments": arguments.to_string()}}]}}]
    })
}

/// A chat completion with the final answer `content`.
pub fn answer(content: &str) -> Json {
    json!({
        "id": "chatcmpl-2", "object": "chat.completion", "created": 2, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": null,
            "message": {"role": "assistant", "content": content, "refusal": null}}]
    })
}

/// A loopback model that asks server-everything's `echo` tool (as
/// `everything__echo`) to echo `message`, then answers with the result.
pub fn echo_model(message: &str) -> sense_testkit::loopback::Loopback {
    use sense_testkit::loopback::{Loopback, Reply};
    Loopback::start(vec![
        Reply::json(
            200,
            tool_call("call_e1", "everything__echo", json!({ "message": message })),
        ),
        Reply::json(200, answer(&format!("The server said: Echo: {message}"))),
    ])
}

/// `sense ARGS…` (this crate's binary) from the repository root with `env`
/// set and the provider variables of the machine cleared.
pub fn sense(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    sense_testkit::run_sense!(args, env)
}

/// Runs (through `run`, with the model it is given) a program that
/// connects with `connect` (a `connect_mcp(…)` call to server-everything),
/// finds its `echo` tool and has the loopback model call it with
/// `message` through `ask_with_tools`; checks what the program prints and
/// what the model was sent.
pub fn check_everything_echo(
    connect: &str,
    message: &str,
    run: impl FnOnce(&str, &sense_testkit::loopback::Loopback) -> (String, String, bool),
) {
    let model = echo_model(message);
    let source = format!(
        r#"s = {connect}
print(s)
print(s.name, type_of(s), type_of(s.tools[0]))
echo = nil
for t in s.tools:
    if str(t) == "<mcp tool everything.echo>":
        echo = t
print(echo)
model gpt = inference("openai")
set delegation = gpt
print(ask_with_tools("Echo '{message}'", [echo]).value)
print(audit_log())
s.close()
"#
    );
    let (out, err, ok) = run(&source, &model);
    assert!(ok, "stderr: {err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("<mcp server everything ("), "{out}");
    assert_eq!(lines[1], "everything McpServer Tool");
    assert_eq!(lines[2], "<mcp tool everything.echo>");
    assert_eq!(lines[3], format!("The server said: Echo: {message}"));
    assert_eq!(
        lines[4],
        "[[line 11] tool 'everything.echo' -> called, [line 11] model 'gpt' -> called]"
    );
    let seen = model.seen();
    assert_eq!(seen.len(), 2);
    let tool = &seen[0].body["tools"][0]["function"];
    assert_eq!(tool["name"], "everything__echo");
    assert_eq!(tool["description"], "Echoes back the input string");
    assert_eq!(
        tool["parameters"]["properties"]["message"]["type"],
        "string"
    );
    assert_eq!(
        seen[1].body["messages"][2],
        json!({"role": "tool", "tool_call_id": "call_e1", "content": format!("Echo: {message}")})
    );
}

/// `sense resume STATE "40 and 2"` with a loopback model that has `tool`
/// add 40 and 2 and then answers 42 (`key` is its API key); checks that
/// the run printed 42 and completed, and returns what the tool told the
/// model.
pub fn resume_adding(state: &str, tool: &str, key: &str) -> Json {
    use sense_testkit::loopback::{Loopback, Reply, text};
    let model = Loopback::start(vec![
        Reply::json(200, tool_call("c1", tool, json!({"a": 40, "b": 2}))),
        Reply::json(200, answer("42")),
    ]);
    let base = format!("{}/v1", model.url);
    let out = sense(
        &["resume", state, "\"40 and 2\""],
        &[("OPENAI_API_KEY", key), ("OPENAI_BASE_URL", &base)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "42\ncompleted\n");
    model.seen()[1].body["messages"][2]["content"].clone()
}

/// `sense run` of `source` (written to a file named after `name`) with
/// the OpenAI provider pointed at `model` (if any) under `key`, and
/// `extra` set too: what it printed, its errors, and whether it succeeded.
pub fn run_program(
    source: &str,
    name: &str,
    model: Option<&sense_testkit::loopback::Loopback>,
    key: &str,
    extra: &[(&str, &str)],
) -> (String, String, bool) {
    let file = sense_testkit::loopback::program(name, source);
    let base = model.map(|s| format!("{}/v1", s.url)).unwrap_or_default();
    let mut env = vec![("OPENAI_API_KEY", key), ("OPENAI_BASE_URL", base.as_str())];
    env.extend_from_slice(extra);
    sense_testkit::loopback::outcome(&sense(&["run", file.to_str().expect("utf-8 path")], &env))
}

/// The path in `var`, if it is set and exists.
pub fn configured(var: &str) -> Option<String> {
    std::env::var(var)
        .ok()
        .filter(|v| !v.is_empty() && std::path::Path::new(v).exists())
}
