"""Dev tool: ask the reference implementation how it lexes/parses files.

Run with the reference's own interpreter (a virtualenv with PyPI
sense-lang==0.20.0, see sense-syntax/README.md):

    ~/.cache/sense-ref-0.20.0/bin/python sense-syntax/tools/ref_oracle.py MODE FILE...

MODE is `parse` (prints `ok` or `SenseSyntaxError: [line N] message`),
`ast` (the S-expression dump that `cargo run --example parse -- --ast`
prints) or `tokens` (one `LINE KIND 'lexeme'` per token). Nothing is
executed. With several files, each result is preceded by `== FILE`.
Host crashes of the reference print `HOST-CRASH: <exception type>`.
"""
import struct
import sys

from sense_lang import ast_nodes as n
from sense_lang.errors import SenseSyntaxError
from sense_lang.lexer import tokenize
from sense_lang.parser import parse


def f(v):
    return "%d" % struct.unpack("<Q", struct.pack("<d", v))[0]


def node(tag, x, *parts):
    """`(TAG LINE PART...)`: every node prints its tag and line first."""
    return "(%s %d%s)" % (tag, x.line, "".join(" %s" % p for p in parts))


def ty(t):
    return "-" if t is None else node("type", t, t.name, *map(ty, t.params))


def params(ps):
    return "(params%s)" % "".join(" (%s %s)" % (p.name, ty(p.type_ann)) for p in ps)


def opt(s):
    return "-" if s is None else s


def opt_node(x):
    return "-" if x is None else dump(x)


def opt_repr(s):
    return "-" if s is None else repr(s)


def items(tag, xs):
    return "(%s%s)" % (tag, "".join(" " + x for x in xs))


# What each node of the reference's AST prints after its tag and line.
PARTS = {
    # Expressions.
    n.IntLit: ("int", lambda x: ["%d" % x.value]),
    n.FloatLit: ("float", lambda x: [f(x.value)]),
    n.StringLit: ("str", lambda x: [repr(x.value)]),
    n.BoolLit: ("bool", lambda x: ["true" if x.value else "false"]),
    n.NilLit: ("nil", lambda x: []),
    n.ArrayLit: ("array", lambda x: map(dump, x.elements)),
    n.Identifier: ("name", lambda x: [x.name]),
    n.Assign: ("assign", lambda x: [x.name, dump(x.value)]),
    n.IndexAssign: ("index-assign", lambda x: map(dump, [x.target, x.index, x.value])),
    n.BinaryOp: ("bin", lambda x: [x.op, dump(x.left), dump(x.right)]),
    n.LogicalOp: ("logic", lambda x: [x.op, dump(x.left), dump(x.right)]),
    n.UnaryOp: ("unary", lambda x: [x.op, dump(x.operand)]),
    n.Call: ("call", lambda x: [
        dump(x.callee),
        items("args", map(dump, x.args)),
        items("labeled", ("(%s %s)" % (k, dump(v)) for k, v in x.kwargs)),
    ]),
    n.Index: ("index", lambda x: [dump(x.target), dump(x.index)]),
    n.MemberAccess: ("member", lambda x: [dump(x.target), x.name]),
    # Statements and blocks.
    n.Block: ("block", lambda x: map(dump, x.statements)),
    n.ExprStmt: ("expr", lambda x: [dump(x.expr)]),
    n.FnDecl: ("def", lambda x: [x.name, params(x.params), ty(x.return_type), dump(x.body)]),
    n.TypedDecl: ("typed", lambda x: [x.name, ty(x.type_ann), dump(x.value)]),
    n.LocalDecl: ("local", lambda x: [x.name, ty(x.type_ann), dump(x.value)]),
    n.SetStmt: ("set", lambda x: [x.name, dump(x.value)]),
    n.ModelDecl: ("model", lambda x: [x.name, dump(x.value)]),
    n.IfStmt: ("if", lambda x: [dump(x.condition), dump(x.then_branch), opt_node(x.else_branch)]),
    n.WhileStmt: ("while", lambda x: [dump(x.condition), dump(x.body)]),
    n.ForStmt: ("for", lambda x: [x.var_name, dump(x.iterable), dump(x.body)]),
    n.ReturnStmt: ("return", lambda x: [opt_node(x.value)]),
    n.BreakStmt: ("break", lambda x: []),
    n.ContinueStmt: ("continue", lambda x: []),
    n.ImportStmt: ("import", lambda x: [x.is_python, repr(x.path), opt(x.alias)]),
    n.FromImportStmt: ("from", lambda x: [
        x.is_python,
        repr(x.path) + "".join(" (%s %s)" % (a, opt(b)) for a, b in x.names),
    ]),
    n.TestStmt: ("test", lambda x: [repr(x.description), dump(x.body)]),
    n.SessionStmt: ("session", lambda x: [x.name, dump(x.body)]),
    n.AgentDecl: ("agent", lambda x: [x.name, x.is_async, dump(x.body)]),
    n.ActionDecl: ("action", lambda x: [
        x.name,
        x.kind,
        params(x.params),
        opt(x.requires_capability),
        x.requires_approval,
        dump(x.body),
        opt_node(x.rollback_body),
    ]),
    n.ToolDecl: ("tool", lambda x: [
        x.name,
        x.is_async,
        params(x.params),
        ty(x.return_type),
        opt(x.requires_capability),
        opt_repr(x.description),
        dump(x.body),
    ]),
    n.MemoryDecl: ("memory", lambda x: [x.name, opt_repr(x.kind), x.is_persistent]),
    n.PolicyStmt: ("policy", lambda x: (node("rule", r, r.effect, r.capability) for r in x.rules)),
}


def dump(x):
    """The S-expression of a node of the reference's AST."""
    entry = PARTS.get(type(x))
    if entry is None:
        raise TypeError(type(x).__name__)
    tag, parts = entry
    return node(tag, x, *parts(x))


def run(mode, path):
    with open(path, "r", encoding="utf-8") as fh:
        src = fh.read()
    try:
        toks = tokenize(src)
        if mode == "tokens":
            return "\n".join("%d %s %s" % (t.line, t.type.name, repr(t.lexeme)) for t in toks)
        prog = parse(toks)
    except SenseSyntaxError as exc:
        return "SenseSyntaxError: %s" % exc
    except RecursionError:
        return "HOST-CRASH: RecursionError"
    except Exception as exc:  # the reference's own crashes
        return "HOST-CRASH: %s" % type(exc).__name__
    if mode == "parse":
        return "ok"
    return "\n".join(dump(st) for st in prog.statements)


def main():
    mode, files = sys.argv[1], sys.argv[2:]
    for path in files:
        if len(files) > 1:
            print("== %s" % path)
        print(run(mode, path))


if __name__ == "__main__":
    main()
