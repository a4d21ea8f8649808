// The integrations' switches (GET/PATCH /api/admin/integrations, ops_console/README.md
// "Integrations"): each integration on or off, with who switched it off, when and why. Switching
// one off asks for a confirmation that says what stops, with the reason; switching on is at once.
// An integration that INTEGRATIONS_DISABLED names is off whatever its switch says: it is shown
// locked, with why. Beside each, its calls as the integration-health board records them (GET
// /api/dashboard/integration-health, which leaves out the integrations that are off).
import { html, useEffect, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { ErrorBanner, FieldError, Pending } from '../components/messages.js';
import { Confirm } from '../components/confirm.js';
import { describedBy, useAction } from '../components/form.js';

function calls(h) {
  if (!h) return null;
  if (h.state === 'unknown') return html`<span class="muted">no call recorded</span>`;
  return html`<span class=${`badge ${h.state}`}>${h.state}</span> <span class="muted small">last ${h.state === 'failing'
    ? `failure ${dateTime(h.lastFailureAt)}` : `success ${dateTime(h.lastSuccessAt)}`}</span>`;
}

function Row({ item, health, onAsk, onEnable, busy }) {
  const env = item.disabled_by_env;
  const state = env ? 'locked' : item.effective_disabled ? 'off' : 'on';
  return html`<tr data-integration=${item.key}>
    <th scope="row">${item.label} <span class="mono muted">${item.key}</span></th>
    <td data-label="State"><span class=${`badge ${state === 'on' ? 'ok' : state === 'off' ? 'down' : 'neutral'}`}>${state === 'locked' ? 'off, locked' : state}</span></td>
    <td data-label="Why" class="wrap">${env ? html`<span>INTEGRATIONS_DISABLED names it: off until the console is started without it${item.disabled ? '; its switch is off too' : ''}.</span>`
      : item.disabled ? html`<span>${item.reason || 'No reason given'}</span> <span class="muted small">by ${item.disabled_by || 'unknown'}, ${dateTime(item.disabled_at)}</span>`
      : html`<span class="muted">${item.updated_by ? `on; last change by ${item.updated_by}, ${dateTime(item.updated_at)}` : 'on since the start'}</span>`}</td>
    <td data-label="Calls"><span>${calls(health) || html`<span class="muted">—</span>`}</span></td>
    <td>${env ? html`<span class="muted small">locked</span>`
      : item.disabled ? html`<button type="button" disabled=${!!busy} aria-label=${`Switch on ${item.label}`} onClick=${() => onEnable(item)}>
          ${busy === item.key ? 'Switching…' : 'Switch on'}</button>`
      : html`<button type="button" class="danger" disabled=${!!busy} aria-label=${`Switch off ${item.label}`} onClick=${() => onAsk(item)}>Switch off</button>`}</td>
  </tr>`;
}

export function AdminIntegrations() {
  const list = useResource('/api/admin/integrations');
  const board = useResource('/api/dashboard/integration-health');
  const [items, setItems] = useState(null);
  const [asked, setAsked] = useState(null);
  const [reason, setReason] = useState('');
  const act = useAction();
  useEffect(() => { if (list.data) setItems(list.data.items); }, [list.data]);
  const health = new Map((board.data?.integrations || []).map((h) => [h.key, h]));

  const patch = (item, disabled, why) => act.run(item.key, () => api.patch('/api/admin/integrations',
    { key: item.key, disabled, ...(why ? { reason: why } : {}) }), (saved) => {
    setItems((l) => l.map((x) => (x.key === saved.key ? saved : x)));
    setAsked(null);
    board.reload();
    return `${saved.label} is ${saved.effective_disabled ? 'off' : 'on'}.`;
  });
  const ask = (item) => {
    act.clear();
    setReason('');
    setAsked(item);
  };
  const reasonError = asked && act.fields.reason;
  const stray = act.error && !(asked && act.error.status === 400 && reasonError) ? act.error : null;

  return html`<div class="stack admin-page">
    <div class="page-head"><h1>Integrations</h1><span class="note">switch an integration off to stop every call to its vendor and its scheduled work</span></div>
    ${list.data?.env_disabled?.length ? html`<div class="banner info" role="note"><div>
      <strong>Locked by the environment:</strong> ${list.data.env_disabled.join(', ')}. INTEGRATIONS_DISABLED names them, so they are
      off whatever their switch says; an operator changes that variable and restarts the console.</div></div>` : null}
    <section class="card" aria-labelledby="int-h">
      <header><h2 id="int-h">Switches</h2><span class="note">by key</span></header>
      ${!items ? html`<${Pending} resource=${list} label="integrations" lines=${6} />`
        : html`<table class="stack-on-phone" data-testid="integrations">
          <caption class="visually-hidden">Integrations and their switches</caption>
          <thead><tr><th scope="col">Integration</th><th scope="col">State</th><th scope="col">Why</th><th scope="col">Calls</th>
            <th scope="col"><span class="visually-hidden">Switch</span></th></tr></thead>
          <tbody>${items.map((i) => html`<${Row} key=${i.key} item=${i} health=${health.get(i.key)} busy=${act.busy}
            onAsk=${ask} onEnable=${(item) => patch(item, false)} />`)}</tbody>
        </table>`}
      <p role="status" class="small ok-text">${act.done || ''}</p>
      ${stray && !asked ? html`<${ErrorBanner} error=${stray} />` : null}
      ${board.error && !board.data ? html`<p class="muted small">The calls could not be read: ${board.error.message}</p>` : null}
    </section>
    <${Confirm} danger id="int-off" open=${!!asked} title=${asked ? `Switch ${asked.label} off?` : ''} confirm="Switch it off" cancel="Keep it on"
      onConfirm=${() => patch(asked, true, reason.trim())} onCancel=${() => { setAsked(null); act.clear(); }}>
      <p>${asked ? `The console stops calling ${asked.label}: its routes answer 403 and its scheduled work is skipped until it is switched on again.` : ''}</p>
      <div class="field">
        <label for="int-reason">Reason <span class="muted">(optional, shown to administrators)</span></label>
        <textarea id="int-reason" rows="2" maxlength="500" value=${reason} onInput=${(e) => setReason(e.currentTarget.value)}
          aria-invalid=${reasonError ? 'true' : null} aria-describedby=${describedBy('int-reason', false, reasonError)}></textarea>
        <${FieldError} id="int-reason-error" message=${reasonError} />
      </div>
      ${stray && asked ? html`<${ErrorBanner} error=${stray} />` : null}
    <//>
  </div>`;
}
