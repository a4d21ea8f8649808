// The distributor's sync (GET /api/distributor/sync: {inProgress, counts: {companies,
// subscriptions, items}, history: the last 10 runs}) and starting one (POST, 202; 409 a run is
// under way, 503 not configured, 403 switched off: the route's problem is shown by the button).
// While a run is under way (started here or elsewhere) the page asks again every 3 s, until it ends.
import { html, useEffect, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime, number } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { TableWrap } from '../components/table.js';

const POLL_MS = 3000;
const TONES = { succeeded: 'ok', failed: 'down', running: 'warn' };

// A run's counts as its sync_history row has them, the steps' seconds left out: "companies 40 ·
// order items 12 · soft deleted: companies 0, subscriptions 0".
const words = (key) => key.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
export function countsText(counts) {
  if (!counts || typeof counts !== 'object') return '—';
  const parts = [];
  for (const [key, value] of Object.entries(counts)) {
    if (typeof value === 'number') parts.push(`${words(key)} ${number(value)}`);
    else if (value && typeof value === 'object' && key !== 'seconds') {
      const inner = Object.entries(value).filter(([, v]) => typeof v === 'number').map(([k, v]) => `${words(k)} ${number(v)}`);
      if (inner.length) parts.push(`${words(key)}: ${inner.join(', ')}`);
    }
  }
  return parts.length ? parts.join(' · ') : '—';
}

function RunHistory({ runs, label }) {
  if (!runs.length) return html`<${Empty}>No run yet.<//>`;
  return html`<${TableWrap} label=${label}><table class="stack-on-phone" data-testid="history">
    <thead><tr><th scope="col">Started</th><th scope="col">Finished</th><th scope="col">Status</th>
      <th scope="col">Counts</th></tr></thead>
    <tbody>${runs.map((h) => html`<tr key=${h.id} data-run=${h.id}>
      <td data-label="Started"><time datetime=${h.startedAt}>${dateTime(h.startedAt)}</time></td>
      <td data-label="Finished">${h.finishedAt ? html`<time datetime=${h.finishedAt}>${dateTime(h.finishedAt)}</time>` : 'running'}</td>
      <td data-label="Status"><span class=${`badge ${TONES[h.status] || 'neutral'}`}>${h.status}</span>
        ${h.error ? html`<div class="error-text small">${h.error}</div>` : null}</td>
      <td data-label="Counts" class="small counts">${countsText(h.counts)}</td>
    </tr>`)}</tbody>
  </table><//>`;
}

export function DistributorSync() {
  const [polling, setPolling] = useState(false);
  const [elsewhere, setElsewhere] = useState(false); // a run under way that the page did not start
  const sync = useResource('/api/distributor/sync', { refreshMs: polling || elsewhere ? POLL_MS : 0 });
  const [start, setStart] = useState({ busy: false, error: null, at: 0 });
  const s = sync.data;
  // the run the page started has ended once a state read after the start says none is under way
  const ended = !!start.at && !!s && sync.at > start.at && !s.inProgress;
  useEffect(() => {
    if (polling && ended) setPolling(false);
  }, [polling, ended]);
  useEffect(() => setElsewhere(!!s?.inProgress), [s?.inProgress]);

  const run = async () => {
    setStart({ busy: true, error: null, at: 0 });
    try {
      await api.post('/api/distributor/sync');
      setStart({ busy: false, error: null, at: Date.now() });
      setPolling(true);
      sync.reload();
    } catch (error) {
      setStart({ busy: false, error, at: 0 });
    }
  };

  const running = !!s?.inProgress || (!!start.at && !ended);
  return html`<div class="stack distributor">
    <div class="page-head"><h1>Distributor sync</h1><span class="note">a full copy of Pax8's companies, subscriptions, invoices and orders</span></div>
    ${!s ? html`<${Pending} resource=${sync} label="the sync's state" lines=${3} />`
      : html`${sync.error ? html`<${ErrorBanner} error=${sync.error} onRetry=${sync.reload} />` : null}
        <section class="card" aria-labelledby="state-h">
          <header><h2 id="state-h">State</h2>
            <span class=${`badge ${running ? 'warn' : 'ok'}`} data-testid="sync-state">${running ? 'A run is under way' : 'Idle'}</span></header>
          <dl class="facts" data-testid="sync-counts">
            <div><dt>Companies</dt><dd data-count="companies">${number(s.counts.companies)}</dd></div>
            <div><dt>Subscriptions</dt><dd data-count="subscriptions">${number(s.counts.subscriptions)}</dd></div>
            <div><dt>Invoice and order items</dt><dd data-count="items">${number(s.counts.items)}</dd></div>
          </dl>
          ${start.error ? html`<${ErrorBanner} error=${start.error} what="The distributor" />` : null}
          <div class="row">
            <button class="primary" type="button" disabled=${start.busy || running} onClick=${run}>
              ${start.busy ? 'Starting…' : running ? 'Running…' : 'Run a sync now'}</button>
            <span role="status" class="muted">${running ? 'The run is under way; this page follows it.'
              : ended ? 'The run has ended: its row is the first of the history.' : ''}</span>
          </div>
        </section>
        <section class="card" aria-labelledby="history-h">
          <header><h2 id="history-h">History</h2><span class="note">the last 10 runs, newest first</span></header>
          <${RunHistory} runs=${s.history} label="The distributor's last runs" />
        </section>`}
  </div>`;
}
