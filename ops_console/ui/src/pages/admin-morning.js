// The morning summary (ops_console/README.md "Morning summary"): its configuration (GET/PUT
// /api/morning-summary/config: zone, sections, the schedule's switch), the chat webhooks it posts to
// (GET/POST /api/morning-summary/webhooks, PATCH/DELETE …/{id}; their URLs are shown masked, as the
// routes give them), a test to one webhook (POST /api/morning-summary/test), the summary sent now
// (POST /api/morning-summary/send, after a confirmation) and the history of every send (GET
// /api/morning-summary/history). Deleting or switching off a webhook asks first.
import { html, useEffect, useResetWith, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime, day } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, FieldError, Pending } from '../components/messages.js';
import { Combobox } from '../components/combobox.js';
import { Confirm } from '../components/confirm.js';
import { StrayError, TextField, describedBy, useAction } from '../components/form.js';

const SECTION_NAMES = {
  overview: 'Overview: tickets opened, resolved and open',
  slaBreaches: 'SLA breaches',
  integrations: 'Failing integrations',
  workers: 'Workers in trouble',
  mfa: 'MFA: users in bypass or disabled',
};
const HISTORY = 20;

// A send's outcome in words: "Sent to 2 of 2 webhooks." / "Not sent: no webhook took it."
export function sendWords(entry) {
  const results = entry.results || [];
  const ok = results.filter((r) => r.delivered).length;
  if (entry.status === 'sending') return 'Sending…';
  if (entry.error) return `Failed: ${entry.error}`;
  const why = results.filter((r) => !r.delivered).map((r) => `${r.name}: ${r.reason || (r.httpStatus ? `HTTP ${r.httpStatus}` : 'not delivered')}`);
  return `${entry.status === 'sent' ? 'Sent' : entry.status === 'partial' ? 'Partly sent' : 'Not sent'}: ${ok} of ${results.length} ${results.length === 1 ? 'webhook' : 'webhooks'} took it${why.length ? ` (${why.join('; ')})` : ''}.`;
}

function Config({ config, onSaved }) {
  const zones = useResource('/api/me/timezones');
  const [form, setForm] = useState(() => ({ timezone: config.timezone, sections: config.sections, enabled: config.enabled }));
  const act = useAction();
  useResetWith(() => setForm({ timezone: config.timezone, sections: config.sections, enabled: config.enabled }), [config.updatedAt]);
  const toggle = (s, on) => setForm((f) => ({
    ...f, sections: config.availableSections.filter((x) => (x === s ? on : f.sections.includes(x))),
  }));
  const submit = (e) => {
    e.preventDefault();
    act.run('save', () => api.put('/api/morning-summary/config', { ...form, timezone: form.timezone.trim() }), (saved) => {
      onSaved(saved);
      return 'Saved.';
    });
  };
  const f = act.fields;
  const sectionsError = Object.entries(f).filter(([k]) => k === 'sections' || k.startsWith('sections[')).map(([, m]) => m).join('; ') || null;
  return html`<form class="card stack" onSubmit=${submit} noValidate aria-labelledby="ms-config-h" data-testid="morning-config">
    <header><h2 id="ms-config-h">Configuration</h2><span class="note">${config.updatedAt ? `changed ${dateTime(config.updatedAt)}` : 'the defaults'}</span></header>
    <p class="muted small">Sent at ${config.sendAt} ${config.weekdaysOnly ? 'Monday to Friday' : 'every day'} in the zone below, or as soon as the console is up again until ${config.catchUpUntil}, while the schedule is on and a webhook is.</p>
    <div class="field">
      <label for="ms-zone">Time zone</label>
      ${zones.data ? html`<${Combobox} id="ms-zone" options=${zones.data.timezones} value=${form.timezone} noun="zones"
          onChange=${(timezone) => setForm((x) => ({ ...x, timezone }))} describedBy=${describedBy('ms-zone', true, f.timezone)} invalid=${!!f.timezone} />`
        : html`<${Pending} resource=${zones} label="time zones" lines=${1} />`}
      <div class="hint" id="ms-zone-hint">The summary's day, "yesterday" and times are in this zone.</div>
      <${FieldError} id="ms-zone-error" message=${f.timezone} />
    </div>
    <fieldset class="checks" aria-describedby=${sectionsError ? 'ms-sections-error' : null}>
      <legend>Sections, in the message's order</legend>
      <div class="check-list">${config.availableSections.map((s) => html`<label class="check" key=${s}>
        <input type="checkbox" checked=${form.sections.includes(s)} onChange=${(e) => toggle(s, e.currentTarget.checked)} />${SECTION_NAMES[s] || s}</label>`)}</div>
      <${FieldError} id="ms-sections-error" message=${sectionsError} />
    </fieldset>
    <label class="check"><input type="checkbox" checked=${form.enabled} onChange=${(e) => setForm((x) => ({ ...x, enabled: e.currentTarget.checked }))} />
      Send it on schedule <span class="muted">(off: only "Send now" sends it)</span></label>
    <${StrayError} error=${act.error} known=${['timezone', 'sections', ...Object.keys(f).filter((k) => k.startsWith('sections['))]} />
    <div class="row"><button type="submit" class="primary" disabled=${!!act.busy}>${act.busy ? 'Saving…' : 'Save the configuration'}</button>
      <span role="status" class="small ok-text">${act.done || ''}</span></div>
  </form>`;
}

function Webhooks({ hooks, setHooks, onSent }) {
  const [form, setForm] = useState({ name: '', url: '', enabled: true });
  const [asked, setAsked] = useState(null); // {what, hook}
  const [said, setSaid] = useState(null);
  const create = useAction();
  const act = useAction();
  const set = (k) => (v) => setForm((x) => ({ ...x, [k]: v }));
  const submit = (e) => {
    e.preventDefault();
    create.run('create', () => api.post('/api/morning-summary/webhooks', { name: form.name.trim(), url: form.url.trim(), enabled: form.enabled }), (h) => {
      setHooks((l) => [...l, h]);
      setForm({ name: '', url: '', enabled: true });
      setSaid({ text: `Added ${h.name}.`, ok: true });
    });
  };
  const test = (h) => act.run(`test-${h.id}`, () => api.post('/api/morning-summary/test', { webhookId: h.id }), (entry) => {
    onSent();
    const r = (entry.results || [])[0];
    setSaid({ text: `Test to ${h.name}: ${r && r.delivered ? `delivered${r.httpStatus ? ` (HTTP ${r.httpStatus})` : ''}` : `not delivered: ${r?.reason || entry.error || 'no answer'}`}.`, ok: !!r?.delivered });
  });
  const enable = (h, enabled) => act.run(`enable-${h.id}`, () => api.patch(`/api/morning-summary/webhooks/${h.id}`, { enabled }), (saved) => {
    setHooks((l) => l.map((x) => (x.id === saved.id ? saved : x)));
    setSaid({ text: `${h.name} is ${enabled ? 'on' : 'off'}.`, ok: true });
  });
  const confirmed = () => {
    const { what, hook: h } = asked;
    setAsked(null);
    if (what === 'off') enable(h, false);
    else {
      act.run(`delete-${h.id}`, () => api.del(`/api/morning-summary/webhooks/${h.id}`), () => {
        setHooks((l) => l.filter((x) => x.id !== h.id));
        setSaid({ text: `Deleted ${h.name}.`, ok: true });
      });
    }
  };
  return html`<section class="card stack" aria-labelledby="ms-hooks-h">
    <header><h2 id="ms-hooks-h">Chat webhooks</h2><span class="note">Google Chat or Teams; a URL is shown only as its host, since it carries the space's key</span></header>
    ${!hooks.length ? html`<${Empty}>No webhook: the summary goes nowhere.<//>`
      : html`<table class="stack-on-phone" data-testid="morning-webhooks">
        <caption class="visually-hidden">The summary's chat webhooks</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">URL</th><th scope="col">State</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${hooks.map((h) => html`<tr key=${h.id} data-hook=${h.id}>
          <th scope="row">${h.name}</th>
          <td data-label="URL" class="wrap"><span class="mono">${h.url}</span></td>
          <td data-label="State"><span class=${`badge ${h.enabled ? 'ok' : 'neutral'}`}>${h.enabled ? 'on' : 'off'}</span></td>
          <td data-label="Added">${dateTime(h.createdAt)}</td>
          <td><div class="row tight">
            <button type="button" disabled=${!!act.busy} aria-label=${`Send a test to ${h.name}`} onClick=${() => test(h)}>${act.busy === `test-${h.id}` ? 'Sending…' : 'Test'}</button>
            ${h.enabled ? html`<button type="button" class="danger" disabled=${!!act.busy} aria-label=${`Switch off ${h.name}`} onClick=${() => setAsked({ what: 'off', hook: h })}>Switch off</button>`
              : html`<button type="button" disabled=${!!act.busy} aria-label=${`Switch on ${h.name}`} onClick=${() => enable(h, true)}>Switch on</button>`}
            <button type="button" class="danger" disabled=${!!act.busy} aria-label=${`Delete ${h.name}`} onClick=${() => setAsked({ what: 'delete', hook: h })}>Delete</button>
          </div></td>
        </tr>`)}</tbody>
      </table>`}
    <p role="status" class=${`small test-result ${said ? (said.ok ? 'ok' : 'failed') : ''}`}>${said ? said.text : ''}</p>
    ${act.error ? html`<${ErrorBanner} error=${act.error} />` : null}
    <form class="stack" onSubmit=${submit} noValidate aria-labelledby="ms-new-h">
      <h3 id="ms-new-h">Add a webhook</h3>
      <div class="grid two">
        <${TextField} id="ms-new-name" label="Name" value=${form.name} onInput=${set('name')} error=${create.fields.name} maxlength="200" />
        <${TextField} id="ms-new-url" label="Webhook URL" type="url" value=${form.url} onInput=${set('url')} error=${create.fields.url}
          placeholder="https://chat.googleapis.com/…" hint="https, on a host the console allows for chat webhooks." />
      </div>
      <label class="check"><input type="checkbox" checked=${form.enabled} onChange=${(e) => set('enabled')(e.currentTarget.checked)} /> Send the summary here</label>
      <${StrayError} error=${create.error} known=${['name', 'url']} />
      <div class="row"><button type="submit" class="primary" disabled=${!!create.busy}>${create.busy ? 'Adding…' : 'Add the webhook'}</button></div>
    </form>
    <${Confirm} danger id="ms-ask" open=${!!asked} title=${asked ? `${asked.what === 'off' ? 'Switch off' : 'Delete'} ${asked.hook.name}?` : ''}
      confirm=${asked?.what === 'off' ? 'Switch it off' : 'Delete it'} cancel="Keep it" onConfirm=${confirmed} onCancel=${() => setAsked(null)}>
      <p>${asked?.what === 'off' ? 'The summary stops going to it until it is switched on again; a test still goes.' : 'The summary stops going to it and its URL is forgotten; the history keeps its past results.'}</p>
    <//>
  </section>`;
}

function History({ history }) {
  return html`<section class="card" aria-labelledby="ms-history-h">
    <header><h2 id="ms-history-h">History</h2><span class="note">the ${HISTORY} latest sends, newest first: scheduled, sent now and tests</span></header>
    ${!history.data ? html`<${Pending} resource=${history} label="the history" />`
      : !history.data.items.length ? html`<${Empty}>Nothing has been sent yet.<//>`
      : html`<table class="stack-on-phone" data-testid="morning-history">
        <caption class="visually-hidden">Morning summary sends</caption>
        <thead><tr><th scope="col">Sent</th><th scope="col">Kind</th><th scope="col">Day</th><th scope="col">Status</th><th scope="col">Outcome</th></tr></thead>
        <tbody>${history.data.items.map((e) => html`<tr key=${e.id} data-send=${e.id}>
          <td data-label="Sent"><time datetime=${e.createdAt}>${dateTime(e.createdAt)}</time></td>
          <td data-label="Kind">${e.kind}</td>
          <td data-label="Day"><span>${day(e.day)} <span class="muted small">${e.timezone}</span></span></td>
          <td data-label="Status"><span class=${`badge ${e.status === 'sent' ? 'ok' : e.status === 'partial' || e.status === 'sending' ? 'warn' : 'down'}`}>${e.status}</span></td>
          <td data-label="Outcome" class="wrap">${sendWords(e)}
            ${e.text ? html`<details><summary>The message</summary><p><strong>${e.title}</strong></p><pre class="message">${e.text}</pre></details>` : null}</td>
        </tr>`)}</tbody>
      </table>`}
  </section>`;
}

export function AdminMorning() {
  const configRes = useResource('/api/morning-summary/config');
  const hooksRes = useResource('/api/morning-summary/webhooks');
  const history = useResource(`/api/morning-summary/history?limit=${HISTORY}`);
  const [config, setConfig] = useState(null);
  const [hooks, setHooks] = useState(null);
  const [asking, setAsking] = useState(false);
  const send = useAction();
  useEffect(() => { if (configRes.data) setConfig(configRes.data); }, [configRes.data]);
  useEffect(() => { if (hooksRes.data) setHooks(hooksRes.data); }, [hooksRes.data]);
  const enabled = (hooks || []).filter((h) => h.enabled).length;
  const sendNow = () => {
    setAsking(false);
    send.run('send', () => api.post('/api/morning-summary/send'), (entry) => {
      history.reload();
      return sendWords(entry);
    });
  };
  return html`<div class="stack admin-page">
    <div class="page-head"><h1>Morning summary</h1><span class="note">a chat message each weekday morning with the dashboards' figures</span></div>
    <section class="card" aria-labelledby="ms-send-h">
      <header><h2 id="ms-send-h">Send now</h2><span class="note">whether the schedule is on or not, with the configured zone and sections</span></header>
      <div class="row">
        <button type="button" class="primary" disabled=${!!send.busy || !hooks} onClick=${() => { send.clear(); setAsking(true); }}>${send.busy ? 'Sending…' : 'Send the summary now'}</button>
        <span role="status" class="small" data-testid="send-result">${send.done || ''}</span>
      </div>
      ${send.error ? html`<${ErrorBanner} error=${send.error} />` : null}
    </section>
    <div class="grid two">
      ${config ? html`<${Config} config=${config} onSaved=${setConfig} />` : html`<div class="card"><${Pending} resource=${configRes} label="the configuration" /></div>`}
      ${hooks ? html`<${Webhooks} hooks=${hooks} setHooks=${setHooks} onSent=${history.reload} />` : html`<div class="card"><${Pending} resource=${hooksRes} label="webhooks" /></div>`}
    </div>
    <${History} history=${history} />
    <${Confirm} id="ms-send-confirm" open=${asking} title="Send the morning summary now?" confirm="Send it" cancel="Not now"
      onConfirm=${sendNow} onCancel=${() => setAsking(false)}>
      <p>${enabled ? `It goes at once to ${enabled} enabled ${enabled === 1 ? 'webhook' : 'webhooks'}, and the history records it.` : 'No webhook is enabled: the console will refuse to send it.'}</p>
    <//>
  </div>`;
}
