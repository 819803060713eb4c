//! A bytecode disassembler: what the compiler made of a program, one
//! instruction per line, for reading (`cargo run -p sense-eval --example
//! disasm -- FILE`) and for golden tests of the compiler
//! (`tests/disasm/*.disasm`, checked by `cargo test --test disasm`).
//!
//! It compiles into a private interner, heap and code store, so it needs
//! no [`Vm`](crate::Vm) and runs nothing. The text is meant for people and
//! for those golden files; it is not a format anything parses.

use crate::compile::{CodeSink, TopLevelCompiler};
use crate::heap::Heap;
use crate::object::Obj;
use crate::op::Op;
use crate::proto::{FileId, Proto, ProtoKind};
use crate::symbol::{Interner, Symbol};
use crate::value::Value;
use sense_syntax::{SourceFile, SyntaxError, lexer, parser};
use std::fmt::Write;
use std::sync::Arc;

/// Parses and compiles `source` and returns every proto's code as text:
/// nested bodies first, in the order the compiler appended them, the
/// file's top level last. A syntax error comes back as it would from
/// `sense run`.
pub fn disassemble(source: &SourceFile) -> Result<String, SyntaxError> {
    let lexed = lexer::tokenize(source)?;
    let program = parser::parse(source.text(), &lexed.tokens)?;
    let mut interner = Interner::default();
    let mut heap = Heap::new();
    let mut protos: Vec<Arc<Proto>> = Vec::new();
    let sink = CodeSink {
        interner: &mut interner,
        heap: &mut heap,
        protos: &mut protos,
    };
    let compiled = TopLevelCompiler::new(sink, FileId(0), source.name()).program(&program);
    let mut out = String::new();
    if compiled.is_err() {
        // What was stored is listed; the listing says it is cut short.
        out.push_str("; out of memory: the code could not be stored whole\n");
    }
    for (i, proto) in protos.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        render_proto(&mut out, i, proto, &interner, &heap);
    }
    Ok(out)
}

fn render_proto(out: &mut String, id: usize, p: &Proto, names: &Interner, heap: &Heap) {
    let kind = match p.kind {
        ProtoKind::TopLevel => "top level",
        ProtoKind::Function => "function",
        ProtoKind::TaskBody => "task body",
    };
    let _ = writeln!(out, "proto {id}: {kind} {}", p.name);
    if !p.params.is_empty() {
        let params: Vec<&str> = p.params.iter().map(|s| names.name(s.name)).collect();
        let _ = writeln!(out, "  params: {}", params.join(", "));
    }
    if p.slotted {
        // The debug table: each slot's name and the code where it is live.
        let slots: Vec<String> = p
            .slot_info
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{i} {} [{}..={}]", names.name(s.name), s.start, s.end))
            .collect();
        let slots = if slots.is_empty() {
            "none".to_string()
        } else {
            slots.join(", ")
        };
        let _ = writeln!(out, "  slots: {slots}");
    }
    let mut last_line = 0;
    for (ip, op) in p.code.iter().enumerate() {
        // The line column only when it changes, as a listing reads best.
        let line = p.spans.get(ip).map_or(0, |s| s.line);
        let shown = if line != last_line {
            last_line = line;
            line.to_string()
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {shown:>4} {ip:>4}  {}",
            render_op(*op, p, names, heap)
        );
    }
}

fn render_op(op: Op, p: &Proto, names: &Interner, heap: &Heap) -> String {
    let sym = |s: Symbol| names.name(s).to_string();
    let name = |s: Option<Symbol>| s.map_or_else(|| "?".to_string(), sym);
    match op {
        Op::Const(i) => format!(
            "Const {i}  ; {}",
            p.consts
                .get(i as usize)
                .map_or_else(|| "?".to_string(), |v| constant(*v, heap))
        ),
        Op::ConstArray(k) => match p.consts.get(k as usize) {
            Some(Value::Int(n)) if *n >= 0 => format!("ConstArray {k}  ; {n} elements"),
            _ => format!("ConstArray {k}  ; ?"),
        },
        Op::Load(s) => format!("Load {}", sym(s)),
        Op::Store(s) => format!("Store {}", sym(s)),
        Op::Define(s) => format!("Define {}", sym(s)),
        Op::Member(s) => format!("Member {}", sym(s)),
        Op::LoadSlot(s)
        | Op::StoreSlot(s)
        | Op::StoreSlotPop(s)
        | Op::DefineSlot(s)
        | Op::BumpSlot(s)
        | Op::SlotCompareJump(s)
        | Op::SlotIndexSlot(s)
        | Op::AddStoreSlot(s)
        | Op::LoadSlots(s) => {
            let what = format!("{op:?}");
            let what = what.split('(').next().unwrap_or_default();
            format!("{what} {s}  ; {}", name(p.slot_name(s)))
        }
        Op::ClearSlots(a, b) => {
            let names: Vec<String> = (a..b).map(|s| name(p.slot_name(u32::from(s)))).collect();
            format!("ClearSlots {a}..{b}  ; {}", names.join(", "))
        }
        Op::SetConfig(s) => format!("SetConfig {}", sym(s)),
        Op::Jump(t) => format!("Jump -> {t}"),
        Op::Loop(t) => format!("Loop -> {t}"),
        Op::JumpIfFalse(t) => format!("JumpIfFalse -> {t}"),
        Op::JumpIfFalseOrPop(t) => format!("JumpIfFalseOrPop -> {t}"),
        Op::JumpIfTrueOrPop(t) => format!("JumpIfTrueOrPop -> {t}"),
        Op::IterNext(t) => format!("IterNext -> {t}"),
        Op::StorePop(s) => format!("StorePop {}", sym(s)),
        Op::Bump(s) => format!("Bump {}", sym(s)),
        Op::CompareJump(c, t) => format!("CompareJump {c:?} -> {t}"),
        Op::TryBegin(t) => format!("TryBegin  ; except -> {t}"),
        Op::FinallyBegin(t) => format!("FinallyBegin  ; finally -> {t}"),
        Op::ExceptMatch(c, t) => format!(
            "ExceptMatch {} else -> {t}",
            sense_syntax::ast::ERROR_CLASSES
                .get(c as usize)
                .unwrap_or(&"?")
        ),
        Op::Closure(i) => format!("Closure proto {i}"),
        Op::CallLabeled(i) => match p.labels.get(i as usize) {
            Some(l) => {
                let labels: Vec<String> = l.labels.iter().map(|s| sym(*s)).collect();
                format!("CallLabeled {} + {}:", l.positional, labels.join(": "))
            }
            None => format!("CallLabeled {i}"),
        },
        Op::LoopBegin(i) => match p.loops.get(i as usize) {
            Some(l) => format!(
                "LoopBegin {i}  ; break -> {}, continue -> {}",
                l.break_ip, l.continue_ip
            ),
            None => format!("LoopBegin {i}"),
        },
        Op::TaskDecl(i) => format!("TaskDecl {}", name(p.tasks.get(i as usize).map(|a| a.name))),
        Op::Declare(i) => {
            let d = p.decls.get(i as usize);
            format!(
                "Declare {} {}",
                d.map_or("?", |d| d.kind),
                name(d.map(|d| d.name))
            )
        }
        Op::Import(i) | Op::FromImport(i) => {
            let what = if matches!(op, Op::Import(_)) {
                "Import"
            } else {
                "FromImport"
            };
            let path = p.imports.get(i as usize).map_or("?", |m| m.path.as_str());
            format!("{what} {path:?}")
        }
        Op::CheckType(i) => format!(
            "CheckType {}",
            p.decl_types
                .get(i as usize)
                .map_or("?", |d| d.name.as_str())
        ),
        Op::TestBegin(i) => format!(
            "TestBegin {:?}",
            p.tests
                .get(i as usize)
                .map_or("?", |t| t.description.as_str())
        ),
        // The rest print as declared: `Call(2)` reads as `Call 2`.
        other => format!("{other:?}").replace('(', " ").replace(')', ""),
    }
}

fn constant(v: Value, heap: &Heap) -> String {
    match v {
        Value::Str(r) => match heap.try_get(r) {
            Some(Obj::Str(s)) => format!("{:?}", &*s.text),
            _ => "<string>".to_string(),
        },
        Value::Int(n) => n.to_string(),
        Value::Float(x) => format!("{x:?}"),
        Value::Bool(b) => b.to_string(),
        Value::Nil => "nil".to_string(),
        other => format!("{other:?}"),
    }
}
