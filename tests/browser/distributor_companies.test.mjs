// The distributor's companies (#/distributor) and a company (#/distributor/company?id=…) at a
// phone and a desktop width, on the console whose distributor is the sandbox's Pax8 fake, as a
// plain user of this file's own: the list is the route's page for the same search, sort and
// offset (names, status, matched company, active subscriptions, monthly cost with the partner
// account's currency), the pager's total is the route's, the next page with the keyboard, the
// sort, the search (Enter), the empty search, the query kept across a reload; a company's facts,
// subscriptions and orphaned order items as its route gives them; back through the top bar;
// nothing sticking out at 360 px; axe in both themes; the 150 KB budget.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, goToSection, openSignedIn, routeJson,
  screenshot, shown, tabTo, waitForCount,
} from './lib.mjs';
import { startDistributorFile } from './distributor.mjs';

const PAGE_SIZE = 20; // pages/distributor-companies.js
const ROW = 'table[data-testid="companies"] tbody tr';
let browser;
let user;
before(async () => { ({ browser, user } = await startDistributorFile('dist-companies')); });
after(async () => { await browser?.close(); });

const fragmentQuery = (page) => page.evaluate(() => new URLSearchParams(window.location.hash.split('?')[1] || '').toString());

// The route's page for a query string ("sort=monthlyCost&order=desc"), as the page asks for it.
const routePage = (page, query) => routeJson(page, `/api/distributor/companies?limit=${PAGE_SIZE}${query ? `&${query}` : ''}`);

async function assertListIs(page, query) {
  const expected = await routePage(page, query);
  if (!expected.items.length) {
    await page.locator('p.state').waitFor();
    return expected;
  }
  await page.waitForFunction(([s, ids]) => !document.querySelector('[aria-busy="true"]')
    && JSON.stringify([...document.querySelectorAll(s)].map((e) => e.dataset.company)) === JSON.stringify(ids),
  [ROW, expected.items.map((c) => c.id)]);
  const first = expected.offset + 1;
  const last = expected.offset + expected.items.length;
  assert.equal(await page.getByRole('navigation', { name: 'Pages of companies' }).getByRole('status').innerText(),
    `${await shown.number(page, first)}–${await shown.number(page, last)} of ${await shown.number(page, expected.total)} companies`);
  return expected;
}

// The partner account's currency: a subscription's, from a company with a cost.
async function currencyOf(page, items) {
  const probe = items.find((c) => Number(c.monthlyCost) > 0);
  if (!probe) return null;
  return (await routeJson(page, `/api/distributor/companies/${probe.id}`)).subscriptions.find((s) => s.currencyCode)?.currencyCode;
}

for (const name of ['phone', 'desktop']) {
  test(`distributor companies at ${name} width`, async () => {
    const page = await openSignedIn(browser, { viewport: name, name: 'distributor-companies', hash: '#/distributor', who: user, ready: ROW });

    // the first page: each row the route's, in its order, with its figures
    const firstPage = await assertListIs(page, '');
    assert.ok(firstPage.total > PAGE_SIZE, `the fake's ${firstPage.total} companies fill more than a page`);
    const currency = await currencyOf(page, firstPage.items);
    assert.ok(currency, 'a company of the first page has a cost');
    assert.ok((await page.locator('.page-head .note').innerText()).includes(currency));
    for (const c of firstPage.items.slice(0, 5)) {
      const row = page.locator(`tr[data-company="${c.id}"]`);
      const text = await row.innerText();
      assert.ok(text.includes(c.name) && text.includes(c.status), `${c.name}: name and status`);
      assert.ok(text.includes(c.matchedCompanyName || 'not matched'), `${c.name}: its match`);
      assert.equal(await row.locator('td[data-label="Active subscriptions"]').innerText(), await shown.number(page, c.activeSubscriptions));
      assert.equal(await row.locator('td.cost').innerText(), await shown.money(page, c.monthlyCost, currency));
    }
    if (name === 'phone') await assertFitsWidth(page, 'the companies');
    await screenshot(page, `distributor-companies-${name}`);
    await assertAccessibleInBothThemes(page, `the companies at ${name} width`);

    // the next page with the keyboard
    await tabTo(page, page.getByRole('button', { name: 'Next' }), 80);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.location.hash.includes(`offset=20`));
    await assertListIs(page, `offset=${PAGE_SIZE}`);

    // the sort: by monthly cost, the highest first (back to the first page)
    await page.getByLabel('Sort by').selectOption({ label: 'Monthly cost' });
    await page.getByLabel('Order').selectOption({ label: 'Descending' });
    await page.waitForFunction(() => window.location.hash === '#/distributor?sort=monthlyCost&order=desc');
    const byCost = await assertListIs(page, 'sort=monthlyCost&order=desc');
    assert.ok(Number(byCost.items[0].monthlyCost) >= Number(byCost.items[byCost.items.length - 1].monthlyCost));
    assert.equal(await page.locator('th[aria-sort="descending"]').innerText(), 'Monthly cost');

    // the search (Enter), kept in the URL across a reload; then a search nothing matches
    const word = firstPage.items[0].name.split(/\s+/)[0];
    await page.getByLabel('Search by name').fill(word);
    await page.keyboard.press('Enter');
    await page.waitForFunction((w) => window.location.hash.includes(`search=${encodeURIComponent(w)}`), word);
    const query = await fragmentQuery(page);
    const found = await assertListIs(page, query);
    assert.ok(found.items.some((c) => c.id === firstPage.items[0].id), `searching "${word}" finds ${firstPage.items[0].name}`);
    await page.reload();
    assert.equal(await fragmentQuery(page), query);
    await assertListIs(page, query);
    await page.getByLabel('Search by name').fill('no such company anywhere');
    await page.keyboard.press('Enter');
    await page.getByText('No company\'s name contains “no such company anywhere”.').waitFor();

    // a company: facts, subscriptions and orphaned order items as its route gives them
    await page.getByLabel('Search by name').fill('');
    await page.keyboard.press('Enter');
    await assertListIs(page, 'sort=monthlyCost&order=desc');
    const top = byCost.items[0];
    await page.getByRole('link', { name: top.name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: top.name }).waitFor();
    const c = await routeJson(page, `/api/distributor/companies/${top.id}`);
    assert.equal(await page.locator('[data-fact="active"]').innerText(), await shown.number(page, c.activeSubscriptions));
    assert.equal(await page.locator('[data-fact="cost"]').innerText(), await shown.money(page, c.monthlyCost, currency));
    assert.ok((await page.locator('[data-fact="matched"]').innerText()).includes(c.matchedCompanyName || 'not matched'));
    await waitForCount(page, 'table[data-testid="subscriptions"] tbody tr', c.subscriptions.length);
    assert.ok(c.subscriptions.length > 0, 'the costliest company has subscriptions');
    for (const s of c.subscriptions) {
      const row = page.locator(`tr[data-subscription="${s.id}"]`);
      assert.equal(await row.locator('th').innerText(), s.label);
      assert.equal(await row.locator('td.cost').innerText(), await shown.money(page, s.monthlyCost, s.currencyCode));
    }
    if (c.orphanedOrderItems.length) await waitForCount(page, 'table[data-testid="orphans"] tbody tr', c.orphanedOrderItems.length);
    else await page.getByText('No orphaned order item.').waitFor();
    if (name === 'phone') await assertFitsWidth(page, 'a distributor company');
    await screenshot(page, `distributor-company-${name}`);
    await assertAccessibleInBothThemes(page, `a distributor company at ${name} width`);

    // a company that is not there: the route's 404, said on the page
    await page.goto(`${new URL(page.url()).origin}/#/distributor/company?id=00000000-0000-4000-8000-000000000000`);
    await page.getByRole('alert').filter({ hasText: 'no distributor company' }).waitFor();

    // back to the list through the top bar
    await goToSection(page, 'Distributor');
    await page.waitForFunction(() => window.location.hash === '#/distributor');
    await assertListIs(page, '');
    page.assertClean([allowSignInProbe, /^http 404 GET .*\/api\/distributor\/companies\/00000000-0000-4000-8000-000000000000$/]);
  });
}
