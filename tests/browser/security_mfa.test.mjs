// MFA's flagged users (#/security/mfa) on the console whose vendors are the sandbox's fakes (Duo:
// a parent and two child accounts), at a desktop and a 360-px phone, as a user of its own: the
// bypass and disabled users and the accounts are the route's, with their last login in the
// user's zone; then the section's link and the sub-navigation reach it with the keyboard, and the
// section's other pages offer this plain user no sync, no mapping form and no script to run.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, goToSection, launch, openSignedIn, routeJson,
  screenshot, setPreferences, shown, tabTo,
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
