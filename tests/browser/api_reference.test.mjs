// The API reference (#/data/api, issue 35) at a desktop and a 360-px phone, as a plain user of the
// test's own: the operations listed are GET /openapi.json's, grouped by tag; GET
// /api/rmm/executions, opened with the keyboard, shows its security, its query parameter and its
// 200's RmmExecution (a $ref, expanded) with the properties the document gives it; the filter
// narrows the list; the raw document's link. Screenshots, axe in both themes, nothing sticking out
// at 360 px, the 150 KB budget (the page's module is not in the first visit's bundle).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, launch, openSignedIn, opsConsole, routeJson,
  screenshot, tabTo, waitForCount,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const ops = (doc) => Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m) => ({ key: `${m.toUpperCase()} ${path}`, op: item[m] })));
const OPS = '[data-testid=operation]';

for (const name of ['desktop', 'phone']) {
  test(`the API reference at ${name} width`, async () => {
    const who = createUser(`api-ref-${name}`);
    const page = await openSignedIn(browser, { viewport: name, name: 'data-api', hash: '#/data/api', who, ready: OPS });
    const doc = await routeJson(page, '/openapi.json');
    const all = ops(doc);
    assert.ok(all.length > 100, `${all.length} operations in the document`);

    // every operation, once, under its first tag, in the document's tag order
    await waitForCount(page, OPS, all.length);
    const listed = await page.locator(OPS).evaluateAll((els) => els.map((e) => e.dataset.op));
    assert.deepEqual([...listed].sort(), all.map((o) => o.key).sort());
    const tagOf = new Map(all.map((o) => [o.key, o.op.tags?.[0] || 'Other']));
    const groups = await page.locator('section[data-tag]').evaluateAll((els) => els.map((s) => [s.dataset.tag,
      [...s.querySelectorAll('[data-testid=operation]')].map((e) => e.dataset.op)]));
    for (const [tag, keys] of groups) for (const k of keys) assert.equal(tagOf.get(k), tag, `${k} under ${tag}`);
    const order = doc.tags.map((t) => t.name).filter((t) => groups.some(([g]) => g === t));
    assert.deepEqual(groups.map(([g]) => g).slice(0, order.length), order);
    assert.equal(await page.getByTestId('api-count').innerText(), `${all.length} of ${all.length} operations`);

    // the raw document
    const link = page.getByRole('link', { name: 'Download the OpenAPI document (JSON)' });
    assert.equal(await link.getAttribute('href'), '/openapi.json');
    const raw = await page.request.get(`${opsConsole.url}/openapi.json`);
    assert.equal(raw.status(), 200);

    // the filter narrows the list
    const filter = page.getByLabel('Filter');
    await filter.fill('/api/rmm/executions');
    const wanted = all.filter((o) => o.key.toLowerCase().includes('/api/rmm/executions')
      || (o.op.summary || '').toLowerCase().includes('/api/rmm/executions'));
    await waitForCount(page, OPS, wanted.length);
    assert.equal(await page.getByTestId('api-count').innerText(), `${wanted.length} of ${all.length} operations matching`);
    await filter.fill('no such operation at all');
    await page.getByText('No operation matches “no such operation at all”.').waitFor();
    await filter.fill('rmm/executions');

    // GET /api/rmm/executions, opened with the keyboard
    const key = 'GET /api/rmm/executions';
    const spec = doc.paths['/api/rmm/executions'].get;
    const op = page.locator(`[data-op="${key}"]`);
    await tabTo(page, op.locator('summary').first(), 40);
    await page.keyboard.press('Enter');
    await op.getByRole('heading', { name: 'Responses' }).waitFor();
    if (spec.summary) assert.ok((await op.locator('summary').first().innerText()).includes(spec.summary));
    assert.ok((await op.getByTestId('security').innerText()).includes('Session cookie'), 'the session cookie');
    const params = await op.locator('[data-testid=parameters] > li').evaluateAll((els) => els.map((e) => e.dataset.parameter));
    assert.deepEqual(params, spec.parameters.map((p) => p.name));
    for (const p of spec.parameters) {
      const text = await op.locator(`[data-parameter="${p.name}"]`).innerText();
      assert.ok(text.includes(p.schema.type) && (!p.description || text.includes(p.description)), `parameter ${p.name}: ${text}`);
    }
    assert.deepEqual(await op.locator('[data-status]').evaluateAll((els) => els.map((e) => e.dataset.status)), Object.keys(spec.responses));

    // its 200: an array of the $ref, expanded by name with the keyboard, its properties the document's
    const ok = op.locator('[data-status="200"]');
    const ref = spec.responses['200'].content['application/json'].schema.items.$ref;
    const refName = ref.split('/').pop();
    const refSummary = ok.locator('details.schema-ref > summary').first();
    assert.ok((await refSummary.innerText()).includes(refName));
    await refSummary.focus();
    await page.keyboard.press('Enter');
    const schema = doc.components.schemas[refName];
    const props = ok.locator('[data-testid=properties]').first();
    await props.waitFor();
    assert.deepEqual(await props.locator(':scope > li').evaluateAll((els) => els.map((e) => e.dataset.property)), Object.keys(schema.properties));
    for (const [prop, s] of Object.entries(schema.properties)) {
      const text = await props.locator(`:scope > li[data-property="${prop}"]`).innerText();
      const types = Array.isArray(s.type) ? s.type : [s.type];
      if (s.type) assert.ok(text.includes(types.filter((t) => t !== 'null').join(' | ')), `${prop}'s type: ${text}`);
      assert.equal(text.includes('nullable'), types.includes('null'), `${prop} nullable: ${text}`);
      assert.equal(/\brequired\b/.test(text.split('\n')[0]), (schema.required || []).includes(prop), `${prop} required: ${text}`);
      if (s.format) assert.ok(text.includes(s.format), `${prop}'s format`);
      if (s.description) assert.ok(text.includes(s.description), `${prop}'s description`);
    }

    if (name === 'phone') await assertFitsWidth(page, 'the API reference');
    await screenshot(page, `data-api-${name}`);
    await assertAccessibleInBothThemes(page, `the API reference at ${name} width`);

    // the whole list again, every group folded: still fits
    await filter.fill('');
    await waitForCount(page, OPS, all.length);
    if (name === 'phone') await assertFitsWidth(page, 'the API reference, all operations');
    page.assertClean([allowSignInProbe]);
  });
}
