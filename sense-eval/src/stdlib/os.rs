//! `os`: `getenv` only (`os.environ` is not provided). The agent layer
//! replaces it with one that first checks the capability `env.read`
//! against the policies in force.

use super::args::{count, expected};
use crate::builtins::{Arity, NativeDef, arg};
use crate::error::EvalResult;
use crate::value::Value;
use crate::vm::Vm;

pub(super) fn install(vm: &mut Vm) {
    vm.register_module_native(
        "os",
        "getenv",
        NativeDef::new("getenv", Arity::Variadic, getenv).with_line(),
    );
}

/// `os.getenv(name)` / `os.getenv(name, default)`: the variable's text,
/// or the default (nil) when it is not set.
pub fn getenv(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    count(args, 1, 2, "os.getenv")?;
    let name = arg(args, 0);
    let Some(key) = vm.str_of(name).map(str::to_string) else {
        return Err(expected(vm, "os.getenv", "a String name", name));
    };
    match std::env::var(&key) {
        Ok(text) => vm.new_str(text),
        Err(_) => Ok(arg(args, 1)),
    }
}
