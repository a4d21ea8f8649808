// Accounting (Xero): the connection's state (GET /api/accounting/status), and for administrators
// connecting (POST /api/accounting/auth, then the browser goes to the consent page, whose callback
// sends it back here with `connected=1` or `error` and `detail` in the fragment's query), a sync
// (POST /api/accounting/sync {full}) followed until it ends, and disconnecting (POST
// /api/accounting/disconnect, after a confirmation that says what goes and what stays). Under it
// the finance summary (GET /api/accounting/summary: payments to the user's today, receivables by
// age, the most overdue, revenue per UTC month), in the organisation's currency.
import { html, useEffect, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { compact, dateTime, day, money, month, number } from '../lib/format.js';
import { navigate } from '../lib/router.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { Confirm } from '../components/confirm.js';
import { BarChart, DataTable } from '../components/charts.js';
import { TableWrap } from '../components/table.js';
import { countsText } from './distributor-sync.js';

const POLL_MS = 3000;
const BUCKETS = {
  current: 'Not due yet', '1-30': '1 to 30 days overdue', '31-60': '31 to 60 days overdue',
  '61-90': '61 to 90 days overdue', '91-120': '91 to 120 days overdue', 'over-120': 'More than 120 days overdue',
};

// The callback's refusals by the field it names (README "Accounting"); others say only their detail.
const REFUSALS = {
  error: 'The consent was refused',
  state: 'The consent could not be tied to this session (used, expired, or asked by another)',
  code: 'Xero did not accept the consent',
};

// What the consent's round trip left in the fragment's query.
function Outcome({ query }) {
  const connected = query.get('connected') === '1';
  const error = query.get('error');
  if (!connected && !error) return null;
  const dismiss = () => navigate('/distributor/accounting', null, { replace: true });
  return html`<div class=${`banner ${connected ? 'info' : 'error'}`} role=${connected ? 'status' : 'alert'} data-testid="outcome">
    <div>${connected ? html`<strong>Xero is connected.</strong> Run a sync to copy its invoices, payments and contacts.`
      : html`<strong>Xero was not connected.</strong> <span>${REFUSALS[error] ? `${REFUSALS[error]}: ` : ''}${query.get('detail')
        || 'no detail given'}. Nothing was stored; connect again to retry.</span>`}</div>
    <button type="button" onClick=${dismiss}>Dismiss</button>
  </div>`;
}

function Status({ s }) {
  if (!s.configured) {
    return html`<p data-testid="not-configured">The accounting app is not configured on this console (ACCOUNTING_CLIENT_ID,
      ACCOUNTING_CLIENT_SECRET and ACCOUNTING_REDIRECT_URI are unset): nothing can be connected.</p>`;
  }
  if (!s.connected) return html`<p data-testid="not-connected">No Xero organisation is connected.</p>`;
  return html`<dl class="facts" data-testid="connection">
    <div><dt>Organisation</dt><dd data-fact="tenant">${s.tenantName}</dd></div>
    <div><dt>Base currency</dt><dd>${s.baseCurrency || 'known after the first sync'}</dd></div>
    <div><dt>Connected</dt><dd><time datetime=${s.connectedAt}>${dateTime(s.connectedAt)}</time></dd></div>
    <div><dt>Token refreshed</dt><dd>${s.lastRefreshAt ? html`<time datetime=${s.lastRefreshAt}>${dateTime(s.lastRefreshAt)}</time>` : 'not yet'}</dd></div>
    <div><dt>Invoices</dt><dd data-count="invoices">${number(s.counts?.invoices)}</dd></div>
    <div><dt>Payments</dt><dd data-count="payments">${number(s.counts?.payments)}</dd></div>
    <div><dt>Contacts</dt><dd data-count="contacts">${number(s.counts?.contacts)}</dd></div>
  </dl>`;
}

function LastSync({ s }) {
  const h = s.lastSync;
  if (s.inProgress) return html`<p class="muted" data-testid="last-sync">A sync is under way; this page follows it.</p>`;
  if (!h) return html`<p class="muted" data-testid="last-sync">No sync has run yet.</p>`;
  return html`<div data-testid="last-sync" data-run=${h.id} class="last-sync">
    <p>Last sync (${h.kind}) <span class=${`badge ${h.status === 'failed' ? 'down' : h.status === 'succeeded' ? 'ok' : 'warn'}`}>${h.status}</span>:
      started <time datetime=${h.startedAt}>${dateTime(h.startedAt)}</time>${h.finishedAt ? html`, ended <time datetime=${h.finishedAt}>${dateTime(h.finishedAt)}</time>` : null}.</p>
    <p class="small muted">Read: ${countsText(h.counts)}</p>
    ${h.error ? html`<p class="error-text">${h.error}</p>` : null}</div>`;
}

function Actions({ s, onChanged, onPoll }) {
  const [busy, setBusy] = useState(null);
  const [error, setError] = useState(null);
  const [done, setDone] = useState('');
  const [full, setFull] = useState(false);
  const [asking, setAsking] = useState(false);

  const act = async (what, call) => {
    setBusy(what);
    setError(null);
    setDone('');
    try {
      setDone(await call());
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
      onChanged();
    }
  };
  // To the consent page; its callback brings the browser back here (nothing to reload meanwhile).
  const connect = async () => {
    setBusy('connect');
    setError(null);
    setDone('');
    try {
      window.location.assign((await api.post('/api/accounting/auth')).authorizeUrl);
    } catch (e) {
      setError(e);
      setBusy(null);
    }
  };
  const sync = () => act('sync', async () => {
    const out = await api.post('/api/accounting/sync', { full });
    onPoll();
    return `Sync started (${out.full ? 'full: everything read again' : 'incremental: what changed since the last'}).`;
  });
  const disconnect = () => act('disconnect', async () => {
    const out = await api.post('/api/accounting/disconnect');
    return out.removedUpstream ? 'Disconnected: the connection is removed at Xero and here.'
      : 'Disconnected here; Xero had no such connection any more.';
  });

  return html`<div class="stack">
    ${error ? html`<${ErrorBanner} error=${error} what="Accounting" />` : null}
    <div class="row">
      <button class=${s.connected && !s.needsReconnect ? '' : 'primary'} type="button" disabled=${!!busy || !s.configured}
        onClick=${connect}>${s.connected ? 'Connect again' : 'Connect Xero'}</button>
      ${s.connected && !s.needsReconnect ? html`
        <label class="check"><input type="checkbox" checked=${full} onChange=${(e) => setFull(e.currentTarget.checked)} />Read everything again (full)</label>
        <button class="primary" type="button" disabled=${!!busy || s.inProgress} onClick=${sync}>${s.inProgress ? 'Syncing…' : 'Sync now'}</button>` : null}
      ${s.connected ? html`<button class="danger" type="button" disabled=${!!busy}
        onClick=${() => setAsking(true)}>Disconnect</button>` : null}
    </div>
    ${s.connected ? html`<p class="small muted">Connecting again replaces the connection with the organisation you consent to.</p>` : null}
    <p role="status" class="muted">${busy === 'connect' ? 'Asking for the consent page…' : busy ? 'Working…' : done}</p>
    <${Confirm} danger id="disconnect" open=${asking} title=${`Disconnect ${s.tenantName || 'Xero'}?`} confirm="Disconnect"
      cancel="Keep the connection" onConfirm=${() => { setAsking(false); disconnect(); }} onCancel=${() => setAsking(false)}>
      <p>The connection is removed at Xero and its tokens are deleted here. The copied invoices, payments and contacts
        stay, but no sync can run until an administrator connects again.</p>
    <//>
  </div>`;
}

function Finance({ f }) {
  const c = f.currency;
  const total = f.aging.reduce((sum, b) => sum + Number(b.amount || 0), 0);
  return html`<section class="stack" aria-labelledby="finance-h" data-testid="finance">
    <div class="page-head"><h2 id="finance-h">Finance summary</h2><span class="note">in ${c || 'the organisation’s currency'}; to ${day(f.today)}, your day</span></div>
    <div class="grid kpis">
      <div class="card kpi" data-kpi="paymentsMonthToDate"><div class="label">Payments, month to date</div><div class="value">${money(f.paymentsMonthToDate, c)}</div></div>
      <div class="card kpi" data-kpi="paymentsYearToDate"><div class="label">Payments, year to date</div><div class="value">${money(f.paymentsYearToDate, c)}</div></div>
    </div>
    <section class="card" aria-labelledby="aging-h">
      <header><h3 id="aging-h">Open receivables by age</h3><span class="note">${money(total, c)} in all; days past the due date, to your today</span></header>
      <${TableWrap} label="Open receivables by age"><table class="stack-on-phone" data-testid="aging">
        <thead><tr><th scope="col">Age</th><th scope="col" class="num">Invoices</th><th scope="col" class="num">Amount</th>
          <th scope="col" class="num">Most overdue</th></tr></thead>
        <tbody>${f.aging.map((b) => html`<tr key=${b.key} data-bucket=${b.key}>
          <th scope="row">${BUCKETS[b.key] || b.key}</th>
          <td data-label="Invoices" class="num">${number(b.invoices)}</td>
          <td data-label="Amount" class="num amount">${money(b.amount, c)}</td>
          <td data-label="Most overdue" class="num">${b.key === 'current' || !b.invoices ? '—' : `${number(b.maxDaysOverdue)} days`}</td>
        </tr>`)}</tbody>
      </table><//>
    </section>
    <section class="card" aria-labelledby="overdue-h">
      <header><h3 id="overdue-h">The ten most overdue</h3></header>
      ${f.overdueInvoices.length ? html`<${TableWrap} label="The most overdue invoices"><table class="stack-on-phone" data-testid="overdue">
        <thead><tr><th scope="col">Contact</th><th scope="col">Invoice</th><th scope="col">Due</th>
          <th scope="col" class="num">Days overdue</th><th scope="col" class="num">Amount due</th></tr></thead>
        <tbody>${f.overdueInvoices.map((i) => html`<tr key=${i.id} data-invoice=${i.id}>
          <th scope="row">${i.contactName || 'Unknown contact'}</th>
          <td data-label="Invoice" class="mono">${i.number || '—'}</td>
          <td data-label="Due">${day(i.dueDate, { day: 'numeric', month: 'short', year: 'numeric' })}</td>
          <td data-label="Days overdue" class="num">${number(i.daysOverdue)}</td>
          <td data-label="Amount due" class="num amount">${money(i.amountDue, c)}</td>
        </tr>`)}</tbody>
      </table><//>` : html`<${Empty}>No invoice is overdue.<//>`}
    </section>
    <section class="card" aria-labelledby="revenue-h">
      <header><h3 id="revenue-h">Revenue invoiced, last 12 months</h3>
        <span class="note">before tax; calendar months in UTC, the last is the current UTC month</span></header>
      <${BarChart} label=${`Revenue invoiced per UTC month (${c || 'base currency'}, before tax)`} points=${f.revenue}
        x=${(p) => p.month} format=${month} series=${[{ key: 'amount', name: 'Revenue' }]} tick=${compact} value=${(v) => money(v, c)} />
      <${DataTable} caption="Revenue invoiced per month" points=${f.revenue}
        columns=${[{ name: 'Month (UTC)', value: (p) => month(p.month) }, { name: 'Revenue', num: true, value: (p) => money(p.amount, c) }]} />
    </section>
  </section>`;
}

export function DistributorAccounting({ me, query }) {
  const [polling, setPolling] = useState(0); // since when the page follows a sync it started
  const [elsewhere, setElsewhere] = useState(false); // a sync under way that the page did not start
  const status = useResource('/api/accounting/status', { refreshMs: polling || elsewhere ? POLL_MS : 0 });
  const summary = useResource('/api/accounting/summary');
  const s = status.data;
  // the sync has ended once a state read after its start says none is under way
  const ended = !!polling && !!s && status.at > polling && !s.inProgress;
  useEffect(() => {
    if (ended) {
      setPolling(0);
      summary.reload();
    }
  }, [ended]);
  useEffect(() => {
    if (elsewhere && s && !s.inProgress && !polling) summary.reload(); // its figures, once it ends
    setElsewhere(!!s?.inProgress);
  }, [s?.inProgress]);
  const changed = () => { status.reload(); summary.reload(); };
  const f = summary.data;
  return html`<div class="stack distributor">
    <div class="page-head"><h1>Accounting</h1><span class="note">Xero: receivables, receipts and contacts copied for the finance figures</span></div>
    <${Outcome} query=${query} />
    <section class="card" aria-labelledby="connection-h">
      <header><h2 id="connection-h">Connection</h2>
        ${s ? html`<span class=${`badge ${s.connected && !s.needsReconnect ? 'ok' : s.needsReconnect ? 'down' : 'neutral'}`}
          data-testid="connection-state">${s.needsReconnect ? 'Needs connecting again' : s.connected ? 'Connected' : 'Not connected'}</span>` : null}</header>
      ${!s ? html`<${Pending} resource=${status} label="the connection" lines=${2} />`
        : html`${status.error ? html`<${ErrorBanner} error=${status.error} onRetry=${status.reload} />` : null}
          ${s.needsReconnect ? html`<div class="banner warn" role="status"><div><strong>Xero refused the stored refresh token.</strong>
            ${s.reconnectReason ? ` ${s.reconnectReason}.` : ''} Every sync is refused until an administrator connects again.</div></div>` : null}
          <${Status} s=${s} />
          ${s.configured ? html`<${LastSync} s=${s} />` : null}
          ${me.isAdmin ? html`<${Actions} s=${s} onChanged=${changed} onPoll=${() => setPolling(Date.now())} />`
            : html`<p class="muted">Connecting, syncing and disconnecting are for administrators.</p>`}`}
    </section>
    ${!f ? html`<${Pending} resource=${summary} label="the finance summary" lines=${4} />`
      : html`${summary.error ? html`<${ErrorBanner} error=${summary.error} onRetry=${summary.reload} />` : null}
        ${f.configured === false ? html`<section class="card"><h2>Finance summary</h2><${Empty}>No finance figures: no organisation is connected.<//></section>`
          : html`<${Finance} f=${f} />`}`}
  </div>`;
}
