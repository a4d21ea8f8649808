// The Data section's other pages at a desktop and a 360-px phone, as a plain user of the test's
// own: PSA sync (#/data/sync: the PSA's state as GET /api/sync/classifications answers it, which
// in this run is the 503 of a PSA not configured; the sync and reconciliation started from their
// buttons, each refusal said with the route's detail; the schedule's runs against GET
// /api/status/workers; the administrators' button not offered), Tags (#/data/tags: the catalogue
// against GET /api/tags; a tag added to and removed from a company, a configuration item and a
// contact, checked through their routes; a removal kept by the confirmation's "Keep it"; an id the
// route does not know said under its input; a ticket's PSA tags read-only, as GET
// /api/tickets/{id}/tags lists them, for a ticket in the copy and one older than it, with no control
// that would change them; an id that is not digits, and one the route refuses, said under the
// input) and Log evidence (#/data/evidence: the route's records in
// order, the filter, a download that is an attachment whatever was uploaded). Screenshots, axe in
// both themes, nothing sticking out at 360 px, the 150 KB budget.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, description, firstVisit, launch, openSignedIn, opsConsole, routeJson,
  screenshot, shown, tabTo, waitForCount,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// The PSA is not configured in this run: its routes answer 503, which the sync page shows.
const PSA_NOT_CONFIGURED = [
  /^http 503 GET .*\/api\/sync\/classifications$/,
  /^http 503 POST .*\/api\/sync\/(incremental|reconcile-tickets)$/,
  /^http 404 GET .*\/api\/configuration-items\/99999999\/tags$/, // the unknown id, on purpose
  /^http 400 GET .*\/api\/tickets\/0\/tags$/, // a ticket id the route refuses, on purpose
];

async function checkSync(page, name) {
  const probe = await page.request.get(`${opsConsole.url}/api/sync/classifications`);
  const state = page.getByTestId('psa-state');
  if (probe.status() === 503) {
    const detail = (await probe.json()).detail;
    await state.getByText('Not available.').waitFor();
    assert.ok((await state.innerText()).toLowerCase().includes(detail.toLowerCase().replace(/\.$/, '')), 'with the route\'s detail');
  } else {
    assert.equal(probe.status(), 200);
    await page.getByTestId('classifications').waitFor();
  }
  assert.equal(await page.getByRole('button', { name: 'Re-read the picklists' }).count(), 0, 'an administrator\'s button, not offered');

  // the schedule's runs, as the worker status gives them
  const w = (await routeJson(page, '/api/status/workers')).workers.find((x) => x.name === 'sync-scheduler');
  const facts = page.getByTestId('scheduler');
  if (w.configured) {
    const text = await facts.innerText();
    assert.ok(text.includes(w.status) && text.includes(await shown.number(page, w.failuresLastHour)), `the scheduler: ${text}`);
  }

  // start a sync (the keyboard) and a reconciliation: each button says what its route answered
  for (const [id, button, path] of [['incremental', 'Start an incremental sync', '/api/sync/incremental'],
    ['reconcile', 'Reconcile tickets', '/api/sync/reconcile-tickets']]) {
    const answered = page.waitForResponse((r) => r.url().endsWith(path) && r.request().method() === 'POST');
    if (id === 'incremental') {
      await tabTo(page, page.getByRole('button', { name: button }), 60);
      await page.keyboard.press('Enter');
    } else {
      await page.getByRole('button', { name: button }).click();
    }
    const res = await answered;
    const box = page.getByTestId(id);
    if (res.status() === 503) {
      await box.getByRole('alert').getByText('Not available.').waitFor();
      assert.ok((await box.innerText()).includes((await res.json()).detail.replace(/^./, (c) => c.toUpperCase()).replace(/\.$/, '')));
    } else {
      assert.ok([202, 200, 409].includes(res.status()), `${path} answered ${res.status()}`);
    }
  }
  if (name === 'phone') await assertFitsWidth(page, 'the sync page');
  await screenshot(page, `data-sync-${name}`);
  await assertAccessibleInBothThemes(page, `the sync page at ${name} width`);
}

// The record's tags as the page lists them are the route's.
async function assertTags(page, route) {
  const tags = await routeJson(page, route);
  if (!tags.length) {
    await page.getByText(/carries no tag\.$/).waitFor();
    return tags;
  }
  await waitForCount(page, '[data-testid=record-tags] tbody tr', tags.length);
  assert.deepEqual(await page.locator('[data-testid=record-tags] tbody tr').evaluateAll((els) => els.map((e) => Number(e.dataset.tag))),
    tags.map((t) => t.id));
  return tags;
}

async function addAndRemove(page, route, label, { keyboard = false } = {}) {
  const before = await assertTags(page, route);
  assert.ok(!before.some((t) => t.label === label), `${label} is not carried yet`);
  const added = page.waitForResponse((r) => r.url().includes(route) && r.request().method() === 'PUT');
  if (keyboard) {
    await tabTo(page, page.getByLabel('Add a tag'), 40);
    await page.getByLabel('Add a tag').selectOption({ label });
    await tabTo(page, page.getByRole('button', { name: 'Add', exact: true }), 5);
    await page.keyboard.press('Enter');
  } else {
    await page.getByLabel('Add a tag').selectOption({ label });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
  }
  assert.equal((await added).status(), 201);
  await page.getByText(`${label} added.`).waitFor();
  const withIt = await assertTags(page, route);
  const tag = withIt.find((t) => t.label === label);
  assert.ok(tag, `${route} lists ${label}`);
  assert.match(tag.added_by, /@browser\.example$/, 'recorded with who added it');
  assert.equal(await page.locator(`[data-tag="${tag.id}"] td[data-label=Added]`).innerText(), await shown.dateTime(page, tag.added_at, 'UTC'));

  // removing asks first: "Keep it" keeps it, "Remove it" removes it
  await page.getByRole('button', { name: `Remove ${label}` }).click();
  const dialog = page.getByRole('dialog', { name: `Remove ${label}?` });
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /stops carrying/);
  await page.keyboard.press('Enter'); // the harmless choice has the focus
  await dialog.waitFor({ state: 'hidden' });
  assert.ok((await routeJson(page, route)).some((t) => t.id === tag.id), 'kept');
  await page.getByRole('button', { name: `Remove ${label}` }).click();
  await dialog.getByRole('button', { name: 'Remove it' }).click();
  await page.getByText(`${label} removed.`).waitFor();
  assert.deepEqual((await assertTags(page, route)).map((t) => t.id), before.map((t) => t.id));
}

// A ticket's tags: the PSA's, shown read-only, as the route lists them (seed/60-data.sql tags ticket
// 9001, in the copy, and 8800001, older than it). The route answers an empty list for an id the PSA
// has no association for (it cannot tell an unknown ticket from an untagged one), a 400 for 0.
async function checkTicketTags(page, name) {
  await page.getByLabel('Record', { exact: true }).selectOption('ticket');
  await page.getByText('Give a ticket\'s id to see its tags (the PSA\'s; read-only here).').waitFor();
  const id = page.getByLabel('Ticket id');

  // not digits: said under the input, nothing asked
  await id.fill('T2026');
  await id.press('Enter');
  await page.locator('#tag-record-error').waitFor();
  assert.equal(await id.getAttribute('aria-invalid'), 'true');
  assert.match(await description(id), /digits only/);
  // 0: the route's 400, said under the input
  const refused = page.waitForResponse((r) => r.url().endsWith('/api/tickets/0/tags'));
  await id.fill('0');
  await id.press('Enter');
  assert.equal((await refused).status(), 400);
  await page.locator('#tag-record-error').filter({ hasText: 'positive integer' }).waitFor();
  assert.match(await description(id), /^The ticket id must be a positive integer id\.$/);

  // an id the PSA has no association for: the route's empty list, said as such
  const empty = await routeJson(page, '/api/tickets/99999999/tags');
  assert.deepEqual(empty, []);
  await id.fill('99999999');
  await id.press('Enter');
  await page.getByText('The PSA records no tag on ticket 99999999.', { exact: false }).waitFor();
  assert.equal(await page.locator('[data-testid=record-tags] table').count(), 0);

  for (const ticket of name === 'desktop' ? ['8800001', '9001'] : ['8800001']) {
    await id.fill(ticket);
    if (name === 'desktop') {
      await id.press('Enter');
    } else {
      await tabTo(page, page.getByRole('button', { name: 'Show its tags' }), 5);
      await page.keyboard.press('Enter');
    }
    await page.getByRole('heading', { name: `Tags of ticket ${ticket}` }).waitFor();
    const tags = await assertTags(page, `/api/tickets/${ticket}/tags`);
    assert.ok(tags.length > 0, `the seed tags ticket ${ticket}`);
    assert.equal(await id.getAttribute('aria-invalid'), null, 'the refusal is gone');
    const groups = new Map((await routeJson(page, '/api/tags')).map((g) => [g.id, g.name]));
    for (const t of tags) {
      const row = page.locator(`[data-tag="${t.id}"]`);
      assert.equal(await row.locator('th').innerText(), t.label);
      assert.equal(await row.locator('td[data-label=Group]').innerText(), t.tag_group_id === null ? '—' : groups.get(t.tag_group_id) || `group ${t.tag_group_id}`);
      assert.equal(await row.locator('td[data-label=Source]').innerText(), 'the PSA');
    }
    // read-only: nothing offered that would change them
    await page.getByText(/^Read-only: a ticket's tags are set in the PSA/).waitFor();
    assert.equal(await page.getByLabel('Add a tag').count(), 0);
    assert.equal(await page.getByRole('button', { name: /^(Add|Remove)\b/ }).count(), 0);
  }
  if (name === 'phone') await assertFitsWidth(page, 'a ticket\'s tags');
  await screenshot(page, `data-tags-ticket-${name}`);
  await assertAccessibleInBothThemes(page, `a ticket's tags at ${name} width`);
}

async function checkTags(page, name) {
  await firstVisit(page, { viewport: name, name: 'data-tags', hash: '#/data/tags', ready: 'details.catalogue > summary' });
  const catalogue = await routeJson(page, '/api/tags');
  const summary = page.locator('details.catalogue > summary');
  await summary.waitFor();
  assert.match(await summary.innerText(), new RegExp(`${catalogue.length} groups?,\\s+${catalogue.reduce((n, g) => n + g.tags.length, 0)} tags`));
  await summary.click();
  for (const g of catalogue) {
    for (const t of g.tags) assert.equal(await page.locator('details.catalogue').getByText(t.label, { exact: true }).isVisible(), true);
  }
  await page.getByText('Choose a company to see and change its tags.').waitFor();
  if (name === 'desktop') {
    // a company chosen from the list, then a contact by its id
    const companies = await routeJson(page, '/api/data/companies-list');
    const northwind = companies.find((c) => c.company_name === 'Northwind Traders');
    await page.getByLabel('Company', { exact: true }).selectOption({ label: northwind.company_name });
    await page.getByRole('heading', { name: `Tags of ${northwind.company_name}` }).waitFor();
    await addAndRemove(page, `/api/companies/${northwind.id}/tags`, 'Gold support');
    await page.getByLabel('Record', { exact: true }).selectOption('contact');
    await page.getByLabel('Contact id').fill('66001');
    await page.getByRole('button', { name: 'Show its tags' }).click();
    await addAndRemove(page, '/api/contacts/66001/tags', 'Branch', { keyboard: true });
  } else {
    // a configuration item: an id the route does not know, said under the input; then a real one
    await page.getByLabel('Record', { exact: true }).selectOption('configuration-item');
    const id = page.getByLabel('Configuration item id');
    await id.fill('99999999');
    await id.press('Enter');
    await page.locator('#tag-record-error').waitFor();
    assert.equal(await id.getAttribute('aria-invalid'), 'true');
    assert.match(await description(id), /no configuration item 99999999/i);
    await id.fill('77001');
    await id.press('Enter');
    await addAndRemove(page, '/api/configuration-items/77001/tags', 'Head office', { keyboard: true });
  }
  if (name === 'phone') await assertFitsWidth(page, 'the tags page');
  await screenshot(page, `data-tags-${name}`);
  await assertAccessibleInBothThemes(page, `the tags page at ${name} width`);
  await checkTicketTags(page, name);
}

async function checkEvidence(page, name) {
  await firstVisit(page, { viewport: name, name: 'data-evidence', hash: '#/data/evidence', ready: '[data-testid=evidence] tbody tr' });
  const records = await routeJson(page, '/api/log-evidence');
  const rows = '[data-testid=evidence] tbody tr';
  await waitForCount(page, rows, Math.min(50, records.length));
  assert.deepEqual(await page.locator(rows).evaluateAll((els) => els.map((e) => e.dataset.evidence)), records.slice(0, 50).map((r) => r.id));
  const html = records.find((r) => r.fileName === 'report.html');
  const row = page.locator(`[data-evidence="${html.id}"]`);
  assert.equal(await row.locator('time').innerText(), await shown.dateTime(page, html.uploadedAt, 'UTC'));
  assert.ok((await row.innerText()).includes(html.tokenName));

  // the filter narrows to the route's records that match
  await page.getByLabel('Filter').fill('report');
  const matching = records.filter((r) => [r.fileName, r.ticketId, r.tokenName, r.contentType].some((v) => String(v ?? '').toLowerCase().includes('report')));
  await waitForCount(page, rows, Math.min(50, matching.length));
  await page.getByLabel('Filter').fill('no such upload anywhere');
  await page.getByText('No upload matches “no such upload anywhere”.').waitFor();
  await page.getByLabel('Filter').fill('');

  // a download: saved, never opened, with the route's headers saying attachment
  const downloaded = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download report.html' }).click();
  assert.equal((await downloaded).suggestedFilename(), 'report.html');
  const content = await page.request.get(`${opsConsole.url}/api/log-evidence/${html.id}/content`);
  assert.equal(content.headers()['content-type'], 'application/octet-stream');
  assert.match(content.headers()['content-disposition'], /^attachment; filename="report\.html"/);
  assert.equal(content.headers()['x-content-type-options'], 'nosniff');
  if (name === 'phone') await assertFitsWidth(page, 'the log evidence page');
  await screenshot(page, `data-evidence-${name}`);
  await assertAccessibleInBothThemes(page, `the log evidence page at ${name} width`);
}

for (const name of ['desktop', 'phone']) {
  test(`data: sync, tags and log evidence at ${name} width`, async () => {
    const who = createUser(`data-rec-${name}`);
    const page = await openSignedIn(browser, { viewport: name, name: 'data-sync', hash: '#/data/sync', who, ready: '[data-testid=psa-state], [data-testid=classifications]' });
    await checkSync(page, name);
    await checkTags(page, name);
    await checkEvidence(page, name);
    page.assertClean([allowSignInProbe, ...PSA_NOT_CONFIGURED]);
  });
}
