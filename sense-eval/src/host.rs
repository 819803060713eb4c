//! Values and functions that cross between Sense and a host program.
//!
//! A [`HostValue`] owns its data (a deep copy), so a host can keep it as
//! long as it likes while the VM's collector moves on. Host functions
//! receive and return host values; returning [`HostReturn::Suspend`] from
//! inside a task pauses that task, and the value it is later resumed
//! with becomes the function call's result.

use crate::error::{EvalError, EvalResult};
use crate::heap::ObjRef;
use crate::object::Obj;
use crate::value::Value;
use crate::vm::Vm;
use crate::vm::graph::{Step, Walk};
use std::fmt;

/// An owned Sense value as a host sees it.
///
/// Plain data converts both ways (Rust values convert with `into()`);
/// a task (an agent of the agent runtime) comes out as
/// [`HostValue::Task`], which names it and goes back in as the same task;
/// anything else comes out as
/// [`HostValue::Opaque`], a description.
///
/// ```
/// use sense_eval::HostValue;
///
/// let v: HostValue = vec![HostValue::from(1), "two".into(), ().into()].into();
/// assert_eq!(v.type_name(), "Array");
/// assert_eq!(v.to_string(), "[1, two, nil]"); // as `print` shows it
/// assert_eq!(HostValue::from("hi").as_str(), Some("hi"));
/// assert_eq!(HostValue::from(42).as_int(), Some(42));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum HostValue {
    /// `nil`.
    Nil,
    /// A Bool.
    Bool(bool),
    /// An Int.
    Int(i64),
    /// A Float.
    Float(f64),
    /// A String.
    Str(String),
    /// An Array (copied deeply).
    List(Vec<HostValue>),
    /// A Map (copied deeply): its entries in insertion order. Keys are
    /// `Str`, `Int` or `Bool`; anything else is refused on the way in.
    Map(Vec<(HostValue, HostValue)>),
    /// A task (an agent of the agent runtime): which one, and how `print`
    /// showed it when it was copied out. Passed back into the runtime it
    /// came from, it is the same task again (see [`HostTask`]).
    Task(HostTask),
    /// Any other value (function, dict, …): its type name and its printed
    /// form. It cannot be passed back into Sense.
    Opaque {
        /// `type_of` of the value.
        type_name: String,
        /// How `print` shows it.
        text: String,
    },
}

impl HostValue {
    /// The Sense type name (`Int`, `String`, `Array`, …).
    pub fn type_name(&self) -> &str {
        match self {
            HostValue::Nil => "Nil",
            HostValue::Bool(_) => "Bool",
            HostValue::Int(_) => "Int",
            HostValue::Float(_) => "Float",
            HostValue::Str(_) => "String",
            HostValue::List(_) => "Array",
            HostValue::Map(_) => "Map",
            HostValue::Task(t) => t.type_name,
            HostValue::Opaque { type_name, .. } => type_name,
        }
    }

    /// The string, if this is a String.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            HostValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integer, if this is an Int.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            HostValue::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The entries, if this is a Map.
    pub fn as_map(&self) -> Option<&[(HostValue, HostValue)]> {
        match self {
            HostValue::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The value at String key `key`, if this is a Map that has it.
    pub fn get(&self, key: &str) -> Option<&HostValue> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The task, if this is one.
    pub fn as_task(&self) -> Option<&HostTask> {
        match self {
            HostValue::Task(a) => Some(a),
            _ => None,
        }
    }
}

/// A task (an agent of the agent runtime) inside a value the host holds:
/// its heap slot and serial (unique within the process), plus its type
/// name and printed form at the time it was copied out.
///
/// It does not keep the task alive. Passed back into Sense it becomes the
/// same task if that task still exists in the runtime it is passed to;
/// otherwise (collected, or a task of another runtime) the conversion is
/// an error. Two `HostTask`s are equal when they name the same task,
/// whatever their printed forms.
#[derive(Clone, Debug)]
pub struct HostTask {
    obj: ObjRef,
    serial: u64,
    type_name: &'static str,
    text: String,
}

impl HostTask {
    /// Names the task in heap slot `obj` with `serial`, of type
    /// `type_name` (what `type_of` says, e.g. `Agent`), shown as `text`
    /// until it is converted back.
    pub fn new(obj: ObjRef, serial: u64, type_name: &'static str, text: String) -> HostTask {
        HostTask {
            obj,
            serial,
            type_name,
            text,
        }
    }

    /// The task's heap slot.
    pub fn obj(&self) -> ObjRef {
        self.obj
    }

    /// The task's serial, unique within the process.
    pub fn serial(&self) -> u64 {
        self.serial
    }

    /// What `type_of` said of the task (the registered task kind's name).
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }

    /// How `print` showed the task when it was copied out (its name and
    /// status then), e.g. `<agent worker status=paused>`.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl PartialEq for HostTask {
    fn eq(&self, other: &HostTask) -> bool {
        self.obj == other.obj && self.serial == other.serial
    }
}

impl fmt::Display for HostValue {
    /// Formats like Sense's `print`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostValue::Nil => f.write_str("nil"),
            HostValue::Bool(b) => write!(f, "{b}"),
            HostValue::Int(i) => write!(f, "{i}"),
            HostValue::Float(x) => f.write_str(&crate::numfmt::format_float(*x)),
            HostValue::Str(s) => f.write_str(s),
            HostValue::List(items) => {
                f.write_str("[")?;
                for (i, it) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{it}")?;
                }
                f.write_str("]")
            }
            HostValue::Map(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            HostValue::Task(a) => f.write_str(&a.text),
            HostValue::Opaque { text, .. } => f.write_str(text),
        }
    }
}

macro_rules! from_impls {
    ($($t:ty => $v:ident $(as $cast:ty)?),*) => {$(
        impl From<$t> for HostValue {
            fn from(x: $t) -> Self { HostValue::$v(x $(as $cast)?) }
        }
    )*};
}
from_impls!(bool => Bool, i64 => Int, i32 => Int as i64, u32 => Int as i64, f64 => Float, String => Str);

impl From<&str> for HostValue {
    fn from(s: &str) -> Self {
        HostValue::Str(s.to_string())
    }
}

impl<T: Into<HostValue>> From<Vec<T>> for HostValue {
    fn from(v: Vec<T>) -> Self {
        HostValue::List(v.into_iter().map(Into::into).collect())
    }
}

impl From<()> for HostValue {
    fn from(_: ()) -> Self {
        HostValue::Nil
    }
}

/// What a host function returns.
///
/// ```
/// use sense_eval::{HostReturn, HostValue};
///
/// // A value (anything that converts into a HostValue converts into this).
/// let done: HostReturn = 42.into();
/// assert_eq!(done, HostReturn::Value(HostValue::Int(42)));
/// // Pause the calling agent; `resume(agent, v)` makes `v` the call's result.
/// let ask = HostReturn::Suspend("approve the deploy?".into());
/// # let _ = ask;
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum HostReturn {
    /// The call's result.
    Value(HostValue),
    /// Pause the calling agent with this reason (pause kind
    /// `host_function`); the value it is resumed with becomes the call's
    /// result. Outside an agent this is an error.
    Suspend(HostValue),
}

impl<T: Into<HostValue>> From<T> for HostReturn {
    fn from(v: T) -> Self {
        HostReturn::Value(v.into())
    }
}

/// A host function's body.
pub type HostFn = Box<dyn FnMut(&[HostValue]) -> Result<HostReturn, String> + Send>;

const MAX_DEPTH: usize = 200;

/// Longest printed form kept for an opaque value (an agent paused with a
/// huge reason, an answer holding a huge array).
const OPAQUE_TEXT_LIMIT: usize = 64 * 1024;

impl Vm {
    /// Copies a Sense value out for the host. An array inside itself
    /// reads `[...]` where it recurs (as Python's `repr` writes it), and
    /// arrays shared many times are copied until the walk's budget runs out
    /// (then `[...]` too): see `vm/graph.rs`.
    #[inline]
    pub fn to_host(&self, v: Value) -> HostValue {
        match v {
            Value::Nil => HostValue::Nil,
            Value::Bool(b) => HostValue::Bool(b),
            Value::Int(i) => HostValue::Int(i),
            Value::Float(f) => HostValue::Float(f),
            _ => self.to_host_in(v, 0, &mut self.walk_for(v)),
        }
    }

    /// Copies several values out with one walk budget for all of them
    /// (many values holding the same big array are bounded together).
    pub fn to_host_all(&self, values: &[Value]) -> Vec<HostValue> {
        let walk = &mut self.walk_for_all(values.iter().copied());
        values.iter().map(|v| self.to_host_with(*v, walk)).collect()
    }

    /// Copies `v` within `walk`, shared by the caller across several values.
    pub(crate) fn to_host_with(&self, v: Value, walk: &mut Walk) -> HostValue {
        self.to_host_in(v, 0, walk)
    }

    fn to_host_in(&self, v: Value, depth: usize, walk: &mut Walk) -> HostValue {
        let elided = || HostValue::Opaque {
            type_name: "Array".to_string(),
            text: "[...]".to_string(),
        };
        match v {
            Value::Nil => HostValue::Nil,
            Value::Bool(b) => HostValue::Bool(b),
            Value::Int(i) => HostValue::Int(i),
            Value::Float(f) => HostValue::Float(f),
            Value::Str(_) => HostValue::Str(self.str_of(v).unwrap_or("").to_string()),
            Value::Array(r) if depth < MAX_DEPTH => {
                let items = self.array_of(v).map_or(&[][..], Vec::as_slice);
                match walk.enter(r, items.len()) {
                    Step::Enter => {}
                    Step::Cycle | Step::Exhausted => return elided(),
                }
                let list = items
                    .iter()
                    .map(|x| self.to_host_in(*x, depth + 1, walk))
                    .collect();
                walk.leave();
                HostValue::List(list)
            }
            Value::Array(_) => elided(),
            Value::Obj(r) => match self.heap.try_get(r) {
                Some(Obj::Map(m)) if depth < MAX_DEPTH => {
                    match walk.enter(r, m.len()) {
                        Step::Enter => {}
                        Step::Cycle | Step::Exhausted => {
                            return HostValue::Opaque {
                                type_name: "Map".to_string(),
                                text: "{...}".to_string(),
                            };
                        }
                    }
                    let entries = m
                        .entries
                        .iter()
                        .map(|(k, x)| (key_to_host(k), self.to_host_in(*x, depth + 1, walk)))
                        .collect();
                    walk.leave();
                    HostValue::Map(entries)
                }
                Some(Obj::Task(a)) => HostValue::Task(HostTask {
                    obj: r,
                    serial: a.serial,
                    type_name: self.type_name(v),
                    text: self.show_preview(v, OPAQUE_TEXT_LIMIT),
                }),
                _ => self.to_opaque(v),
            },
            _ => self.to_opaque(v),
        }
    }

    /// A value the host cannot hold as data: its type name and printed form.
    fn to_opaque(&self, v: Value) -> HostValue {
        HostValue::Opaque {
            type_name: self.type_name(v).to_string(),
            text: self.show_preview(v, OPAQUE_TEXT_LIMIT),
        }
    }

    /// Builds a Sense value from a host value.
    #[inline]
    pub fn value_from_host(&mut self, v: &HostValue) -> EvalResult<Value> {
        match v {
            HostValue::Nil => Ok(Value::Nil),
            HostValue::Bool(b) => Ok(Value::Bool(*b)),
            HostValue::Int(i) => Ok(Value::Int(*i)),
            HostValue::Float(f) => Ok(Value::Float(*f)),
            _ => self.value_from_host_depth(v, 0),
        }
    }

    fn value_from_host_depth(&mut self, v: &HostValue, depth: usize) -> EvalResult<Value> {
        if depth > MAX_DEPTH {
            return Err(EvalError::runtime("host value nested too deeply"));
        }
        Ok(match v {
            HostValue::Nil => Value::Nil,
            HostValue::Bool(b) => Value::Bool(*b),
            HostValue::Int(i) => Value::Int(*i),
            HostValue::Float(f) => Value::Float(*f),
            HostValue::Str(s) => self.new_str(s.as_str())?,
            HostValue::List(items) => {
                self.check_new_array(items.len())?;
                let mut vals = Vec::with_capacity(items.len());
                for it in items {
                    vals.push(self.value_from_host_depth(it, depth + 1)?);
                }
                // Keep the partly built array reachable only through the
                // Rust vector: no collection runs inside this function.
                Value::Array(self.heap.alloc(Obj::Array(vals)))
            }
            HostValue::Map(entries) => {
                let mut m = crate::map::MapObj::new();
                for (k, x) in entries {
                    let key = match k {
                        HostValue::Str(s) => crate::map::MapKey::Str(s.as_str().into()),
                        HostValue::Int(i) => crate::map::MapKey::Int(*i),
                        HostValue::Bool(b) => crate::map::MapKey::Bool(*b),
                        other => {
                            return Err(EvalError::type_error(format!(
                                "map keys must be String, Int or Bool, got {}",
                                other.type_name()
                            )));
                        }
                    };
                    let v = self.value_from_host_depth(x, depth + 1)?;
                    m.insert(key, v);
                }
                // As for arrays: no collection runs inside this function.
                self.alloc_map(m)?
            }
            HostValue::Task(a) => match self.heap.try_get(a.obj) {
                Some(Obj::Task(live)) if live.serial == a.serial => Value::Obj(a.obj),
                _ => {
                    let why = crate::kind::Refusal::ForeignHandle { serial: a.serial };
                    return Err(self.refusal(None, why));
                }
            },
            HostValue::Opaque { type_name, .. } => {
                return Err(EvalError::runtime(format!(
                    "a {type_name} value cannot be passed from the host into Sense"
                )));
            }
        })
    }
}

/// A map key as a host value.
fn key_to_host(k: &crate::map::MapKey) -> HostValue {
    match k {
        crate::map::MapKey::Str(s) => HostValue::Str(s.to_string()),
        crate::map::MapKey::Int(i) => HostValue::Int(*i),
        crate::map::MapKey::Bool(b) => HostValue::Bool(*b),
    }
}
