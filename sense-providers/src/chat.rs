//! What the OpenAI and Anthropic providers share: a call to a chat API
//! over HTTP (its key, URL and headers, streamed or not, and the usage it
//! reports), and the [`ModelProvider`] methods that read the same for
//! both once each API says how it builds a request and reads an answer
//! ([`Dialect`]). The trait is implemented for each provider by
//! [`chat_provider!`]: `ModelProvider` is another crate's trait, so one
//! generic implementation over every `Dialect` is not allowed.
//!
//! [`ModelProvider`]: sense_agents::provider::ModelProvider

use crate::http::Http;
use crate::streamed::{self, Streamed};
use crate::usage::LastUsage;
use crate::wire::{self, ToolNames};
use sense_agents::provider::{
    ChatMessage, ModelOptions, ModelResponse, ModelTurn, ToolSpec, structured_prompt,
};
use sense_agents::usage::Usage;
use serde_json::{Value as Json, json};

/// Reads a streamed answer, handing each piece of text to the callback.
pub(crate) type StreamReader = fn(
    &Http,
    &streamed::Call<'_>,
    &Json,
    &mut dyn FnMut(&str) -> Result<(), String>,
) -> Result<Streamed, String>;

/// Where one chat API lives and how a call to it is made.
pub(crate) struct Api {
    /// The variable holding the API key unless `api_key_env:` names another.
    pub(crate) key_env: &'static str,
    /// The variable that moves the API (unless `base_url:` is given).
    pub(crate) base_url_env: &'static str,
    /// Where the API lives by default.
    pub(crate) default_base_url: &'static str,
    /// The endpoint, after the base URL.
    pub(crate) path: &'static str,
    /// The headers carrying the key (and any other the API requires).
    pub(crate) headers: fn(&str) -> Vec<(&'static str, String)>,
    /// The usage an answer reports.
    pub(crate) usage: fn(&Json) -> Option<Usage>,
    /// Sets what a streamed request carries besides `"stream": true`.
    pub(crate) stream_fields: fn(&mut Json),
    /// Reads a streamed answer.
    pub(crate) stream: StreamReader,
}

/// A provider's connection to its API: the HTTP client and the usage of
/// the last call (issue 25).
pub(crate) struct Client {
    api: &'static Api,
    http: Http,
    usage: LastUsage,
}

/// What one call needs: the key (blanked out of errors), the URL and the
/// headers.
struct Endpoint {
    key: String,
    url: String,
    headers: Vec<(&'static str, String)>,
}

impl Endpoint {
    fn headers(&self) -> Vec<(&str, &str)> {
        self.headers.iter().map(|(k, v)| (*k, v.as_str())).collect()
    }
}

impl Client {
    /// A client of `api` over `http`.
    pub(crate) fn new(api: &'static Api, http: Http) -> Self {
        Client {
            api,
            http,
            usage: LastUsage::default(),
        }
    }

    /// That calls can be made: the client is usable and the key is set.
    pub(crate) fn check(&self, options: &ModelOptions) -> Result<(), String> {
        self.http.usable()?;
        wire::api_key(options, self.api.key_env).map(|_| ())
    }

    /// Takes the last call's usage.
    pub(crate) fn take_usage(&self) -> Option<Usage> {
        self.usage.take()
    }

    fn endpoint(&self, options: &ModelOptions) -> Result<Endpoint, String> {
        let key = wire::api_key(options, self.api.key_env)?;
        let base = wire::base_url(options, self.api.base_url_env, self.api.default_base_url);
        Ok(Endpoint {
            url: format!("{base}{}", self.api.path),
            headers: (self.api.headers)(&key),
            key,
        })
    }

    /// POSTs `body` and returns the answer, recording its usage.
    pub(crate) fn call(&self, options: &ModelOptions, body: Json) -> Result<Json, String> {
        let to = self.endpoint(options)?;
        self.http
            .post_json(&to.url, &to.headers(), &body, &to.key)
            .map_err(|e| wire::name_refused_option(e, &body))
            .inspect(|answer| self.usage.record(answer, self.api.usage))
    }

    /// [`call`](Self::call), streamed (`"stream": true` is set here): the
    /// answer's whole text, after `on_text` has seen every piece.
    pub(crate) fn call_streamed(
        &self,
        options: &ModelOptions,
        mut body: Json,
        on_text: &mut dyn FnMut(&str) -> Result<(), String>,
    ) -> Result<String, String> {
        let to = self.endpoint(options)?;
        wire::set(&mut body, "stream", json!(true));
        (self.api.stream_fields)(&mut body);
        let headers = to.headers();
        let call = streamed::Call {
            url: &to.url,
            headers: &headers,
            secret: &to.key,
        };
        let answer = (self.api.stream)(&self.http, &call, &body, on_text)
            .map_err(|e| wire::name_refused_option(e, &body))?;
        self.usage.set(answer.usage);
        Ok(answer.text)
    }
}

/// How one chat API builds its requests and reads its answers.
pub(crate) trait Dialect {
    /// The request body without tools.
    fn request(model_id: &str, options: &ModelOptions, messages: Vec<Json>) -> Json;

    /// The text of an answer, or an error saying the model refused.
    fn answer_text(answer: &Json) -> Result<String, String>;

    /// The conversation of a tool-calling step, as the API wants it.
    fn messages_json(messages: &[ChatMessage], names: &ToolNames) -> Vec<Json>;

    /// One tool offered to the model.
    fn tool_json(tool: &ToolSpec, names: &ToolNames) -> Json;

    /// The step the model took: its answer, or the tools it calls.
    fn turn(answer: &Json, names: &ToolNames) -> Result<ModelTurn, String>;

    /// Asks the API itself for a structured answer matching `schema`
    /// (JSON text) by setting `body`'s format, and returns how to read
    /// the answer's text; `None` (the default) when it cannot, and the
    /// answer is asked for in words ([`structured_prompt`]).
    fn structured_format(body: &mut Json, schema: &str) -> Option<fn(String) -> String> {
        let _ = (body, schema);
        None
    }
}

/// The request body asking `prompt` alone.
fn prompt_request<D: Dialect>(model_id: &str, options: &ModelOptions, prompt: &str) -> Json {
    D::request(
        model_id,
        options,
        vec![json!({"role": "user", "content": prompt})],
    )
}

/// The answer to `body`'s request, its text read by the dialect.
fn answer<D: Dialect>(
    client: &Client,
    options: &ModelOptions,
    body: Json,
) -> Result<ModelResponse, String> {
    let answer = client.call(options, body)?;
    Ok(ModelResponse {
        text: D::answer_text(&answer)?,
        confidence: None,
    })
}

/// `complete_with_options`: one prompt, one answer.
pub(crate) fn complete<D: Dialect>(
    client: &Client,
    model_id: &str,
    options: &ModelOptions,
    prompt: &str,
) -> Result<ModelResponse, String> {
    answer::<D>(
        client,
        options,
        prompt_request::<D>(model_id, options, prompt),
    )
}

/// `complete_streamed`: one prompt, its answer streamed.
pub(crate) fn complete_streamed<D: Dialect>(
    client: &Client,
    model_id: &str,
    options: &ModelOptions,
    prompt: &str,
    on_text: &mut dyn FnMut(&str) -> Result<(), String>,
) -> Result<ModelResponse, String> {
    let body = prompt_request::<D>(model_id, options, prompt);
    Ok(ModelResponse {
        text: client.call_streamed(options, body, on_text)?,
        confidence: None,
    })
}

/// `complete_structured`: a structured answer, the API's way or in words.
pub(crate) fn structured<D: Dialect>(
    client: &Client,
    model_id: &str,
    options: &ModelOptions,
    prompt: &str,
    schema: &str,
) -> Result<ModelResponse, String> {
    let mut body = prompt_request::<D>(model_id, options, prompt);
    let Some(read) = D::structured_format(&mut body, schema) else {
        return complete::<D>(
            client,
            model_id,
            options,
            &structured_prompt(prompt, schema),
        );
    };
    let mut answer = answer::<D>(client, options, body)?;
    answer.text = read(answer.text);
    Ok(answer)
}

/// `tool_turn`: one step of `ask_with_tools`.
pub(crate) fn tool_turn<D: Dialect>(
    client: &Client,
    model_id: &str,
    options: &ModelOptions,
    messages: &[ChatMessage],
    tools: &[ToolSpec],
) -> Result<ModelTurn, String> {
    let names = ToolNames::new(tools);
    let mut body = D::request(model_id, options, D::messages_json(messages, &names));
    let tools = tools.iter().map(|t| D::tool_json(t, &names)).collect();
    wire::set(&mut body, "tools", Json::Array(tools));
    let answer = client.call(options, body)?;
    D::turn(&answer, &names)
}

/// A provider of one API: the struct (its doc comment given), its
/// constructors, and `ModelProvider` through the functions above (its
/// [`Dialect`] is implemented beside it). Where it is used, `chat` names
/// this module and the provider types (`ModelOptions`, `ModelResponse`,
/// `ModelTurn`, `ChatMessage`, `ToolSpec`) are in scope.
macro_rules! chat_provider {
    ($(#[$doc:meta])* pub struct $provider:ident($api:path);) => {
        $(#[$doc])*
        pub struct $provider {
            client: chat::Client,
        }

        impl $provider {
            /// A provider with these HTTP settings.
            pub fn new(settings: $crate::http::HttpSettings) -> Self {
                Self::with_client($crate::http::Http::new(settings))
            }

            /// A provider on this client (which may refuse every call).
            pub(crate) fn with_client(http: $crate::http::Http) -> Self {
                $provider {
                    client: chat::Client::new(&$api, http),
                }
            }
        }

        impl sense_agents::provider::ModelProvider for $provider {
            fn complete(&mut self, model_id: &str, prompt: &str) -> Result<ModelResponse, String> {
                let options = ModelOptions::default();
                chat::complete::<Self>(&self.client, model_id, &options, prompt)
            }

            fn take_usage(&mut self) -> Option<sense_agents::usage::Usage> {
                self.client.take_usage()
            }

            fn check(&self, _model_id: &str, options: &ModelOptions) -> Result<(), String> {
                self.client.check(options)
            }

            fn complete_with_options(
                &mut self,
                model_id: &str,
                options: &ModelOptions,
                prompt: &str,
            ) -> Result<ModelResponse, String> {
                chat::complete::<Self>(&self.client, model_id, options, prompt)
            }

            fn complete_streamed(
                &mut self,
                model_id: &str,
                options: &ModelOptions,
                prompt: &str,
                on_text: &mut dyn FnMut(&str) -> Result<(), String>,
            ) -> Result<ModelResponse, String> {
                chat::complete_streamed::<Self>(&self.client, model_id, options, prompt, on_text)
            }

            fn complete_structured(
                &mut self,
                model_id: &str,
                options: &ModelOptions,
                prompt: &str,
                schema: &str,
            ) -> Result<ModelResponse, String> {
                chat::structured::<Self>(&self.client, model_id, options, prompt, schema)
            }

            fn complete_with_tools(
                &mut self,
                model_id: &str,
                messages: &[ChatMessage],
                tools: &[ToolSpec],
            ) -> Result<ModelTurn, String> {
                let options = ModelOptions::default();
                chat::tool_turn::<Self>(&self.client, model_id, &options, messages, tools)
            }

            fn tool_turn(
                &mut self,
                model_id: &str,
                options: &ModelOptions,
                messages: &[ChatMessage],
                tools: &[ToolSpec],
            ) -> Result<ModelTurn, String> {
                chat::tool_turn::<Self>(&self.client, model_id, options, messages, tools)
            }
        }
    };
}
pub(crate) use chat_provider;
