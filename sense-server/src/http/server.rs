//! Accepting connections: one tokio task per connection, at most
//! [`Limits::connections`] at once, each a hyper HTTP/1.1 connection
//! whose head must arrive within [`Limits::head_timeout`].

use super::{Limits, Reply};
use hyper::body::{Body, Incoming};
use hyper::header::HeaderMap;
use hyper::{Request, Response};
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// A tokio runtime for a service: two threads for connections, and at
/// most `blocking` threads for work that blocks (more wait in a queue).
pub fn runtime(name: &str, blocking: usize) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(blocking.max(1))
        .thread_name(name)
        .enable_all()
        .build()
}

/// Serves `listener` until it fails: every request is answered by
/// `handler`. Must run inside a runtime from [`runtime`].
pub async fn accept_loop<F, Fut, B>(
    listener: std::net::TcpListener,
    limits: &'static Limits,
    handler: F,
) -> std::io::Result<()>
where
    F: Fn(Request<Incoming>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Response<B>> + Send + 'static,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    // Listening again only changes the backlog.
    let listener = socket2::Socket::from(listener);
    listener.listen(limits.backlog)?;
    let listener = std::net::TcpListener::from(listener);
    listener.set_nonblocking(true)?;
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.connections));
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
        let handler = handler.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let service = hyper::service::service_fn(move |req| {
                let answer = handler(req);
                async move { Ok::<_, Infallible>(answer.await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(limits.head_timeout)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

/// The checks every request passes before routing: at most one `Host`
/// header (with two, the access check would look at one and a proxy might
/// route by the other; RFC 9112 §3.2 requires the refusal), and a request
/// target no longer than [`Limits::url`].
pub fn precheck(limits: &Limits, headers: &HeaderMap, url: &str) -> Result<(), Reply> {
    if headers.get_all(hyper::header::HOST).iter().nth(1).is_some() {
        return Err(Reply::error(400, "BadRequest", "more than one Host header"));
    }
    if url.len() > limits.url {
        return Err(Reply::error(
            414,
            "UriTooLong",
            "the request target is too long",
        ));
    }
    Ok(())
}
