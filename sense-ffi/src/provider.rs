//! Model providers as C callbacks, and [`sense_completion`], through which
//! a callback answers a prompt.

use crate::callback::{UserData, register_on, sense_free_fn};
use crate::error::sense_error;
use crate::runtime::sense_runtime;
use crate::status::sense_status;
use crate::strings::sense_str;
use sense_agents::{ModelProvider, ModelResponse};
use std::os::raw::{c_char, c_void};

/// The answer to one prompt, valid only during the `sense_complete_fn`
/// callback (and only on its thread). Set the text with
/// `sense_completion_set_text` (and optionally a confidence), or fail with
/// `sense_completion_fail`. No answer at all means an empty text.
pub struct sense_completion {
    text: Option<String>,
    confidence: Option<f64>,
    failure: Option<String>,
}

/// Answers `prompt` for the model `model_id` (both UTF-8, borrowed for the
/// call, not NUL-terminated) through `completion`. Called on the thread
/// driving the runtime; it must not call functions that take the runtime.
pub type sense_complete_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        model_id: sense_str,
        prompt: sense_str,
        completion: *mut sense_completion,
    ),
>;

struct CProvider {
    callback: unsafe extern "C" fn(*mut c_void, sense_str, sense_str, *mut sense_completion),
    data: UserData,
}

impl ModelProvider for CProvider {
    fn complete(&mut self, model_id: &str, prompt: &str) -> Result<ModelResponse, String> {
        let mut c = sense_completion {
            text: None,
            confidence: None,
            failure: None,
        };
        // SAFETY: the host registered the callback with this user data;
        // the views and `c` live across the call.
        unsafe {
            (self.callback)(
                self.data.get(),
                sense_str::of(model_id),
                sense_str::of(prompt),
                &mut c,
            )
        };
        match c.failure {
            Some(message) => Err(message),
            None => Ok(ModelResponse {
                text: c.text.unwrap_or_default(),
                confidence: c.confidence,
            }),
        }
    }
}

/// Registers a model provider called `name`, used by
/// `inference(name, model_id?)` in Sense (`default_model` when no model id
/// is given). `capability` (may be NULL with length 0: none), e.g.
/// `model.acme`, gates and audits every call through policy. The runtime
/// opens no network connections itself: `callback` answers each prompt.
/// `free_user_data` as for `sense_runtime_register_fn`.
///
/// Tool-calling (`ask_with_tools`) is not offered through the C ABI: a
/// provider registered here answers such calls with "this provider does not
/// support tool-calling".
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_register_provider(
    runtime: *mut sense_runtime,
    name: *const c_char,
    name_len: usize,
    capability: *const c_char,
    capability_len: usize,
    default_model: *const c_char,
    default_model_len: usize,
    callback: sense_complete_fn,
    user_data: *mut c_void,
    free_user_data: sense_free_fn,
    error: *mut *mut sense_error,
) -> sense_status {
    register_on(runtime, user_data, free_user_data, error, |rt, data| {
        let name = str_arg!(name, name_len);
        let capability = str_arg!(capability, capability_len);
        let default_model = str_arg!(default_model, default_model_len);
        let Some(callback) = callback else {
            return Err(null_arg!(callback));
        };
        let capability = (!capability.is_empty()).then_some(capability);
        rt.enter(|r| {
            r.register_provider(
                name,
                capability,
                default_model,
                CProvider { callback, data },
            );
            Ok(())
        })
    })
}

/// Sets the answer text (UTF-8, copied).
#[unsafe(no_mangle)]
pub extern "C" fn sense_completion_set_text(
    completion: *mut sense_completion,
    text: *const c_char,
    text_len: usize,
    error: *mut *mut sense_error,
) -> sense_status {
    on_handle!(error, mut completion => c, {
        let text = str_arg!(text, text_len);
        c.text = Some(text.to_string());
        c.failure = None;
        Ok(())
    })
}

/// Sets the provider's confidence in the answer (0.0..=1.0 by convention;
/// Sense reads it as the answer's confidence). NaN is
/// `SENSE_STATUS_INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_completion_set_confidence(
    completion: *mut sense_completion,
    confidence: f64,
    error: *mut *mut sense_error,
) -> sense_status {
    on_handle!(error, mut completion => c, {
        if confidence.is_nan() {
            return Err(fail!(InvalidArgument, "argument `confidence` is NaN"));
        }
        c.confidence = Some(confidence);
        Ok(())
    })
}

/// Fails the prompt: `inference`/`ask` in Sense raises a
/// `SenseRuntimeError` carrying `message` (UTF-8, copied).
#[unsafe(no_mangle)]
pub extern "C" fn sense_completion_fail(
    completion: *mut sense_completion,
    message: *const c_char,
    message_len: usize,
    error: *mut *mut sense_error,
) -> sense_status {
    on_handle!(error, mut completion => c, {
        let message = str_arg!(message, message_len);
        c.failure = Some(message.to_string());
        Ok(())
    })
}
