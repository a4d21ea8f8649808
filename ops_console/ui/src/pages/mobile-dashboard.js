// The mobile dashboard (GET /api/mobile/dashboard: {date, timezone, at, kpis, needsAttention,
// workers}): the KPIs with their tone, what needs attention (each kind said in words) and the
// workers' status. Days are the user's (the route computes them in the user's zone); it refreshes
// every 60 s while the tab is visible.
import { html } from '../lib/html.js';
import { day, number, signed, time } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { When, Worker, WORKER_NAMES } from './overview.js';

const REFRESH_MS = 60000;

const KPI_NAMES = {
  openTickets: 'Open tickets',
  slaBreaches: 'SLA breaches',
  openedToday: 'Opened today',
  resolvedToday: 'Resolved today',
  backupSuccess: 'Backups, 24 h',
};

function BackupKpi({ k }) {
  const name = KPI_NAMES.backupSuccess;
  if (k.configured === false) {
    return html`<div class="card kpi" data-kpi="backupSuccess"><div class="label">${name}</div>
      <div class="value muted">—</div><div class="compare">no backup recorded yet</div></div>`;
  }
  return html`<div class=${`card kpi ${k.tone === 'attention' ? 'attention' : ''}`} data-kpi="backupSuccess">
    <div class="label">${name}</div>
    <div class="value">${k.percent === null || k.percent === undefined ? '—' : `${number(k.percent, 1)} %`}
      ${k.status ? html` <span class=${`badge ${k.status}`}>${k.status}</span>` : null}</div>
    <div class="compare">
      <span>${k.status ? `${number(k.succeeded)} succeeded, ${number(k.failed)} failed` : 'nothing finished in 24 h'}</span>
    </div>
  </div>`;
}

function Kpi({ k }) {
  if (k.key === 'backupSuccess') return html`<${BackupKpi} k=${k} />`;
  const delta = Number(k.delta) || 0;
  // more resolved is good; more of anything else is not
  const good = k.key === 'resolvedToday';
  return html`<div class=${`card kpi ${k.tone === 'attention' ? 'attention' : ''}`} data-kpi=${k.key}>
    <div class="label">${KPI_NAMES[k.key] || k.key}</div>
    <div class="value">${number(k.value)}</div>
    ${k.delta === undefined ? null : html`<div class="compare">
      <span><span class=${`delta ${delta > 0 ? 'up' : delta < 0 ? 'down' : ''} ${good ? 'good' : ''}`}
        >${signed(delta)}</span> vs yesterday</span>
    </div>`}
  </div>`;
}

// The kinds of needsAttention, in the route's order, each said in words.
const KINDS = {
  slaBreach: { title: 'SLA breached', what: 'open tickets past their due date, the ten most overdue at most' },
  backupFailed: { title: 'Backups failed', what: 'in the last 24 hours, the latest first' },
  stalledWorkflow: { title: 'Workflows stalled', what: 'runs going for more than 5 minutes' },
  integrationFailing: { title: 'Integrations failing', what: 'their last call failed' },
  worker: { title: 'Workers in trouble', what: 'runs failed in the last hour' },
};

// One entry of needsAttention: what it concerns, since when.
function Attention({ a }) {
  switch (a.kind) {
    case 'slaBreach':
      return html`<div class="title">${a.ticketNumber} ${a.title}</div>
        <div class="meta"><span>${a.companyName || 'No company'}</span><span>was due <${When} iso=${a.dueDateTime} /></span></div>`;
    case 'backupFailed':
      return html`<div class="title">${a.device}${a.jobName ? ` · ${a.jobName}` : ''}</div>
        ${a.error ? html`<div class="error-text">${a.error}</div>` : null}
        <div class="meta"><span>finished <${When} iso=${a.finishedAt} /></span></div>`;
    case 'stalledWorkflow':
      return html`<div class="title">Pipeline ${a.pipelineId}, run ${a.executionId}${a.ticketId ? `, ticket ${a.ticketId}` : ''}</div>
        <div class="meta"><span>running since <${When} iso=${a.startedAt} /></span></div>`;
    case 'integrationFailing':
      return html`<div class="title">${a.key}</div>
        ${a.lastError ? html`<div class="error-text">${a.lastError}</div>` : null}
        <div class="meta"><span>last failure <${When} iso=${a.lastFailureAt} /></span></div>`;
    case 'worker':
      return html`<div class="title">${WORKER_NAMES[a.name] || a.name} <span class=${`badge ${a.status}`}>${a.status}</span></div>
        <div class="meta"><span>${number(a.failuresLastHour)} failed in the last hour</span>
          <span>${number(a.inFlight)} in flight</span></div>`;
    default:
      return html`<div class="title">${a.kind}</div>`;
  }
}

function NeedsAttention({ items }) {
  const kinds = [...new Set(items.map((a) => a.kind))];
  return html`<section aria-labelledby="attention-h">
    <div class="page-head"><h2 id="attention-h">Needs attention</h2>
      <span class="note">${items.length ? `${number(items.length)} ${items.length === 1 ? 'item' : 'items'}` : ''}</span></div>
    ${items.length ? html`<div class="stack" data-testid="needs-attention">
        ${kinds.map((kind) => {
          const of = items.filter((a) => a.kind === kind);
          const k = KINDS[kind] || { title: kind, what: '' };
          return html`<div class="card attention-group" key=${kind} data-group=${kind}>
            <header><h3>${k.title} · ${number(of.length)}</h3><span class="note">${k.what}</span></header>
            <ul class="list">${of.map((a, i) => html`<li key=${i} data-kind=${a.kind}><${Attention} a=${a} /></li>`)}</ul>
          </div>`;
        })}
      </div>`
      : html`<div class="card"><${Empty}>Nothing needs attention: no breached SLA, failed backup, stalled workflow,
          failing integration or worker in trouble.<//></div>`}
  </section>`;
}

export function MobileDashboard() {
  const dash = useResource('/api/mobile/dashboard', { refreshMs: REFRESH_MS });
  const d = dash.data;
  if (!d) {
    return html`<div class="stack"><h1>Dashboard</h1><${Pending} resource=${dash} label="the dashboard" lines=${4} /></div>`;
  }
  return html`<div class="stack">
    <div class="page-head">
      <h1>Today, ${day(d.date, { weekday: 'short', day: 'numeric', month: 'short' })}</h1>
      <span class="note">${d.timezone} · as of ${time(d.at)}</span>
    </div>
    ${dash.error ? html`<${ErrorBanner} error=${dash.error} onRetry=${dash.reload} />` : null}
    <section aria-label="Key figures"><div class="grid kpis" data-testid="kpis">
      ${d.kpis.map((k) => html`<${Kpi} key=${k.key} k=${k} />`)}
    </div></section>
    <${NeedsAttention} items=${d.needsAttention} />
    <section aria-labelledby="workers-h">
      <div class="page-head"><h2 id="workers-h">Workers</h2></div>
      <div class="grid kpis">${d.workers.map((w) => html`<${Worker} key=${w.name} w=${w} />`)}</div>
    </section>
  </div>`;
}
