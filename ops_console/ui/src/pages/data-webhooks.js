// The PSA's webhook callouts: their statistics (GET /api/webhooks/stats), the log (GET
// /api/webhooks/logs: filtered by entity type, status and a "since" period, paged newest first
// with the route's next_before) and the addresses they came from (GET /api/webhooks/ips). The
// filters live in the fragment's query (#/data/webhooks?entityType=Ticket&status=failed&since=24h),
// so a reload keeps them; the page being read is kept while the page is open (Older, Newer, Newest).
import { html, useMemo, useState } from '../lib/html.js';
import { withQuery } from '../lib/api.js';
import { dateTime, number } from '../lib/format.js';
import { navigate } from '../lib/router.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';

// The entity types the intake applies (ops_console/README.md, "PSA webhooks"), as the log spells them.
export const ENTITY_TYPES = ['Company', 'Contact', 'ConfigurationItem', 'Contract', 'Project', 'Task', 'Ticket', 'TimeEntry'];
const PERIODS = [
  { value: '', name: 'Any time', ms: 0 },
  { value: '1h', name: 'Last hour', ms: 3600e3 },
  { value: '24h', name: 'Last 24 hours', ms: 86400e3 },
  { value: '7d', name: 'Last 7 days', ms: 7 * 86400e3 },
  { value: '30d', name: 'Last 30 days', ms: 30 * 86400e3 },
];
const PAGE_SIZES = [25, 50, 100];
const SOURCE_HOURS = [{ value: 24, name: 'Last 24 hours' }, { value: 168, name: 'Last 7 days' }, { value: 720, name: 'Last 30 days' }];

function readFilters(query) {
  const limit = Number(query.get('limit'));
  return {
    entityType: ENTITY_TYPES.includes(query.get('entityType')) ? query.get('entityType') : '',
    status: ['processed', 'failed'].includes(query.get('status')) ? query.get('status') : '',
    since: PERIODS.some((p) => p.value === query.get('since')) ? query.get('since') : '',
    limit: PAGE_SIZES.includes(limit) ? limit : 50,
  };
}

function writeFilters(f) {
  navigate('/data/webhooks', { ...(f.entityType && { entityType: f.entityType }), ...(f.status && { status: f.status }),
    ...(f.since && { since: f.since }), ...(f.limit !== 50 && { limit: String(f.limit) }) }, { replace: true });
}

function Select({ id, label, value, options, onChange }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <select id=${id} value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
      ${options.map((o) => html`<option key=${o.value} value=${o.value}>${o.name}</option>`)}
    </select>
  </div>`;
}

function statusBadge(status) {
  return html`<span class=${`badge ${status === 'processed' ? 'ok' : 'down'}`}>${status}</span>`;
}

function Counts({ title, figures }) {
  const byStatus = figures.by_status || {};
  const byType = Object.entries(figures.by_entity_type || {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return html`<div class="card kpi" data-testid=${`stats-${title}`}>
    <div class="label">${title}</div>
    <div class="value">${number(figures.total)}</div>
    <div class="compare"><span>${number(byStatus.processed || 0)} processed</span>
      <span class=${byStatus.failed ? 'error-text' : ''}>${number(byStatus.failed || 0)} failed</span></div>
    ${byType.length ? html`<ul class="plain small">${byType.map(([t, n]) => html`<li key=${t}>${t}: ${number(n)}</li>`)}</ul>` : null}
  </div>`;
}

function Stats() {
  const stats = useResource('/api/webhooks/stats');
  return html`<section aria-labelledby="wh-stats-h">
    <div class="page-head"><h2 id="wh-stats-h">Statistics</h2>
      <span class="note">${stats.data ? html`last callout ${stats.data.last_event_at
        ? html`<time datetime=${stats.data.last_event_at}>${dateTime(stats.data.last_event_at)}</time>` : 'never'}` : ''}</span></div>
    ${stats.data ? html`<div class="grid kpis">
        <${Counts} title="Last 24 hours" figures=${stats.data.last24h} />
        <${Counts} title="Last 7 days" figures=${stats.data.last7d} />
      </div>` : html`<div class="card"><${Pending} resource=${stats} label="webhook statistics" lines=${2} /></div>`}
  </section>`;
}

function LogRow({ e }) {
  return html`<tr data-event=${e.id}>
    <td data-label="Received"><time datetime=${e.received_at}>${dateTime(e.received_at)}</time></td>
    <td data-label="Entity"><span>${e.entity_type || 'unreadable'}${e.entity_id !== null ? html` <span class="mono">${e.entity_id}</span>` : null}</span></td>
    <td data-label="Action">${e.action || '—'}</td>
    <td data-label="Status">${statusBadge(e.status)}</td>
    <td data-label="Source"><span class="mono">${e.source_ip || '—'}</span></td>
    <td data-label="Detail" class="detail">
      ${e.error_message ? html`<div class="error-text">${e.error_message}</div>` : null}
      <details><summary>Event <span class="visually-hidden">${e.id}</span></summary><dl class="pairs small">
        <div><dt>Event id</dt><dd class="mono">${e.event_id}</dd></div>
        <div><dt>Webhook</dt><dd class="mono">${e.guid || '—'}</dd></div>
        <div><dt>Event time</dt><dd>${e.event_time ? dateTime(e.event_time) : '—'}</dd></div>
        <div><dt>User agent</dt><dd>${e.user_agent || '—'}</dd></div>
      </dl></details>
    </td>
  </tr>`;
}

function Log({ filters }) {
  // the `before` of each page read after the first: Older pushes, Newer pops
  // (kept with the filters they were read under: another filter starts at the newest again)
  const filterKey = `${filters.entityType}|${filters.status}|${filters.since}|${filters.limit}`;
  const [paging, setPaging] = useState({ key: filterKey, pages: [] });
  const pages = paging.key === filterKey ? paging.pages : [];
  const setPages = (list) => setPaging({ key: filterKey, pages: list });
  const [tick, setTick] = useState(0);
  // the period's start, taken when the filter is chosen (or the list reloaded), not at each render
  const since = useMemo(() => {
    const p = PERIODS.find((x) => x.value === filters.since);
    return p && p.ms ? new Date(Date.now() - p.ms).toISOString() : '';
  }, [filters.since, tick]);
  const before = pages.length ? pages[pages.length - 1] : '';
  const log = useResource(withQuery('/api/webhooks/logs', {
    entityType: filters.entityType, status: filters.status, since, before, limit: filters.limit,
  }));
  const set = (patch) => writeFilters({ ...filters, ...patch });
  const items = log.data?.items;
  const filtered = filters.entityType || filters.status || filters.since;
  return html`<section class="card" aria-labelledby="wh-log-h">
    <header><h2 id="wh-log-h">Log</h2><span class="note">newest first</span></header>
    <form class="row filter-row" onSubmit=${(e) => e.preventDefault()} aria-label="Log filters">
      <${Select} id="wh-type" label="Entity type" value=${filters.entityType} onChange=${(entityType) => set({ entityType })}
        options=${[{ value: '', name: 'Every type' }, ...ENTITY_TYPES.map((t) => ({ value: t, name: t }))]} />
      <${Select} id="wh-status" label="Status" value=${filters.status} onChange=${(status) => set({ status })}
        options=${[{ value: '', name: 'Any status' }, { value: 'processed', name: 'Processed' }, { value: 'failed', name: 'Failed' }]} />
      <${Select} id="wh-since" label="Received" value=${filters.since} onChange=${(s) => set({ since: s })} options=${PERIODS} />
      <${Select} id="wh-limit" label="Per page" value=${String(filters.limit)} onChange=${(l) => set({ limit: Number(l) })}
        options=${PAGE_SIZES.map((n) => ({ value: String(n), name: String(n) }))} />
    </form>
    ${items === undefined ? html`<${Pending} resource=${log} label="the webhook log" />`
      : html`${log.error ? html`<${ErrorBanner} error=${log.error} onRetry=${log.reload} what="the log" />` : null}
        ${items.length ? html`<table class="stack-on-phone log" data-testid="webhook-log">
          <caption class="visually-hidden">Webhook callouts, newest first</caption>
          <thead><tr><th scope="col">Received</th><th scope="col">Entity</th><th scope="col">Action</th>
            <th scope="col">Status</th><th scope="col">Source</th><th scope="col">Detail</th></tr></thead>
          <tbody>${items.map((e) => html`<${LogRow} key=${e.id} e=${e} />`)}</tbody>
        </table>` : html`<${Empty}>${pages.length ? 'No older callout.' : filtered ? 'No callout matches these filters.' : 'No callout has arrived yet.'}<//>`}`}
    <div class="list-foot">
      <span class="muted" role="status">${items ? `Page ${pages.length + 1}: ${items.length} ${items.length === 1 ? 'callout' : 'callouts'}${log.data.next_before ? ', older ones after' : ', the last page'} (the route counts no total; the statistics above do)` : ''}</span>
      <div class="row">
        <button type="button" disabled=${!pages.length} onClick=${() => setPages([])}>Newest</button>
        <button type="button" disabled=${!pages.length} onClick=${() => setPages(pages.slice(0, -1))}>Newer</button>
        <button type="button" disabled=${!log.data?.next_before} onClick=${() => setPages([...pages, log.data.next_before])}>Older</button>
        <button type="button" onClick=${() => {
          if (!pages.length && !filters.since) log.reload(); // the same request: ask again
          else { setPages([]); setTick(tick + 1); } // the newest page, the period from now
        }}>Reload</button>
      </div>
    </div>
  </section>`;
}

function Sources({ entityType }) {
  const [hours, setHours] = useState(168);
  const ips = useResource(withQuery('/api/webhooks/ips', { hours, entityType }));
  return html`<section class="card" aria-labelledby="wh-ips-h">
    <header><h2 id="wh-ips-h">Source addresses</h2><span class="note">busiest first; ${entityType || 'every entity type'}, as the log's filter says</span></header>
    <div class="row filter-row"><${Select} id="wh-hours" label="Period" value=${String(hours)} onChange=${(h) => setHours(Number(h))}
      options=${SOURCE_HOURS.map((o) => ({ value: String(o.value), name: o.name }))} /></div>
    ${!ips.data ? html`<${Pending} resource=${ips} label="source addresses" />`
      : !ips.data.length ? html`<${Empty}>No callout in this period.<//>`
      : html`<table class="stack-on-phone" data-testid="webhook-sources">
          <caption class="visually-hidden">Addresses the callouts came from</caption>
          <thead><tr><th scope="col">Address</th><th scope="col" class="num">Callouts</th><th scope="col" class="num">Processed</th>
            <th scope="col" class="num">Failed</th><th scope="col">First seen</th><th scope="col">Last seen</th><th scope="col">Entity types</th>
            <th scope="col">User agents</th></tr></thead>
          <tbody>${ips.data.map((s) => html`<tr key=${s.source_ip || 'none'} data-source=${s.source_ip}>
            <th scope="row" class="mono">${s.source_ip || 'unknown'}</th>
            <td data-label="Callouts" class="num">${number(s.total)}</td>
            <td data-label="Processed" class="num">${number(s.successful)}</td>
            <td data-label="Failed" class=${`num ${s.failed ? 'error-text' : ''}`}>${number(s.failed)}</td>
            <td data-label="First seen">${dateTime(s.first_seen)}</td>
            <td data-label="Last seen">${dateTime(s.last_seen)}</td>
            <td data-label="Entity types">${s.entity_types.join(', ') || '—'}</td>
            <td data-label="User agents" class="wrap">${s.user_agents.join(', ') || '—'}</td>
          </tr>`)}</tbody>
        </table>`}
  </section>`;
}

export function DataWebhooks({ query }) {
  const filters = readFilters(query);
  return html`<div class="stack data-page">
    <div class="page-head"><h1>PSA webhooks</h1><span class="note">the PSA's callouts as the console received them; times in your zone</span></div>
    <${Stats} />
    <${Log} filters=${filters} />
    <${Sources} entityType=${filters.entityType} />
  </div>`;
}
