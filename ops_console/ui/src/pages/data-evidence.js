// Uploaded log evidence (ops_console/README.md, "Log evidence"): GET /api/log-evidence, the 500
// newest records without their bytes, each with a download link to GET
// /api/log-evidence/{id}/content, which the console always sends as an attachment (never shown
// inline, whatever type was uploaded). Companies are named from GET /api/data/companies-list. A
// filter narrows the list in the page (by file name, ticket, company or source); 50 rows are shown
// at a time.
import { html, useMemo, useState } from '../lib/html.js';
import { dateTime, number } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, Pending } from '../components/messages.js';

const STEP = 50;

// 2048 → "2 KB" (binary units, as a file manager shows a size).
export function bytes(n) {
  if (n < 1024) return `${number(n)} B`;
  if (n < 1024 * 1024) return `${number(n / 1024, n < 10240 ? 1 : 0)} KB`;
  return `${number(n / (1024 * 1024), 1)} MB`;
}

export function DataEvidence() {
  const records = useResource('/api/log-evidence');
  const companies = useResource('/api/data/companies-list');
  const [filter, setFilter] = useState('');
  const [shown, setShown] = useState(STEP);
  const names = useMemo(() => new Map((companies.data || []).map((c) => [c.id, c.company_name])), [companies.data]);
  const company = (id) => (id === null ? '—' : names.get(id) || `company ${id}`);
  const words = filter.trim().toLowerCase();
  const matching = (records.data || []).filter((r) => !words
    || [r.fileName, r.ticketId, r.companyId !== null ? company(r.companyId) : '', r.tokenName, r.contentType]
      .some((v) => String(v ?? '').toLowerCase().includes(words)));
  const rows = matching.slice(0, shown);
  return html`<div class="stack data-page">
    <div class="page-head"><h1>Log evidence</h1><span class="note">files that scripts and tools uploaded for a ticket or a company; a download is always saved, never opened in the browser</span></div>
    <section class="card" aria-labelledby="ev-h">
      <header><h2 id="ev-h">Uploads</h2><span class="note">newest first, the 500 newest; kept for the retention period, then deleted</span></header>
      <form role="search" class="search" onSubmit=${(e) => e.preventDefault()}>
        <label for="ev-filter">Filter</label>
        <input id="ev-filter" type="search" value=${filter} placeholder="File name, ticket, company or source" aria-describedby="ev-filter-hint"
          onInput=${(e) => { setFilter(e.currentTarget.value); setShown(STEP); }} />
        <div class="hint" id="ev-filter-hint">Narrows the list below as you type.</div>
      </form>
      ${!records.data ? html`<${Pending} resource=${records} label="log evidence" />`
        : !records.data.length ? html`<${Empty}>Nothing has been uploaded yet. An administrator makes an upload token (Admin, Upload tokens) for each script or tool that uploads.<//>`
        : !rows.length ? html`<${Empty}>No upload matches “${filter.trim()}”.<//>`
        : html`<table class="stack-on-phone" data-testid="evidence">
            <caption class="visually-hidden">Uploaded log evidence</caption>
            <thead><tr><th scope="col">File</th><th scope="col" class="num">Size</th><th scope="col">Ticket</th><th scope="col">Company</th>
              <th scope="col">Source</th><th scope="col">Uploaded</th><th scope="col">SHA-256</th></tr></thead>
            <tbody>${rows.map((r) => html`<tr key=${r.id} data-evidence=${r.id}>
              <th scope="row" class="wrap"><span><a href=${`/api/log-evidence/${r.id}/content`} download=${r.fileName}
                aria-label=${`Download ${r.fileName}`}>${r.fileName}</a> <span class="muted small">${r.contentType}</span></span></th>
              <td data-label="Size" class="num">${bytes(r.size)}</td>
              <td data-label="Ticket"><span class="mono">${r.ticketId ?? '—'}</span></td>
              <td data-label="Company">${company(r.companyId)}</td>
              <td data-label="Source">${r.tokenName}</td>
              <td data-label="Uploaded"><time datetime=${r.uploadedAt}>${dateTime(r.uploadedAt)}</time></td>
              <td data-label="SHA-256"><span class="mono" title=${r.sha256}>${r.sha256.slice(0, 12)}…</span></td>
            </tr>`)}</tbody>
          </table>`}
      ${records.data && records.data.length ? html`<div class="list-foot">
        <span class="muted" role="status">${`${rows.length} of ${matching.length} ${matching.length === 1 ? 'upload' : 'uploads'}${words ? ' matching' : ''} shown`}</span>
        ${matching.length > rows.length ? html`<button type="button" onClick=${() => setShown(shown + STEP)}>Show ${Math.min(STEP, matching.length - rows.length)} more</button>` : null}
      </div>` : null}
    </section>
  </div>`;
}
