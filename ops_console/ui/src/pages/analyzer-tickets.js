// The analyzer's ticket list (GET /api/analyzer/tickets/list: {total, limit, offset, items}) with
// its filters (period, company, issue type, search) and offset kept in the fragment's query, so
// that a reload or a bookmark opens the same page; the choices and the status and priority labels
// are GET /api/analyzer/tickets/filter-options'. Tickets chosen with their checkboxes are analysed
// with POST /api/analyzer/analyze through the cost gate (./analyzer-shared.js); each job the answer
// names is followed with GET /api/analyzer/jobs/{id} until it succeeds or fails, and the list is
// read again when the last one ends.
import { html, useEffect, useMemo, useState } from '../lib/html.js';
import { api, withQuery } from '../lib/api.js';
import { dateTime, timeZone } from '../lib/format.js';
import { navigate } from '../lib/router.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { Pager } from '../components/pager.js';
import { useTypedSearch } from '../components/search.js';
import { CostGate, PERIODS, STATUS_TONE, cost, useCostGate } from './analyzer-shared.js';

const JOB_POLL_MS = 2000;
const MAX_TICKETS = 25; // the route's limit per request

function readFilters(query) {
  return {
    period: query.get('period') || 'all', companyId: query.get('companyId') || '', issueType: query.get('issueType') || '',
    search: query.get('search') || '', offset: Number(query.get('offset')) || 0,
  };
}

// A filter change starts at the first page; the history entry is replaced (Back leaves the list).
function writeFilters(f) {
  const q = {};
  if (f.period && f.period !== 'all') q.period = f.period;
  for (const k of ['companyId', 'issueType', 'search']) if (f[k]) q[k] = f[k];
  if (f.offset) q.offset = String(f.offset);
  navigate('/analyzer', q, { replace: true });
}

function Filters({ filters, options }) {
  const set = (patch) => writeFilters({ ...filters, ...patch, offset: 0 });
  const box = useTypedSearch(filters.search, (search) => set({ search }));
  return html`<form class="card filters-grid" role="search" aria-label="Filter tickets"
      onSubmit=${box.submit}>
    <div class="field">
      <label for="an-period">Created</label>
      <select id="an-period" value=${filters.period} onChange=${(e) => set({ period: e.currentTarget.value })}>
        ${PERIODS.map((p) => html`<option key=${p.value} value=${p.value}>${p.label}</option>`)}
      </select>
    </div>
    <div class="field">
      <label for="an-company">Company</label>
      <select id="an-company" value=${filters.companyId} onChange=${(e) => set({ companyId: e.currentTarget.value })}>
        <option value="">All companies</option>
        ${options.clients.map((c) => html`<option key=${c.id} value=${String(c.id)}>${c.name}</option>`)}
      </select>
    </div>
    <div class="field">
      <label for="an-issue">Issue type</label>
      <select id="an-issue" value=${filters.issueType} onChange=${(e) => set({ issueType: e.currentTarget.value })}>
        <option value="">All issue types</option>
        ${options.issueTypes.map((t) => html`<option key=${t.value} value=${String(t.value)}>${t.label}</option>`)}
      </select>
    </div>
    <div class="field">
      <label for="an-search">Search title or number</label>
      <input id="an-search" type="search" maxLength="200" value=${box.text} onInput=${box.onInput} />
    </div>
  </form>`;
}

// One job, read again every JOB_POLL_MS until it ends.
function Job({ job, ticket, onEnded }) {
  const [state, setState] = useState({ data: null, error: null });
  useEffect(() => {
    let timer = null;
    let stopped = false;
    const poll = async () => {
      try {
        const data = await api.get(`/api/analyzer/jobs/${job.id}`);
        if (stopped) return;
        setState({ data, error: null });
        if (data.status === 'succeeded' || data.status === 'failed') onEnded(job.id);
        else timer = setTimeout(poll, JOB_POLL_MS);
      } catch (error) {
        if (stopped) return;
        setState((s) => ({ ...s, error }));
        if (error.transient) timer = setTimeout(poll, JOB_POLL_MS * 2);
      }
    };
    poll();
    return () => { stopped = true; clearTimeout(timer); };
  }, [job.id]);
  const d = state.data;
  const status = d?.status || 'queued';
  return html`<li data-job=${job.id} class="job">
    <div class="row spread">
      <span><span class="mono">${ticket?.ticketNumber || `ticket ${job.ticketId}`}</span> ${ticket?.title || ''}</span>
      <span class=${`badge ${STATUS_TONE[status]}`} data-testid="job-status">${status}</span>
    </div>
    <div class="meta">
      <span>Job ${job.id}</span>
      ${d?.attempts ? html`<span>attempt ${d.attempts}</span>` : null}
      ${d?.finishedAt ? html`<span>ended ${dateTime(d.finishedAt)}</span>` : d?.startedAt ? html`<span>started ${dateTime(d.startedAt)}</span>` : null}
      ${d?.analysisId ? html`<a href=${`#/analyzer/analysis?id=${d.analysisId}`}>Open the analysis</a>` : null}
    </div>
    ${d?.error ? html`<div class="error-text">${d.error}</div>` : null}
    ${state.error ? html`<${ErrorBanner} error=${state.error} />` : null}
  </li>`;
}

function Jobs({ result, tickets, onAllEnded }) {
  const [ended, setEnded] = useState(() => new Set());
  const jobs = result.jobs;
  useEffect(() => setEnded(new Set()), [result]);
  useEffect(() => {
    if (jobs.length && ended.size === jobs.length) onAllEnded();
  }, [ended.size]);
  const open = jobs.length - ended.size;
  return html`<section class="card" aria-labelledby="jobs-h">
    <header><h2 id="jobs-h">Analyses asked for</h2>
      <span class="note">estimated ${cost(result.cost.estimate)}; today's spend before it (UTC day) ${cost(result.cost.dayTotal)}</span></header>
    <p class="muted" aria-live="polite">${open ? `${open} of ${jobs.length} still running; their state updates by itself.` : jobs.length === 1 ? 'The job ended.' : `All ${jobs.length} jobs ended.`}</p>
    <ul class="list">${jobs.map((j) => html`<${Job} key=${j.id} job=${j} ticket=${tickets.get(j.ticketId)}
      onEnded=${(id) => setEnded((s) => (s.has(id) ? s : new Set([...s, id])))} />`)}</ul>
  </section>`;
}

function AnalysisCell({ a }) {
  if (!a) return html`<span class="muted">not analysed</span>`;
  const badge = html`<span class=${`badge ${STATUS_TONE[a.status] || 'neutral'}`}>${a.status}</span>`;
  return html`<span class="row tight">${a.analysisId
    ? html`<a href=${`#/analyzer/analysis?id=${a.analysisId}`} aria-label=${`Analysis: ${a.status}, ${dateTime(a.at)}`}>${badge}</a>` : badge}
    <span class="muted small">${dateTime(a.at)}</span></span>`;
}

export function AnalyzerTickets({ query }) {
  const filters = readFilters(query);
  const choices = useResource('/api/analyzer/tickets/filter-options');
  const options = useMemo(() => ({
    clients: choices.data?.clients || [], issueTypes: choices.data?.issueTypes || [],
    statuses: new Map((choices.data?.statuses || []).map((s) => [s.value, s.label])),
    priorities: new Map((choices.data?.priorities || []).map((s) => [s.value, s.label])),
  }), [choices.data]);
  const list = useResource(withQuery('/api/analyzer/tickets/list', {
    period: filters.period === 'all' ? '' : filters.period, companyId: filters.companyId, issueType: filters.issueType,
    search: filters.search, offset: filters.offset || '',
  }));
  const [chosen, setChosen] = useState(() => new Map()); // id → ticket, across pages
  const [batch, setBatch] = useState(null); // the last accepted request: {result, tickets}
  const gate = useCostGate((confirmCost) => api.post('/api/analyzer/analyze',
    { ticketIds: [...chosen.keys()], ...(confirmCost ? { confirmCost: true } : {}) }), (result) => {
    setBatch({ result, tickets: new Map(chosen) });
    setChosen(new Map());
  });

  const toggle = (t, on) => setChosen((m) => {
    const next = new Map(m);
    if (on) next.set(t.id, t); else next.delete(t.id);
    return next;
  });
  const items = list.data?.items || [];
  const allOnPage = items.length > 0 && items.every((t) => chosen.has(t.id));
  const filtered = filters.search || filters.companyId || filters.issueType || filters.period !== 'all';

  return html`<div class="stack analyzer">
    <div class="page-head"><h1>Tickets</h1><span class="note">the PSA copy, newest first; times in ${timeZone()}</span></div>
    ${choices.error && !choices.data ? html`<${ErrorBanner} error=${choices.error} onRetry=${choices.reload} what="the filters' choices" />` : null}
    <${Filters} filters=${filters} options=${options} />
    <div class="card analyze-bar">
      <div class="row">
        <button type="button" class="primary" disabled=${!chosen.size || chosen.size > MAX_TICKETS || gate.busy}
          onClick=${() => gate.run()}>${gate.busy ? 'Asking…' : chosen.size ? `Analyse ${chosen.size} ${chosen.size === 1 ? 'ticket' : 'tickets'}` : 'Analyse tickets'}</button>
        ${chosen.size ? html`<button type="button" onClick=${() => setChosen(new Map())}>Clear the choice</button>` : null}
        <span class="muted small" role="status">${chosen.size > MAX_TICKETS
          ? `${chosen.size} chosen: at most ${MAX_TICKETS} at once.`
          : chosen.size ? `${chosen.size} chosen${[...chosen.keys()].some((id) => !items.some((t) => t.id === id)) ? ' (some on other pages)' : ''}.`
          : 'Choose tickets with their boxes. A costly request asks you to confirm its estimate first.'}</span>
      </div>
      <${CostGate} gate=${gate} what=${`analysing ${chosen.size} ${chosen.size === 1 ? 'ticket' : 'tickets'}`} action="Analyse" />
    </div>
    ${batch ? html`<${Jobs} result=${batch.result} tickets=${batch.tickets} onAllEnded=${list.reload} />` : null}
    <section class="card" aria-labelledby="tickets-h">
      <h2 id="tickets-h" class="visually-hidden">Tickets</h2>
      ${items.length ? html`<label class="check page-pick"><input type="checkbox" checked=${allOnPage}
        onChange=${(e) => { const on = e.currentTarget.checked; items.forEach((t) => toggle(t, on)); }} />
        ${items.length === 1 ? 'Choose the ticket of this page' : `Choose the ${items.length} tickets of this page`}</label>` : null}
      ${list.data === undefined ? html`<${Pending} resource=${list} label="tickets" lines=${6} />` : html`
        ${list.error ? html`<${ErrorBanner} error=${list.error} onRetry=${list.reload} />` : null}
        ${!items.length ? html`<${Empty}>${filtered ? 'No ticket matches these filters.' : 'The PSA copy holds no ticket yet.'}<//>` : html`
        <table class="stack-on-phone tickets-table" aria-busy=${list.loading ? 'true' : 'false'}>
          <caption class="visually-hidden">Tickets; choose some to analyse</caption>
          <thead><tr>
            <th scope="col"><span class="visually-hidden">Chosen</span></th>
            <th scope="col">Ticket</th><th scope="col">Company</th><th scope="col">Status</th>
            <th scope="col">Created</th><th scope="col">Analysis</th>
          </tr></thead>
          <tbody>${items.map((t) => html`<tr key=${t.id} data-ticket=${t.id}>
            <td class="pick"><input type="checkbox" aria-label=${`Choose ${t.ticketNumber}`} checked=${chosen.has(t.id)}
              onChange=${(e) => toggle(t, e.currentTarget.checked)} /></td>
            <td data-label="Ticket" class="ticket-cell"><span><span class="mono">${t.ticketNumber}</span> <span class="title">${t.title}</span></span></td>
            <td data-label="Company">${t.companyName || '—'}</td>
            <td data-label="Status"><span>${options.statuses.get(t.status) || t.status}${t.priority !== null && t.priority !== undefined
              ? html` <span class="muted small">· ${options.priorities.get(t.priority) || `priority ${t.priority}`}</span>` : null}</span></td>
            <td data-label="Created"><time datetime=${t.createDate}>${dateTime(t.createDate)}</time></td>
            <td data-label="Analysis"><${AnalysisCell} a=${t.analysis} /></td>
          </tr>`)}</tbody>
        </table>`}
        <${Pager} page=${list.data} noun="tickets" busy=${list.loading}
          onOffset=${(offset) => writeFilters({ ...filters, offset })} />`}
    </section>
  </div>`;
}
