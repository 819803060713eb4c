//! What agents spend on models, and budgets that pause them (issue 25).
//!
//! Each agent that spent something or has a budget carries one
//! [`AgentSpend`] object in a slot of its own scope (never visible to
//! Sense code, like a scope's policy), so it is traced, saved in
//! snapshots and restored with the agent. A model call made in an agent's
//! body is counted for that agent and for every agent up the chain of
//! agents that started it (`agent.usage`).
//!
//! `set_budget(agent, tokens: N, cost: X)` gives an agent a budget. Before
//! each model call made in an agent's body the budgets of that agent and
//! of the agents that started it are checked: when one of them has spent
//! as much as its budget or more, the call is not made and the agent
//! pauses with pause kind `budget`, the reason saying what was spent. The
//! call waits in the agent ([`PendingCall`]); resuming the agent with a
//! new budget (an Int: tokens; a Float: cost; a Map `{"tokens": …,
//! "cost": …}`; nil keeps the budget) checks again and, if the budget now
//! allows it, makes the call — its answer is the call's result, exactly
//! where the agent stopped. Still over budget, the agent stays paused.

use crate::usage::{Spent, Usage, format_cost};
use sense_eval::builtins::{Arity, NativeDef, arg};
use sense_eval::heap::{ObjRef, ScopeRef};
use sense_eval::kind::{ObjectKind, Render};
use sense_eval::task::{SuspendCause, TaskStatus};
use sense_eval::{EvalError, EvalResult, Value, Vm};

/// The scope slot of an agent's scope holding its [`AgentSpend`].
const SCOPE_KEY: &str = "spend";

/// How far up the chain of starting agents a call is counted (a chain is
/// never a cycle, an agent starts once; the bound only guards damage).
const MAX_CHAIN: usize = 1000;

/// The core's tag for a budget pause inside a model call: the agent
/// layer's own (the core's `BUDGET` is its step budget, a safe point).
/// Stored in snapshots; never changes.
pub(crate) const SPEND: SuspendCause = SuspendCause(7);

/// A model call held back by a budget pause, made when the agent resumes.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PendingCall {
    /// The model asked.
    pub model: ObjRef,
    /// The prompt, as it would have been sent.
    pub prompt: String,
    /// The scope the call was made from (policy, audit lineage).
    pub env: ScopeRef,
    /// Its line.
    pub line: u32,
    /// `T` of `x: Answer<T> = ask(…)`, when a structured answer was asked for.
    pub annotation: Option<String>,
    /// `ask_with_tools`: its Array of tools.
    pub tools: Option<Value>,
}

/// An agent's spending, budgets and the call a budget pause holds back.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct AgentSpend {
    /// What its body and the agents it started spent.
    pub spent: Spent,
    /// Its token budget (input + output tokens).
    pub tokens: Option<u64>,
    /// Its cost budget (in the unit of the models' prices).
    pub cost: Option<f64>,
    /// The agent whose body started it.
    pub parent: Option<ObjRef>,
    /// The call held back while it is paused on its budget.
    pub pending: Option<PendingCall>,
}

super::ext_object! {
    AgentSpend => SPEND_KIND, trace: |d, t| {
        if let Some(p) = d.parent {
            t.obj(p);
        }
        if let Some(c) = &d.pending {
            t.obj(c.model);
            t.scope(c.env);
            if let Some(tools) = c.tools {
                t.value(tools);
            }
        }
    }
}

/// The kind of [`AgentSpend`] (internal: Sense code never holds one).
pub struct SpendKind;

/// The registered [`SpendKind`].
pub static SPEND_KIND: SpendKind = SpendKind;

impl ObjectKind for SpendKind {
    super::kind_names!(name: "agent_spend", type_name: "AgentSpend", decodes: AgentSpend);

    fn render(&self, _: &Vm, _: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        out.push_str("<agent spend>");
        Ok(())
    }
}

/// The natives of budgets.
pub fn natives() -> Vec<NativeDef> {
    vec![
        NativeDef::new("set_budget", Arity::Variadic, set_budget)
            .with_labels()
            .with_line(),
    ]
}

fn agent_scope(vm: &Vm, agent: ObjRef) -> Option<ScopeRef> {
    vm.task(Value::Obj(agent)).map(|t| t.scope)
}

/// The agent's spending, if it has any.
pub(crate) fn spend(vm: &Vm, agent: ObjRef) -> Option<&AgentSpend> {
    match vm.scope_value(agent_scope(vm, agent)?, SCOPE_KEY)? {
        Value::Obj(r) => vm.ext_ref::<AgentSpend>(r),
        _ => None,
    }
}

/// The agent's spending, made on first use.
fn spend_mut(vm: &mut Vm, agent: ObjRef) -> Option<&mut AgentSpend> {
    let scope = agent_scope(vm, agent)?;
    let obj = match vm.scope_value(scope, SCOPE_KEY) {
        Some(Value::Obj(r)) if vm.ext_ref::<AgentSpend>(r).is_some() => r,
        _ => {
            let Value::Obj(r) = vm.alloc_ext(AgentSpend::default()) else {
                return None;
            };
            vm.set_scope_value(scope, SCOPE_KEY, Value::Obj(r));
            r
        }
    };
    vm.ext_mut::<AgentSpend>(obj)
}

/// `agent.usage`: what the agent and the agents it started spent.
pub(crate) fn usage_value(vm: &mut Vm, agent: ObjRef) -> EvalResult<Value> {
    let spent = spend(vm, agent).map(|s| s.spent).unwrap_or_default();
    spent.map_value(vm)
}

/// `start(child)` from `parent`'s body: the child's calls count for the
/// parent too.
pub(crate) fn started_by(vm: &mut Vm, child: ObjRef, parent: ObjRef) {
    if child == parent {
        return;
    }
    if let Some(s) = spend_mut(vm, child)
        && s.parent.is_none()
    {
        s.parent = Some(parent);
    }
}

/// `agent` and the agents that started it, nearest first.
fn chain(vm: &Vm, agent: ObjRef) -> Vec<ObjRef> {
    let mut out = vec![agent];
    let mut cur = agent;
    while let Some(p) = spend(vm, cur).and_then(|s| s.parent) {
        if out.contains(&p) || out.len() >= MAX_CHAIN {
            break;
        }
        out.push(p);
        cur = p;
    }
    out
}

/// Counts one call for `agent` and the agents that started it.
pub(crate) fn record(vm: &mut Vm, agent: ObjRef, usage: &Usage, cost: Option<f64>) {
    for a in chain(vm, agent) {
        if let Some(s) = spend_mut(vm, a) {
            s.spent.add(usage, cost);
        }
    }
}

fn agent_name(vm: &Vm, agent: ObjRef) -> String {
    vm.task(Value::Obj(agent))
        .map(|t| vm.interner().name(t.name).to_string())
        .unwrap_or_default()
}

/// Why the next call of `agent` may not be made: the first budget, up the
/// chain of starting agents, that is spent.
pub(crate) fn over_budget(vm: &Vm, agent: ObjRef) -> Option<String> {
    for a in chain(vm, agent) {
        let Some(s) = spend(vm, a) else { continue };
        let whose = if a == agent {
            String::new()
        } else {
            format!(" of agent '{}'", agent_name(vm, a))
        };
        if let Some(b) = s.tokens
            && s.spent.tokens.total() >= b
        {
            return Some(format!(
                "token budget{whose} reached: {} of {b} tokens spent ({})",
                s.spent.tokens.total(),
                s.spent.summary()
            ));
        }
        if let Some(b) = s.cost
            && s.spent.cost >= b
        {
            return Some(format!(
                "cost budget{whose} reached: {} of {} spent ({})",
                format_cost(s.spent.cost),
                format_cost(b),
                s.spent.summary()
            ));
        }
    }
    None
}

/// How many `ask_with_tools` tool runs are under way (kept in the VM;
/// never in a snapshot: none can be taken during one).
#[derive(Default)]
struct ToolsRunning(u32);

/// Counts a tool run of `ask_with_tools` starting (`+1`) or ending (`-1`).
pub(crate) fn tools_running(vm: &mut Vm, change: i32) {
    if vm.ext_state_ref::<ToolsRunning>().is_none() {
        vm.set_ext_state(ToolsRunning::default());
    }
    if let Some(t) = vm.ext_state_mut::<ToolsRunning>() {
        t.0 = t.0.saturating_add_signed(change);
    }
}

/// True while a tool run by `ask_with_tools` runs: a call made there
/// cannot pause, so no budget holds it back.
pub(crate) fn in_tool_run(vm: &Vm) -> bool {
    vm.ext_state_ref::<ToolsRunning>().is_some_and(|t| t.0 > 0)
}

/// Pauses `agent` inside a model call on its budget: the call waits in
/// the agent until it is resumed.
pub(crate) fn pause_call(
    vm: &mut Vm,
    agent: ObjRef,
    reason: String,
    call: PendingCall,
) -> EvalResult<()> {
    let reason = vm.new_str(reason)?;
    if let Some(s) = spend_mut(vm, agent) {
        s.pending = Some(call);
    }
    vm.suspend_call(agent, reason, SPEND);
    Ok(())
}

/// What resuming an agent does after [`before_resume`].
pub(crate) enum Resumed {
    /// Resume its fiber with this value.
    With(Value),
    /// It is still over budget: it stays paused (its reason updated).
    StillPaused,
}

/// Resuming `agent` with `value`: for a budget pause, `value` is the new
/// budget; the held-back call is made (by `make`) once the budget allows
/// it, and its answer is what the agent resumes with. Any other pause
/// resumes with `value` as it is.
pub(crate) fn before_resume(
    vm: &mut Vm,
    agent: ObjRef,
    value: Value,
    make: impl FnOnce(&mut Vm, ObjRef, &PendingCall) -> EvalResult<Value>,
) -> EvalResult<Resumed> {
    // Every resume passes here: the task's own pause kind is read first,
    // and only a budget pause looks its spending up (by name, slower).
    let budget_paused = vm
        .task(Value::Obj(agent))
        .is_some_and(|t| t.status == TaskStatus::Paused && t.pause_kind == SPEND);
    if !budget_paused {
        return Ok(Resumed::With(value));
    }
    let Some(call) = spend(vm, agent).and_then(|s| s.pending.clone()) else {
        return Ok(Resumed::With(value));
    };
    set_from_resume(vm, agent, value)?;
    if let Some(reason) = over_budget(vm, agent) {
        let reason = vm.new_str(reason)?;
        if let Some(t) = vm.task_mut(agent) {
            t.pause_reason = reason;
        }
        return Ok(Resumed::StillPaused);
    }
    // Made with the call still pending: a failure leaves the agent paused
    // at the call, to be resumed (retried) again.
    let answer = make(vm, agent, &call)?;
    if let Some(s) = spend_mut(vm, agent) {
        s.pending = None;
    }
    Ok(Resumed::With(answer))
}

/// A resume value read as a new budget.
fn set_from_resume(vm: &mut Vm, agent: ObjRef, value: Value) -> EvalResult<()> {
    match value {
        Value::Nil => Ok(()),
        Value::Int(_) => set_limit(vm, agent, "tokens", value),
        Value::Float(_) => set_limit(vm, agent, "cost", value),
        v if vm.is_map(v) => {
            let mut known = 0;
            for key in ["tokens", "cost"] {
                let k = vm.new_str(key)?;
                if let Some(limit) = vm.map_get(v, k)? {
                    set_limit(vm, agent, key, limit)?;
                    known += 1;
                }
            }
            if vm.map_of(v).map_or(0, |m| m.len()) != known {
                return Err(EvalError::runtime(
                    "a new budget's keys are \"tokens\" and \"cost\"",
                ));
            }
            Ok(())
        }
        v => Err(EvalError::runtime(format!(
            "agent '{}' is paused on its budget: resume it with a new budget \
             (an Int of tokens, a Float of cost, or a Map {{\"tokens\": …, \"cost\": …}}) \
             or nil, got {}",
            agent_name(vm, agent),
            vm.type_name(v)
        ))),
    }
}

/// Sets (or, with nil, removes) one of `agent`'s budgets.
fn set_limit(vm: &mut Vm, agent: ObjRef, which: &str, v: Value) -> EvalResult<()> {
    let Ok(number) = super::amount(v) else {
        return Err(EvalError::runtime(format!(
            "a {which} budget must be a number of at least 0 (or nil for none), got {}",
            vm.show(v)?
        )));
    };
    let Some(s) = spend_mut(vm, agent) else {
        return Err(EvalError::runtime("set_budget() expects an Agent"));
    };
    match which {
        "tokens" => s.tokens = number.map(|n| n as u64),
        _ => s.cost = number,
    }
    Ok(())
}

/// `set_budget(agent, tokens: N, cost: X)`.
fn set_budget(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    const USE: &str = "set_budget() expects (agent, tokens: Int, cost: Float): \
                       at least one of the two, nil to remove it";
    let target = arg(args, 0);
    let labels = vm.labeled_args();
    if args.len() != 1 || labels.is_empty() {
        return Err(EvalError::runtime(USE));
    }
    let Value::Obj(agent) = target else {
        return Err(EvalError::runtime(format!(
            "set_budget() expects an Agent, got {}",
            vm.type_name(target)
        )));
    };
    if vm.task(target).is_none() {
        return Err(EvalError::runtime(format!(
            "set_budget() expects an Agent, got {}",
            vm.type_name(target)
        )));
    }
    for (name, v) in labels {
        if name != "tokens" && name != "cost" {
            return Err(EvalError::runtime(format!(
                "set_budget(): unknown option {name} -- {USE}"
            )));
        }
        set_limit(vm, agent, &name, v)?;
    }
    Ok(Value::Nil)
}

impl crate::Runtime {
    /// What agent `id`'s model calls, and those of the agents it started,
    /// spent (`agent.usage` in Sense).
    ///
    /// ```
    /// use sense_agents::Runtime;
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source("m.sns", "set delegation = inference(\"mock\")\nagent a:\n    ask(\"hello\")\n")?;
    /// let a = rt.agent("a")?;
    /// rt.start(a)?;
    /// let spent = rt.agent_usage(a)?;
    /// assert_eq!((spent.calls, spent.tokens.input), (1, 2));
    /// # Ok::<(), sense_agents::Error>(())
    /// ```
    pub fn agent_usage(&self, id: crate::AgentId) -> Result<Spent, crate::Error> {
        self.agent_data(id)?;
        Ok(spend(self.vm_ref(), id.obj)
            .map(|s| s.spent)
            .unwrap_or_default())
    }

    /// Agent `id`'s budgets: tokens, cost (`None`: no such budget).
    pub fn agent_budget(
        &self,
        id: crate::AgentId,
    ) -> Result<(Option<u64>, Option<f64>), crate::Error> {
        self.agent_data(id)?;
        Ok(spend(self.vm_ref(), id.obj).map_or((None, None), |s| (s.tokens, s.cost)))
    }

    /// Sets agent `id`'s budgets, as `set_budget(agent, tokens:, cost:)`
    /// does (`None` removes one). A paused agent's held-back call is made
    /// when it is resumed.
    pub fn set_agent_budget(
        &mut self,
        id: crate::AgentId,
        tokens: Option<u64>,
        cost: Option<f64>,
    ) -> Result<(), crate::Error> {
        self.agent_data(id)?;
        if cost.is_some_and(|c| !c.is_finite() || c < 0.0) {
            return Err(crate::Error::host(
                "a cost budget must be a finite number of at least 0",
            ));
        }
        if let Some(s) = spend_mut(self.vm(), id.obj) {
            s.tokens = tokens;
            s.cost = cost;
        }
        Ok(())
    }
}
