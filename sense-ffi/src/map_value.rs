//! Map values across the C ABI: `SENSE_VALUE_KIND_MAP`, its entries read
//! by index in insertion order, looked up by key, and maps built by the
//! host.

use crate::bodies::value_into;
use crate::error::sense_error;
use crate::status::sense_status;
use crate::value::{as_raw, into_raw, sense_value, wrong_kind};
use sense_agents::HostValue;

/// The entries of a Map value, or the wrong-kind failure.
fn entries(v: &HostValue) -> Result<&[(HostValue, HostValue)], crate::guard::Failure> {
    match v {
        HostValue::Map(entries) => Ok(entries),
        _ => Err(wrong_kind("Map")),
    }
}

/// Whether `key` may be a map key: a String, an Int or a Bool.
fn is_key(key: &HostValue) -> bool {
    matches!(
        key,
        HostValue::Str(_) | HostValue::Int(_) | HostValue::Bool(_)
    )
}

/// A new, empty Map; add entries with `sense_value_map_set`. Free it with
/// `sense_value_free`. NULL only if libsense panicked.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_new_map() -> *mut sense_value {
    ffi_guard!(std::ptr::null_mut() => { into_raw(HostValue::Map(Vec::new())) })
}

/// The number of entries of a Map. `SENSE_STATUS_INVALID_ARGUMENT` if
/// `value` is not a Map.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_map_len(
    value: *const sense_value,
    out: *mut usize,
    error: *mut *mut sense_error,
) -> sense_status {
    value_into(value, out, error, |v| Ok(entries(v)?.len()))
}

/// The key of entry `index` (0-based, in insertion order) of a Map: a
/// String, Int or Bool, *borrowed* like `sense_value_list_get`'s items
/// (valid until the map is freed or set; never free it).
/// `SENSE_STATUS_INVALID_ARGUMENT` if `value` is not a Map,
/// `SENSE_STATUS_NOT_FOUND` if `index` is out of range.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_map_key(
    value: *const sense_value,
    index: usize,
    out: *mut *const sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    entry_at(value, index, out, error, |(k, _)| k)
}

/// The value of entry `index` (0-based, in insertion order) of a Map,
/// borrowed as for `sense_value_map_key`. Errors as for
/// `sense_value_map_key`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_map_value(
    value: *const sense_value,
    index: usize,
    out: *mut *const sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    entry_at(value, index, out, error, |(_, x)| x)
}

/// The part `pick` chooses (key or value) of entry `index` of a Map,
/// borrowed: the one body of `sense_value_map_key` and `_map_value`.
fn entry_at(
    value: *const sense_value,
    index: usize,
    out: *mut *const sense_value,
    error: *mut *mut sense_error,
    pick: fn(&(HostValue, HostValue)) -> &HostValue,
) -> sense_status {
    value_into(value, out, error, |v| match entries(v)?.get(index) {
        Some(entry) => Ok(as_raw(pick(entry))),
        None => Err(fail!(NotFound, "map index out of range")),
    })
}

/// The value stored under `key` (a String, Int or Bool; compared as Sense
/// compares map keys: `1` and `true` are different keys) in a Map,
/// borrowed as for `sense_value_map_key`. `SENSE_STATUS_NOT_FOUND` when
/// the map has no such key, `SENSE_STATUS_INVALID_ARGUMENT` if `value` is
/// not a Map or `key` is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_map_get(
    value: *const sense_value,
    key: *const sense_value,
    out: *mut *const sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    ffi_guard!(error, {
        let v = try_value!(value);
        let key = try_value!(key);
        let out = try_out!(out);
        match entries(v)?.iter().find(|(k, _)| k == key) {
            Some((_, x)) => out.set(as_raw(x)),
            None => return Err(fail!(NotFound, "the map has no such key")),
        }
        Ok(())
    })
}

/// Stores a deep copy of `item` (NULL: nil) under a copy of `key` in the
/// Map `map`: a new key goes last, an existing one keeps its place and
/// gets the new value (as `m[k] = v` in Sense). The caller still owns
/// `key` and `item`. Invalidates pointers borrowed from `map`.
///
/// Errors: `SENSE_STATUS_INVALID_ARGUMENT` (`map` is not a Map, `key` is
/// NULL or not a String, Int or Bool).
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_map_set(
    map: *mut sense_value,
    key: *const sense_value,
    item: *const sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    ffi_guard!(error, {
        let key = try_value!(key);
        if !is_key(key) {
            return Err(fail!(
                InvalidArgument,
                "a map key must be a String, an Int or a Bool"
            ));
        }
        let key = key.clone();
        let item = crate::value::host_or_nil(item);
        // SAFETY: an owned `sense_value *` points to a live `HostValue`
        // (see `into_raw`); the caller promises exclusive access for the
        // call. NULL is checked by `as_mut`.
        let Some(v) = (unsafe { map.cast::<HostValue>().as_mut() }) else {
            return Err(null_arg!(map));
        };
        let HostValue::Map(entries) = v else {
            return Err(wrong_kind("Map"));
        };
        match entries.iter_mut().find(|(k, _)| *k == key) {
            Some((_, slot)) => *slot = item,
            None => entries.push((key, item)),
        }
        Ok(())
    })
}
