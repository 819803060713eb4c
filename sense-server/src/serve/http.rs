//! The service's HTTP side: hyper (HTTP/1.1) on a small tokio runtime,
//! access checks, request bodies with size and time limits, and the hop
//! to blocking threads where the engine runs.
//!
//! Why hyper on tokio: every connection is a task, so a client that is
//! slow to send its head or body, or slow to read its answer, costs a
//! task and a socket, never a thread; heads must arrive within
//! [`HEAD_TIMEOUT`] and bodies within [`BODY_TIMEOUT`] or the connection
//! is closed (408). Programs and the store are synchronous, so requests
//! run on tokio's blocking pool, capped at `--workers` threads (more wait
//! in its queue).
//!
//! | method | path | does |
//! | --- | --- | --- |
//! | GET | `/` | the console page (`/console.js` beside it) |
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
//! | GET | `/api/instances/{id}/events` | server-sent events: its state now and after every change |
//!
//! Errors are `{"error": {"class", "message"}}` (plus `"current"`, the
//! instance now, on 409).

use super::console;
use super::engine::{ApiError, Engine};
use super::events::{self, Events};
use super::json;
use super::routes::{Target, check_method, parse_object, route};
use bytes::Bytes;
use http_body_util::{BodyExt, Either, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderValue};
use hyper::{Request, Response};
use serde_json::{Map, Value as Json, json};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

/// Largest request body accepted.
pub const BODY_LIMIT: usize = 256 * 1024;
/// Longest request target accepted.
const URL_LIMIT: usize = 8 * 1024;
/// How long a client may take to send a request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client may take to send a request body.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest long poll.
const MAX_WAIT: Duration = Duration::from_secs(60);
/// Most open connections; further ones wait in the kernel's backlog.
const MAX_CONNECTIONS: usize = 10_000;

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

    /// The answer for an engine error.
    pub fn from_api(e: ApiError) -> Reply {
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

    /// The body as JSON (`null` if it is not).
    pub fn body_json(&self) -> Json {
        serde_json::from_slice(&self.body).unwrap_or(Json::Null)
    }

    fn into_response(self) -> Response<AnyBody> {
        let mut response = Response::new(Either::Left(Full::new(Bytes::from(self.body))));
        *response.status_mut() = hyper::StatusCode::from_u16(self.status)
            .unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
        let h = response.headers_mut();
        h.insert("content-type", HeaderValue::from_static(self.content_type));
        h.insert("cache-control", HeaderValue::from_static("no-store"));
        h.insert(
            "x-content-type-options",
            HeaderValue::from_static("nosniff"),
        );
        h.insert("x-frame-options", HeaderValue::from_static("DENY"));
        h.insert(
            "content-security-policy",
            HeaderValue::from_static("default-src 'self'; frame-ancestors 'none'"),
        );
        response
    }
}

/// A whole answer, or a stream of server-sent events.
type AnyBody = Either<Full<Bytes>, Events>;

/// What every request needs.
struct Shared {
    engine: Arc<Engine>,
    access: Access,
}

/// Serves on `listener` until the process ends; at most `workers`
/// requests run programs or touch the store at once.
pub fn run(
    engine: Arc<Engine>,
    listener: std::net::TcpListener,
    access: Access,
    workers: usize,
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(workers.max(1))
        .thread_name("sense-serve")
        .enable_all()
        .build()?;
    let shared = Arc::new(Shared { engine, access });
    runtime.block_on(async move {
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
        loop {
            let Ok(slot) = slots.clone().acquire_owned().await else {
                return Ok(());
            };
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                // Out of descriptors and the like: wait, then go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            let shared = shared.clone();
            tokio::spawn(async move {
                let _slot = slot;
                let service = hyper::service::service_fn(move |req| {
                    let shared = shared.clone();
                    async move { Ok::<_, Infallible>(answer(shared, req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(HEAD_TIMEOUT)
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Compares in time independent of where the first difference is.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The credentials of an `Authorization: Bearer …` value. The scheme is
/// case-insensitive (RFC 7235 §2.1), so `bearer` and `BEARER` count too.
fn bearer_credentials(value: &str) -> Option<&str> {
    let (scheme, rest) = value.trim().split_once([' ', '\t'])?;
    scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
}

/// 400 unless the request has at most one `Host` header: with two, the
/// access check would look at one and a proxy might route by the other
/// (RFC 9112 §3.2 requires the refusal).
fn check_single_host(headers: &HeaderMap) -> Result<(), Reply> {
    if headers.get_all(hyper::header::HOST).iter().nth(1).is_some() {
        return Err(Reply::error(400, "BadRequest", "more than one Host header"));
    }
    Ok(())
}

/// Checks who is asking: the token when one is set; otherwise (loopback
/// only) that the Host is this machine, so another web site cannot reach
/// the API through DNS rebinding, and that writes come from this origin.
pub fn check_access(access: &Access, headers: &HeaderMap) -> Result<(), Reply> {
    if let Some(token) = &access.token {
        let given = header(headers, "authorization")
            .and_then(bearer_credentials)
            .unwrap_or("");
        if !same_secret(given.as_bytes(), token.as_bytes()) {
            return Err(Reply::error(
                401,
                "Unauthorized",
                "send the service's token as `Authorization: Bearer TOKEN`",
            ));
        }
        return Ok(());
    }
    let port = access.port;
    let host = header(headers, "host").unwrap_or("");
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
    if let Some(origin) = header(headers, "origin")
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

/// Reads a JSON object body of at most [`BODY_LIMIT`] bytes within
/// [`BODY_TIMEOUT`].
async fn read_body(headers: &HeaderMap, body: Incoming) -> Result<Map<String, Json>, Reply> {
    let too_large = || {
        Reply::error(
            413,
            "PayloadTooLarge",
            format!("the body is larger than {BODY_LIMIT} bytes"),
        )
    };
    let declared = header(headers, "content-length").and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > BODY_LIMIT as u64) {
        return Err(too_large());
    }
    let has_body = declared.is_some_and(|n| n > 0) || headers.contains_key("transfer-encoding");
    if !has_body {
        return Ok(Map::new());
    }
    let json_type = header(headers, "content-type").is_some_and(|v| {
        v.trim()
            .to_ascii_lowercase()
            .starts_with("application/json")
    });
    if !json_type {
        return Err(Reply::error(
            415,
            "UnsupportedMediaType",
            "send the body as Content-Type: application/json",
        ));
    }
    match tokio::time::timeout(BODY_TIMEOUT, Limited::new(body, BODY_LIMIT).collect()).await {
        Err(_) => Err(Reply::error(
            408,
            "RequestTimeout",
            format!(
                "the body took longer than {} s to arrive",
                BODY_TIMEOUT.as_secs()
            ),
        )),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Ok(Err(e)) => Err(Reply::error(
            400,
            "BadRequest",
            format!("cannot read the body: {e}"),
        )),
        Ok(Ok(collected)) => parse_object(&collected.to_bytes()),
    }
}

/// Runs `f` on a blocking thread; a panic becomes a 500 answer.
async fn blocking(f: impl FnOnce() -> Reply + Send + 'static) -> Reply {
    let failed = || Reply::error(500, "InternalError", "the service failed on this request");
    tokio::task::spawn_blocking(move || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| failed())
    })
    .await
    .unwrap_or_else(|_| failed())
}

/// Event streams go to [`events`]; everything else is one [`Reply`].
async fn answer(shared: Arc<Shared>, request: Request<Incoming>) -> Response<AnyBody> {
    if let Err(reply) = check_single_host(request.headers()) {
        return reply.into_response();
    }
    let stream_of = match (request.method(), events::instance_of(request.uri().path())) {
        (&hyper::Method::GET, Some(id)) => Some(id.to_string()),
        _ => None,
    };
    let Some(id) = stream_of else {
        return handle(shared, request).await.into_response();
    };
    match events::open(shared.engine.clone(), &shared.access, request.headers(), id).await {
        Err(reply) => reply.into_response(),
        Ok(stream) => {
            let mut response = Response::new(Either::Right(stream));
            let h = response.headers_mut();
            h.insert(
                "content-type",
                HeaderValue::from_static("text/event-stream"),
            );
            h.insert("cache-control", HeaderValue::from_static("no-store"));
            h.insert(
                "x-content-type-options",
                HeaderValue::from_static("nosniff"),
            );
            response
        }
    }
}

async fn handle(shared: Arc<Shared>, request: Request<Incoming>) -> Reply {
    let (parts, body) = request.into_parts();
    let url = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    if url.len() > URL_LIMIT {
        return Reply::error(414, "UriTooLong", "the request target is too long");
    }
    let target = Target::parse(url);
    let method = parts.method.as_str().to_string();
    let first = target.segments.first().map(String::as_str);
    match (method.as_str(), target.segments.len(), first) {
        ("GET", 0, _) => return Reply::text("text/html; charset=utf-8", console::PAGE),
        ("GET", 1, Some("console.js")) => {
            return Reply::text("text/javascript; charset=utf-8", console::SCRIPT);
        }
        (_, _, Some("api")) => {}
        _ => return Reply::error(404, "NotFound", "no such page"),
    }
    if let Err(reply) = check_access(&shared.access, &parts.headers) {
        return reply;
    }
    if let ["api", "instances", id, "wait"] = target
        .segments
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
        && check_method(&method, "GET").is_ok()
    {
        return wait(&shared, id.to_string(), &target).await;
    }
    let body = if method == "POST" {
        match read_body(&parts.headers, body).await {
            Ok(body) => body,
            Err(reply) => return reply,
        }
    } else {
        Map::new()
    };
    let engine = shared.engine.clone();
    blocking(move || {
        let segs: Vec<&str> = target.segments.iter().map(String::as_str).collect();
        route(&engine, &method, &segs, &target, &body)
    })
    .await
}

/// A long poll's `timeout`: seconds from 0 to [`MAX_WAIT`] (30 when not
/// given); anything else — negative, NaN, infinite, beyond the longest
/// wait — is a 400 (it is checked before it becomes a `Duration`, which
/// cannot hold every float).
fn wait_timeout(given: Option<&str>) -> Result<Duration, Reply> {
    let Some(text) = given else {
        return Ok(Duration::from_secs(30));
    };
    match text.parse::<f64>() {
        Ok(s) if (0.0..=MAX_WAIT.as_secs_f64()).contains(&s) => Ok(Duration::from_secs_f64(s)),
        _ => Err(Reply::error(
            400,
            "BadRequest",
            format!(
                "timeout must be a number of seconds from 0 to {}, got {text:?}",
                MAX_WAIT.as_secs()
            ),
        )),
    }
}

/// `GET /api/instances/{id}/wait?version=N&timeout=S`: answers at once if
/// the instance is not at version N, else when it leaves it (or at the
/// timeout). Without a version: the next change from now.
async fn wait(shared: &Shared, id: String, target: &Target) -> Reply {
    let version = match target.int("version") {
        Ok(v) => v,
        Err(reply) => return reply,
    };
    let timeout = match wait_timeout(target.get("timeout")) {
        Ok(t) => t,
        Err(reply) => return reply,
    };
    let engine = shared.engine.clone();
    let lookup = id.clone();
    let current = tokio::task::spawn_blocking(move || engine.store.summary(&lookup)).await;
    let current = match current {
        Ok(Ok(Some(s))) => s,
        Ok(Ok(None)) => {
            return Reply::from_api(ApiError::new(
                404,
                "NotFound",
                format!("no instance with id {id}"),
            ));
        }
        Ok(Err(e)) => return Reply::from_api(e.into()),
        Err(_) => return Reply::error(500, "InternalError", "the lookup failed"),
    };
    let v = version.unwrap_or(current.version);
    if v != current.version {
        let mut body = json::summary(&current, &shared.engine.program.hash);
        body["changed"] = json!(true);
        return Reply::json(200, &body);
    }
    match shared.engine.waiters.park(&id, v, timeout) {
        // The waiter thread answers by the deadline; the margin only
        // guards against it being gone.
        Some(answer) => tokio::time::timeout(timeout + Duration::from_secs(5), answer)
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_else(|| {
                Reply::error(503, "Unavailable", "the wait was not answered; retry")
            }),
        None => Reply::error(
            503,
            "TooManyWaiters",
            "too many clients are waiting; retry later",
        ),
    }
}
