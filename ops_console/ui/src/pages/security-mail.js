// Mail security's held messages (GET /api/mailsec/held?tenant&limit: {tenant, admin, items:
// [Mimecast's held message], count, truncated}) and their release (POST /api/mailsec/held/release
// {id, tenant}: {id, released, reason?}), each after a confirmation saying what it does. The
// tenant is typed (./security-common.js) and kept in the fragment's query. The list shows 25
// messages at a time (components/show-more.js).
import { html, useState } from '../lib/html.js';
import { api, withQuery } from '../lib/api.js';
import { dateTime, number } from '../lib/format.js';
import { navigate } from '../lib/router.js';
import { useResource } from '../components/resource.js';
import { Empty } from '../components/messages.js';
import { Confirm } from '../components/confirm.js';
import { useShowMore } from '../components/show-more.js';
import { TenantField, VendorError, VendorPending } from './security-common.js';

const address = (a) => (a ? (a.displayableName ? `${a.displayableName} <${a.emailAddress}>` : a.emailAddress || '—') : '—');

function size(bytes) {
  if (bytes === null || bytes === undefined) return '—';
  return bytes >= 1024 * 1024 ? `${number(bytes / 1024 / 1024, 1)} MB` : `${number(Math.max(1, Math.round(bytes / 1024)))} KB`;
}

function HeldRow({ m, outcome, onRelease }) {
  return html`<tr data-held=${m.id}>
    <td data-label="Received"><time datetime=${m.dateReceived}>${dateTime(m.dateReceived)}</time></td>
    <td data-label="From" class="wrap">${address(m.fromHeader || m.from)}</td>
    <td data-label="To" class="wrap">${address(m.to)}</td>
    <td data-label="Subject" class="wrap">${m.subject || html`<span class="muted">(no subject)</span>`}</td>
    <td data-label="Reason" class="wrap">${m.reason || m.reasonCode || '—'}</td>
    <td data-label="Size" class="num">${size(m.size)}${m.hasAttachments ? ' · attachments' : ''}</td>
    <td data-label="Release" class="actions">
      ${outcome?.released ? html`<span class="badge ok">Released</span>`
        : html`<button type="button" onClick=${() => onRelease(m)} disabled=${outcome?.busy}
            aria-label=${`Release “${m.subject || 'no subject'}” to ${m.to?.emailAddress || 'its recipient'}`}>${outcome?.busy ? 'Releasing…' : 'Release'}</button>`}
      ${outcome && !outcome.released && !outcome.busy ? html`<div class="field-error" role="alert">${outcome.reason}</div>` : null}
    </td>
  </tr>`;
}

export function SecurityMail({ query }) {
  const tenant = query.get('tenant') || '';
  const held = useResource(withQuery('/api/mailsec/held', { tenant }));
  const [asking, setAsking] = useState(null);
  const [outcomes, setOutcomes] = useState({}); // id → {busy} | {released, reason}
  const h = held.data;
  const more = useShowMore(h?.items);
  const tenantError = held.error?.status === 400 ? (held.error.fields.tenant || held.error.message) : null;

  const release = async () => {
    const m = asking;
    setAsking(null);
    setOutcomes((o) => ({ ...o, [m.id]: { busy: true } }));
    try {
      const out = await api.post('/api/mailsec/held/release', { id: m.id, ...(tenant ? { tenant } : {}) });
      setOutcomes((o) => ({ ...o, [m.id]: { released: out.released, reason: out.released ? null : `Not released: ${out.reason}` } }));
    } catch (e) {
      setOutcomes((o) => ({ ...o, [m.id]: { released: false, reason: `Not released: ${e.message}` } }));
    }
  };

  const released = Object.values(outcomes).filter((o) => o.released).length;
  return html`<div class="stack security">
    <div class="page-head"><h1>Held mail</h1><span class="note">what Mimecast holds back, read fresh on each visit</span></div>
    <${TenantField} value=${tenant} used=${h?.tenant} error=${tenantError}
      onChange=${(t) => { setOutcomes({}); navigate('/security/mail', t ? { tenant: t } : {}, { replace: true }); }} />
    <section class="card" aria-labelledby="held-h">
      <header><h2 id="held-h">Held messages</h2>
        ${h ? html`<span class="note" data-testid="held-count">${number(h.count)} held${h.tenant ? ` in ${h.tenant}` : ''}${released ? `, ${number(released)} released now` : ''}</span>` : null}
        <button type="button" class="link refresh" onClick=${() => { setOutcomes({}); held.reload(); }}>Refresh</button>
      </header>
      ${h && !h.admin ? html`<div class="banner warn" role="status">Mimecast did not grant the administrator's view: these are the API user's own held messages, not every recipient's.</div>` : null}
      ${h && h.truncated ? html`<p class="muted" role="status">More messages are held than the ${number(h.count)} listed (the console reads the first ${number(h.count)}).</p>` : null}
      ${!h ? (tenantError ? html`<p class="state">No list: the tenant is not known (said under the field).</p>` : html`<${VendorPending} resource=${held} vendor="Mimecast" label="held messages" />`)
        : !h.items.length ? html`<${Empty}>Nothing is held${h.tenant ? ` in ${h.tenant}` : ''}.<//>`
        : html`<table class="stack-on-phone held" aria-labelledby="held-h">
            <thead><tr><th scope="col">Received</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Subject</th>
              <th scope="col">Reason</th><th scope="col" class="num">Size</th><th scope="col"><span class="visually-hidden">Release</span></th></tr></thead>
            <tbody>${more.rows.map((m) => html`<${HeldRow} key=${m.id} m=${m} outcome=${outcomes[m.id]} onRelease=${setAsking} />`)}</tbody>
          </table>
          ${more.controls}`}
      ${h && held.error ? html`<${VendorError} error=${held.error} onRetry=${held.reload} vendor="Mimecast" />` : null}
    </section>
    <${Confirm} danger open=${!!asking} title="Release this message?" confirm="Release it" onConfirm=${release} onCancel=${() => setAsking(null)}>
      ${asking ? html`<p>Mimecast delivers <strong>${asking.subject || '(no subject)'}</strong> from ${address(asking.fromHeader || asking.from)}
        to ${address(asking.to)} now, past the hold (${asking.reason || 'policy'}).</p>
        <p>A released message cannot be held again from the console.</p>` : null}
    <//>
  </div>`;
}
