// Searching as a person types. useTypedSearch: a search box's text that is applied after a pause
// in typing, or at once (Enter): the text follows `applied` when that changes from elsewhere (a
// reload, Back), and `apply` gets the trimmed text only when it differs from `applied`.
//   const box = useTypedSearch(filters.search, (search) => writeFilters({ ...filters, search }));
//   <input value=${box.text} onInput=${box.onInput} />   <form onSubmit=${box.submit}>
import { html, useEffect, useRef, useResetWith, useState } from '../lib/html.js';

export function useTypedSearch(applied, apply, delayMs = 400) {
  const [text, setText] = useState(applied);
  const timer = useRef(null);
  useResetWith(() => setText(applied), [applied]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const now = (value) => {
    clearTimeout(timer.current);
    if (value.trim() !== applied) apply(value.trim());
  };
  return {
    text,
    onInput: (e) => {
      const value = e.currentTarget.value;
      setText(value);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => now(value), delayMs);
    },
    submit: (e) => {
      e.preventDefault();
      now(text);
    },
  };
}

// The box itself, on useTypedSearch (a form with role="search"): `value` is the search applied now
// (from the URL, say); `onApply(text)` is told the trimmed text when it differs.
//   <${SearchBox} id="company-search" label="Search by name" value=${q.search} onApply=${(search) => …} />
export function SearchBox({ id, label, value, onApply, placeholder, hiddenLabel = false }) {
  const box = useTypedSearch(value, onApply);
  return html`<form role="search" class="search field" onSubmit=${box.submit}>
    <label for=${id} class=${hiddenLabel ? 'visually-hidden' : null}>${label}</label>
    <input id=${id} type="search" maxLength="200" value=${box.text} placeholder=${placeholder} onInput=${box.onInput} />
  </form>`;
}
