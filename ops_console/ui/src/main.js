// The console's UI: finds out who is signed in, then shows the page the URL's fragment names.
// Without a session: first-login setup while no user exists, sign-in otherwise (and back to the
// page after it). See ../README.md for how pages are made.
import { html, render, useEffect, useLayoutEffect, useRef, useState } from './lib/html.js';
import { api, onSessionEnded } from './lib/api.js';
import { applyPreferences, loadMe } from './lib/session.js';
import { currentHref, navigate, useRoute } from './lib/router.js';
import { ErrorBanner, Pending } from './components/messages.js';
import { Shell } from './components/shell.js';
import { SignIn } from './pages/sign-in.js';
import { Setup } from './pages/setup.js';
import { PAGES } from './pages/index.js';

// To sign-in, with the page to come back to (and why, when a session ended); once only, however
// many requests of the page were refused.
function sendToSignIn(reason) {
  const here = currentHref();
  if (here.startsWith('#/sign-in') || here.startsWith('#/setup') || here.startsWith('#/kiosk')) return;
  navigate('/sign-in', { next: here, ...(reason ? { reason } : {}) }, { replace: true });
}

function NotFound() {
  return html`<div class="card"><h1>No such page</h1><p>This console has no page at this address. <a href="#/">Go to the overview</a>.</p></div>`;
}

// The kiosk wall display: full screen, outside the shell, signing itself in (pages/kiosk.js).
const KIOSK = { path: '/kiosk', load: () => import('./pages/kiosk.js').then((m) => m.Kiosk) };

// A page fetched when first opened (PAGES' `load`); a failed fetch (offline, a new build) says so,
// with a retry.
const loadedPages = new Map();
function LazyPage({ page, ...props }) {
  const [state, setState] = useState(() => ({ component: loadedPages.get(page.path) }));
  const load = () => {
    setState({});
    page.load().then((component) => {
      loadedPages.set(page.path, component);
      setState({ component });
    }, () => setState({ error: { status: 0 } }));
  };
  useEffect(() => {
    if (!state.component) load();
  }, []);
  if (state.component) return html`<${state.component} ...${props} />`;
  return html`<${Pending} resource=${{ error: state.error, reload: load }} label="the page" />`;
}

function AdminOnly() {
  return html`<div class="card"><h1>Administrators only</h1><p>This page is for the console's administrators. <a href="#/">Go to the overview</a>.</p></div>`;
}

function App() {
  const route = useRoute();
  const [me, setMe] = useState(undefined); // undefined: not known yet; null: no session
  const [error, setError] = useState(null);
  const signedInHere = useRef(false); // the form was used while start() still waited

  const start = async () => {
    setError(null);
    if (route.path === KIOSK.path) return; // the wall signs itself in
    try {
      const user = await loadMe();
      if (user) {
        setMe(user);
        return;
      }
      setMe(null);
      const { setupRequired } = await api.get('/api/auth/setup');
      if (signedInHere.current) return; // signed in meanwhile: nowhere to send them
      if (setupRequired) navigate('/setup', null, { replace: true });
      else if (route.path !== '/sign-in') sendToSignIn(null);
    } catch (e) {
      setError(e);
    }
  };

  useEffect(() => {
    onSessionEnded(() => {
      setMe(null);
      sendToSignIn('expired');
    });
    start();
  }, []);

  // the page's title names where the user is; set in the commit that shows the page, so the title
  // never names the page before it (an effect would set it a frame later)
  const page = PAGES.find((p) => p.path === route.path);
  useLayoutEffect(() => {
    const name = route.path === '/sign-in' ? 'Sign in' : route.path === '/setup' ? 'Set up'
      : route.path === KIOSK.path ? 'Wall display' : page?.title;
    document.title = name ? `${name} · Ops console` : 'Ops console';
  }, [route.path]);

  // a wall display's account may read the wall only
  useEffect(() => {
    if (me && me.kiosk && route.path !== KIOSK.path) navigate(KIOSK.path, null, { replace: true });
  }, [me, route.path]);

  const signedIn = (user, next) => {
    signedInHere.current = true;
    applyPreferences(user);
    setMe(user);
    window.location.hash = next.slice(1);
  };

  if (route.path === KIOSK.path) return html`<${LazyPage} key=${KIOSK.path} page=${KIOSK} />`;
  if (me && me.kiosk) return null; // on its way to the wall (the effect above)
  if (error) return html`<main class="auth-page" id="main"><div class="auth-card"><${ErrorBanner} error=${error} onRetry=${start} /></div></main>`;
  if (route.path === '/setup') return html`<${Setup} onSignedIn=${signedIn} />`;
  if (route.path === '/sign-in' || me === null) {
    // Shown before sendToSignIn() has moved the URL (it waits for /api/auth/setup): whoever signs in
    // that fast still comes back to the page they asked for.
    const query = route.path === '/sign-in' ? route.query : new URLSearchParams({ next: route.href });
    return html`<${SignIn} query=${query} onSignedIn=${signedIn} />`;
  }
  if (me === undefined) return html`<div class="auth-page" aria-busy="true"><p class="muted">Loading…</p></div>`;
  const props = { me, query: route.query, onMeChange: (u) => { applyPreferences(u); setMe(u); } };
  let content;
  if (!page) content = html`<${NotFound} />`;
  else if (page.admin && !me.isAdmin) content = html`<${AdminOnly} />`;
  else if (page.load) content = html`<${LazyPage} key=${route.path} page=${page} ...${props} />`;
  else content = html`<${page.component} key=${route.path} ...${props} />`;
  return html`<${Shell} me=${me} path=${route.path}>${content}<//>`;
}

render(html`<${App} />`, document.getElementById('app'));

if ('serviceWorker' in navigator) {
  window.addEventListener('load', () => navigator.serviceWorker.register('/sw.js').catch(() => {}));
}
