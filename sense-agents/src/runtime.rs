//! [`Runtime`]: one Sense program and its agents, driven by a host.

use crate::embed::ValueRef;
use crate::error::Error;
use crate::handle::{AgentId, PauseHandle};
use crate::{AgentStatus, PauseKind};
use sense_eval::heap::ScopeRef;
use sense_eval::object::Obj;
use sense_eval::task::{SuspendCause, Task, TaskStatus};
use sense_eval::vm::{Exit, TestResult};
use sense_eval::{Config, EvalError, HostReturn, HostValue, Value, Vm};
use sense_syntax::SourceFile;
use std::path::{Path, PathBuf};

/// Where an agent stands after `start` or `resume` returned.
///
/// # Examples
///
/// ```
/// use sense_agents::{HostValue, PauseKind, Runtime, State};
///
/// let mut rt = Runtime::new();
/// rt.set_output(|_| {});
/// rt.run_source("m.sns", "agent a:\n    n = ask_human(\"how many?\")\n    print(n)\n")?;
/// let a = rt.agent("a")?;
/// match rt.start(a)? {
///     State::Paused { reason, kind } => {
///         assert_eq!(kind, PauseKind::AskHuman);
///         assert_eq!(reason, HostValue::from("how many?"));
///     }
///     State::Completed => panic!("it asks first"),
/// }
/// assert_eq!(rt.resume(a, 3)?, State::Completed);
/// # Ok::<(), sense_agents::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum State {
    /// It paused: why (`pause_kind`) and with what reason.
    Paused {
        /// The reason given to `pause`, the question of `ask_human`, …
        reason: HostValue,
        /// What kind of pause it is.
        kind: PauseKind,
    },
    /// Its body finished.
    Completed,
}

/// How far a checkpointed run got (see [`Runtime::run_file_checkpointed`]).
///
/// # Examples
///
/// A program whose main code starts an agent that pauses stops there (a
/// checkpoint: the moment to take a snapshot), then runs on.
///
/// ```
/// use sense_agents::{Progress, Runtime};
/// use std::sync::{Arc, Mutex};
///
/// let dir = std::env::temp_dir().join(format!("sense-progress-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let file = dir.join("main.sns");
/// std::fs::write(&file, "agent a:\n    pause(\"wait\")\nstart(a)\nprint(\"after\")\n").unwrap();
///
/// let out = Arc::new(Mutex::new(String::new()));
/// let sink = out.clone();
/// let mut rt = Runtime::new();
/// rt.set_output(move |s| sink.lock().unwrap().push_str(s));
/// assert_eq!(rt.run_file_checkpointed(&file)?, Progress::Checkpoint);
/// assert_eq!(*out.lock().unwrap(), "", "stopped before the print");
/// let _saved = rt.snapshot()?; // the whole runtime, between two instructions
/// assert_eq!(rt.continue_run()?, Progress::Finished);
/// assert_eq!(*out.lock().unwrap(), "after\n");
/// std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), sense_agents::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// The program ran to its end.
    Finished,
    /// Stopped at a checkpoint; [`Runtime::continue_run`] goes on.
    Checkpoint,
}

/// A Sense runtime: one global scope, one module cache, its agents.
///
/// ```
/// let mut rt = sense_agents::Runtime::new();
/// let out = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
/// let sink = out.clone();
/// rt.set_output(move |s| sink.lock().unwrap().push_str(s));
/// rt.run_source("main.sns", "print(1 + 2)").unwrap();
/// assert_eq!(*out.lock().unwrap(), "3\n");
/// ```
pub struct Runtime {
    vm: Vm,
    pub(crate) main_env: Option<ScopeRef>,
    pub(crate) subject: Option<AgentId>,
    /// Programs run since unused code was last released.
    runs_since_release: u32,
    /// Globals a host set before any code ran, bound again after a
    /// snapshot is restored (which replaces the main scope they were in).
    pub(crate) preset_globals: Vec<(String, HostValue)>,
    /// Values the host holds (see `held.rs`): id → the held cell.
    pub(crate) held: std::collections::HashMap<u64, sense_eval::heap::ObjRef>,
    /// The last id given to a held value.
    pub(crate) next_held: u64,
}

/// How many programs run between two releases of unused code (each one
/// collects garbage, so it is amortised over several runs).
const RELEASE_EVERY: u32 = 32;

impl Default for Runtime {
    fn default() -> Self {
        Self::new()
    }
}

impl Runtime {
    /// A runtime with default limits; output to stdout, input from stdin.
    pub fn new() -> Self {
        Self::with_config(Config::default())
    }

    /// A runtime with the given limits and switches.
    pub fn with_config(config: Config) -> Self {
        let mut vm = Vm::new(config);
        crate::kinds::install(&mut vm);
        Runtime {
            vm,
            main_env: None,
            subject: None,
            runs_since_release: 0,
            preset_globals: Vec::new(),
            held: std::collections::HashMap::new(),
            next_held: 0,
        }
    }

    /// Sends program output (`print`, `ask_human` prompts) to `f`.
    pub fn set_output(&mut self, f: impl FnMut(&str) + Send + 'static) {
        self.vm.set_output(Box::new(f));
    }

    /// Reads lines for `ask_human` outside agents from `f` (`None` = end of input).
    pub fn set_input(&mut self, f: impl FnMut() -> Option<String> + Send + 'static) {
        self.vm.set_input(Box::new(f));
    }

    /// Limits and switches.
    pub fn config_mut(&mut self) -> &mut Config {
        self.vm.config_mut()
    }

    /// Runs `text` as a main program. `name` labels it in diagnostics;
    /// imports resolve against the working directory (a program read from
    /// a file runs with [`Runtime::run_file_text`] instead, so that they
    /// resolve against its directory). Every program run on
    /// one runtime shares one top-level scope, so later programs see the
    /// agents and variables of earlier ones. The code of programs nothing
    /// refers to any more is released every few runs (see
    /// [`Runtime::release_unused_code`]).
    pub fn run_source(&mut self, name: &str, text: &str) -> Result<(), Error> {
        self.run_main(SourceFile::new(name, text), None)
    }

    /// Reads and runs a file as the main program; imports resolve against
    /// its directory.
    pub fn run_file(&mut self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        let text = read_source(path)?;
        self.run_file_text(path, &text)
    }

    /// Runs `text` as the main program read earlier from `path` (which is
    /// not read again): exactly as [`Runtime::run_file`] would run that
    /// file, so `path` names it in diagnostics and its imports resolve
    /// against its directory, whatever the working directory. For hosts
    /// that read a program once and run it many times (`sense serve`).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("sense-doc-run-file-text-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("helper.sns"), "def greet(n):\n    return \"hi \" + n\n").unwrap();
    /// let mut rt = sense_agents::Runtime::new();
    /// rt.set_output(|_| {});
    /// // The program's text is not read from its path: only its directory counts.
    /// rt.run_file_text(dir.join("prog.sns"), "import helper\nx = helper.greet(\"Ada\")\n").unwrap();
    /// assert_eq!(rt.global("x"), Some(sense_agents::HostValue::Str("hi Ada".into())));
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn run_file_text(&mut self, path: impl AsRef<Path>, text: &str) -> Result<(), Error> {
        let path = path.as_ref();
        let dir = absolute_dir(path);
        self.run_main(SourceFile::new(path.display().to_string(), text), dir)
    }

    fn run_main(&mut self, source: SourceFile, dir: Option<PathBuf>) -> Result<(), Error> {
        let env = self.main_scope();
        let r = self
            .vm
            .run_main(source, dir, Some(env))
            .map(|(_, exit)| exit);
        let r = self.finish_checkpoints(r).map(|_| ());
        self.ran_program();
        r
    }

    /// Counts a finished top-level run and, every [`RELEASE_EVERY`] runs,
    /// releases the code nothing refers to any more.
    fn ran_program(&mut self) {
        self.runs_since_release += 1;
        if self.runs_since_release >= RELEASE_EVERY {
            self.release_unused_code();
        }
    }

    /// Frees the compiled code and source text of earlier programs that
    /// nothing refers to any more — no function, agent, tool or action
    /// they defined is still reachable — and collects garbage. Every
    /// program run on a runtime adds code; this runs by itself every few
    /// runs, so a host that runs many snippets stays within a fixed
    /// footprint. Call it directly to trim before a snapshot. Returns the
    /// number of programs whose code was released.
    ///
    /// ```
    /// let mut rt = sense_agents::Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source("defs.sns", "def twice(x):\n    return 2 * x\n").unwrap();
    /// for i in 0..10 {
    ///     rt.run_source("snippet.sns", &format!("y = twice({i})")).unwrap();
    /// }
    /// // The ten snippets go; `twice` is still reachable, so its code stays.
    /// assert_eq!(rt.release_unused_code(), 10);
    /// rt.run_source("more.sns", "z = twice(21)").unwrap();
    /// assert_eq!(rt.global("z"), Some(sense_agents::HostValue::Int(42)));
    /// ```
    pub fn release_unused_code(&mut self) -> usize {
        self.runs_since_release = 0;
        self.vm.release_unused_code()
    }

    /// Runs through any checkpoints (when `checkpoint_on_pause` is set but
    /// the caller did not ask to stop at them).
    fn finish_checkpoints(&mut self, mut r: Result<Exit, EvalError>) -> Result<Exit, Error> {
        while let Ok(Exit::Checkpoint) = r {
            r = self.vm.continue_run();
        }
        r.map_err(|e| self.error(&e))
    }

    /// Runs a file like [`Runtime::run_file`], but stops at every
    /// checkpoint: each time an agent that Sense code started or resumed
    /// pauses, the whole runtime is between two instructions and can be
    /// [snapshotted](Runtime::snapshot). [`Runtime::continue_run`] goes on.
    pub fn run_file_checkpointed(&mut self, path: impl AsRef<Path>) -> Result<Progress, Error> {
        let path = path.as_ref();
        let text = read_source(path)?;
        let dir = absolute_dir(path);
        self.vm.config_mut().checkpoint_on_pause = true;
        let env = self.main_scope();
        let r = self
            .vm
            .run_main(
                SourceFile::new(path.display().to_string(), text),
                dir,
                Some(env),
            )
            .map(|(_, exit)| exit);
        self.progress(r)
    }

    /// Continues a run stopped at a checkpoint.
    pub fn continue_run(&mut self) -> Result<Progress, Error> {
        let r = self.vm.continue_run();
        self.progress(r)
    }

    fn progress(&mut self, r: Result<Exit, EvalError>) -> Result<Progress, Error> {
        match r {
            Ok(Exit::Checkpoint) => Ok(Progress::Checkpoint),
            Ok(_) => Ok(Progress::Finished),
            Err(e) => Err(self.error(&e)),
        }
    }

    /// The shared top-level scope, created (and pinned) on first use.
    pub(crate) fn main_scope(&mut self) -> ScopeRef {
        match self.main_env {
            Some(env) => env,
            None => {
                let env = self.vm.new_module_scope();
                self.vm.pin_scope(env);
                self.main_env = Some(env);
                env
            }
        }
    }

    /// Runs one REPL input in the persistent REPL scope.
    pub fn eval_repl(&mut self, text: &str) -> Result<(), Error> {
        let r = self.run_repl_input(text, false)?.map(|_| ());
        self.ran_program();
        r
    }

    /// Compiles REPL input `text` (with `echo`, so that a final
    /// expression statement leaves its value) and runs it in the REPL
    /// scope: the run's outcome, or the compile error.
    fn run_repl_input(&mut self, text: &str, echo: bool) -> Result<Result<Exit, Error>, Error> {
        let env = self.main_scope();
        let file = self.vm.add_file(SourceFile::new("<repl>", text), None);
        let proto = if echo {
            self.vm.compile_echo_file(file, "<repl>")
        } else {
            self.vm.compile_file(file, "<repl>")
        };
        let proto = proto.map_err(|e| self.error(&e))?;
        let r = self.vm.run_top_level(proto, env);
        Ok(self.finish_checkpoints(r))
    }

    /// Runs one interactive REPL input like [`eval_repl`](Self::eval_repl)
    /// and returns how its value reads when the input ends with an
    /// expression statement (not an assignment) whose value is not nil:
    /// `print` text, except that a string is shown as a Sense literal
    /// (`"hi"`).
    pub fn eval_repl_echo(&mut self, text: &str) -> Result<Option<String>, Error> {
        let r = self.run_repl_input(text, true)?;
        let value = self.vm.take_result();
        r?;
        if matches!(value, Value::Nil) {
            return Ok(None);
        }
        let shown = self.vm.show(value).map_err(|e| self.error(&e))?;
        Ok(Some(match value {
            Value::Str(_) => sense_syntax::format::string_literal(&shown),
            _ => shown,
        }))
    }

    /// Every name the main program (or the REPL) can see at its top level:
    /// its own variables, then globals and builtins. Sorted, no duplicates.
    pub fn visible_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        let mut scope = Some(self.main_env.unwrap_or_else(|| self.vm.globals()));
        while let Some(s) = scope {
            let sc = self.vm.heap().scope(s);
            names.extend(
                sc.vars
                    .iter()
                    .map(|(sym, _)| self.vm.interner().name(sym).to_string()),
            );
            scope = sc.parent;
        }
        names.sort();
        names.dedup();
        names
    }

    /// Results of the `test` blocks run so far.
    pub fn test_results(&self) -> &[TestResult] {
        self.vm.test_results()
    }

    /// The underlying VM, read-only.
    pub(crate) fn vm_ref(&self) -> &Vm {
        &self.vm
    }

    /// Converts a VM error to the host error, rendering its diagnostic.
    pub(crate) fn error(&self, e: &EvalError) -> Error {
        // The position comes from the span whenever there is one: errors
        // raised inside builtins and host functions (and the recursion
        // limit) report no `[line N]` in their text but are still located.
        let (line, column) = match (e.span(), e.file().and_then(|f| self.vm.file(f))) {
            (Some(span), Some(file)) => {
                let (line, column) = file.line_col(span.start);
                (Some(line), Some(column))
            }
            _ => (e.line(), None),
        };
        Error::from_eval(e, self.vm.render_error(e), line, column)
    }

    /// Looks up an agent by the name it is bound to in the main program
    /// (or the REPL scope, or globals).
    pub fn agent(&self, name: &str) -> Result<AgentId, Error> {
        let env = self.main_env.unwrap_or_else(|| self.vm.globals());
        let value = self
            .vm
            .interner()
            .get(name)
            .and_then(|sym| self.vm.lookup_global_chain(env, sym));
        match value {
            Some(Value::Obj(r)) => match self.vm.heap().get(r) {
                Obj::Task(a) => Ok(AgentId {
                    obj: r,
                    serial: a.serial,
                }),
                _ => Err(Error::host(format!("'{name}' is not an agent"))),
            },
            Some(_) => Err(Error::host(format!("'{name}' is not an agent"))),
            None => Err(Error::host(format!("no agent named '{name}'"))),
        }
    }

    #[inline]
    pub(crate) fn agent_data(&self, id: AgentId) -> Result<&Task, Error> {
        match self.vm.heap().try_get(id.obj) {
            Some(Obj::Task(a)) if a.serial == id.serial => Ok(a),
            _ => Err(Error::host("agent no longer exists")),
        }
    }

    /// The agent's status.
    #[inline]
    pub fn status(&self, id: AgentId) -> Result<AgentStatus, Error> {
        Ok(self.agent_data(id)?.status.into())
    }

    /// The agent's name.
    pub fn agent_name(&self, id: AgentId) -> Result<String, Error> {
        let sym = self.agent_data(id)?.name;
        Ok(self.vm.interner().name(sym).to_string())
    }

    /// The last pause reason (kept after the agent moves on, as in Sense).
    pub fn pause_reason(&self, id: AgentId) -> Result<HostValue, Error> {
        let reason = self.agent_data(id)?.pause_reason;
        Ok(self.vm.to_host(reason))
    }

    /// What kind of pause the agent is in; `None` unless it is paused.
    pub fn pause_kind(&self, id: AgentId) -> Result<Option<PauseKind>, Error> {
        let a = self.agent_data(id)?;
        Ok((a.status == TaskStatus::Paused).then_some(a.pause_kind.into()))
    }

    /// Starts a `created` agent and runs it until it pauses, completes or
    /// fails (a body error comes back as `Err`, and the agent reads `failed`).
    pub fn start(&mut self, id: AgentId) -> Result<State, Error> {
        self.agent_data(id)?;
        let r = self.vm.start_task(Value::Obj(id.obj));
        self.settled(id, r)
    }

    /// Resumes a paused agent; `value` becomes the result of the `pause()`,
    /// `ask_human()` or host-function call it is paused in. An agent
    /// waiting in `receive()` gets a non-nil `value` as a message (put at
    /// the end of its mailbox, as [`Runtime::send`] does), then takes its
    /// oldest message. After a host request or a spent step budget the value is
    /// ignored. An agent paused on its token or cost budget (pause kind
    /// `budget` with a model call held back, see `set_budget`) takes
    /// `value` as its new budget: an Int of tokens, a Float of cost, a Map
    /// `{"tokens": …, "cost": …}`, or nil to keep it; the held-back call is
    /// then made and its answer is the call's result — or, still over
    /// budget, the agent stays paused with an updated reason.
    pub fn resume(&mut self, id: AgentId, value: impl Into<HostValue>) -> Result<State, Error> {
        let value = value.into();
        if self.waits_for_message(id)? && value != HostValue::Nil {
            self.send(id, value)?;
            return self.resume(id, HostValue::Nil);
        }
        let v = self
            .vm
            .value_from_host(&value)
            .map_err(|e| self.error(&e))?;
        let r = self.resume_task(id, v);
        self.settled(id, r)
    }

    /// Resumes a paused agent like [`Runtime::resume`], with the value
    /// given as a borrowed [`ValueRef`], and reports only where the agent
    /// now stands: [`AgentStatus::Paused`] or [`AgentStatus::Completed`].
    /// The pause reason is not copied out; read it with
    /// [`Runtime::pause_reason_ref`]. With a nil, Bool, Int or Float value
    /// the round trip allocates nothing on the host's side (a String is
    /// copied into the runtime, as Sense code's strings are).
    /// [`ValueRef::List`] and [`ValueRef::Other`] carry no contents and
    /// are refused: send such values with [`Runtime::resume`].
    ///
    /// ```
    /// use sense_agents::{AgentStatus, Runtime, ValueRef};
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source("m.sns", "agent a:\n    x = 0\n    while true:\n        x = pause(x + 1)\n")?;
    /// let a = rt.agent("a")?;
    /// rt.start(a)?;
    /// assert_eq!(rt.resume_ref(a, ValueRef::Int(41))?, AgentStatus::Paused);
    /// assert_eq!(rt.pause_reason_ref(a)?, ValueRef::Int(42));
    /// assert!(rt.resume_ref(a, ValueRef::List).is_err());
    /// # Ok::<(), sense_agents::Error>(())
    /// ```
    #[inline]
    pub fn resume_ref(&mut self, id: AgentId, value: ValueRef<'_>) -> Result<AgentStatus, Error> {
        self.resume_ref_from(id, value).map_err(|(e, _)| e)
    }

    /// [`Runtime::resume_ref`] that, when it fails, also says where the
    /// agent stood when the call began: `Some(status)`, or `None` when the
    /// id names no live agent. An embedder that reports "not paused" apart
    /// from an error the agent raised (the C ABI's `WRONG_STATE` and
    /// `RUNTIME_ERROR`) reads it here, on the error path only, instead of
    /// looking at the agent before every resume.
    ///
    /// ```
    /// use sense_agents::{AgentStatus, Runtime, ValueRef};
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source("m.sns", "agent a:\n    x = pause(1)\n    y = 1 / 0\n")?;
    /// let a = rt.agent("a")?;
    /// rt.start(a)?;
    /// let failed = rt.resume_ref_from(a, ValueRef::Int(1)).unwrap_err();
    /// assert_eq!(failed.1, Some(AgentStatus::Paused)); // the agent's own error
    /// let refused = rt.resume_ref_from(a, ValueRef::Int(1)).unwrap_err();
    /// assert_eq!(refused.1, Some(AgentStatus::Failed)); // not paused: refused
    /// # Ok::<(), sense_agents::Error>(())
    /// ```
    #[inline]
    pub fn resume_ref_from(
        &mut self,
        id: AgentId,
        value: ValueRef<'_>,
    ) -> Result<AgentStatus, (Error, Option<AgentStatus>)> {
        let v = match value {
            ValueRef::Nil => Value::Nil,
            ValueRef::Bool(b) => Value::Bool(b),
            ValueRef::Int(i) => Value::Int(i),
            ValueRef::Float(f) => Value::Float(f),
            ValueRef::Str(s) => {
                if let Err(e) = self.agent_data(id) {
                    return Err((e, None));
                }
                match self.vm.new_str(s) {
                    Ok(v) => v,
                    Err(e) => return Err(self.failed_before_run(id, &e)),
                }
            }
            ValueRef::List | ValueRef::Other => {
                let e = Error::host(
                    "a List or Other view has no contents to send: resume with a HostValue",
                );
                return Err((e, self.status(id).ok()));
            }
        };
        // One look at the agent picks the path: a plain pause (every host
        // round trip) goes straight to the fiber; a message wait or a
        // budget pause takes the general path.
        let a = match self.agent_data(id) {
            Ok(a) => a,
            Err(e) => return Err((e, None)),
        };
        let kind = (a.status == TaskStatus::Paused).then_some(a.pause_kind);
        let r = match kind {
            Some(SuspendCause::MESSAGE) if !matches!(v, Value::Nil) => {
                if let Err(e) = self.vm.send_message(id.obj, v) {
                    return Err((self.error(&e), Some(AgentStatus::Paused)));
                }
                return self
                    .resume_ref_from(id, ValueRef::Nil)
                    .map_err(|(e, _)| (e, Some(AgentStatus::Paused)));
            }
            Some(k) if k == crate::kinds::budget::SPEND => self.resume_task(id, v),
            _ => self.vm.resume_task(Value::Obj(id.obj), v),
        };
        match self.finish_resume(r) {
            Ok(true) => Ok(AgentStatus::Paused),
            Ok(false) => Ok(AgentStatus::Completed),
            // A paused agent ran and failed; any other was refused before
            // running, so its status is still the one it had.
            Err(e) if kind.is_some() => Err((e, Some(AgentStatus::Paused))),
            Err(e) => Err((e, self.status(id).ok())),
        }
    }

    /// A failure of `resume_ref_from` before the agent ran, with the
    /// agent's status (unchanged so far).
    #[cold]
    fn failed_before_run(&self, id: AgentId, e: &EvalError) -> (Error, Option<AgentStatus>) {
        (self.error(e), self.status(id).ok())
    }

    /// Resumes the agent's fiber with `v`; an agent paused on its budget
    /// takes `v` as its new budget first, and resumes with the answer of
    /// the call it held back, or stays paused while still over budget.
    fn resume_task(&mut self, id: AgentId, v: Value) -> Result<Exit, EvalError> {
        use crate::kinds::budget::{Resumed, before_resume};
        match before_resume(&mut self.vm, id.obj, v, crate::kinds::model::make_pending)? {
            Resumed::With(v) => self.vm.resume_task(Value::Obj(id.obj), v),
            Resumed::StillPaused => Ok(Exit::Paused(id.obj)),
        }
    }

    /// True when the agent is paused in `receive()` (a resume value then
    /// goes to its mailbox); an error for a stale id.
    #[inline]
    fn waits_for_message(&self, id: AgentId) -> Result<bool, Error> {
        let a = self.agent_data(id)?;
        Ok(a.status == TaskStatus::Paused && a.pause_kind == SuspendCause::MESSAGE)
    }

    /// Settles a start or resume: true when the agent paused, false when it
    /// completed (running through checkpoints the caller did not ask for).
    #[inline]
    fn finish_resume(&mut self, r: Result<Exit, EvalError>) -> Result<bool, Error> {
        let r = match r {
            Ok(Exit::Checkpoint) | Err(_) => self.finish_checkpoints(r),
            Ok(exit) => Ok(exit),
        };
        match r? {
            Exit::Paused(_) => Ok(true),
            Exit::Completed(_) | Exit::Done | Exit::Returned | Exit::Checkpoint => Ok(false),
        }
    }

    fn settled(&mut self, id: AgentId, r: Result<Exit, EvalError>) -> Result<State, Error> {
        if !self.finish_resume(r)? {
            return Ok(State::Completed);
        }
        let a = self.agent_data(id)?;
        let (reason, kind) = (a.pause_reason, a.pause_kind);
        Ok(State::Paused {
            reason: self.vm.to_host(reason),
            kind: kind.into(),
        })
    }

    /// Puts `message` in the agent's mailbox (any status).
    pub fn send(&mut self, id: AgentId, message: impl Into<HostValue>) -> Result<(), Error> {
        self.agent_data(id)?;
        self.vm.collect_if_due();
        let v = self
            .vm
            .value_from_host(&message.into())
            .map_err(|e| self.error(&e))?;
        self.vm.send_message(id.obj, v).map_err(|e| self.error(&e))
    }

    /// A handle that asks this agent to pause from any thread.
    pub fn pause_handle(&self, id: AgentId) -> Result<PauseHandle, Error> {
        let a = self.agent_data(id)?;
        Ok(PauseHandle {
            flag: a.pause_flag(),
            pending: std::sync::Arc::downgrade(&self.vm.interrupt_counter()),
        })
    }

    /// A handle that stops whatever this runtime is running, from any
    /// thread: the next safe point fails with `SenseRuntimeError:
    /// interrupted`, which no `except` catches. A REPL's Ctrl-C uses it.
    ///
    /// ```
    /// use sense_agents::Runtime;
    ///
    /// let mut rt = Runtime::new();
    /// let stop = rt.cancel_handle();
    /// std::thread::spawn(move || assert!(stop.cancel())).join().unwrap();
    /// // Not even a `try` catches it.
    /// let err = rt
    ///     .run_source("m.sns", "try:\n    while true:\n        x = 1\nexcept:\n    print(\"caught\")\n")
    ///     .unwrap_err();
    /// assert!(err.to_string().contains("interrupted"), "{err}");
    /// // The request was used up: the next run is not stopped.
    /// rt.run_source("m.sns", "y = 2\n")?;
    /// # Ok::<(), sense_agents::Error>(())
    /// ```
    pub fn cancel_handle(&self) -> crate::CancelHandle {
        self.vm.cancel_handle()
    }

    /// Registers a host function callable from Sense as `name(…)`.
    /// `arity` fixes the argument count (`None`: any count). Returning
    /// `Err(message)` raises a `SenseRuntimeError`; returning
    /// [`HostReturn::Suspend`] pauses the calling agent.
    ///
    /// ```
    /// use sense_agents::{HostReturn, HostValue, Runtime};
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.register_fn("double", Some(1), |args| match args[0] {
    ///     HostValue::Int(n) => Ok(HostReturn::Value(HostValue::Int(n * 2))),
    ///     _ => Err("double() expects an Int".into()),
    /// });
    /// rt.run_source("m.sns", "x = double(21)").unwrap();
    /// assert_eq!(rt.global("x"), Some(HostValue::Int(42)));
    /// ```
    pub fn register_fn(
        &mut self,
        name: &str,
        arity: Option<u8>,
        f: impl FnMut(&[HostValue]) -> Result<HostReturn, String> + Send + 'static,
    ) {
        self.vm.register_host_fn(name, arity, Box::new(f));
    }

    /// Registers a model provider for `inference(name, model_id?)` (the
    /// runtime opens no network connections itself). `capability`, when
    /// set, gates and audits every call (e.g. `model.anthropic`);
    /// `default_model` is used when `inference` is given no model id.
    pub fn register_provider(
        &mut self,
        name: &str,
        capability: Option<&str>,
        default_model: &str,
        provider: impl crate::provider::ModelProvider + 'static,
    ) {
        crate::kinds::model::register_provider(
            &mut self.vm,
            name,
            capability.map(str::to_string),
            default_model,
            Box::new(provider),
        );
    }

    /// The value of a variable of the main program (or a builtin).
    pub fn global(&self, name: &str) -> Option<HostValue> {
        let env = self.main_env.unwrap_or_else(|| self.vm.globals());
        let sym = self.vm.interner().get(name)?;
        self.vm
            .lookup_global_chain(env, sym)
            .map(|v| self.vm.to_host(v))
    }

    /// The audit log as `audit_log()` shows it, oldest first.
    pub fn audit_log(&self) -> Vec<String> {
        crate::audit::entries(&self.vm)
            .iter()
            .map(|e| e.describe())
            .collect()
    }

    /// The VM inside, for this crate's own modules only. Code outside the
    /// crate (the C ABI, the CLI, providers, fuzzers) uses the named
    /// methods of `Runtime` instead: no public API hands out a `Vm`.
    pub(crate) fn vm(&mut self) -> &mut Vm {
        &mut self.vm
    }
}

/// Reads a source file, with the CLI's wording for missing files.
pub fn read_source(path: &Path) -> Result<String, Error> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|_| Error::host(format!("{} is not valid UTF-8 text", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::host(format!(
            "no such file or directory: {}",
            path.display()
        ))),
        Err(e) => Err(Error::host(format!("cannot read {}: {e}", path.display()))),
    }
}

fn absolute_dir(path: &Path) -> Option<PathBuf> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    abs.parent().map(Path::to_path_buf)
}
