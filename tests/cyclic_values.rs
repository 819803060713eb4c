//! Issue 18 item 1 through the CLI and the console: agents paused with a
//! value that contains itself (`push(c, c)`, a two-array cycle) or a DAG of
//! thirty arrays sharing sub-arrays — as a local or as the pause reason —
//! go through `sense start`, `sense show` and `GET /api/state` in seconds
//! with bounded output; a long local is previewed (`--full` prints it all).

use sense_testkit::inspect_server::Server;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const PROGRAMS: &[(&str, &str)] = &[
    (
        "self_reason",
        "    c = []\n    push(c, c)\n    push(c, c)\n    x = pause(c)\n",
    ),
    (
        "two_reason",
        "    p = []\n    q = [p]\n    push(p, q)\n    x = pause(p)\n",
    ),
    (
        "self_local",
        "    c = []\n    push(c, c)\n    push(c, c)\n    x = ask_human(\"q\")\n",
    ),
    (
        "dag_local",
        "    d = [1]\n    for i in range(30):\n        d = [d, d]\n    x = ask_human(\"q\")\n",
    ),
    (
        "dag_reason",
        "    d = [1]\n    for i in range(30):\n        d = [d, d]\n    x = pause(d)\n",
    ),
];

fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sense-cyclic-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sense(args: &[&str]) -> (Output, Duration) {
    let t = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_sense"))
        .args(args)
        .output()
        .expect("sense runs");
    (o, t.elapsed())
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Starts the program's agent into a state file, checking time and size.
fn start(dir: &Path, name: &str, body: &str) -> PathBuf {
    let program = dir.join(format!("{name}.sns"));
    std::fs::write(&program, format!("agent a:\n{body}")).unwrap();
    let state = dir.join(format!("{name}.state"));
    let (o, took) = sense(&["start", s(&program), "a", "--state", s(&state)]);
    assert!(
        o.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        took < Duration::from_secs(30),
        "{name}: start took {took:?}"
    );
    assert!(
        o.stdout.len() < 70_000,
        "{name}: start printed {} bytes",
        o.stdout.len()
    );
    state
}

#[test]
fn start_and_show_are_bounded() {
    let dir = dir("show");
    for (name, body) in PROGRAMS {
        let state = start(&dir, name, body);
        let (o, took) = sense(&["show", s(&state)]);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(took < Duration::from_secs(30), "{name}: show took {took:?}");
        assert!(
            text.len() < 10_000,
            "{name}: show printed {} bytes",
            text.len()
        );
        assert!(text.contains("* agent a: paused"), "{name}: {text}");
        if name.starts_with("self") {
            assert!(text.contains("[[...], [...]]"), "{name}: {text}");
        }
        if name.starts_with("dag") {
            assert!(
                text.contains("`sense show --full` prints them whole"),
                "{name}: {text}"
            );
            // --full is bounded too: the host copy stops at its budget.
            let (o, took) = sense(&["show", "--full", s(&state)]);
            assert!(o.status.success());
            assert!(
                took < Duration::from_secs(30),
                "{name}: show --full took {took:?}"
            );
            assert!(
                o.stdout.len() < 64 << 20,
                "{name}: {} bytes",
                o.stdout.len()
            );
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_long_local_is_previewed_and_whole_on_request() {
    let dir = dir("long");
    let state = start(
        &dir,
        "long",
        "    big = []\n    for i in range(400000):\n        push(big, i)\n    x = ask_human(\"q\")\n",
    );
    let (o, _) = sense(&["show", s(&state)]);
    let text = String::from_utf8_lossy(&o.stdout);
    let line = text.lines().find(|l| l.contains("big = ")).unwrap();
    assert!(line.len() < 1100 && line.ends_with("..."), "{line}");
    assert!(text.contains("--full"));
    let (o, _) = sense(&["show", "--full", s(&state)]);
    let text = String::from_utf8_lossy(&o.stdout);
    let line = text.lines().find(|l| l.contains("big = ")).unwrap();
    assert!(
        line.ends_with(", 399998, 399999]"),
        "{}",
        &line[line.len() - 40..]
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_console_serves_cyclic_and_shared_states() {
    let dir = dir("console");
    for (name, body) in PROGRAMS {
        let state = start(&dir, &format!("console_{name}"), body);
        let server = inspect(&["--state", s(&state)]);
        let t = Instant::now();
        let mut c = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        write!(
            c,
            "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            server.port
        )
        .unwrap();
        let mut answer = String::new();
        c.read_to_string(&mut answer).unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 200"),
            "{name}: {}",
            &answer[..answer.len().min(300)]
        );
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "{name}: {:?}",
            t.elapsed()
        );
        assert!(answer.len() < 1 << 20, "{name}: {} bytes", answer.len());
        if name.starts_with("dag") {
            assert!(answer.contains("\"truncated\":true"), "{name}");
        }
        server.stop();
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// `sense inspect ARGS` on a free port, run from this crate's directory.
fn inspect(args: &[&str]) -> Server {
    sense_testkit::inspect!(args)
}
