// What the distributor's page tests share (distributor_*.test.mjs): the copy of the Pax8 fake on
// the vendors console. The first file to need it starts a sync through the route (a 409 says
// another file did); every file then waits until a run has copied the companies and none is under
// way. A file that runs a sync of its own does it from its page, after this.
import assert from 'node:assert/strict';
import { createUser, launch, openPage, signIn } from './lib.mjs';

export async function ensureDistributorCopy(browser, who) {
  const page = await openPage(browser);
  await signIn(page, '#/distributor/sync', who);
  const state = () => page.evaluate(async () => (await fetch('/api/distributor/sync')).json());
  const s = await state();
  if (!s.inProgress && s.counts.companies === 0) {
    const started = await page.evaluate(async () => (await fetch('/api/distributor/sync', { method: 'POST' })).status);
    assert.ok([202, 409].includes(started), `the distributor sync starts (${started})`);
  }
  await page.waitForFunction(async () => {
    const now = await (await fetch('/api/distributor/sync')).json();
    return !now.inProgress && now.counts.companies > 0;
  }, null, { polling: 500, timeout: 120000 });
  await page.context().close();
}

// A distributor test file's start: its Chromium, its user on the vendors console (createUser's
// options), and the copy in place. Returns { browser, user }.
export async function startDistributorFile(prefix, options = {}) {
  const browser = await launch();
  const user = createUser(prefix, { console: 'vendors', ...options });
  await ensureDistributorCopy(browser, user);
  return { browser, user };
}
