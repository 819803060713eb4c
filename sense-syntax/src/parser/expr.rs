//! Expressions (LANGUAGE.md §2.3–§2.4).
//!
//! Binary operators are parsed by precedence climbing with explicit
//! operand/operator stacks, so a long chain costs heap, not Rust stack.
//! Everything that does recurse (brackets, prefix operators, assignment)
//! takes a nesting level first. Each parsed expression travels with its tree
//! height, which is capped at [`MAX_CHAIN`] so later passes that walk the
//! tree recursively are safe too.
//!
//! Reference quirks kept on purpose: `not` binds tighter than comparison;
//! comparisons do not chain Python-style; assignment is a right-associative
//! expression whose target must be a name or an index; labeled arguments
//! only after positional ones; no trailing commas.

use super::error::{MAX_CHAIN, PResult, ParseError, expect, fail, nest};
use super::input::Tokens;
use crate::ast::{BinOp, Expr, ExprKind, LabeledArg, LogicOp, UnaryOp};
use crate::span::Span;
use crate::token::{Literal, Token, TokenKind as K};

/// An expression and the height of its tree.
type Ex = (Expr, u32);

/// `expr = assignment`, the entry point for statements.
pub(crate) fn expr(i: Tokens<'_>) -> PResult<'_, Expr> {
    let (i, (e, _)) = assignment(i)?;
    Ok((i, e))
}

/// `assignment = target '=' assignment | logic_or`.
///
/// The value is parsed before the target is checked, so an error inside
/// the value wins, as in the reference.
fn assignment(i: Tokens<'_>) -> PResult<'_, Ex> {
    let (i, (lhs, lh)) = binary(i)?;
    if i.kind() != K::Eq {
        return Ok((i, (lhs, lh)));
    }
    let eq = i.peek();
    let _level = nest(&i, eq)?;
    let (i, (value, vh)) = assignment(i.skip(1))?;
    let height = 1 + lh.max(vh);
    if height > MAX_CHAIN {
        return fail(too_long(eq));
    }
    let span = Span::new(lhs.span.start, value.span.end, eq.span.line);
    let kind = match lhs.kind {
        ExprKind::Name(name) => {
            if let ExprKind::Call { callee, .. } = &value.kind
                && matches!(&callee.kind, ExprKind::Name(n) if n == "inference")
            {
                return fail(ParseError::at(
                    format!(
                        "'{name} = inference(...)' needs the 'model' keyword to name it -- \
                         use 'model {name} = inference(...)' instead"
                    ),
                    eq,
                ));
            }
            ExprKind::Assign {
                name: crate::ast::Ident {
                    name,
                    span: lhs.span,
                },
                value: Box::new(value),
            }
        }
        ExprKind::Index { target, index } => ExprKind::IndexAssign {
            target,
            index,
            value: Box::new(value),
        },
        _ => return fail(ParseError::at("invalid assignment target", eq)),
    };
    Ok((i, (Expr { kind, span }, height)))
}

/// An infix operator: binding power and what it builds.
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

/// `logic_or` down to `factor`: operands are `unary`s joined by infix
/// operators, folded left-associatively by binding power.
fn binary(i: Tokens<'_>) -> PResult<'_, Ex> {
    let (mut i, first) = unary(i)?;
    let mut operands: Vec<Ex> = vec![first];
    let mut ops: Vec<(u8, Infix, &Token)> = Vec::new();
    while let Some((bp, op)) = infix(i.kind()) {
        while ops.last().is_some_and(|&(top, _, _)| top >= bp) {
            reduce(&mut operands, &mut ops)?;
        }
        ops.push((bp, op, i.peek()));
        let (rest, operand) = unary(i.skip(1))?;
        operands.push(operand);
        i = rest;
    }
    while !ops.is_empty() {
        reduce(&mut operands, &mut ops)?;
    }
    match operands.pop() {
        Some(e) => Ok((i, e)),
        None => fail(ParseError::unexpected(i.peek())),
    }
}

/// Folds the top operator with the top two operands. The node reports the
/// operator token's line.
fn reduce(
    operands: &mut Vec<Ex>,
    ops: &mut Vec<(u8, Infix, &Token)>,
) -> Result<(), nom::Err<ParseError>> {
    let (Some((_, op, tok)), Some((rhs, rh)), Some((lhs, lh))) =
        (ops.pop(), operands.pop(), operands.pop())
    else {
        return Ok(());
    };
    let height = 1 + lh.max(rh);
    if height > MAX_CHAIN {
        return Err(nom::Err::Failure(too_long(tok)));
    }
    let span = Span::new(lhs.span.start, rhs.span.end, tok.span.line);
    let (lhs, rhs) = (Box::new(lhs), Box::new(rhs));
    let kind = match op {
        Infix::Logic(op) => ExprKind::Logic { op, lhs, rhs },
        Infix::Bin(op) => ExprKind::Binary { op, lhs, rhs },
    };
    operands.push((Expr { kind, span }, height));
    Ok(())
}

fn too_long(at: &Token) -> ParseError {
    ParseError::at(
        format!("expression too long (more than {MAX_CHAIN} operators in a chain)"),
        at,
    )
}

/// `unary = ('not' | '-') unary | postfix`, read as a run of prefix
/// operators (each one a nesting level) followed by a postfix expression.
fn unary(mut i: Tokens<'_>) -> PResult<'_, Ex> {
    let mut prefixes: Vec<(UnaryOp, &Token)> = Vec::new();
    let mut levels = Vec::new();
    loop {
        let op = match i.kind() {
            K::Not => UnaryOp::Not,
            K::Minus => UnaryOp::Neg,
            _ => break,
        };
        levels.push(nest(&i, i.peek())?);
        prefixes.push((op, i.peek()));
        i = i.skip(1);
    }
    let (i, (mut e, mut h)) = postfix(i)?;
    for (op, tok) in prefixes.into_iter().rev() {
        h += 1;
        if h > MAX_CHAIN {
            return fail(too_long(tok));
        }
        let span = Span::new(tok.span.start, e.span.end, tok.span.line);
        e = Expr {
            kind: ExprKind::Unary {
                op,
                operand: Box::new(e),
            },
            span,
        };
    }
    Ok((i, (e, h)))
}

/// `postfix = primary { '(' args ')' | '.' IDENT | '[' expr ']' }`.
fn postfix(i: Tokens<'_>) -> PResult<'_, Ex> {
    let (mut i, (mut e, mut h)) = primary(i)?;
    loop {
        let open = i.peek();
        let (rest, kind, end, line, sub) = match open.kind {
            K::LParen => {
                let level = nest(&i, open)?;
                let (rest, (args, labeled, sub)) = call_args(i.skip(1))?;
                let (rest, close) = expect(K::RParen, "expected ')' after the arguments")(rest)?;
                drop(level);
                let kind = ExprKind::Call {
                    callee: Box::new(e),
                    args,
                    labeled,
                };
                (rest, kind, close.span.end, open.span.line, sub)
            }
            K::Dot => {
                let (rest, name) =
                    expect(K::Ident, "expected a property name after '.'")(i.skip(1))?;
                let kind = ExprKind::Member {
                    target: Box::new(e),
                    name: ident(name),
                };
                (rest, kind, name.span.end, name.span.line, 0)
            }
            K::LBracket => {
                let level = nest(&i, open)?;
                let (rest, (index, ih)) = assignment(i.skip(1))?;
                let (rest, close) = expect(K::RBracket, "expected ']' after the index")(rest)?;
                drop(level);
                let kind = ExprKind::Index {
                    target: Box::new(e),
                    index: Box::new(index),
                };
                (rest, kind, close.span.end, open.span.line, ih)
            }
            _ => break,
        };
        h = 1 + h.max(sub);
        if h > MAX_CHAIN {
            return fail(too_long(open));
        }
        let start = match &kind {
            ExprKind::Call { callee: t, .. }
            | ExprKind::Member { target: t, .. }
            | ExprKind::Index { target: t, .. } => t.span.start,
            _ => open.span.start,
        };
        e = Expr {
            kind,
            span: Span::new(start, end, line),
        };
        i = rest;
    }
    Ok((i, (e, h)))
}

/// Call arguments up to (not including) `)`: `arg { ',' arg }` where
/// `arg = IDENT ':' expr | expr`, labeled ones last.
fn call_args(mut i: Tokens<'_>) -> PResult<'_, (Vec<Expr>, Vec<LabeledArg>, u32)> {
    let mut args = Vec::new();
    let mut labeled = Vec::new();
    let mut height = 0;
    if i.check(K::RParen) {
        return Ok((i, (args, labeled, height)));
    }
    loop {
        if i.check(K::Ident) && i.peek_at(1).kind == K::Colon {
            let label = ident(i.peek());
            let (rest, (value, h)) = assignment(i.skip(2))?;
            height = height.max(h);
            labeled.push(LabeledArg { label, value });
            i = rest;
        } else if !labeled.is_empty() {
            return fail(ParseError::at(
                "positional arguments must come before labeled ('name: value') ones",
                i.peek(),
            ));
        } else {
            let (rest, (value, h)) = assignment(i)?;
            height = height.max(h);
            args.push(value);
            i = rest;
        }
        if i.kind() != K::Comma {
            break;
        }
        i = i.skip(1);
    }
    Ok((i, (args, labeled, height)))
}

/// `primary = INT | FLOAT | STRING | 'true' | 'false' | 'nil' | IDENT
///          | '(' expr ')' | '[' [ expr { ',' expr } ] ']'`.
fn primary(i: Tokens<'_>) -> PResult<'_, Ex> {
    let t = i.peek();
    let leaf = |kind| Ok((i.skip(1), (Expr { kind, span: t.span }, 0)));
    match (t.kind, &t.literal) {
        (K::Int, Literal::Int(v)) => leaf(ExprKind::Int(*v)),
        (K::Float, Literal::Float(v)) => leaf(ExprKind::Float(*v)),
        (K::Str, Literal::Str(s)) => leaf(ExprKind::Str(s.clone())),
        (K::True, _) => leaf(ExprKind::Bool(true)),
        (K::False, _) => leaf(ExprKind::Bool(false)),
        (K::Nil, _) => leaf(ExprKind::Nil),
        (K::Ident, _) => leaf(ExprKind::Name(t.lexeme.clone())),
        (K::LParen, _) => {
            let _level = nest(&i, t)?;
            let (rest, (mut e, h)) = assignment(i.skip(1))?;
            let (rest, close) = expect(K::RParen, "expected ')' after the expression")(rest)?;
            // Parentheses leave no node; the inner node's extent grows to
            // cover them but keeps the line the reference gives it.
            e.span = Span::new(t.span.start, close.span.end, e.span.line);
            Ok((rest, (e, h)))
        }
        (K::LBracket, _) => {
            let _level = nest(&i, t)?;
            array(i.skip(1), t)
        }
        _ => fail(ParseError::unexpected(t)),
    }
}

/// The rest of an array literal after `[`.
fn array<'a>(mut i: Tokens<'a>, open: &Token) -> PResult<'a, Ex> {
    let mut elements = Vec::new();
    let mut height = 0;
    if !i.check(K::RBracket) {
        loop {
            let (rest, (e, h)) = assignment(i)?;
            elements.push(e);
            height = height.max(h);
            i = rest;
            if i.kind() != K::Comma {
                break;
            }
            i = i.skip(1);
        }
    }
    let (i, close) = expect(K::RBracket, "expected ']' after the array elements")(i)?;
    let height = height + 1;
    if height > MAX_CHAIN {
        return fail(too_long(open));
    }
    let span = Span::new(open.span.start, close.span.end, open.span.line);
    Ok((
        i,
        (
            Expr {
                kind: ExprKind::Array(elements),
                span,
            },
            height,
        ),
    ))
}

/// An identifier node for a token.
pub(crate) fn ident(t: &Token) -> crate::ast::Ident {
    crate::ast::Ident {
        name: t.lexeme.clone(),
        span: t.span,
    }
}
