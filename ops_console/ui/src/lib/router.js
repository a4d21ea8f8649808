// Pages live behind the URL's fragment ("#/m/tickets?status=1"), so the server serves one shell
// at / and a reload or a bookmark opens the same page.
import { useEffect, useState } from './html.js';

function current() {
  const raw = window.location.hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  return { path: q < 0 ? raw : raw.slice(0, q), query: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)), href: `#${raw}` };
}

export function useRoute() {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const changed = () => setRoute(current());
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}

// navigate('/m/tickets', { status: [1, 8] }); replace: no new history entry.
export function navigate(path, query, { replace = false } = {}) {
  const q = query instanceof URLSearchParams ? query.toString() : new URLSearchParams(query || {}).toString();
  const href = `#${path}${q ? `?${q}` : ''}`;
  if (replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

export function currentHref() {
  return current().href;
}
