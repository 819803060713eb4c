//! [`Runtime`]: one Sense program and its agents, driven by a host.

use crate::error::Error;
use sense_eval::heap::ScopeRef;
use sense_eval::vm::TestResult;
use sense_eval::{Config, EvalError, Vm};
use sense_syntax::SourceFile;
use std::path::{Path, PathBuf};

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
    main_env: Option<ScopeRef>,
}

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
        Runtime {
            vm: Vm::new(config),
            main_env: None,
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

    /// Runs `text` as the main program. `name` labels it in diagnostics;
    /// imports resolve against the working directory.
    pub fn run_source(&mut self, name: &str, text: &str) -> Result<(), Error> {
        self.run_main(SourceFile::new(name, text), None)
    }

    /// Reads and runs a file as the main program; imports resolve against
    /// its directory.
    pub fn run_file(&mut self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        let text = read_source(path)?;
        let dir = absolute_dir(path);
        self.run_main(SourceFile::new(path.display().to_string(), text), dir)
    }

    fn run_main(&mut self, source: SourceFile, dir: Option<PathBuf>) -> Result<(), Error> {
        match self.vm.run_main(source, dir) {
            Ok(env) => {
                self.main_env = Some(env);
                Ok(())
            }
            Err(e) => Err(self.error(&e)),
        }
    }

    /// Runs one REPL input in the persistent REPL scope.
    pub fn eval_repl(&mut self, text: &str) -> Result<(), Error> {
        let env = match self.main_env {
            Some(env) => env,
            None => {
                let env = self.vm.new_module_scope();
                self.main_env = Some(env);
                env
            }
        };
        let file = self.vm.add_file(SourceFile::new("<repl>", text), None);
        let proto = self.vm.compile_file(file, "<repl>").map_err(|e| self.error(&e))?;
        self.vm.run_top_level(proto, env).map_err(|e| self.error(&e))
    }

    /// Results of the `test` blocks run so far.
    pub fn test_results(&self) -> &[TestResult] {
        self.vm.test_results()
    }

    /// Converts a VM error to the host error, rendering its diagnostic.
    fn error(&self, e: &EvalError) -> Error {
        let column = match (e.span(), e.file().and_then(|f| self.vm.file(f))) {
            (Some(span), Some(file)) => Some(file.line_col(span.start).1),
            _ => None,
        };
        Error::from_eval(e, self.vm.render_error(e), column)
    }

    /// The underlying VM (for tools built on the runtime).
    pub fn vm(&mut self) -> &mut Vm {
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
