//! audit_log (AGENTS.md §4.9). The agent protocol's natives (`start`,
//! `pause`, `resume`, `ask_human`, `send`, `receive`, `await`) are
//! registered by the agent runtime.

use super::{Arity, NativeDef};
use crate::error::EvalResult;
use crate::value::Value;
use crate::vm::Vm;

pub(super) fn natives() -> Vec<NativeDef> {
    vec![NativeDef::new("audit_log", Arity::Exact(0), audit_log)]
}

fn audit_log(vm: &mut Vm, _: &[Value]) -> EvalResult<Value> {
    let lines: Vec<String> = vm.audit_entries().iter().map(|e| e.describe()).collect();
    let mut items = Vec::with_capacity(lines.len());
    for l in lines {
        items.push(vm.new_str(l)?);
    }
    vm.new_array(items)
}
