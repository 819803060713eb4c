//! Server-sent events: `GET /api/instances/{id}/events` streams the
//! instance's state now and after every change (paused again, completed,
//! failed, deleted) as `event: state` messages whose data is the JSON the
//! API gives for the instance; the stream ends after a final state. It is
//! built on the long-poll waiters, so it holds no thread, and changes
//! made by other processes of the fleet arrive too. While a run of the
//! instance in this process streams a model's answer, each piece arrives
//! as an `event: text` message (`{"id", "agent", "model", "text"}`; see
//! `texts.rs`). A comment line every [`KEEPALIVE`] keeps proxies from
//! closing a quiet stream.

use super::http::{Access, Reply, check_access};
use bytes::Bytes;
use hyper::body::{Body, Frame};
use serde_json::{Value as Json, json};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// How often a quiet stream gets a comment line.
const KEEPALIVE: Duration = Duration::from_secs(25);

/// The response body: whatever the producer task sends.
pub struct Events(tokio::sync::mpsc::Receiver<Bytes>);

impl Body for Events {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|m| m.map(|b| Ok(Frame::data(b))))
    }
}

/// The id if `path` is `/api/instances/{id}/events`.
pub fn instance_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/api/instances/")?;
    let (id, tail) = rest.split_once('/')?;
    (tail == "events" && !id.is_empty()).then_some(id)
}

fn message(state: &Json) -> Bytes {
    Bytes::from(format!("event: state\ndata: {state}\n\n"))
}

fn finished(state: &Json) -> bool {
    state["deleted"] == true || matches!(state["status"].as_str(), Some("completed" | "failed"))
}

/// Opens the stream, or answers with an error.
pub async fn open(
    engine: Arc<super::engine::Engine>,
    access: &Access,
    headers: &hyper::HeaderMap,
    id: String,
) -> Result<Events, Reply> {
    check_access(access, headers)?;
    let lookup = (engine.clone(), id.clone());
    let first = tokio::task::spawn_blocking(move || lookup.0.describe(&lookup.1))
        .await
        .map_err(|_| Reply::error(500, "InternalError", "the lookup failed"))?
        .map_err(Reply::from_api)?;
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    relay_texts(engine.texts.subscribe(), tx.downgrade(), id.clone());
    tokio::spawn(async move {
        let mut state = first;
        loop {
            if tx.send(message(&state)).await.is_err() || finished(&state) {
                return;
            }
            let version = state["version"].as_i64().unwrap_or(0);
            // Wait for the next change, with a comment line each quiet period.
            loop {
                let Some(answer) = engine.waiters.park(&id, version, KEEPALIVE) else {
                    return;
                };
                let Ok(reply) = answer.await else { return };
                let body = reply.body_json();
                if body["error"].is_object() {
                    let _ = tx
                        .send(message(&json!({"id": id, "error": body["error"]})))
                        .await;
                    return;
                }
                if body["changed"] == true {
                    state = body;
                    if let Some(o) = state.as_object_mut() {
                        o.remove("changed");
                    }
                    break;
                }
                if tx
                    .send(Bytes::from_static(b": keep-alive\n\n"))
                    .await
                    .is_err()
                {
                    return;
                }
            }
        }
    });
    Ok(Events(rx))
}

/// Passes the streamed pieces of instance `id` on to the stream, until
/// the stream has ended (the state task dropped its sender, or the client
/// went away).
fn relay_texts(
    mut pieces: tokio::sync::broadcast::Receiver<(String, Json)>,
    stream: tokio::sync::mpsc::WeakSender<Bytes>,
    id: String,
) {
    use tokio::sync::broadcast::error::RecvError;
    tokio::spawn(async move {
        loop {
            let piece = match pieces.recv().await {
                Ok((of, piece)) if of == id => piece,
                Ok(_) | Err(RecvError::Lagged(_)) => {
                    if stream.upgrade().is_none() {
                        return;
                    }
                    continue;
                }
                Err(RecvError::Closed) => return,
            };
            let Some(tx) = stream.upgrade() else { return };
            let text = Bytes::from(format!("event: text\ndata: {piece}\n\n"));
            if tx.send(text).await.is_err() {
                return;
            }
        }
    });
}
