//! Tokens produced by the lexer. (Filled in by the lexer work.)
