//! Expressions.

use super::Compiler;
use crate::op::{Cmp, Op};
use crate::proto::LabelInfo;
use crate::value::Value;
use sense_syntax::ast::{BinOp, Expr, ExprKind, LogicOp, UnaryOp};

impl Compiler<'_> {
    pub(super) fn expr(&mut self, e: &Expr) {
        let span = e.span;
        match &e.kind {
            ExprKind::Int(n) => match i32::try_from(*n) {
                Ok(small) => {
                    self.emit(Op::SmallInt(small), span);
                }
                Err(_) => {
                    let k = self.constant(Value::Int(*n));
                    self.emit(Op::Const(k), span);
                }
            },
            ExprKind::Float(f) => {
                let k = self.constant(Value::Float(*f));
                self.emit(Op::Const(k), span);
            }
            ExprKind::Str(s) => {
                let k = self.string_const(s);
                self.emit(Op::Const(k), span);
            }
            ExprKind::Bool(true) => {
                self.emit(Op::True, span);
            }
            ExprKind::Bool(false) => {
                self.emit(Op::False, span);
            }
            ExprKind::Nil => {
                self.emit(Op::Nil, span);
            }
            ExprKind::Array(items) => {
                if self.const_array(items, span) {
                    return;
                }
                for it in items {
                    self.expr(it);
                }
                self.emit(Op::MakeArray(items.len() as u32), span);
            }
            ExprKind::ConstArray(items) => self.const_items(items, span),
            ExprKind::FString(parts) => self.fstring(parts, span),
            ExprKind::Map(entries) => {
                for (k, v) in entries {
                    self.expr(k);
                    self.expr(v);
                }
                self.emit(Op::MakeMap(entries.len() as u32), span);
            }
            ExprKind::Name(n) => {
                let s = self.sym(n);
                self.load_name(s, span);
            }
            ExprKind::Assign { name, value } => {
                self.expr(value);
                let s = self.sym(&name.name);
                self.store_name(s, true, span);
            }
            ExprKind::IndexAssign {
                target,
                index,
                value,
            } => {
                self.expr(target);
                self.expr(index);
                self.expr(value);
                self.emit(Op::IndexStore, span);
            }
            ExprKind::Binary { op, lhs, rhs } => {
                self.expr(lhs);
                // `x + 1`, `n - 2`, `i * 3`, `i % 7`: one instruction for the literal
                // and the operator.
                if let ExprKind::Int(n) = rhs.kind
                    && let Ok(n) = i32::try_from(n)
                {
                    let fused = match op {
                        BinOp::Add => Some(Op::AddInt(n)),
                        BinOp::Sub => Some(Op::SubInt(n)),
                        BinOp::Mul => Some(Op::MulInt(n)),
                        BinOp::Mod => Some(Op::ModInt(n)),
                        _ => None,
                    };
                    if let Some(fused) = fused {
                        self.emit(fused, span);
                        return;
                    }
                }
                self.expr(rhs);
                let op = match op {
                    BinOp::Add => Op::Add,
                    BinOp::Sub => Op::Sub,
                    BinOp::Mul => Op::Mul,
                    BinOp::Div => Op::Div,
                    BinOp::Mod => Op::Mod,
                    BinOp::Eq => Op::Eq,
                    BinOp::Ne => Op::Ne,
                    BinOp::Lt => Op::Lt,
                    BinOp::Le => Op::Le,
                    BinOp::Gt => Op::Gt,
                    BinOp::Ge => Op::Ge,
                    BinOp::In => Op::In,
                    BinOp::NotIn => {
                        self.emit(Op::In, span);
                        Op::Not
                    }
                };
                self.emit(op, span);
            }
            ExprKind::Logic { op, lhs, rhs } => {
                self.expr(lhs);
                let jump = match op {
                    LogicOp::And => self.emit(Op::JumpIfFalseOrPop(0), span),
                    LogicOp::Or => self.emit(Op::JumpIfTrueOrPop(0), span),
                };
                self.conditional_expr(rhs);
                self.patch(jump);
            }
            ExprKind::Unary { op, operand } => {
                self.expr(operand);
                match op {
                    UnaryOp::Neg => self.emit(Op::Neg, span),
                    UnaryOp::Not => self.emit(Op::Not, span),
                };
            }
            ExprKind::Call {
                callee,
                args,
                labeled,
            } => {
                self.expr(callee);
                for a in args {
                    self.expr(a);
                }
                if labeled.is_empty() {
                    self.emit(Op::Call(args.len() as u32), span);
                } else {
                    for l in labeled {
                        self.expr(&l.value);
                    }
                    let labels = labeled.iter().map(|l| self.sym(&l.label.name)).collect();
                    self.cur.labels.push(LabelInfo {
                        positional: args.len() as u32,
                        labels,
                    });
                    let idx = self.cur.labels.len() as u32 - 1;
                    self.emit(Op::CallLabeled(idx), span);
                }
            }
            ExprKind::Index { target, index } => {
                let start = self.cur.code.len();
                self.expr(target);
                let mid = self.cur.code.len();
                self.expr(index);
                if mid == start + 1
                    && self.cur.code.len() == mid + 1
                    && let (Some(&(Op::LoadSlot(a) | Op::LoadSlots(a))), Some(Op::LoadSlot(_))) =
                        (self.cur.code.get(start), self.cur.code.get(mid))
                    && let Some(head) = self.cur.code.get_mut(start)
                {
                    // `a[j]` of two slots: a register-form head (`op.rs`).
                    *head = Op::SlotIndexSlot(a);
                }
                self.emit(Op::Index, span);
            }
            ExprKind::Member { target, name } => {
                self.expr(target);
                let s = self.sym(&name.name);
                self.emit(Op::Member(s), span);
            }
        }
    }

    /// Makes a register-form head (`op.rs`) of the comparison just emitted
    /// whose right operand is the one instruction at `mid` (its left one
    /// starts at `start`): a slot against a slot or a small Int becomes
    /// `SlotCompareJump`, anything against a small Int `IntCompareJump`.
    /// Only the head changes; the sequence stays whole after it.
    fn fuse_compare(&mut self, start: usize, mid: usize) {
        let code = &mut self.cur.code;
        let (lhs, rhs) = (code.get(start).copied(), code.get(mid).copied());
        match (lhs, rhs) {
            (Some(Op::LoadSlot(a) | Op::LoadSlots(a)), Some(Op::LoadSlot(_) | Op::SmallInt(_)))
                if mid == start + 1 =>
            {
                if let Some(head) = code.get_mut(start) {
                    *head = Op::SlotCompareJump(a);
                }
            }
            (_, Some(Op::SmallInt(k))) => {
                if let Some(head) = code.get_mut(mid) {
                    *head = Op::IntCompareJump(k);
                }
            }
            _ => {}
        }
    }

    /// Compiles a condition and the jump taken when it is falsy; returns
    /// the jump's index for [`Compiler::patch`]. A comparison becomes one
    /// `CompareJump` instead of the comparison and a `JumpIfFalse`.
    pub(super) fn cond_jump(&mut self, cond: &Expr, span: sense_syntax::Span) -> usize {
        if let ExprKind::Binary { op, lhs, rhs } = &cond.kind {
            let cmp = match op {
                BinOp::Eq => Some(Cmp::Eq),
                BinOp::Ne => Some(Cmp::Ne),
                BinOp::Lt => Some(Cmp::Lt),
                BinOp::Le => Some(Cmp::Le),
                BinOp::Gt => Some(Cmp::Gt),
                BinOp::Ge => Some(Cmp::Ge),
                _ => None,
            };
            if let Some(cmp) = cmp {
                let start = self.cur.code.len();
                self.expr(lhs);
                let mid = self.cur.code.len();
                self.expr(rhs);
                let end = self.cur.code.len();
                // The comparison's span: its errors point where they did.
                let at = self.emit(Op::CompareJump(cmp, 0), cond.span);
                if end == mid + 1 {
                    self.fuse_compare(start, mid);
                }
                return at;
            }
        }
        self.expr(cond);
        self.emit(Op::JumpIfFalse(0), span)
    }
}
