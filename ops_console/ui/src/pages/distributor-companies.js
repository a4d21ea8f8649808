// The distributor's companies (GET /api/distributor/companies?limit&offset&search&sort&order →
// {items: [{id, name, status, matchedCompanyId, matchedCompanyName, activeSubscriptions,
// monthlyCost}], total, limit, offset}): search, sort and page kept in the fragment's query, so a
// reload or a bookmark opens the same list. The list's costs carry no currency (one per partner
// account, the README says): the page names the one a company of the page shows on its own route.
import { html } from '../lib/html.js';
import { withQuery } from '../lib/api.js';
import { money, number } from '../lib/format.js';
import { navigate } from '../lib/router.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { Pager } from '../components/pager.js';
import { SearchBox } from '../components/search.js';
import { TableWrap } from '../components/table.js';

export const PAGE_SIZE = 20;
const SORTS = [
  { value: 'name', name: 'Name' },
  { value: 'matchedCompany', name: 'Matched PSA company' },
  { value: 'activeSubscriptions', name: 'Active subscriptions' },
  { value: 'monthlyCost', name: 'Monthly cost' },
];

function readQuery(query) {
  return {
    search: query.get('search') || '',
    sort: SORTS.some((s) => s.value === query.get('sort')) ? query.get('sort') : 'name',
    order: query.get('order') === 'desc' ? 'desc' : 'asc',
    offset: Math.max(0, Number.parseInt(query.get('offset') || '0', 10) || 0),
  };
}

// Into the fragment, replacing the entry (Back leaves the list); defaults are left out.
function writeQuery(q) {
  navigate('/distributor', {
    ...(q.search ? { search: q.search } : {}),
    ...(q.sort !== 'name' ? { sort: q.sort } : {}),
    ...(q.order !== 'asc' ? { order: q.order } : {}),
    ...(q.offset ? { offset: String(q.offset) } : {}),
  }, { replace: true });
}

function Sorting({ q }) {
  return html`<div class="row filter-row">
    <div class="field">
      <label for="company-sort">Sort by</label>
      <select id="company-sort" value=${q.sort} onChange=${(e) => writeQuery({ ...q, sort: e.currentTarget.value, offset: 0 })}>
        ${SORTS.map((s) => html`<option key=${s.value} value=${s.value}>${s.name}</option>`)}
      </select>
    </div>
    <div class="field">
      <label for="company-order">Order</label>
      <select id="company-order" value=${q.order} onChange=${(e) => writeQuery({ ...q, order: e.currentTarget.value, offset: 0 })}>
        <option value="asc">Ascending</option>
        <option value="desc">Descending</option>
      </select>
    </div>
  </div>`;
}

// The partner account's currency, as a company of the page with a cost gives it on its own route.
function useCurrency(items) {
  const probe = items?.find((c) => Number(c.monthlyCost) > 0);
  const detail = useResource(probe ? `/api/distributor/companies/${probe.id}` : null);
  return detail.data?.subscriptions?.find((s) => s.currencyCode)?.currencyCode || null;
}

export function Cost({ value, currency }) {
  return currency ? money(value, currency) : number(value, 2);
}

function Companies({ page, q, currency }) {
  const sortOf = (key) => (q.sort === key ? (q.order === 'desc' ? 'descending' : 'ascending') : null);
  return html`<${TableWrap} label="Distributor companies"><table class="stack-on-phone" data-testid="companies">
    <caption class="visually-hidden">Distributor companies, sorted by ${SORTS.find((s) => s.value === q.sort).name.toLowerCase()}</caption>
    <thead><tr>
      <th scope="col" aria-sort=${sortOf('name')}>Company</th>
      <th scope="col">Status</th>
      <th scope="col" aria-sort=${sortOf('matchedCompany')}>Matched PSA company</th>
      <th scope="col" class="num" aria-sort=${sortOf('activeSubscriptions')}>Active subscriptions</th>
      <th scope="col" class="num" aria-sort=${sortOf('monthlyCost')}>Monthly cost</th>
    </tr></thead>
    <tbody>${page.items.map((c) => html`<tr key=${c.id} data-company=${c.id}>
      <td data-label="Company"><a href=${`#/distributor/company?id=${c.id}`}>${c.name}</a></td>
      <td data-label="Status"><span class=${`badge ${c.status === 'Active' ? 'ok' : 'neutral'}`}>${c.status || '—'}</span></td>
      <td data-label="Matched PSA company">${c.matchedCompanyName || html`<span class="muted">not matched</span>`}</td>
      <td data-label="Active subscriptions" class="num">${number(c.activeSubscriptions)}</td>
      <td data-label="Monthly cost" class="num cost">${Cost({ value: c.monthlyCost, currency })}</td>
    </tr>`)}</tbody>
  </table><//>`;
}

export function DistributorCompanies({ query }) {
  const q = readQuery(query);
  const list = useResource(withQuery('/api/distributor/companies', {
    limit: PAGE_SIZE, offset: q.offset || '', search: q.search, sort: q.sort === 'name' ? '' : q.sort, order: q.order === 'asc' ? '' : q.order,
  }));
  const page = list.data;
  const currency = useCurrency(page?.items);
  return html`<div class="stack distributor">
    <div class="page-head"><h1>Distributor companies</h1>
      <span class="note">the copy of Pax8's companies; costs per month of active subscriptions${currency ? `, in ${currency}` : ''}</span></div>
    <div class="card stack">
      <${SearchBox} id="company-search" label="Search by name" value=${q.search} placeholder="Part of a company's name"
        onApply=${(search) => writeQuery({ ...q, search, offset: 0 })} />
      <${Sorting} q=${q} />
    </div>
    ${!page ? html`<${Pending} resource=${list} label="companies" lines=${5} />`
      : html`${list.error ? html`<${ErrorBanner} error=${list.error} onRetry=${list.reload} />` : null}
        <section class="card" aria-label="Companies" aria-busy=${list.loading ? 'true' : 'false'}>
          ${page.items.length ? html`<${Companies} page=${page} q=${q} currency=${currency} />`
            : html`<${Empty}>${q.search ? `No company's name contains “${q.search}”.` : 'No distributor company yet: run a sync to copy them.'}<//>`}
          <${Pager} page=${page} noun="companies" onOffset=${(offset) => writeQuery({ ...q, offset })} />
        </section>`}
  </div>`;
}
