// The console's way in, in a real browser: the sign-in page (its errors next to their fields), a
// session that ends sending the user to sign-in with a message and then back where they were, and
// sign-out. The session is the HttpOnly cookie: nothing of it, or of the password, is left where
// the page's script could read it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, launch, openPage, opsConsole, screenshot,
  signIn, tabTo, viewports,
} from './lib.mjs';

for (const [name, viewport] of Object.entries(viewports)) {
  test(`sign-in at ${name} width: a wrong password is said under the field; the right one opens the overview`, async () => {
    const who = createUser(`signin_${name}`);
    const browser = await launch();
    try {
      const page = await openPage(browser, viewport);
      await page.goto(`${opsConsole.url}/`);
      await page.getByRole('heading', { name: 'Sign in to the ops console' }).waitFor();
      // the form shows as soon as /api/auth/me says 401; the address follows once /api/auth/setup
      // has said that users exist
      await page.waitForURL(/#\/sign-in(\?next=%23%2F)?$/, { timeout: 5000 });
      await assertAccessibleInBothThemes(page, `sign-in (${name})`);
      if (name === 'phone') await assertFitsWidth(page, 'the sign-in page');
      await screenshot(page, `sign-in-${name}`);

      // with the keyboard alone: the e-mail has the focus, Tab reaches the password and the button
      await page.keyboard.type(who.email);
      await tabTo(page, page.getByLabel('Password'));
      await page.keyboard.type('not the password');
      await page.keyboard.press('Enter');
      const error = page.locator('#password-error');
      await error.waitFor();
      assert.match(await error.textContent(), /not valid/);
      assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.getByLabel('Password').getAttribute('aria-describedby'), 'password-error');

      // a malformed e-mail: the route's field error, under the e-mail
      await page.getByLabel('E-mail').fill('not-an-address');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#email-error').waitFor();
      assert.match(await page.locator('#email-error').textContent(), /e-mail address/);

      await page.getByLabel('E-mail').fill(who.email);
      await page.getByLabel('Password').fill(who.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      assert.match(page.url(), /#\/$/);
      assert.equal(await page.title(), 'Overview · Ops console');

      const storage = await page.evaluate(() => ({
        cookie: document.cookie, local: JSON.stringify({ ...localStorage }), session: sessionStorage.length,
      }));
      assert.equal(storage.cookie.includes('ops_session'), false, 'script cannot read the session');
      assert.equal(storage.local.includes(who.password), false, 'the password is kept nowhere');
      assert.deepEqual(Object.keys(JSON.parse(storage.local)), ['ops.theme'], 'localStorage holds the theme alone');
      assert.equal(storage.session, 0);

      page.assertClean([allowSignInProbe, /^http 401 POST .*\/api\/auth\/login$/, /^http 400 POST .*\/api\/auth\/login$/]);
    } finally {
      await browser.close();
    }
  });
}

test('a session that ends sends the user to sign-in with a message, then back to the page they were on', async () => {
  const who = createUser('session_end');
  const browser = await launch();
  try {
    const page = await openPage(browser, viewports.desktop);
    await signIn(page, '#/?focus=workers', who);
    await page.getByRole('heading', { name: 'Workers' }).waitFor();

    // the session ends on the server (as after the idle limit): the next request the page makes
    // is refused, and the page goes to sign-in
    const cookie = (await page.context().cookies()).find((c) => c.name === 'ops_session');
    const ended = await fetch(`${opsConsole.url}/api/auth/logout`, {
      method: 'POST', headers: { Cookie: `ops_session=${cookie.value}` },
    });
    assert.equal(ended.status, 204);
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange'))); // the refresh a shown tab does
    await page.getByText('Your session ended. Sign in again to go on where you were.').waitFor();
    assert.match(page.url(), /#\/sign-in\?/);

    await page.getByLabel('E-mail').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.equal(new URL(page.url()).hash, '#/?focus=workers', 'back where they were');

    // sign-out ends the session and says so
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    const me = await page.request.get(`${opsConsole.url}/api/auth/me`);
    assert.equal(me.status(), 401, 'the session is over');
    page.assertClean([allowSignInProbe, /^http 401 GET .*\/api\/dashboard\//, /^http 401 GET .*\/api\/status\/workers$/]);
  } finally {
    await browser.close();
  }
});

test('a page never sends the user to another site after sign-in', async () => {
  const who = createUser('next_guard');
  const browser = await launch();
  try {
    const page = await openPage(browser, viewports.desktop);
    await page.goto(`${opsConsole.url}/#/sign-in?next=${encodeURIComponent('https://evil.example/')}`);
    await page.getByLabel('E-mail').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.equal(new URL(page.url()).origin, opsConsole.url);
    assert.equal(new URL(page.url()).hash, '#/');
    page.assertClean([allowSignInProbe]);
  } finally {
    await browser.close();
  }
});

// The form shows on the first 401, before /api/auth/setup has answered and the address moved to
// #/sign-in?next=…: a person (or a password manager) signing in that fast still comes back to the
// page they asked for, not to the overview.
test('signing in before the address has moved to sign-in still comes back to the page asked for', async () => {
  const who = createUser('fast_sign_in');
  const browser = await launch();
  try {
    const page = await openPage(browser, viewports.desktop);
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    await page.route('**/api/auth/setup', async (route) => { await held; await route.continue(); });
    await page.goto(`${opsConsole.url}/#/preferences`);
    await page.getByLabel('E-mail').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    assert.equal(new URL(page.url()).hash, '#/preferences', 'the address has not moved yet');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.waitForFunction(() => window.location.hash === '#/preferences');
    await page.getByRole('heading', { name: 'Preferences', level: 1 }).waitFor();
    // and when /api/auth/setup answers at last, the signed-in user is not sent to sign-in
    const setupAnswered = page.waitForResponse('**/api/auth/setup');
    release();
    await setupAnswered;
    await page.evaluate(() => new Promise((resolve) => { setTimeout(resolve, 300); }));
    assert.equal(new URL(page.url()).hash, '#/preferences');
    assert.equal(await page.getByRole('button', { name: 'Sign out' }).isVisible(), true);
    await page.unroute('**/api/auth/setup');
    page.assertClean([allowSignInProbe]);
  } finally {
    await browser.close();
  }
});
