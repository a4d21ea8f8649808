// A long list the route gives whole, shown 25 rows at a time: the rows shown, and under the list
// "25 of 100 shown", "Show 25 more" and "Show all" while rows are left. On a phone, where each
// row stacks into several lines, a hundred rows would otherwise be a page tens of thousands of
// pixels long.
//   const more = useShowMore(items);
//   <tbody>${more.rows.map(row)}</tbody>  ${more.controls}
import { html, useState } from '../lib/html.js';
import { number } from '../lib/format.js';

const STEP = 25;

export function useShowMore(items) {
  const [shown, setShown] = useState(STEP);
  const all = items || [];
  const left = all.length - shown;
  return {
    rows: all.slice(0, shown),
    controls: left > 0 ? html`<div class="row more">
      <span class="muted" role="status">${number(shown)} of ${number(all.length)} shown</span>
      <button type="button" onClick=${() => setShown(shown + STEP)}>Show ${number(Math.min(STEP, left))} more</button>
      <button type="button" onClick=${() => setShown(all.length)}>Show all</button></div>` : null,
  };
}
