// Engagement (#/m/engagement) at a phone and a desktop width, as the seed's Enzo sees it: the
// summary, the per-day sparklines and the users of GET /api/mobile/engagement/summary|trend|users,
// for the period the switch (operated with the keyboard, kept in the URL) names; the days in UTC
// whatever his zone; the route's configured: false said, and then no photo asked for; his theme;
// nothing sticking out at 360 px; axe in both themes; the 150 KB budget. A last test gives the
// page a mail source and a directory through the routes' documented answers, to see a photo shown
// and initials where the directory has none.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, launch, openPage, openSignedIn, pageUser, routeJson,
  screenshot, setPreferences, shown, signIn, tabTo, viewports,
} from './lib.mjs';

const USER = pageUser('m-engagement@browser.example');
const PERIOD_NAMES = { D7: '7 days', D30: '30 days', D90: '90 days' };
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function assertPeriod(page, period) {
  const [summary, trend, users] = await Promise.all(['summary', 'trend', 'users']
    .map((r) => routeJson(page, `/api/mobile/engagement/${r}?period=${period}`)));
  assert.equal(await page.getByRole('radio', { name: PERIOD_NAMES[period] }).isChecked(), true);
  // the summary
  const figures = { activeUsers: 0, totalPlatformHours: 1, totalPsaHours: 1, hoursPerActiveUser: 1 };
  await page.waitForFunction(([key, text]) => document.querySelector(`[data-kpi="${key}"] .value`)?.textContent === text,
    ['activeUsers', await shown.number(page, summary.activeUsers)]);
  for (const [key, digits] of Object.entries(figures)) {
    assert.equal(await page.locator(`[data-kpi="${key}"] .value`).innerText(), await shown.number(page, summary[key], digits), key);
  }
  // one sparkline per series over the period's UTC days, its figure the route's
  assert.equal(trend.points.length, { D7: 7, D30: 30, D90: 90 }[period]);
  const sent = trend.points.reduce((s, p) => s + p.sent, 0);
  const card = page.locator('[data-series="sent"]');
  assert.ok((await card.innerText()).includes(await shown.number(page, sent)), `e-mails sent: ${sent}`);
  const alt = await card.getByRole('img').getAttribute('aria-label');
  assert.ok(alt.includes(`${trend.points.length} days`) && alt.includes(await shown.day(page, trend.points[0].date)), alt);
  // the users, most hours first
  const rows = page.locator('[data-testid="users"] > li');
  assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => e.dataset.user)), users.users.map((u) => u.userId));
  for (const u of users.users.slice(0, 3)) {
    const text = await page.locator(`[data-user="${u.userId}"]`).innerText();
    assert.ok(text.includes(u.name || u.email), `${u.email}'s name`);
    assert.ok(text.includes(`${await shown.number(page, u.sent)} sent`) && text.includes(await shown.number(page, u.totalHours, 1)));
  }
  return { summary, trend, users };
}

for (const name of ['phone', 'desktop']) {
  test(`engagement at ${name} width`, async () => {
    const page = await openSignedIn(browser, { viewport: name, name: 'mobile-engagement', hash: '#/m/engagement', who: USER,
      ready: '[data-testid="users"]' });
    // every request the page made, from the first (the page was loaded with no mail source)
    const photos = await page.evaluate(() => performance.getEntriesByType('resource').map((r) => r.name).filter((u) => /\/photo$/.test(u)));
    page.on('request', (r) => { if (/\/photo$/.test(new URL(r.url()).pathname)) photos.push(r.url()); });

    const { trend, users } = await assertPeriod(page, 'D30');
    assert.ok(users.users.length >= 3, 'the seed has engaged users');
    // no mail source in the test service: said, and no photo asked for (initials instead)
    assert.equal(users.configured, false);
    await page.getByText('No mail source is connected').waitFor();
    assert.deepEqual(photos, []);
    assert.equal(await page.locator('[data-testid="users"] .avatar.initials').count(), users.users.length);
    // the days are UTC, and the page says so
    const lastDay = trend.points[trend.points.length - 1].date;
    const note = page.locator('h1 + .note');
    assert.equal(await note.innerText(), `days are UTC dates; the last is ${await shown.day(page, lastDay)} (UTC)`);
    if (name === 'phone') await assertFitsWidth(page, 'engagement');
    await screenshot(page, `mobile-engagement-${name}`);
    await assertAccessibleInBothThemes(page, `engagement at ${name} width`);

    // the period with the keyboard: the radio group's arrows, kept in the URL
    await tabTo(page, page.getByRole('radio', { name: '30 days' }));
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => window.location.hash === '#/m/engagement?period=D7');
    await assertPeriod(page, 'D7');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => window.location.hash === '#/m/engagement?period=D90');
    const d90 = await assertPeriod(page, 'D90');
    assert.deepEqual(d90.summary.source, ['mailsec', 'mailplatform'], 'the seed serves 90 days from both sources');
    await page.reload();
    await assertPeriod(page, 'D90');

    // his zone does not move the UTC days; his theme
    await setPreferences(page, { timezone: 'Pacific/Kiritimati', theme: 'dark' });
    await page.reload();
    await assertPeriod(page, 'D90');
    assert.equal(await note.innerText(), `days are UTC dates; the last is ${await shown.day(page, lastDay)} (UTC)`);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    if (name === 'phone') await screenshot(page, 'mobile-engagement-phone-dark');
    await setPreferences(page, { theme: 'system', timezone: 'UTC' });
    assert.deepEqual(photos, []);
    page.assertClean([allowSignInProbe]);
  });
}

// With a mail source and a directory (configured: true, and the photo route's answers: a photo for
// the first user, 404 "no photo" for the others), the first user's photo is shown and the others
// get their initials; the directory is asked once before the other photos are loaded.
test('engagement photos: a photo where the directory has one, initials where it answers 404', async () => {
  const page = await openPage(browser, viewports.phone);
  await signIn(page, '#/m/engagement', USER);
  const real = await routeJson(page, '/api/mobile/engagement/users?period=D30');
  const [first, ...others] = real.users;
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAgH/eZ5U6wAAAABJRU5ErkJggg==', 'base64');
  const asked = [];
  await page.route(/\/api\/mobile\/engagement\/(summary|trend|users)\?period=/, async (r) => {
    const res = await r.fetch();
    r.fulfill({ response: res, json: { ...(await res.json()), configured: true } });
  });
  await page.route(/\/api\/mobile\/engagement\/user\/[^/]+\/photo$/, (r) => {
    const user = decodeURIComponent(new URL(r.request().url()).pathname.split('/')[5]);
    asked.push(user);
    if (user === first.userId) {
      return r.fulfill({ contentType: 'image/png', body: png, headers: { 'Cache-Control': 'private, max-age=3600' } });
    }
    return r.fulfill({ status: 404, contentType: 'application/problem+json', json: { status: 404, detail: 'no photo' } });
  });
  await page.reload();
  await page.locator('[data-testid="users"]').scrollIntoViewIfNeeded();
  const img = page.locator(`[data-user="${first.userId}"] img.avatar`);
  await img.waitFor();
  await page.waitForFunction((sel) => document.querySelector(sel)?.complete, `[data-user="${first.userId}"] img.avatar`);
  assert.ok(await img.evaluate((el) => el.naturalWidth > 0), 'the photo is shown');
  assert.equal(await page.getByText('No mail source is connected').count(), 0);
  for (const u of others) {
    await page.locator(`[data-user="${u.userId}"] .avatar.initials`).waitFor();
  }
  assert.equal(asked[0], first.userId, 'the first photo asked is the probe');
  await assertFitsWidth(page, 'engagement with photos');
  await screenshot(page, 'mobile-engagement-phone-photos');
  // the 404s are the directory's "no photo" for the users who have none, answered on purpose here
  page.assertClean([allowSignInProbe, /^http 404 GET .*\/api\/mobile\/engagement\/user\/[^/]+\/photo$/]);
});
