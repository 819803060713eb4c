//! `sense serve` relays a running instance's streamed answer
//! (`ask(prompt, on_text: f)`) on its events stream: each piece arrives as
//! an `event: text` message, in order, before the state the run ends in.

use sense_testkit::serve::{Service, TempDir, create, id_of, resume};
use sense_testkit::trials::StoreKind;
use serde_json::{Value as Json, json};
use std::io::{BufRead, BufReader, Write};
use std::time::Duration;

const PROGRAM: &str = r#"
model m = inference("mock")
set delegation = m
def show(piece):
    print(piece)
agent writer:
    go = pause("ready")
    a = ask("the weather in " + go, on_text: show)
    pause("done: " + a.value)
"#;

/// The events of `GET /api/instances/{id}/events` until a state whose
/// pause reason starts with "done" (or the stream ends, or 20 s pass).
fn events_until_done(
    port: u16,
    id: &str,
    opened: std::sync::mpsc::Sender<()>,
) -> Vec<(String, Json)> {
    let mut conn = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connects");
    conn.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    write!(
        conn,
        "GET /api/instances/{id}/events HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n"
    )
    .expect("sends");
    let mut lines = BufReader::new(conn).lines();
    let mut events = Vec::new();
    let mut name = String::new();
    let mut told = false;
    while let Some(Ok(line)) = lines.next() {
        let line = line.trim_end().to_string();
        if let Some(n) = line.strip_prefix("event: ") {
            name = n.to_string();
        } else if let Some(d) = line.strip_prefix("data: ") {
            let data: Json = serde_json::from_str(d).expect("JSON data");
            let done = name == "state"
                && data["pause_reason"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("done"));
            events.push((name.clone(), data));
            if !told {
                told = true;
                let _ = opened.send(());
            }
            if done {
                break;
            }
        }
    }
    events
}

#[test]
fn a_streamed_answer_is_relayed_on_the_events_stream() {
    let dir = TempDir::new("serve-stream");
    let program = dir.write("stream.sns", PROGRAM);
    let store = sense_testkit::serve::store(StoreKind::Sqlite, &dir);
    let svc = Service::start(env!("CARGO_BIN_EXE_sense"), &program, &store.url, &[]);
    let first = create(&svc, "writer");
    assert_eq!(first["pause_reason"], "ready", "{first}");
    let id = id_of(&first);
    let (port, watched) = (svc.port, id.clone());
    let (opened, is_open) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || events_until_done(port, &watched, opened));
    is_open
        .recv_timeout(Duration::from_secs(20))
        .expect("the stream opens with the current state");
    let (status, body) = resume(&svc, &id, json!("Oslo"), None);
    assert_eq!(status, 200, "{body}");
    let events = reader.join().expect("the reader");
    let texts: Vec<&Json> = events
        .iter()
        .filter(|(n, _)| n == "text")
        .map(|(_, d)| d)
        .collect();
    let whole: String = texts.iter().filter_map(|d| d["text"].as_str()).collect();
    assert_eq!(whole, "(mock reasoning about: the weather in Oslo)");
    assert_eq!(texts.len(), 7, "one event per piece: {texts:?}");
    for t in &texts {
        assert_eq!(t["id"], json!(id));
        assert_eq!(t["agent"], "writer");
        assert_eq!(t["model"], "m");
    }
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"state"));
    assert_eq!(
        names.last(),
        Some(&"state"),
        "the final state comes after the pieces"
    );
    assert_eq!(
        events.last().map(|(_, d)| d["pause_reason"].clone()),
        Some(json!("done: (mock reasoning about: the weather in Oslo)"))
    );
}
