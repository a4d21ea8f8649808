// Endpoint security (#/security/endpoint) on the console whose vendors are the sandbox's fakes
// (SentinelOne), at a desktop and a 360-px phone, as an administrator of its own: a sync started
// from the page fills the copy (checked through the sync route), the coverage is the route's, a
// site mapped to a company through the page's form (the route's mapping and coverage name it), and
// the mapping removed after a confirmation.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, launch, openSignedIn, routeJson,
  screenshot, tabTo, waitForSync,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

for (const name of ['desktop', 'phone']) {
  test(`endpoint security at ${name} width`, async () => {
    const who = createUser(`sec_endpoint_${name}`, { console: 'vendors', admin: true });
    const page = await openSignedIn(browser, { viewport: name, name: 'security-endpoint', hash: '#/security/endpoint', who, ready: '[data-testid=sync-state]' });

    // a sync through the page's button
    const before = await routeJson(page, '/api/endpointsec/sync');
    const start = page.getByRole('button', { name: 'Start a sync' });
    await tabTo(page, start, 80);
    const started = page.waitForResponse((r) => r.url().endsWith('/api/endpointsec/sync') && r.request().method() === 'POST');
    await page.keyboard.press('Enter');
    assert.equal((await started).status(), 202);
    const state = await waitForSync(page, '/api/endpointsec/sync', before.history[0]?.id);
    assert.equal(state.history[0].status, 'succeeded');
    await page.getByTestId('sync-state').getByText('succeeded').waitFor();

    // the coverage is the route's
    const coverage = await routeJson(page, '/api/endpointsec/coverage');
    assert.ok(coverage.length > 0, 'the copy has sites');
    await page.locator('tr[data-site]').nth(coverage.length - 1).waitFor();
    assert.deepEqual(await page.locator('tr[data-site]').evaluateAll((rows) => rows.map((r) => r.dataset.site)), coverage.map((s) => s.siteId));
    const site = coverage[0];
    const siteRow = page.locator(`tr[data-site="${site.siteId}"]`);
    assert.ok((await siteRow.innerText()).includes(site.siteName));

    // a site mapped to a company through the form
    const companies = await routeJson(page, '/api/data/companies-list');
    const company = companies[name === 'desktop' ? 0 : 1];
    await page.getByLabel('Site', { exact: true }).selectOption(site.siteId);
    await page.getByLabel('PSA company').selectOption({ label: company.company_name });
    await page.getByRole('button', { name: 'Map', exact: true }).click();
    await page.getByText(`Mapped ${site.siteName} to ${company.company_name}.`).waitFor();
    const mapped = (await routeJson(page, '/api/endpointsec/company-mappings')).find((m) => m.siteId === site.siteId);
    assert.equal(mapped.companyId, company.id);
    await page.locator(`li[data-mapping="${site.siteId}"]`).waitFor();
    await siteRow.getByText(company.company_name).waitFor();
    assert.equal((await routeJson(page, '/api/endpointsec/coverage')).find((s) => s.siteId === site.siteId).companyName, company.company_name);
    if (name === 'phone') await assertFitsWidth(page, 'endpoint security');
    await screenshot(page, `security-endpoint-${name}`);
    await assertAccessibleInBothThemes(page, `endpoint security at ${name} width`);

    // removed after a confirmation
    await page.getByRole('button', { name: `Remove the mapping of ${site.siteName}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove this mapping?' });
    assert.match(await dialog.innerText(), new RegExp(`no longer belongs to ${company.company_name}`));
    await dialog.getByRole('button', { name: 'Remove it' }).click();
    await page.locator(`li[data-mapping="${site.siteId}"]`).waitFor({ state: 'detached' });
    assert.ok(!(await routeJson(page, '/api/endpointsec/company-mappings')).some((m) => m.siteId === site.siteId));
    page.assertClean([allowSignInProbe]);
  });
}
