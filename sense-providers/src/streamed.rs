//! Streamed answers (`ask(prompt, on_text: f)`): the text pieces of each
//! API's event stream, handed over as they arrive.
//!
//! OpenAI Chat Completions with `"stream": true` sends data-only events,
//! each a `chat.completion.chunk` whose `choices[0].delta.content` holds
//! the next piece (`delta.refusal` when the model refuses), and ends with
//! `data: [DONE]`. Anthropic Messages with `"stream": true` sends named
//! events: `content_block_delta` with a `text_delta` holds the next piece,
//! `message_stop` ends the answer, `error` reports a failure mid-stream;
//! `ping` and `content_block_start`/`stop` carry nothing this needs.
//!
//! What the call spent (issue 25): OpenAI sends it only when asked with
//! `"stream_options": {"include_usage": true}`, in one more chunk before
//! `[DONE]` whose `choices` is empty (every other chunk's `usage` is
//! null). Anthropic sends the input and cache counts in `message_start`'s
//! `message.usage` and the output count (cumulative) in `message_delta`'s
//! `usage`; the later counts overlay the earlier ones.

use crate::http::{Http, Next};
use crate::sse::Event;
use sense_agents::usage::Usage;
use serde_json::Value as Json;

/// A streamed answer: its whole text and what the call spent, when the
/// API said.
pub(crate) struct Streamed {
    /// Every piece, in order.
    pub(crate) text: String,
    /// The call's token counts.
    pub(crate) usage: Option<Usage>,
}

/// Where to send a streamed request, and how.
pub(crate) struct Call<'a> {
    /// The endpoint.
    pub(crate) url: &'a str,
    /// Headers besides the content type.
    pub(crate) headers: &'a [(&'a str, &'a str)],
    /// Blanked out of every error.
    pub(crate) secret: &'a str,
}

/// The text of a streamed answer as it arrives.
pub(crate) struct Pieces<'a> {
    /// Every piece so far, in order.
    text: String,
    /// Set when the API said the answer is complete.
    finished: bool,
    on_text: &'a mut dyn FnMut(&str) -> Result<(), String>,
}

impl Pieces<'_> {
    /// Adds a piece (an empty one is no piece) and hands it over.
    fn push(&mut self, piece: &str) -> Result<(), String> {
        if !piece.is_empty() {
            self.text.push_str(piece);
            (self.on_text)(piece)?;
        }
        Ok(())
    }

    /// The whole text, unless the stream ended before the answer did.
    fn whole(self) -> Result<String, String> {
        if !self.finished {
            return Err("APIConnectionError: the stream ended before the answer did".into());
        }
        Ok(self.text)
    }
}

/// How one API's event stream is read.
pub(crate) trait Reader: Default {
    /// Reads one event: its pieces of text go to `pieces`.
    fn event(&mut self, e: &Event, pieces: &mut Pieces<'_>) -> Result<Next, String>;

    /// The answer, once the stream has ended.
    fn finish(self, pieces: Pieces<'_>) -> Result<Streamed, String>;
}

/// The streamed answer to `call`: its text, after `on_text` has seen
/// every piece, read by `R`.
pub(crate) fn read<R: Reader>(
    http: &Http,
    call: &Call<'_>,
    body: &Json,
    on_text: &mut dyn FnMut(&str) -> Result<(), String>,
) -> Result<Streamed, String> {
    let mut reader = R::default();
    let mut pieces = Pieces {
        text: String::new(),
        finished: false,
        on_text,
    };
    http.post_stream(call.url, call.headers, body, call.secret, &mut |e| {
        reader.event(e, &mut pieces)
    })?;
    reader.finish(pieces)
}

/// An OpenAI-compatible API's stream. A refusal is an error naming it.
#[derive(Default)]
pub(crate) struct OpenAi {
    usage: Option<Usage>,
    refusal: String,
}

impl Reader for OpenAi {
    fn event(&mut self, e: &Event, pieces: &mut Pieces<'_>) -> Result<Next, String> {
        let data = e.data.trim();
        if data == "[DONE]" {
            pieces.finished = true;
            return Ok(Next::Done);
        }
        let chunk = chunk_json(data)?;
        if let Some(err) = chunk.get("error") {
            return Err(format!("APIError: {}", error_text(err)));
        }
        if let Some(u) = crate::usage::openai(&chunk) {
            self.usage = Some(u);
        }
        let delta = chunk.pointer("/choices/0/delta");
        if let Some(piece) = delta.and_then(|d| d.get("content")).and_then(Json::as_str) {
            pieces.push(piece)?;
        }
        if let Some(r) = delta.and_then(|d| d.get("refusal")).and_then(Json::as_str) {
            self.refusal.push_str(r);
        }
        if chunk
            .pointer("/choices/0/finish_reason")
            .is_some_and(|f| !f.is_null())
        {
            pieces.finished = true;
        }
        Ok(Next::More)
    }

    fn finish(self, pieces: Pieces<'_>) -> Result<Streamed, String> {
        if !self.refusal.trim().is_empty() {
            return Err(format!("the model refused: {}", self.refusal.trim()));
        }
        Ok(Streamed {
            text: pieces.whole()?,
            usage: self.usage,
        })
    }
}

/// The Anthropic Messages API's stream. A refusal (`stop_reason`
/// `refusal`) is an error.
#[derive(Default)]
pub(crate) struct Anthropic {
    usage: serde_json::Map<String, Json>,
    stop_reason: String,
}

impl Reader for Anthropic {
    fn event(&mut self, e: &Event, pieces: &mut Pieces<'_>) -> Result<Next, String> {
        let data = chunk_json(e.data.trim())?;
        let kind = data
            .get("type")
            .and_then(Json::as_str)
            .unwrap_or(e.name.as_str());
        match kind {
            "message_start" => overlay(&mut self.usage, data.pointer("/message/usage")),
            "content_block_delta" => {
                let delta = data.get("delta");
                if delta.and_then(|d| d.get("type")).and_then(Json::as_str) == Some("text_delta")
                    && let Some(piece) = delta.and_then(|d| d.get("text")).and_then(Json::as_str)
                {
                    pieces.push(piece)?;
                }
            }
            "message_delta" => {
                overlay(&mut self.usage, data.get("usage"));
                if let Some(r) = data.pointer("/delta/stop_reason").and_then(Json::as_str) {
                    self.stop_reason = r.to_string();
                }
            }
            "message_stop" => {
                pieces.finished = true;
                return Ok(Next::Done);
            }
            "error" => {
                let err = data.get("error").unwrap_or(&Json::Null);
                return Err(format!("APIError: {}", error_text(err)));
            }
            _ => {}
        }
        Ok(Next::More)
    }

    fn finish(self, pieces: Pieces<'_>) -> Result<Streamed, String> {
        if self.stop_reason == "refusal" {
            // The words of the answer that is not streamed.
            return Err(if pieces.text.trim().is_empty() {
                "the model refused to answer (stop_reason: refusal)".to_string()
            } else {
                format!("the model refused: {}", pieces.text.trim())
            });
        }
        let usage = (!self.usage.is_empty())
            .then(|| crate::usage::anthropic(&serde_json::json!({ "usage": self.usage })))
            .flatten();
        Ok(Streamed {
            text: pieces.whole()?,
            usage,
        })
    }
}

/// Copies the counts `from` reports (nulls left out) over `into`.
fn overlay(into: &mut serde_json::Map<String, Json>, from: Option<&Json>) {
    if let Some(from) = from.and_then(Json::as_object) {
        for (k, v) in from {
            if !v.is_null() {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}

fn chunk_json(data: &str) -> Result<Json, String> {
    serde_json::from_str::<Json>(data)
        .ok()
        .filter(Json::is_object)
        .ok_or_else(|| {
            format!(
                "APIResponseValidationError: an event of the streamed answer is not a JSON object: {}",
                crate::http::preview(data)
            )
        })
}

/// `message (type)` of an error object.
fn error_text(err: &Json) -> String {
    let message = err
        .get("message")
        .and_then(Json::as_str)
        .map_or_else(|| err.to_string(), str::to_string);
    match err.get("type").and_then(Json::as_str) {
        Some(t) => format!("{message} ({t})"),
        None => message,
    }
}
