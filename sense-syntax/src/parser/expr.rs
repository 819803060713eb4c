//! Expressions (the book: language.md, values.md "Operators").
//!
//! Binary operators are parsed by precedence climbing with explicit
//! operand/operator stacks, so a long chain costs heap, not Rust stack.
//! Everything that does recurse (brackets, prefix operators, assignment)
//! takes a nesting level first. A chain (binary operators in one
//! expression level, or postfix operators in a row) may hold at most
//! [`MAX_CHAIN`] operators, and each parsed expression travels with its tree
//! height, capped at [`MAX_HEIGHT`], so later passes that walk the tree
//! recursively are safe too.
//!
//! Stack economy: the functions on the recursive path (`assignment`,
//! `binary`, `unary`, `postfix`, `primary`, `group`, `array`,
//! `call_suffix`, `index_suffix`) pass boxed nodes and leave node building
//! to small helpers, because in unoptimised builds every temporary of a
//! function occupies its frame for the whole recursion.
//!
//! Reference quirks kept on purpose: `not` binds tighter than comparison;
//! comparisons do not chain Python-style; assignment is a right-associative
//! expression whose target must be a name or an index; labeled arguments
//! only after positional ones; no trailing commas.

use super::error::{MAX_CHAIN, MAX_HEIGHT, PResult, ParseError, expect, fail, nest};
use super::input::Tok;
use super::input::Tokens;
use crate::ast::{
    BinOp, CONST_ARRAY_MIN, ConstItems, Expr, ExprKind, Ident, LabeledArg, LogicOp, UnaryOp,
};
use crate::span::Span;
use crate::token::{Literal, TokenKind as K};

/// A boxed expression and the height of its tree.
type Ex = (Box<Expr>, u32);

/// A committed error, as helpers return it.
type Fail = nom::Err<ParseError>;

/// `expr = assignment`, the entry point for statements.
pub(crate) fn expr(i: Tokens<'_>) -> PResult<'_, Expr> {
    let (i, (e, _)) = assignment(i)?;
    Ok((i, *e))
}

/// `expr`, with the height of its tree (for an f-string's pieces).
pub(super) fn expr_with_height(i: Tokens<'_>) -> PResult<'_, Ex> {
    assignment(i)
}

/// `assignment = target '=' assignment | logic_or`.
///
/// Read iteratively: the `=`-separated operands are collected first, then
/// folded from the right. That checks targets in the same order as the
/// reference's recursion (innermost first, each after its whole value has
/// been parsed), without using the Rust stack per `=`.
fn assignment(i: Tokens<'_>) -> PResult<'_, Ex> {
    let (mut i, first) = binary(i)?;
    if i.kind() != K::Eq {
        return Ok((i, first));
    }
    let mut targets: Vec<(Ex, Tok<'_>)> = Vec::new();
    let mut value = first;
    while i.kind() == K::Eq {
        let eq = i.peek();
        if targets.len() as u32 >= MAX_CHAIN {
            return Err(too_long(eq));
        }
        let (rest, next) = binary(i.skip(1))?;
        targets.push((value, eq));
        value = next;
        i = rest;
    }
    Ok((i, fold_assignments(targets, value)?))
}

/// Folds `t1 = t2 = … = value` from the right.
#[inline(never)]
fn fold_assignments(targets: Vec<(Ex, Tok<'_>)>, mut value: Ex) -> Result<Ex, Fail> {
    for (target, eq) in targets.into_iter().rev() {
        value = make_assign(target, value, eq)?;
    }
    Ok(value)
}

/// Builds `name = value` or `t[i] = value`, enforcing the target rules.
#[inline(never)]
fn make_assign((lhs, lh): Ex, (value, vh): Ex, eq: Tok<'_>) -> Result<Ex, Fail> {
    let height = 1 + lh.max(vh);
    if height > MAX_HEIGHT {
        return Err(too_long(eq));
    }
    let span = Span::new(lhs.span.start, value.span.end, eq.span.line);
    let kind = match lhs.kind {
        ExprKind::Name(name) => {
            if let ExprKind::Call { callee, .. } = &value.kind
                && matches!(&callee.kind, ExprKind::Name(n) if n == "inference")
            {
                return Err(nom::Err::Failure(ParseError::at(
                    format!(
                        "'{name} = inference(...)' needs the 'model' keyword to name it -- \
                         use 'model {name} = inference(...)' instead"
                    ),
                    eq,
                )));
            }
            let name = Ident {
                name,
                span: lhs.span,
            };
            ExprKind::Assign { name, value }
        }
        ExprKind::Index { target, index } => ExprKind::IndexAssign {
            target,
            index,
            value,
        },
        _ => {
            return Err(nom::Err::Failure(ParseError::at(
                "invalid assignment target",
                eq,
            )));
        }
    };
    Ok((Box::new(Expr { kind, span }), height))
}

/// An infix operator: what it builds.
#[derive(Clone, Copy)]
enum Infix {
    Logic(LogicOp),
    Bin(BinOp),
}

/// Binding powers, loosest first: `or`, `and`, equality, comparison,
/// additive, multiplicative. All are left-associative.
fn infix(kind: K) -> Option<(u8, Infix)> {
    Some(match kind {
        K::Or => (1, Infix::Logic(LogicOp::Or)),
        K::And => (2, Infix::Logic(LogicOp::And)),
        K::EqEq => (3, Infix::Bin(BinOp::Eq)),
        K::BangEq => (3, Infix::Bin(BinOp::Ne)),
        K::In => (4, Infix::Bin(BinOp::In)),
        K::Lt => (4, Infix::Bin(BinOp::Lt)),
        K::LtEq => (4, Infix::Bin(BinOp::Le)),
        K::Gt => (4, Infix::Bin(BinOp::Gt)),
        K::GtEq => (4, Infix::Bin(BinOp::Ge)),
        K::Plus => (5, Infix::Bin(BinOp::Add)),
        K::Minus => (5, Infix::Bin(BinOp::Sub)),
        K::Star => (6, Infix::Bin(BinOp::Mul)),
        K::Slash => (6, Infix::Bin(BinOp::Div)),
        K::Percent => (6, Infix::Bin(BinOp::Mod)),
        _ => return None,
    })
}

/// The infix operator at the start of `i` and how many tokens it takes:
/// one, or two for `not in` (comparison level, as `in`).
fn infix_at(i: &Tokens<'_>) -> Option<(u8, Infix, usize)> {
    if i.kind() == K::Not && i.peek_at(1).kind == K::In {
        return Some((4, Infix::Bin(BinOp::NotIn), 2));
    }
    infix(i.kind()).map(|(bp, op)| (bp, op, 1))
}

/// Pending operators of [`binary`]: binding power, operator, token.
type Ops<'a> = Vec<(u8, Infix, Tok<'a>)>;

/// `logic_or` down to `factor`: operands are `unary`s joined by infix
/// operators, folded left-associatively by binding power.
fn binary(i: Tokens<'_>) -> PResult<'_, Ex> {
    let (mut i, first) = unary(i)?;
    if infix_at(&i).is_none() {
        return Ok((i, first));
    }
    let mut operands: Vec<Ex> = vec![first];
    let mut ops: Ops<'_> = Vec::new();
    let mut count = 0;
    while let Some((bp, op, width)) = infix_at(&i) {
        count += 1;
        if count > MAX_CHAIN {
            return Err(too_long(i.peek()));
        }
        reduce_while(&mut operands, &mut ops, bp)?;
        ops.push((bp, op, i.peek()));
        let (rest, operand) = unary(i.skip(width))?;
        operands.push(operand);
        i = rest;
    }
    Ok((i, reduce_all(operands, ops)?))
}

/// Folds pending operators that bind at least as tightly as `bp`.
#[inline(never)]
fn reduce_while(operands: &mut Vec<Ex>, ops: &mut Ops<'_>, bp: u8) -> Result<(), Fail> {
    while ops.last().is_some_and(|&(top, _, _)| top >= bp) {
        reduce(operands, ops)?;
    }
    Ok(())
}

/// Folds every pending operator and returns the single remaining operand.
#[inline(never)]
fn reduce_all(mut operands: Vec<Ex>, mut ops: Ops<'_>) -> Result<Ex, Fail> {
    while !ops.is_empty() {
        reduce(&mut operands, &mut ops)?;
    }
    // `binary` always pushes one operand more than it pushes operators.
    operands.pop().ok_or_else(|| {
        let span = Span::default();
        nom::Err::Failure(ParseError::new("empty expression", span))
    })
}

/// Folds the top operator with the top two operands. The node reports the
/// operator token's line.
fn reduce(operands: &mut Vec<Ex>, ops: &mut Ops<'_>) -> Result<(), Fail> {
    let (Some((_, op, tok)), Some((rhs, rh)), Some((lhs, lh))) =
        (ops.pop(), operands.pop(), operands.pop())
    else {
        return Ok(());
    };
    let height = 1 + lh.max(rh);
    if height > MAX_HEIGHT {
        return Err(too_long(tok));
    }
    let span = Span::new(lhs.span.start, rhs.span.end, tok.span.line);
    let kind = match op {
        Infix::Logic(op) => ExprKind::Logic { op, lhs, rhs },
        Infix::Bin(op @ (BinOp::In | BinOp::NotIn)) => {
            push_membership(operands, op, lhs, rhs, height, span, tok);
            return Ok(());
        }
        Infix::Bin(op) => ExprKind::Binary { op, lhs, rhs },
    };
    operands.push((Box::new(Expr { kind, span }), height));
    Ok(())
}

/// Builds `lhs in rhs`. A `not` written right before the left operand
/// (no parentheses around `not x`) applies to the whole test, as in
/// Python: `not x in xs` is `not (x in xs)`. (`not` binds tighter than
/// the other comparisons, as in the reference; `in` is new, so it can
/// read the way Python programmers expect.)
#[inline(never)]
fn push_membership(
    operands: &mut Vec<Ex>,
    op: BinOp,
    lhs: Box<Expr>,
    rhs: Box<Expr>,
    height: u32,
    span: Span,
    tok: Tok<'_>,
) {
    let mut nots = Vec::new();
    let mut lhs = lhs;
    // Bounded: each step removes one `not` the parser already counted.
    loop {
        match lhs.kind {
            ExprKind::Unary {
                op: UnaryOp::Not,
                operand,
            } if lhs.span.end == operand.span.end => {
                nots.push(lhs.span);
                lhs = operand;
            }
            kind => {
                lhs = Box::new(Expr {
                    kind,
                    span: lhs.span,
                });
                break;
            }
        }
    }
    let start = lhs.span.start;
    let mut e = Box::new(Expr {
        kind: ExprKind::Binary { op, lhs, rhs },
        span: Span::new(start, span.end, tok.span.line),
    });
    for not in nots.into_iter().rev() {
        e = Box::new(Expr {
            kind: ExprKind::Unary {
                op: UnaryOp::Not,
                operand: e,
            },
            span: Span::new(not.start, span.end, not.line),
        });
    }
    operands.push((e, height));
}

fn too_long(at: Tok<'_>) -> Fail {
    nom::Err::Failure(ParseError::at(
        format!("expression too long (more than {MAX_CHAIN} operators in a chain)"),
        at,
    ))
}

/// Prefix operators read before an operand, each holding a nesting level.
type Prefixes<'a> = Vec<(UnaryOp, Tok<'a>, super::error::Nest<'a>)>;

/// `unary = ('not' | '-') unary | postfix`, read as a run of prefix
/// operators (each one a nesting level) followed by a postfix expression.
fn unary(i: Tokens<'_>) -> PResult<'_, Ex> {
    if !matches!(i.kind(), K::Not | K::Minus) {
        return postfix(i);
    }
    let (i, prefixes) = prefix_run(i)?;
    let (i, operand) = postfix(i)?;
    Ok((i, apply_prefixes(operand, prefixes)?))
}

#[inline(never)]
fn prefix_run(mut i: Tokens<'_>) -> PResult<'_, Prefixes<'_>> {
    let mut prefixes = Vec::new();
    loop {
        let op = match i.kind() {
            K::Not => UnaryOp::Not,
            K::Minus => UnaryOp::Neg,
            _ => return Ok((i, prefixes)),
        };
        let level = nest(&i, i.peek())?;
        prefixes.push((op, i.peek(), level));
        i = i.skip(1);
    }
}

/// Wraps the operand in its prefix operators, innermost last-read first.
#[inline(never)]
fn apply_prefixes((mut e, mut h): Ex, prefixes: Prefixes<'_>) -> Result<Ex, Fail> {
    for (op, tok, _level) in prefixes.into_iter().rev() {
        h += 1;
        if h > MAX_HEIGHT {
            return Err(too_long(tok));
        }
        let span = Span::new(tok.span.start, e.span.end, tok.span.line);
        e = Box::new(Expr {
            kind: ExprKind::Unary { op, operand: e },
            span,
        });
    }
    Ok((e, h))
}

/// `postfix = primary { '(' args ')' | '.' IDENT | '[' expr ']' }`.
fn postfix(i: Tokens<'_>) -> PResult<'_, Ex> {
    let (mut i, mut e) = primary(i)?;
    for count in 1.. {
        if count > MAX_CHAIN && matches!(i.kind(), K::LParen | K::LBracket | K::Dot) {
            return Err(too_long(i.peek()));
        }
        let step = match i.kind() {
            K::LParen => call_suffix(i, e)?,
            K::LBracket => index_suffix(i, e)?,
            K::Dot => member_suffix(i, e)?,
            _ => return Ok((i, e)),
        };
        (i, e) = step;
    }
    Ok((i, e))
}

/// Wraps `target` in a postfix node ending at `end`, reporting `line`.
#[inline(never)]
fn postfix_node(
    (target, th): Ex,
    sub: u32,
    at: Tok<'_>,
    end: u32,
    line: u32,
    make: impl FnOnce(Box<Expr>) -> ExprKind,
) -> Result<Ex, Fail> {
    let height = 1 + th.max(sub);
    if height > MAX_HEIGHT {
        return Err(too_long(at));
    }
    let span = Span::new(target.span.start, end, line);
    Ok((
        Box::new(Expr {
            kind: make(target),
            span,
        }),
        height,
    ))
}

/// `'.' IDENT`; the node reports the name's line.
#[inline(never)]
fn member_suffix<'a>(i: Tokens<'a>, target: Ex) -> PResult<'a, Ex> {
    let dot = i.peek();
    let (rest, name) = expect(K::Ident, "expected a property name after '.'")(i.skip(1))?;
    let name = ident(name);
    let (end, line) = (name.span.end, name.span.line);
    let e = postfix_node(target, 0, dot, end, line, |target| ExprKind::Member {
        target,
        name,
    })?;
    Ok((rest, e))
}

/// `'[' expr ']'`; the node reports the `[`'s line.
fn index_suffix<'a>(i: Tokens<'a>, target: Ex) -> PResult<'a, Ex> {
    let open = i.peek();
    let level = nest(&i, open)?;
    let (rest, (index, ih)) = assignment(i.skip(1))?;
    let (rest, close) = expect(K::RBracket, "expected ']' after the index")(rest)?;
    drop(level);
    let (end, line) = (close.span.end, open.span.line);
    let e = postfix_node(target, ih, open, end, line, |target| ExprKind::Index {
        target,
        index,
    })?;
    Ok((rest, e))
}

/// Positional and labeled arguments collected so far, with their height.
#[derive(Default)]
struct Args {
    args: Vec<Expr>,
    labeled: Vec<LabeledArg>,
    height: u32,
}

/// `'(' [ arg { ',' arg } ] ')'` where `arg = IDENT ':' expr | expr`,
/// labeled arguments last; the node reports the `(`'s line.
fn call_suffix<'a>(i: Tokens<'a>, callee: Ex) -> PResult<'a, Ex> {
    let open = i.peek();
    let level = nest(&i, open)?;
    let (i, args) = arg_list(i.skip(1), K::RParen, true)?;
    let (rest, close) = expect(K::RParen, "expected ')' after the arguments")(i)?;
    drop(level);
    let (end, line, sub) = (close.span.end, open.span.line, args.height);
    let e = postfix_node(callee, sub, open, end, line, |callee| ExprKind::Call {
        callee,
        args: args.args,
        labeled: args.labeled,
    })?;
    Ok((rest, e))
}

/// `[ arg { ',' arg } ]` up to a `closing` token, which is left for the
/// caller: a call's arguments, where `labels` lets `arg = IDENT ':' expr`
/// stand (after the positional ones), or an array's elements.
fn arg_list<'a>(mut i: Tokens<'a>, closing: K, labels: bool) -> PResult<'a, Args> {
    let mut args = Args::default();
    if i.check(closing) {
        return Ok((i, args));
    }
    loop {
        let label = if labels && i.check(K::Ident) && i.peek_at(1).kind == K::Colon {
            let label = i.peek();
            i = i.skip(2);
            Some(label)
        } else if !args.labeled.is_empty() {
            return fail(ParseError::at(
                "positional arguments must come before labeled ('name: value') ones",
                i.peek(),
            ));
        } else {
            None
        };
        let (rest, value) = assignment(i)?;
        push_arg(&mut args, label, value);
        if rest.kind() != K::Comma {
            return Ok((rest, args));
        }
        i = rest.skip(1);
    }
}

#[inline(never)]
fn push_arg(args: &mut Args, label: Option<Tok<'_>>, (value, h): Ex) {
    args.height = args.height.max(h);
    match label {
        Some(label) => args.labeled.push(LabeledArg {
            label: ident(label),
            value: *value,
        }),
        None => args.args.push(*value),
    }
}

/// `primary = INT | FLOAT | STRING | FSTRING | 'true' | 'false' | 'nil' | IDENT
///          | '(' expr ')' | '[' [ expr { ',' expr } ] ']'`.
fn primary(i: Tokens<'_>) -> PResult<'_, Ex> {
    match i.kind() {
        K::LParen => group(i),
        K::LBracket => array(i),
        K::FStr => super::fstring::fstring(i),
        K::LBrace => map(i),
        _ => leaf(i),
    }
}

/// `'{' [ expr ':' expr { ',' expr ':' expr } [','] ] '}'`; the node
/// reports the `{`'s line.
fn map(i: Tokens<'_>) -> PResult<'_, Ex> {
    let open = i.peek();
    let _level = nest(&i, open)?;
    let mut keys = Args::default();
    let mut values = Args::default();
    let mut i = i.skip(1);
    if !i.check(K::RBrace) {
        loop {
            let (rest, key) = assignment(i)?;
            let (rest, _) = expect(K::Colon, "expected ':' after the map key")(rest)?;
            let (rest, value) = assignment(rest)?;
            push_arg(&mut keys, None, key);
            push_arg(&mut values, None, value);
            i = rest;
            if i.kind() != K::Comma {
                break;
            }
            i = i.skip(1);
            // A trailing comma is allowed (a map written one entry a line).
            if i.check(K::RBrace) {
                break;
            }
        }
    }
    let (i, close) = expect(K::RBrace, "expected '}' after the map entries")(i)?;
    Ok((i, make_map(keys, values, open, close)?))
}

#[inline(never)]
fn make_map(keys: Args, values: Args, open: Tok<'_>, close: Tok<'_>) -> Result<Ex, Fail> {
    let height = keys.height.max(values.height) + 1;
    if height > MAX_HEIGHT {
        return Err(too_long(open));
    }
    let span = Span::new(open.span.start, close.span.end, open.span.line);
    let kind = ExprKind::Map(keys.args.into_iter().zip(values.args).collect());
    Ok((Box::new(Expr { kind, span }), height))
}

/// A literal or a name.
#[inline(never)]
fn leaf(i: Tokens<'_>) -> PResult<'_, Ex> {
    let t = i.peek();
    let kind = match (t.kind, t.literal()) {
        (K::Int, Literal::Int(v)) => ExprKind::Int(v),
        (K::Float, Literal::Float(v)) => ExprKind::Float(v),
        (K::Str, Literal::Str(s)) => ExprKind::Str(s),
        (K::True, _) => ExprKind::Bool(true),
        (K::False, _) => ExprKind::Bool(false),
        (K::Nil, _) => ExprKind::Nil,
        (K::Ident, _) => ExprKind::Name(t.lexeme().to_string()),
        _ => return fail(ParseError::unexpected(t)),
    };
    Ok((i.skip(1), (Box::new(Expr { kind, span: t.span }), 0)))
}

/// `'(' expr ')'`. Parentheses leave no node; the inner node's extent grows
/// to cover them but keeps the line the reference gives it.
fn group(i: Tokens<'_>) -> PResult<'_, Ex> {
    let open = i.peek();
    let _level = nest(&i, open)?;
    let (rest, (mut e, h)) = assignment(i.skip(1))?;
    let (rest, close) = expect(K::RParen, "expected ')' after the expression")(rest)?;
    e.span = Span::new(open.span.start, close.span.end, e.span.line);
    Ok((rest, (e, h)))
}

/// `'[' [ expr { ',' expr } ] ']'`; the node reports the `[`'s line.
fn array(i: Tokens<'_>) -> PResult<'_, Ex> {
    let open = i.peek();
    let _level = nest(&i, open)?;
    if let Some(done) = const_array(i) {
        return Ok(done);
    }
    let (i, items) = arg_list(i.skip(1), K::RBracket, false)?;
    let (i, close) = expect(K::RBracket, "expected ']' after the array elements")(i)?;
    Ok((i, make_array(items, open, close)?))
}

/// An array literal of at least [`CONST_ARRAY_MIN`] elements that are
/// each one INT, FLOAT or STRING token followed by `,` or `]`: one compact
/// node instead of a node an element (issue 27 item 2). `None` for any
/// other literal, which the plain parse then reads from its `[`: only
/// literal tokens were looked at, so nothing is parsed twice over.
#[inline(never)]
fn const_array(i: Tokens<'_>) -> Option<(Tokens<'_>, Ex)> {
    let open = i.peek();
    let mut items = ConstItems::default();
    let mut i = i.skip(1);
    loop {
        let t = i.peek();
        let next = i.peek_at(1);
        if next.kind != K::Comma && next.kind != K::RBracket {
            return None;
        }
        let line = t.span.line;
        match (t.kind, t.literal()) {
            (K::Int, Literal::Int(v)) => items.push_int(v, line),
            (K::Float, Literal::Float(v)) => items.push_float(v, line),
            (K::Str, Literal::Str(s)) => items.push_str(s, line),
            _ => return None,
        }
        i = i.skip(2);
        if next.kind == K::RBracket {
            if items.len() < CONST_ARRAY_MIN {
                return None;
            }
            let span = Span::new(open.span.start, next.span.end, open.span.line);
            let kind = ExprKind::ConstArray(Box::new(items));
            return Some((i, (Box::new(Expr { kind, span }), 1)));
        }
    }
}

#[inline(never)]
fn make_array(items: Args, open: Tok<'_>, close: Tok<'_>) -> Result<Ex, Fail> {
    let height = items.height + 1;
    if height > MAX_HEIGHT {
        return Err(too_long(open));
    }
    let span = Span::new(open.span.start, close.span.end, open.span.line);
    let kind = ExprKind::Array(items.args);
    Ok((Box::new(Expr { kind, span }), height))
}

/// An identifier node for a token.
pub(crate) fn ident(t: Tok<'_>) -> Ident {
    Ident {
        name: t.lexeme().to_string(),
        span: t.span,
    }
}
