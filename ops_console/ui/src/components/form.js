// What the administration and data pages' forms share: an input with its label, hint and the
// route's message for it (a 400's errors[].field) under it, tied with aria-describedby; and a hook
// that runs one request at a time, keeping its error and outcome for the page to show.
//
//   const act = useAction();
//   act.run('save', () => api.post('/api/admin/upload-tokens', { name }), (out) => setToken(out.token));
//   <${TextField} id="t-name" label="Name" value=${name} onInput=${setName} error=${act.fields.name} />
import { html, useState } from '../lib/html.js';
import { ErrorBanner, FieldError } from './messages.js';

export function describedBy(id, hint, error) {
  return [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || null;
}

export function TextField({ id, label, value, onInput, error, hint, type = 'text', ...rest }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <input id=${id} type=${type} value=${value} autocomplete="off" spellcheck="false" ...${rest}
      aria-invalid=${error ? 'true' : null} aria-describedby=${describedBy(id, hint, error)}
      onInput=${(e) => onInput(e.currentTarget.value)} />
    ${hint ? html`<div class="hint" id=${`${id}-hint`}>${hint}</div>` : null}
    <${FieldError} id=${`${id}-error`} message=${error} />
  </div>`;
}

// One request at a time: `busy` names the one under way, `error` is its ApiError (with `fields`
// for a 400), `done` what the page said about the last success.
export function useAction() {
  const [state, setState] = useState({ busy: null, error: null, done: null });
  const run = async (name, request, then) => {
    setState({ busy: name, error: null, done: null });
    try {
      const out = await request();
      const done = then ? then(out) : null;
      setState({ busy: null, error: null, done: done || null });
      return out;
    } catch (error) {
      setState({ busy: null, error, done: null });
      return undefined;
    }
  };
  const fields = state.error && state.error.status === 400 ? state.error.fields : {};
  return { ...state, fields, run, clear: () => setState({ busy: null, error: null, done: null }) };
}

// The route's problem as a banner when no input shows it: not a 400, or a 400 naming a field the
// form has no input for (`known`: the fields shown under inputs).
export function StrayError({ error, known = [], onRetry }) {
  if (!error) return null;
  const fields = error.status === 400 ? Object.keys(error.fields) : [];
  if (fields.length && fields.every((f) => known.includes(f))) {
    return html`<div class="field-error" role="alert">Not saved: ${fields.length === 1 ? 'a field needs' : 'some fields need'} a change (said under ${fields.length === 1 ? 'it' : 'each'}).</div>`;
  }
  return html`<${ErrorBanner} error=${error} onRetry=${onRetry} />`;
}
