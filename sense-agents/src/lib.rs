//! The host-facing Sense runtime: run programs, drive agents, answer their
//! questions, ask them to pause from another thread, and (later) save them.
//!
//! [`Runtime`] wraps one [`sense_eval::Vm`]. Everything runs on the thread
//! that calls it; no OS thread is ever created for an agent.
// Lints (no unsafe, docs on every public item, no unwrap/expect/
// indexing/panic in library code) come from the workspace `[lints]` table.

mod agent_value;
pub mod audit;
pub mod deadline;
mod embed;
mod error;
mod ffi_support;
mod handle;
mod held;
pub mod inspect_support;
mod json_host;
pub mod kinds;
mod listing;
pub mod literal;
mod maintenance;
pub mod memory;
pub mod policy;
pub mod provider;
mod report;
mod runtime;
mod snapshot;
mod status;
pub mod stdlib;
pub mod usage;
mod utc;

pub use runtime::read_source;

pub use embed::{ValueRef, is_bindable_name};
pub use error::Error;
pub use handle::{AgentId, PauseHandle};
pub use held::HeldId;
pub use provider::{ChatMessage, ModelProvider, ModelResponse, ModelTurn, ToolCall, ToolSpec};
pub use report::AgentReport;
pub use runtime::Runtime;
pub use runtime::{Progress, State};
/// The seam through which object kinds and natives are added.
pub use sense_eval::builtins::{Arity, NativeDef};
pub use sense_eval::heap::{Heap, ObjRef, ScopeRef, Tracer};
pub use sense_eval::kind;
pub use sense_eval::traceback::TraceFrame;
pub use sense_eval::vm::{CancelHandle, FrameReport};
pub use sense_eval::{Config, ErrorClass, EvalError, HostReturn, HostTask, HostValue};
pub use sense_eval::{EvalResult, Value, Vm};
pub use status::{AgentStatus, PauseKind};
