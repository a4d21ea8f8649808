// The distributor's sync (#/distributor/sync) at a phone and a desktop width, on the console whose
// distributor is the sandbox's Pax8 fake, as a plain user of this file's own: the copy's counts
// and the last runs as GET /api/distributor/sync gives them; a run started from the page (the
// keyboard at the phone, the mouse at the desktop), a real one against the fake, followed until it
// ends: its row is the route's newest, succeeded, and the counts shown are the route's after it;
// the runs' times in the user's zone, and in another after she changes it.
// Nothing sticking out at 360 px; axe in both themes; the 150 KB budget.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, openSignedIn, routeJson, screenshot,
  setPreferences, shown, tabTo,
} from './lib.mjs';
import { startDistributorFile } from './distributor.mjs';

const RUN = 'table[data-testid="history"] tbody tr';
let browser;
let user;
before(async () => { ({ browser, user } = await startDistributorFile('dist-sync')); });
after(async () => { await browser?.close(); });

async function assertStateIs(page, s, zone = 'UTC') {
  for (const key of ['companies', 'subscriptions', 'items']) {
    assert.equal(await page.locator(`[data-count="${key}"]`).innerText(), await shown.number(page, s.counts[key]), key);
  }
  await page.waitForFunction(([sel, ids]) => JSON.stringify([...document.querySelectorAll(sel)].map((e) => Number(e.dataset.run)))
    === JSON.stringify(ids), [RUN, s.history.map((h) => h.id)]);
  const newest = s.history[0];
  const row = page.locator(`tr[data-run="${newest.id}"]`);
  assert.equal(await row.locator('td[data-label="Started"]').innerText(), await shown.dateTime(page, newest.startedAt, zone));
  assert.ok((await row.innerText()).includes(newest.status));
}

for (const name of ['phone', 'desktop']) {
  test(`distributor sync at ${name} width`, async () => {
    const page = await openSignedIn(browser, { viewport: name, name: 'distributor-sync', hash: '#/distributor/sync', who: user,
      ready: RUN });
    const before = await routeJson(page, '/api/distributor/sync');
    assert.equal(before.inProgress, false);
    await assertStateIs(page, before);
    if (name === 'phone') await assertFitsWidth(page, 'the distributor sync');
    await screenshot(page, `distributor-sync-${name}`);
    await assertAccessibleInBothThemes(page, `the distributor sync at ${name} width`);

    // a run from the page, followed until it ends
    const button = page.getByRole('button', { name: 'Run a sync now' });
    if (name === 'phone') {
      await tabTo(page, button, 40);
      await page.keyboard.press('Enter');
    } else {
      await button.click();
    }
    await page.getByRole('status').filter({ hasText: 'The run has ended' }).waitFor({ timeout: 120000 });
    const after = await routeJson(page, '/api/distributor/sync');
    assert.equal(after.inProgress, false);
    const run = after.history[0];
    assert.ok(!before.history.some((h) => h.id === run.id), 'the newest run is the one the page started');
    assert.equal(run.status, 'succeeded', `the run succeeded (${run.error})`);
    assert.ok(run.counts.companies > 0, 'it read the fake\'s companies');
    await assertStateIs(page, after);
    assert.equal(await page.getByRole('button', { name: 'Run a sync now' }).isEnabled(), true);

    // the user's zone: the runs' times move with it
    await setPreferences(page, { timezone: 'Asia/Kolkata' });
    await page.reload();
    await assertStateIs(page, await routeJson(page, '/api/distributor/sync'), 'Asia/Kolkata');
    await setPreferences(page, { timezone: 'UTC' });
    page.assertClean([allowSignInProbe]);
  });
}
