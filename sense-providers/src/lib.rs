//! Sense agents reach the world: the OpenAI and Anthropic model providers
//! over HTTP, and a stdio MCP client for `connect_mcp`.
//!
//! The core crates open no connections and start no processes; this crate
//! does, for hosts that opt in. The `sense` command registers everything
//! here by default; a Rust host calls [`register_defaults`] on its
//! [`Runtime`] (a C host calls `sense_runtime_register_default_providers`).
//!
//! ```
//! let mut rt = sense_agents::Runtime::new();
//! sense_providers::register_defaults(&mut rt);
//! ```
//!
//! API keys are read from the environment when a call is made and never
//! stored: models keep only the *name* of the variable, so keys appear in
//! no snapshot, audit entry, error message or inspector view.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod anthropic;
mod chat;
mod http;
pub mod mcp;
mod mcp_http;
mod mcp_rpc;
pub mod openai;
mod sse;
mod streamed;
mod usage;
mod wire;

pub use http::HttpSettings;
pub use mcp::{McpSettings, McpStdioConnector};

use sense_agents::Runtime;

/// Registers `inference("openai")`, `inference("anthropic")` and
/// `connect_mcp` with settings from the environment
/// ([`HttpSettings::try_from_env`], [`McpSettings::try_from_env`]). A
/// variable set to a malformed value is not ignored: making a model (or
/// connecting a server) is then refused with an error naming it.
pub fn register_defaults(rt: &mut Runtime) {
    register_clients(rt, env_http(), McpStdioConnector::from_env());
}

/// The HTTP client with settings from the environment (refusing every
/// call when they are malformed).
fn env_http() -> http::Http {
    match HttpSettings::try_from_env() {
        Ok(settings) => http::Http::new(settings),
        Err(why) => http::Http::refusing(why),
    }
}

/// [`register_defaults`] for one step of a durable agent: every HTTP model
/// call carries an `Idempotency-Key` header, `STEP#N` for the run's N-th
/// call (1, 2, …), the same in every run of the step. `sense serve` passes
/// the step id `INSTANCE:VERSION`.
pub fn register_for_step(rt: &mut Runtime, step: &str) {
    register_clients(rt, env_http().for_step(step), McpStdioConnector::from_env());
}

/// [`register_defaults`] with explicit settings.
pub fn register_with(rt: &mut Runtime, http: HttpSettings, mcp: McpSettings) {
    register_clients(rt, http::Http::new(http), McpStdioConnector::new(mcp));
}

fn register_clients(rt: &mut Runtime, http: http::Http, mcp: McpStdioConnector) {
    rt.register_provider(
        openai::NAME,
        Some(openai::CAPABILITY),
        openai::DEFAULT_MODEL,
        openai::OpenAi::with_client(http.clone()),
    );
    rt.register_provider(
        anthropic::NAME,
        Some(anthropic::CAPABILITY),
        anthropic::DEFAULT_MODEL,
        anthropic::Anthropic::with_client(http),
    );
    rt.register_tool_connector(Box::new(mcp));
}
