//! The host-facing Sense runtime: run programs, drive agents, answer their
//! questions, ask them to pause from another thread, and (later) save them.
//!
//! [`Runtime`] wraps one [`sense_eval::Vm`]. Everything runs on the thread
//! that calls it; no OS thread is ever created for an agent.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// Input must never reach a panic: no unwrap/expect/indexing in library code
// (tests may use them).
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

mod agent_value;
mod embed;
mod error;
mod ffi_support;
mod handle;
pub mod inspect_support;
mod runtime;
mod snapshot;

pub use runtime::read_source;

pub use embed::ValueRef;
pub use error::Error;
pub use handle::{AgentId, PauseHandle};
pub use runtime::Runtime;
pub use runtime::{Progress, State};
pub use sense_eval::agent::{AgentStatus, PauseKind};
pub use sense_eval::provider::{
    ChatMessage, ModelProvider, ModelResponse, ModelTurn, ToolCall, ToolSpec,
};
pub use sense_eval::vm::{AgentReport, FrameReport};
pub use sense_eval::{Config, ErrorClass, EvalError, HostAgent, HostReturn, HostValue};
