//! [`sense_value`]: owned Sense values (nil, bool, int, float, string,
//! list, agent, map — its calls are in `map_value.rs` — and opaque copies
//! of anything else).

use crate::bodies::value_into;
use crate::error::sense_error;
use crate::guard::{Failure, drop_boxed};
use crate::status::sense_status;
use crate::strings::sense_str;
use sense_agents::HostValue;
use std::os::raw::c_char;

/// An owned Sense value: a deep copy, independent of any runtime.
///
/// Ownership: a `sense_value *` from a constructor or a `sense_value **out`
/// is the caller's, freed with `sense_value_free`. A `const sense_value *`
/// from `sense_value_list_get` or `sense_call_arg` is borrowed (see those
/// functions) and must not be freed. Values passed *into* functions are
/// borrowed and copied; the caller still owns (and frees) them.
///
/// Threads: no hidden shared state. Functions taking `const sense_value *`
/// may run on several threads at once; `sense_value_list_push` and
/// `sense_value_free` need exclusive access.
pub struct sense_value {
    // Never instantiated: a `sense_value *` is a `HostValue` allocated by
    // Rust (or an element inside one), cast. See `as_host`.
    _private: [u8; 0],
}

/// What a [`sense_value`] holds.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum sense_value_kind {
    /// `nil`.
    Nil = 0,
    /// A Bool.
    Bool = 1,
    /// An Int (64-bit signed).
    Int = 2,
    /// A Float (double).
    Float = 3,
    /// A String (UTF-8).
    String = 4,
    /// An Array of values.
    List = 5,
    /// Any other Sense value (a function, a dict, …) copied out as its
    /// type name (`sense_value_type_name`) and printed form
    /// (`sense_value_as_string`). It cannot be passed back into Sense.
    Opaque = 6,
    /// An agent: `sense_value_as_agent` gives its id, to drive it like any
    /// other; `sense_value_as_string` its printed form when it was copied
    /// out. Passed back into the runtime it came from, it is the same
    /// agent (see `sense_value_new_agent`).
    Agent = 7,
    /// A Map: its entries in insertion order, read with
    /// `sense_value_map_len`, `sense_value_map_key`,
    /// `sense_value_map_value` and `sense_value_map_get`; built with
    /// `sense_value_new_map` and `sense_value_map_set`. Keys are Strings,
    /// Ints or Bools.
    Map = 8,
}

/// Moves a host value to the heap and hands it to C.
pub(crate) fn into_raw(v: HostValue) -> *mut sense_value {
    Box::into_raw(Box::new(v)).cast()
}

/// The `HostValue` behind a `sense_value` pointer.
pub(crate) fn as_host<'a>(v: *const sense_value) -> Option<&'a HostValue> {
    // SAFETY: every `sense_value *` C holds was made by `into_raw` or is a
    // borrowed element pointer (`as_raw`), i.e. points to a live
    // `HostValue`; the caller promises it is still alive.
    unsafe { v.cast::<HostValue>().as_ref() }
}

/// A borrowed `HostValue` as a `const sense_value *`.
pub(crate) fn as_raw(v: &HostValue) -> *const sense_value {
    std::ptr::from_ref(v).cast()
}

/// The `HostValue` behind a pointer argument, or `INVALID_ARGUMENT` for
/// NULL. Expands to a borrowed `&HostValue`.
macro_rules! try_value {
    ($p:ident) => {
        match $crate::value::as_host($p) {
            Some(v) => v,
            None => return Err(null_arg!($p)),
        }
    };
}

/// The value behind an optional argument: NULL reads as nil.
pub(crate) fn host_or_nil(v: *const sense_value) -> HostValue {
    as_host(v).cloned().unwrap_or(HostValue::Nil)
}

pub(crate) fn wrong_kind(expected: &'static str) -> Failure {
    match expected {
        "Bool" => fail!(InvalidArgument, "the value is not a Bool"),
        "Int" => fail!(InvalidArgument, "the value is not an Int"),
        "Float" => fail!(InvalidArgument, "the value is not a Float"),
        "String" => fail!(InvalidArgument, "the value is not a String"),
        "Agent" => fail!(InvalidArgument, "the value is not an Agent"),
        "Map" => fail!(InvalidArgument, "the value is not a Map"),
        _ => fail!(InvalidArgument, "the value is not a List"),
    }
}

/// A new `nil`. Free it with `sense_value_free`. NULL only if libsense
/// panicked.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_new_nil() -> *mut sense_value {
    ffi_guard!(std::ptr::null_mut() => { into_raw(HostValue::Nil) })
}

/// A new Bool. Free it with `sense_value_free`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_new_bool(b: bool) -> *mut sense_value {
    ffi_guard!(std::ptr::null_mut() => { into_raw(HostValue::Bool(b)) })
}

/// A new Int. Free it with `sense_value_free`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_new_int(i: i64) -> *mut sense_value {
    ffi_guard!(std::ptr::null_mut() => { into_raw(HostValue::Int(i)) })
}

/// A new Float. Free it with `sense_value_free`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_new_float(f: f64) -> *mut sense_value {
    ffi_guard!(std::ptr::null_mut() => { into_raw(HostValue::Float(f)) })
}

/// A new, empty List; add items with `sense_value_list_push`. Free it with
/// `sense_value_free`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_new_list() -> *mut sense_value {
    ffi_guard!(std::ptr::null_mut() => { into_raw(HostValue::List(Vec::new())) })
}

/// A new String copied from `len` bytes of UTF-8 at `ptr` (`ptr` may be
/// NULL when `len` is 0). On success `*out` receives a value to free with
/// `sense_value_free`.
///
/// Errors: `SENSE_STATUS_INVALID_ARGUMENT` (`out` NULL, or `ptr` NULL with
/// `len` > 0), `SENSE_STATUS_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_new_string(
    ptr: *const c_char,
    len: usize,
    out: *mut *mut sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    ffi_guard!(error, {
        let out = try_out!(out);
        let s = str_arg!(ptr, len);
        out.set(into_raw(HostValue::Str(s.to_string())));
        Ok(())
    })
}

/// A deep copy of `value` into `*out` (free it with `sense_value_free`).
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_clone(
    value: *const sense_value,
    out: *mut *mut sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    value_into(value, out, error, |v| Ok(into_raw(v.clone())))
}

/// Frees a value (and, for a List, its items). NULL is allowed and does
/// nothing. Never pass a borrowed pointer (from `sense_value_list_get` or
/// `sense_call_arg`); freeing twice is undefined.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_free(value: *mut sense_value) {
    ffi_guard!(() => {
        // SAFETY: NULL, or an owned `sense_value *`, which comes from
        // `into_raw` (`Box<HostValue>`); the caller gives it back exactly once.
        unsafe { drop_boxed(value.cast::<HostValue>()) }
    })
}

/// Stores what `value` holds in `*out`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_get_kind(
    value: *const sense_value,
    out: *mut sense_value_kind,
    error: *mut *mut sense_error,
) -> sense_status {
    value_into(value, out, error, |v| {
        Ok(match v {
            HostValue::Nil => sense_value_kind::Nil,
            HostValue::Bool(_) => sense_value_kind::Bool,
            HostValue::Int(_) => sense_value_kind::Int,
            HostValue::Float(_) => sense_value_kind::Float,
            HostValue::Str(_) => sense_value_kind::String,
            HostValue::List(_) => sense_value_kind::List,
            HostValue::Map(_) => sense_value_kind::Map,
            HostValue::Opaque { .. } => sense_value_kind::Opaque,
            HostValue::Task(_) => sense_value_kind::Agent,
        })
    })
}

/// The Sense type name of `value` (`Nil`, `Bool`, `Int`, `Float`,
/// `String`, `Array`, or for an opaque value its type, e.g. `Function`).
/// The view is borrowed from `value` (valid until it is freed or mutated).
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_type_name(
    value: *const sense_value,
    out: *mut sense_str,
    error: *mut *mut sense_error,
) -> sense_status {
    value_into(value, out, error, |v| Ok(sense_str::of(v.type_name())))
}

/// The body of the typed reads (`sense_value_as_*`, `sense_value_list_len`):
/// `pick` takes what is asked for out of the value; any other kind is
/// `SENSE_STATUS_INVALID_ARGUMENT` (naming `kind`) and leaves `*out`
/// untouched.
fn read_as<T>(
    value: *const sense_value,
    out: *mut T,
    error: *mut *mut sense_error,
    kind: &'static str,
    pick: impl FnOnce(&HostValue) -> Option<T>,
) -> sense_status {
    value_into(value, out, error, |v| {
        pick(v).ok_or_else(|| wrong_kind(kind))
    })
}

/// The Bool in `value`. `SENSE_STATUS_INVALID_ARGUMENT` if it is not one
/// (`*out` untouched).
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_as_bool(
    value: *const sense_value,
    out: *mut bool,
    error: *mut *mut sense_error,
) -> sense_status {
    read_as(value, out, error, "Bool", |v| match v {
        HostValue::Bool(b) => Some(*b),
        _ => None,
    })
}

/// The Int in `value`. `SENSE_STATUS_INVALID_ARGUMENT` if it is not one
/// (`*out` untouched; a Float is not converted).
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_as_int(
    value: *const sense_value,
    out: *mut i64,
    error: *mut *mut sense_error,
) -> sense_status {
    read_as(value, out, error, "Int", |v| match v {
        HostValue::Int(i) => Some(*i),
        _ => None,
    })
}

/// The Float in `value`. `SENSE_STATUS_INVALID_ARGUMENT` if it is not one
/// (`*out` untouched; an Int is not converted).
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_as_float(
    value: *const sense_value,
    out: *mut f64,
    error: *mut *mut sense_error,
) -> sense_status {
    read_as(value, out, error, "Float", |v| match v {
        HostValue::Float(f) => Some(*f),
        _ => None,
    })
}

/// The text of a String (or the printed form of an opaque value or an
/// agent) as a view borrowed from `value`: valid until `value` is freed,
/// not NUL-terminated. `SENSE_STATUS_INVALID_ARGUMENT` for other kinds.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_as_string(
    value: *const sense_value,
    out: *mut sense_str,
    error: *mut *mut sense_error,
) -> sense_status {
    read_as(value, out, error, "String", |v| match v {
        HostValue::Str(s) | HostValue::Opaque { text: s, .. } => Some(sense_str::of(s)),
        HostValue::Task(a) => Some(sense_str::of(a.text())),
        _ => None,
    })
}

/// The number of items in a List. `SENSE_STATUS_INVALID_ARGUMENT` if
/// `value` is not a List.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_list_len(
    value: *const sense_value,
    out: *mut usize,
    error: *mut *mut sense_error,
) -> sense_status {
    read_as(value, out, error, "List", |v| match v {
        HostValue::List(items) => Some(items.len()),
        _ => None,
    })
}

/// Item `index` (0-based) of a List, *borrowed*: valid until the list is
/// freed or pushed to; never free it (copy it with `sense_value_clone` to
/// keep it). `SENSE_STATUS_INVALID_ARGUMENT` if `value` is not a List,
/// `SENSE_STATUS_NOT_FOUND` if `index` is out of range.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_list_get(
    value: *const sense_value,
    index: usize,
    out: *mut *const sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    value_into(value, out, error, |v| {
        let HostValue::List(items) = v else {
            return Err(wrong_kind("List"));
        };
        match items.get(index) {
            Some(item) => Ok(as_raw(item)),
            None => Err(fail!(NotFound, "list index out of range")),
        }
    })
}

/// Appends a deep copy of `item` to the List `list` (the caller still owns
/// `item`). Invalidates pointers from `sense_value_list_get` on `list`.
/// `SENSE_STATUS_INVALID_ARGUMENT` if `list` is not a List.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_list_push(
    list: *mut sense_value,
    item: *const sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    ffi_guard!(error, {
        let item = try_value!(item).clone();
        // SAFETY: an owned `sense_value *` points to a live `HostValue`
        // (see `into_raw`); the caller promises exclusive access for the
        // call. NULL is checked by `as_mut`.
        let Some(v) = (unsafe { list.cast::<HostValue>().as_mut() }) else {
            return Err(null_arg!(list));
        };
        match v {
            HostValue::List(items) => items.push(item),
            _ => return Err(wrong_kind("List")),
        }
        Ok(())
    })
}
