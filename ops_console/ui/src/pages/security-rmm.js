// Remote management (Tactical RMM): the script executions (GET /api/rmm/executions, newest first)
// and, for a user with the permission pair (rmm, execute), running a script on an agent (POST
// /api/rmm/executions {agentId, scriptId, args?, timeoutSeconds?} → 202 the execution, queued)
// after a confirmation; the execution is then asked for (GET /api/rmm/executions/{id}) every 2 s
// until it ends, and its output shown. The choices are the copy's (GET /api/rmm/agents, /scripts),
// which a sync fills (GET/POST /api/rmm/sync, components/sync-run.js). The RMM's clients and the
// PSA company each belongs to (GET /api/rmm/clients), which administrators map where the name does
// not match (POST/DELETE /api/rmm/company-mappings, the removal after a confirmation).
import { html, useEffect, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime, number } from '../lib/format.js';
import { can } from '../lib/session.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, FieldError, Pending } from '../components/messages.js';
import { Confirm } from '../components/confirm.js';
import { SyncRun } from '../components/sync-run.js';
import { CompanyMapForm, useRemoval, VendorError } from './security-common.js';

// The RMM's clients with their companies; administrators map the unmatched and remove mappings.
function Clients({ me, copy }) {
  const clients = useResource('/api/rmm/clients');
  useEffect(() => {
    if (copy) clients.reload();
  }, [copy]);
  const removal = useRemoval((c) => `/api/rmm/company-mappings?clientId=${c.id}`, clients.reload);
  const rows = clients.data;
  return html`<section class="card" aria-labelledby="rmm-clients-h">
    <header><h2 id="rmm-clients-h">Clients and their companies</h2><span class="note">by the client's name, or an administrator's mapping</span></header>
    ${!rows ? html`<${Pending} resource=${clients} label="clients" />`
      : !rows.length ? html`<${Empty}>No RMM client in the copy yet: a sync brings them.<//>`
      : html`<table class="stack-on-phone rmm-clients" aria-labelledby="rmm-clients-h">
        <thead><tr><th scope="col">Client</th><th scope="col">Company</th><th scope="col">Matched by</th><th scope="col" class="num">Agents</th>
          ${me.isAdmin ? html`<th scope="col"><span class="visually-hidden">Mapping</span></th>` : null}</tr></thead>
        <tbody>${rows.map((c) => html`<tr key=${c.id} data-client=${c.id}>
          <td data-label="Client" class="wrap">${c.name}</td>
          <td data-label="Company" class="wrap">${c.companyName || html`<span class="muted">none</span>`}</td>
          <td data-label="Matched by">${c.matchedBy || '—'}</td>
          <td data-label="Agents" class="num">${number(c.agents)}</td>
          ${me.isAdmin ? html`<td data-label="Mapping">${c.matchedBy === 'mapping'
            ? html`<button type="button" class="danger" onClick=${() => removal.ask(c)}>Remove mapping<span class="visually-hidden"> of ${c.name}</span></button>` : null}</td>` : null}
        </tr>`)}</tbody>
      </table>`}
    ${removal.error ? html`<${ErrorBanner} error=${removal.error} />` : null}
    ${me.isAdmin && rows ? html`<h3 class="sub">Map a client</h3>
      <${CompanyMapForm} id="rmm-map" path="/api/rmm/company-mappings" keyField="clientId" keyLabel="Client" keyValue=${Number}
        keys=${rows.map((c) => ({ value: String(c.id), label: c.name }))} onSaved=${clients.reload} />` : null}
    <${Confirm} danger open=${!!removal.asking} title="Remove this mapping?" confirm="Remove it" onConfirm=${removal.remove} onCancel=${removal.cancel}>
      ${removal.asking ? html`<p><strong>${removal.asking.name}</strong> no longer belongs to ${removal.asking.companyName} by this mapping:
        it falls back to a company of the same name, if there is one.</p>` : null}
    <//>
  </section>`;
}

const FINISHED = new Set(['succeeded', 'failed']);
const tone = { queued: 'neutral', running: 'warn', succeeded: 'ok', failed: 'down' };

function Status({ x }) {
  return html`<span class=${`badge ${tone[x.status] || 'neutral'}`}>${x.status}</span>${x.interrupted ? html` <span class="badge down">interrupted</span>` : null}`;
}

function Output({ x }) {
  return html`${x.error ? html`<p class="error-text">${x.error}</p>` : null}
    ${x.output ? html`<pre class="output" tabindex="0" aria-label=${`Output of ${x.script} on ${x.device}`}>${x.output}</pre>` : html`<p class="muted">No output.</p>`}`;
}

function Execution({ id, onEnded }) {
  const [x, setX] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let timer = null;
    let stopped = false;
    const ask = async () => {
      try {
        const e = await api.get(`/api/rmm/executions/${id}`);
        if (stopped) return;
        setX(e);
        setError(null);
        if (FINISHED.has(e.status)) { onEnded(); return; }
      } catch (err) {
        if (stopped) return;
        setError(err);
      }
      timer = setTimeout(ask, 2000);
    };
    ask();
    return () => { stopped = true; clearTimeout(timer); };
  }, [id]);
  if (!x) return error ? html`<${ErrorBanner} error=${error} />` : html`<p class="muted" role="status">Queued…</p>`;
  const done = FINISHED.has(x.status);
  return html`<div class="execution stack" data-execution=${x.id}>
    <p role="status"><${Status} x=${x} /> <strong>${x.script}</strong> on <strong>${x.device}</strong>${done
      ? html`, ended ${dateTime(x.finishedAt)}${x.exitCode !== null && x.exitCode !== undefined ? html` with exit code <span class="mono">${x.exitCode}</span>` : null}.`
      : x.status === 'running' ? ', running on the agent…' : ', waiting for the worker…'}</p>
    ${done ? html`<${Output} x=${x} />` : null}
    ${error ? html`<${ErrorBanner} error=${error} />` : null}
  </div>`;
}

// `copy` counts the syncs that ended while the page was open: the choices are asked for again,
// and what the person has chosen and typed stays.
function RunForm({ onQueued, copy }) {
  const agents = useResource('/api/rmm/agents');
  const scripts = useResource('/api/rmm/scripts');
  useEffect(() => {
    if (!copy) return;
    agents.reload();
    scripts.reload();
  }, [copy]);
  const [form, setForm] = useState({ agentId: '', scriptId: '', args: '', timeout: '' });
  const [asking, setAsking] = useState(false);
  const [state, setState] = useState({ busy: false, error: null });
  const set = (k) => (e) => { const v = e.currentTarget.value; setForm((f) => ({ ...f, [k]: v })); };
  const agent = (agents.data || []).find((a) => a.agentId === form.agentId);
  const script = (scripts.data || []).find((s) => String(s.id) === form.scriptId);
  const args = form.args.split('\n').map((a) => a.trim()).filter(Boolean);

  const run = async () => {
    setAsking(false);
    setState({ busy: true, error: null });
    try {
      const body = { agentId: form.agentId, scriptId: form.scriptId === '' ? null : Number(form.scriptId) };
      if (args.length) body.args = args;
      if (form.timeout.trim()) body.timeoutSeconds = Number(form.timeout);
      const x = await api.post('/api/rmm/executions', body);
      setState({ busy: false, error: null });
      onQueued(x);
    } catch (error) {
      setState({ busy: false, error });
    }
  };

  const fields = state.error?.status === 400 ? state.error.fields : {};
  const stray = state.error && !Object.keys(fields).length;
  const field = (id, label, control, error, hint) => html`<div class="field">
    <label for=${id}>${label}</label>${control}
    ${hint ? html`<div class="hint" id=${`${id}-hint`}>${hint}</div>` : null}
    <${FieldError} id=${`${id}-error`} message=${error} /></div>`;
  const described = (id, error, hint) => [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || null;
  if (!agents.data || !scripts.data) return html`<${Pending} resource=${agents.data ? scripts : agents} label="agents and scripts" lines=${2} />`;
  if (!agents.data.length || !scripts.data.length) return html`<${Empty}>No ${agents.data.length ? 'script' : 'agent'} in the console's copy yet: a sync (below) copies them.<//>`;
  return html`<form class="stack" noValidate onSubmit=${(e) => { e.preventDefault(); setAsking(true); }}>
    <div class="grid form-grid">
      ${field('x-agent', 'Agent', html`<select id="x-agent" value=${form.agentId} onChange=${set('agentId')}
          aria-invalid=${fields.agentId ? 'true' : null} aria-describedby=${described('x-agent', fields.agentId)}>
          <option value="">Choose an agent</option>
          ${agents.data.map((a) => html`<option key=${a.agentId} value=${a.agentId}>${a.hostname} (${a.clientName} · ${a.siteName}${a.status && a.status !== 'online' ? ` · ${a.status}` : ''})</option>`)}
        </select>`, fields.agentId)}
      ${field('x-script', 'Script', html`<select id="x-script" value=${form.scriptId} onChange=${set('scriptId')}
          aria-invalid=${fields.scriptId ? 'true' : null} aria-describedby=${described('x-script', fields.scriptId)}>
          <option value="">Choose a script</option>
          ${scripts.data.map((s) => html`<option key=${s.id} value=${String(s.id)}>${s.name} (${s.shell}${s.category ? ` · ${s.category}` : ''})</option>`)}
        </select>`, fields.scriptId)}
      ${field('x-args', 'Arguments', html`<textarea id="x-args" rows="2" value=${form.args} onInput=${set('args')} spellcheck="false"
          aria-invalid=${fields.args ? 'true' : null} aria-describedby=${described('x-args', fields.args, true)}></textarea>`, fields.args, 'One a line, at most 50.')}
      ${field('x-timeout', 'Timeout (seconds)', html`<input id="x-timeout" type="text" inputmode="numeric" value=${form.timeout} onInput=${set('timeout')}
          placeholder=${script ? String(script.defaultTimeout) : 'the script\u2019s'} aria-invalid=${fields.timeoutSeconds ? 'true' : null}
          aria-describedby=${described('x-timeout', fields.timeoutSeconds, true)} />`, fields.timeoutSeconds, '1 to 3600; empty: the script\u2019s own.')}
    </div>
    <div class="row"><button type="submit" class="primary" disabled=${state.busy}>${state.busy ? 'Queuing…' : 'Run script…'}</button></div>
    ${stray ? html`<${VendorError} error=${state.error} vendor="Remote management" />` : null}
    <${Confirm} danger open=${asking} title=${`Run ${script ? script.name : 'a script'} on ${agent ? agent.hostname : 'an agent'}?`} confirm="Run it"
      onConfirm=${run} onCancel=${() => setAsking(false)}>
      <p>Tactical RMM runs <strong>${script ? `${script.name} (${script.shell})` : 'the chosen script'}</strong> on
        <strong>${agent ? `${agent.hostname}, ${agent.clientName}` : 'the chosen agent'}</strong>${args.length ? html` with ${args.map((a) => html`<code>${a}</code> `)}` : ' with no arguments'},
        for at most ${form.timeout.trim() || (script ? script.defaultTimeout : 'its default')} seconds.</p>
      <p>What the script changes on the machine cannot be undone from the console, and a run that fails once it has left is not run again.</p>
    <//>
  </form>`;
}

export function SecurityRmm({ me }) {
  const executions = useResource('/api/rmm/executions?limit=50');
  const [current, setCurrent] = useState(null);
  const [copy, setCopy] = useState(0); // a sync that ends reloads the agents, scripts and clients
  const allowed = can(me, 'rmm', 'execute');
  const rows = executions.data;
  return html`<div class="stack security">
    <div class="page-head"><h1>Remote management</h1><span class="note">scripts run on Tactical RMM agents</span></div>
    ${allowed ? html`<section class="card" aria-labelledby="run-h">
      <header><h2 id="run-h">Run a script</h2><span class="note">asks for a confirmation first</span></header>
      <${RunForm} copy=${copy} onQueued=${(x) => { setCurrent(x.id); executions.reload(); }} />
      ${current ? html`<${Execution} key=${current} id=${current} onEnded=${executions.reload} />` : null}
    </section>` : html`<p class="muted">Running a script needs the permission pair (rmm, execute), which you do not have.</p>`}
    <section class="card" aria-labelledby="exec-h">
      <header><h2 id="exec-h">Executions</h2><span class="note">the newest 50</span>
        <button type="button" class="link refresh" onClick=${executions.reload}>Refresh</button></header>
      ${!rows ? html`<${Pending} resource=${executions} label="executions" />`
        : !rows.length ? html`<${Empty}>No script has been run from the console.<//>`
        : html`<table class="stack-on-phone executions" aria-labelledby="exec-h">
          <thead><tr><th scope="col">Asked</th><th scope="col">Script</th><th scope="col">Device</th><th scope="col">Status</th>
            <th scope="col" class="num">Exit code</th><th scope="col">By</th><th scope="col">Output</th></tr></thead>
          <tbody>${rows.map((x) => html`<tr key=${x.id} data-row=${x.id}>
            <td data-label="Asked"><time datetime=${x.createdAt}>${dateTime(x.createdAt)}</time></td>
            <td data-label="Script" class="wrap">${x.script}${x.args?.length ? html` <span class="muted small">${x.args.join(' ')}</span>` : null}</td>
            <td data-label="Device" class="wrap">${x.device}</td>
            <td data-label="Status"><${Status} x=${x} /></td>
            <td data-label="Exit code" class="num">${x.exitCode === null || x.exitCode === undefined ? '—' : number(x.exitCode)}</td>
            <td data-label="By" class="wrap">${x.requestedBy?.email || '—'}</td>
            <td data-label="Output" class="wrap">${FINISHED.has(x.status) ? html`<details><summary>${x.finishedAt ? `ended ${dateTime(x.finishedAt)}` : 'ended'}</summary><${Output} x=${x} /></details>` : '—'}</td>
          </tr>`)}</tbody>
        </table>`}
    </section>
    <${Clients} copy=${copy} me=${me} />
    <${SyncRun} path="/api/rmm/sync" me=${me} what="remote management" onFinished=${() => setCopy((n) => n + 1)}
      counts=${(s) => `${number(s.clients)} clients, ${number(s.agents)} agents, ${number(s.scripts)} scripts`} />
  </div>`;
}
