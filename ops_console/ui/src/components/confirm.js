// A question before a destructive action (revoke, switch off, delete): a modal <dialog> that says
// what will happen, opened with the harmless choice focused, so that Enter or Escape keeps things
// as they are. `open` shows it; the page closes it from onConfirm or onCancel.
//
//   <${Confirm} id="revoke" open=${!!asked} title=${`Revoke ${asked?.name}?`} confirm="Revoke it"
//      onConfirm=${revoke} onCancel=${() => setAsked(null)}>Uploads with it are refused from now on.<//>
import { html, useEffect, useRef } from '../lib/html.js';

export function Confirm({ id, open, title, children, confirm, cancel = 'Cancel', onConfirm, onCancel }) {
  const ref = useRef(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return html`<dialog ref=${ref} class="confirm" aria-labelledby=${`${id}-h`} aria-describedby=${`${id}-d`}
    onClose=${() => { if (open) onCancel(); }}>
    <h3 id=${`${id}-h`}>${title}</h3>
    <div id=${`${id}-d`}>${children}</div>
    <div class="row">
      <button type="button" class="danger" onClick=${onConfirm}>${confirm}</button>
      <button type="button" autofocus onClick=${onCancel}>${cancel}</button>
    </div>
  </dialog>`;
}
