//! The virtual machine: code store, heap, globals, fibers and the run loop.
//!
//! A `Vm` is one Sense "interpreter run": one global scope, one module
//! cache, any number of agents. It runs on whichever thread
//! calls it; nothing in it spawns threads. All execution state is data in
//! fibers (see [`Fiber`]), so the run loop can stop at any instruction —
//! a pause — and continue later.

mod call;
mod code_charge;
mod code_store;
mod embed;
mod ext;
mod ext_call;
mod ext_state;
mod fiber;
pub(crate) mod graph;
mod handlers;
mod host_hooks;
mod import;
mod inspect;
mod lazy_range;
mod maps;
mod membership;
mod methods;
pub use methods::{ARRAY_METHODS, MAP_METHODS, STRING_METHODS, builtin_methods};
mod names;
mod ops;
mod registries;
mod run;
mod run_hot;
mod scheduler;
mod scope_slots;
mod show;
mod task_protocol;
mod tasks;
mod traceback;
mod unwind;
mod walk;

pub use code_store::FileEntry;
pub(crate) use code_store::ModuleEntry;
pub use embed::CallerSlot;
pub use ext_state::{SavedState, SettingHook};
pub use fiber::{Ctl, CtlKind, Fiber, Frame, FrameKind, Wait};
pub use host_hooks::CancelHandle;
pub use inspect::{FrameReport, TaskReport};
pub(crate) use scheduler::Scheduler;
pub(crate) use tasks::Blocked;

use crate::builtins::{self, NativeDef};
use crate::compile::{CodeSink, TopLevelCompiler};
use crate::error::{EvalError, EvalResult};
use crate::heap::{Heap, ObjRef, ScopeRef};
use crate::proto::{FileId, Proto, ProtoId};
use crate::scope::Scope;
use crate::symbol::{Interner, Symbol};
use crate::value::{NativeId, Value};
pub(crate) use code_store::CodeStore;
pub(crate) use host_hooks::HostHooks;
pub(crate) use registries::Registries;
use sense_syntax::SourceFile;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

/// Where `print` output goes.
pub type OutputFn = Box<dyn FnMut(&str) + Send>;
/// Where `ask_human` outside an agent reads a line from (`None` at end of input).
pub type InputFn = Box<dyn FnMut() -> Option<String> + Send>;

/// The default heap ceiling ([`Config::max_heap`]): 1 GiB.
pub const DEFAULT_MAX_HEAP: usize = 1 << 30;

/// Limits and switches of a VM.
///
/// ```
/// use sense_eval::{Config, ErrorClass, Vm};
/// use sense_syntax::SourceFile;
///
/// let config = Config {
///     max_depth: 100,      // Sense frames
///     max_steps: Some(10_000),
///     ..Config::default()
/// };
/// let mut vm = Vm::new(config);
/// let deep = SourceFile::new("deep.sns", "def f(n): return f(n + 1)\nf(0)\n");
/// let err = vm.run_main(deep, None, None).unwrap_err();
/// assert_eq!(err.class(), ErrorClass::Runtime);
/// assert_eq!(err.display(), "maximum recursion depth exceeded");
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    /// Maximum number of active Sense frames (all fibers of one run).
    pub max_depth: usize,
    /// Safe points (calls and loop iterations) allowed per run; `None` = unlimited.
    pub max_steps: Option<u64>,
    /// Largest string, in bytes, an operation may build.
    pub max_string_len: usize,
    /// Largest array an operation may build.
    pub max_array_len: usize,
    /// The heap ceiling: estimated bytes the program's values may hold
    /// (strings, arrays, objects, scopes). Crossing it is a
    /// `SenseRuntimeError` ("out of memory"), never an abort.
    pub max_heap: usize,
    /// Where `persistent memory` databases without an explicit path go
    /// (overrides `SENSE_MEMORY_DIR`).
    pub memory_dir: Option<PathBuf>,
    /// Stop with [`Exit::Checkpoint`] whenever an agent started or resumed
    /// by Sense code pauses (a testing aid: snapshot and restore there).
    pub checkpoint_on_pause: bool,
    /// Collect garbage at every safe point (a testing aid that makes a
    /// missing root show up at once).
    pub gc_stress: bool,
    /// Most source text, in bytes, that a run compiles: the main program,
    /// every module it imports and every REPL input together (a file that
    /// would pass it is a `SenseSyntaxError`). Lexing, parsing and
    /// compiling take about 15 to 20 times the source size at their peak
    /// (BENCHMARKS.md), so the default (64 MiB) keeps it near 1 GB.
    pub max_source_len: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_depth: 10_000,
            max_steps: None,
            max_string_len: 256 * 1024 * 1024,
            max_array_len: 64 * 1024 * 1024,
            max_heap: DEFAULT_MAX_HEAP,
            memory_dir: None,
            checkpoint_on_pause: false,
            gc_stress: false,
            max_source_len: 64 * 1024 * 1024,
        }
    }
}

impl Config {
    /// Largest snapshot, in bytes, that [`Vm::restore`] accepts: twice the
    /// heap ceiling (a snapshot encodes the heap's values, which are never
    /// larger encoded than the heap estimate counts them, with room for the
    /// audit log and saved state) plus the source limit (the sources are
    /// saved too) and 64 MiB of margin. Hosts use it to bound how much
    /// they read before handing the bytes over (`sense resume` and
    /// `sense show` do).
    pub fn max_snapshot_len(&self) -> usize {
        self.max_heap
            .saturating_mul(2)
            .saturating_add(self.max_source_len)
            .saturating_add(64 * 1024 * 1024)
    }
}

/// The outcome of one `test` block.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TestResult {
    /// The block's description.
    pub description: String,
    /// `None` when it passed, else the error's display text.
    pub failure: Option<String>,
}

/// How a run of the VM ended, when it did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The program (or REPL input) ran to its end.
    Done,
    /// The agent that was driven paused.
    Paused(ObjRef),
    /// The agent that was driven completed.
    Completed(ObjRef),
    /// A nested call returned (its value is on the stack).
    Returned,
    /// With `Config::checkpoint_on_pause`: an agent driven by Sense code
    /// paused, and the whole VM is between two instructions — it can be
    /// snapshotted now; [`Vm::continue_run`] goes on.
    Checkpoint,
}

/// Control requests natives leave for the run loop.
#[derive(Debug)]
pub(crate) enum Pending {
    /// Switch to this agent's fresh or resumed fiber (plain `start`/`resume`).
    Enter(ObjRef),
    /// Suspend the current agent (a pause inside a builtin call).
    Suspend,
    /// Block the current async agent in `receive()`.
    Block,
    /// Wait for this running async agent or future.
    Await(ObjRef),
}

/// Appended to a unit's name in the compilation record when it was
/// compiled with [`Vm::compile_echo_file`] (a NUL never occurs in a name).
const ECHO_UNIT: &str = "\u{0}echo";

/// The virtual machine.
///
/// Its state is grouped by owner: the code store (`CodeStore`), the
/// host's hooks (`HostHooks`), the registries of natives and kinds
/// (`Registries`), the heap and names, and the scheduler (`Scheduler`). A
/// snapshot (`snapshot.rs`) destructures every one of them whole, so a
/// field added here or to an owner is a compile error there until it is
/// saved or named as deliberately left out.
pub struct Vm {
    pub(crate) heap: Heap,
    pub(crate) interner: Interner,
    /// Sources, compiled code and modules.
    pub(crate) code: CodeStore,
    /// Output, input, host functions and what the host keeps alive.
    pub(crate) hooks: HostHooks,
    /// Natives, object kinds, declaration kinds, extension state.
    pub(crate) registries: Registries,
    pub(crate) globals: ScopeRef,
    /// The running fiber. Boxed so a hand-off swaps two pointers.
    pub(crate) cur: Box<Fiber>,
    /// The fibers waiting below the running one, the ready and blocked
    /// tasks, and the run loop's pending request.
    pub(crate) sched: scheduler::Scheduler,
    pub(crate) tests: Vec<TestResult>,
    pub(crate) config: Config,
    pub(crate) steps: u64,
    pub(crate) arg_buf: Vec<Value>,
    pub(crate) labeled: Vec<(Symbol, Value)>,
    /// What the tasks are to the language (see [`crate::kind::TaskKind`]).
    pub(crate) task_kind: Option<&'static dyn crate::kind::TaskKind>,
    /// The symbols of the task kind's own members (see
    /// [`crate::kind::TaskKind::members`]).
    pub(crate) task_members: ext::TaskMembers,
    /// What the last main-program frame returned (see [`Vm::take_result`]).
    pub(crate) result: Value,
}

impl Default for Vm {
    fn default() -> Self {
        Self::new(Config::default())
    }
}

impl Vm {
    /// A fresh VM with the builtins installed; output goes to stdout and
    /// input comes from stdin until hooks are set.
    pub fn new(config: Config) -> Self {
        let mut heap = Heap::new();
        let globals = heap.alloc_scope(Scope::new_big(None));
        let interner = Interner::new();
        let mut vm = Vm {
            heap,
            interner,
            code: CodeStore::new(),
            hooks: HostHooks::stdio(),
            registries: Registries::default(),
            globals,
            cur: Box::default(),
            sched: scheduler::Scheduler::default(),
            tests: Vec::new(),
            config,
            steps: 0,
            arg_buf: Vec::new(),
            labeled: Vec::new(),
            task_kind: None,
            task_members: ext::TaskMembers::none(),
            result: Value::Nil,
        };
        for def in builtins::core_natives() {
            vm.add_native(def);
        }
        vm.register_kind(&crate::error_value::ERROR_KIND);
        crate::stdlib::install(&mut vm);
        if vm.config.gc_stress {
            vm.heap.set_threshold(1);
        }
        vm
    }

    /// Installs a native function and binds it in the global scope.
    pub(crate) fn add_native(&mut self, def: NativeDef) -> NativeId {
        let name = self.interner.intern(&def.name);
        self.registries.natives.push(def);
        let id = NativeId(self.registries.natives.len() as u32 - 1);
        self.heap
            .scope_mut(self.globals)
            .vars
            .define(name, Value::Native(id));
        id
    }

    /// Installs a native function of a higher crate and binds it in the
    /// global scope; a snapshot that refers to it finds it again by name.
    pub fn register_native(&mut self, def: NativeDef) {
        self.add_native(def);
    }

    /// Sends `print` output to `f` instead of stdout.
    pub fn set_output(&mut self, f: OutputFn) {
        self.hooks.out = f;
    }

    /// Reads `ask_human` answers (outside agents) from `f` instead of stdin.
    pub fn set_input(&mut self, f: InputFn) {
        self.hooks.input = f;
    }

    /// The VM's limits and switches.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Changes limits and switches.
    pub fn config_mut(&mut self) -> &mut Config {
        &mut self.config
    }

    /// The count of outstanding pause requests; a host raises it (from any
    /// thread) together with an agent's own flag so safe points look.
    pub fn interrupt_counter(&self) -> Arc<AtomicUsize> {
        self.hooks.interrupt.clone()
    }

    /// A handle that stops the running code at its next safe point, from
    /// any thread.
    pub fn cancel_handle(&self) -> CancelHandle {
        self.hooks.cancel_handle()
    }

    /// Registers a source file; `dir` is where its imports resolve.
    pub fn add_file(&mut self, source: SourceFile, dir: Option<PathBuf>) -> FileId {
        self.code.add_file(source, dir)
    }

    /// The source of a loaded file.
    pub fn file(&self, id: FileId) -> Option<&SourceFile> {
        self.code.file(id)
    }

    /// The directory a loaded file's imports resolve against (`None`: the
    /// working directory, or no such file).
    pub fn file_dir(&self, id: FileId) -> Option<&std::path::Path> {
        self.code.file_dir(id)
    }

    /// Parses and compiles a registered file's top level.
    pub fn compile_file(&mut self, file: FileId, name: &str) -> EvalResult<ProtoId> {
        self.compile_unit(file, name, false)
    }

    /// Like [`compile_file`](Self::compile_file) for one interactive REPL
    /// input: a last expression statement (not an assignment) becomes the
    /// input's result, read with [`take_result`](Self::take_result) after
    /// the run. Snapshots record which units were compiled this way and
    /// rebuild them the same way.
    pub fn compile_echo_file(&mut self, file: FileId, name: &str) -> EvalResult<ProtoId> {
        self.compile_unit(file, name, true)
    }

    /// What the last finished main program or REPL input returned (nil
    /// unless it was compiled with
    /// [`compile_echo_file`](Self::compile_echo_file)); reading it resets it.
    pub fn take_result(&mut self) -> Value {
        std::mem::replace(&mut self.result, Value::Nil)
    }

    fn compile_unit(&mut self, file: FileId, name: &str, echo: bool) -> EvalResult<ProtoId> {
        let source = self
            .code
            .files
            .get(file.0 as usize)
            .map(|f| f.source.clone())
            .ok_or_else(|| EvalError::runtime("unknown source file"))?;
        let len = source.text().len();
        // The limit counts every source of a run together (issue 27): the
        // main program, each imported module, each REPL input.
        let before = self.code.compiled_source_bytes();
        let limit = self.config.max_source_len;
        if before.saturating_add(len) > limit {
            // Refused before any token is made: parsing would need many
            // times this much memory (issue 18).
            let earlier = if before == 0 {
                String::new()
            } else {
                format!(", after {before} bytes of sources already compiled in this run")
            };
            let e = sense_syntax::SyntaxError {
                message: format!(
                    "source file too large ({len} bytes{earlier}; the limit for all the sources \
                     of a run together is {limit} bytes)"
                ),
                span: sense_syntax::span::Span::new(0, 0, 1),
            };
            return Err(EvalError::syntax(&e, file));
        }
        let first = self.code.protos.len() as u32;
        let sink = CodeSink {
            interner: &mut self.interner,
            heap: &mut self.heap,
            protos: &mut self.code.protos,
        };
        let mut top = TopLevelCompiler::new(sink, file, name);
        let id = if echo {
            let program =
                sense_syntax::parse_file(&source).map_err(|e| EvalError::syntax(&e, file))?;
            top.echo_program(&program)
        } else {
            // Statement by statement: each tree is dropped once compiled,
            // so a huge file never holds its whole AST (issue 18). Nothing
            // is compiled unless the whole file parses.
            sense_syntax::parse_file_each(&source, |s| top.stmt(&s))
                .map_err(|e| EvalError::syntax(&e, file))?;
            top.finish()
        };
        let Ok(id) = id else {
            // Nothing of the unit stays: the store is as it was before.
            self.code.protos.truncate(first as usize);
            return Err(EvalError::runtime(format!(
                "out of memory: the code of '{name}' could not be stored"
            )));
        };
        let count = self.code.protos.len() as u32 - first;
        let recorded = if echo {
            format!("{name}{ECHO_UNIT}")
        } else {
            name.to_string()
        };
        self.code.units.push((file, recorded, first, count));
        // Code and source text count towards the heap ceiling (issue 27).
        self.charge_new_unit(first as usize, len)?;
        Ok(id)
    }

    /// Compiles a unit again from its entry in the compilation record (a
    /// snapshot being restored), the way it was compiled the first time.
    pub(crate) fn recompile_unit(&mut self, file: FileId, recorded: &str) -> EvalResult<ProtoId> {
        match recorded.strip_suffix(ECHO_UNIT) {
            Some(name) => self.compile_unit(file, name, true),
            None => self.compile_unit(file, recorded, false),
        }
    }

    /// A new module scope (child of globals) for a main program or REPL.
    pub fn new_module_scope(&mut self) -> ScopeRef {
        self.heap.alloc_scope(Scope::new_big(Some(self.globals)))
    }

    /// Keeps `scope` (and all it reaches) alive across collections.
    pub fn pin_scope(&mut self, scope: ScopeRef) {
        self.hooks.pin(scope);
    }

    /// Runs compiled top-level code in `env` until it ends (or stops at a
    /// checkpoint).
    pub fn run_top_level(&mut self, proto: ProtoId, env: ScopeRef) -> EvalResult<Exit> {
        let fiber = Box::new(Fiber {
            frames: vec![Frame {
                proto,
                ip: 0,
                env,
                outer: env,
                stack_base: 0,
                block_base: 0,
                ctl_base: 0,
                slot_base: 0,
                kind: FrameKind::Main,
            }],
            ..Fiber::default()
        });
        self.drive(fiber)
    }

    /// Parses, compiles and runs a main program in `env` (a new pinned
    /// module scope when `None`); imports resolve against `dir`. Returns
    /// the scope it ran in and how the run ended.
    pub fn run_main(
        &mut self,
        source: SourceFile,
        dir: Option<PathBuf>,
        env: Option<ScopeRef>,
    ) -> EvalResult<(ScopeRef, Exit)> {
        let name = source.name().to_string();
        let file = self.add_file(source, dir);
        let proto = self.compile_file(file, &name)?;
        let env = match env {
            Some(env) => env,
            None => {
                let env = self.new_module_scope();
                self.pin_scope(env);
                env
            }
        };
        let exit = self.run_top_level(proto, env)?;
        Ok((env, exit))
    }

    /// Runs `fiber` until it settles; the previous current fiber is kept
    /// aside and restored afterwards. Inlined: it is a host round trip's
    /// way into the run loop.
    #[inline]
    pub(crate) fn drive(&mut self, fiber: Box<Fiber>) -> EvalResult<Exit> {
        if self.sched.drives.is_empty() {
            // The step budget is per host call: a run that used it up
            // leaves the next one its whole budget.
            self.steps = 0;
        }
        self.sched.drives.push(self.sched.stop_depth);
        self.enter_boxed(fiber);
        self.sched.stop_depth = self.sched.callers.len();
        let result = self.run();
        self.end_drive(result)
    }

    /// Finishes a `drive` unless it stopped at a checkpoint (then the run
    /// stays in progress until [`Vm::continue_run`]). Inlined: every host
    /// round trip ends here.
    #[inline(always)]
    fn end_drive(&mut self, result: EvalResult<Exit>) -> EvalResult<Exit> {
        if matches!(result, Ok(Exit::Checkpoint)) {
            return result;
        }
        // Whatever settled has already been put where it belongs (parked in
        // its agent, or finished); bring back the fiber we set aside, unless
        // the settling fiber already did.
        while self.sched.callers.len() > self.sched.stop_depth {
            self.pop_caller();
        }
        if self.sched.callers.len() == self.sched.stop_depth {
            self.pop_caller();
        }
        self.sched.stop_depth = self.sched.drives.pop().unwrap_or(0);
        result
    }

    /// True while a run stopped at a checkpoint waits to be continued.
    pub fn in_checkpoint(&self) -> bool {
        !self.sched.drives.is_empty()
    }

    /// Continues a run that stopped at [`Exit::Checkpoint`].
    pub fn continue_run(&mut self) -> EvalResult<Exit> {
        if self.sched.drives.is_empty() {
            return Err(EvalError::runtime("there is no run to continue"));
        }
        let result = self.run();
        self.end_drive(result)
    }

    /// Results of the `test` blocks run so far.
    pub fn test_results(&self) -> &[TestResult] {
        &self.tests
    }

    /// Renders an error as the CLI prints it: `<Class>: <display>` and, when
    /// the position is known, the source line with a caret.
    pub fn render_error(&self, err: &EvalError) -> String {
        let file = err.file().and_then(|f| self.file(f));
        sense_syntax::render_diagnostic(err.class().name(), &err.display(), file, err.span())
    }

    /// Collects garbage now.
    pub fn collect_garbage(&mut self) {
        let Vm {
            heap,
            code,
            hooks,
            globals,
            cur,
            sched,
            result,
            ..
        } = self;
        heap.collect(|t| {
            t.scope(*globals);
            t.values(std::slice::from_ref(result));
            hooks.trace(t);
            code.trace(t);
            cur.trace(t);
            sched.trace(t);
        });
    }

    /// Collects garbage when it is due (enough allocated since the last
    /// collection, or the heap may be past its ceiling) and nothing is
    /// half done. Host calls that add values (globals, messages) call it
    /// first: what a host replaced is freed, and the ceiling is checked
    /// against what is live, even when no Sense code runs (issue 27).
    pub fn collect_if_due(&mut self) {
        if self.sched.is_quiet() && self.heap.wants_collect_within(self.config.max_heap) {
            self.collect_garbage();
        }
    }

    /// Fails ("out of memory") when the heap is over its ceiling: a
    /// restored snapshot must fit it too. Measured first without
    /// collecting (a restored heap stays byte for byte as saved); only a
    /// heap that seems over is collected before the verdict.
    pub fn enforce_heap_ceiling(&mut self) -> EvalResult<()> {
        self.recharge_code();
        self.heap.measure_all();
        if self.check_heap_ceiling().is_ok() {
            return Ok(());
        }
        self.collect_garbage();
        self.check_heap_ceiling()
    }

    /// The heap (for hosts inspecting values).
    pub fn heap(&self) -> &Heap {
        &self.heap
    }

    /// The heap, mutably.
    pub fn heap_mut(&mut self) -> &mut Heap {
        &mut self.heap
    }

    /// The interner.
    pub fn interner(&self) -> &Interner {
        &self.interner
    }

    /// Interns a name.
    pub fn intern(&mut self, name: &str) -> Symbol {
        self.interner.intern(name)
    }

    /// The compiled code `id` (an empty body for an id that does not
    /// exist — only damaged state could produce one).
    #[inline]
    pub(crate) fn proto(&self, id: ProtoId) -> &Arc<Proto> {
        self.code.proto(id)
    }

    /// The global scope.
    pub fn globals(&self) -> ScopeRef {
        self.globals
    }

    /// Writes program output.
    pub fn write_out(&mut self, s: &str) {
        (self.hooks.out)(s);
    }

    /// True if any pause request is pending.
    #[inline]
    pub(crate) fn interrupted(&self) -> bool {
        self.hooks.interrupted()
    }
}
