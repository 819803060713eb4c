//! The differential snapshot test: every golden program is run twice — once
//! straight through, once stopping at *every* agent pause to snapshot the
//! whole runtime and restore it into a fresh one — and both runs must
//! print byte-identical output and end the same way.
//!
//! Cases that are not plain runs (a first line `# args:` other than `run`
//! with `--dry-run` or limit flags: REPL sessions, `sense test`,
//! `sense fmt`, `sense memory-path`) are reported as ignored, their
//! reason saying what they are (`not applicable: … is not a plain
//! program run`), not as if a tool were missing. A case whose straight run
//! leaves a trace of a pause (an agent still paused, or one with a pause
//! reason) must stop at one checkpoint at least, or it fails: a
//! checkpoint mechanism that stopped firing would otherwise pass
//! silently.

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use sense::agents::{AgentStatus, HostValue};
use sense::agents::{Progress, Runtime};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Output and input shared by every runtime of one run.
#[derive(Clone)]
struct Io {
    out: Arc<Mutex<String>>,
    input: Arc<Mutex<VecDeque<String>>>,
}

impl Io {
    fn new(stdin: &str) -> Io {
        Io {
            out: Arc::default(),
            input: Arc::new(Mutex::new(
                stdin.split_inclusive('\n').map(String::from).collect(),
            )),
        }
    }

    fn runtime(&self, setup: &Setup) -> Runtime {
        let mut rt = Runtime::with_config(setup.config.clone());
        rt.set_dry_run(setup.dry_run);
        let out = self.out.clone();
        rt.set_output(move |s| out.lock().unwrap().push_str(s));
        let input = self.input.clone();
        rt.set_input(move || input.lock().unwrap().pop_front());
        rt
    }
}

struct Outcome {
    output: String,
    error: Option<String>,
    checkpoints: usize,
    /// Agents of the straight run that show they paused: still paused at
    /// the end, or holding a pause reason.
    paused_agents: Vec<String>,
}

/// The agents of a finished run that paused at some point.
fn paused_agents(rt: &Runtime) -> Vec<String> {
    rt.agents()
        .into_iter()
        .filter(|a| a.status == AgentStatus::Paused || a.pause_reason != HostValue::Nil)
        .map(|a| a.name)
        .collect()
}

fn run(path: &Path, setup: &Setup, stdin: &str, checkpoints: bool) -> Result<Outcome, String> {
    let io = Io::new(stdin);
    let mut rt = io.runtime(setup);
    if !checkpoints {
        let error = rt.run_file(path).err().map(|e| e.rendered().to_string());
        let output = io.out.lock().unwrap().clone();
        return Ok(Outcome {
            output,
            error,
            checkpoints: 0,
            paused_agents: paused_agents(&rt),
        });
    }
    let mut count = 0;
    let mut progress = rt.run_file_checkpointed(path);
    let error = loop {
        match progress {
            Ok(Progress::Finished) => break None,
            Err(e) => break Some(e.rendered().to_string()),
            Ok(Progress::Checkpoint) => {
                count += 1;
                let bytes = rt
                    .snapshot()
                    .map_err(|e| format!("snapshot at checkpoint {count}: {e}"))?;
                let mut stepped = setup.clone();
                stepped.config.checkpoint_on_pause = true;
                let mut fresh = io.runtime(&stepped);
                fresh
                    .restore_snapshot(&bytes)
                    .map_err(|e| format!("restore at checkpoint {count}: {e}"))?;
                rt = fresh;
                progress = rt.continue_run();
            }
        }
    };
    let output = io.out.lock().unwrap().clone();
    Ok(Outcome {
        output,
        error,
        checkpoints: count,
        paused_agents: Vec::new(),
    })
}

/// What a case runs with: the limits and whether it is a dry run.
#[derive(Clone, Default)]
struct Setup {
    config: sense::Config,
    dry_run: bool,
}

/// The configuration a case runs with (`Ok(Err(why))`: it is no plain run).
fn plain_run_config(script: &Path) -> Result<Result<Setup, String>, Failed> {
    let text = std::fs::read_to_string(script).map_err(|e| format!("{}: {e}", script.display()))?;
    let mut config = sense::Config::default();
    let mut dry_run = false;
    let Some(args) = text.lines().next().and_then(|l| l.strip_prefix("# args:")) else {
        return Ok(Ok(Setup::default()));
    };
    let args: Vec<&str> = args.split_whitespace().collect();
    let command = format!("sense {}", args.join(" "));
    // Named as what they are, not as something missing: this harness
    // replays program runs through snapshots, and other commands (`sense
    // fmt`, `sense test`, the REPL) have no run to replay; their own
    // harnesses check them.
    let not_plain = || {
        Ok(Err(format!(
            "not applicable: `{command}` is not a plain program run (nothing to snapshot; \
             checked by the golden harness)"
        )))
    };
    let ["run", flags @ ..] = args.as_slice() else {
        return not_plain();
    };
    // `sense run`'s flags, set the way the CLI sets them.
    let mut flags = flags.iter();
    while let Some(flag) = flags.next() {
        if *flag == "--dry-run" {
            dry_run = true;
            continue;
        }
        let Some(n) = flags.next().and_then(|v| byte_count(v)) else {
            return not_plain();
        };
        match *flag {
            "--max-depth" => config.max_depth = n,
            "--max-steps" => config.max_steps = Some(n as u64),
            "--max-string" => config.max_string_len = n,
            "--max-list" => config.max_array_len = n,
            "--max-heap" => config.max_heap = n,
            _ => return not_plain(),
        }
    }
    Ok(Ok(Setup { config, dry_run }))
}

/// A count as `sense run` takes it: digits, or digits and K, M or G
/// (powers of 1024, as `--max-heap 1M`).
fn byte_count(text: &str) -> Option<usize> {
    let (digits, shift) = [("K", 10), ("M", 20), ("G", 30)]
        .into_iter()
        .find_map(|(unit, shift)| text.strip_suffix(unit).map(|d| (d, shift)))
        .unwrap_or((text, 0));
    digits.parse::<usize>().ok()?.checked_mul(1 << shift)
}

fn case(script: &Path, mut setup: Setup) -> Result<(), Failed> {
    let stdin = std::fs::read_to_string(script.with_extension("in")).unwrap_or_default();
    let tag = script.to_string_lossy().replace(['/', '\\', '.'], "_");
    let memory = std::env::temp_dir().join(format!("sense-snapdiff-{}-{tag}", std::process::id()));
    setup.config.memory_dir = Some(memory.clone());
    let _ = std::fs::remove_dir_all(&memory);
    let plain = run(script, &setup, &stdin, false)?;
    let _ = std::fs::remove_dir_all(&memory);
    let stepped = run(script, &setup, &stdin, true)?;
    let _ = std::fs::remove_dir_all(&memory);
    if let Ok(log) = std::env::var("SENSE_SNAPDIFF_LOG") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let line = format!("{} {}\n", stepped.checkpoints, script.display());
            let _ = f.write_all(line.as_bytes());
        }
    }
    if plain.output != stepped.output {
        return Err(format!(
            "output differs after {} snapshot/restore cycles\n--- straight\n{}--- with snapshots\n{}---",
            stepped.checkpoints, plain.output, stepped.output
        )
        .into());
    }
    if !plain.paused_agents.is_empty() && stepped.checkpoints == 0 {
        return Err(format!(
            "agent(s) {} paused in the straight run, but the run with snapshots \
             stopped at no checkpoint: nothing was snapshotted",
            plain.paused_agents.join(", ")
        )
        .into());
    }
    if plain.error != stepped.error {
        return Err(format!(
            "the runs ended differently after {} snapshot/restore cycles\n--- straight\n{:?}\n--- with snapshots\n{:?}",
            stepped.checkpoints, plain.error, stepped.error
        )
        .into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut scripts = Vec::new();
    scripts.extend(sense_testkit::sense_scripts(&root().join("tests/golden")));
    scripts.extend(sense_testkit::sense_scripts(&root().join("examples")));
    // Relative paths, as the CLI would see them, so messages match.
    std::env::set_current_dir(root()).expect("the repository root exists");
    let trials = scripts
        .into_iter()
        .map(|s| {
            let rel = s.strip_prefix(root()).unwrap_or(&s).to_path_buf();
            let name = rel
                .to_string_lossy()
                .trim_start_matches("tests/golden/")
                .trim_end_matches(".sns")
                .to_string();
            Trial::ignorable_test(name, move || match plain_run_config(&rel)? {
                Ok(config) => case(&rel, config).map(|()| Completion::Completed),
                Err(why) => Ok(Completion::ignored_with(why)),
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
