//! Durable human-in-the-loop workflows from the shell: `sense start`,
//! `sense resume` and `sense show` keep a paused agent in a state file
//! between separate processes.

use super::fail;
use super::output::Output;
use sense::agents::deadline;
use sense::agents::literal;
use sense::agents::stdlib as timer;
use sense::agents::{HostValue, Runtime, State};
use sense_server::state_file::{self, LockFailure, StateLock};
use sense_server::{state_path, state_text};
use std::path::Path;

/// Saves the runtime to `path` after every start or resume — paused,
/// completed or failed — so the file always says where the agent stands
/// and a finished agent is never resumed from a stale state. `held` is the
/// lock on the file taken before it was read (resume) — a start takes it
/// here, so a start never replaces a state a resume is working on.
fn report(
    rt: &Runtime,
    state: Result<State, sense::Error>,
    out: &Output,
    path: &Path,
    held: Option<StateLock>,
) -> i32 {
    let held = match held {
        Some(lock) => Some(lock),
        None => match StateLock::acquire(path) {
            Ok(lock) => Some(lock),
            Err(LockFailure::Missing) => None,
            Err(failure) => {
                out.flush();
                return lock_failed(path, failure);
            }
        },
    };
    let saved = rt
        .snapshot()
        .map_err(|e| e.rendered().to_string())
        .and_then(|bytes| {
            state_file::commit(path, &bytes, held.as_ref())
                .map(drop)
                .map_err(|e| format!("SenseError: cannot write {}: {e}", path.display()))
        });
    if let Err(msg) = saved {
        out.flush();
        eprintln!("{msg}");
        return 1;
    }
    match state {
        Ok(state) => {
            out.write(&state_text::outcome(rt, &state, PAUSED_LINE_LIMIT));
            out.flush();
            0
        }
        Err(e) => {
            super::output::report_error(out, rt, &e, None);
            1
        }
    }
}

/// Longest pause reason printed after `paused: ` (`sense show --full`
/// prints it whole).
const PAUSED_LINE_LIMIT: usize = 64 * 1024;

/// Longest value `sense show` prints without `--full`.
const SHOW_LIMIT: usize = 1000;

fn lock_failed(path: &Path, failure: LockFailure) -> i32 {
    match failure {
        LockFailure::InUse => fail(&format!(
            "{} is in use by another sense start or resume; nothing was changed (try again when it has finished)",
            path.display()
        )),
        LockFailure::Missing => fail(&format!("no such file or directory: {}", path.display())),
        LockFailure::Io(e) => fail(&format!("cannot lock {}: {e}", path.display())),
    }
}

/// `sense start FILE AGENT --state STATE`.
pub fn start(file: &Path, agent: &str, state: &Path, config: sense::Config) -> i32 {
    // Checked before the program runs: a state that cannot be written
    // must not cost a run's side effects.
    let state = match resolved(state) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let state = state.as_path();
    let out = Output::stdout();
    let mut rt = Runtime::with_config(config);
    out.install(&mut rt);
    sense_providers::register_defaults(&mut rt);
    if let Err(e) = rt.run_file(file) {
        super::output::report_error(&out, &rt, &e, None);
        return 1;
    }
    let id = match rt.agent(agent) {
        Ok(id) => id,
        Err(e) => {
            out.flush();
            return fail(e.display_text());
        }
    };
    rt.set_subject(Some(id));
    let result = rt.start(id);
    report(&rt, result, &out, state, None)
}

/// The path to use for STATE (the target of a link), or the exit status
/// of a refusal (a FIFO, a device, a directory…) printed before anything
/// runs or is written.
fn resolved(state: &Path) -> Result<std::path::PathBuf, i32> {
    state_path::resolve(state).map_err(|msg| fail(&msg))
}

fn read_state(state: &Path, limit: usize) -> Result<Vec<u8>, i32> {
    state_path::open_regular(state)
        .and_then(|file| state_path::read_bounded(&file, limit))
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                fail(&format!("no such file or directory: {}", state.display()))
            } else {
                fail(&format!("cannot read {}: {e}", state.display()))
            }
        })
}

fn restore(bytes: &[u8], out: &Output, config: sense::Config) -> Result<Runtime, i32> {
    let mut rt = Runtime::with_config(config);
    out.install(&mut rt);
    sense_providers::register_defaults(&mut rt);
    rt.restore_snapshot(bytes).map_err(|e| {
        eprintln!("{}", e.rendered());
        1
    })?;
    Ok(rt)
}

/// `sense resume STATE [VALUE]`.
pub fn resume(state: &Path, value: Option<&str>, config: sense::Config) -> i32 {
    let answered = value.is_some();
    let value = match value.map(literal::parse).transpose() {
        Ok(v) => v.unwrap_or(HostValue::Nil),
        Err(msg) => return fail(&msg),
    };
    let state = match resolved(state) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let state = state.as_path();
    // Held from before the read until the new state is in place: a
    // concurrent resume of the same file fails instead of losing an answer.
    let lock = match StateLock::acquire(state) {
        Ok(lock) => lock,
        Err(failure) => return lock_failed(state, failure),
    };
    let bytes = match lock.read(config.max_snapshot_len()) {
        Ok(b) => b,
        Err(e) => return fail(&format!("cannot read {}: {e}", state.display())),
    };
    let out = Output::stdout();
    let mut rt = match restore(&bytes, &out, config) {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let Some(id) = rt.subject() else {
        return fail(&format!(
            "{} does not record an agent to resume",
            state.display()
        ));
    };
    // A durable timer not yet due stays asleep: say when it will be.
    if let Some(due) = timer::timer_due(&rt, id) {
        let left = due - sense::eval::stdlib::unix_now();
        if left > 0.0 {
            return fail(&format!(
                "the agent is sleeping (time.sleep) until {} (due in {left:.1} s); resume it then",
                timer::utc_text(due)
            ));
        }
    }
    // A question whose deadline passed has had its answer: nil.
    if let Some(due) = deadline::ask_deadline(&rt, id)
        && answered
        && due <= sense::eval::stdlib::unix_now()
    {
        return fail(&format!(
            "the question's deadline passed at {}: the agent resumes with nil, so no answer is taken; run `sense resume {}` without a value",
            timer::utc_text(due),
            state.display()
        ));
    }
    let result = rt.resume(id, value);
    report(&rt, result, &out, state, Some(lock))
}

/// `sense fork STATE NEW_STATE`: the state, checked to restore, written
/// to a new owner-only file. The two go on separately: answering one
/// leaves the other where it was. A state file keeps only its newest
/// state, so this forks from where it stands (copy a state before a
/// resume to fork from that point later; `sense serve` keeps every
/// version and forks from any).
pub fn fork(state: &Path, new_state: &Path) -> i32 {
    let (state, new_state) = match (resolved(state), resolved(new_state)) {
        (Ok(s), Ok(n)) => (s, n),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    if new_state.exists() {
        return fail(&format!(
            "{} exists; sense fork writes a new state file (nothing was written)",
            new_state.display()
        ));
    }
    let config = sense::Config::default();
    let bytes = match read_state(&state, config.max_snapshot_len()) {
        Ok(b) => b,
        Err(code) => return code,
    };
    // Restored first, so a damaged state is refused rather than copied.
    let out = Output::stdout();
    if let Err(code) = restore(&bytes, &out, config) {
        return code;
    }
    match state_file::commit(&new_state, &bytes, None) {
        Ok(_) => {
            out.write(&format!("forked: {}\n", new_state.display()));
            out.flush();
            0
        }
        Err(e) => fail(&format!("cannot write {}: {e}", new_state.display())),
    }
}

/// `sense show STATE [--full]`.
pub fn show(state: &Path, full: bool) -> i32 {
    let out = Output::stdout();
    let state = match resolved(state) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let config = sense::Config::default();
    let bytes = match read_state(&state, config.max_snapshot_len()) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let rt = match restore(&bytes, &out, config) {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    out.write(&state_text::agents(
        &rt,
        if full { usize::MAX } else { SHOW_LIMIT },
    ));
    out.flush();
    0
}
