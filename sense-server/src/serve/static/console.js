// The service console: everything goes through the JSON API.
"use strict";
let token = sessionStorage.getItem("sense-token") || "";
let after = 0;
let selected = null;
let shownVersion = null; // the version the page shows: answers apply to it or get 409
let watching = null; // the instance whose events stream is open
let stopWatching = null; // ends that stream

const $ = (id) => document.getElementById(id);

async function api(method, path, body) {
  const headers = {};
  if (token) headers["Authorization"] = "Bearer " + token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  if (r.status === 401) $("tokenrow").hidden = false;
  if (!r.ok) throw new Error((data.error && data.error.message) || ("HTTP " + r.status));
  return data;
}

function say(text) { $("message").textContent = text; }

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.appendChild(td);
  return td;
}

async function load(reset) {
  if (reset) { after = 0; $("instances").tBodies[0].textContent = ""; }
  const status = $("status").value;
  try {
    const page = await api("GET", `/api/instances?status=${encodeURIComponent(status)}&after=${after}&limit=50`);
    for (const inst of page.instances) {
      const row = $("instances").tBodies[0].insertRow();
      const a = document.createElement("a");
      a.href = "#" + inst.id;
      a.textContent = inst.id.slice(0, 12);
      a.addEventListener("click", (e) => { e.preventDefault(); show(inst.id); });
      cell(row, "").appendChild(a);
      cell(row, inst.agent);
      cell(row, inst.status);
      cell(row, JSON.stringify(inst.pause_reason));
      cell(row, String(inst.version));
      cell(row, inst.program.current ? "current" : "earlier version");
    }
    after = page.next || after;
    $("more").hidden = !page.next;
  } catch (e) { say(e.message); }
}

// Follows an instance's events stream: the pieces of a streamed answer
// (`event: text`) appear as they arrive, and a new state redraws the view.
// fetch, not EventSource, which cannot send the Authorization header.
async function watch(id) {
  if (stopWatching) stopWatching.abort();
  const stop = new AbortController();
  [watching, stopWatching] = [id, stop];
  $("d-live").textContent = "";
  delete $("d-live").dataset.open;
  try {
    const headers = { Accept: "text/event-stream" };
    if (token) headers["Authorization"] = "Bearer " + token;
    const r = await fetch(`/api/instances/${id}/events`, { headers, signal: stop.signal });
    if (!r.ok) return;
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        streamed(id, buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  } catch (e) {
    if (!stop.signal.aborted) say(e.message);
  } finally {
    if (stopWatching === stop) [watching, stopWatching] = [null, null];
  }
}

// One message of the events stream (comment lines carry no data).
function streamed(id, message) {
  let name = "message";
  const data = [];
  for (const line of message.split("\n")) {
    if (line.startsWith("event:")) name = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  if (data.length === 0 || id !== selected) return;
  const d = JSON.parse(data.join("\n"));
  if (name === "text") {
    $("d-live").textContent += d.text;
  } else if (name === "state") {
    $("d-live").dataset.open = id; // the stream is open: pieces from now on arrive
    if (!d.deleted && !d.error && d.version !== shownVersion) show(id);
  }
}

async function show(id) {
  selected = id;
  if (watching !== id) watch(id);
  try {
    const d = await api("GET", "/api/instances/" + id);
    shownVersion = d.version;
    $("detail").hidden = false;
    $("d-id").textContent = d.id;
    $("d-status").textContent = d.status + (d.pause_kind ? ` (${d.pause_kind})` : "");
    $("d-reason").textContent = JSON.stringify(d.pause_reason);
    $("d-program").textContent = d.program.current ? "" : "[" + d.program.note + "]";
    const lines = [];
    for (const a of d.agents || []) {
      lines.push(`${a.subject ? "*" : " "} agent ${a.name}: ${a.status}`);
      for (const f of a.frames) {
        lines.push(`    at ${f.function} (${f.file}:${f.line})`);
        for (const [k, v] of Object.entries(f.locals)) lines.push(`        ${k} = ${JSON.stringify(v)}`);
      }
    }
    $("d-frames").textContent = lines.join("\n");
    $("d-output").textContent = d.output;
    const audit = await api("GET", `/api/instances/${id}/audit`);
    $("d-audit").textContent = audit.events
      .map((e) => `${new Date(e.at).toISOString()} v${e.version} ${e.event} ${JSON.stringify(e.detail)}`)
      .join("\n");
  } catch (e) { say(e.message); }
}

function value() {
  const text = $("value").value.trim();
  return text === "" ? null : JSON.parse(text);
}

async function act(fn) {
  try { await fn(); say("done"); } catch (e) { say(e.message); }
  if (selected) await show(selected);
  await load(true);
}

window.addEventListener("DOMContentLoaded", async () => {
  $("token").value = token;
  $("savetoken").addEventListener("click", () => { token = $("token").value; sessionStorage.setItem("sense-token", token); load(true); });
  $("status").addEventListener("change", () => load(true));
  $("refresh").addEventListener("click", () => load(true));
  $("more").addEventListener("click", () => load(false));
  $("start").addEventListener("click", () => act(async () => { const d = await api("POST", "/api/instances", { agent: $("agent").value }); selected = d.id; }));
  $("resume").addEventListener("click", () => act(() =>
    api("POST", `/api/instances/${selected}/resume`, { value: value(), version: shownVersion })));
  $("send").addEventListener("click", () => act(() => api("POST", `/api/instances/${selected}/messages`, { value: value() })));
  $("pause").addEventListener("click", () => act(() => api("POST", `/api/instances/${selected}/pause`)));
  $("delete").addEventListener("click", () => act(async () => { await api("DELETE", "/api/instances/" + selected); selected = null; $("detail").hidden = true; if (stopWatching) stopWatching.abort(); }));
  try { const info = await api("GET", "/api/info"); $("program").textContent = info.program.name + " @ " + info.program.hash; } catch (e) { say(e.message); }
  await load(true);
});
