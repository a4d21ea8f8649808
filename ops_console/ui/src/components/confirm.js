// A confirmation before an action that cannot be taken back (release, delete, run a script): a
// modal <dialog> that says what will happen, with the action's own verb on its button and the
// harmless choice focused first. Escape or "Cancel" closes it without acting.
//
//   <${Confirm} open=${!!asking} title="Release this message?" action="Release it" onConfirm=${release}
//      onCancel=${() => setAsking(null)}><p>Mimecast delivers it to …</p><//>
import { html, useEffect, useRef } from '../lib/html.js';

let dialogs = 0;

export function Confirm({ open, title, action, cancel = 'Cancel', danger = true, onConfirm, onCancel, children }) {
  const ref = useRef(null);
  const id = useRef(`confirm-${++dialogs}`);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return html`<dialog ref=${ref} class="confirm" aria-labelledby=${`${id.current}-h`}
    onCancel=${(e) => { e.preventDefault(); onCancel(); }}>
    ${open ? html`<h3 id=${`${id.current}-h`}>${title}</h3>
      <div class="stack">${children}</div>
      <div class="row">
        <button type="button" class=${danger ? 'danger' : 'primary'} onClick=${onConfirm}>${action}</button>
        <button type="button" autofocus onClick=${onCancel}>${cancel}</button>
      </div>` : null}
  </dialog>`;
}
