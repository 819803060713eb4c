//! The audit log (the book: actions.md "The audit log"): what tools, models and actions did,
//! each entry with the execution boundaries it happened in (its lineage).
//! The log is state of the runtime kept in the VM and saved in every
//! snapshot ([`SavedState`]); `audit_log()` reads it.

use crate::usage::Usage;
use sense_eval::builtins::{Arity, NativeDef};
use sense_eval::heap::ScopeRef;
use sense_eval::vm::SavedState;
use sense_eval::{EvalResult, Value, Vm};

/// One audit-log entry.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AuditEntry {
    /// The tool, model or action name.
    pub name: String,
    /// `tool`, `model`, `reversible` or `irreversible`.
    pub kind: String,
    /// What happened (`prepared`, `verified`, `denied`, `committed`, …).
    pub event: String,
    /// Extra detail, shown in parentheses.
    pub detail: Option<String>,
    /// The line, when the event has one.
    pub line: Option<u32>,
    /// Enclosing execution boundaries, outermost first.
    pub lineage: Vec<String>,
    /// Seconds since the Unix epoch.
    pub timestamp: f64,
    /// A model call's tokens (issue 25). Not part of
    /// [`describe`](Self::describe): `audit_log()` keeps the reference's
    /// text; hosts read the counts here.
    pub usage: Option<Usage>,
}

/// An entry as snapshots stored it before entries carried usage.
#[derive(serde::Serialize, serde::Deserialize)]
struct AuditEntryV1 {
    name: String,
    kind: String,
    event: String,
    detail: Option<String>,
    line: Option<u32>,
    lineage: Vec<String>,
    timestamp: f64,
}

impl From<AuditEntryV1> for AuditEntry {
    fn from(e: AuditEntryV1) -> Self {
        AuditEntry {
            name: e.name,
            kind: e.kind,
            event: e.event,
            detail: e.detail,
            line: e.line,
            lineage: e.lineage,
            timestamp: e.timestamp,
            usage: None,
        }
    }
}

impl AuditEntry {
    /// The human-readable line `audit_log()` returns.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        if let Some(l) = self.line {
            s.push_str(&format!("[line {l}] "));
        }
        if self.kind == "tool" || self.kind == "model" {
            s.push_str(&format!("{} '{}'", self.kind, self.name));
        } else {
            s.push_str(&format!("{} action '{}'", self.kind, self.name));
        }
        s.push_str(" -> ");
        s.push_str(&self.event);
        if let Some(d) = &self.detail
            && !d.is_empty()
        {
            s.push_str(&format!(" ({d})"));
        }
        if !self.lineage.is_empty() {
            s.push_str(&format!(" (via {})", self.lineage.join(" > ")));
        }
        s
    }
}

impl AuditEntry {
    /// Estimated bytes the entry holds, for the heap ceiling.
    fn held_bytes(&self) -> usize {
        let strings = self.name.len()
            + self.kind.len()
            + self.event.len()
            + self.detail.as_ref().map_or(0, String::len)
            + self
                .lineage
                .iter()
                .map(|l| l.len() + std::mem::size_of::<String>())
                .sum::<usize>();
        std::mem::size_of::<AuditEntry>() + strings
    }
}

/// Charges a restored log to the heap ceiling, as its entries were when
/// they were recorded.
pub(crate) fn charge_restored(vm: &mut Vm) {
    let bytes: usize = entries(vm).iter().map(AuditEntry::held_bytes).sum();
    vm.heap_mut().charge_outside(bytes);
}

/// The log, kept in the VM as saved host-layer state.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct AuditLog(pub(crate) Vec<AuditEntry>);

impl SavedState for AuditLog {
    const NAME: &'static str = "audit";

    fn encode(&self) -> Result<Vec<u8>, String> {
        sense_eval::kind::to_bytes(self)
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        sense_eval::kind::from_bytes(bytes).or_else(|e| {
            sense_eval::kind::from_bytes::<Vec<AuditEntryV1>>(bytes)
                .map(|old| AuditLog(old.into_iter().map(AuditEntry::from).collect()))
                .map_err(|_| e)
        })
    }
}

/// Installs an empty log on `vm` and makes it part of snapshots.
pub(crate) fn install(vm: &mut Vm) {
    vm.set_ext_state(AuditLog::default());
    vm.register_saved_state::<AuditLog>();
}

/// The natives of the audit log: `audit_log()`.
pub(crate) fn natives() -> Vec<NativeDef> {
    vec![NativeDef::new("audit_log", Arity::Exact(0), audit_log)]
}

fn audit_log(vm: &mut Vm, _: &[Value]) -> EvalResult<Value> {
    let lines: Vec<String> = entries(vm).iter().map(AuditEntry::describe).collect();
    let mut items = Vec::with_capacity(lines.len());
    for l in lines {
        items.push(vm.new_str(l)?);
    }
    vm.new_array(items)
}

/// The audit log so far, oldest first.
pub fn entries(vm: &Vm) -> &[AuditEntry] {
    vm.ext_state_ref::<AuditLog>().map_or(&[], |l| &l.0)
}

/// The log, mutably, if the VM has one.
pub(crate) fn entries_mut(vm: &mut Vm) -> Option<&mut Vec<AuditEntry>> {
    vm.ext_state_mut::<AuditLog>().map(|l| &mut l.0)
}

fn push(vm: &mut Vm, entry: AuditEntry) {
    // The log is the program's doing: the heap ceiling counts it.
    vm.heap_mut().charge_outside(entry.held_bytes());
    match entries_mut(vm) {
        Some(log) => log.push(entry),
        None => vm.set_ext_state(AuditLog(vec![entry])),
    }
}

/// The execution boundaries enclosing `env`, outermost first: labelled
/// scopes (`tool:NAME`, `reversible:NAME`, `rollback:NAME`) and agent
/// bodies (`agent:NAME`).
pub fn lineage(vm: &Vm, env: ScopeRef) -> Vec<String> {
    let mut out = Vec::new();
    let mut s = Some(env);
    while let Some(cur) = s {
        if let Some(label) = vm.scope_label(cur) {
            out.push(label.to_string());
        }
        if let Some(a) = vm.scope_task(cur) {
            out.push(format!("agent:{}", vm.object_name(a)));
        }
        s = vm.scope_parent(cur);
    }
    out.reverse();
    out
}

/// Appends an entry recorded in scope `env`.
pub fn record(
    vm: &mut Vm,
    kind: &str,
    name: &str,
    event: &str,
    detail: Option<String>,
    line: Option<u32>,
    env: ScopeRef,
) {
    let lineage = lineage(vm, env);
    let timestamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let entry = AuditEntry {
        name: name.to_string(),
        kind: kind.to_string(),
        event: event.to_string(),
        detail,
        line,
        lineage,
        timestamp,
        usage: None,
    };
    push(vm, entry);
}

/// Appends the entry of a model call (`model 'NAME' -> called`) with the
/// tokens it used.
pub fn record_model_call(vm: &mut Vm, name: &str, usage: Usage, line: u32, env: ScopeRef) {
    record(vm, "model", name, "called", None, Some(line), env);
    // `record` always appends, so the last entry is this one.
    if let Some(entry) = entries_mut(vm).and_then(|log| log.last_mut()) {
        entry.usage = Some(usage);
    }
}
