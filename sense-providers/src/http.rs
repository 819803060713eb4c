//! One JSON POST with timeouts and retries, shared by both providers.
//!
//! ureq is a blocking client: the VM is synchronous (a model call runs on
//! the thread that runs the program), so a blocking call needs no async
//! runtime, and ureq brings TLS (rustls) with few dependencies.

use serde_json::Value as Json;
use std::time::Duration;

mod stream;

pub(crate) use stream::Next;

/// Timeouts and retries of the HTTP providers.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpSettings {
    /// How long one request may take in all (connect, send, answer).
    pub timeout: Duration,
    /// How many times a 429, a 5xx, a timeout or a failed connection is
    /// retried after the first attempt.
    pub max_retries: u32,
    /// The first back-off delay; it doubles on each retry.
    pub initial_backoff: Duration,
    /// The longest wait between two attempts, `Retry-After` included.
    pub max_backoff: Duration,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            timeout: Duration::from_secs(600),
            max_retries: 2,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(60),
        }
    }
}

impl HttpSettings {
    /// The defaults, changed by `SENSE_HTTP_TIMEOUT` (seconds, may be
    /// fractional) and `SENSE_HTTP_RETRIES` when they are set; the plain
    /// defaults when one is malformed (see
    /// [`try_from_env`](Self::try_from_env), which refuses it).
    pub fn from_env() -> Self {
        Self::try_from_env().unwrap_or_default()
    }

    /// The defaults, changed by `SENSE_HTTP_TIMEOUT` and
    /// `SENSE_HTTP_RETRIES`; an error naming the variable when one is set
    /// to something that is not a valid value.
    pub fn try_from_env() -> Result<Self, String> {
        let mut s = HttpSettings::default();
        if let Some(t) = env_secs(TIMEOUT_ENV)? {
            s.timeout = t;
        }
        if let Some(r) = env_count(RETRIES_ENV)? {
            s.max_retries = r;
        }
        Ok(s)
    }
}

/// Seconds one request may take.
const TIMEOUT_ENV: &str = "SENSE_HTTP_TIMEOUT";
/// Retries after the first attempt.
const RETRIES_ENV: &str = "SENSE_HTTP_RETRIES";
/// The most retries a variable may ask for.
const MAX_RETRIES: u32 = 100;

/// A variable's value, trimmed; `None` when unset or blank.
fn env_value(name: &str) -> Result<Option<String>, String> {
    match std::env::var(name) {
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => Ok(Some(v.trim().to_string())),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(format!("{name} is set to something that is not text"))
        }
    }
}

/// A positive, finite number of seconds from an environment variable:
/// `None` when unset, an error naming the variable when malformed.
pub(crate) fn env_secs(name: &str) -> Result<Option<Duration>, String> {
    let Some(v) = env_value(name)? else {
        return Ok(None);
    };
    match v.parse::<f64>() {
        Ok(t) if t.is_finite() && t > 0.0 && t < 1.0e9 => Ok(Some(Duration::from_secs_f64(t))),
        _ => Err(format!(
            "{name} is {}, which is not a number of seconds (a number greater than 0, e.g. 30 or 0.5)",
            quoted(&v)
        )),
    }
}

/// A count of retries from an environment variable (0 to 100).
fn env_count(name: &str) -> Result<Option<u32>, String> {
    let Some(v) = env_value(name)? else {
        return Ok(None);
    };
    match v.parse::<u32>() {
        Ok(n) if n <= MAX_RETRIES => Ok(Some(n)),
        _ => Err(format!(
            "{name} is {}, which is not a number of retries (a whole number from 0 to {MAX_RETRIES})",
            quoted(&v)
        )),
    }
}

/// A value from the environment, quoted and shortened for a message.
fn quoted(v: &str) -> String {
    format!("'{}'", preview(v))
}

/// Bodies larger than this are refused (a model answer is far smaller).
const MAX_BODY: u64 = 64 * 1024 * 1024;

/// A blocking JSON client.
#[derive(Clone)]
pub(crate) struct Http {
    /// Made on first use: registering the providers costs nothing for a
    /// program that never calls a model.
    agent: std::sync::OnceLock<ureq::Agent>,
    settings: HttpSettings,
    /// Why every call is refused (settings from the environment that
    /// are malformed), reported when a model is made and on each call.
    refusal: Option<String>,
    /// The step these calls belong to, when the host runs durable steps
    /// (see [`StepKeys`]).
    step: Option<std::sync::Arc<StepKeys>>,
}

/// `Idempotency-Key` headers for the model calls of one durable step: the
/// step's id and the call's number within the run, `STEP#N`. A step that
/// runs again (its runner died before committing) makes the same calls in
/// the same order, so each carries the key it carried the first time, and
/// a provider that honours the header answers it once; retries of one
/// call keep its key.
#[derive(Debug)]
pub(crate) struct StepKeys {
    step: String,
    calls: std::sync::atomic::AtomicU64,
}

impl StepKeys {
    /// The key of the next call.
    fn next(&self) -> String {
        let n = self
            .calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        format!("{}#{}", self.step, n + 1)
    }
}

impl Http {
    pub(crate) fn new(settings: HttpSettings) -> Self {
        Http {
            agent: std::sync::OnceLock::new(),
            settings,
            refusal: None,
            step: None,
        }
    }

    /// This client, sending `Idempotency-Key` headers for `step`.
    pub(crate) fn for_step(mut self, step: &str) -> Self {
        self.step = Some(std::sync::Arc::new(StepKeys {
            step: step.to_string(),
            calls: std::sync::atomic::AtomicU64::new(0),
        }));
        self
    }

    /// A client that refuses every call with `why`.
    pub(crate) fn refusing(why: String) -> Self {
        Http {
            refusal: Some(why),
            ..Http::new(HttpSettings::default())
        }
    }

    /// `Err` when this client refuses every call.
    pub(crate) fn usable(&self) -> Result<(), String> {
        match &self.refusal {
            Some(why) => Err(why.clone()),
            None => Ok(()),
        }
    }

    fn agent(&self) -> &ureq::Agent {
        self.agent.get_or_init(|| {
            ureq::Agent::config_builder()
                .timeout_global(Some(self.settings.timeout))
                .http_status_as_error(false)
                .user_agent(concat!("sense/", env!("CARGO_PKG_VERSION")))
                .build()
                .into()
        })
    }

    /// POSTs `body` to `url` and returns the JSON answer. Errors read like
    /// the vendors' SDK exceptions (`AuthenticationError: Error code: 401 -
    /// …`), with `secret` blanked out wherever it appears.
    pub(crate) fn post_json(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &Json,
        secret: &str,
    ) -> Result<Json, String> {
        self.usable()?;
        let text = body.to_string();
        let key = self.step.as_ref().map(|s| s.next());
        let mut all: Vec<(&str, &str)> = headers.to_vec();
        if let Some(key) = &key {
            all.push(("Idempotency-Key", key));
        }
        let mut attempt = 0;
        loop {
            match self.attempt(url, &all, &text) {
                Attempt::Done(j) => return Ok(j),
                Attempt::Fatal(e) => return Err(redact(&e, secret)),
                Attempt::Retry { error, .. } if attempt >= self.settings.max_retries => {
                    return Err(redact(&error, secret));
                }
                Attempt::Retry { after, .. } => {
                    self.wait_to_retry(after, attempt);
                    attempt += 1;
                }
            }
        }
    }

    /// Waits before retrying after failed attempt number `attempt` (from
    /// 0): as long as the server asked (`after`), else the initial backoff
    /// doubled per attempt; never longer than the longest backoff.
    pub(crate) fn wait_to_retry(&self, after: Option<Duration>, attempt: u32) {
        let backoff = self
            .settings
            .initial_backoff
            .saturating_mul(1u32 << attempt.min(16));
        std::thread::sleep(after.unwrap_or(backoff).min(self.settings.max_backoff));
    }

    fn attempt(&self, url: &str, headers: &[(&str, &str)], body: &str) -> Attempt {
        let mut req = self.agent().post(url).content_type("application/json");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let mut resp = match req.send(body) {
            Ok(r) => r,
            Err(ureq::Error::Timeout(_)) => {
                return Attempt::Retry {
                    error: "APITimeoutError: Request timed out.".into(),
                    after: None,
                };
            }
            Err(
                e
                @ (ureq::Error::Io(_) | ureq::Error::ConnectionFailed | ureq::Error::HostNotFound),
            ) => {
                return Attempt::Retry {
                    error: format!("APIConnectionError: Connection error. ({e})"),
                    after: None,
                };
            }
            Err(e) => return Attempt::Fatal(format!("APIConnectionError: {e}")),
        };
        let status = resp.status().as_u16();
        let after = retry_after(resp.headers());
        let text = match resp
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_string()
        {
            Ok(t) => t,
            Err(ureq::Error::Timeout(_)) => {
                return Attempt::Retry {
                    error: "APITimeoutError: Request timed out.".into(),
                    after: None,
                };
            }
            Err(e) => return Attempt::Fatal(format!("APIConnectionError: {e}")),
        };
        if (200..300).contains(&status) {
            return match serde_json::from_str::<Json>(&text) {
                Ok(j) if j.is_object() => Attempt::Done(j),
                _ => Attempt::Fatal(format!(
                    "APIResponseValidationError: the server's answer is not a JSON object: {}",
                    preview(&text)
                )),
            };
        }
        let error = format!(
            "{}: Error code: {status} - {}",
            status_class(status),
            error_message(&text)
        );
        if status == 429 || status >= 500 {
            Attempt::Retry { error, after }
        } else {
            Attempt::Fatal(error)
        }
    }
}

enum Attempt {
    Done(Json),
    Fatal(String),
    /// Worth another try, after the delay the server asked for if any.
    Retry {
        error: String,
        after: Option<Duration>,
    },
}

/// The delay a `Retry-After` (seconds or an HTTP date) or `retry-after-ms`
/// header asks for.
fn retry_after(headers: &ureq::http::HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let v = get("retry-after")?.trim();
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1.0e6)));
    }
    let when = httpdate(v)?;
    let now = std::time::SystemTime::now();
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn httpdate(s: &str) -> Option<std::time::SystemTime> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| m == month)? as i64 + 1;
    let (day, year): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    let hms: Vec<i64> = time.split(':').filter_map(|x| x.parse().ok()).collect();
    let [h, m, sec] = hms.as_slice() else {
        return None;
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + m * 60 + sec;
    u64::try_from(secs)
        .ok()
        .map(|s| std::time::UNIX_EPOCH + Duration::from_secs(s))
}

/// The SDKs' exception class for an HTTP status.
fn status_class(status: u16) -> &'static str {
    match status {
        400 => "BadRequestError",
        401 => "AuthenticationError",
        403 => "PermissionDeniedError",
        404 => "NotFoundError",
        409 => "ConflictError",
        422 => "UnprocessableEntityError",
        429 => "RateLimitError",
        500.. => "InternalServerError",
        _ => "APIStatusError",
    }
}

/// The message of an error body (`{"error": {"message": …}}` in both
/// APIs), else the body itself, shortened.
fn error_message(body: &str) -> String {
    let parsed: Option<Json> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|j| {
        let e = j.get("error")?;
        match e.get("message").and_then(Json::as_str) {
            Some(m) => Some(match e.get("type").and_then(Json::as_str) {
                Some(t) => format!("{m} ({t})"),
                None => m.to_string(),
            }),
            None => e.as_str().map(str::to_string),
        }
    });
    message.unwrap_or_else(|| preview(body))
}

/// At most 200 characters of `s`, on one line.
pub(crate) use sense_agents::provider::preview;

/// `text` with every occurrence of `secret` replaced.
pub(crate) fn redact(text: &str, secret: &str) -> String {
    if secret.len() < 4 {
        return text.to_string();
    }
    text.replace(secret, "[redacted]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_http_dates() {
        let t = httpdate("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(
            t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs(),
            784_111_777
        );
        assert!(httpdate("yesterday").is_none());
    }

    /// A step's client sends `STEP#N` for its N-th call and keeps the key
    /// across the retries of one call; a plain client sends none.
    #[test]
    fn a_steps_calls_carry_idempotency_keys() {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", server.server_addr());
        let seen = std::thread::spawn(move || {
            let mut keys = Vec::new();
            for n in 0..4 {
                let req = server.recv().unwrap();
                keys.push(
                    req.headers()
                        .iter()
                        .find(|h| h.field.equiv("Idempotency-Key"))
                        .map(|h| h.value.to_string()),
                );
                // The first call fails once and is retried.
                let status = if n == 0 { 500 } else { 200 };
                req.respond(tiny_http::Response::from_string("{}").with_status_code(status))
                    .unwrap();
            }
            keys
        });
        let settings = HttpSettings {
            initial_backoff: Duration::from_millis(1),
            ..HttpSettings::default()
        };
        let step = Http::new(settings.clone()).for_step("inst:3");
        let body = serde_json::json!({});
        step.post_json(&url, &[], &body, "").unwrap();
        step.post_json(&url, &[], &body, "").unwrap();
        Http::new(settings).post_json(&url, &[], &body, "").unwrap();
        let keys = seen.join().unwrap();
        assert_eq!(
            keys,
            [
                Some("inst:3#1".to_string()),
                Some("inst:3#1".to_string()),
                Some("inst:3#2".to_string()),
                None
            ]
        );
    }

    #[test]
    fn error_bodies_read_like_the_sdks() {
        let body = r#"{"error":{"message":"Incorrect API key","type":"invalid_request_error"}}"#;
        assert_eq!(
            error_message(body),
            "Incorrect API key (invalid_request_error)"
        );
        assert_eq!(error_message("<html>oops</html>"), "<html>oops</html>");
        assert_eq!(status_class(529), "InternalServerError");
        assert_eq!(redact("key sk-12345 bad", "sk-12345"), "key [redacted] bad");
    }
}
