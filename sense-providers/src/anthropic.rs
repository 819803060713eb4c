//! `inference("anthropic", …)`: the Anthropic Messages API.

use crate::http::{Http, HttpSettings};
use crate::streamed;
use crate::usage::{self, LastUsage};
use crate::wire::{self, ToolNames};
use sense_agents::provider::{
    ChatMessage, ModelOptions, ModelProvider, ModelResponse, ModelTurn, ToolCall, ToolSpec,
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

/// The Anthropic Messages provider.
pub struct Anthropic {
    http: Http,
    /// The usage of the last call (issue 25).
    usage: LastUsage,
}

impl Anthropic {
    /// A provider with these HTTP settings.
    pub fn new(settings: HttpSettings) -> Self {
        Anthropic {
            http: Http::new(settings),
            usage: LastUsage::default(),
        }
    }

    /// A provider on this client (which may refuse every call).
    pub(crate) fn with_client(http: Http) -> Self {
        Anthropic {
            http,
            usage: LastUsage::default(),
        }
    }

    /// [`call`](Self::call), streamed (`"stream": true` is set here).
    fn call_streamed(
        &self,
        options: &ModelOptions,
        mut body: Json,
        on_text: &mut dyn FnMut(&str) -> Result<(), String>,
    ) -> Result<String, String> {
        let key = wire::api_key(options, KEY_ENV)?;
        let url = format!(
            "{}/v1/messages",
            wire::base_url(options, BASE_URL_ENV, DEFAULT_BASE_URL)
        );
        let headers = [
            ("x-api-key", key.as_str()),
            ("anthropic-version", API_VERSION),
        ];
        wire::set(&mut body, "stream", json!(true));
        let call = streamed::Call {
            url: &url,
            headers: &headers,
            secret: &key,
        };
        let answer = streamed::anthropic(&self.http, &call, &body, on_text)
            .map_err(|e| wire::name_refused_option(e, &body))?;
        self.usage.set(answer.usage);
        Ok(answer.text)
    }

    fn call(&self, options: &ModelOptions, body: Json) -> Result<Json, String> {
        let key = wire::api_key(options, KEY_ENV)?;
        let url = format!(
            "{}/v1/messages",
            wire::base_url(options, BASE_URL_ENV, DEFAULT_BASE_URL)
        );
        let headers = [
            ("x-api-key", key.as_str()),
            ("anthropic-version", API_VERSION),
        ];
        self.http
            .post_json(&url, &headers, &body, &key)
            .map_err(|e| wire::name_refused_option(e, &body))
            .inspect(|answer| self.usage.record(answer, usage::anthropic))
    }
}

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

impl ModelProvider for Anthropic {
    fn complete(&mut self, model_id: &str, prompt: &str) -> Result<ModelResponse, String> {
        self.complete_with_options(model_id, &ModelOptions::default(), prompt)
    }

    fn take_usage(&mut self) -> Option<sense_agents::usage::Usage> {
        self.usage.take()
    }

    fn check(&self, _model_id: &str, options: &ModelOptions) -> Result<(), String> {
        self.http.usable()?;
        wire::api_key(options, KEY_ENV).map(|_| ())
    }

    fn complete_with_options(
        &mut self,
        model_id: &str,
        options: &ModelOptions,
        prompt: &str,
    ) -> Result<ModelResponse, String> {
        let body = request(
            model_id,
            options,
            vec![json!({"role": "user", "content": prompt})],
        );
        let answer = self.call(options, body)?;
        Ok(ModelResponse {
            text: text(blocks(&answer)?),
            confidence: None,
        })
    }

    fn complete_streamed(
        &mut self,
        model_id: &str,
        options: &ModelOptions,
        prompt: &str,
        on_text: &mut dyn FnMut(&str) -> Result<(), String>,
    ) -> Result<ModelResponse, String> {
        let body = request(
            model_id,
            options,
            vec![json!({"role": "user", "content": prompt})],
        );
        Ok(ModelResponse {
            text: self.call_streamed(options, body, on_text)?,
            confidence: None,
        })
    }

    fn complete_with_tools(
        &mut self,
        model_id: &str,
        messages: &[ChatMessage],
        tools: &[ToolSpec],
    ) -> Result<ModelTurn, String> {
        self.tool_turn(model_id, &ModelOptions::default(), messages, tools)
    }

    fn tool_turn(
        &mut self,
        model_id: &str,
        options: &ModelOptions,
        messages: &[ChatMessage],
        tools: &[ToolSpec],
    ) -> Result<ModelTurn, String> {
        let names = ToolNames::new(tools);
        let mut body = request(model_id, options, messages_json(messages, &names));
        let tools = tools
            .iter()
            .map(|t| {
                json!({
                    "name": names.to_wire(&t.name),
                    "description": t.description,
                    "input_schema": wire::schema(t),
                })
            })
            .collect::<Vec<_>>();
        wire::set(&mut body, "tools", Json::Array(tools));
        let answer = self.call(options, body)?;
        let content = blocks(&answer)?;
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
                return Err(wire::malformed(
                    "the Anthropic",
                    "tool_use id/name",
                    &answer,
                ));
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
