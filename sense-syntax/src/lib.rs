//! Lexing and parsing of Sense source text.
//!
//! The pipeline is `SourceFile` → [`lexer::tokenize`] (tokens with layout
//! already resolved into NEWLINE/INDENT/DEDENT) → [`parser::parse`] (an
//! [`ast::Program`] whose nodes carry spans). The whole file is parsed before
//! anything runs; the first error stops both phases, exactly as the reference
//! implementation does, and comes back as a [`SyntaxError`] carrying the
//! reference's message and the position of the offending token.
//!
//! This crate knows nothing about evaluation.
// Lints (no unsafe, docs on every public item, no unwrap/expect/
// indexing/panic in library code) come from the workspace `[lints]` table.

pub mod ast;
pub mod diagnostic;
pub mod dump;
pub mod format;
pub mod lexer;
pub mod parser;
pub mod source;
pub mod span;
pub mod token;
pub mod walk;

/// The version of the Sense language this implementation follows (the
/// reference's release whose behaviour it matches). The crates' own
/// version is Cargo's; the CLI, the REPL and the language server report
/// both from these two places.
pub const LANGUAGE_VERSION: &str = "0.20.0";

pub use diagnostic::render_diagnostic;
pub use source::SourceFile;
pub use span::Span;

use std::fmt;

/// A lexer or parser error: the message (as the reference words it) and
/// where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// Message without the `[line N]` prefix, e.g.
    /// `expected ':' to start a block (got NEWLINE '')`.
    pub message: String,
    /// The offending token; `span.line` is the line reported.
    pub span: Span,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[line {}] {}", self.span.line, self.message)
    }
}

impl std::error::Error for SyntaxError {}

/// Lexes and parses a whole file.
pub fn parse_file(file: &SourceFile) -> Result<ast::Program, SyntaxError> {
    let lexed = lexer::tokenize(file)?;
    parser::parse(file.text(), &lexed.tokens)
}

/// Sources up to this size (64 KiB) are parsed once, whole, by
/// [`parse_file_each`]: their tree is small (a few MB at most), and one
/// pass saves the second parse.
pub const ONE_PASS_MAX: usize = 64 * 1024;

/// Lexes and parses a whole file, then hands its top-level statements to
/// `each` one at a time, in order. For a source over [`ONE_PASS_MAX`] the
/// whole tree never exists at once (a huge file costs its tokens plus one
/// statement's tree; issue 18).
///
/// Nothing reaches `each` unless the whole file parses, and the error is
/// the one [`parse_file`] returns: a large file is parsed once to find its
/// first error, each statement dropped as soon as it is built, and only
/// then again for `each`.
pub fn parse_file_each(
    file: &SourceFile,
    mut each: impl FnMut(ast::Stmt),
) -> Result<(), SyntaxError> {
    let lexed = lexer::tokenize(file)?;
    if file.text().len() <= ONE_PASS_MAX {
        let program = parser::parse(file.text(), &lexed.tokens)?;
        drop(lexed);
        program.stmts.into_iter().for_each(each);
        return Ok(());
    }
    parser::parse_each(file.text(), &lexed.tokens, drop)?;
    parser::parse_each(file.text(), &lexed.tokens, &mut each)
}
