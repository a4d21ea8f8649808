// Who is signed in, and the display preferences that follow from it. The session itself is the
// HttpOnly cookie the sign-in route sets: this module never sees it, and keeps in localStorage
// only the theme (so that boot.js can paint the next page in it), never a credential.
import { api } from './api.js';
import { setTimeZone } from './format.js';

export const THEMES = ['system', 'light', 'dark'];

export function applyTheme(theme) {
  const root = document.documentElement;
  if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
  else delete root.dataset.theme;
  try {
    window.localStorage.setItem('ops.theme', theme || 'system');
  } catch {
    /* storage disabled: the theme still applies to this page */
  }
}

// Applies a user's preferences (as /api/auth/me gives them) to the page.
export function applyPreferences(me) {
  applyTheme(me.theme || 'system');
  setTimeZone(me.timezone || 'UTC');
}

// The signed-in user, or null when there is no session.
export async function loadMe() {
  try {
    const me = await api.get('/api/auth/me');
    applyPreferences(me);
    return me;
  } catch (e) {
    if (e.status === 401) return null;
    throw e;
  }
}

export function can(me, resource, action) {
  return !!me && (me.isAdmin || (me.permissions || []).some((p) => p.resource === resource && p.action === action));
}
