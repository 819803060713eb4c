//! Sense's HTTP services and the state files they share with the CLI.
//!
//! - [`serve`]: durable agents as a service (`sense serve`): instances of
//!   a program's agents live in a store (SQLite or PostgreSQL), any
//!   process pointed at the same store answers any instance, and every
//!   answer is applied exactly once.
//! - [`inspect`]: a live local web console over one runtime (`sense
//!   inspect`).
//! - [`state_file`] and [`state_path`]: locked, atomically replaced state
//!   files (`sense start`/`resume`/`show` and `inspect --state`).
//!
//! Serving a program from a Rust host:
//!
//! ```no_run
//! use sense_server::serve::{ServeOptions, Service};
//!
//! let mut options = ServeOptions::new("examples/approval_workflow.sns");
//! options.port = 0; // any free port
//! let service = Service::bind(options)?;
//! println!("{}", service.banner());
//! service.run()?;
//! # Ok::<(), String>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod http;
pub mod inspect;
pub mod serve;
pub mod state_file;
pub mod state_path;
pub mod state_text;
