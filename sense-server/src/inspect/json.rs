//! The console's JSON: agents, tools, actions, the audit log, memories and
//! output, as `/api/state` and the other routes return them.

use super::{Inspector, Source};
use sense_agents::inspect_support::{
    ActionDeclReport, ActionReport, MemoryReport, ParamReport, ToolReport,
};
use sense_agents::literal::Preview;
use sense_agents::{AgentReport, HostValue};
use serde_json::{Value as Json, json};

/// Longest literal or text sent for one value; `"truncated": true` marks
/// a value cut short (it ends in `...`).
const VALUE_LIMIT: usize = 16 * 1024;

/// A value: its Sense type, its literal, and its printed text.
pub fn value(v: &HostValue) -> Json {
    let literal = Preview::literal(v, VALUE_LIMIT);
    let text = Preview::text(v, VALUE_LIMIT);
    let mut j = json!({
        "type": v.type_name(),
        "literal": literal.text,
        "text": text.text,
    });
    if literal.cut || text.cut {
        j["truncated"] = Json::Bool(true);
    }
    j
}

fn named(items: &[(String, HostValue)], key: &str) -> Json {
    Json::Array(
        items
            .iter()
            .map(|(n, v)| json!({ key: n, "value": value(v) }))
            .collect(),
    )
}

fn policy(capability: Option<&str>, allowed: bool) -> &'static str {
    match (capability, allowed) {
        (None, _) => "no capability needed",
        (Some(_), true) => "allowed",
        (Some(_), false) => "denied",
    }
}

fn params(ps: &[ParamReport]) -> Json {
    Json::Array(
        ps.iter()
            .map(|p| json!({ "name": p.name, "type": p.type_name }))
            .collect(),
    )
}

/// One agent.
pub fn agent(a: &AgentReport, subject: bool) -> Json {
    let frames: Vec<Json> = a
        .frames
        .iter()
        .map(|f| {
            json!({
                "function": f.function,
                "file": f.file,
                "line": f.line,
                "locals": named(&f.locals, "name"),
            })
        })
        .collect();
    json!({
        "serial": a.serial,
        "name": a.name,
        "status": a.status.as_str(),
        "async": a.is_async,
        "pause_kind": a.pause_kind.map(|k| k.as_str()),
        "pause_reason": value(&a.pause_reason),
        "mailbox": a.mailbox,
        "subject": subject,
        "frames": frames,
    })
}

/// Every agent.
pub fn agents(ins: &Inspector) -> Json {
    let subject = ins.rt.subject();
    Json::Array(
        ins.rt
            .agents()
            .iter()
            .map(|a| agent(a, subject == Some(ins.rt.agent_id(a))))
            .collect(),
    )
}

fn tool(t: &ToolReport) -> Json {
    json!({
        "key": t.key,
        "name": t.name,
        "params": params(&t.params),
        "returns": t.returns,
        "description": t.description,
        "capability": t.capability,
        "async": t.is_async,
        "policy": policy(t.capability.as_deref(), t.allowed),
    })
}

/// Every declared tool.
pub fn tools(ins: &Inspector) -> Json {
    Json::Array(ins.rt.tools().iter().map(tool).collect())
}

fn declaration(d: &ActionDeclReport) -> Json {
    json!({
        "key": d.key,
        "name": d.name,
        "kind": d.kind,
        "params": params(&d.params),
        "capability": d.capability,
        "approval": d.approval,
        "rollback": d.has_rollback,
        "policy": policy(d.capability.as_deref(), d.allowed),
    })
}

/// What can be done next with an instance, by the state machine of
/// the book, actions.md (the runtime still checks every step).
fn next_steps(a: &ActionReport) -> Vec<&'static str> {
    match a.state {
        "prepared" if a.approved => vec!["verify"],
        "prepared" => vec!["verify", "approve"],
        "verified" if a.approved || !a.requires_approval => vec!["commit"],
        "verified" => vec!["approve", "commit"],
        "committed" if a.kind == "reversible" && a.has_rollback => vec!["rollback"],
        _ => vec![],
    }
}

/// One action instance.
pub fn instance(a: &ActionReport) -> Json {
    json!({
        "id": a.id,
        "name": a.name,
        "kind": a.kind,
        "state": a.state,
        "approved": a.approved,
        "requires_approval": a.requires_approval,
        "rollback": a.has_rollback,
        "capability": a.capability,
        "policy": policy(a.capability.as_deref(), a.allowed),
        "args": named(&a.args, "name"),
        "next": next_steps(a),
    })
}

/// Declared actions and prepared instances.
pub fn actions(ins: &Inspector) -> Json {
    json!({
        "declarations": ins.rt.action_declarations().iter().map(declaration).collect::<Vec<_>>(),
        "instances": ins.rt.action_instances().iter().map(instance).collect::<Vec<_>>(),
    })
}

/// The audit log, oldest first.
pub fn audit(ins: &Inspector) -> Json {
    Json::Array(
        ins.rt
            .audit_entries()
            .iter()
            .enumerate()
            .map(|(i, e)| {
                json!({
                    "index": i,
                    "name": e.name,
                    "kind": e.kind.to_string(),
                    "event": e.event.to_string(),
                    "detail": e.detail,
                    "line": e.line,
                    "lineage": e.lineage,
                    "timestamp": e.timestamp,
                    "usage": e.usage.map(|u| json!({
                        "input_tokens": u.input,
                        "output_tokens": u.output,
                        "cached_tokens": u.cached,
                        "cache_write_tokens": u.cache_write,
                    })),
                    "text": e.describe(),
                })
            })
            .collect(),
    )
}

fn memory(m: &MemoryReport) -> Json {
    json!({
        "name": m.name,
        "kind": if m.path.is_some() { "persistent memory" } else { "memory" },
        "hint": m.kind,
        "path": m.path,
        "entries": named(&m.entries, "key"),
        "error": m.error,
    })
}

/// Every memory with its entries.
pub fn memories(ins: &mut Inspector) -> Json {
    Json::Array(ins.rt.memories().iter().map(memory).collect())
}

/// Program output so far.
pub fn output(ins: &Inspector) -> Json {
    let (text, truncated) = ins.output.get();
    json!({ "text": text, "truncated": truncated })
}

/// A Sense or host error as the API reports it.
pub fn error(e: &sense_agents::Error) -> Json {
    json!({
        "class": e.class_name(),
        "message": e.display_text(),
        "rendered": e.rendered(),
    })
}

/// What is being inspected.
pub fn program(ins: &Inspector) -> Json {
    let (mode, path) = match &ins.source {
        Source::File(p) => ("file", p),
        Source::State(p, _) => ("state", p),
    };
    json!({
        "mode": mode,
        "path": path.display().to_string(),
        "dry_run": ins.dry_run,
        "error": ins.program_error.as_ref().map(error),
        "changes": ins.changes,
        "save_error": ins.save_error,
        "version": env!("CARGO_PKG_VERSION"),
    })
}

/// Everything the page shows.
pub fn state(ins: &mut Inspector) -> Json {
    json!({
        "program": program(ins),
        "agents": agents(ins),
        "tools": tools(ins),
        "actions": actions(ins),
        "audit": audit(ins),
        "memories": memories(ins),
        "output": output(ins),
    })
}
