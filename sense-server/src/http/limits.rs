//! Every limit the two HTTP services enforce, in one table.
//!
//! | limit | `sense serve` | `sense inspect` |
//! | --- | --- | --- |
//! | request body | 256 KiB | 64 KiB |
//! | request target | 8 KiB | 8 KiB |
//! | time to send the head | 10 s | 10 s |
//! | time to send the body | 10 s | 10 s |
//! | open connections (more wait in the kernel's backlog) | 10,000 | 4,096 |
//! | connections waiting to be accepted (the listen backlog) | 1,024 | 1,024 |
//!
//! The console takes smaller bodies: its requests carry a few literals,
//! never a program's data.

use std::time::Duration;

/// The limits one service enforces on every request.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest request body, in bytes (larger gets 413).
    pub body: usize,
    /// Longest request target, in bytes (longer gets 414).
    pub url: usize,
    /// How long a client may take to send a request head (then the
    /// connection is closed).
    pub head_timeout: Duration,
    /// How long a client may take to send a request body (then 408).
    pub body_timeout: Duration,
    /// Most open connections; further ones wait in the kernel's backlog.
    pub connections: usize,
    /// Connections the kernel holds until they are accepted; beyond it a
    /// client's connect is retried only after a second. (The standard
    /// library listens with 128, which a burst of clients overflows.)
    pub backlog: i32,
}

/// `sense serve`'s limits.
pub const SERVE: Limits = Limits {
    body: 256 * 1024,
    url: 8 * 1024,
    head_timeout: Duration::from_secs(10),
    body_timeout: Duration::from_secs(10),
    connections: 10_000,
    backlog: 1_024,
};

/// `sense inspect`'s limits.
pub const CONSOLE: Limits = Limits {
    body: 64 * 1024,
    url: 8 * 1024,
    head_timeout: Duration::from_secs(10),
    body_timeout: Duration::from_secs(10),
    connections: 4_096,
    backlog: 1_024,
};
