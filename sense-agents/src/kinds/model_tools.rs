//! Tools as a model sees them (`ask_with_tools`, `skill`): their
//! descriptions and JSON schemas, and running one call a model asked for.

use super::tool_server;
use crate::provider::{ToolCall, ToolSpec};
use sense_eval::heap::{ObjRef, ScopeRef};
use sense_eval::{EvalError, EvalResult, Value, Vm};
use serde_json::Value as Json;

/// Validates a tool for a model (described, not async) and describes it.
pub(crate) fn tool_spec(vm: &Vm, t: Value) -> EvalResult<(ToolSpec, ObjRef)> {
    if let Value::Obj(r) = t
        && let Some(tool) = vm.ext_ref::<tool_server::McpToolObj>(r)
    {
        // The server's own schema, namespaced by server name.
        let (name, _) = tool_server::tool_info(vm, r).unwrap_or_default();
        let description = if tool.description.is_empty() {
            "(no description provided)".to_string()
        } else {
            tool.description.clone()
        };
        let schema = match serde_json::from_str::<Json>(&tool.input_schema) {
            Ok(Json::Object(o)) if !o.is_empty() => tool.input_schema.clone(),
            _ => r#"{"type":"object","properties":{}}"#.to_string(),
        };
        return Ok((
            ToolSpec {
                name,
                description,
                params: Vec::new(),
                input_schema: schema,
            },
            r,
        ));
    }
    let (Value::Obj(r), Some(tool)) = (t, super::tool::signature(vm, t)) else {
        return Err(EvalError::runtime(format!(
            "only tools declared with 'tool' (or 'async tool') are accepted here, got {}",
            vm.type_name(t)
        )));
    };
    if tool.is_async {
        return Err(EvalError::runtime(format!(
            "tool '{}' is async -- async tools aren't supported here yet (its result is a pending Future, not a value)",
            tool.name
        )));
    }
    let Some(description) = tool.description else {
        return Err(EvalError::runtime(format!(
            "tool '{}' has no description -- add one to expose it to a model, e.g. 'tool {}(...) \"what it does\":'",
            tool.name, tool.name
        )));
    };
    let input_schema = params_schema(&tool.params).to_string();
    Ok((
        ToolSpec {
            name: tool.name,
            description,
            params: tool.params,
            input_schema,
        },
        r,
    ))
}

/// Runs one tool call a model asked for, through the ordinary tool path
/// (arity, the caller's policy, types, audit), to completion.
pub(crate) fn call_tool_for_model(
    vm: &mut Vm,
    tool: ObjRef,
    call: &ToolCall,
    env: ScopeRef,
    line: u32,
) -> EvalResult<Value> {
    let Some(sig) = super::tool::signature(vm, Value::Obj(tool)) else {
        return Err(EvalError::runtime("not a tool"));
    };
    let mut args = Vec::with_capacity(sig.params.len());
    for (n, _) in &sig.params {
        let v = match call.arguments.iter().find(|(k, _)| k == n) {
            Some((_, hv)) => vm.value_from_host(hv)?,
            None => Value::Nil,
        };
        args.push(v);
    }
    let (span, file) = vm.current_span();
    vm.call_nested(Value::Obj(tool), &args, env, line)
        .map_err(|e| e.at(span.with_line(line), file))
}

/// The JSON schema of a Sense tool's parameters: every parameter is
/// required; annotations map to JSON types ([`type_schema`]), anything
/// else is unconstrained (as the reference does).
fn params_schema(params: &[(String, Option<String>)]) -> Json {
    let properties: serde_json::Map<String, Json> = params
        .iter()
        .map(|(n, ann)| (n.clone(), type_schema(ann.as_deref().unwrap_or(""))))
        .collect();
    let required: Vec<Json> = params
        .iter()
        .map(|(n, _)| Json::String(n.clone()))
        .collect();
    serde_json::json!({"type": "object", "properties": properties, "required": required})
}

/// The JSON schema of one annotation: `Int`, `Float`, `String`, `Bool`
/// as JSON's types; `Array` / `Array<T>` as an array whose `items` is
/// `T`'s schema (`{}`, anything, for a bare `Array`: OpenAI refuses an
/// array schema without `items`); `Map` / `Map<K, V>` as an object whose
/// values are `V`'s schema (JSON keys are always strings). Anything else
/// is `{}`.
pub(crate) fn type_schema(ann: &str) -> Json {
    let ann = ann.trim();
    let simple = match ann {
        "Int" => Some("integer"),
        "Float" => Some("number"),
        "String" => Some("string"),
        "Bool" => Some("boolean"),
        _ => None,
    };
    if let Some(t) = simple {
        return serde_json::json!({ "type": t });
    }
    if ann == "Array" {
        return serde_json::json!({"type": "array", "items": {}});
    }
    if let Some(inner) = generic_args(ann, "Array") {
        return serde_json::json!({"type": "array", "items": type_schema(inner)});
    }
    if ann == "Map" {
        return serde_json::json!({"type": "object"});
    }
    if let Some(inner) = generic_args(ann, "Map") {
        // `Map<K, V>`: the value type is what follows the first
        // top-level comma.
        let value = split_top_level(inner).map_or("", |(_, v)| v);
        return match type_schema(value) {
            Json::Object(o) if o.is_empty() => serde_json::json!({"type": "object"}),
            v => serde_json::json!({"type": "object", "additionalProperties": v}),
        };
    }
    serde_json::json!({})
}

/// `T` of `Name<T>`.
fn generic_args<'a>(ann: &'a str, name: &str) -> Option<&'a str> {
    ann.strip_prefix(name)?
        .trim_start()
        .strip_prefix('<')?
        .strip_suffix('>')
}

/// `K` and `V` of `K, V`, split at the first comma outside `<…>`.
fn split_top_level(args: &str) -> Option<(&str, &str)> {
    let mut depth = 0usize;
    for (i, c) in args.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return Some((args.get(..i)?, args.get(i + 1..)?)),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arrays_always_say_what_their_items_are() {
        assert_eq!(type_schema("Array"), json!({"type": "array", "items": {}}));
        assert_eq!(
            type_schema("Array<Array>"),
            json!({"type": "array", "items": {"type": "array", "items": {}}})
        );
        assert_eq!(
            type_schema("Array<Int>"),
            json!({"type": "array", "items": {"type": "integer"}})
        );
    }

    #[test]
    fn maps_are_objects() {
        assert_eq!(type_schema("Map"), json!({"type": "object"}));
        assert_eq!(
            type_schema("Map<String, Int>"),
            json!({"type": "object", "additionalProperties": {"type": "integer"}})
        );
        assert_eq!(
            type_schema("Map<String, Map<String, Array>>"),
            json!({"type": "object", "additionalProperties": {"type": "object",
                   "additionalProperties": {"type": "array", "items": {}}}})
        );
        assert_eq!(
            type_schema("Map<String, Whatever>"),
            json!({"type": "object"})
        );
        assert_eq!(type_schema("Mapping"), json!({}));
    }
}
