// A confirmation that says what will happen before a destructive action: a modal <dialog> (the
// browser keeps the focus inside it and Escape cancels), opened by the caller's button; the safe
// choice has the focus first.
//   const confirm = useRef(null);
//   <button onClick=${() => confirm.current.showModal()}>Disconnect</button>
//   <${Confirm} dialogRef=${confirm} id="disconnect" title="Disconnect Xero?" action="Disconnect" onConfirm=${go}>
//     <p>What will happen.</p><//>
import { html } from '../lib/html.js';

export function Confirm({ dialogRef, id, title, action, cancel = 'Cancel', onConfirm, children }) {
  const close = () => dialogRef.current?.close();
  return html`<dialog ref=${dialogRef} class="confirm" aria-labelledby=${`${id}-h`}>
    <h3 id=${`${id}-h`}>${title}</h3>
    ${children}
    <div class="row">
      <button type="button" class="danger" onClick=${() => { close(); onConfirm(); }}>${action}</button>
      <button type="button" autofocus onClick=${close}>${cancel}</button>
    </div>
  </dialog>`;
}
