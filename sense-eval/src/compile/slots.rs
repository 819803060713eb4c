//! Compile-time slots for closed `def` bodies (issue 24, stage 1).
//!
//! Every scope a function body creates (its call scope, each block) can
//! only ever bind names written directly in that scope's source:
//! parameters, `local`, loop variables, `except … as`, and `x = …`
//! targets. So each (scope, name) pair gets a frame slot that may be
//! *unbound*; a reference resolves at compile time to the slots of the
//! scopes around it that have registered its name so far (innermost
//! first), and the VM falls back to the run-time walk from the closure's
//! scope, by name, when the slot is unbound. That keeps the assignment
//! rule (the book's scope.md) exactly: a first assignment still overwrites a module or
//! global variable of that name when one exists at that moment.
//!
//! A name *definitely bound* on the chain by a statement already run in
//! an enclosing scope (`db`) registers nothing when assigned again, so
//! `total = total + i` in a loop body touches the one slot of the call
//! scope. A reference with more than one candidate slot (a name assigned
//! under `and`/`or` and again in an inner block) makes the whole body
//! compile on the name path instead ([`SlotState::failed`]).
//!
//! Only `def` bodies whose statements are all of the kinds in
//! [`eligible`] are slotted: a nested body or a declaration would capture
//! or attach to the call scope by name, which slots do not have.

use super::Compiler;
use crate::op::Op;
use crate::proto::SlotInfo;
use crate::symbol::Symbol;
use sense_syntax::Span;
use sense_syntax::ast::{Block, ExprKind, Stmt, StmtKind};
use sense_syntax::walk::{each_expr, each_stmt};

/// The largest slot count of a slotted body (`ClearSlots` holds `u16`s).
const MAX_SLOTS: usize = u16::MAX as usize;

/// The compile-time record of one scope of a slotted body.
#[derive(Default)]
struct ScopeRec {
    /// Names registered in this scope: `(name, slot, definitely bound in
    /// this very slot)` — parameters, `local`, loop and `except` variables
    /// are; an assignment's slot may stay unbound (it wrote elsewhere).
    names: Vec<(Symbol, u32, bool)>,
    /// Names definitely bound on the chain by this scope's statements so far.
    db: Vec<Symbol>,
    /// The first slot number allocated while this scope was open.
    first: u32,
    /// Where the scope's code starts (the debug table's live range).
    start: u32,
}

/// The resolution state of the slotted body being compiled.
#[derive(Default)]
pub(super) struct SlotState {
    scopes: Vec<ScopeRec>,
    /// The debug table under construction (slot → name and live range).
    info: Vec<SlotInfo>,
    /// How many `and`/`or` right-hand sides enclose the current expression:
    /// an assignment there may not run, so it makes nothing definite.
    conditional: u32,
    /// A reference had several candidate slots, or the body needs more
    /// than [`MAX_SLOTS`]: compile it on the name path instead.
    pub(super) failed: bool,
}

/// True when `body` may be slotted: no statement in it (at any depth)
/// creates a nested body, a declaration, an import, or anything else that
/// binds into or attaches to its scopes by name at run time.
pub(super) fn eligible(body: &[Stmt]) -> bool {
    let mut ok = true;
    each_stmt(body, &mut |s| {
        ok &= matches!(
            s.kind,
            StmtKind::Expr(_)
                | StmtKind::TypedDecl { .. }
                | StmtKind::Local { .. }
                | StmtKind::If { .. }
                | StmtKind::While { .. }
                | StmtKind::For { .. }
                | StmtKind::Return(_)
                | StmtKind::Break
                | StmtKind::Continue
                | StmtKind::Try(_)
                | StmtKind::Raise(_)
        );
    });
    ok
}

impl SlotState {
    /// Starts a body whose parameters are `params` (slots `0..n`).
    pub(super) fn new(params: &[Symbol]) -> Self {
        let mut st = SlotState::default();
        st.scopes.push(ScopeRec::default());
        for &p in params {
            st.register(p, true);
            st.mark_bound(p);
        }
        st
    }

    /// The debug table, closing the call scope at `end`.
    pub(super) fn finish(mut self, end: u32) -> Vec<SlotInfo> {
        while !self.scopes.is_empty() {
            self.pop_scope(end);
        }
        self.info
    }

    /// The slot of `sym` in the innermost scope, registering it when it
    /// has none (`own`: the slot is definitely bound from now on).
    fn register(&mut self, sym: Symbol, own: bool) -> u32 {
        let next = self.info.len() as u32;
        let Some(rec) = self.scopes.last_mut() else {
            self.failed = true;
            return 0;
        };
        if let Some(entry) = rec.names.iter_mut().find(|(n, ..)| *n == sym) {
            entry.2 |= own;
            return entry.1;
        }
        rec.names.push((sym, next, own));
        if self.info.len() >= MAX_SLOTS {
            self.failed = true;
        }
        self.info.push(SlotInfo {
            name: sym,
            start: 0,
            end: 0,
        });
        next
    }

    /// The candidate slots of `sym`, innermost first, up to the first one
    /// that is definitely bound (nothing further out can be reached).
    fn candidates(&self, sym: Symbol) -> Vec<u32> {
        let mut out = Vec::new();
        for rec in self.scopes.iter().rev() {
            if let Some(&(_, slot, own)) = rec.names.iter().find(|(n, ..)| *n == sym) {
                out.push(slot);
                if own {
                    break;
                }
            }
        }
        out
    }

    /// The one slot a reference resolves to, `None` for none (a free name:
    /// the name path); several mark the body as failed.
    fn single(&mut self, sym: Symbol) -> Option<u32> {
        let c = self.candidates(sym);
        if c.len() > 1 {
            self.failed = true;
        }
        c.first().copied()
    }

    fn definitely_bound(&self, sym: Symbol) -> bool {
        self.scopes.iter().any(|r| r.db.contains(&sym))
    }

    fn mark_bound(&mut self, sym: Symbol) {
        if self.conditional == 0
            && let Some(rec) = self.scopes.last_mut()
            && !rec.db.contains(&sym)
        {
            rec.db.push(sym);
        }
    }

    /// The slot an assignment to `sym` writes (registering it in the
    /// innermost scope unless it is definitely bound already).
    fn assign_target(&mut self, sym: Symbol) -> Option<u32> {
        if !self.definitely_bound(sym) {
            self.register(sym, false);
        }
        let slot = self.single(sym);
        if slot.is_none() {
            // Definitely bound yet registered nowhere cannot happen; be safe.
            self.failed = true;
        }
        self.mark_bound(sym);
        slot
    }

    /// Opens a block scope starting at instruction `start`.
    fn push_scope(&mut self, start: u32) {
        let first = self.info.len() as u32;
        self.scopes.push(ScopeRec {
            first,
            start,
            ..ScopeRec::default()
        });
    }

    /// Closes the innermost scope at instruction `end`: its slots' live
    /// range is recorded. Returns the range of slots allocated while it
    /// was open (its own and its inner blocks').
    fn pop_scope(&mut self, end: u32) -> (u32, u32) {
        let Some(rec) = self.scopes.pop() else {
            return (0, 0);
        };
        for &(_, slot, _) in &rec.names {
            if let Some(i) = self.info.get_mut(slot as usize) {
                i.start = rec.start;
                i.end = end;
            }
        }
        (rec.first, self.info.len() as u32)
    }
}

/// A block being compiled: what closing it needs.
pub(super) struct BlockMark {
    /// The `ClearSlots` placed at its entry, when it may have slots.
    clear_at: Option<usize>,
    /// Slots before this one are not the block's (a loop variable's).
    own_from: Option<u32>,
}

impl Compiler<'_> {
    /// Opens a block: `EnterBlock` on the name path; in a slotted body a
    /// compile-time scope and, when the block may bind anything, a
    /// `ClearSlots` for its slots (patched when it closes).
    pub(super) fn open_block(&mut self, b: &Block) -> BlockMark {
        self.open_block_with(b, None)
    }

    /// [`open_block`](Self::open_block) for a loop body whose variable
    /// `var` is bound in it before anything else (`DefineSlot` first,
    /// then the clearing of the other slots).
    pub(super) fn open_block_with(&mut self, b: &Block, var: Option<(Symbol, Span)>) -> BlockMark {
        let here = self.here();
        let Some(st) = self.slots.as_mut() else {
            self.emit(Op::EnterBlock, b.span);
            if let Some((v, span)) = var {
                self.emit(Op::Define(v), span);
            }
            return BlockMark {
                clear_at: None,
                own_from: None,
            };
        };
        st.push_scope(here);
        let own_from = var.map(|(v, span)| {
            let slot = self.define_slot(v, span);
            slot + 1
        });
        let may = self.may_bind(&b.stmts);
        let clear_at = may.then(|| self.emit(Op::ClearSlots(0, 0), b.span));
        let start = self.here();
        if let Some(rec) = self.slots.as_mut().and_then(|st| st.scopes.last_mut()) {
            rec.start = start;
        }
        BlockMark { clear_at, own_from }
    }

    /// Could a block of `stmts` register a slot (is anything bound in it
    /// that is not definitely bound already)? When not, the block goes
    /// without clearing instructions.
    fn may_bind(&mut self, stmts: &[Stmt]) -> bool {
        let mut binds = false;
        let mut assigned: Vec<&str> = Vec::new();
        each_stmt(stmts, &mut |s| match &s.kind {
            StmtKind::Local { .. } | StmtKind::For { .. } => binds = true,
            StmtKind::TypedDecl { name, .. } => assigned.push(&name.name),
            StmtKind::Try(t) => binds |= t.handlers.iter().any(|h| h.name.is_some()),
            _ => {}
        });
        each_expr(stmts, &mut |e| {
            if let ExprKind::Assign { name, .. } = &e.kind {
                assigned.push(&name.name);
            }
        });
        for name in assigned {
            let sym = self.sym(name);
            binds |= !self
                .slots
                .as_ref()
                .is_some_and(|st| st.definitely_bound(sym));
        }
        binds
    }

    /// Closes a block opened by [`open_block`](Self::open_block).
    pub(super) fn close_block(&mut self, mark: BlockMark, span: Span) {
        let end = self.here();
        let Some(st) = self.slots.as_mut() else {
            self.emit(Op::ExitBlock, span);
            return;
        };
        let (first, past) = st.pop_scope(end);
        // On entry the loop variable, already bound, is kept.
        let entry = mark.own_from.map_or(first, |f| f.max(first));
        let (Ok(a), Ok(e), Ok(b)) = (
            u16::try_from(first),
            u16::try_from(entry),
            u16::try_from(past),
        ) else {
            st.failed = true;
            return;
        };
        if let Some(at) = mark.clear_at
            && let Some(op) = self.cur.code.get_mut(at)
        {
            *op = Op::ClearSlots(e, b);
        }
        if b > e || (mark.clear_at.is_some() && b > a) {
            // Normal exit: the block's values are not kept alive.
            self.emit(Op::ClearSlots(a, b), span);
        }
    }

    /// A block in its own scope.
    pub(super) fn scoped_block(&mut self, b: &Block) {
        let mark = self.open_block(b);
        self.stmts(&b.stmts);
        self.close_block(mark, b.span);
    }

    /// Reads a name.
    pub(super) fn load_name(&mut self, sym: Symbol, span: Span) {
        match self.slots.as_mut().and_then(|st| st.single(sym)) {
            Some(slot) => {
                // Two slot reads in a row: the first becomes a
                // register-form head (`op.rs`) that pushes both.
                if let Some(last) = self.cur.code.last_mut()
                    && let Op::LoadSlot(a) = *last
                {
                    *last = Op::LoadSlots(a);
                }
                self.emit(Op::LoadSlot(slot), span)
            }
            None => self.emit(Op::Load(sym), span),
        };
    }

    /// Assigns the value on the stack to a name (assign-or-create), keeping
    /// it when `keep`.
    pub(super) fn store_name(&mut self, sym: Symbol, keep: bool, span: Span) {
        let op = match self.slots.as_mut().and_then(|st| st.assign_target(sym)) {
            Some(slot) if keep => Op::StoreSlot(slot),
            Some(slot) => {
                // `x = a + b`: the `Add` becomes a register-form head
                // (`op.rs`) that can write the sum into the slot itself.
                if let Some(last) = self.cur.code.last_mut()
                    && *last == Op::Add
                {
                    *last = Op::AddStoreSlot(slot);
                }
                Op::StoreSlotPop(slot)
            }
            None if keep => Op::Store(sym),
            None => Op::StorePop(sym),
        };
        self.emit(op, span);
    }

    /// Binds the value on the stack in the current scope (`local`).
    pub(super) fn define_name(&mut self, sym: Symbol, span: Span) {
        if self.slots.is_some() {
            self.define_slot(sym, span);
        } else {
            self.emit(Op::Define(sym), span);
        }
    }

    fn define_slot(&mut self, sym: Symbol, span: Span) -> u32 {
        let slot = match self.slots.as_mut() {
            Some(st) => {
                let slot = st.register(sym, true);
                st.mark_bound(sym);
                slot
            }
            None => 0,
        };
        self.emit(Op::DefineSlot(slot), span);
        slot
    }

    /// The slot both the read and the write of `x = x ± k` resolve to,
    /// when they are the same one (then `BumpSlot` can do the statement).
    pub(super) fn bump_slot(&mut self, sym: Symbol) -> Option<u32> {
        let st = self.slots.as_ref()?;
        let read = st.candidates(sym);
        let [slot] = read[..] else { return None };
        // The write registers nothing new when the name is definitely
        // bound, or already registered in the innermost scope.
        let innermost = st
            .scopes
            .last()
            .is_some_and(|r| r.names.iter().any(|(n, s, _)| *n == sym && *s == slot));
        (st.definitely_bound(sym) || innermost).then_some(slot)
    }

    /// Compiles `rhs` of `and`/`or`: assignments in it may not run.
    pub(super) fn conditional_expr(&mut self, rhs: &sense_syntax::ast::Expr) {
        if let Some(st) = self.slots.as_mut() {
            st.conditional += 1;
        }
        self.expr(rhs);
        if let Some(st) = self.slots.as_mut() {
            st.conditional -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::disasm::disassemble;
    use sense_syntax::SourceFile;

    fn listing(src: &str) -> String {
        disassemble(&SourceFile::new("t.sns", src)).unwrap_or_default()
    }

    #[test]
    fn a_closed_function_gets_slots_and_a_debug_table() {
        let out = listing("def f(n):\n    t = n + 1\n    return t\n");
        assert!(out.contains("  slots: 0 n [0..="), "{out}");
        assert!(out.contains("StoreSlotPop 1  ; t"), "{out}");
        assert!(!out.contains("Load n"), "{out}");
    }

    #[test]
    fn a_free_name_stays_a_name() {
        let out = listing("def f():\n    return g(1)\n");
        assert!(out.contains("Load g"), "{out}");
    }

    #[test]
    fn two_candidate_slots_keep_the_body_on_the_name_path() {
        let out =
            listing("def f(c):\n    c and (x = 1)\n    if true:\n        x = 2\n    return x\n");
        assert!(!out.contains("slots:"), "{out}");
        assert!(out.contains("Load x"), "{out}");
    }

    #[test]
    fn nested_bodies_and_declarations_keep_the_name_path() {
        for body in ["def g():\n        return 1", "import math", "set x = 1"] {
            let out = listing(&format!("def f():\n    {body}\n    return 2\n"));
            let f = out.split("function f").nth(1).unwrap_or_default();
            assert!(!f.contains("slots:"), "{body}: {out}");
        }
    }

    #[test]
    fn a_definitely_bound_name_is_not_registered_again_in_a_block() {
        let out = listing(
            "def f(n):\n    total = 0\n    while total < n:\n        total = total + 1\n    return total\n",
        );
        // One slot for `total` (the call scope's), none for the loop body.
        assert!(
            out.contains("slots: 0 n [0..=") && out.contains(", 1 total [0..="),
            "{out}"
        );
        assert!(!out.contains("ClearSlots"), "{out}");
    }

    #[test]
    fn assigning_a_parameter_in_a_block_writes_its_slot() {
        let out = listing("def f(n):\n    while n > 0:\n        n = n - 1\n    return n\n");
        assert!(out.contains("slots: 0 n [0..="), "{out}");
        assert!(out.contains("BumpSlot 0  ; n"), "{out}");
    }

    #[test]
    fn an_unbound_slot_fits_in_a_value() {
        assert_eq!(
            std::mem::size_of::<Option<crate::value::Value>>(),
            std::mem::size_of::<crate::value::Value>()
        );
    }
}
