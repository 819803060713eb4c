//! `inference("openai", …)`: the OpenAI Chat Completions API, and any
//! server that speaks it (Ollama, llama.cpp's server, vLLM, …).

use crate::chat::{self, Api, Dialect, chat_provider};
use crate::streamed;
use crate::usage;
use crate::wire::{self, ToolNames};
use sense_agents::provider::{
    ChatMessage, ModelOptions, ModelResponse, ModelTurn, ToolCall, ToolSpec,
};
use serde_json::{Value as Json, json};

/// The provider's name in `inference(…)`.
pub const NAME: &str = "openai";
/// Its capability.
pub const CAPABILITY: &str = "model.openai";
/// The model used when `inference("openai")` names none.
pub const DEFAULT_MODEL: &str = "gpt-4o";
/// The variable holding the API key unless `api_key_env:` names another.
pub const KEY_ENV: &str = "OPENAI_API_KEY";
/// The variable that moves the API (unless `base_url:` is given).
pub const BASE_URL_ENV: &str = "OPENAI_BASE_URL";
/// Where the API lives by default.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// How calls to the API are made.
static API: Api = Api {
    key_env: KEY_ENV,
    base_url_env: BASE_URL_ENV,
    default_base_url: DEFAULT_BASE_URL,
    path: "/chat/completions",
    headers: |key| vec![("Authorization", format!("Bearer {key}"))],
    usage: usage::openai,
    // Without it the stream says nothing of what the call spent.
    stream_fields: |body| wire::set(body, "stream_options", json!({"include_usage": true})),
    stream: streamed::read::<streamed::OpenAi>,
};

chat_provider! {
    /// The OpenAI Chat Completions provider.
    pub struct OpenAi(API);
}

/// The first choice's message.
fn first_message(answer: &Json) -> Result<&Json, String> {
    answer
        .get("choices")
        .and_then(|c| c.get(0))
        .and_then(|c| c.get("message"))
        .filter(|m| m.is_object())
        .ok_or_else(|| wire::malformed("the OpenAI", "choices[0].message", answer))
}

/// The message's text (empty when `content` is null, as it is beside
/// tool calls).
fn content(message: &Json) -> String {
    message
        .get("content")
        .and_then(Json::as_str)
        .unwrap_or("")
        .to_string()
}

/// The first choice's message, unless the model refused (`refusal` set,
/// `content` null) or the content filter withheld the answer: then an
/// error saying so, never an empty answer.
fn answered_message(answer: &Json) -> Result<&Json, String> {
    let message = first_message(answer)?;
    if let Some(why) = message.get("refusal").and_then(Json::as_str) {
        return Err(format!("the model refused: {}", why.trim()));
    }
    let finish = answer
        .pointer("/choices/0/finish_reason")
        .and_then(Json::as_str);
    if finish == Some("content_filter") && message.get("content").is_none_or(Json::is_null) {
        return Err("the answer was withheld by OpenAI's content filter \
                    (finish_reason: content_filter)"
            .to_string());
    }
    Ok(message)
}

/// The `value` field of a wrapped structured answer, as JSON text (the
/// text as it is when it has none).
fn unwrap_value(text: String) -> String {
    match serde_json::from_str::<Json>(&text) {
        Ok(Json::Object(mut fields)) => fields.remove("value").map_or(text, |v| v.to_string()),
        _ => text,
    }
}

impl Dialect for OpenAi {
    fn request(model_id: &str, options: &ModelOptions, messages: Vec<Json>) -> Json {
        let mut body = json!({ "model": model_id, "messages": messages });
        if let Some(t) = options.temperature {
            wire::set(&mut body, "temperature", json!(t));
        }
        if let Some(n) = options.max_tokens {
            // Newer models refuse `max_tokens`; the API's current name.
            wire::set(&mut body, "max_completion_tokens", json!(n));
        }
        body
    }

    fn answer_text(answer: &Json) -> Result<String, String> {
        answered_message(answer).map(content)
    }

    fn messages_json(messages: &[ChatMessage], names: &ToolNames) -> Vec<Json> {
        let mut out = Vec::with_capacity(messages.len());
        for m in messages {
            match m {
                ChatMessage::User(text) => out.push(json!({"role": "user", "content": text})),
                ChatMessage::ToolCalls { text, calls } => {
                    let calls: Vec<Json> = calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": {
                                    "name": names.to_wire(&c.name),
                                    "arguments": wire::args_to_json(&c.arguments).to_string(),
                                }
                            })
                        })
                        .collect();
                    // The text the model wrote beside its calls stays in the
                    // conversation (`content` is null only when there was none).
                    let content = if text.is_empty() {
                        Json::Null
                    } else {
                        json!(text)
                    };
                    out.push(json!({"role": "assistant", "content": content, "tool_calls": calls}));
                }
                ChatMessage::ToolResults(results) => {
                    for (id, text) in results {
                        out.push(json!({"role": "tool", "tool_call_id": id, "content": text}));
                    }
                }
            }
        }
        out
    }

    fn tool_json(t: &ToolSpec, names: &ToolNames) -> Json {
        json!({
            "type": "function",
            "function": {
                "name": names.to_wire(&t.name),
                "description": t.description,
                "parameters": wire::schema(t),
            }
        })
    }

    /// Structured Outputs: `response_format` with the value's JSON
    /// schema. The API wants an object at the root, so any other value is
    /// asked for as the `value` field of one and taken out again.
    fn structured_format(body: &mut Json, schema: &str) -> Option<fn(String) -> String> {
        let schema: Json = serde_json::from_str(schema).unwrap_or_else(|_| json!({}));
        let wrapped = schema.get("type").and_then(Json::as_str) != Some("object");
        let root = if wrapped {
            json!({"type": "object", "properties": {"value": schema}, "required": ["value"]})
        } else {
            schema
        };
        wire::set(
            body,
            "response_format",
            json!({"type": "json_schema", "json_schema": {"name": "answer", "schema": root}}),
        );
        Some(if wrapped { unwrap_value } else { |text| text })
    }

    fn turn(answer: &Json, names: &ToolNames) -> Result<ModelTurn, String> {
        let message = answered_message(answer)?;
        let calls = match message.get("tool_calls") {
            Some(Json::Array(calls)) if !calls.is_empty() => calls,
            _ => return Ok(ModelTurn::Answer(content(message))),
        };
        let mut out = Vec::with_capacity(calls.len());
        for c in calls {
            let (Some(id), Some(name)) = (
                c.get("id").and_then(Json::as_str),
                c.pointer("/function/name").and_then(Json::as_str),
            ) else {
                return Err(wire::malformed("the OpenAI", "tool call id/name", answer));
            };
            // `arguments` is a string holding JSON.
            let raw = c
                .pointer("/function/arguments")
                .and_then(Json::as_str)
                .unwrap_or("{}");
            let arguments = wire::args_from_text(name, raw)?;
            out.push(ToolCall {
                id: id.to_string(),
                name: names.sense_name(name),
                arguments,
            });
        }
        Ok(ModelTurn::ToolCalls {
            text: content(message),
            calls: out,
        })
    }
}
