// The overview (desktop first): today's KPIs against yesterday and the 7-day average
// (GET /api/dashboard/overview), the trends (GET /api/dashboard/trends), integration health
// (GET /api/dashboard/integration-health) and the workers' last 24 hours (GET /api/status/workers).
// Every figure is the route's own; days are the user's (the routes compute them in the user's zone),
// the workers' hours are UTC as the route keeps them, and the page says so. It refreshes every 60 s
// while the tab is visible.
import { html } from '../lib/html.js';
import { TableWrap } from '../components/table.js';
import { ago, dateTime, day, number, signed, time } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { BarChart, Buckets, DataTable, LineChart } from '../components/charts.js';

const REFRESH_MS = 60000;

const KPIS = [
  { key: 'opened', name: 'Opened today' },
  { key: 'resolved', name: 'Resolved today', good: true },
  { key: 'openTotal', name: 'Open now' },
  { key: 'slaBreaches', name: 'SLA breaches', attention: true },
];

function Kpi({ name, figure, good, attention }) {
  const delta = Number(figure.delta) || 0;
  const tone = delta > 0 ? 'up' : delta < 0 ? 'down' : '';
  return html`<div class=${`card kpi ${attention && figure.today > 0 ? 'attention' : ''}`}>
    <div class="label">${name}</div>
    <div class="value">${number(figure.today)}</div>
    <div class="compare">
      <span><span class=${`delta ${tone} ${good ? 'good' : ''}`}>${signed(delta)}</span> vs yesterday (${number(figure.yesterday)})</span>
      <span>7-day avg ${number(figure.average7, 1)}</span>
    </div>
  </div>`;
}

function Kpis() {
  const overview = useResource('/api/dashboard/overview', { refreshMs: REFRESH_MS });
  const o = overview.data;
  return html`<section aria-labelledby="kpis-h">
    <div class="page-head">
      <h2 id="kpis-h">Today${o ? html`, ${day(o.date, { weekday: 'long', day: 'numeric', month: 'long' })}` : ''}</h2>
      ${o ? html`<span class="note">${o.timezone} · as of ${time(o.at)}</span>` : null}
    </div>
    ${overview.error && o ? html`<${ErrorBanner} error=${overview.error} onRetry=${overview.reload} />` : null}
    ${o ? html`<div class="grid kpis" data-testid="kpis">
        ${KPIS.map((k) => html`<${Kpi} key=${k.key} name=${k.name} figure=${o[k.key]} good=${k.good} attention=${k.attention} />`)}
      </div>`
      : html`<${Pending} resource=${overview} label="today's figures" lines=${2} />`}
  </section>`;
}

// Open tickets by queue (rows) and priority (columns), shaded by count.
function Heatmap({ cells }) {
  if (!cells.length) return html`<${Empty}>No open tickets.<//>`;
  const priorities = [...new Map(cells.map((c) => [c.priority, c.priorityLabel])).entries()].sort((a, b) => a[0] - b[0]);
  const queues = [...new Map(cells.map((c) => [c.queueId, c.queue])).entries()];
  const count = new Map(cells.map((c) => [`${c.queueId}|${c.priority}`, c.count]));
  const max = Math.max(1, ...cells.map((c) => c.count));
  return html`<${TableWrap} label="Open tickets by queue and priority"><table class="heat">
    <caption class="visually-hidden">Open tickets by queue and priority</caption>
    <thead><tr><th scope="col">Queue</th>${priorities.map(([p, label]) => html`<th scope="col" class="num" key=${p}>${label || `Priority ${p}`}</th>`)}<th scope="col" class="num">Total</th></tr></thead>
    <tbody>${queues.map(([q, name]) => {
      const row = priorities.map(([p]) => count.get(`${q}|${p}`) || 0);
      return html`<tr key=${q}><th scope="row">${name || 'No queue'}</th>
        ${row.map((n, i) => html`<td class="num cell" key=${i} style=${n ? { background: `color-mix(in srgb, var(--heat) ${Math.round(10 + 35 * (n / max))}%, transparent)` } : null}>${n || ''}</td>`)}
        <td class="num">${number(row.reduce((a, b) => a + b, 0))}</td></tr>`;
    })}</tbody>
  </table><//>`;
}

function Trends() {
  const trends = useResource('/api/dashboard/trends', { refreshMs: REFRESH_MS });
  const t = trends.data;
  if (!t) return html`<div class="card"><h2>Trends</h2><${Pending} resource=${trends} label="trends" /></div>`;
  const short = (d) => day(d, { day: 'numeric', month: 'short' });
  return html`
    ${trends.error ? html`<${ErrorBanner} error=${trends.error} onRetry=${trends.reload} />` : null}
    <div class="grid two">
      <section class="card" aria-labelledby="volume-h">
        <header><h2 id="volume-h">Volume, last 30 days</h2><span class="note">tickets opened and resolved per day</span></header>
        <${BarChart} label="Tickets opened and resolved per day, last 30 days" points=${t.volume} x=${(p) => p.date} format=${short}
          series=${[{ key: 'opened', name: 'Opened' }, { key: 'resolved', name: 'Resolved' }]} />
        <${DataTable} caption="Tickets opened and resolved per day" points=${t.volume}
          columns=${[{ name: 'Day', value: (p) => day(p.date) }, { name: 'Opened', num: true, value: (p) => number(p.opened) },
            { name: 'Resolved', num: true, value: (p) => number(p.resolved) }]} />
      </section>
      <section class="card" aria-labelledby="resolution-h">
        <header><h2 id="resolution-h">Mean resolution, last 30 days</h2><span class="note">hours from creation to completion</span></header>
        <${LineChart} label="Mean resolution time in hours per day, last 30 days" points=${t.resolution} x=${(p) => p.date}
          y=${(p) => p.meanHours} name="Mean hours" format=${short} unit=" h" />
        <${DataTable} caption="Mean resolution time per day" points=${t.resolution}
          columns=${[{ name: 'Day', value: (p) => day(p.date) }, { name: 'Mean hours', num: true, value: (p) => (p.meanHours === null ? '—' : number(p.meanHours, 1)) },
            { name: 'Resolved', num: true, value: (p) => number(p.resolved) }]} />
      </section>
      <section class="card" aria-labelledby="queue-h">
        <header><h2 id="queue-h">Open tickets by queue and priority</h2></header>
        <${Heatmap} cells=${t.heatmap} />
      </section>
      <section class="card" aria-labelledby="engineers-h">
        <header><h2 id="engineers-h">Today's engineers</h2><span class="note">time logged today</span></header>
        ${t.engineers.length
          ? html`<${TableWrap} label="Today's engineers"><table>
              <thead><tr><th scope="col">Engineer</th><th scope="col" class="num">Hours</th></tr></thead>
              <tbody>${t.engineers.map((e) => html`<tr key=${e.resourceId}><td>${e.name}</td><td class="num">${number(e.hours, 2)}</td></tr>`)}</tbody>
            </table><//>`
          : html`<${Empty}>No time logged today yet.<//>`}
      </section>
    </div>`;
}

// An instant: its date and time in the user's zone, and how long ago it was.
export function When({ iso }) {
  if (!iso) return '—';
  return html`<time datetime=${iso}>${dateTime(iso)}</time> <span class="muted">(${ago(iso)})</span>`;
}

const STATE_BADGE = { ok: 'ok', failing: 'failing', unknown: 'unknown' };

function IntegrationHealth() {
  const health = useResource('/api/dashboard/integration-health', { refreshMs: REFRESH_MS });
  const rows = health.data?.integrations;
  return html`<section class="card" aria-labelledby="health-h">
    <header><h2 id="health-h">Integration health</h2><span class="note">switched-off integrations are not listed</span></header>
    ${health.error && rows ? html`<${ErrorBanner} error=${health.error} onRetry=${health.reload} />` : null}
    ${!rows ? html`<${Pending} resource=${health} label="integration health" />`
      : !rows.length ? html`<${Empty}>No integration is switched on.<//>`
      : html`<${TableWrap} label="Integration health"><table class="stack-on-phone" data-testid="integration-health">
          <thead><tr><th scope="col">Integration</th><th scope="col">State</th><th scope="col">Last success</th>
            <th scope="col">Last failure</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Failures</th>
            <th scope="col" class="num">Latency</th><th scope="col">Last error</th></tr></thead>
          <tbody>${rows.map((r) => html`<tr key=${r.key}>
            <th scope="row">${r.key}</th>
            <td data-label="State"><span class=${`badge ${STATE_BADGE[r.state] || 'neutral'}`}>${r.state}</span></td>
            <td data-label="Last success"><${When} iso=${r.lastSuccessAt} /></td>
            <td data-label="Last failure"><${When} iso=${r.lastFailureAt} /></td>
            <td data-label="Calls" class="num">${number(r.calls)}</td>
            <td data-label="Failures" class="num">${number(r.failures)}</td>
            <td data-label="Latency" class="num">${r.lastLatencyMs === null || r.lastLatencyMs === undefined ? '—' : `${number(r.lastLatencyMs)} ms`}</td>
            <td data-label="Last error" class="error-text">${r.state === 'failing' ? r.lastError || '' : ''}</td>
          </tr>`)}</tbody>
        </table><//>`}
  </section>`;
}

export const WORKER_NAMES = { analyzer: 'Analyzer', 'remote-management': 'Remote management', 'sync-scheduler': 'Sync scheduler' };

export function Worker({ w }) {
  const name = WORKER_NAMES[w.name] || w.name;
  return html`<div class="card" data-worker=${w.name}>
    <header class="row">
      <h3>${name}</h3>
      ${w.configured === false ? html`<span class="badge neutral">not configured</span>`
        : html`<span class=${`badge ${w.status}`}>${w.status}</span>`}
    </header>
    ${w.configured === false ? html`<p class="muted">Nothing runs here until its integration is set up.</p>`
      : html`<p class="muted">${number(w.inFlight)} in flight · ${number(w.failuresLastHour)} failed in the last hour</p>`}
    ${w.activity24h ? html`<${Buckets} label=${`${name}, runs per hour`} buckets=${w.activity24h}
      hour=${(b) => `${String(b.hour).slice(11, 16)} UTC`} />` : null}
  </div>`;
}

function Workers() {
  const workers = useResource('/api/status/workers', { refreshMs: REFRESH_MS });
  const list = workers.data?.workers;
  return html`<section aria-labelledby="workers-h">
    <div class="page-head"><h2 id="workers-h">Workers</h2><span class="note">runs per hour, the last 24 hours in UTC</span></div>
    ${workers.error && list ? html`<${ErrorBanner} error=${workers.error} onRetry=${workers.reload} />` : null}
    ${list ? html`<div class="grid kpis">${list.map((w) => html`<${Worker} key=${w.name} w=${w} />`)}</div>`
      : html`<${Pending} resource=${workers} label="workers" />`}
  </section>`;
}

export function Overview() {
  return html`<div class="stack">
    <h1 class="visually-hidden">Overview</h1>
    <${Kpis} />
    <${Trends} />
    <${IntegrationHealth} />
    <${Workers} />
  </div>`;
}
