//! `connect_mcp(name, url: …)`: a Model Context Protocol client over the
//! Streamable HTTP transport (MCP specification 2025-06-18, "Transports").
//!
//! Every message is its own POST to the server's one endpoint, with
//! `Accept: application/json, text/event-stream`. The server answers a
//! request either with one JSON object or with an SSE stream scoped to
//! that request, which may carry its own requests (answered here by a
//! POST: a ping gets an empty result, anything else "method not found")
//! and notifications (dropped) before the answer. A notification is
//! acknowledged with 202 and no body. The `Mcp-Session-Id` the server
//! gives at `initialize` goes with every later request, and so does
//! `MCP-Protocol-Version` (the version it agreed to); a 404 to a request
//! that carried a session means the session has ended, and the client
//! starts a new one once before giving up. `close()` ends the session
//! with a DELETE.
//!
//! As over stdio, nothing the server sends makes the client buffer
//! without bound (a JSON answer or one event is at most 16 MiB; the rest
//! is read and dropped as it arrives) and a request's deadline is
//! absolute: it is ureq's global timeout for the whole exchange, so a
//! server that keeps its stream open and busy does not extend it.

use crate::http::{preview, redact};
use crate::mcp::McpSettings;
use crate::mcp_rpc::{self, Answer, Rpc};
use crate::sse::EventReader;
use sense_agents::provider::RemoteTool;
use serde_json::{Value as Json, json};
use std::io::Read;
use std::time::{Duration, Instant};

/// The largest JSON answer or SSE event accepted from a server.
const MAX_MESSAGE: usize = 16 * 1024 * 1024;
/// How long `close()` waits for the server to end its session.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// One session with a remote MCP server.
pub(crate) struct HttpServer {
    url: String,
    /// The name of the variable holding the bearer token (read at each
    /// request, never kept).
    token_env: Option<String>,
    agent: ureq::Agent,
    session: Option<String>,
    /// The protocol version the server agreed to at `initialize`.
    protocol: Option<String>,
    next_id: i64,
    tools: Vec<RemoteTool>,
    settings: McpSettings,
    /// Set once the server broke the protocol.
    broken: Option<String>,
    closed: bool,
}

/// What one POST brought back.
enum Posted {
    /// The answer to the request.
    Answer(Json),
    /// 202: accepted, nothing to read (the answer to a notification).
    Accepted,
    /// 404 to a request that carried a session id: the session is gone.
    SessionGone,
}

impl HttpServer {
    /// Connects to `url`: initializes a session and lists its tools.
    pub(crate) fn connect(
        url: &str,
        token_env: Option<&str>,
        settings: McpSettings,
    ) -> Result<Self, String> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!(
                "ValueError: an MCP server's url must start with http:// or https://, got '{}'",
                preview(url)
            ));
        }
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .user_agent(concat!("sense/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let mut server = HttpServer {
            url: url.to_string(),
            token_env: token_env.map(str::to_string),
            agent,
            session: None,
            protocol: None,
            next_id: 1,
            tools: Vec::new(),
            settings,
            broken: None,
            closed: false,
        };
        let deadline = Instant::now() + server.settings.connect_timeout;
        server.initialize(deadline)?;
        server.tools = mcp_rpc::list_tools(&mut server, deadline)?;
        Ok(server)
    }

    /// Starts a session: `initialize`, then `notifications/initialized`.
    fn initialize(&mut self, deadline: Instant) -> Result<(), String> {
        self.session = None;
        self.protocol = None;
        let result = self.exchange("initialize", mcp_rpc::initialize_params(), deadline)?;
        self.protocol = result
            .get("protocolVersion")
            .and_then(Json::as_str)
            .map(str::to_string);
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        match self.post(&note, None, "initialize", deadline)? {
            Posted::Accepted | Posted::Answer(_) => Ok(()),
            Posted::SessionGone => Err(self.refused(404, "the new session was not found")),
        }
    }

    /// One request and its answer, starting a new session once when the
    /// server says the old one has ended.
    fn exchange(&mut self, method: &str, params: Json, deadline: Instant) -> Result<Json, String> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        if self.closed {
            return Err(format!(
                "RuntimeError: the connection to MCP server '{}' is closed",
                self.url
            ));
        }
        for renewed in [false, true] {
            let id = self.next_id;
            self.next_id += 1;
            let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": &params});
            match self.post(&msg, Some(id), method, deadline)? {
                Posted::Answer(a) => return Ok(a),
                Posted::Accepted => {
                    return Err(self
                        .protocol_error(&format!("it accepted '{method}' without answering it")));
                }
                Posted::SessionGone if !renewed && method != "initialize" => {
                    self.initialize(deadline)?;
                }
                Posted::SessionGone => break,
            }
        }
        Err(self.refused(404, "the session was not found"))
    }

    /// POSTs `msg`; for a request (`id`), reads its answer from a JSON
    /// body or an SSE stream.
    fn post(
        &mut self,
        msg: &Json,
        id: Option<i64>,
        method: &str,
        deadline: Instant,
    ) -> Result<Posted, String> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.timed_out(method));
        }
        let token = self.token()?;
        let req = self
            .agent
            .post(&self.url)
            .config()
            .timeout_global(Some(left))
            .build()
            .content_type("application/json")
            .header("Accept", "application/json, text/event-stream");
        let req = self.session_headers(req, token.as_deref());
        let secret = token.as_deref().unwrap_or("");
        let resp = match req.send(msg.to_string()) {
            Ok(r) => r,
            Err(_) if Instant::now() >= deadline => return Err(self.timed_out(method)),
            Err(ureq::Error::Timeout(_)) => return Err(self.timed_out(method)),
            Err(e) => return Err(redact(&self.unreachable(&e.to_string()), secret)),
        };
        let status = resp.status().as_u16();
        if method == "initialize"
            && let Some(s) = header(&resp, "mcp-session-id")
        {
            self.session = Some(s);
        }
        let is_stream = header(&resp, "content-type")
            .is_some_and(|c| c.to_ascii_lowercase().starts_with("text/event-stream"));
        let body = resp.into_body().into_reader();
        match status {
            202 => return Ok(Posted::Accepted),
            404 if self.session.is_some() && method != "initialize" => {
                return Ok(Posted::SessionGone);
            }
            200..=299 => {}
            _ => {
                let text = read_text(body, 64 * 1024).unwrap_or_default();
                return Err(redact(&self.refused(status, &error_message(&text)), secret));
            }
        }
        let Some(id) = id else {
            return Ok(Posted::Accepted);
        };
        let read = if is_stream {
            self.read_stream(body, id, deadline)
        } else {
            self.read_json(body, id)
        };
        read.map(Posted::Answer)
            .map_err(|e| match e {
                Failed::Io(_) if Instant::now() >= deadline => self.timed_out(method),
                Failed::Io(why) => self.unreachable(&why),
                Failed::Protocol(what) => self.protocol_error(&what),
                Failed::Error(e) => e,
            })
            .map_err(|e| redact(&e, secret))
    }

    /// A JSON body: one message (or a batch of them) holding the answer.
    fn read_json(&mut self, body: impl Read, id: i64) -> Result<Json, Failed> {
        let text = read_text(body, MAX_MESSAGE).map_err(|e| Failed::Io(e.to_string()))?;
        let msg: Json = serde_json::from_str(&text)
            .map_err(|_| Failed::Protocol(format!("its answer is not JSON: {}", preview(&text))))?;
        let batch = match msg {
            Json::Array(items) => items,
            one => vec![one],
        };
        for m in &batch {
            if let Some(settled) = settled(m, id) {
                return settled;
            }
        }
        Err(Failed::Protocol(
            "its JSON answer does not answer the request".into(),
        ))
    }

    /// An SSE stream: the server's requests are answered, everything else
    /// but the answer to `id` is dropped as it arrives.
    fn read_stream(&mut self, body: impl Read, id: i64, deadline: Instant) -> Result<Json, Failed> {
        let mut events = EventReader::new(body, MAX_MESSAGE);
        while let Some(event) = events.next_event().map_err(|e| Failed::Io(e.to_string()))? {
            if event.data.trim().is_empty() {
                continue; // a priming event (an id for resuming, no message)
            }
            let Ok(msg) = serde_json::from_str::<Json>(&event.data) else {
                return Err(Failed::Protocol(format!(
                    "it sent an event that is not JSON-RPC: {}",
                    preview(&event.data)
                )));
            };
            if msg.get("method").is_some() {
                if let Some(reply) = mcp_rpc::reply_to_server(&msg) {
                    // Best effort: a server that cannot take its answer
                    // will time out its own request.
                    let _ = self.post(&reply, None, "reply", deadline);
                }
                continue;
            }
            if let Some(settled) = settled(&msg, id) {
                return settled;
            }
        }
        Err(Failed::Io(
            "the server ended its stream without answering".into(),
        ))
    }

    /// The bearer token, when `token_env:` names a variable.
    fn token(&self) -> Result<Option<String>, String> {
        let Some(name) = &self.token_env else {
            return Ok(None);
        };
        let value = std::env::var(name).unwrap_or_default();
        let token = value.trim();
        if token.is_empty() {
            return Err(format!(
                "RuntimeError: connect_mcp() needs the '{name}' environment variable \
                 (token_env:) set to the server's bearer token"
            ));
        }
        if !token.chars().all(|c| c.is_ascii_graphic()) {
            return Err(format!(
                "RuntimeError: the '{name}' environment variable holds a malformed token: it \
                 contains spaces, control characters or non-ASCII characters"
            ));
        }
        Ok(Some(token.to_string()))
    }

    fn timed_out(&self, method: &str) -> String {
        mcp_rpc::timed_out(&self.url, method, self.settings.timeout_for(method))
    }

    fn unreachable(&self, why: &str) -> String {
        format!(
            "RuntimeError: MCP server '{}' is unreachable ({why})",
            self.url
        )
    }

    fn refused(&self, status: u16, why: &str) -> String {
        format!(
            "RuntimeError: MCP server '{}' answered HTTP {status}: {why}",
            self.url
        )
    }

    /// Ends the session (DELETE, best effort, briefly).
    fn shutdown(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        if self.session.is_none() {
            return;
        }
        let token = self.token().ok().flatten();
        let req = self
            .agent
            .delete(&self.url)
            .config()
            .timeout_global(Some(CLOSE_WAIT))
            .build();
        let _ = self.session_headers(req, token.as_deref()).call();
        self.session = None;
    }

    /// `req` with the session's headers: its id and the protocol version
    /// once agreed, and the bearer `token` if any.
    fn session_headers<B>(
        &self,
        mut req: ureq::RequestBuilder<B>,
        token: Option<&str>,
    ) -> ureq::RequestBuilder<B> {
        if let Some(s) = &self.session {
            req = req.header("Mcp-Session-Id", s);
        }
        if let Some(v) = &self.protocol {
            req = req.header("MCP-Protocol-Version", v);
        }
        if let Some(t) = token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        req
    }
}

/// Why reading an answer failed.
enum Failed {
    /// The connection failed or ended (or the deadline passed).
    Io(String),
    /// The server broke the protocol.
    Protocol(String),
    /// The server answered with a JSON-RPC error.
    Error(String),
}

/// What `msg` settles of request `id`: nothing (it answers another), its
/// result, or why it failed.
fn settled(msg: &Json, id: i64) -> Option<Result<Json, Failed>> {
    match mcp_rpc::answer(msg, id) {
        Answer::Other => None,
        Answer::Result(r) => Some(Ok(r)),
        Answer::Error(e) => Some(Err(Failed::Error(e))),
        Answer::Malformed => Some(Err(Failed::Protocol(
            "an answer has neither result nor error".into(),
        ))),
    }
}

fn header(resp: &ureq::http::Response<ureq::Body>, name: &str) -> Option<String> {
    resp.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// At most `limit` bytes of `body` as text; more is an error.
fn read_text(body: impl Read, limit: usize) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    body.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("an answer longer than {} MiB", limit >> 20),
        ));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The message of an error body (a JSON-RPC `error.message`), else the
/// body itself, shortened.
fn error_message(body: &str) -> String {
    serde_json::from_str::<Json>(body)
        .ok()
        .and_then(|j| {
            j.pointer("/error/message")
                .and_then(Json::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| preview(body))
}

impl Rpc for HttpServer {
    fn request(&mut self, method: &str, params: Json, deadline: Instant) -> Result<Json, String> {
        self.exchange(method, params, deadline)
    }

    fn protocol_error(&mut self, what: &str) -> String {
        let e = format!(
            "RuntimeError: MCP server '{}' broke the protocol: {what}",
            self.url
        );
        self.broken = Some(e.clone());
        e
    }
}

mcp_rpc::tool_server!(HttpServer);
