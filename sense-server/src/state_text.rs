//! What the durable commands print about a state (`sense start`, `sense
//! resume`, `sense show`): the outcome of a run, and each agent with its
//! call stack, locals, pause, deadline and spending. Text only, so a host
//! that keeps agents in state files can print what the CLI prints.

use sense_agents::deadline;
use sense_agents::literal::Preview;
use sense_agents::stdlib as timer;
use sense_agents::{AgentReport, HostValue, PauseKind, Runtime, State};

/// The lines that say how a start or resume of `rt` ended: where it is
/// paused (a pause reason cut to about `cap` bytes, a timer's due time, an
/// `ask_human` deadline), or `completed`.
pub fn outcome(rt: &Runtime, state: &State, cap: usize) -> String {
    match state {
        State::Paused {
            reason: HostValue::Float(due),
            kind: PauseKind::Timer,
        } => format!(
            "paused: sleeping (time.sleep) until {}\n",
            timer::utc_text(*due)
        ),
        State::Paused { reason, .. } => {
            let mut s = format!("paused: {}\n", Preview::text(reason, cap).text);
            if let Some(due) = rt.subject().and_then(|id| deadline::ask_deadline(rt, id)) {
                s.push_str(&format!(
                    "deadline: {} (then the agent resumes with nil)\n",
                    timer::utc_text(due)
                ));
            }
            s
        }
        State::Completed => "completed\n".to_string(),
    }
}

/// Every agent of `rt` (the one it runs marked `*`), each with its call
/// stack and locals (values cut to about `cap` bytes) and its spending;
/// `no agents` when there are none.
pub fn agents(rt: &Runtime, cap: usize) -> String {
    let agents = rt.agents();
    if agents.is_empty() {
        return "no agents\n".to_string();
    }
    let subject = rt.subject();
    let mut out = String::new();
    for a in &agents {
        let id = rt.agent_id(a);
        let marker = if subject == Some(id) { "*" } else { " " };
        out.push_str(&describe(a, marker, cap, deadline::ask_deadline(rt, id)));
        out.push_str(&spending(rt, a));
    }
    out
}

/// The agent's usage and budgets (issue 25), one line; empty when it
/// made no model call and has no budget.
fn spending(rt: &Runtime, a: &AgentReport) -> String {
    let id = rt.agent_id(a);
    let spent = rt.agent_usage(id).unwrap_or_default();
    let (tokens, cost) = rt.agent_budget(id).unwrap_or((None, None));
    if spent.calls == 0 && tokens.is_none() && cost.is_none() {
        return String::new();
    }
    let mut s = format!("    usage: {}", spent.summary());
    let mut budgets = Vec::new();
    if let Some(t) = tokens {
        budgets.push(format!("{t} tokens"));
    }
    if let Some(c) = cost {
        budgets.push(format!("cost {}", sense_agents::usage::format_cost(c)));
    }
    if !budgets.is_empty() {
        s.push_str(&format!("; budget: {}", budgets.join(", ")));
    }
    s.push('\n');
    s
}

fn describe(a: &AgentReport, marker: &str, cap: usize, ask_deadline: Option<f64>) -> String {
    let mut cut = false;
    let mut literal = |v: &HostValue| {
        let p = Preview::literal(v, cap);
        cut |= p.cut;
        p.text
    };
    let mut s = format!("{marker} agent {}: {}", a.name, a.status.as_str());
    match (a.pause_kind, &a.pause_reason) {
        (Some(PauseKind::Timer), HostValue::Float(due)) => {
            let left = due - sense_eval::stdlib::unix_now();
            let when = if left > 0.0 {
                format!("in {left:.1} s")
            } else {
                "now".to_string()
            };
            s.push_str(&format!(
                " (timer) due {when}, at {}",
                timer::utc_text(*due)
            ));
        }
        (Some(kind), reason) => {
            s.push_str(&format!(" ({}) {}", kind.as_str(), literal(reason)));
            if let Some(due) = ask_deadline {
                s.push_str(&format!(", deadline {}", timer::utc_text(due)));
            }
        }
        (None, _) => {}
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
    if cut {
        s.push_str("    (long values cut short; `sense show --full` prints them whole)\n");
    }
    s
}
