"""Dev tool: fills in the expected outputs of tests/cases/*.cases from the reference.

    ~/.cache/sense-ref-0.20.0/bin/python sense-syntax/tools/bless_cases.py sense-syntax/tests/cases/*.cases

Format of a .cases file: a `# mode: parse|ast|tokens` line, other `#` lines
before the first case are comments; then cases:

    ### name            (`### name [nonl]`: the source has no final newline)
    source lines...
    >>>
    expected output lines (rewritten by this tool)

The Rust test tests/reference_cases.rs runs the same cases through this
crate and compares. Cases listed in a `# diverges: name ...` line keep a
hand-written expectation (documented divergences from the reference).
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref_oracle  # noqa: E402


def parse_cases(text):
    lines = text.split("\n")
    header, cases, cur = [], [], None
    for line in lines:
        if line.startswith("### "):
            cur = {"head": line, "src": [], "exp": [], "in_exp": False}
            cases.append(cur)
        elif cur is None:
            header.append(line)
        elif line == ">>>" and not cur["in_exp"]:
            cur["in_exp"] = True
        elif cur["in_exp"]:
            cur["exp"].append(line)
        else:
            cur["src"].append(line)
    return header, cases


def main():
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8", newline="") as fh:
            header, cases = parse_cases(fh.read())
        mode = next(h.split(":", 1)[1].strip() for h in header if h.startswith("# mode:"))
        diverges = set()
        for h in header:
            if h.startswith("# diverges:"):
                diverges.update(h.split(":", 1)[1].split())
        out = [h for h in header]
        while out and out[-1] == "":
            out.pop()
        for c in cases:
            name = c["head"][4:].split(" ")[0]
            nonl = c["head"].endswith("[nonl]")
            src = "\n".join(c["src"]) + ("" if nonl else "\n")
            if name in diverges:
                exp = "\n".join(c["exp"]).rstrip("\n")
            else:
                with tempfile.NamedTemporaryFile("w", suffix=".sns", delete=False, encoding="utf-8", newline="") as t:
                    t.write(src)
                exp = ref_oracle.run(mode, t.name)
                os.unlink(t.name)
            out.append(c["head"])
            out.extend(c["src"])
            out.append(">>>")
            out.append(exp)
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
