//! Token usage and cost of model calls (issue 25): what one call spent
//! ([`Usage`], reported by a provider or counted by the mock), the totals
//! a model or an agent has spent ([`Spent`]), a model's price table
//! ([`Prices`]), and how those read in Sense (`model.usage`,
//! `agent.usage`: a Map) and in the audit log.
//!
//! Input tokens count the whole prompt: `cached` is the part of them the
//! API read from its prompt cache, `cache_write` the part it wrote to it
//! (Anthropic only). OpenAI's `prompt_tokens` already include its cached
//! tokens; Anthropic's `input_tokens` do not, so its provider adds
//! `cache_read_input_tokens` and `cache_creation_input_tokens` back.

use sense_eval::{EvalResult, Value, Vm};

/// The tokens one model call used, as its API reported them.
///
/// ```
/// use sense_agents::usage::Usage;
///
/// let u = Usage { input: 1200, output: 80, cached: 1000, cache_write: 0 };
/// assert_eq!(u.total(), 1280);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    /// Prompt tokens, cached ones included.
    pub input: u64,
    /// Tokens of the answer.
    pub output: u64,
    /// Of `input`, the tokens read from the provider's prompt cache.
    pub cached: u64,
    /// Of `input`, the tokens written to the prompt cache.
    pub cache_write: u64,
}

impl Usage {
    /// Input and output tokens together (what a token budget counts).
    pub fn total(&self) -> u64 {
        self.input.saturating_add(self.output)
    }

    /// What the mock model reports: one token per four characters of the
    /// prompt and of the answer, rounded up (deterministic, so tests and
    /// the book can show numbers).
    ///
    /// ```
    /// let u = sense_agents::usage::Usage::mock("abcde", "xyz");
    /// assert_eq!((u.input, u.output, u.cached), (2, 1, 0));
    /// ```
    pub fn mock(prompt: &str, answer: &str) -> Usage {
        let tokens = |s: &str| (s.chars().count() as u64).div_ceil(4);
        Usage {
            input: tokens(prompt),
            output: tokens(answer),
            cached: 0,
            cache_write: 0,
        }
    }

    /// The audit log's detail of a call: `12 in, 5 out` (with `, 3
    /// cached` when the cache was read).
    pub fn describe(&self) -> String {
        let mut s = format!("{} in, {} out", self.input, self.output);
        if self.cached > 0 {
            s.push_str(&format!(", {} cached", self.cached));
        }
        if self.cache_write > 0 {
            s.push_str(&format!(", {} written to cache", self.cache_write));
        }
        s
    }
}

/// A model's prices in US dollars (or any currency, used consistently)
/// per million tokens: `inference(…, price_in: 3.0, price_out: 15.0,
/// price_cached: 0.3)`. Cached input tokens cost `price_cached`, or
/// `price_in` when it is not set.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Prices {
    /// Per million input tokens.
    pub input: Option<f64>,
    /// Per million output tokens.
    pub output: Option<f64>,
    /// Per million cached input tokens.
    pub cached: Option<f64>,
}

impl Prices {
    /// True when no price is set (then usage has no cost).
    pub fn is_empty(&self) -> bool {
        self.input.is_none() && self.output.is_none() && self.cached.is_none()
    }

    /// The cost of one call, `None` without prices.
    ///
    /// ```
    /// use sense_agents::usage::{Prices, Usage};
    ///
    /// let p = Prices { input: Some(3.0), output: Some(15.0), cached: Some(0.3) };
    /// let u = Usage { input: 1_000_000, output: 100_000, cached: 500_000, cache_write: 0 };
    /// // 0.5 M fresh input at 3.0, 0.5 M cached at 0.3, 0.1 M output at 15.0.
    /// assert!((p.cost(&u).unwrap() - (1.5 + 0.15 + 1.5)).abs() < 1e-9);
    /// ```
    pub fn cost(&self, u: &Usage) -> Option<f64> {
        if self.is_empty() {
            return None;
        }
        let price_in = self.input.unwrap_or(0.0);
        let cached = u.cached.min(u.input);
        let fresh = (u.input - cached) as f64 * price_in;
        let from_cache = cached as f64 * self.cached.unwrap_or(price_in);
        let out = u.output as f64 * self.output.unwrap_or(0.0);
        Some((fresh + from_cache + out) / 1_000_000.0)
    }
}

/// Totals of several calls: a model's in this run, or an agent's.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Spent {
    /// How many model calls.
    pub calls: u64,
    /// Their tokens, summed.
    pub tokens: Usage,
    /// Their cost, summed over the calls that had prices.
    pub cost: f64,
    /// True once a call with prices was counted (else `cost` reads nil).
    pub priced: bool,
}

impl Spent {
    /// Counts one call.
    pub fn add(&mut self, u: &Usage, cost: Option<f64>) {
        self.calls = self.calls.saturating_add(1);
        let t = &mut self.tokens;
        t.input = t.input.saturating_add(u.input);
        t.output = t.output.saturating_add(u.output);
        t.cached = t.cached.saturating_add(u.cached);
        t.cache_write = t.cache_write.saturating_add(u.cache_write);
        if let Some(c) = cost {
            self.cost += c;
            self.priced = true;
        }
    }

    /// The Map Sense reads: `calls`, `input_tokens`, `output_tokens`,
    /// `cached_tokens`, `cache_write_tokens`, `total_tokens` (Ints) and
    /// `cost` (a Float, nil when no call had prices).
    pub(crate) fn map_value(&self, vm: &mut Vm) -> EvalResult<Value> {
        let t = &self.tokens;
        let int = |n: u64| Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
        let fields = [
            ("calls", int(self.calls)),
            ("input_tokens", int(t.input)),
            ("output_tokens", int(t.output)),
            ("cached_tokens", int(t.cached)),
            ("cache_write_tokens", int(t.cache_write)),
            ("total_tokens", int(t.total())),
            (
                "cost",
                if self.priced {
                    Value::Float(self.cost)
                } else {
                    Value::Nil
                },
            ),
        ];
        let mut entries = Vec::with_capacity(fields.len());
        for (k, v) in fields {
            entries.push((vm.new_str(k)?, v));
        }
        vm.new_map(entries)
    }

    /// One line for `sense show` and the service: `3 calls, 120 tokens
    /// (100 in, 20 out), cost 0.0012`.
    pub fn summary(&self) -> String {
        let t = &self.tokens;
        let mut s = format!(
            "{} call{}, {} tokens ({})",
            self.calls,
            if self.calls == 1 { "" } else { "s" },
            t.total(),
            t.describe()
        );
        if self.priced {
            s.push_str(&format!(", cost {}", format_cost(self.cost)));
        }
        s
    }
}

/// A cost as text: up to six decimals, trailing zeros dropped.
///
/// ```
/// assert_eq!(sense_agents::usage::format_cost(0.0012), "0.0012");
/// assert_eq!(sense_agents::usage::format_cost(2.0), "2.0");
/// ```
pub fn format_cost(c: f64) -> String {
    let s = format!("{c:.6}");
    let s = s.trim_end_matches('0');
    if s.ends_with('.') {
        format!("{s}0")
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spent_sums_calls_and_reads_cost_only_with_prices() {
        let mut s = Spent::default();
        let u = Usage {
            input: 10,
            output: 4,
            cached: 2,
            cache_write: 0,
        };
        s.add(&u, None);
        assert!(!s.priced);
        s.add(&u, Some(0.5));
        assert_eq!((s.calls, s.tokens.total(), s.tokens.cached), (2, 28, 4));
        assert!(s.priced && (s.cost - 0.5).abs() < 1e-12);
        assert_eq!(
            s.summary(),
            "2 calls, 28 tokens (20 in, 8 out, 4 cached), cost 0.5"
        );
    }

    #[test]
    fn prices_without_any_value_give_no_cost() {
        assert_eq!(Prices::default().cost(&Usage::mock("abcd", "")), None);
        let only_out = Prices {
            output: Some(2.0),
            ..Prices::default()
        };
        let u = Usage {
            input: 5,
            output: 500_000,
            cached: 9,
            cache_write: 0,
        };
        assert_eq!(only_out.cost(&u), Some(1.0));
    }
}
