// First-login setup in a real browser, on an ops-console whose database has no user yet
// (tests/browser/run starts it for this file): the shell goes to setup by itself, a refused field
// is explained under it, the first administrator is created and signed in, and setup is then
// over for everyone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertAccessibleInBothThemes, assertFitsWidth, launch, openPage, screenshot, viewports } from './lib.mjs';

const fresh = process.env.OPS_CONSOLE_FRESH_URL;

test('the first visitor of a console without users creates the administrator and lands signed in', async () => {
  assert.ok(fresh, 'OPS_CONSOLE_FRESH_URL is set by tests/browser/run');
  const browser = await launch();
  try {
    const phone = await openPage(browser, viewports.phone);
    await phone.goto(`${fresh}/`);
    await phone.getByRole('heading', { name: 'Set up the ops console' }).waitFor();
    assert.match(phone.url(), /#\/setup$/);
    await assertFitsWidth(phone, 'the setup page');
    await assertAccessibleInBothThemes(phone, 'the setup page');
    await screenshot(phone, 'setup-phone');
    phone.assertClean([/^http 401 GET .*\/api\/auth\/me$/]);

    const page = await openPage(browser, viewports.desktop);
    await page.goto(`${fresh}/`);
    await page.getByRole('heading', { name: 'Set up the ops console' }).waitFor();
    await screenshot(page, 'setup-desktop');
    await page.getByLabel('E-mail').fill('first-admin@browser.example');
    await page.getByLabel('Name').fill('First Admin');
    await page.getByLabel('Password').fill('too short');
    await page.getByRole('button', { name: 'Create the administrator' }).click();
    const error = page.locator('#setup-password-error');
    await error.waitFor();
    assert.match(await error.textContent(), /12/, 'the length rule, under the password');
    assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');

    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create the administrator' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.equal(new URL(page.url()).hash, '#/');
    assert.ok((await page.locator('.who').textContent()).includes('First Admin'));

    // setup is over: the route says so, and the page sends a later visitor to sign-in
    const setup = await (await page.request.get(`${fresh}/api/auth/setup`)).json();
    assert.equal(setup.setupRequired, false);
    const later = await openPage(browser, viewports.desktop);
    await later.goto(`${fresh}/`);
    await later.getByRole('heading', { name: 'Sign in to the ops console' }).waitFor();
    later.assertClean([/^http 401 GET .*\/api\/auth\/me$/]);
    page.assertClean([/^http 401 GET .*\/api\/auth\/me$/, /^http 400 POST .*\/api\/auth\/setup$/]);
  } finally {
    await browser.close();
  }
});
