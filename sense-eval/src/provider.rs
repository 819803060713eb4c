//! Model providers supplied by the host.
//!
//! The runtime itself never opens a network connection: `inference("mock")`
//! is built in, and every other provider is an object the host registers
//! (Rust: [`Vm::register_provider`](crate::Vm::register_provider); C: a
//! callback). A provider answers prompts and, optionally, drives
//! `ask_with_tools` by asking for tool calls.

use crate::host::HostValue;

/// A provider's answer to one prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelResponse {
    /// The answer text.
    pub text: String,
    /// The provider's confidence, if it reports one.
    pub confidence: Option<f64>,
}

/// A tool offered to a model.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: String,
    /// Its description string.
    pub description: String,
    /// Parameter names and their annotations (as written), in order.
    pub params: Vec<(String, Option<String>)>,
}

/// A model's request to run a tool.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// An id the provider uses to match the result.
    pub id: String,
    /// The requested tool.
    pub name: String,
    /// Arguments by parameter name.
    pub arguments: Vec<(String, HostValue)>,
}

/// One message of an `ask_with_tools` conversation.
#[derive(Clone, Debug, PartialEq)]
pub enum ChatMessage {
    /// The prompt.
    User(String),
    /// Tool calls the model asked for.
    ToolCalls(Vec<ToolCall>),
    /// Results of those calls: `(id, text)`; failures read `error: …`.
    ToolResults(Vec<(String, String)>),
}

/// One step of a tool-calling conversation.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelTurn {
    /// The model is done: its final answer.
    Answer(String),
    /// The model wants these tools run first.
    ToolCalls(Vec<ToolCall>),
}

/// A model provider registered by the host.
///
/// ```
/// use sense_eval::provider::{ModelProvider, ModelResponse};
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
}

/// A registered provider and how calls to it are gated.
pub(crate) struct ProviderEntry {
    pub name: String,
    pub capability: Option<String>,
    pub default_model: String,
    pub provider: Option<Box<dyn ModelProvider>>,
}
