//! `inference("anthropic", …)`: the Anthropic Messages API.

use crate::chat::{self, Api, Dialect, chat_provider};
use crate::streamed;
use crate::usage;
use crate::wire::{self, ToolNames};
use sense_agents::provider::{
    ChatMessage, ModelOptions, ModelResponse, ModelTurn, ToolCall, ToolSpec,
};
use serde_json::{Value as Json, json};

/// The provider's name in `inference(…)`.
pub const NAME: &str = "anthropic";
/// Its capability.
pub const CAPABILITY: &str = "model.anthropic";
/// The model used when `inference("anthropic")` names none.
pub const DEFAULT_MODEL: &str = "claude-sonnet-5";
/// The variable holding the API key unless `api_key_env:` names another.
pub const KEY_ENV: &str = "ANTHROPIC_API_KEY";
/// The variable that moves the API (unless `base_url:` is given).
pub const BASE_URL_ENV: &str = "ANTHROPIC_BASE_URL";
/// Where the API lives by default.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The API version sent with every request.
pub const API_VERSION: &str = "2023-06-01";
/// `max_tokens` is required by this API; used when none is given.
pub const DEFAULT_MAX_TOKENS: i64 = 1024;

/// How calls to the API are made.
static API: Api = Api {
    key_env: KEY_ENV,
    base_url_env: BASE_URL_ENV,
    default_base_url: DEFAULT_BASE_URL,
    path: "/v1/messages",
    headers: |key| {
        vec![
            ("x-api-key", key.to_string()),
            ("anthropic-version", API_VERSION.to_string()),
        ]
    },
    usage: usage::anthropic,
    stream_fields: |_| {},
    stream: streamed::read::<streamed::Anthropic>,
};

chat_provider! {
    /// The Anthropic Messages provider.
    pub struct Anthropic(API);
}

/// The answer's content blocks, unless the model refused (`stop_reason`
/// `refusal`): then an error saying so, never an empty answer.
fn blocks(answer: &Json) -> Result<&Vec<Json>, String> {
    let content = answer
        .get("content")
        .and_then(Json::as_array)
        .ok_or_else(|| wire::malformed("the Anthropic", "content", answer))?;
    if answer.get("stop_reason").and_then(Json::as_str) == Some("refusal") {
        let said = text(content);
        return Err(if said.trim().is_empty() {
            "the model refused to answer (stop_reason: refusal)".to_string()
        } else {
            format!("the model refused: {}", said.trim())
        });
    }
    Ok(content)
}

/// Its text blocks, joined.
fn text(blocks: &[Json]) -> String {
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Json::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Json::as_str))
        .collect()
}

impl Dialect for Anthropic {
    fn request(model_id: &str, options: &ModelOptions, messages: Vec<Json>) -> Json {
        let mut body = json!({
            "model": model_id,
            "max_tokens": options.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            "messages": messages,
        });
        if let Some(t) = options.temperature {
            wire::set(&mut body, "temperature", json!(t));
        }
        body
    }

    fn answer_text(answer: &Json) -> Result<String, String> {
        blocks(answer).map(|b| text(b))
    }

    fn messages_json(messages: &[ChatMessage], names: &ToolNames) -> Vec<Json> {
        messages
            .iter()
            .map(|m| match m {
                ChatMessage::User(text) => json!({"role": "user", "content": text}),
                ChatMessage::ToolCalls { text, calls } => {
                    // The text the model wrote before its calls stays in the
                    // conversation, as the text block it was.
                    let said = (!text.is_empty()).then(|| json!({"type": "text", "text": text}));
                    let content: Vec<Json> = said
                        .into_iter()
                        .chain(calls.iter().map(|c| {
                            json!({
                                "type": "tool_use",
                                "id": c.id,
                                "name": names.to_wire(&c.name),
                                "input": wire::args_to_json(&c.arguments),
                            })
                        }))
                        .collect();
                    json!({"role": "assistant", "content": content})
                }
                ChatMessage::ToolResults(results) => {
                    let content: Vec<Json> = results
                        .iter()
                        .map(|(id, text)| {
                            json!({"type": "tool_result", "tool_use_id": id, "content": text})
                        })
                        .collect();
                    json!({"role": "user", "content": content})
                }
            })
            .collect()
    }

    fn tool_json(t: &ToolSpec, names: &ToolNames) -> Json {
        json!({
            "name": names.to_wire(&t.name),
            "description": t.description,
            "input_schema": wire::schema(t),
        })
    }

    fn turn(answer: &Json, names: &ToolNames) -> Result<ModelTurn, String> {
        let content = blocks(answer)?;
        let mut calls = Vec::new();
        // Any tool_use block means the model wants to act first.
        for b in content
            .iter()
            .filter(|b| b.get("type").and_then(Json::as_str) == Some("tool_use"))
        {
            let (Some(id), Some(name)) = (
                b.get("id").and_then(Json::as_str),
                b.get("name").and_then(Json::as_str),
            ) else {
                return Err(wire::malformed("the Anthropic", "tool_use id/name", answer));
            };
            calls.push(ToolCall {
                id: id.to_string(),
                name: names.sense_name(name),
                arguments: wire::args_from_json(b.get("input").unwrap_or(&Json::Null))?,
            });
        }
        if calls.is_empty() {
            Ok(ModelTurn::Answer(text(content)))
        } else {
            Ok(ModelTurn::ToolCalls {
                text: text(content),
                calls,
            })
        }
    }
}
