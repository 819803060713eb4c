//! Declarations: `def`, parameters and types, and the agent-layer
//! statements of the agent layer (the book: agents.md, actions.md, policy.md) (`test`, `session`, `agent`, actions with
//! `requires` and `rollback`, `tool`, `memory`, `policy`, `set`, `model`).
//!
//! Every function here is called with the input positioned on the
//! statement's leading keyword, which has already been recognised.

use super::error::{PResult, ParseError, expect, fail, nest, tok};
use super::expr::{expr, ident};
use super::input::Tok;
use super::input::Tokens;
use super::stmt::{block, end_of_statement, stmt_at, stmt_from};
use crate::ast::{
    ActionDecl, ActionKind, AgentDecl, Block, Expr, FnDecl, Param, PolicyRule, Stmt, StmtKind,
    ToolDecl, TypeAnn,
};
use crate::span::Span;
use crate::token::{Literal, TokenKind as K};
use nom::Parser;
use nom::combinator::opt;
use nom::multi::separated_list1;
use nom::sequence::preceded;

/// `type = IDENT [ '<' type { ',' type } '>' ]`; each `<` is a nesting level.
pub(crate) fn type_ann(i: Tokens<'_>) -> PResult<'_, TypeAnn> {
    let (mut rest, name) = expect(K::Ident, "expected a type name")(i)?;
    let mut params = Vec::new();
    if let Ok((after, lt)) = tok(K::Lt)(rest) {
        let _level = nest(&after, lt)?;
        let (after, list) = separated_list1(tok(K::Comma), type_ann).parse(after)?;
        params = list;
        rest = expect(K::Gt, "expected '>' to close the generic type")(after)?.0;
    }
    let span = Span::new(
        name.span.start,
        rest.prev_end(name.span.end),
        name.span.line,
    );
    Ok((
        rest,
        TypeAnn {
            name: name.lexeme().to_string(),
            params,
            span,
        },
    ))
}

/// `param = IDENT [ ':' type ]`.
fn param(i: Tokens<'_>) -> PResult<'_, Param> {
    let (i, name) = expect(K::Ident, "expected a parameter name")(i)?;
    let (i, ty) = opt(preceded(tok(K::Colon), type_ann)).parse(i)?;
    Ok((
        i,
        Param {
            name: ident(name),
            ty,
        },
    ))
}

/// `'(' [ param { ',' param } ] ')'` after a declaration's name; a trailing
/// comma fails on the missing parameter name, as in the reference.
fn param_list<'a>(i: Tokens<'a>, open_message: &'static str) -> PResult<'a, Vec<Param>> {
    let (i, _) = expect(K::LParen, open_message)(i)?;
    let (i, params) = if i.check(K::RParen) {
        (i, Vec::new())
    } else {
        separated_list1(tok(K::Comma), param).parse(i)?
    };
    let (i, _) = expect(K::RParen, "expected ')' after the parameters")(i)?;
    Ok((i, params))
}

/// A function's or tool's name, parameters and return type.
type Signature<'a> = (Tok<'a>, Vec<Param>, Option<TypeAnn>);

/// `signature = IDENT '(' [ params ] ')' [ RETURNS type ]` of a function or
/// a tool, where `returns` is the token before the type (`->` or
/// `returns`); `missing` says what is expected when the name and when the
/// `(` is not there.
fn signature<'a>(
    i: Tokens<'a>,
    missing: [&'static str; 2],
    returns: K,
) -> PResult<'a, Signature<'a>> {
    let [name_missing, paren_missing] = missing;
    let (rest, name) = expect(K::Ident, name_missing)(i)?;
    let (rest, params) = param_list(rest, paren_missing)?;
    let (rest, ret) = opt(preceded(tok(returns), type_ann)).parse(rest)?;
    Ok((rest, (name, params, ret)))
}

/// `fn_decl = 'def' IDENT '(' [ params ] ')' [ '->' type ] block`.
pub(crate) fn fn_decl(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let missing = [
        "expected a function name after 'def'",
        "expected '(' after the function name",
    ];
    let (rest, (name, params, ret)) = signature(i.skip(1), missing, K::Arrow)?;
    let (rest, body) = block(rest)?;
    let decl = FnDecl {
        name: ident(name),
        params,
        ret,
        body,
    };
    let kind = StmtKind::Def(Box::new(decl));
    Ok((rest, stmt_at(&i, &rest, name.span.line, kind)))
}

/// `test_stmt = 'test' STRING block`.
pub(crate) fn test_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let missing = "expected a description string after 'test'";
    labelled_block(i, K::Str, missing, |desc, body| StmtKind::Test {
        description: string_value(desc),
        body,
    })
}

/// `session_stmt = 'session' IDENT block`.
pub(crate) fn session_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let missing = "expected a session name after 'session'";
    labelled_block(i, K::Ident, missing, |name, body| StmtKind::Session {
        name: ident(name),
        body,
    })
}

/// `KEYWORD LABEL block`, the label a token of `label`: a test's
/// description or a session's name.
fn labelled_block<'a>(
    i: Tokens<'a>,
    label: K,
    missing: &'static str,
    make: impl FnOnce(Tok<'a>, Block) -> StmtKind,
) -> PResult<'a, Box<Stmt>> {
    let (rest, label) = expect(label, missing)(i.skip(1))?;
    let (rest, body) = block(rest)?;
    stmt_from(&i, rest, make(label, body))
}

/// `agent NAME: block`.
pub(crate) fn agent_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    agent_decl(i, false)
}

/// `reversible action …`.
pub(crate) fn reversible_action(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    action_decl(i, ActionKind::Reversible)
}

/// `irreversible action …`.
pub(crate) fn irreversible_action(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    action_decl(i, ActionKind::Irreversible)
}

/// `tool NAME(…) …: block`.
pub(crate) fn tool_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    tool_decl(i, false)
}

/// `memory NAME …`.
pub(crate) fn memory_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    memory_decl(i, false)
}

/// `agent_decl = [ 'async' ] 'agent' IDENT block`, from the `agent` token
/// (whose line the statement reports).
pub(crate) fn agent_decl(i: Tokens<'_>, is_async: bool) -> PResult<'_, Box<Stmt>> {
    let (rest, name) = expect(K::Ident, "expected an agent name after 'agent'")(i.skip(1))?;
    let (rest, body) = block(rest)?;
    let decl = AgentDecl {
        name: ident(name),
        body,
        is_async,
    };
    let kind = StmtKind::Agent(Box::new(decl));
    Ok((rest, stmt_at(&i, &rest, i.peek().span.line, kind)))
}

/// `action_decl = ( 'reversible' | 'irreversible' ) 'action' IDENT
/// '(' [ params ] ')' [ 'requires' requirement { ',' requirement } ] block
/// [ 'rollback' block ]`.
pub(crate) fn action_decl(i: Tokens<'_>, kind: ActionKind) -> PResult<'_, Box<Stmt>> {
    let message = match kind {
        ActionKind::Reversible => "expected 'action' after 'reversible'",
        ActionKind::Irreversible => "expected 'action' after 'irreversible'",
    };
    let (rest, _) = expect(K::Action, message)(i.skip(1))?;
    let (rest, name) = expect(K::Ident, "expected an action name")(rest)?;
    let (rest, params) = param_list(rest, "expected '(' after the action name")?;
    let (rest, (capability, approval)) = requirements(rest)?;
    let (rest, body) = block(rest)?;
    let (rest, rollback) = rollback_clause(rest, kind, name)?;
    let decl = ActionDecl {
        name: ident(name),
        kind,
        params,
        capability,
        approval,
        body,
        rollback,
    };
    let stmt_kind = StmtKind::Action(Box::new(decl));
    Ok((rest, stmt_at(&i, &rest, name.span.line, stmt_kind)))
}

/// `[ 'requires' requirement { ',' requirement } ]`: at most one capability
/// and at most one `approval`, in either order.
fn requirements(i: Tokens<'_>) -> PResult<'_, (Option<String>, bool)> {
    let mut capability = None;
    let mut approval = false;
    let Ok((mut i, _)) = tok(K::Requires)(i) else {
        return Ok((i, (capability, approval)));
    };
    loop {
        let t = i.peek();
        if t.kind == K::Approval {
            if approval {
                return fail(ParseError::at("'approval' listed twice in 'requires'", t));
            }
            approval = true;
            i = i.skip(1);
        } else if t.kind == K::Ident || t.kind.is_keyword() {
            if capability.is_some() {
                return fail(ParseError::at(
                    "an action can only 'require' one capability",
                    t,
                ));
            }
            let (rest, cap) = capability_path(i)?;
            capability = Some(cap);
            i = rest;
        } else {
            return fail(ParseError::at(
                "expected a capability name or 'approval' after 'requires'",
                t,
            ));
        }
        match tok(K::Comma)(i) {
            Ok((rest, _)) => i = rest,
            Err(_) => return Ok((i, (capability, approval))),
        }
    }
}

/// The optional `rollback:` block after an action body. `rollback` (and
/// the old spelling `compensate`) are plain identifiers, recognised only
/// here and only when a `:` follows.
fn rollback_clause<'a>(
    i: Tokens<'a>,
    kind: ActionKind,
    name: Tok<'_>,
) -> PResult<'a, Option<crate::ast::Block>> {
    let t = i.peek();
    let word_then_colon =
        |w: &str| i.check(K::Ident) && t.lexeme() == w && i.peek_at(1).kind == K::Colon;
    if word_then_colon("rollback") {
        if kind != ActionKind::Reversible {
            return fail(ParseError::at(
                "only a 'reversible action' may declare 'rollback' \u{2014} an irreversible \
                 action cannot be reliably undone",
                t,
            ));
        }
        let (rest, b) = block(i.skip(1))?;
        return Ok((rest, Some(b)));
    }
    if word_then_colon("compensate") {
        return fail(ParseError::at(
            "'compensate' is now spelled 'rollback' -- rename this block's leading word to \
             'rollback:'",
            t,
        ));
    }
    if kind == ActionKind::Reversible {
        return fail(ParseError::at(
            format!(
                "reversible action '{}' must declare a 'rollback' block -- use 'irreversible \
                 action' instead if this genuinely can't be undone",
                name.lexeme()
            ),
            t,
        ));
    }
    Ok((i, None))
}

/// One capability segment: an identifier or any keyword's spelling.
fn cap_segment<'a>(i: Tokens<'a>, message: &str) -> PResult<'a, &'a str> {
    let t = i.peek();
    if i.check(K::Ident) || t.kind.is_keyword() {
        Ok((i.skip(1), t.lexeme()))
    } else {
        fail(ParseError::got(message, t))
    }
}

/// `cap_path = seg { '.' seg }`, joined with dots.
fn capability_path(i: Tokens<'_>) -> PResult<'_, String> {
    let (mut i, first) = cap_segment(i, "expected a capability name")?;
    let mut path = first.to_string();
    while let Ok((after, _)) = tok(K::Dot)(i) {
        let (after, seg) = cap_segment(after, "expected a name after '.'")?;
        path.push('.');
        path.push_str(seg);
        i = after;
    }
    Ok((i, path))
}

/// `tool_decl = [ 'async' ] 'tool' IDENT '(' [ params ] ')' [ 'returns' type ]
/// [ 'requires' cap_path ] [ STRING ] block`, clauses in that fixed order.
pub(crate) fn tool_decl(i: Tokens<'_>, is_async: bool) -> PResult<'_, Box<Stmt>> {
    let missing = ["expected a tool name", "expected '(' after the tool name"];
    let (rest, (name, params, ret)) = signature(i.skip(1), missing, K::Returns)?;
    let (rest, capability) = opt(preceded(tok(K::Requires), capability_path)).parse(rest)?;
    let (rest, description) = opt(tok(K::Str)).parse(rest)?;
    let (rest, body) = block(rest)?;
    let decl = ToolDecl {
        name: ident(name),
        params,
        ret,
        capability,
        description: description.map(string_value),
        is_async,
        body,
    };
    let kind = StmtKind::Tool(Box::new(decl));
    Ok((rest, stmt_at(&i, &rest, name.span.line, kind)))
}

/// `memory_decl = [ 'persistent' ] 'memory' IDENT [ ':' STRING ] NL`, from
/// the `memory` token (whose line the statement reports).
pub(crate) fn memory_decl(i: Tokens<'_>, persistent: bool) -> PResult<'_, Box<Stmt>> {
    let (rest, name) = expect(K::Ident, "expected a memory name after 'memory'")(i.skip(1))?;
    let kind_str = expect(
        K::Str,
        "expected a string after ':' in a memory declaration",
    );
    let (rest, kind_tok) = opt(preceded(tok(K::Colon), kind_str)).parse(rest)?;
    let (rest, ()) = end_of_statement(rest)?;
    let kind = StmtKind::Memory {
        name: ident(name),
        kind: kind_tok.map(string_value),
        persistent,
    };
    Ok((rest, stmt_at(&i, &rest, i.peek().span.line, kind)))
}

/// `policy_stmt = 'policy' ':' ( NL IND policy_rule { policy_rule } DED
/// | policy_rule )`.
pub(crate) fn policy_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let (rest, _) = expect(K::Colon, "expected ':' after 'policy'")(i.skip(1))?;
    let mut rules = Vec::new();
    let rest = if let Ok((rest, _)) = tok(K::Newline)(rest) {
        let (mut rest, _) = expect(K::Indent, "expected an indented block of policy rules")(rest)?;
        while !rest.check(K::Dedent) && !rest.at_end() {
            let (after, rule) = policy_rule(rest)?;
            rules.push(rule);
            rest = after;
        }
        expect(K::Dedent, "expected the policy block to end")(rest)?.0
    } else {
        let (rest, rule) = policy_rule(rest)?;
        rules.push(rule);
        rest
    };
    Ok((
        rest,
        stmt_at(&i, &rest, i.peek().span.line, StmtKind::Policy(rules)),
    ))
}

/// `policy_rule = ( 'allow' | 'deny' ) cap_path NL`.
fn policy_rule(i: Tokens<'_>) -> PResult<'_, PolicyRule> {
    let t = i.peek();
    let allow = match t.kind {
        K::Allow => true,
        K::Deny => false,
        _ => {
            return fail(ParseError::at(
                "expected 'allow' or 'deny' in a policy rule",
                t,
            ));
        }
    };
    let (rest, capability) = capability_path(i.skip(1))?;
    let span = Span::new(t.span.start, rest.prev_end(t.span.end), t.span.line);
    let (rest, ()) = end_of_statement(rest)?;
    Ok((
        rest,
        PolicyRule {
            allow,
            capability,
            span,
        },
    ))
}

/// What `set` expects when its name and when its `=` is not there.
const SET_MISSING: [&str; 2] = [
    "expected a configuration name after 'set'",
    "expected '=' in a set statement",
];

/// What `model` expects when its name and when its `=` is not there.
const MODEL_MISSING: [&str; 2] = [
    "expected a name after 'model'",
    "expected '=' in a model declaration",
];

/// `set_stmt = 'set' IDENT '=' expr NL`.
pub(crate) fn set_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    binding(i, SET_MISSING, false, |name, _, value| StmtKind::Set {
        name: ident(name),
        value,
    })
}

/// `model_decl = 'model' IDENT '=' expr NL`.
pub(crate) fn model_decl(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    binding(i, MODEL_MISSING, false, |name, _, value| StmtKind::Model {
        name: ident(name),
        value,
    })
}

/// `KEYWORD IDENT [ ':' type ] '=' expr NL` (the type only where `typed`):
/// `set`, `model` and `local`. `missing` says what is expected when the
/// name and when the `=` is not there.
pub(crate) fn binding<'a>(
    i: Tokens<'a>,
    missing: [&'static str; 2],
    typed: bool,
    make: impl FnOnce(Tok<'a>, Option<TypeAnn>, Expr) -> StmtKind,
) -> PResult<'a, Box<Stmt>> {
    let [name_missing, eq_missing] = missing;
    let (rest, name) = expect(K::Ident, name_missing)(i.skip(1))?;
    let (rest, ty) = match typed {
        true => opt(preceded(tok(K::Colon), type_ann)).parse(rest)?,
        false => (rest, None),
    };
    let (rest, _) = expect(K::Eq, eq_missing)(rest)?;
    let (rest, value) = expr(rest)?;
    let (rest, ()) = end_of_statement(rest)?;
    stmt_from(&i, rest, make(name, ty, value))
}

/// The value of a STRING token.
fn string_value(t: Tok<'_>) -> String {
    match t.literal() {
        Literal::Str(s) => s,
        _ => String::new(),
    }
}
