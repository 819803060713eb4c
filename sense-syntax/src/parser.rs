//! The parser. (Filled in by the parser work.)
use crate::{SyntaxError, ast::Program};

/// Parses tokens.
pub fn parse(_tokens: &[()]) -> Result<Program, SyntaxError> {
    Ok(Program { stmts: Vec::new() })
}
