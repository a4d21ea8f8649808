// Sign-in (POST /api/auth/login). The route sets the session cookie (HttpOnly: this page never
// holds it); the password lives only in the form until it is sent. After it, the user goes back
// to the page they were on (`next`), with the reason they were sent here shown above the form.
import { html, useEffect, useRef, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { ErrorBanner, FieldError } from '../components/messages.js';

const REASONS = {
  expired: 'Your session ended. Sign in again to go on where you were.',
  'signed-out': 'You are signed out.',
  setup: 'The administrator account was created. Sign in with it.',
};

// Only a page of this console, never another site: "#/m/tickets?x=1" is kept, anything else is "#/".
export function safeNext(next) {
  return typeof next === 'string' && /^#\/[^#]*$/.test(next) && !next.startsWith('#/sign-in') ? next : '#/';
}

export function SignIn({ query, onSignedIn }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const emailRef = useRef(null);
  const reason = REASONS[query.get('reason')];
  useEffect(() => { emailRef.current?.focus(); }, []);

  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const me = await api.post('/api/auth/login', { email, password });
      setPassword('');
      onSignedIn(me, safeNext(query.get('next')));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const fields = error?.fields || {};
  // a 401 here is the wrong e-mail or password: said under the password, not as a banner
  const refused = error && error.status === 401 ? error.problem.detail : null;
  return html`<div class="auth-page"><main class="card auth-card" id="main">
    <h1>Sign in to the ops console</h1>
    ${reason ? html`<div class="banner info" role="status">${reason}</div>` : null}
    ${error && error.status !== 401 && error.status !== 400 ? html`<${ErrorBanner} error=${error} />` : null}
    <form class="stack" onSubmit=${submit} noValidate>
      <div class="field">
        <label for="email">E-mail</label>
        <input id="email" ref=${emailRef} type="email" autocomplete="username" required value=${email}
          aria-invalid=${fields.email ? 'true' : null} aria-describedby=${fields.email ? 'email-error' : null}
          onInput=${(e) => setEmail(e.currentTarget.value)} />
        <${FieldError} id="email-error" message=${fields.email} />
      </div>
      <div class="field">
        <label for="password">Password</label>
        <input id="password" type="password" autocomplete="current-password" required value=${password}
          aria-invalid=${fields.password || refused ? 'true' : null}
          aria-describedby=${fields.password || refused ? 'password-error' : null}
          onInput=${(e) => setPassword(e.currentTarget.value)} />
        <${FieldError} id="password-error" message=${fields.password || refused} />
      </div>
      <button class="primary" type="submit" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
    </form>
  </main></div>`;
}
