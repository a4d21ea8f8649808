// The credentials the console shows once, at a desktop and a 360-px phone, as an administrator of
// the test's own: #/admin/agents (an instance added with a refused URL and a taken name said under
// their inputs; its token and signing secret shown once, the token then reading the commits
// (GET /api/agent/repo-commits); a new token after a confirmation, the old one refused and the new
// one taken; a new secret; switched off (its token then 403) and deleted (401), each after a
// confirmation and checked through GET /api/admin/agent-instances) and #/admin/upload-tokens (an
// empty name said under its input; a token shown once, an upload with it (POST /api/log-evidence)
// shown as its last use; revoked after a "Keep it" and a confirmation, and uploads with it then
// refused). Screenshots, axe in both themes, nothing sticking out at 360 px, the 150 KB budget.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, description, firstVisit, launch, openSignedIn, opsConsole,
  routeJson, screenshot, shown, startReceiver, tabTo, unique, waitForCount,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// What an agent's token gets from the route it exists for.
const commitsWith = async (page, token) => (await page.request.get(`${opsConsole.url}/api/agent/repo-commits?limit=1`,
  { headers: { Authorization: `Bearer ${token}` } })).status();

async function checkAgents(page, name, receiver) {
  const before = await routeJson(page, '/api/admin/agent-instances');
  if (before.length) await waitForCount(page, '[data-testid=agents] tbody tr', before.length);
  else await page.getByText(/^No agent instance/).waitFor();

  const agentName = unique(`agent-${name}`);
  const url = page.getByLabel('URL', { exact: true });
  await page.getByLabel('Name', { exact: true }).fill(agentName);
  await url.fill('ftp://agent.example.org/hook');
  await page.getByRole('button', { name: 'Add the instance' }).click();
  await page.locator('#agent-url-error').waitFor();
  assert.equal(await url.getAttribute('aria-invalid'), 'true');
  assert.match(await description(url), /refused|http/);

  await url.fill(`${receiver.url}/agent-${name}`);
  await tabTo(page, page.getByRole('button', { name: 'Add the instance' }), 10);
  await page.keyboard.press('Enter');
  const once = page.getByTestId('agent-credentials');
  await once.waitFor();
  const token = (await once.locator('[data-secret="Bearer token"]').innerText()).trim();
  const secret = (await once.locator('[data-secret="Signing secret"]').innerText()).trim();
  assert.match(token, /^agt_/);
  assert.match(secret, /^whsec_/);
  const agent = (await routeJson(page, '/api/admin/agent-instances')).find((a) => a.name === agentName);
  assert.ok(agent && agent.enabled, 'listed, on');
  assert.equal(JSON.stringify(agent).includes(token.slice(4)), false, 'the route never shows the token');
  assert.equal(await page.locator(`[data-agent="${agent.id}"] td[data-label="Token issued"]`).innerText(),
    await shown.dateTime(page, agent.token_issued_at, 'UTC'));
  assert.equal(await commitsWith(page, token), 200, 'the token reads the commits');
  if (name === 'phone') await assertFitsWidth(page, 'the agents page with credentials shown');
  await screenshot(page, `admin-agents-${name}`);
  await assertAccessibleInBothThemes(page, `the agents page at ${name} width`);
  await once.getByRole('button', { name: 'I have kept it' }).click();

  // the name is taken now
  await page.getByLabel('Name', { exact: true }).fill(agentName);
  await url.fill(`${receiver.url}/agent-${name}-2`);
  await page.getByRole('button', { name: 'Add the instance' }).click();
  await page.locator('#agent-name-error').waitFor();
  assert.match(await description(page.getByLabel('Name', { exact: true })), /exists/);

  try {
    await page.getByRole('button', { name: `New token for ${agentName}` }).click();
    await page.getByRole('dialog', { name: `Issue a new token for ${agentName}?` }).getByRole('button', { name: 'Issue a new token' }).click();
    await once.waitFor();
    const token2 = (await once.locator('[data-secret="Bearer token"]').innerText()).trim();
    assert.notEqual(token2, token);
    assert.equal(await commitsWith(page, token), 401, 'the old token is refused');
    assert.equal(await commitsWith(page, token2), 200, 'the new one is taken');
    await once.getByRole('button', { name: 'I have kept it' }).click();

    await page.getByRole('button', { name: `New secret for ${agentName}` }).click();
    await page.getByRole('dialog', { name: `Replace the signing secret of ${agentName}?` }).getByRole('button', { name: 'Replace it' }).click();
    await once.waitFor();
    assert.notEqual((await once.locator('[data-secret="Signing secret"]').innerText()).trim(), secret);
    assert.equal(await once.locator('[data-secret="Bearer token"]').count(), 0, 'only the secret is new');

    await page.getByRole('button', { name: `Switch off ${agentName}` }).click();
    await page.getByRole('dialog', { name: `Switch ${agentName} off?` }).getByRole('button', { name: 'Switch it off' }).click();
    await page.getByText(`${agentName} is off.`).waitFor();
    assert.equal((await routeJson(page, '/api/admin/agent-instances')).find((a) => a.id === agent.id).enabled, false);
    assert.equal(await commitsWith(page, token2), 403, 'a switched-off instance\'s token is refused');

    // its name and URL changed: a refused URL said under its input, then both saved
    await page.getByRole('button', { name: `Change ${agentName}` }).click();
    const editUrl = page.locator('#agent-edit-url');
    await editUrl.fill('ftp://agent.example.org/hook');
    await page.getByRole('button', { name: 'Save the changes' }).click();
    await page.locator('#agent-edit-url-error').waitFor();
    assert.equal(await editUrl.getAttribute('aria-invalid'), 'true');
    const renamed = `${agentName}-renamed`;
    await page.locator('#agent-edit-name').fill(renamed);
    await editUrl.fill(`${receiver.url}/agent-${name}-renamed`);
    await page.getByRole('button', { name: 'Save the changes' }).click();
    await page.getByText(`${renamed} saved.`).waitFor();
    const changed = (await routeJson(page, '/api/admin/agent-instances')).find((a) => a.id === agent.id);
    assert.deepEqual([changed.name, changed.url], [renamed, `${receiver.url}/agent-${name}-renamed`]);

    await page.getByRole('button', { name: `Delete ${renamed}` }).click();
    const del = page.getByRole('dialog', { name: `Delete ${renamed}?` });
    await del.getByRole('button', { name: 'Keep it' }).click();
    assert.ok((await routeJson(page, '/api/admin/agent-instances')).some((a) => a.id === agent.id), 'kept');
    await page.getByRole('button', { name: `Delete ${renamed}` }).click();
    await del.getByRole('button', { name: 'Delete it' }).click();
    await page.getByText(`Deleted ${renamed}.`).waitFor();
    assert.equal(await commitsWith(page, token2), 401, 'a deleted instance\'s token is unknown');
  } finally {
    await page.request.delete(`${opsConsole.url}/api/admin/agent-instances/${agent.id}`);
  }
  assert.equal((await routeJson(page, '/api/admin/agent-instances')).some((a) => a.id === agent.id), false);
}

const upload = (page, token, fileName) => page.request.post(`${opsConsole.url}/api/log-evidence?fileName=${fileName}`,
  { headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' }, data: `uploaded by ${fileName}\n` });

async function checkUploadTokens(page, name) {
  await firstVisit(page, { viewport: name, name: 'admin-upload-tokens', hash: '#/admin/upload-tokens', ready: '[data-testid=upload-tokens] tbody tr, .state' });
  const list = await routeJson(page, '/api/admin/upload-tokens');
  await waitForCount(page, '[data-testid=upload-tokens] tbody tr', list.length);
  assert.deepEqual(await page.locator('[data-testid=upload-tokens] tbody tr').evaluateAll((els) => els.map((e) => Number(e.dataset.token))),
    list.map((t) => t.id));

  await page.getByRole('button', { name: 'Make the token' }).click();
  await page.locator('#token-name-error').waitFor();
  assert.equal(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');

  const tokenName = unique(`uploader-${name}`);
  await page.getByLabel('Name', { exact: true }).fill(tokenName);
  await page.getByLabel('Name', { exact: true }).press('Enter');
  const once = page.getByTestId('upload-token');
  await once.waitFor();
  const token = (await once.locator('.secret-value').innerText()).trim();
  assert.match(token, /^upl_/);
  const made = (await routeJson(page, '/api/admin/upload-tokens')).find((t) => t.name === tokenName);
  assert.deepEqual([made.revokedAt, made.lastUsedAt], [null, null]);
  assert.equal(await page.locator(`[data-token="${made.id}"] td[data-label="Last used"]`).innerText(), 'never');
  if (name === 'phone') await assertFitsWidth(page, 'the upload tokens with a token shown');
  await screenshot(page, `admin-upload-tokens-${name}`);
  await assertAccessibleInBothThemes(page, `the upload tokens at ${name} width`);
  await once.getByRole('button', { name: 'I have kept it' }).click();

  // the token uploads; the page shows its last use after a reload
  const fileName = `${tokenName}.log`;
  assert.equal((await upload(page, token, fileName)).status(), 201);
  await page.reload();
  const used = (await routeJson(page, '/api/admin/upload-tokens')).find((t) => t.id === made.id);
  await page.locator(`[data-token="${made.id}"] td[data-label="Last used"]`, { hasText: await shown.dateTime(page, used.lastUsedAt, 'UTC') }).waitFor();

  // revoking asks first; "Keep it" keeps it; then revoked, listed as such, and refused
  await tabTo(page, page.getByRole('button', { name: `Revoke ${tokenName}` }), 80);
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: `Revoke ${tokenName}?` });
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /refused/);
  await page.keyboard.press('Enter'); // "Keep it" has the focus
  await dialog.waitFor({ state: 'hidden' });
  assert.equal((await routeJson(page, '/api/admin/upload-tokens')).find((t) => t.id === made.id).revokedAt, null);
  await page.getByRole('button', { name: `Revoke ${tokenName}` }).click();
  await dialog.getByRole('button', { name: 'Revoke it' }).click();
  await page.getByText(`Revoked ${tokenName}.`).waitFor();
  const revoked = (await routeJson(page, '/api/admin/upload-tokens')).find((t) => t.id === made.id);
  assert.ok(revoked.revokedAt);
  await page.locator(`[data-token="${made.id}"]`).getByText('revoked', { exact: true }).waitFor();
  assert.equal((await upload(page, token, `${tokenName}-2.log`)).status(), 401, 'uploads with it are refused');
  assert.ok((await routeJson(page, '/api/log-evidence')).some((e) => e.fileName === fileName), 'its upload is kept');
}

for (const name of ['desktop', 'phone']) {
  test(`admin: agent instances and upload tokens at ${name} width`, async () => {
    const who = createUser(`admin-tok-${name}`, { admin: true });
    const page = await openSignedIn(browser, { viewport: name, name: 'admin-agents', hash: '#/admin/agents', who,
      ready: '[data-testid=agents] tbody tr, .state' });
    const receiver = await startReceiver(); // where the instance's copies would go
    try {
      await checkAgents(page, name, receiver);
    } finally {
      await receiver.close();
    }
    await checkUploadTokens(page, name);
    page.assertClean([
      allowSignInProbe,
      /^http 400 POST .*\/api\/admin\/agent-instances$/, // the refused URL, on purpose
      /^http 400 PATCH .*\/api\/admin\/agent-instances\/\d+$/, // the refused URL of a change, on purpose
      /^http 409 POST .*\/api\/admin\/agent-instances$/, // the taken name, on purpose
      /^http 400 POST .*\/api\/admin\/upload-tokens$/, // the empty name, on purpose
    ]);
  });
}
