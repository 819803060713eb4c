//! For the `sense serve` tests and benchmark (feature `serve`): starting
//! and killing service processes, a minimal HTTP client, temporary
//! directories and stores. Test code: it panics on what a test must not
//! meet.

use crate::announced::spawn_announced;
pub use crate::temp_dir::TempDir;
use crate::trials::{StoreKind, require_postgres_url};
use sense_store::testing::TempDatabase;
use serde_json::{Value as Json, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

/// A store URL and what keeps it alive.
pub struct TestStore {
    /// `sqlite` or `postgres`.
    pub name: &'static str,
    /// What `sense serve --store` takes.
    pub url: String,
    _db: Option<TempDatabase>,
}

/// What a service test starts from: a temporary directory, a program
/// written in it, and a store of its kind.
pub struct Setup {
    /// The directory (removed when dropped).
    pub dir: TempDir,
    /// The program's path in it.
    pub program: PathBuf,
    /// The store.
    pub store: TestStore,
}

/// A [`Setup`] for test `test`: `source` written to `file` in a fresh
/// directory, and a fresh store of `kind`.
pub fn setup(test: &str, kind: StoreKind, file: &str, source: &str) -> Setup {
    let dir = TempDir::new(test);
    let program = dir.write(file, source);
    let store = store(kind, &dir);
    Setup {
        dir,
        program,
        store,
    }
}

/// The store of one trial of a per-store test: SQLite in `dir`, or a
/// fresh database on the PostgreSQL server the gate of
/// [`crate::trials::per_store`] found.
pub fn store(kind: StoreKind, dir: &TempDir) -> TestStore {
    match kind {
        StoreKind::Sqlite => TestStore {
            name: "sqlite",
            url: format!("sqlite:{}", dir.0.join("store.db").display()),
            _db: None,
        },
        StoreKind::Postgres => postgres_store(&require_postgres_url()),
    }
}

/// A fresh PostgreSQL database on `server`.
pub fn postgres_store(server: &str) -> TestStore {
    let db = TempDatabase::create(server).unwrap();
    TestStore {
        name: "postgres",
        url: db.url().to_string(),
        _db: Some(db),
    }
}

/// A running `sense serve` process, killed when dropped.
pub struct Service {
    child: Child,
    /// The port it listens on (on 127.0.0.1).
    pub port: u16,
}

impl Service {
    /// Starts `BIN serve PROGRAM --store URL --port 0 EXTRA…` (`bin` is
    /// the path of a `sense` binary) and waits for it to say where it
    /// listens.
    pub fn start(bin: &str, program: &Path, store: &str, extra: &[&str]) -> Service {
        Service::start_from(bin, None, program, store, extra)
    }

    /// [`Service::start`] with `cwd` as the process's working directory
    /// (`program` may then be relative to it).
    pub fn start_in(bin: &str, cwd: &Path, program: &Path, store: &str, extra: &[&str]) -> Service {
        Service::start_from(bin, Some(cwd), program, store, extra)
    }

    fn start_from(
        bin: &str,
        cwd: Option<&Path>,
        program: &Path,
        store: &str,
        extra: &[&str],
    ) -> Service {
        let mut command = Command::new(bin);
        if let Some(cwd) = cwd {
            command.current_dir(cwd);
        }
        command
            .arg("serve")
            .arg(program)
            .args(["--store", store, "--port", "0"])
            .args(extra);
        let (mut child, line) = spawn_announced(command, "sense serve");
        let port = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|hostport| hostport.rsplit(':').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| {
                let _ = child.kill();
                panic!("unexpected first line from sense serve: {line:?}")
            });
        Service { child, port }
    }

    /// SIGKILL, as a machine dying would.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// [`call`] on this service; panics if the request fails.
    pub fn call(&self, method: &str, path: &str, body: Option<Json>) -> (u16, Json) {
        call(self.port, method, path, body).unwrap_or_else(|e| panic!("{method} {path}: {e}"))
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One HTTP/1.1 request (connection closed after it); the status and the
/// JSON body (`null` if the body is not JSON).
pub fn call(
    port: u16,
    method: &str,
    path: &str,
    body: Option<Json>,
) -> std::io::Result<(u16, Json)> {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    raw(port, &format!("{head}{body}"))
}

/// Sends `request` as is; the status and JSON body of the answer.
pub fn raw(port: u16, request: &str) -> std::io::Result<(u16, Json)> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(120)))?;
    s.write_all(request.as_bytes())?;
    let mut text = Vec::new();
    s.read_to_end(&mut text)?;
    let text = String::from_utf8_lossy(&text);
    let (head, body) = text.split_once("\r\n\r\n").ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("no answer: {text:?}"),
        )
    })?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line: {head:?}")))?;
    Ok((status, serde_json::from_str(body).unwrap_or(Json::Null)))
}

/// Creates an instance of `agent` (asserting 200); the answer's body.
pub fn create(svc: &Service, agent: &str) -> Json {
    let (status, body) = svc.call("POST", "/api/instances", Some(json!({ "agent": agent })));
    assert_eq!(status, 200, "{body}");
    body
}

/// Resumes instance `id` with `value` (at `version`, if given).
pub fn resume(svc: &Service, id: &str, value: Json, version: Option<i64>) -> (u16, Json) {
    let mut req = json!({ "value": value });
    if let Some(v) = version {
        req["version"] = json!(v);
    }
    svc.call("POST", &format!("/api/instances/{id}/resume"), Some(req))
}

/// The `id` of an instance as the API returned it.
pub fn id_of(body: &Json) -> String {
    body["id"].as_str().expect("an id").to_string()
}
