use super::*;

#[test]
fn repr_matches_python() {
    // Expected values printed by Python 3.11's repr().
    let cases = [
        ("@", "'@'"),
        ("'", "\"'\""),
        ("\\", "'\\\\'"),
        ("\x0c", "'\\x0c'"),
        ("\u{2028}", "'\\u2028'"),
        ("\"abc\"", "'\"abc\"'"),
        ("it's", "\"it's\""),
        ("a\"b'c", "'a\"b\\'c'"),
        ("\x7f", "'\\x7f'"),
        ("\u{a0}", "'\\xa0'"),
        ("\u{ad}", "'\\xad'"),
        ("é", "'é'"),
        ("😀", "'😀'"),
        ("\u{e0001}", "'\\U000e0001'"),
        ("\u{feff}", "'\\ufeff'"),
        ("a\nb\tc\r", "'a\\nb\\tc\\r'"),
        ("\0", "'\\x00'"),
        ("\u{378}", "'\\u0378'"),
        ("", "''"),
    ];
    for (text, want) in cases {
        assert_eq!(py_repr(text), want, "repr of {text:?}");
    }
}

#[test]
fn keywords_are_38_and_named_in_upper_case() {
    assert_eq!(KEYWORDS.len(), 38);
    for (word, kind) in KEYWORDS {
        assert_eq!(TokenKind::keyword(word), Some(kind));
        assert_eq!(kind.name(), word.to_uppercase());
        assert!(kind.is_keyword());
    }
    assert_eq!(TokenKind::keyword("elif"), None);
    assert_eq!(TokenKind::keyword("rollback"), None);
    assert!(!TokenKind::Ident.is_keyword());
    assert_eq!(TokenKind::Str.name(), "STRING");
    assert_eq!(TokenKind::BangEq.name(), "BANGEQ");
}

#[test]
fn tokens_stay_small() {
    // Huge sources hold one token per couple of bytes (issue 18): a token
    // is its kind and span, its text read back from the source.
    assert_eq!(std::mem::size_of::<Token>(), 16);
    let src = "say(\"a\\tb\")";
    let t = Token {
        kind: TokenKind::Str,
        span: Span::new(4, 10, 1),
    };
    assert_eq!(t.lexeme(src), "\"a\\tb\"");
    assert_eq!(t.literal(src), Literal::Str("a\tb".into()));
    assert_eq!(t.describe(src), "STRING '\"a\\\\tb\"'");
}
