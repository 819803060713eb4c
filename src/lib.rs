//! Sense: a scripting language for agents that pause and resume.
//!
//! This crate is the `sense` command-line tool and a facade over the
//! embedding API: [`Runtime`] runs programs and drives agents; the
//! underlying crates are re-exported for tools that need more.
//!
//! Run a program, drive its agent through `ask_human`, read a result:
//!
//! ```
//! use sense::agents::{HostValue, State};
//!
//! let mut rt = sense::Runtime::new();
//! rt.set_output(|_| {}); // discard `print`
//! rt.run_source(
//!     "main.sns",
//!     "agent greeter:\n    name = ask_human(\"name?\")\n    greeting = \"Hello, \" + name\n",
//! )?;
//! let greeter = rt.agent("greeter")?;
//! let State::Paused { reason, .. } = rt.start(greeter)? else {
//!     panic!("greeter should wait for its answer");
//! };
//! assert_eq!(reason, HostValue::Str("name?".into()));
//! assert_eq!(rt.resume(greeter, "Ada")?, State::Completed);
//! # Ok::<(), sense::Error>(())
//! ```
//!
//! The book (`docs/book`) describes the language and the embedding API.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use sense_agents as agents;
pub use sense_agents::{Config, Error, ErrorClass, Runtime};
pub use sense_eval as eval;
pub use sense_providers as providers;
pub use sense_syntax as syntax;
