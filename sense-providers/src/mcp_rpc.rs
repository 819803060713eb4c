//! What the two MCP transports share (the child's stdio in `mcp.rs`,
//! Streamable HTTP in `mcp_http.rs`): the three requests Sense makes
//! (`initialize`, `tools/list`, `tools/call`), reading an answer, and
//! the replies to the few requests a server may send its client.

use sense_agents::provider::RemoteTool;
use serde_json::{Value as Json, json};
use std::time::{Duration, Instant};

/// The protocol version this client asks for (servers may answer with
/// another they support; any is accepted).
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// Pages of `tools/list` followed at most.
const MAX_PAGES: usize = 100;

/// A connection that carries JSON-RPC requests to an MCP server.
pub(crate) trait Rpc {
    /// Sends a request and waits (until `deadline`) for its result.
    fn request(&mut self, method: &str, params: Json, deadline: Instant) -> Result<Json, String>;

    /// Marks the connection unusable because the server broke the
    /// protocol; the error to report.
    fn protocol_error(&mut self, what: &str) -> String;
}

/// The params of `initialize`.
pub(crate) fn initialize_params() -> Json {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "sense", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// Every tool the server lists (following `nextCursor`).
pub(crate) fn list_tools(rpc: &mut impl Rpc, deadline: Instant) -> Result<Vec<RemoteTool>, String> {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let result = rpc.request("tools/list", params, deadline)?;
        let Some(list) = result.get("tools").and_then(Json::as_array) else {
            return Err(rpc.protocol_error("tools/list result has no 'tools' array"));
        };
        for t in list {
            let Some(name) = t.get("name").and_then(Json::as_str) else {
                return Err(rpc.protocol_error("a listed tool has no name"));
            };
            tools.push(RemoteTool {
                name: name.to_string(),
                description: t
                    .get("description")
                    .and_then(Json::as_str)
                    .unwrap_or("")
                    .to_string(),
                input_schema: t
                    .get("inputSchema")
                    .filter(|s| s.is_object())
                    .map_or_else(|| "{}".to_string(), Json::to_string),
            });
        }
        cursor = result
            .get("nextCursor")
            .and_then(Json::as_str)
            .map(str::to_string);
        if cursor.is_none() {
            break;
        }
    }
    Ok(tools)
}

/// Calls tool `name` with `arguments` (a JSON object as text) and returns
/// its text content blocks, joined as the reference does; a result marked
/// `isError` is an error with that text.
pub(crate) fn call_tool(
    rpc: &mut impl Rpc,
    name: &str,
    arguments: &str,
    deadline: Instant,
) -> Result<String, String> {
    let arguments: Json = serde_json::from_str(arguments).unwrap_or_else(|_| json!({}));
    let result = rpc.request(
        "tools/call",
        json!({ "name": name, "arguments": arguments }),
        deadline,
    )?;
    let text: String = result
        .get("content")
        .and_then(Json::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Json::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Json::as_str))
                .collect()
        })
        .unwrap_or_default();
    if result.get("isError").and_then(Json::as_bool) == Some(true) {
        if text.is_empty() {
            return Err(format!(
                "RuntimeError: MCP tool '{name}' failed with no error message"
            ));
        }
        return Err(format!("RuntimeError: {text}"));
    }
    Ok(text)
}

/// What an answer to request `id` holds.
pub(crate) enum Answer {
    /// It is not an answer to that request (a late answer to another).
    Other,
    /// Its `result`.
    Result(Json),
    /// Its `error`, as the error the caller reports.
    Error(String),
    /// Neither `result` nor `error`.
    Malformed,
}

/// Reads `msg` as the answer to request `id`.
pub(crate) fn answer(msg: &Json, id: i64) -> Answer {
    if msg.get("id").and_then(Json::as_i64) != Some(id) {
        return Answer::Other;
    }
    if let Some(err) = msg.get("error") {
        let text = err
            .get("message")
            .and_then(Json::as_str)
            .map_or_else(|| err.to_string(), str::to_string);
        return Answer::Error(format!("McpError: {text}"));
    }
    match msg.get("result") {
        Some(r) => Answer::Result(r.clone()),
        None => Answer::Malformed,
    }
}

/// The reply to a request from the server (`ping`, …): a ping gets an
/// empty result, anything else "method not found". `None` for a
/// notification (nothing to answer).
pub(crate) fn reply_to_server(msg: &Json) -> Option<Json> {
    let id = msg.get("id")?;
    Some(
        if msg.get("method").and_then(Json::as_str) == Some("ping") {
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        } else {
            json!({"jsonrpc": "2.0", "id": id,
                   "error": {"code": -32601, "message": "method not supported by this client"}})
        },
    )
}

/// The error of a request that ran past its deadline.
pub(crate) fn timed_out(server: &str, method: &str, limit: Duration) -> String {
    format!(
        "TimeoutError: MCP server '{server}' did not answer '{method}' within {}s",
        fmt_secs(limit)
    )
}

fn fmt_secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s}")
    }
}

/// `ToolServer` and `Drop` for a transport's server type, which has the
/// fields `tools` (listed at connect) and `settings` (`McpSettings`) and a
/// `shutdown` method that ends the session (called again on drop, so it
/// must do nothing the second time).
macro_rules! tool_server {
    ($server:ty) => {
        impl sense_agents::provider::ToolServer for $server {
            fn tools(&self) -> Vec<sense_agents::provider::RemoteTool> {
                self.tools.clone()
            }

            fn call_tool(&mut self, name: &str, arguments: &str) -> Result<String, String> {
                let deadline = std::time::Instant::now() + self.settings.call_timeout;
                $crate::mcp_rpc::call_tool(self, name, arguments, deadline)
            }

            fn close(&mut self) {
                self.shutdown();
            }
        }

        impl Drop for $server {
            fn drop(&mut self) {
                self.shutdown();
            }
        }
    };
}
pub(crate) use tool_server;
