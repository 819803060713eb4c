//! The kinds of heap objects.

use crate::heap::{ObjRef, ScopeRef, Tracer};
use crate::proto::ProtoId;
use crate::symbol::Symbol;
use crate::task::Task;
use crate::value::Value;
use compact_str::CompactString;

/// A string object. `ascii` lets indexing skip the code-point walk.
///
/// The text is a `CompactString`: up to 24 bytes are held inline (most
/// keys, numbers and `split` pieces), so making and freeing such a string
/// costs no allocation; longer text lives in one heap block as before.
/// It serializes as a plain string, as `Box<str>` did.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct StrObj {
    /// The text (reads as `&str`).
    pub text: CompactString,
    /// True when every character is ASCII (one byte per code point).
    pub ascii: bool,
}

impl StrObj {
    /// Wraps `text`.
    pub fn new(text: impl Into<CompactString>) -> Self {
        let text = text.into();
        let ascii = text.is_ascii();
        StrObj { text, ascii }
    }

    /// Wraps `text` whose ASCII-ness the caller already knows (a piece of
    /// an ASCII string, the concatenation of two known strings, digits),
    /// skipping the scan.
    pub fn with_ascii(text: CompactString, ascii: bool) -> Self {
        debug_assert_eq!(ascii, text.is_ascii());
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
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Closure {
    /// The compiled function.
    pub proto: ProtoId,
    /// The defining scope.
    pub env: ScopeRef,
}

/// An imported Sense module.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ModuleObj {
    /// The file stem, shown as `<module NAME>`.
    pub name: String,
    /// Its top-level scope.
    pub env: ScopeRef,
}

/// Methods reachable through member access on objects (`a.verify`,
/// `m.recall`, and any method of an extension object).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Method {
    /// A method of an extension object (see [`crate::kind`]), by name.
    Ext(Symbol),
    /// A method of a String, Array or Map (`s.split`, `xs.map`,
    /// `m.keys`), by name (see `vm/methods.rs`).
    Builtin(Symbol),
}

impl Method {
    /// The member name.
    pub fn name(self) -> &'static str {
        match self {
            // Named through the interner: see `Vm::method_name`.
            Method::Ext(_) | Method::Builtin(_) => "",
        }
    }

    /// How many arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            // Built-in methods check their own argument counts.
            Method::Ext(_) | Method::Builtin(_) => 0,
        }
    }
}

/// A method bound to its receiver (`<builtin recv.method>`), remembering
/// where the member access happened: the kind's checks and error lines use
/// that place, as the reference's bound builtins do.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct BoundMethod {
    /// The object the method belongs to.
    pub receiver: ObjRef,
    /// Which method.
    pub method: Method,
    /// Scope of the member access.
    pub env: ScopeRef,
    /// Line of the member access.
    pub line: u32,
}

/// What an async tool call has produced so far.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum FutureState {
    /// Not finished (its fiber is parked here while not running).
    Pending,
    /// Finished with a value.
    Ready(Value),
    /// Failed; awaiting raises this every time.
    Failed(crate::error::EvalError),
}

/// The result of an `async tool` call.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct FutureObj {
    /// `tool 'NAME'`.
    pub label: String,
    /// Progress.
    pub state: FutureState,
    /// The body's fiber while pending.
    pub fiber: Option<Box<crate::vm::Fiber>>,
}

/// A heap object.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
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
    /// A task: a resumable body with its own fiber (an agent of the
    /// agent runtime), with that fiber while it is paused.
    Task(Task),
    /// An async tool's future.
    Future(Box<FutureObj>),
    /// An object of a kind registered through the seam of [`crate::kind`].
    Ext(crate::kind::ExtObj),
    /// A map (mutable, shared by reference); its value is `Value::Obj`.
    /// Last of the variants, so snapshots written before maps existed
    /// still decode.
    Map(crate::map::MapObj),
    /// The state of an array method that calls a Sense function per
    /// element (`xs.map(f)`, `filter`, `reduce`, `sort(key)`), held by the
    /// frame of the call in progress (see `vm/walk.rs`).
    Walk(Box<crate::walk::WalkState>),
}

// Every object slot is as large as the largest variant. A task is held
// unboxed (a paused agent costs no allocation for its `Task`), so it must
// not grow past the other variants: 72 bytes, set by `MapObj`.
const _: () = assert!(std::mem::size_of::<Obj>() <= 72);

impl Obj {
    pub(crate) fn trace(&self, t: &mut Tracer) {
        match self {
            Obj::Free(_) | Obj::Str(_) => {}
            Obj::Array(items) => t.values(items),
            Obj::Closure(c) => t.scope(c.env),
            Obj::Module(m) => t.scope(m.env),
            Obj::Bound(b) => {
                t.obj(b.receiver);
                t.scope(b.env);
            }
            Obj::Task(a) => a.trace(t),
            Obj::Future(x) => {
                if let FutureState::Ready(v) = x.state {
                    t.value(v);
                }
                if let Some(f) = &x.fiber {
                    f.trace(t);
                }
            }
            Obj::Ext(x) => x.0.trace(t),
            Obj::Map(m) => {
                for v in m.values() {
                    t.value(v);
                }
            }
            Obj::Walk(w) => w.trace(t),
        }
    }
}

/// Convenience: the object of `r` if it is a task.
pub fn as_task(obj: &Obj) -> Option<&Task> {
    match obj {
        Obj::Task(a) => Some(a),
        _ => None,
    }
}
