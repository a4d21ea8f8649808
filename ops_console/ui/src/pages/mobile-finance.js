// Finance (GET /api/mobile/finance: {configured: false} without an accounting connection, else
// {currency, today, paymentsMonthToDate, paymentsYearToDate, aging: 6 × {key, amount, invoices,
// maxDaysOverdue}, overdueInvoices: [{number, contactName, dueDate, amountDue, daysOverdue}],
// revenue: 12 × {month, amount}}). Payments and days overdue count to the user's today (the route
// computes it in the user's zone); the revenue months are UTC calendar months, rolling, and the
// page says so.
import { html } from '../lib/html.js';
import { compact, day, money, month, number } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { BarChart, DataTable } from '../components/charts.js';

const AGING_NAMES = {
  current: 'Not yet due',
  '1-30': '1–30 days overdue',
  '31-60': '31–60 days overdue',
  '61-90': '61–90 days overdue',
  '91-120': '91–120 days overdue',
  'over-120': 'Over 120 days overdue',
};

function NotConnected() {
  return html`<div class="card" data-testid="not-connected">
    <h2>Accounting is not connected</h2>
    <p>No accounting system is connected to the console, so there are no payments, receivables or
      revenue to show. An administrator connects one (Xero) through the accounting routes; the figures
      appear after its first sync.</p>
  </div>`;
}

function Payments({ f }) {
  return html`<section aria-labelledby="payments-h">
    <div class="page-head"><h2 id="payments-h">Payments received</h2><span class="note">to ${day(f.today)}, your day</span></div>
    <div class="grid kpis">
      <div class="card kpi" data-kpi="paymentsMonthToDate"><div class="label">Month to date</div>
        <div class="value">${money(f.paymentsMonthToDate, f.currency)}</div></div>
      <div class="card kpi" data-kpi="paymentsYearToDate"><div class="label">Year to date</div>
        <div class="value">${money(f.paymentsYearToDate, f.currency)}</div></div>
    </div>
  </section>`;
}

// The six buckets of open receivables, each a row with its share of the total as a bar.
function Aging({ f }) {
  const total = f.aging.reduce((s, b) => s + Number(b.amount || 0), 0);
  return html`<section class="card" aria-labelledby="aging-h">
    <header><h2 id="aging-h">Receivables by age</h2><span class="note">open invoices, ${money(total, f.currency)} in all</span></header>
    <ul class="list aging" data-testid="aging">
      ${f.aging.map((b) => html`<li key=${b.key} data-bucket=${b.key}>
        <div class="row spread">
          <span class="name">${AGING_NAMES[b.key] || b.key}</span>
          <span class="amount">${money(b.amount, f.currency)}</span>
        </div>
        <div class="bar" aria-hidden="true"><span class=${b.key === 'current' ? 'ok' : 'due'}
          style=${{ width: `${total > 0 ? Math.max(0, (100 * Number(b.amount)) / total) : 0}%` }}></span></div>
        <div class="meta"><span>${number(b.invoices)} ${b.invoices === 1 ? 'invoice' : 'invoices'}</span>
          ${b.key !== 'current' && b.invoices > 0 ? html`<span>up to ${number(b.maxDaysOverdue)} days overdue</span>` : null}</div>
      </li>`)}
    </ul>
  </section>`;
}

function Overdue({ f }) {
  return html`<section class="card" aria-labelledby="overdue-h">
    <header><h2 id="overdue-h">Most overdue</h2><span class="note">days past the due date, to your today</span></header>
    ${f.overdueInvoices.length ? html`<ul class="list" data-testid="overdue">
        ${f.overdueInvoices.map((i) => html`<li key=${i.id}>
          <div class="row spread"><span class="title">${i.contactName || 'Unknown contact'}</span>
            <span class="amount">${money(i.amountDue, f.currency)}</span></div>
          <div class="meta"><span class="mono">${i.number || '—'}</span><span>due ${day(i.dueDate)}</span>
            <span class="error-text">${number(i.daysOverdue)} days overdue</span></div>
        </li>`)}
      </ul>` : html`<${Empty}>No invoice is overdue.<//>`}
  </section>`;
}

function Revenue({ f }) {
  const label = `Revenue invoiced per month (${f.currency || 'base currency'}, before tax), the last 12 UTC months`;
  return html`<section class="card" aria-labelledby="revenue-h">
    <header><h2 id="revenue-h">Revenue, last 12 months</h2>
      <span class="note">invoiced, before tax; calendar months in UTC, rolling: the last is the current UTC month</span></header>
    <${BarChart} label=${label} points=${f.revenue} x=${(p) => p.month} format=${month}
      series=${[{ key: 'amount', name: 'Revenue' }]} tick=${compact} value=${(v) => money(v, f.currency)} />
    <${DataTable} caption="Revenue per month" points=${f.revenue}
      columns=${[{ name: 'Month (UTC)', value: (p) => month(p.month) },
        { name: 'Revenue', num: true, value: (p) => money(p.amount, f.currency) }]} />
  </section>`;
}

export function MobileFinance() {
  const finance = useResource('/api/mobile/finance', { refreshMs: 300000 });
  const f = finance.data;
  return html`<div class="stack">
    <h1>Finance</h1>
    ${!f ? html`<${Pending} resource=${finance} label="finance" lines=${4} />`
      : !f.configured ? html`<${NotConnected} />`
      : html`${finance.error ? html`<${ErrorBanner} error=${finance.error} onRetry=${finance.reload} />` : null}
        <${Payments} f=${f} />
        <${Aging} f=${f} />
        <${Overdue} f=${f} />
        <${Revenue} f=${f} />`}
  </div>`;
}
