// The /dbusers console at a 360-px phone width, driven by the keyboard alone: each page fits the
// width (nothing to scroll sideways), and a person signs in, creates a read-only user and revokes
// it with Tab, typing, Enter and Space. Each user is a card there, with its Revoke button on screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFitsWidth, launch, mailTriage, openPage, screenshot, tabTo, unique, viewports } from './lib.mjs';

test('at phone width with the keyboard alone: sign in, create a user, revoke it', async () => {
  const username = unique('phone');
  const browser = await launch();
  try {
    const page = await openPage(browser, viewports.phone);
    await page.goto(`${mailTriage.url}/dbusers`);
    assert.match(page.url(), /\/dbusers\/login$/);
    await assertFitsWidth(page, 'the sign-in page');
    await screenshot(page, 'dbusers-login-phone');

    await tabTo(page, page.getByLabel('Admin key'));
    await page.keyboard.type(mailTriage.dbusersAdminKey);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/dbusers$/);
    await page.getByRole('heading', { name: 'Create a user' }).waitFor();
    await assertFitsWidth(page, 'the list and the form');

    await tabTo(page, page.getByLabel('Username'));
    await page.keyboard.type(username);
    await tabTo(page, page.getByLabel('Permission level'));
    await page.keyboard.press('Home');  // the first level, read-only
    await tabTo(page, page.getByRole('button', { name: 'Create user' }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: `svc_${username} was created` }).waitFor();
    await assertFitsWidth(page, 'the credentials');

    await tabTo(page, page.getByRole('link', { name: 'Back to the list' }));
    await page.keyboard.press('Enter');
    const row = page.getByRole('row', { name: new RegExp(username) });
    assert.match(await row.innerText(), /read/);
    // each user is a card: its Revoke button is on screen, not past the table's right edge
    await page.evaluate(() => window.scrollTo(0, 0));
    const revokeBox = await page.getByRole('button', { name: `Revoke ${username}` }).boundingBox();
    assert.ok(revokeBox.x + revokeBox.width <= viewports.phone.width, `Revoke at x ${revokeBox.x}`);
    await screenshot(page, 'dbusers-list-phone');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'dbusers-list-phone-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await tabTo(page, page.getByRole('button', { name: `Revoke ${username}` }), 100);
    await page.keyboard.press('Space');
    assert.match(await page.getByRole('alert').innerText(), /revoked/);
    assert.match(await page.getByRole('row', { name: new RegExp(username) }).innerText(), /revoked/);
    page.assertClean();
  } finally {
    await browser.close();
  }
});
