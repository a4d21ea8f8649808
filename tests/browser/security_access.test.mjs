// The access gateway (#/security/access) on the console whose vendors are the sandbox's fakes
// (Cloudflare Access), at a desktop and a 360-px phone: its configuration-only health row, the
// applications with their policies as the route gives them (after a sync started from the page
// when the copy is empty), the section's sub-navigation with the keyboard.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, launch, openSignedIn, routeJson, screenshot,
  tabTo, waitForSync,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

for (const name of ['desktop', 'phone']) {
  test(`the access gateway at ${name} width`, async () => {
    const who = createUser(`sec_access_${name}`, { console: 'vendors', admin: true });
    const page = await openSignedIn(browser, { viewport: name, name: 'security-access', hash: '#/security/access', who,
      ready: '[data-testid=access-health]' });
    const health = await routeJson(page, '/api/access-gateway/health');
    assert.equal(health.configured, true);
    assert.match(await page.getByTestId('access-health').textContent(), /^configured The console has every setting/);

    // an empty copy: a sync through the page's button, followed until it ends
    const state = await routeJson(page, '/api/access-gateway/sync');
    if (state.applications === 0 && !state.inProgress) {
      const started = page.waitForResponse((r) => r.url().endsWith('/api/access-gateway/sync') && r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Start a sync' }).click();
      assert.ok([202, 409].includes((await started).status()));
    }
    await waitForSync(page, '/api/access-gateway/sync', state.applications === 0 ? state.history[0]?.id : undefined);
    const apps = await routeJson(page, '/api/access-gateway/applications');
    assert.ok(apps.length > 0, 'the fake\'s applications are copied');
    const rows = page.locator('table.access-apps tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), apps.length);
    for (const a of apps.slice(0, 3)) {
      const row = page.locator(`tr[data-app="${a.id}"]`);
      assert.ok((await row.locator('td').first().textContent()).startsWith(a.name));
      assert.equal(await row.locator('li[data-policy]').count(), a.policies.length, `${a.name}'s policies`);
      for (const p of a.policies) assert.match(await row.locator(`li[data-policy="${p.id}"]`).textContent(), new RegExp(`^\\s*${p.decision}`));
    }

    // the section's pages, with the keyboard
    const sub = page.getByRole('navigation', { name: 'Security pages' }).getByRole('link', { name: 'Access' });
    assert.equal(await sub.getAttribute('aria-current'), 'page');
    await tabTo(page, page.getByRole('navigation', { name: 'Security pages' }).getByRole('link', { name: 'MFA' }), 30);
    if (name === 'phone') await assertFitsWidth(page, 'the access gateway');
    await assertAccessibleInBothThemes(page, `the access gateway (${name})`);
    await screenshot(page, `security-access-${name}`);
    page.assertClean([allowSignInProbe]);
  });
}
