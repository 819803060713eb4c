//! Command-line parsing and dispatch.

mod durable;
mod fmt;
mod inspect;
mod memory_path;
mod mistakes;
mod output;
mod repl;
mod run;
mod serve;
mod sns_files;
mod suggest;
mod test;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// The language version this runtime implements.
pub use sense::syntax::LANGUAGE_VERSION;

#[derive(Parser)]
#[command(
    name = "sense",
    version = concat!(env!("CARGO_PKG_VERSION"), " (Sense language 0.20.0)"),
    about = "Run Sense programs: agents that pause and resume",
    long_about = "Sense is an indentation-based scripting language for agents that can pause \
                  in the middle of a statement and resume later from exactly that point.\n\n\
                  With no command, `sense` starts the interactive REPL.",
    after_help = "Examples:\n  sense run examples/hello.sns\n  sense test tests/\n  sense repl"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a program (output on stdout; an uncaught error on stderr, exit 1)
    Run(RunArgs),
    /// Run the `test` blocks of a file, or of every test_*.sns / *_test.sns under a directory
    Test {
        /// A .sns file, or a directory searched recursively
        path: PathBuf,
    },
    /// Run FILE's top level, start AGENT, and save it to STATE when it pauses
    Start {
        /// The program
        file: PathBuf,
        /// The agent to start (a name bound by the program's top level)
        agent: String,
        /// Where to save the paused state
        #[arg(long, value_name = "STATE")]
        state: PathBuf,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Restore STATE, resume its agent with VALUE (a Sense literal; default nil), save it again
    Resume {
        /// A state file written by `sense start` or `sense resume`
        state: PathBuf,
        /// The value `pause()` / `ask_human()` returns: "yes", 42, true, nil, [1, 2], …
        #[arg(allow_hyphen_values = true)]
        value: Option<String>,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// List the agents in STATE: status, pause reason, call stacks and locals
    Show {
        /// A state file
        state: PathBuf,
        /// Print every value whole (by default long values are cut after
        /// about 1,000 characters, ending in `...`)
        #[arg(long)]
        full: bool,
    },
    /// Copy STATE to NEW_STATE (a new file): a second instance of the same
    /// paused agents, resumed separately from the original
    Fork {
        /// A state file written by `sense start` or `sense resume`
        state: PathBuf,
        /// Where the copy goes (must not exist yet)
        new_state: PathBuf,
    },
    /// Show where `persistent memory` databases of FILE would be stored (without running it)
    MemoryPath {
        /// A .sns file to inspect
        path: Option<PathBuf>,
        /// The memory directory to assume (as `run --memory-dir`)
        #[arg(long, value_name = "DIR")]
        memory_dir: Option<PathBuf>,
    },
    /// Format a .sns file, or every .sns file under a directory (to stdout unless --write/--check)
    Fmt {
        /// A .sns file, or a directory searched recursively
        path: PathBuf,
        /// Rewrite the files that change and print their paths
        #[arg(short, long)]
        write: bool,
        /// Print the paths that would change; exit 1 if any would
        #[arg(long)]
        check: bool,
    },
    /// Run FILE (or restore --state STATE) and serve a live web console on 127.0.0.1
    Inspect(inspect::InspectArgs),
    /// Serve FILE's agents over HTTP, kept in a store (SQLite, or PostgreSQL for a fleet)
    #[command(mut_arg("max_steps", |a| a.help(
        "Safe points (calls and loop iterations) one request may run before the agent \
         pauses with kind `budget` (resumable) [default: 50000000]"
    )))]
    Serve(serve::ServeArgs),
    /// Serve the Language Server Protocol on stdin/stdout (for editors)
    Lsp,
    /// Start the interactive REPL (the default when no command is given)
    Repl {
        /// Run this file's top level first, then continue interactively in its scope
        path: Option<PathBuf>,
    },
}

/// A size in bytes: digits with an optional K, M or G suffix (powers of 1024).
fn parse_bytes(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let (digits, shift) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 10),
        Some('M') => (&t[..t.len() - 1], 20),
        Some('G') => (&t[..t.len() - 1], 30),
        _ => (t, 0),
    };
    let n: usize = digits
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a size (e.g. 1048576, 512M, 2G)"))?;
    match n.checked_mul(1 << shift) {
        Some(0) | None => Err(format!("{text:?} is out of range")),
        Some(bytes) => Ok(bytes),
    }
}

/// Limits shared by commands that run programs.
#[derive(Args, Clone, Debug)]
pub struct LimitArgs {
    /// Maximum call depth (Sense frames) before `maximum recursion depth exceeded`
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_depth: usize,
    /// Stop after N safe points (calls and loop iterations); unlimited by default
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u64>,
    /// Largest string an operation may build, in bytes (suffixes K, M, G;
    /// default 256M)
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub max_string: Option<usize>,
    /// Largest array an operation may build, in elements (default 67108864)
    #[arg(long, value_name = "N")]
    pub max_list: Option<usize>,
    /// Heap ceiling: bytes the program's values may hold (suffixes K, M, G;
    /// default 1G); going over it is a SenseRuntimeError
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub max_heap: Option<usize>,
    /// Most source text a run compiles: the program and every module it
    /// imports together (suffixes K, M, G; default 64M; compiling needs
    /// about 20 times the text's size in memory)
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub max_source: Option<usize>,
    /// Directory for `persistent memory` databases without an explicit path
    /// (default: $SENSE_MEMORY_DIR, else .sense_memory/ beside the program)
    #[arg(long, value_name = "DIR")]
    pub memory_dir: Option<PathBuf>,
}

impl LimitArgs {
    /// The VM configuration these flags describe.
    pub fn config(&self) -> sense::Config {
        let mut c = sense::Config {
            max_depth: self.max_depth,
            max_steps: self.max_steps,
            ..Default::default()
        };
        if let Some(n) = self.max_string {
            c.max_string_len = n;
        }
        if let Some(n) = self.max_list {
            c.max_array_len = n;
        }
        if let Some(n) = self.max_heap {
            c.max_heap = n;
        }
        if let Some(n) = self.max_source {
            c.max_source_len = n;
        }
        c.memory_dir = self.memory_dir.clone();
        // A testing aid: collect garbage at every safe point.
        c.gc_stress = std::env::var_os("SENSE_GC_STRESS").is_some_and(|v| !v.is_empty());
        c
    }
}

#[derive(Args)]
struct RunArgs {
    /// The program to run; `-` reads it from standard input (imports then
    /// resolve against the working directory, and `ask_human` outside an
    /// agent finds no input left)
    path: PathBuf,
    /// Check every action but commit nothing; print an audit summary at the end
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    limits: LimitArgs,
}

/// Parses the command line and runs the command; returns the exit status.
pub fn main() -> i32 {
    let cli = Cli::parse();
    match cli.command {
        None => repl::repl(None),
        Some(Command::Repl { path }) => repl::repl(path.as_deref()),
        Some(Command::Run(args)) => run::run(&args.path, args.limits.config(), args.dry_run),
        Some(Command::Test { path }) => test::test(&path),
        Some(Command::Fmt { path, write, check }) => fmt::fmt(&path, write, check),
        Some(Command::Start {
            file,
            agent,
            state,
            limits,
        }) => durable::start(&file, &agent, &state, limits.config()),
        Some(Command::Resume {
            state,
            value,
            limits,
        }) => durable::resume(&state, value.as_deref(), limits.config()),
        Some(Command::Show { state, full }) => durable::show(&state, full),
        Some(Command::Fork { state, new_state }) => durable::fork(&state, &new_state),
        Some(Command::Inspect(args)) => inspect::inspect(args),
        Some(Command::Serve(args)) => serve::serve(args),
        Some(Command::Lsp) => sense_lsp::serve(),
        Some(Command::MemoryPath { path, memory_dir }) => {
            memory_path::memory_path(path.as_deref(), memory_dir.as_deref())
        }
    }
}

/// Prints `SenseError: MESSAGE` on stderr and gives the exit status 1.
fn fail(message: &str) -> i32 {
    eprintln!("SenseError: {message}");
    1
}

#[cfg(test)]
mod tests {
    /// `--version` spells the language version as a literal (clap takes a
    /// `concat!`); it must be the one `LANGUAGE_VERSION` holds.
    #[test]
    fn version_names_the_language_version() {
        use clap::CommandFactory;
        let version = super::Cli::command().get_version().map(str::to_string);
        assert_eq!(
            version,
            Some(format!(
                "{} (Sense language {})",
                env!("CARGO_PKG_VERSION"),
                super::LANGUAGE_VERSION
            ))
        );
    }
}
