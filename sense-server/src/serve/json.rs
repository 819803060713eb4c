//! Sense values and stored instances as JSON for the service's API.

use sense_agents::{AgentReport, HostValue};
use sense_store::{AuditEvent, Summary};
use serde_json::{Map, Value as Json, json};

/// A host value as JSON: lists become arrays, maps objects (keys as
/// their printed text); values JSON cannot hold
/// (functions, agents, …) become `{"type", "text"}` objects.
pub fn from_host(v: &HostValue) -> Json {
    match v {
        HostValue::Nil => Json::Null,
        HostValue::Bool(b) => Json::Bool(*b),
        HostValue::Int(i) => json!(i),
        HostValue::Float(f) => serde_json::Number::from_f64(*f).map_or_else(
            || json!({"type": "Float", "text": f.to_string()}),
            Json::Number,
        ),
        HostValue::Str(s) => Json::String(s.clone()),
        HostValue::List(items) => Json::Array(items.iter().map(from_host).collect()),
        HostValue::Map(entries) => Json::Object(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), from_host(v)))
                .collect(),
        ),
        HostValue::Task(a) => json!({"type": "Agent", "text": a.text()}),
        HostValue::Opaque { type_name, text } => json!({"type": type_name, "text": text}),
    }
}

/// Deepest nesting accepted in a resume value or message (the book's
/// serve chapter says so).
const MAX_DEPTH: usize = 64;

/// A JSON request value as a host value: `null`, booleans, numbers
/// (integers when they fit an Int), strings, arrays and objects (Maps)
/// of those.
pub fn to_host(v: &Json) -> Result<HostValue, String> {
    to_host_at(v, 0)
}

fn to_host_at(v: &Json, depth: usize) -> Result<HostValue, String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "the value is nested deeper than {MAX_DEPTH} levels"
        ));
    }
    Ok(match v {
        Json::Null => HostValue::Nil,
        Json::Bool(b) => HostValue::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => HostValue::Int(i),
            None => HostValue::Float(n.as_f64().ok_or("a number out of range")?),
        },
        Json::String(s) => HostValue::Str(s.clone()),
        Json::Array(items) => HostValue::List(
            items
                .iter()
                .map(|x| to_host_at(x, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Json::Object(fields) => HostValue::Map(
            fields
                .iter()
                .map(|(k, x)| Ok((HostValue::Str(k.clone()), to_host_at(x, depth + 1)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

/// The first integer literal in the JSON text `bytes` (outside strings)
/// that does not fit a 64-bit Int, shortened for a message. serde_json
/// reads such a literal as a Float, silently losing digits, so bodies are
/// checked for them first. `bytes` is JSON that has already parsed.
pub fn oversized_integer(bytes: &[u8]) -> Option<String> {
    let number_byte = |c: &u8| matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9');
    let mut i = 0;
    let mut in_string = false;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' if in_string => i += 2,
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'-' | b'0'..=b'9' if !in_string => {
                let start = i;
                while bytes.get(i).is_some_and(number_byte) {
                    i += 1;
                }
                let token = bytes.get(start..i).unwrap_or_default();
                let integer = !token.iter().any(|c| matches!(c, b'.' | b'e' | b'E'));
                let text = String::from_utf8_lossy(token);
                if integer && text.parse::<i64>().is_err() {
                    return Some(if text.len() > 40 {
                        let digits = token.iter().filter(|c| c.is_ascii_digit()).count();
                        format!("{}… ({digits} digits)", text.get(..40).unwrap_or_default())
                    } else {
                        text.into_owned()
                    });
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// Stored JSON text back as JSON (stored text this service wrote; anything
/// unreadable is shown as a string).
pub fn stored(text: Option<&str>) -> Json {
    match text {
        None => Json::Null,
        Some(t) => serde_json::from_str(t).unwrap_or_else(|_| Json::String(t.to_string())),
    }
}

/// What the API says about an instance (without call stacks).
pub fn summary(s: &Summary, current_hash: &str) -> Json {
    let mut o = Map::new();
    o.insert("id".into(), json!(s.id));
    o.insert("agent".into(), json!(s.agent));
    o.insert("status".into(), json!(s.status.as_str()));
    o.insert("pause_reason".into(), stored(s.pause_reason.as_deref()));
    o.insert("pause_kind".into(), json!(s.pause_kind));
    o.insert("version".into(), json!(s.version));
    o.insert("error".into(), json!(s.error));
    o.insert("output".into(), json!(s.output));
    o.insert("pause_requested".into(), json!(s.pause_requested));
    o.insert("created_at".into(), json!(s.created_at));
    o.insert("updated_at".into(), json!(s.updated_at));
    o.insert("snapshot_bytes".into(), json!(s.snapshot_bytes));
    if let Some(due) = s.wake_at {
        // A timer's wake-up or a question's deadline (Unix milliseconds).
        o.insert("wake_at".into(), json!(due));
    }
    let current = s.program_hash == current_hash;
    let mut program = json!({
        "name": s.program_name,
        "hash": s.program_hash,
        "current": current,
    });
    if !current {
        program["note"] = json!(
            "started with another version of the program; it keeps running the source \
             it was started with and stays resumable"
        );
    }
    o.insert("program".into(), program);
    Json::Object(o)
}

/// An agent of a restored runtime: status, pause, mailbox, call stack
/// with locals (innermost frame first), as `sense show` lists them.
pub fn agent(a: &AgentReport) -> Json {
    let frames: Vec<Json> = a
        .frames
        .iter()
        .map(|f| {
            let locals: Map<String, Json> = f
                .locals
                .iter()
                .map(|(k, v)| (k.clone(), from_host(v)))
                .collect();
            json!({"function": f.function, "file": f.file, "line": f.line, "locals": locals})
        })
        .collect();
    json!({
        "name": a.name,
        "status": a.status.as_str(),
        "pause_kind": a.pause_kind.map(|k| k.as_str()),
        "pause_reason": from_host(&a.pause_reason),
        "mailbox": a.mailbox,
        "frames": frames,
    })
}

/// An agent's model usage and budgets (issue 25): `usage` as Sense's
/// `agent.usage` reads it, `budget` with `tokens` and `cost` (null when
/// not set).
pub fn add_spending(j: &mut Json, rt: &sense_agents::Runtime, id: sense_agents::AgentId) {
    let spent = rt.agent_usage(id).unwrap_or_default();
    let (tokens, cost) = rt.agent_budget(id).unwrap_or((None, None));
    let t = &spent.tokens;
    j["usage"] = json!({
        "calls": spent.calls,
        "input_tokens": t.input,
        "output_tokens": t.output,
        "cached_tokens": t.cached,
        "cache_write_tokens": t.cache_write,
        "total_tokens": t.total(),
        "cost": spent.priced.then_some(spent.cost),
    });
    j["budget"] = json!({"tokens": tokens, "cost": cost});
}

/// An audit event.
pub fn audit(e: &AuditEvent) -> Json {
    json!({
        "seq": e.seq,
        "version": e.version,
        "at": e.at,
        "event": e.kind,
        "detail": stored(Some(&e.detail)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        let v = json!([null, true, 3, -2.5, "x", [1, "y"]]);
        let h = to_host(&v).unwrap();
        assert_eq!(from_host(&h), v);
        // Objects arrive as Maps (issue 23) and go back as objects.
        let obj = json!({"a": 1, "b": [true, {"c": null}]});
        let h = to_host(&obj).unwrap();
        assert_eq!(h.get("a"), Some(&HostValue::Int(1)));
        assert_eq!(h.type_name(), "Map");
        assert_eq!(from_host(&h), obj);
        let mut deep = json!(1);
        for _ in 0..100 {
            deep = json!([deep]);
        }
        assert!(to_host(&deep).unwrap_err().contains("nested"));
    }

    #[test]
    fn integers_beyond_64_bits_are_found_outside_strings() {
        let found = |t: &str| oversized_integer(t.as_bytes());
        assert_eq!(found(r#"{"value": 9223372036854775807}"#), None);
        assert_eq!(found(r#"{"value": -9223372036854775808}"#), None);
        assert_eq!(
            found(r#"{"value": [1, 9223372036854775808]}"#).as_deref(),
            Some("9223372036854775808")
        );
        assert_eq!(
            found(r#"{"value": -9223372036854775809}"#).as_deref(),
            Some("-9223372036854775809")
        );
        assert_eq!(found(r#"{"value": [1e30, 1.5, -0.0, 2E400]}"#), None);
        // Digits inside strings, also after escaped quotes, are text.
        assert_eq!(found(r#"{"v\"": "99999999999999999999\" 1"}"#), None);
        let long = format!("{{\"value\": {}}}", "7".repeat(100));
        let shown = found(&long).unwrap();
        assert!(shown.ends_with("(100 digits)"), "{shown}");
    }
}
