// Backup (Datto BCDR): a company's protected machines and shares (GET /api/backup/companies/{id}/
// machines), the failed backups of the last 24 hours (GET /api/backup/failures), the company
// mappings of client names and the ones no company matches (GET /api/backup/company-mappings;
// an administrator maps with POST, removes with DELETE ?clientName=), and the copy's sync
// (GET/POST /api/backup/sync). The chosen company is kept in the fragment's query (?company=).
import { html } from '../lib/html.js';
import { dateTime, number } from '../lib/format.js';
import { navigate } from '../lib/router.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { Confirm } from '../components/confirm.js';
import { SyncRun } from '../components/sync-run.js';
import { useShowMore } from '../components/show-more.js';
import { CompanyMapForm, useRemoval } from './security-common.js';

function Machines({ companyId }) {
  const machines = useResource(companyId ? `/api/backup/companies/${companyId}/machines` : null);
  if (!companyId) return html`<p class="state">Choose a company to see its machines.</p>`;
  const rows = machines.data;
  if (!rows) return html`<${Pending} resource=${machines} label="machines" />`;
  if (!rows.length) return html`<${Empty}>No machine or share of this company is protected (or none is matched to it).<//>`;
  return html`<table class="stack-on-phone machines" aria-label="Protected machines and shares">
    <thead><tr><th scope="col">Machine</th><th scope="col">Appliance</th><th scope="col">Last backup</th><th scope="col">Last good backup</th>
      <th scope="col">Status</th><th scope="col">Screenshot</th></tr></thead>
    <tbody>${rows.map((m) => html`<tr key=${`${m.deviceSerial}-${m.name}`} data-machine=${m.name}>
      <td data-label="Machine" class="wrap"><strong>${m.name}</strong> <span class="muted small">${m.kind}${m.os ? ` · ${m.os}` : ''}${m.paused ? ' · paused' : ''}${m.archived ? ' · archived' : ''}</span></td>
      <td data-label="Appliance" class="wrap">${m.deviceName}</td>
      <td data-label="Last backup">${m.lastBackupAt ? html`<time datetime=${m.lastBackupAt}>${dateTime(m.lastBackupAt)}</time>` : 'never'}</td>
      <td data-label="Last good backup">${m.lastGoodBackupAt ? html`<time datetime=${m.lastGoodBackupAt}>${dateTime(m.lastGoodBackupAt)}</time>` : 'never'}</td>
      <td data-label="Status" class="wrap">${m.lastBackupStatus ? html`<span class=${`badge ${m.lastBackupStatus === 'succeeded' ? 'ok' : 'down'}`}>${m.lastBackupStatus}</span>` : '—'}
        ${m.lastBackupError ? html` <span class="error-text small">${m.lastBackupError}</span>` : null}</td>
      <td data-label="Screenshot">${m.screenshot?.at ? html`${m.screenshot.ok ? 'verified' : 'failed'} ${dateTime(m.screenshot.at)}` : '—'}</td>
    </tr>`)}</tbody>
  </table>`;
}

function Failures() {
  const failures = useResource('/api/backup/failures');
  const rows = failures.data;
  const more = useShowMore(rows);
  return html`<section class="card" aria-labelledby="fail-h">
    <header><h2 id="fail-h">Failed backups, last 24 hours</h2><span class="note">latest first</span>
      ${rows ? html`<span class="badge ${rows.length ? 'down' : 'ok'}" data-testid="failure-count">${number(rows.length)}</span>` : null}</header>
    ${!rows ? html`<${Pending} resource=${failures} label="failed backups" />`
      : !rows.length ? html`<${Empty}>No backup failed in the last 24 hours.<//>`
      : html`<table class="stack-on-phone failures" aria-labelledby="fail-h">
        <thead><tr><th scope="col">Finished</th><th scope="col">Machine</th><th scope="col">Company</th><th scope="col">Error</th></tr></thead>
        <tbody>${more.rows.map((f) => html`<tr key=${f.id} data-failure=${f.id}>
          <td data-label="Finished"><time datetime=${f.finishedAt}>${dateTime(f.finishedAt)}</time></td>
          <td data-label="Machine" class="wrap">${f.machine} <span class="muted small">${f.deviceName}</span></td>
          <td data-label="Company" class="wrap">${f.companyName || html`<span class="muted">no company</span>`}</td>
          <td data-label="Error" class="wrap error-text">${f.error || '—'}</td>
        </tr>`)}</tbody>
      </table>${more.controls}`}
  </section>`;
}

export function SecurityBackup({ me, query }) {
  const companyId = query.get('company') || '';
  const companies = useResource('/api/data/companies-list');
  const mappings = useResource('/api/backup/company-mappings');
  const m = mappings.data;
  const removal = useRemoval((r) => `/api/backup/company-mappings?clientName=${encodeURIComponent(r.clientName)}`, mappings.reload);

  return html`<div class="stack security">
    <div class="page-head"><h1>Backup</h1><span class="note">Datto appliances, what they protect, and how the last backups went</span></div>
    <section class="card" aria-labelledby="machines-h">
      <header><h2 id="machines-h">Protected machines</h2><span class="note">per company</span></header>
      <div class="field company-pick">
        <label for="backup-company">Company</label>
        ${companies.data ? html`<select id="backup-company" value=${companyId}
            onChange=${(e) => navigate('/security/backup', e.currentTarget.value ? { company: e.currentTarget.value } : {}, { replace: true })}>
            <option value="">Choose a company</option>
            ${companies.data.map((c) => html`<option key=${c.id} value=${String(c.id)}>${c.company_name}</option>`)}
          </select>` : html`<${Pending} resource=${companies} label="companies" lines=${1} />`}
      </div>
      <${Machines} companyId=${companyId} />
    </section>
    <${Failures} />
    <div class="grid two">
      <section class="card" aria-labelledby="bmap-h">
        <header><h2 id="bmap-h">Company mappings</h2><span class="note">client names no PSA company's name matches</span></header>
        ${!m ? html`<${Pending} resource=${mappings} label="company mappings" />` : html`
          <h3 class="sub">Unmatched</h3>
          ${!m.unmatched.length ? html`<${Empty}>Every appliance's client name matches a company.<//>`
            : html`<ul class="list unmatched" aria-label="Unmatched client names">${m.unmatched.map((u) => html`<li key=${u.clientName} data-unmatched=${u.clientName}>
                <span class="title">${u.clientName}</span> <span class="muted">${number(u.devices)} ${u.devices === 1 ? 'appliance' : 'appliances'}</span></li>`)}</ul>`}
          <h3 class="sub">Mapped</h3>
          ${!m.mappings.length ? html`<${Empty}>No client name is mapped by hand.<//>`
            : html`<ul class="list mappings" aria-label="Mapped client names">${m.mappings.map((x) => html`<li key=${x.clientName} data-mapping=${x.clientName}>
                <div class="row spread"><span><strong>${x.clientName}</strong> → ${x.companyName}</span>
                  ${me.isAdmin ? html`<button type="button" class="danger" aria-label=${`Remove the mapping of ${x.clientName}`} onClick=${() => removal.ask(x)}>Remove</button>` : null}</div>
                <div class="meta"><span>mapped ${dateTime(x.mappedAt)}</span></div></li>`)}</ul>`}
          ${removal.error ? html`<${ErrorBanner} error=${removal.error} />` : null}
          ${me.isAdmin ? html`<h3 class="sub">Map a client name</h3>
            <${CompanyMapForm} id="bk-map" path="/api/backup/company-mappings" keyField="clientName" keyLabel="Client name"
              keys=${[...m.unmatched.map((u) => u.clientName), ...m.mappings.map((x) => x.clientName)].map((n) => ({ value: n, label: n }))}
              onSaved=${mappings.reload} />` : null}`}
      </section>
      <${SyncRun} path="/api/backup/sync" me=${me} what="backup" onFinished=${mappings.reload}
        counts=${(s) => `${number(s.devices)} appliances, ${number(s.assets)} machines and shares, ${number(s.unmatched)} appliances without a company`} />
    </div>
    <${Confirm} danger open=${!!removal.asking} title="Remove this mapping?" confirm="Remove it" onConfirm=${removal.remove} onCancel=${removal.cancel}>
      ${removal.asking ? html`<p>The appliances of <strong>${removal.asking.clientName}</strong> no longer belong to ${removal.asking.companyName} by this mapping: they fall back to the company whose name matches, or to none.</p>` : null}
    <//>
  </div>`;
}
