// Backup (#/security/backup) on the console whose vendors are the sandbox's fakes (Datto, copied by
// the sync the console runs at its start), at a desktop and a 360-px phone, as an administrator of
// its own: the failed backups of the last 24 hours and the unmatched client names are the routes';
// a client name mapped to a company through the page's form (the route lists the mapping), that
// company chosen shows its protected machines as the route gives them, in the user's zone; the
// mapping removed after a confirmation. (a plain user's view: security_mfa.test.mjs).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, launch, openSignedIn, routeJson,
  screenshot, shown, tabTo, waitForSync,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const attr = (page, selector, key) => page.locator(selector).evaluateAll((els, k) => els.map((e) => e.dataset[k]), key);

for (const name of ['desktop', 'phone']) {
  test(`backup at ${name} width`, async () => {
    const who = createUser(`sec_backup_${name}`, { console: 'vendors', admin: true });
    const page = await openSignedIn(browser, { viewport: name, name: 'security-backup', hash: '#/security/backup', who, ready: '[data-testid=sync-state]' });
    // the copy: the sync the console ran at its start, or one started here when none has run yet
    const state = await routeJson(page, '/api/backup/sync');
    if (!state.inProgress && !state.history.length) {
      await page.getByRole('button', { name: 'Start a sync' }).click();
      await page.getByTestId('sync-state').getByText(/running|succeeded/).waitFor();
    }
    await waitForSync(page, '/api/backup/sync');
    await page.reload();

    // the failures and the unmatched client names are the routes'
    const failures = await routeJson(page, '/api/backup/failures');
    await page.getByTestId('failure-count').waitFor();
    assert.equal(await page.getByTestId('failure-count').innerText(), String(failures.length));
    // the first 25, then every one
    if (failures.length > 25) {
      assert.equal(await page.locator('tr[data-failure]').count(), 25);
      await page.locator('section[aria-labelledby="fail-h"]').getByRole('button', { name: 'Show all' }).click();
    }
    assert.deepEqual(await attr(page, 'tr[data-failure]', 'failure'), failures.map((f) => String(f.id)));
    const mappings = await routeJson(page, '/api/backup/company-mappings');
    assert.ok(mappings.unmatched.length > 0, 'some appliances match no company of the seed');
    await page.locator('li[data-unmatched]').first().waitFor();
    assert.deepEqual(await attr(page, 'li[data-unmatched]', 'unmatched'), mappings.unmatched.map((u) => u.clientName));

    // a client name mapped to a company, with the keyboard
    const clientName = mappings.unmatched[0].clientName;
    const companies = await routeJson(page, '/api/data/companies-list');
    const company = companies[name === 'desktop' ? 0 : 2];
    await page.getByLabel('Client name', { exact: true }).selectOption({ label: clientName });
    await page.getByLabel('PSA company', { exact: true }).selectOption({ label: company.company_name });
    await page.getByLabel('PSA company', { exact: true }).focus(); // the next stop is the form's button
    await tabTo(page, page.getByRole('button', { name: 'Map', exact: true }), 3);
    await page.keyboard.press('Enter');
    await page.getByText(`Mapped ${clientName} to ${company.company_name}.`).waitFor();
    const after = await routeJson(page, '/api/backup/company-mappings');
    assert.equal(after.mappings.find((m) => m.clientName.toLowerCase() === clientName.toLowerCase()).companyId, company.id);
    assert.ok(!after.unmatched.some((u) => u.clientName === clientName), 'no longer unmatched');
    await page.locator('li[data-unmatched]').filter({ hasText: clientName }).waitFor({ state: 'detached' });

    // that company's machines
    await page.getByLabel('Company', { exact: true }).selectOption({ label: company.company_name });
    await page.waitForFunction((id) => window.location.hash === `#/security/backup?company=${id}`, company.id);
    const machines = await routeJson(page, `/api/backup/companies/${company.id}/machines`);
    assert.ok(machines.length > 0, 'the mapped appliances protect machines');
    await page.locator('tr[data-machine]').nth(machines.length - 1).waitFor();
    assert.deepEqual(await attr(page, 'tr[data-machine]', 'machine'), machines.map((m) => m.name));
    const withBackup = machines.find((m) => m.lastBackupAt);
    const row = page.locator(`tr[data-machine="${withBackup.name}"]`).first();
    const text = await row.innerText();
    assert.ok(text.includes(await shown.dateTime(page, withBackup.lastBackupAt, 'UTC')), 'the last backup, in the user\'s zone');
    assert.ok(text.includes(withBackup.lastBackupStatus));
    if (withBackup.lastGoodBackupAt) assert.ok(text.includes(await shown.dateTime(page, withBackup.lastGoodBackupAt, 'UTC')));
    if (name === 'phone') await assertFitsWidth(page, 'backup');
    await screenshot(page, `security-backup-${name}`);
    await assertAccessibleInBothThemes(page, `backup at ${name} width`);

    // the mapping removed after a confirmation
    await page.getByRole('button', { name: `Remove the mapping of ${after.mappings.find((m) => m.companyId === company.id).clientName}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove this mapping?' });
    assert.match(await dialog.innerText(), /fall back to the company whose name matches/);
    await dialog.getByRole('button', { name: 'Remove it' }).click();
    await page.locator('li[data-unmatched]').filter({ hasText: clientName }).waitFor();
    assert.ok(!(await routeJson(page, '/api/backup/company-mappings')).mappings.some((m) => m.companyId === company.id && m.clientName === clientName));
    page.assertClean([allowSignInProbe]);
  });
}
