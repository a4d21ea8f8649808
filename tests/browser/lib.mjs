// What every page test shares: the services tests/browser/run started for the whole run, a
// Chromium per test file, the two viewports, screenshots into one folder, and a watch for console
// errors and failed requests. A page test imports what it needs from here and nothing else starts
// a service or a browser of its own.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

// Set by tests/browser/run; a test run outside it fails here, naming what is missing.
function required(name) {
  const value = process.env[name];
  assert.ok(value, `${name} is not set: run the page tests through tests/browser/run`);
  return value;
}

export const mailTriage = {
  get url() { return required('MAIL_TRIAGE_URL'); },
  get dbusersAdminKey() { return required('DBUSERS_ADMIN_KEY'); },
};

export const opsConsole = {
  get url() { return required('OPS_CONSOLE_URL'); },
  get adminEmail() { return required('OPS_ADMIN_EMAIL'); },
  get adminPassword() { return required('OPS_ADMIN_PASSWORD'); },
  // The console whose vendors are the sandbox's fakes (tests/browser/run), for the pages whose
  // routes call one: same seeds, same administrator. `who` with `console: 'vendors'` signs in
  // there (createUser(prefix, {console: 'vendors'}) makes such a user; vendorsAdmin() is its
  // administrator); routeJson, setPreferences and coldLoad follow the page to its console.
  vendors: {
    get url() { return required('OPS_CONSOLE_VENDORS_URL'); },
    get sandboxUrl() { return required('SANDBOX_URL'); },
  },
};

// A name no other test file of this run uses (the services are shared by every file):
// `${prefix}_${the run's suffix}`.
export function unique(prefix) {
  return `${prefix}_${required('RUN_SUFFIX')}`;
}

// The viewports every page is checked at: a desktop and a 360-px phone.
export const viewports = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 360, height: 740 },
};

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
}

// A page at a viewport whose console errors, uncaught exceptions, failed requests and error
// responses are kept, each a line (`http 404 GET http://…/favicon.ico`): `problems()` lists them,
// and `assertClean(allowed)` fails the test when any is left that no regex of `allowed` matches
// (a test allows the 4xx it provokes on purpose). Chromium's own console line for an error
// response ("Failed to load resource") is left out: the `http` line names the request.
export async function openPage(browser, viewport = viewports.desktop) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const seen = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) seen.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => seen.push(`exception: ${e.message}`));
  page.on('requestfailed', (r) => seen.push(`request failed: ${r.method()} ${r.url()} (${r.failure()?.errorText})`));
  page.on('response', (r) => { if (r.status() >= 400) seen.push(`http ${r.status()} ${r.request().method()} ${r.url()}`); });
  page.problems = () => [...seen];
  page.assertClean = (allowed = []) => {
    const left = seen.filter((p) => !allowed.some((a) => a.test(p)));
    assert.deepEqual(left, [], 'the page logged no error, and no request failed or was answered with an error');
  };
  return page;
}

// Runs `step`; when it throws, saves SCREENSHOT_DIR/failure-<name>.png and prints what had the
// focus and which dialogs were open: for a step that fails now and then in CI and never
// here (security_rmm's confirmation, issue 37's note), so that the failing run says why.
export async function explainFailure(page, name, step) {
  try {
    return await step();
  } catch (error) {
    const state = await page.evaluate(() => ({
      focus: document.activeElement?.outerHTML.slice(0, 160),
      dialogs: [...document.querySelectorAll('dialog')].map((d) => `${d.getAttribute('aria-labelledby')}: ${d.open ? 'open' : 'closed'}`),
      hash: window.location.hash,
    })).catch((e) => ({ unavailable: e.message }));
    await screenshot(page, `failure-${name}`).catch(() => {});
    console.log(`failure ${name}: page state ${JSON.stringify(state)}; screenshot failure-${name}.png`);
    throw error;
  }
}

// Saves the page as SCREENSHOT_DIR/<name>.png (the run prints the folder): one picture per page
// and viewport, for a reviewer to look at without starting anything.
export async function screenshot(page, name) {
  const dir = required('SCREENSHOT_DIR');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

// Fails unless the page is no wider than its viewport (nothing to scroll sideways), naming the
// elements that stick out, and unless every key figure (`.kpi .value`) fits its card.
export async function assertFitsWidth(page, what) {
  const wide = await page.evaluate(() => {
    if (document.documentElement.scrollWidth <= window.innerWidth) return [];
    return [...document.body.querySelectorAll('*')]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
      .map((el) => `<${el.tagName.toLowerCase()}${el.id ? ` id=${el.id}` : ''}${el.className ? ` class=${el.className}` : ''}> `
        + `ends at ${Math.round(el.getBoundingClientRect().right)} px`);
  });
  assert.deepEqual(wide, [], `${what} fits ${page.viewportSize().width} px`);
  const overflowing = await page.evaluate(() => [...document.querySelectorAll('.kpi .value')]
    .filter((el) => el.scrollWidth > el.clientWidth + 0.5)
    .map((el) => `"${el.textContent}" needs ${el.scrollWidth} px of ${el.clientWidth}`));
  assert.deepEqual(overflowing, [], `${what}: every key figure fits its card at ${page.viewportSize().width} px`);
}

// Presses Tab (at most `limit` times) until `target` (a locator) has the focus, as a person with a
// keyboard would; fails when it cannot be reached that way.
export async function tabTo(page, target, limit = 25) {
  for (let i = 0; i < limit; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`${target} cannot be reached with the Tab key`);
}

// --- The ops-console web UI -------------------------------------------------------------------

// A console user of the calling test's own (`ops-console create-user`, as an operator makes one),
// so that a test that changes its user's theme, zone or channels disturbs no other file running at
// the same time. Returns { email, password }.
export function createUser(prefix, { admin = false, kiosk = false, permissions = [], console: which = 'main' } = {}) {
  const email = `${unique(prefix)}@browser.example`.toLowerCase();
  const password = `pw-${unique(prefix)}-${Math.random().toString(36).slice(2)}`;
  const args = ['create-user', '--email', email, '--name', `${prefix} tester`, '--password-stdin'];
  if (admin) args.push('--admin');
  if (kiosk) args.push('--kiosk'); // a wall display's account: the kiosk view only
  for (const p of permissions) args.push('--permission', p);
  execFileSync(required('OPS_CONSOLE_BIN'), args, {
    input: `${password}\n`,
    env: {
      ...process.env,
      DATABASE_URL: required(which === 'vendors' ? 'OPS_CONSOLE_VENDORS_DATABASE_URL' : 'OPS_CONSOLE_DATABASE_URL'),
    },
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  return { email, password, console: which };
}

// The administrator of the console whose vendors are the sandbox's fakes, as a `who`.
export function vendorsAdmin() {
  return { email: opsConsole.adminEmail, password: opsConsole.adminPassword, console: 'vendors' };
}

// The console `who` belongs to (opsConsole.url unless `console: 'vendors'`).
function consoleUrl(who) {
  return who && who.console === 'vendors' ? opsConsole.vendors.url : opsConsole.url;
}

// The console the page is on (its origin), the first console before the page has been anywhere.
function pageConsole(page) {
  const at = page.url();
  return at.startsWith('http') ? new URL(at).origin : opsConsole.url;
}

// Signs in through the sign-in page as a person does (the administrator unless `who` says
// otherwise), landing on `hash` ("#/m/tickets"); returns when the page's first heading is shown.
// The shell's first probe of the session (GET /api/auth/me) is a 401 before sign-in: allow it
// with `allowSignInProbe` in assertClean.
export async function signIn(page, hash = '#/', who = { email: opsConsole.adminEmail, password: opsConsole.adminPassword }) {
  await page.goto(`${consoleUrl(who)}/${hash}`);
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('main#main').waitFor();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}
// Follows a section's link in the top bar as a person does: at a phone width, "Menu" first.
export async function goToSection(page, name) {
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible() && (await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();
}
export const allowSignInProbe = /^http 401 GET .*\/api\/auth\/me$/;

// A route's document as the signed-in page's user gets it (the page's own cookie): what the test
// compares the page's figures with.
export async function routeJson(page, path) {
  const res = await page.request.get(`${pageConsole(page)}${path}`);
  assert.equal(res.status(), 200, `${path} answers 200`);
  return res.json();
}

// Keeps the last answer the page itself received from each route (by path); `received(path)` is
// its document. For figures that other files running at the same time may move (the workers'
// states, integration health), comparing with what the page was given is exact where asking the
// route again would race. Call before the page loads.
export function recordAnswers(page) {
  const last = new Map();
  page.on('response', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/') && r.request().method() === 'GET' && r.ok()) last.set(url.pathname, r);
  });
  return async (path) => {
    const answer = last.get(path);
    assert.ok(answer, `the page asked for ${path}`);
    return answer.json();
  };
}

// Sets the user's theme and zone through the routes, and reloads, as a preference change does.
export async function setPreferences(page, { theme, timezone }) {
  const base = pageConsole(page);
  if (theme) assert.equal((await page.request.put(`${base}/api/me/theme`, { data: { theme } })).status(), 200);
  if (timezone) {
    assert.equal((await page.request.put(`${base}/api/me/timezone`, { data: { timezone } })).status(), 200);
  }
}

const axeSource = readFileSync(new URL('./node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

// axe-core's check of the page as it is now: fails on any serious or critical violation, naming
// the rule and the elements. Injected through the DevTools protocol, so the page's CSP stays on.
export async function assertAccessible(page, what) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const bad = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  assert.deepEqual(bad, [], `${what}: no serious or critical accessibility violation`);
}

// Both themes: the page checked by axe in light and in dark (the device's scheme; the user's
// theme "system" follows it).
export async function assertAccessibleInBothThemes(page, what) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await assertAccessible(page, `${what} (${scheme})`);
  }
}

// The Performance API's figures of the page's load: first contentful paint and the time until
// `selector` shows data, in ms since navigation start, for bench/RESULTS.md (never asserted).
export async function loadTimings(page, selector) {
  await page.locator(selector).first().waitFor();
  return page.evaluate(() => {
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    const nav = performance.getEntriesByType('navigation')[0];
    const bytes = performance.getEntriesByType('resource')
      .filter((r) => /\.(js|css)$/.test(new URL(r.name).pathname))
      .reduce((s, r) => s + (r.encodedBodySize || 0), 0);
    return { firstPaintMs: Math.round(paint ? paint.startTime : 0), dataShownMs: Math.round(performance.now()),
      domContentLoadedMs: Math.round(nav ? nav.domContentLoadedEventEnd : 0), scriptAndStyleBytes: bytes };
  });
}

// A plain user of seed/users.txt (tests/browser/run creates them, one password for all): a test
// that changes its user's theme or zone signs in as one of its own, since the files run at once.
export function pageUser(email) {
  return { email, password: required('OPS_USER_PASSWORD') };
}

// Opens `hash` as a first visit would: the browser's cache and the service worker (which keeps
// the shell's assets after the first visit) bypassed through the DevTools protocol, so that
// loadTimings() counts every script and stylesheet the page needs as the network sends them
// (compressed). The session cookie stays.
export async function coldLoad(page, hash) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.setBypassServiceWorker', { bypass: true });
  const base = pageConsole(page);
  await page.goto('about:blank');
  await page.goto(`${base}/${hash}`);
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: false });
  await cdp.send('Network.setBypassServiceWorker', { bypass: false });
  await cdp.detach();
}

// The page's load timings as one line for bench/RESULTS.md: `timing: {"page":…,"viewport":…,…}`.
export function logTimings(name, viewport, timings) {
  console.log(`timing: ${JSON.stringify({ page: name, viewport, ...timings })}`);
}

// What the UI's lib/format.js shows for a route's value, computed in the page (its locale, and
// the zone named): the figure a test expects on screen.
export const shown = {
  number: (page, value, digits = 0) => page.evaluate(([v, d]) => new Intl.NumberFormat(undefined,
    { minimumFractionDigits: d, maximumFractionDigits: d }).format(Number(v)), [value, digits]),
  money: (page, value, currency) => page.evaluate(([v, c]) => new Intl.NumberFormat(undefined,
    { style: 'currency', currency: c || 'USD', maximumFractionDigits: 0 }).format(Number(v)), [value, currency]),
  dateTime: (page, iso, timeZone) => page.evaluate(([i, z]) => new Intl.DateTimeFormat(undefined,
    { timeZone: z, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(i)), [iso, timeZone]),
  // the analyzer's costs (pages/analyzer-shared.js cost()): four decimals under one unit, two from one up
  cost: (page, value) => shown.number(page, value, Math.abs(value) >= 1 ? 2 : 4),
  day: (page, ymd) => page.evaluate((d) => {
    const [y, m, n] = d.slice(0, 10).split('-').map(Number);
    return new Intl.DateTimeFormat(undefined, { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short' })
      .format(new Date(Date.UTC(y, m - 1, n)));
  }, ymd),
};

// How a page test of the console starts: a page at viewports[viewport], signed in as `who` (the
// administrator unless named) with the theme `system` and the zone UTC, `hash` loaded as a first
// visit; prints its load timings (`ready`: the selector that shows the page's data) as `name`'s,
// and asserts the issue's budget, at most 150 KB of compressed script and style. Returns the page.
export async function openSignedIn(browser, { viewport, name, hash, who, ready }) {
  const page = await openPage(browser, viewports[viewport]);
  await signIn(page, hash, who);
  await setPreferences(page, { theme: 'system', timezone: 'UTC' });
  await firstVisit(page, { viewport, name, hash, ready });
  return page;
}

// Another page of a test that openSignedIn started, loaded as a first visit in the same way: its
// load timings printed as `name`'s, and the 150 KB budget asserted.
export async function firstVisit(page, { viewport, name, hash, ready }) {
  await coldLoad(page, hash);
  const timings = await loadTimings(page, ready);
  logTimings(name, viewport, timings);
  assert.ok(timings.scriptAndStyleBytes <= 150 * 1024, `${name}: ${timings.scriptAndStyleBytes} bytes of script and style`);
}

// Every page of a cursor-paged route ({items, nextCursor}), following nextCursor: [[item, …], …].
export async function routePages(page, path, query = '') {
  const pages = [];
  let cursor = null;
  do {
    const q = [query, cursor ? `cursor=${encodeURIComponent(cursor)}` : ''].filter(Boolean).join('&');
    const p = await routeJson(page, q ? `${path}?${q}` : path);
    pages.push(p.items);
    cursor = p.nextCursor;
  } while (cursor);
  return pages;
}

// Waits until `count` elements match `selector` and nothing on the page is loading (aria-busy).
export async function waitForCount(page, selector, count) {
  await page.waitForFunction(([s, n]) => document.querySelectorAll(s).length === n
    && !document.querySelector('[aria-busy="true"]'), [selector, count]);
}

// Runs one SQL statement on ops-console's database, as the service's own workers would change it
// (a job's state, a report's narrative: what the browser tests' console, which has no language
// model, cannot do by itself); returns psql's unaligned rows: [[col, …], …].
export function consoleSql(statement) {
  const out = execFileSync('psql', ['-X', '-v', 'ON_ERROR_STOP=1', '-qAt', '-F', '\t', required('OPS_CONSOLE_DATABASE_URL'),
    '-c', statement], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean).map((line) => line.split('\t'));
}

// A control route of the sandbox (the vendors' fakes behind the vendors console, sandbox/*.hpp):
// its JSON answer (null when empty); anything but a 2xx fails the test. A fault switched on here is
// the fake's, seen by every file that reads it: switch it off in a `finally`.
export async function sandboxControl(method, path, body) {
  const res = await fetch(`${opsConsole.vendors.sandboxUrl}${path}`, {
    method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.ok(res.status < 300, `${method} ${path} answers ${res.status}`);
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

// A receiver of the test's own on 127.0.0.1 for what the console sends out (webhook channels, chat
// webhooks, agent copies; tests/browser/run lets them reach loopback): `messages` lists each
// request as {path, headers, body}, and each is answered `status` (200 unless the test sets it).
// `url` is its address; `close()` stops it.
export async function startReceiver() {
  const { createServer } = await import('node:http');
  const state = { messages: [], status: 200 };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      state.messages.push({ path: req.url, headers: req.headers, body });
      res.writeHead(state.status, { 'Content-Type': 'application/json' }).end(state.status < 400 ? '{"ok":true}' : '{"error":"refused"}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${server.address().port}`;
  state.close = () => new Promise((resolve) => server.close(resolve));
  return state;
}

// The text of the elements an input names with aria-describedby, as a screen reader reads it: its
// hint and the route's message under it.
export const description = (locator) => locator.evaluate((el) => (el.getAttribute('aria-describedby') || '').split(' ')
  .map((id) => document.getElementById(id)?.textContent.trim()).filter(Boolean).join(' '));

// Until a vendor copy's sync route (`/api/backup/sync`: {inProgress, history}) says no run is under
// way and its newest run, other than `after` (a run id), has ended; returns that answer. The route
// is asked again every 250 ms: a poll of its state, nothing on a page is timed.
export async function waitForSync(page, path, after = null, tries = 480) {
  let s;
  for (let i = 0; i < tries; i++) {
    s = await routeJson(page, path);
    if (!s.inProgress && s.history.length > 0 && s.history[0].finishedAt && s.history[0].id !== after) return s;
    await new Promise((resolve) => { setTimeout(resolve, 250); });
  }
  return assert.fail(`${path} still says ${JSON.stringify({ inProgress: s.inProgress, history: s.history.slice(0, 2) })}`);
}
