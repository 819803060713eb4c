//! No escape hatch (issue 14): no public item of `sense-agents` hands out
//! the `sense_eval::Vm` inside a `Runtime`. Code built on the runtime (the
//! C ABI, the CLI, providers, fuzzers) uses named `Runtime` methods, so
//! the VM's state can change shape without breaking them.
//!
//! The check reads the crate's sources: every `pub` declaration (not
//! `pub(crate)`), joined over the lines its signature spans, is an escape
//! hatch if it names the type `Vm` in a method (it takes `self`: a
//! `Runtime` or handle method), in what it returns, in a field, or in a
//! closure it takes. What stays allowed is the seam itself: a native or an
//! object kind's free function receives the `&mut Vm` that is running it
//! (only the VM calls those, mid-run), and the type is re-exported so such
//! code can be written. The scanner is tested on fixture strings below, so
//! a regression shows as a failure rather than as a silent pass.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

use std::path::Path;

/// Public declarations of `source` that name `Vm`, as `line: text`.
fn public_items_naming_vm(source: &str) -> Vec<String> {
    let lines: Vec<&str> = source.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        if !line.starts_with("pub ") {
            i += 1;
            continue;
        }
        // A signature rustfmt split over lines ends at its body, its `;`,
        // or (a struct field) a `,` outside any parentheses.
        let start = i;
        let mut decl = String::new();
        let mut depth = 0i32;
        while i < lines.len() {
            let part = lines[i].trim();
            decl.push_str(part);
            decl.push(' ');
            i += 1;
            depth += part.matches('(').count() as i32 - part.matches(')').count() as i32;
            if part.contains('{') || part.ends_with(';') || (depth <= 0 && part.ends_with(',')) {
                break;
            }
        }
        if hands_out_vm(&decl) {
            found.push(format!("{}: {}", start + 1, decl.trim()));
        }
    }
    found
}

/// True if the declaration `decl` (already known to be `pub`) could give
/// code outside the VM a `Vm`: a method naming it, a return type, a field,
/// or a closure parameter. A free function whose parameter is the running
/// VM (a native, a kind's helper) and a `pub use` of the type are the seam.
fn hands_out_vm(decl: &str) -> bool {
    if !names_vm(decl) || decl.starts_with("pub use ") {
        return false;
    }
    let is_fn = decl.contains("fn ");
    let takes_self = decl.contains("self");
    let returns_vm = decl.split_once("->").is_some_and(|(_, ret)| names_vm(ret));
    let closure_vm = ["Fn(", "FnMut(", "FnOnce("]
        .iter()
        .any(|f| decl.split(f).skip(1).any(names_vm));
    !is_fn || takes_self || returns_vm || closure_vm
}

/// True if `text` holds `Vm` as a whole identifier (not `VmState`, `MyVm`).
fn names_vm(text: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| word == "Vm")
}

#[test]
fn no_public_item_of_sense_agents_names_vm() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let offenders = sense_testkit::scan_rust_sources(&src, "runtime.rs", public_items_naming_vm);
    assert!(
        offenders.is_empty(),
        "public items of sense-agents hand out the Vm; add a named Runtime method instead:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn scanner_finds_a_public_vm_accessor() {
    let one_line =
        "impl Runtime {\n    pub fn vm(&mut self) -> &mut Vm {\n        &mut self.vm\n    }\n}\n";
    assert_eq!(public_items_naming_vm(one_line).len(), 1);
    let split = "    pub fn with_vm<R>(\n        &mut self,\n        f: impl FnOnce(&Vm) -> R,\n    ) -> R {\n";
    assert_eq!(
        public_items_naming_vm(split),
        vec!["1: pub fn with_vm<R>( &mut self, f: impl FnOnce(&Vm) -> R, ) -> R {".to_string()]
    );
    assert_eq!(
        public_items_naming_vm("pub fn state() -> Option<&'static mut Vm> {\n").len(),
        1
    );
    assert_eq!(
        public_items_naming_vm("pub struct S {\n    pub vm: Vm,\n}\n").len(),
        1
    );
}

#[test]
fn scanner_ignores_crate_private_items_and_other_names() {
    let text = "pub(crate) fn vm(&mut self) -> &mut Vm {\n}\n\
                struct R {\n    vm: Vm,\n}\n\
                pub fn state(&self) -> VmState {\n}\n\
                /// Wraps one Vm.\npub struct Runtime {\n\
                pub use sense_eval::{Config, Vm};\n\
                pub fn my_native(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {\n";
    assert_eq!(public_items_naming_vm(text), Vec::<String>::new());
}
