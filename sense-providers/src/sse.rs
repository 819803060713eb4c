//! Reading a `text/event-stream` (Server-Sent Events) body one event at
//! a time, as the HTML standard defines it: `data:` lines joined by
//! newlines, `event:` naming the event, comment lines (`:`) ignored, a
//! blank line ending the event. Used by the MCP Streamable HTTP client
//! and by streamed model answers.
//!
//! Nothing here grows without bound: a line or an event's data longer
//! than the limit given is an error, and each event is handed over as
//! soon as it is complete (the reader keeps one event in memory).

use std::io::{BufRead, BufReader, Read};

/// One event of the stream.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Event {
    /// The `event:` field (empty when the event named none, which the
    /// standard calls a `message` event).
    pub(crate) name: String,
    /// The `data:` lines, joined by `\n`.
    pub(crate) data: String,
}

/// Events read from a body.
pub(crate) struct EventReader<R: Read> {
    input: BufReader<R>,
    limit: usize,
    line: Vec<u8>,
}

impl<R: Read> EventReader<R> {
    /// Reads events from `body`; a line or an event's data longer than
    /// `limit` bytes is refused.
    pub(crate) fn new(body: R, limit: usize) -> Self {
        EventReader {
            input: BufReader::new(body),
            limit,
            line: Vec::new(),
        }
    }

    /// The next event; `Ok(None)` at the end of the stream (an event the
    /// stream ended in the middle of is dropped, as the standard says).
    /// Errors are the reader's (timeouts included) or a line too long.
    pub(crate) fn next_event(&mut self) -> Result<Option<Event>, std::io::Error> {
        let mut event = Event::default();
        let mut has_data = false;
        loop {
            self.line.clear();
            let mut limited = (&mut self.input).take(self.limit as u64 + 1);
            let n = limited.read_until(b'\n', &mut self.line)?;
            if n == 0 {
                return Ok(None);
            }
            if self.line.len() > self.limit {
                return Err(too_long(self.limit));
            }
            let text = String::from_utf8_lossy(&self.line);
            let text = text.trim_end_matches(['\n', '\r']);
            if text.is_empty() {
                if has_data || !event.name.is_empty() {
                    return Ok(Some(event));
                }
                continue;
            }
            if text.starts_with(':') {
                continue;
            }
            let (field, value) = match text.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (text, ""),
            };
            match field {
                "data" => {
                    if has_data {
                        event.data.push('\n');
                    }
                    event.data.push_str(value);
                    has_data = true;
                    if event.data.len() > self.limit {
                        return Err(too_long(self.limit));
                    }
                }
                "event" => event.name = value.to_string(),
                _ => {} // `id:`, `retry:` and unknown fields: not needed here
            }
        }
    }
}

fn too_long(limit: usize) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("an event of the stream is longer than {} MiB", limit >> 20),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str, limit: usize) -> Result<Vec<Event>, std::io::Error> {
        let mut r = EventReader::new(text.as_bytes(), limit);
        let mut out = Vec::new();
        while let Some(e) = r.next_event()? {
            out.push(e);
        }
        Ok(out)
    }

    #[test]
    fn reads_events_as_the_standard_defines_them() {
        let got = events(
            ": a comment\r\nevent: message\r\ndata: {\"a\":1}\r\n\r\ndata:x\ndata: y\nid: 7\n\n\
             data: cut off",
            1024,
        )
        .unwrap();
        assert_eq!(
            got,
            [
                Event {
                    name: "message".into(),
                    data: "{\"a\":1}".into()
                },
                Event {
                    name: String::new(),
                    data: "x\ny".into()
                },
            ]
        );
    }

    #[test]
    fn long_lines_and_events_are_refused() {
        assert!(events(&format!("data: {}\n\n", "x".repeat(100)), 50).is_err());
        let many = "data: 0123456789\n".repeat(10);
        assert!(events(&format!("{many}\n"), 64).is_err());
    }
}
