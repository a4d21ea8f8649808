// The kiosk wall display (#/kiosk): full screen and read-only, for a screen on the service desk's
// wall. It shows GET /api/kiosk/wall (the kiosk display settings' companies: today's figures, the
// most overdue tickets, the workers) in large type, refreshed every 30 seconds, and keeps going
// without a person:
//   - the console or its database down: the last figures stay, marked with the time they are
//     from and why they are not newer, and the next refresh tries again;
//   - the session ended (12 hours at most): when the person who set the screen up asked it to
//     ("Keep this screen signed in", offered for a wall display's account only: create-user
//     --kiosk, which can read nothing but this), the page signs in again with the account it kept
//     in this browser's storage, and goes on; a refused sign-in forgets it and asks for a person.
import { html, useEffect, useRef, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { applyPreferences } from '../lib/session.js';
import { ago, dateTime, day, number, time } from '../lib/format.js';
import { FieldError } from '../components/messages.js';

const KEPT = 'ops.kiosk-display'; // {email, password} of a wall display's account, when kept
const REFRESH_MS = 30_000;

function kept() {
  try {
    const value = JSON.parse(window.localStorage.getItem(KEPT) || 'null');
    return value && value.email && value.password ? value : null;
  } catch {
    return null;
  }
}
function keep(credentials) {
  try {
    window.localStorage.setItem(KEPT, JSON.stringify(credentials));
  } catch {
    /* storage disabled: the screen will need a person when its session ends */
  }
}
function forget() {
  try {
    window.localStorage.removeItem(KEPT);
  } catch {
    /* nothing kept */
  }
}

// Signs in with the kept account; true when it worked. A refused account is forgotten (and
// `refused` says why); a console that does not answer throws, so the caller tries again later.
async function signInAgain(refused) {
  const account = kept();
  if (!account) return false;
  try {
    const me = await api.post('/api/auth/login', account);
    applyPreferences(me);
    return true;
  } catch (e) {
    if (e.transient || e.status === 429) throw e;
    forget();
    refused(`The wall display's account was refused (${e.message}). Sign it in again.`);
    return false;
  }
}

const KPIS = [
  { key: 'openTickets', label: 'Open tickets' },
  { key: 'slaBreaches', label: 'SLA breaches', attention: (v) => v > 0 },
  { key: 'openedToday', label: 'Opened today' },
  { key: 'resolvedToday', label: 'Resolved today' },
];

function SignIn({ note, onSignedIn }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(true);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const me = await api.post('/api/auth/login', { email, password });
      forget();
      if (remember && me.kiosk) keep({ email, password });
      applyPreferences(me);
      onSignedIn(me, remember && !me.kiosk);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const fields = error ? error.fields : {};
  return html`<main class="kiosk kiosk-signin" id="main">
    <form class="auth-card" onSubmit=${submit} novalidate>
      <h1>Wall display</h1>
      <p class="muted">Sign this screen in with its own account (made with <code>ops-console create-user --kiosk</code>):
        it shows the kiosk view and can read nothing else.</p>
      ${note ? html`<p class="banner warn" role="status">${note}</p>` : null}
      ${error && !Object.keys(fields).length ? html`<p class="banner error" role="alert" id="kiosk-signin-error">${error.message}</p>` : null}
      <label for="kiosk-email">E-mail</label>
      <input id="kiosk-email" type="email" autocomplete="username" required value=${email} onInput=${(e) => setEmail(e.target.value)}
        aria-invalid=${fields.email ? 'true' : null} aria-describedby=${fields.email ? 'kiosk-email-error' : null} />
      <${FieldError} id="kiosk-email-error" message=${fields.email} />
      <label for="kiosk-password">Password</label>
      <input id="kiosk-password" type="password" autocomplete="current-password" required value=${password}
        onInput=${(e) => setPassword(e.target.value)}
        aria-invalid=${fields.password ? 'true' : null} aria-describedby=${fields.password ? 'kiosk-password-error' : null} />
      <${FieldError} id="kiosk-password-error" message=${fields.password} />
      <label class="check"><input type="checkbox" checked=${remember} onChange=${(e) => setRemember(e.target.checked)} />
        Keep this screen signed in</label>
      <p class="small muted">The wall display's account is kept in this browser, so that the screen signs in again by
        itself when its session ends. Only a wall display's account is kept, never a person's.</p>
      <button type="submit" class="primary" disabled=${busy}>Show the wall</button>
    </form>
  </main>`;
}

function Wall({ wall, updatedAt, stale, personal, onSignOut }) {
  return html`<main class="kiosk" id="main" aria-busy=${wall ? 'false' : 'true'}>
    <header class="kiosk-head">
      <h1>Service desk</h1>
      ${wall ? html`<p class="kiosk-when">${day(wall.date, { weekday: 'long', day: 'numeric', month: 'long' })} ·
        updated ${time(updatedAt)} <span class="muted">(${wall.timezone})</span></p>` : null}
      <div class="kiosk-actions">
        <button type="button" onClick=${() => document.documentElement.requestFullscreen?.().catch(() => {})}>Full screen</button>
        <button type="button" onClick=${onSignOut}>Sign this screen out</button>
      </div>
    </header>
    ${personal ? html`<p class="banner warn" role="status">This screen is signed in as a person, whose password is not kept:
      it will ask for a person when the session ends. Use a wall display's account to keep it signed in.</p>` : null}
    ${stale ? html`<p class="banner error kiosk-stale" role="status">
      ${wall ? `Not updated since ${dateTime(updatedAt)}: ` : 'Waiting for the console: '}${stale}. Trying again every 30 seconds.</p>` : null}
    ${wall ? html`
      <section aria-label="Today" class="kiosk-kpis">
        ${KPIS.map((k) => {
          const value = wall.kpis[k.key];
          return html`<div key=${k.key} class=${`kiosk-kpi${k.attention && k.attention(value) ? ' attention' : ''}`} data-kpi=${k.key}>
            <span class="label">${k.label}</span><span class="value">${number(value)}</span></div>`;
        })}
      </section>
      <div class="kiosk-columns">
        <section aria-labelledby="kiosk-overdue">
          <h2 id="kiosk-overdue">Most overdue</h2>
          ${wall.needsAttention.length
            ? html`<ol class="kiosk-tickets">${wall.needsAttention.map((t) => html`<li key=${t.ticketId} data-ticket=${t.ticketId}>
                <span class="number">${t.ticketNumber || `#${t.ticketId}`}</span>
                <span class="title">${t.title || 'Untitled'}</span>
                <span class="company">${t.companyName || '—'}</span>
                <span class="due">due ${ago(t.dueDateTime)}</span></li>`)}</ol>`
            : html`<p class="state">No open ticket is past its due date.</p>`}
        </section>
        <section aria-labelledby="kiosk-workers">
          <h2 id="kiosk-workers">Workers</h2>
          <ul class="kiosk-workers">${wall.workers.map((w) => html`<li key=${w.name} data-worker=${w.name}>
            <span>${w.name}</span><span class=${`badge ${w.status}`}>${w.configured === false ? 'not configured' : w.status}</span></li>`)}</ul>
        </section>
      </div>
      <p class="small muted">${number(wall.companies)} companies, as the kiosk display settings choose them.</p>`
      : stale ? null : html`<p class="state">Loading the wall…</p>`}
  </main>`;
}

export function Kiosk() {
  const [phase, setPhase] = useState('starting'); // starting | signin | wall
  const [note, setNote] = useState(null);
  const [wall, setWall] = useState(null);
  const [updatedAt, setUpdatedAt] = useState(null);
  const [stale, setStale] = useState(null);
  const [personal, setPersonal] = useState(false);
  const timer = useRef(null);

  const refresh = async () => {
    clearTimeout(timer.current);
    try {
      let answer;
      try {
        answer = await api.get('/api/kiosk/wall');
      } catch (e) {
        if (e.status !== 401) throw e;
        if (!(await signInAgain(setNote))) {
          setPhase('signin');
          return;
        }
        answer = await api.get('/api/kiosk/wall');
      }
      setWall(answer);
      setUpdatedAt(new Date().toISOString());
      setStale(null);
      setPhase('wall');
    } catch (e) {
      if (e.status === 403) {
        setNote(e.message);
        setPhase('signin');
        return;
      }
      setStale(e.status === 0 ? 'the console does not answer' : e.message.replace(/[.]$/, ''));
      setPhase('wall');
    }
    timer.current = setTimeout(refresh, REFRESH_MS);
  };

  useEffect(() => {
    document.title = 'Wall display · Ops console';
    api.get('/api/auth/me').then(applyPreferences, () => {});
    refresh();
    const visible = () => document.visibilityState === 'visible' && refresh();
    document.addEventListener('visibilitychange', visible);
    return () => {
      clearTimeout(timer.current);
      document.removeEventListener('visibilitychange', visible);
    };
  }, []);

  const signOut = async () => {
    forget();
    clearTimeout(timer.current);
    try {
      await api.post('/api/auth/logout');
    } finally {
      setWall(null);
      setNote(null);
      setPersonal(false);
      setPhase('signin');
    }
  };

  if (phase === 'starting') return html`<main class="kiosk" id="main" aria-busy="true"><p class="state">Loading the wall…</p></main>`;
  if (phase === 'signin') {
    return html`<${SignIn} note=${note} onSignedIn=${(me, unkept) => { setNote(null); setPersonal(unkept); refresh(); }} />`;
  }
  return html`<${Wall} wall=${wall} updatedAt=${updatedAt} stale=${stale} personal=${personal} onSignOut=${signOut} />`;
}
