//! Who may call an API: the one access check of both services.

use super::Reply;
use hyper::header::HeaderMap;

/// Who may call the API.
pub struct Access {
    /// Required as `Authorization: Bearer TOKEN` when set.
    pub token: Option<String>,
    /// The port the server listens on (for the Host check on loopback).
    pub port: u16,
}

/// The first value of header `name`, if it is text.
pub fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Compares in time independent of where the first difference is.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The credentials of an `Authorization: Bearer …` value. The scheme is
/// case-insensitive (RFC 7235 §2.1), so `bearer` and `BEARER` count too.
fn bearer_credentials(value: &str) -> Option<&str> {
    let (scheme, rest) = value.trim().split_once([' ', '\t'])?;
    scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
}

/// Checks who is asking: the token when one is set; otherwise (loopback
/// only) that the Host is this machine, so another web site cannot reach
/// the API through DNS rebinding, and that a browser's request comes from
/// this origin.
pub fn check_access(access: &Access, headers: &HeaderMap) -> Result<(), Reply> {
    if let Some(token) = &access.token {
        let given = header(headers, "authorization")
            .and_then(bearer_credentials)
            .unwrap_or("");
        if !same_secret(given.as_bytes(), token.as_bytes()) {
            return Err(Reply::error(
                401,
                "Unauthorized",
                "send the service's token as `Authorization: Bearer TOKEN`",
            ));
        }
        return Ok(());
    }
    let port = access.port;
    let host = header(headers, "host").unwrap_or("");
    let local = [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ];
    if !local.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return Err(Reply::error(
            403,
            "Forbidden",
            format!("Host {host:?} is not this machine; use http://127.0.0.1:{port}/"),
        ));
    }
    if let Some(origin) = header(headers, "origin")
        && !local
            .iter()
            .any(|h| origin.eq_ignore_ascii_case(&format!("http://{h}")))
    {
        return Err(Reply::error(
            403,
            "Forbidden",
            "requests from other sites are refused",
        ));
    }
    Ok(())
}
