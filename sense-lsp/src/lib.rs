//! Sense source analysis for editors, and `sense lsp`: a Language Server
//! over stdin/stdout.
//!
//! [`decls`] finds the names a program declares and where each is
//! visible; [`names`] lists the names the language provides and finds the
//! closest one to a typo. The `sense` command uses both for its "did you
//! mean" hints; [`serve`] runs the language server.
//!
//! ```
//! use sense_lsp::names::closest;
//! assert_eq!(closest("pirnt", ["print", "len"]), Some("print"));
//! ```
//!
//! Built on `lsp-server` (the message types and initialize/shutdown
//! handshake rust-analyzer uses: synchronous, no async runtime; its stdio
//! framing is replaced by its own `transport` module, which bounds message sizes) and
//! `lsp-types`. Documents are synchronised in full on every change and
//! re-parsed then: Sense files are small scripts and the parser is the
//! same one `sense run` uses, so incremental sync would add complexity for
//! no visible gain.
//!
//! Features: diagnostics as you type (the first lexer or parser error, at
//! the offending token; once the file parses, a warning with a "did you
//! mean" for each name nothing declares), hover (builtins' signatures and descriptions,
//! declared signatures and types of names), go to definition (functions,
//! agents, tools, actions, variables, parameters, imported modules and
//! their members), document symbols, completion (keywords, builtins,
//! names in scope, members of an imported module) and formatting (the
//! formatter behind `sense fmt`).

pub mod decls;
pub mod names;

mod builtin_docs;
mod checks;
mod document;
mod features;
mod infer;
pub mod members;
mod navigate;
mod references;
mod scan;
mod server;
mod signature;
mod transport;
mod undefined;

pub use server::serve;
