// How the UI says what went wrong, next to what it concerns:
//   <ErrorBanner error=${e} onRetry=${reload} />  a route's problem for a page or a card: its
//       detail, the missing permission of a 403, a retry for a failure a retry may cure
//   <FieldError message=${fields.email} id="email-error" />  under the input it names
//   <Pending resource=${r} label="overview" />  loading (a skeleton) or the error of a resource
//   <Empty>No tickets match these filters.</Empty>
import { html } from '../lib/html.js';

const capitalized = (s) => s.charAt(0).toUpperCase() + s.slice(1);

export function ErrorBanner({ error, onRetry, what }) {
  if (!error) return null;
  const problem = error.problem || {};
  let headline;
  if (error.status === 0) headline = 'The console could not be reached.';
  else if (error.status === 403) headline = 'You do not have access to this.';
  else if (error.status === 503) headline = `${capitalized(what || 'this')} is not available right now.`;
  else if (error.status >= 500) headline = 'The console failed to answer.';
  else headline = problem.title || 'The request was refused.';
  const fields = (problem.errors || []).filter((e) => e && e.field);
  return html`
    <div class="banner error" role="alert">
      <div>
        <strong>${headline}</strong>
        ${problem.detail ? html` <span>${capitalized(problem.detail)}${/[.!?]$/.test(problem.detail) ? '' : '.'}</span>` : null}
        ${fields.length ? html`<ul>${fields.map((e) => html`<li><code>${e.field}</code>: ${e.message}</li>`)}</ul>` : null}
        ${problem.request_id && error.status >= 500 ? html` <span class="muted">Request id ${problem.request_id}.</span>` : null}
      </div>
      ${onRetry && (error.status === 0 || error.status >= 500) ? html`<button type="button" onClick=${onRetry}>Retry</button>` : null}
    </div>`;
}

export function FieldError({ id, message }) {
  if (!message) return null;
  return html`<div class="field-error" id=${id}>${message}</div>`;
}

export function Pending({ resource, label, lines = 3 }) {
  if (resource.error && resource.data === undefined) {
    return html`<${ErrorBanner} error=${resource.error} onRetry=${resource.reload} what=${label} />`;
  }
  return html`<div aria-busy="true" aria-label=${`Loading ${label || ''}`.trim()} class="stack">
    ${Array.from({ length: lines }, (_, i) => html`<div class="skeleton" key=${i}></div>`)}
  </div>`;
}

export function Empty({ children }) {
  return html`<p class="state">${children}</p>`;
}
