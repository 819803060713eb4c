//! `sense inspect`: its arguments, and the wiring to
//! [`sense_server::inspect`].

use super::LimitArgs;
use clap::Args;
use sense_server::inspect::{Console, InspectOptions, OpenError};
use std::io::Write;
use std::path::PathBuf;

/// `sense inspect` arguments.
#[derive(Args)]
pub struct InspectArgs {
    /// The program to run and inspect (its top level runs first)
    #[arg(required_unless_present = "state", conflicts_with = "state")]
    file: Option<PathBuf>,
    /// Inspect the runtime saved in STATE (by `sense start`) instead, and
    /// write it back after every change
    #[arg(long, value_name = "STATE")]
    state: Option<PathBuf>,
    /// The port to listen on (127.0.0.1 only); 0 picks a free one
    #[arg(long, value_name = "N", default_value_t = 4300)]
    port: u16,
    /// Check every action but commit nothing
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    limits: LimitArgs,
}

/// `sense inspect FILE | --state STATE [--port N] [--dry-run]`.
pub fn inspect(args: InspectArgs) -> i32 {
    let options = InspectOptions {
        file: args.file,
        state: args.state,
        port: args.port,
        dry_run: args.dry_run,
        config: args.limits.config(),
    };
    let console = match Console::open(options) {
        Ok(c) => c,
        Err(OpenError::Message(e)) => return super::fail(&e),
        Err(OpenError::Snapshot(e)) => {
            eprintln!("{}", e.rendered());
            return 1;
        }
    };
    println!(
        "Sense inspector: http://127.0.0.1:{}/ (Ctrl-C to stop)",
        console.port()
    );
    if let Some(e) = console.program_error() {
        println!("(the program stopped with an error; the console shows it)");
        eprintln!("{}", e.rendered());
    }
    let _ = std::io::stdout().flush();
    console.run();
    0
}
