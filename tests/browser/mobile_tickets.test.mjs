// The mobile ticket list (#/m/tickets) at a phone and a desktop width, as the seed's technician
// Tess sees it: each page of GET /api/mobile/tickets in order with the route's labels, endless
// scrolling that follows nextCursor to the route's last page, the "Load more" button with the
// keyboard, every filter (status, priority, queue, mine, search) kept in the URL across a reload,
// the empty state, the last activity in her zone, her theme; nothing sticking out at 360 px; axe
// in both themes; the 150 KB budget.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, launch, openSignedIn, pageUser, routeJson, routePages,
  screenshot, setPreferences, shown, tabTo, waitForCount,
} from './lib.mjs';

const USER = pageUser('m-tickets@browser.example');
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const ITEM = '.endless [data-ticket]';
const shownIds = (page) => page.locator(ITEM).evaluateAll((els) => els.map((e) => Number(e.dataset.ticket)));

// The ids of every page of the route for a query string ("status=5&mine=true").
const allPages = async (page, query) => (await routePages(page, '/api/mobile/tickets', query)).map((p) => p.map((t) => t.id));

// The list as the page shows it is the route's first page for the same filters.
async function assertFirstPage(page, query) {
  const [first] = await allPages(page, query);
  if (!first.length) {
    await page.getByText('No ticket matches these filters.').waitFor();
    return;
  }
  await waitForCount(page, ITEM, first.length);
  assert.deepEqual(await shownIds(page), first, `the first page of ?${query}`);
}

// The fragment's query, as the list's filters are kept in it.
const fragmentQuery = (page) => page.evaluate(() => new URLSearchParams(window.location.hash.split('?')[1] || '').toString());

for (const name of ['phone', 'desktop']) {
  test(`mobile tickets at ${name} width`, async () => {
    const page = await openSignedIn(browser, { viewport: name, name: 'mobile-tickets', hash: '#/m/tickets', who: USER, ready: ITEM });

    // the first page, with the route's labels
    const open = await allPages(page, '');
    assert.ok(open.length >= 3, `the seed's open tickets fill ${open.length} pages of 25`);
    const first = await routeJson(page, '/api/mobile/tickets');
    await waitForCount(page, ITEM, first.items.length);
    assert.deepEqual(await shownIds(page), first.items.map((t) => t.id));
    const t0 = first.items[0];
    const row = page.locator(`[data-ticket="${t0.id}"]`);
    const text = await row.innerText();
    for (const word of [t0.ticketNumber, t0.title, t0.statusLabel, t0.priorityLabel, t0.companyName]) {
      assert.ok(text.includes(word), `the first ticket shows ${word}`);
    }
    const utc = await row.locator('time.last-activity').innerText();
    assert.equal(utc, await shown.dateTime(page, t0.lastActivityDate, 'UTC'));
    if (name === 'phone') await assertFitsWidth(page, 'the ticket list');
    await screenshot(page, `mobile-tickets-${name}`);
    await assertAccessibleInBothThemes(page, `the ticket list at ${name} width`);

    // endless scrolling: each scroll to the end brings the route's next page, to its last
    for (let n = 1; n < open.length; n++) {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await waitForCount(page, ITEM, open.slice(0, n + 1).flat().length);
    }
    assert.deepEqual(await shownIds(page), open.flat(), 'every page of the route, in order');
    assert.match(await page.getByRole('status').innerText(), new RegExp(`^${open.flat().length} tickets, all shown$`));
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0);

    // a filter with the keyboard: Complete added to the statuses (the filters start folded on a phone)
    await page.evaluate(() => window.scrollTo(0, 0));
    if (name === 'phone') {
      await tabTo(page, page.locator('details.filters > summary'));
      await page.keyboard.press('Enter');
    }
    await tabTo(page, page.getByRole('checkbox', { name: 'Complete', exact: true }));
    await page.keyboard.press('Space');
    await page.waitForFunction(() => window.location.hash.includes('status=5'));
    const withComplete = await fragmentQuery(page);
    const every = await allPages(page, withComplete);
    await assertFirstPage(page, withComplete);
    // "Load more" with the keyboard: exactly the route's next page
    await tabTo(page, page.getByRole('button', { name: 'Load more' }), 80);
    await page.keyboard.press('Enter');
    await waitForCount(page, ITEM, every[0].length + every[1].length);
    assert.deepEqual(await shownIds(page), [...every[0], ...every[1]]);

    // the filters live in the URL: a reload keeps them
    await page.reload();
    assert.equal(await fragmentQuery(page), withComplete);
    await assertFirstPage(page, withComplete);
    if (name === 'phone') await page.locator('details.filters > summary').click();
    assert.equal(await page.getByRole('checkbox', { name: 'Complete', exact: true }).isChecked(), true);

    // priority, queue, mine, search: each list is the route's for the same query
    await page.getByRole('checkbox', { name: 'Complete', exact: true }).uncheck();
    await page.getByRole('checkbox', { name: 'High', exact: true }).check();
    await page.waitForFunction(() => window.location.hash.includes('priority='));
    await assertFirstPage(page, await fragmentQuery(page));
    await page.getByLabel('Queue').selectOption({ label: 'Service Desk' });
    await page.waitForFunction(() => window.location.hash.includes('queue='));
    await assertFirstPage(page, await fragmentQuery(page));
    await page.getByRole('checkbox', { name: 'High', exact: true }).uncheck();
    await page.getByLabel('Queue').selectOption({ label: 'All queues' });
    await page.getByRole('checkbox', { name: 'Only mine' }).check();
    await page.waitForFunction(() => window.location.hash === '#/m/tickets?mine=true');
    const mine = await routeJson(page, '/api/mobile/tickets?mine=true');
    assert.ok(mine.items.length > 0, 'Tess has tickets of her own');
    await assertFirstPage(page, 'mine=true');
    await page.getByLabel('Search tickets by title or number').fill('Printer');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.location.hash.includes('search=Printer'));
    await assertFirstPage(page, await fragmentQuery(page));
    await page.getByLabel('Search tickets by title or number').fill('no such ticket anywhere');
    await page.keyboard.press('Enter');
    await page.getByText('No ticket matches these filters.').waitFor();
    await page.getByLabel('Search tickets by title or number').fill('');
    await page.keyboard.press('Enter');
    await page.getByRole('checkbox', { name: 'Only mine' }).uncheck();
    await page.waitForFunction(() => window.location.hash === '#/m/tickets');

    // her zone and theme: the last activity moves with the zone
    await setPreferences(page, { timezone: 'Asia/Kolkata', theme: 'dark' });
    await page.reload();
    await waitForCount(page, ITEM, first.items.length);
    const kolkata = await row.locator('time.last-activity').innerText();
    assert.equal(kolkata, await shown.dateTime(page, t0.lastActivityDate, 'Asia/Kolkata'));
    assert.notEqual(kolkata, utc);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    if (name === 'phone') await screenshot(page, 'mobile-tickets-phone-dark');
    await setPreferences(page, { theme: 'system', timezone: 'UTC' });
    page.assertClean([allowSignInProbe]);
  });
}
