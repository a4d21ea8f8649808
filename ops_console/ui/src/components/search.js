// A search box that applies its text after a pause in typing, or at once with Enter (a form with
// role="search"). `value` is the search applied now (from the URL, say); `onApply(text)` is told
// the trimmed text when it differs.
//   <${SearchBox} id="company-search" label="Search by name" value=${q.search} onApply=${(search) => …} />
import { html, useEffect, useRef, useState } from '../lib/html.js';

const DELAY_MS = 400;

export function SearchBox({ id, label, value, onApply, placeholder, hiddenLabel = false }) {
  const [text, setText] = useState(value);
  const timer = useRef(null);
  useEffect(() => setText(value), [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const apply = (typed) => {
    clearTimeout(timer.current);
    if (typed.trim() !== value) onApply(typed.trim());
  };
  return html`<form role="search" class="search field" onSubmit=${(e) => { e.preventDefault(); apply(text); }}>
    <label for=${id} class=${hiddenLabel ? 'visually-hidden' : null}>${label}</label>
    <input id=${id} type="search" maxLength="200" value=${text} placeholder=${placeholder}
      onInput=${(e) => {
        const typed = e.currentTarget.value;
        setText(typed);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => apply(typed), DELAY_MS);
      }} />
  </form>`;
}
