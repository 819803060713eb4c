"""Dev tool: writes random Sense programs for differential testing.

    python3 sense-syntax/tools/fuzz_gen.py OUT_DIR COUNT [SEED]
    sense-syntax/tools/compare.sh ast OUT_DIR/*.sns

Half of the programs come from a small grammar (mostly valid, exercising
every statement form and line attribution); the other half are those
programs with a few tokens deleted, duplicated or replaced, which exercises
the error paths and their lines.
"""
import os
import random
import sys

NAMES = ["x", "y", "f", "g", "rollback", "compensate", "inference", "a_1", "café"]
KEYWORDS = ("def return returns if else while for in break continue true false nil import from as "
            "python set local session agent action reversible irreversible requires approval "
            "policy allow deny test tool memory async persistent model and or not").split()
PUNCT = "+ - * / % = == != < <= > >= -> ( ) [ ] , : . ! { } ; ' \\ @ \t \x0c".split(" ")


class Gen:
    def __init__(self, rng):
        self.r = rng

    def name(self):
        return self.r.choice(NAMES)

    def string(self):
        bodies = ['', 'hi', 'a\\nb', 'q\\"q', 'multi\nline', 'back\\\nslash', "it's", 'tab\\t', '\\a']
        b = self.r.choice(bodies)
        if self.r.random() < 0.15:
            return '"""' + b.replace('\\"', '"') + '"""'
        return '"' + b + '"'

    def atom(self, d):
        c = self.r.randrange(9)
        if c == 0:
            return str(self.r.choice([0, 7, 42, 9223372036854775807, 123]))
        if c == 1:
            return self.r.choice(["1.5", "0.25", "10.0", "3.14159"])
        if c == 2:
            return self.string()
        if c == 3:
            return self.r.choice(["true", "false", "nil"])
        if c == 4 and d > 0:
            return "(" + self.expr(d - 1) + ")"
        if c == 5 and d > 0:
            n = self.r.randrange(4)
            sep = ",\n  " if self.r.random() < 0.3 else ", "
            return "[" + sep.join(self.expr(d - 1) for _ in range(n)) + "]"
        return self.name()

    def postfix(self, d):
        e = self.atom(d)
        for _ in range(self.r.randrange(3)):
            c = self.r.randrange(3)
            if c == 0 and d > 0:
                args = [self.expr(d - 1) for _ in range(self.r.randrange(3))]
                if self.r.random() < 0.3:
                    args.append(self.name() + ": " + self.expr(d - 1))
                sep = ",\n    " if self.r.random() < 0.2 else ", "
                e += "(" + sep.join(args) + ")"
            elif c == 1:
                e += "." + self.name()
            elif d > 0:
                e += "[" + self.expr(d - 1) + "]"
        return e

    def unary(self, d):
        p = ""
        for _ in range(self.r.choice([0, 0, 0, 1, 2])):
            p += self.r.choice(["not ", "-", "- "])
        return p + self.postfix(d)

    def expr(self, d=2):
        e = self.unary(d)
        for _ in range(self.r.randrange(4)):
            op = self.r.choice(["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or"])
            e += " " + op + " " + self.unary(d)
        if self.r.random() < 0.08:
            targets = [self.name()] * 16 + [self.name() + "[0]", "(" + self.name() + ")", self.name() + ".m"]
            e = "(" + self.r.choice(targets) + " = " + e + ")"
        return e

    def ty(self, d=2):
        t = self.r.choice(["Int", "String", "Array", "Float", "Any"])
        if d > 0 and self.r.random() < 0.3:
            t += "<" + ", ".join(self.ty(d - 1) for _ in range(self.r.randrange(1, 3))) + ">"
        return t

    def params(self):
        ps = []
        for _ in range(self.r.randrange(3)):
            p = self.name()
            if self.r.random() < 0.5:
                p += ": " + self.ty()
            ps.append(p)
        return ", ".join(ps)

    def cap(self):
        return ".".join(self.r.choice(["net", "http", "model", "fs", "write", "db", "set"])
                        for _ in range(self.r.randrange(1, 4)))

    def block(self, ind, d):
        if d <= 0 or self.r.random() < 0.25:
            return ": " + self.simple() + "\n"
        ind2 = ind + " " * self.r.choice([1, 2, 4])
        out = ":"
        if self.r.random() < 0.2:
            out += "  # note"
        out += "\n"
        for _ in range(self.r.randrange(1, 4)):
            if self.r.random() < 0.1:
                out += "\n" + ind2[: self.r.randrange(len(ind2) + 1)] + "# comment\n"
            out += self.stmt(ind2, d - 1)
        return out

    def simple(self):
        c = self.r.randrange(12)
        if c == 0:
            return "return " + self.expr() if self.r.random() < 0.7 else "return"
        if c == 1:
            return self.r.choice(["break", "continue"])
        if c == 2:
            return self.name() + ": " + self.ty() + " = " + self.expr()
        if c == 3:
            return "local " + self.name() + (": " + self.ty() if self.r.random() < 0.5 else "") + " = " + self.expr()
        if c == 4:
            return "set " + self.name() + " = " + self.expr()
        if c == 5:
            return "model " + self.name() + " = " + self.expr()
        if c == 6:
            py = self.r.choice(["", "python "])
            path = self.r.choice(['"lib.sns"', "pkg.mod", "os.path", "a"])
            return "import " + py + path + (" as " + self.name() if self.r.random() < 0.5 else "")
        if c == 7:
            py = self.r.choice(["", "python "])
            names = ", ".join(self.name() + (" as " + self.name() if self.r.random() < 0.3 else "")
                              for _ in range(self.r.randrange(1, 3)))
            return "from " + py + self.r.choice(['"m.sns"', "pkg.mod"]) + " import " + names
        if c == 8:
            return self.r.choice(["", "persistent "]) + "memory " + self.name() + (': "kv"' if self.r.random() < 0.5 else "")
        if c == 9:
            return "policy: " + self.r.choice(["allow", "deny"]) + " " + self.cap()
        return self.expr()

    def stmt(self, ind, d):
        c = self.r.randrange(16)
        if c == 0:
            s = "if " + self.expr() + self.block(ind, d)
            while self.r.random() < 0.3:
                s += ind + "else if " + self.expr() + self.block(ind, d)
            if self.r.random() < 0.4:
                s += ind + "else" + self.block(ind, d)
            return ind + s
        if c == 1:
            return ind + "while " + self.expr() + self.block(ind, d)
        if c == 2:
            return ind + "for " + self.name() + " in " + self.expr() + self.block(ind, d)
        if c == 3:
            ret = " -> " + self.ty() if self.r.random() < 0.4 else ""
            return ind + "def " + self.name() + "(" + self.params() + ")" + ret + self.block(ind, d)
        if c == 4:
            return ind + "test " + self.string() + self.block(ind, d)
        if c == 5:
            return ind + "session " + self.name() + self.block(ind, d)
        if c == 6:
            return ind + self.r.choice(["", "async "]) + "agent " + self.name() + self.block(ind, d)
        if c == 7:
            kind = self.r.choice(["reversible", "irreversible"])
            req = ""
            if self.r.random() < 0.6:
                items = [self.cap(), "approval"]
                self.r.shuffle(items)
                req = " requires " + ", ".join(items[: self.r.randrange(1, 3)])
            s = ind + kind + " action " + self.name() + "(" + self.params() + ")" + req + self.block(ind, d)
            if kind == "reversible" or self.r.random() < 0.1:
                s += ind + self.r.choice(["rollback"] * 8 + ["compensate"]) + self.block(ind, d)
            return s
        if c == 8:
            s = ind + self.r.choice(["", "async "]) + "tool " + self.name() + "(" + self.params() + ")"
            if self.r.random() < 0.4:
                s += " returns " + self.ty()
            if self.r.random() < 0.4:
                s += " requires " + self.cap()
            if self.r.random() < 0.4:
                s += ' "does things"'
            return s + self.block(ind, d)
        if c == 9:
            ind2 = ind + "  "
            rules = "".join(ind2 + self.r.choice(["allow", "deny"]) + " " + self.cap() + "\n"
                            for _ in range(self.r.randrange(1, 3)))
            return ind + "policy:\n" + rules
        return ind + self.simple() + self.r.choice(["\n", "\n", "  # trailing\n", "\n\n"])

    def program(self):
        return "".join(self.stmt("", 3) for _ in range(self.r.randrange(1, 6)))


def mutate(rng, src):
    parts = src.split(" ")
    for _ in range(rng.randrange(1, 4)):
        if not parts:
            break
        k = rng.randrange(len(parts))
        c = rng.randrange(5)
        if c == 0:
            del parts[k]
        elif c == 1:
            parts.insert(k, parts[k])
        elif c == 2:
            parts[k] = rng.choice(KEYWORDS)
        elif c == 3:
            parts[k] = rng.choice(PUNCT)
        else:
            pos = rng.randrange(len(parts[k]) + 1)
            parts[k] = parts[k][:pos] + rng.choice(PUNCT + ["\n", "\n  ", '"']) + parts[k][pos:]
    out = " ".join(parts)
    if rng.random() < 0.2:
        out = out[: rng.randrange(len(out) + 1)]
    return out


def main():
    out_dir, count = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rng = random.Random(seed)
    os.makedirs(out_dir, exist_ok=True)
    g = Gen(rng)
    for n in range(count):
        src = g.program()
        if n % 2 == 1:
            src = mutate(rng, src)
        with open(os.path.join(out_dir, "f%05d.sns" % n), "w", encoding="utf-8") as fh:
            fh.write(src)


if __name__ == "__main__":
    main()
