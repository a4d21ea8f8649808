// A vendor copy's sync as GET <path> gives it ({inProgress, history: [sync_history_json]}, plus the
// copy's counts) and, for an administrator, "Start a sync" (POST <path>: 202, or the route's 409
// while a run is under way, 403 switched off, 503 not configured). While a run is under way the
// state is asked again every 2 s; onFinished is called when a run the card saw ends.
//
//   <${SyncRun} path="/api/endpointsec/sync" me=${me} what="endpoint security"
//      counts=${(s) => `${s.sites} sites`} onFinished=${reloadLists} />
import { html, useEffect, useRef, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime, number } from '../lib/format.js';
import { useResource } from './resource.js';
import { ErrorBanner, Pending } from './messages.js';

function countsText(counts) {
  const entries = Object.entries(counts || {}).filter(([, v]) => typeof v === 'number');
  return entries.map(([k, v]) => `${number(v)} ${k}`).join(', ');
}

export function SyncRun({ path, me, what, counts, onFinished }) {
  const state = useResource(path);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const running = useRef(false);
  const s = state.data;

  useEffect(() => {
    if (!s) return undefined;
    if (s.inProgress) {
      running.current = true;
      const timer = setTimeout(state.reload, 2000);
      return () => clearTimeout(timer);
    }
    if (running.current) {
      running.current = false;
      onFinished?.();
    }
    return undefined;
  }, [s, state.at]);

  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.post(path);
      running.current = true;
      await state.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const last = s?.history?.[0];
  return html`<section class="card sync-run" aria-labelledby=${`${path}-h`}>
    <header><h2 id=${`${path}-h`}>Sync</h2><span class="note">the console's copy of ${what}</span></header>
    ${!s ? html`<${Pending} resource=${state} label=${`the ${what} sync`} lines=${1} />` : html`
      ${state.error ? html`<${ErrorBanner} error=${state.error} onRetry=${state.reload} what=${what} />` : null}
      <p data-testid="sync-state" role="status">
        ${s.inProgress ? html`<span class="badge warn">running</span> A sync is under way.`
          : last ? html`<span class=${`badge ${last.status === 'succeeded' ? 'ok' : last.status === 'failed' ? 'down' : 'neutral'}`}>${last.status}</span>
            Last run started ${dateTime(last.startedAt)}${last.finishedAt ? html`, ended ${dateTime(last.finishedAt)}` : null}.`
          : 'No sync has run yet.'}
      </p>
      ${last?.error && !s.inProgress ? html`<p class="error-text">${last.error}</p>` : null}
      ${counts ? html`<p class="muted">In the copy: ${counts(s)}.</p>` : last?.counts ? html`<p class="muted">${countsText(last.counts)}</p>` : null}
      ${me.isAdmin ? html`<div class="row">
        <button type="button" onClick=${start} disabled=${busy || s.inProgress}>${s.inProgress ? 'Sync running…' : busy ? 'Starting…' : 'Start a sync'}</button>
      </div>` : null}
      ${error ? html`<${ErrorBanner} error=${error} what=${what} />` : null}`}
  </section>`;
}
