// The overview in a real browser, at a desktop and a phone: every figure is the one its route gives
// the same user (today's KPIs, the trends, integration health, the workers), in the user's zone;
// usable with the keyboard, in both themes, within the budget of script and style.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, launch, loadTimings, opsConsole, openPage,
  recordAnswers, routeJson, screenshot, setPreferences, signIn, tabTo, viewports,
} from './lib.mjs';

const number = (n, digits = 0) => new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(n);

for (const [name, viewport] of Object.entries(viewports)) {
  test(`the overview at ${name} width shows the routes' own figures`, async () => {
    const who = createUser(`overview_${name}`);
    const browser = await launch();
    try {
      const page = await openPage(browser, viewport);
      // integration health and the workers move while other files run (a switch turned off and
      // back, an analysis job failing): those two are compared with the answers the page received
      const received = recordAnswers(page);
      await signIn(page, '#/', who);
      const kpis = page.getByTestId('kpis');
      await kpis.waitFor();

      // today's KPIs, each against yesterday and the 7-day average
      const overview = await routeJson(page, '/api/dashboard/overview');
      const cards = kpis.locator('.kpi');
      assert.equal(await cards.count(), 4);
      for (const [i, key] of ['opened', 'resolved', 'openTotal', 'slaBreaches'].entries()) {
        const card = cards.nth(i);
        const figure = overview[key];
        assert.equal(await card.locator('.value').textContent(), number(figure.today), `${key} today`);
        const compare = await card.locator('.compare').textContent();
        assert.ok(compare.includes(`vs yesterday (${number(figure.yesterday)})`), `${key}: ${compare}`);
        assert.ok(compare.includes(`7-day avg ${number(figure.average7, 1)}`), `${key}: ${compare}`);
      }
      assert.ok((await page.getByRole('heading', { name: /^Today, / }).textContent()).length > 7);
      assert.ok((await page.locator('.page-head .note').first().textContent()).startsWith(overview.timezone));

      // the trends: the heatmap's totals, 30 days in each chart, today's engineers
      const trends = await routeJson(page, '/api/dashboard/trends');
      const heat = page.getByRole('table', { name: 'Open tickets by queue and priority', exact: true });
      const openByQueue = new Map();
      for (const c of trends.heatmap) openByQueue.set(c.queue, (openByQueue.get(c.queue) || 0) + c.count);
      assert.ok(openByQueue.size > 0, 'the seed has open tickets');
      for (const [queue, total] of openByQueue) {
        const row = heat.getByRole('row', { name: new RegExp(`^${queue}`) });
        assert.equal(await row.locator('td').last().textContent(), number(total), `${queue}'s open tickets`);
      }
      const volume = page.getByRole('img', { name: /^Tickets opened and resolved per day, last 30 days/ });
      const opened30 = trends.volume.reduce((s, p) => s + p.opened, 0);
      assert.ok((await volume.getAttribute('aria-label')).includes(`opened total ${number(opened30)}`));
      assert.equal(trends.volume.length, 30);
      await page.getByText('Show the figures').first().click();
      assert.equal(await page.getByRole('table', { name: 'Tickets opened and resolved per day', exact: true }).locator('tbody tr').count(), 30);
      for (const e of trends.engineers) {
        const row = page.getByRole('row', { name: new RegExp(`^${e.name}`) });
        assert.equal(await row.locator('td').last().textContent(), number(e.hours, 2), `${e.name}'s hours`);
      }

      // integration health: one row per integration the route lists, with its state
      const health = await received('/api/dashboard/integration-health');
      const rows = page.getByTestId('integration-health').locator('tbody tr');
      assert.equal(await rows.count(), health.integrations.length);
      for (const [i, r] of health.integrations.entries()) {
        assert.equal(await rows.nth(i).locator('th').textContent(), r.key);
        assert.equal(await rows.nth(i).locator('.badge').textContent(), r.state);
      }

      // the workers: each with its status and its 24 hourly buckets
      const workers = await received('/api/status/workers');
      for (const w of workers.workers) {
        const card = page.locator(`[data-worker="${w.name}"]`);
        assert.equal(await card.locator('.bucket').count(), 24, `${w.name} has 24 buckets`);
        assert.equal(await card.locator('.badge').textContent(), w.configured === false ? 'not configured' : w.status);
      }

      // with the keyboard: the skip link, then the figures' table behind a chart
      await page.keyboard.press('Home');
      await tabTo(page, page.getByRole('button', { name: 'Sign out' }));
      if (name === 'phone') await assertFitsWidth(page, 'the overview');
      await assertAccessibleInBothThemes(page, `the overview (${name})`);
      await page.emulateMedia({ colorScheme: 'light' });
      await screenshot(page, `overview-${name}`);
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, `overview-${name}-dark`);
      page.assertClean([allowSignInProbe]);
    } finally {
      await browser.close();
    }
  });
}

test("the overview's day and times follow the user's zone, as the routes compute them", async () => {
  const who = createUser('overview_zone');
  const browser = await launch();
  try {
    const page = await openPage(browser, viewports.desktop);
    await signIn(page, '#/', who);
    // Kiritimati is UTC+14: its "today" and clock differ from UTC's for most of the day
    await setPreferences(page, { timezone: 'Pacific/Kiritimati' });
    await page.reload();
    await page.getByTestId('kpis').waitFor();
    const overview = await routeJson(page, '/api/dashboard/overview');
    assert.equal(overview.timezone, 'Pacific/Kiritimati');
    const note = await page.locator('.page-head .note').first().textContent();
    const at = new Intl.DateTimeFormat('en-US', { timeZone: 'Pacific/Kiritimati', timeStyle: 'short' }).format(new Date(overview.at));
    assert.equal(note, `Pacific/Kiritimati · as of ${at}`);
    const [y, m, d] = overview.date.split('-').map(Number);
    const today = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long' })
      .format(new Date(Date.UTC(y, m - 1, d)));
    assert.equal(await page.getByRole('heading', { name: /^Today, / }).textContent(), `Today, ${today}`);
    page.assertClean([allowSignInProbe]);
  } finally {
    await browser.close();
  }
});

test('the overview loads within its budget of script and style; its timings are printed for bench/RESULTS.md', async () => {
  const who = createUser('overview_timing');
  const browser = await launch();
  try {
    const signedIn = await openPage(browser, viewports.desktop);
    await signIn(signedIn, '#/', who);
    const cookies = await signedIn.context().cookies();
    for (const [name, viewport] of Object.entries(viewports)) {
      // a browser that has never seen the console (no cache, no service worker), with a session
      const page = await openPage(browser, viewport);
      await page.context().addCookies(cookies);
      await page.goto(`${opsConsole.url}/#/`);
      const cold = await loadTimings(page, '[data-testid="integration-health"] tbody tr');
      console.log(`timing: ${JSON.stringify({ page: 'overview', viewport: name, load: 'first', ...cold })}`);
      assert.ok(cold.scriptAndStyleBytes > 10 * 1024, 'the measure saw the modules load');
      assert.ok(cold.scriptAndStyleBytes <= 150 * 1024, `${cold.scriptAndStyleBytes} bytes of script and style`);
      await page.reload(); // what a person who comes back every morning waits for
      const warm = await loadTimings(page, '[data-testid="integration-health"] tbody tr');
      console.log(`timing: ${JSON.stringify({ page: 'overview', viewport: name, load: 'again', ...warm })}`);
      page.assertClean();
    }
    signedIn.assertClean([allowSignInProbe]);
  } finally {
    await browser.close();
  }
});

test('a route that fails is explained where its figures go, with a retry that brings them', async () => {
  const who = createUser('overview_failure');
  const browser = await launch();
  try {
    const page = await openPage(browser, viewports.desktop);
    await signIn(page, '#/preferences', who);
    // the console cannot be reached for the trends, and answers 503 for integration health
    await page.route('**/api/dashboard/trends', (route) => route.abort('connectionrefused'));
    await page.route('**/api/dashboard/integration-health', (route) => route.fulfill({
      status: 503, contentType: 'application/problem+json',
      body: JSON.stringify({ type: '/problems/unavailable', title: 'Service Unavailable', status: 503,
        detail: 'the database is unavailable; try again shortly' }),
    }));
    await page.goto(`${opsConsole.url}/#/`);
    const unreachable = page.getByRole('alert').filter({ hasText: 'The console could not be reached.' });
    await unreachable.waitFor();
    const unavailable = page.getByRole('alert').filter({ hasText: 'The database is unavailable; try again shortly' });
    await unavailable.waitFor();
    assert.ok((await unavailable.textContent()).includes('Integration health is not available right now'));
    await page.getByTestId('kpis').waitFor(); // the other figures are there all the same
    await screenshot(page, 'overview-failures-desktop');

    await page.unroute('**/api/dashboard/trends');
    await page.unroute('**/api/dashboard/integration-health');
    await tabTo(page, unreachable.getByRole('button', { name: 'Retry' }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Volume, last 30 days' }).waitFor();
    await unavailable.getByRole('button', { name: 'Retry' }).click();
    await page.getByTestId('integration-health').waitFor();
    assert.equal(await page.getByRole('alert').count(), 0, 'no error is left once the routes answer');
    page.assertClean([allowSignInProbe, /^request failed: GET .*\/api\/dashboard\/trends/,
      /^http 503 GET .*\/api\/dashboard\/integration-health$/]);
  } finally {
    await browser.close();
  }
});

test('the overview refreshes itself every minute while it is shown, and asks nothing while the tab is hidden', async () => {
  const who = createUser('overview_refresh');
  const browser = await launch();
  try {
    const page = await openPage(browser, viewports.desktop);
    await page.clock.install();
    await signIn(page, '#/', who);
    await page.getByTestId('kpis').waitFor();
    const asked = [];
    page.on('request', (r) => { if (r.url().endsWith('/api/dashboard/overview')) asked.push(Date.now()); });

    const refreshed = page.waitForResponse('**/api/dashboard/overview');
    await page.clock.runFor(60_000);
    await refreshed;
    assert.equal(asked.length, 1, 'one refresh a minute');

    // the tab is hidden: ten minutes pass without a request
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await page.clock.runFor(600_000);
    assert.equal(asked.length, 1, 'nothing while hidden');

    // shown again: the figures are brought up to date at once
    const caughtUp = page.waitForResponse('**/api/dashboard/overview');
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await caughtUp;
    assert.equal(asked.length, 2);
    page.assertClean([allowSignInProbe]);
  } finally {
    await browser.close();
  }
});
