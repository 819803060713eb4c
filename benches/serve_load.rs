//! Load for `sense serve` (figures in BENCHMARKS.md; benches/serve_bench.sh
//! runs every configuration):
//!
//! * `throughput STORE PROCESSES SECONDS CLIENTS INSTANCES` — answers per
//!   second and latency percentiles of `POST …/resume` over keep-alive
//!   HTTP, with PROCESSES `sense serve` processes on one store;
//! * `million STORE COUNT` — fills a store with COUNT paused instances
//!   (bulk insert of one real snapshot under COUNT ids), then reports
//!   the time that took, the store's size, and the latency of answering
//!   one of them and of listing the first page through a service.
//!
//! STORE is `sqlite` (a file in the temp dir) or `postgres` (a database
//! created on the server in SENSE_TEST_POSTGRES_URL and dropped after).
//! SENSE_SERVE_BIN names another `sense` binary to measure instead of
//! this build's (SENSE_SERVE_LABEL names it in the report lines), and
//! SENSE_SERVE_ARGS more flags for every `sense serve` it starts:
//! benches/serve_bench.sh uses them to measure a baseline revision and
//! this one side by side.

use sense_store::testing::TempDatabase;
use sense_store::{Event, NewInstance, Record, Status};
use sense_testkit::serve::{Service, TempDir};
use serde_json::{Value as Json, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const PROGRAM: &str = r#"
agent echo:
    n = 0
    while true:
        n = n + 1
        answer = ask_human("question " + str(n))
"#;

/// A keep-alive HTTP/1.1 connection.
struct Conn {
    port: u16,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    fn open(port: u16) -> Conn {
        let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_nodelay(true).unwrap();
        Conn {
            port,
            reader: BufReader::new(s.try_clone().unwrap()),
            writer: s,
        }
    }

    fn call(&mut self, method: &str, path: &str, body: &Json) -> (u16, Json) {
        let body = body.to_string();
        write!(
            self.writer,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.port,
            body.len()
        )
        .unwrap();
        let mut status = 0;
        let mut length = 0;
        let mut line = String::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line).unwrap();
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some(s) = l.strip_prefix("HTTP/1.1 ") {
                status = s[..3].parse().unwrap();
            } else if let Some((k, v)) = l.split_once(':')
                && k.eq_ignore_ascii_case("content-length")
            {
                length = v.trim().parse().unwrap();
            }
        }
        let mut buf = vec![0; length];
        self.reader.read_exact(&mut buf).unwrap();
        (status, serde_json::from_slice(&buf).unwrap_or(Json::Null))
    }
}

/// A store URL and what keeps it alive.
fn store(kind: &str, dir: &TempDir) -> (String, Option<TempDatabase>) {
    match kind {
        "sqlite" => (format!("sqlite:{}", dir.0.join("bench.db").display()), None),
        "postgres" => {
            let server = std::env::var("SENSE_TEST_POSTGRES_URL")
                .expect("SENSE_TEST_POSTGRES_URL (source .ci/setup.d/10-postgres.sh)");
            let db = TempDatabase::create(&server).unwrap();
            (db.url().to_string(), Some(db))
        }
        other => panic!("unknown store {other} (sqlite or postgres)"),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn throughput(kind: &str, processes: usize, seconds: u64, clients: usize, instances: usize) {
    let dir = TempDir::new("bench");
    let program = dir.write("echo.sns", PROGRAM);
    let (url, _db) = store(kind, &dir);
    let services: Vec<Service> = (0..processes).map(|_| serve(&program, &url, &[])).collect();
    let ports: Vec<u16> = services.iter().map(|s| s.port).collect();
    let mut setup = Conn::open(ports[0]);
    let mut ids = Vec::with_capacity(instances);
    for _ in 0..instances {
        let (status, body) = setup.call("POST", "/api/instances", &json!({"agent": "echo"}));
        assert_eq!(status, 200, "{body}");
        ids.push((
            body["id"].as_str().unwrap().to_string(),
            body["version"].as_i64().unwrap(),
        ));
    }
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let mine: Vec<(String, i64)> = ids.iter().skip(c).step_by(clients).cloned().collect();
            let port = ports[c % ports.len()];
            std::thread::spawn(move || {
                let mut conn = Conn::open(port);
                let mut mine = mine;
                let mut lat = Vec::new();
                let mut conflicts = 0;
                let mut i = 0;
                while Instant::now() < deadline {
                    let len = mine.len();
                    let (id, version) = &mut mine[i % len];
                    let t = Instant::now();
                    let (status, body) = conn.call(
                        "POST",
                        &format!("/api/instances/{id}/resume"),
                        &json!({"value": "ok", "version": *version}),
                    );
                    lat.push(t.elapsed());
                    match status {
                        200 => *version = body["version"].as_i64().unwrap(),
                        409 => conflicts += 1,
                        _ => panic!("{status} {body}"),
                    }
                    i += 1;
                }
                (lat, conflicts)
            })
        })
        .collect();
    let mut lat = Vec::new();
    let mut conflicts = 0;
    for t in threads {
        let (l, c) = t.join().unwrap();
        lat.extend(l);
        conflicts += c;
    }
    lat.sort();
    let rss: Vec<String> = ports.iter().map(|&p| rss_mb(p)).collect();
    let s = sense_store::open(&url).unwrap();
    let mean_snapshot: f64 = s
        .list(&sense_store::ListQuery {
            status: Some(Status::Paused),
            after: 0,
            limit: 1000,
        })
        .unwrap()
        .iter()
        .map(|x| x.snapshot_bytes as f64)
        .sum::<f64>()
        / instances.min(1000) as f64;
    println!(
        "[{}] throughput store={kind} processes={processes} clients={clients} instances={instances}: \
         {} answers in {seconds} s = {:.0} answers/s; latency p50 {} p99 {}; conflicts {conflicts}; \
         snapshot {mean_snapshot:.0} B/instance; store {} B after the run; resident {} MB per process",
        build_label(),
        lat.len(),
        lat.len() as f64 / seconds as f64,
        ms(percentile(&lat, 0.5)),
        ms(percentile(&lat, 0.99)),
        s.size_bytes().unwrap(),
        rss.join("/")
    );
}

/// The resident memory of the process listening on `port`, in MB (`?`
/// when `ss` or /proc cannot tell).
fn rss_mb(port: u16) -> String {
    let out = std::process::Command::new("ss")
        .args(["-ltnpH", &format!("sport = :{port}")])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let pid = out
        .split("pid=")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .map(str::to_string);
    let kb = pid
        .and_then(|pid| std::fs::read_to_string(format!("/proc/{pid}/status")).ok())
        .and_then(|st| {
            st.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse::<f64>().ok())
        });
    kb.map_or_else(|| "?".to_string(), |kb| format!("{:.0}", kb / 1024.0))
}

fn million(kind: &str, count: usize) {
    let dir = TempDir::new("million");
    let program = dir.write("echo.sns", PROGRAM);
    let (url, _db) = store(kind, &dir);
    let svc = serve(&program, &url, &[]);
    let mut conn = Conn::open(svc.port);
    let (_, first) = conn.call("POST", "/api/instances", &json!({"agent": "echo"}));
    let s = sense_store::open(&url).unwrap();
    let template = s.load(first["id"].as_str().unwrap()).unwrap().unwrap();
    let record = Record {
        status: Status::Paused,
        pause_reason: template.summary.pause_reason.clone(),
        pause_kind: template.summary.pause_kind.clone(),
        error: None,
        output: String::new(),
        snapshot: template.snapshot.clone(),
        clears_pause_request: false,
        wake_at: None,
    };
    let t = Instant::now();
    let batch = 10_000;
    for start in (0..count).step_by(batch) {
        let rows: Vec<NewInstance> = (start..(start + batch).min(count))
            .map(|k| {
                NewInstance::new(
                    &format!("m{k:07}"),
                    "echo",
                    &template.summary.program_name,
                    &template.summary.program_hash,
                    record.clone(),
                )
            })
            .collect();
        s.create_many(&rows, &Event::new("created", "{}")).unwrap();
    }
    let created = t.elapsed();
    let size = s.size_bytes().unwrap();
    // The service closes connections idle for longer than its 10 s head
    // deadline: connect again after the bulk insert.
    let mut conn = Conn::open(svc.port);
    let mut answers = Vec::new();
    for k in 0..21 {
        let id = format!("m{:07}", (k * 47_123 + 11) % count);
        let t = Instant::now();
        let (status, body) = conn.call(
            "POST",
            &format!("/api/instances/{id}/resume"),
            &json!({"value": 1, "version": 1}),
        );
        answers.push(t.elapsed());
        assert_eq!(status, 200, "{body}");
    }
    answers.sort();
    let t = Instant::now();
    let (status, page) = conn.call("GET", "/api/instances?status=paused&limit=100", &Json::Null);
    let list = t.elapsed();
    assert_eq!(status, 200, "{page}");
    assert_eq!(
        page["instances"].as_array().map(Vec::len),
        Some(100),
        "{page}"
    );
    println!(
        "[{}] million store={kind}: {} paused instances created in {:.1} s ({:.0}/s, bulk insert of one {} B snapshot); \
         store {:.1} MB ({:.0} B/instance incl. audit and indexes); answer one: median {} (max {} of 21); \
         first page of 100 paused: {}",
        build_label(),
        s.count(None).unwrap(),
        created.as_secs_f64(),
        count as f64 / created.as_secs_f64(),
        template.snapshot.len(),
        size as f64 / 1e6,
        size as f64 / count as f64,
        ms(answers[10]),
        ms(answers[20]),
        ms(list),
    );
}

fn main() {
    // `cargo bench` passes `--bench`; the rest are ours.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.to_string());
    match arg(0, "").as_str() {
        "throughput" => throughput(
            &arg(1, "sqlite"),
            arg(2, "1").parse().unwrap(),
            arg(3, "10").parse().unwrap(),
            arg(4, "16").parse().unwrap(),
            arg(5, "1000").parse().unwrap(),
        ),
        "million" => million(&arg(1, "sqlite"), arg(2, "1000000").parse().unwrap()),
        _ => eprintln!(
            "usage: cargo bench --bench serve_load -- throughput STORE PROCESSES SECONDS CLIENTS INSTANCES\n\
             \x20      cargo bench --bench serve_load -- million STORE COUNT\n\
             (see benches/serve_bench.sh)"
        ),
    }
}

/// The variable naming another `sense` binary to measure (e.g. one built
/// from an earlier revision, for figures side by side in one run).
const BIN_VAR: &str = "SENSE_SERVE_BIN";

/// `sense serve PROGRAM --store STORE --port 0 EXTRA…`: this crate's
/// binary, or the one [`BIN_VAR`] names.
fn serve(program: &std::path::Path, store: &str, extra: &[&str]) -> Service {
    let bin = std::env::var(BIN_VAR).unwrap_or_else(|_| env!("CARGO_BIN_EXE_sense").to_string());
    // More flags for every service (e.g. `--hot-instances 0`).
    let more = std::env::var("SENSE_SERVE_ARGS").unwrap_or_default();
    let mut args: Vec<&str> = extra.to_vec();
    args.extend(more.split_whitespace());
    Service::start(&bin, program, store, &args)
}

/// Which binary is measured, for the report lines.
fn build_label() -> String {
    std::env::var("SENSE_SERVE_LABEL").unwrap_or_else(|_| "this build".to_string())
}
