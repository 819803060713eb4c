//! Formatter tests: one per rule of docs/book/src/cli.md § Formatting, plus the guarantees
//! (same tree, every comment kept, idempotent) over every golden case and
//! example of the repository.

use super::format_source;
use crate::SyntaxError;
use crate::ast::Program;
use crate::source::SourceFile;
use std::path::{Path, PathBuf};

fn fmt(text: &str) -> String {
    format_source(&SourceFile::new("t.sns", text)).expect("formats")
}

/// Formats `text`, checks the guarantees, and returns the output.
fn checked(text: &str) -> String {
    let out = fmt(text);
    if let Err(problem) = guarantees(text, &out) {
        panic!("{problem}\n--- input\n{text}--- output\n{out}---");
    }
    out
}

#[track_caller]
fn same(input: &str, expected: &str) {
    assert_eq!(checked(input), expected, "input:\n{input}");
}

#[track_caller]
fn stable(text: &str) {
    same(text, text);
}

// ---- span-insensitive tree comparison ------------------------------------

/// The tree's `Debug` text without anything the formatter may change:
/// positions (spans, and the lines of a compact constant array's
/// elements), whether a block was inline, whether an import path was
/// written bare.
fn shape(program: &Program) -> String {
    let mut debug = format!("{program:?}");
    while let Some(i) = debug.find("lines: [") {
        let close = debug[i..].find(']').map_or(debug.len(), |j| i + j + 1);
        debug.replace_range(i..close, "lines: _");
    }
    let mut out = String::with_capacity(debug.len());
    let mut rest = debug.as_str();
    while let Some(i) = rest.find("Span {") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let close = after.find('}').map_or(after.len(), |j| j + 1);
        out.push_str("Span");
        rest = &after[close..];
    }
    out.push_str(rest);
    out.replace("inline: true", "inline: _")
        .replace("inline: false", "inline: _")
        .replace("bare: true", "bare: _")
        .replace("bare: false", "bare: _")
}

fn parse(text: &str) -> Result<(Program, Vec<String>), SyntaxError> {
    let file = SourceFile::new("t.sns", text);
    let lexed = crate::lexer::tokenize(&file)?;
    let program = crate::parser::parse(file.text(), &lexed.tokens)?;
    let comments = lexed.comments.into_iter().map(|c| c.text).collect();
    Ok((program, comments))
}

/// The formatter's guarantees for one input that parses: the output
/// parses to the same tree, keeps every comment in order, ends with a
/// newline (or is empty), and formats to itself.
fn guarantees(input: &str, out: &str) -> Result<(), String> {
    let (before, comments_before) = parse(input).map_err(|e| format!("input: {e}"))?;
    let (after, comments_after) = parse(out).map_err(|e| format!("output does not parse: {e}"))?;
    if shape(&before) != shape(&after) {
        return Err(format!(
            "tree changed\n{}\n{}",
            shape(&before),
            shape(&after)
        ));
    }
    if comments_before != comments_after {
        return Err(format!(
            "comments changed: {comments_before:?} -> {comments_after:?}"
        ));
    }
    if !(out.is_empty() || out.ends_with('\n') && !out.ends_with("\n\n")) {
        return Err("output must end with exactly one newline".into());
    }
    let layout = without_strings(out);
    if layout.starts_with('\n') || layout.contains("\n\n\n") {
        return Err("blank lines at the start or in runs".into());
    }
    let again = format_source(&SourceFile::new("t.sns", out)).map_err(|e| e.to_string())?;
    if again != out {
        return Err(format!("not idempotent; second pass:\n{again}"));
    }
    Ok(())
}

/// `text` with every string literal replaced by `""` (so that line breaks
/// inside strings do not count as blank lines).
fn without_strings(text: &str) -> String {
    let file = SourceFile::new("t.sns", text);
    let Ok(lexed) = crate::lexer::tokenize(&file) else {
        return text.to_string();
    };
    let mut out = String::new();
    let mut at = 0;
    for t in &lexed.tokens {
        if t.kind == crate::token::TokenKind::Str {
            out.push_str(&file.text()[at..t.span.start as usize]);
            out.push_str("\"\"");
            at = t.span.end as usize;
        }
    }
    out.push_str(&file.text()[at..]);
    out
}

// ---- the corpus --------------------------------------------------------------

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for p in entries.flatten().map(|e| e.path()) {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "sns") {
            out.push(p);
        }
    }
}

/// Formats every file: one that does not parse must give the parser's
/// error; any other must keep its tree and comments and be idempotent.
/// Returns (formatted, syntax errors, failures).
fn check_files(files: &[PathBuf]) -> (usize, usize, Vec<String>) {
    let mut failures = Vec::new();
    let (mut formatted, mut errors) = (0, 0);
    for path in files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue; // not UTF-8: the CLI reports it before formatting
        };
        let file = SourceFile::new(path.display().to_string(), text);
        match (crate::parse_file(&file), format_source(&file)) {
            (Err(p), Err(f)) if p == f => errors += 1,
            (Err(p), r) => failures.push(format!("{}: parse {p}, fmt {r:?}", path.display())),
            (Ok(_), Err(e)) => failures.push(format!("{}: fmt failed: {e}", path.display())),
            (Ok(_), Ok(out)) => {
                formatted += 1;
                if let Err(problem) = guarantees(file.text(), &out) {
                    failures.push(format!("{}: {problem}", path.display()));
                }
            }
        }
    }
    (formatted, errors, failures)
}

/// Every golden case (fixtures included) and every example.
#[test]
fn corpus_keeps_trees_and_comments() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    collect(&root.join("tests/golden"), &mut files);
    collect(&root.join("examples"), &mut files);
    files.sort();
    assert!(
        files.len() > 100,
        "corpus not found under {}",
        root.display()
    );
    let (formatted, errors, failures) = check_files(&files);
    assert!(
        failures.is_empty(),
        "{} of {} files:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    assert!(formatted > 100 && errors > 10, "{formatted} / {errors}");
}

// ---- layout ------------------------------------------------------------------

#[test]
fn empty_programs_give_empty_text() {
    same("", "");
    same("\n\n\n", "");
    same("   \n", "");
}

#[test]
fn output_ends_with_one_newline() {
    same("x = 1", "x = 1\n");
    same("x = 1\n\n\n", "x = 1\n");
}

#[test]
fn indentation_is_four_spaces() {
    same(
        "def f(a):\n  if a:\n   return 1\n  return 2\n",
        "def f(a):\n    if a:\n        return 1\n    return 2\n",
    );
}

#[test]
fn inline_blocks_are_expanded() {
    same(
        "if a: print(1)\nelse: print(2)\n",
        "if a:\n    print(1)\nelse:\n    print(2)\n",
    );
    same(
        "if a: if b: print(1)\n",
        "if a:\n    if b:\n        print(1)\n",
    );
    same(
        "for i in range(3): print(i)\nwhile x: x = x - 1\ndef f(): return 1\n",
        "for i in range(3):\n    print(i)\nwhile x:\n    x = x - 1\ndef f():\n    return 1\n",
    );
}

#[test]
fn else_if_chains_are_kept() {
    stable("if a:\n    x\nelse if b:\n    y\nelse if c:\n    z\nelse:\n    w\n");
    same(
        "if a: x\nelse if b: y\nelse: z\n",
        "if a:\n    x\nelse if b:\n    y\nelse:\n    z\n",
    );
    // An `if` nested in an `else` block is not an `else if`.
    stable("if a:\n    x\nelse:\n    if b:\n        y\n");
}

#[test]
fn blank_lines_collapse_and_are_never_added() {
    same("a = 1\n\n\n\nb = 2\nc = 3\n", "a = 1\n\nb = 2\nc = 3\n");
    same("def f():\n    x\n\n\n    y\n", "def f():\n    x\n\n    y\n");
    stable("def f():\n    x\ndef g():\n    y\n");
}

#[test]
fn no_blank_line_before_else() {
    same(
        "if a:\n    x\n\nelse:\n    y\n",
        "if a:\n    x\nelse:\n    y\n",
    );
    same(
        "if a:\n    x\n\n\nelse if b:\n    y\n",
        "if a:\n    x\nelse if b:\n    y\n",
    );
}

// ---- expressions ---------------------------------------------------------------

#[test]
fn minimal_parentheses() {
    same("x = (1 + 2) * 3\n", "x = (1 + 2) * 3\n");
    same("x = 1 + (2 * 3)\n", "x = 1 + 2 * 3\n");
    same("x = (1 - 2) - 3\n", "x = 1 - 2 - 3\n");
    same("x = 1 - (2 - 3)\n", "x = 1 - (2 - 3)\n");
    same("x = (a or b) or c\n", "x = a or b or c\n");
    same("x = a or (b or c)\n", "x = a or (b or c)\n");
    same("x = (a and b) or c\n", "x = a and b or c\n");
    same("x = a and (b or c)\n", "x = a and (b or c)\n");
    same("x = ((a == b) == c)\n", "x = a == b == c\n");
    same("x = a == (b == c)\n", "x = a == (b == c)\n");
    same("x = (a < b) == (c < d)\n", "x = a < b == c < d\n");
    same("print((x))\n", "print(x)\n");
    same("(x) = 1\n", "x = 1\n");
}

#[test]
fn prefix_operators() {
    same("x = -(-5)\n", "x = - -5\n");
    same("x = --5\n", "x = - -5\n");
    same("x = -(a + b)\n", "x = -(a + b)\n");
    same("x = (-a) * b\n", "x = -a * b\n");
    same("x = -(a * b)\n", "x = -(a * b)\n");
    same("x = not (a == b)\n", "x = not (a == b)\n");
    same("x = (not a) == b\n", "x = not a == b\n");
    same("x = not not a\n", "x = not not a\n");
    same("x = -(not a)\n", "x = -not a\n");
    same("x = (-a)[0]\n", "x = (-a)[0]\n");
    same("x = (-a).b\n", "x = (-a).b\n");
}

#[test]
fn assignment_is_an_expression() {
    same("a = b = 0\n", "a = b = 0\n");
    same("print(x = 5)\n", "print(x = 5)\n");
    same("y = (x = 2) + 1\n", "y = (x = 2) + 1\n");
    same("xs[(i)] = (1 + 2)\n", "xs[i] = 1 + 2\n");
    same("f()[0] = m.xs[2] = 0\n", "f()[0] = m.xs[2] = 0\n");
    same("if (x = 3): print(x)\n", "if x = 3:\n    print(x)\n");
}

#[test]
fn postfix_calls_and_literals() {
    same(
        "f( 1 ,2, label : 3 , other:4)\n",
        "f(1, 2, label: 3, other: 4)\n",
    );
    same("f(label: 1)\n", "f(label: 1)\n");
    same("x = [ 1,2 , [ ] ]\n", "x = [1, 2, []]\n");
    same("x = (f)(1)(2).a[0]\n", "x = f(1)(2).a[0]\n");
    same("x = (a + b)(1)\n", "x = (a + b)(1)\n");
    same("x = 1.x\n", "x = 1.x\n");
    same("x = [true, false, nil]\n", "x = [true, false, nil]\n");
    same("f(1,\n  2,\n  3)\n", "f(1, 2, 3)\n");
}

#[test]
fn numbers_print_like_show_but_always_lex() {
    same("x = 007\n", "x = 7\n");
    same("x = 2.50\n", "x = 2.5\n");
    same("x = 10.000\n", "x = 10.0\n");
    same("x = 0.1\n", "x = 0.1\n");
    same("x = 1000000000000000.0\n", "x = 1000000000000000.0\n");
    // `show` would print 1e+16 and 1e-05, which do not lex.
    same("x = 10000000000000000.0\n", "x = 10000000000000000.0\n");
    same(
        "x = 150000000000000000000.00\n",
        "x = 150000000000000000000.0\n",
    );
    same("x = 0.00001\n", "x = 0.00001\n");
    same("x = 0.000000250\n", "x = 0.00000025\n");
    same("x = 9223372036854775807\n", "x = 9223372036854775807\n");
    // Digits beyond a double's precision are rounded to the shortest text
    // of the same value.
    same("x = 0.30000000000000000001\n", "x = 0.3\n");
}

#[test]
fn huge_float_literals_stay_infinite() {
    let text = format!("x = 1{}.0\n", "0".repeat(400));
    let out = checked(&text);
    assert_eq!(out, format!("x = 1{}.0\n", "0".repeat(309)));
}

#[test]
fn strings_are_reescaped() {
    same(r#"x = "a\"b\\c\td\re""#, "x = \"a\\\"b\\\\c\\td\\re\"\n");
    same(r#"x = "\a\{\0""#, "x = \"a{0\"\n");
    same("x = \"\"\"plain\"\"\"\n", "x = \"plain\"\n");
    same("x = \"\"\n", "x = \"\"\n");
    same("x = \"# not a comment\"\n", "x = \"# not a comment\"\n");
    same(
        "x = \"h\u{e9}llo \u{1F600}\"\n",
        "x = \"h\u{e9}llo \u{1F600}\"\n",
    );
}

#[test]
fn strings_with_newlines_are_triple_quoted() {
    same(r#"x = "a\nb""#, "x = \"\"\"a\nb\"\"\"\n");
    same("x = \"a\nb\"\n", "x = \"\"\"a\nb\"\"\"\n");
    same(
        "def f():\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n    return 1\n",
        "def f():\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n    return 1\n",
    );
    // Quotes that would close the literal early are escaped.
    same(
        r#"x = "say \"\"\"hi\"\"\"\n""#,
        "x = \"\"\"say \\\"\\\"\\\"hi\\\"\\\"\\\"\n\"\"\"\n",
    );
    same(r#"x = "a\n\"b\"""#, "x = \"\"\"a\n\"b\\\"\"\"\"\n");
    same(r#"x = "a\n\"\"""#, "x = \"\"\"a\n\\\"\\\"\"\"\"\n");
    same(r#"x = "\"\"a\n""#, "x = \"\"\"\"\"a\n\"\"\"\n");
    // Backslashes and carriage returns stay escapes.
    same(r#"x = "a\\n\nb\r""#, "x = \"\"\"a\\\\n\nb\\r\"\"\"\n");
}

#[test]
fn triple_quoted_strings_keep_their_value_at_any_indentation() {
    same(
        "if a:\n  x = \"\"\"one\n  two\n\"\"\"\n  print(x)\n",
        "if a:\n    x = \"\"\"one\n  two\n\"\"\"\n    print(x)\n",
    );
}

// ---- statements ------------------------------------------------------------------

#[test]
fn declarations() {
    same(
        "def  f( a :Int,b: Array< Array<Int> > )->Int :\n  return a\n",
        "def f(a: Int, b: Array<Array<Int>>) -> Int:\n    return a\n",
    );
    same("def f(): return\n", "def f():\n    return\n");
    same("x:Int=5\n", "x: Int = 5\n");
    same(
        "local y=1\nlocal z : String = \"s\"\n",
        "local y = 1\nlocal z: String = \"s\"\n",
    );
    same(
        "test \"math\": assert(1 == 1)\n",
        "test \"math\":\n    assert(1 == 1)\n",
    );
    stable("for v in [1, 2]:\n    if v == 2:\n        break\n    continue\n");
}

#[test]
fn import_paths_are_always_quoted() {
    same("import pkg.mod\n", "import \"pkg/mod.sns\"\n");
    same("import lib as l\n", "import \"lib.sns\" as l\n");
    same("import \"./x.sns\"\n", "import \"./x.sns\"\n");
    same("import python os.path\n", "import python \"os.path\"\n");
    same(
        "from pkg.mod import a,b as c\n",
        "from \"pkg/mod.sns\" import a, b as c\n",
    );
    same(
        "from python \"math\" import sqrt\n",
        "from python \"math\" import sqrt\n",
    );
}

#[test]
fn agent_layer_statements() {
    same("policy:\n    allow net.http\n", "policy: allow net.http\n");
    stable("policy:\n    allow net.http\n    deny fs.write\n");
    same(
        "reversible action a(x) requires approval, net.send: x\nrollback: y\n",
        "reversible action a(x) requires net.send, approval:\n    x\nrollback:\n    y\n",
    );
    stable("irreversible action b() requires approval:\n    x\n");
    stable("irreversible action b() requires fs.write:\n    x\n");
    same(
        "async tool t(q:String) returns String requires net.http \"Desc.\": return q\n",
        "async tool t(q: String) returns String requires net.http \"Desc.\":\n    return q\n",
    );
    stable("persistent memory m: \"notes.db\"\nmemory n\n");
    stable("set delegation = \"manual\"\nmodel m = inference(\"x\")\n");
    same(
        "session s: print(1)\nasync agent a: print(2)\nagent b:\n  print(3)\n",
        "session s:\n    print(1)\nasync agent a:\n    print(2)\nagent b:\n    print(3)\n",
    );
    stable("policy: allow if.else.test\n");
}

// ---- comments --------------------------------------------------------------------

#[test]
fn comments_are_normalised() {
    same("#note\nx = 1 #why\n", "# note\nx = 1  # why\n");
    same("#\nx = 1 #\n", "#\nx = 1  #\n");
    same("#   spaced   \nx = 1\n", "# spaced\nx = 1\n");
}

#[test]
fn standalone_comments_go_before_the_next_line_at_its_indentation() {
    same(
        "def f():\n# c1\n        # c2\n    return 1\n",
        "def f():\n    # c1\n    # c2\n    return 1\n",
    );
    same(
        "def f():\n    x\n    # end of f\ny\n",
        "def f():\n    x\n# end of f\ny\n",
    );
    same(
        "if a:\n    x\n    # before else\nelse:\n    y\n",
        "if a:\n    x\n# before else\nelse:\n    y\n",
    );
    same("x\n    # at the end\n", "x\n# at the end\n");
    same("# only a comment\n", "# only a comment\n");
}

#[test]
fn trailing_comments_stay_on_their_line() {
    stable("x = 1  # one\n");
    same(
        "if a:  # header\n    x  # body\nelse:   # other\n    y\n",
        "if a:  # header\n    x  # body\nelse:  # other\n    y\n",
    );
    same("if a: x  # c\n", "if a:\n    x  # c\n");
    same(
        "x = \"\"\"a\nb\"\"\"  # after\n",
        "x = \"\"\"a\nb\"\"\"  # after\n",
    );
    same(
        "policy:  # p\n    allow a  # a\n    deny b  # b\n",
        "policy:  # p\n    allow a  # a\n    deny b  # b\n",
    );
    same("policy:\n    allow a  # a\n", "policy: allow a  # a\n");
    same(
        "reversible action a():  # h\n    x\nrollback:  # r\n    y\n",
        "reversible action a():  # h\n    x\nrollback:  # r\n    y\n",
    );
}

#[test]
fn comments_inside_brackets_move_before_their_statement() {
    same(
        "x = [\n    1,  # one\n    # between\n    2  # two\n]  # after\n",
        "# one\n# between\n# two\nx = [1, 2]  # after\n",
    );
    same(
        "def f():\n    if g(1,  # a\n         2):  # b\n        y\n",
        "def f():\n    # a\n    if g(1, 2):  # b\n        y\n",
    );
}

#[test]
fn blank_lines_around_comments() {
    stable("x = 1\n\n# about y\ny = 2\n");
    stable("x = 1\n# about y\n\ny = 2\n");
    same(
        "a = 1\n\nx = [1,  # c\n  2]\n",
        "a = 1\n\n# c\nx = [1, 2]\n",
    );
}

#[test]
fn syntax_errors_are_returned() {
    let err = format_source(&SourceFile::new("t.sns", "x = (1\n")).unwrap_err();
    assert_eq!(
        err.message,
        "expected ')' after the expression (got NEWLINE '')"
    );
    let err = format_source(&SourceFile::new("t.sns", "while x {\n")).unwrap_err();
    assert!(err.message.starts_with("Sense uses indentation"));
}

#[test]
fn crlf_sources_format_like_lf() {
    same(
        "if a:\r\n    x  # c\r\n\r\n\r\ny\r\n",
        "if a:\n    x  # c\n\ny\n",
    );
}

#[test]
fn the_deepest_parsable_expressions_format() {
    let chain = vec!["1"; 1000].join(" + ");
    let text = format!(
        "x = {}{chain}{}\ny = {}1\nz = {}1\n",
        "(".repeat(199),
        ")".repeat(199),
        "not ".repeat(199),
        "-".repeat(199)
    );
    let out = checked(&text);
    assert!(out.starts_with(&format!("x = {chain}\ny = not not")));
    assert!(out.contains("z = - - -"));
}

#[test]
fn maps_and_membership_round_trip() {
    same(
        "m = {\"a\": 1, 2: [3], true: {}}\nprint(\"a\" in m, 1 not in m)\n",
        "m = {\"a\": 1, 2: [3], true: {}}\nprint(\"a\" in m, 1 not in m)\n",
    );
    // `not x in xs` is `not (x in xs)`; `(not x) in xs` keeps its parentheses.
    same("print(not a in b)\n", "print(not (a in b))\n");
    same("print((not a) in b)\n", "print((not a) in b)\n");
    same(
        "m = {\n    \"a\": 1,\n    \"b\": 2,\n}\n",
        "m = {\"a\": 1, \"b\": 2}\n",
    );
}
