// The kiosk wall display (#/kiosk, issue 34 item 7) on a 1920×1080 wall screen and a 360-px phone,
// signed in with a wall display's account of its own (create-user --kiosk): the route's figures in
// large type; the account kept in the browser when asked, so that the screen signs in again by
// itself when its session ends; the last figures kept, marked stale, while the console fails, and
// fresh again once it answers; a refused account forgotten and a person asked for; a person's
// password never kept; and such an account refused everything but the wall.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, consoleSql, createUser, launch, openPage, opsConsole,
  routeJson, screenshot, shown,
} from './lib.mjs';

const WALL = { width: 1920, height: 1080 };
const KEPT = 'ops.kiosk-display';

async function signInWall(page, who, { keep = true } = {}) {
  await page.goto(`${opsConsole.url}/#/kiosk`);
  await page.getByRole('heading', { name: 'Wall display' }).waitFor();
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  const box = page.getByLabel('Keep this screen signed in');
  if ((await box.isChecked()) !== keep) await box.click();
  await page.getByRole('button', { name: 'Show the wall' }).click();
  await page.locator('[data-kpi="openTickets"] .value').waitFor();
}

// What the wall shows, against GET /api/kiosk/wall as the page's session gets it.
async function assertShowsTheRoute(page) {
  const wall = await routeJson(page, '/api/kiosk/wall');
  for (const [key, value] of Object.entries(wall.kpis)) {
    assert.equal(await page.locator(`[data-kpi="${key}"] .value`).textContent(), await shown.number(page, value), key);
  }
  const tickets = page.locator('.kiosk-tickets li');
  assert.equal(await tickets.count(), wall.needsAttention.length);
  if (wall.needsAttention.length) {
    const first = wall.needsAttention[0];
    assert.equal(await tickets.first().locator('.number').textContent(), first.ticketNumber || `#${first.ticketId}`);
  }
  assert.deepEqual(await page.locator('.kiosk-workers li').evaluateAll((els) => els.map((e) => e.dataset.worker)),
    wall.workers.map((w) => w.name));
  return wall;
}

// The wall's next refresh, now (it also refreshes when the tab becomes visible).
const refreshNow = (page) => page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));

test('the wall screen: the route\'s figures, signing in again by itself, stale while the console fails', async () => {
  const browser = await launch();
  try {
    const who = createUser('kiosk-wall', { kiosk: true });
    const page = await openPage(browser, WALL);
    await signInWall(page, who);
    const wall = await assertShowsTheRoute(page);
    assert.ok(wall.companies > 0, 'the seeded kiosk settings show companies');
    assert.deepEqual(JSON.parse(await page.evaluate((k) => localStorage.getItem(k), KEPT)),
      { email: who.email, password: who.password }, 'the wall display\'s account is kept, as asked');
    await assertAccessibleInBothThemes(page, 'the wall');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'kiosk-wall-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'kiosk-wall');

    // the account reads the wall and nothing else
    assert.equal((await page.request.get(`${opsConsole.url}/api/dashboard/overview`)).status(), 403);
    assert.equal((await routeJson(page, '/api/auth/me')).kiosk, true);

    // the session ends (as after 12 hours): the next refresh signs in again with the kept account
    await page.request.post(`${opsConsole.url}/api/auth/logout`);
    assert.equal((await page.request.get(`${opsConsole.url}/api/kiosk/wall`)).status(), 401);
    const signedInAgain = page.waitForResponse((r) => r.url().endsWith('/api/auth/login') && r.status() === 200);
    await refreshNow(page);
    await signedInAgain;
    await page.waitForResponse((r) => r.url().endsWith('/api/kiosk/wall') && r.status() === 200);
    assert.equal((await page.request.get(`${opsConsole.url}/api/kiosk/wall`)).status(), 200, 'a new session');
    await assertShowsTheRoute(page);

    // the console fails (its database down): the last figures stay, marked with their time
    const before = await page.locator('[data-kpi="openTickets"] .value').textContent();
    await page.route('**/api/kiosk/wall', (r) => r.fulfill({ status: 503, contentType: 'application/problem+json',
      body: JSON.stringify({ title: 'Service Unavailable', status: 503, detail: 'the database is not reachable' }) }));
    await refreshNow(page);
    const stale = page.locator('.kiosk-stale');
    await stale.waitFor();
    assert.match(await stale.textContent(), /^Not updated since .+: the database is not reachable\. Trying again/);
    assert.equal(await page.locator('[data-kpi="openTickets"] .value').textContent(), before, 'the last figures stay');
    await screenshot(page, 'kiosk-wall-stale');
    await page.unroute('**/api/kiosk/wall');
    await refreshNow(page);
    await stale.waitFor({ state: 'detached' });

    // the account refused (its password changed): forgotten, and the screen asks for a person
    consoleSql(`UPDATE users SET password_hash = 'changed' WHERE email = '${who.email}'`);
    await page.request.post(`${opsConsole.url}/api/auth/logout`);
    await refreshNow(page);
    await page.getByRole('heading', { name: 'Wall display' }).waitFor();
    assert.match(await page.getByRole('status').first().textContent(), /account was refused/);
    assert.equal(await page.evaluate((k) => localStorage.getItem(k), KEPT), null, 'the refused account is forgotten');
    await screenshot(page, 'kiosk-signin');
    page.assertClean([/^http 401 (GET|POST) .*\/api\/(kiosk\/wall|auth\/login|auth\/me)$/,
      /^http 403 GET .*\/api\/dashboard\/overview$/, /^http 503 GET .*\/api\/kiosk\/wall$/]);
  } finally {
    await browser.close();
  }
});

test('a phone, with the keyboard; a person\'s password is never kept; the console sends a wall account to the wall', async () => {
  const browser = await launch();
  try {
    const person = createUser('kiosk-person');
    const phone = await openPage(browser, { width: 360, height: 740 });
    await phone.goto(`${opsConsole.url}/#/kiosk`);
    await phone.getByLabel('E-mail').waitFor();
    await phone.keyboard.press('Tab');
    await phone.keyboard.type(person.email);
    await phone.keyboard.press('Tab');
    await phone.keyboard.type(person.password);
    await phone.keyboard.press('Enter');
    await phone.locator('[data-kpi="openTickets"] .value').waitFor();
    assert.equal(await phone.evaluate((k) => localStorage.getItem(k), KEPT), null, 'a person\'s password is not kept');
    assert.match(await phone.getByRole('status').first().textContent(), /signed in as a person/);
    await assertShowsTheRoute(phone);
    await assertFitsWidth(phone, 'the wall on a phone');
    await screenshot(phone, 'kiosk-wall-phone');
    phone.assertClean([/^http 401 GET .*\/api\/(kiosk\/wall|auth\/me)$/]);

    // a wall account signing in on the console's own sign-in page lands on the wall
    const wallAccount = createUser('kiosk-elsewhere', { kiosk: true });
    const desk = await openPage(browser);
    await desk.goto(`${opsConsole.url}/#/`);
    await desk.getByLabel('E-mail').fill(wallAccount.email);
    await desk.getByLabel('Password').fill(wallAccount.password);
    await desk.getByRole('button', { name: 'Sign in' }).click();
    await desk.waitForURL(/#\/kiosk$/);
    await desk.locator('[data-kpi="openTickets"] .value').waitFor();
    desk.assertClean([allowSignInProbe]);
  } finally {
    await browser.close();
  }
});
