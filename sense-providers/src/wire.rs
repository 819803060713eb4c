//! What both HTTP providers share: the API key and base URL of a call,
//! tool names as the APIs accept them, and JSON ↔ host values.

use sense_agents::provider::{
    ModelOptions, ToolSpec, host_from_json, host_from_json_text, host_to_json,
};
use sense_eval::HostValue;
use serde_json::Value as Json;

/// The API key for a call: the variable `api_key_env:` names, else
/// `default_env`, without surrounding whitespace (a key pasted with its
/// newline still works). The error for a missing key is the reference's;
/// a key that cannot travel in an HTTP header (control characters, or
/// anything but visible ASCII inside it) is refused as malformed, without
/// showing it.
pub(crate) fn api_key(options: &ModelOptions, default_env: &str) -> Result<String, String> {
    let name = options.api_key_env.as_deref().unwrap_or(default_env);
    let key = std::env::var(name).unwrap_or_default();
    let key = key.trim();
    if key.is_empty() {
        return Err(format!(
            "inference() needs the '{name}' environment variable set to a real API key"
        ));
    }
    if !key.chars().all(|c| c.is_ascii_graphic()) {
        return Err(format!(
            "the '{name}' environment variable holds a malformed API key: it contains \
             spaces, control characters or non-ASCII characters"
        ));
    }
    Ok(key.to_string())
}

/// The API's base URL: `base_url:`, else the variable `env`, else
/// `default`; without a trailing slash.
pub(crate) fn base_url(options: &ModelOptions, env: &str, default: &str) -> String {
    let from_env = std::env::var(env).ok().filter(|v| !v.trim().is_empty());
    let url = options
        .base_url
        .clone()
        .or(from_env)
        .unwrap_or_else(|| default.to_string());
    url.trim().trim_end_matches('/').to_string()
}

/// Tool names as the APIs accept them (`^[a-zA-Z0-9_-]{1,64}$`): an MCP
/// tool's `server.tool` goes out as `server__tool`, and answers are mapped
/// back to the names the program knows.
pub(crate) struct ToolNames {
    /// (name in Sense, name on the wire)
    pairs: Vec<(String, String)>,
}

impl ToolNames {
    pub(crate) fn new(tools: &[ToolSpec]) -> Self {
        let mut pairs: Vec<(String, String)> = Vec::with_capacity(tools.len());
        for t in tools {
            let mut wire: String = t
                .name
                .replace('.', "__")
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .take(60)
                .collect();
            if wire.is_empty() {
                wire.push('t');
            }
            let base = wire.clone();
            let mut n = 2;
            while pairs.iter().any(|(_, w)| *w == wire) {
                wire = format!("{base}{n}");
                n += 1;
            }
            pairs.push((t.name.clone(), wire));
        }
        ToolNames { pairs }
    }

    pub(crate) fn to_wire<'a>(&'a self, name: &'a str) -> &'a str {
        self.pairs
            .iter()
            .find(|(n, _)| n == name)
            .map_or(name, |(_, w)| w.as_str())
    }

    pub(crate) fn sense_name(&self, wire: &str) -> String {
        self.pairs
            .iter()
            .find(|(_, w)| w == wire)
            .map_or_else(|| wire.to_string(), |(n, _)| n.clone())
    }
}

/// A tool's JSON schema, parsed (an empty object schema if unreadable),
/// with `items: {}` added to every array schema that has none: OpenAI
/// refuses such a schema (400 "array schema missing items"), and an MCP
/// server's own schema may hold one.
pub(crate) fn schema(t: &ToolSpec) -> Json {
    match serde_json::from_str::<Json>(&t.input_schema) {
        Ok(mut j @ Json::Object(_)) => {
            give_arrays_items(&mut j, 0);
            j
        }
        _ => serde_json::json!({"type": "object", "properties": {}}),
    }
}

/// Schemas nested deeper than this are left as they are (a server's
/// schema is data, and the walk must not exhaust the stack).
const MAX_SCHEMA_DEPTH: usize = 64;

fn give_arrays_items(j: &mut Json, depth: usize) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    match j {
        Json::Object(fields) => {
            let is_array = match fields.get("type") {
                Some(Json::String(t)) => t == "array",
                Some(Json::Array(ts)) => ts.iter().any(|t| t == "array"),
                _ => false,
            };
            if is_array && !fields.contains_key("items") && !fields.contains_key("prefixItems") {
                fields.insert("items".into(), Json::Object(serde_json::Map::new()));
            }
            for v in fields.values_mut() {
                give_arrays_items(v, depth + 1);
            }
        }
        Json::Array(items) => {
            for v in items {
                give_arrays_items(v, depth + 1);
            }
        }
        _ => {}
    }
}

/// A model's tool-call arguments (a JSON object) as host values; nested
/// objects become Maps.
pub(crate) fn args_from_json(j: &Json) -> Result<Vec<(String, HostValue)>, String> {
    args_from_host(host_from_json(j), &j.to_string())
}

/// [`args_from_json`] for arguments sent as JSON text (OpenAI's), keeping
/// the keys of nested objects in the order the model wrote them.
pub(crate) fn args_from_text(name: &str, raw: &str) -> Result<Vec<(String, HostValue)>, String> {
    let raw = if raw.trim().is_empty() { "{}" } else { raw };
    let value = host_from_json_text(raw).map_err(|e| {
        format!(
            "APIResponseValidationError: tool call '{name}' has arguments that are not JSON ({e}): {}",
            crate::http::preview(raw)
        )
    })?;
    args_from_host(value, raw)
}

fn args_from_host(value: HostValue, raw: &str) -> Result<Vec<(String, HostValue)>, String> {
    match value {
        HostValue::Map(entries) => Ok(entries
            .into_iter()
            .map(|(k, v)| (k.as_str().map_or_else(|| k.to_string(), str::to_string), v))
            .collect()),
        HostValue::Nil => Ok(Vec::new()),
        _ => Err(format!(
            "APIResponseValidationError: tool-call arguments are not a JSON object: {}",
            crate::http::preview(raw)
        )),
    }
}

/// The arguments of a call as a JSON object.
pub(crate) fn args_to_json(args: &[(String, HostValue)]) -> Json {
    Json::Object(
        args.iter()
            .map(|(k, v)| (k.clone(), host_to_json(v)))
            .collect(),
    )
}

/// Sets `key` on a request body built as a JSON object (a no-op on
/// anything else, which the builders never make).
pub(crate) fn set(body: &mut Json, key: &str, value: Json) {
    if let Some(fields) = body.as_object_mut() {
        fields.insert(key.to_string(), value);
    }
}

/// The request keys of `inference()`'s options: (key in the body, label).
const OPTION_KEYS: [(&str, &str); 3] = [
    ("temperature", "temperature"),
    ("max_completion_tokens", "max_tokens"),
    ("max_tokens", "max_tokens"),
];

/// A 400 (or 422) whose message names an option the request carried gets
/// a note naming the `inference()` option behind it: models differ in
/// the sampling parameters they accept, and the API's words name the wire
/// key, not the label the program wrote.
pub(crate) fn name_refused_option(error: String, body: &Json) -> String {
    let refused = ["BadRequestError:", "UnprocessableEntityError:"]
        .iter()
        .any(|class| error.starts_with(class));
    if !refused {
        return error;
    }
    for (key, label) in OPTION_KEYS {
        if body.get(key).is_some() && names_word(&error, key) {
            return format!(
                "{error} -- this model refused inference()'s {label}: option (sent as \
                 '{key}'); leave it out or change it for this model"
            );
        }
    }
    error
}

/// True if `word` stands in `text` as a whole word (not inside another
/// identifier).
fn names_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text.get(..i).and_then(|t| t.chars().next_back());
        let after = text.get(i + word.len()..).and_then(|t| t.chars().next());
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// "the answer has no X" as a response-validation error.
pub(crate) fn malformed(provider: &str, what: &str, body: &Json) -> String {
    format!(
        "APIResponseValidationError: {provider} answer has no {what}: {}",
        crate::http::preview(&body.to_string())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: String::new(),
            params: Vec::new(),
            input_schema: "{}".into(),
        }
    }

    #[test]
    fn tool_names_round_trip_and_stay_distinct() {
        let names = ToolNames::new(&[spec("fs.read"), spec("fs__read"), spec("a b")]);
        assert_eq!(names.to_wire("fs.read"), "fs__read");
        assert_eq!(names.to_wire("fs__read"), "fs__read2");
        assert_eq!(names.to_wire("a b"), "a_b");
        assert_eq!(names.sense_name("fs__read"), "fs.read");
        assert_eq!(names.sense_name("fs__read2"), "fs__read");
        assert_eq!(names.sense_name("unknown"), "unknown");
    }

    #[test]
    fn a_refused_option_is_named_by_its_label() {
        let body = serde_json::json!({"model": "m", "temperature": 0.2, "max_tokens": 5});
        let e =
            "BadRequestError: Error code: 400 - temperature: not supported (invalid_request_error)";
        let named = name_refused_option(e.to_string(), &body);
        assert!(
            named.ends_with("refused inference()'s temperature: option (sent as 'temperature'); leave it out or change it for this model"),
            "{named}"
        );
        // Not sent, another class, or only inside another word: unchanged.
        let other = serde_json::json!({"model": "m"});
        assert_eq!(name_refused_option(e.to_string(), &other), e);
        let auth = "AuthenticationError: Error code: 401 - temperature";
        assert_eq!(name_refused_option(auth.to_string(), &body), auth);
        let inside = "BadRequestError: Error code: 400 - bad max_tokens_total";
        assert_eq!(name_refused_option(inside.to_string(), &body), inside);
    }

    #[test]
    fn array_schemas_without_items_get_them() {
        let t = ToolSpec {
            input_schema: r#"{"type":"object","properties":{
                "xs":{"type":"array"},
                "ys":{"type":["array","null"]},
                "zs":{"type":"array","items":{"type":"string"}},
                "o":{"type":"object","properties":{"deep":{"type":"array"}}}}}"#
                .into(),
            ..spec("t")
        };
        let s = schema(&t);
        assert_eq!(
            s["properties"]["xs"],
            serde_json::json!({"type": "array", "items": {}})
        );
        assert_eq!(s["properties"]["ys"]["items"], serde_json::json!({}));
        assert_eq!(
            s["properties"]["zs"]["items"],
            serde_json::json!({"type": "string"})
        );
        assert_eq!(
            s["properties"]["o"]["properties"]["deep"]["items"],
            serde_json::json!({})
        );
    }

    #[test]
    fn arguments_keep_nested_objects() {
        let j = serde_json::json!({"n": 1, "x": 1.5, "s": "t", "l": [true, null], "o": {"k": [1]}});
        let args = args_from_json(&j).unwrap();
        assert_eq!(args_to_json(&args), j);
        assert!(args_from_json(&serde_json::json!([1])).is_err());
        assert!(args_from_json(&Json::Null).unwrap().is_empty());
    }

    #[test]
    fn base_url_prefers_the_option_and_drops_trailing_slashes() {
        let o = ModelOptions {
            base_url: Some("http://127.0.0.1:8080/v1/".into()),
            ..ModelOptions::default()
        };
        assert_eq!(
            base_url(&o, "SENSE_TEST_UNSET_BASE_URL", "https://x"),
            "http://127.0.0.1:8080/v1"
        );
        assert_eq!(
            base_url(
                &ModelOptions::default(),
                "SENSE_TEST_UNSET_BASE_URL",
                "https://x/"
            ),
            "https://x"
        );
    }
}
