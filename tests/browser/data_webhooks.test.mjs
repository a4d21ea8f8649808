// The PSA webhooks page (#/data/webhooks) at a desktop and a 360-px phone, as a plain user of its
// own: the statistics as GET /api/webhooks/stats gives them; the log's first page, Older and Newer
// (the keyboard for one) against GET /api/webhooks/logs with the route's next_before; each filter
// (status, entity type, period, page size) kept in the URL across a reload and each list the route's
// for the very query the page sent; the empty state; the source addresses against GET
// /api/webhooks/ips; a failed answer said where the log goes, with a retry; the times in the user's zone; nothing sticking out at 360 px; axe in both
// themes; the 150 KB budget (openSignedIn).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, launch, openSignedIn, opsConsole, routeJson,
  screenshot, setPreferences, shown, tabTo, waitForCount,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const ROW = '[data-testid=webhook-log] tbody tr';
const shownIds = (page) => page.locator(ROW).evaluateAll((els) => els.map((e) => Number(e.dataset.event)));

// The log as the page shows it is the route's answer to the request the page made (the period's
// start is the page's own instant, so the test asks the route with the very same query).
async function logMatchesRequest(page, action, wanted = '') {
  const asked = page.waitForRequest((r) => r.url().includes('/api/webhooks/logs') && r.url().includes(wanted));
  await action();
  const url = new URL((await asked).url());
  const answer = await routeJson(page, `${url.pathname}${url.search}`);
  if (!answer.items.length) {
    await page.getByText(/^No (older )?callout/).waitFor();
  } else {
    await page.waitForFunction(([s, first]) => document.querySelector(s)?.dataset.event === String(first)
      && !document.querySelector('[aria-busy="true"]'), [ROW, answer.items[0].id]);
    await waitForCount(page, ROW, answer.items.length);
    assert.deepEqual(await shownIds(page), answer.items.map((e) => e.id), `the log for ${url.search}`);
  }
  return { url, answer };
}

const fragment = (page) => page.evaluate(() => new URLSearchParams(window.location.hash.split('?')[1] || '').toString());

for (const name of ['desktop', 'phone']) {
  test(`PSA webhooks at ${name} width`, async () => {
    const who = createUser(`data-wh-${name}`);
    const page = await openSignedIn(browser, { viewport: name, name: 'data-webhooks', hash: '#/data/webhooks', who, ready: ROW });

    // the statistics, the route's own figures
    const stats = await routeJson(page, '/api/webhooks/stats');
    for (const [title, figures] of [['Last 24 hours', stats.last24h], ['Last 7 days', stats.last7d]]) {
      const card = page.getByTestId(`stats-${title}`);
      const text = await card.innerText();
      assert.ok(text.includes(await shown.number(page, figures.total)), `${title}: the total ${figures.total}`);
      assert.ok(text.includes(`${await shown.number(page, figures.by_status.failed || 0)} failed`), `${title}: failed`);
      for (const [type, n] of Object.entries(figures.by_entity_type)) {
        assert.ok(text.includes(`${type}: ${await shown.number(page, n)}`), `${title}: ${type}`);
      }
    }
    assert.ok(stats.last7d.total > 0, 'the seed has callouts this week');

    // the first page, its times in UTC
    const first = await routeJson(page, '/api/webhooks/logs?limit=50');
    await waitForCount(page, ROW, first.items.length);
    assert.deepEqual(await shownIds(page), first.items.map((e) => e.id));
    const e0 = first.items[0];
    const row0 = page.locator(`${ROW}[data-event="${e0.id}"]`);
    assert.equal(await row0.locator('time').innerText(), await shown.dateTime(page, e0.received_at, 'UTC'));
    for (const word of [e0.entity_type, e0.action, e0.status, e0.source_ip]) assert.ok((await row0.innerText()).includes(word));
    if (name === 'phone') await assertFitsWidth(page, 'the webhook log');
    await screenshot(page, `data-webhooks-${name}`);
    await assertAccessibleInBothThemes(page, `the webhook log at ${name} width`);

    // Older with the keyboard: the route's page before next_before; Newer comes back
    assert.ok(first.next_before, 'the seed fills more than a page of 50');
    await tabTo(page, page.getByRole('button', { name: 'Older' }), 200);
    const older = await logMatchesRequest(page, () => page.keyboard.press('Enter'));
    assert.equal(older.url.searchParams.get('before'), String(first.next_before));
    assert.match(await page.getByRole('status').filter({ hasText: /^Page 2/ }).innerText(), /^Page 2: /);
    await logMatchesRequest(page, () => page.getByRole('button', { name: 'Newer' }).click());

    // the filters: each list is the route's for the page's query; they live in the URL
    const failed = await logMatchesRequest(page, () => page.getByLabel('Status').selectOption('failed'));
    assert.equal(failed.url.searchParams.get('status'), 'failed');
    assert.ok(failed.answer.items.every((e) => e.status === 'failed'));
    const tickets = await logMatchesRequest(page, () => page.getByLabel('Entity type').selectOption('Ticket'));
    assert.equal(tickets.url.searchParams.get('entityType'), 'Ticket');
    const week = await logMatchesRequest(page, () => page.getByLabel('Received').selectOption({ label: 'Last 7 days' }));
    const since = Date.parse(week.url.searchParams.get('since'));
    assert.ok(Math.abs(Date.now() - 7 * 86400e3 - since) < 120e3, 'the period starts 7 days before now');
    assert.equal(await fragment(page), 'entityType=Ticket&status=failed&since=7d');
    await page.reload();
    await page.locator(`${ROW}, .state`).first().waitFor();
    assert.equal(await page.getByLabel('Status').inputValue(), 'failed', 'a reload keeps the filters');
    assert.equal(await page.getByLabel('Entity type').inputValue(), 'Ticket');

    // the empty state: nothing failed in the last hour
    const hour = await logMatchesRequest(page, () => page.getByLabel('Received').selectOption({ label: 'Last hour' }));
    if (!hour.answer.items.length) assert.equal(await page.getByText('No callout matches these filters.').isVisible(), true);

    // every status and type again, 25 a page
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Entity type').selectOption('');
    await page.getByLabel('Received').selectOption('');
    const small = await logMatchesRequest(page, () => page.getByLabel('Per page').selectOption('25'), 'limit=25');
    assert.equal(small.answer.items.length, 25);
    assert.equal(await fragment(page), 'limit=25');

    // the source addresses, busiest first, for the week and then the day
    const sources = page.getByTestId('webhook-sources').locator('tbody tr');
    const ips = await routeJson(page, '/api/webhooks/ips?hours=168');
    await waitForCount(page, '[data-testid=webhook-sources] tbody tr', ips.length);
    assert.deepEqual(await sources.evaluateAll((els) => els.map((e) => e.dataset.source)), ips.map((s) => s.source_ip));
    const s0 = sources.first();
    assert.match(await s0.locator('td[data-label=Callouts]').innerText(), new RegExp(await shown.number(page, ips[0].total)));
    const dayAsked = page.waitForRequest((r) => r.url().includes('/api/webhooks/ips?hours=24'));
    await page.getByLabel('Period').selectOption('24');
    await dayAsked;
    const day = await routeJson(page, '/api/webhooks/ips?hours=24');
    if (day.length) {
      await waitForCount(page, '[data-testid=webhook-sources] tbody tr', day.length);
      assert.deepEqual(await sources.evaluateAll((els) => els.map((e) => e.dataset.source)), day.map((s) => s.source_ip));
    }

    // a log the console fails to give is said where the log goes, with a retry that brings it
    await page.route('**/api/webhooks/logs?*', (route) => route.fulfill({ status: 503, contentType: 'application/problem+json',
      body: JSON.stringify({ title: 'Service Unavailable', status: 503, detail: 'the database is not reachable' }) }));
    await page.getByRole('button', { name: 'Reload' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'The database is not reachable.' });
    await refusal.waitFor();
    await page.unroute('**/api/webhooks/logs?*');
    await refusal.getByRole('button', { name: 'Retry' }).click();
    await refusal.waitFor({ state: 'detached' });
    await waitForCount(page, ROW, 25);

    // the user's zone: the received time moves with it
    await setPreferences(page, { timezone: 'Asia/Kolkata' });
    await page.goto(`${opsConsole.url}/#/data/webhooks`);
    await page.reload();
    await waitForCount(page, ROW, (await routeJson(page, '/api/webhooks/logs?limit=50')).items.length);
    const top = (await routeJson(page, '/api/webhooks/logs?limit=1')).items[0];
    assert.equal(await page.locator(`${ROW}[data-event="${top.id}"] time`).innerText(), await shown.dateTime(page, top.received_at, 'Asia/Kolkata'));
    if (name === 'phone') await assertFitsWidth(page, 'the webhook page with its sources');
    await setPreferences(page, { timezone: 'UTC' });
    page.assertClean([allowSignInProbe, /^http 503 GET .*\/api\/webhooks\/logs\?/]); // the failure routed in on purpose
  });
}
