//! `inference("openai", …)`: the OpenAI Chat Completions API, and any
//! server that speaks it (Ollama, llama.cpp's server, vLLM, …).

use crate::http::{Http, HttpSettings};
use crate::streamed;
use crate::usage::{self, LastUsage};
use crate::wire::{self, ToolNames};
use sense_agents::provider::{
    ChatMessage, ModelOptions, ModelProvider, ModelResponse, ModelTurn, ToolCall, ToolSpec,
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

/// The OpenAI Chat Completions provider.
pub struct OpenAi {
    http: Http,
    /// The usage of the last call (issue 25).
    usage: LastUsage,
}

impl OpenAi {
    /// A provider with these HTTP settings.
    pub fn new(settings: HttpSettings) -> Self {
        OpenAi {
            http: Http::new(settings),
            usage: LastUsage::default(),
        }
    }

    /// A provider on this client (which may refuse every call).
    pub(crate) fn with_client(http: Http) -> Self {
        OpenAi {
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
            "{}/chat/completions",
            wire::base_url(options, BASE_URL_ENV, DEFAULT_BASE_URL)
        );
        let auth = format!("Bearer {key}");
        let headers = [("Authorization", auth.as_str())];
        wire::set(&mut body, "stream", json!(true));
        // Without it the stream says nothing of what the call spent.
        wire::set(&mut body, "stream_options", json!({"include_usage": true}));
        let call = streamed::Call {
            url: &url,
            headers: &headers,
            secret: &key,
        };
        let answer = streamed::openai(&self.http, &call, &body, on_text)
            .map_err(|e| wire::name_refused_option(e, &body))?;
        self.usage.set(answer.usage);
        Ok(answer.text)
    }

    fn call(&self, options: &ModelOptions, body: Json) -> Result<Json, String> {
        let key = wire::api_key(options, KEY_ENV)?;
        let url = format!(
            "{}/chat/completions",
            wire::base_url(options, BASE_URL_ENV, DEFAULT_BASE_URL)
        );
        let auth = format!("Bearer {key}");
        self.http
            .post_json(&url, &[("Authorization", auth.as_str())], &body, &key)
            .map_err(|e| wire::name_refused_option(e, &body))
            .inspect(|answer| self.usage.record(answer, usage::openai))
    }
}

/// The request body without tools.
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

impl ModelProvider for OpenAi {
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
            text: content(answered_message(&answer)?),
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

    /// Structured Outputs: `response_format` with the value's JSON
    /// schema. The API wants an object at the root, so any other value is
    /// asked for as the `value` field of one and taken out again.
    fn complete_structured(
        &mut self,
        model_id: &str,
        options: &ModelOptions,
        prompt: &str,
        schema: &str,
    ) -> Result<ModelResponse, String> {
        let schema: Json = serde_json::from_str(schema).unwrap_or_else(|_| json!({}));
        let wrapped = schema.get("type").and_then(Json::as_str) != Some("object");
        let root = if wrapped {
            json!({"type": "object", "properties": {"value": schema}, "required": ["value"]})
        } else {
            schema
        };
        let mut body = request(
            model_id,
            options,
            vec![json!({"role": "user", "content": prompt})],
        );
        wire::set(
            &mut body,
            "response_format",
            json!({"type": "json_schema", "json_schema": {"name": "answer", "schema": root}}),
        );
        let answer = self.call(options, body)?;
        let text = content(answered_message(&answer)?);
        let text = if wrapped {
            match serde_json::from_str::<Json>(&text) {
                Ok(Json::Object(mut fields)) => {
                    fields.remove("value").map_or(text, |v| v.to_string())
                }
                _ => text,
            }
        } else {
            text
        };
        Ok(ModelResponse {
            text,
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
                    "type": "function",
                    "function": {
                        "name": names.to_wire(&t.name),
                        "description": t.description,
                        "parameters": wire::schema(t),
                    }
                })
            })
            .collect::<Vec<_>>();
        wire::set(&mut body, "tools", Json::Array(tools));
        let answer = self.call(options, body)?;
        let message = answered_message(&answer)?;
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
                return Err(wire::malformed("the OpenAI", "tool call id/name", &answer));
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
