//! `connect_mcp(…)`: a Model Context Protocol client over a child's stdio.
//!
//! A small JSON-RPC client rather than the official SDK (`rmcp`): the SDK
//! is built on tokio and an async transport, while the VM is synchronous
//! and needs only three requests (`initialize`, `tools/list`,
//! `tools/call`). Newline-delimited JSON over pipes, one reader thread and
//! a channel give every read a timeout, so a server that hangs, exits or
//! writes garbage becomes an error, never a hang.
//!
//! A server cannot make the client buffer without bound: the reader
//! thread answers the server's pings itself and drops its notifications;
//! only answers reach the caller, through a channel of
//! [`INCOMING_QUEUE`] messages, so a server that sends answers nobody
//! asked for is held up by its own pipe. Replies to the server go through
//! a bounded queue too. A call's deadline is absolute: messages that keep
//! arriving do not extend it. The server runs in its own process group,
//! which is ended as a whole on close or drop (`npx` starts `node`, and
//! the child must not outlive the connection).

use crate::mcp_rpc::{self, Answer, Rpc};
use sense_agents::provider::{RemoteTool, ToolServer, ToolServerConnector};
use serde_json::{Value as Json, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use crate::mcp_rpc::PROTOCOL_VERSION;

/// A line longer than this from a server is refused.
const MAX_LINE: usize = 16 * 1024 * 1024;
/// How much of a server's stderr is kept for error messages.
const STDERR_TAIL: usize = 2048;
/// Answers (and end-of-stream notes) waiting for the caller; when full,
/// the reader stops reading and the server's writes block.
pub const INCOMING_QUEUE: usize = 8;
/// Lines waiting for the writer thread.
const OUTGOING_QUEUE: usize = 64;

/// Timeouts of MCP connections.
#[derive(Clone, Debug, PartialEq)]
pub struct McpSettings {
    /// How long the start (initialize and tools/list) may take.
    pub connect_timeout: Duration,
    /// How long one tool call may take.
    pub call_timeout: Duration,
    /// How long a server gets to exit after its stdin is closed before
    /// it is killed.
    pub exit_grace: Duration,
}

impl Default for McpSettings {
    fn default() -> Self {
        McpSettings {
            connect_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(30),
            exit_grace: Duration::from_secs(2),
        }
    }
}

impl McpSettings {
    /// The limit of a request: the call timeout for `tools/call`, the
    /// connect timeout for the others.
    pub(crate) fn timeout_for(&self, method: &str) -> Duration {
        if method == "tools/call" {
            self.call_timeout
        } else {
            self.connect_timeout
        }
    }

    /// The defaults, with `SENSE_MCP_TIMEOUT` (seconds) setting both
    /// timeouts and `SENSE_MCP_CALL_TIMEOUT` then the call timeout alone;
    /// the plain defaults when one is malformed (see
    /// [`try_from_env`](Self::try_from_env), which refuses it).
    pub fn from_env() -> Self {
        Self::try_from_env().unwrap_or_default()
    }

    /// [`from_env`](Self::from_env), with an error naming the variable
    /// when one is set to something that is not a number of seconds.
    pub fn try_from_env() -> Result<Self, String> {
        let mut s = McpSettings::default();
        if let Some(t) = crate::http::env_secs("SENSE_MCP_TIMEOUT")? {
            s.connect_timeout = t;
            s.call_timeout = t;
        }
        if let Some(t) = crate::http::env_secs("SENSE_MCP_CALL_TIMEOUT")? {
            s.call_timeout = t;
        }
        Ok(s)
    }
}

/// Starts MCP servers as child processes speaking over stdio, and
/// connects to remote ones over Streamable HTTP (`connect_mcp(name,
/// url: …)`, see `mcp_http.rs`), with the same timeouts.
#[derive(Clone, Debug, Default)]
pub struct McpStdioConnector {
    settings: McpSettings,
    /// Why every connection is refused (malformed settings).
    refusal: Option<String>,
}

impl McpStdioConnector {
    /// A connector with these timeouts.
    pub fn new(settings: McpSettings) -> Self {
        McpStdioConnector {
            settings,
            refusal: None,
        }
    }

    /// A connector with the timeouts of the environment
    /// ([`McpSettings::try_from_env`]); when a variable is malformed,
    /// every `connect_mcp` is refused with an error naming it.
    pub fn from_env() -> Self {
        match McpSettings::try_from_env() {
            Ok(settings) => Self::new(settings),
            Err(why) => McpStdioConnector {
                settings: McpSettings::default(),
                refusal: Some(format!("ValueError: {why}")),
            },
        }
    }
}

impl ToolServerConnector for McpStdioConnector {
    fn connect(&mut self, command: &str, args: &[String]) -> Result<Box<dyn ToolServer>, String> {
        if let Some(why) = &self.refusal {
            return Err(why.clone());
        }
        Ok(Box::new(StdioServer::start(
            command,
            args,
            self.settings.clone(),
        )?))
    }

    fn connect_url(
        &mut self,
        url: &str,
        token_env: Option<&str>,
    ) -> Result<Box<dyn ToolServer>, String> {
        if let Some(why) = &self.refusal {
            return Err(why.clone());
        }
        Ok(Box::new(crate::mcp_http::HttpServer::connect(
            url,
            token_env,
            self.settings.clone(),
        )?))
    }
}

/// The writer's queue, shared by the caller and the reader thread (which
/// answers pings); `None` once the connection is closed, so that closing
/// it closes the server's stdin.
type Outgoing = Arc<Mutex<Option<SyncSender<Vec<u8>>>>>;

/// What the reader thread hands over: answers to requests, and why
/// reading stopped.
enum Incoming {
    Message(Json),
    Garbage(String),
    Closed(Option<String>),
}

/// One running MCP server.
pub struct StdioServer {
    command: String,
    child: Option<Child>,
    /// Lines for the writer thread; emptying it closes the server's stdin.
    stdin: Outgoing,
    incoming: Receiver<Incoming>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_reader: Option<std::thread::JoinHandle<()>>,
    next_id: i64,
    tools: Vec<RemoteTool>,
    settings: McpSettings,
    /// Set once the connection is unusable (exited, garbage).
    broken: Option<String>,
}

impl StdioServer {
    /// Starts `command args…`, initializes the session and lists its tools.
    pub fn start(command: &str, args: &[String], settings: McpSettings) -> Result<Self, String> {
        let mut cmd = Command::new(command);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            // Its own process group, ended as a whole by `shutdown`.
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|e| spawn_error(command, &e))?;
        let (tx, rx) = sync_channel(INCOMING_QUEUE);
        let stdin: Outgoing = Arc::new(Mutex::new(child.stdin.take().map(spawn_writer)));
        let stdout = child.stdout.take();
        let stderr_buf = Arc::new(Mutex::new(Vec::new()));
        if let Some(out) = stdout {
            let replies = Arc::clone(&stdin);
            std::thread::spawn(move || read_messages(out, &tx, &replies));
        }
        let stderr_reader = child.stderr.take().map(|err| {
            let buf = Arc::clone(&stderr_buf);
            std::thread::spawn(move || keep_tail(err, &buf))
        });
        let mut server = StdioServer {
            command: command.to_string(),
            stdin,
            child: Some(child),
            incoming: rx,
            stderr: stderr_buf,
            stderr_reader,
            next_id: 1,
            tools: Vec::new(),
            settings,
            broken: None,
        };
        let deadline = Instant::now() + server.settings.connect_timeout;
        server.request("initialize", mcp_rpc::initialize_params(), deadline)?;
        server.notify("notifications/initialized")?;
        server.tools = mcp_rpc::list_tools(&mut server, deadline)?;
        Ok(server)
    }

    fn protocol_error(&mut self, what: &str) -> String {
        let e = format!(
            "RuntimeError: MCP server '{}' broke the protocol: {what}",
            self.command
        );
        self.broken = Some(e.clone());
        e
    }

    fn send(&mut self, message: &Json) -> Result<(), String> {
        let mut line = message.to_string();
        line.push('\n');
        match queue_line(&self.stdin, line.into_bytes()) {
            Ok(()) => Ok(()),
            Err(Unsent::Closed) => Err(format!(
                "RuntimeError: the connection to MCP server '{}' is closed",
                self.command
            )),
            // The writer met a closed pipe: the server has gone.
            Err(Unsent::Gone) => Err(self.exited(None)),
            Err(Unsent::Full) => {
                let e = format!(
                    "RuntimeError: MCP server '{}' is not reading what it is sent",
                    self.command
                );
                self.broken = Some(e.clone());
                Err(e)
            }
        }
    }

    fn notify(&mut self, method: &str) -> Result<(), String> {
        self.send(&json!({"jsonrpc": "2.0", "method": method}))
    }

    /// Sends a request and waits (until `deadline`) for its answer.
    fn send_request(
        &mut self,
        method: &str,
        params: Json,
        deadline: Instant,
    ) -> Result<Json, String> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            // Checked before every read: a server that keeps sending
            // (answers to other ids, …) does not extend the deadline.
            let left = deadline.saturating_duration_since(Instant::now());
            let received = if left.is_zero() {
                Err(RecvTimeoutError::Timeout)
            } else {
                self.incoming.recv_timeout(left)
            };
            let msg = match received {
                Ok(Incoming::Message(m)) => m,
                Ok(Incoming::Garbage(line)) => {
                    let e = format!(
                        "RuntimeError: MCP server '{}' wrote something that is not JSON-RPC: {}",
                        self.command,
                        crate::http::preview(&line)
                    );
                    self.broken = Some(e.clone());
                    return Err(e);
                }
                Ok(Incoming::Closed(why)) => return Err(self.exited(why)),
                Err(RecvTimeoutError::Disconnected) => return Err(self.exited(None)),
                Err(RecvTimeoutError::Timeout) => {
                    let limit = self.settings.timeout_for(method);
                    return Err(mcp_rpc::timed_out(&self.command, method, limit));
                }
            };
            return match mcp_rpc::answer(&msg, id) {
                Answer::Other => continue, // a late answer to a request that timed out
                Answer::Result(r) => Ok(r),
                Answer::Error(e) => Err(e),
                Answer::Malformed => {
                    Err(self.protocol_error("an answer has neither result nor error"))
                }
            };
        }
    }

    /// The error for a server whose stdout has ended.
    fn exited(&mut self, read_error: Option<String>) -> String {
        let why = read_error.map_or_else(String::new, |w| format!(" (read error: {w})"));
        let status = exit_note(&mut self.child);
        // Let the stderr reader catch up (bounded: a grandchild may hold
        // the pipe open).
        if let Some(reader) = &self.stderr_reader {
            let until = Instant::now() + Duration::from_millis(500);
            while !reader.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let e = format!(
            "RuntimeError: MCP server '{}' exited{status}{why}{}",
            self.command,
            self.stderr_note()
        );
        self.broken = Some(e.clone());
        e
    }

    fn stderr_note(&self) -> String {
        let tail = self
            .stderr
            .lock()
            .map(|b| String::from_utf8_lossy(&b).trim().to_string())
            .unwrap_or_default();
        if tail.is_empty() {
            String::new()
        } else {
            format!("; its stderr ends: {}", crate::http::preview(&tail))
        }
    }

    /// Closes stdin, waits a little for the server to exit, then ends its
    /// whole process group (its own children too); always reaps the child.
    fn shutdown(&mut self) {
        if let Ok(mut stdin) = self.stdin.lock() {
            *stdin = None;
        }
        let Some(mut child) = self.child.take() else {
            return;
        };
        let deadline = Instant::now() + self.settings.exit_grace;
        let exited = loop {
            match child.try_wait() {
                Ok(Some(_)) => break true,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                _ => break false,
            }
        };
        kill_group(&child);
        if !exited {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Ends the process group `child` leads (it was started with
/// `process_group(0)`, so the group's id is its pid): whatever the server
/// started and left running goes with it.
fn kill_group(child: &Child) {
    #[cfg(unix)]
    {
        use nix::sys::signal::{Signal, killpg};
        use nix::unistd::Pid;
        if let Ok(pid) = i32::try_from(child.id()) {
            // No such group (everyone has exited) is fine.
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = child;
}

/// Why a line was not queued for the server.
enum Unsent {
    /// The connection was closed by the client.
    Closed,
    /// The writer thread has stopped (the server's stdin is gone).
    Gone,
    /// The queue is full: the server is not reading.
    Full,
}

/// Queues a line for the writer thread without blocking.
fn queue_line(out: &Outgoing, line: Vec<u8>) -> Result<(), Unsent> {
    let Ok(guard) = out.lock() else {
        return Err(Unsent::Closed);
    };
    let Some(tx) = guard.as_ref() else {
        return Err(Unsent::Closed);
    };
    match tx.try_send(line) {
        Ok(()) => Ok(()),
        Err(TrySendError::Full(_)) => Err(Unsent::Full),
        Err(TrySendError::Disconnected(_)) => Err(Unsent::Gone),
    }
}

impl Rpc for StdioServer {
    fn request(&mut self, method: &str, params: Json, deadline: Instant) -> Result<Json, String> {
        self.send_request(method, params, deadline)
    }

    fn protocol_error(&mut self, what: &str) -> String {
        StdioServer::protocol_error(self, what)
    }
}

mcp_rpc::tool_server!(StdioServer);

/// The writer thread: a server that stops reading fills the pipe and
/// blocks this thread, never the caller (whose reads time out, and whose
/// writes are refused once the queue is full).
fn spawn_writer(mut stdin: ChildStdin) -> SyncSender<Vec<u8>> {
    let (tx, rx) = sync_channel::<Vec<u8>>(OUTGOING_QUEUE);
    std::thread::spawn(move || {
        block_sigpipe();
        for line in rx {
            if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
                return;
            }
        }
    });
    tx
}

/// Writing to a server that has exited raises SIGPIPE, whose default action
/// ends the process. A Rust `main` ignores it, but a C or Go host linking
/// libsense usually does not, so a server that dies early would take the
/// host down. Blocked in this thread only, the write fails with EPIPE
/// instead (reported as the server having exited) and the host's own
/// signal handling is left as it was.
fn block_sigpipe() {
    #[cfg(unix)]
    {
        use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};
        let mut set = SigSet::empty();
        set.add(Signal::SIGPIPE);
        // Failure leaves the default disposition: nothing better to do.
        let _ = pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&set), None);
    }
}

/// The reader thread: one JSON message per line. Answers go to the
/// caller (blocking while its queue is full); the server's requests are
/// answered here (a ping with an empty result, anything else with
/// "method not found"; dropped while the writer's queue is full) and its
/// notifications dropped, so nothing the server sends piles up.
fn read_messages(out: impl Read, tx: &SyncSender<Incoming>, replies: &Outgoing) {
    let mut reader = BufReader::new(out);
    let mut line = Vec::new();
    loop {
        line.clear();
        let mut limited = (&mut reader).take(MAX_LINE as u64 + 1);
        match limited.read_until(b'\n', &mut line) {
            Ok(0) => {
                let _ = tx.send(Incoming::Closed(None));
                return;
            }
            Ok(_) if line.len() > MAX_LINE => {
                let _ = tx.send(Incoming::Garbage("(a line longer than 16 MiB)".into()));
                return;
            }
            Ok(_) => {
                let text = String::from_utf8_lossy(&line);
                let text = text.trim();
                if text.is_empty() {
                    continue;
                }
                let msg = match serde_json::from_str::<Json>(text) {
                    Ok(j) if j.is_object() => j,
                    _ => {
                        let _ = tx.send(Incoming::Garbage(text.to_string()));
                        return;
                    }
                };
                if msg.get("method").is_some() {
                    answer_server(&msg, replies);
                } else if tx.send(Incoming::Message(msg)).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = tx.send(Incoming::Closed(Some(e.to_string())));
                return;
            }
        }
    }
}

/// A request from the server (`ping`, …) is answered: a ping with an
/// empty result, anything else refused; a notification is ignored. A
/// reply that finds the writer's queue full is dropped (a server that
/// pings without reading gets no answers, and costs no memory).
fn answer_server(msg: &Json, replies: &Outgoing) {
    let Some(reply) = mcp_rpc::reply_to_server(msg) else {
        return;
    };
    let mut line = reply.to_string();
    line.push('\n');
    let _ = queue_line(replies, line.into_bytes());
}

/// Keeps the last bytes a server wrote to stderr.
fn keep_tail(mut err: impl Read, buf: &Mutex<Vec<u8>>) {
    let mut chunk = [0u8; 4096];
    while let Ok(n) = err.read(&mut chunk) {
        if n == 0 {
            return;
        }
        if let Ok(mut b) = buf.lock() {
            b.extend_from_slice(chunk.get(..n).unwrap_or(&[]));
            let excess = b.len().saturating_sub(STDERR_TAIL);
            b.drain(..excess);
        }
    }
}

/// " (exit status N)" once the child has exited (waiting briefly for it).
fn exit_note(child: &mut Option<Child>) -> String {
    let Some(c) = child.as_mut() else {
        return String::new();
    };
    for _ in 0..50 {
        if let Ok(Some(status)) = c.try_wait() {
            return match status.code() {
                Some(code) => format!(" (exit status {code})"),
                None => " (killed by a signal)".to_string(),
            };
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    String::new()
}

/// A spawn failure as Python's `subprocess` reports it.
fn spawn_error(command: &str, e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            format!("FileNotFoundError: [Errno 2] No such file or directory: '{command}'")
        }
        std::io::ErrorKind::PermissionDenied => {
            format!("PermissionError: [Errno 13] Permission denied: '{command}'")
        }
        _ => format!("OSError: {e}"),
    }
}
