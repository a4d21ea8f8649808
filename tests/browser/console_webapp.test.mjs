// The console as an installed web app: the manifest and its icons load, the service worker keeps
// the shell and its assets (never an API answer), and offline the shell still opens and says that
// the console cannot be reached, with a retry that works once the network is back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allowSignInProbe, createUser, launch, openPage, opsConsole, signIn, viewports } from './lib.mjs';

test('the installed web app keeps its shell, never API data, and opens offline with a clear message', async () => {
  const who = createUser('webapp');
  const browser = await launch();
  try {
    const page = await openPage(browser, viewports.phone);
    await signIn(page, '#/m', who);
    const manifest = await (await page.request.get(`${opsConsole.url}/manifest.webmanifest`)).json();
    assert.equal(manifest.start_url, '/#/m');
    for (const icon of manifest.icons) {
      const res = await page.request.get(`${opsConsole.url}${icon.src}`);
      assert.equal(res.status(), 200, icon.src);
      assert.equal(res.headers()['content-type'], icon.type);
    }

    await page.evaluate(() => navigator.serviceWorker.ready);
    const cached = await page.evaluate(async () => {
      const urls = [];
      for (const key of await caches.keys()) {
        for (const req of await (await caches.open(key)).keys()) urls.push(new URL(req.url).pathname);
      }
      return urls;
    });
    assert.ok(cached.includes('/'), 'the shell is cached');
    assert.ok(cached.some((u) => /^\/assets\/main\.[0-9a-f]{10}\.js$/.test(u)), 'its modules are cached');
    assert.deepEqual(cached.filter((u) => u.startsWith('/api/')), [], 'no API answer is kept');

    await page.context().setOffline(true);
    await page.reload();
    const banner = page.getByRole('alert').filter({ hasText: 'The console could not be reached.' });
    await banner.waitFor();
    await page.context().setOffline(false);
    await banner.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    page.assertClean([allowSignInProbe, /^request failed: GET .*\/api\/auth\/me/]);
  } finally {
    await browser.close();
  }
});
