// The services' OpenAPI documents (issue 35), checked by a standard OpenAPI 3.1 validator (npm
// `@seriousme/openapi-schema-validator`, pinned in package.json) rather than by our own code: the
// copies committed in docs/openapi/ (which the services' own tests hold equal to what the code
// generates), and the document the running console serves to a signed-in user. No browser.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { opsConsole } from './lib.mjs';

const root = new URL('../../', import.meta.url);

async function assertValid(document, what) {
  const validator = new Validator();
  const result = await validator.validate(document);
  assert.ok(result.valid, `${what} is not a valid OpenAPI document: ${JSON.stringify(result.errors, null, 1)}`);
  assert.equal(validator.version, '3.1', `${what} is OpenAPI ${validator.version}, not 3.1`);
}

for (const service of ['mail-triage', 'ops-console']) {
  test(`docs/openapi/${service}.json is a valid OpenAPI 3.1 document`, async () => {
    const document = JSON.parse(await readFile(new URL(`docs/openapi/${service}.json`, root), 'utf8'));
    assert.ok(Object.keys(document.paths).length > 10, 'the document lists its paths');
    await assertValid(document, `docs/openapi/${service}.json`);
  });
}

test('the running console serves a valid document to a signed-in user, the committed one', async () => {
  const login = await fetch(`${opsConsole.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: opsConsole.url },
    body: JSON.stringify({ email: opsConsole.adminEmail, password: opsConsole.adminPassword }),
  });
  assert.equal(login.status, 200);
  const cookie = login.headers.get('set-cookie').split(';')[0];
  assert.equal((await fetch(`${opsConsole.url}/openapi.json`)).status, 401);
  const served = await fetch(`${opsConsole.url}/openapi.json`, { headers: { Cookie: cookie } });
  assert.equal(served.status, 200);
  const document = await served.json();
  await assertValid(document, 'GET /openapi.json');
  const committed = JSON.parse(await readFile(new URL('docs/openapi/ops-console.json', root), 'utf8'));
  assert.deepEqual(document, committed, 'the served document differs from docs/openapi/ops-console.json');
});
