// The administrators' settings pages at a desktop and a 360-px phone, as an administrator of the
// test's own: Integrations (#/admin/integrations: each switch as GET /api/admin/integrations gives
// it; one switched off with a reason after a "Keep it on", then on again with the keyboard, each
// checked through the route; an integration the environment disables shown locked, with why: this
// run's console disables none, so the route's answer is given one such key in the page), Scope and
// display (#/admin/scope: a company taken out of scope with a note after a confirmation and brought
// back; the kiosk's excluded companies changed, a refused classification id said under its input,
// and the kiosk's lists restored), Pipeline executions (#/admin/pipeline: the route's runs, the
// fallbacks filter and a pipeline id, in the URL; a refused id under its input). And a plain user
// sees no Admin section, and "Administrators only" on an admin page, without asking the routes.
// The global settings changed here (an integration's switch, the seed's company of no ticket, the
// kiosk keys, which no other page reads) are put back before each test ends.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, description, firstVisit, launch, openPage, openSignedIn, opsConsole,
  routeJson, screenshot, shown, signIn, tabTo, viewports, waitForCount,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const SWITCHED = 'access_gateway'; // a configuration-only row: its switch stops nothing another test runs
const SCOPED = 190; // seed/65-admin.sql's company of no ticket

async function checkIntegrations(page, name, who) {
  const rows = '[data-testid=integrations] tbody tr';
  const list = await routeJson(page, '/api/admin/integrations');
  await waitForCount(page, rows, list.items.length);
  assert.deepEqual(await page.locator(rows).evaluateAll((els) => els.map((e) => e.dataset.integration)), list.items.map((i) => i.key));
  for (const i of list.items) {
    const badge = await page.locator(`[data-integration="${i.key}"] td[data-label=State] .badge`).innerText();
    assert.equal(badge, i.disabled_by_env ? 'off, locked' : i.effective_disabled ? 'off' : 'on', i.key);
  }
  const item = list.items.find((i) => i.key === SWITCHED);
  assert.equal(item.disabled, false, `${SWITCHED} starts on`);
  if (name === 'phone') await assertFitsWidth(page, 'the integrations');
  await screenshot(page, `admin-integrations-${name}`);
  await assertAccessibleInBothThemes(page, `the integrations at ${name} width`);

  // switching off asks first: "Keep it on" keeps it on
  try {
    await page.getByRole('button', { name: `Switch off ${item.label}` }).click();
    const dialog = page.getByRole('dialog', { name: `Switch ${item.label} off?` });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /answer 403/);
    await dialog.getByRole('button', { name: 'Keep it on' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await routeJson(page, '/api/admin/integrations')).items.find((i) => i.key === SWITCHED).disabled, false);

    const reason = `browser test ${name}: vendor maintenance`;
    await page.getByRole('button', { name: `Switch off ${item.label}` }).click();
    await dialog.getByLabel(/^Reason/).fill(reason);
    if (name === 'phone') await screenshot(page, 'admin-integrations-confirm-phone');
    await dialog.getByRole('button', { name: 'Switch it off' }).click();
    await page.getByText(`${item.label} is off.`).waitFor();
    const off = (await routeJson(page, '/api/admin/integrations')).items.find((i) => i.key === SWITCHED);
    assert.deepEqual([off.disabled, off.reason, off.disabled_by, off.effective_disabled], [true, reason, who.email, true]);
    const row = page.locator(`[data-integration="${SWITCHED}"]`);
    assert.ok((await row.innerText()).includes(reason), 'the reason is shown');
    assert.ok((await row.innerText()).includes(await shown.dateTime(page, off.disabled_at, 'UTC')), 'and when');

    // on again, with the keyboard
    await tabTo(page, page.getByRole('button', { name: `Switch on ${item.label}` }), 80);
    await page.keyboard.press('Enter');
    await page.getByText(`${item.label} is on.`).waitFor();
  } finally {
    // put it back whatever happened above: other pages read the switches
    await page.request.patch(`${opsConsole.url}/api/admin/integrations`, { data: { key: SWITCHED, disabled: false } });
  }
  assert.equal((await routeJson(page, '/api/admin/integrations')).items.find((i) => i.key === SWITCHED).disabled, false);

  // an integration the environment disables: locked, with why, no switch
  await page.route('**/api/admin/integrations', async (route) => {
    const res = await route.fetch();
    const body = await res.json();
    body.env_disabled = ['backup'];
    body.items = body.items.map((i) => (i.key === 'backup' ? { ...i, disabled_by_env: true, effective_disabled: true } : i));
    await route.fulfill({ response: res, json: body });
  });
  await page.reload();
  const locked = page.locator('[data-integration="backup"]');
  await locked.getByText('off, locked').waitFor();
  assert.match(await locked.innerText(), /INTEGRATIONS_DISABLED names it/);
  assert.equal(await locked.getByRole('button').count(), 0, 'no switch for a locked integration');
  assert.match(await page.getByRole('note').innerText(), /Locked by the environment: backup/);
  await page.unroute('**/api/admin/integrations');
}

async function checkScope(page, name) {
  await firstVisit(page, { viewport: name, name: 'admin-scope', hash: '#/admin/scope', ready: '[data-testid=scope] tbody tr' });
  const scope = await routeJson(page, '/api/admin/company-scope');
  await waitForCount(page, '[data-testid=scope] tbody tr', scope.items.length);
  const company = scope.items.find((c) => c.company_id === SCOPED);
  assert.equal(company.in_scope, true, 'the seed\'s company starts in scope');
  await page.getByLabel('Find a company').fill(company.company_name);
  await waitForCount(page, '[data-testid=scope] tbody tr', 1);

  const note = `left out by the ${name} test`;
  try {
    await page.getByRole('button', { name: `Take out of scope: ${company.company_name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Take ${company.company_name} out of scope?` });
    await dialog.getByLabel(/^Note/).fill(note);
    await dialog.getByRole('button', { name: 'Take it out' }).click();
    await page.getByText(`${company.company_name} is out of scope.`).waitFor();
    const out = (await routeJson(page, '/api/admin/company-scope')).items.find((c) => c.company_id === SCOPED);
    assert.deepEqual([out.in_scope, out.explicit, out.note], [false, true, note]);
    assert.ok((await page.locator(`[data-company="${SCOPED}"]`).innerText()).includes(note));
    await page.getByRole('button', { name: `Bring into scope: ${company.company_name}` }).click();
    await page.getByText(`${company.company_name} is in scope.`).waitFor();
  } finally {
    await page.request.patch(`${opsConsole.url}/api/admin/company-scope/${SCOPED}`, { data: { in_scope: true } });
  }
  assert.equal((await routeJson(page, '/api/admin/company-scope')).items.find((c) => c.company_id === SCOPED).in_scope, true);

  // the kiosk's lists: a company excluded and saved; a refused id under its input; then as before
  const original = await routeJson(page, '/api/admin/display-settings');
  const kiosk = page.getByTestId('display-kiosk');
  try {
    const box = kiosk.getByRole('group', { name: 'Excluded companies' }).getByLabel(company.company_name);
    await box.check();
    await kiosk.getByRole('button', { name: 'Save kiosk wall' }).click();
    await kiosk.getByText('Saved kiosk wall.').waitFor();
    const saved = await routeJson(page, '/api/admin/display-settings');
    assert.ok(saved.kiosk_excluded_company_ids.includes(SCOPED));
    assert.deepEqual(saved.mobile_excluded_company_ids, original.mobile_excluded_company_ids, 'the mobile lists are left alone');

    const typed = kiosk.getByLabel(/^Included classifications/);
    if (await typed.getAttribute('type') === 'text') {
      await typed.fill('2, x');
      await kiosk.getByRole('button', { name: 'Save kiosk wall' }).click();
      await kiosk.locator('#kiosk-included_classification_ids-error').waitFor();
      assert.equal(await typed.getAttribute('aria-invalid'), 'true');
      assert.match(await description(typed), /\[1\]/, 'the item the route refused is named under the input');
      await typed.fill(original.kiosk_included_classification_ids.join(', '));
    }
    await box.uncheck();
    await tabTo(page, kiosk.getByRole('button', { name: 'Save kiosk wall' }), 80);
    await page.keyboard.press('Enter');
    await kiosk.getByText('Saved kiosk wall.').waitFor();
  } finally {
    const keys = ['kiosk_company_category_ids', 'kiosk_excluded_company_ids', 'kiosk_included_classification_ids'];
    await page.request.post(`${opsConsole.url}/api/admin/display-settings`, { data: Object.fromEntries(keys.map((k) => [k, original[k]])) });
  }
  assert.deepEqual(await routeJson(page, '/api/admin/display-settings'), original);
  if (name === 'phone') await assertFitsWidth(page, 'the scope and display page');
  await screenshot(page, `admin-scope-${name}`);
  await assertAccessibleInBothThemes(page, `the scope and display page at ${name} width`);
}

async function checkPipeline(page, name) {
  await firstVisit(page, { viewport: name, name: 'admin-pipeline', hash: '#/admin/pipeline', ready: '[data-testid=pipeline-runs] tbody tr' });
  const rows = '[data-testid=pipeline-runs] tbody tr';
  const ids = () => page.locator(rows).evaluateAll((els) => els.map((e) => Number(e.dataset.run)));
  const all = await routeJson(page, '/api/admin/pipeline-executions');
  await waitForCount(page, rows, all.items.length);
  assert.deepEqual(await ids(), all.items.map((r) => r.id));
  const r0 = all.items[0];
  assert.equal(await page.locator(`[data-run="${r0.id}"] time`).innerText(), await shown.dateTime(page, r0.started_at, 'UTC'));

  await page.getByRole('checkbox', { name: 'Only fallbacks' }).check();
  await page.waitForFunction(() => window.location.hash.includes('fallbacks=true'));
  const fallbacks = await routeJson(page, '/api/admin/pipeline-executions?fallbacks_only=true');
  assert.ok(fallbacks.items.length > 0 && fallbacks.items.every((r) => r.has_fallback));
  await waitForCount(page, rows, fallbacks.items.length);
  assert.deepEqual(await ids(), fallbacks.items.map((r) => r.id));
  assert.equal(await page.locator(`${rows} .badge`, { hasText: 'fallback' }).count(), fallbacks.items.length);

  const pipeline = page.getByLabel('Pipeline id');
  await pipeline.fill('4x');
  await pipeline.press('Enter');
  await page.locator('#pl-pipeline-error').waitFor();
  assert.equal(await pipeline.getAttribute('aria-invalid'), 'true');
  assert.match(await description(pipeline), /digits only/);
  await pipeline.fill('41');
  await pipeline.press('Enter');
  await page.waitForFunction(() => window.location.hash.includes('pipeline=41'));
  const one = await routeJson(page, '/api/admin/pipeline-executions?fallbacks_only=true&pipeline_id=41');
  if (one.items.length) {
    await waitForCount(page, rows, one.items.length);
    assert.deepEqual(await ids(), one.items.map((r) => r.id));
  } else {
    await page.getByText('No run matches these filters.').waitFor();
  }
  await page.reload();
  assert.equal(await page.getByRole('checkbox', { name: 'Only fallbacks' }).isChecked(), true, 'a reload keeps the filters');
  assert.equal(await page.getByLabel('Pipeline id').inputValue(), '41');
  if (name === 'phone') await assertFitsWidth(page, 'the pipeline executions');
  await screenshot(page, `admin-pipeline-${name}`);
  await assertAccessibleInBothThemes(page, `the pipeline executions at ${name} width`);
}

for (const name of ['desktop', 'phone']) {
  test(`admin: integrations, scope and display, pipeline at ${name} width`, async () => {
    const who = createUser(`admin-set-${name}`, { admin: true });
    const page = await openSignedIn(browser, { viewport: name, name: 'admin-integrations', hash: '#/admin/integrations', who,
      ready: '[data-testid=integrations] tbody tr' });
    await checkIntegrations(page, name, who);
    await checkScope(page, name);
    await checkPipeline(page, name);
    page.assertClean([
      allowSignInProbe,
      /^http 503 GET .*\/api\/sync\/classifications$/, // the PSA is not configured: the classification ids are typed
      /^http 400 POST .*\/api\/admin\/display-settings$/, // the refused id, on purpose
      /^http 400 GET .*\/api\/admin\/pipeline-executions\?.*pipeline_id=4x/, // the refused pipeline id, on purpose
    ]);
  });
}

test('a plain user sees no Admin section, and "Administrators only" on its pages', async () => {
  const who = createUser('admin-plain');
  const page = await openPage(browser, viewports.desktop);
  const asked = [];
  page.on('request', (r) => { if (new URL(r.url()).pathname.startsWith('/api/admin/')) asked.push(r.url()); });
  await signIn(page, '#/', who);
  const sections = page.getByRole('navigation', { name: 'Sections' });
  await sections.getByRole('link', { name: 'Data' }).waitFor();
  assert.equal(await sections.getByRole('link', { name: 'Admin' }).count(), 0, 'no Admin section');
  for (const hash of ['#/admin/integrations', '#/admin/upload-tokens', '#/admin/morning']) {
    await page.goto(`${opsConsole.url}/${hash}`);
    await page.getByRole('heading', { name: 'Administrators only' }).waitFor();
  }
  assert.deepEqual(asked, [], 'the admin routes were never asked');
  page.assertClean([allowSignInProbe]);
});
