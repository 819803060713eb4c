//! Statements and declarations.

use super::{Compiler, clean_doc};
use crate::op::Op;
use crate::proto::{
    DeclInfo, DeclType, ImportInfo, LoopTargets, ParamSpec, ProtoKind, TaskInfo, TestInfo,
};
use crate::types::Annotation;
use sense_syntax::Span;
use sense_syntax::ast::{BinOp, Block, DeclStmt, Else, ExprKind, Param, Stmt, StmtKind};

/// The docstring of a body: its first statement when that is a bare string.
pub(crate) fn docstring(stmts: &[Stmt]) -> Option<String> {
    match stmts.first().map(|s| &s.kind) {
        Some(StmtKind::Expr(e)) => match &e.kind {
            ExprKind::Str(s) => Some(clean_doc(s)),
            _ => None,
        },
        _ => None,
    }
}

impl Compiler<'_> {
    pub(super) fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    /// A declaration statement, run at its place by the declaration kind
    /// registered under its keyword (`Declare`); the value, if it has one,
    /// is computed first.
    fn declaration(&mut self, d: DeclStmt<'_>, span: Span) {
        if let Some(value) = d.value {
            self.expr(value);
        }
        let name = self.sym(&d.name.name);
        self.cur.decls.push(DeclInfo {
            kind: d.keyword,
            name,
            text: d.text.map(str::to_string),
            flag: d.flag,
            takes_value: d.value.is_some(),
            protos: Vec::new(),
            attrs: Vec::new(),
        });
        let idx = self.cur.decls.len() as u32 - 1;
        self.emit(Op::Declare(idx), span);
    }

    fn params(&mut self, params: &[Param]) -> Vec<ParamSpec> {
        params
            .iter()
            .map(|p| ParamSpec {
                name: self.sym(&p.name.name),
                ann: p.ty.as_ref().map(Annotation::new),
            })
            .collect()
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        let span = s.span;
        // The keyword a declaration statement is registered under.
        let keyword = s.kind.declaration_keyword().unwrap_or_default();
        match &s.kind {
            StmtKind::Expr(e) => {
                // Literal statements (docstrings, placeholders) do nothing.
                if matches!(
                    e.kind,
                    ExprKind::Str(_)
                        | ExprKind::Int(_)
                        | ExprKind::Float(_)
                        | ExprKind::Bool(_)
                        | ExprKind::Nil
                ) {
                    return;
                }
                if let ExprKind::Assign { name, value } = &e.kind {
                    // An assignment statement keeps nothing on the stack.
                    if let ExprKind::Binary { op, lhs, rhs } = &value.kind
                        && matches!(op, BinOp::Add | BinOp::Sub)
                        && let ExprKind::Name(read) = &lhs.kind
                        && *read == name.name
                        && let ExprKind::Int(k) = rhs.kind
                        && let Ok(k) = i32::try_from(k)
                    {
                        // `x = x + k`: the Load becomes a Bump, which does
                        // the whole statement when it can (see `Op::Bump`).
                        let s = self.sym(&name.name);
                        let bump = match self.slots {
                            None => Some(Op::Bump(s)),
                            Some(_) => self.bump_slot(s).map(Op::BumpSlot),
                        };
                        match bump {
                            Some(bump) => {
                                self.emit(bump, lhs.span);
                            }
                            None => self.load_name(s, lhs.span),
                        }
                        let step = match op {
                            BinOp::Add => Op::AddInt(k),
                            _ => Op::SubInt(k),
                        };
                        self.emit(step, value.span);
                        self.store_name(s, false, e.span);
                        return;
                    }
                    self.expr(value);
                    let s = self.sym(&name.name);
                    self.store_name(s, false, e.span);
                    return;
                }
                self.expr(e);
                // `a[i] = v` as a statement: the `IndexStore` becomes a
                // register-form head (`op.rs`) that can skip the `Pop`.
                if let Some(last) = self.cur.code.last_mut()
                    && *last == Op::IndexStore
                {
                    *last = Op::IndexStorePop;
                }
                self.emit(Op::Pop, span);
            }
            StmtKind::Def(f) => {
                let params = self.params(&f.params);
                let ret = f.ret.as_ref().map(Annotation::new);
                let doc = docstring(&f.body.stmts);
                let id = self.function(
                    &f.name.name,
                    |_, p| {
                        p.params.clone_from(&params);
                        p.ret.clone_from(&ret);
                        p.doc.clone_from(&doc);
                    },
                    &f.body,
                );
                self.emit(Op::Closure(id.0), span);
                let name = self.sym(&f.name.name);
                self.emit(Op::Define(name), span);
            }
            StmtKind::TypedDecl { name, ty, value } => {
                self.expr(value);
                self.check_type(&name.name, ty, span);
                let s = self.sym(&name.name);
                self.store_name(s, false, span);
            }
            StmtKind::Local { name, ty, value } => {
                self.expr(value);
                if let Some(ty) = ty {
                    self.check_type(&name.name, ty, span);
                }
                let s = self.sym(&name.name);
                self.define_name(s, span);
            }
            StmtKind::If { cond, then, els } => self.if_stmt(cond, then, els.as_ref(), span),
            StmtKind::While { cond, body } => {
                let lp = self.loop_begin(span);
                let head = self.here();
                // `while true:` can only be left by `break`, `return` or an
                // error: its test is not compiled (the back edge's `Loop`
                // stays the safe point).
                let always = matches!(cond.kind, ExprKind::Bool(true));
                let exit = (!always).then(|| self.cond_jump(cond, span));
                self.scoped_block(body);
                self.emit(Op::Loop(head), span);
                if let Some(exit) = exit {
                    self.patch(exit);
                }
                self.loop_end(lp, head, span);
            }
            StmtKind::For { var, iter, body } => {
                self.expr(iter);
                self.emit(Op::IterPrep, span);
                let lp = self.loop_begin(span);
                let head = self.here();
                let next = self.emit(Op::IterNext(0), span);
                let v = self.sym(&var.name);
                let mark = self.open_block_with(body, Some((v, var.span)));
                self.stmts(&body.stmts);
                self.close_block(mark, body.span);
                self.emit(Op::Loop(head), span);
                self.patch(next);
                self.loop_end(lp, head, span);
                self.emit(Op::Pop, span);
                self.emit(Op::Pop, span);
            }
            StmtKind::Return(value) => {
                match value {
                    Some(v) => self.expr(v),
                    None => {
                        self.emit(Op::Nil, span);
                    }
                }
                if self.cur.kind == ProtoKind::TopLevel {
                    self.emit(Op::ReturnOutside, span);
                } else if self.finally_depth > 0 {
                    // Inside a `try` with a `finally`: that runs first.
                    self.emit(Op::ReturnFinally, span);
                } else {
                    self.emit(Op::Return, span);
                }
            }
            StmtKind::Break => {
                self.emit(Op::Break, span);
            }
            StmtKind::Try(t) => self.try_stmt(t, span),
            StmtKind::Raise(v) => self.raise_stmt(v, span),
            StmtKind::Continue => {
                self.emit(Op::Continue, span);
            }
            StmtKind::Import {
                python,
                path,
                alias,
                ..
            } => {
                let binding = match alias {
                    Some(a) => a.name.clone(),
                    None => default_alias(path, *python),
                };
                let b = self.sym(&binding);
                self.cur.imports.push(ImportInfo {
                    python: *python,
                    path: path.clone(),
                    names: vec![(None, b)],
                });
                let idx = self.cur.imports.len() as u32 - 1;
                self.emit(Op::Import(idx), span);
            }
            StmtKind::FromImport {
                python,
                path,
                names,
                ..
            } => {
                let names = names
                    .iter()
                    .map(|(n, a)| {
                        let member = self.sym(&n.name);
                        let bind = a.as_ref().map_or(member, |a| self.sym(&a.name));
                        (Some(member), bind)
                    })
                    .collect();
                self.cur.imports.push(ImportInfo {
                    python: *python,
                    path: path.clone(),
                    names,
                });
                let idx = self.cur.imports.len() as u32 - 1;
                self.emit(Op::FromImport(idx), span);
            }
            StmtKind::Test { description, body } => {
                self.cur.tests.push(TestInfo {
                    description: description.clone(),
                    end_ip: 0,
                });
                let idx = self.cur.tests.len() - 1;
                self.emit(Op::TestBegin(idx as u32), span);
                self.scoped_block(body);
                self.emit(Op::TestEnd, span);
                let end = self.here();
                if let Some(t) = self.cur.tests.get_mut(idx) {
                    t.end_ip = end;
                }
            }
            StmtKind::Session { body, .. } => self.scoped_block(body),
            StmtKind::Agent(a) => {
                let doc = docstring(&a.body.stmts);
                let body_doc = doc.clone();
                let body = self.nested(
                    &a.name.name,
                    ProtoKind::TaskBody,
                    |_, p| p.doc = body_doc,
                    &a.body,
                );
                let name = self.sym(&a.name.name);
                self.cur.tasks.push(TaskInfo {
                    name,
                    body,
                    is_async: a.is_async,
                    doc,
                });
                let idx = self.cur.tasks.len() as u32 - 1;
                self.emit(Op::TaskDecl(idx), span);
            }
            StmtKind::Set { name, value } => {
                self.expr(value);
                let s = self.sym(&name.name);
                self.emit(Op::SetConfig(s), span);
            }
            StmtKind::Model { .. } | StmtKind::Memory { .. } => {
                if let Some(d) = s.kind.as_declaration() {
                    self.declaration(d, span);
                }
            }
            StmtKind::Policy(rules) => {
                let attrs = rules
                    .iter()
                    .map(|r| {
                        let verb = if r.allow { "allow" } else { "deny" };
                        (verb.to_string(), r.capability.clone())
                    })
                    .collect();
                self.declare(keyword, None, None, false, Vec::new(), attrs, span);
            }
            StmtKind::Tool(t) => {
                let params = self.params(&t.params);
                let ret = t.ret.as_ref().map(Annotation::new);
                let body = self.nested(
                    &t.name.name,
                    ProtoKind::Function,
                    |_, p| {
                        p.params = params;
                        p.ret = ret;
                    },
                    &t.body,
                );
                let mut attrs = Vec::new();
                if let Some(cap) = &t.capability {
                    attrs.push(("requires".to_string(), cap.clone()));
                }
                let name = Some(&t.name.name);
                let text = t.description.clone();
                self.declare(keyword, name, text, t.is_async, vec![body], attrs, span);
            }
            StmtKind::Action(a) => {
                let params = self.params(&a.params);
                let body = self.nested(
                    &a.name.name,
                    ProtoKind::Function,
                    |_, p| p.params = params,
                    &a.body,
                );
                let rollback = a
                    .rollback
                    .as_ref()
                    .map(|rb| self.nested(&a.name.name, ProtoKind::Function, |_, _| {}, rb));
                let mut attrs = Vec::new();
                if let Some(cap) = &a.capability {
                    attrs.push(("requires".to_string(), cap.clone()));
                }
                let protos = std::iter::once(body).chain(rollback).collect();
                let name = Some(&a.name.name);
                let kind = Some(a.kind.as_str().to_string());
                self.declare(keyword, name, kind, a.approval, protos, attrs, span);
            }
        }
    }

    /// Emits `Declare` for a declaration statement whose static data is
    /// `name`, `text`, `flag`, `protos` and `attrs` (see [`DeclInfo`]).
    #[allow(clippy::too_many_arguments)]
    fn declare(
        &mut self,
        kind: &'static str,
        name: Option<&String>,
        text: Option<String>,
        flag: bool,
        protos: Vec<crate::proto::ProtoId>,
        attrs: Vec<(String, String)>,
        span: Span,
    ) {
        let name = self.sym(name.map_or("", |n| n.as_str()));
        self.cur.decls.push(DeclInfo {
            kind,
            name,
            text,
            flag,
            takes_value: false,
            protos,
            attrs,
        });
        let idx = self.cur.decls.len() as u32 - 1;
        self.emit(Op::Declare(idx), span);
    }

    fn check_type(&mut self, name: &str, ty: &sense_syntax::ast::TypeAnn, span: Span) {
        self.cur.decl_types.push(DeclType {
            name: name.to_string(),
            ann: Annotation::new(ty),
        });
        let idx = self.cur.decl_types.len() as u32 - 1;
        self.emit(Op::CheckType(idx), span);
    }

    fn if_stmt(
        &mut self,
        cond: &sense_syntax::ast::Expr,
        then: &Block,
        els: Option<&Else>,
        span: Span,
    ) {
        let to_else = self.cond_jump(cond, span);
        self.scoped_block(then);
        match els {
            None => self.patch(to_else),
            Some(e) => {
                let to_end = self.emit(Op::Jump(0), span);
                self.patch(to_else);
                match e {
                    Else::Block(b) => self.scoped_block(b),
                    Else::If(nested) => self.stmt(nested),
                }
                self.patch(to_end);
            }
        }
    }

    fn loop_begin(&mut self, span: Span) -> usize {
        self.cur.loops.push(LoopTargets {
            break_ip: 0,
            continue_ip: 0,
        });
        let idx = self.cur.loops.len() - 1;
        self.emit(Op::LoopBegin(idx as u32), span);
        idx
    }

    fn loop_end(&mut self, idx: usize, head: u32, span: Span) {
        let end = self.here();
        if let Some(slot) = self.cur.loops.get_mut(idx) {
            *slot = LoopTargets {
                break_ip: end,
                continue_ip: head,
            };
        }
        self.emit(Op::LoopEnd, span);
    }
}

/// The binding an `import` without `as` creates: the file stem for Sense
/// modules (`"./lib/util.sns"` → `util`), the last dotted segment for
/// Python modules.
pub(crate) fn default_alias(path: &str, python: bool) -> String {
    if python {
        return path.rsplit('.').next().unwrap_or(path).to_string();
    }
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match file.rfind('.') {
        Some(dot) if dot > 0 => file[..dot].to_string(),
        _ => file.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::default_alias;

    #[test]
    fn aliases() {
        assert_eq!(default_alias("./math_utils.sns", false), "math_utils");
        assert_eq!(default_alias("pkg/mod.sns", false), "mod");
        assert_eq!(default_alias("os.path", true), "path");
        assert_eq!(default_alias("noext", false), "noext");
    }
}
