//! A loopback HTTP server for provider tests (feature `loopback`): it
//! answers a scripted list of replies in order (bound to 127.0.0.1, a
//! bounded number of requests) and records what the client sent. Test
//! code: it panics on what a test must not meet.

use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One scripted answer.
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// Headers besides `Content-Type: application/json`.
    pub headers: Vec<(&'static str, String)>,
    /// The body.
    pub body: String,
    /// Wait this long before answering (timeouts).
    pub delay: Duration,
}

impl Reply {
    /// A JSON answer with `status`.
    pub fn json(status: u16, body: serde_json::Value) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: body.to_string(),
            delay: Duration::ZERO,
        }
    }

    /// The same answer with one more header.
    pub fn header(mut self, name: &'static str, value: &str) -> Reply {
        self.headers.push((name, value.to_string()));
        self
    }

    /// The same answer, sent after `d`.
    pub fn delayed(mut self, d: Duration) -> Reply {
        self.delay = d;
        self
    }
}

/// A request as the server saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    /// `GET`, `POST`, …
    pub method: String,
    /// The request target.
    pub path: String,
    /// Every header, as sent.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`null` if it was not JSON).
    pub body: serde_json::Value,
}

impl Seen {
    /// The value of header `name` (any case), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The running server; stopped when dropped.
pub struct Loopback {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
}

impl Loopback {
    /// Binds 127.0.0.1 on a free port and answers with `replies` in order
    /// (then 500s).
    pub fn start(replies: Vec<Reply>) -> Loopback {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind loopback"));
        let port = server.server_addr().to_ip().expect("ip address").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (s2, seen2, stop2) = (Arc::clone(&server), Arc::clone(&seen), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            let mut replies = replies.into_iter();
            // Bounded: at most 64 requests (the scripted replies plus a few
            // unexpected ones) within 5 minutes.
            let deadline = std::time::Instant::now() + Duration::from_secs(300);
            let mut handled = 0;
            while handled < 64 && std::time::Instant::now() < deadline {
                if stop2.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(Some(mut req)) = s2.recv_timeout(Duration::from_millis(100)) else {
                    continue;
                };
                handled += 1;
                let mut body = String::new();
                let _ = req.as_reader().read_to_string(&mut body);
                seen2.lock().unwrap().push(Seen {
                    method: req.method().to_string(),
                    path: req.url().to_string(),
                    headers: req
                        .headers()
                        .iter()
                        .map(|h| (h.field.to_string(), h.value.to_string()))
                        .collect(),
                    body: serde_json::from_str(&body).unwrap_or(serde_json::Value::Null),
                });
                let reply = replies.next().unwrap_or_else(|| {
                    Reply::json(
                        500,
                        serde_json::json!({"error": {"message": "unexpected request"}}),
                    )
                });
                std::thread::sleep(reply.delay);
                let mut resp = tiny_http::Response::from_string(reply.body)
                    .with_status_code(reply.status)
                    .with_header(
                        tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap(),
                    );
                for (k, v) in reply.headers {
                    resp = resp.with_header(tiny_http::Header::from_bytes(k, v.as_str()).unwrap());
                }
                let _ = req.respond(resp);
            }
        });
        Loopback {
            url: format!("http://127.0.0.1:{port}"),
            seen,
            stop,
            server,
            thread: Some(thread),
        }
    }

    /// The requests received so far, oldest first.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Runs `BIN ARGS…` (`bin` is the path of a `sense` binary) in `dir` with
/// `env` set and the provider variables of the machine cleared.
pub fn run_sense<K, V>(bin: &str, dir: &str, args: &[&str], env: &[(K, V)]) -> Output
where
    K: AsRef<std::ffi::OsStr>,
    V: AsRef<std::ffi::OsStr>,
{
    let mut cmd = Command::new(bin);
    cmd.args(args).current_dir(dir);
    for var in [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "SENSE_HTTP_TIMEOUT",
        "SENSE_HTTP_RETRIES",
        "SENSE_MCP_TIMEOUT",
        "SENSE_MCP_CALL_TIMEOUT",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("SENSE_HTTP_TIMEOUT", "20");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("sense runs")
}

/// The API key the loopback OpenAI tests hand the client.
pub const OPENAI_KEY: &str = "sk-test-0123456789abcdef";
/// The API key the loopback Anthropic tests hand the client.
pub const ANTHROPIC_KEY: &str = "sk-ant-test-0123456789abcdef";

/// The environment pointing the `openai` provider at `server`.
pub fn openai_env(server: &Loopback) -> Vec<(&'static str, String)> {
    vec![
        ("OPENAI_API_KEY", OPENAI_KEY.to_string()),
        ("OPENAI_BASE_URL", format!("{}/v1", server.url)),
    ]
}

/// The environment pointing the `anthropic` provider at `server`.
pub fn anthropic_env(server: &Loopback) -> Vec<(&'static str, String)> {
    vec![
        ("ANTHROPIC_API_KEY", ANTHROPIC_KEY.to_string()),
        ("ANTHROPIC_BASE_URL", server.url.clone()),
    ]
}

/// A finished command's standard output, standard error (both as text)
/// and whether it succeeded.
pub fn outcome(out: &Output) -> (String, String, bool) {
    (text(&out.stdout), text(&out.stderr), out.status.success())
}

/// [`run_sense`] of the calling test crate's own `sense` binary, from its
/// manifest directory: `run_sense!(args, env)` in an integration test of
/// the `sense` package.
#[macro_export]
macro_rules! run_sense {
    ($args:expr, $env:expr) => {
        $crate::loopback::run_sense(
            env!("CARGO_BIN_EXE_sense"),
            env!("CARGO_MANIFEST_DIR"),
            $args,
            $env,
        )
    };
}

/// Writes `source` to a fresh temporary `.sns` file.
pub fn program(name: &str, source: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sense-models-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(format!("{name}.sns"));
    std::fs::write(&p, source).expect("write program");
    p
}

/// Output bytes as text (invalid UTF-8 replaced).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
