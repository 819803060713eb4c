//! The task seam (`sense_eval::kind::TaskKind`): the core runs tasks but
//! names none of their words. A bare VM with another task kind registered
//! (and the agent protocol's natives) prints, types and reads its tasks
//! through that kind — nothing of "agent" is left in the core's output —
//! and reads a task's variables itself; a VM without a task kind refuses
//! the declaration.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

use sense_agents::kind::{Refusal, Render, TaskKind};
use sense_agents::{Config, EvalError, EvalResult, ObjRef, Value, Vm};
use sense_eval::symbol::Symbol;
use sense_syntax::SourceFile;
use std::sync::{Arc, Mutex};

/// Tasks called workers, with one member of their own.
struct WorkerKind;

static WORKER: WorkerKind = WorkerKind;

impl TaskKind for WorkerKind {
    fn type_name(&self) -> &'static str {
        "Worker"
    }
    fn host_class(&self) -> &'static str {
        "HostWorker"
    }
    fn members(&self) -> &'static [&'static str] {
        &["shift"]
    }
    fn render(&self, vm: &Vm, task: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        let name = vm.task(Value::Obj(task)).map(|t| t.name).unwrap();
        out.push_str("[worker ");
        out.push_str(vm.interner().name(name));
        out.push_str("]");
        Ok(())
    }
    fn member(&self, vm: &mut Vm, _task: ObjRef, _name: Symbol) -> EvalResult<Value> {
        vm.new_str("night")
    }
    fn refusal(&self, _vm: &Vm, _task: Option<ObjRef>, why: Refusal<'_>) -> EvalError {
        EvalError::runtime(format!("worker refused: {why:?}"))
    }
}

fn run(vm: &mut Vm, src: &str) -> (String, Option<String>) {
    let out = Arc::new(Mutex::new(String::new()));
    let sink = out.clone();
    vm.set_output(Box::new(move |s| sink.lock().unwrap().push_str(s)));
    let r = vm.run_main(SourceFile::new("w.sns", src), None, None);
    let text = out.lock().unwrap().clone();
    (text, r.err().map(|e| e.display()))
}

/// A bare VM with the worker kind and the agent natives (which start,
/// resume and read tasks of any kind).
fn worker_vm() -> Vm {
    let mut vm = Vm::new(Config::default());
    vm.register_task_kind(&WORKER);
    for def in sense_agents::kinds::agent::natives() {
        vm.register_native(def);
    }
    vm
}

#[test]
fn a_registered_task_kind_names_prints_and_reads_the_tasks() {
    let mut vm = worker_vm();
    let src = "agent w:\n    x = 41\n    x = x + pause()\n\
               print(w)\nprint(type_of(w))\nprint(w.shift)\nstart(w)\nprint(w.x)\n\
               resume(w, 1)\nprint(w.x)\nprint(w.status)\n";
    let (out, err) = run(&mut vm, src);
    // `status` is no member of a worker, and no variable: the kind words it.
    assert_eq!(
        err.as_deref(),
        Some("[line 11] worker refused: NoMember { name: \"status\" }")
    );
    assert_eq!(out, "[worker w]\nWorker\nnight\n41\n42\n");
}

#[test]
fn refusals_are_worded_by_the_task_kind() {
    let mut vm = worker_vm();
    let (_, err) = run(&mut vm, "agent w:\n    x = 1\nstart(w)\nstart(w)\n");
    assert_eq!(err.as_deref(), Some("worker refused: AlreadyStarted"));
}

#[test]
fn without_a_task_kind_a_declaration_is_refused() {
    let mut vm = Vm::new(Config::default());
    let (_, err) = run(&mut vm, "agent w:\n    x = 1\n");
    let err = err.expect("refused");
    assert!(err.contains("no task kind registered"), "{err}");
}
