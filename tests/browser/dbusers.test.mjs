// The /dbusers console in a real browser (Debian's Chromium, driven by playwright-core): sign in,
// create a user, read the credentials on the page, log in with them (psql), revoke the user, and
// find the login refused. Each page follows the device's theme: axe checks it in light and dark. tests/browser/run starts mail-triage with DBUSERS_DB_HOST/PORT set to
// the test cluster, so the connection string on the page is the real one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { assertAccessibleInBothThemes, launch, mailTriage, openPage, screenshot, unique } from './lib.mjs';

// The current_user of a session opened with `url`; throws when the login is refused.
function loginAs(url) {
  return execFileSync('psql', [url, '-Atc', 'SELECT current_user'], { stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();
}

test('sign in, create a user, read its credentials, revoke it', async () => {
  const baseUrl = mailTriage.url;
  const adminKey = mailTriage.dbusersAdminKey;
  const username = unique('browser');
  const browser = await launch();
  try {
    const page = await openPage(browser);

    // no session: the console sends us to the sign-in form
    await page.goto(`${baseUrl}/dbusers`);
    assert.match(page.url(), /\/dbusers\/login$/);
    await screenshot(page, 'dbusers-login-desktop');
    await page.getByLabel('Admin key').fill('not-the-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.match(await page.getByRole('alert').innerText(), /not valid/);
    await assertAccessibleInBothThemes(page, 'the sign-in page with its error');
    await page.emulateMedia({ colorScheme: 'light' });

    await page.getByLabel('Admin key').fill(adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.match(page.url(), /\/dbusers$/);
    await page.getByRole('heading', { name: 'Create a user' }).waitFor();

    // a bad name is refused on the form
    await page.getByLabel('Username').fill('Bad Name');
    await page.getByLabel('Username').evaluate((input) => input.removeAttribute('pattern'));  // past the browser's own check
    await page.getByRole('button', { name: 'Create user' }).click();
    assert.match(await page.getByRole('alert').innerText(), /lowercase letters, digits and underscores/);

    // create: the credentials are on the page, once
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Permission level').selectOption('modify');
    await page.getByLabel('Description (optional)').fill('created by the browser test');
    await page.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('heading', { name: `svc_${username} was created` }).waitFor();
    const password = await page.locator('#password').innerText();
    const url = await page.locator('#url').innerText();
    assert.equal(await page.locator('#role').innerText(), `svc_${username}`);
    assert.ok(password.length >= 22, 'a password of at least 128 bits');
    assert.ok(url.includes(`svc_${username}:${password}@`));
    assert.equal(loginAs(url), `svc_${username}`);
    await assertAccessibleInBothThemes(page, 'the credentials');
    await page.emulateMedia({ colorScheme: 'light' });

    // back on the list: the user is active and the password is not shown again
    await page.getByRole('link', { name: 'Back to the list' }).click();
    const row = page.getByRole('row', { name: new RegExp(username) });
    assert.match(await row.innerText(), /modify/);
    assert.match(await row.innerText(), /active/);
    assert.equal((await page.content()).includes(password), false);
    await screenshot(page, 'dbusers-list-desktop');
    await assertAccessibleInBothThemes(page, 'the list and the form');
    // dark: the page's own colours, not the browser's defaults behind light ones
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(11, 13, 16)');
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('th')).backgroundColor),
      'rgb(28, 32, 39)');
    await screenshot(page, 'dbusers-list-desktop-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(255, 255, 255)');

    // revoke
    await page.getByRole('button', { name: `Revoke ${username}` }).click();
    assert.match(await page.getByRole('alert').innerText(), /revoked/);
    assert.match(await page.getByRole('row', { name: new RegExp(username) }).innerText(), /revoked/);
    assert.throws(() => loginAs(url), /password authentication failed|does not exist/);

    await page.getByRole('button', { name: 'Sign out' }).click();
    assert.match(page.url(), /\/dbusers\/login$/);
    // the refused admin key and the refused name are the 4xx answers the page explained above
    page.assertClean([/^http 403 POST .*\/dbusers\/login$/, /^http 400 POST .*\/dbusers\/users$/]);
  } finally {
    await browser.close();
  }
});
