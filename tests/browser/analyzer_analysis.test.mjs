// One analysis (#/analyzer/analysis?id=…) at a desktop and a phone width: the seed's finished
// analysis (seed/40-analyzer.sql) as GET /api/analyzer/analyses/{id} gives it; for an
// administrator its stages with their timing, tokens and cost (its run in
// GET /api/admin/pipeline-executions) and its traces, for a plain user neither (the route gives no
// traces, the runs' route is administrators'); the ticket's other analyses; and sharing it by
// e-mail: a 400's field error under the recipients, then a share the route records while this
// console, which has no mail sender, answers emailSent: false, shown as a warning.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, consoleSql, createUser, launch, openSignedIn, routeJson,
  screenshot, shown, tabTo,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const [[SEEDED]] = consoleSql("SELECT id FROM analyses WHERE ticket_id = 9050 AND traces <> '[]' ORDER BY id LIMIT 1");

for (const name of ['desktop', 'phone']) {
  test(`an analysis at ${name} width, as an administrator`, async () => {
    const who = createUser(`an-detail-admin-${name}`, { admin: true });
    const hash = `#/analyzer/analysis?id=${SEEDED}`;
    const page = await openSignedIn(browser, { viewport: name, name: 'analyzer-analysis', hash, who, ready: '[data-testid="summary"]' });
    const a = await routeJson(page, `/api/analyzer/analyses/${SEEDED}`);
    assert.equal(await page.getByTestId('summary').innerText(), a.summary);
    const facts = await page.getByTestId('facts').innerText();
    for (const v of [a.category, a.urgency, a.sentiment, a.model, await shown.number(page, a.promptTokens),
      await shown.number(page, a.completionTokens), await shown.cost(page, a.cost)]) assert.ok(facts.includes(v), `facts show ${v}`);
    for (const item of [...a.nextSteps, ...a.documentationReferences, ...a.reviewReasons]) await page.getByText(item, { exact: true }).waitFor();

    // the stages of its run, as the runs' route has them
    const runs = await routeJson(page, '/api/admin/pipeline-executions?pipeline_id=1&limit=500');
    const run = runs.items.find((r) => r.id === a.executionId);
    assert.ok(run, 'the analysis names its run');
    for (const s of run.output_data.stages) {
      const row = page.locator(`tr[data-stage="${s.name}"]`);
      const text = await row.innerText();
      for (const v of [`${await shown.number(page, s.durationMs)} ms`, await shown.number(page, s.promptTokens),
        await shown.number(page, s.completionTokens), await shown.cost(page, s.cost)]) assert.ok(text.includes(v), `${s.name} shows ${v}`);
    }
    // traces, administrators only: the route gives them, the page shows each stage's
    assert.equal(a.traces.length, 2);
    for (const t of a.traces) await page.locator('details.trace summary').getByText(t.stage, { exact: true }).waitFor();
    // the ticket's other analyses are the route's
    const others = (await routeJson(page, `/api/analyzer/analyses?ticketId=${a.ticketId}`)).filter((x) => x.id !== a.id);
    assert.equal(await page.locator('section[aria-labelledby="others-h"] li').count(), others.length);

    if (name === 'phone') await assertFitsWidth(page, 'the analysis');
    await screenshot(page, `analyzer-analysis-${name}`);
    await assertAccessibleInBothThemes(page, `the analysis at ${name} width`);

    // share: a bad address is said under the recipients' input
    await page.getByLabel('Recipients').fill('not-an-address');
    await page.getByRole('button', { name: 'Share' }).click();
    const error = page.locator('#share-to-error');
    await error.waitFor();
    assert.equal(await page.getByLabel('Recipients').getAttribute('aria-describedby'), 'share-to-hint share-to-error');
    assert.equal(await page.getByLabel('Recipients').getAttribute('aria-invalid'), 'true');

    // then a good one, with the keyboard: recorded, and the missing mail sender is a warning
    await page.getByLabel('Recipients').fill('lead@msp.example, ops@msp.example');
    await tabTo(page, page.getByLabel(/^Message/));
    await page.keyboard.type('Please look at the tunnel today.');
    await tabTo(page, page.getByRole('button', { name: 'Share' }));
    const answer = page.waitForResponse((r) => r.url().endsWith(`/api/analyzer/analyses/${SEEDED}/share`) && r.status() === 200);
    await page.keyboard.press('Enter');
    const shared = await (await answer).json();
    assert.equal(shared.emailSent, false);
    assert.deepEqual(shared.share.recipients, ['lead@msp.example', 'ops@msp.example']);
    assert.equal(shared.share.message, 'Please look at the tunnel today.');
    const result = page.getByTestId('share-result');
    await result.waitFor();
    const text = await result.innerText();
    assert.ok(text.includes('The share is recorded, but no e-mail was sent.'));
    assert.ok(text.includes(shared.emailError), 'the route\'s reason');
    assert.equal(await result.getAttribute('role'), 'status', 'a warning, not an alert');
    assert.ok(await result.evaluate((el) => el.classList.contains('warn')));
    if (name === 'phone') await assertFitsWidth(page, 'the share\'s warning');
    await screenshot(page, `analyzer-analysis-shared-${name}`);
    page.assertClean([allowSignInProbe, /^http 400 POST .*\/share$/]);
  });
}

test('an analysis as a plain user: no stages of the run, no traces', async () => {
  const who = createUser('an-detail-user');
  const page = await openSignedIn(browser, { viewport: 'desktop', name: 'analyzer-analysis-user',
    hash: `#/analyzer/analysis?id=${SEEDED}`, who, ready: '[data-testid="summary"]' });
  const a = await routeJson(page, `/api/analyzer/analyses/${SEEDED}`);
  assert.equal(a.traces, undefined, 'the route gives a plain user no traces');
  await page.getByTestId('stages-admin-only').waitFor();
  assert.equal(await page.getByRole('heading', { name: 'Traces' }).count(), 0);
  assert.equal(await page.locator('tr[data-stage]').count(), 0);
  page.assertClean([allowSignInProbe]);
});
