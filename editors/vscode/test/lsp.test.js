// Drives `sense lsp` with the JSON-RPC client library VS Code's own
// language client is built on (vscode-languageserver-protocol), as an
// editor would: initialize, open a file with an error, receive the
// diagnostic, hover, go to definition, format, shut down and exit.
//
// The server binary is $SENSE_BIN, else target/debug/sense of this repository.
"use strict";

const assert = require("node:assert/strict");
const cp = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { pathToFileURL } = require("node:url");
const lsp = require("vscode-languageserver-protocol/node");

const repo = path.resolve(__dirname, "..", "..", "..");
const bin = process.env.SENSE_BIN || path.join(repo, "target", "debug", "sense");

const SOURCE = [
  "def area(w: Int, h: Int) -> Int:",
  "    return w * h",
  "print(area(2, 3)",
  "",
].join("\n");
const FIXED = ["def area(w: Int, h: Int) -> Int:", "    return w*h", "print(area(2, 3))", ""].join("\n");

async function main() {
  assert.ok(fs.existsSync(bin), `no sense binary at ${bin} (build it, or set SENSE_BIN)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sense-lsp-node-"));
  const file = path.join(dir, "area.sns");
  fs.writeFileSync(file, SOURCE);
  const uri = pathToFileURL(file).href;

  const child = cp.spawn(bin, ["lsp"], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  const conn = lsp.createProtocolConnection(
    new lsp.StreamMessageReader(child.stdout),
    new lsp.StreamMessageWriter(child.stdin)
  );
  const diagnostics = [];
  let wake = null;
  conn.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => {
    diagnostics.push(p);
    if (wake) wake();
  });
  conn.listen();
  const nextDiagnostics = () =>
    diagnostics.length
      ? Promise.resolve(diagnostics.shift())
      : new Promise((resolve) => {
          wake = () => {
            wake = null;
            resolve(diagnostics.shift());
          };
        });

  const init = await conn.sendRequest(lsp.InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(dir).href,
    capabilities: {},
  });
  assert.equal(init.serverInfo.name, "sense");
  assert.ok(init.capabilities.hoverProvider);
  await conn.sendNotification(lsp.InitializedNotification.type, {});

  // The call on line 3 is missing its closing parenthesis.
  await conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: "sense", version: 1, text: SOURCE },
  });
  let d = await nextDiagnostics();
  assert.equal(d.uri, uri);
  assert.equal(d.diagnostics.length, 1, JSON.stringify(d));
  // The message is the reference's (which counts the line end as the next line).
  assert.match(d.diagnostics[0].message, /expected '\)' after the arguments/);
  assert.equal(d.diagnostics[0].range.start.line, 2, JSON.stringify(d.diagnostics[0].range));
  assert.equal(d.diagnostics[0].severity, lsp.DiagnosticSeverity.Error);

  await conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: [{ text: FIXED }],
  });
  d = await nextDiagnostics();
  assert.deepEqual(d.diagnostics, []);

  const hover = await conn.sendRequest(lsp.HoverRequest.type, {
    textDocument: { uri },
    position: { line: 2, character: 8 },
  });
  assert.match(hover.contents.value, /def area\(w: Int, h: Int\) -> Int/);
  const builtin = await conn.sendRequest(lsp.HoverRequest.type, {
    textDocument: { uri },
    position: { line: 2, character: 2 },
  });
  assert.match(builtin.contents.value, /print\(values…\)/);

  const def = await conn.sendRequest(lsp.DefinitionRequest.type, {
    textDocument: { uri },
    position: { line: 2, character: 8 },
  });
  assert.equal(def.uri, uri);
  assert.deepEqual(def.range.start, { line: 0, character: 4 });

  const edits = await conn.sendRequest(lsp.DocumentFormattingRequest.type, {
    textDocument: { uri },
    options: { tabSize: 4, insertSpaces: true },
  });
  assert.equal(edits.length, 1);
  assert.match(edits[0].newText, /return w \* h\n/);

  await conn.sendRequest(lsp.ShutdownRequest.type);
  await conn.sendNotification(lsp.ExitNotification.type);
  const code = await exited;
  assert.equal(code, 0, "sense lsp exit status");
  conn.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
  console.log("lsp: initialize, diagnostics, hover, definition, formatting, shutdown ok");
}

const timer = setTimeout(() => {
  console.error("lsp.test.js: timed out after 30 s");
  process.exit(1);
}, 30_000);
main()
  .then(() => clearTimeout(timer))
  .catch((e) => {
    console.error(e);
    process.exit(1);
  });
