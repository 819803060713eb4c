//! Issue 18 item 4: no client can stall `sense inspect`. Three POSTs that
//! announce a body and never send it do not delay a second client; a
//! stalled POST is dropped with 408 once the read timeout passes; a tool
//! that loops forever ends under the console's step budget. Issue 29:
//! with 200 stalled uploads open, 1,000 concurrent GETs are all answered
//! 200 within 2 s (a thread per connection capped at 64 answered most of
//! them 503), and the stalled uploads are then cut off with 408.

use sense_testkit::inspect_server::Server;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Sends `request` and reads the whole answer (the request closes).
fn exchange(port: u16, request: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.write_all(request.as_bytes()).expect("send");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("read the answer");
    out
}

fn get(port: u16, path: &str) -> String {
    exchange(
        port,
        &format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"),
    )
}

fn post(port: u16, path: &str, body: &str) -> String {
    exchange(
        port,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    )
}

/// Opens a POST that promises 5,000 bytes of body and sends a few.
fn stalled_post(port: u16) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let head = format!(
        "POST /api/agents/1/resume HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\
         Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{{\"value\": \""
    );
    s.write_all(head.as_bytes()).expect("send headers");
    s
}

/// A console serving the demo program, answering, with `n` uploads
/// stalled in the middle of their bodies (given time to be read from).
fn console_with_stalled_posts(n: usize) -> (Server, Vec<TcpStream>) {
    let s = inspect(&["tests/browser/demo.sns"]);
    assert!(get(s.port, "/api/state").starts_with("HTTP/1.1 200"));
    let stalled = (0..n).map(|_| stalled_post(s.port)).collect();
    std::thread::sleep(Duration::from_millis(300));
    (s, stalled)
}

#[test]
fn three_stalled_posts_do_not_delay_a_second_client() {
    let (s, stalled) = console_with_stalled_posts(3);
    for path in ["/api/state", "/api/agents", "/"] {
        let t = Instant::now();
        let answer = get(s.port, path);
        let took = t.elapsed();
        assert!(answer.starts_with("HTTP/1.1 200"), "{path}: {answer}");
        assert!(took < Duration::from_secs(1), "{path} took {took:?}");
    }
    // A POST from a well-behaved client is answered too.
    let t = Instant::now();
    let answer = post(s.port, "/api/tools/add/call", r#"{"args": ["2", "3"]}"#);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(r#""literal":"5""#), "{answer}");
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    drop(stalled);
    s.stop();
}

#[cfg(target_os = "linux")]
#[test]
fn a_stalled_post_is_dropped_with_408() {
    let s = inspect(&["tests/browser/demo.sns"]);
    let mut stalled = stalled_post(s.port);
    stalled
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let t = Instant::now();
    let mut answer = String::new();
    let _ = stalled.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("RequestTimeout"), "{answer}");
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    // The resume it promised never happened.
    assert!(get(s.port, "/api/agents").contains(r#""status":"paused""#));
    s.stop();
}

/// Sends `GET path` on `n` connections opened at once, then reads every
/// answer's status line.
fn concurrent_gets(port: u16, path: &str, n: usize) -> Vec<String> {
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    let mut open: Vec<TcpStream> = (0..n)
        .map(|_| {
            let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
            s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            s
        })
        .collect();
    for s in &mut open {
        s.write_all(request.as_bytes()).expect("send");
    }
    open.into_iter()
        .map(|mut s| {
            let mut out = String::new();
            let _ = s.read_to_string(&mut out);
            out.lines().next().unwrap_or("").to_string()
        })
        .collect()
}

#[test]
fn two_hundred_stalled_uploads_do_not_starve_a_thousand_gets() {
    let (s, stalled) = console_with_stalled_posts(200);
    let t = Instant::now();
    let statuses = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| concurrent_gets(s.port, "/api/state", 250)))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a client thread"))
            .collect::<Vec<_>>()
    });
    let took = t.elapsed();
    assert_eq!(statuses.len(), 1000);
    let refused: Vec<&String> = statuses
        .iter()
        .filter(|l| !l.starts_with("HTTP/1.1 200"))
        .collect();
    assert!(
        refused.is_empty(),
        "{} of 1000 not answered 200, e.g. {:?}",
        refused.len(),
        refused.first()
    );
    assert!(took < Duration::from_secs(2), "1000 GETs took {took:?}");
    // The stalled uploads are cut off once their body deadline passes.
    for mut c in stalled {
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut answer = String::new();
        let _ = c.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    }
    // Nothing was resumed, and the console still answers.
    assert!(get(s.port, "/api/agents").contains(r#""status":"paused""#));
    s.stop();
}

#[test]
fn a_tool_that_loops_forever_ends_under_the_step_budget() {
    let dir = std::env::temp_dir().join(format!("sense-inspect-spin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("spin.sns");
    std::fs::write(
        &program,
        "tool spin() returns Int \"Never returns.\":\n    i = 0\n    while true:\n        i = i + 1\n    return i\n",
    )
    .unwrap();
    let s = inspect(&[program.to_str().unwrap()]);
    let t = Instant::now();
    let answer = post(s.port, "/api/tools/spin/call", r#"{"args": []}"#);
    assert!(answer.starts_with("HTTP/1.1 422"), "{answer}");
    assert!(answer.contains("step budget exhausted"), "{answer}");
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    // The console goes on.
    let answer = get(s.port, "/api/tools");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    s.stop();
    let _ = std::fs::remove_dir_all(dir);
}

/// `sense inspect ARGS` on a free port, run from this crate's directory.
fn inspect(args: &[&str]) -> Server {
    sense_testkit::inspect!(args)
}
