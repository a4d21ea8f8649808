// Paging through an offset-paged route ({items, total, limit, offset}): "21–40 of 57" and the
// previous and next pages. `onPage(offset)` is asked for the page to show.
//   <${Pager} page=${data} noun="companies" onPage=${(offset) => setQuery({ offset })} />
import { html } from '../lib/html.js';
import { number } from '../lib/format.js';

export function Pager({ page, noun, onPage }) {
  const { total, limit, offset } = page;
  const first = total ? offset + 1 : 0;
  const last = Math.min(offset + page.items.length, total);
  return html`<nav class="pager" aria-label=${`Pages of ${noun}`}>
    <span role="status">${total ? `${number(first)}–${number(last)} of ${number(total)} ${noun}` : `No ${noun}`}</span>
    <span class="row tight">
      <button type="button" disabled=${offset <= 0} onClick=${() => onPage(Math.max(0, offset - limit))}>Previous</button>
      <button type="button" disabled=${offset + limit >= total} onClick=${() => onPage(offset + limit)}>Next</button>
    </span>
  </nav>`;
}
