//! A program's imports resolve against the importing file's directory,
//! as under `sense run`, whatever the working directory of the process
//! that runs it: `sense serve` (on SQLite and PostgreSQL, and after a
//! restart from yet another directory) and `sense inspect` (a file, and a
//! state file). The C host's case is `tests/hosts/c/imports.c`. The
//! served case runs once per store, as trials `NAME::sqlite` and
//! `NAME::postgres` (see `sense_testkit::trials`).

use sense_testkit::inspect_server::Server;
use sense_testkit::serve::{Service, TempDir, create, id_of, resume, store};
use sense_testkit::trials::StoreKind;
use serde_json::{Value as Json, json};
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_sense");

/// `app/prog.sns` imports `app/helper.sns`, which imports
/// `app/lib/words.sns` (against its own directory, `app/`).
const PROGRAM: &str = r#"import helper

print(helper.greet("top level"))

agent greeter:
    name = ask_human("name?")
    print(helper.greet(name))
"#;
const HELPER: &str =
    "import lib.words\n\ndef greet(name):\n    return words.hello + \", \" + name + \"!\"\n";
const WORDS: &str = "hello = \"hello\"\n";

/// A temporary directory holding the program under `app/`, and an empty
/// directory `elsewhere/` beside it.
fn layout(test: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::new(test);
    std::fs::create_dir_all(dir.0.join("app/lib")).unwrap();
    std::fs::create_dir_all(dir.0.join("elsewhere")).unwrap();
    dir.write("app/prog.sns", PROGRAM);
    dir.write("app/helper.sns", HELPER);
    dir.write("app/lib/words.sns", WORDS);
    let elsewhere = dir.0.join("elsewhere");
    (dir, elsewhere)
}

/// What `sense run app/prog.sns` prints, run from `cwd`.
fn sense_run(cwd: &Path) -> String {
    let out = Command::new(BIN)
        .args(["run", "app/prog.sns"])
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn a_served_program_imports_beside_itself_from_any_directory(kind: StoreKind) {
    let (dir, elsewhere) = layout("served");
    assert_eq!(sense_run(&dir.0), "hello, top level!\n");
    let absolute = dir.0.join("app/prog.sns");
    let store = store(kind, &dir);
    // Started from the parent directory with a relative path.
    let mut first = Service::start_in(BIN, &dir.0, Path::new("app/prog.sns"), &store.url, &[]);
    let a = create(&first, "greeter");
    assert_eq!(a["status"], "paused", "{}: {a}", store.name);
    assert_eq!(a["pause_reason"], "name?");
    let (status, done) = resume(&first, &id_of(&a), json!("Ada"), None);
    assert_eq!(status, 200, "{}: {done}", store.name);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["output"], "hello, top level!\nhello, Ada!\n");
    let waiting = id_of(&create(&first, "greeter"));
    first.kill();
    // Restarted from an unrelated directory: the paused instance is
    // restored and answered, and new instances import as before.
    let second = Service::start_in(BIN, &elsewhere, &absolute, &store.url, &[]);
    let (status, done) = resume(&second, &waiting, json!("Bob"), None);
    assert_eq!(status, 200, "{}: {done}", store.name);
    assert_eq!(done["output"], "hello, top level!\nhello, Bob!\n");
    let c = create(&second, "greeter");
    assert_eq!(c["status"], "paused", "{}: {c}", store.name);
    let (status, done) = resume(&second, &id_of(&c), json!("Cy"), None);
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["output"], "hello, top level!\nhello, Cy!\n");
}

fn inspect_imports_beside_the_program_from_any_directory() {
    let (dir, elsewhere) = layout("inspect");
    let absolute = dir.0.join("app/prog.sns");
    for (cwd, program) in [
        (&dir.0, "app/prog.sns".to_string()),
        (&elsewhere, absolute.display().to_string()),
    ] {
        let s = Server::start(BIN, &cwd.display().to_string(), &[&program]);
        let state = get(s.port, "/api/state");
        assert_eq!(state["program"]["error"], Json::Null, "{state}");
        assert_eq!(get(s.port, "/api/output")["text"], "hello, top level!\n");
        s.stop();
    }
    // A state file saved by `sense start` in one directory, inspected and
    // answered from another.
    let st = dir.0.join("greeter.state");
    let out = Command::new(BIN)
        .args(["start", "app/prog.sns", "greeter", "--state"])
        .arg(&st)
        .current_dir(&dir.0)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let s = Server::start(
        BIN,
        &elsewhere.display().to_string(),
        &["--state", &st.display().to_string()],
    );
    let agents = get(s.port, "/api/agents");
    let serial = agents
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "greeter")
        .unwrap_or_else(|| panic!("{agents}"))["serial"]
        .clone();
    let (status, body) = sense_testkit::serve::raw(
        s.port,
        &post_request(
            s.port,
            &format!("/api/agents/{serial}/resume"),
            r#"{"value": "\"Di\""}"#,
        ),
    )
    .unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(
        get(s.port, "/api/output")["text"]
            .as_str()
            .unwrap()
            .ends_with("hello, Di!\n"),
        "{}",
        get(s.port, "/api/output")
    );
    s.stop();
}

fn get(port: u16, path: &str) -> Json {
    let (status, body) = sense_testkit::serve::call(port, "GET", path, None).unwrap();
    assert_eq!(status, 200, "{path}: {body}");
    body
}

/// A JSON POST from the console's own origin.
fn post_request(port: u16, path: &str, body: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n\
         Connection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn main() {
    sense_testkit::trials::run(sense_testkit::trials! {
        plain:
            inspect_imports_beside_the_program_from_any_directory;
        per_store:
            a_served_program_imports_beside_itself_from_any_directory;
    });
}
