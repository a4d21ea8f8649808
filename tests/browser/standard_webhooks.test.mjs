// What ops-console signs, checked by the official Standard Webhooks verifier (npm
// `standardwebhooks`, pinned in package.json) rather than by our own code: the `webhook`
// notification channel's messages and the copies of a push to an agent instance (issue 31). No
// browser: a small HTTP receiver on 127.0.0.1 takes the requests, and the verifier checks each as
// an agent author would (ops_console/README.md, "Copies to agent instances").
import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { opsConsole, unique } from './lib.mjs';

// The forge secret tests/browser/run gives ops-console (GITFORGE_WEBHOOK_SECRET).
function forgeSecret() {
  const value = process.env.GITFORGE_WEBHOOK_SECRET;
  assert.ok(value, 'GITFORGE_WEBHOOK_SECRET is not set: run through tests/browser/run');
  return value;
}

// Every request the receiver took: {path, headers (lowercased names), body (the raw text)}.
const arrivals = [];
let receiver;
let receiverUrl;
let cookie;

before(async () => {
  receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      arrivals.push({ path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${receiver.address().port}`;

  const login = await fetch(`${opsConsole.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: opsConsole.adminEmail, password: opsConsole.adminPassword }),
  });
  assert.equal(login.status, 200, await login.text());
  const session = login.headers.getSetCookie().find((c) => c.startsWith('ops_session='));
  assert.ok(session, 'the sign-in set the ops_session cookie');
  cookie = session.split(';')[0];
});

after(() => new Promise((resolve) => receiver.close(resolve)));

// The console's API as the signed-in administrator: {status, body (parsed when JSON)}.
async function api(method, path, body) {
  const res = await fetch(`${opsConsole.url}${path}`, {
    method,
    headers: { Cookie: cookie, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON: the text */ }
  return { status: res.status, body: parsed };
}

// The arrival number `n` (0: the first) at `path`, waiting for it as long as the console may take
// to send (it sends in the background); fails naming the path when none comes.
async function arrivalAt(path, n = 0) {
  for (let i = 0; i < 600; i++) {
    const found = arrivals.filter((a) => a.path === path)[n];
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`no arrival ${n} at ${path}`);
}

// The arrival verifies under `secret` with the official library, and no longer does once its body
// is changed by one character or under another secret.
function assertVerifies(arrival, secret) {
  assert.match(arrival.headers['webhook-id'], /^msg_/);
  assert.match(arrival.headers['webhook-timestamp'], /^\d+$/);
  assert.match(arrival.headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/);
  const payload = new Webhook(secret).verify(arrival.body, arrival.headers);
  assert.deepEqual(payload, JSON.parse(arrival.body));
  assert.throws(() => new Webhook(secret).verify(`${arrival.body} `, arrival.headers), /No matching signature/);
  const other = `whsec_${randomBytes(32).toString('base64')}`;
  assert.throws(() => new Webhook(other).verify(arrival.body, arrival.headers), /No matching signature/);
  return payload;
}

test('a webhook channel\'s test message verifies with the standardwebhooks package', async () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const path = `/channel/${unique('swh')}`;
  const created = await api('POST', '/api/notification-channels', {
    channel_type: 'webhook', name: unique('swh'), config: { url: receiverUrl + path, secret },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  try {
    const sent = await api('POST', `/api/notification-channels/${created.body.id}/test`);
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.delivered, true, JSON.stringify(sent.body));
    const arrival = await arrivalAt(path);
    const payload = assertVerifies(arrival, secret);
    assert.equal(payload.event, 'test');
    assert.equal(arrival.headers['x-notify-event'], 'test');
    assert.equal(arrival.headers['x-signature-256'], undefined, 'the old signature header is gone');
  } finally {
    assert.equal((await api('DELETE', `/api/notification-channels/${created.body.id}`)).status, 204);
  }
});

test('a webhook channel\'s generated and rotated secrets verify with the standardwebhooks package', async () => {
  const path = `/channel/${unique('swh-made')}`;
  const created = await api('POST', '/api/notification-channels', {
    channel_type: 'webhook', name: unique('swh-made'), config: { url: receiverUrl + path },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const made = created.body.secret; // generated, shown this once
  assert.match(made, /^whsec_[A-Za-z0-9+/]{43}=$/);
  try {
    assert.equal((await api('POST', `/api/notification-channels/${created.body.id}/test`)).body.delivered, true);
    assertVerifies(await arrivalAt(path, 0), made);

    const rotated = await api('POST', `/api/notification-channels/${created.body.id}/rotate-secret`);
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const fresh = rotated.body.secret;
    assert.match(fresh, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(fresh, made);
    assert.equal((await api('POST', `/api/notification-channels/${created.body.id}/test`)).body.delivered, true);
    const second = await arrivalAt(path, 1);
    assertVerifies(second, fresh);
    assert.throws(() => new Webhook(made).verify(second.body, second.headers), /No matching signature/);
  } finally {
    assert.equal((await api('DELETE', `/api/notification-channels/${created.body.id}`)).status, 204);
  }
});

test('a copy of a push to an agent instance verifies with the standardwebhooks package', async () => {
  const name = unique('swh-agent');
  const path = `/agent/${name}`;
  const created = await api('POST', '/api/admin/agent-instances', { name, url: receiverUrl + path });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { secret } = created.body; // generated, shown this once
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  try {
    // A push as GitHub delivers it, signed with the forge's secret.
    const delivery = randomUUID();
    const body = JSON.stringify({
      ref: 'refs/heads/main',
      repository: { full_name: `msp/${name}` },
      pusher: { name: 'alice' },
      commits: [{ id: createHmac('sha1', 'commit').update(name).digest('hex'), message: 'Signed copy', timestamp: new Date().toISOString() }],
    });
    const push = await fetch(`${opsConsole.url}/api/webhooks/gitforge`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-GitHub-Event': 'push',
        'X-GitHub-Delivery': delivery,
        'X-Hub-Signature-256': `sha256=${createHmac('sha256', forgeSecret()).update(body).digest('hex')}`,
      },
      body,
    });
    assert.equal(push.status, 200, await push.text());
    const arrival = await arrivalAt(path);
    const payload = assertVerifies(arrival, secret);
    assert.equal(arrival.headers['x-ops-event'], 'gitforge.push');
    assert.equal(arrival.headers['x-ops-signature'], undefined, 'the old signature header is gone');
    assert.equal(payload.type, 'gitforge.push');
    assert.equal(payload.delivery_id, delivery);
  } finally {
    assert.equal((await api('DELETE', `/api/admin/agent-instances/${created.body.id}`)).status, 204);
  }
});
