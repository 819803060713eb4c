//! The compiler: AST → [`Proto`]s.
//!
//! One pass over the tree, emitting stack-machine code. Names stay names
//! (interned symbols) everywhere except in closed `def` bodies, whose
//! names resolve to frame slots that are checked for being bound at run
//! time, with the live-chain walk as the fallback (`compile/slots.rs`):
//! Sense's scoping is decided at run time (assign-or-create walks the live
//! scope chain, the book: scope.md "The assignment rule"), and slots keep exactly that. Nested
//! bodies (`def`, agent bodies) become protos of their own, appended to
//! the code store.

mod const_array;
mod expr;
mod fstring;
mod slots;
mod stmt;
mod try_stmt;

use crate::heap::Heap;
use crate::object::{Obj, StrObj};
use crate::op::Op;
use crate::proto::{FileId, Proto, ProtoId, ProtoKind};
use crate::symbol::{Interner, Symbol};
use crate::value::Value;
use sense_syntax::Span;
use sense_syntax::ast::{Block, ExprKind, Program, Stmt, StmtKind};
use std::sync::Arc;

/// What the compiler writes into: the VM's interner, heap (for string
/// constants) and code store.
pub struct CodeSink<'a> {
    /// Names.
    pub interner: &'a mut Interner,
    /// Where string constants are allocated.
    pub heap: &'a mut Heap,
    /// The code store; new protos are appended.
    pub protos: &'a mut Vec<Arc<Proto>>,
}

/// The code of a unit could not grow: memory for its instructions could
/// not be had. The protos compiled so far are left in the store for the
/// caller to take out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeOutOfMemory;

/// Compiles a file's top level one statement at a time, as the statements
/// arrive (see `sense_syntax::parse_file_each`), so the caller can drop
/// each statement's tree once it is compiled. The code is the same as
/// [`program`](Self::program) makes for the same statements.
pub struct TopLevelCompiler<'a> {
    c: Compiler<'a>,
    /// The last statement's span: where the closing instructions point.
    end: Span,
}

impl<'a> TopLevelCompiler<'a> {
    /// Starts the top level of `file`, named `name`.
    pub fn new(sink: CodeSink<'a>, file: FileId, name: &str) -> Self {
        let mut c = Compiler {
            sink,
            file,
            cur: Proto::new(name, ProtoKind::TopLevel, file),
            finally_depth: 0,
            slots: None,
            out_of_memory: false,
        };
        c.cur.no_file_context = false;
        TopLevelCompiler {
            c,
            end: Span::default(),
        }
    }

    /// Compiles the next top-level statement.
    pub fn stmt(&mut self, s: &Stmt) {
        self.c.stmt(s);
        self.end = s.span;
    }

    /// Compiles a whole parsed top level (a file, or one REPL input) and
    /// closes it. Nested bodies are appended to the store first.
    pub fn program(mut self, program: &Program) -> Result<ProtoId, CodeOutOfMemory> {
        for s in &program.stmts {
            self.stmt(s);
        }
        self.finish()
    }

    /// Like [`program`](Self::program), but when the last statement is an
    /// expression other than an assignment, its value is what the top
    /// level returns (the interactive REPL shows it; see
    /// [`crate::Vm::take_result`]).
    pub fn echo_program(mut self, program: &Program) -> Result<ProtoId, CodeOutOfMemory> {
        let end = program.stmts.last().map(|s| s.span).unwrap_or_default();
        let c = &mut self.c;
        let echoed = match program.stmts.split_last() {
            Some((last, rest)) => match &last.kind {
                StmtKind::Expr(e)
                    if !matches!(
                        e.kind,
                        ExprKind::Assign { .. } | ExprKind::IndexAssign { .. }
                    ) =>
                {
                    c.stmts(rest);
                    c.expr(e);
                    true
                }
                _ => false,
            },
            _ => false,
        };
        if !echoed {
            return self.program(program);
        }
        // The value stays on the stack while pending tasks drain.
        self.c.emit(Op::DrainTasks, end);
        self.c.emit(Op::Return, end);
        self.c.finish()
    }

    /// Closes the top level (drain pending tasks, return nil) and returns
    /// its proto's id.
    pub fn finish(mut self) -> Result<ProtoId, CodeOutOfMemory> {
        let end = self.end;
        self.c.emit(Op::DrainTasks, end);
        self.c.emit(Op::Nil, end);
        self.c.emit(Op::Return, end);
        self.c.finish()
    }
}

pub(crate) struct Compiler<'a> {
    sink: CodeSink<'a>,
    file: FileId,
    cur: Proto,
    /// How many `try` statements with a `finally` of the body being
    /// compiled enclose the current statement (their `finally` not yet
    /// running): a `return` there must run them first.
    finally_depth: u32,
    /// The slot resolution of the body being compiled, when it is slotted.
    slots: Option<slots::SlotState>,
    /// An instruction could not be stored (its memory could not be had):
    /// the unit is refused when it is finished.
    out_of_memory: bool,
}

impl Compiler<'_> {
    fn finish(mut self) -> Result<ProtoId, CodeOutOfMemory> {
        let proto = std::mem::replace(
            &mut self.cur,
            Proto::new("", ProtoKind::TopLevel, self.file),
        );
        let id = self.push_proto(proto);
        if self.out_of_memory {
            return Err(CodeOutOfMemory);
        }
        Ok(id)
    }

    fn push_proto(&mut self, proto: Proto) -> ProtoId {
        self.sink.protos.push(Arc::new(proto));
        ProtoId(self.sink.protos.len() as u32 - 1)
    }

    /// Compiles a nested body into its own proto: `setup` fills in
    /// parameters and metadata, then the block's statements are compiled
    /// and an implicit `return nil` (at the block's span) closes it.
    fn nested(
        &mut self,
        name: &str,
        kind: ProtoKind,
        setup: impl FnOnce(&mut Self, &mut Proto),
        block: &Block,
    ) -> ProtoId {
        let done = self.body(name, kind, setup, block, false);
        self.push_proto(done)
    }

    /// A `def` body: slotted when it is closed ([`slots::eligible`]) and
    /// every reference in it has at most one candidate slot; otherwise on
    /// the name path, as [`nested`](Self::nested) compiles it.
    fn function(
        &mut self,
        name: &str,
        setup: impl Fn(&mut Self, &mut Proto),
        block: &Block,
    ) -> ProtoId {
        if slots::eligible(&block.stmts) {
            let done = self.body(name, ProtoKind::Function, &setup, block, true);
            if done.slotted {
                return self.push_proto(done);
            }
            // Dropped: its string constants are unreachable garbage now.
        }
        self.nested(name, ProtoKind::Function, setup, block)
    }

    /// Compiles a body into a proto (not yet stored). With `slotted`, the
    /// proto comes back with `slotted` set unless resolution failed.
    fn body(
        &mut self,
        name: &str,
        kind: ProtoKind,
        setup: impl FnOnce(&mut Self, &mut Proto),
        block: &Block,
        slotted: bool,
    ) -> Proto {
        let mut fresh = Proto::new(name, kind, self.file);
        setup(self, &mut fresh);
        fresh.typed_params = fresh.params.iter().any(|p| p.ann.is_some());
        let params: Vec<crate::symbol::Symbol> = fresh.params.iter().map(|p| p.name).collect();
        let outer = std::mem::replace(&mut self.cur, fresh);
        let outer_finally = std::mem::take(&mut self.finally_depth);
        let outer_slots = std::mem::replace(
            &mut self.slots,
            slotted.then(|| slots::SlotState::new(&params)),
        );
        self.stmts(&block.stmts);
        self.emit(Op::Nil, block.span);
        self.emit(Op::Return, block.span);
        self.finally_depth = outer_finally;
        let state = std::mem::replace(&mut self.slots, outer_slots);
        let mut done = std::mem::replace(&mut self.cur, outer);
        if let Some(st) = state
            && !st.failed
        {
            let last = done.code.len() as u32;
            done.slot_info = st.finish(last);
            done.slotted = true;
        }
        done
    }

    fn sym(&mut self, name: &str) -> Symbol {
        self.sink.interner.intern(name)
    }

    /// Appends an instruction and returns its index. Growth is fallible
    /// (a huge literal must fail cleanly, not abort the process): when the
    /// memory cannot be had, nothing more is stored and the unit is
    /// refused by `finish`; the index returned then points at no
    /// instruction, and patching it changes nothing.
    fn emit(&mut self, op: Op, span: Span) -> usize {
        if self.out_of_memory
            || self.cur.code.try_reserve(1).is_err()
            || self.cur.spans.try_reserve(1).is_err()
        {
            self.out_of_memory = true;
            return self.cur.code.len();
        }
        self.cur.code.push(op);
        self.cur.spans.push(span);
        self.cur.code.len() - 1
    }

    fn here(&self) -> u32 {
        self.cur.code.len() as u32
    }

    /// Points the jump at `at` to the current end of code.
    fn patch(&mut self, at: usize) {
        let target = self.here();
        if let Some(
            Op::Jump(t)
            | Op::JumpIfFalse(t)
            | Op::JumpIfFalseOrPop(t)
            | Op::JumpIfTrueOrPop(t)
            | Op::IterNext(t)
            | Op::CompareJump(_, t)
            | Op::TryBegin(t)
            | Op::FinallyBegin(t)
            | Op::ExceptMatch(_, t),
        ) = self.cur.code.get_mut(at)
        {
            *t = target;
        }
    }

    fn constant(&mut self, v: Value) -> u32 {
        self.cur.consts.push(v);
        self.cur.consts.len() as u32 - 1
    }

    fn string_const(&mut self, s: &str) -> u32 {
        let r = self.sink.heap.alloc(Obj::Str(StrObj::new(s)));
        self.constant(Value::Str(r))
    }
}

/// Python's `inspect.cleandoc`: expand tabs, strip the first line's
/// leading whitespace, remove the common indentation of the other lines,
/// then drop empty lines at both ends.
pub fn clean_doc(doc: &str) -> String {
    let expanded = expand_tabs(doc);
    let mut lines: Vec<String> = expanded.split('\n').map(str::to_string).collect();
    let margin = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim_start().is_empty())
        .map(|l| l.chars().count() - l.trim_start().chars().count())
        .min();
    if let Some(first) = lines.first_mut() {
        *first = first.trim_start().to_string();
    }
    if let Some(margin) = margin {
        for l in lines.iter_mut().skip(1) {
            *l = l.chars().skip(margin).collect();
        }
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines.remove(0);
    }
    lines.join("\n")
}

fn expand_tabs(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut col = 0;
    for c in s.chars() {
        match c {
            '\t' => {
                let n = 8 - col % 8;
                out.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
            '\n' | '\r' => {
                out.push(c);
                col = 0;
            }
            c => {
                out.push(c);
                col += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::clean_doc;

    #[test]
    fn cleandoc_matches_python() {
        assert_eq!(
            clean_doc("  Hello.\n    More here.\n      Indented.\n  "),
            "Hello.\nMore here.\n  Indented."
        );
        assert_eq!(clean_doc("\n\n   x\n"), "x");
        assert_eq!(clean_doc("one"), "one");
    }

    /// Once an instruction could not be stored, nothing more is, patching
    /// the missing instruction changes nothing, and the unit is refused.
    #[test]
    fn a_unit_whose_code_cannot_grow_is_refused() {
        use super::*;
        let mut interner = crate::symbol::Interner::default();
        let mut heap = crate::heap::Heap::new();
        let mut protos = Vec::new();
        let sink = CodeSink {
            interner: &mut interner,
            heap: &mut heap,
            protos: &mut protos,
        };
        let mut top = TopLevelCompiler::new(sink, FileId(0), "main");
        top.c.emit(Op::Nil, Span::default());
        top.c.out_of_memory = true;
        let at = top.c.emit(Op::Nil, Span::default());
        assert_eq!(at, 1, "the index of the instruction that is missing");
        top.c.patch(at);
        assert_eq!(top.c.cur.code.len(), 1);
        assert_eq!(top.finish(), Err(CodeOutOfMemory));
    }
}
