//! The state of an array method that calls a Sense function once per
//! element: `xs.map(f)`, `xs.filter(f)`, `xs.reduce(f, init)` and
//! `xs.sort(key_fn)`.
//!
//! Such a call never runs the function on the Rust stack: the VM pushes
//! the function's frame with [`FrameKind::Walk`](crate::vm::FrameKind)
//! naming a heap object that holds this state, and each return feeds the
//! result in and pushes the next call (`vm/walk.rs`). So a `pause()`
//! inside the function suspends the whole fiber, and a snapshot carries
//! the walk half done like any other frame.

use crate::heap::{ObjRef, Tracer};
use crate::value::Value;

/// Which method is walking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WalkOp {
    /// `xs.map(f)`: a new array of `f(x)`.
    Map,
    /// `xs.filter(f)`: a new array of the `x` for which `f(x)` is truthy.
    Filter,
    /// `xs.reduce(f, init)`: `f(acc, x)` folded from the left.
    Reduce,
    /// `xs.sort(key_fn)`: the keys `key_fn(x)`, then a stable sort of the
    /// array in place by them.
    SortKey,
}

impl WalkOp {
    /// The method's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            WalkOp::Map => "map",
            WalkOp::Filter => "filter",
            WalkOp::Reduce => "reduce",
            WalkOp::SortKey => "sort",
        }
    }
}

/// One walk in progress.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct WalkState {
    /// Which method.
    pub op: WalkOp,
    /// The function called per element.
    pub func: Value,
    /// The array the method was called on.
    pub array: ObjRef,
    /// The elements, as they were when the method was called.
    pub items: Vec<Value>,
    /// Index of the element whose call is in progress.
    pub next: usize,
    /// What has been gathered: mapped values, kept elements, sort keys.
    pub acc: Vec<Value>,
    /// The accumulator of `reduce`.
    pub value: Value,
    /// Line of the method call (its errors report it).
    pub line: u32,
}

impl WalkState {
    pub(crate) fn trace(&self, t: &mut Tracer) {
        t.value(self.func);
        t.obj(self.array);
        t.values(&self.items);
        t.values(&self.acc);
        t.value(self.value);
    }

    /// Estimated bytes it owns beyond its slot.
    pub fn heap_bytes(&self) -> usize {
        (self.items.capacity() + self.acc.capacity()).saturating_mul(crate::heap::VALUE_BYTES)
            + std::mem::size_of::<WalkState>()
    }

    /// Every value and object it holds (snapshot validation).
    pub fn values(&self) -> impl Iterator<Item = Value> + '_ {
        [self.func, self.value, Value::Array(self.array)]
            .into_iter()
            .chain(self.items.iter().copied())
            .chain(self.acc.iter().copied())
    }
}
