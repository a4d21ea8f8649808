// One distributor company (GET /api/distributor/companies/{id}: the company with its match,
// `subscriptions` (label, quantity, status, term, monthly cost, latest billed cost and when) and
// `orphanedOrderItems`, order items whose subscription the copy no longer holds). The costs are
// in each subscription's currency; a day the route gives (start, order) is shown as that day.
import { html } from '../lib/html.js';
import { dateTime, day, money, number } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { TableWrap } from '../components/table.js';

const METHODS = { exact: 'the same name', review: 'a resolved review' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function Subscriptions({ c, currency }) {
  return html`<section class="card" aria-labelledby="subs-h">
    <header><h2 id="subs-h">Subscriptions</h2><span class="note">${number(c.subscriptions.length)} in the copy</span></header>
    ${c.subscriptions.length ? html`<${TableWrap} label="Subscriptions"><table class="stack-on-phone" data-testid="subscriptions">
      <thead><tr><th scope="col">Product</th><th scope="col">Status</th><th scope="col" class="num">Quantity</th>
        <th scope="col">Billing term</th><th scope="col" class="num">Monthly cost</th>
        <th scope="col" class="num">Latest billed</th></tr></thead>
      <tbody>${c.subscriptions.map((s) => html`<tr key=${s.id} data-subscription=${s.id}>
        <th scope="row">${s.label}</th>
        <td data-label="Status"><span class=${`badge ${s.status === 'Active' ? 'ok' : 'neutral'}`}>${s.status || '—'}</span></td>
        <td data-label="Quantity" class="num">${number(s.quantity)}</td>
        <td data-label="Billing term">${s.billingTerm || '—'}</td>
        <td data-label="Monthly cost" class="num cost">${money(s.monthlyCost, s.currencyCode || currency)}</td>
        <td data-label="Latest billed" class="num">${s.latestBilledCost === null
          ? html`<span class="muted">not billed yet</span>`
          : html`<span>${money(s.latestBilledCost, s.currencyCode || currency)}${s.latestBilledAt ? html` <span class="muted">to ${day(s.latestBilledAt, { day: 'numeric', month: 'short', year: 'numeric' })}</span>` : null}</span>`}</td>
      </tr>`)}</tbody>
    </table><//>` : html`<${Empty}>This company has no subscription in the copy.<//>`}
  </section>`;
}

function Orphans({ c }) {
  return html`<section class="card" aria-labelledby="orphans-h">
    <header><h2 id="orphans-h">Orphaned order items</h2><span class="note">ordered, but their subscription is gone from the copy</span></header>
    ${c.orphanedOrderItems.length ? html`<${TableWrap} label="Orphaned order items"><table class="stack-on-phone" data-testid="orphans">
      <thead><tr><th scope="col">Product</th><th scope="col" class="num">Quantity</th><th scope="col">Ordered</th>
        <th scope="col">Order</th><th scope="col">Subscription</th></tr></thead>
      <tbody>${c.orphanedOrderItems.map((i) => html`<tr key=${i.id} data-item=${i.id}>
        <th scope="row">${i.label}</th>
        <td data-label="Quantity" class="num">${number(i.quantity)}</td>
        <td data-label="Ordered">${i.orderedAt ? day(i.orderedAt, { day: 'numeric', month: 'short', year: 'numeric' }) : '—'}</td>
        <td data-label="Order" class="mono">${i.orderId || '—'}</td>
        <td data-label="Subscription" class="mono">${i.subscriptionId}</td>
      </tr>`)}</tbody>
    </table><//>` : html`<${Empty}>No orphaned order item.<//>`}
  </section>`;
}

export function DistributorCompany({ query }) {
  const id = query.get('id') || '';
  const valid = UUID.test(id);
  const company = useResource(valid ? `/api/distributor/companies/${id}` : null);
  const c = company.data;
  const currency = c?.subscriptions.find((s) => s.currencyCode)?.currencyCode;
  return html`<div class="stack distributor">
    <p><a href="#/distributor">← Distributor companies</a></p>
    ${!valid ? html`<${Empty}>No company is named: open one from the list of distributor companies.<//>`
      : !c ? html`<${Pending} resource=${company} label="the company" lines=${4} />`
      : html`<div class="page-head"><h1>${c.name}</h1><span class=${`badge ${c.status === 'Active' ? 'ok' : 'neutral'}`}>${c.status}</span></div>
        ${company.error ? html`<${ErrorBanner} error=${company.error} onRetry=${company.reload} />` : null}
        <dl class="facts card" data-testid="company-facts">
          <div><dt>Matched PSA company</dt><dd data-fact="matched">${c.matchedCompanyName
            ? html`${c.matchedCompanyName} <span class="muted">by ${METHODS[c.matchMethod] || c.matchMethod}</span>`
            : html`<span class="muted">not matched</span> <a href="#/distributor/reviews">match reviews</a>`}</dd></div>
          <div><dt>Active subscriptions</dt><dd data-fact="active">${number(c.activeSubscriptions)}</dd></div>
          <div><dt>Monthly cost</dt><dd data-fact="cost">${currency ? money(c.monthlyCost, currency) : number(c.monthlyCost, 2)}</dd></div>
          <div><dt>Copied</dt><dd><time datetime=${c.syncedAt}>${dateTime(c.syncedAt)}</time></dd></div>
        </dl>
        <${Subscriptions} c=${c} currency=${currency} />
        <${Orphans} c=${c} />`}
  </div>`;
}
