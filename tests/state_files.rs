//! State files under concurrency, crashes and private permissions
//! (issue 18 items 5 and 6; issue 13's state-file guarantee): a state file
//! only ever holds its own run's old or new state, an answer is applied
//! exactly once or refused clearly, permissions survive a rewrite and
//! `kill -9` leaves no temporary files; paths that are not regular files
//! (FIFOs, directories) are refused, symbolic links written through, and
//! reads bounded (issue 27 item 3 and 5).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// An agent that collects answers forever; its pause reason counts them.
const COLLECTOR: &str = "\
agent collector:
    answers = []
    while true:
        a = ask_human(\"have \" + str(len(answers)))
        push(answers, a)

agent other:
    seen = []
    while true:
        b = ask_human(\"other has \" + str(len(seen)))
        push(seen, b)
";

/// A state of megabytes (100,000 strings kept across pauses), so
/// that reading, snapshotting and writing it take a while and a kill can
/// land in the middle of the write.
const SLOW: &str = "\
agent slow:
    big = []
    for i in range(100000):
        push(big, \"item \" + str(i))
    n = 0
    while true:
        a = ask_human(\"round \" + str(n))
        n = n + 1
";

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let p = std::env::temp_dir().join(format!("sense-state-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("temp dir");
        Dir(p)
    }
    fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).expect("write program");
        p
    }
    /// Every file name in the directory, sorted.
    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .expect("read dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sense"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sense runs")
}

fn run(args: &[&str]) -> Output {
    spawn(args).wait_with_output().expect("sense finishes")
}

fn ok(o: &Output) -> String {
    sense_testkit::success_stdout(o)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn start(program: &Path, agent: &str, state: &Path) {
    ok(&run(&["start", s(program), agent, "--state", s(state)]));
}

fn show(state: &Path) -> String {
    ok(&run(&["show", s(state)]))
}

/// The value line of local `name` in `sense show`'s output.
fn local(shown: &str, name: &str) -> String {
    let prefix = format!("{name} = ");
    shown
        .lines()
        .find_map(|l| l.trim().strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no local {name} in:\n{shown}"))
        .to_string()
}

/// A refused concurrent resume says why and exits 1.
fn assert_refused(o: &Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(
        err.contains("is in use by another sense start or resume; nothing was changed"),
        "unclear refusal: {err}"
    );
    assert!(o.stdout.is_empty(), "a refused resume ran the agent");
}

#[test]
fn concurrent_resumes_of_sibling_files_keep_their_own_agents() {
    let dir = Dir::new("siblings");
    let program = dir.file("p.sns", COLLECTOR);
    let (one, two) = (dir.0.join("job.1"), dir.0.join("job.2"));
    start(&program, "collector", &one);
    start(&program, "other", &two);
    for round in 0..30 {
        let a = spawn(&["resume", s(&one), &format!("\"a{round}\"")]);
        let b = spawn(&["resume", s(&two), &format!("\"b{round}\"")]);
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        assert_eq!(ok(&a), format!("paused: have {}\n", round + 1));
        assert_eq!(ok(&b), format!("paused: other has {}\n", round + 1));
    }
    let (shown1, shown2) = (show(&one), show(&two));
    // `*` marks the agent the file resumes (both agents are listed).
    assert!(shown1.contains("* agent collector: paused"), "{shown1}");
    assert!(shown2.contains("* agent other: paused"), "{shown2}");
    let expected = |p: &str| {
        let items: Vec<String> = (0..30).map(|r| format!("\"{p}{r}\"")).collect();
        format!("[{}]", items.join(", "))
    };
    assert_eq!(local(&shown1, "answers"), expected("a"));
    assert_eq!(local(&shown2, "seen"), expected("b"));
    assert_eq!(dir.names(), ["job.1", "job.2", "p.sns"]);
}

#[test]
fn concurrent_resumes_of_one_file_apply_each_answer_once_or_refuse() {
    let dir = Dir::new("one");
    let program = dir.file("p.sns", COLLECTOR);
    let state = dir.0.join("job.state");
    start(&program, "collector", &state);
    let mut applied: Vec<String> = Vec::new();
    let mut refusals = 0;
    for round in 0..50 {
        let answers = [format!("\"x{round}\""), format!("\"y{round}\"")];
        let children: Vec<Child> = answers
            .iter()
            .map(|a| spawn(&["resume", s(&state), a]))
            .collect();
        let mut succeeded = 0;
        for (answer, child) in answers.iter().zip(children) {
            let o = child.wait_with_output().unwrap();
            if o.status.success() {
                succeeded += 1;
                applied.push(answer.clone());
            } else {
                assert_refused(&o);
                refusals += 1;
            }
        }
        assert!(succeeded >= 1, "round {round}: both resumes refused");
        // Every successful resume is in the state, in the order it ran.
        let shown = show(&state);
        let answers = local(&shown, "answers");
        let mut got: Vec<&str> = answers
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(", ")
            .collect();
        assert_eq!(got.len(), applied.len(), "round {round}: {answers}");
        let mut want: Vec<&str> = applied.iter().map(String::as_str).collect();
        // Within a round the two may have run in either order.
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "round {round}");
    }
    eprintln!(
        "50 rounds: {} answers applied, {refusals} refused",
        applied.len()
    );
    assert_eq!(dir.names(), ["job.state", "p.sns"]);
}

#[test]
fn a_state_named_like_a_temporary_is_replaced_whole() {
    let dir = Dir::new("tmpname");
    let program = dir.file("p.sns", COLLECTOR);
    let state = dir.0.join("X.tmp-sense-state");
    start(&program, "collector", &state);
    ok(&run(&["resume", s(&state), "\"a\""]));
    assert_eq!(local(&show(&state), "answers"), "[\"a\"]");
    assert_eq!(dir.names(), ["X.tmp-sense-state", "p.sns"]);
}

#[cfg(unix)]
#[test]
fn permissions_are_kept_and_new_states_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Dir::new("perms");
    let program = dir.file("p.sns", COLLECTOR);
    let state = dir.0.join("p.state");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    start(&program, "collector", &state);
    assert_eq!(mode(&state), 0o600, "a new state is owner-only");
    ok(&run(&["resume", s(&state), "\"secret\""]));
    assert_eq!(mode(&state), 0o600, "a 600 state stays 600");
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o640)).unwrap();
    ok(&run(&["resume", s(&state), "\"more\""]));
    assert_eq!(mode(&state), 0o640, "a rewrite keeps the mode it found");
    // A start over an existing state keeps its mode too.
    start(&program, "collector", &state);
    assert_eq!(mode(&state), 0o640);
}

#[test]
fn stale_temporaries_are_removed_live_ones_and_other_files_kept() {
    let dir = Dir::new("stale");
    let program = dir.file("p.sns", COLLECTOR);
    let state = dir.0.join("p.state");
    start(&program, "collector", &state);
    // Left by a writer killed between naming its temporary and the rename.
    dir.file(".p.state.sense-tmp-1-0", "half a state");
    // Held by a writer that is still alive (this test holds its lock).
    let live = dir.file(".p.state.sense-tmp-2-0", "in progress");
    let held = std::fs::File::open(&live).unwrap();
    held.try_lock().expect("lock the live temporary");
    // Another state's temporary is not ours to judge.
    dir.file(".q.state.sense-tmp-3-0", "someone else's");
    ok(&run(&["resume", s(&state), "\"a\""]));
    if cfg!(target_os = "linux") {
        assert_eq!(
            dir.names(),
            [
                ".p.state.sense-tmp-2-0",
                ".q.state.sense-tmp-3-0",
                "p.sns",
                "p.state"
            ]
        );
    }
    drop(held);
}

#[test]
fn resume_refuses_while_another_holds_the_state() {
    let dir = Dir::new("held");
    let program = dir.file("p.sns", COLLECTOR);
    let state = dir.0.join("p.state");
    start(&program, "collector", &state);
    let before = std::fs::read(&state).unwrap();
    let held = std::fs::File::open(&state).unwrap();
    held.try_lock().expect("lock the state");
    assert_refused(&run(&["resume", s(&state), "\"a\""]));
    let o = run(&["start", s(&program), "collector", "--state", s(&state)]);
    assert_refused_start(&o);
    assert_eq!(std::fs::read(&state).unwrap(), before, "nothing changed");
    drop(held);
    ok(&run(&["resume", s(&state), "\"a\""]));
}

/// A start runs the program (and may print) before it finds the state held.
fn assert_refused_start(o: &Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(
        err.contains("is in use by another sense start or resume"),
        "{err}"
    );
}

#[test]
fn kill_during_resume_leaves_the_state_intact_and_no_temporaries() {
    let dir = Dir::new("kill");
    let program = dir.file("slow.sns", SLOW);
    let state = dir.0.join("p.state");
    start(&program, "slow", &state);
    // How long one resume takes here; kills land in its second half,
    // where the state is snapshotted and written.
    let t = std::time::Instant::now();
    ok(&run(&["resume", s(&state), "\"warm-up\""]));
    let full = t.elapsed().as_millis() as u64;
    // A fixed pseudo-random sequence of kill delays, so a failure repeats.
    let mut seed: u64 = 0x5eed;
    let mut survived = 0;
    for round in 0..20 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let delay = Duration::from_millis(full / 2 + (seed >> 33) % (full * 6 / 10 + 1));
        let before = show(&state);
        let mut child = spawn(&["resume", s(&state), &format!("\"r{round}\"")]);
        std::thread::sleep(delay);
        let _ = child.kill();
        let status = child.wait().unwrap();
        if status.success() {
            survived += 1;
        }
        let after = show(&state);
        // `show` succeeding means the file loads (checksum and all); it
        // holds the old state or, if the resume got that far, the new one.
        let next = format!("\"round {}\"", round_of(&before) + 1);
        assert!(
            after == before || after.contains(&next),
            "round {round}: neither the old nor the new state:\n{after}"
        );
        assert_eq!(dir.names(), ["p.state", "slow.sns"], "round {round}");
    }
    eprintln!("20 kills, {survived} resumes finished before the kill");
}

/// N from the pause reason `"round N"` in `sense show`'s output.
fn round_of(shown: &str) -> u64 {
    let at = shown.find("\"round ").expect("a round") + 7;
    shown[at..]
        .split('"')
        .next()
        .unwrap()
        .parse()
        .expect("a number")
}

// Issue 27 item 3: state paths that are not regular files.

/// Runs `sense ARGS`, failing the test (instead of hanging it) when the
/// command has not finished within 20 seconds.
fn run_within(args: &[&str]) -> Output {
    let mut child = spawn(args);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("wait").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("sense {args:?} hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("sense finishes")
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// A refusal names what the path is and that nothing was written.
fn assert_not_regular(o: &Output, what: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(
        err.contains(&format!("is {what}, not a regular file")),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert!(o.stdout.is_empty(), "the program ran: {err}");
}

#[cfg(unix)]
#[test]
fn a_fifo_as_state_is_refused_at_once_by_every_command() {
    let dir = Dir::new("fifo");
    let program = dir.file("p.sns", "print(\"ran\")\nagent a:\n    pause(\"p\")\n");
    let fifo = dir.0.join("p.state");
    mkfifo(&fifo);
    let st = s(&fifo);
    let what = "a FIFO (named pipe)";
    assert_not_regular(
        &run_within(&["start", s(&program), "a", "--state", st]),
        what,
    );
    assert_not_regular(&run_within(&["resume", st, "1"]), what);
    assert_not_regular(&run_within(&["show", st]), what);
    let meta = std::fs::symlink_metadata(&fifo).unwrap();
    use std::os::unix::fs::FileTypeExt;
    assert!(meta.file_type().is_fifo(), "the FIFO was replaced");
}

#[test]
fn a_directory_as_state_is_refused_and_left_alone() {
    let dir = Dir::new("dirstate");
    let program = dir.file("p.sns", "print(\"ran\")\nagent a:\n    pause(\"p\")\n");
    let sub = dir.0.join("d.state");
    std::fs::create_dir(&sub).unwrap();
    let o = run_within(&["start", s(&program), "a", "--state", s(&sub)]);
    assert_not_regular(&o, "a directory");
    assert_not_regular(&run_within(&["show", s(&sub)]), "a directory");
    assert!(sub.is_dir());
    assert_eq!(dir.names(), ["d.state", "p.sns"]);
}

#[cfg(unix)]
#[test]
fn a_fifo_planted_at_a_temporary_name_neither_blocks_nor_is_removed() {
    let dir = Dir::new("plant");
    let program = dir.file("p.sns", COLLECTOR);
    let state = dir.0.join("p.state");
    start(&program, "collector", &state);
    // Every name a writer of this process id could pick next, and one more.
    for n in 0..4 {
        mkfifo(&dir.0.join(format!(".p.state.sense-tmp-{n}-0")));
    }
    ok(&run_within(&["resume", s(&state), "\"a\""]));
    ok(&run_within(&["resume", s(&state), "\"b\""]));
    assert_eq!(local(&show(&state), "answers"), "[\"a\", \"b\"]");
    assert!(
        dir.0.join(".p.state.sense-tmp-0-0").exists(),
        "someone else's FIFO was removed"
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_state_is_written_through_to_its_target_and_stays_a_link() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Dir::new("link");
    let program = dir.file("p.sns", COLLECTOR);
    std::fs::create_dir(dir.0.join("real")).unwrap();
    let target = dir.0.join("real").join("p.state");
    let link = dir.0.join("p.state");
    std::os::unix::fs::symlink("real/p.state", &link).unwrap();
    // A start through a dangling link creates the target, owner-only.
    start(&program, "collector", &link);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(&target), 0o600);
    ok(&run(&["resume", s(&link), "\"a\""]));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        local(&show(&target), "answers"),
        "[\"a\"]",
        "the target is current"
    );
    assert_eq!(local(&show(&link), "answers"), "[\"a\"]");
    // A rewrite through the link keeps the target's mode, as any rewrite.
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    ok(&run(&["resume", s(&link), "\"b\""]));
    assert_eq!(mode(&target), 0o640);
    assert_eq!(dir.names(), ["p.sns", "p.state", "real"]);
}

#[test]
fn a_state_larger_than_any_snapshot_is_refused_without_reading_it() {
    let dir = Dir::new("huge");
    let state = dir.0.join("p.state");
    // Sparse: a terabyte that takes no disk space; reading it would take
    // hours and all memory.
    std::fs::File::create(&state)
        .unwrap()
        .set_len(1 << 40)
        .unwrap();
    let t = std::time::Instant::now();
    for args in [vec!["show", s(&state)], vec!["resume", s(&state), "1"]] {
        let o = run_within(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("more than the largest snapshot this runtime accepts"),
            "{err}"
        );
    }
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
}
