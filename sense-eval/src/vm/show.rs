//! Turning values into text: `print`/`str` (the book: values.md "Printing"), `type_of`,
//! and the Python-style renderings a few reference messages use.

use super::Vm;
use crate::error::{EvalError, EvalResult};
use crate::kind::Render;
use crate::numfmt::{format_float, python_repr_str};
use crate::object::Obj;
use crate::value::Value;

const MAX_SHOW_DEPTH: usize = 200;

impl Vm {
    /// `show(v)`: the text `print` writes.
    pub fn show(&self, v: Value) -> EvalResult<String> {
        self.render(v, false)
    }

    /// The whole rendering of `v`, up to the string-length limit: `print`'s
    /// text, or Python's `repr` when `python`.
    fn render(&self, v: Value, python: bool) -> EvalResult<String> {
        let mut out = String::new();
        let cap = self.config.max_string_len;
        self.show_into(v, &mut out, 0, python, cap, &mut Vec::new())?;
        Ok(out)
    }

    /// What `print` would write, cut at about `cap` bytes (then ending in
    /// `...`) — for a value shown to a reader rather than printed by the
    /// program: it stops as soon as it has `cap` bytes, so a value inside
    /// itself or sharing sub-arrays millions of times costs no more.
    pub fn show_preview(&self, v: Value, cap: usize) -> String {
        self.preview(v, cap, false)
    }

    /// [`Vm::py_repr`] cut like [`Vm::show_preview`] (for error messages
    /// that quote a value).
    pub fn py_repr_preview(&self, v: Value, cap: usize) -> String {
        self.preview(v, cap, true)
    }

    fn preview(&self, v: Value, cap: usize, python: bool) -> String {
        let mut out = String::new();
        if self
            .show_into(v, &mut out, 0, python, cap, &mut Vec::new())
            .is_err()
            || out.len() > cap
        {
            let mut cut = out.len().min(cap);
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push_str("...");
        }
        out
    }

    /// Python's `str(v)` of the value the reference would hold: like
    /// `show` at the top level, but nested strings are quoted and nil,
    /// true and false read `None`, `True`, `False` (used by `assert`
    /// messages and conversion errors).
    pub fn py_str(&self, v: Value) -> EvalResult<String> {
        self.py_str_at(v, 0, self.config.max_string_len, &mut Vec::new())
    }

    /// `py_str` nested `depth` levels deep (a value can contain itself).
    pub(crate) fn py_str_at(
        &self,
        v: Value,
        depth: usize,
        cap: usize,
        path: &mut Vec<crate::heap::ObjRef>,
    ) -> EvalResult<String> {
        let mut out = String::new();
        match v {
            Value::Str(_) => out.push_str(self.str_of(v).unwrap_or("")),
            _ => self.show_into(v, &mut out, depth, true, cap, path)?,
        }
        Ok(out)
    }

    /// Python's `repr(v)` (strings quoted).
    pub fn py_repr(&self, v: Value) -> EvalResult<String> {
        self.render(v, true)
    }

    /// Renders `v` into `out`; an error once `out` holds more than `cap`
    /// bytes (print's cap is the string limit) or nests deeper than
    /// [`MAX_SHOW_DEPTH`] — the one bound on rendering, whatever the
    /// value's shape. Extension objects render the values they hold through
    /// it too (see [`Render::value`](crate::kind::Render::value)).
    pub(crate) fn show_into(
        &self,
        v: Value,
        out: &mut String,
        depth: usize,
        python: bool,
        cap: usize,
        path: &mut Vec<crate::heap::ObjRef>,
    ) -> EvalResult<()> {
        if depth > MAX_SHOW_DEPTH {
            return Err(EvalError::runtime(crate::error::RECURSION_MESSAGE)
                .lineless()
                .limit());
        }
        // Shared sub-arrays print once per reference: stop at the string
        // cap instead of building 2^depth bytes (issue 8).
        if out.len() > cap {
            return Err(EvalError::runtime(format!(
                "string too large ({} bytes; the limit is {cap})",
                out.len(),
            ))
            .limit());
        }
        match v {
            Value::Nil => out.push_str(if python { "None" } else { "nil" }),
            Value::Bool(b) => out.push_str(match (b, python) {
                (true, false) => "true",
                (false, false) => "false",
                (true, true) => "True",
                (false, true) => "False",
            }),
            Value::Int(i) => {
                use std::fmt::Write;
                let _ = write!(out, "{i}");
            }
            Value::Float(f) => out.push_str(&format_float(f)),
            Value::Str(_) => {
                let s = self.str_of(v).unwrap_or("");
                if python {
                    out.push_str(&python_repr_str(s));
                } else {
                    out.push_str(s);
                }
            }
            // Python's repr writes a list inside itself as `[...]`; Sense's
            // own `print` runs into the depth limit instead (as the
            // reference's does).
            Value::Array(r) if python && path.contains(&r) => out.push_str("[...]"),
            Value::Array(r) => {
                out.push('[');
                path.push(r);
                if let Some(items) = self.array_of(v) {
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        self.show_into(*item, out, depth + 1, python, cap, path)?;
                    }
                }
                path.pop();
                out.push(']');
            }
            Value::Func(r) => {
                if let Obj::Closure(c) = self.heap.get(r) {
                    out.push_str("<fn ");
                    out.push_str(&self.proto(c.proto).name);
                    out.push('>');
                }
            }
            Value::Native(id) => {
                out.push_str("<builtin ");
                out.push_str(
                    self.registries
                        .natives
                        .get(id.0 as usize)
                        .map_or("?", |n| &n.name),
                );
                out.push('>');
            }
            Value::Obj(r) => {
                let mut render = Render {
                    out,
                    depth,
                    python,
                    cap,
                    path,
                };
                self.show_object(r, &mut render)?;
            }
        }
        Ok(())
    }

    /// Renders a heap object that is neither a string nor an array.
    fn show_object(&self, r: crate::heap::ObjRef, render: &mut Render<'_>) -> EvalResult<()> {
        let out = &mut *render.out;
        match self.heap.get(r) {
            Obj::Module(m) => {
                out.push_str("<module ");
                out.push_str(&m.name);
                out.push('>');
            }
            Obj::Task(a) => match self.task_kind {
                Some(kind) => kind.render(self, r, render)?,
                None => {
                    out.push_str("<task ");
                    out.push_str(self.interner.name(a.name));
                    out.push('>');
                }
            },
            Obj::Bound(b) => {
                out.push_str("<builtin ");
                if let crate::object::Method::Builtin(_) = b.method {
                    out.push_str(self.type_name(self.receiver_value(b.receiver)));
                }
                out.push_str(&self.object_name(b.receiver));
                out.push('.');
                out.push_str(self.method_name(b.method));
                out.push('>');
            }
            Obj::Future(f) => {
                let state = if matches!(f.state, crate::object::FutureState::Pending) {
                    "pending"
                } else {
                    "ready"
                };
                out.push_str(&format!("<future {} ({state})>", f.label));
            }
            Obj::Ext(x) => x.kind().render(self, r, render)?,
            Obj::Map(_) => self.show_map(r, render)?,
            Obj::Str(_) | Obj::Array(_) | Obj::Closure(_) | Obj::Free(_) | Obj::Walk(_) => {}
        }
        Ok(())
    }

    /// `{k: v, …}` (Python's repr in `python` mode: `{'k': v}`, and a
    /// map inside itself as `{...}`); like an array, a map inside itself
    /// runs into the depth limit in Sense's own form.
    fn show_map(&self, r: crate::heap::ObjRef, render: &mut Render<'_>) -> EvalResult<()> {
        let Render {
            out,
            depth,
            python,
            cap,
            path,
        } = render;
        let (depth, python, cap) = (*depth, *python, *cap);
        if python && path.contains(&r) {
            out.push_str("{...}");
            return Ok(());
        }
        let Obj::Map(m) = self.heap.get(r) else {
            return Ok(());
        };
        out.push('{');
        path.push(r);
        for (i, (k, v)) in m.entries.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match k {
                crate::map::MapKey::Str(s) if python => out.push_str(&python_repr_str(s)),
                crate::map::MapKey::Bool(b) if python => {
                    out.push_str(if *b { "True" } else { "False" })
                }
                _ => out.push_str(&k.text()),
            }
            out.push_str(": ");
            self.show_into(*v, out, depth + 1, python, cap, path)?;
        }
        path.pop();
        out.push('}');
        Ok(())
    }

    /// The name of a bound method.
    pub(crate) fn method_name(&self, m: crate::object::Method) -> &str {
        match m {
            crate::object::Method::Ext(sym) | crate::object::Method::Builtin(sym) => {
                self.interner.name(sym)
            }
        }
    }

    /// The name of a named object (an agent, or an
    /// extension object's [`ObjectKind::object_name`](crate::kind::ObjectKind::object_name)).
    pub fn object_name(&self, r: crate::heap::ObjRef) -> String {
        match self.heap.get(r) {
            Obj::Task(a) => self.interner.name(a.name).to_string(),
            Obj::Ext(x) => x.kind().object_name(self, r),
            _ => String::new(),
        }
    }

    /// The reference's host class of `v` (what its "not JSON
    /// serializable" TypeError names): an extension object's
    /// [`ObjectKind::host_class`](crate::kind::ObjectKind::host_class),
    /// else the core's class for the value.
    pub fn host_class(&self, v: Value) -> &'static str {
        match v {
            Value::Func(_) => "SenseFunction",
            Value::Native(_) => "BuiltinFunction",
            Value::Obj(r) => match self.heap.get(r) {
                Obj::Module(_) => "SenseModule",
                Obj::Bound(_) => "BuiltinFunction",
                Obj::Task(_) => self.task_kind.map_or("SenseTask", |k| k.host_class()),
                Obj::Future(_) => "SenseFuture",
                Obj::Ext(x) => x.kind().host_class(self, r),
                _ => self.type_name(v),
            },
            _ => self.type_name(v),
        }
    }

    /// Python truthiness of the underlying value (as the reference tests a
    /// pause reason): like Sense truthiness.
    pub fn host_truthy(&self, v: Value) -> bool {
        self.truthy(v)
    }

    /// `type_of(v)`.
    pub fn type_name(&self, v: Value) -> &'static str {
        match v {
            Value::Nil => "Nil",
            Value::Bool(_) => "Bool",
            Value::Int(_) => "Int",
            Value::Float(_) => "Float",
            Value::Str(_) => "String",
            Value::Array(_) => "Array",
            Value::Func(_) | Value::Native(_) => "Function",
            Value::Obj(r) => match self.heap.get(r) {
                Obj::Module(_) => "Module",
                Obj::Task(_) => self.task_kind.map_or("Task", |k| k.type_name()),
                Obj::Bound(_) => "Function",
                Obj::Future(_) => "Future",
                Obj::Str(_) => "String",
                Obj::Array(_) => "Array",
                Obj::Closure(_) => "Function",
                Obj::Free(_) => "Nil",
                Obj::Ext(x) => x.kind().type_name(),
                Obj::Map(_) => "Map",
                Obj::Walk(_) => "Function",
            },
        }
    }
}
