// A table that may be wider than its card: it scrolls inside its own frame, which the keyboard can
// reach (Tab, then the arrow keys) and a screen reader announces by its label.
//   <${TableWrap} label="Open tickets by queue and priority"><table>…</table><//>
import { html } from '../lib/html.js';

export function TableWrap({ label, children }) {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label=${label}>${children}</div>`;
}
