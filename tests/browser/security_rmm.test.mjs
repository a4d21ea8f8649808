// Remote management (#/security/rmm) on the console whose vendors are the sandbox's fakes (Tactical
// RMM), at a desktop and a 360-px phone: at the desktop an administrator of its own copies the
// clients, agents and scripts with the page's sync, at the phone a user with the permission pair
// (rmm, execute) and nothing else; each runs a script on an agent after a confirmation that names
// both (Escape first: nothing is queued), watches it end, and sees its output: the execution route
// and the fake's record of the runs agree.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, launch, openSignedIn, opsConsole,
  explainFailure, routeJson, screenshot, tabTo, waitForSync,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function fakeRuns() {
  const res = await fetch(`${opsConsole.vendors.sandboxUrl}/_sandbox/tacticalrmm/runs`);
  assert.equal(res.status, 200);
  return (await res.json()).runs;
}

const USERS = {
  desktop: () => createUser('sec_rmm_admin', { console: 'vendors', admin: true }),
  phone: () => createUser('sec_rmm_exec', { console: 'vendors', permissions: ['rmm:execute'] }),
};

for (const name of ['desktop', 'phone']) {
  test(`remote management at ${name} width`, async () => {
    const page = await openSignedIn(browser, { viewport: name, name: 'security-rmm', hash: '#/security/rmm', who: USERS[name](), ready: '[data-testid=sync-state]' });
    await page.getByRole('heading', { level: 2, name: 'Run a script' }).waitFor();
    if (name === 'desktop') {
      // the copy through the page's sync; the form fills when it ends
      const before = await routeJson(page, '/api/rmm/sync');
      const started = page.waitForResponse((r) => r.url().endsWith('/api/rmm/sync') && r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Start a sync' }).click();
      assert.equal((await started).status(), 202);
      const state = await waitForSync(page, '/api/rmm/sync', before.history[0]?.id);
      assert.equal(state.history[0].status, 'succeeded');

      // the clients and their companies as the route gives them; an unmatched one mapped through
      // the form, then the mapping removed after its confirmation
      await page.reload();
      const clients = await routeJson(page, '/api/rmm/clients');
      const rows = page.locator('table.rmm-clients tbody tr');
      await rows.first().waitFor();
      assert.equal(await rows.count(), clients.length);
      const client = clients.find((c) => !c.companyId);
      assert.ok(client, 'the fake has a client no PSA company of the seed is named like');
      const company = (await routeJson(page, '/api/data/companies-list'))[0];
      const form = page.getByRole('form', { name: 'Map a client to a company' });
      await form.getByLabel('Client', { exact: true }).selectOption(String(client.id));
      await form.getByLabel('PSA company').selectOption(String(company.id));
      await form.getByRole('button', { name: 'Map' }).click();
      await form.getByText(`Mapped ${client.name} to ${company.company_name}.`).waitFor();
      const mapped = (await routeJson(page, '/api/rmm/clients')).find((c) => c.id === client.id);
      assert.deepEqual([mapped.companyId, mapped.matchedBy], [company.id, 'mapping']);
      const row = page.locator(`tr[data-client="${client.id}"]`);
      await row.getByText(company.company_name).waitFor();
      await row.getByRole('button', { name: `Remove mapping of ${client.name}` }).click();
      const removing = page.getByRole('dialog', { name: 'Remove this mapping?' });
      await removing.getByRole('button', { name: 'Remove it' }).click();
      await row.getByRole('button', { name: /Remove mapping/ }).waitFor({ state: 'detached' });
      const unmapped = (await routeJson(page, '/api/rmm/clients')).find((c) => c.id === client.id);
      assert.equal(unmapped.matchedBy, null, 'the mapping is gone');
    } else {
      assert.equal(await page.getByRole('button', { name: 'Start a sync' }).count(), 0, 'not an administrator: no sync');
    }
    const agents = await routeJson(page, '/api/rmm/agents');
    const scripts = await routeJson(page, '/api/rmm/scripts');
    assert.ok(agents.length > 0 && scripts.length > 0, 'the copy has agents and scripts');
    const agent = agents.find((a) => a.status === 'online') || agents[0];
    const script = scripts[name === 'desktop' ? 0 : scripts.length - 1];
    const agentSelect = page.getByLabel('Agent', { exact: true });
    await agentSelect.waitFor();
    assert.equal(await agentSelect.locator('option').count(), agents.length + 1, 'every agent of the copy');
    assert.equal(await page.getByLabel('Script', { exact: true }).locator('option').count(), scripts.length + 1);
    if (name === 'phone') await assertFitsWidth(page, 'remote management');
    await screenshot(page, `security-rmm-${name}`);
    await assertAccessibleInBothThemes(page, `remote management at ${name} width`);

    const executionsBefore = (await routeJson(page, '/api/rmm/executions')).map((x) => x.id);
    await agentSelect.selectOption(agent.agentId);
    await page.getByLabel('Script', { exact: true }).selectOption(String(script.id));
    await page.getByLabel('Arguments').fill(`-Name\n${name}-check`);
    await tabTo(page, page.getByRole('button', { name: 'Run script…' }), 10);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Run ${script.name} on ${agent.hostname}?` });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /cannot be undone/);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.deepEqual((await routeJson(page, '/api/rmm/executions')).map((x) => x.id), executionsBefore, 'Escape queued nothing');

    // the focus is back on "Run script…", and Enter there asks again
    const runButton = page.getByRole('button', { name: 'Run script…' });
    assert.equal(await runButton.evaluate((b) => b === document.activeElement), true, 'the focus is back on "Run script…"');
    await runButton.press('Enter');
    await explainFailure(page, `rmm-reopen-${name}`, () => dialog.waitFor());
    const queued = page.waitForResponse((r) => r.url().endsWith('/api/rmm/executions') && r.request().method() === 'POST');
    await dialog.getByRole('button', { name: 'Run it' }).click();
    const response = await explainFailure(page, `rmm-queued-${name}`, () => queued);
    assert.equal(response.status(), 202);
    const { id } = await response.json();
    const panel = page.locator(`.execution[data-execution="${id}"]`);
    await panel.getByText(/ended/).waitFor({ timeout: 60000 });
    const done = await routeJson(page, `/api/rmm/executions/${id}`);
    assert.ok(['succeeded', 'failed'].includes(done.status));
    assert.deepEqual([done.agentId, done.scriptId, done.args], [agent.agentId, script.id, ['-Name', `${name}-check`]]);
    assert.ok((await panel.innerText()).includes(done.status));
    if (done.output) assert.equal((await panel.locator('pre.output').innerText()).trim(), done.output.trim(), 'the output is the route\'s');
    if (done.exitCode !== null) assert.match(await panel.innerText(), new RegExp(`exit code ${done.exitCode}`));
    const mine = (await fakeRuns()).filter((r) => JSON.stringify(r.args).includes(`${name}-check`));
    assert.equal(mine.length, 1, 'the agent was asked once');
    assert.equal(mine[0].agent_id, agent.agentId);
    await page.locator(`tr[data-row="${id}"]`).waitFor();
    if (name === 'phone') await assertFitsWidth(page, 'remote management with an output');
    await screenshot(page, `security-rmm-output-${name}`);
    page.assertClean([allowSignInProbe]);
  });
}
