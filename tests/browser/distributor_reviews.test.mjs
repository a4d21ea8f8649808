// The match reviews (#/distributor/reviews) at a phone and a desktop width, on the console whose
// distributor is the sandbox's Pax8 fake (its names are not the seed's PSA companies, so every
// company waits for a review, with the PSA companies whose names share trigrams as candidates):
// each open review the route's, oldest first, with its candidates and their confidence; resolving
// one with a note, with the keyboard at the phone (a candidate) and the mouse at the desktop
// (another company from the list, after the route's 400 for none chosen, shown under the
// choices), each checked through the routes (the review gone from the open
// ones, the company matched "by review"); a review resolved meanwhile refused with the route's 409
// by its form; a user without admin/access offered no form. Axe in both themes, nothing sticking
// out at 360 px, the 150 KB budget.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowSignInProbe, assertAccessibleInBothThemes, assertFitsWidth, createUser, goToSection, openSignedIn, routeJson,
  screenshot, shown, tabTo, unique,
} from './lib.mjs';
import { startDistributorFile } from './distributor.mjs';

const ITEM = 'li[data-review]';
const PER_PAGE = 10; // pages/distributor-reviews.js
let browser;
let resolver;
before(async () => { ({ browser, user: resolver } = await startDistributorFile('dist-reviews', { permissions: ['admin:access'] })); });
after(async () => { await browser?.close(); });

// The text of the element(s) a control names with aria-describedby, as a screen reader reads it.
const description = (locator) => locator.evaluate((el) => (el.getAttribute('aria-describedby') || '').split(' ')
  .map((id) => document.getElementById(id)?.textContent.trim()).filter(Boolean).join(' '));

// The page shows the route's open reviews from `offset`, ten of them, and says how many in all.
async function assertReviewsAre(page, offset = 0) {
  const open = await routeJson(page, '/api/distributor/company-matches');
  const shown = open.slice(offset, offset + PER_PAGE);
  await page.waitForFunction(([s, ids]) => !document.querySelector('[aria-busy="true"]')
    && JSON.stringify([...document.querySelectorAll(s)].map((e) => Number(e.dataset.review))) === JSON.stringify(ids),
  [ITEM, shown.map((r) => r.id)]);
  assert.match(await page.getByRole('navigation', { name: 'Pages of reviews' }).getByRole('status').innerText(),
    new RegExp(`^${offset + 1}–${offset + shown.length} of ${open.length} reviews$`));
  return shown;
}

// Resolving changes shared state: each test takes a review no other test of this file takes.
const taken = new Set();
function take(open, pick) {
  const r = open.find((x) => !taken.has(x.id) && pick(x));
  assert.ok(r, 'an open review is left to resolve');
  taken.add(r.id);
  return r;
}

// Presses the form's Resolve (`press`), and returns the route's answer: the resolved review.
async function resolving(page, review, press) {
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith(`/api/distributor/company-matches/${review.id}/resolve`)),
    press(),
  ]);
  assert.equal(answer.status(), 200);
  return answer.json();
}

async function assertResolved(page, review, companyId, note, answer) {
  assert.equal(answer.note, note, 'the note is stored with the review');
  assert.equal(answer.resolvedCompanyId, companyId);
  const open = await routeJson(page, '/api/distributor/company-matches');
  assert.ok(!open.some((r) => r.id === review.id), 'the review is no longer open');
  const company = await routeJson(page, `/api/distributor/companies/${review.distributorCompanyId}`);
  assert.equal(company.matchedCompanyId, companyId);
  assert.equal(company.matchMethod, 'review');
  const list = await routeJson(page, '/api/data/companies-list');
  const name = list.find((c) => c.id === companyId).company_name;
  await page.getByRole('status').filter({ hasText: `${review.distributorCompanyName} is matched to ${name}.` }).waitFor();
  await page.locator(`li[data-review="${review.id}"]`).waitFor({ state: 'detached' });
}

for (const name of ['phone', 'desktop']) {
  test(`match reviews at ${name} width`, async () => {
    const page = await openSignedIn(browser, { viewport: name, name: 'distributor-reviews', hash: '#/distributor/reviews',
      who: resolver, ready: ITEM });

    const open = await assertReviewsAre(page);
    assert.ok(open.length >= 3, `${open.length} reviews are open`);
    for (const r of open) {
      const li = page.locator(`li[data-review="${r.id}"]`);
      assert.equal(await li.getByRole('heading').innerText(), r.distributorCompanyName);
      for (const c of r.candidates) {
        const pct = `${await shown.number(page, Number(c.confidence) * 100)}% alike`;
        assert.ok((await li.getByRole('radio', { name: new RegExp(`^${c.name} `) }).locator('..').innerText()).includes(pct), `${c.name}: ${pct}`);
      }
    }
    if (name === 'phone') await assertFitsWidth(page, 'the match reviews');
    await screenshot(page, `distributor-reviews-${name}`);
    await assertAccessibleInBothThemes(page, `the match reviews at ${name} width`);

    const note = `checked by ${unique(`reviews-${name}`)}`;
    if (name === 'phone') {
      // the keyboard: the review's last candidate, a note, Enter on Resolve
      const review = take(open, (r) => r.candidates.length > 0);
      const li = page.locator(`li[data-review="${review.id}"]`);
      const chosen = review.candidates[review.candidates.length - 1];
      await tabTo(page, li.getByRole('radio').first(), 400);
      assert.equal(await li.getByRole('radio', { checked: true }).count(), 0, 'nothing is chosen for the user');
      await page.keyboard.press('Space');
      for (let i = 1; i < review.candidates.length; i++) await page.keyboard.press('ArrowDown');
      assert.equal(await li.getByRole('radio', { name: new RegExp(`^${chosen.name} `) }).isChecked(), true);
      await tabTo(page, li.getByLabel(/^Note/));
      await page.keyboard.type(note);
      await tabTo(page, li.getByRole('button', { name: /^Resolve/ }));
      const answer = await resolving(page, review, () => page.keyboard.press('Enter'));
      await assertResolved(page, review, chosen.companyId, note, answer);
    } else {
      // the next ten, and back
      await page.getByRole('button', { name: 'Next' }).click();
      await page.waitForFunction(() => window.location.hash === '#/distributor/reviews?offset=10');
      await assertReviewsAre(page, PER_PAGE);
      await page.getByRole('button', { name: 'Previous' }).click();
      await page.waitForFunction(() => window.location.hash === '#/distributor/reviews');
      await assertReviewsAre(page);

      // the mouse: another company, from the PSA's list
      const list = await routeJson(page, '/api/data/companies-list');
      const review = take(open, () => true);
      const other = list.find((c) => !review.candidates.some((k) => k.companyId === c.id)) || list[0];
      const li = page.locator(`li[data-review="${review.id}"]`);
      // Resolve with no company chosen: the route's 400, under the choices it concerns
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith(`/api/distributor/company-matches/${review.id}/resolve`)),
        li.getByRole('button', { name: /^Resolve/ }).click(),
      ]);
      assert.equal(refused.status(), 400);
      const problem = await refused.json();
      const message = problem.errors.find((e) => e.field === 'companyId').message;
      const choices = li.getByRole('group', { name: 'The PSA company it is' });
      await li.locator('.field-error').filter({ hasText: message }).waitFor();
      assert.equal(await description(choices), message);
      await li.getByRole('radio', { name: 'Another company' }).check();
      await li.getByLabel('Another PSA company').selectOption({ label: other.company_name });
      await li.getByLabel(/^Note/).fill(note);
      const answer = await resolving(page, review, () => li.getByRole('button', { name: /^Resolve/ }).click());
      await assertResolved(page, review, other.id, note, answer);

      // a review someone resolved meanwhile: the route's 409, said by its form
      const stale = take((await routeJson(page, '/api/distributor/company-matches')).slice(0, PER_PAGE), (r) => r.candidates.length > 0);
      const res = await page.request.post(`${new URL(page.url()).origin}/api/distributor/company-matches/${stale.id}/resolve`,
        { data: { companyId: stale.candidates[0].companyId, note: `${note} (meanwhile)` } });
      assert.equal(res.status(), 200);
      const form = page.locator(`li[data-review="${stale.id}"]`);
      await form.getByRole('radio').first().check();
      await form.getByRole('button', { name: /^Resolve/ }).click();
      await form.getByRole('alert').filter({ hasText: 'resolved already' }).waitFor();
    }
    page.assertClean([allowSignInProbe, /^http (400|409) POST .*\/api\/distributor\/company-matches\/\d+\/resolve$/]);
  });
}

test('match reviews without the admin/access permission', async () => {
  const plain = createUser('dist-reviews-plain', { console: 'vendors' });
  const page = await openSignedIn(browser, { viewport: 'desktop', name: 'distributor-reviews-plain', hash: '#/distributor/reviews',
    who: plain, ready: ITEM });
  const open = await assertReviewsAre(page);
  assert.equal(await page.getByRole('button', { name: /^Resolve/ }).count(), 0, 'no form is offered');
  assert.equal(await page.getByRole('radio').count(), 0);
  await page.getByText('Resolving a review needs the admin/access permission.').waitFor();
  const withCandidates = open.find((r) => r.candidates.length > 0);
  if (withCandidates) {
    const text = await page.locator(`li[data-review="${withCandidates.id}"]`).innerText();
    assert.ok(text.includes(withCandidates.candidates[0].name));
  }
  await goToSection(page, 'Distributor');
  await page.waitForFunction(() => window.location.hash === '#/distributor');
  page.assertClean([allowSignInProbe]);
});
