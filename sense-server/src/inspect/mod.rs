//! `sense inspect`: a live local web console over a running program —
//! agents (answer paused ones, start created ones), tools, actions, the
//! audit log, memories and program output — served on 127.0.0.1 only.
//!
//! Requests are read and answered on the shared HTTP stack
//! (`http`, see `jobs`); the runtime (which is not `Sync`) stays
//! on the thread that calls [`Console::run`] and handles one request's
//! work at a time, each under a step budget. The page is plain HTML and JavaScript embedded in the binary; it
//! polls `/api/state`.

mod api;
mod jobs;
mod json;

use crate::state_file::{self, LockFailure, StateLock};
use sense_agents::{Config, Runtime};
use std::path::PathBuf;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex, PoisonError};

/// What the console inspects and how: `sense inspect`'s arguments.
#[derive(Clone, Debug, Default)]
pub struct InspectOptions {
    /// The program to run and inspect (its top level runs first).
    pub file: Option<PathBuf>,
    /// Inspect the runtime saved in this state file instead, and write it
    /// back after every change.
    pub state: Option<PathBuf>,
    /// The port to listen on (127.0.0.1 only); 0 picks a free one.
    pub port: u16,
    /// Check every action but commit nothing.
    pub dry_run: bool,
    /// Limits for the inspected runtime.
    pub config: Config,
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
    pub(crate) program_error: Option<sense_agents::Error>,
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

/// A runtime whose output goes to the console and whose `ask_human`
/// outside agents sees the end of input (nobody types at a terminal).
fn runtime(config: sense_agents::Config, output: &Captured) -> Runtime {
    let mut rt = Runtime::with_config(config);
    sense_providers::register_defaults(&mut rt);
    let sink = output.clone();
    rt.set_output(move |s| sink.push(s));
    rt.set_input(|| None);
    rt
}

/// Why a console could not open.
#[derive(Debug)]
pub enum OpenError {
    /// A sentence for the user: a missing file, a locked state, a port.
    Message(String),
    /// The state file's snapshot was refused (its rendered error says why).
    Snapshot(sense_agents::Error),
}

impl From<String> for OpenError {
    fn from(message: String) -> OpenError {
        OpenError::Message(message)
    }
}

impl From<&str> for OpenError {
    fn from(message: &str) -> OpenError {
        OpenError::Message(message.to_string())
    }
}

/// A console with its runtime loaded and its port bound:
/// [`Console::run`] answers the page's requests until the process ends.
pub struct Console {
    inspector: Inspector,
    work: Receiver<jobs::Job>,
    port: u16,
}

impl Console {
    /// Runs the program's top level (or restores and locks the state
    /// file) and binds the port. An error is a sentence for the user; a
    /// failing top level is not an error (see [`Console::program_error`]).
    pub fn open(options: InspectOptions) -> Result<Console, OpenError> {
        let InspectOptions {
            file,
            state,
            port,
            dry_run,
            config,
        } = options;
        let snapshot_limit = config.max_snapshot_len();
        let output = Captured::default();
        let mut rt = runtime(config, &output);
        rt.set_dry_run(dry_run);
        let mut program_error = None;
        let source = match (file, state) {
            (_, Some(state)) => {
                let state = crate::state_path::resolve(&state)?;
                let lock = match StateLock::acquire(&state) {
                    Ok(lock) => lock,
                    Err(LockFailure::Missing) => {
                        return Err(
                            format!("no such file or directory: {}", state.display()).into()
                        );
                    }
                    Err(LockFailure::InUse) => {
                        return Err(format!(
                            "{} is in use by another sense start or resume",
                            state.display()
                        )
                        .into());
                    }
                    Err(LockFailure::Io(e)) => {
                        return Err(format!("cannot lock {}: {e}", state.display()).into());
                    }
                };
                let bytes = lock
                    .read(snapshot_limit)
                    .map_err(|e| format!("cannot read {}: {e}", state.display()))?;
                rt.restore_snapshot(&bytes).map_err(OpenError::Snapshot)?;
                Source::State(state, lock)
            }
            (Some(file), None) => {
                if !file.is_file() {
                    return Err(format!("no such file or directory: {}", file.display()).into());
                }
                if let Err(e) = rt.run_file(&file) {
                    program_error = Some(e);
                }
                Source::File(file)
            }
            (None, None) => return Err("give a program FILE or --state STATE".into()),
        };
        let (jobs, work) = std::sync::mpsc::channel();
        let port = jobs::listen(port, jobs)
            .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
        let inspector = Inspector {
            rt,
            output,
            source,
            dry_run,
            program_error,
            changes: 0,
            save_error: None,
        };
        Ok(Console {
            inspector,
            work,
            port,
        })
    }

    /// The port the console listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The top level's error, if the program failed before the console
    /// opened (the console still serves what it declared).
    pub fn program_error(&self) -> Option<&sense_agents::Error> {
        self.inspector.program_error.as_ref()
    }

    /// Answers the page's requests until the process ends.
    pub fn run(mut self) {
        for job in self.work {
            let jobs::Job { route, body, reply } = job;
            let _ = reply.send(api::handle(&mut self.inspector, route, &body));
        }
    }
}
