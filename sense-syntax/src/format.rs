//! The canonical formatter behind `sense fmt` (docs/book/src/cli.md § Formatting).
//!
//! [`format_source`] lexes and parses a file, then prints the tree back:
//!
//! * 4-space indentation; inline blocks (`if x: y`) are expanded onto
//!   their own lines; `else if` chains stay chains.
//! * Minimal parentheses by precedence: a child is parenthesised only when
//!   it binds more loosely than its position requires, and the right
//!   operand of a left-associative operator keeps them at the same level
//!   (`1 - (2 - 3)`). Nested prefix minus is printed `- -5`.
//! * Strings are re-escaped (`\\ \" \t \r`); a value containing a newline
//!   is printed as `"""…"""` with real line breaks.
//! * Numbers print as `show` prints them (docs/book/src/values.md § Printing), except that a
//!   float is always written in fixed notation (`10000000000000000.0`,
//!   `0.00001`), because Sense has no exponent syntax.
//! * Import paths are always quoted (`import a.b` becomes
//!   `import "a/b.sns"`); `from … import` is printed the same way.
//! * A single-rule `policy:` is written inline; `requires` lists the
//!   capability before `approval`.
//! * Every comment is kept: a comment on its own line goes before the next
//!   line printed, at that line's indentation; a trailing comment stays at
//!   the end of its line as `␠␠# text`; a comment inside a bracketed
//!   expression that spans lines goes before its statement. `#text` is
//!   normalised to `# text`.
//! * Blank lines: one where the source had at least one, none added, never
//!   one before `else`.
//! * The output ends with a newline; an empty program gives `""`.
//!
//! The result parses to the same tree (up to positions), and formatting it
//! again changes nothing.

mod expr;
mod fstring;
mod printer;

use crate::SyntaxError;
use crate::source::SourceFile;

/// Formats a whole file into canonical Sense text.
///
/// Returns the file's first lexer or parser error, exactly as
/// [`crate::parse_file`] would, if it does not parse.
pub fn format_source(file: &SourceFile) -> Result<String, SyntaxError> {
    let lexed = crate::lexer::tokenize(file)?;
    let program = crate::parser::parse(file.text(), &lexed.tokens)?;
    Ok(printer::Printer::new(file, &lexed).program(&program))
}

/// A Sense string literal whose value is `value`, written as the formatter
/// writes strings (double quotes; triple quotes for a value with a
/// newline).
pub fn string_literal(value: &str) -> String {
    expr::string_literal(value)
}

#[cfg(test)]
mod tests;
