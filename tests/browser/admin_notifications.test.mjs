// Notifications and the morning summary, the administrators' pages, at a desktop and a 360-px
// phone, as an administrator of the test's own, with a receiver of the test's own on 127.0.0.1:
// #/admin/notifications (event keys: the route's list; a refused key under its input; a key added
// inactive, so that no user's matrix changes while other files run, a duplicate's 409 under the
// key, the key changed, then deleted after a confirmation; global channels: a chat webhook off the
// allowlist refused under its URL, a webhook added with its signing secret shown once, a test that
// the receiver verifies with it, the secret replaced after a confirmation (the next test verifies
// with the new one only), its configuration changed in place (a private address and a malformed
// secret refused, each under its field, changing nothing; then a new URL and name saved with the
// secret left empty, which keeps it: the next test reaches the new URL, signed with the same
// secret), switched off and deleted after confirmations, each checked through GET
// /api/notification-channels) and #/admin/morning (the configuration saved and put back, a
// webhook added, tested and the summary sent now to the receiver, the history as the route gives
// it, the webhook switched off and deleted, and "send now" refused with no webhook on).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, description, firstVisit, launch, openSignedIn, opsConsole,
  routeJson, screenshot, shown, startReceiver, tabTo, unique, waitForCount,
} from './lib.mjs';

let browser;
let receiver;
before(async () => {
  browser = await launch();
  receiver = await startReceiver();
});
after(async () => {
  await browser?.close();
  await receiver?.close();
});

async function checkEventKeys(page, name) {
  const keys = await routeJson(page, '/api/admin/notify-event-keys');
  await waitForCount(page, '[data-testid=event-keys] tbody tr', keys.length);
  assert.deepEqual(await page.locator('[data-testid=event-keys] tbody tr').evaluateAll((els) => els.map((e) => e.dataset.key)), keys.map((k) => k.key));

  const keyInput = page.getByLabel('Key', { exact: true });
  await keyInput.fill('Not a key!');
  await page.getByRole('button', { name: 'Add the key' }).click();
  await page.locator('#key-key-error').waitFor();
  assert.equal(await keyInput.getAttribute('aria-invalid'), 'true');
  assert.match(await description(keyInput), /Lower-case letters/);

  const key = unique(`browser_${name}`).toLowerCase();
  await keyInput.fill(key);
  await page.getByLabel('Description').fill('added by the browser test');
  await page.getByLabel('Sort order').fill('900');
  await page.getByRole('checkbox', { name: /^Active/ }).uncheck(); // inactive: no user's matrix lists it
  await tabTo(page, page.getByRole('button', { name: 'Add the key' }), 10);
  await page.keyboard.press('Enter');
  await page.getByText(`Added ${key}.`).waitFor();
  const made = (await routeJson(page, '/api/admin/notify-event-keys')).find((k) => k.key === key);
  assert.deepEqual([made.description, made.sort_order, made.is_active], ['added by the browser test', 900, false]);
  assert.equal(await page.locator(`[data-key="${key}"] .badge`).innerText(), 'muted');

  await keyInput.fill(key.toUpperCase());
  await page.getByRole('checkbox', { name: /^Active/ }).uncheck();
  await page.getByRole('button', { name: 'Add the key' }).click();
  await page.locator('#key-key-error').waitFor();
  assert.match(await description(keyInput), /exists already/, 'a duplicate (409) is said under the key');
  await keyInput.fill('');

  await page.getByRole('button', { name: `Change ${key}` }).click();
  await page.getByLabel('Description').fill('changed by the browser test');
  await page.getByRole('button', { name: 'Save the key' }).click();
  await page.getByText(`Saved ${key}.`).waitFor();
  assert.equal((await routeJson(page, '/api/admin/notify-event-keys')).find((k) => k.key === key).description, 'changed by the browser test');

  await page.getByRole('button', { name: `Delete ${key}` }).click();
  const dialog = page.getByRole('dialog', { name: `Delete ${key}?` });
  await dialog.getByRole('button', { name: 'Delete it' }).click();
  await page.getByText(`Deleted ${key}.`).waitFor();
  assert.equal((await routeJson(page, '/api/admin/notify-event-keys')).some((k) => k.key === key), false);
}

async function checkChannels(page, name) {
  const global = await routeJson(page, '/api/notification-channels?owner=global');
  if (global.length) await waitForCount(page, '[data-testid=global-channels] tbody tr', global.length);

  // a chat webhook off the allowlist: refused, under its URL
  await page.getByLabel('Type').selectOption('chat_webhook');
  const chatUrl = page.getByLabel('Webhook URL');
  await chatUrl.fill('https://hooks.example.org/services/T0/B0');
  await page.getByRole('button', { name: 'Add the channel' }).click();
  await page.locator('#ch-new-url-error').waitFor();
  assert.match(await description(chatUrl), /hooks\.example\.org/);

  // a webhook: its secret shown once, verified by the receiver
  let channelName = unique(`global-${name}`);
  await page.getByLabel('Type').selectOption('webhook');
  await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/global-${name}`);
  await page.getByLabel('Name', { exact: true }).fill(channelName);
  await page.getByRole('button', { name: 'Add the channel' }).click();
  const once = page.getByTestId('channel-secret');
  await once.waitFor();
  const secret = (await once.locator('.secret-value').innerText()).trim();
  assert.match(secret, /^whsec_/);
  const channel = (await routeJson(page, '/api/notification-channels?owner=global')).find((c) => c.name === channelName);
  assert.deepEqual([channel.channel_type, channel.enabled, channel.secrets_set], ['webhook', true, ['secret']]);
  assert.equal(JSON.stringify(channel).includes(secret), false, 'the route never shows the secret again');
  if (name === 'phone') await assertFitsWidth(page, 'the notifications page with a secret shown');
  await screenshot(page, `admin-notifications-${name}`);
  await assertAccessibleInBothThemes(page, `the notifications page at ${name} width`);

  const arrived = () => receiver.messages.filter((m) => m.path === `/global-${name}`);
  await tabTo(page, page.getByRole('button', { name: `Send a test to ${channelName}` }), 120);
  await page.keyboard.press('Enter');
  await page.getByText(`${channelName}: The test message was delivered (HTTP 200).`).waitFor();
  const m1 = arrived().at(-1);
  assert.doesNotThrow(() => new Webhook(secret).verify(m1.body, m1.headers), 'signed with the secret shown');
  await once.getByRole('button', { name: 'I have kept it' }).click();
  assert.equal(await once.count(), 0);

  await page.getByRole('button', { name: `New secret for ${channelName}` }).click();
  await page.getByRole('dialog', { name: `Replace the signing secret of ${channelName}?` }).getByRole('button', { name: 'Replace it' }).click();
  await once.waitFor();
  const rotated = (await once.locator('.secret-value').innerText()).trim();
  assert.notEqual(rotated, secret);
  await page.getByRole('button', { name: `Send a test to ${channelName}` }).click();
  await page.waitForFunction((n) => document.body.innerText.includes(`${n}: The test message was delivered`), channelName);
  assert.ok(arrived().length >= 2, 'the second test arrived');
  const m2 = arrived().at(-1);
  assert.doesNotThrow(() => new Webhook(rotated).verify(m2.body, m2.headers), 'signed with the new secret');
  assert.throws(() => new Webhook(secret).verify(m2.body, m2.headers), 'no longer with the old one');

  // its configuration changed in place: refused values said under their fields, nothing changed
  const stored = await routeJson(page, `/api/notification-channels/${channel.id}`);
  await tabTo(page, page.getByRole('button', { name: `Change ${channelName}` }), 120);
  await page.keyboard.press('Enter');
  const edit = page.getByTestId('channel-edit');
  await edit.getByRole('heading', { name: `Change ${channelName}` }).waitFor();
  const editUrl = edit.getByLabel('URL', { exact: true });
  const editSecret = edit.getByLabel('Signing secret');
  assert.equal(await editUrl.inputValue(), stored.config.url, 'the form starts from the route\'s configuration');
  assert.equal(await editSecret.inputValue(), '', 'a secret is never shown');
  await editUrl.fill('https://10.1.2.3/hook');
  await editSecret.fill('not-a-standard-webhooks-secret');
  const patched = () => page.waitForResponse((r) => r.url().endsWith(`/api/notification-channels/${channel.id}`) && r.request().method() === 'PATCH');
  let answer = patched();
  await edit.getByRole('button', { name: 'Save the changes' }).click();
  const refusal = await answer;
  assert.equal(refusal.status(), 400);
  const named = Object.fromEntries((await refusal.json()).errors.map((e) => [e.field, e.message]));
  assert.deepEqual(Object.keys(named).sort(), ['config.secret', 'config.url']);
  await edit.locator('#ch-edit-url-error').waitFor();
  for (const [input, field] of [[editUrl, 'config.url'], [editSecret, 'config.secret']]) {
    assert.equal(await input.getAttribute('aria-invalid'), 'true', `${field} is marked`);
    assert.ok((await description(input)).includes(named[field]), `${field}'s refusal is said under it`);
  }
  assert.deepEqual(await routeJson(page, `/api/notification-channels/${channel.id}`), stored, 'a refusal changes nothing');
  if (name === 'phone') await assertFitsWidth(page, 'a channel\'s form with its refusals');
  await screenshot(page, `admin-notifications-edit-${name}`);
  await assertAccessibleInBothThemes(page, `a channel's form with its refusals at ${name} width`);

  // a new URL and name, the secret left empty (kept): saved, and the next test goes there
  const renamed = `${channelName} moved`;
  await editUrl.fill(`${receiver.url}/global-${name}-moved`);
  await editSecret.fill('');
  await edit.getByLabel('Name', { exact: true }).fill(renamed);
  answer = patched();
  await edit.getByRole('button', { name: 'Save the changes' }).click();
  assert.equal((await answer).status(), 200);
  await page.getByText(`Saved ${renamed}.`).waitFor();
  assert.equal(await edit.count(), 0, 'the form closes');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), `Change ${renamed}`, 'the focus goes back to its button');
  const changed = await routeJson(page, `/api/notification-channels/${channel.id}`);
  assert.deepEqual([changed.name, changed.config.url, changed.secrets_set, changed.channel_type],
    [renamed, `${receiver.url}/global-${name}-moved`, ['secret'], 'webhook']);
  assert.ok((await page.locator(`[data-channel-id="${channel.id}"] td[data-label="Sends to"]`).innerText()).includes(changed.config.url), 'the list shows the new URL');
  await page.getByRole('button', { name: `Send a test to ${renamed}` }).click();
  await page.getByText(`${renamed}: The test message was delivered (HTTP 200).`).waitFor();
  const m3 = receiver.messages.filter((m) => m.path === `/global-${name}-moved`).at(-1);
  assert.ok(m3, 'the test went to the new URL');
  assert.doesNotThrow(() => new Webhook(rotated).verify(m3.body, m3.headers), 'signed with the kept secret');
  channelName = renamed;

  await page.getByRole('button', { name: `Switch off ${channelName}` }).click();
  await page.getByRole('dialog', { name: `Switch ${channelName} off?` }).getByRole('button', { name: 'Switch it off' }).click();
  await page.getByText(`${channelName} is off.`).waitFor();
  assert.equal((await routeJson(page, `/api/notification-channels/${channel.id}`)).enabled, false);
  await page.getByRole('button', { name: `Delete ${channelName}` }).click();
  const del = page.getByRole('dialog', { name: `Delete ${channelName}?` });
  await del.waitFor();
  await page.keyboard.press('Escape'); // keeps it
  await del.waitFor({ state: 'hidden' });
  assert.ok((await routeJson(page, '/api/notification-channels?owner=global')).some((c) => c.id === channel.id));
  await page.getByRole('button', { name: `Delete ${channelName}` }).click();
  await del.getByRole('button', { name: 'Delete it' }).click();
  await page.getByText(`Deleted ${channelName}.`).waitFor();
  assert.equal((await routeJson(page, '/api/notification-channels?owner=global')).some((c) => c.id === channel.id), false);
}

async function checkMorning(page, name) {
  await firstVisit(page, { viewport: name, name: 'admin-morning', hash: '#/admin/morning', ready: '[data-testid=morning-config]' });
  const original = await routeJson(page, '/api/morning-summary/config');
  const config = page.getByTestId('morning-config');
  try {
    // the configuration: another zone and one section fewer, saved; then put back
    const zone = page.getByRole('combobox', { name: 'Time zone' });
    await zone.fill('Pacific/Auckland');
    await page.keyboard.press('Escape');
    const last = original.sections.at(-1);
    await config.getByRole('checkbox', { name: new RegExp(`^${{ overview: 'Overview', slaBreaches: 'SLA', integrations: 'Failing', workers: 'Workers', mfa: 'MFA' }[last]}`) }).uncheck();
    await config.getByRole('button', { name: 'Save the configuration' }).click();
    await config.getByText('Saved.').waitFor();
    const saved = await routeJson(page, '/api/morning-summary/config');
    assert.deepEqual([saved.timezone, saved.sections, saved.enabled], ['Pacific/Auckland', original.sections.slice(0, -1), original.enabled]);
  } finally {
    await page.request.put(`${opsConsole.url}/api/morning-summary/config`,
      { data: { timezone: original.timezone, sections: original.sections, enabled: original.enabled } });
  }

  // a webhook to the receiver: added, tested, the summary sent now
  const hookName = unique(`morning-${name}`);
  await page.getByLabel('Name', { exact: true }).fill(hookName);
  await page.getByLabel('Webhook URL').fill(`${receiver.url}/morning-${name}`);
  await page.getByRole('button', { name: 'Add the webhook' }).click();
  await page.getByText(`Added ${hookName}.`).waitFor();
  const hook = (await routeJson(page, '/api/morning-summary/webhooks')).find((h) => h.name === hookName);
  assert.ok(!hook.url.includes('morning-'), 'the route masks the URL');
  assert.equal(await page.locator(`[data-hook="${hook.id}"] td[data-label=URL]`).innerText(), hook.url, 'shown as the route gives it');
  try {
    const arrived = () => receiver.messages.filter((m) => m.path === `/morning-${name}`);
    await page.getByRole('button', { name: `Send a test to ${hookName}` }).click();
    await page.getByText(`Test to ${hookName}: delivered (HTTP 200).`).waitFor();
    assert.equal(arrived().length, 1);
    assert.ok(JSON.parse(arrived()[0].body).text, 'a chat message: {"text": …}');

    const enabled = (await routeJson(page, '/api/morning-summary/webhooks')).filter((h) => h.enabled);
    await tabTo(page, page.getByRole('button', { name: 'Send the summary now' }), 40);
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('dialog', { name: 'Send the morning summary now?' });
    assert.match(await confirm.innerText(), new RegExp(`${enabled.length} enabled webhook`));
    await confirm.getByRole('button', { name: 'Send it' }).click();
    await page.getByTestId('send-result').getByText(/^(Sent|Partly sent|Not sent|Failed)/).waitFor();
    const history = await routeJson(page, '/api/morning-summary/history?limit=20');
    const sent = history.items.find((e) => e.kind === 'manual' && e.results.some((r) => r.webhookId === hook.id));
    assert.ok(sent, 'the history has the send');
    const result = sent.results.find((r) => r.webhookId === hook.id);
    assert.ok(result.delivered, `the receiver took it: ${JSON.stringify(result)}`);
    assert.ok(arrived().length >= 2);
    const rows = '[data-testid=morning-history] tbody tr';
    await page.waitForFunction(([s, id]) => document.querySelector(s)?.dataset.send === String(id), [rows, history.items[0].id]);
    assert.deepEqual(await page.locator(rows).evaluateAll((els) => els.map((e) => Number(e.dataset.send))), history.items.map((e) => e.id));
    assert.equal(await page.locator(`[data-send="${sent.id}"] time`).innerText(), await shown.dateTime(page, sent.createdAt, 'UTC'));
    if (name === 'phone') await assertFitsWidth(page, 'the morning summary');
    await screenshot(page, `admin-morning-${name}`);
    await assertAccessibleInBothThemes(page, `the morning summary at ${name} width`);

    await page.getByRole('button', { name: `Switch off ${hookName}` }).click();
    await page.getByRole('dialog', { name: `Switch off ${hookName}?` }).getByRole('button', { name: 'Switch it off' }).click();
    await page.getByText(`${hookName} is off.`).waitFor();
    assert.equal((await routeJson(page, '/api/morning-summary/webhooks')).find((h) => h.id === hook.id).enabled, false);
    if (!(await routeJson(page, '/api/morning-summary/webhooks')).some((h) => h.enabled)) {
      await page.getByRole('button', { name: 'Send the summary now' }).click();
      await confirm.getByText('No webhook is enabled').waitFor();
      await confirm.getByRole('button', { name: 'Send it' }).click();
      await page.getByRole('alert').filter({ hasText: /webhook/i }).waitFor();
    }
    await page.getByRole('button', { name: `Delete ${hookName}` }).click();
    await page.getByRole('dialog', { name: `Delete ${hookName}?` }).getByRole('button', { name: 'Delete it' }).click();
    await page.getByText(`Deleted ${hookName}.`).waitFor();
  } finally {
    await page.request.delete(`${opsConsole.url}/api/morning-summary/webhooks/${hook.id}`);
  }
  assert.equal((await routeJson(page, '/api/morning-summary/webhooks')).some((h) => h.id === hook.id), false);
}

for (const name of ['desktop', 'phone']) {
  test(`admin: notifications and the morning summary at ${name} width`, async () => {
    const who = createUser(`admin-notify-${name}`, { admin: true });
    const page = await openSignedIn(browser, { viewport: name, name: 'admin-notifications', hash: '#/admin/notifications', who,
      ready: '[data-testid=event-keys] tbody tr' });
    await checkEventKeys(page, name);
    await checkChannels(page, name);
    await checkMorning(page, name);
    page.assertClean([
      allowSignInProbe,
      /^http 400 POST .*\/api\/admin\/notify-event-keys$/, // the refused key, on purpose
      /^http 409 POST .*\/api\/admin\/notify-event-keys$/, // the duplicate, on purpose
      /^http 400 POST .*\/api\/notification-channels$/, // the URL off the allowlist, on purpose
      /^http 400 PATCH .*\/api\/notification-channels\/\d+$/, // the private address and the bad secret, on purpose
      /^http 409 POST .*\/api\/morning-summary\/send$/, // sent with no webhook on, on purpose
      /^http 404 DELETE .*\/api\/morning-summary\/webhooks\/\d+$/, // the clean-up's, once the page deleted it
    ]);
  });
}
