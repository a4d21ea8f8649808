// Offset paging for a route that gives {total, limit, offset}: where the page is in the total, and
// Previous / Next, which the caller turns into its route's offset.
//   <${Pager} page=${data} noun="tickets" onOffset=${(offset) => setQuery({ offset })} />
import { html } from '../lib/html.js';
import { number } from '../lib/format.js';

export function Pager({ page, noun, onOffset, busy = false }) {
  const { total = 0, limit = 0, offset = 0 } = page || {};
  const shown = page?.items?.length || 0;
  const from = shown ? offset + 1 : 0;
  const to = offset + shown;
  return html`<nav class="pager" aria-label=${`Pages of ${noun}`}>
    <span role="status" class="muted">${total
      ? `${number(from)}–${number(to)} of ${number(total)} ${noun}`
      : `0 ${noun}`}</span>
    <div class="row">
      <button type="button" disabled=${busy || offset <= 0} onClick=${() => onOffset(Math.max(0, offset - limit))}>Previous</button>
      <button type="button" disabled=${busy || to >= total} onClick=${() => onOffset(offset + limit)}>Next</button>
    </div>
  </nav>`;
}
