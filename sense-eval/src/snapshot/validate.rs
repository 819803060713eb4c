//! Checking a decoded snapshot before it is used: every handle in range
//! and of the right kind, every scope chain finite, every frame inside its
//! code and its stack. After this, nothing the VM does with the restored
//! state can index out of bounds or loop forever walking a chain.

use super::corrupt;
use crate::error::EvalResult;
use crate::heap::{Heap, ObjRef, ScopeRef};
use crate::object::{FutureState, Obj};
use crate::proto::{Proto, ProtoId};
use crate::scope::Scope;
use crate::value::Value;
use crate::vm::{Blocked, CtlKind, Fiber, FrameKind, ModuleEntry, Wait};
use std::sync::Arc;

pub(super) struct State<'a> {
    pub heap: &'a Heap,
    pub protos: &'a [Arc<Proto>],
    pub names: usize,
    pub natives: usize,
    pub files: usize,
}

impl State<'_> {
    fn obj(&self, r: ObjRef) -> EvalResult<&Obj> {
        match self.heap.try_get(r) {
            Some(Obj::Free(_)) | None => Err(corrupt("a value refers to a missing object")),
            Some(o) => Ok(o),
        }
    }

    fn task_obj(&self, r: ObjRef) -> EvalResult<()> {
        match self.obj(r)? {
            Obj::Task(_) => Ok(()),
            _ => Err(corrupt("a task reference points at something else")),
        }
    }

    fn task(&self, r: ObjRef) -> EvalResult<()> {
        match self.obj(r)? {
            Obj::Task(_) | Obj::Future(_) => Ok(()),
            _ => Err(corrupt("a task reference points elsewhere")),
        }
    }

    fn proto(&self, p: ProtoId) -> EvalResult<&Proto> {
        self.protos
            .get(p.0 as usize)
            .map(|p| &**p)
            .ok_or_else(|| corrupt("a function refers to missing code"))
    }

    fn value(&self, v: Value) -> EvalResult<()> {
        let ok = match v {
            Value::Nil | Value::Bool(_) | Value::Int(_) | Value::Float(_) => true,
            Value::Native(id) => (id.0 as usize) < self.natives,
            Value::Str(r) => matches!(self.obj(r)?, Obj::Str(_)),
            Value::Array(r) => matches!(self.obj(r)?, Obj::Array(_)),
            Value::Func(r) => matches!(self.obj(r)?, Obj::Closure(_)),
            Value::Obj(r) => !matches!(self.obj(r)?, Obj::Str(_) | Obj::Array(_) | Obj::Closure(_)),
        };
        if ok {
            Ok(())
        } else {
            Err(corrupt("a value has the wrong kind"))
        }
    }

    fn scope_ref(&self, s: ScopeRef) -> EvalResult<&Scope> {
        match self.heap.scope_slots() > s.0 as usize {
            true => {
                let scope = self.heap.scope(s);
                if scope.is_free() {
                    Err(corrupt("a scope reference points at a free slot"))
                } else {
                    Ok(scope)
                }
            }
            false => Err(corrupt("a scope reference is out of range")),
        }
    }

    /// A single scope reference (its contents are checked by `check_all`).
    pub fn check_scope(&self, s: ScopeRef) -> EvalResult<()> {
        self.scope_ref(s).map(|_| ())
    }

    /// Checks every object and scope of the heap, scope chains, and all
    /// the run state.
    pub fn check_all(
        &self,
        cur: &Fiber,
        callers: &[Box<Fiber>],
        modules: &[ModuleEntry],
        ready: &[ObjRef],
        blocked: &[Blocked],
        pinned: &[ScopeRef],
    ) -> EvalResult<()> {
        self.check_free_lists()?;
        let (objs, _, scopes, _) = self.heap.parts();
        for o in objs {
            self.check_obj(o)?;
        }
        for s in scopes.iter().filter(|s| !s.is_free()) {
            self.check_scope_contents(s)?;
        }
        self.check_chains(scopes)?;
        self.fiber(cur)?;
        for f in callers {
            self.fiber(f)?;
        }
        for m in modules {
            if !matches!(self.obj(m.obj)?, Obj::Module(_)) {
                return Err(corrupt("a module entry points elsewhere"));
            }
        }
        for r in ready {
            self.task(*r)?;
        }
        for b in blocked {
            self.task_obj(b.mailbox)?;
            self.task(b.task)?;
        }
        for s in pinned {
            self.check_scope(*s)?;
        }
        Ok(())
    }

    fn check_free_lists(&self) -> EvalResult<()> {
        let (objs, obj_free, scopes, scope_free) = self.heap.parts();
        let mut at = obj_free;
        let mut steps = 0usize;
        while at != u32::MAX {
            match objs.get(at as usize) {
                Some(Obj::Free(next)) => at = *next,
                _ => return Err(corrupt("the object free list is damaged")),
            }
            steps += 1;
            if steps > objs.len() {
                return Err(corrupt("the object free list loops"));
            }
        }
        let mut at = scope_free;
        let mut steps = 0usize;
        while at != u32::MAX {
            match scopes.get(at as usize) {
                Some(s) if s.is_free() => at = s.free_next(),
                _ => return Err(corrupt("the scope free list is damaged")),
            }
            steps += 1;
            if steps > scopes.len() {
                return Err(corrupt("the scope free list loops"));
            }
        }
        Ok(())
    }

    fn check_scope_contents(&self, s: &Scope) -> EvalResult<()> {
        for (sym, v) in s.vars.iter() {
            if sym.0 as usize >= self.names {
                return Err(corrupt("a variable name is out of range"));
            }
            self.value(v)?;
        }
        if let Some(p) = s.parent {
            self.check_scope(p)?;
        }
        if let Some(x) = &s.extra {
            for (_, v) in &x.values {
                self.value(*v)?;
            }
        }
        if let Some(a) = s.task {
            self.task_obj(a)?;
        }
        Ok(())
    }

    /// Every scope's parent chain ends (no cycles).
    fn check_chains(&self, scopes: &[Scope]) -> EvalResult<()> {
        // 0 = unknown, 1 = on the current walk, 2 = known to end.
        let mut state = vec![0u8; scopes.len()];
        for start in 0..scopes.len() {
            let mut path = Vec::new();
            let mut at = Some(start);
            while let Some(i) = at {
                let (Some(mark), Some(scope)) = (state.get_mut(i), scopes.get(i)) else {
                    return Err(corrupt("a scope reference is out of range"));
                };
                match *mark {
                    2 => break,
                    1 => return Err(corrupt("a scope chain loops")),
                    _ => {}
                }
                *mark = 1;
                path.push(i);
                at = scope
                    .parent
                    .filter(|_| !scope.is_free())
                    .map(|p| p.0 as usize);
            }
            for i in path {
                if let Some(mark) = state.get_mut(i) {
                    *mark = 2;
                }
            }
        }
        Ok(())
    }

    fn check_obj(&self, o: &Obj) -> EvalResult<()> {
        match o {
            Obj::Free(_) | Obj::Str(_) => {}
            Obj::Array(items) => {
                for v in items {
                    self.value(*v)?;
                }
            }
            Obj::Map(m) => {
                for v in m.values() {
                    self.value(v)?;
                }
            }
            Obj::Walk(w) => {
                for v in w.values() {
                    self.value(v)?;
                }
            }
            Obj::Closure(c) => {
                self.proto(c.proto)?;
                self.check_scope(c.env)?;
            }
            Obj::Module(m) => self.check_scope(m.env)?,
            Obj::Bound(b) => {
                self.obj(b.receiver)?;
                self.check_scope(b.env)?;
                if let crate::object::Method::Ext(sym) = b.method
                    && sym.0 as usize >= self.names
                {
                    return Err(corrupt("a method name is out of range"));
                }
            }
            Obj::Task(a) => {
                self.check_scope(a.scope)?;
                self.proto(a.body)?;
                self.value(a.pause_reason)?;
                if a.pause_kind.0 > crate::task::SuspendCause::LAST.0 {
                    return Err(corrupt("a task has a suspend cause that does not exist"));
                }
                for v in a.mailbox() {
                    self.value(*v)?;
                }
                if let Some(f) = &a.fiber {
                    self.fiber(f)?;
                }
            }
            Obj::Future(f) => {
                if let FutureState::Ready(v) = f.state {
                    self.value(v)?;
                }
                if let Some(fb) = &f.fiber {
                    self.fiber(fb)?;
                }
            }
            Obj::Ext(x) => {
                // Every handle it keeps must exist before its kind looks.
                let mut tracer = crate::heap::Tracer::new();
                x.0.trace(&mut tracer);
                let (objs, scopes) = tracer.into_parts();
                for r in objs {
                    self.obj(r)?;
                }
                for s in scopes {
                    self.check_scope(s)?;
                }
                for p in x.0.protos() {
                    self.proto(p)?;
                }
                x.kind().validate(&*x.0, self.heap).map_err(|m| {
                    corrupt(format!(
                        "an object of kind '{}' is damaged: {m}",
                        x.kind().name()
                    ))
                })?;
            }
        }
        Ok(())
    }

    fn fiber(&self, f: &Fiber) -> EvalResult<()> {
        for v in &f.stack {
            self.value(*v)?;
        }
        for b in &f.blocks {
            self.check_scope(*b)?;
        }
        for v in f.slots.iter().flatten() {
            self.value(*v)?;
        }
        let mut last_stack = 0;
        let mut last_blocks = 0;
        let mut last_ctl = 0;
        let mut slots_end = 0;
        for fr in &f.frames {
            let proto = self.proto(fr.proto)?;
            // Each frame owns `nslots` slots from its base, after the
            // slots of the frames below it.
            let base = fr.slot_base as usize;
            let end = base.checked_add(proto.nslots());
            if base < slots_end || end.is_none_or(|e| e > f.slots.len()) {
                return Err(corrupt("a frame's slots are out of place"));
            }
            slots_end = end.unwrap_or(base);
            if fr.ip as usize > proto.code.len() {
                return Err(corrupt("a frame points past the end of its code"));
            }
            self.check_scope(fr.env)?;
            self.check_scope(fr.outer)?;
            let (s, b, c) = (
                fr.stack_base as usize,
                fr.block_base as usize,
                fr.ctl_base as usize,
            );
            if s < last_stack || b < last_blocks || c < last_ctl {
                return Err(corrupt("frames are out of order"));
            }
            if s > f.stack.len() || b > f.blocks.len() || c > f.ctl.len() {
                return Err(corrupt("a frame's bases are past its fiber's stacks"));
            }
            (last_stack, last_blocks, last_ctl) = (s, b, c);
            match &fr.kind {
                FrameKind::Ext(x) => {
                    if !matches!(self.obj(x.obj)?, Obj::Ext(_)) {
                        return Err(corrupt(
                            "a body frame refers to something that is not an extension object",
                        ));
                    }
                    self.check_scope(x.env)?;
                }
                FrameKind::FutureBody { future, file, .. } => {
                    if !matches!(self.obj(*future)?, Obj::Future(_))
                        || file.0 as usize >= self.files.max(1)
                    {
                        return Err(corrupt("a future frame is damaged"));
                    }
                }
                FrameKind::Module { module, names, .. } => {
                    if !matches!(self.obj(*module)?, Obj::Module(_)) {
                        return Err(corrupt(
                            "a module frame refers to something that is not a module",
                        ));
                    }
                    for (m, b) in names {
                        let bad = |s: crate::symbol::Symbol| s.0 as usize >= self.names;
                        if m.is_some_and(bad) || bad(*b) {
                            return Err(corrupt("an import name is out of range"));
                        }
                    }
                }
                FrameKind::Walk(w) => {
                    if !matches!(self.obj(*w)?, Obj::Walk(_)) {
                        return Err(corrupt("a walk frame names an object that is not a walk"));
                    }
                }
                FrameKind::Call | FrameKind::Main | FrameKind::TaskBody | FrameKind::Nested => {}
            }
        }
        if f.slots.len() != slots_end {
            return Err(corrupt("a fiber holds slots no frame owns"));
        }
        for c in &f.ctl {
            let frame = f
                .frames
                .get(c.frame as usize)
                .ok_or_else(|| corrupt("a loop refers to a missing frame"))?;
            let code_len = self.proto(frame.proto)?.code.len() as u32;
            let targets_ok = match &c.kind {
                CtlKind::Loop {
                    break_ip,
                    continue_ip,
                } => *break_ip <= code_len && *continue_ip <= code_len,
                CtlKind::Test { end_ip, .. } => *end_ip <= code_len,
                CtlKind::Try { handler_ip } => *handler_ip <= code_len,
                CtlKind::Finally { finally_ip } => *finally_ip <= code_len,
            };
            if !targets_ok || c.stack as usize > f.stack.len() || c.blocks as usize > f.blocks.len()
            {
                return Err(corrupt("a loop or test block is damaged"));
            }
            self.check_scope(c.env)?;
        }
        if let Some(a) = f.task {
            self.task_obj(a)?;
        }
        if let Some(fu) = f.future {
            if !matches!(self.obj(fu)?, Obj::Future(_)) {
                return Err(corrupt("a fiber's future points elsewhere"));
            }
        }
        if let Some(Wait::Task(t)) = f.waiting {
            self.task(t)?;
        }
        Ok(())
    }
}
