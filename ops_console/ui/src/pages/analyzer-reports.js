// The analyzer's reports (#/analyzer/reports, and ?id=… for one): asking for one over a period and
// optionally one company (POST /api/analyzer/reports, through the cost gate of
// ./analyzer-shared.js), then the report (GET /api/analyzer/reports/{id}), read again while its
// narrative is being written (status pending): its distributions as bars with their figures
// (every count is the route's), and the model's narrative. The console keeps no list of reports,
// so a report is reached by its address, which this page puts in the fragment.
import { html, useEffect, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime, number } from '../lib/format.js';
import { navigate } from '../lib/router.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, FieldError, Pending } from '../components/messages.js';
import { CostGate, PERIODS, STATUS_TONE, useCostGate } from './analyzer-shared.js';

const PENDING_POLL_MS = 3000;
const DISTRIBUTIONS = [
  { key: 'byCategory', title: 'By category', note: 'the model’s category' },
  { key: 'byIssueType', title: 'By issue type', note: 'the PSA’s' },
  { key: 'byPriority', title: 'By priority', note: 'the PSA’s' },
  { key: 'byCompany', title: 'By company', note: '' },
];

// One distribution: a row per value, most frequent first as the route orders them, with a bar
// whose length is its share of the tickets (the figures are the text; the bar only shows them).
function Distribution({ spec, rows, tickets }) {
  const max = Math.max(1, ...rows.map((r) => r.count));
  return html`<section class="card distribution" aria-labelledby=${`d-${spec.key}`} data-distribution=${spec.key}>
    <header><h2 id=${`d-${spec.key}`}>${spec.title}</h2>${spec.note ? html`<span class="note">${spec.note}</span>` : null}</header>
    ${!rows.length ? html`<${Empty}>No ticket.<//>` : html`<table class="bars">
      <caption class="visually-hidden">${`${spec.title}: tickets per value, of ${tickets}`}</caption>
      <thead class="visually-hidden"><tr><th scope="col">Value</th><th scope="col">Tickets</th><th scope="col">Share</th></tr></thead>
      <tbody>${rows.map((r) => html`<tr key=${r.key ?? 'none'}>
        <th scope="row">${r.label ?? r.key ?? 'none'}</th>
        <td class="num">${number(r.count)}</td>
        <td class="bar-cell" aria-hidden="true"><span class="bar" style=${{ width: `${(r.count / max) * 100}%` }}></span></td>
      </tr>`)}</tbody>
    </table>`}
  </section>`;
}

function Report({ id, companies }) {
  const [pending, setPending] = useState(true);
  const r = useResource(`/api/analyzer/reports/${id}`, { refreshMs: pending ? PENDING_POLL_MS : 0 });
  useEffect(() => {
    if (r.data && r.data.status !== 'pending') setPending(false);
  }, [r.data?.status]);
  if (r.data === undefined) return html`<${Pending} resource=${r} label="the report" lines=${5} />`;
  const d = r.data;
  const dist = d.distributions || {};
  const company = d.companyId ? companies.get(d.companyId) || `company ${d.companyId}` : 'every company';
  const period = PERIODS.find((p) => p.value === d.period)?.label || d.period;
  return html`<section class="stack report" aria-labelledby="report-h" data-report=${d.id}>
    <div class="page-head">
      <h2 id="report-h">Report ${d.id}: ${period}, ${company}</h2>
      <span class=${`badge ${STATUS_TONE[d.status] || 'neutral'}`} data-testid="report-status">${d.status}</span>
      <span class="note">asked ${dateTime(d.createdAt)}${d.completedAt ? `, completed ${dateTime(d.completedAt)}` : ''}</span>
    </div>
    ${r.error ? html`<${ErrorBanner} error=${r.error} onRetry=${r.reload} />` : null}
    <section class="card" aria-labelledby="narrative-h">
      <header><h2 id="narrative-h">Narrative</h2><span class="note">written by the model after the figures</span></header>
      ${d.status === 'pending' ? html`<p class="muted" aria-live="polite" aria-busy="true">Being written; this page reads it again by itself.</p>`
        : d.status === 'failed' ? html`<div class="banner error" role="alert"><div><strong>The narrative failed:</strong> ${d.error || 'no reason given'}.
            The figures below stand.</div></div>`
        : html`<p class="narrative" data-testid="narrative">${d.narrative}</p>`}
    </section>
    <p><strong data-testid="report-tickets">${number(dist.tickets)}</strong> analysed tickets: the latest successful analysis of each
      ticket created in the period (in your zone).</p>
    <div class="grid two">${DISTRIBUTIONS.map((s) => html`<${Distribution} key=${s.key} spec=${s} rows=${dist[s.key] || []} tickets=${dist.tickets} />`)}</div>
  </section>`;
}

function Ask({ companies }) {
  const [form, setForm] = useState({ period: '30d', companyId: '' });
  const gate = useCostGate((confirmCost) => api.post('/api/analyzer/reports', {
    period: form.period, ...(form.companyId ? { companyId: Number(form.companyId) } : {}), ...(confirmCost ? { confirmCost: true } : {}),
  }), (report) => navigate('/analyzer/reports', { id: String(report.id) }));
  const fields = gate.error?.status === 400 ? gate.error.fields : {};
  return html`<form class="card stack" aria-labelledby="ask-h" onSubmit=${(e) => { e.preventDefault(); gate.run(); }} noValidate>
    <header><h2 id="ask-h">Ask for a report</h2><span class="note">distributions at once, the model's narrative after</span></header>
    <div class="row filter-row">
      <div class="field">
        <label for="rep-period">Period</label>
        <select id="rep-period" value=${form.period} aria-invalid=${fields.period ? 'true' : null}
          aria-describedby=${fields.period ? 'rep-period-error' : null}
          onChange=${(e) => setForm({ ...form, period: e.currentTarget.value })}>
          ${PERIODS.map((p) => html`<option key=${p.value} value=${p.value}>${p.label}</option>`)}
        </select>
        <${FieldError} id="rep-period-error" message=${fields.period} />
      </div>
      <div class="field">
        <label for="rep-company">Company</label>
        <select id="rep-company" value=${form.companyId} aria-invalid=${fields.companyId ? 'true' : null}
          aria-describedby=${fields.companyId ? 'rep-company-error' : null}
          onChange=${(e) => setForm({ ...form, companyId: e.currentTarget.value })}>
          <option value="">Every company</option>
          ${[...companies].map(([cid, name]) => html`<option key=${cid} value=${String(cid)}>${name}</option>`)}
        </select>
        <${FieldError} id="rep-company-error" message=${fields.companyId} />
      </div>
    </div>
    <div class="row"><button type="submit" class="primary" disabled=${gate.busy}>${gate.busy ? 'Asking…' : 'Make the report'}</button></div>
    <${CostGate} gate=${gate} what="this report" action="Make it" />
  </form>`;
}

export function AnalyzerReports({ query }) {
  const id = Number(query.get('id'));
  const choices = useResource('/api/analyzer/tickets/filter-options');
  const companies = new Map((choices.data?.clients || []).map((c) => [c.id, c.name]));
  return html`<div class="stack analyzer">
    <div class="page-head"><h1>Reports</h1><span class="note">keep a report's address to open it again: the console lists no reports</span></div>
    ${choices.error && !choices.data ? html`<${ErrorBanner} error=${choices.error} onRetry=${choices.reload} what="the companies" />` : null}
    <${Ask} companies=${companies} />
    ${Number.isInteger(id) && id > 0 ? html`<${Report} key=${id} id=${id} companies=${companies} />` : null}
  </div>`;
}
