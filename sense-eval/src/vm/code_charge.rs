//! Compiled code and source text count towards the heap ceiling
//! (issue 27): a host or program that loads a lot of code gets a clean
//! "out of memory" error, not a process abort.
//!
//! The charge is made in one place, when a compiled unit is installed
//! (`Vm::compile_unit`), from a size estimate of what the unit holds: its
//! source text and its protos. It is not made inside the compiler, which
//! only ever builds one unit. Releasing unused code and restoring a
//! snapshot set the charge again from what the store then holds.

use super::Vm;
use super::ops::sizes;
use crate::error::{EvalError, EvalResult};
use crate::proto::Proto;
use std::mem::size_of;

/// Estimated bytes one compiled body holds: its vectors by capacity and
/// its side tables by length (their strings are small next to the code).
/// Constants that are heap objects are counted by the heap already.
pub(crate) fn proto_bytes(p: &Proto) -> usize {
    fn vec<T>(v: &Vec<T>) -> usize {
        v.capacity().saturating_mul(size_of::<T>())
    }
    [
        size_of::<Proto>(),
        p.name.capacity(),
        p.doc.as_ref().map_or(0, String::capacity),
        vec(&p.code),
        vec(&p.spans),
        vec(&p.consts),
        vec(&p.params),
        vec(&p.loops),
        vec(&p.tests),
        vec(&p.decl_types),
        vec(&p.imports),
        vec(&p.tasks),
        vec(&p.labels),
        vec(&p.decls),
    ]
    .into_iter()
    .fold(0, usize::saturating_add)
}

impl Vm {
    /// Estimated bytes of everything the code store holds for the
    /// program: the source text of each compiled file and every proto.
    fn code_store_bytes(&self) -> usize {
        self.code
            .protos
            .iter()
            .map(|p| proto_bytes(p))
            .fold(self.code.compiled_source_bytes(), usize::saturating_add)
    }

    /// Charges a unit just installed (its protos from `first` on, its
    /// source of `source_len` bytes) to the heap. When the code and
    /// sources held, this unit's included, pass the ceiling by themselves,
    /// the unit is taken out again and the error says so (the store is as
    /// it was before the compilation). Otherwise the charge counts like
    /// any growth: values and code together are checked at the next safe
    /// point. Values alone do not refuse a unit: a program that frees
    /// what an earlier one left (`rows = nil`) must be able to run.
    pub(crate) fn charge_new_unit(&mut self, first: usize, source_len: usize) -> EvalResult<()> {
        let new = self
            .code
            .protos
            .get(first..)
            .unwrap_or_default()
            .iter()
            .map(|p| proto_bytes(p))
            .fold(source_len, usize::saturating_add);
        let after = self.heap.code_bytes().saturating_add(new);
        if after > self.config.max_heap {
            self.code.units.pop();
            self.code.protos.truncate(first);
            let (need, limit) = sizes(after, self.config.max_heap);
            return Err(EvalError::runtime(format!(
                "out of memory: the program's code needs about {need}, over the heap limit of \
                 {limit}"
            ))
            .limit());
        }
        self.heap.set_code_bytes(after);
        Ok(())
    }

    /// Sets the code's charge from what the store holds now (after code
    /// was released, or a snapshot's code was rebuilt).
    pub(crate) fn recharge_code(&mut self) {
        let bytes = self.code_store_bytes();
        self.heap.set_code_bytes(bytes);
    }
}
