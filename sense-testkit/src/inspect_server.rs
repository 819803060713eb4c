//! `sense inspect … --port 0` for a test: starts it, reads the URL it
//! prints, and kills it when the handle is dropped. Used by the console
//! tests of the root crate (`inspect_api`, `inspect_stall`, `browser`,
//! `cyclic_values`), which pass `env!("CARGO_BIN_EXE_sense")` and their
//! crate directory.

use crate::announced::spawn_announced;
use std::process::{Child, Command};

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
        let mut command = Command::new(sense);
        command
            .arg("inspect")
            .args(args)
            .args(["--port", "0"])
            .current_dir(dir);
        let (child, line) = spawn_announced(command, &format!("sense inspect {args:?}"));
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
