// Finance (#/m/finance) at a phone and a desktop width, as the seed's Fina sees it: payments month
// and year to date, the six aging buckets, the most overdue invoices with their days overdue and
// 12 months of revenue (the chart's text alternative and its table, the months said to be UTC),
// each as GET /api/mobile/finance gives them to her; "today" in her zone; her theme; the table
// opened with the keyboard; the route's {configured: false} shown as "not connected"; nothing
// sticking out at 360 px; axe in both themes; the 150 KB budget.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, launch, openSignedIn, pageUser, routeJson, screenshot,
  setPreferences, shown, tabTo,
} from './lib.mjs';

const USER = pageUser('m-finance@browser.example');
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function assertFigures(page) {
  const f = await routeJson(page, '/api/mobile/finance');
  assert.equal(f.configured, true, 'the seed connects an organisation');
  const money = (v) => shown.money(page, v, f.currency);
  assert.equal(await page.locator('[data-kpi="paymentsMonthToDate"] .value').innerText(), await money(f.paymentsMonthToDate));
  assert.equal(await page.locator('[data-kpi="paymentsYearToDate"] .value').innerText(), await money(f.paymentsYearToDate));
  assert.match(await page.locator('#payments-h + .note').innerText(), new RegExp(await shown.day(page, f.today)));

  assert.equal(f.aging.length, 6);
  const buckets = page.locator('[data-testid="aging"] > li');
  assert.deepEqual(await buckets.evaluateAll((els) => els.map((e) => e.dataset.bucket)), f.aging.map((b) => b.key));
  for (const b of f.aging) {
    const li = page.locator(`[data-bucket="${b.key}"]`);
    assert.equal(await li.locator('.amount').innerText(), await money(b.amount));
    const text = await li.innerText();
    assert.ok(text.includes(`${await shown.number(page, b.invoices)} invoice`), `${b.key}: ${b.invoices} invoices`);
    if (b.key !== 'current' && b.invoices > 0) assert.ok(text.includes(`up to ${await shown.number(page, b.maxDaysOverdue)} days overdue`));
  }

  const overdue = page.locator('[data-testid="overdue"] > li');
  assert.equal(await overdue.count(), f.overdueInvoices.length);
  assert.ok(f.overdueInvoices.length > 0);
  for (const [i, inv] of f.overdueInvoices.entries()) {
    const text = await overdue.nth(i).innerText();
    assert.ok(text.includes(`${await shown.number(page, inv.daysOverdue)} days overdue`), `${inv.number}: ${inv.daysOverdue} days`);
    assert.ok(text.includes(inv.number) && text.includes(await money(inv.amountDue)));
  }
  return f;
}

for (const name of ['phone', 'desktop']) {
  test(`finance at ${name} width`, async () => {
    const page = await openSignedIn(browser, { viewport: name, name: 'mobile-finance', hash: '#/m/finance', who: USER,
      ready: '[data-kpi="paymentsMonthToDate"]' });

    const f = await assertFigures(page);
    // revenue: 12 UTC months, the chart's text alternative and, with the keyboard, its table
    assert.equal(f.revenue.length, 12);
    const chart = page.getByRole('img', { name: /^Revenue invoiced per month/ });
    const best = f.revenue.reduce((a, b) => (b.amount > a.amount ? b : a));
    assert.ok((await chart.getAttribute('aria-label')).includes(`highest ${await shown.money(page, best.amount, f.currency)}`));
    assert.match(await page.locator('#revenue-h + .note').innerText(), /UTC/);
    await tabTo(page, page.getByText('Show the figures'), 40);
    await page.keyboard.press('Enter');
    const rows = page.getByRole('table').locator('tbody tr');
    assert.equal(await rows.count(), 12);
    for (const [i, m] of f.revenue.entries()) {
      assert.equal(await rows.nth(i).locator('td').nth(1).innerText(), await shown.money(page, m.amount, f.currency));
    }
    if (name === 'phone') await assertFitsWidth(page, 'finance');
    await screenshot(page, `mobile-finance-${name}`);
    await assertAccessibleInBothThemes(page, `finance at ${name} width`);

    // her zone: "today" is hers (the route's), and the figures follow it
    await setPreferences(page, { timezone: 'Pacific/Kiritimati', theme: 'dark' });
    await page.reload();
    await page.locator('[data-kpi="paymentsMonthToDate"]').waitFor();
    const kiritimati = await assertFigures(page);
    const theirToday = await page.evaluate(() => new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Kiritimati' }).format(new Date()));
    assert.equal(kiritimati.today, theirToday, 'the route counts to her today');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    if (name === 'phone') await screenshot(page, 'mobile-finance-phone-dark');
    await setPreferences(page, { theme: 'system', timezone: 'UTC' });

    // without a connection the route answers {configured: false} (its documented answer, given
    // here by the test: the seed's organisation is shared by every test file)
    await page.route('**/api/mobile/finance', (r) => r.fulfill({ json: { configured: false } }));
    await page.reload();
    await page.getByRole('heading', { name: 'Accounting is not connected' }).waitFor();
    assert.equal(await page.locator('[data-kpi]').count(), 0);
    if (name === 'phone') await screenshot(page, 'mobile-finance-phone-not-connected');
    page.assertClean([allowSignInProbe]);
  });
}
