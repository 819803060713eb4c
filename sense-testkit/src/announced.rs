//! Starting a server process that announces itself on its first line of
//! standard output (`sense inspect`, `sense serve`), shared by their test
//! handles.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Spawns `command` (standard input closed, standard error inherited) and
/// returns it with its first line of standard output, waiting up to a
/// minute. The rest of its output is drained in the background, so the
/// process never blocks on a full pipe. Panics (it is test code), killing
/// the process, if it prints nothing in time; `what` names it.
pub fn spawn_announced(mut command: Command, what: &str) -> (Child, String) {
    let mut child = crate::spawn_piped(&mut command, Stdio::null(), Stdio::inherit());
    let Some(stdout) = child.stdout.take() else {
        panic!("{what}: stdout is not piped");
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let mut reader = BufReader::new(stdout);
        let _ = reader.read_line(&mut line);
        let _ = tx.send(line);
        let _ = std::io::copy(&mut reader, &mut std::io::sink());
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(line) if !line.is_empty() => (child, line.trim_end().to_string()),
        _ => {
            let _ = child.kill();
            let status = child.wait().ok();
            panic!("{what} printed no first line within 60 s (exit: {status:?})");
        }
    }
}
