// The analyzer feed (#/m/feed) at a phone and a desktop width, as the seed's Fred sees it: each
// page of GET /api/mobile/analyzer/feed in order with its fields, "Load more" with the keyboard and
// then endless scrolling to the route's last page, the completion times in his zone, his theme;
// nothing sticking out at 360 px; axe in both themes; the 150 KB budget.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, launch, openSignedIn, pageUser, routePages, screenshot,
  setPreferences, shown, tabTo, waitForCount,
} from './lib.mjs';

const USER = pageUser('m-feed@browser.example');
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const ITEM = '.endless [data-analysis]';
const shownIds = (page) => page.locator(ITEM).evaluateAll((els) => els.map((e) => Number(e.dataset.analysis)));

for (const name of ['phone', 'desktop']) {
  test(`analyzer feed at ${name} width`, async () => {
    const page = await openSignedIn(browser, { viewport: name, name: 'mobile-feed', hash: '#/m/feed', who: USER, ready: ITEM });
    const pages = await routePages(page, '/api/mobile/analyzer/feed');
    assert.ok(pages.length >= 2, `the seed's analyses fill ${pages.length} pages of 25`);
    await waitForCount(page, ITEM, pages[0].length);
    assert.deepEqual(await shownIds(page), pages[0].map((a) => a.id));
    for (const a of pages[0].slice(0, 8)) {
      const text = await page.locator(`[data-analysis="${a.id}"]`).innerText();
      for (const word of [a.ticketNumber, a.ticketTitle, a.companyName, a.summary, a.category]) {
        if (word) assert.ok(text.includes(word), `analysis ${a.id} shows ${word}`);
      }
      if (a.status === 'failed') assert.ok(text.includes('analysis failed'));
      if (a.needsReview) assert.ok(text.includes('needs review'));
    }
    const a0 = pages[0][0];
    const completed = page.locator(`[data-analysis="${a0.id}"] time`);
    const utc = await completed.innerText();
    assert.equal(utc, await shown.dateTime(page, a0.completedAt, 'UTC'));
    if (name === 'phone') await assertFitsWidth(page, 'the analyzer feed');
    await screenshot(page, `mobile-feed-${name}`);
    await assertAccessibleInBothThemes(page, `the analyzer feed at ${name} width`);

    // "Load more" with the keyboard brings the route's second page, and scrolling the rest
    await tabTo(page, page.getByRole('button', { name: 'Load more' }), 40);
    await page.keyboard.press('Enter');
    await waitForCount(page, ITEM, pages[0].length + pages[1].length);
    for (let n = 2; n < pages.length; n++) {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await waitForCount(page, ITEM, pages.slice(0, n + 1).flat().length);
    }
    assert.deepEqual(await shownIds(page), pages.flat().map((a) => a.id), 'every page of the route, in order');
    const total = pages.flat().length;
    assert.equal(await page.getByRole('status').innerText(), `${total} analyses, all shown`);
    // the one that never completed comes last, and says so
    const last = pages.flat()[total - 1];
    if (last.completedAt === null) assert.match(await page.locator(`[data-analysis="${last.id}"]`).innerText(), /not finished/);

    // his zone and theme
    await setPreferences(page, { timezone: 'Asia/Kolkata', theme: 'dark' });
    await page.reload();
    await waitForCount(page, ITEM, pages[0].length);
    const kolkata = await completed.innerText();
    assert.equal(kolkata, await shown.dateTime(page, a0.completedAt, 'Asia/Kolkata'));
    assert.notEqual(kolkata, utc);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    if (name === 'phone') await screenshot(page, 'mobile-feed-phone-dark');
    await setPreferences(page, { theme: 'system', timezone: 'UTC' });
    page.assertClean([allowSignInProbe]);
  });
}
