// A search box's text that is applied after a pause in typing, or at once (Enter): the text
// follows `applied` when that changes from elsewhere (a reload, Back), and `apply` gets the
// trimmed text only when it differs from `applied`.
//   const box = useTypedSearch(filters.search, (search) => writeFilters({ ...filters, search }));
//   <input value=${box.text} onInput=${box.onInput} />   <form onSubmit=${box.submit}>
import { useEffect, useRef, useState } from '../lib/html.js';

export function useTypedSearch(applied, apply, delayMs = 400) {
  const [text, setText] = useState(applied);
  const timer = useRef(null);
  useEffect(() => setText(applied), [applied]);
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
