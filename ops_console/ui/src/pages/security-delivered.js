// The delivered-mail search (POST /api/mailsec/delivered {recipient?, sender?, subject?, start?,
// end?, tenant?} → {tenant, start, end, items: [{id, status, mailsecStatus, from, to, subject,
// received, spamScore, spamClass}], count, truncated}). The range's limits are said before the
// search; the times are typed in the user's zone and sent as instants; each 400's field message
// is shown under its input. The results narrow by status and spam class in the page.
import { html, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime, number, timeZone } from '../lib/format.js';
import { FieldError } from '../components/messages.js';
import { fromLocalInput, toLocalInput } from '../components/zoned.js';
import { VendorError } from './security-common.js';

const STATUSES = [
  { value: 'accepted', about: 'delivered, archived, or on its way' },
  { value: 'held', about: 'held by a policy' },
  { value: 'rejected', about: 'rejected or blocked' },
  { value: 'bounced', about: 'bounced or failed' },
];
const CLASSES = [
  { value: 'high', about: 'spam score 10 or more' },
  { value: 'moderate', about: '5 to 9' },
  { value: 'clean', about: 'below 5' },
  { value: 'none', about: 'no score' },
];
const statusTone = { accepted: 'ok', held: 'warn', rejected: 'down', bounced: 'down' };
const classTone = { high: 'down', moderate: 'warn', clean: 'ok' };

function initialForm() {
  const now = Date.now();
  return { sender: '', recipient: '', subject: '', tenant: '',
    start: toLocalInput(new Date(now - 24 * 3600 * 1000).toISOString()), end: toLocalInput(new Date(now).toISOString()) };
}

function Field({ id, label, type = 'text', value, onInput, error, hint, placeholder }) {
  const described = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || null;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <input id=${id} type=${type} value=${value} placeholder=${placeholder} autocomplete="off" spellcheck="false"
      aria-invalid=${error ? 'true' : null} aria-describedby=${described} onInput=${(e) => onInput(e.currentTarget.value)} />
    ${hint ? html`<div class="hint" id=${`${id}-hint`}>${hint}</div>` : null}
    <${FieldError} id=${`${id}-error`} message=${error} />
  </div>`;
}

function Chips({ legend, name, options, chosen, onChange }) {
  return html`<fieldset class="chips">
    <legend>${legend}</legend>
    ${options.map((o) => html`<label class="chip" key=${o.value}><input type="checkbox" name=${name} value=${o.value}
      checked=${chosen.includes(o.value)} onChange=${(e) => onChange(e.currentTarget.checked
        ? [...chosen, o.value] : chosen.filter((x) => x !== o.value))} />${o.value} <span class="muted">${o.about}</span></label>`)}
  </fieldset>`;
}

export function SecurityDelivered() {
  const [form, setForm] = useState(initialForm);
  const [state, setState] = useState({ busy: false, error: null, result: null });
  const [statuses, setStatuses] = useState([]);
  const [classes, setClasses] = useState([]);
  const set = (key) => (value) => setForm((f) => ({ ...f, [key]: value }));

  const search = async (e) => {
    e.preventDefault();
    const body = {};
    for (const k of ['sender', 'recipient', 'subject']) if (form[k].trim()) body[k] = form[k].trim();
    if (form.tenant.trim()) body.tenant = form.tenant.trim().toLowerCase();
    const start = fromLocalInput(form.start);
    const end = fromLocalInput(form.end);
    body.start = start || form.start; // a value that is no date goes as typed: the route names it
    body.end = end || form.end;
    setState((s) => ({ ...s, busy: true, error: null }));
    try {
      const result = await api.post('/api/mailsec/delivered', body);
      setState({ busy: false, error: null, result });
    } catch (error) {
      setState({ busy: false, error, result: null });
    }
  };

  const fields = state.error?.status === 400 ? state.error.fields : {};
  const stray = state.error && (state.error.status !== 400 || !Object.keys(fields).length);
  const r = state.result;
  const shownItems = r ? r.items.filter((m) => (!statuses.length || statuses.includes(m.status))
    && (!classes.length || classes.includes(m.spamClass || 'none'))) : [];
  return html`<div class="stack security">
    <div class="page-head"><h1>Delivered mail</h1><span class="note">Mimecast's message finder</span></div>
    <form class="card stack" onSubmit=${search} noValidate aria-labelledby="search-h">
      <h2 id="search-h">Search</h2>
      <p id="range-rules" class="range-rules">The time range is <strong>6 hours to 7 days</strong>, its end after its start, and
        its start within the <strong>last 30 days</strong> (Mimecast's finder keeps no more). Times are in your zone, ${timeZone()}.
        Sender and recipient take an address or a domain; the subject matches a part of it.</p>
      <div class="grid form-grid">
        <${Field} id="d-sender" label="Sender" value=${form.sender} onInput=${set('sender')} error=${fields.sender} placeholder="name@example.org or example.org" />
        <${Field} id="d-recipient" label="Recipient" value=${form.recipient} onInput=${set('recipient')} error=${fields.recipient} placeholder="an address or a domain" />
        <${Field} id="d-subject" label="Subject contains" value=${form.subject} onInput=${set('subject')} error=${fields.subject} />
        <${Field} id="d-start" label="From" type="datetime-local" value=${form.start} onInput=${set('start')} error=${fields.start} hint="at least 6 hours before the end, within the last 30 days" />
        <${Field} id="d-end" label="To" type="datetime-local" value=${form.end} onInput=${set('end')} error=${fields.end} hint="at most 7 days after the start" />
        <${Field} id="d-tenant" label="Mimecast tenant" value=${form.tenant} onInput=${set('tenant')} error=${fields.tenant} placeholder="the first configured" />
      </div>
      <div class="row"><button class="primary" type="submit" disabled=${state.busy}>${state.busy ? 'Searching…' : 'Search'}</button>
        <span class="muted" role="status">${state.busy ? 'Asking Mimecast…' : ''}</span></div>
      ${stray ? html`<${VendorError} error=${state.error} vendor="Mimecast" />` : null}
      ${state.error && !stray ? html`<div class="field-error" role="alert">Not searched: ${Object.keys(fields).length === 1 ? 'a field needs' : 'some fields need'} a change (said under ${Object.keys(fields).length === 1 ? 'it' : 'each'}).</div>` : null}
    </form>
    ${r ? html`<section class="card stack" aria-labelledby="found-h">
      <header><h2 id="found-h">Found</h2><span class="note" data-testid="found-range">${`${number(r.count)} ${r.count === 1 ? 'message' : 'messages'} in ${r.tenant}, ${dateTime(r.start)} to ${dateTime(r.end)}`}</span></header>
      ${r.truncated ? html`<p class="muted" role="status">More messages matched: the first ${number(r.count)} are listed with their spam score. Narrow the search to see the rest.</p>` : null}
      <div class="filters-row">
        <${Chips} legend="Status" name="status" options=${STATUSES} chosen=${statuses} onChange=${setStatuses} />
        <${Chips} legend="Spam class" name="class" options=${CLASSES} chosen=${classes} onChange=${setClasses} />
      </div>
      ${!r.items.length ? html`<p class="state">No message matches this search.</p>`
        : !shownItems.length ? html`<p class="state">None of the ${number(r.count)} found has the chosen status and spam class.</p>`
        : html`<p class="muted" role="status">${shownItems.length === r.items.length ? `All ${number(r.count)} shown.` : `${number(shownItems.length)} of ${number(r.count)} shown.`}</p>
          <table class="stack-on-phone delivered" aria-labelledby="found-h">
          <thead><tr><th scope="col">Received</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Subject</th>
            <th scope="col">Status</th><th scope="col" class="num">Spam score</th></tr></thead>
          <tbody>${shownItems.map((m) => html`<tr key=${m.id} data-found=${m.id}>
            <td data-label="Received"><time datetime=${m.received}>${dateTime(m.received)}</time></td>
            <td data-label="From" class="wrap">${m.from || '—'}</td>
            <td data-label="To" class="wrap">${(m.to || []).join(', ') || '—'}</td>
            <td data-label="Subject" class="wrap">${m.subject || html`<span class="muted">(no subject)</span>`}</td>
            <td data-label="Status"><span class=${`badge ${statusTone[m.status] || 'neutral'}`}>${m.status}</span>
              ${m.mailsecStatus && m.mailsecStatus !== m.status ? html` <span class="muted small">${m.mailsecStatus}</span>` : null}</td>
            <td data-label="Spam score" class="num">${m.spamScore === null || m.spamScore === undefined ? '—' : number(m.spamScore)}
              ${m.spamClass ? html` <span class=${`badge ${classTone[m.spamClass]}`}>${m.spamClass}</span>` : null}</td>
          </tr>`)}</tbody>
        </table>`}
    </section>` : null}
  </div>`;
}
