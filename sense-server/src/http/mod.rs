//! The one HTTP stack under both services: hyper (HTTP/1.1) on tokio,
//! with one limit table ([`limits`]), one access check ([`access`]), one
//! way to read a JSON body ([`body`]) and one response and error shape
//! ([`reply`]). `sense serve` ([`crate::serve`]) and `sense inspect`
//! ([`crate::inspect`]) differ only in their routes and in where the work
//! runs: the service's on blocking threads, the console's on the one
//! thread that owns its runtime (requests reach it through a channel).
//!
//! Why hyper on tokio: every connection is a task, so a client that is
//! slow to send its head or body, or slow to read its answer, costs a
//! task and a socket, never a thread; heads and bodies have deadlines
//! ([`limits::Limits`]), after which the connection is closed (a stalled
//! body gets 408 first).

pub mod access;
pub mod body;
pub mod limits;
pub mod reply;
pub mod server;

pub use access::{Access, check_access};
pub use body::{parse_object, read_body, read_object};
pub use limits::Limits;
pub use reply::Reply;
pub use server::{accept_loop, precheck, runtime};

#[cfg(test)]
mod tests;
