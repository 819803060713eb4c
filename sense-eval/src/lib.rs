//! The Sense evaluator: compiler, bytecode VM, values, heap and builtins.
//!
//! [`Vm`] is the entry point: it compiles source files (via
//! `sense-syntax`) into [`proto::Proto`]s and runs them on fibers. The run
//! loop never recurses on the Rust stack for Sense calls, so any fiber can
//! be suspended at any instruction and resumed later — the mechanism
//! agents are built on. The host-facing protocol (the `Runtime`, handles,
//! snapshots) lives in `sense-agents`.
// Lints (no unsafe, docs on every public item, no unwrap/expect/
// indexing/panic in library code) come from the workspace `[lints]` table.

pub mod builtins;
pub mod compile;
pub mod disasm;
pub mod error;
pub mod error_value;
pub mod heap;
pub mod host;
pub mod kind;
mod kind_macros;
pub mod map;
pub mod numfmt;
pub mod object;
pub mod op;
pub mod proto;
pub mod scope;
pub mod snapshot;
pub mod stdlib;
pub mod symbol;
pub mod task;
pub mod traceback;
pub mod types;
pub mod value;
pub mod vm;
pub mod walk;

pub use error::{ErrorClass, EvalError, EvalResult};
pub use host::{HostFn, HostReturn, HostTask, HostValue};
pub use value::Value;
pub use vm::{Config, Exit, Vm};
