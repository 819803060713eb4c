//! Map methods: `keys`, `values`, `items` (arrays of `[k, v]`), `get`,
//! `has`, `pop` and `copy`.

use super::MethodCall;
use crate::error::{EvalError, EvalResult};
use crate::map::MapKey;
use crate::value::Value;
use crate::vm::Vm;

impl Vm {
    /// Runs Map method `call.name`.
    pub(super) fn map_method(&mut self, call: &MethodCall<'_>) -> EvalResult<Value> {
        let m = call.recv;
        let entries: Vec<(MapKey, Value)> = match call.name {
            "keys" | "values" | "items" => {
                call.arity(self, 0, 0)?;
                self.map_of(m)
                    .map(|m| m.entries.iter().map(|(k, v)| (k.clone(), *v)).collect())
                    .unwrap_or_default()
            }
            _ => Vec::new(),
        };
        match call.name {
            "keys" => {
                let mut out = Vec::with_capacity(entries.len());
                for (k, _) in &entries {
                    out.push(self.key_value(k)?);
                }
                self.new_array(out)
            }
            "values" => self.new_array(entries.into_iter().map(|(_, v)| v).collect()),
            "items" => {
                self.check_new_array(entries.len())?;
                let mut out = Vec::with_capacity(entries.len());
                for (k, v) in &entries {
                    let k = self.key_value(k)?;
                    out.push(self.new_array(vec![k, *v])?);
                }
                self.new_array(out)
            }
            "get" => {
                call.arity(self, 1, 2)?;
                Ok(self.map_get(m, call.arg(0))?.unwrap_or(call.arg(1)))
            }
            "has" => {
                call.arity(self, 1, 1)?;
                Ok(Value::Bool(self.map_get(m, call.arg(0))?.is_some()))
            }
            "pop" => {
                call.arity(self, 1, 2)?;
                let key = self.map_key(call.arg(0))?;
                match self.map_of_mut(m).and_then(|m| m.remove(&key)) {
                    Some(v) => Ok(v),
                    None if call.args.len() == 2 => Ok(call.arg(1)),
                    None => Err(self.key_not_found(call.arg(0))),
                }
            }
            "copy" => {
                call.arity(self, 0, 0)?;
                let copy = self.map_of(m).cloned().unwrap_or_default();
                self.alloc_map(copy)
            }
            _ => Err(EvalError::runtime(format!(
                "Map has no method '{}'",
                call.name
            ))),
        }
    }
}
