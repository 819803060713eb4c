//! A whole response, and the one JSON error shape both services use:
//! `{"error": {"class", "message", "rendered"}}` (`rendered` is
//! `Class: message`, what a page shows), plus fields a route adds.

use bytes::Bytes;
use http_body_util::Full;
use hyper::Response;
use hyper::header::{HeaderMap, HeaderValue};
use serde_json::{Value as Json, json};

/// A response held whole in memory.
pub struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
    /// The `Allow` header of a 405.
    allow: Option<&'static str>,
}

impl Reply {
    /// A JSON response.
    pub fn json(status: u16, body: &Json) -> Reply {
        Reply {
            status,
            content_type: "application/json; charset=utf-8",
            body: body.to_string().into_bytes(),
            allow: None,
        }
    }

    /// The body of an error response, for routes that add fields to it.
    pub fn error_body(class: &str, message: &str) -> Json {
        json!({ "error": {
            "class": class,
            "message": message,
            "rendered": format!("{class}: {message}"),
        }})
    }

    /// An error response.
    pub fn error(status: u16, class: &str, message: impl Into<String>) -> Reply {
        Reply::json(status, &Reply::error_body(class, &message.into()))
    }

    /// A 200 response with fixed text (a page, a script).
    pub fn text(content_type: &'static str, body: &'static str) -> Reply {
        Reply {
            status: 200,
            content_type,
            body: body.as_bytes().to_vec(),
            allow: None,
        }
    }

    /// A 204 response.
    pub fn no_content() -> Reply {
        Reply {
            status: 204,
            content_type: "text/plain",
            body: Vec::new(),
            allow: None,
        }
    }

    /// The same response with an `Allow` header (for a 405).
    pub fn with_allow(mut self, methods: &'static str) -> Reply {
        self.allow = Some(methods);
        self
    }

    /// The body as JSON (`null` if it is not).
    pub fn body_json(&self) -> Json {
        serde_json::from_slice(&self.body).unwrap_or(Json::Null)
    }

    /// The hyper response, with the headers every answer carries.
    pub fn into_response(self) -> Response<Full<Bytes>> {
        let mut response = Response::new(Full::new(Bytes::from(self.body)));
        *response.status_mut() = hyper::StatusCode::from_u16(self.status)
            .unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
        let h = response.headers_mut();
        h.insert("content-type", HeaderValue::from_static(self.content_type));
        protect(h);
        h.insert("x-frame-options", HeaderValue::from_static("DENY"));
        h.insert(
            "content-security-policy",
            HeaderValue::from_static(
                "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
            ),
        );
        if let Some(allow) = self.allow {
            h.insert("allow", HeaderValue::from_static(allow));
        }
        response
    }
}

/// The headers every answer carries, streams included: never cached,
/// never sniffed as another type.
pub fn protect(headers: &mut HeaderMap) {
    headers.insert("cache-control", HeaderValue::from_static("no-store"));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
}
