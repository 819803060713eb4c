//! inference, ask, ask_with_memory, ask_with_tools, skill, connect_mcp,
//! audit_log (AGENTS.md §4.9, §6).

use super::{Arity, NativeDef, arg};
use crate::error::{EvalError, EvalResult};
use crate::value::Value;
use crate::vm::Vm;

pub(super) fn natives() -> Vec<NativeDef> {
    use Arity::*;
    vec![
        NativeDef::new("inference", Variadic, inference).with_labels(),
        NativeDef::new("ask", Exact(1), ask).with_line(),
        NativeDef::new("ask_with_memory", Exact(2), ask_with_memory).with_line(),
        NativeDef::new("ask_with_tools", Exact(2), ask_with_tools).with_line(),
        NativeDef::new("skill", Exact(3), skill),
        NativeDef::new("connect_mcp", Variadic, connect_mcp),
        NativeDef::new("audit_log", Exact(0), audit_log),
    ]
}

fn inference(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let labeled = std::mem::take(&mut vm.labeled);
    let r = vm.inference(args, &labeled);
    vm.labeled = labeled;
    r
}

fn ask(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let env = vm.env();
    let (line, _) = vm.call_line();
    let model = vm.delegated_model(env, "ask", "e.g. inference(\"mock\")")?;
    vm.ask_model(model, arg(args, 0), env, line)
}

fn ask_with_memory(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let env = vm.env();
    let (line, _) = vm.call_line();
    let model = vm.delegated_model(env, "ask_with_memory", "e.g. inference(\"mock\")")?;
    vm.ask_with_memory(model, arg(args, 0), arg(args, 1), env, line)
}

fn ask_with_tools(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let env = vm.env();
    let (line, _) = vm.call_line();
    let model = vm.delegated_model(
        env,
        "ask_with_tools",
        "e.g. model claude = inference(\"anthropic\")",
    )?;
    if vm.array_of(arg(args, 1)).is_none() {
        return Err(EvalError::runtime(format!(
            "ask_with_tools() expects an Array of tools, got {}",
            vm.type_name(arg(args, 1))
        )));
    }
    vm.ask_with_tools(model, arg(args, 0), arg(args, 1), env, line)
}

fn skill(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    vm.make_skill(args)
}

fn connect_mcp(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    vm.connect_mcp(args)
}

fn audit_log(vm: &mut Vm, _: &[Value]) -> EvalResult<Value> {
    let lines: Vec<String> = vm.audit_entries().iter().map(|e| e.describe()).collect();
    let mut items = Vec::with_capacity(lines.len());
    for l in lines {
        items.push(vm.new_str(l)?);
    }
    vm.new_array(items)
}
