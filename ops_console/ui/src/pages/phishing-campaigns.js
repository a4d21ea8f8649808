// Phishing campaigns (GET /api/phishing/campaigns: {items, total, limit, offset}), most recently
// seen first, with the status filter and the offset in the fragment's query; and analysing a
// reported ticket (POST /api/phishing/tickets/{ticket_id}/analyze), offered only to a user with
// the permission (phishing, analyze). Reading the list needs (phishing, read): without it the
// route's 403 is said.
import { html, useState } from '../lib/html.js';
import { withQuery } from '../lib/api.js';
import { dateTime, timeZone } from '../lib/format.js';
import { navigate } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, FieldError, Pending } from '../components/messages.js';
import { Pager } from '../components/pager.js';
import { AnalyzeOutcome, Verdict, useAnalyzeTicket } from './phishing-shared.js';

const PAGE_SIZE = 20;
const STATUSES = [{ value: '', label: 'All' }, { value: 'open', label: 'Open' }, { value: 'closed', label: 'Closed' }];

function write(status, offset) {
  const q = {};
  if (status) q.status = status;
  if (offset) q.offset = String(offset);
  navigate('/phishing', q, { replace: true });
}

function AnalyzeTicket({ onDone }) {
  const [ticket, setTicket] = useState('');
  const state = useAnalyzeTicket(onDone);
  const error = state.fieldMessage;
  return html`<form class="card stack" aria-labelledby="analyze-h" noValidate
      onSubmit=${(e) => { e.preventDefault(); if (ticket.trim()) state.analyze(ticket.trim()); }}>
    <header><h2 id="analyze-h">Analyse a reported ticket</h2>
      <span class="note">reads its .eml attachments or pasted headers, and groups it into a campaign</span></header>
    <div class="row filter-row">
      <div class="field">
        <label for="ph-ticket">Ticket id</label>
        <input id="ph-ticket" type="text" inputmode="numeric" autocomplete="off" value=${ticket}
          aria-invalid=${error ? 'true' : null} aria-describedby=${`ph-ticket-hint${error ? ' ph-ticket-error' : ''}`}
          onInput=${(e) => setTicket(e.currentTarget.value)} />
        <div class="hint" id="ph-ticket-hint">The PSA ticket's id (digits), not its number.</div>
        <${FieldError} id="ph-ticket-error" message=${error} />
      </div>
      <button type="submit" class="primary" disabled=${state.busy || !ticket.trim()}>${state.busy ? 'Analysing…' : 'Analyse'}</button>
    </div>
    <${AnalyzeOutcome} state=${state} />
  </form>`;
}

export function PhishingCampaigns({ me, query }) {
  const status = ['open', 'closed'].includes(query.get('status')) ? query.get('status') : '';
  const offset = Math.max(0, Number(query.get('offset')) || 0);
  const list = useResource(withQuery('/api/phishing/campaigns', { status, limit: PAGE_SIZE, offset: offset || '' }));
  const items = list.data?.items || [];
  return html`<div class="stack phishing">
    <div class="page-head"><h1>Phishing campaigns</h1><span class="note">reports grouped by shared senders, links and attachments; times in ${timeZone()}</span></div>
    ${can(me, 'phishing', 'analyze') ? html`<${AnalyzeTicket} onDone=${list.reload} />` : null}
    <section class="card" aria-labelledby="campaigns-h">
      <header><h2 id="campaigns-h">Campaigns</h2></header>
      <fieldset class="segmented" aria-describedby="status-note">
        <legend class="visually-hidden">Status</legend>
        ${STATUSES.map((s) => html`<label key=${s.value}><input type="radio" name="campaign-status" value=${s.value}
          checked=${status === s.value} onChange=${() => write(s.value, 0)} /><span>${s.label}</span></label>`)}
      </fieldset>
      <p class="muted small" id="status-note">Only an open campaign takes new reports.</p>
      ${list.data === undefined ? html`<${Pending} resource=${list} label="campaigns" lines=${5} />` : html`
        ${list.error ? html`<${ErrorBanner} error=${list.error} onRetry=${list.reload} />` : null}
        ${!items.length ? html`<${Empty}>${status ? `No ${status} campaign.` : 'No campaign yet: analyse a reported ticket to start one.'}<//>` : html`
        <table class="stack-on-phone campaigns" aria-busy=${list.loading ? 'true' : 'false'}>
          <caption class="visually-hidden">Campaigns, most recently seen first</caption>
          <thead><tr><th scope="col">Subjects</th><th scope="col">Status</th><th scope="col" class="num">Reports</th>
            <th scope="col" class="num">Messages</th><th scope="col">Last seen</th><th scope="col">Verdict</th></tr></thead>
          <tbody>${items.map((c) => html`<tr key=${c.id} data-campaign=${c.id}>
            <td data-label="Subjects" class="subjects"><a href=${`#/phishing/campaign?id=${c.id}`}>${c.subjects?.[0] || '(no subject)'}</a>
              ${c.subjects?.length > 1 ? html`<span class="muted small"> and ${c.subjects.length - 1} more</span>` : null}</td>
            <td data-label="Status"><span class=${`badge ${c.status === 'open' ? 'warn' : 'neutral'}`}>${c.status}</span></td>
            <td data-label="Reports" class="num">${c.reports}</td>
            <td data-label="Messages" class="num">${c.messages}</td>
            <td data-label="Last seen"><time datetime=${c.lastSeen}>${dateTime(c.lastSeen)}</time></td>
            <td data-label="Verdict"><${Verdict} c=${c.latestClassification} /></td>
          </tr>`)}</tbody>
        </table>`}
        <${Pager} page=${list.data} noun="campaigns" busy=${list.loading} onOffset=${(o) => write(status, o)} />`}
    </section>
  </div>`;
}
