//! The console's HTTP side: the page, and the JSON API under `/api/`.
//!
//! | method | path | does |
//! | --- | --- | --- |
//! | GET | `/` | the console page (`/app.js`, `/app.css` beside it) |
//! | GET | `/api/state` | everything below in one object |
//! | GET | `/api/agents`, `/api/agents/<serial>` | agents: status, pause reason and kind, call stack and locals |
//! | GET | `/api/tools`, `/api/actions`, `/api/audit`, `/api/memories`, `/api/output` | one part of the state |
//! | POST | `/api/agents/<serial>/resume` `{"value": "<literal>"}` | resume a paused agent (no value: `nil`) |
//! | POST | `/api/agents/<serial>/start` | start a created agent |
//! | POST | `/api/tools/<key>/call` `{"args": ["<literal>", …]}` | call a tool from the top level |
//! | POST | `/api/actions/<key>/prepare` `{"args": […]}` | prepare an action instance |
//! | POST | `/api/actions/instances/<id>/<verify\|approve\|commit\|rollback>` | one step of an instance |
//!
//! Errors are `{"error": {"class", "message", "rendered"}}` (the shared
//! shape of [`crate::http::reply`]) with a 4xx
//! status: 400 malformed request or bad literal, 403 policy or approval
//! denial (and requests from other sites), 404 unknown route, agent, tool,
//! action or instance, 405 wrong method, 409 wrong state for the step,
//! 413 body too large, 415 a POST that is not JSON, 422 any other Sense
//! error. POSTs must be `Content-Type: application/json` and come from the
//! console's own origin, so other web pages cannot drive the console.

use super::json;
use super::{Inspector, Source};
use crate::http::Reply;
use sense_agents::inspect_support::ActionStep;
use sense_agents::literal;
use sense_agents::{AgentStatus, HostValue};
use serde_json::{Value as Json, json};

const INDEX_HTML: &str = include_str!("static/index.html");
const APP_JS: &str = include_str!("static/app.js");
const APP_CSS: &str = include_str!("static/app.css");

impl Reply {
    fn ok(mut body: Json, ins: &mut Inspector) -> Reply {
        if let Some(obj) = body.as_object_mut() {
            obj.insert("ok".into(), Json::Bool(true));
            obj.insert("state".into(), json::state(ins));
        }
        Reply::json(200, &body)
    }

    /// An error raised by Sense (or the runtime), with `extra` fields and
    /// the state after it.
    fn sense(status: u16, e: &sense_agents::Error, extra: Json, ins: &mut Inspector) -> Reply {
        let mut body = json!({ "error": json::error(e) });
        if let (Some(obj), Json::Object(more)) = (body.as_object_mut(), extra) {
            obj.extend(more);
            obj.insert("state".into(), json::state(ins));
        }
        Reply::json(status, &body)
    }
}

/// The status for an error Sense raised: 403 for denials, 409 when the
/// step did not fit the current state, else 422.
fn sense_status(e: &sense_agents::Error, wrong_state: bool) -> u16 {
    use sense_agents::ErrorClass;
    match e.class() {
        Some(ErrorClass::Policy | ErrorClass::Approval) => 403,
        _ if wrong_state => 409,
        _ => 422,
    }
}

/// Safe points (calls and loop iterations) one console request may run
/// when `--max-steps` is not given: a tool that loops forever ends with
/// `step budget exhausted` (an agent pauses with kind `budget`) instead of
/// holding the console for ever. Well under a second of a release build.
const CONSOLE_STEPS: u64 = 10_000_000;

/// Answers one checked request on the runtime's thread; a panic while
/// handling it becomes a 500 answer.
pub(super) fn handle(
    ins: &mut Inspector,
    route: Route,
    body: &serde_json::Map<String, Json>,
) -> Reply {
    let given = ins.rt.config_mut().max_steps;
    ins.rt.config_mut().max_steps = Some(given.unwrap_or(CONSOLE_STEPS));
    let reply = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if route.method() == "GET" {
            get(ins, route)
        } else {
            post(ins, route, body)
        }
    }))
    .unwrap_or_else(|_| {
        Reply::error(
            500,
            "InternalError",
            "the inspector failed while handling this request",
        )
    });
    ins.rt.config_mut().max_steps = given;
    reply
}

/// Decodes `%XX` escapes in one path segment.
fn percent_decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// What a path names.
pub(super) enum Route {
    Page(&'static str, &'static str),
    NoContent,
    State,
    Agents,
    Agent(String),
    Tools,
    Actions,
    Audit,
    Memories,
    Output,
    Resume(String),
    Start(String),
    CallTool(String),
    Prepare(String),
    Step(String, String),
}

impl Route {
    pub(super) fn method(&self) -> &'static str {
        match self {
            Route::Resume(_)
            | Route::Start(_)
            | Route::CallTool(_)
            | Route::Prepare(_)
            | Route::Step(..) => "POST",
            _ => "GET",
        }
    }
}

fn route(segs: &[String]) -> Option<Route> {
    let s: Vec<&str> = segs.iter().map(String::as_str).collect();
    let owned = |x: &str| x.to_string();
    Some(match s.as_slice() {
        [""] | ["index.html"] => Route::Page("text/html; charset=utf-8", INDEX_HTML),
        ["app.js"] => Route::Page("text/javascript; charset=utf-8", APP_JS),
        ["app.css"] => Route::Page("text/css; charset=utf-8", APP_CSS),
        ["favicon.ico"] => Route::NoContent,
        ["api", "state"] => Route::State,
        ["api", "agents"] => Route::Agents,
        ["api", "agents", serial] => Route::Agent(owned(serial)),
        ["api", "agents", serial, "resume"] => Route::Resume(owned(serial)),
        ["api", "agents", serial, "start"] => Route::Start(owned(serial)),
        ["api", "tools"] => Route::Tools,
        ["api", "tools", key, "call"] => Route::CallTool(owned(key)),
        ["api", "actions"] => Route::Actions,
        ["api", "actions", "instances", id, step] => Route::Step(owned(id), owned(step)),
        ["api", "actions", key, "prepare"] => Route::Prepare(owned(key)),
        ["api", "audit"] => Route::Audit,
        ["api", "memories"] => Route::Memories,
        ["api", "output"] => Route::Output,
        _ => return None,
    })
}

/// The route a request names, once its path and method are fine.
pub(super) fn check(url: &str, method: &str) -> Result<Route, Reply> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let Some(segs) = path
        .trim_start_matches('/')
        .split('/')
        .map(percent_decode)
        .collect::<Option<Vec<String>>>()
    else {
        return Err(Reply::error(
            400,
            "BadRequest",
            format!("malformed path: {path}"),
        ));
    };
    let Some(route) = route(&segs) else {
        return Err(Reply::error(
            404,
            "NotFound",
            format!("no such page or API route: {path}"),
        ));
    };
    let method = method.to_ascii_uppercase();
    if method != route.method() {
        return Err(Reply::error(
            405,
            "MethodNotAllowed",
            format!("{path} takes {}, not {method}", route.method()),
        )
        .with_allow(route.method()));
    }
    Ok(route)
}

fn get(ins: &mut Inspector, route: Route) -> Reply {
    let body = match route {
        Route::Page(content_type, text) => return Reply::text(content_type, text),
        Route::NoContent => return Reply::no_content(),
        Route::State => json::state(ins),
        Route::Agents => json::agents(ins),
        Route::Agent(serial) => {
            let subject = ins.rt.subject();
            let found = serial.parse::<u64>().ok().and_then(|s| {
                ins.rt
                    .agents()
                    .into_iter()
                    .find(|a| a.serial == s)
                    .map(|a| json::agent(&a, subject == Some(ins.rt.agent_id(&a))))
            });
            match found {
                Some(a) => a,
                None => return no_agent(&serial),
            }
        }
        Route::Tools => json::tools(ins),
        Route::Actions => json::actions(ins),
        Route::Audit => json::audit(ins),
        Route::Memories => json::memories(ins),
        Route::Output => json::output(ins),
        _ => return Reply::error(405, "MethodNotAllowed", "use POST"),
    };
    Reply::json(200, &body)
}

fn no_agent(serial: &str) -> Reply {
    Reply::error(
        404,
        "NotFound",
        format!("no agent with serial number '{serial}'"),
    )
}

/// A bad literal: the hint `sense resume` gives.
fn bad_literal(message: String) -> Reply {
    Reply::error(400, "SenseError", message)
}

/// The `args` array: each a Sense literal in a JSON string.
fn literal_args(body: &serde_json::Map<String, Json>) -> Result<Vec<HostValue>, Reply> {
    let items = match body.get("args") {
        None | Some(Json::Null) => return Ok(Vec::new()),
        Some(Json::Array(items)) => items,
        Some(_) => {
            return Err(Reply::error(
                400,
                "BadRequest",
                "'args' must be an array of strings, each a Sense literal such as \"\\\"web-1\\\"\" or \"42\"",
            ));
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Json::String(text) => literal::parse(text)
                .map_err(|m| bad_literal(format!("argument {}: {m}", i + 1))),
            _ => Err(Reply::error(
                400,
                "BadRequest",
                format!(
                    "argument {} must be a string holding a Sense literal, such as \"\\\"yes\\\"\" or \"42\"",
                    i + 1
                ),
            )),
        })
        .collect()
}

/// Something changed: count it and, for `--state`, write the state back.
fn changed(ins: &mut Inspector) {
    ins.changes += 1;
    if matches!(ins.source, Source::State(..)) {
        ins.save();
    }
}

fn post(ins: &mut Inspector, route: Route, body: &serde_json::Map<String, Json>) -> Reply {
    match route {
        Route::Resume(serial) => {
            let value = match body.get("value") {
                None | Some(Json::Null) => HostValue::Nil,
                Some(Json::String(text)) => match literal::parse(text) {
                    Ok(v) => v,
                    Err(m) => return bad_literal(m),
                },
                Some(_) => {
                    return Reply::error(
                        400,
                        "BadRequest",
                        "'value' must be a string holding a Sense literal, such as \"\\\"yes\\\"\", \"42\" or \"nil\"",
                    );
                }
            };
            agent_step(ins, &serial, AgentStatus::Paused, |rt, id| {
                rt.resume(id, value)
            })
        }
        Route::Start(serial) => {
            agent_step(ins, &serial, AgentStatus::Created, |rt, id| rt.start(id))
        }
        Route::CallTool(key) => {
            let args = match literal_args(body) {
                Ok(a) => a,
                Err(r) => return r,
            };
            if ins.rt.tool_slot(&key).is_none() {
                return Reply::error(404, "NotFound", format!("no tool named '{key}'"));
            }
            let r = ins.rt.call_tool(&key, &args);
            changed(ins);
            match r {
                Ok(v) => Reply::ok(json!({ "result": json::value(&v) }), ins),
                Err(e) => Reply::sense(sense_status(&e, false), &e, json!({}), ins),
            }
        }
        Route::Prepare(key) => {
            let args = match literal_args(body) {
                Ok(a) => a,
                Err(r) => return r,
            };
            if !ins.rt.action_declarations().iter().any(|d| d.key == key) {
                return Reply::error(404, "NotFound", format!("no action named '{key}'"));
            }
            let r = ins.rt.prepare_action(&key, &args);
            changed(ins);
            match r {
                Ok(id) => {
                    let inst = ins.rt.action_instance(id).map(|a| json::instance(&a));
                    Reply::ok(json!({ "instance": inst }), ins)
                }
                Err(e) => Reply::sense(sense_status(&e, false), &e, json!({}), ins),
            }
        }
        Route::Step(id, step) => {
            let Some(step) = ActionStep::parse(&step) else {
                return Reply::error(
                    404,
                    "NotFound",
                    format!("no action step '{step}' (verify, approve, commit or rollback)"),
                );
            };
            let Some(before) = id
                .parse::<u32>()
                .ok()
                .and_then(|i| ins.rt.action_instance(i))
            else {
                return Reply::error(404, "NotFound", format!("no action instance '{id}'"));
            };
            let wrong_state = match step {
                ActionStep::Verify => before.state != "prepared",
                ActionStep::Approve => !matches!(before.state, "prepared" | "verified"),
                ActionStep::Commit => before.state != "verified",
                ActionStep::Rollback => before.state != "committed",
            };
            let r = ins.rt.run_action_step(before.id, step);
            if r.is_ok() || !wrong_state {
                changed(ins);
            }
            let inst = ins
                .rt
                .action_instance(before.id)
                .map(|a| json::instance(&a));
            match r {
                Ok(v) => Reply::ok(json!({ "result": json::value(&v), "instance": inst }), ins),
                Err(e) => Reply::sense(
                    sense_status(&e, wrong_state),
                    &e,
                    json!({ "instance": inst }),
                    ins,
                ),
            }
        }
        _ => Reply::error(405, "MethodNotAllowed", "use GET"),
    }
}

/// Starts or resumes the agent `serial`, which should be in `expected`.
fn agent_step(
    ins: &mut Inspector,
    serial: &str,
    expected: AgentStatus,
    step: impl FnOnce(
        &mut sense_agents::Runtime,
        sense_agents::AgentId,
    ) -> Result<sense_agents::State, sense_agents::Error>,
) -> Reply {
    let Some(id) = serial
        .parse::<u64>()
        .ok()
        .and_then(|s| ins.rt.agent_by_serial(s))
    else {
        return no_agent(serial);
    };
    let wrong_state = ins.rt.status(id).ok() != Some(expected);
    let r = step(&mut ins.rt, id);
    if r.is_ok() || !wrong_state {
        changed(ins);
    }
    let subject = ins.rt.subject();
    let agent = ins
        .rt
        .agents()
        .into_iter()
        .find(|a| a.serial == id.serial())
        .map(|a| json::agent(&a, subject == Some(id)));
    match r {
        Ok(_) => Reply::ok(json!({ "agent": agent }), ins),
        Err(e) => Reply::sense(
            sense_status(&e, wrong_state),
            &e,
            json!({ "agent": agent }),
            ins,
        ),
    }
}
