//! `sense serve`: durable agents as a service. Instances of the program's
//! agents live in a store (SQLite for one machine, PostgreSQL for a
//! fleet); any process pointed at the same store answers any instance,
//! and every answer is applied exactly once (see `engine`).
//!
//! Threads: connections are tasks on a small tokio runtime (see `http`:
//! heads and bodies have deadlines, so a slow or stalled client never
//! holds up the others); at most `--workers` requests run programs or use
//! the store at once, on blocking threads; long polls are parked on one
//! waiter thread. Each request restores the instance it needs into a
//! fresh runtime, or takes out the runtime this process kept from its own
//! last commit of that instance when the store still holds that version
//! (`hot`); a runtime is used by one request at a time.

mod console;
mod engine;
mod events;
mod history;
mod hot;
mod http;
mod json;
mod program;
mod routes;
mod running;
mod steps;
mod texts;
mod timers;
mod timing;
mod waiters;

use sense_agents::Config;
use std::net::{IpAddr, Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Safe points one run may take before the agent is paused with kind
/// `budget` (resumable), unless the configuration says otherwise: a
/// runaway agent must not hold a worker forever.
pub const DEFAULT_RUN_STEPS: u64 = 50_000_000;

/// The variable that may hold the API token (instead of `--token`, which
/// other users of the machine can see in the process list).
pub const TOKEN_VAR: &str = "SENSE_SERVE_TOKEN";

/// Runtimes of recently answered instances each process keeps in memory
/// unless told otherwise (see [`ServeOptions::hot_instances`]).
pub const DEFAULT_HOT_INSTANCES: usize = hot::DEFAULT_CAPACITY;

/// What a service serves and how: `sense serve`'s arguments.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The program whose agents are served (read once, at startup).
    pub file: PathBuf,
    /// Where instances live: `sqlite:PATH` or `postgres://…`; `None` is
    /// `sqlite:` the program's path with `.db` appended.
    pub store: Option<String>,
    /// The port to listen on; 0 picks a free one.
    pub port: u16,
    /// The address to listen on; anything but loopback requires a token.
    pub listen: IpAddr,
    /// The bearer token the API requires, if any.
    pub token: Option<String>,
    /// Requests handled at once.
    pub workers: usize,
    /// Limits for every run; `max_steps` defaults to [`DEFAULT_RUN_STEPS`].
    pub config: Config,
    /// How long a claim on a step lasts unless renewed: a step whose
    /// runner died is taken over after at most this long.
    pub lease: std::time::Duration,
    /// Versions kept per instance in the history, the current one
    /// included; `None` keeps all.
    pub keep_versions: Option<u32>,
    /// Runtimes of recently answered instances kept in memory: the next
    /// answer to one of them skips restoring its snapshot when the store
    /// still holds the version this process committed. 0 keeps none.
    pub hot_instances: usize,
}

impl ServeOptions {
    /// Options for serving `file` on 127.0.0.1:4400 with 16 workers and
    /// the default store.
    pub fn new(file: impl Into<PathBuf>) -> ServeOptions {
        ServeOptions {
            file: file.into(),
            store: None,
            port: 4400,
            listen: IpAddr::V4(Ipv4Addr::LOCALHOST),
            token: None,
            workers: 16,
            config: Config::default(),
            lease: steps::DEFAULT_LEASE,
            keep_versions: None,
            hot_instances: DEFAULT_HOT_INSTANCES,
        }
    }
}

/// A service bound to its port, with its program loaded and its store
/// open: [`Service::run`] answers requests until the process ends.
pub struct Service {
    engine: Arc<engine::Engine>,
    listener: TcpListener,
    access: http::Access,
    workers: usize,
    banner: String,
}

impl Service {
    /// Loads the program, opens the store and binds the port. An error is
    /// a sentence for the user (no `SenseError:` prefix).
    pub fn bind(options: ServeOptions) -> Result<Service, String> {
        let ServeOptions {
            file,
            store,
            port,
            listen,
            token,
            workers,
            mut config,
            lease,
            keep_versions,
            hot_instances,
        } = options;
        let token = token.filter(|t| !t.is_empty());
        if !listen.is_loopback() && token.is_none() {
            return Err(format!(
                "listening on {listen} (not loopback) requires a token: --token TOKEN or ${TOKEN_VAR}"
            ));
        }
        config.max_steps.get_or_insert(DEFAULT_RUN_STEPS);
        let program = program::Program::load(&file, config)?;
        let url = store.unwrap_or_else(|| default_store(&file));
        let store: Arc<dyn sense_store::Store> = match sense_store::open(&url) {
            Ok(s) => Arc::from(s),
            Err(e) => return Err(format!("cannot open the store: {e}")),
        };
        store.set_keep_versions(keep_versions);
        let listener = TcpListener::bind((listen, port))
            .map_err(|e| format!("cannot listen on {listen}:{port}: {e}"))?;
        let port = listener.local_addr().map_or(port, |a| a.port());
        let running = Arc::new(running::Running::default());
        running.watch(store.clone());
        let waiters = Arc::new(waiters::Waiters::default());
        waiters.serve(store.clone(), program.hash.clone());
        let shown_store = if url.starts_with("postgres") {
            "postgres".to_string()
        } else {
            url.clone()
        };
        let host = match listen {
            IpAddr::V6(a) => format!("[{a}]"),
            IpAddr::V4(a) => a.to_string(),
        };
        let banner = format!(
            "Sense service: http://{host}:{port}/ (program {} {}, store {shown_store}, {workers} workers; Ctrl-C to stop)",
            program.name, program.hash
        );
        let process = process_name();
        let leases = steps::Leases::start(store.clone(), lease, &process);
        let engine = Arc::new(engine::Engine {
            store,
            program,
            process,
            running,
            waiters,
            leases,
            texts: Arc::default(),
            hot: hot::Hot::new(hot_instances),
            timings: timing::Timings::from_env(),
        });
        Ok(Service {
            engine,
            listener,
            access: http::Access { token, port },
            workers,
            banner,
        })
    }

    /// The port the service listens on (useful after asking for port 0).
    pub fn port(&self) -> u16 {
        self.access.port
    }

    /// The line `sense serve` prints once it listens: address, program,
    /// store and workers.
    pub fn banner(&self) -> &str {
        &self.banner
    }

    /// Answers requests until the process ends; an error says why the
    /// server stopped.
    pub fn run(self) -> Result<(), String> {
        timers::serve(Arc::clone(&self.engine));
        http::run(self.engine, self.listener, self.access, self.workers)
            .map_err(|e| format!("the server stopped: {e}"))
    }
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
