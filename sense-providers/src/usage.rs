//! The `usage` object of each API's response, read as a
//! [`Usage`](sense_agents::usage::Usage): what a call spent (issue 25).
//!
//! - OpenAI Chat Completions: `usage.prompt_tokens` (cached tokens
//!   included), `usage.completion_tokens`,
//!   `usage.prompt_tokens_details.cached_tokens`.
//! - Anthropic Messages: `usage.input_tokens` (the tokens after the last
//!   cache breakpoint only), `usage.output_tokens`,
//!   `usage.cache_read_input_tokens`, `usage.cache_creation_input_tokens`;
//!   the three input counts are added so `input` is the whole prompt, as
//!   for OpenAI.
//!
//! A response without `usage` (or with fields missing or null) reports
//! what it has; no `usage` at all reports nothing.

use sense_agents::usage::Usage;
use serde_json::Value as Json;

/// The usage of providers that record their last call's.
#[derive(Default)]
pub(crate) struct LastUsage(std::sync::Mutex<Option<Usage>>);

impl LastUsage {
    /// Records the usage `answer` reports, read by `read`.
    pub(crate) fn record(&self, answer: &Json, read: fn(&Json) -> Option<Usage>) {
        self.set(read(answer));
    }

    /// Records `usage` as the last call's.
    pub(crate) fn set(&self, usage: Option<Usage>) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = usage;
        }
    }

    /// Takes the last call's usage.
    pub(crate) fn take(&self) -> Option<Usage> {
        self.0.lock().ok().and_then(|mut slot| slot.take())
    }
}

fn count(j: &Json, key: &str) -> u64 {
    j.get(key).and_then(Json::as_u64).unwrap_or(0)
}

/// OpenAI's `usage`.
pub(crate) fn openai(answer: &Json) -> Option<Usage> {
    let u = answer.get("usage").filter(|u| u.is_object())?;
    let cached = u
        .get("prompt_tokens_details")
        .map_or(0, |d| count(d, "cached_tokens"));
    Some(Usage {
        input: count(u, "prompt_tokens"),
        output: count(u, "completion_tokens"),
        cached,
        cache_write: 0,
    })
}

/// Anthropic's `usage`.
pub(crate) fn anthropic(answer: &Json) -> Option<Usage> {
    let u = answer.get("usage").filter(|u| u.is_object())?;
    let (read, write) = (
        count(u, "cache_read_input_tokens"),
        count(u, "cache_creation_input_tokens"),
    );
    Some(Usage {
        input: count(u, "input_tokens")
            .saturating_add(read)
            .saturating_add(write),
        output: count(u, "output_tokens"),
        cached: read,
        cache_write: write,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openai_usage_counts_cached_tokens_inside_the_prompt() {
        let answer = json!({"usage": {"prompt_tokens": 1200, "completion_tokens": 80,
            "total_tokens": 1280, "prompt_tokens_details": {"cached_tokens": 1024}}});
        let u = openai(&answer).unwrap();
        assert_eq!(
            (u.input, u.output, u.cached, u.cache_write),
            (1200, 80, 1024, 0)
        );
        assert_eq!(openai(&json!({"choices": []})), None);
    }

    #[test]
    fn anthropic_usage_adds_the_cache_back_to_the_input() {
        let answer = json!({"usage": {"input_tokens": 50, "output_tokens": 30,
            "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 200}});
        let u = anthropic(&answer).unwrap();
        assert_eq!(
            (u.input, u.output, u.cached, u.cache_write),
            (1250, 30, 1000, 200)
        );
        let plain = anthropic(&json!({"usage": {"input_tokens": 7, "output_tokens": 2,
            "cache_read_input_tokens": null}}))
        .unwrap();
        assert_eq!((plain.input, plain.cached), (7, 0));
    }
}
