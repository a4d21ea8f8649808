// The frame of every signed-in page: a skip link, the top bar (sections, the user, sign-out), the
// current section's pages under it, and, in the mobile interface, the bar of its sections at the
// bottom of the screen. On a phone the sections fold behind a "Menu" button.
import { html, useEffect, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { navigate } from '../lib/router.js';
import { PAGES, SECTIONS } from '../pages/index.js';

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

// The pages a user may open: administrators' pages only for administrators.
export function visiblePages(me) {
  return PAGES.filter((p) => !p.admin || me.isAdmin);
}

// The sections with at least one page the user may open.
function visibleSections(me) {
  const pages = visiblePages(me);
  return SECTIONS.filter((s) => pages.some((p) => p.section === s.id));
}

export function Shell({ me, path, children }) {
  const mobile = path === '/m' || path.startsWith('/m/');
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]); // a link followed closes the menu
  const current = PAGES.find((p) => p.path === path);
  const sections = visibleSections(me);
  const sectionPages = current && !mobile
    ? visiblePages(me).filter((p) => p.section === current.section && p.nav !== false)
    : [];
  const sectionName = current && SECTIONS.find((s) => s.id === current.section)?.name;
  return html`<div class=${mobile ? 'mobile' : ''}>
    <a class="skip-link" href="#main" onClick=${(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to the content</a>
    <header class="topbar">
      <a class="brand" href="#/">Ops console</a>
      <button type="button" class="menu-button" aria-expanded=${menuOpen ? 'true' : 'false'} aria-controls="sections"
        onClick=${() => setMenuOpen(!menuOpen)}>Menu</button>
      <nav aria-label="Sections" id="sections" class=${menuOpen ? 'open' : ''}><ul class="nav">
        ${sections.map((s) => html`<li key=${s.id}><a href=${`#${s.path}`} aria-current=${current?.section === s.id ? 'page' : null}>${s.name}</a></li>`)}
      </ul></nav>
      <div class="who"><span>${me.name || me.email}</span><button type="button" onClick=${signOut}>Sign out</button></div>
    </header>
    ${sectionPages.length > 1 ? html`<nav class="subnav" aria-label=${`${sectionName} pages`}><ul>
      ${sectionPages.map((p) => html`<li key=${p.path}><a href=${`#${p.path}`} aria-current=${p.path === path ? 'page' : null}>${p.nav || p.title}</a></li>`)}
    </ul></nav>` : null}
    <main id="main" tabindex="-1">${children}</main>
    ${mobile ? html`<nav aria-label="Mobile sections"><ul class="tabbar">
      ${MOBILE_TABS.map((t) => html`<li key=${t.href}><a href=${t.href} aria-current=${path === t.path ? 'page' : null}>${t.name}</a></li>`)}
    </ul></nav>` : null}
  </div>`;
}
