// The analyzer's reports (#/analyzer/reports) at a desktop and a phone width: asking for one, with
// the route's real answer here (503: this console has no language model); a report the page opens
// by its address while its narrative is still being written, followed until the row is completed
// (as the service's narrator would complete it: consoleSql), its distributions with the route's
// figures; and the cost gate's 409 confirmed in its dialog, which then opens the report the 202
// names. Why page.route() answers POST /api/analyzer/reports for that one path: without
// LLM_BASE_URL the route refuses with a 503 before its cost gate runs (see analyzer_tickets).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, consoleSql, createUser, launch, openSignedIn, routeJson,
  screenshot, shown, tabTo,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// A pending report over the last 30 days, with the distributions the route itself computes for it
// (the latest successful analysis of each ticket), as POST /api/analyzer/reports stores one.
function pendingReport() {
  const [[id]] = consoleSql(`WITH latest AS (
      SELECT DISTINCT ON (a.ticket_id) coalesce(a.category, 'unknown') AS category, t.company_id
      FROM analyses a JOIN tickets t ON t.id = a.ticket_id
      WHERE a.status = 'succeeded' AND t.deleted_at IS NULL AND t.create_date >= now() - interval '30 days'
      ORDER BY a.ticket_id, a.completed_at DESC NULLS LAST, a.id DESC)
    INSERT INTO analyzer_reports (period, status, distributions)
    SELECT '30d', 'pending', jsonb_build_object('tickets', (SELECT count(*) FROM latest),
      'byCategory', (SELECT coalesce(jsonb_agg(jsonb_build_object('key', category, 'label', category, 'count', n) ORDER BY n DESC, category), '[]')
                     FROM (SELECT category, count(*) AS n FROM latest GROUP BY 1) x),
      'byIssueType', '[]'::jsonb, 'byPriority', '[]'::jsonb,
      'byCompany', (SELECT coalesce(jsonb_agg(jsonb_build_object('key', company_id::text, 'label', company_name, 'count', n) ORDER BY n DESC, company_name), '[]')
                    FROM (SELECT l.company_id, c.company_name, count(*) AS n FROM latest l LEFT JOIN companies c ON c.id = l.company_id GROUP BY 1, 2) y))
    RETURNING id`);
  return Number(id);
}

for (const name of ['desktop', 'phone']) {
  test(`analyzer reports at ${name} width`, async () => {
    const who = createUser(`an-reports-${name}`);
    const page = await openSignedIn(browser, { viewport: name, name: 'analyzer-reports', hash: '#/analyzer/reports', who,
      ready: '#ask-h' });
    await page.waitForFunction(() => document.querySelectorAll('#rep-company option').length > 1); // the companies' names

    // asking: this console has no model, and the route says so
    await page.getByLabel('Period').selectOption({ label: 'Last 30 days' });
    await page.getByRole('button', { name: 'Make the report' }).click();
    await page.getByRole('alert').getByText('The language model is not available right now.').waitFor();

    // a report being written: the page reads it again until the narrative is there
    const id = pendingReport();
    await page.evaluate((h) => { window.location.hash = h; }, `#/analyzer/reports?id=${id}`);
    await page.getByTestId('report-status').getByText('pending').waitFor();
    await page.getByText('Being written; this page reads it again by itself.').waitFor();
    const narrative = 'Network tickets lead this month; Contoso accounts for most of them.';
    consoleSql(`UPDATE analyzer_reports SET status = 'succeeded', narrative = '${narrative}', completed_at = now() WHERE id = ${id}`);
    await page.getByTestId('narrative').getByText(narrative).waitFor();
    const report = await routeJson(page, `/api/analyzer/reports/${id}`);
    assert.equal(report.status, 'succeeded');
    assert.equal(await page.getByTestId('report-tickets').innerText(), await shown.number(page, report.distributions.tickets));
    for (const key of ['byCategory', 'byCompany']) {
      const rows = page.locator(`[data-distribution="${key}"] tbody tr`);
      assert.equal(await rows.count(), report.distributions[key].length, key);
      for (const [i, r] of report.distributions[key].entries()) {
        assert.equal(await rows.nth(i).locator('th').innerText(), r.label);
        assert.equal(await rows.nth(i).locator('td.num').innerText(), await shown.number(page, r.count));
      }
    }
    assert.ok((await page.getByRole('heading', { level: 2, name: `Report ${id}` }).innerText()).includes('Last 30 days'));
    if (name === 'phone') await assertFitsWidth(page, 'the report');
    await screenshot(page, `analyzer-reports-${name}`);
    await assertAccessibleInBothThemes(page, `the report at ${name} width`);

    // the cost gate: a 409 confirmed in its dialog (with the keyboard), then the report the 202 names
    const sent = [];
    await page.route('**/api/analyzer/reports', (route) => {
      const body = route.request().postDataJSON();
      sent.push(body);
      if (!body.confirmCost) {
        return route.fulfill({ status: 409, contentType: 'application/problem+json', body: JSON.stringify({
          type: '/problems/cost-confirmation-required', title: 'cost-confirmation-required', status: 409,
          estimate: 6.02, threshold: 5, dayTotal: 1.5, confirmField: 'confirmCost' }) });
      }
      return route.fulfill({ status: 202, contentType: 'application/json',
        body: JSON.stringify({ ...report, cost: { estimate: 6.02, dayTotal: 1.5 } }) });
    });
    await page.evaluate((h) => { window.location.hash = h; }, `#/analyzer/reports`);
    const companies = (await routeJson(page, '/api/analyzer/tickets/filter-options')).clients;
    await page.getByLabel('Company').selectOption({ label: companies[0].name });
    await tabTo(page, page.getByRole('button', { name: 'Make the report' }));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: /Confirm the cost/ });
    await dialog.waitFor();
    assert.equal(await dialog.getByTestId('confirm-estimate').innerText(), await shown.cost(page, 6.02));
    await tabTo(page, dialog.getByRole('button', { name: /^Make it: about/ }));
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => window.location.hash === `#/analyzer/reports?id=${n}`, id);
    await page.getByTestId('narrative').getByText(narrative).waitFor();
    assert.deepEqual(sent, [{ period: '30d', companyId: companies[0].id }, { period: '30d', companyId: companies[0].id, confirmCost: true }]);
    page.assertClean([allowSignInProbe, /^http 503 POST .*\/api\/analyzer\/reports$/, /^http 409 POST .*\/api\/analyzer\/reports$/]);
  });
}
