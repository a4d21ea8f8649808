// Endpoint security (SentinelOne): each site's coverage (GET /api/endpointsec/coverage), the
// console's copy and its sync (GET/POST /api/endpointsec/sync), and which PSA company each site
// belongs to (GET /api/endpointsec/company-mappings; an administrator maps with POST and removes
// with DELETE ?siteId=). Coverage is the route's: agents ÷ the company's active configuration items.
import { html } from '../lib/html.js';
import { dateTime, number } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { Confirm } from '../components/confirm.js';
import { SyncRun } from '../components/sync-run.js';
import { CompanyMapForm, VendorPending, useRemoval } from './security-common.js';

function coverageTone(c) {
  if (c === null || c === undefined) return 'neutral';
  return c >= 1 ? 'ok' : c >= 0.8 ? 'warn' : 'down';
}

function Coverage({ coverage }) {
  const rows = coverage.data;
  return html`<section class="card" aria-labelledby="cov-h">
    <header><h2 id="cov-h">Coverage</h2><span class="note">agents against the company's active configuration items in the PSA copy</span></header>
    ${!rows ? html`<${VendorPending} resource=${coverage} vendor="Endpoint security" label="coverage" />`
      : !rows.length ? html`<${Empty}>No site in the copy yet: a sync copies them.<//>`
      : html`<table class="stack-on-phone coverage" aria-labelledby="cov-h">
        <thead><tr><th scope="col">Site</th><th scope="col">Company</th><th scope="col" class="num">Licences</th>
          <th scope="col" class="num">Agents</th><th scope="col" class="num">Devices in the PSA</th><th scope="col" class="num">Coverage</th><th scope="col">Synced</th></tr></thead>
        <tbody>${rows.map((s) => html`<tr key=${s.siteId} data-site=${s.siteId}>
          <td data-label="Site" class="wrap"><strong>${s.siteName}</strong> <span class="muted small">${s.accountName || ''}${s.state && s.state !== 'active' ? ` · ${s.state}` : ''}</span></td>
          <td data-label="Company" class="wrap">${s.companyName || html`<span class="muted">not mapped</span>`}</td>
          <td data-label="Licences" class="num">${s.licenses?.unlimited ? 'unlimited' : `${number(s.licenses?.active)} of ${number(s.licenses?.total)}`}</td>
          <td data-label="Agents" class="num">${number(s.agents?.active)} active of ${number(s.agents?.total)}</td>
          <td data-label="Devices in the PSA" class="num">${s.configurationItems === null || s.configurationItems === undefined ? '—' : number(s.configurationItems)}</td>
          <td data-label="Coverage" class="num"><span class=${`badge ${coverageTone(s.coverage)}`}>${s.coverage === null || s.coverage === undefined ? 'n/a' : `${number(s.coverage * 100)} %`}</span></td>
          <td data-label="Synced">${dateTime(s.syncedAt)}</td>
        </tr>`)}</tbody>
      </table>
      <p class="muted small">Coverage n/a: the site has no company, or the company no active device in the PSA. Above 100 %: more agents than the PSA knows devices.</p>`}
  </section>`;
}

export function SecurityEndpoint({ me }) {
  const coverage = useResource('/api/endpointsec/coverage');
  const mappings = useResource('/api/endpointsec/company-mappings');
  const reload = () => { coverage.reload(); mappings.reload(); };
  const removal = useRemoval((r) => `/api/endpointsec/company-mappings?siteId=${encodeURIComponent(r.siteId)}`, reload);

  const sites = (coverage.data || []).map((s) => ({ value: s.siteId, label: s.siteName }));
  return html`<div class="stack security">
    <div class="page-head"><h1>Endpoint security</h1><span class="note">SentinelOne sites, their agents and their companies</span></div>
    <${Coverage} coverage=${coverage} />
    <div class="grid two">
      <section class="card" aria-labelledby="map-h">
        <header><h2 id="map-h">Site mappings</h2><span class="note">which PSA company a site belongs to</span></header>
        ${!mappings.data ? html`<${Pending} resource=${mappings} label="site mappings" />`
          : !mappings.data.length ? html`<${Empty}>No site is mapped to a company.<//>`
          : html`<ul class="list mappings" aria-label="Site mappings">${mappings.data.map((m) => html`<li key=${m.siteId} data-mapping=${m.siteId}>
              <div class="row spread"><span><strong>${m.siteName}</strong> → ${m.companyName}</span>
                ${me.isAdmin ? html`<button type="button" class="danger" aria-label=${`Remove the mapping of ${m.siteName}`} onClick=${() => removal.ask(m)}>Remove</button>` : null}</div>
              <div class="meta"><span>mapped ${dateTime(m.mappedAt)}</span></div></li>`)}</ul>`}
        ${removal.error ? html`<${ErrorBanner} error=${removal.error} />` : null}
        ${me.isAdmin ? html`<h3 class="sub">Map a site</h3>
          <${CompanyMapForm} id="es-map" path="/api/endpointsec/company-mappings" keyField="siteId" keyLabel="Site" keys=${sites} onSaved=${reload} />
          <p class="muted small">A site maps to one company; mapping it again replaces the company.</p>` : null}
      </section>
      <${SyncRun} path="/api/endpointsec/sync" me=${me} what="endpoint security" onFinished=${reload}
        counts=${(s) => `${number(s.sites)} sites`} />
    </div>
    <${Confirm} danger open=${!!removal.asking} title="Remove this mapping?" confirm="Remove it" onConfirm=${removal.remove} onCancel=${removal.cancel}>
      ${removal.asking ? html`<p><strong>${removal.asking.siteName}</strong> no longer belongs to ${removal.asking.companyName}: its coverage is not counted for any company until it is mapped again.</p>` : null}
    <//>
  </div>`;
}
