// Pipeline executions (ops_console/README.md "Pipeline executions": GET
// /api/admin/pipeline-executions?fallbacks_only&pipeline_id&limit), newest first. The filters live
// in the fragment's query (#/admin/pipeline?fallbacks=true&pipeline=7), so a reload keeps them; a
// pipeline id the route refuses gets its message under the input. Each run's output is shown as the
// route gives it, folded.
import { html, useResetWith, useState } from '../lib/html.js';
import { withQuery } from '../lib/api.js';
import { dateTime, number } from '../lib/format.js';
import { navigate } from '../lib/router.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, FieldError, Pending } from '../components/messages.js';
import { describedBy } from '../components/form.js';

const LIMITS = [50, 100, 500];

function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${number(ms)} ms`;
  if (ms < 60000) return `${number(ms / 1000, 1)} s`;
  return `${number(ms / 60000, 1)} min`;
}

function write(f) {
  navigate('/admin/pipeline', { ...(f.fallbacks && { fallbacks: 'true' }), ...(f.pipeline && { pipeline: f.pipeline }),
    ...(f.limit !== 100 && { limit: String(f.limit) }) }, { replace: true });
}

export function AdminPipeline({ query }) {
  const limit = LIMITS.includes(Number(query.get('limit'))) ? Number(query.get('limit')) : 100;
  const f = { fallbacks: query.get('fallbacks') === 'true', pipeline: (query.get('pipeline') || '').trim(), limit };
  const [typed, setTyped] = useState(f.pipeline);
  useResetWith(() => setTyped(f.pipeline), [f.pipeline]);
  const runs = useResource(withQuery('/api/admin/pipeline-executions', {
    fallbacks_only: f.fallbacks ? 'true' : '', pipeline_id: f.pipeline, limit: f.limit,
  }));
  const pipelineError = runs.error?.status === 400 ? runs.error.fields.pipeline_id : null;
  const items = runs.data?.items;
  return html`<div class="stack admin-page">
    <div class="page-head"><h1>Pipeline executions</h1><span class="note">the analyzer's and the workflows' runs, newest first; times in your zone</span></div>
    <section class="card" aria-labelledby="pl-h">
      <header><h2 id="pl-h">Runs</h2></header>
      <form class="row filter-row" aria-label="Filters" onSubmit=${(e) => { e.preventDefault(); write({ ...f, pipeline: typed.trim() }); }}>
        <div class="field">
          <label for="pl-pipeline">Pipeline id</label>
          <input id="pl-pipeline" type="text" inputmode="numeric" value=${typed} autocomplete="off" onInput=${(e) => setTyped(e.currentTarget.value)}
            aria-invalid=${pipelineError ? 'true' : null} aria-describedby=${describedBy('pl-pipeline', true, pipelineError)} />
          <div class="hint" id="pl-pipeline-hint">Empty: every pipeline. Enter applies it.</div>
          <${FieldError} id="pl-pipeline-error" message=${pipelineError} />
        </div>
        <div class="field">
          <label for="pl-limit">Show</label>
          <select id="pl-limit" value=${String(f.limit)} onChange=${(e) => write({ ...f, limit: Number(e.currentTarget.value) })}>
            ${LIMITS.map((n) => html`<option key=${n} value=${String(n)}>${n} newest</option>`)}
          </select>
        </div>
        <label class="chip toggle"><input type="checkbox" checked=${f.fallbacks} onChange=${(e) => write({ ...f, fallbacks: e.currentTarget.checked })} />Only fallbacks</label>
        <button type="submit">Apply</button>
      </form>
      <p class="muted small">A fallback is a run whose output has <code>user_route_fallback</code>: it took the user's route instead of its own.</p>
      ${pipelineError ? null : items === undefined ? html`<${Pending} resource=${runs} label="pipeline executions" />`
        : html`${runs.error ? html`<${ErrorBanner} error=${runs.error} onRetry=${runs.reload} />` : null}
          ${!items.length ? html`<${Empty}>${f.fallbacks || f.pipeline ? 'No run matches these filters.' : 'No pipeline has run yet.'}<//>`
          : html`<table class="stack-on-phone" data-testid="pipeline-runs">
            <caption class="visually-hidden">Pipeline executions, newest first</caption>
            <thead><tr><th scope="col">Run</th><th scope="col">Pipeline</th><th scope="col">Ticket</th><th scope="col">Status</th>
              <th scope="col">Started</th><th scope="col" class="num">Took</th><th scope="col">Output</th></tr></thead>
            <tbody>${items.map((r) => html`<tr key=${r.id} data-run=${r.id}>
              <th scope="row" class="mono">${r.id}</th>
              <td data-label="Pipeline"><span class="mono">${r.pipeline_id}</span></td>
              <td data-label="Ticket"><span class="mono">${r.ticket_id ?? '—'}</span></td>
              <td data-label="Status"><span><span class=${`badge ${r.status === 'succeeded' ? 'ok' : r.status === 'failed' ? 'down' : 'warn'}`}>${r.status}</span>${r.has_fallback ? html` <span class="badge warn">fallback</span>` : null}</span></td>
              <td data-label="Started"><time datetime=${r.started_at}>${dateTime(r.started_at)}</time></td>
              <td data-label="Took" class="num">${duration(r.duration_ms)}</td>
              <td data-label="Output" class="detail">${r.error ? html`<div class="error-text">${r.error}</div>` : null}
                ${r.output_data !== null && r.output_data !== undefined ? html`<details><summary>Output <span class="visually-hidden">of run ${r.id}</span></summary>
                  <pre class="message">${JSON.stringify(r.output_data, null, 2)}</pre></details>` : null}</td>
            </tr>`)}</tbody>
          </table>`}
          <p class="muted small" role="status">${`${items.length} ${items.length === 1 ? 'run' : 'runs'} shown${items.length === runs.data.limit ? `, the ${runs.data.limit} newest: older ones are not listed` : ''}.`}</p>`}
    </section>
  </div>`;
}
