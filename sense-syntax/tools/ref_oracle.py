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


def ty(t):
    if t is None:
        return "-"
    return "(type %d %s%s)" % (t.line, t.name, "".join(" " + ty(p) for p in t.params))


def params(ps):
    return "(params%s)" % "".join(" (%s %s)" % (p.name, ty(p.type_ann)) for p in ps)


def opt(s):
    return "-" if s is None else s


def e(x):
    L = x.line
    if isinstance(x, n.IntLit):
        return "(int %d %d)" % (L, x.value)
    if isinstance(x, n.FloatLit):
        return "(float %d %s)" % (L, f(x.value))
    if isinstance(x, n.StringLit):
        return "(str %d %s)" % (L, repr(x.value))
    if isinstance(x, n.BoolLit):
        return "(bool %d %s)" % (L, "true" if x.value else "false")
    if isinstance(x, n.NilLit):
        return "(nil %d)" % L
    if isinstance(x, n.ArrayLit):
        return "(array %d%s)" % (L, "".join(" " + e(a) for a in x.elements))
    if isinstance(x, n.Identifier):
        return "(name %d %s)" % (L, x.name)
    if isinstance(x, n.Assign):
        return "(assign %d %s %s)" % (L, x.name, e(x.value))
    if isinstance(x, n.IndexAssign):
        return "(index-assign %d %s %s %s)" % (L, e(x.target), e(x.index), e(x.value))
    if isinstance(x, n.BinaryOp):
        return "(bin %d %s %s %s)" % (L, x.op, e(x.left), e(x.right))
    if isinstance(x, n.LogicalOp):
        return "(logic %d %s %s %s)" % (L, x.op, e(x.left), e(x.right))
    if isinstance(x, n.UnaryOp):
        return "(unary %d %s %s)" % (L, x.op, e(x.operand))
    if isinstance(x, n.Call):
        return "(call %d %s (args%s) (labeled%s))" % (
            L,
            e(x.callee),
            "".join(" " + e(a) for a in x.args),
            "".join(" (%s %s)" % (k, e(v)) for k, v in x.kwargs),
        )
    if isinstance(x, n.Index):
        return "(index %d %s %s)" % (L, e(x.target), e(x.index))
    if isinstance(x, n.MemberAccess):
        return "(member %d %s %s)" % (L, e(x.target), x.name)
    raise TypeError(type(x).__name__)


def block(b):
    return "(block %d%s)" % (b.line, "".join(" " + s(st) for st in b.statements))


def s(x):
    L = x.line
    if isinstance(x, n.ExprStmt):
        return "(expr %d %s)" % (L, e(x.expr))
    if isinstance(x, n.FnDecl):
        return "(def %d %s %s %s %s)" % (L, x.name, params(x.params), ty(x.return_type), block(x.body))
    if isinstance(x, n.TypedDecl):
        return "(typed %d %s %s %s)" % (L, x.name, ty(x.type_ann), e(x.value))
    if isinstance(x, n.LocalDecl):
        return "(local %d %s %s %s)" % (L, x.name, ty(x.type_ann), e(x.value))
    if isinstance(x, n.SetStmt):
        return "(set %d %s %s)" % (L, x.name, e(x.value))
    if isinstance(x, n.ModelDecl):
        return "(model %d %s %s)" % (L, x.name, e(x.value))
    if isinstance(x, n.IfStmt):
        if x.else_branch is None:
            els = "-"
        elif isinstance(x.else_branch, n.Block):
            els = block(x.else_branch)
        else:
            els = s(x.else_branch)
        return "(if %d %s %s %s)" % (L, e(x.condition), block(x.then_branch), els)
    if isinstance(x, n.WhileStmt):
        return "(while %d %s %s)" % (L, e(x.condition), block(x.body))
    if isinstance(x, n.ForStmt):
        return "(for %d %s %s %s)" % (L, x.var_name, e(x.iterable), block(x.body))
    if isinstance(x, n.ReturnStmt):
        return "(return %d %s)" % (L, "-" if x.value is None else e(x.value))
    if isinstance(x, n.BreakStmt):
        return "(break %d)" % L
    if isinstance(x, n.ContinueStmt):
        return "(continue %d)" % L
    if isinstance(x, n.ImportStmt):
        return "(import %d %s %s %s)" % (L, x.is_python, repr(x.path), opt(x.alias))
    if isinstance(x, n.FromImportStmt):
        names = "".join(" (%s %s)" % (a, opt(b)) for a, b in x.names)
        return "(from %d %s %s%s)" % (L, x.is_python, repr(x.path), names)
    if isinstance(x, n.TestStmt):
        return "(test %d %s %s)" % (L, repr(x.description), block(x.body))
    if isinstance(x, n.SessionStmt):
        return "(session %d %s %s)" % (L, x.name, block(x.body))
    if isinstance(x, n.AgentDecl):
        return "(agent %d %s %s %s)" % (L, x.name, x.is_async, block(x.body))
    if isinstance(x, n.ActionDecl):
        return "(action %d %s %s %s %s %s %s %s)" % (
            L,
            x.name,
            x.kind,
            params(x.params),
            opt(x.requires_capability),
            x.requires_approval,
            block(x.body),
            "-" if x.rollback_body is None else block(x.rollback_body),
        )
    if isinstance(x, n.ToolDecl):
        return "(tool %d %s %s %s %s %s %s %s)" % (
            L,
            x.name,
            x.is_async,
            params(x.params),
            ty(x.return_type),
            opt(x.requires_capability),
            "-" if x.description is None else repr(x.description),
            block(x.body),
        )
    if isinstance(x, n.MemoryDecl):
        return "(memory %d %s %s %s)" % (L, x.name, "-" if x.kind is None else repr(x.kind), x.is_persistent)
    if isinstance(x, n.PolicyStmt):
        rules = "".join(" (rule %d %s %s)" % (r.line, r.effect, r.capability) for r in x.rules)
        return "(policy %d%s)" % (L, rules)
    raise TypeError(type(x).__name__)


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
    return "\n".join(s(st) for st in prog.statements)


def main():
    mode, files = sys.argv[1], sys.argv[2:]
    for path in files:
        if len(files) > 1:
            print("== %s" % path)
        print(run(mode, path))


if __name__ == "__main__":
    main()
