//! The abstract syntax tree of a Sense file. Every node carries its [`Span`].
//!
//! The tree mirrors the grammar of docs/book/src/language.md one to one. It holds no
//! semantic information (no resolved names, no types); the compiler in
//! `sense-eval` does all of that.

use crate::span::Span;

mod const_array;
pub use const_array::{CONST_ARRAY_MIN, ConstItem, ConstItems};

/// A parsed file: its top-level statements in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Top-level statements.
    pub stmts: Vec<Stmt>,
}

/// An identifier together with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The identifier's text.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

/// A block: the statements of an indented (or inline) suite.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// At least one statement (the grammar has no empty block).
    pub stmts: Vec<Stmt>,
    /// From the `:` to the end of the last statement.
    pub span: Span,
    /// True when written on the header's line (`if x: print(1)`).
    pub inline: bool,
}

/// A type annotation `Name` or `Name<T, U>`.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeAnn {
    /// The type name, e.g. `Array`.
    pub name: String,
    /// Generic parameters, e.g. `[String]` for `Array<String>`.
    pub params: Vec<TypeAnn>,
    /// Where it was written.
    pub span: Span,
}

/// A parameter of a `def`, `tool` or `action`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Parameter name.
    pub name: Ident,
    /// Optional annotation.
    pub ty: Option<TypeAnn>,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What kind of statement.
    pub kind: StmtKind,
    /// Its extent; `span.line` is the line its errors report.
    pub span: Span,
}

/// The statement forms of docs/book/src/language.md.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `expr NEWLINE` (plain assignment is an expression).
    Expr(Expr),
    /// `def NAME(params) [-> T]: block`.
    Def(Box<FnDecl>),
    /// `NAME: T = expr`.
    TypedDecl {
        /// Declared name.
        name: Ident,
        /// Annotation.
        ty: TypeAnn,
        /// Initial value.
        value: Expr,
    },
    /// `local NAME [: T] = expr`.
    Local {
        /// Declared name.
        name: Ident,
        /// Optional annotation.
        ty: Option<TypeAnn>,
        /// Initial value.
        value: Expr,
    },
    /// `set NAME = expr` (only `delegation` is meaningful at run time).
    Set {
        /// Configuration name.
        name: Ident,
        /// Value.
        value: Expr,
    },
    /// `model NAME = expr`.
    Model {
        /// Model name.
        name: Ident,
        /// The model expression.
        value: Expr,
    },
    /// `if cond: block [else (if … | block)]`.
    If {
        /// Condition.
        cond: Expr,
        /// Taken branch.
        then: Block,
        /// `else` part, if any.
        els: Option<Else>,
    },
    /// `while cond: block`.
    While {
        /// Condition, evaluated before each iteration.
        cond: Expr,
        /// Loop body.
        body: Block,
    },
    /// `for NAME in expr: block`.
    For {
        /// Loop variable.
        var: Ident,
        /// Iterated value.
        iter: Expr,
        /// Loop body.
        body: Block,
    },
    /// `return [expr]`.
    Return(Option<Expr>),
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `import [python] module [as alias]`.
    Import {
        /// `import python …`.
        python: bool,
        /// The module path: a quoted path verbatim, or a bare dotted name
        /// already turned into `"a/b.sns"` (Sense) or left as `"a.b"` (python).
        path: String,
        /// True when the path was written as a bare dotted name.
        bare: bool,
        /// Where the module reference was written.
        path_span: Span,
        /// Explicit alias.
        alias: Option<Ident>,
    },
    /// `from [python] module import a [as b], …`.
    FromImport {
        /// `from python …`.
        python: bool,
        /// Module path, as for `Import`.
        path: String,
        /// True when the path was written as a bare dotted name.
        bare: bool,
        /// Where the module reference was written.
        path_span: Span,
        /// Imported names and their aliases.
        names: Vec<(Ident, Option<Ident>)>,
    },
    /// `test "description": block`.
    Test {
        /// The description string's value.
        description: String,
        /// Test body.
        body: Block,
    },
    /// `session NAME: block`.
    Session {
        /// The (unbound) session name.
        name: Ident,
        /// Body, run immediately.
        body: Block,
    },
    /// `[async] agent NAME: block`.
    Agent(Box<AgentDecl>),
    /// `(reversible | irreversible) action NAME(params) … [rollback: block]`.
    Action(Box<ActionDecl>),
    /// `[async] tool NAME(params) [returns T] [requires cap] ["desc"]: block`.
    Tool(Box<ToolDecl>),
    /// `[persistent] memory NAME [: "kind-or-path"]`.
    Memory {
        /// Memory name.
        name: Ident,
        /// The optional string after `:`.
        kind: Option<String>,
        /// `persistent memory`.
        persistent: bool,
    },
    /// `policy: allow|deny cap …`.
    Policy(Vec<PolicyRule>),
    /// `try: block` with its `except` clauses and `finally` block (an
    /// extension of the reference: errors a program can handle).
    Try(Box<TryStmt>),
    /// `raise expr` (an extension): raises a String as a
    /// `SenseRuntimeError`, or re-raises an `Error` value.
    Raise(Expr),
}

/// The words of error handling (an extension): not keywords — the
/// reference reads them as names — but statements where it rejects the
/// line (`try:`, `except …:`, `finally:`, `raise VALUE`).
pub const ERROR_HANDLING_WORDS: &[&str] = &["try", "except", "finally", "raise"];

/// The error classes an `except` clause may name: `SenseError` catches
/// every catchable error, each other name its own class.
pub const ERROR_CLASSES: &[&str] = &[
    "SenseError",
    "SenseSyntaxError",
    "SenseNameError",
    "SenseTypeError",
    "SenseRuntimeError",
    "SenseImportError",
    "SensePolicyError",
    "SenseApprovalError",
];

/// `try: block { except_clause } [ finally: block ]`, with at least one
/// `except` or the `finally`.
#[derive(Clone, Debug, PartialEq)]
pub struct TryStmt {
    /// The guarded block.
    pub body: Block,
    /// The `except` clauses, tried in order.
    pub handlers: Vec<ExceptClause>,
    /// The `finally` block, run however the statement is left.
    pub finally: Option<Block>,
}

/// `except [CLASS] [as NAME]: block`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExceptClause {
    /// The error class caught (`SenseRuntimeError`, …); `None` catches
    /// every catchable error.
    pub class: Option<Ident>,
    /// The name the `Error` value is bound to.
    pub name: Option<Ident>,
    /// The handler.
    pub body: Block,
    /// The clause's header, from `except` to its `:` (line of `except`).
    pub span: Span,
}

/// A declaration statement as a compiler sees every one alike: the
/// keyword that introduces it and its parts. A runtime registers the
/// declaration kind that runs it under the same keyword, so the language
/// core never spells which declarations exist (`model`, `memory`, …).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeclStmt<'a> {
    /// The keyword that introduces the statement (`model`, `memory`).
    pub keyword: &'static str,
    /// The declared name.
    pub name: &'a Ident,
    /// The value computed before the declaration runs (`model NAME = value`).
    pub value: Option<&'a Expr>,
    /// The string after `:` (a memory's kind, or its path when persistent).
    pub text: Option<&'a str>,
    /// The modifier keyword was given (`persistent`).
    pub flag: bool,
}

impl StmtKind {
    /// The keyword of a statement that a runtime runs through a
    /// registered declaration kind (`model`, `memory`, `tool`, `action`,
    /// `policy`), so that the compiler passes it on without spelling it.
    pub fn declaration_keyword(&self) -> Option<&'static str> {
        match self {
            StmtKind::Model { .. } => Some("model"),
            StmtKind::Memory { .. } => Some("memory"),
            StmtKind::Tool(_) => Some("tool"),
            StmtKind::Action(_) => Some("action"),
            StmtKind::Policy(_) => Some("policy"),
            _ => None,
        }
    }

    /// The statement as a [`DeclStmt`], when it is a declaration run by a
    /// registered declaration kind (`model NAME = value`, `memory NAME`).
    pub fn as_declaration(&self) -> Option<DeclStmt<'_>> {
        match self {
            StmtKind::Model { name, value } => Some(DeclStmt {
                keyword: self.declaration_keyword()?,
                name,
                value: Some(value),
                text: None,
                flag: false,
            }),
            StmtKind::Memory {
                name,
                kind,
                persistent,
            } => Some(DeclStmt {
                keyword: self.declaration_keyword()?,
                name,
                value: None,
                text: kind.as_deref(),
                flag: *persistent,
            }),
            _ => None,
        }
    }
}

/// The `else` part of an `if`.
#[derive(Clone, Debug, PartialEq)]
pub enum Else {
    /// `else: block`.
    Block(Block),
    /// `else if …` — the nested `if` statement.
    If(Box<Stmt>),
}

/// `def NAME(params) [-> T]: block`.
#[derive(Clone, Debug, PartialEq)]
pub struct FnDecl {
    /// Function name.
    pub name: Ident,
    /// Parameters.
    pub params: Vec<Param>,
    /// Declared return type (`-> T`).
    pub ret: Option<TypeAnn>,
    /// Body.
    pub body: Block,
}

/// `[async] agent NAME: block`.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentDecl {
    /// Agent name.
    pub name: Ident,
    /// Body, run by `start`.
    pub body: Block,
    /// `async agent`.
    pub is_async: bool,
}

/// Whether an action can be rolled back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionKind {
    /// `reversible action` (has a `rollback:` block).
    Reversible,
    /// `irreversible action`.
    Irreversible,
}

impl ActionKind {
    /// The keyword: `"reversible"` or `"irreversible"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::Reversible => "reversible",
            ActionKind::Irreversible => "irreversible",
        }
    }
}

/// `(reversible | irreversible) action NAME(params) [requires …]: block [rollback: block]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ActionDecl {
    /// Action name.
    pub name: Ident,
    /// Reversible or not.
    pub kind: ActionKind,
    /// Parameters.
    pub params: Vec<Param>,
    /// Required capability path (dotted), if any.
    pub capability: Option<String>,
    /// `requires approval`.
    pub approval: bool,
    /// The commit body.
    pub body: Block,
    /// The `rollback:` block (always present for reversible actions).
    pub rollback: Option<Block>,
}

/// `[async] tool NAME(params) [returns T] [requires cap] ["desc"]: block`.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDecl {
    /// Tool name.
    pub name: Ident,
    /// Parameters.
    pub params: Vec<Param>,
    /// `returns T`.
    pub ret: Option<TypeAnn>,
    /// Required capability path, if any.
    pub capability: Option<String>,
    /// Description string on the header line.
    pub description: Option<String>,
    /// `async tool`.
    pub is_async: bool,
    /// Body.
    pub body: Block,
}

/// `allow cap` or `deny cap`.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyRule {
    /// True for `allow`, false for `deny`.
    pub allow: bool,
    /// Dotted capability path, e.g. `net.http`.
    pub capability: String,
    /// Where the rule was written.
    pub span: Span,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What kind of expression.
    pub kind: ExprKind,
    /// Its extent; `span.line` is the line its errors report (for operators
    /// the operator's line, for calls the `(`'s line, as the reference does).
    pub span: Span,
}

/// One piece of an f-string.
#[derive(Clone, Debug, PartialEq)]
pub enum FStringPart {
    /// Literal text.
    Text(String),
    /// A `{…}` piece, shown as `str()` shows its value.
    Expr(Expr),
}

impl FStringPart {
    /// The expression of a `{…}` piece; `None` for text.
    pub fn expr(&self) -> Option<&Expr> {
        match self {
            FStringPart::Text(_) => None,
            FStringPart::Expr(e) => Some(e),
        }
    }
}

/// Binary operators (everything except `and`/`or`, which short-circuit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `in` (membership: an array's element, a map's key, a substring)
    In,
    /// `not in`
    NotIn,
}

impl BinOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::In => "in",
            BinOp::NotIn => "not in",
        }
    }
}

/// Short-circuit operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogicOp {
    /// `and`
    And,
    /// `or`
    Or,
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `not x`
    Not,
}

/// A labeled call argument `name: value`.
#[derive(Clone, Debug, PartialEq)]
pub struct LabeledArg {
    /// The label.
    pub label: Ident,
    /// The value.
    pub value: Expr,
}

/// The expression forms of docs/book/src/values.md § Operators.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Integer literal.
    Int(i64),
    /// Float literal.
    Float(f64),
    /// String literal (escapes already resolved).
    Str(String),
    /// `true` / `false`.
    Bool(bool),
    /// `nil`.
    Nil,
    /// `[a, b, …]`.
    Array(Vec<Expr>),
    /// `[a, b, …]` of at least [`CONST_ARRAY_MIN`] number and string
    /// literals, held compactly (see [`ConstItems`]).
    ConstArray(Box<ConstItems>),
    /// `f"text {expr} text"`: its pieces in order (adjacent text merged,
    /// `{{`/`}}` and escapes resolved).
    FString(Vec<FStringPart>),
    /// `{k: v, …}`: the entries in the order written.
    Map(Vec<(Expr, Expr)>),
    /// A name.
    Name(String),
    /// `name = value`.
    Assign {
        /// Assigned name.
        name: Ident,
        /// Value.
        value: Box<Expr>,
    },
    /// `target[index] = value`.
    IndexAssign {
        /// Indexed expression.
        target: Box<Expr>,
        /// Index.
        index: Box<Expr>,
        /// Value.
        value: Box<Expr>,
    },
    /// `lhs op rhs`.
    Binary {
        /// Operator.
        op: BinOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `lhs and rhs`, `lhs or rhs`.
    Logic {
        /// Operator.
        op: LogicOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `-x`, `not x`.
    Unary {
        /// Operator.
        op: UnaryOp,
        /// Operand.
        operand: Box<Expr>,
    },
    /// `callee(args…, label: value…)`.
    Call {
        /// Called expression.
        callee: Box<Expr>,
        /// Positional arguments.
        args: Vec<Expr>,
        /// Labeled arguments (after all positional ones).
        labeled: Vec<LabeledArg>,
    },
    /// `target[index]`.
    Index {
        /// Indexed expression.
        target: Box<Expr>,
        /// Index.
        index: Box<Expr>,
    },
    /// `target.name`.
    Member {
        /// Accessed expression.
        target: Box<Expr>,
        /// Member name.
        name: Ident,
    },
}

#[cfg(test)]
mod tests {
    use crate::{SourceFile, parse_file};

    /// `(keyword, name, has value, text, flag)` of each top-level statement
    /// that is a declaration.
    fn declarations(text: &str) -> Vec<(&'static str, String, bool, Option<String>, bool)> {
        let program = parse_file(&SourceFile::new("t.sns", text)).unwrap();
        program
            .stmts
            .iter()
            .filter_map(|s| s.kind.as_declaration())
            .map(|d| {
                (
                    d.keyword,
                    d.name.name.clone(),
                    d.value.is_some(),
                    d.text.map(str::to_string),
                    d.flag,
                )
            })
            .collect()
    }

    #[test]
    fn model_and_memory_statements_are_declarations_with_their_parts() {
        let text = "\
model m = 1
x = 2
memory a
persistent memory b: \"b.db\"
memory c: \"notes\"
def f():
    return 1
";
        assert_eq!(
            declarations(text),
            vec![
                ("model", "m".to_string(), true, None, false),
                ("memory", "a".to_string(), false, None, false),
                (
                    "memory",
                    "b".to_string(),
                    false,
                    Some("b.db".to_string()),
                    true
                ),
                (
                    "memory",
                    "c".to_string(),
                    false,
                    Some("notes".to_string()),
                    false
                ),
            ]
        );
    }
}
