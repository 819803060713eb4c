//! `NAME.http` transcripts of the book: a `sense serve` session driven
//! with `curl`, checked the way `NAME.console` transcripts are.
//!
//! The first command is `$ sense serve FILE [FLAGS] --port N`: the test
//! starts it on a free port instead (in a fresh copy of the samples) and
//! compares its first line with N put back. Every later command is
//! `$ curl …` with the flags readers type — `-s`, `-X METHOD`,
//! `--json BODY` (POST with `Content-Type: application/json`), `-H HEADER`,
//! `-o /dev/null -w '%{http_code}\n'` — and an optional `| jq -c 'FILTER'`
//! where FILTER is a pipeline of paths (`.a.b`, `.items[]`) and object
//! constructions (`{id, status}`). The request is made here, over a plain
//! TCP connection; nothing runs `curl` or `jq`. In expected text `…`
//! stands for any run of characters other than a space (hashes, times).

use serde_json::{Map, Value as Json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A `sense serve` child, killed when dropped.
struct Service {
    child: Child,
    port: u16,
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `sense serve` with `args` (its `--port N` replaced by
/// `--port 0`) in `dir`; the service and its first line with the real
/// port replaced by N.
fn start(bin: &Path, dir: &Path, args: &[String]) -> Result<(Service, String), String> {
    let mut args = args.to_vec();
    let at = args
        .iter()
        .position(|a| a == "--port")
        .ok_or("the `sense serve` line needs `--port N`")?;
    let shown = args.get(at + 1).cloned().ok_or("`--port` without N")?;
    args[at + 1] = "0".to_string();
    let mut child = spawn_sense(bin, dir, &args, |c| {
        c.env_remove("SENSE_SERVE_TOKEN")
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
    })?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        let _ = reader.read_line(&mut line);
        let _ = tx.send(line);
        // Drain the rest so the service never blocks on a full pipe.
        let _ = reader.read_to_end(&mut Vec::new());
    });
    let mut svc = Service { child, port: 0 };
    let line = rx
        .recv_timeout(Duration::from_secs(60))
        .map_err(|_| "sense serve did not start within 60 s")?;
    let port = line
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse::<u16>().ok())
        .ok_or_else(|| format!("unexpected first line from sense serve: {line:?}"))?;
    svc.port = port;
    let line = line.replacen(
        &format!("127.0.0.1:{port}/"),
        &format!("127.0.0.1:{shown}/"),
        1,
    );
    Ok((svc, line))
}

/// One request as `curl` would make it.
struct Request {
    method: String,
    path: String,
    headers: Vec<String>,
    body: String,
    /// `-o /dev/null -w '%{http_code}\n'`: print the status only.
    status_only: bool,
}

fn parse_curl(argv: &[String]) -> Result<Request, String> {
    let mut req = Request {
        method: String::new(),
        path: String::new(),
        headers: Vec::new(),
        body: String::new(),
        status_only: false,
    };
    let (mut discard, mut write_code) = (false, false);
    let mut it = argv.iter().skip(1);
    while let Some(a) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("curl {flag} without a value"))
        };
        match a.as_str() {
            "-s" => {}
            "-X" => req.method = value("-X")?,
            m if m.starts_with("-X") => req.method = m[2..].to_string(),
            "-H" => req.headers.push(value("-H")?),
            "--json" => {
                req.body = value("--json")?;
                req.headers
                    .push("Content-Type: application/json".to_string());
                req.headers.push("Accept: application/json".to_string());
            }
            "-o" => discard = value("-o")? == "/dev/null",
            "-w" => write_code = value("-w")? == "%{http_code}\\n",
            url if !url.starts_with('-') => {
                let rest = url.strip_prefix("http://").unwrap_or(url);
                let rest = rest
                    .strip_prefix("localhost:")
                    .or_else(|| rest.strip_prefix("127.0.0.1:"))
                    .ok_or_else(|| format!("curl URL not on localhost: {url}"))?;
                let slash = rest.find('/').ok_or("curl URL without a path")?;
                req.path = rest[slash..].to_string();
            }
            other => return Err(format!("curl flag not supported here: {other}")),
        }
    }
    if discard != write_code {
        return Err("use `-o /dev/null -w '%{http_code}\\n'` together".to_string());
    }
    req.status_only = write_code;
    if req.method.is_empty() {
        req.method = if req.body.is_empty() { "GET" } else { "POST" }.to_string();
    }
    if req.path.is_empty() {
        return Err("curl without a URL".to_string());
    }
    Ok(req)
}

/// Makes `req` against the service; the status and the body.
fn send(port: u16, req: &Request) -> Result<(u16, String), String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(120)))
        .map_err(|e| e.to_string())?;
    let mut head = format!(
        "{} {} HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n",
        req.method, req.path
    );
    for h in &req.headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    if !req.body.is_empty() {
        head.push_str(&format!("Content-Length: {}\r\n", req.body.len()));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes())
        .and_then(|_| s.write_all(req.body.as_bytes()))
        .map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("no answer: {text:?}"))?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("bad status line: {head:?}"))?;
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return Err("chunked answers are not decoded here".to_string());
    }
    Ok((status, body.to_string()))
}

/// One stage of a jq filter applied to a stream of values.
fn jq_stage(stage: &str, input: Vec<Json>) -> Result<Vec<Json>, String> {
    let stage = stage.trim();
    if let Some(inner) = stage.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
        let keys: Vec<&str> = inner.split(',').map(str::trim).collect();
        return Ok(input
            .into_iter()
            .map(|v| {
                let mut m = Map::new();
                for k in &keys {
                    m.insert(k.to_string(), v.get(*k).cloned().unwrap_or(Json::Null));
                }
                Json::Object(m)
            })
            .collect());
    }
    let mut path = stage
        .strip_prefix('.')
        .ok_or_else(|| format!("jq filter not supported here: {stage}"))?;
    let mut values = input;
    while !path.is_empty() {
        if let Some(rest) = path.strip_prefix("[]") {
            values = values
                .into_iter()
                .flat_map(|v| v.as_array().cloned().unwrap_or_default())
                .collect();
            path = rest.strip_prefix('.').unwrap_or(rest);
            continue;
        }
        let end = path.find(['.', '[']).unwrap_or(path.len());
        let key = &path[..end];
        values = values
            .into_iter()
            .map(|v| v.get(key).cloned().unwrap_or(Json::Null))
            .collect();
        path = &path[end..];
        path = path.strip_prefix('.').unwrap_or(path);
    }
    Ok(values)
}

/// `jq -c FILTER` over one JSON text: one compact value per line. Object
/// keys keep the filter's order (serde_json's map keeps insertion order
/// only with `preserve_order`, so constructed objects print by hand).
fn jq(filter: &str, body: &str) -> Result<String, String> {
    let value: Json = serde_json::from_str(body).map_err(|e| format!("not JSON ({e}): {body}"))?;
    let mut stream = vec![value];
    let stages: Vec<&str> = filter.split('|').collect();
    let last_keys: Option<Vec<String>> = stages.last().and_then(|s| {
        let s = s.trim();
        s.strip_prefix('{')
            .and_then(|s| s.strip_suffix('}'))
            .map(|inner| inner.split(',').map(|k| k.trim().to_string()).collect())
    });
    for stage in &stages {
        stream = jq_stage(stage, stream)?;
    }
    let mut out = String::new();
    for v in stream {
        match (&last_keys, &v) {
            (Some(keys), Json::Object(m)) => {
                let fields: Vec<String> = keys
                    .iter()
                    .map(|k| format!("{}:{}", Json::String(k.clone()), m[k.as_str()]))
                    .collect();
                out.push_str(&format!("{{{}}}", fields.join(",")));
            }
            _ => out.push_str(&v.to_string()),
        }
        out.push('\n');
    }
    Ok(out)
}

/// Whether `got` matches `want`, where `…` in `want` stands for one or
/// more characters other than a space or a newline.
pub fn matches(want: &str, got: &str) -> bool {
    match want.split_once('…') {
        None => want == got,
        Some((lit, rest)) => {
            let Some(tail) = got.strip_prefix(lit) else {
                return false;
            };
            let run = tail
                .char_indices()
                .find(|(_, c)| *c == ' ' || *c == '\n')
                .map_or(tail.len(), |(i, _)| i);
            // Try the longest run first, then shorter ones.
            (1..=run)
                .rev()
                .any(|n| tail.is_char_boundary(n) && matches(rest, &tail[n..]))
        }
    }
}

/// Starts the `sense` binary `bin` in `dir` with `args`, without colours
/// and with its stdout piped; `setup` does the rest (environment, stdin,
/// stderr).
pub fn spawn_sense(
    bin: &Path,
    dir: &Path,
    args: &[String],
    setup: impl FnOnce(&mut Command) -> &mut Command,
) -> Result<Child, String> {
    let mut command = Command::new(bin);
    command.args(args).current_dir(dir).env("NO_COLOR", "1");
    setup(command.stdout(Stdio::piped()))
        .spawn()
        .map_err(|e| format!("cannot run sense: {e}"))
}

/// A transcript's `$ ` commands, each with the text expected after it
/// (the lines up to the next command).
pub fn steps(script: &str) -> Result<Vec<(String, String)>, String> {
    let mut steps: Vec<(String, String)> = Vec::new();
    for line in script.lines() {
        if let Some(cmd) = line.strip_prefix("$ ") {
            steps.push((cmd.to_string(), String::new()));
        } else if let Some((_, expected)) = steps.last_mut() {
            expected.push_str(line);
            expected.push('\n');
        } else {
            return Err("text before the first `$ ` command".to_string());
        }
    }
    Ok(steps)
}

/// Runs one `.http` transcript in `dir` (a fresh copy of the samples).
/// `words` splits a command line as the console transcripts do.
pub fn run(
    bin: &Path,
    dir: &Path,
    script: &str,
    words: impl Fn(&str) -> Result<Vec<String>, String>,
) -> Result<(), String> {
    let mut steps = steps(script)?.into_iter();
    let (first, expected) = steps.next().ok_or("an empty transcript")?;
    let argv = words(&first)?;
    if argv.first().map(String::as_str) != Some("sense")
        || argv.get(1).map(String::as_str) != Some("serve")
    {
        return Err(format!(
            "the first command must be `sense serve …`: `{first}`"
        ));
    }
    let (svc, line) = start(bin, dir, &argv[1..])?;
    if !matches(&expected, &line) {
        return Err(format!(
            "`{first}` printed\n{line}--- but the transcript says\n{expected}---"
        ));
    }
    for (cmd, expected) in steps {
        let (curl, filter) = match cmd.split_once(" | jq -c ") {
            Some((c, f)) => {
                let f = words(f)?;
                if f.len() != 1 {
                    return Err(format!("one quoted jq filter expected: `{cmd}`"));
                }
                (c.to_string(), Some(f[0].clone()))
            }
            None => (cmd.clone(), None),
        };
        let argv = words(&curl)?;
        if argv.first().map(String::as_str) != Some("curl") {
            return Err(format!(
                "only `curl` commands follow `sense serve`: `{cmd}`"
            ));
        }
        let req = parse_curl(&argv)?;
        let (status, body) = send(svc.port, &req)?;
        let got = if req.status_only {
            format!("{status}\n")
        } else {
            match &filter {
                Some(f) => jq(f, &body)?,
                None => format!("{body}\n"),
            }
        };
        if !matches(&expected, &got) {
            return Err(format!(
                "`{cmd}` (HTTP {status}) printed\n{got}--- but the transcript says\n{expected}---"
            ));
        }
    }
    Ok(())
}
