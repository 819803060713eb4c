//! Durable agents through the CLI: a program that asks three questions from
//! inside nested calls and a loop gives the same final output when every
//! answer arrives in a new `sense resume` process as when it runs in one.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// An agent that sleeps half a second between two prints.
const NAPPER: &str = "import time\nagent napper:\n    print(\"before\")\n    time.sleep(0.5)\n    print(\"after\")\n";

/// An agent asking twice, with a deadline of half a second, then of ten
/// minutes.
const APPROVER: &str = "agent approver:\n    a = ask_human(\"Approve?\", 0.5)\n    print(f\"answer: {a}\")\n    b = ask_human(\"Again?\", 600)\n    print(f\"again: {b}\")\n";

fn sense(args: &[&str], stdin: &str) -> Output {
    sense_testkit::output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_sense"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR")),
        stdin.as_bytes(),
    )
}

fn stdout(o: &Output) -> String {
    sense_testkit::success_stdout(o)
}

fn state_file(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("sense-durable-{}-{name}.state", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

/// The agent's summary line (the one-process run prints it right after an
/// input prompt, on the same line).
/// An agent started into a state file by `sense start`: the program and
/// state files (removed when dropped) and what the command printed.
struct Started {
    /// The program written for the test (none for an example).
    program: Option<PathBuf>,
    state: PathBuf,
    printed: String,
}

impl Started {
    /// Writes `source` to a program file named after `name` in the temp
    /// directory and starts its agent `agent` into a fresh state file.
    fn new(name: &str, source: &str, agent: &str) -> Started {
        let program =
            std::env::temp_dir().join(format!("sense-durable-{}-{name}.sns", std::process::id()));
        std::fs::write(&program, source).expect("write program");
        let mut started = Started::example(name, path_str(&program), agent);
        started.program = Some(program);
        started
    }

    /// Starts agent `agent` of the program at `program` (relative to the
    /// repository) into a fresh state file named after `name`.
    fn example(name: &str, program: &str, agent: &str) -> Started {
        let state = state_file(name);
        let printed = stdout(&sense(
            &["start", "--state", path_str(&state), program, agent],
            "",
        ));
        Started {
            program: None,
            state,
            printed,
        }
    }

    /// The state file's path, for the command line.
    fn state(&self) -> &str {
        path_str(&self.state)
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        if let Some(program) = &self.program {
            let _ = std::fs::remove_file(program);
        }
        let _ = std::fs::remove_file(&self.state);
    }
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// Asserts that `text` contains each of `parts`.
fn assert_contains(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "{part:?} not in:\n{text}");
    }
}

/// The errors of a `sense` command that must have failed.
fn refused(o: &Output) -> String {
    assert!(
        !o.status.success(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn summary(text: &str) -> String {
    text.lines()
        .filter_map(|l| l.find("summary:").map(|i| &l[i..]))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn three_answers_in_three_processes_match_one_run() {
    let one = stdout(&sense(
        &["run", "examples/interview_driver.sns"],
        "Ada\n3\nyes\n",
    ));

    let run = Started::example("interview", "examples/interview.sns", "interviewer");
    let s = run.state();
    let mut across = run.printed.clone();
    assert_eq!(across, "paused: (1/3) name?\n");
    for (answer, next) in [
        ("\"Ada\"", "paused: (2/3) years of experience?\n"),
        ("\"3\"", "paused: (3/3) ready to start?\n"),
    ] {
        let out = stdout(&sense(&["resume", s, answer], ""));
        assert_eq!(out, next);
        across.push_str(&out);
    }
    let last = stdout(&sense(&["resume", s, "\"yes\""], ""));
    assert!(last.ends_with("completed\n"), "{last}");
    across.push_str(&last);

    assert_eq!(summary(&across), summary(&one));
    assert_eq!(
        summary(&one),
        "summary: [name=Ada, years of experience=3, ready to start=yes]"
    );

    // The state now records the completion: no stale replay.
    let again = sense(&["resume", s, "\"no\""], "");
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).starts_with(
            "SenseRuntimeError: cannot resume agent 'interviewer' \u{2014} status is 'completed'"
        ),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}

#[test]
fn show_lists_agents_with_call_stacks_and_locals() {
    let run = Started::example("show", "examples/interview.sns", "interviewer");
    let s = run.state();
    let shown = stdout(&sense(&["show", s], ""));
    assert!(
        shown.contains("* agent interviewer: paused (ask_human) \"(1/3) name?\""),
        "{shown}"
    );
    assert!(
        shown.contains("    at ask (examples/interview.sns:12)"),
        "{shown}"
    );
    assert!(
        shown.contains("        question = \"(1/3) name?\""),
        "{shown}"
    );
    assert!(
        shown.contains("    at collect (examples/interview.sns:16)"),
        "{shown}"
    );
    assert!(shown.contains("        answers = []"), "{shown}");
}

#[test]
fn bad_state_files_and_values_are_clear_errors() {
    let missing = sense(&["resume", "/nonexistent/x.state"], "");
    assert_eq!(
        String::from_utf8_lossy(&missing.stderr),
        "SenseError: no such file or directory: /nonexistent/x.state\n"
    );
    let junk = state_file("junk");
    std::fs::write(&junk, b"definitely not a snapshot").expect("write");
    let out = sense(&["show", junk.to_str().expect("utf-8")], "");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("cannot restore snapshot: this is not a Sense snapshot"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Started::example("value", "examples/interview.sns", "interviewer");
    let s = run.state();
    let bad = sense(&["resume", s, "yes"], "");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("must be a Sense literal"));
    let no_agent = sense(
        &["start", "examples/interview.sns", "nobody", "--state", s],
        "",
    );
    assert_eq!(
        String::from_utf8_lossy(&no_agent.stderr),
        "SenseError: no agent named 'nobody'\n"
    );
    let _ = std::fs::remove_file(junk);
    assert!(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/interview.sns")
            .exists()
    );
}

/// A pause inside `try`, `except` and `finally` (issue 23): each answer in
/// its own `sense resume` process; the handler and the `finally` carry
/// over in the state file.
#[test]
fn pauses_inside_try_except_finally_resume_across_processes() {
    let dir = std::env::temp_dir().join(format!("sense-durable-try-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let program = dir.join("worker.sns");
    std::fs::write(
        &program,
        "agent worker:\n    a = nil\n    try:\n        a = pause(\"in try\")\n        x = 1 / 0\n    \
         except SenseRuntimeError as e:\n        b = pause(\"in except\")\n        \
         print(\"except\", a, b, e.line)\n    finally:\n        c = pause(\"in finally\")\n        \
         print(\"finally\", c)\n",
    )
    .expect("write program");
    let state = state_file("try");
    let s = state.to_str().expect("utf-8 temp path");
    let p = program.to_str().expect("utf-8 temp path");
    let first = stdout(&sense(&["start", p, "worker", "--state", s], ""));
    assert_eq!(first, "paused: in try\n");
    let second = stdout(&sense(&["resume", s, "\"one\""], ""));
    assert_eq!(second, "paused: in except\n");
    let third = stdout(&sense(&["resume", s, "\"two\""], ""));
    assert_eq!(third, "except one two 5\npaused: in finally\n");
    let last = stdout(&sense(&["resume", s, "\"three\""], ""));
    assert!(last.starts_with("finally three\n"), "{last}");
    assert!(last.ends_with("completed\n"), "{last}");
    let _ = std::fs::remove_file(&state);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn time_sleep_in_an_agent_is_a_durable_timer_across_processes() {
    let run = Started::new("nap", NAPPER, "napper");
    assert!(!run.printed.contains("after"), "{}", run.printed);
    assert_contains(
        &run.printed,
        &["before", "paused: sleeping (time.sleep) until "],
    );
    let s = run.state();

    let shown = stdout(&sense(&["show", s], ""));
    assert!(
        shown.contains("agent napper: paused (timer) due "),
        "{shown}"
    );

    // Not due yet: refused, saying when; the state is unchanged.
    let early = sense(&["resume", s], "");
    let err = refused(&early);
    assert!(
        err.contains("sleeping (time.sleep) until ") && err.contains("due in"),
        "{err}"
    );
    assert!(!String::from_utf8_lossy(&early.stdout).contains("after"));

    std::thread::sleep(std::time::Duration::from_millis(700));
    let done = stdout(&sense(&["resume", s], ""));
    assert!(done.contains("after"), "{done}");
    assert!(done.contains("completed"), "{done}");
}

#[test]
fn ask_human_with_a_timeout_keeps_its_deadline_in_the_state() {
    let run = Started::new("deadline", APPROVER, "approver");
    let s = run.state();
    assert_contains(&run.printed, &["paused: Approve?", "deadline: "]);
    let shown = stdout(&sense(&["show", s], ""));
    assert!(
        shown.contains("paused (ask_human) \"Approve?\", deadline "),
        "{shown}"
    );

    // Past the deadline an answer is refused (the state is unchanged);
    // without a value the agent resumes with nil.
    std::thread::sleep(std::time::Duration::from_millis(700));
    let err = refused(&sense(&["resume", s, "\"yes\""], ""));
    assert!(err.contains("deadline passed"), "{err}");
    let timed_out = stdout(&sense(&["resume", s], ""));
    assert!(timed_out.contains("answer: nil"), "{timed_out}");
    assert!(timed_out.contains("paused: Again?"), "{timed_out}");

    // Before the deadline the answer is taken.
    let answered = stdout(&sense(&["resume", s, "\"sure\""], ""));
    assert!(answered.contains("again: sure"), "{answered}");
    assert!(answered.contains("completed"), "{answered}");
}

#[test]
fn fork_copies_a_state_that_then_goes_its_own_way() {
    let state = state_file("fork-original");
    let copy = state_file("fork-copy");
    let (s, c) = (
        state.to_str().expect("utf-8 temp path"),
        copy.to_str().expect("utf-8 temp path"),
    );
    stdout(&sense(
        &[
            "start",
            "examples/interview.sns",
            "interviewer",
            "--state",
            s,
        ],
        "",
    ));
    stdout(&sense(&["resume", s, "\"Ada\""], ""));
    assert_eq!(
        stdout(&sense(&["fork", s, c], "")),
        format!("forked: {c}\n")
    );
    // Each answers the second question its own way.
    stdout(&sense(&["resume", s, "\"3\""], ""));
    let original = stdout(&sense(&["resume", s, "\"yes\""], ""));
    stdout(&sense(&["resume", c, "\"10\""], ""));
    let forked = stdout(&sense(&["resume", c, "\"no\""], ""));
    assert!(
        original.contains("summary: [name=Ada, years of experience=3, ready to start=yes]"),
        "{original}"
    );
    assert!(
        forked.contains("summary: [name=Ada, years of experience=10, ready to start=no]"),
        "{forked}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&copy).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "a fork is owner-only");
    }
    // An existing target is refused and left alone; so is a damaged state.
    let again = sense(&["fork", s, c], "");
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("exists; sense fork writes a new state"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    std::fs::write(&state, b"not a snapshot").unwrap();
    let _ = std::fs::remove_file(&copy);
    let bad = sense(&["fork", s, c], "");
    assert!(!bad.status.success());
    assert!(!copy.exists(), "a damaged state was copied");
    let _ = std::fs::remove_file(&state);
}

/// `sense show` lists the locals of frames whose variables live in frame
/// slots (issue 24) exactly as it listed them from call scopes: every
/// visible local by name with its value, a block's locals only while the
/// block runs, a `local` shadowing a parameter innermost first.
#[test]
fn show_lists_slot_locals_at_every_depth() {
    let state = state_file("slots");
    let s = state.to_str().expect("utf-8 temp path");
    let fixture = "tests/fixtures/slot_locals.sns";
    let started = stdout(&sense(&["start", fixture, "a", "--state", s], ""));
    assert_eq!(started, "paused: top\n");
    let agent_frame = "    at a (tests/fixtures/slot_locals.sns:43)
        counter = <fn bump>
        leaf = <fn leaf>
        make_counter = <fn make_counter>
        middle = <fn middle>
        step = 1
";
    // Answers `answer`, which pauses at `question`; `sense show` then
    // lists the agent with `frames`.
    let answer_then_show = |answer: &str, question: &str, frames: &str| {
        let resumed = stdout(&sense(&["resume", s, answer], ""));
        assert_eq!(resumed, format!("paused: {question}\n"));
        let shown = stdout(&sense(&["show", s], ""));
        assert_eq!(
            shown,
            format!("* agent a: paused (ask_human) \"{question}\"\n{frames}")
        );
    };
    let bump_frames = format!(
        "    at bump (tests/fixtures/slot_locals.sns:36)
        by = 2
        seen = 7
{agent_frame}"
    );
    let leaf_frames = format!(
        "    at leaf (tests/fixtures/slot_locals.sns:15)
        depth = 200
        inner = [1, 200]
        k = 1
        note = \"leaf m\"
        tag = \"m\"
    at middle (tests/fixtures/slot_locals.sns:28)
        caught = \"SenseRuntimeError: [line 25] oops\"
        err = SenseRuntimeError: [line 25] oops
        items = [1, 2, 3, 4]
        total = \"\"
{}",
        agent_frame.replace(":43", ":44")
    );
    answer_then_show("\"x\"", "bump 7", &bump_frames);
    answer_then_show("\"y\"", "at 200", &leaf_frames);
    let done = stdout(&sense(&["resume", s, "\"z\""], ""));
    assert_eq!(done, "leaf m\ncompleted\n");
    let _ = std::fs::remove_file(&state);
}
