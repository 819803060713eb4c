//! Sense: a scripting language for agents that pause and resume.
//!
//! This crate is the `sense` command-line tool and a facade over the
//! embedding API: [`Runtime`] runs programs and drives agents; the
//! underlying crates are re-exported for tools that need more.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use sense_agents as agents;
pub use sense_agents::{Config, Error, ErrorClass, Runtime};
pub use sense_eval as eval;
pub use sense_providers as providers;
pub use sense_syntax as syntax;
