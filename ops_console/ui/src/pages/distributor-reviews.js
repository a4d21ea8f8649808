// The match reviews (GET /api/distributor/company-matches: the unresolved reviews, oldest first,
// each with up to five PSA companies, nearest first, and their trigram `confidence`), and
// resolving one (POST /api/distributor/company-matches/{id}/resolve {companyId, note?}, for users
// with the admin/access permission: the others see the reviews without the form). A candidate or
// any other active PSA company (GET /api/data/companies-list) may be chosen; the note is at most
// 500 characters. The route's field errors show under their inputs, its refusal above the button.
// Ten reviews a page, the offset in the fragment's query.
import { html, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime, number } from '../lib/format.js';
import { can } from '../lib/session.js';
import { useResource } from '../components/resource.js';
import { navigate } from '../lib/router.js';
import { Empty, ErrorBanner, FieldError, Pending } from '../components/messages.js';
import { Pager } from '../components/pager.js';

const OTHER = 'other';
export const REVIEWS_PER_PAGE = 10;

function percent(confidence) {
  return `${number(Number(confidence) * 100)}%`;
}

function ResolveForm({ review, companies, onResolved }) {
  const [choice, setChoice] = useState(review.candidates.length ? '' : OTHER); // nothing chosen for the user
  const [other, setOther] = useState('');
  const [note, setNote] = useState('');
  const [state, setState] = useState({ busy: false, error: null });
  const id = (what) => `review-${review.id}-${what}`;

  const submit = async (e) => {
    e.preventDefault();
    const companyId = Number(choice === OTHER ? other : choice);
    setState({ busy: true, error: null });
    try {
      // with no company chosen the route names what is missing, under the choices
      const out = await api.post(`/api/distributor/company-matches/${review.id}/resolve`,
        { ...(companyId ? { companyId } : {}), ...(note.trim() ? { note: note.trim() } : {}) });
      onResolved(review, out);
    } catch (error) {
      setState({ busy: false, error });
    }
  };

  const fields = state.error?.status === 400 ? state.error.fields : {};
  const stray = state.error && !(fields.companyId || fields.note);
  return html`<form class="stack" onSubmit=${submit} noValidate>
    <fieldset class="candidates" aria-describedby=${fields.companyId ? id('company-error') : null}>
      <legend>The PSA company it is</legend>
      ${review.candidates.map((c) => html`<label class="check" key=${c.companyId}>
        <input type="radio" name=${id('company')} value=${String(c.companyId)} checked=${choice === String(c.companyId)}
          onChange=${() => setChoice(String(c.companyId))} />
        <span>${c.name} <span class="muted">${percent(c.confidence)} alike</span></span></label>`)}
      <label class="check"><input type="radio" name=${id('company')} value=${OTHER} checked=${choice === OTHER}
        onChange=${() => setChoice(OTHER)} /><span>Another company</span></label>
      ${choice === OTHER ? html`<div class="field">
        <label for=${id('other')} class="visually-hidden">Another PSA company</label>
        ${companies.data ? html`<select id=${id('other')} value=${other} aria-invalid=${fields.companyId ? 'true' : null}
            aria-describedby=${fields.companyId ? id('company-error') : null} onChange=${(e) => setOther(e.currentTarget.value)}>
            <option value="">Choose a company…</option>
            ${companies.data.map((c) => html`<option key=${c.id} value=${String(c.id)}>${c.company_name}</option>`)}
          </select>` : html`<${Pending} resource=${companies} label="the PSA companies" lines=${1} />`}
      </div>` : null}
      <${FieldError} id=${id('company-error')} message=${fields.companyId} />
    </fieldset>
    <div class="field">
      <label for=${id('note')}>Note <span class="muted">(optional, up to 500 characters)</span></label>
      <textarea id=${id('note')} rows="2" maxLength="500" value=${note} aria-invalid=${fields.note ? 'true' : null}
        aria-describedby=${fields.note ? id('note-error') : null} onInput=${(e) => setNote(e.currentTarget.value)}></textarea>
      <${FieldError} id=${id('note-error')} message=${fields.note} />
    </div>
    ${stray ? html`<${ErrorBanner} error=${state.error} />` : null}
    <div class="row"><button class="primary" type="submit" disabled=${state.busy}
      aria-label=${`Resolve the review of ${review.distributorCompanyName}`}>${state.busy ? 'Resolving…' : 'Resolve'}</button></div>
  </form>`;
}

function Review({ review, me, companies, onResolved }) {
  return html`<li class="card review" data-review=${review.id}>
    <header><h2><a href=${`#/distributor/company?id=${review.distributorCompanyId}`}>${review.distributorCompanyName}</a></h2>
      <span class="note">opened <time datetime=${review.createdAt}>${dateTime(review.createdAt)}</time></span></header>
    ${can(me, 'admin', 'access')
      ? html`<${ResolveForm} review=${review} companies=${companies} onResolved=${onResolved} />`
      : html`${review.candidates.length ? html`<ul class="list">${review.candidates.map((c) => html`<li key=${c.companyId}>
            ${c.name} <span class="muted">${percent(c.confidence)} alike</span></li>`)}</ul>`
          : html`<p class="muted">No PSA company has a name like it.</p>`}`}
  </li>`;
}

export function DistributorReviews({ me, query }) {
  const reviews = useResource('/api/distributor/company-matches');
  const mayResolve = can(me, 'admin', 'access');
  const companies = useResource(mayResolve ? '/api/data/companies-list' : null);
  const [done, setDone] = useState(null); // the last resolved: {name, company}
  const resolved = (review, out) => {
    const chosen = review.candidates.find((c) => c.companyId === out.resolvedCompanyId)?.name
      || companies.data?.find((c) => c.id === out.resolvedCompanyId)?.company_name || `company ${out.resolvedCompanyId}`;
    setDone({ name: review.distributorCompanyName, company: chosen });
    reviews.reload();
  };
  const list = reviews.data;
  // ten at a time, the offset in the fragment's query (the route gives every open review at once)
  const wanted = Math.max(0, Number.parseInt(query.get('offset') || '0', 10) || 0);
  const offset = list && wanted >= list.length ? Math.max(0, (Math.ceil(list.length / REVIEWS_PER_PAGE) - 1) * REVIEWS_PER_PAGE) : wanted;
  const page = list && { items: list.slice(offset, offset + REVIEWS_PER_PAGE), total: list.length, limit: REVIEWS_PER_PAGE, offset };
  const toPage = (o) => navigate('/distributor/reviews', o ? { offset: String(o) } : null, { replace: true });
  return html`<div class="stack distributor">
    <div class="page-head"><h1>Match reviews</h1>
      <span class="note">distributor companies no PSA company's name matches exactly; candidates nearest first</span></div>
    ${mayResolve ? null : html`<p class="muted">Resolving a review needs the admin/access permission.</p>`}
    <p role="status" class="test-result ok">${done ? `${done.name} is matched to ${done.company}.` : ''}</p>
    ${!list ? html`<${Pending} resource=${reviews} label="match reviews" lines=${4} />`
      : html`${reviews.error ? html`<${ErrorBanner} error=${reviews.error} onRetry=${reviews.reload} />` : null}
        ${list.length ? html`<p class="muted">${number(list.length)} ${list.length === 1 ? 'review' : 'reviews'} open, oldest first.</p>
          <ul class="reviews" aria-busy=${reviews.loading ? 'true' : 'false'}>${page.items.map((r) => html`<${Review} key=${r.id} review=${r} me=${me}
            companies=${companies} onResolved=${resolved} />`)}</ul>
          <${Pager} page=${page} noun="reviews" onOffset=${toPage} />`
          : html`<${Empty}>No review is open: every distributor company is matched or resolved.<//>`}`}
  </div>`;
}
