//! The console's connections: every request gets a thread of its own that
//! reads its body and writes its answer, so a client that stalls — in its
//! headers, its body or while reading the answer — holds up nobody but
//! itself. Only the work on the runtime (which lives on one thread) is
//! queued: request threads hand it a [`Job`] and wait for the [`Reply`].
//!
//! Threads are bounded two ways: a request must arrive whole within
//! [`http::READ_TIMEOUT`] (and its answer be taken as fast), and at most
//! [`MAX_IN_FLIGHT`] connections are served at once (the rest get 503
//! straight away).

use super::api::{self, Reply, Route};
use super::http::{self, HeadError};
use serde_json::Value as Json;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Sender, channel};

/// Most connections served at once.
const MAX_IN_FLIGHT: usize = 64;

/// Work for the runtime's thread: a checked request and where its answer
/// goes.
pub struct Job {
    /// What the request asks for.
    pub route: Route,
    /// Its JSON body (empty for GET).
    pub body: serde_json::Map<String, Json>,
    /// Where the answer goes.
    pub reply: Sender<Reply>,
}

/// Binds 127.0.0.1:`port` and starts serving: every request becomes a
/// [`Job`] on `jobs` once it has arrived whole. Returns the port actually
/// bound.
pub fn listen(port: u16, jobs: Sender<Job>) -> std::io::Result<u16> {
    let listener = TcpListener::bind(("127.0.0.1", port))?;
    let port = listener.local_addr()?.port();
    let in_flight = Arc::new(AtomicUsize::new(0));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            // A failed accept (a connection reset before we took it, no
            // file descriptors left) concerns that connection only.
            let Ok(stream) = stream else { continue };
            admit(stream, port, &jobs, &in_flight);
        }
    });
    Ok(port)
}

fn admit(stream: TcpStream, port: u16, jobs: &Sender<Job>, in_flight: &Arc<AtomicUsize>) {
    if in_flight.fetch_add(1, Ordering::AcqRel) >= MAX_IN_FLIGHT {
        in_flight.fetch_sub(1, Ordering::AcqRel);
        let reply = api::busy();
        return http::respond(
            stream,
            reply.status,
            &[("Content-Type", reply.content_type)],
            &reply.body,
        );
    }
    let jobs = jobs.clone();
    let in_flight = in_flight.clone();
    std::thread::spawn(move || {
        serve(stream, port, &jobs);
        in_flight.fetch_sub(1, Ordering::AcqRel);
    });
}

/// One connection, on its own thread.
fn serve(stream: TcpStream, port: u16, jobs: &Sender<Job>) {
    let mut request = match http::Request::read(stream) {
        Ok(r) => r,
        Err(HeadError::Gone) => return,
        Err(HeadError::Reply(stream, status, class, message)) => {
            let reply = Reply::error(status, class, message);
            return http::respond(
                stream,
                reply.status,
                &[("Content-Type", reply.content_type)],
                &reply.body,
            );
        }
    };
    let route = match api::check(port, &request) {
        Ok(route) => route,
        Err(reply) => return api::respond(request, reply),
    };
    let body = if route.method() == "POST" {
        match api::read_body(&mut request) {
            Ok(body) => body,
            Err(reply) => return api::respond(request, reply),
        }
    } else {
        serde_json::Map::new()
    };
    let (tx, rx) = channel();
    let job = Job {
        route,
        body,
        reply: tx,
    };
    if jobs.send(job).is_err() {
        return;
    }
    if let Ok(reply) = rx.recv() {
        api::respond(request, reply);
    }
}
