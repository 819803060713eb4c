//! Request bodies: a JSON object of at most [`Limits::body`] bytes that
//! arrives within [`Limits::body_timeout`].

use super::access::header;
use super::{Limits, Reply};
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::HeaderMap;
use serde_json::{Map, Value as Json};

/// Reads the body as a JSON object (no body is `{}`): see [`read_body`]
/// and [`parse_object`].
pub async fn read_object(
    limits: &Limits,
    headers: &HeaderMap,
    body: Incoming,
) -> Result<Map<String, Json>, Reply> {
    parse_object(&read_body(limits, headers, body).await?)
}

/// Reads a JSON body's bytes (none is empty): 413 if it is too large, 415
/// if it is not sent as JSON, 408 if it is too slow.
pub async fn read_body(
    limits: &Limits,
    headers: &HeaderMap,
    body: Incoming,
) -> Result<Bytes, Reply> {
    let limit = limits.body;
    let too_large = || {
        Reply::error(
            413,
            "PayloadTooLarge",
            format!("the body is larger than {limit} bytes"),
        )
    };
    let declared = header(headers, "content-length").and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    let has_body = declared.is_some_and(|n| n > 0) || headers.contains_key("transfer-encoding");
    if !has_body {
        return Ok(Bytes::new());
    }
    let json_type = header(headers, "content-type").is_some_and(|v| {
        v.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    });
    if !json_type {
        return Err(Reply::error(
            415,
            "UnsupportedMediaType",
            "send the body as Content-Type: application/json",
        ));
    }
    let collected =
        tokio::time::timeout(limits.body_timeout, Limited::new(body, limit).collect()).await;
    match collected {
        Err(_) => Err(Reply::error(
            408,
            "RequestTimeout",
            format!(
                "the body took longer than {} s to arrive",
                limits.body_timeout.as_secs()
            ),
        )),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Ok(Err(e)) => Err(Reply::error(
            400,
            "BadRequest",
            format!("cannot read the body: {e}"),
        )),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
    }
}

/// A JSON object body (blank is `{}`); 400 for anything else.
pub fn parse_object(bytes: &[u8]) -> Result<Map<String, Json>, Reply> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Json>(bytes) {
        Ok(Json::Object(m)) => Ok(m),
        Ok(_) => Err(Reply::error(
            400,
            "BadRequest",
            "the body must be a JSON object",
        )),
        Err(e) => Err(Reply::error(
            400,
            "BadRequest",
            format!("the body is not JSON: {e}"),
        )),
    }
}
