//! `json`: values to JSON text (`dumps`) as Python's `json.dumps` writes
//! it: `", "` and `": "` between items, or one item per line with
//! `indent:`; map keys in insertion order (Int and Bool keys written as
//! strings, as Python writes them); non-ASCII characters escaped as
//! `\uXXXX`; Floats as Python shows them. Values with no JSON form
//! (functions, agents, NaN and infinities, a container inside itself) are
//! an error. `loads` is in `json_loads.rs`.

use super::args::{count, error};
use crate::builtins::{Arity, NativeDef, arg};
use crate::error::EvalResult;
use crate::heap::ObjRef;
use crate::map::MapKey;
use crate::value::Value;
use crate::vm::Vm;
use std::fmt::Write;

const M: &str = "json";
/// Deepest nesting `dumps` writes (deeper is an error, not a stack
/// overflow).
const MAX_DEPTH: usize = 500;

pub(super) fn install(vm: &mut Vm) {
    vm.register_module_native(
        M,
        "loads",
        NativeDef::new("loads", Arity::Exact(1), super::json_loads::loads).with_line(),
    );
    vm.register_module_native(
        M,
        "dumps",
        NativeDef::new("dumps", Arity::Variadic, dumps)
            .with_line()
            .with_labels(),
    );
}

/// `json.dumps(v)` / `json.dumps(v, indent: n)`.
fn dumps(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    const F: &str = "json.dumps";
    count(args, 1, 1, F)?;
    let mut indent = None;
    for (label, v) in vm.labeled_args() {
        match (label.as_str(), v) {
            ("indent", Value::Int(n)) => {
                indent = Some(usize::try_from(n.clamp(0, 64)).unwrap_or(0))
            }
            ("indent", Value::Nil) => indent = None,
            ("indent", other) => {
                return Err(error(
                    F,
                    format!("indent: must be an Int, got {}", vm.type_name(other)),
                ));
            }
            (other, _) => return Err(error(F, format!("unknown option '{other}:'"))),
        }
    }
    let mut w = Writer {
        vm,
        out: String::new(),
        indent,
        open: Vec::new(),
    };
    w.value(arg(args, 0))?;
    let out = w.out;
    vm.new_str(out)
}

/// Writes one value's JSON text.
struct Writer<'v> {
    vm: &'v Vm,
    out: String,
    indent: Option<usize>,
    /// The containers being written (to refuse one inside itself).
    open: Vec<ObjRef>,
}

impl Writer<'_> {
    fn value(&mut self, v: Value) -> EvalResult<()> {
        const F: &str = "json.dumps";
        if self.out.len() > self.vm.config().max_string_len {
            return Err(error(F, "the text would be longer than the string limit"));
        }
        match v {
            Value::Nil => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if b { "true" } else { "false" }),
            Value::Int(n) => {
                let _ = write!(self.out, "{n}");
            }
            Value::Float(x) if x.is_finite() => {
                self.out.push_str(&crate::numfmt::python_repr_float(x));
            }
            Value::Float(x) => {
                return Err(error(
                    F,
                    format!("{} has no JSON form", crate::numfmt::format_float(x)),
                ));
            }
            Value::Str(_) => {
                let text = self.vm.str_of(v).unwrap_or("");
                string(&mut self.out, text);
            }
            Value::Array(r) => {
                let items = self.vm.array_of(v).cloned().unwrap_or_default();
                self.enter(r)?;
                self.seq('[', ']', items.len(), |w, i| w.value(arg(&items, i)))?;
                self.open.pop();
            }
            Value::Obj(r) if self.vm.is_map(v) => {
                let entries: Vec<(MapKey, Value)> = self
                    .vm
                    .map_of(v)
                    .map(|m| m.entries.iter().map(|(k, v)| (k.clone(), *v)).collect())
                    .unwrap_or_default();
                self.enter(r)?;
                self.seq('{', '}', entries.len(), |w, i| {
                    let Some((k, v)) = entries.get(i) else {
                        return Ok(());
                    };
                    string(&mut w.out, &k.text());
                    w.out.push_str(": ");
                    w.value(*v)
                })?;
                self.open.pop();
            }
            other => {
                return Err(error(
                    F,
                    format!("a {} has no JSON form", self.vm.type_name(other)),
                ));
            }
        }
        Ok(())
    }

    /// Notes that container `r` is being written.
    fn enter(&mut self, r: ObjRef) -> EvalResult<()> {
        if self.open.contains(&r) {
            return Err(error(
                "json.dumps",
                "circular reference (a value contains itself)",
            ));
        }
        if self.open.len() >= MAX_DEPTH {
            return Err(error(
                "json.dumps",
                format!("nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        self.open.push(r);
        Ok(())
    }

    /// `open item, item close`, each item written by `item(self, i)`.
    fn seq(
        &mut self,
        open: char,
        close: char,
        len: usize,
        mut item: impl FnMut(&mut Self, usize) -> EvalResult<()>,
    ) -> EvalResult<()> {
        self.out.push(open);
        if len == 0 {
            self.out.push(close);
            return Ok(());
        }
        let depth = self.open.len();
        for i in 0..len {
            if i > 0 {
                self.out.push(',');
                if self.indent.is_none() {
                    self.out.push(' ');
                }
            }
            self.newline(depth);
            item(self, i)?;
        }
        self.newline(depth - 1);
        self.out.push(close);
        Ok(())
    }

    /// With `indent:`, a line break and `level` indents.
    fn newline(&mut self, level: usize) {
        if let Some(n) = self.indent {
            self.out.push('\n');
            for _ in 0..level * n {
                self.out.push(' ');
            }
        }
    }
}

/// A JSON string literal, ASCII only (Python's `ensure_ascii`).
fn string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (' '..='~').contains(&c) => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
}
