//! Policy, tools, actions and the audit log are this crate's, added to the
//! core through its seam (issue 14): the core alone refuses their
//! statements, the audit log is saved state a runtime without it refuses,
//! and the bodies tools and actions hold survive code compaction and a
//! snapshot taken after it.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use common::runtime;
use sense_agents::State;

fn bare_error(text: &str) -> String {
    let mut vm = sense_eval::Vm::new(sense_eval::Config::default());
    let src = sense_syntax::SourceFile::new("p.sns", text);
    vm.run_main(src, None, None).unwrap_err().display()
}

#[test]
fn a_bare_core_vm_refuses_tool_action_and_policy_statements() {
    for (text, kind) in [
        ("tool t(x):\n    return x\n", "tool"),
        ("irreversible action a(x):\n    print(x)\n", "action"),
        ("policy:\n    deny net\n", "policy"),
    ] {
        let err = bare_error(text);
        assert!(
            err.contains(&format!(
                "'{kind}' declarations are not available in this runtime"
            )),
            "{err}"
        );
    }
    let err = bare_error("set delegation = 1\n");
    assert!(
        err.contains("unknown 'set' target 'delegation' (none is supported in this runtime)"),
        "{err}"
    );
    assert!(bare_error("print(audit_log())\n").contains("audit_log"));
}

#[test]
fn the_runtime_registers_set_delegation() {
    let (mut rt, _) = runtime();
    common::fails_with(
        &mut rt,
        "p.sns",
        "set delegation = 1\n",
        "'set delegation' requires a Model value, got Int",
    );
    common::fails_with(
        &mut rt,
        "q.sns",
        "set verbosity = 1\n",
        "unknown 'set' target 'verbosity' (only 'delegation' is supported so far)",
    );
}

/// The audit log is saved state: a VM that has not registered it (here:
/// the core with this crate's natives, but not its states) refuses a
/// runtime's snapshot by the state's name.
#[test]
fn a_snapshot_with_an_audit_log_needs_the_state_registered() {
    let (mut rt, _) = runtime();
    rt.run_source("p.sns", "x = 1\n").unwrap();
    let bytes = rt.snapshot().unwrap();
    let mut vm = sense_eval::Vm::new(sense_eval::Config::default());
    for def in sense_agents::kinds::natives() {
        vm.register_native(def);
    }
    let err = vm.restore(&bytes).unwrap_err().display();
    common::assert_mentions(
        &err,
        "it holds state 'audit', which is not registered in this runtime",
    );
}

/// Tools and actions keep their bodies through code compaction (they
/// report them to the code store), and a snapshot taken afterwards
/// restores with the same audit log and working declarations.
#[test]
fn tool_and_action_bodies_survive_compaction_and_restore() {
    let (mut rt, out) = runtime();
    rt.run_source(
        "decls.sns",
        "policy:\n    deny fs\n\
         tool double(n: Int):\n    return n * 2\n\
         tool secret() requires fs:\n    return 1\n\
         reversible action bump(n):\n    print(\"bump\", n)\n\
         rollback:\n    print(\"undo\", n)\n\
         agent a:\n    v = pause(\"v?\")\n    print(double(v))\n",
    )
    .unwrap();
    let a = rt.agent("a").unwrap();
    assert!(matches!(rt.start(a).unwrap(), State::Paused { .. }));
    common::run_junk(&mut rt, 30);
    rt.release_unused_code();
    rt.run_source(
        "use.sns",
        "print(double(4))\nb = bump(7)\nb.verify()\nb.commit()\nb.rollback()\nprint(b.state)\n",
    )
    .unwrap();
    common::fails_with(&mut rt, "deny.sns", "secret()\n", "denied by policy");
    let bytes = rt.snapshot().unwrap();
    assert_eq!(rt.resume(a, 5).unwrap(), State::Completed);
    assert_eq!(*out.lock().unwrap(), "8\nbump 7\nundo 7\nrolled_back\n10\n");

    let (mut later, out2) = runtime();
    later.restore_snapshot(&bytes).unwrap();
    assert_eq!(later.audit_log(), {
        let mut log = rt.audit_log();
        log.pop(); // the `double` call the original made after the snapshot
        log
    });
    let a2 = later.agent("a").unwrap();
    assert_eq!(later.resume(a2, 6).unwrap(), State::Completed);
    later
        .run_source("again.sns", "c = bump(1)\nc.verify()\nc.commit()\n")
        .unwrap();
    assert_eq!(*out2.lock().unwrap(), "12\nbump 1\n");
    assert!(
        later
            .audit_log()
            .iter()
            .any(|l| l.contains("reversible action 'bump' -> committed")),
        "{:?}",
        later.audit_log()
    );
}

/// A snapshot that holds no audit log (taken by a VM that never had one)
/// restores with an empty one, which records what runs next.
#[test]
fn a_snapshot_without_an_audit_log_restores_an_empty_one() {
    let mut vm = sense_eval::Vm::new(sense_eval::Config::default());
    for def in sense_agents::kinds::natives() {
        vm.register_native(def);
    }
    let src = sense_syntax::SourceFile::new("p.sns", "x = 1\n");
    vm.run_main(src, None, None).unwrap();
    // The runtime's own host blob: no main scope, no subject.
    let bytes = vm.snapshot(&[0, 0]).unwrap();

    let (mut rt, out) = runtime();
    rt.restore_snapshot(&bytes).unwrap();
    assert_eq!(rt.audit_log(), Vec::<String>::new());
    rt.run_source("t.sns", "tool t():\n    return 1\nprint(t())\n")
        .unwrap();
    assert_eq!(
        rt.audit_log(),
        vec!["[line 3] tool 't' -> called".to_string()]
    );
    assert_eq!(*out.lock().unwrap(), "1\n");
}
