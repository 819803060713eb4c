//! Builtin functions (the book: stdlib.md, agents.md).
//!
//! Each builtin is a plain Rust function over the VM and its arguments.
//! Arity is checked by the VM for fixed-arity builtins, with the
//! reference's message; variadic ones check their own and word the error
//! as the reference does. Errors from builtins carry no `[line N]` unless
//! the builtin is one of the reference's "context" builtins (`line`).

mod convert;
mod core;

pub(crate) use core::{range_plan, str_value};

use crate::error::EvalResult;
use crate::value::Value;
use crate::vm::Vm;

/// Argument `i` (nil past the end). Fixed-arity natives are only called
/// with their exact count, so this never hides a bug; it keeps damaged
/// state from ever becoming an index panic.
#[inline]
pub fn arg(args: &[Value], i: usize) -> Value {
    args.get(i).copied().unwrap_or(Value::Nil)
}

/// A native function body.
pub type NativeFn = fn(&mut Vm, &[Value]) -> EvalResult<Value>;

/// How many arguments a native takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many (checked by the VM).
    Exact(u8),
    /// The native checks the count itself.
    Variadic,
}

/// What runs when a native is called.
#[derive(Clone, Copy, Debug)]
pub enum NativeImpl {
    /// A builtin.
    Builtin(NativeFn),
    /// A host function (index into the VM's host function table).
    Host(usize),
}

/// A native function.
#[derive(Clone, Debug)]
pub struct NativeDef {
    /// Name it is bound to and printed as (`<builtin NAME>`).
    pub name: String,
    /// Argument count.
    pub arity: Arity,
    /// The body.
    pub imp: NativeImpl,
    /// Its errors report the call's line.
    pub line: bool,
    /// It accepts labeled arguments (`inference`).
    pub labeled: bool,
}

impl NativeDef {
    /// A builtin whose errors carry no line.
    pub fn new(name: &str, arity: Arity, func: NativeFn) -> Self {
        NativeDef {
            name: name.to_string(),
            arity,
            imp: NativeImpl::Builtin(func),
            line: false,
            labeled: false,
        }
    }

    /// Makes its errors report the call's line.
    pub fn with_line(mut self) -> Self {
        self.line = true;
        self
    }

    /// Lets it take labeled arguments.
    pub fn with_labels(mut self) -> Self {
        self.labeled = true;
        self
    }
}

/// Every builtin of the core language (the agent layer's natives, such as
/// `inference`, are registered by `sense-agents`).
pub fn core_natives() -> Vec<NativeDef> {
    core::natives()
}
