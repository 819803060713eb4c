//! Compiled code: one [`Proto`] per function body, module top level or
//! agent body, with the side tables its instructions index into.

use crate::op::Op;
use crate::symbol::Symbol;
use crate::types::Annotation;
use crate::value::Value;
use sense_syntax::Span;

/// Index of a proto in the VM's code store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ProtoId(pub u32);

/// Index of a loaded source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FileId(pub u32);

/// What a proto's code is the body of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum ProtoKind {
    /// A file's top level (main program or imported module) or a REPL input.
    TopLevel,
    /// A `def` body.
    Function,
    /// An agent body.
    TaskBody,
}

/// A parameter.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ParamSpec {
    /// Its name.
    pub name: Symbol,
    /// Its annotation.
    pub ann: Option<Annotation>,
}

/// Break and continue targets of a loop.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct LoopTargets {
    /// Where `break` continues (the loop's `LoopEnd`).
    pub break_ip: u32,
    /// Where `continue` continues (the loop's head).
    pub continue_ip: u32,
}

/// A `test` block.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TestInfo {
    /// Its description.
    pub description: String,
    /// The instruction after the block.
    pub end_ip: u32,
}

/// A typed or local declaration's check.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DeclType {
    /// Declared name (for the message).
    pub name: String,
    /// Annotation.
    pub ann: Annotation,
}

/// An `import` statement.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ImportInfo {
    /// `import python`.
    pub python: bool,
    /// Path as written (bare paths already turned into `a/b.sns`).
    pub path: String,
    /// Names to bind: `(member, binding)`. For a plain `import` a single
    /// entry whose member is `None` binds the module itself.
    pub names: Vec<(Option<Symbol>, Symbol)>,
}

/// An agent declaration.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TaskInfo {
    /// Agent name.
    pub name: Symbol,
    /// The body.
    pub body: ProtoId,
    /// `async agent`.
    pub is_async: bool,
    /// Cleaned docstring.
    pub doc: Option<String>,
}

/// A declaration run by `Declare` through the declaration kind it names
/// (`model NAME = value`, `memory NAME`, `persistent memory NAME: "path"`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct DeclInfo {
    /// The keyword of the statement, which names the declaration kind
    /// registered to run it ([`Declaration::name`](crate::kind::Declaration::name)).
    pub kind: &'static str,
    /// The declared name.
    pub name: Symbol,
    /// The string after `:` (a memory's kind, or its path when persistent).
    pub text: Option<String>,
    /// The modifier keyword was given (`persistent`).
    pub flag: bool,
    /// A value is computed first and popped (`model NAME = value`).
    pub takes_value: bool,
    /// Bodies the declaration owns (a tool's body, an action's commit and
    /// rollback blocks), compiled like nested functions; the code store
    /// renumbers them with the rest of the unit.
    pub protos: Vec<ProtoId>,
    /// Further keyword/text pairs of the statement, in source order, as
    /// the declaration kind reads them (`requires` and a capability, a
    /// policy's `allow`/`deny` rules, a description).
    pub attrs: Vec<(String, String)>,
}

impl DeclInfo {
    /// The text of the first attribute named `key` (`requires` → the
    /// capability), if the statement has one.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Labeled-call layout.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LabelInfo {
    /// Number of positional arguments.
    pub positional: u32,
    /// Labels, in order.
    pub labels: Vec<Symbol>,
}

/// A frame slot's entry of a proto's debug table: which name it holds
/// and where in the code the scope that binds it is live, so that
/// inspection lists it by name only while that scope runs (the slot of a
/// block that was left by `break` or an error may still hold a stale
/// value until the block is entered again).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SlotInfo {
    /// The variable's name (also what the run-time fallback walk looks up).
    pub name: Symbol,
    /// The first instruction index at which the scope is live.
    pub start: u32,
    /// The last instruction index at which the scope is live (inclusive:
    /// a frame whose `ip` is `end` has not cleared the block yet).
    pub end: u32,
}

/// A compiled body.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Proto {
    /// Function, agent or module name.
    pub name: String,
    /// What this is the body of.
    pub kind: ProtoKind,
    /// The file it came from.
    pub file: FileId,
    /// Parameters.
    pub params: Vec<ParamSpec>,
    /// Declared return type.
    pub ret: Option<Annotation>,
    /// Docstring (cleaned).
    pub doc: Option<String>,
    /// True when `import` inside resolves against the working directory
    /// (function bodies have no file context, the book: modules.md).
    pub no_file_context: bool,
    /// Instructions.
    pub code: Vec<Op>,
    /// Span of each instruction.
    pub spans: Vec<Span>,
    /// Constants (strings are pinned heap objects).
    #[serde(skip)]
    pub consts: Vec<Value>,
    /// Loop targets, indexed by `LoopBegin`.
    pub loops: Vec<LoopTargets>,
    /// Test blocks, indexed by `TestBegin`.
    pub tests: Vec<TestInfo>,
    /// Declaration checks, indexed by `CheckType`.
    pub decl_types: Vec<DeclType>,
    /// Imports, indexed by `Import`/`FromImport`.
    pub imports: Vec<ImportInfo>,
    /// Agent declarations, indexed by `TaskDecl`.
    pub tasks: Vec<TaskInfo>,
    /// Labeled calls, indexed by `CallLabeled`.
    pub labels: Vec<LabelInfo>,
    /// Declarations run through a registered declaration kind, indexed
    /// by `Declare`.
    pub decls: Vec<DeclInfo>,
    /// True when the body's names are compiled to frame slots (a `def`
    /// body without nested bodies or declarations, `compile/slots.rs`):
    /// a call makes no scope, its parameters are slots `0..params.len()`.
    pub slotted: bool,
    /// The debug table of a slotted body, indexed by slot number.
    pub slot_info: Vec<SlotInfo>,
    /// Some parameter has an annotation (a call checks it; the run loop's
    /// fast call path is only for bodies without).
    pub typed_params: bool,
}

impl Proto {
    /// The span of the instruction before `ip` (the one executing), or a
    /// default span when there is none.
    #[inline]
    pub fn span_at(&self, ip: usize) -> Span {
        self.spans
            .get(ip.wrapping_sub(1))
            .copied()
            .unwrap_or_default()
    }

    /// How many frame slots a call of this body needs.
    #[inline]
    pub fn nslots(&self) -> usize {
        self.slot_info.len()
    }

    /// The name held by slot `s`.
    pub fn slot_name(&self, s: u32) -> Option<Symbol> {
        self.slot_info.get(s as usize).map(|i| i.name)
    }

    /// An empty proto.
    pub fn new(name: impl Into<String>, kind: ProtoKind, file: FileId) -> Self {
        Proto {
            name: name.into(),
            kind,
            file,
            params: Vec::new(),
            ret: None,
            doc: None,
            // Function and agent bodies run without the file's context:
            // imports in them resolve against the working directory.
            no_file_context: kind != ProtoKind::TopLevel,
            code: Vec::new(),
            spans: Vec::new(),
            consts: Vec::new(),
            loops: Vec::new(),
            tests: Vec::new(),
            decl_types: Vec::new(),
            imports: Vec::new(),
            tasks: Vec::new(),
            labels: Vec::new(),
            decls: Vec::new(),
            slotted: false,
            slot_info: Vec::new(),
            typed_params: false,
        }
    }
}
