//! The service's HTTP side: worker threads over one `tiny_http` server,
//! access checks, request bodies with size and time limits, and routing
//! to the engine.
//!
//! | method | path | does |
//! | --- | --- | --- |
//! | GET | `/` | the console page |
//! | GET | `/api/info` | the program (name, hash) and this process |
//! | GET | `/api/instances?status=S&after=SEQ&limit=N` | a page of instances (`next`: the `after` of the next page) |
//! | POST | `/api/instances` `{"agent": "NAME", "id": "ID"?}` | start an instance (409 if the id exists) |
//! | GET | `/api/instances/{id}` | one instance, with call stacks and locals |
//! | POST | `/api/instances/{id}/resume` `{"value": V, "version": N?}` | answer it (409 on a stale version) |
//! | POST | `/api/instances/{id}/messages` `{"value": V}` | send it a message |
//! | POST | `/api/instances/{id}/pause` | ask it to pause |
//! | DELETE | `/api/instances/{id}?version=N` | delete it |
//! | GET | `/api/instances/{id}/audit?after=SEQ&limit=N` | its audit trail |
//! | GET | `/api/instances/{id}/wait?version=N&timeout=S` | long poll: answers when it leaves version N |
//!
//! Errors are `{"error": {"class", "message"}}` (plus `"current"`, the
//! instance now, on 409).

use super::console;
use super::engine::{ApiError, Engine};
use super::json;
use sense_store::{ListQuery, Status};
use serde_json::{Map, Value as Json, json};
use std::io::Read;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

/// Largest request body accepted.
pub const BODY_LIMIT: usize = 256 * 1024;
/// Longest request target accepted.
const URL_LIMIT: usize = 8 * 1024;
/// Longest long poll.
const MAX_WAIT: Duration = Duration::from_secs(60);

/// Who may call the API.
pub struct Access {
    /// Required as `Authorization: Bearer TOKEN` when set.
    pub token: Option<String>,
    /// The port the server listens on (for the Host check on loopback).
    pub port: u16,
}

/// A response.
pub struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
}

impl Reply {
    /// A JSON response.
    pub fn json(status: u16, body: &Json) -> Reply {
        Reply {
            status,
            content_type: "application/json; charset=utf-8",
            body: body.to_string().into_bytes(),
        }
    }

    /// An error response.
    pub fn error(status: u16, class: &str, message: impl Into<String>) -> Reply {
        Reply::json(
            status,
            &json!({"error": {"class": class, "message": message.into()}}),
        )
    }

    fn from_api(e: ApiError) -> Reply {
        let mut body = json!({"error": {"class": e.class, "message": e.message}});
        if let Some(current) = e.current {
            body["current"] = current;
        }
        Reply::json(e.status, &body)
    }

    fn text(content_type: &'static str, body: &str) -> Reply {
        Reply {
            status: 200,
            content_type,
            body: body.as_bytes().to_vec(),
        }
    }
}

/// Sends `reply` (errors writing to a gone client are ignored).
pub fn respond(request: tiny_http::Request, reply: Reply) {
    // The body is in memory: always send a Content-Length (tiny_http
    // would switch large bodies to chunked encoding).
    let mut response = tiny_http::Response::from_data(reply.body)
        .with_status_code(reply.status)
        .with_chunked_threshold(usize::MAX);
    for (name, value) in [
        ("Content-Type", reply.content_type),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        (
            "Content-Security-Policy",
            "default-src 'self'; frame-ancestors 'none'",
        ),
    ] {
        if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response.add_header(h);
        }
    }
    let _ = request.respond(response);
}

/// Most requests in flight (reading, waiting for a worker, or writing);
/// more are answered 503 at once.
const MAX_IN_FLIGHT: usize = 1024;

/// Counts requests in flight and lets at most `workers` of them run
/// programs or touch the store at once.
struct Gate {
    state: Mutex<(usize, usize)>,
    freed: Condvar,
    workers: usize,
}

impl Gate {
    fn lock(&self) -> std::sync::MutexGuard<'_, (usize, usize)> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts a new request in; false when too many are in flight.
    fn admit(&self) -> bool {
        let mut g = self.lock();
        if g.0 >= MAX_IN_FLIGHT {
            return false;
        }
        g.0 += 1;
        true
    }

    fn leave(&self) {
        self.lock().0 -= 1;
    }

    /// Runs `f` holding one of the `workers` slots.
    fn work<T>(&self, f: impl FnOnce() -> T) -> T {
        let mut g = self.lock();
        while g.1 >= self.workers {
            g = self.freed.wait(g).unwrap_or_else(PoisonError::into_inner);
        }
        g.1 += 1;
        drop(g);
        struct Release<'a>(&'a Gate);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                self.0.lock().1 -= 1;
                self.0.freed.notify_one();
            }
        }
        let _release = Release(self);
        f()
    }
}

/// Serves requests until the server stops. Each request gets its own
/// thread for its input and output (so a client that stalls while
/// sending its body or reading the answer holds only that thread), and
/// at most `workers` requests run programs or touch the store at once.
pub fn run(
    engine: Arc<Engine>,
    server: Arc<tiny_http::Server>,
    access: Arc<Access>,
    workers: usize,
) {
    let gate = Arc::new(Gate {
        state: Mutex::new((0, 0)),
        freed: Condvar::new(),
        workers: workers.max(1),
    });
    while let Ok(request) = server.recv() {
        if !gate.admit() {
            respond(
                request,
                Reply::error(503, "Busy", "too many requests in flight; retry later"),
            );
            continue;
        }
        let (engine, access, gate2) = (engine.clone(), access.clone(), gate.clone());
        let spawned = std::thread::Builder::new()
            .name("sense-serve-request".into())
            .stack_size(REQUEST_STACK)
            .spawn(move || {
                handle(&engine, &access, &gate2, request);
                gate2.leave();
            });
        if spawned.is_err() {
            gate.leave();
        }
    }
}

/// Stack of a request thread: the main thread's usual size, so that a
/// program that parses and runs under `sense run` does so here too (the
/// memory is reserved, and only touched as far as it is used).
const REQUEST_STACK: usize = 8 * 1024 * 1024;

fn header<'a>(request: &'a tiny_http::Request, name: &str) -> Option<&'a str> {
    request
        .headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}

/// Compares in time independent of where the first difference is.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Checks who is asking: the token when one is set; otherwise (loopback
/// only) that the Host is this machine, so another web site cannot reach
/// the API through DNS rebinding, and that writes come from this origin.
fn check_access(access: &Access, request: &tiny_http::Request) -> Result<(), Reply> {
    if let Some(token) = &access.token {
        let given = header(request, "Authorization")
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !same_secret(given.trim().as_bytes(), token.as_bytes()) {
            return Err(Reply::error(
                401,
                "Unauthorized",
                "send the service's token as `Authorization: Bearer TOKEN`",
            ));
        }
        return Ok(());
    }
    let port = access.port;
    let host = header(request, "Host").unwrap_or("");
    let local = [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ];
    if !local.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return Err(Reply::error(
            403,
            "Forbidden",
            format!("Host {host:?} is not this machine; use http://127.0.0.1:{port}/"),
        ));
    }
    if let Some(origin) = header(request, "Origin")
        && !local
            .iter()
            .any(|h| origin.eq_ignore_ascii_case(&format!("http://{h}")))
    {
        return Err(Reply::error(
            403,
            "Forbidden",
            "requests from other sites are refused",
        ));
    }
    Ok(())
}

/// Reads a JSON object body of at most [`BODY_LIMIT`] bytes.
fn read_body(request: &mut tiny_http::Request) -> Result<Map<String, Json>, Reply> {
    let too_large = || {
        Reply::error(
            413,
            "PayloadTooLarge",
            format!("the body is larger than {BODY_LIMIT} bytes"),
        )
    };
    if request.body_length().unwrap_or(0) > BODY_LIMIT {
        return Err(too_large());
    }
    let json_type = header(request, "Content-Type").is_some_and(|v| {
        v.trim()
            .to_ascii_lowercase()
            .starts_with("application/json")
    });
    if request.body_length() != Some(0) && !json_type {
        return Err(Reply::error(
            415,
            "UnsupportedMediaType",
            "send the body as Content-Type: application/json",
        ));
    }
    let mut bytes = Vec::new();
    request
        .as_reader()
        .take(BODY_LIMIT as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Reply::error(400, "BadRequest", format!("cannot read the body: {e}")))?;
    if bytes.len() > BODY_LIMIT {
        return Err(too_large());
    }
    parse_object(&bytes)
}

fn parse_object(bytes: &[u8]) -> Result<Map<String, Json>, Reply> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Json>(bytes) {
        Ok(Json::Object(m)) => Ok(m),
        Ok(_) => Err(Reply::error(
            400,
            "BadRequest",
            "the body must be a JSON object",
        )),
        Err(e) => Err(Reply::error(
            400,
            "BadRequest",
            format!("the body is not JSON: {e}"),
        )),
    }
}

/// One parsed request target.
struct Target {
    segments: Vec<String>,
    query: Vec<(String, String)>,
}

impl Target {
    fn parse(url: &str) -> Target {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let segments = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let query = query
            .split('&')
            .filter_map(|kv| kv.split_once('=').or(Some((kv, ""))))
            .filter(|(k, _)| !k.is_empty())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Target { segments, query }
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn int(&self, key: &str) -> Result<Option<i64>, Reply> {
        self.get(key)
            .map(|v| {
                v.parse::<i64>().map_err(|_| {
                    Reply::error(
                        400,
                        "BadRequest",
                        format!("{key} must be an integer, got {v:?}"),
                    )
                })
            })
            .transpose()
    }
}

fn handle(engine: &Engine, access: &Access, gate: &Gate, mut request: tiny_http::Request) {
    if request.url().len() > URL_LIMIT {
        return respond(
            request,
            Reply::error(414, "UriTooLong", "the request target is too long"),
        );
    }
    let target = Target::parse(request.url());
    let method = request.method().as_str().to_string();
    let segs: Vec<&str> = target.segments.iter().map(String::as_str).collect();
    if method == "GET" && segs.is_empty() {
        return respond(
            request,
            Reply::text("text/html; charset=utf-8", console::PAGE),
        );
    }
    if method == "GET" && segs == ["console.js"] {
        return respond(
            request,
            Reply::text("text/javascript; charset=utf-8", console::SCRIPT),
        );
    }
    if segs.first() != Some(&"api") {
        return respond(request, Reply::error(404, "NotFound", "no such page"));
    }
    if let Err(reply) = check_access(access, &request) {
        return respond(request, reply);
    }
    // Long polls are parked, not answered by this worker.
    if let (Ok(_), ["api", "instances", id, "wait"]) =
        (check_method(&method, "GET"), segs.as_slice())
    {
        return wait(engine, request, id, &target);
    }
    let body = if method == "POST" {
        match read_body(&mut request) {
            Ok(body) => body,
            Err(reply) => return respond(request, reply),
        }
    } else {
        Map::new()
    };
    let reply = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        gate.work(|| route(engine, &method, &segs, &target, &body))
    }))
    .unwrap_or_else(|_| Reply::error(500, "InternalError", "the service failed on this request"));
    respond(request, reply);
}

fn check_method(method: &str, want: &str) -> Result<(), Reply> {
    if method == want {
        Ok(())
    } else {
        Err(Reply::error(405, "MethodNotAllowed", format!("use {want}")))
    }
}

fn api(result: Result<Json, ApiError>) -> Reply {
    match result {
        Ok(body) => Reply::json(200, &body),
        Err(e) => Reply::from_api(e),
    }
}

fn value_of(body: &Map<String, Json>) -> Result<sense::agents::HostValue, Reply> {
    json::to_host(body.get("value").unwrap_or(&Json::Null))
        .map_err(|e| Reply::error(400, "BadValue", e))
}

fn version_of(body: &Map<String, Json>) -> Result<Option<i64>, Reply> {
    match body.get("version") {
        None | Some(Json::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| Reply::error(400, "BadRequest", "version must be an integer")),
    }
}

fn route(
    engine: &Engine,
    method: &str,
    segs: &[&str],
    target: &Target,
    body: &Map<String, Json>,
) -> Reply {
    let run = || -> Result<Reply, Reply> {
        Ok(match segs {
            ["api", "info"] => {
                check_method(method, "GET")?;
                Reply::json(
                    200,
                    &json!({
                        "program": {"name": engine.program.name, "hash": engine.program.hash},
                        "process": engine.process,
                    }),
                )
            }
            ["api", "instances"] if method == "GET" => {
                let status = match target.get("status") {
                    None | Some("") | Some("all") => None,
                    Some(s) => Some(Status::parse(s).ok_or_else(|| {
                        Reply::error(
                            400,
                            "BadRequest",
                            format!("unknown status {s:?} (paused, completed, failed)"),
                        )
                    })?),
                };
                let query = ListQuery {
                    status,
                    after: target.int("after")?.unwrap_or(0),
                    limit: target.int("limit")?.unwrap_or(100).clamp(1, 1000) as u32,
                };
                api(list(engine, &query))
            }
            ["api", "instances"] => {
                check_method(method, "POST")?;
                let agent = body
                    .get("agent")
                    .and_then(Json::as_str)
                    .ok_or_else(|| Reply::error(400, "BadRequest", "give {\"agent\": \"NAME\"}"))?;
                let id = match body.get("id") {
                    None | Some(Json::Null) => None,
                    Some(Json::String(id)) => Some(id.as_str()),
                    Some(_) => return Err(Reply::error(400, "BadRequest", "id must be a string")),
                };
                api(engine.create(agent, id))
            }
            ["api", "instances", id] => match method {
                "GET" => api(engine.detail(id)),
                "DELETE" => api(engine.delete(id, target.int("version")?)),
                _ => return Err(Reply::error(405, "MethodNotAllowed", "use GET or DELETE")),
            },
            ["api", "instances", id, "resume"] => {
                check_method(method, "POST")?;
                api(engine.resume(id, value_of(body)?, version_of(body)?))
            }
            ["api", "instances", id, "messages"] => {
                check_method(method, "POST")?;
                api(engine.message(id, value_of(body)?))
            }
            ["api", "instances", id, "pause"] => {
                check_method(method, "POST")?;
                api(engine.pause(id))
            }
            ["api", "instances", id, "audit"] => {
                check_method(method, "GET")?;
                let after = target.int("after")?.unwrap_or(0);
                let limit = target.int("limit")?.unwrap_or(1000).clamp(1, 10_000) as u32;
                api(engine.audit(id, after, limit))
            }
            ["api", "instances", _, "wait"] => {
                check_method(method, "GET").err().unwrap_or_else(|| {
                    Reply::error(500, "InternalError", "long polls are parked before routing")
                })
            }
            _ => Reply::error(404, "NotFound", "no such API route"),
        })
    };
    run().unwrap_or_else(|reply| reply)
}

fn list(engine: &Engine, query: &ListQuery) -> Result<Json, ApiError> {
    let page = engine.store.list(query)?;
    let next = (page.len() as u32 == query.limit)
        .then(|| page.last().map(|s| s.seq))
        .flatten();
    Ok(json!({
        // Without each instance's output: a page stays small.
        "instances": page
            .iter()
            .map(|s| {
                let mut j = json::summary(s, &engine.program.hash);
                if let Some(o) = j.as_object_mut() {
                    o.remove("output");
                }
                j
            })
            .collect::<Vec<_>>(),
        "next": next,
    }))
}

/// `GET /api/instances/{id}/wait?version=N&timeout=S`: answers at once if
/// the instance is not at version N, else parks the request.
fn wait(engine: &Engine, request: tiny_http::Request, id: &str, target: &Target) {
    let version = match target.int("version") {
        Ok(v) => v,
        Err(reply) => return respond(request, reply),
    };
    let timeout = match target.get("timeout").map(str::parse::<f64>) {
        None => Duration::from_secs(30),
        Some(Ok(s)) if s.is_finite() && s >= 0.0 => Duration::from_secs_f64(s).min(MAX_WAIT),
        Some(_) => {
            return respond(
                request,
                Reply::error(400, "BadRequest", "timeout must be a number of seconds"),
            );
        }
    };
    let current = match engine.store.summary(id) {
        Ok(Some(s)) => s,
        Ok(None) => {
            return respond(
                request,
                Reply::from_api(ApiError::new(
                    404,
                    "NotFound",
                    format!("no instance with id {id}"),
                )),
            );
        }
        Err(e) => return respond(request, Reply::from_api(e.into())),
    };
    // Without a version: wait for the next change from now.
    let v = version.unwrap_or(current.version);
    if v == current.version {
        engine.waiters.park(request, id, v, timeout);
    } else {
        let mut body = json::summary(&current, &engine.program.hash);
        body["changed"] = json!(true);
        respond(request, Reply::json(200, &body));
    }
}
