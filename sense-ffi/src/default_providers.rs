//! Opting a C host in to the network model providers and MCP client that
//! the `sense` command has by default (crate `sense-providers`).

use crate::bodies::with_runtime;
use crate::error::sense_error;
use crate::runtime::sense_runtime;
use crate::status::sense_status;

/// Registers `inference("openai")` and `inference("anthropic")` (HTTP
/// providers; the API key is read from the environment when a call is
/// made, never stored) and `connect_mcp` (starts MCP servers as child
/// processes, ended when the runtime is freed). Timeouts come from
/// `SENSE_HTTP_TIMEOUT`, `SENSE_HTTP_RETRIES` and `SENSE_MCP_TIMEOUT`;
/// `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` move the APIs (local models).
/// Call it before restoring a snapshot whose models use these providers.
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_register_default_providers(
    runtime: *mut sense_runtime,
    error: *mut *mut sense_error,
) -> sense_status {
    with_runtime(runtime, error, |rt| {
        rt.enter(|r| {
            sense_providers::register_defaults(r);
            Ok(())
        })
    })
}
