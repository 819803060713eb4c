//! The lexer. (Filled in by the lexer work.)
use crate::{SourceFile, SyntaxError};

/// Lexer output.
pub struct Lexed {
    /// Tokens.
    pub tokens: Vec<()>,
}

/// Tokenizes a file.
pub fn tokenize(_file: &SourceFile) -> Result<Lexed, SyntaxError> {
    Ok(Lexed { tokens: Vec::new() })
}
