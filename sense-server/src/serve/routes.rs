//! Routing an API request to the engine: the request target, the JSON
//! body's fields, and the answer. Runs on a blocking thread (the engine
//! runs programs and talks to the store synchronously).

use super::engine::{ApiError, Engine};
use super::http::Reply;
use super::json;
use sense_store::{ListQuery, Status};
use serde_json::{Map, Value as Json, json};

/// A JSON object body (empty when there is no body) whose integers fit
/// a Sense Int.
pub fn parse_object(bytes: &[u8]) -> Result<Map<String, Json>, Reply> {
    let object = crate::http::parse_object(bytes)?;
    match json::oversized_integer(bytes) {
        None => Ok(object),
        Some(n) => Err(Reply::error(
            400,
            "BadValue",
            format!(
                "the integer {n} does not fit in 64 bits (a Sense Int is 64-bit); \
                 send it as a string, or as a float such as 1.5e20"
            ),
        )),
    }
}

/// One parsed request target.
pub struct Target {
    /// The path's non-empty segments.
    pub segments: Vec<String>,
    query: Vec<(String, String)>,
}

impl Target {
    /// Splits `/a/b?k=v&…` into segments and query pairs.
    pub fn parse(url: &str) -> Target {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let segments = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let query = query
            .split('&')
            .filter_map(|kv| kv.split_once('=').or(Some((kv, ""))))
            .filter(|(k, _)| !k.is_empty())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Target { segments, query }
    }

    /// A query parameter.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A query parameter that must be an integer (400 if not).
    pub fn int(&self, key: &str) -> Result<Option<i64>, Reply> {
        self.get(key)
            .map(|v| {
                v.parse::<i64>().map_err(|_| {
                    Reply::error(
                        400,
                        "BadRequest",
                        format!("{key} must be an integer, got {v:?}"),
                    )
                })
            })
            .transpose()
    }
}

/// 405 unless the method is `want`.
pub fn check_method(method: &str, want: &str) -> Result<(), Reply> {
    if method == want {
        Ok(())
    } else {
        Err(Reply::error(405, "MethodNotAllowed", format!("use {want}")))
    }
}

fn api(result: Result<Json, ApiError>) -> Reply {
    match result {
        Ok(body) => Reply::json(200, &body),
        Err(e) => Reply::from_api(e),
    }
}

fn value_of(body: &Map<String, Json>) -> Result<sense_agents::HostValue, Reply> {
    json::to_host(body.get("value").unwrap_or(&Json::Null))
        .map_err(|e| Reply::error(400, "BadValue", e))
}

fn version_of(body: &Map<String, Json>) -> Result<Option<i64>, Reply> {
    match body.get("version") {
        None | Some(Json::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| Reply::error(400, "BadRequest", "version must be an integer")),
    }
}

/// The body's optional `id` (of a new instance).
fn id_of(body: &Map<String, Json>) -> Result<Option<&str>, Reply> {
    match body.get("id") {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(id)) => Ok(Some(id.as_str())),
        Some(_) => Err(Reply::error(400, "BadRequest", "id must be a string")),
    }
}

/// Answers one API request (everything but long polls).
pub fn route(
    engine: &Engine,
    method: &str,
    segs: &[&str],
    target: &Target,
    body: &Map<String, Json>,
) -> Reply {
    let run = || -> Result<Reply, Reply> {
        Ok(match segs {
            ["api", "info"] => {
                check_method(method, "GET")?;
                Reply::json(
                    200,
                    &json!({
                        "program": {"name": engine.program.name, "hash": engine.program.hash},
                        "process": engine.process,
                    }),
                )
            }
            ["api", "instances"] if method == "GET" => {
                let status = match target.get("status") {
                    None | Some("") | Some("all") => None,
                    Some(s) => Some(Status::parse(s).ok_or_else(|| {
                        Reply::error(
                            400,
                            "BadRequest",
                            format!("unknown status {s:?} (paused, completed, failed)"),
                        )
                    })?),
                };
                let query = ListQuery {
                    status,
                    after: target.int("after")?.unwrap_or(0),
                    limit: target.int("limit")?.unwrap_or(100).clamp(1, 1000) as u32,
                };
                api(list(engine, &query))
            }
            ["api", "instances"] => {
                check_method(method, "POST")?;
                let agent = body
                    .get("agent")
                    .and_then(Json::as_str)
                    .ok_or_else(|| Reply::error(400, "BadRequest", "give {\"agent\": \"NAME\"}"))?;
                api(engine.create(agent, id_of(body)?))
            }
            ["api", "instances", id] => match method {
                "GET" => api(engine.detail(id)),
                "DELETE" => api(engine.delete(id, target.int("version")?)),
                _ => return Err(Reply::error(405, "MethodNotAllowed", "use GET or DELETE")),
            },
            ["api", "instances", id, "resume"] => {
                check_method(method, "POST")?;
                api(engine.resume(id, value_of(body)?, version_of(body)?))
            }
            ["api", "instances", id, "messages"] => {
                check_method(method, "POST")?;
                api(engine.message(id, value_of(body)?))
            }
            ["api", "instances", id, "pause"] => {
                check_method(method, "POST")?;
                match engine.pause(id) {
                    Ok((status, body)) => Reply::json(status, &body),
                    Err(e) => Reply::from_api(e),
                }
            }
            ["api", "instances", id, "audit"] => {
                check_method(method, "GET")?;
                let after = target.int("after")?.unwrap_or(0);
                let limit = target.int("limit")?.unwrap_or(1000).clamp(1, 10_000) as u32;
                api(engine.audit(id, after, limit))
            }
            ["api", "instances", id, "versions"] => {
                check_method(method, "GET")?;
                api(engine.versions(id))
            }
            ["api", "instances", id, "versions", n] => {
                check_method(method, "GET")?;
                let n = n.parse::<i64>().map_err(|_| {
                    Reply::error(
                        400,
                        "BadRequest",
                        format!("a version is an integer, not {n:?}"),
                    )
                })?;
                api(engine.version(id, n))
            }
            ["api", "instances", id, "fork"] => {
                check_method(method, "POST")?;
                api(engine.fork(id, version_of(body)?, id_of(body)?))
            }
            ["api", "instances", _, "wait"] => {
                check_method(method, "GET").err().unwrap_or_else(|| {
                    Reply::error(500, "InternalError", "long polls are parked before routing")
                })
            }
            _ => Reply::error(404, "NotFound", "no such API route"),
        })
    };
    run().unwrap_or_else(|reply| reply)
}

fn list(engine: &Engine, query: &ListQuery) -> Result<Json, ApiError> {
    let page = engine.store.list(query)?;
    let next = (page.len() as u32 == query.limit)
        .then(|| page.last().map(|s| s.seq))
        .flatten();
    Ok(json!({
        // Without each instance's output: a page stays small.
        "instances": page
            .iter()
            .map(|s| {
                let mut j = json::summary(s, &engine.program.hash);
                if let Some(o) = j.as_object_mut() {
                    o.remove("output");
                }
                j
            })
            .collect::<Vec<_>>(),
        "next": next,
    }))
}
