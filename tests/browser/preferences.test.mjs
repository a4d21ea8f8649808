// The preferences page (#/preferences, issue 32 item 5) at a desktop and at a 360-px phone, each as
// a user of its own (createUser): the admin is shared by every file of the run, and a
// theme or zone changed here would show in the other files' pages. Each run goes through the
// theme (applied at once, the next load painted in it from its first frame), the time zone (its
// field's 400, then a search, a save, and the overview's dates in the new zone), the notification
// matrix (a cell saved and kept, a refused one put back), the personal channels (each validator's
// message under its input, a webhook saved, tested and removed) with the keyboard, then the width,
// axe-core in both themes, the screenshots and the load's figures.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  allowSignInProbe, assertAccessible, assertAccessibleInBothThemes, assertFitsWidth, createUser, goToSection, launch, loadTimings,
  openPage,
  opsConsole, routeJson, screenshot, signIn, tabTo, viewports,
} from './lib.mjs';

// A zone with a 45- or 30-minute offset: a time that ignored it could not look right by chance.
const ZONES = { desktop: { search: 'kathmandu', zone: 'Asia/Kathmandu' }, phone: { search: 'st johns', zone: 'America/St_Johns' } };
const DARK_BACKGROUND = 'rgb(11, 13, 16)'; // app.css: --bg in dark

// The webhook channel's receiver: a test answers 200 unless `failing` is set (then 500).
let receiver;
let receiverUrl;
const arrivals = [];
const messages = []; // {headers, body} of each, for the Standard Webhooks verifier
let failing = false;
before(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      arrivals.push(req.url);
      messages.push({ headers: req.headers, body });
      if (failing) res.writeHead(500, { 'Content-Type': 'text/plain' }).end('receiver failed');
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${receiver.address().port}`;
});
after(() => new Promise((resolve) => receiver.close(resolve)));

// The 4xx this file provokes on purpose, and the sign-in page's probe of the session.
const PROVOKED = [
  allowSignInProbe,
  /^http 400 PUT .*\/api\/me\/timezone$/, // a zone the server does not know
  /^http 400 PUT .*\/api\/me\/channels\/chat_webhook$/, // a URL off the chat allowlist
  /^http 400 PUT .*\/api\/me\/channels\/webhook$/, // a secret that is not a Standard Webhooks one
  /^http 503 PUT .*\/api\/me\/notification-subscriptions$/, // the refusal routed in by the test
];

const theme = (page) => page.evaluate(() => ({
  attribute: document.documentElement.dataset.theme ?? 'none',
  background: getComputedStyle(document.body).backgroundColor,
}));

// The text of the element an input names with aria-describedby, as a screen reader reads it.
const description = (locator) => locator.evaluate((el) => (el.getAttribute('aria-describedby') || '').split(' ')
  .map((id) => document.getElementById(id)?.textContent.trim()).filter(Boolean).join(' '));

// Walks the page with Tab from its top: every control of main that a keyboard can use is reached
// (of a radio group, its checked radio: the group is one stop). Returns those that were not.
async function unreachedByTab(page, presses = 200) {
  await page.evaluate(() => {
    const controls = [...document.querySelectorAll('main a[href], main button, main input, main select, main textarea')]
      .filter((el) => !el.disabled && el.offsetParent !== null && !el.closest('dialog'))
      .filter((el) => !(el.type === 'radio' && !el.checked
        && document.querySelector(`input[type=radio][name="${el.name}"]:checked`)));
    controls.forEach((el, i) => { el.dataset.tabProbe = String(i); });
    window.__tabbed = new Set();
    document.addEventListener('focusin', (e) => { if (e.target.dataset?.tabProbe) window.__tabbed.add(e.target.dataset.tabProbe); });
    document.activeElement?.blur();
    window.scrollTo(0, 0);
  });
  for (let i = 0; i < presses; i++) await page.keyboard.press('Tab');
  return page.evaluate(() => [...document.querySelectorAll('[data-tab-probe]')]
    .filter((el) => !window.__tabbed.has(el.dataset.tabProbe))
    .map((el) => `${el.tagName.toLowerCase()} ${el.getAttribute('aria-label') || el.id || el.textContent.trim()}`));
}

async function preferencesAt(viewportName) {
  const who = createUser(`prefs_${viewportName}`);
  const { search, zone } = ZONES[viewportName];
  const browser = await launch();
  try {
    const page = await openPage(browser, viewports[viewportName]);
    await page.emulateMedia({ colorScheme: 'light' }); // the device is light: a dark first frame is the user's choice
    await signIn(page, '#/', who);
    const asOf = page.getByText(/ · as of /);
    assert.match(await asOf.innerText(), /^UTC · as of /, 'the overview is in UTC before a zone is chosen');

    await goToSection(page, 'Preferences');
    await page.getByRole('heading', { level: 1, name: 'Preferences' }).waitFor();
    assert.equal(await page.title(), 'Preferences · Ops console');

    // --- Theme: arrows in the radio group choose; applied at once, saved, and the next load is
    // dark from its first frame on (never light on the way), before /api/auth/me has answered.
    assert.equal(await page.getByRole('radio', { name: /System/ }).isChecked(), true, 'a new user follows the device');
    await tabTo(page, page.getByRole('radio', { name: /System/ }), 40);
    const themeSaved = page.waitForResponse((r) => r.url().endsWith('/api/me/theme') && r.request().method() === 'PUT');
    await page.keyboard.press('ArrowUp'); // System → Dark
    assert.deepEqual(await theme(page), { attribute: 'dark', background: DARK_BACKGROUND }, 'dark is applied at once');
    assert.equal((await themeSaved).status(), 200);
    await page.getByText('Saved: dark.').waitFor();
    assert.deepEqual(await routeJson(page, '/api/me/theme'), { theme: 'dark', source: 'user' });

    await page.addInitScript(() => {
      const probe = { themes: [] };
      window.__themeProbe = probe;
      new MutationObserver((records) => {
        for (const r of records) if (r.target === document.documentElement) probe.themes.push(r.target.dataset.theme ?? 'none');
      }).observe(document, { attributes: true, attributeFilter: ['data-theme'], subtree: true });
      requestAnimationFrame(() => {
        probe.firstFrame = {
          at: performance.now(),
          theme: document.documentElement.dataset.theme ?? 'none',
          scheme: getComputedStyle(document.documentElement).colorScheme,
          background: document.body ? getComputedStyle(document.body).backgroundColor : null,
          meAnswered: performance.getEntriesByType('resource').some((e) => e.name.endsWith('/api/auth/me')),
        };
      });
    });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Preferences' }).waitFor();
    const probe = await page.evaluate(() => ({
      ...window.__themeProbe, firstPaint: performance.getEntriesByName('first-paint')[0]?.startTime,
    }));
    assert.equal(probe.firstFrame.theme, 'dark', 'the first frame of the reload is dark');
    assert.equal(probe.firstFrame.scheme, 'dark');
    assert.equal(probe.firstFrame.background, DARK_BACKGROUND, 'and so is its background');
    assert.equal(probe.firstFrame.meAnswered, false, 'boot.js set it, before the session was asked');
    assert.ok(probe.firstPaint >= probe.firstFrame.at, 'nothing was painted before that frame');
    assert.deepEqual([...new Set(probe.themes)], ['dark'], 'the theme was never anything but dark during the load');
    assert.deepEqual(await theme(page), { attribute: 'dark', background: DARK_BACKGROUND });

    // --- Time zone: a name the server refuses gets its message under the field; a search, ↓ and
    // Enter choose, Enter saves; the zone and its local time are shown, and the overview follows.
    const zoneField = page.getByRole('combobox', { name: 'Time zone' });
    await tabTo(page, zoneField, 40);
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Mars/Olympus_Mons');
    assert.equal(await page.getByRole('listbox', { name: 'zones' }).isVisible(), false, 'no zone matches, no list');
    await page.keyboard.press('Enter');
    await page.locator('#tz-error').waitFor();
    assert.equal(await zoneField.getAttribute('aria-invalid'), 'true');
    assert.match(await description(zoneField), /is not a time zone name the server knows/);
    assert.equal((await routeJson(page, '/api/me/timezone')).timezone, 'UTC', 'the refused name was not saved');

    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(search);
    const option = page.getByRole('option', { name: zone, exact: true });
    await option.waitFor();
    assert.equal(await zoneField.getAttribute('aria-expanded'), 'true');
    await assertAccessible(page, `the zone list open (${viewportName})`);
    await page.keyboard.press('ArrowDown');
    assert.equal(await option.getAttribute('aria-selected'), 'true', 'the first match is highlighted');
    assert.equal(await zoneField.getAttribute('aria-activedescendant'), await option.getAttribute('id'));
    await page.keyboard.press('Enter'); // takes the option
    assert.equal(await zoneField.inputValue(), zone);
    await page.keyboard.press('Enter'); // saves
    await page.getByText(`Saved: ${zone}.`).waitFor();
    assert.deepEqual(await routeJson(page, '/api/me/timezone'), { timezone: zone, source: 'user' });
    assert.equal((await routeJson(page, '/api/auth/me')).timezone, zone);
    const facts = await page.getByTestId('zone-now').innerText();
    assert.match(facts, new RegExp(`${zone}\\s+UTC[-+−]\\d\\d:\\d\\d`), 'the zone and its offset are shown');
    // the local time shown is now's in the new zone (this minute or the one before, should it turn)
    const localTimes = await page.evaluate((tz) => [0, 60000].map((back) => new Intl.DateTimeFormat(undefined,
      { timeZone: tz, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(Date.now() - back))), zone);
    assert.ok(localTimes.some((t) => facts.includes(t)), `"${facts}" shows one of ${localTimes}`);

    await goToSection(page, 'Overview');
    const zoned = await page.getByText(new RegExp(`^${zone} · as of `)).innerText();
    const overviewTimes = await page.evaluate((tz) => [0, 60000].map((back) => new Intl.DateTimeFormat(undefined,
      { timeZone: tz, timeStyle: 'short' }).format(new Date(Date.now() - back))), zone);
    assert.ok(overviewTimes.some((t) => zoned.endsWith(`as of ${t}`)), `the overview's "${zoned}" is in ${zone}: ${overviewTimes}`);
    assert.equal((await routeJson(page, '/api/dashboard/overview')).timezone, zone);
    await goToSection(page, 'Preferences');
    await page.getByRole('heading', { level: 1, name: 'Preferences' }).waitFor();

    // --- The matrix: Space on a cell saves it, a reload keeps it, the route says so; a refused
    // PUT puts the cell back and says why next to it.
    const routed = await routeJson(page, '/api/me/notification-subscriptions');
    assert.deepEqual(routed.channelTypes, ['chat_webhook', 'messenger_bot', 'push_topic', 'webhook']);
    assert.ok(routed.eventKeys.includes('ticket_escalated') && routed.eventKeys.includes('sla_breach'), 'the seed keys are active');
    for (const k of routed.eventKeys) {
      for (const t of routed.channelTypes) {
        assert.equal(await page.getByRole('checkbox', { name: `${k} by ${t}`, exact: true }).isChecked(), routed.matrix[k][t]);
      }
    }
    const cell = page.getByRole('checkbox', { name: 'ticket_escalated by webhook', exact: true });
    await tabTo(page, cell, 60);
    const cellSaved = page.waitForResponse((r) => r.url().endsWith('/api/me/notification-subscriptions') && r.request().method() === 'PUT');
    await page.keyboard.press('Space');
    assert.equal((await cellSaved).status(), 200);
    assert.equal(await cell.isChecked(), false);
    await page.reload();
    await page.getByTestId('matrix').waitFor();
    assert.equal(await cell.isChecked(), false, 'the cell stays off after a reload');
    assert.equal((await routeJson(page, '/api/me/notification-subscriptions')).matrix.ticket_escalated.webhook, false);

    await page.route('**/api/me/notification-subscriptions', (route) => (route.request().method() === 'PUT'
      ? route.fulfill({ status: 503, contentType: 'application/problem+json',
        body: JSON.stringify({ title: 'Service Unavailable', status: 503, detail: 'the database is not reachable' }) })
      : route.continue()));
    const refused = page.getByRole('checkbox', { name: 'sla_breach by push_topic', exact: true });
    await refused.click();
    const refusal = page.getByRole('alert').filter({ hasText: 'the database is not reachable' });
    await refusal.waitFor();
    assert.equal(await refused.isChecked(), true, 'the refused cell is put back');
    assert.match(await description(refused), /Not saved: the database is not reachable/);
    await page.unroute('**/api/me/notification-subscriptions');
    assert.equal((await routeJson(page, '/api/me/notification-subscriptions')).matrix.sla_breach.push_topic, true);

    // --- Personal channels: each validator's message under its input; a webhook saved (its test
    // delivered), tested again (delivered, then refused by the receiver), removed after a "Keep it".
    const chatUrl = page.getByLabel('Webhook URL');
    await chatUrl.fill('https://hooks.example.org/services/T000/B000');
    await page.getByRole('button', { name: 'Add chat webhook', exact: true }).click();
    await page.locator('#ch-chat_webhook-url-error').waitFor();
    assert.equal(await chatUrl.getAttribute('aria-invalid'), 'true');
    assert.match(await description(chatUrl), /hooks\.example\.org/, 'the allowlist refusal names the host, under the URL');

    const card = page.locator('[data-channel=webhook]');
    await card.getByLabel('URL', { exact: true }).fill(`${receiverUrl}/prefs-${viewportName}`);
    const secret = card.getByLabel('Signing secret', { exact: true });
    await secret.fill('hunter2-is-not-a-secret');
    await tabTo(page, page.getByRole('button', { name: 'Add webhook', exact: true }), 10);
    await page.keyboard.press('Enter');
    await page.locator('#ch-webhook-secret-error').waitFor();
    assert.equal(await secret.getAttribute('aria-invalid'), 'true');
    assert.match(await description(secret), /whsec_/);
    assert.equal(await card.getByRole('alert').innerText(), 'Not saved: a field needs a change (said under it).');
    assert.deepEqual(await routeJson(page, '/api/me/channels'), [], 'nothing was saved');

    const ownSecret = `whsec_${randomBytes(32).toString('base64')}`;
    await secret.fill(ownSecret);
    await page.getByRole('button', { name: 'Add webhook', exact: true }).click();
    const status = card.getByRole('status');
    await card.getByText('Saved. The test message was delivered (HTTP 200).').waitFor();
    assert.equal(arrivals.filter((a) => a === `/prefs-${viewportName}`).length, 1, 'the save sent one test message');
    const [saved] = await routeJson(page, '/api/me/channels');
    assert.equal(saved.channel_type, 'webhook');
    assert.equal(saved.config.url, `${receiverUrl}/prefs-${viewportName}`);
    assert.deepEqual(saved.secrets_set, ['secret']);
    assert.equal(await card.getByText('on', { exact: true }).isVisible(), true);
    assert.equal(await secret.inputValue(), '', 'the secret is never shown back');

    await tabTo(page, page.getByRole('button', { name: 'Send a test to webhook' }), 10);
    await page.keyboard.press('Enter');
    await card.getByText('The test message was delivered (HTTP 200).', { exact: false }).waitFor();
    assert.match(await status.innerText(), /^The test message was delivered \(HTTP 200\)\./);
    failing = true;
    try {
      await page.getByRole('button', { name: 'Send a test to webhook' }).click();
      await card.getByText(/not delivered after 2 attempts: HTTP 500/).waitFor();
    } finally {
      failing = false;
    }

    // a new signing secret, made by the console: shown once, and the next message verifies with it
    // (and no longer with the secret given before)
    await page.getByRole('button', { name: 'Make a new signing secret for webhook' }).click();
    const shown = card.getByTestId('secret-webhook');
    await shown.waitFor();
    const rotated = (await shown.locator('.secret-value').innerText()).trim();
    assert.match(rotated, /^whsec_[A-Za-z0-9+/=]{40,}$/);
    await page.getByRole('button', { name: 'Send a test to webhook' }).click();
    await card.getByText(/^The test message was delivered/).waitFor();
    const last = messages[messages.length - 1];
    assert.doesNotThrow(() => new Webhook(rotated).verify(last.body, last.headers), 'signed with the new secret');
    assert.throws(() => new Webhook(ownSecret).verify(last.body, last.headers), 'no longer with the old one');
    await shown.getByRole('button', { name: 'I have kept it' }).click();
    assert.equal(await shown.count(), 0, 'shown once: gone when dismissed');

    await page.getByRole('button', { name: 'Remove webhook' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove your webhook?' });
    await confirm.waitFor();
    assert.equal(await confirm.getByRole('button', { name: 'Keep it' }).evaluate((el) => el === document.activeElement), true,
      'the dialog starts on the harmless choice');
    await page.keyboard.press('Enter'); // keeps it
    assert.equal(await confirm.isVisible(), false);
    assert.equal((await routeJson(page, '/api/me/channels')).length, 1, 'keeping it kept it');
    await page.getByRole('button', { name: 'Remove webhook' }).click();
    await confirm.getByRole('button', { name: 'Remove it' }).click();
    await card.getByText('Removed: nothing goes to your webhook any more.').waitFor();
    assert.equal(await card.getByText('not set up').isVisible(), true);
    assert.deepEqual(await routeJson(page, '/api/me/channels'), []);

    // --- The keyboard reaches every control; nothing sticks out sideways; axe in both themes
    // (the user's theme "system": the device's scheme decides); the screenshots.
    assert.deepEqual(await unreachedByTab(page), [], 'every control of the page is reached with Tab');
    await page.getByRole('radio', { name: /System/ }).check();
    await page.getByText('Saved: system.').waitFor();
    await assertFitsWidth(page, `the preferences page (${viewportName})`);
    await assertAccessibleInBothThemes(page, `the preferences page (${viewportName})`);
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.equal((await theme(page)).background, DARK_BACKGROUND);
    await screenshot(page, `preferences-${viewportName}-dark`);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, `preferences-${viewportName}`);
    page.assertClean(PROVOKED);

    // --- The load's figures on a cold cache (a new context with the same session), for bench/RESULTS.md.
    const cold = await openPage(browser, viewports[viewportName]);
    await cold.context().addCookies(await page.context().cookies());
    await cold.goto(`${opsConsole.url}/#/preferences`);
    const timings = await loadTimings(cold, '[data-testid=matrix] input[type=checkbox]');
    console.log(`timing: ${JSON.stringify({ page: 'preferences', viewport: viewportName, ...timings })}`);
    assert.ok(timings.scriptAndStyleBytes <= 150 * 1024, `${timings.scriptAndStyleBytes} bytes of script and style`);
    cold.assertClean();
  } finally {
    await browser.close();
  }
}

test('preferences at a desktop: theme, zone, matrix, channels, keyboard, both themes', () => preferencesAt('desktop'));
test('preferences at a 360-px phone: the same, nothing to scroll sideways', () => preferencesAt('phone'));
