//! JSON that models and tool servers send, as host values: objects become
//! `HostValue::Map`s with String keys, arrays lists, integers that fit
//! `Int`s, other numbers `Float`s.
//!
//! serde_json's own `Value` keeps object keys sorted (the workspace does
//! not turn on its `preserve_order`), so [`host_from_json_text`] builds
//! host values straight from the text instead, keeping the keys in the
//! order they were written: a model's structured answer reads as it wrote
//! it.

use sense_eval::HostValue;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value as Json;
use std::fmt;

/// A parsed JSON value as a host value (object keys as the `Value` holds
/// them: sorted).
///
/// ```
/// use sense_agents::provider::host_from_json;
///
/// let v = host_from_json(&serde_json::json!([1, 2.5, "x", null, {"k": true}]));
/// assert_eq!(v.to_string(), "[1, 2.5, x, nil, {k: true}]");
/// ```
pub fn host_from_json(j: &Json) -> HostValue {
    match j {
        Json::Null => HostValue::Nil,
        Json::Bool(b) => HostValue::Bool(*b),
        Json::Number(n) => number(n.as_i64(), n.as_f64()),
        Json::String(s) => HostValue::Str(s.clone()),
        Json::Array(items) => HostValue::List(items.iter().map(host_from_json).collect()),
        Json::Object(fields) => HostValue::Map(
            fields
                .iter()
                .map(|(k, v)| (HostValue::Str(k.clone()), host_from_json(v)))
                .collect(),
        ),
    }
}

/// A JSON text as a host value, object keys in the order written. The
/// error is serde_json's (with line and column).
///
/// ```
/// use sense_agents::provider::host_from_json_text;
///
/// let v = host_from_json_text(r#"{"zeta": 1, "alpha": [2, {"b": 3, "a": 4}]}"#).unwrap();
/// assert_eq!(v.to_string(), "{zeta: 1, alpha: [2, {b: 3, a: 4}]}");
/// assert!(host_from_json_text("{oops").is_err());
/// let twice = host_from_json_text(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
/// assert_eq!(twice.to_string(), "{a: 3, b: 2}");
/// ```
pub fn host_from_json_text(text: &str) -> Result<HostValue, serde_json::Error> {
    serde_json::from_str::<Ordered>(text).map(|o| o.0)
}

fn number(int: Option<i64>, float: Option<f64>) -> HostValue {
    match int {
        Some(i) => HostValue::Int(i),
        None => HostValue::Float(float.unwrap_or(f64::NAN)),
    }
}

/// A host value deserialized in document order.
struct Ordered(HostValue);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(OrderedVisitor).map(Ordered)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = HostValue;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<HostValue, E> {
        Ok(HostValue::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<HostValue, E> {
        Ok(HostValue::Int(i))
    }

    fn visit_u64<E>(self, u: u64) -> Result<HostValue, E> {
        Ok(number(i64::try_from(u).ok(), Some(u as f64)))
    }

    fn visit_f64<E>(self, f: f64) -> Result<HostValue, E> {
        Ok(HostValue::Float(f))
    }

    fn visit_str<E>(self, s: &str) -> Result<HostValue, E> {
        Ok(HostValue::Str(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<HostValue, E> {
        Ok(HostValue::Str(s))
    }

    fn visit_unit<E>(self) -> Result<HostValue, E> {
        Ok(HostValue::Nil)
    }

    fn visit_none<E>(self) -> Result<HostValue, E> {
        Ok(HostValue::Nil)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HostValue, A::Error> {
        let mut items = Vec::new();
        while let Some(Ordered(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(HostValue::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HostValue, A::Error> {
        let mut entries: Vec<(HostValue, HostValue)> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        while let Some((k, Ordered(v))) = map.next_entry::<String, Ordered>()? {
            // A repeated key keeps its first place and its last value, as
            // a map assignment would.
            match index.get(&k).and_then(|&i| entries.get_mut(i)) {
                Some(slot) => slot.1 = v,
                None => {
                    index.insert(k.clone(), entries.len());
                    entries.push((HostValue::Str(k), v));
                }
            }
        }
        Ok(HostValue::Map(entries))
    }
}
