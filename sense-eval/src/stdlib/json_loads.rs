//! `json.loads(text)`: JSON text to Sense values — objects become Maps
//! (keys in the order written; a repeated key keeps its first place and
//! its last value, as Python's `json.loads` does), arrays Arrays, numbers
//! Ints or Floats (a number with a fraction or exponent is a Float),
//! strings, `true`/`false`, `null` as nil.
//!
//! Values are built while serde_json reads (a `DeserializeSeed` holding
//! the VM), so the document order of object keys is kept without an
//! intermediate tree. serde_json bounds the nesting depth (128) and names
//! the line and column of a malformed text.

use super::args::{error, string};
use crate::error::EvalResult;
use crate::map::{MapKey, MapObj};
use crate::value::Value;
use crate::vm::Vm;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::fmt;

const F: &str = "json.loads";

/// `json.loads(s)`.
pub(super) fn loads(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let text = string(vm, args, 0, F)?;
    let mut de = serde_json::Deserializer::from_str(&text);
    let value = Seed { vm }
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v));
    value.map_err(|e| {
        if e.is_data() {
            // A limit of the VM (string, array, map size), worded by it.
            error(F, e.to_string())
        } else {
            error(F, format!("malformed JSON: {e}"))
        }
    })
}

/// Builds one value with the VM.
struct Seed<'v> {
    vm: &'v mut Vm,
}

/// An error of the VM while building, as a serde error.
fn vm_error<E: de::Error>(e: crate::error::EvalError) -> E {
    E::custom(e.message())
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Nil)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Int(n))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
        i64::try_from(n)
            .map(Value::Int)
            .map_err(|_| E::custom(format!("the integer {n} does not fit in an Int (64-bit)")))
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Value, E> {
        Ok(Value::Float(x))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        self.vm.new_str(s).map_err(vm_error)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(Seed { vm: &mut *self.vm })? {
            self.vm.check_new_array(items.len() + 1).map_err(vm_error)?;
            items.push(v);
        }
        self.vm.new_array(items).map_err(vm_error)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = MapObj::new();
        while let Some(key) = map.next_key::<String>()? {
            let v = map.next_value_seed(Seed { vm: &mut *self.vm })?;
            m.insert(MapKey::Str(key.into_boxed_str()), v);
            self.vm.check_new_array(m.len()).map_err(vm_error)?;
        }
        self.vm.alloc_map(m).map_err(vm_error)
    }
}
