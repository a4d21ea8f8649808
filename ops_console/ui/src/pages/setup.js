// First-login setup (GET/POST /api/auth/setup): while no user exists, the first visitor creates
// the administrator; the route answers with a session, so they land on the overview signed in.
import { html, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { ErrorBanner, FieldError } from '../components/messages.js';

export function Setup({ onSignedIn }) {
  const [form, setForm] = useState({ email: '', name: '', password: '' });
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const set = (k) => (e) => setForm({ ...form, [k]: e.currentTarget.value });

  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const me = await api.post('/api/auth/setup', form);
      onSignedIn(me, '#/');
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const fields = error?.fields || {};
  const field = (id, label, type, autocomplete, hint) => html`<div class="field">
    <label for=${`setup-${id}`}>${label}</label>
    <input id=${`setup-${id}`} type=${type} autocomplete=${autocomplete} required value=${form[id]}
      aria-invalid=${fields[id] ? 'true' : null} aria-describedby=${`setup-${id}-hint${fields[id] ? ` setup-${id}-error` : ''}`}
      onInput=${set(id)} />
    <div class="hint" id=${`setup-${id}-hint`}>${hint}</div>
    <${FieldError} id=${`setup-${id}-error`} message=${fields[id]} />
  </div>`;
  return html`<div class="auth-page"><main class="card auth-card" id="main">
    <h1>Set up the ops console</h1>
    <p class="muted">No one has an account yet. Create the administrator you will sign in with; an operator adds the other users with <code>ops-console create-user</code>.</p>
    ${error && error.status !== 400 ? html`<${ErrorBanner} error=${error} />` : null}
    ${error && error.status === 400 && !Object.keys(fields).length ? html`<${ErrorBanner} error=${error} />` : null}
    <form class="stack" onSubmit=${submit} noValidate>
      ${field('email', 'E-mail', 'email', 'username', 'The address you sign in with.')}
      ${field('name', 'Name', 'text', 'name', 'How the console names you.')}
      ${field('password', 'Password', 'password', 'new-password', 'At least 12 characters.')}
      <button class="primary" type="submit" disabled=${busy}>${busy ? 'Creating…' : 'Create the administrator'}</button>
    </form>
  </main></div>`;
}
