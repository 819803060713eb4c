//! The mock model's scripted tool calls, so `ask_with_tools` can be tried
//! and tested offline:
//!
//! ```text
//! model m = inference("mock", tool_calls: [["add", {"a": 2, "b": 3}], ["log"]])
//! ```
//!
//! Each element is one model turn asking for one call: the tool's name
//! (`server.tool` for an MCP tool) and, optionally, its arguments as a Map.
//! When every scripted call has been made, the mock answers with its
//! `response_template`, where `{results}` stands for the calls' results
//! (joined by `, `) besides `{prompt}`. A mock without `tool_calls:` still
//! refuses `ask_with_tools`, as the reference's does.

use crate::provider::{ChatMessage, ModelTurn, ToolCall, host_to_json};
use sense_eval::{EvalError, EvalResult, HostValue, Value, Vm};
use serde_json::Value as Json;

/// One scripted call: the tool's name and its arguments (a JSON object,
/// as text, so the model's snapshot bytes hold plain data).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScriptedCall {
    /// The tool, as the program names it.
    pub name: String,
    /// The arguments as a JSON object.
    pub arguments: String,
}

/// The default answer template of a mock that calls tools.
pub(crate) const TEMPLATE_WITH_TOOLS: &str =
    "(mock reasoning about: {prompt}; tools said: {results})";

const SHAPE: &str = "inference(\"mock\")'s tool_calls option must be an Array of calls, each \
                     [tool_name] or [tool_name, {arguments}]";

/// Reads the `tool_calls:` option.
pub(crate) fn parse(vm: &Vm, option: Value) -> EvalResult<Vec<ScriptedCall>> {
    let HostValue::List(calls) = vm.to_host(option) else {
        return Err(EvalError::runtime(SHAPE));
    };
    calls.iter().map(parse_call).collect()
}

fn parse_call(call: &HostValue) -> EvalResult<ScriptedCall> {
    let HostValue::List(parts) = call else {
        return Err(EvalError::runtime(SHAPE));
    };
    let (name, arguments) = match parts.as_slice() {
        [HostValue::Str(name)] => (name, Json::Object(serde_json::Map::new())),
        [HostValue::Str(name), args] => (name, host_to_json(args)),
        _ => return Err(EvalError::runtime(SHAPE)),
    };
    if !arguments.is_object() {
        return Err(EvalError::runtime(SHAPE));
    }
    Ok(ScriptedCall {
        name: name.clone(),
        arguments: arguments.to_string(),
    })
}

/// The mock's next turn: the next scripted call, or — once all were made
/// — `None`, and the caller answers with the template.
pub(crate) fn next_turn(script: &[ScriptedCall], messages: &[ChatMessage]) -> Option<ModelTurn> {
    let made = messages
        .iter()
        .filter(|m| matches!(m, ChatMessage::ToolCalls { .. }))
        .count();
    let call = script.get(made)?;
    let arguments = match crate::provider::host_from_json_text(&call.arguments) {
        Ok(HostValue::Map(entries)) => entries
            .into_iter()
            .map(|(k, v)| (k.as_str().unwrap_or_default().to_string(), v))
            .collect(),
        _ => Vec::new(),
    };
    Some(ModelTurn::ToolCalls {
        text: String::new(),
        calls: vec![ToolCall {
            id: format!("mock_call_{}", made + 1),
            name: call.name.clone(),
            arguments,
        }],
    })
}

/// Every result the conversation holds, in order, joined by `, `.
pub(crate) fn results(messages: &[ChatMessage]) -> String {
    let all: Vec<&str> = messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::ToolResults(r) => Some(r),
            _ => None,
        })
        .flatten()
        .map(|(_, text)| text.as_str())
        .collect();
    all.join(", ")
}
