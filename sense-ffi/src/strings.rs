//! [`sense_str`]: borrowed UTF-8 views going out, and checked string
//! arguments coming in.

use std::os::raw::c_char;

/// A borrowed UTF-8 string: `len` bytes at `ptr`.
///
/// Returned views are valid until their owner is freed or next mutated
/// (each function says who the owner is). They are not NUL-terminated
/// unless the function says so. An empty string may have a NULL `ptr`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sense_str {
    /// The first byte (NULL only when `len` is 0).
    pub ptr: *const c_char,
    /// The length in bytes.
    pub len: usize,
}

impl sense_str {
    /// A view of `s` (which must outlive every use of the view).
    pub(crate) fn of(s: &str) -> sense_str {
        sense_str {
            ptr: s.as_ptr().cast(),
            len: s.len(),
        }
    }

    /// The empty string with a NULL pointer.
    pub(crate) const EMPTY: sense_str = sense_str {
        ptr: std::ptr::null(),
        len: 0,
    };

    /// Copies the bytes into a `String`, replacing invalid UTF-8.
    pub(crate) fn to_string_lossy(self) -> String {
        if self.ptr.is_null() || self.len == 0 {
            return String::new();
        }
        // SAFETY: whoever hands us a sense_str — a callback (header docs of
        // sense_input_fn) or a `ptr, len` argument ("strings in") —
        // promises `len` readable bytes at a non-NULL `ptr` for the call.
        let bytes = unsafe { std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len) };
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// Checks a `ptr, len` array argument (string bytes, snapshot bytes,
/// indexes, value pointers): NULL with a non-zero length is
/// `SENSE_STATUS_INVALID_ARGUMENT` naming both arguments. Expands to a
/// slice borrowed for the rest of the call, of the element type the use
/// asks for.
///
/// Every exported function taking such a pair documents it ("strings in"
/// and "bytes in" in the header's ownership table, or the parameter's own
/// doc): `len` readable elements at a non-NULL `ptr` for the duration of
/// the call. Each use says which promise covers its pair.
macro_rules! slice_arg {
    ($ptr:ident, $len:ident) => {
        if $len == 0 {
            &[]
        } else if $ptr.is_null() {
            return Err(fail!(
                InvalidArgument,
                concat!(
                    "argument `",
                    stringify!($ptr),
                    "` is NULL but `",
                    stringify!($len),
                    "` is not 0"
                )
            ));
        } else {
            // SAFETY: `ptr` is not NULL and the caller of the exported
            // function promises `len` readable elements there for the call
            // (see above).
            unsafe { ::std::slice::from_raw_parts($ptr.cast(), $len) }
        }
    };
}

/// Checks a `ptr, len` string argument: NULL with a non-zero length is
/// `SENSE_STATUS_INVALID_ARGUMENT`, bad UTF-8 `SENSE_STATUS_INVALID_UTF8`.
/// Expands to a `&str` borrowed for the rest of the call.
macro_rules! str_arg {
    ($ptr:ident, $len:ident) => {{
        // Header, "strings in": `len` readable bytes at `ptr`.
        let bytes: &[u8] = slice_arg!($ptr, $len);
        match ::std::str::from_utf8(bytes) {
            Ok(s) => s,
            Err(_) => {
                return Err(fail!(
                    InvalidUtf8,
                    concat!("argument `", stringify!($ptr), "` is not valid UTF-8")
                ));
            }
        }
    }};
}

/// The version of `libsense` as a NUL-terminated string, e.g. `"0.1.0"`
/// (`len` excludes the NUL). Compare with the `SENSE_VERSION_*` macros the
/// program was compiled against.
#[unsafe(no_mangle)]
pub extern "C" fn sense_version() -> sense_str {
    const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    ffi_guard!(sense_str::EMPTY => {
        sense_str {
            ptr: VERSION.as_ptr().cast(),
            len: VERSION.len() - 1,
        }
    })
}
