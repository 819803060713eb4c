//! What the MCP test harnesses (tests/mcp_servers.rs, tests/mcp_remote.rs)
//! share: the OpenAI answers their loopback model gives, and running the
//! `sense` binary.

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
