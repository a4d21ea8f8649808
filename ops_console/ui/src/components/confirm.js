// A modal question before a destructive or costly action, saying what will happen: a native
// <dialog> (focus kept inside, Escape cancels), opened while `open` is true.
//   <${Confirm} open=${asking} title="Close this campaign?" confirm="Close it" danger
//      onConfirm=${close} onCancel=${() => setAsking(false)}>New related reports will start a new campaign.<//>
import { html, useEffect, useRef } from '../lib/html.js';

let count = 0;

export function Confirm({ open, title, confirm, cancel = 'Cancel', danger = false, busy = false, onConfirm, onCancel, children }) {
  const ref = useRef(null);
  const id = useRef(`confirm-${++count}`);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return html`<dialog ref=${ref} class="confirm" aria-labelledby=${`${id.current}-h`} aria-describedby=${`${id.current}-d`}
    onCancel=${(e) => { e.preventDefault(); onCancel(); }}>
    <h3 id=${`${id.current}-h`}>${title}</h3>
    <div id=${`${id.current}-d`}>${children}</div>
    <div class="row">
      <button type="button" class=${danger ? 'danger' : 'primary'} disabled=${busy} onClick=${onConfirm}>${confirm}</button>
      <button type="button" autofocus onClick=${onCancel}>${cancel}</button>
    </div>
  </dialog>`;
}
