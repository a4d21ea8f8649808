// The mobile dashboard (#/m) at a phone and a desktop width, as the seed's technician Dora sees it:
// the KPIs with their tone, every needs-attention entry in words and the workers' status, each as
// GET /api/mobile/dashboard gives them to her; its dates in her zone; her theme; the tab bar with
// the keyboard; nothing sticking out at 360 px; axe in both themes; the 150 KB budget.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, launch, openSignedIn, pageUser, routeJson, screenshot,
  setPreferences, shown, tabTo,
} from './lib.mjs';

const USER = pageUser('m-dashboard@browser.example');
const KIND_TITLES = {
  slaBreach: 'SLA breached', backupFailed: 'Backups failed', stalledWorkflow: 'Workflows stalled',
  integrationFailing: 'Integrations failing', worker: 'Workers in trouble',
};
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function assertFigures(page) {
  const d = await routeJson(page, '/api/mobile/dashboard');
  for (const k of d.kpis) {
    const card = page.locator(`[data-kpi="${k.key}"]`);
    const value = await card.locator('.value').innerText();
    if (k.key === 'backupSuccess') {
      const percent = k.configured === false || k.percent === null ? '—' : `${await shown.number(page, k.percent, 1)} %`;
      assert.equal(value.replace(/\s+/g, ' ').trim(), k.status ? `${percent} ${k.status}` : percent, 'the backups\' percent and status');
    } else {
      assert.equal(value, await shown.number(page, k.value), `${k.key} shows the route's value`);
    }
    assert.equal(await card.evaluate((el) => el.classList.contains('attention')), k.tone === 'attention', `${k.key}'s tone`);
  }
  assert.equal(d.kpis.find((k) => k.key === 'slaBreaches').tone, 'attention', 'the seed has breached SLAs');

  // each kind under a heading that says it in words, with its count; each entry names what it concerns
  const entries = page.locator('[data-testid="needs-attention"] li[data-kind]');
  assert.equal(await entries.count(), d.needsAttention.length);
  assert.deepEqual(await entries.evaluateAll((els) => els.map((e) => e.dataset.kind)), d.needsAttention.map((a) => a.kind));
  const kinds = [...new Set(d.needsAttention.map((a) => a.kind))];
  assert.deepEqual([...kinds].sort(), Object.keys(KIND_TITLES).sort(), 'the seed has every kind');
  for (const kind of kinds) {
    const count = d.needsAttention.filter((a) => a.kind === kind).length;
    assert.equal(await page.locator(`[data-group="${kind}"] h3`).innerText(), `${KIND_TITLES[kind]} · ${await shown.number(page, count)}`);
  }
  for (const [i, a] of d.needsAttention.entries()) {
    const text = await entries.nth(i).innerText();
    const names = { slaBreach: `${a.ticketNumber} ${a.title}`, backupFailed: a.device, stalledWorkflow: `Pipeline ${a.pipelineId}`,
      integrationFailing: a.key, worker: a.status };
    assert.ok(text.includes(names[a.kind]), `entry ${i} names ${names[a.kind]}: ${text}`);
  }

  for (const w of d.workers) {
    const badge = await page.locator(`[data-worker="${w.name}"] .badge`).innerText();
    assert.equal(badge, w.configured === false ? 'not configured' : w.status, `${w.name}'s status`);
  }
  return d;
}

for (const name of ['phone', 'desktop']) {
  test(`mobile dashboard at ${name} width`, async () => {
    const page = await openSignedIn(browser, { viewport: name, name: 'mobile-dashboard', hash: '#/m', who: USER,
      ready: '[data-testid="kpis"]' });

    const d = await assertFigures(page);
    const due = page.locator('[data-kind="slaBreach"] time').first();
    const first = d.needsAttention.find((a) => a.kind === 'slaBreach');
    assert.equal(await due.innerText(), await shown.dateTime(page, first.dueDateTime, 'UTC'));
    if (name === 'phone') await assertFitsWidth(page, 'the mobile dashboard');
    await screenshot(page, `mobile-dashboard-${name}`);
    await assertAccessibleInBothThemes(page, `the mobile dashboard at ${name} width`);

    // her zone: the due dates move with it, the route's day and zone are named
    await setPreferences(page, { timezone: 'Asia/Kolkata', theme: 'dark' });
    await page.reload();
    await page.locator('[data-testid="kpis"]').waitFor();
    const inKolkata = await shown.dateTime(page, first.dueDateTime, 'Asia/Kolkata');
    assert.equal(await due.innerText(), inKolkata);
    assert.notEqual(inKolkata, await shown.dateTime(page, first.dueDateTime, 'UTC'));
    assert.match(await page.locator('.page-head .note').first().innerText(), /Asia\/Kolkata/);
    await assertFigures(page);
    // her theme: dark from the first paint, and really dark
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(background, 'rgb(11, 13, 16)');
    if (name === 'phone') await screenshot(page, 'mobile-dashboard-phone-dark');

    // the tab bar with the keyboard
    await tabTo(page, page.getByRole('navigation', { name: 'Mobile sections' }).getByRole('link', { name: 'Tickets' }), 60);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Tickets', level: 1 }).waitFor();
    await setPreferences(page, { theme: 'system', timezone: 'UTC' });
    page.assertClean([allowSignInProbe]);
  });
}
