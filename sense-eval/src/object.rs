//! The kinds of heap objects.

use crate::agent::Agent;
use crate::heap::{ScopeRef, Tracer};
use crate::proto::ProtoId;
use crate::value::Value;

/// A string object. `ascii` lets indexing skip the code-point walk.
#[derive(Clone, Debug)]
pub struct StrObj {
    /// The text.
    pub text: Box<str>,
    /// True when every character is ASCII (one byte per code point).
    pub ascii: bool,
}

impl StrObj {
    /// Wraps `text`.
    pub fn new(text: impl Into<Box<str>>) -> Self {
        let text = text.into();
        let ascii = text.is_ascii();
        StrObj { text, ascii }
    }

    /// Length in code points.
    pub fn char_len(&self) -> usize {
        if self.ascii {
            self.text.len()
        } else {
            self.text.chars().count()
        }
    }

    /// The code point at `i` (0-based), as a string slice.
    pub fn char_at(&self, i: usize) -> Option<&str> {
        if self.ascii {
            self.text.get(i..i + 1)
        } else {
            let (start, c) = self.text.char_indices().nth(i)?;
            self.text.get(start..start + c.len_utf8())
        }
    }
}

/// A user function value: its code and the scope its `def` ran in.
#[derive(Clone, Copy, Debug)]
pub struct Closure {
    /// The compiled function.
    pub proto: ProtoId,
    /// The defining scope.
    pub env: ScopeRef,
}

/// An imported Sense module.
#[derive(Clone, Debug)]
pub struct ModuleObj {
    /// The file stem, shown as `<module NAME>`.
    pub name: String,
    /// Its top-level scope.
    pub env: ScopeRef,
}

/// Methods reachable through member access on objects (`a.verify`, `m.recall`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Placeholder for member functions added by the agent layer.
    None,
}

/// A method bound to its receiver (`<builtin recv.method>`).
#[derive(Clone, Copy, Debug)]
pub struct BoundMethod {
    /// The object the method belongs to.
    pub receiver: Value,
    /// Which method.
    pub method: Method,
}

/// A heap object.
#[derive(Debug)]
pub enum Obj {
    /// An unused slot; holds the next free index.
    Free(u32),
    /// A string.
    Str(StrObj),
    /// An array.
    Array(Vec<Value>),
    /// A user function.
    Closure(Closure),
    /// A module.
    Module(ModuleObj),
    /// A bound method.
    Bound(BoundMethod),
    /// An agent (with its fiber when paused).
    Agent(Box<Agent>),
}

impl Obj {
    pub(crate) fn trace(&self, t: &mut Tracer) {
        match self {
            Obj::Free(_) | Obj::Str(_) => {}
            Obj::Array(items) => t.values(items),
            Obj::Closure(c) => t.scope(c.env),
            Obj::Module(m) => t.scope(m.env),
            Obj::Bound(b) => t.value(b.receiver),
            Obj::Agent(a) => a.trace(t),
        }
    }
}

/// Convenience: the object of `r` if it is an agent.
pub fn as_agent(obj: &Obj) -> Option<&Agent> {
    match obj {
        Obj::Agent(a) => Some(a),
        _ => None,
    }
}
