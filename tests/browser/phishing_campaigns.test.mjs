// The phishing pages (#/phishing and #/phishing/campaign?id=…) at a desktop and a phone width, as
// an analyst of the test's own (phishing read and analyze): the campaigns of
// GET /api/phishing/campaigns with the route's total, paging and its status filter; analysing a ticket
// through the page (a bad id and a missing ticket said under the input, then one of
// seed/45-phishing.sql's reports with pasted headers, which opens a campaign); that campaign's
// reports, messages and indicators as GET /api/phishing/campaigns/{id} gives them; closing it
// (confirmed) and reopening it, checked through the route; classifying it, confirmed, and the
// route's real answer here (503: no language model); a seeded campaign's classification. A user
// with read only is offered no analyse, classify, close or reopen; a user without it is told so.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, launch, openSignedIn, routeJson,
  screenshot, shown, tabTo, waitForCount,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const ROW = 'table.campaigns tbody tr';
const SEEDED = '4b7e0c52-5eed-4000-8000-000000000001'; // seed/45-phishing.sql's open, classified campaign
const shownIds = (page) => page.locator(ROW).evaluateAll((els) => els.map((e) => e.dataset.campaign));

// The list as the page shows it is the route's for the same status and offset (20 a page).
async function assertListIsRoutes(page, status, offset = 0) {
  const route = await routeJson(page, `/api/phishing/campaigns?limit=20${status ? `&status=${status}` : ''}${offset ? `&offset=${offset}` : ''}`);
  await waitForCount(page, ROW, route.items.length);
  assert.deepEqual(await shownIds(page), route.items.map((c) => c.id), `the ${status || 'all'} campaigns from ${offset}`);
  const [from, to, total] = await Promise.all([offset + 1, offset + route.items.length, route.total].map((n) => shown.number(page, n)));
  await page.getByRole('navigation', { name: 'Pages of campaigns' }).getByText(`${from}–${to} of ${total} campaigns`).waitFor();
  return route;
}

for (const [name, ticket] of [['desktop', 9501], ['phone', 9502]]) {
  test(`phishing campaigns at ${name} width`, async () => {
    const who = createUser(`ph-analyst-${name}`, { permissions: ['phishing:read', 'phishing:analyze'] });
    const page = await openSignedIn(browser, { viewport: name, name: 'phishing-campaigns', hash: '#/phishing', who, ready: ROW });
    const all = await assertListIsRoutes(page, '');
    const seeded = all.items.find((c) => c.id === SEEDED);
    const row = page.locator(`${ROW}[data-campaign="${SEEDED}"]`);
    const text = await row.innerText();
    for (const v of [seeded.subjects[0], seeded.latestClassification.verdict, await shown.dateTime(page, seeded.lastSeen, 'UTC')]) {
      assert.ok(text.includes(v), `the seeded campaign shows ${v}`);
    }
    if (name === 'phone') await assertFitsWidth(page, 'the campaigns');
    await screenshot(page, `phishing-campaigns-${name}`);
    await assertAccessibleInBothThemes(page, `the campaigns at ${name} width`);

    // the next page, with the keyboard
    assert.ok(all.total > all.items.length, 'the seed fills more than one page');
    await tabTo(page, page.getByRole('button', { name: 'Next' }), 200);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.location.hash === '#/phishing?offset=20');
    await assertListIsRoutes(page, '', 20);
    await page.getByRole('button', { name: 'Previous' }).click();
    await assertListIsRoutes(page, '');

    // the status filter, with the keyboard: the radios move with the arrow keys
    await tabTo(page, page.getByRole('radio', { name: 'All' }), 40);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => window.location.hash === '#/phishing?status=closed');
    const closed = await assertListIsRoutes(page, 'closed');
    assert.ok(closed.items.every((c) => c.status === 'closed'));
    await page.getByRole('radio', { name: 'Open' }).check();
    await assertListIsRoutes(page, 'open');
    await page.getByRole('radio', { name: 'All' }).check();

    // analysing: a bad id and a missing ticket are said under the input
    const input = page.getByLabel('Ticket id');
    await input.fill('abc');
    await page.getByRole('button', { name: 'Analyse', exact: true }).click();
    await page.locator('#ph-ticket-error').waitFor();
    assert.equal(await input.getAttribute('aria-describedby'), 'ph-ticket-hint ph-ticket-error');
    await input.fill('987654321');
    await page.getByRole('button', { name: 'Analyse', exact: true }).click();
    await page.locator('#ph-ticket-error').getByText(/987654321/).waitFor();
    // then the seed's report, with the keyboard: a new campaign
    await input.fill(String(ticket));
    await input.press('Enter');
    const result = page.getByTestId('analyze-result');
    await result.waitFor();
    assert.ok((await result.innerText()).includes('a new campaign was opened'));
    await assertListIsRoutes(page, '');
    await tabTo(page, result.getByRole('link', { name: 'Open the campaign' }), 10);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.location.hash.startsWith('#/phishing/campaign?id='));
    const id = await page.evaluate(() => new URLSearchParams(window.location.hash.split('?')[1]).get('id'));

    // the campaign as the route gives it
    const c = await routeJson(page, `/api/phishing/campaigns/${id}`);
    assert.equal(c.reports[0].ticketId, ticket);
    await page.getByTestId('campaign-status').getByText('open').waitFor();
    assert.equal(await page.locator('[data-report]').count(), c.reports.length);
    assert.equal(await page.locator('[data-message]').count(), c.messages.length);
    const message = await page.locator(`[data-message="${c.messages[0].id}"]`).innerText();
    for (const v of [c.messages[0].subject, c.messages[0].from.address, c.messages[0].sha256]) assert.ok(message.includes(v), v);
    assert.equal(await page.locator('table.indicators tbody tr').count(), c.indicators.length);
    for (const i of c.indicators) await page.locator('table.indicators td', { hasText: i.value }).first().waitFor();
    await page.getByText('Not classified yet.').waitFor();
    if (name === 'phone') await assertFitsWidth(page, 'the campaign');
    await screenshot(page, `phishing-campaign-${name}`);
    await assertAccessibleInBothThemes(page, `the campaign at ${name} width`);

    // close it, after the confirmation; then reopen it
    await page.getByRole('button', { name: 'Close the campaign' }).click();
    const confirm = page.getByRole('dialog', { name: 'Close this campaign?' });
    await confirm.waitFor();
    await screenshot(page, `phishing-campaign-close-${name}`);
    await confirm.getByRole('button', { name: 'Close it' }).click();
    await page.getByTestId('campaign-status').getByText('closed').waitFor();
    assert.equal((await routeJson(page, `/api/phishing/campaigns/${id}`)).status, 'closed');
    await page.getByRole('button', { name: 'Reopen the campaign' }).click();
    await page.getByTestId('campaign-status').getByText('open').waitFor();
    assert.equal((await routeJson(page, `/api/phishing/campaigns/${id}`)).status, 'open');

    // classify: confirmed, then the route's own answer (no model here), and nothing stored
    await page.getByRole('button', { name: 'Classify' }).click();
    await page.getByRole('dialog', { name: 'Classify with the language model?' }).getByRole('button', { name: 'Classify' }).click();
    await page.getByRole('alert').getByText('The language model is not available right now.').waitFor();
    assert.deepEqual((await routeJson(page, `/api/phishing/campaigns/${id}`)).classifications, []);

    // the seeded campaign's classification, as the route has it
    await page.evaluate((h) => { window.location.hash = h; }, `#/phishing/campaign?id=${SEEDED}`);
    const s = await routeJson(page, `/api/phishing/campaigns/${SEEDED}`);
    const k = page.locator(`[data-classification="${s.classifications[0].id}"]`);
    await k.waitFor();
    for (const r of s.classifications[0].reasons) assert.ok((await k.innerText()).includes(r));
    assert.ok((await k.innerText()).includes(`${await shown.number(page, s.classifications[0].confidence * 100)} % sure`));
    page.assertClean([allowSignInProbe, /^http 400 POST .*\/api\/phishing\/tickets\/abc\/analyze$/,
      /^http 404 POST .*\/api\/phishing\/tickets\/987654321\/analyze$/, /^http 503 POST .*\/classify$/]);
  });
}

test('phishing for a reader: nothing to analyse, classify, close or reopen', async () => {
  const who = createUser('ph-reader', { permissions: ['phishing:read'] });
  const page = await openSignedIn(browser, { viewport: 'desktop', name: 'phishing-campaigns-reader', hash: '#/phishing', who, ready: ROW });
  await assertListIsRoutes(page, '');
  assert.equal(await page.getByLabel('Ticket id').count(), 0);
  await page.evaluate((h) => { window.location.hash = h; }, `#/phishing/campaign?id=${SEEDED}`);
  await page.getByTestId('campaign-status').waitFor();
  for (const b of ['Classify', 'Close the campaign', 'Reopen the campaign', /^Analyse again/]) {
    assert.equal(await page.getByRole('button', { name: b }).count(), 0, `no ${b}`);
  }
  page.assertClean([allowSignInProbe]);
});

test('phishing without the permission: the route\'s refusal, said', async () => {
  const who = createUser('ph-none');
  const page = await openSignedIn(browser, { viewport: 'desktop', name: 'phishing-campaigns-none', hash: '#/phishing', who,
    ready: '[role="alert"]' });
  await page.getByRole('alert').getByText('You do not have access to this.').waitFor();
  page.assertClean([allowSignInProbe, /^http 403 GET .*\/api\/phishing\/campaigns\?limit=20$/]);
});
