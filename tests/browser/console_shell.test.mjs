// The console's shell (ops_console/ui/src/components/shell.js): the top bar's sections, a
// section's own pages under it, pages fetched when first opened (PAGES' `load`: the first visit
// does not fetch them), and at a 360-px phone the sections folded behind "Menu", opened and
// closed with the keyboard. Administrators' pages are checked by the admin pages' own tests.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  allowSignInProbe, assertFitsWidth, createUser, launch, openPage, screenshot, signIn, tabTo, viewports,
} from './lib.mjs';

test('desktop: the sections, and a page fetched only when it is opened', async () => {
  const browser = await launch();
  try {
    const who = createUser('shell-desk');
    const page = await openPage(browser, viewports.desktop);
    const fetched = [];
    page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
    await signIn(page, '#/', who);
    const sections = page.getByRole('navigation', { name: 'Sections' });
    assert.equal(await page.getByRole('button', { name: 'Menu' }).isVisible(), false, 'no menu button at a desktop width');
    await sections.getByRole('link', { name: 'Overview' }).waitFor();
    assert.equal(await sections.getByRole('link', { name: 'Overview' }).getAttribute('aria-current'), 'page');
    assert.equal(fetched.some((p) => /\/assets\/pages-preferences\./.test(p)), false,
      'the preferences page is not fetched before it is opened');

    await sections.getByRole('link', { name: 'Preferences' }).click();
    await page.getByRole('heading', { name: 'Preferences', level: 1 }).waitFor();
    assert.ok(fetched.some((p) => /\/assets\/pages-preferences\.[0-9a-f]{10}\.js$/.test(p)), 'fetched when opened');
    assert.equal(await sections.getByRole('link', { name: 'Preferences' }).getAttribute('aria-current'), 'page');

    // the mobile section lists its pages in its own tab bar, not under the top bar
    await sections.getByRole('link', { name: 'Mobile' }).click();
    await page.getByRole('navigation', { name: 'Mobile sections' }).getByRole('link', { name: 'Tickets' }).waitFor();
    assert.equal(await page.locator('nav.subnav').count(), 0);
    page.assertClean([allowSignInProbe]);
  } finally {
    await browser.close();
  }
});

test('phone: the sections behind "Menu", with the keyboard', async () => {
  const browser = await launch();
  try {
    const who = createUser('shell-phone');
    const page = await openPage(browser, viewports.phone);
    await signIn(page, '#/', who);
    const menu = page.getByRole('button', { name: 'Menu' });
    const sections = page.getByRole('navigation', { name: 'Sections' });
    assert.equal(await menu.getAttribute('aria-expanded'), 'false');
    assert.equal(await sections.getByRole('link', { name: 'Preferences' }).isVisible(), false, 'folded at first');
    await assertFitsWidth(page, 'the overview with the menu folded');

    await tabTo(page, menu);
    await page.keyboard.press('Enter');
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    const link = sections.getByRole('link', { name: 'Preferences' });
    await link.waitFor({ state: 'visible' });
    await assertFitsWidth(page, 'the open menu');
    await screenshot(page, 'console-shell-menu-phone');
    await tabTo(page, link);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Preferences', level: 1 }).waitFor();
    assert.equal(await menu.getAttribute('aria-expanded'), 'false', 'following a link closes the menu');
    assert.equal(await link.isVisible(), false);
    page.assertClean([allowSignInProbe]);
  } finally {
    await browser.close();
  }
});
