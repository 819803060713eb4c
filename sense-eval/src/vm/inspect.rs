//! Looking inside a VM without running it: every agent with its status
//! and, for paused ones, the call stack with each frame's local variables
//! (`sense show`, the inspector console).

use super::graph::Walk;
use super::{Fiber, Vm};
use crate::error::{EvalError, EvalResult};
use crate::heap::ObjRef;
use crate::heap::ScopeRef;
use crate::host::HostValue;
use crate::object::Obj;
use crate::task::{SuspendCause, TaskStatus};
use crate::value::Value;

/// One frame of a paused task's call stack (the agent runtime shows
/// them in its agent reports).
#[derive(Clone, Debug, PartialEq)]
pub struct FrameReport {
    /// The function (or agent body, tool, action) running in it.
    pub function: String,
    /// Its source file.
    pub file: String,
    /// The line it is stopped at.
    pub line: u32,
    /// Its local variables, by name.
    pub locals: Vec<(String, HostValue)>,
}

/// A task as seen from outside, for the layer that names it (the agent
/// runtime turns these into its agent reports).
#[derive(Clone, Debug, PartialEq)]
pub struct TaskReport {
    /// The agent object.
    pub obj: ObjRef,
    /// Its unique number.
    pub serial: u64,
    /// Its name.
    pub name: String,
    /// Its status.
    pub status: TaskStatus,
    /// `async agent`.
    pub is_async: bool,
    /// Its last pause reason.
    pub pause_reason: HostValue,
    /// The kind of pause, while paused.
    pub pause_kind: Option<SuspendCause>,
    /// Messages waiting in its mailbox.
    pub mailbox: usize,
    /// Call stack while paused, innermost frame first.
    pub frames: Vec<FrameReport>,
}

impl Vm {
    /// Every live task, oldest first. All the values in the report are
    /// copied within one budget (see `vm/graph.rs`): a thousand
    /// locals holding one huge array cost one copy and a fixed amount.
    pub fn task_reports(&self) -> Vec<TaskReport> {
        let (objs, ..) = self.heap.parts();
        let mut roots = Vec::new();
        for o in objs {
            if let Obj::Task(a) = o {
                roots.push(a.pause_reason);
                if let Some(f) = a.fiber.as_deref() {
                    self.frame_locals(f, |_, v| roots.push(v));
                }
            }
        }
        let walk = &mut self.walk_for_all(roots.into_iter());
        let mut out: Vec<TaskReport> = objs
            .iter()
            .enumerate()
            .filter_map(|(i, o)| match o {
                Obj::Task(a) => Some(TaskReport {
                    obj: ObjRef(i as u32),
                    serial: a.serial,
                    name: self.interner.name(a.name).to_string(),
                    status: a.status,
                    is_async: a.is_async,
                    pause_reason: self.to_host_with(a.pause_reason, walk),
                    pause_kind: (a.status == TaskStatus::Paused).then_some(a.pause_kind),
                    mailbox: a.mailbox_len(),
                    frames: a
                        .fiber
                        .as_deref()
                        .map(|f| self.frame_reports_in(f, walk))
                        .unwrap_or_default(),
                }),
                _ => None,
            })
            .collect();
        out.sort_by_key(|a| a.serial);
        out
    }

    /// The frames of a fiber, innermost first.
    pub fn frame_reports(&self, fiber: &Fiber) -> Vec<FrameReport> {
        let mut roots = Vec::new();
        self.frame_locals(fiber, |_, v| roots.push(v));
        let walk = &mut self.walk_for_all(roots.into_iter());
        self.frame_reports_in(fiber, walk)
    }

    /// Calls `f` with each frame's locals (a name once per frame, the
    /// innermost binding), frames innermost first.
    fn frame_locals(&self, fiber: &Fiber, mut f: impl FnMut(&str, Value)) {
        for frame in fiber.frames.iter().rev() {
            self.locals_of(fiber, frame, &mut f);
        }
    }

    /// Calls `f` with the locals of one frame of `fiber`, innermost
    /// binding first and each name once: the bound slots whose scope is
    /// live at the frame's position (from its proto's debug table, inner
    /// blocks first), then the scopes from `env` up to `outer`.
    fn locals_of(&self, fiber: &Fiber, frame: &super::Frame, f: &mut impl FnMut(&str, Value)) {
        let mut seen: Vec<&str> = Vec::new();
        let proto = self.proto(frame.proto);
        if proto.slotted {
            let mut live: Vec<(u32, &str, Value)> = proto
                .slot_info
                .iter()
                .enumerate()
                .filter(|(_, i)| i.start <= frame.ip && frame.ip <= i.end)
                .filter_map(|(s, i)| {
                    let v = fiber.slots.get(frame.slot_base as usize + s)?.as_ref()?;
                    Some((i.start, self.interner.name(i.name), *v))
                })
                .collect();
            // A block's scope starts later than the scopes around it.
            live.sort_by_key(|(start, ..)| std::cmp::Reverse(*start));
            for (_, name, v) in live {
                if !seen.contains(&name) {
                    seen.push(name);
                    f(name, v);
                }
            }
        }
        let mut s = Some(frame.env);
        while let Some(cur) = s {
            if cur == frame.outer {
                break;
            }
            let scope = self.heap.scope(cur);
            for (sym, v) in scope.vars.iter() {
                let name = self.interner.name(sym);
                if !seen.contains(&name) {
                    seen.push(name);
                    f(name, v);
                }
            }
            s = scope.parent;
        }
    }

    fn frame_reports_in(&self, fiber: &Fiber, walk: &mut Walk) -> Vec<FrameReport> {
        fiber
            .frames
            .iter()
            .rev()
            .map(|f| {
                let proto = self.proto(f.proto);
                let span = proto
                    .spans
                    .get((f.ip as usize).saturating_sub(1))
                    .copied()
                    .unwrap_or_default();
                let file = self.file_name(proto.file);
                let mut locals: Vec<(String, HostValue)> = Vec::new();
                self.locals_of(fiber, f, &mut |name, v| {
                    locals.push((name.to_string(), self.to_host_with(v, walk)));
                });
                locals.sort_by(|a, b| a.0.cmp(&b.0));
                FrameReport {
                    function: proto.name.clone(),
                    file,
                    line: span.line,
                    locals,
                }
            })
            .collect()
    }
}

/// The name of the generated source the host's calls run in (see
/// [`Vm::host_call`]). Errors located in it are reported without a line.
pub const HOST_CALL_FILE: &str = "<inspector>";

/// Variable names the host's generated code uses; all live in the host
/// scope (see [`Vm::host_scope`]), never in the program's own scopes.
const RESULT: &str = "__inspect_result";
const CALLEE: &str = "__inspect_callee";
const TARGET: &str = "__inspect_target";
const KEEP: &str = "__inspect_keep";
const AWAIT: &str = "__inspect_await";

impl Vm {
    /// The parameters of a compiled body: each name and the text of its
    /// type annotation, if any.
    pub fn proto_params(&self, id: crate::proto::ProtoId) -> Vec<(String, Option<String>)> {
        self.code
            .protos
            .get(id.0 as usize)
            .map(|p| {
                p.params
                    .iter()
                    .map(|param| {
                        (
                            self.interner.name(param.name).to_string(),
                            param.ann.as_ref().map(|a| a.text.to_string()),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The declared return type of a compiled body, as written.
    pub fn proto_return(&self, id: crate::proto::ProtoId) -> Option<String> {
        let p = self.code.protos.get(id.0 as usize)?;
        p.ret.as_ref().map(|a| a.text.to_string())
    }

    /// The scope the host's own calls run in: a child of `main` (so what
    /// the callee looks up along the scope chain is the main program's)
    /// that is pinned, so what it holds — objects the host keeps — survives
    /// collections and is saved in snapshots. Found again after a restore.
    pub fn host_scope(&mut self, main: ScopeRef) -> ScopeRef {
        let found = self
            .hooks
            .pinned
            .iter()
            .copied()
            .find(|&s| s != main && self.heap.scope(s).parent == Some(main));
        if let Some(s) = found {
            return s;
        }
        let s = self
            .heap
            .alloc_scope(crate::scope::Scope::new_big(Some(main)));
        self.heap.capture_scope(s);
        self.pin_scope(s);
        s
    }

    /// Keeps `v` alive for as long as the host scope lives (in an array
    /// bound there).
    pub fn host_keep(&mut self, scope: ScopeRef, v: Value) {
        let sym = self.interner.intern(KEEP);
        match self.heap.scope(scope).vars.get(sym) {
            Some(Value::Array(r)) => {
                if let Obj::Array(items) = self.heap.get_mut(r) {
                    items.push(v);
                }
            }
            _ => {
                let r = self.heap.alloc(Obj::Array(vec![v]));
                self.heap.scope_mut(scope).vars.define(sym, Value::Array(r));
            }
        }
    }

    /// Calls `callee` with `args` from the host scope exactly as the Sense
    /// statement `callee(a0, a1, …)` written there would (whatever the
    /// callee's kind checks, it checks against the host scope, a child of
    /// the main program's), and the call runs on the VM's own loop. The code run is
    /// generated from fixed names only — `callee` and the arguments are
    /// bound to variables first — so nothing the host passes is ever
    /// parsed as code. With `awaited`, the call's result is awaited (an
    /// async tool's future gives its value). Returns the call's value; keep
    /// it with [`Vm::host_keep`] or convert it before the next run.
    pub fn host_call(
        &mut self,
        scope: ScopeRef,
        callee: Value,
        args: &[crate::host::HostValue],
        awaited: bool,
    ) -> EvalResult<Value> {
        let mut bind = vec![(CALLEE.to_string(), callee)];
        for (i, a) in args.iter().enumerate() {
            let v = self.value_from_host(a)?;
            // Bind each argument at once: the host scope roots it.
            let name = format!("__inspect_arg{i}");
            let sym = self.interner.intern(&name);
            self.heap.scope_mut(scope).vars.define(sym, v);
            bind.push((name, v));
        }
        let names: Vec<&str> = bind.iter().skip(1).map(|(n, _)| n.as_str()).collect();
        let call = format!("{CALLEE}({})", names.join(", "));
        let code = if awaited {
            // The builtin itself, bound like the rest: a program variable
            // named `await` cannot stand in for it.
            let sym = self.interner.intern("await");
            let builtin = self.heap.scope(self.globals).vars.get(sym);
            let builtin = builtin.ok_or_else(|| EvalError::runtime("await() is missing"))?;
            bind.push((AWAIT.to_string(), builtin));
            format!("{RESULT} = {AWAIT}({call})\n")
        } else {
            format!("{RESULT} = {call}\n")
        };
        self.host_run(scope, &code, &bind)
    }

    /// Runs `receiver.method()` (a method without arguments, e.g. an
    /// action's `verify`) from the host scope, as Sense code written there
    /// would. `method` must be a plain name (letters, digits, `_`): it is
    /// the only text of the call that is not fixed.
    pub fn host_method(
        &mut self,
        scope: ScopeRef,
        receiver: ObjRef,
        method: &str,
    ) -> EvalResult<Value> {
        let plain = method
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && method
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !plain || self.heap.try_get(receiver).is_none() {
            return Err(EvalError::runtime(format!("no method '{method}' to call")));
        }
        let code = format!("{RESULT} = {TARGET}.{method}()\n");
        self.host_run(scope, &code, &[(TARGET.to_string(), Value::Obj(receiver))])
    }

    /// Binds `bind` in the host scope, runs `code` (compiled once per
    /// distinct text) there, and returns what it left in the result
    /// variable. The bindings are cleared afterwards.
    fn host_run(
        &mut self,
        scope: ScopeRef,
        code: &str,
        bind: &[(String, Value)],
    ) -> EvalResult<Value> {
        if self.in_checkpoint() {
            return Err(EvalError::runtime(
                "the runtime is stopped at a checkpoint; continue the run first",
            ));
        }
        let result = self.interner.intern(RESULT);
        let mut syms = vec![result];
        self.heap.scope_mut(scope).vars.define(result, Value::Nil);
        for (name, v) in bind {
            let sym = self.interner.intern(name);
            self.heap.scope_mut(scope).vars.define(sym, *v);
            syms.push(sym);
        }
        let (proto, file) = self.host_proto(code)?;
        let run = self.run_top_level(proto, scope);
        let value = self
            .heap
            .scope(scope)
            .vars
            .get(result)
            .unwrap_or(Value::Nil);
        for sym in syms {
            self.heap.scope_mut(scope).vars.define(sym, Value::Nil);
        }
        match run {
            Ok(_) => Ok(value),
            Err(e) if e.file() == Some(file) => Err(EvalError::new(e.class(), e.message())),
            Err(e) => Err(e),
        }
    }

    /// The compiled top level of a generated host call, compiled on first
    /// use (so a long session adds a handful of tiny units, not one per
    /// call — every unit is also saved in snapshots).
    fn host_proto(
        &mut self,
        code: &str,
    ) -> EvalResult<(crate::proto::ProtoId, crate::proto::FileId)> {
        let found =
            self.code.units.iter().find(|(file, _, _, count)| {
                *count > 0
                    && self.code.files.get(file.0 as usize).is_some_and(|f| {
                        f.source.name() == HOST_CALL_FILE && f.source.text() == code
                    })
            });
        if let Some(&(file, _, first, count)) = found {
            return Ok((crate::proto::ProtoId(first + count - 1), file));
        }
        let file = self.add_file(sense_syntax::SourceFile::new(HOST_CALL_FILE, code), None);
        let proto = self.compile_file(file, HOST_CALL_FILE)?;
        Ok((proto, file))
    }
}
