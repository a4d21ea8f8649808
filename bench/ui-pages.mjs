// bench/ui-pages's browser side: prints a Markdown table of each page's load figures (see there).
import { createRequire } from 'node:module';

const require = createRequire(new URL('../tests/browser/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const { URL: base, EMAIL: email, OPS_PASSWORD: password } = process.env;
const rounds = Number(process.env.ROUNDS || 5);
const pages = [
  ['Overview', '#/'], ['Mobile dashboard', '#/m'], ['Tickets', '#/m/tickets'], ['Analyzer feed', '#/m/feed'],
  ['Finance', '#/m/finance'], ['Engagement', '#/m/engagement'], ['Preferences', '#/preferences'],
];
const viewports = { desktop: { width: 1280, height: 800 }, phone: { width: 360, height: 740 } };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(page) {
  await page.waitForFunction(() => document.querySelector('main#main')
    && !document.querySelector('[aria-busy="true"]') && document.querySelector('main#main').textContent.trim().length > 0,
  null, { timeout: 30000 });
  return page.evaluate(() => {
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    const bytes = performance.getEntriesByType('resource')
      .filter((r) => /\.(js|css)$/.test(new URL(r.name).pathname))
      .reduce((s, r) => s + (r.encodedBodySize || 0), 0);
    return { paint: paint ? paint.startTime : NaN, data: performance.now(), bytes };
  });
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const signIn = await (await browser.newContext()).newPage();
  await signIn.goto(`${base}/`);
  const res = await signIn.request.post(`${base}/api/auth/login`, { data: { email, password } });
  if (res.status() !== 200) throw new Error(`sign-in failed: ${res.status()}`);
  const cookies = await signIn.context().cookies();

  const rows = [];
  for (const [name, hash] of pages) {
    for (const [vp, viewport] of Object.entries(viewports)) {
      const first = []; const again = [];
      for (let i = 0; i < rounds; i++) {
        const context = await browser.newContext({ viewport, serviceWorkers: 'block' });
        await context.addCookies(cookies);
        const page = await context.newPage();
        await page.goto(`${base}/${hash}`);
        first.push(await measure(page));
        await page.reload();
        again.push(await measure(page));
        await context.close();
      }
      rows.push(`| ${name} | ${vp} | ${Math.round(median(first.map((m) => m.paint)))} | ${Math.round(median(first.map((m) => m.data)))} `
        + `| ${Math.round(median(again.map((m) => m.paint)))} | ${Math.round(median(again.map((m) => m.data)))} `
        + `| ${(median(first.map((m) => m.bytes)) / 1024).toFixed(1)} |`);
    }
  }
  console.log('| page | viewport | first load: first render (ms) | first load: data shown (ms) | again: first render (ms) | again: data shown (ms) | script + style, compressed (KiB) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
} finally {
  await browser.close();
}
