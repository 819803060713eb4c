//! `sense inspect`: a live local web console over a running program —
//! agents (answer paused ones, start created ones), tools, actions, the
//! audit log, memories and program output — served on 127.0.0.1 only.
//!
//! Each request is read and answered on a thread of its own
//! (`connection`); the runtime (which is not `Sync`) stays on the main
//! thread and handles one request's work at a time, each under a step
//! budget. The page is plain HTML and JavaScript embedded in the binary; it
//! polls `/api/state`.

mod api;
mod connection;
mod http;
mod json;

use super::LimitArgs;
use super::state_file::{self, LockFailure, StateLock};
use clap::Args;
use sense::agents::Runtime;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

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

/// Most program output kept for the console; older output is dropped.
const OUTPUT_LIMIT: usize = 1024 * 1024;

/// Program output captured for the console.
#[derive(Clone, Default)]
pub(crate) struct Captured(Arc<Mutex<(String, bool)>>);

impl Captured {
    fn push(&self, s: &str) {
        let mut g = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        g.0.push_str(s);
        if g.0.len() > OUTPUT_LIMIT {
            let mut cut = g.0.len() - OUTPUT_LIMIT / 2;
            while !g.0.is_char_boundary(cut) {
                cut += 1;
            }
            g.0.drain(..cut);
            g.1 = true;
        }
    }

    /// The text so far, and whether older text was dropped.
    pub(crate) fn get(&self) -> (String, bool) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Where the inspected runtime came from.
pub(crate) enum Source {
    /// `sense inspect FILE`.
    File(PathBuf),
    /// `sense inspect --state STATE`: written back after every change,
    /// and locked for the whole session (a `sense resume` of it meanwhile
    /// is refused rather than overwritten or overwriting).
    State(PathBuf, StateLock),
}

/// The console's state: the runtime and what the page shows about it.
pub(crate) struct Inspector {
    pub(crate) rt: Runtime,
    pub(crate) output: Captured,
    pub(crate) source: Source,
    pub(crate) dry_run: bool,
    /// The top level's error, if it failed (the console still serves what
    /// it declared before failing).
    pub(crate) program_error: Option<sense::Error>,
    /// Changes made through the console so far.
    pub(crate) changes: u64,
    /// The last failure to write the state file, if any.
    pub(crate) save_error: Option<String>,
}

impl Inspector {
    /// Writes the runtime back to the state file (`--state` mode).
    pub(crate) fn save(&mut self) {
        let Source::State(path, lock) = &mut self.source else {
            return;
        };
        let saved = self
            .rt
            .snapshot()
            .map_err(|e| e.rendered().to_string())
            .and_then(|bytes| {
                state_file::commit(path, &bytes, Some(lock))
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))
            });
        // The commit replaced the file; its lock now holds the new one.
        self.save_error = match saved {
            Ok(new_lock) => {
                *lock = new_lock;
                None
            }
            Err(e) => Some(e),
        };
        if let Some(e) = &self.save_error {
            eprintln!("SenseError: {e}");
        }
    }
}

fn fail(message: &str) -> i32 {
    eprintln!("SenseError: {message}");
    1
}

/// A runtime whose output goes to the console and whose `ask_human`
/// outside agents sees the end of input (nobody types at a terminal).
fn runtime(config: sense::Config, output: &Captured) -> Runtime {
    let mut rt = Runtime::with_config(config);
    sense_providers::register_defaults(&mut rt);
    let sink = output.clone();
    rt.set_output(move |s| sink.push(s));
    rt.set_input(|| None);
    rt
}

/// `sense inspect FILE | --state STATE [--port N] [--dry-run]`.
pub fn inspect(args: InspectArgs) -> i32 {
    let config = args.limits.config();
    let snapshot_limit = config.max_snapshot_len();
    let output = Captured::default();
    let mut rt = runtime(config, &output);
    rt.set_dry_run(args.dry_run);
    let mut program_error = None;
    let source = match (args.file, args.state) {
        (_, Some(state)) => {
            let state = match super::state_path::resolve(&state) {
                Ok(p) => p,
                Err(msg) => return fail(&msg),
            };
            let lock = match StateLock::acquire(&state) {
                Ok(lock) => lock,
                Err(LockFailure::Missing) => {
                    return fail(&format!("no such file or directory: {}", state.display()));
                }
                Err(LockFailure::InUse) => {
                    return fail(&format!(
                        "{} is in use by another sense start or resume",
                        state.display()
                    ));
                }
                Err(LockFailure::Io(e)) => {
                    return fail(&format!("cannot lock {}: {e}", state.display()));
                }
            };
            let bytes = match lock.read(snapshot_limit) {
                Ok(b) => b,
                Err(e) => return fail(&format!("cannot read {}: {e}", state.display())),
            };
            if let Err(e) = rt.restore_snapshot(&bytes) {
                eprintln!("{}", e.rendered());
                return 1;
            }
            Source::State(state, lock)
        }
        (Some(file), None) => {
            if !file.is_file() {
                return fail(&format!("no such file or directory: {}", file.display()));
            }
            if let Err(e) = rt.run_file(&file) {
                program_error = Some(e);
            }
            Source::File(file)
        }
        (None, None) => return fail("give a program FILE or --state STATE"),
    };
    let (jobs, work) = std::sync::mpsc::channel();
    let port = match connection::listen(args.port, jobs) {
        Ok(port) => port,
        Err(e) => return fail(&format!("cannot listen on 127.0.0.1:{}: {e}", args.port)),
    };
    let mut inspector = Inspector {
        rt,
        output,
        source,
        dry_run: args.dry_run,
        program_error,
        changes: 0,
        save_error: None,
    };
    println!("Sense inspector: http://127.0.0.1:{port}/ (Ctrl-C to stop)");
    if let Some(e) = &inspector.program_error {
        println!("(the program stopped with an error; the console shows it)");
        eprintln!("{}", e.rendered());
    }
    use std::io::Write;
    let _ = std::io::stdout().flush();
    for job in work {
        let connection::Job { route, body, reply } = job;
        let _ = reply.send(api::handle(&mut inspector, route, &body));
    }
    0
}
