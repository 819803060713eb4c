//! Parser unit tests. Every error message and every node's line are checked
//! against the reference in `tests/cases/*.cases`; these cover spans, the
//! AST fields the reference does not have, and token streams the lexer
//! never produces.

use super::*;
use crate::ast::{Else, Expr, ExprKind, Stmt, StmtKind};
use crate::source::SourceFile;

fn program(text: &str) -> Program {
    crate::parse_file(&SourceFile::new("t.sns", text)).expect("parses")
}

fn first(text: &str) -> Stmt {
    program(text)
        .stmts
        .into_iter()
        .next()
        .expect("one statement")
}

fn slice(text: &str, span: Span) -> &str {
    &text[span.start as usize..span.end as usize]
}

#[test]
fn statement_and_expression_spans_cover_their_text() {
    let text = "x = (1 +\n  2) * f(a)[0].b\n";
    let s = first(text);
    assert_eq!(slice(text, s.span), "x = (1 +\n  2) * f(a)[0].b");
    assert_eq!(s.span.line, 1);
    let StmtKind::Expr(e) = &s.kind else {
        panic!("expression statement")
    };
    let ExprKind::Assign { name, value } = &e.kind else {
        panic!("assignment")
    };
    assert_eq!(slice(text, name.span), "x");
    let ExprKind::Binary { lhs, rhs, .. } = &value.kind else {
        panic!("binary")
    };
    // The parenthesised operand keeps the `+` line but covers the parens.
    assert_eq!(slice(text, lhs.span), "(1 +\n  2)");
    assert_eq!(lhs.span.line, 1);
    assert_eq!(slice(text, rhs.span), "f(a)[0].b");
    assert_eq!(rhs.span.line, 2, "a member access reports its name's line");
}

#[test]
fn block_spans_and_inline_flags() {
    let text = "def f(a: Int) -> Int:\n    x = 1\n    return x\nif a: b\n";
    let p = program(text);
    let StmtKind::Def(d) = &p.stmts[0].kind else {
        panic!("def")
    };
    assert_eq!(
        slice(text, p.stmts[0].span),
        "def f(a: Int) -> Int:\n    x = 1\n    return x"
    );
    assert!(!d.body.inline);
    assert_eq!(slice(text, d.body.span), ":\n    x = 1\n    return x");
    assert_eq!(slice(text, d.params[0].name.span), "a");
    assert_eq!(d.ret.as_ref().map(|t| slice(text, t.span)), Some("Int"));
    let StmtKind::If { then, els, .. } = &p.stmts[1].kind else {
        panic!("if")
    };
    assert!(then.inline);
    assert_eq!(slice(text, then.span), ": b");
    assert!(els.is_none());
}

#[test]
fn generic_type_span() {
    let text = "x: Array<Array<Int>> = []\n";
    let StmtKind::TypedDecl { ty, .. } = first(text).kind else {
        panic!("typed")
    };
    assert_eq!(slice(text, ty.span), "Array<Array<Int>>");
    assert_eq!(slice(text, ty.params[0].span), "Array<Int>");
}

#[test]
fn import_paths_and_bare_flags() {
    let text = "import pkg.mod.sub as m\nimport python os.path\nimport \"x/y.sns\"\nfrom python \"m\" import a\n";
    let p = program(text);
    let got: Vec<(bool, String, bool, &str)> = p
        .stmts
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Import {
                python,
                path,
                bare,
                path_span,
                ..
            }
            | StmtKind::FromImport {
                python,
                path,
                bare,
                path_span,
                ..
            } => (*python, path.clone(), *bare, slice(text, *path_span)),
            _ => panic!("import"),
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (false, "pkg/mod/sub.sns".to_string(), true, "pkg.mod.sub"),
            (true, "os.path".to_string(), true, "os.path"),
            (false, "x/y.sns".to_string(), false, "\"x/y.sns\""),
            (true, "m".to_string(), false, "\"m\""),
        ]
    );
}

#[test]
fn async_and_persistent_statements_start_at_their_first_word() {
    let text = "async agent a: x\npersistent memory m\n";
    let p = program(text);
    assert_eq!(slice(text, p.stmts[0].span), "async agent a: x");
    assert_eq!(slice(text, p.stmts[1].span), "persistent memory m");
}

#[test]
fn action_fields() {
    let text = "reversible action d(v) requires approval, net.http:\n    x\nrollback: y\n";
    let StmtKind::Action(a) = first(text).kind else {
        panic!("action")
    };
    assert_eq!(a.capability.as_deref(), Some("net.http"));
    assert!(a.approval);
    assert!(a.rollback.as_ref().is_some_and(|b| b.inline));
    assert_eq!(a.kind.as_str(), "reversible");
}

#[test]
fn else_if_nests() {
    let s = first("if a: x\nelse if b: y\nelse: z\n");
    let StmtKind::If {
        els: Some(Else::If(inner)),
        ..
    } = &s.kind
    else {
        panic!("else if")
    };
    assert!(matches!(
        &inner.kind,
        StmtKind::If {
            els: Some(Else::Block(_)),
            ..
        }
    ));
}

/// The text the hand-made tokens of `token` point into.
const SRC: &str = "x if : policy allow";

fn token(kind: TokenKind, line: u32) -> Token {
    let at = |word: &str| {
        let start = SRC.find(word).expect("in SRC") as u32;
        Span::new(start, start + word.len() as u32, line)
    };
    let span = match kind {
        TokenKind::Ident => at("x"),
        TokenKind::If => at("if"),
        TokenKind::Colon => at(":"),
        TokenKind::Policy => at("policy"),
        TokenKind::Allow => at("allow"),
        _ => Span::new(0, 0, line),
    };
    Token { kind, span }
}

/// `HEADER: NEWLINE INDENT BODY NEWLINE EOF`, header on line 1 and body on
/// line 2: a block that runs into the end of the file without its DEDENT.
fn unclosed_block(header: &[TokenKind], body: &[TokenKind]) -> Vec<Token> {
    use TokenKind as K;
    let line_1 = header
        .iter()
        .chain(&[K::Colon, K::Newline])
        .map(|&k| token(k, 1));
    let line_2 = [K::Indent]
        .iter()
        .chain(body)
        .chain(&[K::Newline])
        .map(|&k| token(k, 2));
    line_1.chain(line_2).chain([token(K::Eof, 3)]).collect()
}

#[test]
fn streams_the_lexer_never_produces() {
    use TokenKind as K;
    assert_eq!(
        parse(SRC, &[]).expect("empty"),
        Program { stmts: Vec::new() }
    );
    // No EOF at the end: one is supplied.
    let no_eof = [token(K::Ident, 1), token(K::Newline, 1)];
    assert_eq!(parse(SRC, &no_eof).expect("parses").stmts.len(), 1);
    // A block that runs into EOF without its DEDENT.
    let e = parse(SRC, &unclosed_block(&[K::If, K::Ident], &[K::Ident])).expect_err("no dedent");
    assert_eq!(e.message, "expected the indented block to end (got EOF '')");
    assert_eq!(e.span.line, 3);
    let open_policy = unclosed_block(&[K::Policy], &[K::Allow, K::Ident]);
    let e = parse(SRC, &open_policy).expect_err("no dedent");
    assert_eq!(e.message, "expected the policy block to end (got EOF '')");
}

#[test]
fn limits_are_exported() {
    assert_eq!(MAX_NESTING, 200);
    assert_eq!(MAX_CHAIN, 1000);
    assert_eq!(MAX_EXPRESSION_HEIGHT, 1200);
}

/// The value of `x = …`, the first statement of `text`.
fn assigned(text: &str) -> Expr {
    let s = first(text);
    let StmtKind::Expr(e) = s.kind else {
        panic!("expression statement")
    };
    let ExprKind::Assign { value, .. } = e.kind else {
        panic!("assignment")
    };
    *value
}

/// `[0, 1, …]` of `n` INT literals, with `extra` as one more element when
/// given.
fn int_array(n: usize, extra: Option<&str>) -> String {
    let mut items: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    items.extend(extra.map(str::to_string));
    format!("x = [{}]\n", items.join(", "))
}

/// Issue 27 item 2: a long array literal of number and string tokens is
/// one compact node (whose elements read back as the plain nodes); any
/// other element, or fewer than `CONST_ARRAY_MIN` elements, keeps the
/// plain node, and a literal the plain parse refuses is refused the same.
#[test]
fn long_literal_arrays_of_constants_are_one_compact_node() {
    use crate::ast::CONST_ARRAY_MIN;
    let text = "x = [\n  1, 2.5,\n  \"s\"".to_string() + &", 7".repeat(40) + "]\n";
    let e = assigned(&text);
    let ExprKind::ConstArray(items) = &e.kind else {
        panic!("compact: {:?}", e.kind)
    };
    assert_eq!(items.len(), 43);
    assert_eq!(
        slice(&text, e.span),
        text.trim_end().trim_start_matches("x = ")
    );
    let plain: Vec<Expr> = items.exprs(e.span).collect();
    assert_eq!(plain[1].kind, ExprKind::Float(2.5));
    assert_eq!(plain[2].kind, ExprKind::Str("s".into()));
    assert_eq!(
        plain
            .iter()
            .map(|p| p.span.line)
            .take(3)
            .collect::<Vec<_>>(),
        [2, 2, 3]
    );
    for (text, why) in [
        (int_array(CONST_ARRAY_MIN - 1, None), "too short"),
        (int_array(CONST_ARRAY_MIN, Some("y")), "a name"),
        (int_array(CONST_ARRAY_MIN, Some("-1")), "a negative number"),
        (int_array(CONST_ARRAY_MIN, Some("1 + 1")), "an operation"),
        (int_array(CONST_ARRAY_MIN, Some("true")), "a Bool"),
    ] {
        let e = assigned(&text);
        let ExprKind::Array(items) = &e.kind else {
            panic!("{why}: {:?}", e.kind)
        };
        assert!(items.len() >= CONST_ARRAY_MIN - 1, "{why}");
    }
    assert!(matches!(
        assigned(&int_array(CONST_ARRAY_MIN, None)).kind,
        ExprKind::ConstArray(_)
    ));
    let trailing = int_array(CONST_ARRAY_MIN, None).replace("]", ", ]");
    let err = crate::parse_file(&SourceFile::new("t.sns", &trailing)).unwrap_err();
    assert!(
        err.message.starts_with("unexpected token"),
        "{}",
        err.message
    );
}
