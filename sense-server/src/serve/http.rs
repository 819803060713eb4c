//! The service's routes on the shared HTTP stack ([`crate::http`]: hyper
//! on tokio, its limits, access check and error shape). Programs and the
//! store are synchronous, so requests run on tokio's blocking pool,
//! capped at `--workers` threads (more wait in its queue).
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
use crate::http::limits::SERVE;
use crate::http::{accept_loop, precheck, read_body};
use bytes::Bytes;
use http_body_util::{Either, Full};
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Request, Response};
use serde_json::{Map, json};
use std::sync::Arc;
use std::time::Duration;

pub use crate::http::{Access, Reply, check_access};

/// Longest long poll.
const MAX_WAIT: Duration = Duration::from_secs(60);

impl Reply {
    /// The answer for an engine error.
    pub fn from_api(e: ApiError) -> Reply {
        let mut body = Reply::error_body(e.class, &e.message);
        if let Some(current) = e.current {
            body["current"] = current;
        }
        Reply::json(e.status, &body)
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
    let runtime = crate::http::runtime("sense-serve", workers)?;
    let shared = Arc::new(Shared { engine, access });
    runtime.block_on(accept_loop(listener, &SERVE, move |req| {
        answer(shared.clone(), req)
    }))
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

/// A whole answer as the service's response type.
fn whole(reply: Reply) -> Response<AnyBody> {
    reply.into_response().map(Either::Left)
}

/// Event streams go to [`events`]; everything else is one [`Reply`].
async fn answer(shared: Arc<Shared>, request: Request<Incoming>) -> Response<AnyBody> {
    let url = request.uri().path_and_query().map_or("/", |p| p.as_str());
    if let Err(reply) = precheck(&SERVE, request.headers(), url) {
        return whole(reply);
    }
    let stream_of = match (request.method(), events::instance_of(request.uri().path())) {
        (&hyper::Method::GET, Some(id)) => Some(id.to_string()),
        _ => None,
    };
    let Some(id) = stream_of else {
        return whole(handle(shared, request).await);
    };
    match events::open(shared.engine.clone(), &shared.access, request.headers(), id).await {
        Err(reply) => whole(reply),
        Ok(stream) => {
            let mut response = Response::new(Either::Right(stream));
            let h = response.headers_mut();
            h.insert(
                "content-type",
                HeaderValue::from_static("text/event-stream"),
            );
            crate::http::reply::protect(h);
            response
        }
    }
}

async fn handle(shared: Arc<Shared>, request: Request<Incoming>) -> Reply {
    let (parts, body) = request.into_parts();
    let url = parts.uri.path_and_query().map_or("/", |p| p.as_str());
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
        let read = read_body(&SERVE, &parts.headers, body).await;
        match read.and_then(|bytes| parse_object(&bytes)) {
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
