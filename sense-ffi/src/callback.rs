//! User data handed to C callbacks, and its optional destructor.

use crate::bodies::with_runtime;
use crate::error::sense_error;
use crate::guard::Body;
use crate::runtime::sense_runtime;
use crate::status::sense_status;
use std::os::raw::c_void;

/// Frees the `user_data` of a callback. Called exactly once, when the
/// registration is replaced or the runtime is freed (on the thread doing
/// that), or at once when the registering call fails. May be NULL.
pub type sense_free_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// A callback's `user_data` and its destructor, run on drop.
pub(crate) struct UserData {
    ptr: *mut c_void,
    free: sense_free_fn,
}

// SAFETY: a runtime may move between threads (it is `Send`), taking its
// callbacks along; the header requires user data to be usable from
// whichever thread drives the runtime, which is what `Send` promises.
unsafe impl Send for UserData {}

impl UserData {
    pub(crate) fn new(ptr: *mut c_void, free: sense_free_fn) -> UserData {
        UserData { ptr, free }
    }

    /// The pointer to pass to the callback. (A method, so closures capture
    /// the whole `UserData`, destructor included, not just the pointer.)
    pub(crate) fn get(&self) -> *mut c_void {
        self.ptr
    }
}

impl Drop for UserData {
    fn drop(&mut self) {
        if let Some(free) = self.free {
            // SAFETY: the host registered `free` for this pointer; it runs
            // once, here.
            unsafe { free(self.ptr) }
        }
    }
}

/// The body of the calls that register a callback on a runtime: the user
/// data is owned from the start (so every failure path frees it too),
/// then `runtime` is checked and `register` runs with both.
pub(crate) fn register_on(
    runtime: *const sense_runtime,
    user_data: *mut c_void,
    free_user_data: sense_free_fn,
    error: *mut *mut sense_error,
    register: impl FnOnce(&sense_runtime, UserData) -> Body,
) -> sense_status {
    let data = UserData::new(user_data, free_user_data);
    with_runtime(runtime, error, |rt| register(rt, data))
}
