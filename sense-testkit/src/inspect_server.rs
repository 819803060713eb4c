//! `sense inspect … --port 0` for a test: starts it, reads the URL it
//! prints, and kills it when the handle is dropped. Used by the console
//! tests of the root crate (`inspect_api`, `inspect_stall`, `browser`,
//! `cyclic_values`), which pass `env!("CARGO_BIN_EXE_sense")` and their
//! crate directory.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running `sense inspect`.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT/`
    pub url: String,
    /// The port it listens on.
    pub port: u16,
}

impl Server {
    /// Runs `SENSE inspect ARGS --port 0` (`sense` is the binary's path)
    /// in `dir` and waits (up to a minute) for its `Sense inspector: URL`
    /// line. Panics (it is test code) if the server does not start.
    pub fn start(sense: &str, dir: &str, args: &[&str]) -> Server {
        let mut child = Command::new(sense)
            .arg("inspect")
            .args(args)
            .args(["--port", "0"])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("sense inspect starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
        let line = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => line,
            Err(_) => {
                let _ = child.kill();
                let status = child.wait().ok();
                panic!("sense inspect {args:?} printed no URL (exit: {status:?})");
            }
        };
        let url = line
            .strip_prefix("Sense inspector: ")
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
            .to_string();
        let port = url
            .trim_start_matches("http://127.0.0.1:")
            .trim_end_matches('/')
            .parse()
            .unwrap_or_else(|_| panic!("no port in {url:?}"));
        Server { child, url, port }
    }

    /// Stops the server and waits for it to exit.
    pub fn stop(mut self) {
        self.kill();
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `sense inspect ARGS` on a free port, run from the calling crate's
/// directory with its `sense` binary (a macro, so that `env!` reads the
/// caller's build): `sense_testkit::inspect!(&["demo.sns"])`.
#[macro_export]
macro_rules! inspect {
    ($args:expr) => {
        $crate::inspect_server::Server::start(
            env!("CARGO_BIN_EXE_sense"),
            env!("CARGO_MANIFEST_DIR"),
            $args,
        )
    };
}
