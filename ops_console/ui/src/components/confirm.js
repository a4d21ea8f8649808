// A question before a destructive or costly action (revoke, switch off, delete, a model's cost): a
// modal <dialog> that says what will happen, opened with the harmless choice focused, so that Enter
// or Escape keeps things as they are (focus stays inside). `open` shows it; the page closes it from
// onConfirm or onCancel. `danger` styles the confirming button as destructive; `id` names its
// heading and text (generated when absent).
//
//   <${Confirm} id="revoke" open=${!!asked} title=${`Revoke ${asked?.name}?`} confirm="Revoke it" danger
//      onConfirm=${revoke} onCancel=${() => setAsked(null)}>Uploads with it are refused from now on.<//>
import { html, useEffect, useRef } from '../lib/html.js';

let count = 0;

export function Confirm({ id, open, title, confirm, cancel = 'Cancel', danger = false, busy = false, onConfirm, onCancel, children }) {
  const ref = useRef(null);
  const generated = useRef(`confirm-${++count}`);
  const name = id || generated.current;
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return html`<dialog ref=${ref} class="confirm" aria-labelledby=${`${name}-h`} aria-describedby=${`${name}-d`}
    onCancel=${(e) => { e.preventDefault(); onCancel(); }} onClose=${() => { if (open) onCancel(); }}>
    <h3 id=${`${name}-h`}>${title}</h3>
    <div id=${`${name}-d`}>${children}</div>
    <div class="row">
      <button type="button" class=${danger ? 'danger' : 'primary'} disabled=${busy} onClick=${onConfirm}>${confirm}</button>
      <button type="button" autofocus onClick=${onCancel}>${cancel}</button>
    </div>
  </dialog>`;
}
