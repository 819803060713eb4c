//! The LSP base protocol on stdin/stdout (`Content-Length` framing), with
//! limits: `lsp_server::Connection::stdio` trusts the length a client
//! sends and would try to allocate whatever it says, so a corrupt header
//! could abort the process. Here a header line longer than
//! [`MAX_HEADER_LINE`] or a body longer than [`MAX_MESSAGE`] is a clear
//! error instead. The messages themselves are `lsp_server`'s.

use lsp_server::{Connection, Message};
use std::io::{BufRead, Read, Write};
use std::thread::JoinHandle;

/// The largest message accepted (a whole document travels in one).
pub const MAX_MESSAGE: usize = 64 << 20;
/// The longest header line accepted.
pub const MAX_HEADER_LINE: usize = 1024;

/// The reader and writer threads of a connection.
pub struct Threads {
    reader: JoinHandle<Result<(), String>>,
    writer: JoinHandle<Result<(), String>>,
}

impl Threads {
    /// Waits for the writer to flush everything the server sent; returns
    /// the first transport error. The reader is only waited for if it has
    /// already stopped (after `exit` it may sit in a read on stdin that
    /// never returns).
    pub fn join(self) -> Result<(), String> {
        let written = self.writer.join().map_err(|_| "writer thread panicked")?;
        if self.reader.is_finished() {
            self.reader.join().map_err(|_| "reader thread panicked")??;
        }
        written
    }
}

/// A connection over this process's stdin and stdout.
pub fn stdio() -> (Connection, Threads) {
    let (server, client) = Connection::memory();
    let Connection { sender, receiver } = client;
    let reader = std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        while let Some(msg) = read_message(&mut input)? {
            let exit = matches!(&msg, Message::Notification(n) if n.method == "exit");
            if sender.send(msg).is_err() || exit {
                break;
            }
        }
        Ok(())
    });
    let writer = std::thread::spawn(move || {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        for msg in receiver {
            msg.write(&mut out).map_err(|e| e.to_string())?;
        }
        out.flush().map_err(|e| e.to_string())
    });
    (server, Threads { reader, writer })
}

/// Reads one framed message; `None` at the end of input.
pub fn read_message(input: &mut impl BufRead) -> Result<Option<Message>, String> {
    let mut length = None;
    loop {
        let mut line = Vec::new();
        let n = input
            .by_ref()
            .take(MAX_HEADER_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return if length.is_none() {
                Ok(None)
            } else {
                Err("input ended inside a message header".to_string())
            };
        }
        if n > MAX_HEADER_LINE {
            return Err(format!("header line longer than {MAX_HEADER_LINE} bytes"));
        }
        let text = String::from_utf8_lossy(&line);
        let Some(text) = text.strip_suffix("\r\n") else {
            return Err(format!("malformed header: {text:?}"));
        };
        if text.is_empty() {
            break;
        }
        let Some((name, value)) = text.split_once(": ") else {
            return Err(format!("malformed header: {text:?}"));
        };
        if name.eq_ignore_ascii_case("Content-Length") {
            let n: usize = value
                .parse()
                .map_err(|_| format!("bad Content-Length: {value:?}"))?;
            if n > MAX_MESSAGE {
                return Err(format!(
                    "message of {n} bytes is larger than the limit of {MAX_MESSAGE}"
                ));
            }
            length = Some(n);
        }
    }
    let n = length.ok_or("a message without Content-Length")?;
    let mut body = vec![0; n];
    input.read_exact(&mut body).map_err(|e| e.to_string())?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| format!("malformed message: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Result<Option<Message>, String> {
        read_message(&mut std::io::Cursor::new(bytes.to_vec()))
    }

    #[test]
    fn frames_and_limits() {
        let body = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        assert!(matches!(
            read(framed.as_bytes()),
            Ok(Some(Message::Notification(_)))
        ));
        assert!(matches!(read(b""), Ok(None)));
        let huge = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE + 1);
        assert!(
            read(huge.as_bytes())
                .unwrap_err()
                .contains("larger than the limit")
        );
        let long = vec![b'x'; MAX_HEADER_LINE * 4];
        assert!(read(&long).unwrap_err().contains("header line longer"));
        assert!(
            read(b"garbage\r\n\r\n")
                .unwrap_err()
                .contains("malformed header")
        );
        assert!(
            read(b"Content-Length: 3\r\n\r\n{}}")
                .unwrap_err()
                .contains("malformed message")
        );
        assert!(read(b"Content-Length: 9\r\n\r\n{}").is_err());
    }
}
