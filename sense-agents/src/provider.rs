//! Model providers supplied by the host.
//!
//! The runtime itself never opens a network connection: `inference("mock")`
//! is built in, and every other provider is an object the host registers
//! (Rust: [`Runtime::register_provider`](crate::Runtime::register_provider); C: a
//! callback). A provider answers prompts and, optionally, drives
//! `ask_with_tools` by asking for tool calls. Tool servers
//! (`connect_mcp`) are reached the same way: through a
//! [`ToolServerConnector`] the host registers.

use sense_eval::HostValue;

/// A provider's answer to one prompt.
///
/// # Examples
///
/// ```
/// use sense_agents::provider::ModelResponse;
///
/// // What a provider returns from `complete`: `confidence` is what Sense
/// // reads as the answer's confidence (`None` when it reports none).
/// let sure = ModelResponse { text: "Paris".into(), confidence: Some(0.97) };
/// let unsure = ModelResponse { text: "Lyon?".into(), confidence: None };
/// assert!(sure.confidence.unwrap_or(0.0) > 0.9);
/// assert_ne!(sure, unsure);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ModelResponse {
    /// The answer text.
    pub text: String,
    /// The provider's confidence, if it reports one.
    pub confidence: Option<f64>,
}

/// A tool offered to a model.
///
/// # Examples
///
/// A provider turns the specs it is given into its API's tool list; the
/// schema is JSON text.
///
/// ```
/// use sense_agents::provider::ToolSpec;
///
/// let spec = ToolSpec {
///     name: "weather".into(),
///     description: "Today's weather in a city".into(),
///     params: vec![("city".into(), Some("String".into()))],
///     input_schema: r#"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#.into(),
/// };
/// let schema: serde_json::Value = serde_json::from_str(&spec.input_schema).unwrap();
/// assert_eq!(schema["properties"]["city"]["type"], "string");
/// let names: Vec<&str> = spec.params.iter().map(|(n, _)| n.as_str()).collect();
/// assert_eq!(names, ["city"]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: String,
    /// Its description string.
    pub description: String,
    /// Parameter names and their annotations (as written), in order.
    pub params: Vec<(String, Option<String>)>,
    /// The parameters as a JSON schema (JSON text): derived from the
    /// annotations for a Sense tool, the server's own for an MCP tool.
    pub input_schema: String,
}

/// A model's request to run a tool.
///
/// # Examples
///
/// ```
/// use sense_eval::HostValue;
/// use sense_agents::provider::ToolCall;
///
/// let call = ToolCall {
///     id: "call_1".into(),
///     name: "weather".into(),
///     arguments: vec![("city".into(), HostValue::from("Oslo"))],
/// };
/// let city = call.arguments.iter().find(|(k, _)| k == "city").map(|(_, v)| v);
/// assert_eq!(city.and_then(HostValue::as_str), Some("Oslo"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// An id the provider uses to match the result.
    pub id: String,
    /// The requested tool.
    pub name: String,
    /// Arguments by parameter name. A JSON object argument travels as a
    /// `HostValue::Map` (String keys, in the order the model wrote them
    /// where the provider can tell).
    pub arguments: Vec<(String, HostValue)>,
}

/// One message of an `ask_with_tools` conversation.
///
/// # Examples
///
/// The messages a provider sees on its second step: the prompt, the tool
/// calls it asked for (with the text it wrote beside them), and their
/// results (matched by id).
///
/// ```
/// use sense_agents::provider::{ChatMessage, ToolCall};
///
/// let call = ToolCall { id: "c1".into(), name: "weather".into(), arguments: vec![] };
/// let messages = vec![
///     ChatMessage::User("Is it raining in Oslo?".into()),
///     ChatMessage::ToolCalls { text: "Let me check.".into(), calls: vec![call] },
///     ChatMessage::ToolResults(vec![("c1".into(), "rain, 4°C".into())]),
/// ];
/// let result = messages.iter().rev().find_map(|m| match m {
///     ChatMessage::ToolResults(r) => r.iter().find(|(id, _)| id == "c1"),
///     _ => None,
/// });
/// assert_eq!(result.map(|(_, text)| text.as_str()), Some("rain, 4°C"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ChatMessage {
    /// The prompt.
    User(String),
    /// Tool calls the model asked for, and the text it sent with them
    /// (empty if none); providers send both back as the model's turn, so
    /// the model keeps its own reasoning between turns.
    ToolCalls {
        /// The text of the same turn.
        text: String,
        /// The calls, in the order the model gave them.
        calls: Vec<ToolCall>,
    },
    /// Results of those calls: `(id, text)`; failures read `error: …`.
    ToolResults(Vec<(String, String)>),
}

/// One step of a tool-calling conversation.
///
/// # Examples
///
/// A scripted provider: it asks for the first tool, then answers with the
/// tool's result.
///
/// ```
/// use sense_eval::HostValue;
/// use sense_agents::provider::{ChatMessage, ModelProvider, ModelResponse, ModelTurn, ToolCall, ToolSpec};
///
/// struct Scripted;
///
/// impl ModelProvider for Scripted {
///     fn complete(&mut self, _model: &str, prompt: &str) -> Result<ModelResponse, String> {
///         Ok(ModelResponse { text: prompt.to_string(), confidence: None })
///     }
///
///     fn complete_with_tools(
///         &mut self,
///         _model: &str,
///         messages: &[ChatMessage],
///         tools: &[ToolSpec],
///     ) -> Result<ModelTurn, String> {
///         if let Some(ChatMessage::ToolResults(results)) = messages.last() {
///             let text = results.first().map_or("", |(_, t)| t.as_str());
///             return Ok(ModelTurn::Answer(format!("the tool said {text}")));
///         }
///         let tool = tools.first().ok_or("no tools")?;
///         Ok(ModelTurn::ToolCalls {
///             text: String::new(),
///             calls: vec![ToolCall {
///                 id: "1".into(),
///                 name: tool.name.clone(),
///                 arguments: vec![("x".into(), HostValue::Int(2))],
///             }],
///         })
///     }
/// }
///
/// let double = ToolSpec {
///     name: "double".into(),
///     description: "Twice x".into(),
///     params: vec![("x".into(), None)],
///     input_schema: "{}".into(),
/// };
/// let mut p = Scripted;
/// let mut messages = vec![ChatMessage::User("double 2".into())];
/// let ModelTurn::ToolCalls { text, calls } = p.complete_with_tools("m", &messages, &[double.clone()])? else {
///     panic!("a tool call first");
/// };
/// assert_eq!(calls[0].name, "double");
/// messages.push(ChatMessage::ToolCalls { text, calls });
/// messages.push(ChatMessage::ToolResults(vec![("1".into(), "4".into())]));
/// let answer = p.complete_with_tools("m", &messages, &[double])?;
/// assert_eq!(answer, ModelTurn::Answer("the tool said 4".into()));
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ModelTurn {
    /// The model is done: its final answer.
    Answer(String),
    /// The model wants these tools run first; `text` is what it wrote
    /// beside the calls (empty if nothing), kept in the conversation.
    ToolCalls {
        /// The text of the turn.
        text: String,
        /// The calls.
        calls: Vec<ToolCall>,
    },
}

/// A model provider registered by the host.
///
/// ```
/// use sense_agents::provider::{ModelProvider, ModelResponse};
///
/// /// Answers every prompt with its length.
/// struct Counter;
///
/// impl ModelProvider for Counter {
///     fn complete(&mut self, _model: &str, prompt: &str) -> Result<ModelResponse, String> {
///         Ok(ModelResponse { text: prompt.chars().count().to_string(), confidence: Some(1.0) })
///     }
/// }
///
/// // Registered with `Runtime::register_provider("counter", None, "v1", Counter)`,
/// // `inference("counter")` in Sense then uses it.
/// let answer = Counter.complete("v1", "hello").unwrap();
/// assert_eq!(answer.text, "5");
/// ```
pub trait ModelProvider: Send {
    /// Answers one prompt for `model_id`.
    fn complete(&mut self, model_id: &str, prompt: &str) -> Result<ModelResponse, String>;

    /// One step of `ask_with_tools`. The default says tool-calling is not
    /// supported.
    fn complete_with_tools(
        &mut self,
        model_id: &str,
        messages: &[ChatMessage],
        tools: &[ToolSpec],
    ) -> Result<ModelTurn, String> {
        let _ = (model_id, messages, tools);
        Err("this provider does not support tool-calling".to_string())
    }

    /// Checked by `inference(…)` when a model is made (e.g. that the API
    /// key variable is set); the error is shown as it is. Only
    /// `api_key_env` and `base_url` of `options` are filled in here.
    fn check(&self, model_id: &str, options: &ModelOptions) -> Result<(), String> {
        let _ = (model_id, options);
        Ok(())
    }

    /// [`complete`](Self::complete) with the model's options. Providers
    /// that honour options override this; the default ignores them.
    fn complete_with_options(
        &mut self,
        model_id: &str,
        options: &ModelOptions,
        prompt: &str,
    ) -> Result<ModelResponse, String> {
        let _ = options;
        self.complete(model_id, prompt)
    }

    /// [`complete_with_options`](Self::complete_with_options) for a
    /// structured answer: the program asked for a JSON value
    /// (`x: Answer<Map> = ask(…)`) and `schema` is that value's JSON
    /// schema (JSON text). The answer's text must be the JSON value
    /// itself. The default asks in words ([`structured_prompt`]); a
    /// provider whose API can constrain the output overrides this.
    fn complete_structured(
        &mut self,
        model_id: &str,
        options: &ModelOptions,
        prompt: &str,
        schema: &str,
    ) -> Result<ModelResponse, String> {
        self.complete_with_options(model_id, options, &structured_prompt(prompt, schema))
    }

    /// [`complete_with_options`](Self::complete_with_options), streamed:
    /// `on_text` is called with each piece of the answer's text as it
    /// arrives (`ask(prompt, on_text: f)`), and the whole answer is
    /// returned at the end. An `Err` from `on_text` stops the answer and
    /// is returned as it is. The default is not streamed: it asks
    /// [`complete_with_options`](Self::complete_with_options) and hands
    /// over the whole text as one piece.
    fn complete_streamed(
        &mut self,
        model_id: &str,
        options: &ModelOptions,
        prompt: &str,
        on_text: &mut dyn FnMut(&str) -> Result<(), String>,
    ) -> Result<ModelResponse, String> {
        let r = self.complete_with_options(model_id, options, prompt)?;
        if !r.text.is_empty() {
            on_text(&r.text)?;
        }
        Ok(r)
    }

    /// [`complete_with_tools`](Self::complete_with_tools) with the model's
    /// options; the default ignores them.
    fn tool_turn(
        &mut self,
        model_id: &str,
        options: &ModelOptions,
        messages: &[ChatMessage],
        tools: &[ToolSpec],
    ) -> Result<ModelTurn, String> {
        let _ = options;
        self.complete_with_tools(model_id, messages, tools)
    }

    /// The tokens the call just made used, as the API reported them
    /// (taken: a second call returns `None`). The runtime asks after
    /// every call; the default reports nothing, which counts the call
    /// with zero tokens.
    fn take_usage(&mut self) -> Option<crate::usage::Usage> {
        None
    }
}

/// The prompt of a structured answer for a provider that cannot
/// constrain its output: the program's prompt, then a request for JSON
/// matching `schema`.
///
/// ```
/// let p = sense_agents::provider::structured_prompt("List three colours", r#"{"type":"array"}"#);
/// assert!(p.starts_with("List three colours\n\n"));
/// assert!(p.ends_with(r#"{"type":"array"}"#));
/// ```
pub fn structured_prompt(prompt: &str, schema: &str) -> String {
    format!(
        "{prompt}\n\nAnswer with JSON only (no other text, no code fence): one value \
         matching this JSON schema: {schema}"
    )
}

/// At most 200 characters of `s`, on one line, for an error message that
/// quotes what a model or server sent; `(empty)` when nothing is left.
///
/// ```
/// assert_eq!(sense_agents::provider::preview(" a\nb "), "a b");
/// assert_eq!(sense_agents::provider::preview("x".repeat(300).as_str()).chars().count(), 201);
/// ```
pub fn preview(s: &str) -> String {
    let one_line: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let t = one_line.trim();
    if t.chars().count() > 200 {
        format!("{}…", t.chars().take(200).collect::<String>())
    } else if t.is_empty() {
        "(empty)".into()
    } else {
        t.to_string()
    }
}

/// Options of a host-provider model, from `inference(…)`'s labels. They
/// are kept with the model (and in snapshots), so they hold no secret:
/// the API key is read from the variable named by `api_key_env` when a
/// call is made.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ModelOptions {
    /// `temperature:`.
    pub temperature: Option<f64>,
    /// `max_tokens:`.
    pub max_tokens: Option<i64>,
    /// `api_key_env:` — the name of the variable holding the key.
    pub api_key_env: Option<String>,
    /// `base_url:` — where the provider's API lives.
    pub base_url: Option<String>,
}

/// A tool offered by a connected tool server (MCP).
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteTool {
    /// The tool's name on its server.
    pub name: String,
    /// Its description (may be empty).
    pub description: String,
    /// Its input JSON schema (JSON text; `{}` when the server gave none).
    pub input_schema: String,
}

/// A live connection to a tool server, made by a [`ToolServerConnector`].
/// Dropping it must release everything it holds (child processes too).
pub trait ToolServer: Send {
    /// The tools the server listed when it was connected.
    fn tools(&self) -> Vec<RemoteTool>;

    /// Calls `name` with `arguments` (a JSON object, as text) and returns
    /// the result text. Errors read `<Kind>: <message>`, e.g.
    /// `RuntimeError: …` for a tool that reported a failure.
    fn call_tool(&mut self, name: &str, arguments: &str) -> Result<String, String>;

    /// Ends the connection (idempotent).
    fn close(&mut self);
}

/// Connects `connect_mcp(name, command, args)` (and `connect_mcp(name,
/// url: …)`) to a tool server; registered by the host (the runtime
/// starts no processes and opens no connections itself).
pub trait ToolServerConnector: Send {
    /// Starts `command args…` and connects to it. Errors read
    /// `<Kind>: <message>`.
    fn connect(&mut self, command: &str, args: &[String]) -> Result<Box<dyn ToolServer>, String>;

    /// Connects to a remote server at `url` (MCP's Streamable HTTP
    /// transport), sending the token held by the environment variable
    /// `token_env` names, if any, as `Authorization: Bearer`. The default
    /// refuses: a connector that only starts processes.
    fn connect_url(
        &mut self,
        url: &str,
        token_env: Option<&str>,
    ) -> Result<Box<dyn ToolServer>, String> {
        let _ = token_env;
        Err(format!(
            "RuntimeError: this runtime's MCP client cannot reach remote servers ({url})"
        ))
    }
}

pub use crate::json_host::{host_from_json, host_from_json_text};

/// The JSON form of a host value, as tool arguments and results travel to
/// model APIs and MCP servers: lists become arrays, maps objects (keys as
/// their text), an `Object` (a JSON object kept as its text) becomes that
/// object again, and anything else that is not plain data becomes its
/// printed form. A non-finite Float becomes `null`.
///
/// ```
/// use sense_agents::HostValue;
/// use sense_agents::provider::host_to_json;
///
/// let v = HostValue::List(vec![1.into(), "two".into(), ().into()]);
/// assert_eq!(host_to_json(&v).to_string(), r#"[1,"two",null]"#);
/// ```
pub fn host_to_json(v: &HostValue) -> serde_json::Value {
    use serde_json::Value as Json;
    match v {
        HostValue::Nil => Json::Null,
        HostValue::Bool(b) => Json::Bool(*b),
        HostValue::Int(i) => Json::from(*i),
        HostValue::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
        HostValue::Str(s) => Json::String(s.clone()),
        HostValue::List(items) => Json::Array(items.iter().map(host_to_json).collect()),
        HostValue::Map(entries) => Json::Object(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), host_to_json(v)))
                .collect(),
        ),
        HostValue::Opaque { type_name, text } if type_name == "Object" => {
            serde_json::from_str(text).unwrap_or_else(|_| Json::String(text.clone()))
        }
        HostValue::Task(t) => Json::String(t.text().to_string()),
        HostValue::Opaque { text, .. } => Json::String(text.clone()),
    }
}
