//! The service's web console: lists the fleet's instances (filtered by
//! status), shows one with its call stack, locals, output and audit
//! trail, and answers, messages, pauses or deletes it — all through the
//! JSON API, so it works against any process of the fleet. Plain HTML and
//! JavaScript embedded in the binary.

/// The page.
pub const PAGE: &str = include_str!("static/console.html");
/// Its script (served separately: the page's content policy forbids
/// inline scripts).
pub const SCRIPT: &str = include_str!("static/console.js");
