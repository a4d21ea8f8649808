// The frame of every signed-in page: a skip link, the top bar (sections, the user, sign-out) and,
// in the mobile interface, the bar of its sections at the bottom of the screen.
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { navigate } from '../lib/router.js';

const SECTIONS = [
  { href: '#/', name: 'Overview', match: (p) => p === '/' },
  { href: '#/m', name: 'Mobile', match: (p) => p === '/m' || p.startsWith('/m/') },
  { href: '#/preferences', name: 'Preferences', match: (p) => p === '/preferences' },
];

export const MOBILE_TABS = [
  { href: '#/m', path: '/m', name: 'Dashboard' },
  { href: '#/m/tickets', path: '/m/tickets', name: 'Tickets' },
  { href: '#/m/feed', path: '/m/feed', name: 'Feed' },
  { href: '#/m/finance', path: '/m/finance', name: 'Finance' },
  { href: '#/m/engagement', path: '/m/engagement', name: 'Engagement' },
];

async function signOut() {
  try {
    await api.post('/api/auth/logout');
  } finally {
    navigate('/sign-in', { reason: 'signed-out' }, { replace: true });
  }
}

export function Shell({ me, path, children }) {
  const mobile = path === '/m' || path.startsWith('/m/');
  return html`<div class=${mobile ? 'mobile' : ''}>
    <a class="skip-link" href="#main" onClick=${(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to the content</a>
    <header class="topbar">
      <a class="brand" href="#/">Ops console</a>
      <nav aria-label="Sections"><ul class="nav">
        ${SECTIONS.map((s) => html`<li key=${s.href}><a href=${s.href} aria-current=${s.match(path) ? 'page' : null}>${s.name}</a></li>`)}
      </ul></nav>
      <div class="who"><span>${me.name || me.email}</span><button type="button" onClick=${signOut}>Sign out</button></div>
    </header>
    <main id="main" tabindex="-1">${children}</main>
    ${mobile ? html`<nav aria-label="Mobile sections"><ul class="tabbar">
      ${MOBILE_TABS.map((t) => html`<li key=${t.href}><a href=${t.href} aria-current=${path === t.path ? 'page' : null}>${t.name}</a></li>`)}
    </ul></nav>` : null}
  </div>`;
}
