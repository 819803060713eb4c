//! Durable human-in-the-loop workflows from the shell: `sense start`,
//! `sense resume` and `sense show` keep a paused agent in a state file
//! between separate processes.

use super::output::Output;
use sense::agents::{AgentReport, HostValue, Runtime, State};
use sense::syntax::ast::{ExprKind, StmtKind, UnaryOp};
use std::path::Path;

fn fail(message: &str) -> i32 {
    eprintln!("SenseError: {message}");
    1
}

/// Saves the runtime to `path` after every start or resume — paused,
/// completed or failed — so the file always says where the agent stands
/// and a finished agent is never resumed from a stale state.
fn report(rt: &Runtime, state: Result<State, sense::Error>, out: &Output, path: &Path) -> i32 {
    let saved = rt
        .snapshot()
        .map_err(|e| e.rendered().to_string())
        .and_then(|bytes| {
            write_atomically(path, &bytes)
                .map_err(|e| format!("SenseError: cannot write {}: {e}", path.display()))
        });
    if let Err(msg) = saved {
        out.flush();
        eprintln!("{msg}");
        return 1;
    }
    match state {
        Ok(State::Paused { reason, .. }) => {
            out.write(&format!("paused: {reason}\n"));
            out.flush();
            0
        }
        Ok(State::Completed) => {
            out.write("completed\n");
            out.flush();
            0
        }
        Err(e) => {
            super::output::report_error(out, rt, &e, None);
            1
        }
    }
}

/// Writes through a temporary file so a crash never leaves half a state.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp-sense-state");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// `sense start FILE AGENT --state STATE`.
pub fn start(file: &Path, agent: &str, state: &Path, config: sense::Config) -> i32 {
    let out = Output::stdout();
    let mut rt = Runtime::with_config(config);
    out.install(&mut rt);
    if let Err(e) = rt.run_file(file) {
        super::output::report_error(&out, &rt, &e, None);
        return 1;
    }
    let id = match rt.agent(agent) {
        Ok(id) => id,
        Err(e) => {
            out.flush();
            return fail(e.display_text());
        }
    };
    rt.set_subject(Some(id));
    let result = rt.start(id);
    report(&rt, result, &out, state)
}

fn restore(state: &Path, out: &Output, config: sense::Config) -> Result<Runtime, i32> {
    let bytes = std::fs::read(state).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            fail(&format!("no such file or directory: {}", state.display()))
        } else {
            fail(&format!("cannot read {}: {e}", state.display()))
        }
    })?;
    let mut rt = Runtime::with_config(config);
    out.install(&mut rt);
    rt.restore_snapshot(&bytes).map_err(|e| {
        eprintln!("{}", e.rendered());
        1
    })?;
    Ok(rt)
}

/// `sense resume STATE [VALUE]`.
pub fn resume(state: &Path, value: Option<&str>, config: sense::Config) -> i32 {
    let value = match value.map(parse_literal).transpose() {
        Ok(v) => v.unwrap_or(HostValue::Nil),
        Err(msg) => return fail(&msg),
    };
    let out = Output::stdout();
    let mut rt = match restore(state, &out, config) {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let Some(id) = rt.subject() else {
        return fail(&format!(
            "{} does not record an agent to resume",
            state.display()
        ));
    };
    let result = rt.resume(id, value);
    report(&rt, result, &out, state)
}

/// `sense show STATE`.
pub fn show(state: &Path) -> i32 {
    let out = Output::stdout();
    let rt = match restore(state, &out, sense::Config::default()) {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let subject = rt.subject();
    let agents = rt.agents();
    if agents.is_empty() {
        out.write("no agents\n");
    }
    for a in &agents {
        let marker = if subject == Some(rt.agent_id(a)) {
            "*"
        } else {
            " "
        };
        out.write(&describe(a, marker));
    }
    out.flush();
    0
}

fn describe(a: &AgentReport, marker: &str) -> String {
    let mut s = format!("{marker} agent {}: {}", a.name, a.status.as_str());
    if let Some(kind) = a.pause_kind {
        s.push_str(&format!(
            " ({}) {}",
            kind.as_str(),
            literal(&a.pause_reason)
        ));
    }
    if a.mailbox > 0 {
        s.push_str(&format!(" [{} message(s) waiting]", a.mailbox));
    }
    s.push('\n');
    for f in &a.frames {
        s.push_str(&format!("    at {} ({}:{})\n", f.function, f.file, f.line));
        for (name, v) in &f.locals {
            s.push_str(&format!("        {name} = {}\n", literal(v)));
        }
    }
    s
}

/// A host value written as a Sense literal (strings quoted and escaped);
/// values that have no literal (agents, functions, …) as Sense prints
/// them. `parse_literal` reads the literal forms back.
pub fn literal(v: &HostValue) -> String {
    match v {
        HostValue::Str(s) => {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
        HostValue::List(items) => {
            let parts: Vec<String> = items.iter().map(literal).collect();
            format!("[{}]", parts.join(", "))
        }
        other => other.to_string(),
    }
}

/// Parses a resume value: a Sense literal (`"yes"`, `42`, `-1.5`, `true`,
/// `nil`, or a list of those).
pub fn parse_literal(text: &str) -> Result<HostValue, String> {
    let hint = || {
        format!(
            "the resume value must be a Sense literal such as '\"yes\"', 42, true, nil or [1, 2] (got: {text}); \
             to pass text, quote it, e.g. '\"{text}\"'"
        )
    };
    let file = sense::syntax::SourceFile::new("<value>", text);
    let program = sense::syntax::parse_file(&file).map_err(|_| hint())?;
    let [stmt] = program.stmts.as_slice() else {
        return Err(hint());
    };
    let StmtKind::Expr(e) = &stmt.kind else {
        return Err(hint());
    };
    expr_literal(e).ok_or_else(hint)
}

fn expr_literal(e: &sense::syntax::ast::Expr) -> Option<HostValue> {
    Some(match &e.kind {
        ExprKind::Int(i) => HostValue::Int(*i),
        ExprKind::Float(f) => HostValue::Float(*f),
        ExprKind::Str(s) => HostValue::Str(s.clone()),
        ExprKind::Bool(b) => HostValue::Bool(*b),
        ExprKind::Nil => HostValue::Nil,
        ExprKind::Array(items) => {
            HostValue::List(items.iter().map(expr_literal).collect::<Option<_>>()?)
        }
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand,
        } => match &operand.kind {
            ExprKind::Int(i) => HostValue::Int(i.checked_neg()?),
            ExprKind::Float(f) => HostValue::Float(-f),
            _ => return None,
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(parse_literal("\"yes\""), Ok(HostValue::from("yes")));
        assert_eq!(parse_literal("42"), Ok(HostValue::Int(42)));
        assert_eq!(parse_literal("-1.5"), Ok(HostValue::Float(-1.5)));
        assert_eq!(parse_literal("true"), Ok(HostValue::Bool(true)));
        assert_eq!(parse_literal("nil"), Ok(HostValue::Nil));
        assert_eq!(
            parse_literal("[1, \"a\", [nil]]"),
            Ok(HostValue::List(vec![
                HostValue::Int(1),
                HostValue::from("a"),
                HostValue::List(vec![HostValue::Nil])
            ]))
        );
        assert!(parse_literal("yes").is_err());
        assert!(parse_literal("1 + 2").is_err());
        assert!(parse_literal("f()").is_err());
        assert!(parse_literal("").is_err());
    }
}
