// The analyzer's ticket list (#/analyzer) at a desktop and a phone width, as a user of the test's
// own sees it: each page of GET /api/analyzer/tickets/list with the route's total, the filters
// (period, company, issue type, search) kept in the URL, paging with the keyboard, the empty state;
// analysing tickets: the route's real answer here (503: this console has no language model), the
// cost gate's 409 confirmed in its dialog, the day's warning, the 429's block with the day's total,
// and a job followed until it ends as its row changes; and a list that fails, with its retry.
//
// Why page.route() answers POST /api/analyzer/analyze in part of this test: the browser tests'
// ops-console runs without LLM_BASE_URL, and the route refuses with a 503 before its cost gate
// runs, so neither the 409 (estimate above 5) nor the 429 (day's total at 50) can be provoked
// there. Only those answers are stubbed, with the route's documented shapes; the job they name is
// a real row that the test moves through its states as a worker would (consoleSql), and the page
// follows it through the real GET /api/analyzer/jobs/{id}.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, consoleSql, createUser, launch, openSignedIn, routeJson,
  screenshot, shown, tabTo,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const ROW = 'table.tickets-table tbody tr';
const shownIds = (page) => page.locator(ROW).evaluateAll((els) => els.map((e) => Number(e.dataset.ticket)));
const fragmentQuery = (page) => page.evaluate(() => new URLSearchParams(window.location.hash.split('?')[1] || '').toString());

// The list as the page shows it is the route's for the fragment's query.
async function assertListIsRoutes(page) {
  const q = await fragmentQuery(page);
  const route = await routeJson(page, `/api/analyzer/tickets/list${q ? `?${q}` : ''}`);
  if (!route.items.length) {
    await page.getByText('No ticket matches these filters.').waitFor();
    return route;
  }
  // Waits for the route's own rows, not their count (waitForCount): the page before a move shows
  // as many rows (50) until the move's answer replaces them (a CI run once compared them mid-swap).
  const ids = route.items.map((t) => t.id);
  await page.waitForFunction(([s, want]) => [...document.querySelectorAll(s)].map((e) => Number(e.dataset.ticket)).join()
    === want.join() && !document.querySelector('[aria-busy="true"]'), [ROW, ids]).catch(() => {});
  assert.deepEqual(await shownIds(page), ids, `the tickets of ?${q}`);
  const from = await shown.number(page, route.offset + 1);
  const to = await shown.number(page, route.offset + route.items.length);
  const total = await shown.number(page, route.total);
  await page.getByRole('navigation', { name: 'Pages of tickets' }).getByText(`${from}–${to} of ${total} tickets`).waitFor();
  return route;
}

const problem = (status, type, body) => ({ status, contentType: 'application/problem+json',
  body: JSON.stringify({ type: `/problems/${type}`, title: type, status, ...body }) });

for (const name of ['desktop', 'phone']) {
  test(`analyzer tickets at ${name} width`, async () => {
    const who = createUser(`an-tickets-${name}`);
    const page = await openSignedIn(browser, { viewport: name, name: 'analyzer-tickets', hash: '#/analyzer', who, ready: ROW });

    // the first page and its total, with the route's figures
    const first = await assertListIsRoutes(page);
    assert.ok(first.total > first.items.length, 'the seed fills more than one page');
    const t0 = first.items[0];
    const row = page.locator(`${ROW}[data-ticket="${t0.id}"]`);
    for (const word of [t0.ticketNumber, t0.title, t0.companyName]) assert.ok((await row.innerText()).includes(word));
    assert.ok((await row.innerText()).includes(await shown.dateTime(page, t0.createDate, 'UTC')));
    if (name === 'phone') await assertFitsWidth(page, 'the analyzer ticket list');
    await screenshot(page, `analyzer-tickets-${name}`);
    await assertAccessibleInBothThemes(page, `the analyzer ticket list at ${name} width`);

    // the whole page chosen at once: more than one request may carry, which the page says
    await page.getByRole('checkbox', { name: `Choose the ${first.items.length} tickets of this page` }).check();
    const tooMany = page.getByRole('button', { name: `Analyse ${first.items.length} tickets` });
    assert.equal(await tooMany.isDisabled(), first.items.length > 25);
    if (first.items.length > 25) await page.getByText(`${first.items.length} chosen: at most 25 at once.`).waitFor();
    await page.getByRole('button', { name: 'Clear the choice' }).click();
    await page.getByRole('button', { name: 'Analyse tickets' }).waitFor();

    // the next page with the keyboard
    await tabTo(page, page.getByRole('button', { name: 'Next' }), 400);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.location.hash.includes('offset='));
    const second = await assertListIsRoutes(page);
    assert.equal(second.offset, first.limit);

    // each filter: the list is the route's for the same query, and a reload keeps it
    await page.getByLabel('Created').selectOption({ label: 'Last 30 days' });
    await page.waitForFunction(() => window.location.hash.includes('period=30d') && !window.location.hash.includes('offset='));
    await assertListIsRoutes(page);
    const options = await routeJson(page, '/api/analyzer/tickets/filter-options');
    await page.getByLabel('Company').selectOption({ label: options.clients[1].name });
    await page.waitForFunction(() => window.location.hash.includes('companyId='));
    await assertListIsRoutes(page);
    assert.ok(options.issueTypes.length > 0, 'the seed has issue types');
    await page.getByLabel('Issue type').selectOption({ label: options.issueTypes[0].label });
    await page.waitForFunction(() => window.location.hash.includes('issueType='));
    const narrowed = await assertListIsRoutes(page);
    await page.reload();
    assert.deepEqual(await assertListIsRoutes(page), narrowed, 'a reload keeps the filters');
    await page.getByLabel('Search title or number').fill('no such ticket anywhere');
    await page.keyboard.press('Enter');
    await page.getByText('No ticket matches these filters.').waitFor();

    // the ticket the seed analysed, found by its number
    const target = (await routeJson(page, '/api/analyzer/tickets/list?search=%2350')).items.find((t) => t.id === 9050);
    assert.ok(target, 'ticket 9050 is in the copy');
    await page.evaluate((h) => { window.location.hash = h; }, `#/analyzer?search=${encodeURIComponent(target.ticketNumber)}`);
    await assertListIsRoutes(page);

    // analyse it: this console has no model, and the route says so
    await page.getByRole('checkbox', { name: `Choose ${target.ticketNumber}` }).check();
    await page.getByRole('button', { name: 'Analyse 1 ticket' }).click();
    await page.getByRole('alert').getByText('The language model is not available right now.').waitFor();
    const unchanged = (await routeJson(page, `/api/analyzer/tickets/list?search=${encodeURIComponent(target.ticketNumber)}`)).items[0];
    assert.deepEqual(unchanged.analysis, target.analysis, 'a refused request queued nothing');

    // the cost gate: a 409 with the estimate, confirmed in the dialog, then the 202 with a warning
    const [job] = consoleSql(`INSERT INTO analysis_jobs (ticket_id, status, estimate) VALUES (9050, 'queued', 7.5) RETURNING id`)[0];
    const sent = [];
    const refusal = { estimate: 7.5123, threshold: 5, dayTotal: 23.4, confirmField: 'confirmCost',
      detail: 'this request is estimated above the confirmation threshold; send it again with confirmCost: true' };
    const warning = "today's model spend is 23.40: warnings from 20, requests refused from 50";
    await page.route('**/api/analyzer/analyze', (route) => {
      const body = route.request().postDataJSON();
      sent.push(body);
      if (!body.confirmCost) return route.fulfill(problem(409, 'cost-confirmation-required', refusal));
      return route.fulfill({ status: 202, contentType: 'application/json',
        body: JSON.stringify({ jobs: [{ id: Number(job), ticketId: 9050 }], cost: { estimate: 7.5123, dayTotal: 23.4, warning } }) });
    });
    await page.getByRole('button', { name: 'Analyse 1 ticket' }).click();
    const dialog = page.getByRole('dialog', { name: /Confirm the cost/ });
    await dialog.waitFor();
    assert.equal(await dialog.getByTestId('confirm-estimate').innerText(), await shown.cost(page, refusal.estimate));
    assert.equal(await dialog.getByTestId('confirm-day-total').innerText(), await shown.cost(page, refusal.dayTotal));
    await screenshot(page, `analyzer-tickets-confirm-${name}`);
    await assertAccessibleInBothThemes(page, `the cost confirmation at ${name} width`);
    await dialog.getByRole('button', { name: /^Analyse: about/ }).click();
    await page.getByTestId('cost-warning').waitFor();
    assert.ok((await page.getByTestId('cost-warning').innerText()).includes("Today's model spend is 23.40"));
    assert.deepEqual(sent.map((b) => [b.ticketIds, !!b.confirmCost]), [[[9050], false], [[9050], true]]);

    // the job's state follows the real row until it ends
    const jobRow = page.locator(`[data-job="${job}"]`);
    await jobRow.getByTestId('job-status').getByText('queued').waitFor();
    consoleSql(`UPDATE analysis_jobs SET status = 'running', started_at = now(), attempts = 1 WHERE id = ${job}`);
    await jobRow.getByTestId('job-status').getByText('running').waitFor();
    const [analysis] = consoleSql('SELECT max(id) FROM analyses WHERE ticket_id = 9050 AND status = \'succeeded\'')[0];
    consoleSql(`UPDATE analysis_jobs SET status = 'succeeded', finished_at = now(), analysis_id = ${analysis} WHERE id = ${job}`);
    await jobRow.getByTestId('job-status').getByText('succeeded').waitFor();
    const ended = await routeJson(page, `/api/analyzer/jobs/${job}`);
    assert.equal(ended.status, 'succeeded');
    assert.ok((await jobRow.innerText()).includes(await shown.dateTime(page, ended.finishedAt, 'UTC')));
    await page.getByText('The job ended.').waitFor();
    // the list is read again: the ticket's row names the job's analysis
    const after = (await routeJson(page, `/api/analyzer/tickets/list?search=${encodeURIComponent(target.ticketNumber)}`)).items[0];
    assert.equal(after.analysis.jobId, Number(job));
    await page.locator(`${ROW}[data-ticket="9050"] a[href="#/analyzer/analysis?id=${after.analysis.analysisId}"]`).waitFor();

    // the day's limit: the 429's block with its total, and nothing queued
    await page.getByRole('checkbox', { name: `Choose ${target.ticketNumber}` }).check();
    await page.unroute('**/api/analyzer/analyze');
    const blocked = { estimate: 0.0021, dayTotal: 51.25, limit: 50,
      detail: "today's model spend has reached the daily limit; ask an administrator to raise or override it" };
    await page.route('**/api/analyzer/analyze', (route) => route.fulfill(problem(429, 'daily-cost-limit', blocked)));
    await page.getByRole('button', { name: 'Analyse 1 ticket' }).click();
    const block = page.getByTestId('cost-blocked');
    await block.waitFor();
    assert.ok((await block.innerText()).includes(await shown.cost(page, blocked.dayTotal)));
    assert.ok((await block.innerText()).includes(await shown.cost(page, blocked.limit)));
    if (name === 'phone') await assertFitsWidth(page, 'the jobs and the block');
    await screenshot(page, `analyzer-tickets-jobs-${name}`);

    // the job's link opens its analysis, with the keyboard
    const link = jobRow.getByRole('link', { name: 'Open the analysis' });
    await tabTo(page, link, 60);
    await page.keyboard.press('Enter');
    await page.waitForFunction((id) => window.location.hash === `#/analyzer/analysis?id=${id}`, analysis);
    await page.getByRole('heading', { name: `Analysis of ${target.ticketNumber}` }).waitFor();
    page.assertClean([allowSignInProbe, /^http 503 POST .*\/api\/analyzer\/analyze$/, /^http 409 POST .*\/api\/analyzer\/analyze$/,
      /^http 429 POST .*\/api\/analyzer\/analyze$/]);
  });
}

test('a ticket list that fails is said where the list goes, with a retry that brings it', async () => {
  const who = createUser('an-tickets-fail');
  const page = await openSignedIn(browser, { viewport: 'desktop', name: 'analyzer-tickets-retry', hash: '#/analyzer', who, ready: ROW });
  // the list route fails once (a console that stopped answering), then answers again
  let failed = 0;
  await page.route('**/api/analyzer/tickets/list*', (route) => (failed++ ? route.continue()
    : route.fulfill({ status: 503, contentType: 'application/problem+json',
      body: JSON.stringify({ type: '/problems/unavailable', title: 'Service Unavailable', status: 503, detail: 'the database is restarting' }) })));
  await page.reload();
  const alert = page.getByRole('alert');
  await alert.getByText('The database is restarting.').waitFor();
  await alert.getByRole('button', { name: 'Retry' }).click();
  await assertListIsRoutes(page);
  page.assertClean([allowSignInProbe, /^http 503 GET .*\/api\/analyzer\/tickets\/list$/]);
});
