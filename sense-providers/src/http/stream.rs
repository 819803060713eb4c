//! One streamed POST (`"stream": true`): the answer is a `text/event-stream`
//! read one event at a time, so a model's text reaches the program as it
//! is written. Retried like [`Http::post_json`](super::Http::post_json)
//! while nothing has been read (a failed connection, 429, a 5xx); once
//! events have been handed over, a failure is final (the program has
//! seen part of the answer).

use super::{Attempt, Http, error_message, redact, retry_after, status_class};
use crate::sse::{Event, EventReader};
use serde_json::Value as Json;

/// The longest event accepted from a model's stream.
const MAX_EVENT: usize = 16 * 1024 * 1024;

/// What the handler of an event says.
pub(crate) enum Next {
    /// Read on.
    More,
    /// The answer is complete: stop reading.
    Done,
}

impl Http {
    /// POSTs `body` and hands each event of the streamed answer to
    /// `on_event` until it says [`Next::Done`] or the stream ends. Errors
    /// read like [`post_json`](Self::post_json)'s, `secret` blanked out.
    pub(crate) fn post_stream(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &Json,
        secret: &str,
        on_event: &mut dyn FnMut(&Event) -> Result<Next, String>,
    ) -> Result<(), String> {
        self.usable()?;
        let text = body.to_string();
        let mut attempt = 0;
        let resp = loop {
            match self.open_stream(url, headers, &text) {
                Ok(r) => break r,
                Err(Attempt::Retry { error, .. }) if attempt >= self.settings.max_retries => {
                    return Err(redact(&error, secret));
                }
                Err(Attempt::Retry { after, .. }) => {
                    self.wait_to_retry(after, attempt);
                    attempt += 1;
                }
                Err(Attempt::Fatal(e)) => return Err(redact(&e, secret)),
                Err(Attempt::Done(_)) => return Err("internal error: no stream".into()),
            }
        };
        let mut events = EventReader::new(resp.into_body().into_reader(), MAX_EVENT);
        loop {
            let event = match events.next_event() {
                Ok(Some(e)) => e,
                Ok(None) => return Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                    return Err("APITimeoutError: Request timed out.".into());
                }
                Err(e) => return Err(redact(&format!("APIConnectionError: {e}"), secret)),
            };
            if let Next::Done = on_event(&event).map_err(|e| redact(&e, secret))? {
                return Ok(());
            }
        }
    }

    /// Sends the request; the response when it is a 2xx (its body not yet
    /// read), else what to do about it.
    fn open_stream(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Result<ureq::http::Response<ureq::Body>, Attempt> {
        let mut req = self
            .agent()
            .post(url)
            .content_type("application/json")
            .header("Accept", "text/event-stream");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let mut resp = match req.send(body) {
            Ok(r) => r,
            Err(ureq::Error::Timeout(_)) => {
                return Err(Attempt::Retry {
                    error: "APITimeoutError: Request timed out.".into(),
                    after: None,
                });
            }
            Err(
                e
                @ (ureq::Error::Io(_) | ureq::Error::ConnectionFailed | ureq::Error::HostNotFound),
            ) => {
                return Err(Attempt::Retry {
                    error: format!("APIConnectionError: Connection error. ({e})"),
                    after: None,
                });
            }
            Err(e) => return Err(Attempt::Fatal(format!("APIConnectionError: {e}"))),
        };
        let status = resp.status().as_u16();
        if (200..300).contains(&status) {
            return Ok(resp);
        }
        let after = retry_after(resp.headers());
        let text = resp
            .body_mut()
            .with_config()
            .limit(64 * 1024)
            .read_to_string()
            .unwrap_or_default();
        let error = format!(
            "{}: Error code: {status} - {}",
            status_class(status),
            error_message(&text)
        );
        if status == 429 || status >= 500 {
            Err(Attempt::Retry { error, after })
        } else {
            Err(Attempt::Fatal(error))
        }
    }
}
