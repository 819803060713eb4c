//! The console's requests on the shared HTTP stack ([`crate::http`]):
//! each connection is a task, so a client that stalls — in its head, its
//! body or while reading the answer — holds up nobody but itself (and
//! costs no thread). A request is checked and its body read on its task;
//! only the work on the runtime (which lives on one thread, as it is not
//! `Sync`) is queued: the task sends a [`Job`] down a channel and awaits
//! the [`Reply`]. Pages need no runtime and are answered on the task.

use super::api::{self, Route};
use crate::http::limits::CONSOLE;
use crate::http::{Access, Reply, accept_loop, check_access, precheck, read_object};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Request, Response};
use serde_json::Value as Json;
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::mpsc::Sender;
use tokio::sync::oneshot;

/// Work for the runtime's thread: a checked request and where its answer
/// goes.
pub struct Job {
    /// What the request asks for.
    pub route: Route,
    /// Its JSON body (empty for GET).
    pub body: serde_json::Map<String, Json>,
    /// Where the answer goes.
    pub reply: oneshot::Sender<Reply>,
}

/// What every request needs.
struct Shared {
    access: Access,
    jobs: Sender<Job>,
}

/// Binds 127.0.0.1:`port` and starts serving on a thread of its own:
/// every request that needs the runtime becomes a [`Job`] on `jobs` once
/// it has arrived whole. Returns the port actually bound.
pub fn listen(port: u16, jobs: Sender<Job>) -> std::io::Result<u16> {
    let listener = TcpListener::bind(("127.0.0.1", port))?;
    let port = listener.local_addr()?.port();
    let runtime = crate::http::runtime("sense-inspect", 1)?;
    let access = Access { token: None, port };
    let shared = Arc::new(Shared { access, jobs });
    std::thread::Builder::new()
        .name("sense-inspect-http".into())
        .spawn(move || {
            let serve = accept_loop(listener, &CONSOLE, move |request| {
                answer(shared.clone(), request)
            });
            if let Err(e) = runtime.block_on(serve) {
                eprintln!("SenseError: the inspector stopped serving: {e}");
            }
        })?;
    Ok(port)
}

async fn answer(shared: Arc<Shared>, request: Request<Incoming>) -> Response<Full<Bytes>> {
    reply(&shared, request).await.into_response()
}

async fn reply(shared: &Shared, request: Request<Incoming>) -> Reply {
    let (parts, body) = request.into_parts();
    let url = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let checked = precheck(&CONSOLE, &parts.headers, url)
        .and_then(|()| check_access(&shared.access, &parts.headers))
        .and_then(|()| api::check(url, parts.method.as_str()));
    let route = match checked {
        Ok(Route::Page(content_type, text)) => return Reply::text(content_type, text),
        Ok(Route::NoContent) => return Reply::no_content(),
        Ok(route) => route,
        Err(reply) => return reply,
    };
    let body = if route.method() == "POST" {
        match read_object(&CONSOLE, &parts.headers, body).await {
            Ok(body) => body,
            Err(reply) => return reply,
        }
    } else {
        serde_json::Map::new()
    };
    let (tx, rx) = oneshot::channel();
    let stopped = || Reply::error(503, "Unavailable", "the inspector has stopped");
    let job = Job {
        route,
        body,
        reply: tx,
    };
    if shared.jobs.send(job).is_err() {
        return stopped();
    }
    rx.await.unwrap_or_else(|_| stopped())
}
