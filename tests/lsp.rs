//! `sense lsp` end to end: a client speaking JSON-RPC with Content-Length
//! framing (the LSP base protocol) to the real binary over stdio, with
//! messages built and read through `lsp-types`. One session walks the
//! life of an editor: initialize, open a file with an error, receive its
//! diagnostic, fix it, hover, go to definition (in the file and into an
//! imported module), outline, completion, formatting, shutdown and exit.

use lsp_types::notification::{
    DidChangeTextDocument, DidOpenTextDocument, Exit, Initialized, Notification, PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, Initialize,
    Request, Shutdown,
};
use lsp_types::{
    CompletionParams, CompletionResponse, DiagnosticSeverity, DidChangeTextDocumentParams,
    DidOpenTextDocumentParams, DocumentFormattingParams, DocumentSymbolParams,
    DocumentSymbolResponse, FormattingOptions, GotoDefinitionParams, GotoDefinitionResponse,
    HoverContents, HoverParams, InitializeParams, InitializeResult, Position,
    PublishDiagnosticsParams, Range, TextDocumentContentChangeEvent, TextDocumentIdentifier,
    TextDocumentItem, TextDocumentPositionParams, TextEdit, Uri, VersionedTextDocumentIdentifier,
};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long any one answer may take before the test fails (no hangs).
const TIMEOUT: Duration = Duration::from_secs(20);

struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
}

/// Reads framed messages from the server until its stdout closes.
fn read_frames(out: impl Read, tx: std::sync::mpsc::Sender<Value>) {
    let mut r = BufReader::new(out);
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            if r.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                length = v.parse::<usize>().ok();
            }
        }
        let Some(n) = length else { return };
        let mut body = vec![0; n];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        let Ok(v) = serde_json::from_slice(&body) else {
            return;
        };
        if tx.send(v).is_err() {
            return;
        }
    }
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sense"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start sense lsp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, incoming) = channel();
        std::thread::spawn(move || read_frames(stdout, tx));
        Client {
            child,
            stdin,
            incoming,
            next_id: 1,
        }
    }

    /// A server that has answered `initialize` (its result returned) and
    /// been told `initialized`.
    fn initialized() -> (Client, InitializeResult) {
        let mut c = Client::start();
        let init: InitializeResult = c.request::<Initialize>(InitializeParams::default());
        c.notify::<Initialized>(lsp_types::InitializedParams {});
        (c, init)
    }

    /// Opens `uri` with `text` (version 1).
    fn open(&mut self, uri: &Uri, text: &str) {
        self.notify::<DidOpenTextDocument>(DidOpenTextDocumentParams {
            text_document: TextDocumentItem::new(uri.clone(), "sense".into(), 1, text.into()),
        });
    }

    /// Replaces the whole text of `uri` with `text`, as its `version`.
    fn change(&mut self, uri: &Uri, version: i32, text: String) {
        self.notify::<DidChangeTextDocument>(DidChangeTextDocumentParams {
            text_document: VersionedTextDocumentIdentifier::new(uri.clone(), version),
            content_changes: vec![TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text,
            }],
        });
    }

    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify<N: Notification>(&mut self, params: N::Params) {
        self.send(json!({"jsonrpc": "2.0", "method": N::METHOD, "params": params}));
    }

    /// Sends a request and waits for its response (notifications that
    /// arrive meanwhile are dropped); returns `result` or panics on `error`.
    fn request<R: Request>(&mut self, params: R::Params) -> R::Result {
        let v = self.request_raw::<R>(params);
        if let Some(e) = v.get("error") {
            panic!("{} failed: {e}", R::METHOD);
        }
        serde_json::from_value(v["result"].clone()).expect("result shape")
    }

    fn request_raw<R: Request>(&mut self, params: R::Params) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": R::METHOD, "params": params}));
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let v = self.recv(deadline);
            if v.get("id") == Some(&json!(id)) {
                return v;
            }
        }
    }

    fn recv(&mut self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.incoming.recv_timeout(left) {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => panic!("no message from sense lsp in time"),
            Err(RecvTimeoutError::Disconnected) => panic!("sense lsp closed its output"),
        }
    }

    /// The next `publishDiagnostics` for `uri`.
    fn diagnostics(&mut self, uri: &Uri) -> PublishDiagnosticsParams {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let v = self.recv(deadline);
            if v["method"] == PublishDiagnostics::METHOD {
                let p: PublishDiagnosticsParams =
                    serde_json::from_value(v["params"].clone()).unwrap();
                if &p.uri == uri {
                    return p;
                }
            }
        }
    }
}

fn scratch_dir() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("sense-lsp-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::canonicalize(&dir).unwrap()
}

/// A scratch directory holding `files` (name, text); the URI of the first.
fn scratch_files(files: &[(&str, &str)]) -> (PathBuf, Uri) {
    let dir = scratch_dir();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let first = files.first().map_or("", |(name, _)| name);
    let uri = uri_of(&dir.join(first));
    (dir, uri)
}

fn uri_of(path: &Path) -> Uri {
    format!("file://{}", path.display()).parse().unwrap()
}

fn at(uri: &Uri, line: u32, character: u32) -> TextDocumentPositionParams {
    TextDocumentPositionParams {
        text_document: TextDocumentIdentifier { uri: uri.clone() },
        position: Position::new(line, character),
    }
}

fn hover_text(c: &mut Client, uri: &Uri, line: u32, character: u32) -> String {
    let h = c
        .request::<HoverRequest>(HoverParams {
            text_document_position_params: at(uri, line, character),
            work_done_progress_params: Default::default(),
        })
        .expect("a hover");
    match h.contents {
        HoverContents::Markup(m) => m.value,
        other => panic!("unexpected hover {other:?}"),
    }
}

fn definition(c: &mut Client, uri: &Uri, line: u32, character: u32) -> (Uri, Range) {
    let r = c
        .request::<GotoDefinition>(GotoDefinitionParams {
            text_document_position_params: at(uri, line, character),
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        })
        .expect("a definition");
    match r {
        GotoDefinitionResponse::Scalar(l) => (l.uri, l.range),
        other => panic!("unexpected definition {other:?}"),
    }
}

const BROKEN: &str = "import \"helpers.sns\" as h\ndef greet(name: String) -> String:\n    return \"hi \" + name\nif true\n    print(greet(\"x\"))\n";

const FIXED: &str = "import \"helpers.sns\" as h\ndef greet(name: String) -> String:\n    return \"hi \" + name\ncount: Int = 2\nagent worker:\n    print(greet(\"x\"), count)\nprint(h.twice(count))\nx=[1,2]\n";

#[test]
fn an_editor_session() {
    let helpers = "def twice(n):\n    return n * 2\n";
    let (dir, uri) = scratch_files(&[("main.sns", BROKEN), ("helpers.sns", helpers)]);

    let (mut c, init) = Client::initialized();
    let caps = init.capabilities;
    assert!(caps.hover_provider.is_some());
    assert!(caps.definition_provider.is_some());
    assert!(caps.document_formatting_provider.is_some());
    assert!(caps.document_symbol_provider.is_some());
    assert!(caps.completion_provider.is_some());

    // A file with a syntax error: `if true` lacks its colon on line 4.
    c.open(&uri, BROKEN);
    let d = c.diagnostics(&uri);
    assert_eq!(d.diagnostics.len(), 1, "{d:?}");
    let diag = &d.diagnostics[0];
    assert_eq!(
        diag.message,
        "[line 4] expected ':' to start a block (got NEWLINE '')"
    );
    // The offending token is the line end after `if true` (line 3, 0-based).
    assert_eq!(diag.range.start, Position::new(3, 7), "{diag:?}");

    // Typing the fix clears it.
    c.change(&uri, 2, FIXED.into());
    let d = c.diagnostics(&uri);
    assert!(d.diagnostics.is_empty(), "{d:?}");
    assert_eq!(d.version, Some(2));

    // A misspelled builtin: a warning with a suggestion, on the name.
    c.change(&uri, 3, format!("{FIXED}prnt(count)\n"));
    let d = c.diagnostics(&uri);
    assert_eq!(d.diagnostics.len(), 1, "{d:?}");
    let w = &d.diagnostics[0];
    assert_eq!(w.severity, Some(DiagnosticSeverity::WARNING));
    assert_eq!(
        w.message,
        "undefined variable 'prnt' — did you mean `print`?"
    );
    assert_eq!(
        w.range,
        Range::new(Position::new(8, 0), Position::new(8, 4))
    );
    c.change(&uri, 4, FIXED.into());
    assert!(c.diagnostics(&uri).diagnostics.is_empty());

    // Hover: a builtin's signature and description, a declared type.
    let h = hover_text(&mut c, &uri, 5, 5);
    assert!(h.contains("print(values…)") && h.contains("builtin"), "{h}");
    let h = hover_text(&mut c, &uri, 5, 24);
    assert!(h.contains("count: Int"), "{h}");
    let h = hover_text(&mut c, &uri, 5, 12);
    assert!(h.contains("def greet(name: String) -> String"), "{h}");
    // A member of an imported module: its declaration there.
    let h = hover_text(&mut c, &uri, 6, 9);
    assert!(
        h.contains("def twice(n)") && h.contains("helpers.sns"),
        "{h}"
    );

    // Definition: a function used inside an agent; a module's member.
    let (u, r) = definition(&mut c, &uri, 5, 12);
    assert_eq!((u, r.start), (uri.clone(), Position::new(1, 4)));
    let (u, r) = definition(&mut c, &uri, 6, 9);
    assert_eq!(u, uri_of(&dir.join("helpers.sns")));
    assert_eq!(r.start, Position::new(0, 4));
    // The module's alias, where it is used: the module file.
    let (u, r) = definition(&mut c, &uri, 6, 6);
    assert_eq!(
        (u, r.start),
        (uri_of(&dir.join("helpers.sns")), Position::new(0, 0))
    );
    // A parameter used in the body.
    let (u, r) = definition(&mut c, &uri, 2, 22);
    assert_eq!((u, r.start), (uri.clone(), Position::new(1, 10)));

    // Outline.
    let s = c
        .request::<DocumentSymbolRequest>(DocumentSymbolParams {
            text_document: TextDocumentIdentifier { uri: uri.clone() },
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        })
        .expect("symbols");
    let DocumentSymbolResponse::Nested(s) = s else {
        panic!("flat symbols")
    };
    let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["h", "greet", "count", "worker", "x"]);

    // Completion inside the agent: keywords, builtins, names in scope.
    let labels = completion_labels(&mut c, &uri, 5, 4);
    for want in [
        "greet",
        "count",
        "worker",
        "print",
        "ask_human",
        "while",
        "agent",
        "try",
        "except",
        "SenseRuntimeError",
    ] {
        assert!(
            labels.iter().any(|l| l == want),
            "{want} missing from {labels:?}"
        );
    }

    // Formatting through the formatter behind `sense fmt`.
    let edits: Option<Vec<TextEdit>> = c.request::<Formatting>(DocumentFormattingParams {
        text_document: TextDocumentIdentifier { uri: uri.clone() },
        options: FormattingOptions {
            tab_size: 4,
            insert_spaces: true,
            ..Default::default()
        },
        work_done_progress_params: Default::default(),
    });
    let edits = edits.expect("edits");
    assert_eq!(edits.len(), 1);
    assert!(edits[0].new_text.ends_with("x = [1, 2]\n"), "{edits:?}");
    assert_eq!(edits[0].range.end, Position::new(8, 0));

    // Shutdown, then exit: the server ends with status 0.
    let v = c.request_raw::<Shutdown>(());
    assert_eq!(v["result"], Value::Null, "{v}");
    c.notify::<Exit>(());
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Some(s) = c.child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "sense lsp did not exit");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The document of the second session: a doc comment, a typed function,
/// a string, an array of strings, a built-in module.
const DATA: &str = "import json\n# Says hello.\n# Twice if asked.\ndef greet(name: String, times: Int) -> String:\n    return name\nwords: Array<String> = [\"a\"]\ns = \"a,b\"\ntotal = 0\nprint(greet(s, total), total)\n";

fn completion_labels(c: &mut Client, uri: &Uri, line: u32, character: u32) -> Vec<String> {
    let items = c
        .request::<Completion>(CompletionParams {
            text_document_position: at(uri, line, character),
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
            context: None,
        })
        .expect("completions");
    let CompletionResponse::Array(items) = items else {
        panic!("completion list")
    };
    items.into_iter().map(|i| i.label).collect()
}

#[test]
fn members_signatures_references_rename_and_checks() {
    let (dir, uri) = scratch_files(&[("data.sns", DATA)]);
    let (mut c, init) = Client::initialized();
    let caps = init.capabilities;
    assert!(caps.references_provider.is_some());
    assert!(caps.rename_provider.is_some());
    assert!(caps.signature_help_provider.is_some());
    let version = init.server_info.and_then(|i| i.version).unwrap_or_default();
    assert!(version.contains("Sense language 0.20.0"), "{version}");
    c.open(&uri, DATA);
    assert!(c.diagnostics(&uri).diagnostics.is_empty());

    // Half-typed lines do not parse: completion after `.` comes from the
    // last text that did.
    c.change(&uri, 2, format!("{DATA}s.\nwords.\njson.\n"));
    assert_eq!(c.diagnostics(&uri).diagnostics.len(), 1, "a syntax error");
    let labels = completion_labels(&mut c, &uri, 9, 2);
    for want in ["split", "strip", "replace", "starts_with", "join"] {
        assert!(labels.iter().any(|l| l == want), "{want} not in {labels:?}");
    }
    assert!(!labels.iter().any(|l| l == "print"), "{labels:?}");
    let labels = completion_labels(&mut c, &uri, 10, 6);
    for want in ["push", "pop", "sort", "map", "filter", "contains"] {
        assert!(labels.iter().any(|l| l == want), "{want} not in {labels:?}");
    }
    assert_eq!(completion_labels(&mut c, &uri, 11, 5), ["loads", "dumps"]);
    c.change(&uri, 3, DATA.into());
    assert!(c.diagnostics(&uri).diagnostics.is_empty());

    // Hover: the doc comment above a declaration.
    let h = hover_text(&mut c, &uri, 8, 7);
    assert!(
        h.contains("def greet(name: String, times: Int) -> String"),
        "{h}"
    );
    assert!(h.contains("Says hello.\nTwice if asked."), "{h}");

    // Signature help inside a call, on its second argument.
    let help = c
        .request::<lsp_types::request::SignatureHelpRequest>(lsp_types::SignatureHelpParams {
            context: None,
            text_document_position_params: at(&uri, 8, 15),
            work_done_progress_params: Default::default(),
        })
        .expect("signature help");
    assert_eq!(
        help.signatures[0].label,
        "def greet(name: String, times: Int) -> String"
    );
    assert_eq!(help.active_parameter, Some(1));

    // References to `total`, then a rename of it.
    let refs = c
        .request::<lsp_types::request::References>(lsp_types::ReferenceParams {
            text_document_position: at(&uri, 7, 0),
            context: lsp_types::ReferenceContext {
                include_declaration: true,
            },
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        })
        .expect("references");
    let lines: Vec<(u32, u32)> = refs
        .iter()
        .map(|l| (l.range.start.line, l.range.start.character))
        .collect();
    assert_eq!(lines, [(7, 0), (8, 15), (8, 23)]);
    let edit = c
        .request::<lsp_types::request::Rename>(lsp_types::RenameParams {
            text_document_position: at(&uri, 8, 23),
            new_name: "sum_so_far".into(),
            work_done_progress_params: Default::default(),
        })
        .expect("rename edits");
    let edits = &edit.changes.expect("changes")[&uri];
    assert_eq!(edits.len(), 3);
    let v = c.request_raw::<lsp_types::request::Rename>(lsp_types::RenameParams {
        text_document_position: at(&uri, 8, 23),
        new_name: "while".into(),
        work_done_progress_params: Default::default(),
    });
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("keyword"),
        "{v}"
    );

    // Mistakes found before running: arity, a literal against an
    // annotation, a missing module file.
    let wrong = format!("{DATA}greet(s)\nn: Int = \"three\"\nimport \"gone.sns\" as g\n");
    c.change(&uri, 4, wrong);
    let d = c.diagnostics(&uri);
    let messages: Vec<&str> = d.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert!(
        messages.contains(&"'greet' expects 2 argument(s), got 1"),
        "{messages:?}"
    );
    assert!(
        messages.contains(&"cannot assign value of type String to 'n: Int'"),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("module not found: 'gone.sns'")),
        "{messages:?}"
    );

    let _ = c.request_raw::<Shutdown>(());
    c.notify::<Exit>(());
    let _ = c.child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn formatting_a_broken_file_is_an_error_not_a_crash() {
    let (mut c, _) = Client::initialized();
    let uri: Uri = "untitled:Untitled-1".parse().unwrap();
    c.open(&uri, "x = (\n");
    let d = c.diagnostics(&uri);
    assert_eq!(d.diagnostics.len(), 1);
    let v = c.request_raw::<Formatting>(DocumentFormattingParams {
        text_document: TextDocumentIdentifier { uri },
        options: FormattingOptions::default(),
        work_done_progress_params: Default::default(),
    });
    let msg = v["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.starts_with("cannot format: [line"), "{v}");
    let _ = c.request_raw::<Shutdown>(());
    c.notify::<Exit>(());
    let _ = c.child.wait();
}

/// The grammar of editors/vscode names every keyword and every builtin of
/// the language, and no others (it is JSON, so it cannot read the Rust
/// lists; this keeps the two from drifting).
#[test]
fn grammar_knows_every_keyword_and_builtin() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("editors/vscode/syntaxes/sense.tmLanguage.json"))
        .expect("grammar file");
    let grammar: Value = serde_json::from_str(&text).expect("grammar is JSON");
    let words_of = |alternation: &str| -> Vec<String> {
        let inner = alternation
            .split_once("(?:")
            .and_then(|(_, r)| r.split_once(")\\b"))
            .map_or(alternation, |(w, _)| w);
        inner.split('|').map(str::to_string).collect()
    };
    let repo = &grammar["repository"];
    let mut keywords: Vec<String> = repo["keyword"]["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["match"].as_str().filter(|m| m.contains("(?:")))
        .flat_map(words_of)
        .chain(words_of(repo["constant"]["match"].as_str().unwrap()))
        .collect();
    keywords.sort();
    keywords.dedup();
    let mut want: Vec<String> = sense::syntax::token::keywords()
        .map(str::to_string)
        .collect();
    want.sort();
    assert_eq!(keywords, want, "keyword scopes of the grammar");

    let call = repo["call"]["patterns"][0]["match"].as_str().unwrap();
    let list = call
        .strip_prefix("\\b(")
        .and_then(|r| r.split_once(')'))
        .map(|(l, _)| l)
        .unwrap();
    let mut builtins: Vec<&str> = list.split('|').collect();
    builtins.sort();
    let mut natives: Vec<String> = sense::agents::kinds::builtins()
        .into_iter()
        .map(|n| n.name)
        .collect();
    natives.sort();
    assert_eq!(builtins, natives, "builtin scope of the grammar");
}
