//! Writes seed-corpus candidates for the fuzz targets from the golden tests:
//!
//! - `source/`: every golden program's text (deduplicated by content);
//! - `snapshot/`: a real snapshot at each checkpoint (every agent pause,
//!   see tests/snapshot_diff.rs) of every golden program, a snapshot at the
//!   end of each run, snapshots of a program using the fuzz host functions,
//!   and `tests/fixtures/snapshot_v1.bin`;
//! - `host_api/`: a few deterministic pseudo-random operation sequences.
//!
//! `cargo run --example seeds -- OUT_DIR`; `run.sh seeds` then merges them
//! with libFuzzer (`-merge=1`, which keeps every input with a new feature,
//! hit counts included) and `cargo run --example seeds -- cover CONTROL
//! OUT_DIR` keeps a greedy set cover of the merged inputs by *edges* only,
//! so the committed corpus stays at a few hundred files.

use sense_agents::{AgentStatus, HostValue, Progress, Runtime};
use sense_fuzz::{ExtMode, config, register_ext};
use sense_testkit::sense_scripts;
use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// At most this many checkpoints are saved per program.
const CHECKPOINTS_PER_PROGRAM: usize = 4;

fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

struct Sink {
    dir: PathBuf,
    seen: HashSet<u64>,
}

impl Sink {
    fn new(dir: PathBuf) -> Sink {
        std::fs::create_dir_all(&dir).expect("create output directory");
        Sink {
            dir,
            seen: HashSet::new(),
        }
    }

    fn put(&mut self, bytes: &[u8]) {
        let h = fnv(bytes);
        if self.seen.insert(h) {
            std::fs::write(self.dir.join(format!("{h:016x}")), bytes).expect("write seed");
        }
    }
}

fn runtime(stdin: &str, memory: &Path) -> Runtime {
    let mut cfg = config();
    // Golden programs are run with the default limits (only the fuzz
    // targets run with small ones), but never unbounded.
    cfg.max_steps = Some(1_000_000);
    cfg.max_depth = sense_agents::Config::default().max_depth;
    cfg.max_string_len = 1 << 20;
    cfg.max_array_len = 1 << 16;
    cfg.memory_dir = Some(memory.to_path_buf());
    cfg.checkpoint_on_pause = true;
    let mut rt = Runtime::with_config(cfg);
    sense_fuzz::in_memory_store(&mut rt);
    rt.set_output(|_| {});
    let input = Arc::new(Mutex::new(
        stdin
            .split_inclusive('\n')
            .map(String::from)
            .collect::<VecDeque<_>>(),
    ));
    rt.set_input(move || input.lock().ok()?.pop_front());
    register_ext(&mut rt, &ExtMode::default());
    rt
}

fn snapshots_of(path: &Path, memory: &Path, sink: &mut Sink) -> usize {
    let stdin = std::fs::read_to_string(path.with_extension("in")).unwrap_or_default();
    let mut rt = runtime(&stdin, memory);
    let mut saved = 0;
    let mut progress = rt.run_file_checkpointed(path);
    while let Ok(Progress::Checkpoint) = progress {
        if saved < CHECKPOINTS_PER_PROGRAM
            && let Ok(bytes) = rt.snapshot()
        {
            sink.put(&bytes);
            saved += 1;
        }
        progress = rt.continue_run();
    }
    // The end state too: agents left paused, failed or completed.
    if progress.is_ok()
        && rt.agents().iter().any(|a| a.status == AgentStatus::Paused)
        && let Ok(bytes) = rt.snapshot()
    {
        sink.put(&bytes);
        saved += 1;
    }
    saved
}

const HOST_PROGRAM: &str = r#"
agent caller:
    a = ext(1)
    b = ext_suspend("second")
    c = ext_suspend([a, b])
    print(a, b, c)
agent looper:
    n = 0
    while true:
        n = n + 1
        if n % 100 == 0:
            pause(n)
memory notes
notes.remember("k", [1, 2, 3])
start(caller)
start(looper)
"#;

fn host_snapshots(sink: &mut Sink, memory: &Path) {
    let mut rt = runtime("", memory);
    rt.config_mut().checkpoint_on_pause = false;
    if rt.run_source("host.sns", HOST_PROGRAM).is_err() {
        eprintln!("host program failed");
        return;
    }
    for i in 0..4 {
        if let Ok(bytes) = rt.snapshot() {
            sink.put(&bytes);
        }
        for name in ["caller", "looper"] {
            if let Ok(id) = rt.agent(name) {
                let _ = rt.resume(id, HostValue::Int(i));
            }
        }
    }
}

/// xorshift64*: deterministic bytes for the host_api seeds.
fn pseudo_random(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect()
}

/// An input joins the cover only if it adds this many edges.
const MIN_GAIN: usize = 4;

/// Greedy set cover over the edges (`COV` lines) of a libFuzzer merge
/// control file: copies the chosen inputs into `out`.
fn cover(control: &Path, out: &Path) {
    let text = std::fs::read_to_string(control).expect("read the merge control file");
    let mut lines = text.lines();
    let files: usize = lines
        .next()
        .and_then(|l| l.trim().parse().ok())
        .expect("file count");
    let _first: usize = lines
        .next()
        .and_then(|l| l.trim().parse().ok())
        .expect("first corpus");
    let paths: Vec<PathBuf> = (0..files)
        .map(|_| PathBuf::from(lines.next().expect("a path")))
        .collect();
    let mut cov: Vec<HashSet<u64>> = vec![HashSet::new(); files];
    let mut sizes = vec![usize::MAX; files];
    for line in lines {
        let mut words = line.split_whitespace();
        let kind = words.next();
        let Some(i) = words.next().and_then(|w| w.parse::<usize>().ok()) else {
            continue;
        };
        if i >= files {
            continue;
        }
        match kind {
            Some("COV") => cov[i].extend(words.filter_map(|w| w.parse::<u64>().ok())),
            Some("STARTED") => sizes[i] = words.next().and_then(|w| w.parse().ok()).unwrap_or(0),
            _ => {}
        }
    }
    let mut covered: HashSet<u64> = HashSet::new();
    let mut chosen = Vec::new();
    // Lazy greedy: gains only shrink, so a stale gain is an upper bound.
    let mut heap: std::collections::BinaryHeap<(usize, std::cmp::Reverse<usize>, usize)> = (0
        ..files)
        .map(|i| (cov[i].len(), std::cmp::Reverse(sizes[i]), i))
        .collect();
    while let Some((stale, size, i)) = heap.pop() {
        let gain = cov[i].iter().filter(|pc| !covered.contains(pc)).count();
        if gain < MIN_GAIN {
            continue;
        }
        if gain < stale {
            heap.push((gain, size, i));
            continue;
        }
        covered.extend(cov[i].iter().copied());
        chosen.push(i);
    }
    std::fs::create_dir_all(out).expect("create output directory");
    for i in &chosen {
        let bytes = std::fs::read(&paths[*i]).expect("read a merged input");
        std::fs::write(out.join(format!("{:016x}", fnv(&bytes))), bytes).expect("write seed");
    }
    let all: HashSet<u64> = cov.iter().flatten().copied().collect();
    println!(
        "{} of {files} inputs cover {} of {} edges",
        chosen.len(),
        covered.len(),
        all.len()
    );
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("cover") {
        let arg = |n| PathBuf::from(std::env::args().nth(n).expect("cover CONTROL OUT_DIR"));
        cover(&arg(2), &arg(3));
        return;
    }
    let out = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "seeds".into()));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut programs = Vec::new();
    programs.extend(sense_scripts(&root.join("tests/golden")));
    programs.extend(sense_scripts(&root.join("examples")));

    let memory = std::env::temp_dir().join(format!("sense-fuzz-seeds-{}", std::process::id()));
    let mut source = Sink::new(out.join("source"));
    let mut snapshot = Sink::new(out.join("snapshot"));
    let mut host_api = Sink::new(out.join("host_api"));

    let mut checkpoints = 0;
    for p in &programs {
        let Ok(text) = std::fs::read_to_string(p) else {
            continue;
        };
        if sense_fuzz::touches_files(&text) {
            continue;
        }
        source.put(text.as_bytes());
        // Only plain runs are snapshotted (other `# args:` are other commands).
        if text.starts_with("# args:") {
            continue;
        }
        let _ = std::fs::remove_dir_all(&memory);
        checkpoints += snapshots_of(p, &memory, &mut snapshot);
    }
    if let Ok(bytes) = std::fs::read(root.join("tests/fixtures/snapshot_v1.bin")) {
        snapshot.put(&bytes);
    }
    host_snapshots(&mut snapshot, &memory);
    let _ = std::fs::remove_dir_all(&memory);

    for seed in 0..32u64 {
        host_api.put(&pseudo_random(seed, 16 + (seed as usize * 7) % 200));
    }
    println!(
        "{} programs; seeds: source {}, snapshot {} ({checkpoints} checkpoints), host_api {}",
        programs.len(),
        source.seen.len(),
        snapshot.seen.len(),
        host_api.seen.len()
    );
}
