// Tokenizes Sense sources with the grammar of editors/vscode, through the
// same engine VS Code uses (vscode-textmate + the Oniguruma WebAssembly
// build), and checks the scopes of chosen tokens in samples/tour.sns and of
// every keyword in the repository's example programs.
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const here = __dirname;
const repo = path.resolve(here, "..", "..", "..");
const grammarPath = path.join(here, "..", "syntaxes", "sense.tmLanguage.json");

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) =>
      scopeName === "source.sense"
        ? vsctm.parseRawGrammar(fs.readFileSync(grammarPath, "utf8"), grammarPath)
        : null,
  });
  return registry.loadGrammar("source.sense");
}

// [{line, text, scopes}] for every token of a file.
function tokenize(grammar, source) {
  const out = [];
  let stack = vsctm.INITIAL;
  source.split("\n").forEach((line, i) => {
    const r = grammar.tokenizeLine(line, stack);
    for (const t of r.tokens) {
      out.push({ line: i + 1, text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
    }
    stack = r.ruleStack;
  });
  return out;
}

// The scopes of the `nth` token (1-based) on `line` whose text is `text`.
function scopesOf(tokens, line, text, nth = 1) {
  const found = tokens.filter((t) => t.line === line && t.text.trim() === text);
  assert.ok(found.length >= nth, `no token ${JSON.stringify(text)} #${nth} on line ${line}`);
  return found[nth - 1].scopes;
}

function expectScope(tokens, line, text, scope, nth = 1) {
  const scopes = scopesOf(tokens, line, text, nth);
  assert.ok(
    scopes.some((s) => s === scope || s.startsWith(scope + ".")),
    `line ${line} ${JSON.stringify(text)}: expected ${scope}, got ${scopes.join(" ")}`
  );
}

const KEYWORDS = [
  "def", "return", "returns", "if", "else", "while", "for", "in", "break", "continue",
  "true", "false", "nil", "import", "from", "as", "python", "set", "local", "session",
  "agent", "action", "reversible", "irreversible", "requires", "approval", "policy",
  "allow", "deny", "test", "tool", "memory", "async", "persistent", "model", "and", "or", "not",
];
const KEYWORD_SCOPES = ["keyword.", "storage.", "constant.language."];

function checkTour(grammar) {
  const t = tokenize(grammar, fs.readFileSync(path.join(here, "samples", "tour.sns"), "utf8"));
  expectScope(t, 1, "# A tour of what the grammar colours.", "comment.line.number-sign");
  expectScope(t, 2, "import", "keyword.control.import");
  expectScope(t, 2, "lib/helpers.sns", "string.quoted.double");
  expectScope(t, 2, "as", "keyword.control.import");
  expectScope(t, 3, "from", "keyword.control.import");
  expectScope(t, 5, "def", "storage.type.function");
  expectScope(t, 5, "greet", "entity.name.function");
  expectScope(t, 5, "String", "support.type", 1);
  expectScope(t, 5, "->", "keyword.operator.arrow");
  expectScope(t, 6, "return", "keyword.control");
  expectScope(t, 6, "\\n", "constant.character.escape");
  expectScope(t, 8, "Int", "support.type");
  expectScope(t, 8, "42", "constant.numeric.integer");
  expectScope(t, 9, "3.5", "constant.numeric.float");
  expectScope(t, 10, "nil", "constant.language");
  // A triple-quoted string spans lines, quotes inside included.
  expectScope(t, 11, 'a "quoted" word', "string.quoted.triple");
  expectScope(t, 12, "and a second line", "string.quoted.triple");
  expectScope(t, 14, "policy", "keyword.other");
  expectScope(t, 15, "allow", "keyword.other");
  expectScope(t, 18, "model", "storage.type.model");
  expectScope(t, 18, "inference", "support.function.builtin");
  expectScope(t, 19, "persistent", "storage.modifier");
  expectScope(t, 19, "memory", "storage.type.memory");
  expectScope(t, 21, "async", "storage.modifier.async");
  expectScope(t, 21, "fetch", "entity.name.function.tool");
  expectScope(t, 21, "returns", "keyword.other");
  expectScope(t, 21, "requires", "keyword.other");
  expectScope(t, 24, "irreversible", "storage.modifier");
  expectScope(t, 24, "send_mail", "entity.name.function.action");
  expectScope(t, 24, "approval", "keyword.other");
  expectScope(t, 27, "agent", "storage.type.agent");
  expectScope(t, 27, "worker", "entity.name.type.agent");
  expectScope(t, 28, "ask_human", "support.function.builtin");
  expectScope(t, 29, "and", "keyword.operator.logical");
  expectScope(t, 29, "not", "keyword.operator.logical");
  expectScope(t, 29, "==", "keyword.operator.comparison");
  expectScope(t, 31, "else", "keyword.control");
  expectScope(t, 35, "status", "variable.other.member");
  expectScope(t, 35, "%", "keyword.operator.arithmetic");
  expectScope(t, 36, "reversible", "storage.modifier");
  expectScope(t, 38, "rollback", "keyword.other.rollback");
  // Maps and membership (issue 23).
  expectScope(t, 40, "Map", "support.type");
  expectScope(t, 40, "{", "punctuation.section.braces");
  expectScope(t, 40, "}", "punctuation.section.braces");
  expectScope(t, 41, "for", "keyword.control");
  expectScope(t, 41, "in", "keyword.control");
  expectScope(t, 42, "in", "keyword.operator.membership");
  expectScope(t, 42, "not in", "keyword.operator.membership");
  expectScope(t, 42, "keys", "variable.other.member");
  // Nothing after the string on line 12 is left inside it.
  expectScope(t, 14, "policy", "source.sense");
  assert.ok(!scopesOf(t, 14, "policy").some((s) => s.startsWith("string")));
}

// Every keyword outside strings and comments, in every example program
// and golden case, gets a keyword-like scope.
function checkExamples(grammar) {
  const files = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".sns")) files.push(p);
    }
  };
  walk(path.join(repo, "examples"));
  walk(path.join(repo, "tests", "golden"));
  assert.ok(files.length > 0, "no example programs found");
  let checked = 0;
  for (const f of files) {
    for (const tok of tokenize(grammar, fs.readFileSync(f, "utf8"))) {
      const word = tok.text.trim();
      if (!KEYWORDS.includes(word)) continue;
      if (tok.scopes.some((s) => /^(string|comment|variable\.other\.member)/.test(s))) continue;
      assert.ok(
        tok.scopes.some((s) => KEYWORD_SCOPES.some((k) => s.startsWith(k))),
        `${path.relative(repo, f)}:${tok.line}: keyword ${word} got ${tok.scopes.join(" ")}`
      );
      checked++;
    }
  }
  assert.ok(checked > 50, `only ${checked} keywords seen in ${files.length} examples`);
  return { files: files.length, checked };
}

// The manifest points at files that exist, and the language
// configuration's indentation rules indent after a line ending in `:`.
function checkManifest() {
  const ext = path.join(here, "..");
  const pkg = JSON.parse(fs.readFileSync(path.join(ext, "package.json"), "utf8"));
  assert.ok(fs.existsSync(path.join(ext, pkg.main)), "main script");
  const lang = pkg.contributes.languages.find((l) => l.id === "sense");
  assert.deepEqual(lang.extensions, [".sns"]);
  const conf = JSON.parse(fs.readFileSync(path.join(ext, lang.configuration), "utf8"));
  const g = pkg.contributes.grammars.find((x) => x.language === "sense");
  assert.ok(fs.existsSync(path.join(ext, g.path)), "grammar file");
  assert.equal(conf.comments.lineComment, "#");
  const inc = new RegExp(conf.indentationRules.increaseIndentPattern, "u");
  const dec = new RegExp(conf.indentationRules.decreaseIndentPattern, "u");
  for (const line of ["if x:", "    while n > 0:  # loop", "agent a:", "else:", "def f(a: Int) -> Int:"]) {
    assert.ok(inc.test(line), `should indent after ${JSON.stringify(line)}`);
  }
  for (const line of ["x = 1", "print(\"a:\")", "# note:", "y: Int = 2"]) {
    assert.ok(!inc.test(line), `should not indent after ${JSON.stringify(line)}`);
  }
  for (const line of ["else:", "    else if y:", "rollback:"]) {
    assert.ok(dec.test(line), `should dedent ${JSON.stringify(line)}`);
  }
  assert.ok(!dec.test("elsewhere = 1"));
}

(async () => {
  checkManifest();
  const grammar = await loadGrammar();
  checkTour(grammar);
  const { files, checked } = checkExamples(grammar);
  console.log(`grammar: tour.sns scopes ok; ${checked} keywords in ${files} example files ok`);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
