//! Just enough HTTP/1.1 for the console, on std sockets: one request per
//! connection (every answer says `Connection: close`), a `Content-Length`
//! body at most [`BODY_LIMIT`] bytes, and one deadline for the whole
//! request — a client that has not sent its headers and body within
//! [`READ_TIMEOUT`] gets 408 and is dropped, however it trickles bytes.
//! Heads are parsed by `httparse` (the parser hyper uses).
//!
//! `tiny_http`, which this replaced, offers no socket timeouts, and setting
//! them on its listening socket makes its accept loop end.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// How long a client has to send a whole request (and, separately, to take
/// the answer).
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Largest request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// Largest request head (request line and headers).
const HEAD_LIMIT: usize = 16 * 1024;

/// Most headers in one request.
const MAX_HEADERS: usize = 64;

/// A request head read from a connection; its body is read on demand.
pub struct Request {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    stream: TcpStream,
    deadline: Instant,
    /// Body bytes that arrived with the head.
    early: Vec<u8>,
}

/// Why no request could be read: the answer to send, if any.
pub enum HeadError {
    /// Answer with this status and message, then close.
    Reply(TcpStream, u16, &'static str, String),
    /// The client went away or sent nothing: just close.
    Gone,
}

impl Request {
    /// Reads one request head from `stream` (within [`READ_TIMEOUT`]).
    pub fn read(stream: TcpStream) -> Result<Request, HeadError> {
        let deadline = Instant::now() + READ_TIMEOUT;
        let _ = stream.set_write_timeout(Some(READ_TIMEOUT));
        let mut buf = Vec::with_capacity(1024);
        let mut chunk = [0u8; 4096];
        loop {
            let n = match read_before(&stream, deadline, &mut chunk) {
                Ok(0) => return Err(HeadError::Gone),
                Ok(n) => n,
                Err(e) if is_timeout(&e) => {
                    return Err(if buf.is_empty() {
                        HeadError::Gone
                    } else {
                        HeadError::Reply(stream, 408, "RequestTimeout", timeout_message())
                    });
                }
                Err(_) => return Err(HeadError::Gone),
            };
            buf.extend_from_slice(&chunk[..n]);
            let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut parsed = httparse::Request::new(&mut headers);
            match parsed.parse(&buf) {
                Ok(httparse::Status::Complete(len)) => {
                    let head = Head::from(&parsed);
                    return Ok(Request {
                        method: head.method,
                        url: head.url,
                        headers: head.headers,
                        stream,
                        deadline,
                        early: buf[len..].to_vec(),
                    });
                }
                Ok(httparse::Status::Partial) if buf.len() <= HEAD_LIMIT => {}
                Ok(httparse::Status::Partial) | Err(httparse::Error::TooManyHeaders) => {
                    return Err(HeadError::Reply(
                        stream,
                        431,
                        "RequestHeaderFieldsTooLarge",
                        format!(
                            "request heads are limited to {HEAD_LIMIT} bytes and {MAX_HEADERS} headers"
                        ),
                    ));
                }
                Err(e) => {
                    return Err(HeadError::Reply(
                        stream,
                        400,
                        "BadRequest",
                        format!("malformed HTTP request: {e}"),
                    ));
                }
            }
        }
    }

    /// The method, as sent.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The request target (path and query).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The first header called `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Reads the body: `Ok(None)` if it is larger than `limit`; a
    /// `TimedOut` error if it did not arrive before the deadline.
    pub fn body(&mut self, limit: usize) -> io::Result<Option<Vec<u8>>> {
        if self.header("Transfer-Encoding").is_some() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "chunked request bodies are not supported; send Content-Length",
            ));
        }
        let length = match self.header("Content-Length") {
            None => 0,
            Some(v) => v.trim().parse::<usize>().map_err(|_| {
                io::Error::new(io::ErrorKind::InvalidInput, "a malformed Content-Length")
            })?,
        };
        if length > limit {
            return Ok(None);
        }
        if self
            .header("Expect")
            .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"))
        {
            self.stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        }
        let mut body = std::mem::take(&mut self.early);
        body.truncate(length);
        let mut chunk = [0u8; 8192];
        while body.len() < length {
            let want = (length - body.len()).min(chunk.len());
            match read_before(&self.stream, self.deadline, &mut chunk[..want])? {
                0 => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the client closed the connection in the middle of the body",
                    ));
                }
                n => body.extend_from_slice(&chunk[..n]),
            }
        }
        Ok(Some(body))
    }

    /// Sends the answer and closes the connection.
    pub fn respond(self, status: u16, headers: &[(&str, &str)], body: &[u8]) {
        respond(self.stream, status, headers, body);
    }
}

/// Writes one answer to `stream` and closes it.
pub fn respond(mut stream: TcpStream, status: u16, headers: &[(&str, &str)], body: &[u8]) {
    let _ = stream.set_write_timeout(Some(READ_TIMEOUT));
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body))
        .and_then(|()| stream.flush());
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

/// The message of a 408 answer.
pub fn timeout_message() -> String {
    format!(
        "the request took longer than {} s to arrive",
        READ_TIMEOUT.as_secs()
    )
}

/// True for the errors a read timeout gives (they differ by platform).
pub fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
    )
}

/// One read that gives up at `deadline`.
fn read_before(mut stream: &TcpStream, deadline: Instant, buf: &mut [u8]) -> io::Result<usize> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::ErrorKind::TimedOut.into());
    }
    stream.set_read_timeout(Some(left))?;
    stream.read(buf)
}

/// The owned parts of a parsed head.
struct Head {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
}

impl Head {
    fn from(parsed: &httparse::Request<'_, '_>) -> Head {
        Head {
            method: parsed.method.unwrap_or("").to_string(),
            url: parsed.path.unwrap_or("").to_string(),
            headers: parsed
                .headers
                .iter()
                .map(|h| {
                    (
                        h.name.to_string(),
                        String::from_utf8_lossy(h.value).trim().to_string(),
                    )
                })
                .collect(),
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Entity",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}
