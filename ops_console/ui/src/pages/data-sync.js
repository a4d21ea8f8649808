// The PSA sync's state and its routes (ops_console/README.md, "The PSA: sync, reconciliation and
// webhooks"): whether the PSA can be reached is what GET /api/sync/classifications answers (the
// picklist; 403 while the integration is switched off, 503 while it is not configured); the
// schedule's runs are the sync-scheduler worker of GET /api/status/workers. Starting an
// incremental sync (POST /api/sync/incremental), reconciling tickets (POST
// /api/sync/reconcile-tickets) and, for administrators, re-reading the picklists (POST
// /api/sync/classifications) each say what the route answered next to their button.
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { number, time } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { Buckets } from '../components/charts.js';
import { useAction } from '../components/form.js';

function sentence(text) {
  const s = String(text || '');
  return s ? `${s.charAt(0).toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? '' : '.'}` : '';
}

// What a refusal of the PSA's routes means, in words (the route's own detail after it).
function refusal(error) {
  if (error.status === 403) return 'Switched off (Admin, Integrations).';
  if (error.status === 503) return 'Not available.';
  if (error.status === 409) return 'Already running.';
  return null;
}

function Refusal({ error, onRetry }) {
  const words = refusal(error);
  if (!words) return html`<${ErrorBanner} error=${error} onRetry=${onRetry} />`;
  return html`<div class="banner warn" role="alert"><div><strong>${words}</strong> <span>${sentence(error.problem.detail)}</span></div></div>`;
}

function Connection({ me }) {
  const picklist = useResource('/api/sync/classifications');
  const refresh = useAction();
  const reread = () => refresh.run('classifications', () => api.post('/api/sync/classifications'), (list) => {
    picklist.reload();
    return `Re-read from the PSA: ${list.length} ${list.length === 1 ? 'classification' : 'classifications'}.`;
  });
  let body;
  if (picklist.data) {
    body = html`<p><span class="badge ok">reachable</span> The PSA answers; its company classifications:</p>
      ${picklist.data.length ? html`<ul class="plain" data-testid="classifications">${picklist.data.map((c) => html`<li key=${c.id}>
        ${c.label} <span class="muted small">id ${c.id}${c.is_active ? '' : ', inactive'}</span></li>`)}</ul>`
        : html`<${Empty}>The PSA has no company classification.<//>`}`;
  } else if (picklist.error && refusal(picklist.error)) {
    body = html`<div data-testid="psa-state"><${Refusal} error=${picklist.error} /></div>`;
  } else {
    body = html`<${Pending} resource=${picklist} label="the PSA's state" lines=${2} />`;
  }
  return html`<section class="card" aria-labelledby="sync-psa-h">
    <header><h2 id="sync-psa-h">The PSA</h2></header>
    ${body}
    ${me.isAdmin ? html`<div class="row">
      <button type="button" disabled=${!!refresh.busy} onClick=${reread}>${refresh.busy ? 'Re-reading…' : 'Re-read the picklists'}</button>
    </div>
    <div role="status" class="small">${refresh.done ? html`<span class="ok-text">${refresh.done}</span>` : ''}</div>
    ${refresh.error ? html`<${Refusal} error=${refresh.error} />` : null}` : null}
  </section>`;
}

function Run({ id, title, about, button, busyText, request, outcome }) {
  const act = useAction();
  return html`<div class="sync-run" data-testid=${id}>
    <h3>${title}</h3>
    <p class="muted small">${about}</p>
    <div class="row"><button type="button" disabled=${!!act.busy} onClick=${() => act.run(id, request, outcome)}>
      ${act.busy ? busyText : button}</button></div>
    <div role="status" class="small">${act.done ? html`<span class="ok-text">${act.done}</span> <span class="muted">${time(new Date().toISOString())}</span>` : ''}</div>
    ${act.error ? html`<${Refusal} error=${act.error} />` : null}
  </div>`;
}

function Scheduler() {
  const workers = useResource('/api/status/workers', { refreshMs: 60000 });
  const w = workers.data?.workers.find((x) => x.name === 'sync-scheduler');
  return html`<section class="card" aria-labelledby="sync-sched-h">
    <header><h2 id="sync-sched-h">The schedule's runs</h2><span class="note">every sync's runs, the last 24 hours by UTC hour</span></header>
    ${!workers.data ? html`<${Pending} resource=${workers} label="the sync's runs" lines=${2} />`
      : !w ? html`<${Empty}>The console reports no sync worker.<//>`
      : !w.configured ? html`<${Empty}>No sync has run on this console yet.<//>`
      : html`<dl class="facts" data-testid="scheduler">
          <div><dt>State</dt><dd><span class=${`badge ${w.status}`}>${w.status}</span></dd></div>
          <div><dt>Running now</dt><dd>${number(w.inFlight)}</dd></div>
          <div><dt>Failed in the last hour</dt><dd>${number(w.failuresLastHour)}</dd></div>
        </dl>
        <${Buckets} label="Sync runs by UTC hour" buckets=${w.activity24h} hour=${(b) => `${String(b.hour).slice(11, 16)} UTC`} />`}
  </section>`;
}

export function DataSync({ me }) {
  return html`<div class="stack data-page">
    <div class="page-head"><h1>PSA sync</h1><span class="note">the copy of the PSA the console keeps</span></div>
    <div class="grid two">
      <${Connection} me=${me} />
      <${Scheduler} />
    </div>
    <section class="card" aria-labelledby="sync-runs-h">
      <header><h2 id="sync-runs-h">Run now</h2><span class="note">one run at a time across every instance</span></header>
      <div class="grid two">
        <${Run} id="incremental" title="Incremental sync" button="Start an incremental sync" busyText="Starting…"
          about="Reads what changed in the PSA since the last run, in the background."
          request=${() => api.post('/api/sync/incremental')} outcome=${() => 'Started: the sync runs in the background.'} />
        <${Run} id="reconcile" title="Ticket reconciliation" button="Reconcile tickets" busyText="Reconciling…"
          about="Fetches again the open tickets not synced for 7 days (500 at most), and soft-deletes those the PSA no longer has."
          request=${() => api.post('/api/sync/reconcile-tickets')}
          outcome=${(r) => `Done: ${number(r.scanned)} scanned, ${number(r.updated)} updated (${number(r.statusFlippedToComplete)} now complete), ${number(r.softDeleted)} deleted, ${number(r.errors)} errors.`} />
      </div>
    </section>
  </div>`;
}
