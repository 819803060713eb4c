//! `sense serve`: durable agents as a service. Instances of the program's
//! agents live in a store (SQLite for one machine, PostgreSQL for a
//! fleet); any process pointed at the same store answers any instance,
//! and every answer is applied exactly once (see [`engine`]).
//!
//! Threads: connections are tasks on a small tokio runtime (see [`http`]:
//! heads and bodies have deadlines, so a slow or stalled client never
//! holds up the others); at most `--workers` requests run programs or use
//! the store at once, on blocking threads; long polls are parked on one
//! waiter thread. Each request restores the instance it needs into a
//! fresh runtime; no runtime is shared between threads.

mod console;
mod engine;
mod events;
mod http;
mod json;
mod program;
mod routes;
mod running;
mod texts;
mod waiters;

use super::LimitArgs;
use clap::Args;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Safe points one run may take before the agent is paused with kind
/// `budget` (resumable), unless `--max-steps` says otherwise: a runaway
/// agent must not hold a worker forever.
const DEFAULT_RUN_STEPS: u64 = 50_000_000;

/// The variable that may hold the API token (instead of `--token`, which
/// other users of the machine can see in the process list).
const TOKEN_VAR: &str = "SENSE_SERVE_TOKEN";

/// `sense serve` arguments.
#[derive(Args)]
pub struct ServeArgs {
    /// The program whose agents are served (read once, at startup)
    file: PathBuf,
    /// Where instances live: sqlite:PATH or postgres://user@host:port/db
    /// [default: sqlite:FILE.db beside the program]
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// The port to listen on; 0 picks a free one
    #[arg(long, value_name = "N", default_value_t = 4400)]
    port: u16,
    /// The address to listen on; anything but loopback requires a token
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    listen: IpAddr,
    /// Require `Authorization: Bearer TOKEN` on the API [default: $SENSE_SERVE_TOKEN]
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    /// Requests handled at once (1 to 1024)
    #[arg(long, value_name = "N", default_value_t = 16,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024))]
    workers: usize,
    #[command(flatten)]
    limits: LimitArgs,
}

fn fail(message: &str) -> i32 {
    eprintln!("SenseError: {message}");
    1
}

/// The default store: `sqlite:` the program's path with `.db` appended.
fn default_store(file: &Path) -> String {
    let mut name = file.as_os_str().to_owned();
    name.push(".db");
    format!("sqlite:{}", PathBuf::from(name).display())
}

fn process_name() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".into());
    format!("{host}:{}", std::process::id())
}

/// `sense serve FILE [--store URL] [--port N] [--listen ADDR] [--token T]`.
pub fn serve(args: ServeArgs) -> i32 {
    let token = args
        .token
        .clone()
        .or_else(|| std::env::var(TOKEN_VAR).ok())
        .filter(|t| !t.is_empty());
    if !args.listen.is_loopback() && token.is_none() {
        return fail(&format!(
            "listening on {} (not loopback) requires a token: --token TOKEN or ${TOKEN_VAR}",
            args.listen
        ));
    }
    let mut config = args.limits.config();
    config.max_steps.get_or_insert(DEFAULT_RUN_STEPS);
    let program = match program::Program::load(&args.file, config) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let url = args
        .store
        .clone()
        .unwrap_or_else(|| default_store(&args.file));
    let store: Arc<dyn sense_store::Store> = match sense_store::open(&url) {
        Ok(s) => Arc::from(s),
        Err(e) => return fail(&format!("cannot open the store: {e}")),
    };
    let listener = match std::net::TcpListener::bind((args.listen, args.port)) {
        Ok(l) => l,
        Err(e) => {
            return fail(&format!(
                "cannot listen on {}:{}: {e}",
                args.listen, args.port
            ));
        }
    };
    let port = listener.local_addr().map_or(args.port, |a| a.port());
    let running = Arc::new(running::Running::default());
    running.watch(store.clone());
    let waiters = Arc::new(waiters::Waiters::default());
    waiters.serve(store.clone(), program.hash.clone());
    let shown_store = if url.starts_with("postgres") {
        "postgres".to_string()
    } else {
        url.clone()
    };
    let host = match args.listen {
        IpAddr::V6(a) => format!("[{a}]"),
        IpAddr::V4(a) => a.to_string(),
    };
    println!(
        "Sense service: http://{host}:{port}/ (program {} {}, store {shown_store}, {} workers; Ctrl-C to stop)",
        program.name, program.hash, args.workers
    );
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let engine = Arc::new(engine::Engine {
        store,
        program,
        process: process_name(),
        running,
        waiters,
        texts: Arc::default(),
    });
    let access = http::Access { token, port };
    match http::run(engine, listener, access, args.workers) {
        Ok(()) => 0,
        Err(e) => fail(&format!("the server stopped: {e}")),
    }
}
