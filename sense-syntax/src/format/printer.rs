//! Statements, blocks, blank lines and comments.
//!
//! The output is a sequence of *lines*, each printed from one region of
//! the source: a simple statement, the header of a compound statement (up
//! to its `:`), an `else`/`else if`/`rollback` header, or a policy rule.
//! Lines are printed in source order, which is what lets comments be
//! placed in a single forward pass over them:
//!
//! * comments before a line's region (comment-only lines in the source)
//!   are printed just before it, at its indentation;
//! * comments inside its region (possible only within brackets, where an
//!   expression spans several lines) are printed before it too, since the
//!   expression is printed on one line;
//! * a comment right after the region's last token, on the same source
//!   line, stays at the end of the printed line.
//!
//! A blank line is printed before a statement or a comment-only line when
//! it starts its source line and the source line above it is blank. Runs
//! of blank lines thereby collapse to one; none are added, and none are
//! kept before `else`, `rollback` or policy rules.

use super::expr::{expr, string_literal, type_ann};
use crate::ast::{Block, Else, Param, Program, Stmt, StmtKind};
use crate::lexer::{Comment, Lexed};
use crate::source::SourceFile;
use crate::span::Span;

const INDENT: &str = "    ";

/// One file being printed.
pub(super) struct Printer<'a> {
    file: &'a SourceFile,
    /// `(start, end)` of every real (non-layout) token, in source order.
    tokens: Vec<(u32, u32)>,
    comments: &'a [Comment],
    /// The first comment not printed yet.
    next_comment: usize,
    out: String,
}

impl<'a> Printer<'a> {
    pub(super) fn new(file: &'a SourceFile, lexed: &'a Lexed) -> Self {
        let tokens = lexed
            .tokens
            .iter()
            .filter(|t| !t.kind.is_layout())
            .map(|t| (t.span.start, t.span.end))
            .collect();
        Printer {
            file,
            tokens,
            comments: &lexed.comments,
            next_comment: 0,
            out: String::new(),
        }
    }

    /// Prints the whole program and returns the text.
    pub(super) fn program(mut self, program: &Program) -> String {
        for s in &program.stmts {
            self.stmt(s, 0);
        }
        // Comments after the last statement.
        while let Some(c) = self.comments.get(self.next_comment) {
            self.next_comment += 1;
            self.comment_line(c, 0);
        }
        self.out
    }

    // ---- lines, blank lines and comments ---------------------------------

    /// Prints one line whose text came from source bytes `start..end`,
    /// with the comments that belong before and after it. `text` may hold
    /// line breaks (inside a triple-quoted string); only its first line is
    /// indented. `keep_blank` allows a blank line before it.
    fn line(&mut self, indent: usize, text: &str, start: u32, end: u32, keep_blank: bool) {
        self.comments_before(start, indent);
        if keep_blank {
            self.blank_before(start);
        }
        self.comments_before(end, indent);
        self.out.push_str(&INDENT.repeat(indent));
        self.out.push_str(text);
        if let Some(c) = self.comments.get(self.next_comment)
            && c.trailing
            && self.next_token_start(end).is_none_or(|t| t > c.span.start)
        {
            self.next_comment += 1;
            self.out.push_str("  ");
            self.out.push_str(&comment_text(c));
        }
        self.out.push('\n');
    }

    /// Prints, each on its own line, the comments not printed yet that
    /// start before `offset`.
    fn comments_before(&mut self, offset: u32, indent: usize) {
        while let Some(c) = self.comments.get(self.next_comment) {
            if c.span.start >= offset {
                break;
            }
            self.next_comment += 1;
            self.comment_line(c, indent);
        }
    }

    /// A comment printed on its own line. A comment that had its own line
    /// in the source keeps a blank line above it; one that was inside an
    /// expression does not.
    fn comment_line(&mut self, c: &Comment, indent: usize) {
        if !c.trailing {
            self.blank_before(c.span.start);
        }
        self.out.push_str(&INDENT.repeat(indent));
        self.out.push_str(&comment_text(c));
        self.out.push('\n');
    }

    /// Prints a blank line if the source has one right above the line of
    /// `offset`, and `offset` starts that line (ignoring indentation).
    fn blank_before(&mut self, offset: u32) {
        if self.out.is_empty() || self.out.ends_with("\n\n") {
            return;
        }
        let (line, _) = self.file.line_col(offset);
        let Some(line_start) = self.file.line_start(line) else {
            return;
        };
        let text = self.file.text();
        let before = text
            .get(line_start as usize..offset as usize)
            .unwrap_or("x");
        if !before.chars().all(|c| c == ' ') || line < 2 {
            return;
        }
        if self
            .file
            .line_text(line - 1)
            .is_some_and(|l| l.trim().is_empty())
        {
            self.out.push('\n');
        }
    }

    /// Start of the first real token at or after `offset`.
    fn next_token_start(&self, offset: u32) -> Option<u32> {
        let i = self.tokens.partition_point(|&(s, _)| s < offset);
        self.tokens.get(i).map(|&(s, _)| s)
    }

    /// Start of the last real token that starts before `offset` (used to
    /// find the `else` and `rollback` words, which the tree does not keep).
    fn token_before(&self, offset: u32) -> u32 {
        let i = self.tokens.partition_point(|&(s, _)| s < offset);
        i.checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or(offset, |&(s, _)| s)
    }

    /// End of the first real token after the one starting at `offset`
    /// (the `:` after `policy`).
    fn token_after_end(&self, offset: u32) -> u32 {
        let i = self.tokens.partition_point(|&(s, _)| s <= offset);
        self.tokens.get(i).map_or(offset, |&(_, e)| e)
    }

    // ---- statements --------------------------------------------------------

    fn block(&mut self, b: &Block, indent: usize) {
        for s in &b.stmts {
            self.stmt(s, indent + 1);
        }
    }

    /// A header line ending in `:` (from `start` to the block's colon),
    /// then the block.
    fn header(&mut self, indent: usize, text: &str, start: u32, b: &Block, keep_blank: bool) {
        self.line(indent, text, start, colon_end(b), keep_blank);
        self.block(b, indent);
    }

    /// `try:`, each `except …:` and `finally:` at the statement's indent.
    fn try_stmt(&mut self, t: &crate::ast::TryStmt, indent: usize, start: u32) {
        self.header(indent, "try:", start, &t.body, true);
        for h in &t.handlers {
            let mut text = String::from("except");
            if let Some(c) = &h.class {
                text.push(' ');
                text.push_str(&c.name);
            }
            if let Some(n) = &h.name {
                text.push_str(" as ");
                text.push_str(&n.name);
            }
            text.push(':');
            self.header(indent, &text, h.span.start, &h.body, false);
        }
        if let Some(b) = &t.finally {
            let word = self.token_before(b.span.start);
            self.header(indent, "finally:", word, b, false);
        }
    }

    fn simple(&mut self, indent: usize, text: &str, span: Span) {
        self.line(indent, text, span.start, span.end, true);
    }

    fn stmt(&mut self, s: &Stmt, indent: usize) {
        let start = s.span.start;
        match &s.kind {
            StmtKind::Expr(e) => self.simple(indent, &expr(e), s.span),
            StmtKind::Def(d) => {
                let mut text = format!("def {}({})", d.name.name, params(&d.params));
                if let Some(t) = &d.ret {
                    text.push_str(" -> ");
                    text.push_str(&type_ann(t));
                }
                text.push(':');
                self.header(indent, &text, start, &d.body, true);
            }
            StmtKind::TypedDecl { name, ty, value } => {
                let text = format!("{}: {} = {}", name.name, type_ann(ty), expr(value));
                self.simple(indent, &text, s.span);
            }
            StmtKind::Local { name, ty, value } => {
                let ty = ty
                    .as_ref()
                    .map_or_else(String::new, |t| format!(": {}", type_ann(t)));
                let text = format!("local {}{ty} = {}", name.name, expr(value));
                self.simple(indent, &text, s.span);
            }
            StmtKind::Set { name, value } => {
                let text = format!("set {} = {}", name.name, expr(value));
                self.simple(indent, &text, s.span);
            }
            StmtKind::Model { name, value } => {
                let text = format!("model {} = {}", name.name, expr(value));
                self.simple(indent, &text, s.span);
            }
            StmtKind::If { cond, then, els } => {
                let text = format!("if {}:", expr(cond));
                self.header(indent, &text, start, then, true);
                self.else_chain(els.as_ref(), indent);
            }
            StmtKind::While { cond, body } => {
                let text = format!("while {}:", expr(cond));
                self.header(indent, &text, start, body, true);
            }
            StmtKind::For { var, iter, body } => {
                let text = format!("for {} in {}:", var.name, expr(iter));
                self.header(indent, &text, start, body, true);
            }
            StmtKind::Return(value) => {
                let text = match value {
                    Some(v) => format!("return {}", expr(v)),
                    None => "return".to_string(),
                };
                self.simple(indent, &text, s.span);
            }
            StmtKind::Try(t) => self.try_stmt(t, indent, start),
            StmtKind::Raise(v) => self.simple(indent, &format!("raise {}", expr(v)), s.span),
            StmtKind::Break => self.simple(indent, "break", s.span),
            StmtKind::Continue => self.simple(indent, "continue", s.span),
            StmtKind::Import {
                python,
                path,
                alias,
                ..
            } => {
                let mut text = format!("import {}{}", python_word(*python), string_literal(path));
                if let Some(a) = alias {
                    text.push_str(" as ");
                    text.push_str(&a.name);
                }
                self.simple(indent, &text, s.span);
            }
            StmtKind::FromImport {
                python,
                path,
                names,
                ..
            } => {
                let names: Vec<String> = names
                    .iter()
                    .map(|(n, a)| match a {
                        Some(a) => format!("{} as {}", n.name, a.name),
                        None => n.name.clone(),
                    })
                    .collect();
                let text = format!(
                    "from {}{} import {}",
                    python_word(*python),
                    string_literal(path),
                    names.join(", ")
                );
                self.simple(indent, &text, s.span);
            }
            StmtKind::Test { description, body } => {
                let text = format!("test {}:", string_literal(description));
                self.header(indent, &text, start, body, true);
            }
            StmtKind::Session { name, body } => {
                let text = format!("session {}:", name.name);
                self.header(indent, &text, start, body, true);
            }
            StmtKind::Agent(a) => {
                let text = format!("{}agent {}:", async_word(a.is_async), a.name.name);
                self.header(indent, &text, start, &a.body, true);
            }
            StmtKind::Action(a) => {
                let mut text = format!(
                    "{} action {}({})",
                    a.kind.as_str(),
                    a.name.name,
                    params(&a.params)
                );
                let mut requires: Vec<&str> = Vec::new();
                if let Some(cap) = &a.capability {
                    requires.push(cap);
                }
                if a.approval {
                    requires.push("approval");
                }
                if !requires.is_empty() {
                    text.push_str(" requires ");
                    text.push_str(&requires.join(", "));
                }
                text.push(':');
                self.header(indent, &text, start, &a.body, true);
                if let Some(rb) = &a.rollback {
                    let word = self.token_before(rb.span.start);
                    self.header(indent, "rollback:", word, rb, false);
                }
            }
            StmtKind::Tool(t) => {
                let mut text = format!(
                    "{}tool {}({})",
                    async_word(t.is_async),
                    t.name.name,
                    params(&t.params)
                );
                if let Some(r) = &t.ret {
                    text.push_str(" returns ");
                    text.push_str(&type_ann(r));
                }
                if let Some(cap) = &t.capability {
                    text.push_str(" requires ");
                    text.push_str(cap);
                }
                if let Some(d) = &t.description {
                    text.push(' ');
                    text.push_str(&string_literal(d));
                }
                text.push(':');
                self.header(indent, &text, start, &t.body, true);
            }
            StmtKind::Memory {
                name,
                kind,
                persistent,
            } => {
                let mut text = format!(
                    "{}memory {}",
                    if *persistent { "persistent " } else { "" },
                    name.name
                );
                if let Some(k) = kind {
                    text.push_str(": ");
                    text.push_str(&string_literal(k));
                }
                self.simple(indent, &text, s.span);
            }
            StmtKind::Policy(rules) => {
                let rule_text = |r: &crate::ast::PolicyRule| {
                    format!(
                        "{} {}",
                        if r.allow { "allow" } else { "deny" },
                        r.capability
                    )
                };
                if let [rule] = rules.as_slice() {
                    let text = format!("policy: {}", rule_text(rule));
                    self.simple(indent, &text, s.span);
                } else {
                    let colon_end = self.token_after_end(start);
                    self.line(indent, "policy:", start, colon_end, true);
                    for r in rules {
                        self.line(indent + 1, &rule_text(r), r.span.start, r.span.end, false);
                    }
                }
            }
        }
    }

    /// The `else` / `else if` part of an `if`, never preceded by a blank
    /// line.
    fn else_chain(&mut self, els: Option<&Else>, indent: usize) {
        match els {
            None => {}
            Some(Else::Block(b)) => {
                let word = self.token_before(b.span.start);
                self.header(indent, "else:", word, b, false);
            }
            Some(Else::If(nested)) => {
                let StmtKind::If { cond, then, els } = &nested.kind else {
                    // The parser only puts `if` statements here.
                    self.stmt(nested, indent);
                    return;
                };
                let word = self.token_before(nested.span.start);
                let text = format!("else if {}:", expr(cond));
                self.header(indent, &text, word, then, false);
                self.else_chain(els.as_ref(), indent);
            }
        }
    }
}

/// End of a block's `:` (a block's span starts at its colon).
fn colon_end(b: &Block) -> u32 {
    b.span.start + 1
}

fn params(ps: &[Param]) -> String {
    let parts: Vec<String> = ps
        .iter()
        .map(|p| match &p.ty {
            Some(t) => format!("{}: {}", p.name.name, type_ann(t)),
            None => p.name.name.clone(),
        })
        .collect();
    parts.join(", ")
}

fn python_word(python: bool) -> &'static str {
    if python { "python " } else { "" }
}

fn async_word(is_async: bool) -> &'static str {
    if is_async { "async " } else { "" }
}

/// `# text`, or a bare `#` for an empty comment.
fn comment_text(c: &Comment) -> String {
    if c.text.is_empty() {
        "#".to_string()
    } else {
        format!("# {}", c.text)
    }
}
