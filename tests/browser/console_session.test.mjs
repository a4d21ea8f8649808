// ops-console's session in a real browser: signing in through the API from a page of the console's
// own origin leaves the session in a cookie that the browser sends and JavaScript cannot read
// (HttpOnly, SameSite=Lax), nothing in the page's storage, and signing out ends it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, opsConsole } from './lib.mjs';

test('the console session is an HttpOnly cookie that script cannot read, ended by sign-out', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser);
    await page.goto(`${opsConsole.url}/healthz`);
    const seen = await page.evaluate(async ({ email, password }) => {
      const json = { 'Content-Type': 'application/json' };
      const login = await fetch('/api/auth/login', { method: 'POST', headers: json, body: JSON.stringify({ email, password }) });
      const me = await fetch('/api/auth/me');
      return {
        login: login.status, me: me.status, who: (await me.json()).email,
        script: document.cookie, stored: localStorage.length + sessionStorage.length,
      };
    }, { email: opsConsole.adminEmail, password: opsConsole.adminPassword });
    assert.equal(seen.login, 200);
    assert.equal(seen.me, 200, 'the browser sends the session cookie by itself');
    assert.equal(seen.who, opsConsole.adminEmail);
    assert.equal(seen.script.includes('ops_session'), false, 'document.cookie does not show the session');
    assert.equal(seen.stored, 0, 'nothing in localStorage or sessionStorage');

    const session = (await page.context().cookies()).find((c) => c.name === 'ops_session');
    assert.ok(session, 'the browser holds the session cookie');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Lax');

    const after = await page.evaluate(async () => {
      const logout = await fetch('/api/auth/logout', { method: 'POST' });
      const me = await fetch('/api/auth/me');
      return { logout: logout.status, me: me.status, type: me.headers.get('content-type') };
    });
    assert.ok(after.logout < 300, `sign-out answers ${after.logout}`);
    assert.equal(after.me, 401, 'the ended session is refused');
    assert.match(after.type, /application\/problem\+json/);
    // the 401 provoked above, and the icon Chromium asks for on a page that names none (/healthz)
    page.assertClean([/^http 401 GET .*\/api\/auth\/me$/, /^http 404 GET .*\/favicon\.ico$/]);
  } finally {
    await browser.close();
  }
});
