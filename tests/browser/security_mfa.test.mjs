// MFA's flagged users (#/security/mfa) on the console whose vendors are the sandbox's fakes (Duo:
// a parent and two child accounts), at a desktop and a 360-px phone, as a user of its own: the
// bypass and disabled users and the accounts are the route's, with their last login in the
// user's zone; then the section's link and the sub-navigation reach it with the keyboard, and the
// section's other pages offer this plain user no sync, no mapping form and no script to run. Then,
// at the phone width, Duo failing: one child account (the others' users still listed, the failed one
// named with Duo's words, the counts the route's), then Duo itself (the route's 502 said in Duo's
// name where the lists would be, and "Refresh" recovering once it answers again).
//
// The faults are the Duo fake's (one child account's switch, then the whole fake's) and only this
// file reads Duo: the vendors console alone is configured for it, and no other file opens its MFA
// page or routes, nor sends its morning summary (the seed has no morning webhook). Its tests run one
// after another, and every switch is turned off in a finally. The vendors console keeps no MFA
// answer (tests/browser/run: MFA_CACHE_SECONDS=0), so a failure shows at once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, goToSection, launch, openSignedIn, routeJson,
  sandboxControl, screenshot, setPreferences, shown, tabTo,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const userIds = (page, section) => page.locator(`section[aria-labelledby="${section}"] tr[data-user]`)
  .evaluateAll((rows) => rows.map((r) => r.dataset.user));

for (const name of ['desktop', 'phone']) {
  test(`MFA flagged users at ${name} width`, async () => {
    const who = createUser(`sec_mfa_${name}`, { console: 'vendors' });
    const page = await openSignedIn(browser, { viewport: name, name: 'security-mfa', hash: '#/security/mfa', who, ready: 'tr[data-user]' });
    const flagged = await routeJson(page, '/api/mfa/users/flagged');
    assert.ok(flagged.bypass.length > 0 && flagged.disabled.length > 0, 'the Duo fake has users on bypass and disabled');
    assert.deepEqual(await userIds(page, 'bypass-h'), flagged.bypass.map((u) => u.userId));
    assert.deepEqual(await userIds(page, 'disabled-h'), flagged.disabled.map((u) => u.userId));
    assert.equal(await page.getByTestId('bypass-h-count').innerText(), String(flagged.bypass.length));
    const status = await routeJson(page, '/api/mfa/status');
    for (const key of ['bypass', 'disabled', 'accounts', 'failedAccounts']) {
      assert.equal(await page.locator(`[data-count="${key}"]`).innerText(), await shown.number(page, status[key]), `the ${key} count`);
    }
    const accounts = await page.locator('tr[data-account]').evaluateAll((rows) => rows.map((r) => r.innerText));
    assert.equal(accounts.length, flagged.accounts.length);
    flagged.accounts.forEach((a, i) => assert.ok(accounts[i].includes(a.name || a.accountId || 'parent'), `account ${i} is ${a.name}`));
    const logged = flagged.bypass.find((u) => u.lastLogin);
    if (logged) {
      const row = page.locator(`section[aria-labelledby="bypass-h"] tr[data-user="${logged.userId}"]`);
      assert.ok((await row.innerText()).includes(await shown.dateTime(page, logged.lastLogin, 'UTC')));
      await setPreferences(page, { timezone: 'Asia/Kolkata' });
      await page.reload();
      await row.waitFor();
      assert.ok((await row.innerText()).includes(await shown.dateTime(page, logged.lastLogin, 'Asia/Kolkata')), 'the last login follows the zone');
      await setPreferences(page, { timezone: 'UTC' });
    }
    if (name === 'phone') await assertFitsWidth(page, 'the flagged users');
    await screenshot(page, `security-mfa-${name}`);
    await assertAccessibleInBothThemes(page, `MFA flagged users at ${name} width`);

    // the section's first page, then back to MFA through the sub-navigation, with the keyboard
    await goToSection(page, 'Security');
    await page.getByRole('heading', { level: 1, name: 'Held mail' }).waitFor();
    const link = page.getByRole('navigation', { name: 'Security pages' }).getByRole('link', { name: 'MFA' });
    await tabTo(page, link, 40);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'MFA: flagged users' }).waitFor();
    assert.equal(await link.getAttribute('aria-current'), 'page');

    // a plain user: no sync, no mapping form, no script to run on the other pages of the section
    const pages = page.getByRole('navigation', { name: 'Security pages' });
    await pages.getByRole('link', { name: 'Endpoint' }).click();
    await page.getByRole('heading', { level: 1, name: 'Endpoint security' }).waitFor();
    await page.getByTestId('sync-state').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Start a sync' }).count(), 0);
    assert.equal(await page.getByRole('form', { name: /^Map a/ }).count(), 0);
    await pages.getByRole('link', { name: 'Backup' }).click();
    await page.getByRole('heading', { level: 1, name: 'Backup' }).waitFor();
    await page.getByTestId('sync-state').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Start a sync' }).count(), 0);
    assert.equal(await page.getByRole('form', { name: /^Map a/ }).count(), 0);
    await pages.getByRole('link', { name: 'Scripts' }).click();
    await page.getByText('Running a script needs the permission pair (rmm, execute)').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Run script…' }).count(), 0);
    page.assertClean([allowSignInProbe]);
  });
}

test('MFA when a Duo child account fails, then Duo itself, at phone width', async () => {
  const who = createUser('sec_mfa_fail', { console: 'vendors' });
  const page = await openSignedIn(browser, { viewport: 'phone', name: 'security-mfa-failing', hash: '#/security/mfa', who, ready: 'tr[data-user]' });
  const { accounts } = await sandboxControl('GET', '/_sandbox/duo/accounts');
  const child = accounts.find((a) => !a.parent && (a.bypass > 0 || a.disabled > 0));
  assert.ok(child, 'the Duo fake has a child account with flagged users');
  const refresh = page.getByRole('button', { name: 'Refresh' });
  try {
    // one child account fails (Duo's 403): the others still answer
    await sandboxControl('PUT', `/_sandbox/duo/accounts/${child.account_id}/failing`, { status: 403 });
    await refresh.click();
    const banner = page.getByTestId('failed-accounts');
    await banner.waitFor();
    const flagged = await routeJson(page, '/api/mfa/users/flagged');
    const failed = flagged.accounts.filter((a) => a.error);
    assert.deepEqual(failed.map((a) => a.accountId), [child.account_id], 'the route names the failing account');
    assert.ok((await banner.innerText()).includes(`one account: ${failed[0].name}`), 'the page names it above the lists');
    const row = page.locator(`tr[data-account="${child.account_id}"]`);
    const rowText = await row.innerText();
    assert.ok(rowText.includes('failed') && rowText.includes(failed[0].error), `Duo's words in its row: ${rowText}`);
    for (const a of flagged.accounts.filter((x) => !x.error)) {
      const ok = page.locator(`tr[data-account="${a.accountId || ''}"]`);
      assert.equal(await ok.locator('td[data-label=Users]').innerText(), await shown.number(page, a.users), `${a.name} read`);
    }
    assert.ok(!flagged.bypass.concat(flagged.disabled).some((u) => u.accountId === child.account_id), 'none of its users');
    assert.ok(flagged.bypass.length + flagged.disabled.length > 0, 'the other accounts\' users are still there');
    await page.waitForFunction((ids) => [...document.querySelectorAll('section[aria-labelledby="bypass-h"] tr[data-user]')]
      .map((r) => r.dataset.user).join() === ids.join(), flagged.bypass.map((u) => u.userId));
    assert.deepEqual(await userIds(page, 'disabled-h'), flagged.disabled.map((u) => u.userId));
    const status = await routeJson(page, '/api/mfa/status');
    assert.equal(status.failedAccounts, 1);
    for (const key of ['bypass', 'disabled', 'accounts', 'failedAccounts']) {
      assert.equal(await page.locator(`[data-count="${key}"]`).innerText(), await shown.number(page, status[key]), `the ${key} count`);
    }
    await assertFitsWidth(page, 'MFA with a failed account');
    await screenshot(page, 'security-mfa-failed-account-phone');
    await assertAccessibleInBothThemes(page, 'MFA with a failed account at phone width');

    // Duo fails altogether (503 on every call, past the client's retries): the route's 502 in Duo's name
    await sandboxControl('PUT', '/_sandbox/duo/faults', { server_errors: 1000, status: 503 });
    const answered = await page.request.get(`${new URL(page.url()).origin}/api/mfa/users/flagged`);
    assert.equal(answered.status(), 502);
    const { detail } = await answered.json();
    await page.reload();
    const alerts = page.getByRole('alert').filter({ hasText: 'Duo did not answer as expected.' });
    await alerts.nth(1).waitFor(); // the lists' and the counts'
    assert.ok((await page.locator('main').innerText()).includes(detail), `the route's detail is said: ${detail}`);
    assert.equal(await page.locator('tr[data-user]').count(), 0, 'no list where Duo did not answer');
    await assertFitsWidth(page, 'MFA with Duo failing');
    await screenshot(page, 'security-mfa-vendor-failing-phone');
  } finally {
    await sandboxControl('PUT', '/_sandbox/duo/faults', {});
    await sandboxControl('PUT', `/_sandbox/duo/accounts/${child.account_id}/failing`, { status: 0 });
  }
  // Duo answers again: "Refresh" brings the lists and the counts back, every account read
  await refresh.click();
  await page.locator('tr[data-user]').first().waitFor();
  await page.locator('[data-count="failedAccounts"]').waitFor();
  assert.equal(await page.getByRole('alert').filter({ hasText: 'Duo did not answer' }).count(), 0);
  assert.equal(await page.getByTestId('failed-accounts').count(), 0);
  assert.equal((await routeJson(page, '/api/mfa/status')).failedAccounts, 0);
  page.assertClean([
    allowSignInProbe,
    /^http 502 GET .*\/api\/mfa\/(users\/flagged|status)$/, // while the Duo fake fails on purpose
  ]);
});
