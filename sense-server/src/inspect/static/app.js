// The Sense inspector page: polls /api/state every second and renders it;
// forms and buttons call the JSON API. Plain DOM, no dependencies.
'use strict';

const $ = (id) => document.getElementById(id);

// h('div', {class: 'x', onclick: f}, child, [children], 'text') builds an
// element; text always goes in as text, never as HTML.
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  const add = (c) => {
    if (c === null || c === undefined || c === false) return;
    if (Array.isArray(c)) c.forEach(add);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  };
  kids.forEach(add);
  return el;
}

let lastText = '';
let inflight = 0;
let auditSeen = null;
const results = {};

// ---- talking to the runtime ------------------------------------------------

function setLive(ok) {
  const el = $('live');
  el.className = 'live ' + (ok ? 'on' : 'off');
  el.textContent = ok
    ? 'live · ' + new Date().toLocaleTimeString()
    : 'disconnected — is `sense inspect` still running?';
}

async function poll() {
  if (inflight) return;
  try {
    const r = await fetch('/api/state', { cache: 'no-store' });
    const text = await r.text();
    setLive(r.ok);
    if (r.ok && text !== lastText) {
      lastText = text;
      render(JSON.parse(text));
    }
  } catch (e) {
    setLive(false);
  }
}

async function post(url, body) {
  inflight++;
  try {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body || {}),
    });
    let data;
    try {
      data = await r.json();
    } catch (e) {
      data = { error: { class: 'HTTP ' + r.status, message: r.statusText || 'no answer' } };
    }
    if (data.state) {
      lastText = '';
      render(data.state);
    }
    return data;
  } catch (e) {
    setLive(false);
    return { error: { class: 'NetworkError', message: 'the inspector did not answer' } };
  } finally {
    inflight--;
  }
}

function toast(text, isError) {
  const box = $('toasts');
  const t = h('div', { class: 'toast' + (isError ? ' error' : '') }, text);
  box.append(t);
  while (box.children.length > 3) box.firstChild.remove();
  setTimeout(() => t.remove(), isError ? 5000 : 2500);
}

function report(key, data, okText) {
  if (data.error) {
    results[key] = { error: true, text: data.error.class + ': ' + data.error.message };
    toast([h('b', {}, data.error.class), data.error.message], true);
  } else {
    results[key] = { error: false, text: okText };
    toast(okText, false);
  }
  redraw();
}

// Runs `f` with the button disabled while the request is out.
async function busy(button, f) {
  if (button) {
    button.disabled = true;
    button.classList.add('busy');
  }
  try {
    await f();
  } finally {
    if (button && button.isConnected) {
      button.disabled = false;
      button.classList.remove('busy');
    }
  }
}

// Text typed as plain text, written as a Sense string literal.
function textLiteral(s) {
  return '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t').replace(/\r/g, '\\r') + '"';
}

function placeholderFor(type) {
  if (!type) return 'a literal: "text", 42, true, nil';
  if (type === 'String') return '"text"';
  if (type === 'Int') return '42';
  if (type === 'Float') return '1.5';
  if (type === 'Bool') return 'true';
  if (type.startsWith('Array')) return type.includes('String') ? '["a", "b"]' : '[1, 2]';
  return 'a Sense literal';
}

// ---- rendering ---------------------------------------------------------------

let current = null;

function redraw() {
  if (current) render(current);
}

// Keeps what the user typed (and which <details> are open) across renders.
function saveInputs() {
  const saved = {};
  const active = document.activeElement;
  document.querySelectorAll('[data-key]').forEach((el) => {
    const k = el.getAttribute('data-key');
    if (el.tagName === 'DETAILS') saved[k] = { open: el.open };
    else {
      saved[k] = { value: el.value, focus: el === active };
      if (el === active && el.selectionStart !== undefined) {
        saved[k].start = el.selectionStart;
        saved[k].end = el.selectionEnd;
      }
    }
  });
  return saved;
}

function restoreInputs(saved) {
  document.querySelectorAll('[data-key]').forEach((el) => {
    const s = saved[el.getAttribute('data-key')];
    if (!s) return;
    if (el.tagName === 'DETAILS') {
      el.open = s.open;
      return;
    }
    el.value = s.value;
    if (s.focus) {
      el.focus();
      if (s.start !== undefined && el.setSelectionRange) {
        try { el.setSelectionRange(s.start, s.end); } catch (e) { /* selects */ }
      }
    }
  });
}

function forget(prefix) {
  document.querySelectorAll('[data-key]').forEach((el) => {
    if (el.getAttribute('data-key').startsWith(prefix) && el.tagName !== 'DETAILS') el.value = '';
  });
}

function pill(status) {
  return h('span', { class: 'pill status ' + status }, status.replace('_', ' '));
}

function tag(text, cls) {
  return h('span', { class: 'tag' + (cls ? ' ' + cls : '') }, text);
}

function policyTag(capability, policy) {
  if (!capability) return tag('no capability needed');
  return h('span', { class: 'tag policy ' + policy, title: 'policy outcome at the top level' },
    'requires ' + capability + ' · ' + policy);
}

function resultLine(key) {
  const r = results[key];
  if (!r) return null;
  return h('div', { class: 'result' + (r.error ? ' error' : ''), 'data-result': key }, r.text);
}

function shown(v) {
  return v.type === 'String' ? v.text : v.literal;
}

function signature(name, params, returns) {
  const ps = params.map((p) => p.name + (p.type ? ': ' + p.type : '')).join(', ');
  return name + '(' + ps + ')' + (returns ? ' → ' + returns : '');
}

function paramInputs(prefix, params) {
  return params.map((p, i) => h('label', {},
    p.name + (p.type ? ': ' + p.type : ''),
    h('input', { type: 'text', 'data-key': prefix + ':' + i, placeholder: placeholderFor(p.type),
      'aria-label': p.name, spellcheck: 'false', autocomplete: 'off' })));
}

function argValues(form, prefix, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const el = form.querySelector('[data-key="' + CSS.escape(prefix + ':' + i) + '"]');
    out.push(el ? el.value.trim() : '');
  }
  return out;
}

function renderProgram(p) {
  const box = $('program');
  box.replaceChildren(...[
    tag(p.mode === 'state' ? 'state file' : 'program'),
    h('span', { class: 'path' }, p.path),
    p.dry_run && tag('dry run — commits are simulated', 'warn'),
    p.changes > 0 && tag(p.changes + ' change' + (p.changes === 1 ? '' : 's') + ' from this console'),
    p.mode === 'state' && tag(p.save_error ? 'NOT SAVED' : 'saved after every change', p.save_error ? 'warn' : ''),
  ].filter(Boolean));
  const banner = $('banner');
  const problems = [];
  if (p.error) {
    problems.push(h('div', {}, h('b', {}, 'The program stopped with an error. '),
      'What it declared before that is still here.', h('pre', {}, p.error.rendered)));
  }
  if (p.save_error) problems.push(h('div', {}, h('b', {}, 'The state file was not written: '), p.save_error));
  banner.hidden = problems.length === 0;
  banner.replaceChildren(...problems);
  document.title = 'Sense inspector — ' + p.path;
}

function renderAgents(agents) {
  $('agents-count').textContent = agents.length;
  const paused = agents.filter((a) => a.status === 'paused').length;
  if (paused) $('agents-count').textContent = agents.length + ' · ' + paused + ' waiting';
  if (!agents.length) return [h('p', { class: 'empty' }, 'No agents.')];
  return agents.map((a) => {
    const key = 'agent:' + a.serial;
    const parts = [
      h('div', { class: 'card-head' },
        h('span', { class: 'name' }, a.name),
        h('span', { class: 'muted mono' }, '#' + a.serial),
        a.async && tag('async'),
        a.subject && tag('state file subject'),
        a.mailbox > 0 && tag(a.mailbox + ' message' + (a.mailbox === 1 ? '' : 's') + ' waiting'),
        h('span', { class: 'spacer' }),
        pill(a.status)),
    ];
    if (a.status === 'paused') {
      parts.push(h('div', { class: 'question' },
        h('span', { class: 'kind' }, a.pause_kind === 'ask_human' ? 'asks' : 'paused · ' + a.pause_kind),
        shown(a.pause_reason)));
      const input = h('input', { type: 'text', class: 'answer', 'data-key': 'resume:' + a.serial,
        placeholder: 'a Sense literal: "yes", 42, true, nil, [1, 2]', 'aria-label': 'answer for ' + a.name,
        spellcheck: 'false', autocomplete: 'off' });
      const mode = h('select', { 'data-key': 'mode:' + a.serial, 'aria-label': 'how to read the answer' },
        h('option', { value: 'literal' }, 'Sense literal'),
        h('option', { value: 'text' }, 'plain text'));
      const button = h('button', { type: 'submit' }, 'Resume');
      parts.push(h('form', {
        class: 'row resume',
        onsubmit: (ev) => {
          ev.preventDefault();
          const raw = input.value.trim();
          const value = mode.value === 'text' ? textLiteral(input.value) : (raw === '' ? 'nil' : raw);
          busy(button, async () => {
            const data = await post('/api/agents/' + a.serial + '/resume', { value });
            const after = data.agent ? data.agent.status : '';
            if (!data.error) forget('resume:' + a.serial);
            report(key, data, a.name + ' resumed with ' + value + ' → ' + after);
          });
        },
      }, input, mode, button));
      parts.push(h('div', { class: 'hint' },
        'Type a Sense literal ("quoted text", 42, true, nil, [1, 2]) or switch to plain text.'));
    }
    if (a.status === 'created') {
      const button = h('button', { type: 'submit' }, 'Start');
      parts.push(h('form', {
        class: 'row start',
        onsubmit: (ev) => {
          ev.preventDefault();
          busy(button, async () => {
            const data = await post('/api/agents/' + a.serial + '/start', {});
            report(key, data, a.name + ' started → ' + (data.agent ? data.agent.status : ''));
          });
        },
      }, button, h('span', { class: 'muted' }, 'runs its body until it pauses or finishes')));
    }
    parts.push(resultLine(key));
    if (a.frames.length) {
      parts.push(h('details', { class: 'stack', 'data-key': 'stack:' + a.serial, open: true },
        h('summary', {}, 'Call stack · ' + a.frames.length + ' frame' + (a.frames.length === 1 ? '' : 's')),
        a.frames.map((f) => h('div', { class: 'frame' },
          h('div', { class: 'where' }, h('b', {}, f.function), ' ', h('span', {}, f.file + ':' + f.line)),
          f.locals.length
            ? h('table', { class: 'locals' }, f.locals.map((l) => h('tr', {},
              h('td', {}, l.name), h('td', { title: l.value.type }, l.value.literal))))
            : h('div', { class: 'muted' }, 'no locals')))));
    }
    return h('div', { class: 'card agent ' + a.status, 'data-agent': a.name, 'data-serial': a.serial }, parts);
  });
}

function renderTools(tools) {
  $('tools-count').textContent = tools.length;
  if (!tools.length) return [h('p', { class: 'empty' }, 'No tools declared.')];
  return tools.map((t) => {
    const key = 'tool:' + t.key;
    const button = h('button', { type: 'submit' }, 'Call');
    const form = h('form', {
      class: 'row',
      onsubmit: (ev) => {
        ev.preventDefault();
        const args = argValues(form, key, t.params.length);
        busy(button, async () => {
          const data = await post('/api/tools/' + encodeURIComponent(t.key) + '/call', { args });
          report(key, data, data.result ? t.name + '(' + args.join(', ') + ') → ' + data.result.literal : '');
        });
      },
    }, paramInputs(key, t.params), button);
    return h('div', { class: 'card tool', 'data-tool': t.key },
      h('div', { class: 'card-head' },
        h('span', { class: 'sig' }, signature(t.name, t.params, t.returns)),
        t.async && tag('async'),
        h('span', { class: 'spacer' }),
        policyTag(t.capability, t.policy)),
      t.description && h('div', { class: 'desc' }, t.description),
      form,
      resultLine(key));
  });
}

const STEPS = ['verify', 'approve', 'commit', 'rollback'];

function renderActions(actions) {
  const decls = actions.declarations;
  const insts = actions.instances;
  $('actions-count').textContent = decls.length + ' declared · ' + insts.length + ' prepared';
  const out = [];
  if (!decls.length) out.push(h('p', { class: 'empty' }, 'No actions declared.'));
  for (const d of decls) {
    const key = 'prep:' + d.key;
    const button = h('button', { type: 'submit', class: 'secondary' }, 'Prepare');
    const form = h('form', {
      class: 'row',
      onsubmit: (ev) => {
        ev.preventDefault();
        const args = argValues(form, key, d.params.length);
        busy(button, async () => {
          const data = await post('/api/actions/' + encodeURIComponent(d.key) + '/prepare', { args });
          if (!data.error) forget(key + ':');
          report(key, data, data.instance ? 'prepared ' + d.name + ' #' + data.instance.id : '');
        });
      },
    }, paramInputs(key, d.params), button);
    out.push(h('div', { class: 'card action-decl', 'data-action': d.key },
      h('div', { class: 'card-head' },
        h('span', { class: 'sig' }, d.kind + ' ' + signature(d.name, d.params)),
        h('span', { class: 'spacer' }),
        policyTag(d.capability, d.policy),
        d.approval && tag('needs approval'),
        d.rollback && tag('has rollback')),
      form,
      resultLine(key)));
  }
  out.push(h('h3', {}, 'Prepared instances'));
  if (!insts.length) {
    out.push(h('p', { class: 'empty' }, 'None yet: prepare one above, or let the program prepare some.'));
    return out;
  }
  out.push(h('table', { class: 'instances' },
    h('thead', {}, h('tr', {}, ['id', 'action', 'arguments', 'state', 'steps'].map((c) => h('th', {}, c)))),
    h('tbody', {}, insts.map((i) => {
      const key = 'inst:' + i.id;
      const steps = STEPS.filter((s) => s !== 'rollback' || i.kind === 'reversible').map((s) =>
        h('button', {
          type: 'button',
          class: s === 'rollback' ? 'danger' : (s === 'approve' ? 'secondary' : ''),
          'data-step': s,
          disabled: !i.next.includes(s),
          title: i.next.includes(s) ? '.' + s + '()' : 'not available in state ' + i.state,
          onclick: (ev) => busy(ev.currentTarget, async () => {
            const data = await post('/api/actions/instances/' + i.id + '/' + s, {});
            report(key, data, i.name + ' #' + i.id + ' .' + s + '() → ' + (data.instance ? data.instance.state : ''));
          }),
        }, s[0].toUpperCase() + s.slice(1)));
      return h('tr', { 'data-instance': i.id },
        h('td', { class: 'mono' }, '#' + i.id),
        h('td', {}, h('b', {}, i.name), h('div', { class: 'muted' }, i.kind),
          i.capability && h('div', {}, policyTag(i.capability, i.policy))),
        h('td', { class: 'value' }, i.args.map((a) => h('div', {}, a.name + ' = ' + a.value.literal))),
        h('td', {}, pill(i.state), i.requires_approval &&
          h('div', { class: 'muted' }, i.approved ? '✓ approved' : 'not approved')),
        h('td', {}, h('div', { class: 'steps' }, steps), resultLine(key)));
    }))));
  return out;
}

function renderAudit(entries) {
  $('audit-count').textContent = entries.length;
  if (!entries.length) return [h('p', { class: 'empty' }, 'Nothing audited yet.')];
  const fresh = auditSeen === null ? entries.length : auditSeen;
  auditSeen = entries.length;
  return [h('div', { class: 'audit-wrap' }, h('table', {},
    h('thead', {}, h('tr', {}, ['#', 'line', 'what', 'event', 'detail'].map((c) => h('th', {}, c)))),
    h('tbody', {}, entries.map((e) => h('tr', { class: e.index >= fresh ? 'fresh' : '', title: e.text },
      h('td', { class: 'muted' }, e.index + 1),
      h('td', { class: 'muted' }, e.line === null ? '—' : e.line),
      h('td', {}, (e.kind === 'tool' || e.kind === 'model' ? e.kind : e.kind + ' action') + ' ', h('b', {}, e.name)),
      h('td', { class: 'event ' + e.event }, e.event),
      h('td', {}, e.detail || '', e.lineage.length ? h('div', { class: 'muted' }, 'via ' + e.lineage.join(' > ')) : null))))))];
}

function renderMemories(mems) {
  $('memories-count').textContent = mems.length;
  if (!mems.length) return [h('p', { class: 'empty' }, 'No memories.')];
  return mems.map((m) => h('div', { class: 'card memory', 'data-memory': m.name },
    h('div', { class: 'card-head' },
      h('span', { class: 'name' }, m.name),
      tag(m.kind),
      m.hint && h('span', { class: 'muted' }, m.hint),
      m.path && h('span', { class: 'muted mono' }, m.path)),
    m.error && h('div', { class: 'result error' }, m.error),
    m.entries.length
      ? h('table', {}, m.entries.map((e) => h('tr', {},
        h('td', { class: 'mono' }, e.key), h('td', { class: 'value' }, e.value.literal))))
      : h('p', { class: 'empty' }, 'empty')));
}

function render(s) {
  current = s;
  const saved = saveInputs();
  const audit = document.querySelector('.audit-wrap');
  const auditAtEnd = !audit || audit.scrollTop + audit.clientHeight >= audit.scrollHeight - 4;
  renderProgram(s.program);
  $('agents').replaceChildren(...renderAgents(s.agents));
  $('tools').replaceChildren(...renderTools(s.tools));
  $('actions').replaceChildren(...renderActions(s.actions));
  $('audit').replaceChildren(...renderAudit(s.audit));
  $('memories').replaceChildren(...renderMemories(s.memories));
  const out = $('output');
  const outAtEnd = out.scrollTop + out.clientHeight >= out.scrollHeight - 4;
  const none = s.program.mode === 'state'
    ? '(no output since the state was loaded; earlier output is not kept in state files)'
    : '(no output yet)';
  const text = ((s.output.truncated ? '… (older output dropped)\n' : '') + s.output.text) || none;
  if (out.textContent !== text) {
    out.textContent = text;
    if (outAtEnd) out.scrollTop = out.scrollHeight;
  }
  const wrap = document.querySelector('.audit-wrap');
  if (wrap && auditAtEnd) wrap.scrollTop = wrap.scrollHeight;
  restoreInputs(saved);
}

poll();
setInterval(poll, 1000);
