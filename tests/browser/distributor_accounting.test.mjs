// Accounting (#/distributor/accounting) at a phone and a desktop width, on the console whose
// accounting is the sandbox's Xero fake, as an administrator of this file's own: the connection's
// state as GET /api/accounting/status gives it; connecting through the browser (the console's
// auth route, the fake's consent page, the callback that sends the browser back to the page with
// the outcome), checked through the status route; a sync from the page followed until it ends, its
// run the route's; the finance summary's figures as GET /api/accounting/summary gives them;
// disconnecting after a confirmation that says what happens (Escape keeps the connection), checked
// through the route; a refused callback's detail shown on the page. A plain user sees the state
// without the buttons. Each test ends disconnected, so that the second connects from "not
// connected"; the file then leaves the connection as it found it: when the first test found one
// (the seed's placeholder, replaced at the first connect), it connects again at the end through the
// console's own routes, as the page does (no other file reads this console's accounting, so no other
// file sees it change meanwhile). The organisation it leaves connected is the Xero fake's, whose
// tokens work, where the seed's placeholder tokens opened nothing. Nothing sticking out at 360 px;
// axe in both themes; the 150 KB budget.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, goToSection, launch, openPage, openSignedIn, routeJson,
  screenshot, shown, signIn, tabTo,
} from './lib.mjs';

const TENANT = 'Northwind IT Services (Demo)'; // the Xero fake's organisation (sandbox/xero_fake.hpp)
let browser;
let admin;
let found; // GET /api/accounting/status as the first test found it, before anything here changed it
before(async () => {
  browser = await launch();
  admin = createUser('dist-accounting', { console: 'vendors', admin: true });
});
after(async () => {
  try {
    if (found?.connected) await connectAgain();
  } finally {
    await browser?.close();
  }
});

// Connects Xero again as the page does, through the console's routes (POST /api/accounting/auth;
// the fake's consent answers at once with a redirect to the callback, which this session follows),
// signed in as this file's administrator; checked through the status route.
async function connectAgain() {
  const page = await openPage(browser);
  try {
    await signIn(page, '#/distributor/accounting', admin);
    const origin = new URL(page.url()).origin;
    const auth = await page.request.post(`${origin}/api/accounting/auth`);
    assert.equal(auth.status(), 200, 'the consent page is offered');
    const back = await page.request.get((await auth.json()).authorizeUrl);
    assert.equal(back.status(), 200, `the callback took the consent: ${await back.text()}`);
    assert.equal((await routeJson(page, '/api/accounting/status')).connected, true, 'connected again, as the file found it');
  } finally {
    await page.context().close();
  }
}

// What `locator` shows once it shows `want`, or after 10 s: the page may still show the figures
// it had before the sync (a CI run once saw "$" from before the copy while the route already said
// "£") until its own answer of the summary arrives; those figures are rendered together.
async function textOnceShown(locator, want) {
  await locator.filter({ hasText: want }).waitFor({ timeout: 10000 }).catch(() => {});
  return locator.innerText();
}

async function assertFinance(page) {
  const f = await routeJson(page, '/api/accounting/summary');
  assert.equal(f.configured, true);
  const money = (v) => shown.money(page, v, f.currency);
  await page.locator('[data-testid="finance"]').waitFor();
  const monthToDate = await money(f.paymentsMonthToDate);
  assert.equal(await textOnceShown(page.locator('[data-kpi="paymentsMonthToDate"] .value'), monthToDate), monthToDate);
  assert.equal(await page.locator('[data-kpi="paymentsYearToDate"] .value').innerText(), await money(f.paymentsYearToDate));
  for (const b of f.aging) {
    const row = page.locator(`tr[data-bucket="${b.key}"]`);
    assert.equal(await row.locator('td.amount').innerText(), await money(b.amount), b.key);
    assert.equal(await row.locator('td[data-label="Invoices"]').innerText(), await shown.number(page, b.invoices), b.key);
  }
  if (f.overdueInvoices.length) {
    const rows = page.locator('table[data-testid="overdue"] tbody tr');
    assert.equal(await rows.count(), f.overdueInvoices.length);
    for (const [i, inv] of f.overdueInvoices.entries()) {
      assert.equal(await rows.nth(i).locator('td[data-label="Days overdue"]').innerText(), await shown.number(page, inv.daysOverdue));
      assert.equal(await rows.nth(i).locator('td.amount').innerText(), await money(inv.amountDue));
    }
  }
  const best = f.revenue.reduce((a, b) => (b.amount > a.amount ? b : a));
  const chart = page.getByRole('img', { name: /^Revenue invoiced per UTC month/ });
  assert.ok((await chart.getAttribute('aria-label')).includes(`highest ${await money(best.amount)}`));
  assert.match(await page.locator('#revenue-h + .note').innerText(), /UTC/);
  return f;
}

const state = (page) => page.locator('[data-testid="connection-state"]');

for (const name of ['phone', 'desktop']) {
  test(`accounting at ${name} width`, async () => {
    const page = await openSignedIn(browser, { viewport: name, name: 'distributor-accounting', hash: '#/distributor/accounting',
      who: admin, ready: '[data-testid="connection-state"]' });
    const origin = new URL(page.url()).origin;
    const first = await routeJson(page, '/api/accounting/status');
    found ??= first;
    assert.equal(await state(page).innerText(), first.connected ? 'Connected' : 'Not connected');

    // a callback the console refuses: the browser comes back with the refusal's detail
    await page.goto(`${origin}/api/accounting/callback?code=made-up&state=made-up`);
    await page.waitForURL(/#\/distributor\/accounting\?error=state/);
    const outcome = page.locator('[data-testid="outcome"]');
    const detail = new URLSearchParams(page.url().split('?')[1]).get('detail');
    assert.ok(detail, 'the callback names why');
    const said = await outcome.innerText();
    assert.match(said, /Xero was not connected\..*Nothing was stored/s);
    assert.ok(said.includes(detail), `the page says the route's detail: ${detail}`);
    await outcome.getByRole('button', { name: 'Dismiss' }).click();
    await page.waitForFunction(() => window.location.hash === '#/distributor/accounting');

    // connect: the auth route, the fake's consent, the callback, and back here
    const connectButton = page.getByRole('button', { name: first.connected ? 'Connect again' : 'Connect Xero' });
    if (name === 'phone') {
      await tabTo(page, connectButton, 40);
      await page.keyboard.press('Enter');
    } else {
      await connectButton.click();
    }
    await page.waitForURL(/#\/distributor\/accounting\?connected=1$/);
    await page.locator('[data-testid="outcome"]').filter({ hasText: 'Xero is connected.' }).waitFor();
    const connected = await routeJson(page, '/api/accounting/status');
    assert.equal(connected.connected, true);
    assert.equal(connected.tenantName, TENANT);
    await page.locator('[data-fact="tenant"]').filter({ hasText: TENANT }).waitFor();
    assert.equal(await state(page).innerText(), 'Connected');

    // a sync from the page, followed until it ends
    const previous = connected.lastSync?.id ?? 0;
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.locator(`[data-testid="last-sync"][data-run]:not([data-run="${previous}"])`).waitFor({ timeout: 120000 });
    const synced = await routeJson(page, '/api/accounting/status');
    assert.equal(synced.inProgress, false);
    assert.ok(synced.lastSync, 'the run is recorded');
    assert.equal(synced.lastSync.status, 'succeeded', `the sync succeeded (${synced.lastSync.error})`);
    assert.equal(await page.locator('[data-testid="last-sync"]').getAttribute('data-run'), String(synced.lastSync.id));
    for (const key of ['invoices', 'payments', 'contacts']) {
      assert.ok(synced.counts[key] > 0, `the fake's ${key} are copied`);
      await page.locator(`[data-count="${key}"]`).filter({ hasText: await shown.number(page, synced.counts[key]) }).waitFor();
    }
    await assertFinance(page);
    if (name === 'phone') await assertFitsWidth(page, 'accounting');
    await screenshot(page, `distributor-accounting-${name}`);
    await assertAccessibleInBothThemes(page, `accounting at ${name} width`);

    // disconnect: the confirmation says what happens; Escape keeps the connection, then it goes
    await page.getByRole('button', { name: 'Disconnect' }).click();
    const dialog = page.getByRole('dialog', { name: `Disconnect ${TENANT}?` });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /removed at Xero.*tokens are deleted.*copied invoices, payments and contacts\s+stay/s);
    await assertAccessibleInBothThemes(page, `the disconnect confirmation at ${name} width`);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await routeJson(page, '/api/accounting/status')).connected, true, 'Escape keeps the connection');
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await dialog.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('status').filter({ hasText: 'Disconnected' }).waitFor();
    await page.locator('[data-testid="not-connected"]').waitFor();
    assert.equal((await routeJson(page, '/api/accounting/status')).connected, false);
    assert.equal((await routeJson(page, '/api/accounting/summary')).configured, false);
    await page.getByText('No finance figures: no organisation is connected.').waitFor();
    page.assertClean([allowSignInProbe]);
  });
}

test('accounting for a user who is not an administrator', async () => {
  const plain = createUser('dist-accounting-plain', { console: 'vendors' });
  const page = await openSignedIn(browser, { viewport: 'desktop', name: 'distributor-accounting-plain',
    hash: '#/distributor/accounting', who: plain, ready: '[data-testid="connection-state"]' });
  await page.getByText('Connecting, syncing and disconnecting are for administrators.').waitFor();
  assert.equal(await page.getByRole('button', { name: /Connect|Sync now|Disconnect/ }).count(), 0);
  await goToSection(page, 'Distributor');
  await page.waitForFunction(() => window.location.hash === '#/distributor');
  page.assertClean([allowSignInProbe]);
});
