//! Sense values: small `Copy` words that point into the [`Heap`](crate::heap::Heap).
//!
//! Scalars live inline; strings, arrays, functions and every agent-layer
//! object live in the heap arena and are referred to by [`ObjRef`]. Because a
//! value is only a handle, a value kept outside the VM's roots (frames,
//! scopes, globals) may be collected — hosts exchange owned
//! [`HostValue`](crate::host::HostValue)s instead.

use crate::heap::ObjRef;

/// Index of a native function (a builtin or a host function) in the VM's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct NativeId(pub u32);

/// A Sense value.
///
/// `repr(u64)` puts the tag in its own word and the payload in the next,
/// so copying a value is two aligned moves (the default layout packs the
/// payload at odd offsets, and every copy paid for it).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
#[repr(u64)]
pub enum Value {
    /// `nil`.
    Nil,
    /// `true` / `false`.
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// An IEEE double.
    Float(f64),
    /// A string (immutable).
    Str(ObjRef),
    /// An array (mutable, shared by reference).
    Array(ObjRef),
    /// A user function (closure).
    Func(ObjRef),
    /// A builtin or host function.
    Native(NativeId),
    /// Any other heap object (module, agent, tool, action, …).
    Obj(ObjRef),
}

impl Value {
    /// True for Int and Float (never Bool).
    #[inline]
    pub fn is_number(self) -> bool {
        matches!(self, Value::Int(_) | Value::Float(_))
    }

    /// The heap object this value points to, if any.
    #[inline]
    pub fn obj_ref(self) -> Option<ObjRef> {
        match self {
            Value::Str(r) | Value::Array(r) | Value::Func(r) | Value::Obj(r) => Some(r),
            _ => None,
        }
    }

    /// Numeric value as f64 (Int converted), if a number.
    #[inline]
    pub fn as_f64(self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}

impl From<f64> for Value {
    fn from(f: f64) -> Self {
        Value::Float(f)
    }
}
