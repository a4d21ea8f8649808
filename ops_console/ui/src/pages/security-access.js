// The access gateway (Cloudflare Zero Trust Access): its configuration-only health row (GET
// /api/access-gateway/health: configured, the unset settings by name, switched off; no call is
// made to Cloudflare), the protected applications with who may reach them (GET
// /api/access-gateway/applications: each policy's decision and its include, exclude and require
// rules as Cloudflare writes them), and the sync that copies them (GET/POST
// /api/access-gateway/sync, components/sync-run.js; the POST is public in the spec, the page offers
// it to administrators as the other syncs).
import { html } from '../lib/html.js';
import { dateTime, number } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty } from '../components/messages.js';
import { SyncRun } from '../components/sync-run.js';
import { VendorError, VendorPending } from './security-common.js';

// A rule list as Cloudflare writes it ([{email: {email: "a@b"}}, {everyone: {}}]), in words.
function rules(list) {
  if (!list || !list.length) return null;
  return list.map((rule) => Object.entries(rule).map(([kind, value]) => {
    const detail = value && typeof value === 'object' ? Object.values(value).filter((v) => typeof v !== 'object').join(', ') : '';
    return detail ? `${kind.replace(/_/g, ' ')}: ${detail}` : kind.replace(/_/g, ' ');
  }).join(' and ')).join('; ');
}

function Health() {
  const health = useResource('/api/access-gateway/health');
  const h = health.data;
  if (!h) return html`<${VendorPending} resource=${health} vendor="Cloudflare Access" label="the health row" lines=${1} />`;
  return html`<p data-testid="access-health" role="status">
    ${h.switchedOff ? html`<span class="badge neutral">switched off</span> An administrator switched the access gateway off.`
      : h.configured ? html`<span class="badge ok">configured</span> The console has every setting it needs to ask Cloudflare.`
      : html`<span class="badge down">not configured</span> Missing: ${h.missing.map((m, i) => html`${i ? ', ' : ''}<code>${m}</code>`)}.`}
    <span class="muted small"> From the configuration alone: no call is made to show this.</span></p>`;
}

export function SecurityAccess({ me }) {
  const apps = useResource('/api/access-gateway/applications');
  const rows = apps.data;
  return html`<div class="stack security">
    <div class="page-head"><h1>Access gateway</h1><span class="note">Cloudflare Access: the protected applications and who may reach them</span></div>
    <section class="card" aria-labelledby="access-health-h">
      <header><h2 id="access-health-h">Health</h2></header>
      <${Health} />
    </section>
    <section class="card" aria-labelledby="access-apps-h">
      <header><h2 id="access-apps-h">Applications</h2>${rows ? html`<span class="note">${number(rows.length)} in the copy</span>` : null}</header>
      ${!rows ? html`<${VendorPending} resource=${apps} vendor="Cloudflare Access" label="applications" />`
        : !rows.length ? html`<${Empty}>No application in the copy yet: a sync (below) copies them.<//>`
        : html`${apps.error ? html`<${VendorError} error=${apps.error} vendor="Cloudflare Access" onRetry=${apps.reload} />` : null}
          <table class="stack-on-phone access-apps" aria-labelledby="access-apps-h">
          <thead><tr><th scope="col">Application</th><th scope="col">Domain</th><th scope="col">Type</th>
            <th scope="col">Who may reach it</th><th scope="col">Copied</th></tr></thead>
          <tbody>${rows.map((a) => html`<tr key=${a.id} data-app=${a.id}>
            <td data-label="Application" class="wrap"><strong>${a.name}</strong>${a.sessionDuration ? html` <span class="muted small">session ${a.sessionDuration}</span>` : null}</td>
            <td data-label="Domain" class="wrap">${a.domain || '—'}</td>
            <td data-label="Type">${a.type || '—'}</td>
            <td data-label="Who may reach it" class="wrap">${a.policies.length ? html`<ul class="policies">${a.policies.map((p) => html`<li key=${p.id} data-policy=${p.id}>
              <span class=${`badge ${p.decision === 'allow' ? 'ok' : p.decision === 'deny' ? 'down' : 'neutral'}`}>${p.decision}</span> ${p.name}
              ${rules(p.include) ? html`<span class="muted small"> · include ${rules(p.include)}</span>` : null}
              ${rules(p.exclude) ? html`<span class="muted small"> · exclude ${rules(p.exclude)}</span>` : null}
              ${rules(p.require) ? html`<span class="muted small"> · require ${rules(p.require)}</span>` : null}</li>`)}</ul>`
              : html`<span class="muted">no policy: nobody</span>`}</td>
            <td data-label="Copied"><time datetime=${a.syncedAt}>${dateTime(a.syncedAt)}</time></td>
          </tr>`)}</tbody>
        </table>`}
    </section>
    <${SyncRun} path="/api/access-gateway/sync" me=${me} what="the access gateway" onFinished=${apps.reload}
      counts=${(s) => `${number(s.applications)} applications`} />
  </div>`;
}
