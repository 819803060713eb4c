//! Hints for mistakes people bring from other languages or make once:
//! `elif`, `True`/`False`/`None`, `//`, a string left open at the end of
//! its line, a name read after the block that created it, a call with the
//! wrong number of arguments, committing an action instance that was not
//! approved, an MCP command written with its arguments in one string.
//!
//! The runtime's message (the reference's words) is never changed; the CLI
//! prints the hint under the caret, as it does "did you mean".

use sense::syntax::ast::Program;
use sense_lsp::decls::{DeclKind, declarations};

/// What the CLI knows about the error besides its message: the source
/// text of the file it points at and the line and column of the caret.
pub struct Context<'a> {
    /// The source text the error points into, if it could be read.
    pub source: Option<&'a str>,
    /// The program, parsed from `source` on first use (most hints need
    /// only the message; a huge file is never parsed for nothing).
    pub program: &'a std::cell::OnceCell<Option<Program>>,
    /// 1-based line of the caret.
    pub line: u32,
}

impl Context<'_> {
    /// The parsed program, when the source parses.
    pub fn program(&self) -> Option<&Program> {
        self.program
            .get_or_init(|| {
                let text = self.source?;
                sense::syntax::parse_file(&sense::syntax::SourceFile::new("hint", text)).ok()
            })
            .as_ref()
    }

    /// The source line of the caret.
    fn caret_line(&self) -> Option<&str> {
        self.source?.lines().nth(self.line.checked_sub(1)? as usize)
    }
}

/// A hint for `message` (without its `[line N]` prefix), if it is one of
/// the known mistakes.
pub fn hint(message: &str, cx: &Context<'_>) -> Option<String> {
    if let Some(word) = message
        .strip_prefix("undefined variable '")
        .and_then(|r| r.strip_suffix('\''))
    {
        return other_language_word(word).or_else(|| out_of_block(word, cx));
    }
    if message.starts_with("unexpected token SLASH")
        && cx.caret_line().is_some_and(|l| l.contains("//"))
    {
        return Some(
            "Sense has no `//` operator: `int(a / b)` is the quotient rounded toward zero, \
             `a % b` the remainder"
                .into(),
        );
    }
    if message.starts_with("expected a new line after this statement")
        && cx
            .caret_line()
            .is_some_and(|l| l.trim_start().starts_with("elif "))
    {
        return Some("Sense writes `else if`, not `elif`".into());
    }
    if message == "unterminated string literal" {
        return Some(format!(
            "the string opened here, on line {}, is not closed on that line; a string \
             ends on the line it starts (triple quotes \"\"\"…\"\"\" span lines)",
            cx.line
        ));
    }
    if let Some(rest) = message.strip_prefix('\'')
        && let Some((name, counts)) = rest.split_once("' expects ")
        && counts.contains(" argument(s), got ")
    {
        return declared_signature(name, cx);
    }
    if message.contains("requires approval before commit()") {
        return approval(cx);
    }
    if message.contains("No such file or directory: '") {
        return mcp_command(message);
    }
    None
}

/// `True`, `False`, `None`, `null`: Sense's spelling.
fn other_language_word(word: &str) -> Option<String> {
    let sense = match word {
        "True" | "TRUE" => "true",
        "False" | "FALSE" => "false",
        "None" | "null" | "NULL" | "nullptr" | "undefined" => "nil",
        "elif" => "else if",
        _ => return None,
    };
    Some(format!("did you mean `{sense}`?"))
}

/// A name the file assigns or loops over inside a block that has ended
/// where it is read (§ block scope: a name first assigned inside a block,
/// or a loop iteration, disappears when it ends).
fn out_of_block(word: &str, cx: &Context<'_>) -> Option<String> {
    let program = cx.program()?;
    let source = cx.source?;
    let file = sense::syntax::SourceFile::new("hint", source);
    // Visible by scope where it is read (the same function, or the file)
    // yet undefined when it ran: the block that created it had ended.
    let used = file.line_start(cx.line)?;
    let decl = declarations(program).into_iter().find(|d| {
        d.name == word
            && d.kind == DeclKind::Variable
            && d.scope.is_none_or(|s| s.start <= used && used <= s.end)
            && file.line_col(d.name_span.start).0 < cx.line
    })?;
    let at = file.line_col(decl.name_span.start).0;
    if decl.detail.starts_with("for ") {
        return Some(format!(
            "`{word}` is the variable of the `for` loop on line {at}; it disappears when the loop \
             ends — assign it to a name created before the loop to keep it"
        ));
    }
    Some(format!(
        "`{word}` is first assigned on line {at}, inside a block; a name first assigned inside a \
         block disappears when the block ends — assign it before the block to keep it"
    ))
}

/// The signature of the function a wrong-arity call named.
fn declared_signature(name: &str, cx: &Context<'_>) -> Option<String> {
    if let Some(program) = cx.program()
        && let Some(d) = declarations(program)
            .into_iter()
            .find(|d| d.name == name && d.kind == DeclKind::Function)
    {
        return Some(format!("`{name}` is declared as `{}`", d.detail));
    }
    sense_lsp::names::builtin_signature(name).map(|sig| format!("`{name}` is called as `{sig}`"))
}

/// `t2.commit()` of an instance that was not approved: name the instance.
fn approval(cx: &Context<'_>) -> Option<String> {
    let line = cx.caret_line()?;
    let at = line.find(".commit(")?;
    let head = line.get(..at)?;
    let start = head
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let instance = head.get(start..).filter(|s| !s.is_empty())?;
    Some(format!(
        "approve the instance you commit: `{instance}.approve()` before `{instance}.commit()`"
    ))
}

/// An MCP server command that holds its arguments (`"npx -y pkg"`).
fn mcp_command(message: &str) -> Option<String> {
    let command = message
        .rsplit_once("No such file or directory: '")?
        .1
        .strip_suffix('\'')?;
    let mut words = command.split_whitespace();
    let program = words.next()?;
    let args: Vec<String> = words.map(|w| format!("\"{w}\"")).collect();
    if args.is_empty() {
        return None;
    }
    Some(format!(
        "the command and its arguments are separate: connect_mcp(name, \"{program}\", [{}])",
        args.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(source: &str, line: u32, message: &str) -> Option<String> {
        let program = std::cell::OnceCell::new();
        let cx = Context {
            source: Some(source),
            program: &program,
            line,
        };
        hint(message, &cx)
    }

    #[test]
    fn words_of_other_languages() {
        let h = with("print(True)\n", 1, "undefined variable 'True'");
        assert_eq!(h.as_deref(), Some("did you mean `true`?"));
        let h = with("print(None)\n", 1, "undefined variable 'None'");
        assert!(h.is_some_and(|h| h.contains("`nil`")));
        let h = with(
            "if x:\n    y = 1\nelif z:\n    y = 2\n",
            3,
            "expected a new line after this statement (got IDENT 'z')",
        );
        assert_eq!(h.as_deref(), Some("Sense writes `else if`, not `elif`"));
        let h = with("print(7 // 2)\n", 1, "unexpected token SLASH '/'");
        assert!(h.is_some_and(|h| h.contains("no `//` operator")));
        assert_eq!(
            with("print(7 / / 2)\n", 1, "unexpected token SLASH '/'"),
            None
        );
    }

    #[test]
    fn block_scope_and_arity() {
        let src = "for i in range(3):\n    last = i\nprint(i)\nprint(last)\n";
        let h = with(src, 3, "undefined variable 'i'").unwrap();
        assert!(h.contains("`for` loop on line 1"), "{h}");
        let h = with(src, 4, "undefined variable 'last'").unwrap();
        assert!(h.contains("line 2, inside a block"), "{h}");
        assert_eq!(with(src, 1, "undefined variable 'zzz'"), None);
        // A local of another function is not a block's.
        let src = "def outer():\n    def inner():\n        temp = 1\n    return temp\n";
        assert_eq!(with(src, 4, "undefined variable 'temp'"), None);
        let src = "def f(a, b):\n    return a\nprint(f(1))\n";
        let h = with(src, 3, "'f' expects 2 argument(s), got 1");
        assert_eq!(h.as_deref(), Some("`f` is declared as `def f(a, b)`"));
        let h = with("len(1, 2)\n", 1, "'len' expects 1 argument(s), got 2").unwrap();
        assert!(h.starts_with("`len` is called as `len(x)"), "{h}");
    }

    #[test]
    fn approval_and_mcp_commands() {
        let h = with(
            "t2 = transfer(5)\nt2.commit()\n",
            2,
            "action 'transfer' requires approval before commit() \u{2014} call transfer.approve() first",
        );
        assert_eq!(
            h.as_deref(),
            Some("approve the instance you commit: `t2.approve()` before `t2.commit()`")
        );
        let h = with(
            "",
            1,
            "connect_mcp() failed to connect to 'fs': FileNotFoundError: [Errno 2] No such file or directory: 'npx -y @x/server'",
        );
        assert_eq!(
            h.as_deref(),
            Some(
                "the command and its arguments are separate: connect_mcp(name, \"npx\", [\"-y\", \"@x/server\"])"
            )
        );
    }
}
