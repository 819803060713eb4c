//! The worked example of ARCHITECTURE.md "How to add an object kind": a
//! host adds a `Counter` kind through the seam of `sense_eval::kind` — a
//! native that makes one, a field, a method, its printed form, GC tracing
//! of the label it holds, and a snapshot round trip (restore finds the
//! kind by name; a runtime without it refuses the snapshot).
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use sense_agents::kind::{self, ExtObject, ObjectKind, Render};
use sense_agents::{
    Arity, Config, EvalError, EvalResult, NativeDef, ObjRef, Runtime, ScopeRef, State, Tracer,
    Value, Vm,
};
use std::sync::{Arc, Mutex};

// --- The kind: one file in a real crate -------------------------------

/// The object's data: what it counts, and a label (a heap string it keeps
/// alive, so it must trace it).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Counter {
    count: i64,
    label: Value,
}

/// The kind's behaviour; registered once, by name.
struct CounterKind;

static COUNTER: CounterKind = CounterKind;

impl ExtObject for Counter {
    fn kind(&self) -> &'static dyn ObjectKind {
        &COUNTER
    }
    fn trace(&self, t: &mut Tracer) {
        t.value(self.label);
    }
    fn encode(&self) -> Result<Vec<u8>, String> {
        kind::to_bytes(self)
    }
}

impl ObjectKind for CounterKind {
    fn name(&self) -> &'static str {
        "example.counter"
    }
    fn type_name(&self) -> &'static str {
        "Counter"
    }
    fn render(&self, vm: &Vm, obj: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        let c = vm.ext_ref::<Counter>(obj).unwrap();
        out.push_str("<counter ");
        out.value(vm, c.label, false)?;
        out.push_str(&format!(" = {}>", c.count));
        Ok(())
    }
    fn member(&self, vm: &mut Vm, obj: ObjRef, name: &str, line: u32) -> EvalResult<Value> {
        match name {
            "value" => Ok(Value::Int(vm.ext_ref::<Counter>(obj).unwrap().count)),
            "add" => Ok(vm.bind_method(obj, "add", line)),
            _ => Err(EvalError::runtime(format!(
                "counter has no member '{name}'"
            ))),
        }
    }
    fn method_arity(&self, _method: &str) -> usize {
        1
    }
    fn call_method(
        &self,
        vm: &mut Vm,
        obj: ObjRef,
        _method: &str,
        args: &[Value],
        _env: ScopeRef,
        _line: u32,
    ) -> EvalResult<Value> {
        let Some(Value::Int(n)) = args.first() else {
            return Err(EvalError::runtime("add() expects an Int"));
        };
        let c = vm.ext_mut::<Counter>(obj).unwrap();
        c.count += n;
        Ok(Value::Int(c.count))
    }
    fn decode(&self, bytes: &[u8]) -> Result<Box<dyn ExtObject>, String> {
        Ok(Box::new(kind::from_bytes::<Counter>(bytes)?))
    }
    fn validate(&self, obj: &dyn ExtObject, _heap: &sense_agents::Heap) -> Result<(), String> {
        match obj.downcast_ref::<Counter>() {
            Some(Counter {
                label: Value::Str(_),
                ..
            }) => Ok(()),
            _ => Err("a counter's label is not a string".into()),
        }
    }
}

/// `counter(label)`: the native that makes one.
fn counter(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let label = args[0];
    if vm.str_of(label).is_none() {
        return Err(EvalError::runtime("counter() expects a String label"));
    }
    Ok(vm.alloc_ext(Counter { count: 0, label }))
}

/// The registration a host does.
fn register(rt: &mut Runtime) {
    rt.register_kind(&COUNTER);
    rt.register_native(NativeDef::new("counter", Arity::Exact(1), counter));
}

// --- The tests ----------------------------------------------------------

const PROGRAM: &str = r#"
c = counter("cl" + "icks")
c.add(2)
print(c, c.value, type_of(c))
print([c])
junk = []
for i in range(200):
    push(junk, "x" + str(i))
agent w:
    c.add(pause("more?"))
    print(c)
start(w)
"#;

fn runtime(with_kind: bool) -> (Runtime, Arc<Mutex<String>>) {
    // A collection at every safe point: a label the kind forgot to trace
    // would be freed and reused by the strings of the loop.
    let mut rt = Runtime::with_config(Config {
        gc_stress: true,
        ..Config::default()
    });
    if with_kind {
        register(&mut rt);
    }
    let out = Arc::new(Mutex::new(String::new()));
    let sink = out.clone();
    rt.set_output(move |s| sink.lock().unwrap().push_str(s));
    (rt, out)
}

#[test]
fn a_host_kind_has_members_methods_rendering_and_tracing() {
    let (mut rt, out) = runtime(true);
    rt.run_source("main.sns", PROGRAM).unwrap();
    rt.collect_garbage();
    assert_eq!(
        *out.lock().unwrap(),
        "<counter clicks = 2> 2 Counter\n[<counter clicks = 2>]\n"
    );
    common::fails_with(
        &mut rt,
        "bad.sns",
        "c.nope\n",
        "counter has no member 'nope'",
    );
    common::fails_with(
        &mut rt,
        "bad.sns",
        "c.add(1, 2)\n",
        "expects 1 argument(s), got 2",
    );
}

/// `: Counter` annotations resolve through the registered kind: its
/// objects pass, anything else is refused; without the kind the name is
/// unknown and matches everything.
#[test]
fn a_host_kind_is_checked_by_its_annotation() {
    let (mut rt, out) = runtime(true);
    let src = "c: Counter = counter(\"a\")\ndef f(x: Counter):\n    return x.value\nprint(f(c))\n";
    rt.run_source("main.sns", src).unwrap();
    assert_eq!(*out.lock().unwrap(), "0\n");
    common::fails_with(
        &mut rt,
        "bad.sns",
        "d: Counter = 5\n",
        "cannot assign value of type Int to 'd: Counter'",
    );
    common::fails_with(
        &mut rt,
        "bad.sns",
        "f([c])\n",
        "argument 'x' of 'f' expects Counter, got Array",
    );

    let (mut bare, out) = runtime(false);
    bare.run_source("main.sns", "d: Counter = 5\nprint(d)\n")
        .unwrap();
    assert_eq!(*out.lock().unwrap(), "5\n");
}

/// A snapshot of [`PROGRAM`] run on a runtime with the kind.
fn program_snapshot() -> Vec<u8> {
    let (mut rt, _) = runtime(true);
    rt.run_source("main.sns", PROGRAM).unwrap();
    rt.snapshot().unwrap()
}

#[test]
fn a_host_kind_survives_a_snapshot_round_trip() {
    let bytes = program_snapshot();

    let (mut back, out) = runtime(true);
    back.restore_snapshot(&bytes).unwrap();
    let w = back.agent("w").unwrap();
    let state = back.resume(w, 5_i64).unwrap();
    assert!(matches!(state, State::Completed), "{state:?}");
    assert_eq!(*out.lock().unwrap(), "<counter clicks = 7>\n");
}

#[test]
fn a_runtime_without_the_kind_refuses_the_snapshot() {
    let bytes = program_snapshot();
    // Its native registered, its kind not.
    let (mut back, _) = runtime(false);
    back.register_native(NativeDef::new("counter", Arity::Exact(1), counter));
    let err = back.restore_snapshot(&bytes).unwrap_err().to_string();
    common::assert_mentions(&err, "kind 'example.counter', which is not registered");
}

#[test]
fn damaged_object_bytes_are_an_error() {
    assert!(COUNTER.decode(&[]).is_err());
    assert!(COUNTER.decode(&[0xff; 3]).is_err());
}

// --- The agent layer's own kinds under damaged snapshot bytes ------------

/// FNV-1a, as the format's checksum, so damage can be resealed.
fn fnv(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

const MODEL_PROGRAM: &str = r#"
model oracle = inference("mock", "x", response_template: "about {prompt}", confidence: 0.75)
set delegation = oracle
a = ask("sunny")
tool double(x: Int) "Doubles x":
    return x * 2
s = skill("math", "Arithmetic", [double])
c = counter("hits")
agent w:
    got = pause("p")
    print(a, a.value, s, s.tools, oracle, c, got)
start(w)
"#;

#[test]
fn extension_objects_under_resealed_damage_never_panic() {
    let (mut rt, _) = runtime(true);
    rt.run_source("main.sns", MODEL_PROGRAM).unwrap();
    let bytes = rt.snapshot().unwrap();

    // Undamaged, everything comes back.
    let (mut back, out) = runtime(true);
    back.restore_snapshot(&bytes).unwrap();
    let w = back.agent("w").unwrap();
    assert_eq!(back.resume(w, 1_i64).unwrap(), State::Completed);
    assert_eq!(
        *out.lock().unwrap(),
        "answer<0.75>(about sunny) about sunny <skill math (1 tools)> [<tool double>] \
         <model oracle> <counter hits = 0> 1\n"
    );

    // Damaged and resealed: refused, or restored and run without harm.
    let mut rng: u64 = 0x00c0_ffee;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut accepted = 0;
    for _ in 0..1500 {
        let mut damaged = bytes.clone();
        for _ in 0..1 + next() % 3 {
            let at = 20 + (next() as usize) % (damaged.len() - 20);
            damaged[at] ^= 1 << (next() % 8);
        }
        let sum = fnv(&damaged[20..]);
        damaged[12..20].copy_from_slice(&sum.to_le_bytes());
        let (mut rt, _) = runtime(true);
        if rt.restore_snapshot(&damaged).is_ok() {
            accepted += 1;
            rt.config_mut().max_steps = Some(10_000);
            if let Ok(w) = rt.agent("w") {
                let _ = rt.resume(w, 1_i64);
            }
            let _ = rt.run_source("after.sns", "print(a, s, oracle, c)\n");
        }
    }
    eprintln!("{accepted} of 1500 resealed corruptions restored and ran without harm");
}

/// A bare language core has no agent layer registered: a `model`
/// declaration is a clear runtime error, not a crash or a silent no-op.
#[test]
fn a_bare_core_names_the_missing_declaration_kind() {
    let mut vm = Vm::new(Config::default());
    vm.set_output(Box::new(|_| {}));
    let src = sense_syntax::SourceFile::new("bare.sns", "model m = 1\n");
    let err = vm.run_main(src, None, None).unwrap_err();
    assert_eq!(
        err.display(),
        "[line 1] 'model' declarations are not available in this runtime"
    );
}
