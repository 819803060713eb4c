//! Releasing compiled code nothing refers to any more.
//!
//! Every program a host runs (`run_main`, a REPL input, a generated host
//! call) adds a source file and a compilation unit: a contiguous range of
//! protos. A long-lived host that runs many small snippets would keep all
//! of them — and save all of them in every snapshot — for ever. Once no
//! run is in progress, the units that no live value, fiber or stored error
//! refers to can go: the survivors are moved down (compacted) and every
//! proto and file index that names them is rewritten, so the store is as
//! if only the surviving programs had ever been compiled. A snapshot keeps
//! its contiguous compilation record (no format change): restoring
//! recompiles the surviving units, in order, into the same indexes.
//!
//! Where indexes live: `Op::Closure`, the agent table and the
//! declarations' bodies of protos (only ever naming protos of their own
//! unit), closures, extension objects (through
//! [`ExtObject::protos`](crate::kind::ExtObject::protos)), agents (body,
//! fiber frames, stored error) and futures (fiber frames, stored error) on
//! the heap.

use super::CodeStore;
use crate::error::EvalError;
use crate::heap::Heap;
use crate::object::{FutureState, Obj};
use crate::op::Op;
use crate::proto::{FileId, Proto, ProtoId};
use crate::vm::{Fiber, FrameKind, Vm};
use std::sync::Arc;

/// Old index → new index (`None`: released).
struct Remap {
    protos: Vec<Option<u32>>,
    files: Vec<Option<u32>>,
}

impl Remap {
    /// The new index of `old` in `table`. A live index always has a new
    /// one; anything else (which marking never lets through) keeps reading
    /// as a missing entry.
    fn index(table: &[Option<u32>], old: u32) -> u32 {
        table
            .get(old as usize)
            .copied()
            .flatten()
            .unwrap_or(u32::MAX)
    }

    fn proto(&self, p: ProtoId) -> ProtoId {
        ProtoId(Self::index(&self.protos, p.0))
    }

    fn file(&self, f: FileId) -> FileId {
        FileId(Self::index(&self.files, f.0))
    }

    fn error(&self, e: &mut EvalError) {
        if let Some(f) = e.file() {
            e.set_file(self.file(f));
        }
    }

    fn fiber(&self, fiber: &mut Fiber) {
        for frame in &mut fiber.frames {
            frame.proto = self.proto(frame.proto);
            if let FrameKind::FutureBody { file, .. } = &mut frame.kind {
                *file = self.file(*file);
            }
        }
    }

    fn obj(&self, obj: &mut Obj) {
        match obj {
            Obj::Closure(c) => c.proto = self.proto(c.proto),
            Obj::Ext(x) => x.0.remap_protos(&mut |id| self.proto(id)),
            Obj::Task(a) => {
                a.body = self.proto(a.body);
                if let Some(f) = &mut a.fiber {
                    self.fiber(f);
                }
                if let Some(e) = a.error_mut() {
                    self.error(e);
                }
            }
            Obj::Future(f) => {
                if let Some(fiber) = &mut f.fiber {
                    self.fiber(fiber);
                }
                if let FutureState::Failed(e) = &mut f.state {
                    self.error(e);
                }
            }
            _ => {}
        }
    }

    /// Rewrites the indexes inside a moved proto.
    fn proto_body(&self, p: &mut Proto) {
        p.file = self.file(p.file);
        for op in &mut p.code {
            if let Op::Closure(id) = op {
                *id = self.proto(ProtoId(*id)).0;
            }
        }
        for a in &mut p.tasks {
            a.body = self.proto(a.body);
        }
        for d in &mut p.decls {
            for id in &mut d.protos {
                *id = self.proto(*id);
            }
        }
    }
}

/// Marks of what live state refers to.
struct Marks {
    protos: Vec<bool>,
    files: Vec<bool>,
}

impl Marks {
    fn proto(&mut self, p: ProtoId) {
        if let Some(m) = self.protos.get_mut(p.0 as usize) {
            *m = true;
        }
    }

    fn file(&mut self, f: FileId) {
        if let Some(m) = self.files.get_mut(f.0 as usize) {
            *m = true;
        }
    }

    fn error(&mut self, e: &EvalError) {
        if let Some(f) = e.file() {
            self.file(f);
        }
    }

    fn fiber(&mut self, fiber: &Fiber) {
        for frame in &fiber.frames {
            self.proto(frame.proto);
            if let FrameKind::FutureBody { file, .. } = frame.kind {
                self.file(file);
            }
        }
    }

    fn obj(&mut self, obj: &Obj) {
        match obj {
            Obj::Closure(c) => self.proto(c.proto),
            Obj::Ext(x) => {
                for id in x.0.protos() {
                    self.proto(id);
                }
            }
            Obj::Task(a) => {
                self.proto(a.body);
                if let Some(f) = &a.fiber {
                    self.fiber(f);
                }
                if let Some(e) = a.error() {
                    self.error(e);
                }
            }
            Obj::Future(f) => {
                if let Some(fiber) = &f.fiber {
                    self.fiber(fiber);
                }
                if let FutureState::Failed(e) = &f.state {
                    self.error(e);
                }
            }
            _ => {}
        }
    }
}

impl Vm {
    /// Frees the code and sources of programs that nothing refers to any
    /// more (no function, tool, action, agent, paused frame or stored
    /// error), after collecting garbage. Does nothing while a run is in
    /// progress (inside a call, or stopped at a checkpoint). Returns how
    /// many compilation units were released.
    ///
    /// Hosts call it once a program's run has ended and its error, if any,
    /// has been rendered (rendering needs the source).
    pub fn release_unused_code(&mut self) -> usize {
        if !self.sched.drives.is_empty()
            || self.sched.pending.is_some()
            || self.sched.parked.is_some()
            || !self.cur.frames.is_empty()
            || !self.sched.callers.is_empty()
        {
            return 0;
        }
        self.collect_garbage();
        let released = self.code.release_unreferenced(&mut self.heap);
        self.recharge_code();
        released
    }
}

impl CodeStore {
    /// Releases the units no object of `heap` refers to (the heap was
    /// just collected and no fiber runs) and rewrites the indexes of the
    /// survivors, in the heap too. Returns how many units went.
    fn release_unreferenced(&mut self, heap: &mut Heap) -> usize {
        let mut marks = Marks {
            protos: vec![false; self.protos.len()],
            files: vec![false; self.files.len()],
        };
        for obj in heap.parts().0 {
            marks.obj(obj);
        }
        // A unit lives if any of its protos does; its file lives with it.
        let live_units: Vec<bool> = self
            .units
            .iter()
            .map(|&(_, _, first, count)| {
                marks
                    .protos
                    .get(first as usize..(first + count) as usize)
                    .is_some_and(|r| r.iter().any(|&m| m))
            })
            .collect();
        for (&(file, ..), &live) in self.units.iter().zip(&live_units) {
            if live {
                marks.file(file);
            }
        }
        let released = live_units.iter().filter(|&&l| !l).count();
        if released == 0 && marks.files.iter().all(|&m| m) {
            return 0;
        }
        let remap = self.remap(&live_units, &marks.files);
        self.compact(&live_units, &marks.files, &remap, heap);
        released
    }

    /// New indexes: survivors in order, packed from 0.
    fn remap(&self, live_units: &[bool], live_files: &[bool]) -> Remap {
        let mut protos = vec![None; self.protos.len()];
        let mut next = 0u32;
        for (&(_, _, first, count), &live) in self.units.iter().zip(live_units) {
            if !live {
                continue;
            }
            for old in first..first + count {
                if let Some(slot) = protos.get_mut(old as usize) {
                    *slot = Some(next);
                    next += 1;
                }
            }
        }
        let mut files = vec![None; self.files.len()];
        let mut next = 0u32;
        for (slot, &live) in files.iter_mut().zip(live_files) {
            if live {
                *slot = Some(next);
                next += 1;
            }
        }
        Remap { protos, files }
    }

    fn compact(
        &mut self,
        live_units: &[bool],
        live_files: &[bool],
        remap: &Remap,
        heap: &mut Heap,
    ) {
        let old_protos = std::mem::take(&mut self.protos);
        let mut protos: Vec<Arc<Proto>> = Vec::new();
        for (old, mut proto) in old_protos.into_iter().enumerate() {
            let new = remap.protos.get(old).copied().flatten();
            if new.is_none() {
                continue;
            }
            let moved = new != Some(old as u32)
                || remap.file(proto.file) != proto.file
                || proto
                    .code
                    .iter()
                    .any(|op| matches!(op, Op::Closure(id) if remap.proto(ProtoId(*id)).0 != *id));
            if moved {
                remap.proto_body(Arc::make_mut(&mut proto));
            }
            protos.push(proto);
        }
        self.protos = protos;

        let old_units = std::mem::take(&mut self.units);
        let mut first = 0u32;
        self.units = old_units
            .into_iter()
            .zip(live_units)
            .filter(|(_, live)| **live)
            .map(|((file, name, _, count), _)| {
                let unit = (remap.file(file), name, first, count);
                first += count;
                unit
            })
            .collect();

        let old_files = std::mem::take(&mut self.files);
        self.files = old_files
            .into_iter()
            .zip(live_files)
            .filter(|(_, live)| **live)
            .map(|(f, _)| f)
            .collect();

        for obj in heap.objs_mut() {
            remap.obj(obj);
        }
        self.protos.shrink_to_fit();
        self.units.shrink_to_fit();
        self.files.shrink_to_fit();
    }
}
