// The service console: everything goes through the JSON API.
"use strict";
let token = sessionStorage.getItem("sense-token") || "";
let after = 0;
let selected = null;
let shownVersion = null; // the version the page shows: answers apply to it or get 409

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

async function show(id) {
  selected = id;
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
  $("delete").addEventListener("click", () => act(async () => { await api("DELETE", "/api/instances/" + selected); selected = null; $("detail").hidden = true; }));
  try { const info = await api("GET", "/api/info"); $("program").textContent = info.program.name + " @ " + info.program.hash; } catch (e) { say(e.message); }
  await load(true);
});
