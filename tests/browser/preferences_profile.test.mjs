// An administrator's own name on the preferences page (PATCH /api/settings/profile), at a desktop
// and a 360-px phone: an empty name is refused under its input, a new one is saved, shown in the
// top bar and given by /api/auth/me; a user who is no administrator is not offered it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  allowSignInProbe, assertFitsWidth, createUser, description, launch, openSignedIn, routeJson, screenshot,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

for (const name of ['desktop', 'phone']) {
  test(`an administrator's own name at ${name} width`, async () => {
    const who = createUser(`profile_${name}`, { admin: true });
    const page = await openSignedIn(browser, { viewport: name, name: 'preferences-profile', hash: '#/preferences', who,
      ready: '#profile-name' });
    const field = page.getByLabel('Name', { exact: true });
    await field.fill('   ');
    await page.getByRole('button', { name: 'Save the name' }).click();
    await page.locator('#profile-name-error').waitFor();
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    assert.ok((await description(field)).length > 0, 'the route\'s message is under the input');
    const renamed = `Renamed ${name} tester`;
    await field.fill(renamed);
    await field.press('Enter');
    await page.getByText(`Saved: ${renamed}.`).waitFor();
    assert.equal((await routeJson(page, '/api/auth/me')).name, renamed);
    assert.equal(await page.locator('.topbar .who span').innerText(), renamed, 'the top bar follows');
    if (name === 'phone') await assertFitsWidth(page, 'the preferences with the name');
    await screenshot(page, `preferences-profile-${name}`);
    page.assertClean([allowSignInProbe, /^http 400 PATCH .*\/api\/settings\/profile$/]);
  });
}

test('a user who is no administrator is not offered the name', async () => {
  const page = await openSignedIn(browser, { viewport: 'desktop', name: 'preferences-plain', hash: '#/preferences',
    who: createUser('profile_plain'), ready: '#tz-h' });
  assert.equal(await page.getByRole('heading', { name: 'Your name' }).count(), 0);
  page.assertClean([allowSignInProbe]);
});
