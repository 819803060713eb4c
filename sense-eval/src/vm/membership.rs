//! `x in xs` and `x not in xs`: an array's element (by `==`), a map's
//! key, a substring of a string.

use super::Vm;
use crate::error::{EvalError, EvalResult};
use crate::value::Value;

impl Vm {
    /// Is `x` in `xs`? An error when `xs` is not an Array, Map or String,
    /// or when a string is searched for something that is not a String.
    pub fn contains(&self, xs: Value, x: Value) -> EvalResult<bool> {
        if let Some(items) = self.array_of(xs) {
            for item in items {
                if self.equal(*item, x)? {
                    return Ok(true);
                }
            }
            return Ok(false);
        }
        if let Some(m) = self.map_of(xs) {
            // A value that cannot be a key is in no map.
            return Ok(self.map_key_ref(x).is_ok_and(|k| m.index_of(k).is_some()));
        }
        if let Some(s) = self.str_of(xs) {
            let Some(sub) = self.str_of(x) else {
                return Err(EvalError::runtime(format!(
                    "'in' on a String needs a String on the left, got {}",
                    self.type_name(x)
                )));
            };
            return Ok(s.contains(sub));
        }
        Err(EvalError::runtime(format!(
            "'in' needs an Array, Map or String on the right, got {}",
            self.type_name(xs)
        )))
    }
}
