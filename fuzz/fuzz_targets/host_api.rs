//! Arbitrary sequences of host API calls on a runtime running a fixed set
//! of agent programs: start, resume with assorted values, send, pause
//! requests through handles (current and stale), snapshot + restore, drop
//! and recreate, look-ups by name, a host function that suspends, step
//! budgets, and more Sense code run on the same runtime.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sense_agents::HostReturn;
use sense_agents::{AgentId, AgentStatus, HostValue, PauseHandle, PauseKind, Runtime, State};
use sense_fuzz::{ExtMode, round_trip_with, runtime};

const PROGRAM: &str = r#"
agent asker:
    total = 0
    for i in range(4):
        total = total + ask_human("number " + str(i) + "?")
    print("asker", total)
agent pauser:
    n = 0
    while true:
        n = n + 1
        got = pause(n)
        if got == "stop":
            break
agent spinner:
    count = 0
    while count < 100000:
        count = count + 1
agent inbox:
    seen = []
    while len(seen) < 3:
        push(seen, receive())
    print("inbox", seen)
agent caller:
    a = ext(1)
    b = ext_suspend("second")
    c = ext("x", "y")
    result = [a, b, c]
agent boss:
    start(pauser)
    r = resume(pauser, "from boss")
    send(inbox, r)
    v = pause("boss waits")
    x = 10 / v
agent failing:
    pause("about to fail")
    missing_name + 1
def helper(k):
    if k <= 0:
        return pause("deep")
    return helper(k - 1) + 1
agent deep:
    depth = helper(20)
async agent background:
    pause("async pause")
    done = 1
"#;

const NAMES: &[&str] = &[
    "asker",
    "pauser",
    "spinner",
    "inbox",
    "caller",
    "boss",
    "failing",
    "deep",
    "background",
    "helper",
    "nobody",
    "",
];

const SNIPPETS: &[&str] = &[
    "start(asker)",
    "resume(pauser, 5)",
    "send(inbox, [1, 2])",
    "print(spinner.status, inbox.seen)",
    "x = 1\nwhile true:\n    x = x + 1",
    "def r(n):\n    return r(n + 1)\nr(0)",
    "s = \"ab\"\nfor i in range(40):\n    s = s + s",
    "agent late:\n    pause(\"late\")\nstart(late)",
    "print(1 / 0)",
    "if :",
    "r = ext2(1)\nprint(r)",
    "agent late2:\n    v = ext2([1, 2])\n    print(v)\nstart(late2)",
    "print(len([1, 2]), pause)",
];

/// Names a host function can be registered under mid-run: new ones, the
/// fuzz host function again, and builtins.
const HOST_NAMES: &[&str] = &["ext2", "ext", "len", "pause", "resume"];

/// Registers `name` with fixed behaviour `mode` (value, suspend, error).
fn register(rt: &mut Runtime, name: &str, mode: u8) {
    rt.register_fn(name, None, move |args| match mode % 3 {
        0 => Ok(HostReturn::Value(HostValue::List(args.to_vec()))),
        1 => Ok(HostReturn::Suspend(HostValue::from("registered fn waits"))),
        _ => Err("registered fn failed".to_string()),
    });
}

#[derive(Arbitrary, Debug)]
enum Val {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Val>),
    Nested(u8),
}

impl Val {
    fn host(&self, depth: usize) -> HostValue {
        match self {
            Val::Nil => HostValue::Nil,
            Val::Bool(b) => HostValue::Bool(*b),
            Val::Int(i) => HostValue::Int(*i),
            Val::Float(f) => HostValue::Float(*f),
            Val::Str(s) => HostValue::Str(s.chars().take(64).collect()),
            Val::List(items) if depth < 4 => {
                HostValue::List(items.iter().take(8).map(|v| v.host(depth + 1)).collect())
            }
            Val::List(_) => HostValue::Nil,
            // Deeper than the host-value nesting limit, or just under it.
            Val::Nested(n) => {
                let mut v = HostValue::Int(0);
                for _ in 0..(150 + usize::from(*n)) {
                    v = HostValue::List(vec![v]);
                }
                v
            }
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Op {
    Lookup(u8),
    Start(u8),
    Resume(u8, Val),
    Send(u8, Val),
    Request(u8),
    RequestStale(u8),
    Status(u8),
    Snapshot,
    SnapshotKeepOld,
    Recreate,
    Run(u8),
    ExtMode(u8),
    Budget(Option<u16>),
    Register(u8, u8),
    Subject(Option<u8>),
    DriveAll(Val),
}

struct World {
    mode: ExtMode,
    rt: Runtime,
    /// Agent ids looked up so far, from this runtime or earlier ones.
    ids: Vec<AgentId>,
    /// Pause handles, from this runtime or earlier ones.
    handles: Vec<PauseHandle>,
    /// Host functions registered after the program loaded.
    registered: Vec<(&'static str, u8)>,
}

impl World {
    fn new(mode: ExtMode) -> World {
        let mut rt = runtime(&mode);
        // The program itself must load: it is fixed.
        if let Err(e) = rt.run_source("agents.sns", PROGRAM) {
            panic!("the fixed program does not load: {e}");
        }
        World {
            mode,
            rt,
            ids: Vec::new(),
            handles: Vec::new(),
            registered: Vec::new(),
        }
    }

    fn id(&self, i: u8) -> Option<AgentId> {
        if self.ids.is_empty() {
            return None;
        }
        self.ids.get(usize::from(i) % self.ids.len()).copied()
    }

    fn check_state(&self, id: AgentId, r: &Result<State, sense_agents::Error>) {
        if let Ok(State::Paused { kind, .. }) = r {
            // A paused result means the agent reads paused, with that kind.
            assert_eq!(self.rt.status(id).ok(), Some(AgentStatus::Paused));
            assert_eq!(self.rt.pause_kind(id).ok(), Some(Some(*kind)));
        }
        if let Ok(State::Completed) = r
            && let Ok(status) = self.rt.status(id)
        {
            assert_ne!(
                status,
                AgentStatus::Running,
                "agent still running after its call"
            );
        }
    }

    fn apply(&mut self, op: &Op) {
        match op {
            Op::Lookup(i) => {
                let name = NAMES[usize::from(*i) % NAMES.len()];
                if let Ok(id) = self.rt.agent(name) {
                    let _ = self.rt.agent_name(id);
                    if let Ok(h) = self.rt.pause_handle(id) {
                        self.handles.push(h);
                    }
                    self.ids.push(id);
                }
            }
            Op::Start(i) => {
                if let Some(id) = self.id(*i) {
                    let r = self.rt.start(id);
                    self.check_state(id, &r);
                }
            }
            Op::Resume(i, v) => {
                if let Some(id) = self.id(*i) {
                    let r = self.rt.resume(id, v.host(0));
                    self.check_state(id, &r);
                }
            }
            Op::Send(i, v) => {
                if let Some(id) = self.id(*i) {
                    let _ = self.rt.send(id, v.host(0));
                }
            }
            Op::Request(i) => {
                if let Some(id) = self.id(*i)
                    && let Ok(h) = self.rt.pause_handle(id)
                {
                    h.request();
                    let _ = h.is_requested();
                }
            }
            Op::RequestStale(i) => {
                if !self.handles.is_empty() {
                    let h = &self.handles[usize::from(*i) % self.handles.len()];
                    h.request();
                }
            }
            Op::Status(i) => {
                if let Some(id) = self.id(*i) {
                    let status = self.rt.status(id);
                    let kind = self.rt.pause_kind(id);
                    let _ = self.rt.pause_reason(id);
                    if let (Ok(s), Ok(k)) = (status, kind) {
                        assert_eq!(s == AgentStatus::Paused, k.is_some());
                    }
                }
            }
            Op::Snapshot => {
                if let Some(back) = self.round_trip() {
                    self.rt = back;
                }
            }
            Op::SnapshotKeepOld => {
                let _ = self.round_trip();
            }
            Op::Register(name, mode) => {
                let name = HOST_NAMES[usize::from(*name) % HOST_NAMES.len()];
                register(&mut self.rt, name, *mode);
                self.registered.push((name, *mode));
            }
            Op::Recreate => {
                let ids = std::mem::take(&mut self.ids);
                let handles = std::mem::take(&mut self.handles);
                *self = World::new(self.mode.clone()).keep(ids, handles);
            }
            Op::Run(i) => {
                let snippet = SNIPPETS[usize::from(*i) % SNIPPETS.len()];
                let _ = self.rt.run_source("snippet.sns", snippet);
            }
            Op::ExtMode(m) => self.mode.set(*m),
            Op::Budget(b) => {
                self.rt.config_mut().max_steps = Some(b.map_or(sense_fuzz::MAX_STEPS, u64::from));
            }
            Op::Subject(i) => {
                let id = i.and_then(|i| self.id(i));
                self.rt.set_subject(id);
            }
            Op::DriveAll(v) => {
                let ids: Vec<_> = self
                    .rt
                    .agents()
                    .iter()
                    .filter(|r| r.status == AgentStatus::Paused)
                    .map(|r| (self.rt.agent_id(r), r.pause_kind))
                    .collect();
                for (id, kind) in ids {
                    let r = self.rt.resume(id, v.host(0));
                    self.check_state(id, &r);
                    if kind == Some(PauseKind::HostRequest) {
                        // A honoured request is cleared.
                        if let Ok(h) = self.rt.pause_handle(id) {
                            let _ = h.is_requested();
                        }
                    }
                }
            }
        }
    }

    /// Snapshot and restore into a fresh runtime with the same host
    /// functions registered.
    fn round_trip(&self) -> Option<Runtime> {
        let registered = self.registered.clone();
        round_trip_with(&self.rt, &self.mode, move |fresh| {
            for (name, mode) in registered {
                register(fresh, name, mode);
            }
        })
    }

    fn keep(mut self, ids: Vec<AgentId>, handles: Vec<PauseHandle>) -> World {
        self.ids = ids;
        self.handles = handles;
        self
    }
}

fuzz_target!(|ops: Vec<Op>| {
    let mode = ExtMode::default();
    let mut world = World::new(mode);
    for op in ops.iter().take(64) {
        world.apply(op);
    }
    let _ = world.rt.snapshot();
});
